//! The banner: a notice that needs the user, with its fix.
//!
//! Strategy: a framed box at the top of the screen when there is room (title and hint
//! wrapped in full), else a single line `icon title — hint` cut to the width. The level
//! sets the colour and the icon, so the meaning survives `NO_COLOR` and ASCII mode.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use super::entry::severity_icon;
use super::text::{clean_line, glyphs, truncate, width as str_width};
use super::theme::Theme;
use super::view::Banner;
use super::wrap::wrap;
use crate::view::Severity;

fn level_style(level: Severity, theme: &Theme) -> ratatui::style::Style {
    match level {
        Severity::Quiet => theme.styles.dim,
        Severity::Info => theme.styles.info,
        Severity::Warn => theme.styles.warn,
        Severity::Error => theme.styles.error,
    }
}

/// Lines of the full banner body at `width` (inside the frame).
pub(crate) fn banner_lines(
    b: &Banner,
    width: usize,
    theme: &Theme,
    ascii: bool,
) -> Vec<Line<'static>> {
    let g = glyphs(ascii);
    let style = level_style(b.level, theme);
    let icon = format!("{} ", severity_icon(b.level, g));
    let pad = " ".repeat(str_width(&icon));
    let mut out = wrap(
        &[Span::styled(clean_line(&b.title), style)],
        width,
        &[Span::styled(icon, style)],
        &[Span::raw(pad.clone())],
    );
    if let Some(hint) = &b.hint {
        out.extend(wrap(
            &[Span::styled(clean_line(hint), theme.styles.text)],
            width,
            &[Span::raw(pad.clone())],
            &[Span::raw(pad)],
        ));
    }
    out
}

/// Rows the full banner wants at `width` (frame included).
pub(crate) fn banner_height(b: &Banner, width: u16, theme: &Theme, ascii: bool) -> u16 {
    let inner = usize::from(width.saturating_sub(2)).max(1);
    u16::try_from(banner_lines(b, inner, theme, ascii).len() + 2).unwrap_or(u16::MAX)
}

pub(crate) fn render_banner(b: &Banner, area: Rect, buf: &mut Buffer, theme: &Theme, ascii: bool) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    Clear.render(area, buf);
    let g = glyphs(ascii);
    let style = level_style(b.level, theme);
    if area.height >= 3 && area.width >= 8 {
        let block = Block::default()
            .borders(Borders::ALL)
            .border_set(g.border)
            .border_style(style);
        let inner = block.inner(area);
        block.render(area, buf);
        let lines = banner_lines(b, usize::from(inner.width), theme, ascii);
        for (k, line) in lines.iter().take(usize::from(inner.height)).enumerate() {
            let y = inner.y + u16::try_from(k).unwrap_or(0);
            buf.set_line(inner.x, y, line, inner.width);
        }
        return;
    }
    let mut text = format!("{} {}", severity_icon(b.level, g), clean_line(&b.title));
    if let Some(hint) = &b.hint {
        text.push_str(if ascii { " - " } else { " — " });
        text.push_str(&clean_line(hint));
    }
    let text = truncate(&text, usize::from(area.width), g.ellipsis);
    buf.set_line(
        area.x,
        area.y,
        &Line::from(Span::styled(text, style)),
        area.width,
    );
}
