//! The session browser and the search hits: lists in a popup, drawn from rows the app
//! built (the ui knows nothing of the store).

use super::popup::{OverlayCtx, frame, list_offset, list_row, local, pad_left, pad_right, popup};
use super::text::{age, bytes, clean_line, thousands, truncate, width as str_width};
use super::view::{BrowserPrompt, SearchRow, SessionRow};
use chrono::{DateTime, Utc};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

#[allow(clippy::too_many_arguments)]
pub(super) fn browser(
    rows: Option<&[SessionRow]>,
    total: usize,
    selected: usize,
    filter: &str,
    prompt: BrowserPrompt<'_>,
    note: Option<&str>,
    now: DateTime<Utc>,
    area: Rect,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    let s = &cx.theme.styles;
    let sep = cx.g.sep;
    let n = rows.map_or(0, <[SessionRow]>::len);
    let want_h = u16::try_from(n + 5).unwrap_or(u16::MAX).max(8);
    let rect = popup(area, 110, want_h);
    let footer = match prompt {
        BrowserPrompt::ConfirmDelete => {
            format!("Move this session to the trash? y or Del: delete{sep}any other key: keep")
        }
        BrowserPrompt::Rename(..) => format!("Enter: save the title{sep}Esc: cancel"),
        BrowserPrompt::None => {
            format!("type to filter{sep}Enter open{sep}F2 rename{sep}Del delete{sep}Esc close")
        }
    };
    let inner = frame(rect, buf, "Sessions", &footer, cx);
    if inner.width == 0 || inner.height < 2 {
        return;
    }
    let width = usize::from(inner.width);
    // First line: the filter (or the title being typed), and how many are shown.
    let top = match prompt {
        BrowserPrompt::Rename(t, max) => {
            // The count says where the input stops; the end of a long title stays in
            // sight while it is typed.
            let n = t.chars().count();
            let count = format!("  {n}/{max}");
            let label = "New title: ";
            let room = width.saturating_sub(str_width(label) + str_width(&count) + 1);
            let clean = clean_line(t);
            let shown: String = if str_width(&clean) > room {
                let tail: Vec<char> = clean.chars().rev().take(room.saturating_sub(1)).collect();
                std::iter::once('…').chain(tail.into_iter().rev()).collect()
            } else {
                clean
            };
            Line::from(vec![
                Span::styled(label, s.accent),
                Span::styled(format!("{shown}▏"), s.text),
                Span::styled(count, if n >= max { s.warn } else { s.dim }),
            ])
        }
        _ => Line::from(vec![
            Span::styled("Filter: ", s.dim),
            Span::styled(format!("{}▏", clean_line(filter)), s.text),
            Span::styled(
                match rows {
                    None => "   loading…".to_string(),
                    Some(_) if filter.is_empty() && total == 1 => "   1 session".to_string(),
                    Some(_) if filter.is_empty() => format!("   {total} sessions"),
                    Some(r) => format!("   {} of {total}", r.len()),
                },
                s.dim,
            ),
        ]),
    };
    buf.set_line(inner.x, inner.y, &top, inner.width);
    let mut y = inner.y + 1;
    if let Some(note) = note {
        buf.set_span(
            inner.x,
            y,
            &Span::styled(truncate(&clean_line(note), width, cx.g.ellipsis), s.warn),
            inner.width,
        );
        y += 1;
    }
    let Some(rows) = rows else { return };
    if rows.is_empty() {
        let text = if total == 0 {
            "No sessions yet."
        } else {
            "No session matches the filter."
        };
        buf.set_span(inner.x, y, &Span::styled(text, s.dim), inner.width);
        return;
    }
    let header = format!(
        "  {} {} {} {} {} {} title",
        pad_right("last", 11),
        pad_right("ago", 4),
        pad_left("msgs", 5),
        pad_left("comp", 4),
        pad_left("size", 7),
        pad_right("model", 16),
    );
    buf.set_span(
        inner.x,
        y,
        &Span::styled(truncate(&header, width, cx.g.ellipsis), s.dim),
        inner.width,
    );
    y += 1;
    let list_rows = usize::from(inner.y + inner.height - y);
    let selected = selected.min(rows.len() - 1);
    let off = list_offset(selected, list_rows);
    for (k, r) in rows.iter().enumerate().skip(off).take(list_rows) {
        let is_sel = k == selected;
        let mut title = r
            .title
            .as_deref()
            .map(clean_line)
            .unwrap_or_else(|| "(no messages)".into());
        if r.current {
            title = format!("● {title}");
        }
        if let Some(p) = &r.parent {
            title = format!("{title}  (fork of {})", &p[..p.len().min(8)]);
        }
        if let Some(p) = &r.problem {
            title = format!("({}) {title}", clean_line(p));
        }
        let model = truncate(&clean_line(&r.model), 16, cx.g.ellipsis);
        let text = format!(
            "{} {} {} {} {} {} {} {}",
            if is_sel { cx.g.selected } else { " " },
            pad_right(&local(r.last_activity, cx.offset), 11),
            pad_right(&age((now - r.last_activity).num_seconds()), 4),
            pad_left(&thousands(r.messages as u64), 5),
            pad_left(&r.compressions.to_string(), 4),
            pad_left(&bytes(r.size_bytes), 7),
            pad_right(&model, 16),
            title
        );
        let row_y = y + u16::try_from(k - off).unwrap_or(0);
        list_row(&text, s.text, is_sel, inner, row_y, buf, cx);
    }
}

pub(super) fn search(
    query: &str,
    rows: Option<&[SearchRow]>,
    selected: usize,
    note: Option<&str>,
    area: Rect,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    let s = &cx.theme.styles;
    let sep = cx.g.sep;
    let lines_wanted = rows.map_or(1, |r| {
        r.len() + r.iter().filter(|x| x.heading.is_some()).count()
    });
    let want_h = u16::try_from(lines_wanted + 5).unwrap_or(u16::MAX).max(8);
    let rect = popup(area, 110, want_h);
    let title = format!("Search: {}", clean_line(query));
    let footer = format!("Enter open there{sep}↑↓ select{sep}Esc close");
    let inner = frame(rect, buf, &title, &footer, cx);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let width = usize::from(inner.width);
    let mut lines: Vec<(Line<'static>, Option<usize>)> = Vec::new();
    match rows {
        None => lines.push((Line::from(Span::styled("searching…", s.dim)), None)),
        Some([]) => lines.push((
            Line::from(Span::styled("No message in any session holds it.", s.dim)),
            None,
        )),
        Some(rows) => {
            lines.push((
                Line::from(Span::styled(
                    format!(
                        "{} hit{}",
                        rows.len(),
                        if rows.len() == 1 { "" } else { "s" }
                    ),
                    s.dim,
                )),
                None,
            ));
            for (i, r) in rows.iter().enumerate() {
                if let Some(h) = &r.heading {
                    lines.push((
                        Line::from(vec![
                            Span::styled(
                                r.session_id[..r.session_id.len().min(8)].to_string(),
                                s.dim,
                            ),
                            Span::raw("  "),
                            Span::styled(clean_line(h), s.title),
                        ]),
                        None,
                    ));
                }
                let lead = format!(
                    "{} #{:<5} {} {:<9} ",
                    if i == selected { cx.g.selected } else { " " },
                    r.seq,
                    local(r.ts, cx.offset),
                    r.role
                );
                let room = width.saturating_sub(str_width(&lead));
                let (a, m, b) = (
                    &r.snippet[..r.matched.start],
                    &r.snippet[r.matched.clone()],
                    &r.snippet[r.matched.end..],
                );
                // Keep the match in view: cut the text before it when the line is short.
                let before_room = room.saturating_sub(str_width(m) + 10);
                let a: String = if str_width(a) > before_room {
                    let skip = a
                        .chars()
                        .count()
                        .saturating_sub(before_room.saturating_sub(1));
                    format!(
                        "{}{}",
                        cx.g.ellipsis,
                        a.chars().skip(skip).collect::<String>()
                    )
                } else {
                    a.to_string()
                };
                let base = if i == selected { s.selection } else { s.text };
                lines.push((
                    Line::from(vec![
                        Span::styled(lead, base),
                        Span::styled(a, base),
                        Span::styled(
                            m.to_string(),
                            base.add_modifier(Modifier::REVERSED | Modifier::BOLD),
                        ),
                        Span::styled(b.to_string(), base),
                    ]),
                    Some(i),
                ));
            }
        }
    }
    let mut y = inner.y;
    if let Some(note) = note {
        buf.set_span(
            inner.x,
            y,
            &Span::styled(truncate(&clean_line(note), width, cx.g.ellipsis), s.warn),
            inner.width,
        );
        y += 1;
    }
    let height = usize::from(inner.y + inner.height - y);
    // The line of the selected hit, kept in view.
    let sel_line = lines
        .iter()
        .position(|(_, i)| *i == Some(selected))
        .unwrap_or(0);
    let off = list_offset(sel_line, height);
    for (k, (line, _)) in lines.iter().skip(off).take(height).enumerate() {
        let row = y + u16::try_from(k).unwrap_or(0);
        buf.set_line(inner.x, row, line, inner.width);
    }
}
