//! The fact ledger as a list (`/facts`): each fact, where it was said, and whether the
//! next request carries it — the badge's count made visible, so the person can see what
//! the model will be told and put a hand on it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

use super::popup::{
    OverlayCtx, draw_lines, frame, list_offset, list_row, pad_left, pad_right, popup,
};
use super::text::{clean_line, truncate};
use super::wrap::wrap;
use crate::core::engine::{FactPlace, FactRow};

/// The place of a fact in a word or two.
pub(crate) fn place_word(place: FactPlace) -> &'static str {
    match place {
        FactPlace::InView => "in view",
        FactPlace::Carried => "sent",
        FactPlace::NotSent => "not sent",
        FactPlace::Forgotten => "forgotten",
    }
}

pub(crate) fn facts(
    rows: &[FactRow],
    selected: usize,
    area: Rect,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    let s = &cx.theme.styles;
    let want_h = u16::try_from(rows.len() + 5).unwrap_or(u16::MAX).max(7);
    let rect = popup(area, 110, want_h);
    let sep = cx.g.sep;
    let footer = if rows.is_empty() {
        "Esc close".to_string()
    } else {
        format!("p pin{sep}e edit{sep}d forget or keep{sep}Esc close")
    };
    let sent = rows
        .iter()
        .filter(|r| matches!(r.place, FactPlace::Carried | FactPlace::InView))
        .count();
    let title = format!("Facts: {sent} of {} go with the next message", rows.len());
    let inner = frame(rect, buf, &title, &footer, cx);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let width = usize::from(inner.width);
    if rows.is_empty() {
        let lines = wrap(
            &[Span::styled(
                "No facts yet. Names, numbers, dates, codes and paths you state are listed here, with whether the model is still sent them.",
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
        "  {} {} {}   fact",
        pad_left("n", 3),
        pad_right("next request", 12),
        pad_left("said in", 7),
    );
    buf.set_span(
        inner.x,
        inner.y,
        &Span::styled(truncate(&header, width, cx.g.ellipsis), s.dim),
        inner.width,
    );
    let shown = usize::from(inner.height).saturating_sub(1);
    let selected = selected.min(rows.len() - 1);
    let off = list_offset(selected, shown);
    for (k, r) in rows.iter().enumerate().skip(off).take(shown) {
        let is_sel = k == selected;
        let mark = if r.pinned { cx.g.pin } else { " " };
        let by = if r.by_model { "(model) " } else { "" };
        let edited = if r.edited { " (edited)" } else { "" };
        let text = format!(
            "{} {} {} {} {} {by}{}{edited}",
            if is_sel { cx.g.selected } else { " " },
            pad_left(&(k + 1).to_string(), 3),
            pad_right(place_word(r.place), 12),
            pad_left(&r.from.map(|id| id.to_string()).unwrap_or_default(), 7),
            mark,
            clean_line(&r.text),
        );
        let y = inner.y + 1 + u16::try_from(k - off).unwrap_or(0);
        let style = match r.place {
            FactPlace::NotSent => s.warn,
            FactPlace::Forgotten => s.dim,
            FactPlace::Carried | FactPlace::InView => s.text,
        };
        list_row(&text, style, is_sel, inner, y, buf, cx);
    }
}
