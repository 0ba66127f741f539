//! What every popup is drawn with: the context it draws in ([`OverlayCtx`]), a centred
//! rectangle no bigger than the screen ([`popup`]), its frame, wrapped lines under a
//! clamped scroll, the marker that says more follows, and the pickers' rows and small
//! column helpers. The popups themselves are `overlay.rs` (help, pickers, a tool call that asks),
//! `inspector.rs` and `sessions.rs`; they all draw with these, and none needs another.
//!
//! Strategy: borders are dropped below 4×3, so even a 2×2 terminal shows text; a scroll
//! offset never passes the end of the content; a picker keeps its selected row in view.

use chrono::{DateTime, FixedOffset, Utc};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use super::text::{Glyphs, width as str_width};
use super::theme::Theme;

pub(crate) struct OverlayCtx<'a> {
    pub theme: &'a Theme,
    pub g: &'static Glyphs,
    pub ascii: bool,
    pub offset: FixedOffset,
}

/// A centred rectangle of at most `w`×`h` inside `area`, leaving a margin when possible.
pub(crate) fn popup(area: Rect, w: u16, h: u16) -> Rect {
    let fit = |want: u16, have: u16| {
        if have > want + 2 {
            want
        } else {
            have.saturating_sub(2).max(have.min(want))
        }
    };
    let w = fit(w, area.width);
    let h = fit(h, area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// Clear `rect`, draw a titled frame if there is room, return the inside.
pub(crate) fn frame(
    rect: Rect,
    buf: &mut Buffer,
    title: &str,
    footer: &str,
    cx: &OverlayCtx<'_>,
) -> Rect {
    Clear.render(rect, buf);
    let s = &cx.theme.styles;
    buf.set_style(rect, s.text);
    if rect.width < 4 || rect.height < 3 {
        return rect;
    }
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_set(cx.g.border)
        .border_style(s.border_focus)
        .title(Span::styled(format!(" {title} "), s.title));
    if !footer.is_empty() {
        block = block.title_bottom(Span::styled(format!(" {footer} "), s.dim));
    }
    let inner = block.inner(rect);
    block.render(rect, buf);
    inner
}

pub(crate) fn draw_lines(lines: &[Line<'_>], area: Rect, buf: &mut Buffer, scroll: usize) {
    for (k, line) in lines
        .iter()
        .skip(scroll)
        .take(usize::from(area.height))
        .enumerate()
    {
        let y = area.y + u16::try_from(k).unwrap_or(0);
        buf.set_line(area.x, y, line, area.width);
    }
}

pub(crate) fn clamp_scroll(scroll: u16, total: usize, height: u16) -> usize {
    usize::from(scroll).min(total.saturating_sub(usize::from(height)))
}

/// First row to show so that `selected` is visible in `rows` rows.
pub(crate) fn list_offset(selected: usize, rows: usize) -> usize {
    if rows == 0 {
        0
    } else {
        (selected + 1).saturating_sub(rows)
    }
}

/// A `↓` at the bottom-right (on the frame when there is one) when content continues.
pub(crate) fn more_marker(
    total: usize,
    off: usize,
    inner: Rect,
    bordered: bool,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    if total > off + usize::from(inner.height) && inner.width >= 3 {
        let y = if bordered {
            inner.bottom()
        } else {
            inner.bottom() - 1
        };
        let x = inner.right() - 3;
        let span = Span::styled(format!(" {} ", cx.g.arrow_down), cx.theme.styles.hint);
        buf.set_span(x, y, &span, 3);
    }
}

pub(crate) fn local(ts: DateTime<Utc>, offset: FixedOffset) -> String {
    ts.with_timezone(&offset).format("%m-%d %H:%M").to_string()
}

pub(crate) fn pad_right(s: &str, w: usize) -> String {
    let mut out = s.to_string();
    out.extend(std::iter::repeat_n(' ', w.saturating_sub(str_width(s))));
    out
}

pub(crate) fn pad_left(s: &str, w: usize) -> String {
    let mut out: String = std::iter::repeat_n(' ', w.saturating_sub(str_width(s))).collect();
    out.push_str(s);
    out
}

/// One row of a picker at line `y` of `inner`: cut to the width, in `style`, or — the
/// selected row — highlighted across the whole width.
pub(crate) fn list_row(
    text: &str,
    style: ratatui::style::Style,
    selected: bool,
    inner: Rect,
    y: u16,
    buf: &mut Buffer,
    cx: &OverlayCtx<'_>,
) {
    let style = if selected {
        let sel = cx.theme.styles.selection;
        buf.set_style(Rect::new(inner.x, y, inner.width, 1), sel);
        sel
    } else {
        style
    };
    let text = super::text::truncate(text, usize::from(inner.width), cx.g.ellipsis);
    buf.set_span(inner.x, y, &Span::styled(text, style), inner.width);
}
