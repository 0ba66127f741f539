//! Popups over the main screen: which one the view-model asks for, and help (or a part of
//! the manual in its place), the restore and model pickers, a tool call that asks (the
//! inspectors are `inspector.rs`, the session browser and search `sessions.rs`, the fact
//! list `facts.rs`; what they all draw with is `popup.rs`).
//!
//! Strategy: each overlay asks for a size, gets a centred rectangle no bigger than the
//! screen, clears it, and draws wrapped lines with a scroll offset clamped to the content.
//! Pickers keep the selected row in view.

use chrono::{DateTime, Utc};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::markdown::render_document;
use super::popup::{
    OverlayCtx, clamp_scroll, draw_lines, frame, list_offset, list_row, local, more_marker,
    pad_left, pad_right, popup,
};
use super::text::{age, bytes, clean, clean_line, thousands, truncate, width as str_width};
use super::view::{ModelEntry, Overlay};
use super::wrap::wrap;
use crate::core::snapshot::SnapshotMeta;

pub(crate) fn render_overlay(
    overlay: &Overlay<'_>,
    area: Rect,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    match overlay {
        Overlay::Help { bindings, scroll } => help(bindings, *scroll, area, buf, cx),
        Overlay::Facts { rows, selected } => super::facts::facts(rows, *selected, area, buf, cx),
        Overlay::Topic {
            title,
            text,
            scroll,
        } => topic(title, text, *scroll, area, buf, cx),
        Overlay::Snapshots {
            items,
            selected,
            now,
            confirm_delete,
        } => snapshots(items, *selected, *now, *confirm_delete, area, buf, cx),
        Overlay::Models {
            items,
            selected,
            current,
            note,
            pull,
        } => models(
            items,
            *selected,
            current,
            *note,
            pull.as_deref(),
            area,
            buf,
            cx,
        ),
        Overlay::Themes {
            names,
            selected,
            current,
            note,
        } => themes(names, *selected, current, *note, area, buf, cx),
        Overlay::Pull {
            title,
            lines,
            ratio,
            footer,
        } => pull(title, lines, *ratio, footer, area, buf, cx),
        Overlay::Inspector {
            checkpoint,
            originals,
            scroll,
        } => super::inspector::checkpoint(checkpoint, originals, *scroll, area, buf, cx),
        Overlay::ResultInspector {
            id,
            tool,
            seen,
            original,
            scroll,
        } => super::inspector::result(*id, tool, seen, original, *scroll, area, buf, cx),
        Overlay::Approval { ask, scroll } => approval(ask, *scroll, area, buf, cx),
        Overlay::Sessions {
            rows,
            total,
            selected,
            filter,
            prompt,
            note,
            now,
        } => super::sessions::browser(
            rows.as_deref(),
            *total,
            *selected,
            filter,
            *prompt,
            *note,
            *now,
            area,
            buf,
            cx,
        ),
        Overlay::Search {
            query,
            rows,
            selected,
            note,
        } => super::sessions::search(query, rows.as_deref(), *selected, *note, area, buf, cx),
    }
}

/// What a call will do, exactly (a diff coloured by line), and the three answers.
fn approval(
    ask: &crate::view::ApprovalAsk,
    scroll: u16,
    area: Rect,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    use crate::view::SessionScope;
    let s = &cx.theme.styles;
    let footer = match &ask.session_scope {
        SessionScope::Tool(t) => {
            format!(
                "y/Enter allow · a allow {} this session · n/Esc deny",
                clean_line(t)
            )
        }
        SessionScope::Programs(p) => {
            let names: Vec<String> = p.iter().map(|n| format!("`{}`", clean_line(n))).collect();
            format!(
                "y/Enter allow · a allow {} this session · n/Esc deny",
                names.join(", ")
            )
        }
        SessionScope::NotOffered(_) => "y/Enter allow once · n/Esc deny".to_string(),
    };
    let want_w = u16::try_from(
        ask.preview
            .lines()
            .map(str_width)
            .max()
            .unwrap_or(0)
            .max(str_width(&footer))
            + 4,
    )
    .unwrap_or(u16::MAX)
    .min(100);
    let preview = clean(&ask.preview);
    let mut lines: Vec<Line<'static>> = Vec::new();
    if ask.from_text {
        lines.push(Line::from(Span::styled(
            "The model wrote this call as text; it was read as a tool call.",
            s.dim,
        )));
    }
    if let SessionScope::NotOffered(why) = &ask.session_scope {
        lines.push(Line::from(Span::styled(
            format!("Not offered for the session: {}.", clean_line(why)),
            s.dim,
        )));
    }
    let inner_w = usize::from(want_w.saturating_sub(2)).max(1);
    for l in preview.lines() {
        let style = if l.starts_with('+') && !l.starts_with("+++") {
            s.gauge_calm
        } else if l.starts_with('-') && !l.starts_with("---") {
            s.error
        } else if l.starts_with("@@") {
            s.dim
        } else {
            s.text
        };
        lines.extend(wrap(
            &[Span::styled(l.to_string(), style)],
            inner_w,
            &[],
            &[],
        ));
    }
    let want_h = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX).min(30);
    let rect = popup(area, want_w, want_h);
    let title = format!("Allow {}?", clean_line(&ask.tool));
    let inner = frame(rect, buf, &title, &footer, cx);
    // What does not fit is never silently out of sight: the last row says how much
    // follows (a command of one harmless line and 300 more once showed as that line).
    let rows = usize::from(inner.height);
    if lines.len() <= rows || rows < 2 {
        let scroll = clamp_scroll(scroll, lines.len(), inner.height);
        draw_lines(&lines, inner, buf, scroll);
        return;
    }
    let shown = rows - 1;
    let scroll = usize::from(scroll).min(lines.len() - shown);
    let below = lines.len() - scroll - shown;
    let body = Rect {
        height: inner.height - 1,
        ..inner
    };
    draw_lines(&lines, body, buf, scroll);
    let more = if below > 0 {
        format!(
            "▼ {below} more line{} below (↓ PgDn) — all of it is what runs",
            if below == 1 { "" } else { "s" }
        )
    } else {
        format!("▲ {scroll} lines above (↑ PgUp)")
    };
    let style = if below > 0 { s.error } else { s.dim };
    buf.set_line(
        inner.x,
        inner.y + inner.height - 1,
        &Line::from(Span::styled(more, style)),
        inner.width,
    );
}

fn help(
    bindings: &[(String, String)],
    scroll: u16,
    area: Rect,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    let rows: Vec<(String, String)> = bindings
        .iter()
        .map(|(k, d)| (clean_line(k), clean_line(d)))
        .collect();
    let key_w = rows.iter().map(|(k, _)| str_width(k)).max().unwrap_or(0);
    let desc_w = rows.iter().map(|(_, d)| str_width(d)).max().unwrap_or(0);
    let want_w = u16::try_from(key_w + desc_w + 6)
        .unwrap_or(u16::MAX)
        .clamp(30, 90);
    // Lay out at the width we will get, then ask for the height that needs.
    let probe = popup(area, want_w, area.height);
    let lines = help_lines(
        &rows,
        usize::from(probe.width.saturating_sub(2)).max(1),
        key_w,
        cx,
    );
    let want_h = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX).max(5);
    let rect = popup(area, want_w, want_h);
    let inner = frame(
        rect,
        buf,
        "Help",
        &format!("PgUp/PgDn scroll{}Esc close", cx.g.sep),
        cx,
    );
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let lines = if usize::from(inner.width) + 2 == usize::from(probe.width) {
        lines
    } else {
        help_lines(&rows, usize::from(inner.width), key_w, cx)
    };
    let off = clamp_scroll(scroll, lines.len(), inner.height);
    draw_lines(&lines, inner, buf, off);
    more_marker(lines.len(), off, inner, inner != rect, buf, cx);
}

/// A part of the manual: its Markdown rendered as a document (paragraphs fill the width),
/// in the help's frame, with the help's footer and scrolling. The manual is long, so the popup takes the height it
/// can; the text wraps to the popup's width, its tables shrink to fit.
fn topic(title: &str, text: &str, scroll: u16, area: Rect, buf: &mut Buffer, cx: &OverlayCtx<'_>) {
    let rect = popup(area, 100, area.height);
    let inner = frame(
        rect,
        buf,
        &clean_line(title),
        &format!("PgUp/PgDn scroll{}Esc close", cx.g.sep),
        cx,
    );
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let lines = render_document(text, inner.width, cx.theme, cx.ascii, cx.theme.styles.text);
    let off = clamp_scroll(scroll, lines.len(), inner.height);
    draw_lines(&lines, inner, buf, off);
    more_marker(lines.len(), off, inner, inner != rect, buf, cx);
}

fn help_lines(
    rows: &[(String, String)],
    width: usize,
    key_w: usize,
    cx: &OverlayCtx<'_>,
) -> Vec<Line<'static>> {
    let s = &cx.theme.styles;
    // At most 24 columns: a long command name wraps rather than squeezing every
    // description.
    let key_col = key_w.min((width * 2 / 5).min(24)).max(1);
    let mut lines = Vec::new();
    if rows.is_empty() {
        lines.push(Line::from(Span::styled(
            "No key bindings configured.",
            s.dim,
        )));
    }
    for (k, d) in rows {
        let key = truncate(k, key_col, cx.g.ellipsis);
        let pad = key_col.saturating_sub(str_width(&key));
        let first = vec![Span::styled(key, s.accent), Span::raw(" ".repeat(pad + 2))];
        let rest = vec![Span::raw(" ".repeat(key_col + 2))];
        lines.extend(wrap(
            &[Span::styled(d.clone(), s.text)],
            width,
            &first,
            &rest,
        ));
    }
    lines
}

fn snapshots(
    items: &[SnapshotMeta],
    selected: usize,
    now: DateTime<Utc>,
    confirm_delete: bool,
    area: Rect,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    let s = &cx.theme.styles;
    let want_h = u16::try_from(items.len() + 4).unwrap_or(u16::MAX).max(6);
    let rect = popup(area, 96, want_h);
    let sep = cx.g.sep;
    let footer = if confirm_delete {
        format!("Delete this snapshot? Del or y: delete{sep}Esc: keep")
    } else if items.is_empty() {
        "Esc close".to_string()
    } else {
        format!("Enter restore{sep}Del delete{sep}Esc close")
    };
    let inner = frame(rect, buf, "Restore a snapshot", &footer, cx);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let width = usize::from(inner.width);
    if items.is_empty() {
        let lines = wrap(
            &[Span::styled(
                "No snapshots yet. Take one with /snapshot; one is also taken before every compression.",
                s.dim,
            )],
            width,
            &[],
            &[],
        );
        draw_lines(&lines, inner, buf, 0);
        return;
    }
    let header = format!(
        "  {} {} {} {} {} label",
        pad_right("when", 11),
        pad_right("ago", 4),
        pad_right("taken", 9),
        pad_left("tokens", 7),
        pad_left("msgs", 5),
    );
    buf.set_span(
        inner.x,
        inner.y,
        &Span::styled(truncate(&header, width, cx.g.ellipsis), s.dim),
        inner.width,
    );
    let rows = usize::from(inner.height).saturating_sub(1);
    let selected = selected.min(items.len() - 1);
    let off = list_offset(selected, rows);
    for (k, m) in items.iter().enumerate().skip(off).take(rows) {
        let is_sel = k == selected;
        let label = m.label.as_deref().map(clean_line).unwrap_or_default();
        let text = format!(
            "{} {} {} {} {} {} {}",
            if is_sel { cx.g.selected } else { " " },
            pad_right(&local(m.created, cx.offset), 11),
            pad_right(&age((now - m.created).num_seconds()), 4),
            pad_right(taken(m.purpose), 9),
            pad_left(&thousands(u64::from(m.tokens)), 7),
            pad_left(&thousands(m.message_count as u64), 5),
            label
        );
        let y = inner.y + 1 + u16::try_from(k - off).unwrap_or(0);
        list_row(&text, s.text, is_sel, inner, y, buf, cx);
    }
}

/// Who took a snapshot, in a word: the log's "rollback" read as jargon for the person's own
/// (#31).
fn taken(purpose: crate::core::record::SnapshotPurpose) -> &'static str {
    use crate::core::record::SnapshotPurpose;
    match purpose {
        SnapshotPurpose::Rollback => "by you",
        SnapshotPurpose::Recovery => "auto",
        SnapshotPurpose::Emergency => "emergency",
    }
}

/// Width of the capabilities column ("tools think vision").
const CAN_W: usize = 20;

/// What a model can do beyond completing text, in a word each: whether it calls tools,
/// thinks, sees images.
fn can(capabilities: &[String]) -> String {
    capabilities
        .iter()
        .filter_map(|c| match c.as_str() {
            "tools" => Some("tools"),
            "thinking" => Some("think"),
            "vision" => Some("vision"),
            "embedding" => Some("embed"),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The theme picker: a short list over a screen already drawn in the selected theme (the
/// preview is the whole screen, so the list itself stays plain); the theme in use before
/// is marked, as the model picker marks the session's model.
fn themes(
    names: &[&str],
    selected: usize,
    current: &str,
    note: Option<&str>,
    area: Rect,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    let s = &cx.theme.styles;
    let sep = cx.g.sep;
    let footer = format!("↑↓ preview{sep}Enter keep{sep}Esc back");
    let footer = if cx.ascii {
        footer.replace("↑↓", "Up/Down")
    } else {
        footer
    };
    let name_w = names
        .iter()
        .map(|n| str_width(&clean_line(n)))
        .max()
        .unwrap_or(0);
    let want_w = u16::try_from(name_w.max(str_width(&footer)) + 8)
        .unwrap_or(u16::MAX)
        .max(44);
    let note_lines = note.map_or(Vec::new(), |n| {
        wrap(
            &[Span::styled(clean_line(n), s.warn)],
            usize::from(want_w.saturating_sub(2)),
            &[],
            &[],
        )
    });
    let want_h = u16::try_from(names.len() + note_lines.len() + 2).unwrap_or(u16::MAX);
    let rect = popup(area, want_w, want_h);
    let inner = frame(rect, buf, "Theme", &footer, cx);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let rows = usize::from(inner.height)
        .saturating_sub(note_lines.len())
        .max(1);
    let selected = selected.min(names.len().saturating_sub(1));
    let off = list_offset(selected, rows);
    for (k, name) in names.iter().enumerate().skip(off).take(rows) {
        let is_sel = k == selected;
        let mark = if *name == current { cx.g.current } else { " " };
        let text = format!("{mark} {}", clean_line(name));
        let row = inner.y + u16::try_from(k - off).unwrap_or(0);
        list_row(&text, s.text, is_sel, inner, row, buf, cx);
    }
    let below = u16::try_from(names.len().min(rows)).unwrap_or(0);
    let area = Rect::new(
        inner.x,
        inner.y + below,
        inner.width,
        inner.height.saturating_sub(below),
    );
    draw_lines(&note_lines, area, buf, 0);
}

/// The pull dialog: its lines, then a bar as wide as the dialog.
fn pull(
    title: &str,
    lines: &[String],
    ratio: Option<f64>,
    footer: &str,
    area: Rect,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    let s = &cx.theme.styles;
    let rect = popup(area, 64, u16::try_from(lines.len() + 3).unwrap_or(5));
    let inner = frame(rect, buf, &clean_line(title), footer, cx);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let width = usize::from(inner.width);
    let mut y = inner.y;
    for line in lines {
        if y >= inner.y + inner.height {
            return;
        }
        buf.set_span(
            inner.x,
            y,
            &Span::styled(truncate(&clean_line(line), width, cx.g.ellipsis), s.text),
            inner.width,
        );
        y += 1;
    }
    if y >= inner.y + inner.height {
        return;
    }
    let (full, empty) = if cx.ascii { ('#', '-') } else { ('█', '░') };
    let filled = ratio.map_or(0, |r| (r.clamp(0.0, 1.0) * width as f64).floor() as usize);
    let bar: String = std::iter::repeat_n(full, filled)
        .chain(std::iter::repeat_n(empty, width - filled.min(width)))
        .collect();
    buf.set_span(inner.x, y, &Span::styled(bar, s.accent), inner.width);
}

#[allow(clippy::too_many_arguments)]
fn models(
    items: &[ModelEntry],
    selected: usize,
    current: &str,
    note: Option<&str>,
    pull: Option<&str>,
    area: Rect,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    let s = &cx.theme.styles;
    let name_w = items
        .iter()
        .map(|m| str_width(&clean_line(&m.name)))
        .max()
        .unwrap_or(10)
        .clamp(10, 40);
    let want_w = u16::try_from(name_w + 40 + CAN_W).unwrap_or(u16::MAX);
    let want_h = u16::try_from(items.len() + 5 + usize::from(pull.is_some()))
        .unwrap_or(u16::MAX)
        .max(6);
    let rect = popup(area, want_w, want_h);
    let footer = format!("Enter select{}Esc close", cx.g.sep);
    let inner = frame(rect, buf, "Choose a model", &footer, cx);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let width = usize::from(inner.width);
    let mut y = 0usize;
    if let Some(note) = note {
        let lines = wrap(&[Span::styled(clean_line(note), s.info)], width, &[], &[]);
        for line in lines.iter().take(usize::from(inner.height)) {
            buf.set_line(
                inner.x,
                inner.y + u16::try_from(y).unwrap_or(0),
                line,
                inner.width,
            );
            y += 1;
        }
    }
    if items.is_empty() && pull.is_none() {
        if note.is_none() && y < usize::from(inner.height) {
            let lines = wrap(
                &[Span::styled(
                    "No models installed. /pull llama3.2 downloads one (or `ollama pull`, then open this list again).",
                    s.dim,
                )],
                width,
                &[],
                &[],
            );
            let area = Rect::new(
                inner.x,
                inner.y + u16::try_from(y).unwrap_or(0),
                inner.width,
                inner.height - u16::try_from(y).unwrap_or(0),
            );
            draw_lines(&lines, area, buf, 0);
        }
        return;
    }
    if y < usize::from(inner.height) {
        let header = format!(
            "  {} {} {} {}  {}",
            pad_right("name", name_w),
            pad_left("size", 8),
            pad_left("params", 7),
            pad_left("context", 9),
            "can"
        );
        buf.set_span(
            inner.x,
            inner.y + u16::try_from(y).unwrap_or(0),
            &Span::styled(truncate(&header, width, cx.g.ellipsis), s.dim),
            inner.width,
        );
        y += 1;
    }
    let rows = usize::from(inner.height).saturating_sub(y);
    let first = usize::from(pull.is_some());
    let count = items.len() + first;
    let selected = selected.min(count - 1);
    let off = list_offset(selected, rows);
    for k in (0..count).skip(off).take(rows) {
        let is_sel = k == selected;
        let (text, is_current) = match (pull, k.checked_sub(first)) {
            (Some(row), None) => (format!("{} {}", cx.g.current, clean_line(row)), false),
            (_, Some(i)) => {
                let m = &items[i];
                let name = clean_line(&m.name);
                let is_current = m.name == current;
                let mark = if is_current { cx.g.current } else { " " };
                let text = format!(
                    "{mark} {} {} {} {}  {}",
                    pad_right(&truncate(&name, name_w, cx.g.ellipsis), name_w),
                    pad_left(&m.size_bytes.map(bytes).unwrap_or_default(), 8),
                    pad_left(
                        &m.parameter_size
                            .as_deref()
                            .map(clean_line)
                            .unwrap_or_default(),
                        7
                    ),
                    pad_left(
                        &m.context_length
                            .map(|c| thousands(u64::from(c)))
                            .unwrap_or_default(),
                        9
                    ),
                    can(&m.capabilities),
                );
                (text, is_current)
            }
            (None, None) => continue,
        };
        let row = inner.y + u16::try_from(y + k - off).unwrap_or(0);
        let style = if is_current { s.accent } else { s.text };
        list_row(&text, style, is_sel, inner, row, buf, cx);
    }
}
