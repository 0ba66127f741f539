//! Rendering: a pure function from a view-model ([`UiView`]) to terminal cells.
//!
//! Strategy: the app assembles a [`UiView`] each frame and calls [`render`]; nothing
//! here does I/O, talks to tokio or keeps global state besides the lazily decoded
//! syntax definitions. The only state is owned by the caller: the [`Transcript`], which
//! caches each entry's rendered lines per width so a frame costs O(visible lines).
//! Themes are loaded once at startup with [`Theme::load`].
//!
//! Screen, top to bottom: banner (if any), transcript with the optional goal panel on
//! the right, the input box, the status line. Overlays draw over everything. Layout
//! degrades with size: the banner shrinks to one line, the input loses its border, and
//! a one-row terminal shows only the status line. Any size, 0×0 included, renders.
//!
//! Safety: all text from outside passes through `core::sanitize` (plus tab
//! expansion) before it becomes a span, and the finished frame is scrubbed once more
//! for control and bidi characters, covering the textarea's contents too.

mod banner;
mod entry;
mod facts;
mod highlight;
mod inspector;
pub mod markdown;
mod overlay;
mod panel;
mod popup;
mod sessions;
mod status;
pub mod text;
pub mod theme;
pub mod thumbnail;
pub mod transcript;
pub mod view;
mod wrap;

pub use highlight::{CodeCache, syntax_assets_loaded};
pub use theme::{Theme, ThemeError};
pub use transcript::Transcript;
pub use view::{
    Banner, BrowserPrompt, GaugeBand, GaugeView, ModelEntry, Overlay, PanelView, SearchRow,
    SessionRow, StatusView, UiView,
};

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders, Widget};
use std::hash::{Hash, Hasher};
use tui_textarea::{TextArea, WrapMode};

/// Minimum width for the panel to sit beside the transcript; narrower, it takes the
/// whole main area.
pub const PANEL_SIDE_MIN_WIDTH: u16 = 60;

/// Draw `view` into the frame.
pub fn render(frame: &mut Frame<'_>, view: &mut UiView<'_>) {
    let area = frame.area();
    render_buffer(area, frame.buffer_mut(), view);
}

/// Draw `view` into `area` of `buf` (what [`render`] does, without a `Frame`).
pub fn render_buffer(area: Rect, buf: &mut Buffer, view: &mut UiView<'_>) {
    let area = buf.area.intersection(area);
    if area.width == 0 || area.height == 0 {
        return;
    }
    let layout = Layout::compute(area, view);
    let g = text::glyphs(view.ascii);
    buf.set_style(area, view.theme.styles.text);

    if let (Some(b), Some(r)) = (&view.banner, layout.banner) {
        banner::render_banner(b, r, buf, view.theme, view.ascii);
    }
    if let Some(mut r) = layout.transcript {
        // Pictures for the next message sit just above the box, one chip a line.
        if !view.attached.is_empty() && r.height > 3 {
            let rows = u16::try_from(view.attached.len().min(3))
                .unwrap_or(3)
                .min(r.height / 3)
                .max(1);
            r.height -= rows;
            let foot = Rect::new(r.x, r.y + r.height, r.width, rows);
            render_attached(&view.attached, foot, buf, view.theme, view.ascii);
        }
        // Messages typed ahead sit at the transcript's foot, one line each.
        if !view.queued.is_empty() && r.height > 3 {
            let rows = u16::try_from(view.queued.len().min(3))
                .unwrap_or(3)
                .min(r.height / 3)
                .max(1);
            r.height -= rows;
            let foot = Rect::new(r.x, r.y + r.height, r.width, rows);
            render_queued(view.queued, foot, buf, view.theme, view.ascii);
        }
        let ctx = entry::EntryCtx {
            theme: view.theme,
            g,
            ascii: view.ascii,
            offset: view.utc_offset,
            details: view.details,
            image_cost: view.image_cost,
            thumbnails: view.thumbnails,
        };
        view.transcript.render(r, buf, &ctx, style_key(view));
    }
    if let (Some(p), Some(r)) = (&view.panel, layout.panel) {
        panel::render_panel(p, r, buf, view.theme, view.ascii);
    }
    if let Some(r) = layout.input {
        render_input(view, r, layout.input_bordered, buf);
    }
    if let Some(r) = layout.status {
        status::render_status(&view.status, r, buf, view.theme, view.ascii);
    }
    if let Some(o) = &view.overlay {
        let cx = popup::OverlayCtx {
            theme: view.theme,
            g,
            ascii: view.ascii,
            offset: view.utc_offset,
        };
        overlay::render_overlay(o, area, buf, &cx);
    }
    text::scrub_buffer(buf, area);
}

/// Apply the theme to a textarea: text style, a visible cursor, no underlined cursor
/// line, and a placeholder. Call once after creating it (and after a theme change).
///
/// It also turns on soft wrapping (at words, splitting words wider than the box): a
/// long line is read whole, and the textarea's screen column, a `u16`, stays small —
/// unwrapped, a line past 65,535 columns scrolled to the wrong place and text typed at
/// its end never showed.
pub fn style_textarea(textarea: &mut TextArea<'_>, theme: &Theme) {
    textarea.set_wrap_mode(WrapMode::WordOrGlyph);
    let s = &theme.styles;
    textarea.set_style(s.text);
    textarea.set_cursor_line_style(Style::new());
    textarea.set_cursor_style(s.text.add_modifier(ratatui::style::Modifier::REVERSED));
    textarea.set_placeholder_text("Message (Enter to send)");
    textarea.set_placeholder_style(s.dim);
    textarea.set_selection_style(s.selection);
}

fn style_key(view: &UiView<'_>) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    view.theme.hash(&mut h);
    view.ascii.hash(&mut h);
    view.utc_offset.local_minus_utc().hash(&mut h);
    view.details.hash(&mut h);
    // A learned picture cost changes the chips under sent messages.
    view.image_cost.hash(&mut h);
    // Thumbnails keep rows under the chips.
    view.thumbnails.is_some().hash(&mut h);
    h.finish()
}

#[derive(Debug, Default)]
struct Layout {
    banner: Option<Rect>,
    transcript: Option<Rect>,
    panel: Option<Rect>,
    input: Option<Rect>,
    input_bordered: bool,
    status: Option<Rect>,
}

/// Visual rows the input text needs at `width`, counting no further than `cap`.
fn input_rows(input: &TextArea<'_>, width: u16, cap: usize) -> usize {
    let lines = input.lines();
    if input.wrap_mode() == WrapMode::None || width == 0 {
        return lines.len().clamp(1, cap.max(1));
    }
    let w = usize::from(width);
    let mut rows = 0;
    for line in lines {
        rows += text::width(line).div_ceil(w).max(1);
        if rows >= cap {
            return cap.max(1);
        }
    }
    rows.max(1)
}

impl Layout {
    fn compute(area: Rect, view: &UiView<'_>) -> Layout {
        let mut l = Layout::default();
        let (x, w, h) = (area.x, area.width, area.height);
        let bottom = area.y + h;
        l.status = Some(Rect::new(x, bottom - 1, w, 1));
        if h == 1 {
            return l;
        }
        let above = h - 1;
        l.input_bordered = h >= 8 && w >= 10;
        let input_h = if l.input_bordered {
            let cap = usize::from((h / 3).saturating_sub(2).max(1));
            let rows = input_rows(view.input, w.saturating_sub(2), cap);
            u16::try_from(rows).unwrap_or(1) + 2
        } else {
            let cap = usize::from((h / 4).max(1));
            u16::try_from(input_rows(view.input, w.saturating_sub(2), cap)).unwrap_or(1)
        }
        .min(above);
        l.input = Some(Rect::new(x, bottom - 1 - input_h, w, input_h));
        let mut rest = above - input_h;
        let mut top = area.y;
        if let Some(b) = &view.banner {
            let full = banner::banner_height(b, w, view.theme, view.ascii);
            let bh = if rest >= full + 4 && w >= 8 {
                full
            } else if rest >= 2 {
                1
            } else {
                0
            };
            if bh > 0 {
                l.banner = Some(Rect::new(x, top, w, bh));
                top += bh;
                rest -= bh;
            }
        }
        if rest == 0 {
            return l;
        }
        let main = Rect::new(x, top, w, rest);
        match &view.panel {
            None => l.transcript = Some(main),
            Some(_) if w >= PANEL_SIDE_MIN_WIDTH => {
                let pw = (w / 3).clamp(28, 48);
                l.transcript = Some(Rect::new(x, top, w - pw, rest));
                l.panel = Some(Rect::new(x + w - pw, top, pw, rest));
            }
            Some(_) => l.panel = Some(main),
        }
        l
    }
}

/// One chip a line; the last row says how many more there are.
fn render_attached(chips: &[String], area: Rect, buf: &mut Buffer, theme: &Theme, ascii: bool) {
    let s = &theme.styles;
    let g = text::glyphs(ascii);
    let rows = usize::from(area.height);
    let width = usize::from(area.width);
    for (i, chip) in chips.iter().take(rows).enumerate() {
        let more = chips.len() - rows;
        let chip = if i + 1 == rows && more > 0 {
            format!("{chip} (+{more})")
        } else {
            chip.clone()
        };
        let line = ratatui::text::Line::from(vec![
            Span::raw(" "),
            Span::styled(
                text::truncate(
                    &text::clean_line(&chip),
                    width.saturating_sub(2),
                    g.ellipsis,
                ),
                s.accent,
            ),
        ]);
        let y = area.y + u16::try_from(i).unwrap_or(0);
        buf.set_line(area.x, y, &line, area.width);
    }
}

/// `queued · first line of the message` per message (the last row counts any more),
/// and how to take them back.
fn render_queued(queued: &[String], area: Rect, buf: &mut Buffer, theme: &Theme, ascii: bool) {
    let s = &theme.styles;
    let g = text::glyphs(ascii);
    let rows = usize::from(area.height);
    for (i, msg) in queued.iter().take(rows).enumerate() {
        let more = queued.len() - rows;
        let label = if i + 1 == rows && more > 0 {
            format!(" queued (+{more} more) ")
        } else {
            " queued ".to_string()
        };
        let hint = if i == 0 { "  · Esc takes it back" } else { "" };
        let first = msg.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let width = usize::from(area.width);
        let room = width.saturating_sub(label.chars().count() + hint.chars().count() + 1);
        let line = ratatui::text::Line::from(vec![
            Span::styled(
                label,
                s.accent.add_modifier(ratatui::style::Modifier::REVERSED),
            ),
            Span::raw(" "),
            Span::styled(
                text::truncate(&text::clean_line(first), room, g.ellipsis),
                s.text,
            ),
            Span::styled(hint, s.dim),
        ]);
        let y = area.y + u16::try_from(i).unwrap_or(0);
        buf.set_line(area.x, y, &line, area.width);
    }
}

fn render_input(view: &UiView<'_>, area: Rect, bordered: bool, buf: &mut Buffer) {
    let s = &view.theme.styles;
    let g = text::glyphs(view.ascii);
    if bordered {
        let mut block = Block::default()
            .borders(Borders::ALL)
            .border_set(g.border)
            .border_style(s.border)
            .title(Span::styled(" Message ", s.title));
        if let Some(note) = &view.input_note {
            let note = text::truncate(
                &text::clean_line(note),
                usize::from(area.width.saturating_sub(14)),
                g.ellipsis,
            );
            block = block.title_bottom(
                ratatui::text::Line::from(Span::styled(format!(" {note} "), s.warn))
                    .right_aligned(),
            );
        }
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.width > 0 && inner.height > 0 {
            view.input.render(inner, buf);
        }
    } else {
        let prompt = if area.width >= 6 { "> " } else { "" };
        let pw = u16::try_from(prompt.len()).unwrap_or(0);
        buf.set_span(area.x, area.y, &Span::styled(prompt, s.accent), pw);
        let rest = Rect::new(area.x + pw, area.y, area.width - pw, area.height);
        if rest.width > 0 {
            view.input.render(rest, buf);
        }
    }
}
