//! The inspectors: a checkpoint's summary beside the messages it replaced, and a tool
//! result as the model saw it beside the whole of it. Both are two columns scrolled
//! together (`side_by_side`), one below the other in a narrow frame.

use super::markdown::render_markdown;
use super::popup::{OverlayCtx, clamp_scroll, draw_lines, frame, more_marker, popup};
use super::text::{clean, clean_line, thousands, width as str_width};
use super::wrap::wrap;
use crate::core::checkpoint::Checkpoint;
use crate::core::message::{Message, Role};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

fn list_section(
    title: &str,
    items: &[String],
    width: usize,
    cx: &OverlayCtx<'_>,
) -> Vec<Line<'static>> {
    let s = &cx.theme.styles;
    let mut out = Vec::new();
    if items.is_empty() {
        return out;
    }
    out.push(Line::default());
    out.push(Line::from(Span::styled(title.to_string(), s.title)));
    for it in items {
        let bullet = format!("{} ", cx.g.bullets[0]);
        let pad = " ".repeat(str_width(&bullet));
        out.extend(wrap(
            &[Span::styled(clean_line(it), s.text)],
            width,
            &[Span::styled(bullet, s.accent)],
            &[Span::raw(pad)],
        ));
    }
    out
}

/// The most lines of a whole result the inspector lays out (a megabyte would be wrapped
/// on every frame); the rest is named, and `recall` or the saved file has it.
const RESULT_LINES: usize = 2000;

/// A tool result as the model saw it (left) beside the whole result (right).
#[allow(clippy::too_many_arguments)]
pub(super) fn result(
    id: crate::core::message::MessageId,
    tool: &str,
    seen: &str,
    original: &str,
    scroll: u16,
    area: Rect,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    let title = format!(
        "{} {} {id}{sep}the model saw {} of {} characters",
        cx.g.tool,
        clean_line(tool),
        thousands(seen.chars().count() as u64),
        thousands(original.chars().count() as u64),
        sep = cx.g.sep,
    );
    let column = |heading: &str, text: &str, width: usize| {
        let s = &cx.theme.styles;
        let mut out = vec![Line::from(Span::styled(heading.to_string(), s.title))];
        let total = text.lines().count();
        let shown: String = text
            .lines()
            .take(RESULT_LINES)
            .collect::<Vec<_>>()
            .join("\n");
        out.extend(wrap(
            &[Span::styled(super::text::clean(&shown), s.text)],
            width,
            &[],
            &[],
        ));
        if total > RESULT_LINES {
            out.extend(wrap(
                &[Span::styled(
                    format!(
                        "… {} more lines: recall reads them, and the saved file holds them all",
                        thousands((total - RESULT_LINES) as u64)
                    ),
                    s.dim,
                )],
                width,
                &[],
                &[],
            ));
        }
        out
    };
    side_by_side(
        &title,
        |w| column("What the model saw", seen, w),
        |w| column("The whole result", original, w),
        scroll,
        area,
        buf,
        cx,
    );
}

fn summary_lines(cp: &Checkpoint, width: usize, cx: &OverlayCtx<'_>) -> Vec<Line<'static>> {
    let s = &cx.theme.styles;
    let mut out = vec![Line::from(Span::styled("Summary", s.title))];
    if cp.truncated {
        out.extend(wrap(
            &[Span::styled(
                "Emergency truncation, not a model summary: the originals are intact in the session history.",
                s.warn,
            )],
            width,
            &[],
            &[],
        ));
    }
    let w = u16::try_from(width).unwrap_or(u16::MAX);
    out.extend(render_markdown(&cp.summary, w, cx.theme, cx.ascii, s.text));
    out.extend(list_section("Key decisions", &cp.key_decisions, width, cx));
    out.extend(list_section("Files", &cp.files, width, cx));
    out.extend(list_section("Next steps", &cp.next_steps, width, cx));
    out
}

fn original_lines(originals: &[Message], width: usize, cx: &OverlayCtx<'_>) -> Vec<Line<'static>> {
    let s = &cx.theme.styles;
    let mut out = vec![Line::from(Span::styled(
        format!("Original messages ({})", thousands(originals.len() as u64)),
        s.title,
    ))];
    if originals.is_empty() {
        out.extend(wrap(
            &[Span::styled(
                "Not loaded (or not found in the session history).",
                s.dim,
            )],
            width,
            &[],
            &[],
        ));
    }
    for m in originals {
        let (who, style): (String, Style) = match m.role {
            Role::User => ("You".to_string(), s.user),
            Role::Assistant => ("Assistant".to_string(), s.assistant),
            Role::Tool => (
                format!(
                    "{} {}",
                    cx.g.tool,
                    m.tool
                        .as_ref()
                        .map(|t| clean_line(&t.name))
                        .unwrap_or_default()
                ),
                if m.is_tool_error() {
                    s.tool_error
                } else {
                    s.tool
                },
            ),
        };
        out.push(Line::default());
        out.push(Line::from(vec![
            Span::styled(who, style),
            Span::styled(
                format!(
                    "  {} {}",
                    m.id,
                    m.ts.with_timezone(&cx.offset).format("%H:%M")
                ),
                s.dim,
            ),
        ]));
        let text = clean(&m.text);
        out.extend(wrap(
            &[Span::styled(
                text.trim_end_matches('\n').to_string(),
                s.text,
            )],
            width,
            &[],
            &[],
        ));
    }
    out
}

pub(super) fn checkpoint(
    cp: &Checkpoint,
    originals: &[Message],
    scroll: u16,
    area: Rect,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    let range = match cp.range() {
        Some((a, b)) if a == b => format!("{a}"),
        Some((a, b)) => format!("{a}{}{b}", cx.g.range),
        None => "-".to_string(),
    };
    let title = format!(
        "Checkpoint #{}{sep}{}{sep}{}/{} tokens{sep}messages {range}",
        cp.number,
        cp.level.name(),
        thousands(u64::from(cp.tokens)),
        thousands(u64::from(cp.original_tokens)),
        sep = cx.g.sep,
    );
    side_by_side(
        &title,
        |w| summary_lines(cp, w, cx),
        |w| original_lines(originals, w, cx),
        scroll,
        area,
        buf,
        cx,
    );
}

/// A large framed popup titled `title`: two columns scrolled together (left two
/// fifths), or, in a narrow frame, one below the other under a rule.
fn side_by_side(
    title: &str,
    left_of: impl Fn(usize) -> Vec<Line<'static>>,
    right_of: impl Fn(usize) -> Vec<Line<'static>>,
    scroll: u16,
    area: Rect,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    let s = &cx.theme.styles;
    let rect = popup(
        area,
        area.width.saturating_sub(4).max(40),
        area.height.saturating_sub(2),
    );
    let inner = frame(rect, buf, title, "Esc close", cx);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    if inner.width >= 70 {
        let left_w = inner.width * 2 / 5;
        let left = Rect::new(inner.x, inner.y, left_w, inner.height);
        let div = Rect::new(inner.x + left_w, inner.y, 1, inner.height);
        let right = Rect::new(
            inner.x + left_w + 2,
            inner.y,
            inner.width - left_w - 2,
            inner.height,
        );
        let sum = left_of(usize::from(left.width));
        let orig = right_of(usize::from(right.width));
        let off_l = clamp_scroll(scroll, sum.len(), left.height);
        let off_r = clamp_scroll(scroll, orig.len(), right.height);
        draw_lines(&sum, left, buf, off_l);
        for y in div.top()..div.bottom() {
            buf.set_span(div.x, y, &Span::styled(cx.g.table_v, s.border), 1);
        }
        draw_lines(&orig, right, buf, off_r);
        more_marker(
            orig.len().max(sum.len()),
            off_r.max(off_l),
            inner,
            inner != rect,
            buf,
            cx,
        );
    } else {
        let width = usize::from(inner.width);
        let mut lines = left_of(width);
        lines.push(Line::default());
        lines.push(Line::from(Span::styled(cx.g.rule.repeat(width), s.rule)));
        lines.extend(right_of(width));
        let off = clamp_scroll(scroll, lines.len(), inner.height);
        draw_lines(&lines, inner, buf, off);
        more_marker(lines.len(), off, inner, inner != rect, buf, cx);
    }
}
