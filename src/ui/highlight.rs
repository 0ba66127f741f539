//! Syntax highlighting of fenced code blocks with syntect.
//!
//! Strategy: syntect's default syntaxes and themes are decoded on the first code block
//! that asks for highlighting, never at startup (decoding takes tens of milliseconds and
//! start-to-first-frame matters). Unknown languages, a disabled theme (`NO_COLOR`) or
//! any syntect error fall back to the plain code style: highlighting is decoration and
//! must never lose text.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use std::sync::OnceLock;
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, ThemeSet};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

struct Assets {
    syntaxes: SyntaxSet,
    themes: ThemeSet,
}

static ASSETS: OnceLock<Assets> = OnceLock::new();

fn assets() -> &'static Assets {
    ASSETS.get_or_init(|| Assets {
        syntaxes: SyntaxSet::load_defaults_newlines(),
        themes: ThemeSet::load_defaults(),
    })
}

/// Whether the syntax definitions have been decoded yet (for start-up tests).
pub fn syntax_assets_loaded() -> bool {
    ASSETS.get().is_some()
}

fn plain(code: &str, style: Style) -> Vec<Vec<Span<'static>>> {
    code.split('\n')
        .map(|l| vec![Span::styled(l.to_string(), style)])
        .collect()
}

/// Highlight `code` (already sanitized, tabs expanded) as `lang`, one span list per
/// source line. `base` is the block style that syntect colours are laid over.
pub(crate) fn highlight(
    code: &str,
    lang: &str,
    syntax_theme: Option<&str>,
    base: Style,
) -> Vec<Vec<Span<'static>>> {
    let lang = lang.trim();
    let Some(theme_name) = syntax_theme else {
        return plain(code, base);
    };
    if lang.is_empty() {
        return plain(code, base);
    }
    let assets = assets();
    let syntax = assets.syntaxes.find_syntax_by_token(lang).or_else(|| {
        assets
            .syntaxes
            .find_syntax_by_token(&lang.to_ascii_lowercase())
    });
    let (Some(syntax), Some(theme)) = (syntax, assets.themes.themes.get(theme_name)) else {
        return plain(code, base);
    };
    let mut h = HighlightLines::new(syntax, theme);
    let mut out = Vec::new();
    let mut consumed = 0usize;
    for line in LinesWithEndings::from(code) {
        let Ok(ranges) = h.highlight_line(line, &assets.syntaxes) else {
            // Keep the rest as plain text rather than lose it.
            out.extend(plain(&code[consumed..], base));
            return out;
        };
        consumed += line.len();
        let mut spans = Vec::with_capacity(ranges.len());
        for (st, text) in ranges {
            let text = text.trim_end_matches('\n');
            if text.is_empty() {
                continue;
            }
            let fg = st.foreground;
            let mut style = base.fg(Color::Rgb(fg.r, fg.g, fg.b));
            if st.font_style.contains(FontStyle::BOLD) {
                style = style.add_modifier(Modifier::BOLD);
            }
            if st.font_style.contains(FontStyle::ITALIC) {
                style = style.add_modifier(Modifier::ITALIC);
            }
            if st.font_style.contains(FontStyle::UNDERLINE) {
                style = style.add_modifier(Modifier::UNDERLINED);
            }
            spans.push(Span::styled(text.to_string(), style));
        }
        out.push(spans);
    }
    if code.ends_with('\n') || code.is_empty() {
        out.push(Vec::new());
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn text_of(lines: &[Vec<Span<'_>>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn highlights_known_languages_without_losing_text() {
        let code = "fn main() {\n    let x = 1;\n}";
        let lines = highlight(code, "rust", Some("base16-ocean.dark"), Style::new());
        assert_eq!(text_of(&lines), ["fn main() {", "    let x = 1;", "}"]);
        let colours: std::collections::HashSet<_> =
            lines.iter().flatten().filter_map(|s| s.style.fg).collect();
        assert!(
            colours.len() >= 2,
            "expected several colours, got {colours:?}"
        );
    }

    #[test]
    fn unknown_language_and_no_theme_are_plain() {
        let base = Style::new().fg(Color::Gray);
        let lines = highlight("a\nb", "no-such-lang", Some("base16-ocean.dark"), base);
        assert_eq!(text_of(&lines), ["a", "b"]);
        assert!(lines.iter().flatten().all(|s| s.style == base));
        let lines = highlight("let x = 1;", "rust", None, base);
        assert!(lines.iter().flatten().all(|s| s.style == base));
        let lines = highlight("let x = 1;", "rust", Some("no such theme"), base);
        assert!(lines.iter().flatten().all(|s| s.style == base));
    }
}
