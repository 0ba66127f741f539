//! Text helpers shared by every renderer: cleaning untrusted text, measuring display
//! width, number formatting, and the last-line-of-defence buffer scrub.
//!
//! Invariant: every string that reaches a `Span` from outside the UI (model output, goal
//! text, model names, labels, banner text) goes through `clean` or `clean_line`
//! first, so no escape sequence, C0/C1 control, bidi override or tab reaches a cell.
//! `scrub_buffer` re-checks the finished frame, which also covers widgets that draw
//! text we do not control (the input textarea).

use crate::core::image::{ImageCost, ImageRef};
use crate::core::sanitize::sanitize;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::borrow::Cow;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Tab stops every 4 columns, as CommonMark counts them.
pub(crate) const TAB_STOP: usize = 4;

/// Sanitize and expand tabs to spaces; newlines survive.
pub(crate) fn clean(input: &str) -> Cow<'_, str> {
    let safe = sanitize(input);
    if !safe.contains('\t') {
        return safe;
    }
    let mut out = String::with_capacity(safe.len() + 16);
    let mut col = 0usize;
    for c in safe.chars() {
        match c {
            '\t' => {
                let n = TAB_STOP - col % TAB_STOP;
                out.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
            '\n' => {
                out.push(c);
                col = 0;
            }
            c => {
                out.push(c);
                col += c.width().unwrap_or(0);
            }
        }
    }
    Cow::Owned(out)
}

/// [`clean`], then newlines become spaces: for text shown on a single row.
pub(crate) fn clean_line(input: &str) -> String {
    let cleaned = clean(input);
    if cleaned.contains('\n') {
        cleaned.replace('\n', " ")
    } else {
        cleaned.into_owned()
    }
}

/// Display width in terminal columns (CJK and most emoji count 2).
pub(crate) fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Cut `s` to at most `max` columns, ending in `…` when something was cut.
pub(crate) fn truncate(s: &str, max: usize, ellipsis: &str) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let ell_w = width(ellipsis);
    if max < ell_w {
        return " ".repeat(max);
    }
    let budget = max - ell_w;
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > budget {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push_str(ellipsis);
    out
}

pub use crate::view::thousands;

/// Human byte size: `2.0 GB`, `512 MB`.
pub(crate) fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else if value >= 100.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Compact age: `42s`, `5m`, `3h`, `2d`.
pub(crate) fn age(seconds: i64) -> String {
    let s = seconds.max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Replace any cell whose symbol still holds a control or bidi character with a space.
///
/// Costs one pass over the cells (a few µs at 120×40); it exists so that a renderer bug
/// or a widget drawing unsanitized text (the textarea) cannot reach the terminal.
pub(crate) fn scrub_buffer(buf: &mut Buffer, area: Rect) {
    let area = buf.area.intersection(area);
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let cell = &mut buf[(x, y)];
            let bad = cell
                .symbol()
                .chars()
                .any(|c| c.is_control() || is_bidi_control(c));
            if bad {
                cell.set_symbol(" ");
            }
        }
    }
}

/// The buffer as text, one line per row, trailing spaces trimmed; the cells hidden
/// behind a wide character are skipped. For tests and snapshots.
pub fn buffer_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut line = String::new();
        let mut skip = 0usize;
        for x in area.left()..area.right() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let sym = buf[(x, y)].symbol();
            line.push_str(sym);
            skip = width(sym).saturating_sub(1);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Decorations, in a Unicode and an ASCII-only flavour.
#[derive(Debug)]
pub(crate) struct Glyphs {
    pub bullets: [&'static str; 3],
    pub quote_bar: &'static str,
    pub rule: &'static str,
    pub ellipsis: &'static str,
    pub spinner: &'static [&'static str],
    pub gauge_full: &'static str,
    pub gauge_empty: &'static str,
    pub gauge_marker: &'static str,
    pub sep: &'static str,
    pub arrow_down: &'static str,
    pub selected: &'static str,
    pub current: &'static str,
    pub lock: &'static str,
    pub pin: &'static str,
    pub step_done: &'static str,
    pub step_doing: &'static str,
    pub step_todo: &'static str,
    pub next: &'static str,
    pub info: &'static str,
    pub warn: &'static str,
    pub error: &'static str,
    pub fold: &'static str,
    pub tool: &'static str,
    /// A block shown folded (thinking) and unfolded.
    pub collapsed: &'static str,
    pub expanded: &'static str,
    pub table_v: &'static str,
    pub table_h: &'static str,
    pub table_x: &'static str,
    pub range: &'static str,
    pub border: ratatui::symbols::border::Set<'static>,
}

pub(crate) const UNICODE: Glyphs = Glyphs {
    bullets: ["•", "◦", "▪"],
    quote_bar: "│",
    rule: "─",
    ellipsis: "…",
    spinner: &["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"],
    gauge_full: "▮",
    gauge_empty: "▯",
    gauge_marker: "┃",
    sep: " · ",
    arrow_down: "↓",
    selected: "▸",
    current: "●",
    lock: "🔒",
    pin: "📌",
    step_done: "✓",
    step_doing: "▸",
    step_todo: "○",
    next: "→",
    info: "ℹ",
    warn: "⚠",
    error: "✖",
    fold: "┄",
    tool: "⚙",
    collapsed: "▸",
    expanded: "▾",
    table_v: "│",
    table_h: "─",
    table_x: "┼",
    range: "–",
    border: ratatui::symbols::border::ROUNDED,
};

pub(crate) const ASCII: Glyphs = Glyphs {
    bullets: ["*", "-", "+"],
    quote_bar: "|",
    rule: "-",
    ellipsis: "...",
    spinner: &["|", "/", "-", "\\"],
    gauge_full: "#",
    gauge_empty: "-",
    gauge_marker: "|",
    sep: " | ",
    arrow_down: "v",
    selected: ">",
    current: "*",
    lock: "[L]",
    pin: "[pin]",
    step_done: "[x]",
    step_doing: "[>]",
    step_todo: "[ ]",
    next: "->",
    info: "(i)",
    warn: "(!)",
    error: "(x)",
    fold: "~",
    tool: "tool:",
    collapsed: "[+]",
    expanded: "[-]",
    table_v: "|",
    table_h: "-",
    table_x: "+",
    range: "-",
    border: ratatui::symbols::border::Set {
        top_left: "+",
        top_right: "+",
        bottom_left: "+",
        bottom_right: "+",
        vertical_left: "|",
        vertical_right: "|",
        horizontal_top: "-",
        horizontal_bottom: "-",
    },
};

pub(crate) fn glyphs(ascii: bool) -> &'static Glyphs {
    if ascii { &ASCII } else { &UNICODE }
}

/// A picture as one line, `🖼 shot.png 1280×720 · ≈ 600 tokens` (ASCII: `[img] shot.png
/// 1280x720 - ~600 tokens`): the chip above the box and under a message in the
/// transcript, the display wherever no picture is drawn. `cost` is what one picture costs
/// in the context (nothing said when `None`); until the server has counted one for this
/// model it is the conservative default, said as a guess (`≈ 768 tokens (guess)`).
pub fn image_chip(image: &ImageRef, cost: Option<ImageCost>, ascii: bool) -> String {
    let name = clean_line(&image.name);
    let (icon, by, about, dot) = if ascii {
        ("[img]", "x", "~", "-")
    } else {
        ("🖼", "×", "≈ ", "·")
    };
    let mut chip = format!("{icon} {name} {}{by}{}", image.width, image.height);
    if let Some(cost) = cost {
        let n = thousands(u64::from(cost.tokens));
        chip.push_str(&format!(" {dot} {about}{n} tokens"));
        if !cost.learned {
            chip.push_str(" (guess)");
        }
    }
    chip
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn tabs_expand_to_the_next_stop() {
        assert_eq!(clean("a\tb"), "a   b");
        assert_eq!(clean("abcd\te"), "abcd    e");
        assert_eq!(clean("\tx\n\ty"), "    x\n    y");
        // A wide char counts two columns toward the stop.
        assert_eq!(clean("日\tx"), "日  x");
    }

    #[test]
    fn clean_strips_escapes_and_bidi() {
        let dirty = "ok\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J\u{202E}txt";
        assert_eq!(clean(dirty), "oktxt");
        assert_eq!(clean_line("a\nb\tc"), "a b   c");
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(13_600), "13,600");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn truncate_by_display_width() {
        assert_eq!(truncate("hello", 10, "…"), "hello");
        assert_eq!(truncate("hello world", 6, "…"), "hello…");
        assert_eq!(truncate("日本語テキスト", 5, "…"), "日本…");
        assert_eq!(width(&truncate("日本語テキスト", 6, "…")), 5);
    }

    #[test]
    fn byte_sizes_and_ages() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(2_019_393_189), "2.0 GB");
        assert_eq!(bytes(274_302_450), "274 MB");
        assert_eq!(age(5), "5s");
        assert_eq!(age(300), "5m");
        assert_eq!(age(7200), "2h");
        assert_eq!(age(3 * 86_400), "3d");
        assert_eq!(age(-4), "0s");
    }

    #[test]
    fn scrub_replaces_bad_cells() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 3, 1));
        buf[(0, 0)].set_symbol("\u{202E}");
        buf[(1, 0)].set_symbol("a");
        buf[(2, 0)].set_symbol("\u{1b}");
        scrub_buffer(&mut buf, Rect::new(0, 0, 3, 1));
        assert_eq!(buf[(0, 0)].symbol(), " ");
        assert_eq!(buf[(1, 0)].symbol(), "a");
        assert_eq!(buf[(2, 0)].symbol(), " ");
    }
}
