//! One transcript entry → its lines at a width: header and body. (The transcript puts
//! a blank line between entries, so the newest line sits right above the input.)
//!
//! Strategy: user text is shown verbatim (wrapped, never interpreted as markdown: what
//! you typed is what you see); assistant text is markdown; tool output is plain and
//! capped to a preview; notices and folds are single wrapped lines. Everything is
//! sanitized on the way in. Output is `'static` so the transcript can cache it.
//!
//! A streaming reply is split at its last blank line outside a code fence: the part
//! before is rendered once and kept ([`StreamCache`]), only the tail is re-rendered as
//! deltas arrive. When the reply completes it is rendered whole once more, so the final
//! lines are exactly those of a non-streamed reply.

use chrono::{DateTime, FixedOffset, Utc};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::highlight::CodeCache;
use super::markdown::render_markdown_cached;
use super::text::{Glyphs, clean, clean_line, thousands, width as str_width};
use super::theme::Theme;
use super::wrap::wrap;
use crate::view::{Entry, EntryKind, ReplyState, Severity};

/// Tool output shows at most this many source lines in the transcript.
pub(crate) const TOOL_PREVIEW_LINES: usize = 12;

/// Everything besides the entry that affects its lines (the cache key, with width).
pub(crate) struct EntryCtx<'a> {
    pub theme: &'a Theme,
    pub g: &'static Glyphs,
    pub ascii: bool,
    pub offset: FixedOffset,
}

/// The already-rendered stable prefix of a streaming reply.
#[derive(Debug, Default)]
pub(crate) struct StreamCache {
    pub width: u16,
    /// Bytes of the text covered by `lines`.
    pub stable_bytes: usize,
    pub lines: Vec<Line<'static>>,
}

fn indent_for(width: u16) -> usize {
    if width >= 24 { 2 } else { 0 }
}

fn time(ts: DateTime<Utc>, offset: FixedOffset) -> String {
    ts.with_timezone(&offset).format("%H:%M").to_string()
}

fn header(entry: &Entry, ctx: &EntryCtx<'_>) -> Line<'static> {
    let s = &ctx.theme.styles;
    let sep = Span::styled(ctx.g.sep.to_string(), s.dim);
    let mut spans = Vec::new();
    match &entry.kind {
        EntryKind::User => spans.push(Span::styled("You", s.user)),
        EntryKind::Assistant { state } => {
            spans.push(Span::styled("Assistant", s.assistant));
            match state {
                ReplyState::Streaming => {
                    spans.push(sep.clone());
                    spans.push(Span::styled(format!("writing{}", ctx.g.ellipsis), s.dim));
                }
                ReplyState::Interrupted => {
                    spans.push(sep.clone());
                    spans.push(Span::styled("interrupted", s.warn));
                }
                ReplyState::Complete => {}
            }
        }
        EntryKind::Tool { name, is_error } => {
            spans.push(Span::styled(
                format!("{} {}", ctx.g.tool, clean_line(name)),
                s.tool,
            ));
            if *is_error {
                spans.push(sep.clone());
                spans.push(Span::styled("error", s.tool_error));
            }
        }
        EntryKind::Notice(_) | EntryKind::Fold { .. } => {}
    }
    // The number `/pin N`, `/unpin N` and `/inspect`'s originals refer to; without it on
    // screen those commands could only be used on the last reply.
    // Right after the role, before any status: "Assistant #3 · interrupted".
    if let Some(id) = entry.id {
        let at = spans.len().min(1);
        spans.insert(at, Span::styled(format!(" {id}"), s.dim));
    }
    if entry.pinned {
        spans.push(sep.clone());
        spans.push(Span::styled(format!("{} pinned", ctx.g.pin), s.pinned));
    }
    // Shown here, the model now sees only the checkpoint's summary of it.
    if let Some(n) = entry.folded {
        spans.push(sep.clone());
        spans.push(Span::styled(format!("in checkpoint {n}"), s.dim));
    }
    spans.push(Span::styled(
        format!("  {}", time(entry.ts, ctx.offset)),
        s.dim,
    ));
    Line::from(spans)
}

fn indented(lines: Vec<Line<'static>>, indent: usize) -> impl Iterator<Item = Line<'static>> {
    lines.into_iter().map(move |mut l| {
        if indent > 0 {
            l.spans.insert(0, Span::raw(" ".repeat(indent)));
        }
        l
    })
}

/// Plain text wrapped line by line (source newlines kept).
fn plain(text: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    let cleaned = clean(text);
    let body = cleaned.trim_end_matches('\n');
    wrap(&[Span::styled(body.to_string(), style)], width, &[], &[])
}

fn severity_style(level: Severity, theme: &Theme) -> Style {
    match level {
        Severity::Info => theme.styles.info,
        Severity::Warn => theme.styles.warn,
        Severity::Error => theme.styles.error,
    }
}

pub(crate) fn severity_icon(level: Severity, g: &Glyphs) -> &'static str {
    match level {
        Severity::Info => g.info,
        Severity::Warn => g.warn,
        Severity::Error => g.error,
    }
}

fn markdown(
    text: &str,
    width: u16,
    ctx: &EntryCtx<'_>,
    code: &mut CodeCache,
) -> Vec<Line<'static>> {
    let base = ctx.theme.styles.text;
    render_markdown_cached(text, width, ctx.theme, ctx.ascii, base, code)
}

fn placeholder(ctx: &EntryCtx<'_>) -> Vec<Line<'static>> {
    vec![Line::from(Span::styled(
        ctx.g.ellipsis,
        ctx.theme.styles.dim,
    ))]
}

/// Render a whole entry (header and body) at `width`.
pub(crate) fn render_entry(
    entry: &Entry,
    width: u16,
    ctx: &EntryCtx<'_>,
    code: &mut CodeCache,
) -> Vec<Line<'static>> {
    render_with(entry, width, ctx, |body_w| {
        if entry.text.trim().is_empty() {
            placeholder(ctx)
        } else {
            markdown(&entry.text, body_w, ctx, code)
        }
    })
}

/// Render a streaming reply, re-using and extending `cache` for the stable prefix.
pub(crate) fn render_streaming(
    entry: &Entry,
    width: u16,
    ctx: &EntryCtx<'_>,
    cache: &mut StreamCache,
    code: &mut CodeCache,
) -> Vec<Line<'static>> {
    render_with(entry, width, ctx, |body_w| {
        if cache.width != body_w || cache.stable_bytes > entry.text.len() {
            *cache = StreamCache {
                width: body_w,
                ..StreamCache::default()
            };
        }
        let split = stable_split(&entry.text);
        if split > cache.stable_bytes {
            let chunk = &entry.text[cache.stable_bytes..split];
            if !chunk.trim().is_empty() {
                if !cache.lines.is_empty() {
                    cache.lines.push(Line::default());
                }
                cache.lines.extend(markdown(chunk, body_w, ctx, code));
            }
            cache.stable_bytes = split;
        }
        let tail = &entry.text[cache.stable_bytes..];
        let mut body = cache.lines.clone();
        if !tail.trim().is_empty() {
            if !body.is_empty() {
                body.push(Line::default());
            }
            body.extend(markdown(tail, body_w, ctx, code));
        }
        if body.is_empty() {
            body = placeholder(ctx);
        }
        body
    })
}

fn render_with(
    entry: &Entry,
    width: u16,
    ctx: &EntryCtx<'_>,
    assistant: impl FnOnce(u16) -> Vec<Line<'static>>,
) -> Vec<Line<'static>> {
    let s = &ctx.theme.styles;
    let indent = indent_for(width);
    let body_w = usize::from(width).saturating_sub(indent).max(1);
    let mut out = Vec::new();
    match &entry.kind {
        EntryKind::User => {
            out.push(header(entry, ctx));
            out.extend(indented(plain(&entry.text, body_w, s.text), indent));
        }
        EntryKind::Assistant { state } => {
            out.push(header(entry, ctx));
            let bw = u16::try_from(body_w).unwrap_or(u16::MAX);
            out.extend(indented(assistant(bw), indent));
            if *state == ReplyState::Interrupted {
                let note = format!("{} reply interrupted: partial text kept", ctx.g.warn);
                out.extend(indented(
                    wrap(&[Span::styled(note, s.warn)], body_w, &[], &[]),
                    indent,
                ));
            }
        }
        EntryKind::Tool { is_error, .. } => {
            out.push(header(entry, ctx));
            let style = if *is_error { s.tool_error } else { s.dim };
            let cleaned = clean(&entry.text);
            let body = cleaned.trim_end_matches('\n');
            let total = body.lines().count();
            let shown: String = if total > TOOL_PREVIEW_LINES && !*is_error {
                body.lines()
                    .take(TOOL_PREVIEW_LINES)
                    .collect::<Vec<_>>()
                    .join("\n")
            } else {
                body.to_string()
            };
            out.extend(indented(
                wrap(&[Span::styled(shown, style)], body_w, &[], &[]),
                indent,
            ));
            if total > TOOL_PREVIEW_LINES && !*is_error {
                let more = format!(
                    "{} {} more lines",
                    ctx.g.ellipsis,
                    thousands((total - TOOL_PREVIEW_LINES) as u64)
                );
                out.extend(indented(
                    vec![Line::from(Span::styled(more, s.dim))],
                    indent,
                ));
            }
        }
        EntryKind::Notice(level) => {
            let style = severity_style(*level, ctx.theme);
            let icon = format!("{} ", severity_icon(*level, ctx.g));
            let pad = " ".repeat(str_width(&icon));
            let cleaned = clean(&entry.text);
            out.extend(wrap(
                &[Span::styled(
                    cleaned.trim_end_matches('\n').to_string(),
                    style,
                )],
                usize::from(width),
                &[Span::styled(icon, style)],
                &[Span::raw(pad)],
            ));
        }
        EntryKind::Fold {
            checkpoint,
            messages,
            tokens,
            merged_into,
        } => {
            let merged = merged_into
                .map(|m| format!(" (since merged into checkpoint {m})"))
                .unwrap_or_default();
            let text = format!(
                "{f}{f} checkpoint {checkpoint}{merged}: {messages} earlier messages folded ({tok} tokens) {f}{f}",
                f = ctx.g.fold,
                messages = thousands(*messages as u64),
                tok = thousands(u64::from(*tokens)),
            );
            out.extend(wrap(
                &[Span::styled(text, s.dim)],
                usize::from(width),
                &[],
                &[],
            ));
        }
    }
    out
}

/// Byte offset up to which a streaming reply can be rendered for good: just after its
/// last blank line that is outside a code fence (0 if none).
pub(crate) fn stable_split(text: &str) -> usize {
    let mut fence: Option<(char, usize)> = None;
    let mut split = 0;
    let mut pos = 0;
    let mut prev_blank = false;
    for line in text.split_inclusive('\n') {
        let complete = line.ends_with('\n');
        let outside = fence.is_none();
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        if let (Some(c), true) = (marker, indent < 4) {
            let run = trimmed.chars().take_while(|x| *x == c).count();
            if run >= 3 {
                match fence {
                    None => fence = Some((c, run)),
                    Some((fc, n)) if fc == c && run >= n && trimmed[run..].trim().is_empty() => {
                        fence = None;
                    }
                    Some(_) => {}
                }
            }
        }
        let blank = line.trim().is_empty();
        // A blank line ends a block; cut at the start of the first non-blank line after.
        if outside && prev_blank && !blank {
            split = pos;
        }
        prev_blank = blank && complete && fence.is_none();
        pos += line.len();
    }
    split
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn split_only_outside_fences() {
        assert_eq!(stable_split("a\n\nb"), 3);
        assert_eq!(stable_split("a\n\nb\n\nc"), 6);
        assert_eq!(stable_split("no blank yet"), 0);
        // A blank line inside an open fence is not a split point.
        assert_eq!(stable_split("a\n\n```\nx\n\ny"), 3);
        // After the fence closes, the next blank line is.
        let t = "```\nx\n\ny\n```\n\nz";
        assert_eq!(stable_split(t), t.len() - 1);
        // Trailing blank lines wait for the next block to start.
        assert_eq!(stable_split("a\n\n"), 0);
    }
}
