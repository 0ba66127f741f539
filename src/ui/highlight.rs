//! Syntax highlighting of fenced code blocks with syntect.
//!
//! Strategy: syntect's default syntaxes and themes are decoded on the first code block
//! that asks for highlighting, never at startup (decoding takes ~25 ms and
//! start-to-first-frame matters). Highlighting is slow (≈150 µs per line with the
//! pure-Rust regex engine), so a [`CodeCache`] owned by the transcript makes each line
//! cost once:
//! - finished blocks are memoised by content, so re-wrapping (resize, the final render
//!   of a streamed reply) never re-highlights;
//! - the block that is growing keeps syntect's parse and highlight state after its last
//!   complete line, and each frame highlights only what arrived since.
//!
//! Unknown languages, a disabled theme (`NO_COLOR`), lines over
//! [`MAX_HIGHLIGHT_LINE_BYTES`], lines past [`MAX_HIGHLIGHT_LINES`] and any syntect
//! error fall back to the plain code style: highlighting is decoration and must never
//! lose text or stall the frame.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};
use syntect::highlighting::{
    FontStyle, HighlightIterator, HighlightState, Highlighter, Theme as SynTheme, ThemeSet,
};
use syntect::parsing::{ParseState, ScopeStack, SyntaxReference, SyntaxSet};

/// Lines longer than this end highlighting for the rest of the block (minified code
/// can make the regex engine crawl).
pub const MAX_HIGHLIGHT_LINE_BYTES: usize = 1_000;
/// Lines of a block highlighted at most; the rest is plain.
pub const MAX_HIGHLIGHT_LINES: usize = 2_000;
/// Lines the memo of finished blocks holds before it drops the oldest blocks.
const MEMO_MAX_LINES: usize = 20_000;

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

/// Highlighted lines of a block: one span list per source line.
pub(crate) type CodeLines = Arc<Vec<Vec<Span<'static>>>>;

fn plain_line(line: &str, style: Style) -> Vec<Span<'static>> {
    vec![Span::styled(line.trim_end_matches('\n').to_string(), style)]
}

fn plain(code: &str, style: Style) -> CodeLines {
    Arc::new(code.split('\n').map(|l| plain_line(l, style)).collect())
}

/// Identity of what a block is highlighted with.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Setup {
    lang: String,
    theme: String,
    base: Style,
}

/// Syntect state part-way through the block that is still growing.
struct Partial {
    setup: Setup,
    highlighter: Highlighter<'static>,
    parse: ParseState,
    highlight: HighlightState,
    /// The complete lines (with their `\n`) the states have consumed.
    committed: String,
    lines: Vec<Vec<Span<'static>>>,
    /// Set once a limit or an error was hit: everything from here on is plain.
    plain: bool,
}

impl Partial {
    fn new(setup: Setup, syntax: &SyntaxReference, theme: &'static SynTheme) -> Partial {
        let highlighter = Highlighter::new(theme);
        let highlight = HighlightState::new(&highlighter, ScopeStack::new());
        Partial {
            setup,
            highlighter,
            parse: ParseState::new(syntax),
            highlight,
            committed: String::new(),
            lines: Vec::new(),
            plain: false,
        }
    }

    /// Highlight `line` from `parse`/`highlight`, advancing them.
    fn step(
        highlighter: &Highlighter<'static>,
        parse: &mut ParseState,
        highlight: &mut HighlightState,
        line: &str,
        base: Style,
    ) -> Option<Vec<Span<'static>>> {
        let ops = parse.parse_line(line, &assets().syntaxes).ok()?;
        let ranges = HighlightIterator::new(highlight, &ops, line, highlighter);
        Some(convert(ranges, base))
    }

    fn over_limit(&self, line: &str) -> bool {
        self.plain
            || line.len() > MAX_HIGHLIGHT_LINE_BYTES
            || self.lines.len() >= MAX_HIGHLIGHT_LINES
    }

    /// Consume one complete line (ending in `\n`).
    fn commit(&mut self, line: &str, counter: &mut u64) {
        let base = self.setup.base;
        let spans = if self.over_limit(line) {
            None
        } else {
            *counter += 1;
            Partial::step(
                &self.highlighter,
                &mut self.parse,
                &mut self.highlight,
                line,
                base,
            )
        };
        let spans = spans.unwrap_or_else(|| {
            self.plain = true;
            plain_line(line, base)
        });
        self.lines.push(spans);
        self.committed.push_str(line);
    }

    /// Highlight the incomplete last line without advancing the states.
    fn peek(&self, line: &str, counter: &mut u64) -> Vec<Span<'static>> {
        let base = self.setup.base;
        if self.over_limit(line) {
            return plain_line(line, base);
        }
        *counter += 1;
        let (mut parse, mut highlight) = (self.parse.clone(), self.highlight.clone());
        Partial::step(&self.highlighter, &mut parse, &mut highlight, line, base)
            .unwrap_or_else(|| plain_line(line, base))
    }
}

fn convert<'a>(
    ranges: impl Iterator<Item = (syntect::highlighting::Style, &'a str)>,
    base: Style,
) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = Vec::new();
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
        match spans.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => spans.push(Span::styled(text.to_string(), style)),
        }
    }
    spans
}

/// Memo of highlighted blocks plus the resumable state of a growing one. Owned by the
/// transcript; see the module docs.
#[derive(Default)]
pub struct CodeCache {
    memo: HashMap<u64, CodeLines>,
    order: VecDeque<(u64, usize)>,
    memo_lines: usize,
    partial: Option<Partial>,
    highlighted: u64,
}

impl std::fmt::Debug for CodeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeCache")
            .field("memo_blocks", &self.memo.len())
            .field("memo_lines", &self.memo_lines)
            .field("highlighted_lines", &self.highlighted)
            .finish()
    }
}

impl CodeCache {
    pub fn new() -> CodeCache {
        CodeCache::default()
    }

    /// Lines run through syntect so far (a diagnostic for tests and benches).
    pub fn highlighted_lines(&self) -> u64 {
        self.highlighted
    }

    pub fn clear(&mut self) {
        *self = CodeCache {
            highlighted: self.highlighted,
            ..CodeCache::default()
        };
    }

    /// Highlight `code` (sanitized, tabs expanded, no trailing newline) as `lang`.
    /// `finished` says the fence was closed, so the block will not grow any more and
    /// is worth memoising.
    pub(crate) fn highlight(
        &mut self,
        code: &str,
        lang: &str,
        syntax_theme: Option<&str>,
        base: Style,
        finished: bool,
    ) -> CodeLines {
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
        let setup = Setup {
            lang: lang.to_string(),
            theme: theme_name.to_string(),
            base,
        };
        let key = {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            setup.hash(&mut h);
            code.hash(&mut h);
            h.finish()
        };
        if let Some(hit) = self.memo.get(&key) {
            return Arc::clone(hit);
        }

        let resumable = self
            .partial
            .as_ref()
            .is_some_and(|p| p.setup == setup && code.starts_with(p.committed.as_str()));
        if !resumable {
            self.partial = Some(Partial::new(setup, syntax, theme));
        }
        let Some(partial) = self.partial.as_mut() else {
            return plain(code, base);
        };
        let rest = &code[partial.committed.len()..];
        let mut lines = rest.split_inclusive('\n').peekable();
        let mut tail = None;
        while let Some(line) = lines.next() {
            if line.ends_with('\n') {
                partial.commit(line, &mut self.highlighted);
            } else {
                debug_assert!(lines.peek().is_none());
                tail = Some(line);
            }
        }
        let mut out = partial.lines.clone();
        match tail {
            Some(t) => out.push(partial.peek(t, &mut self.highlighted)),
            // `code` ends with a newline (or is empty): its last line is empty.
            None => out.push(Vec::new()),
        }
        let out = Arc::new(out);
        if finished {
            self.remember(key, Arc::clone(&out));
        }
        out
    }

    fn remember(&mut self, key: u64, lines: CodeLines) {
        let n = lines.len();
        if n > MEMO_MAX_LINES {
            return;
        }
        self.memo.insert(key, lines);
        self.order.push_back((key, n));
        self.memo_lines += n;
        while self.memo_lines > MEMO_MAX_LINES {
            let Some((old, len)) = self.order.pop_front() else {
                break;
            };
            self.memo.remove(&old);
            self.memo_lines -= len;
        }
    }
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

    const THEME: Option<&str> = Some("base16-ocean.dark");

    #[test]
    fn highlights_known_languages_without_losing_text() {
        let code = "fn main() {\n    let x = 1;\n}";
        let lines = CodeCache::new().highlight(code, "rust", THEME, Style::new(), true);
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
        let mut c = CodeCache::new();
        let lines = c.highlight("a\nb", "no-such-lang", THEME, base, true);
        assert_eq!(text_of(&lines), ["a", "b"]);
        assert!(lines.iter().flatten().all(|s| s.style == base));
        for (lang, theme) in [("rust", None), ("rust", Some("no such theme"))] {
            let lines = c.highlight("let x = 1;", lang, theme, base, true);
            assert!(lines.iter().flatten().all(|s| s.style == base));
        }
        assert_eq!(c.highlighted_lines(), 0);
    }

    #[test]
    fn finished_blocks_are_memoised() {
        let mut c = CodeCache::new();
        let code = "let a = 1;\nlet b = 2;";
        let first = c.highlight(code, "rust", THEME, Style::new(), true);
        let n = c.highlighted_lines();
        let again = c.highlight(code, "rust", THEME, Style::new(), true);
        assert_eq!(c.highlighted_lines(), n);
        assert_eq!(first, again);
    }

    #[test]
    fn a_growing_block_highlights_only_new_lines_and_matches_a_full_pass() {
        let full: String = (0..40)
            .map(|i| format!("let v{i} = \"s{i}\"; // c\n"))
            .collect();
        let full = full.trim_end_matches('\n');
        let mut growing = CodeCache::new();
        let mut prefix = String::new();
        for ch in full.chars() {
            prefix.push(ch);
            growing.highlight(&prefix, "rust", THEME, Style::new(), false);
        }
        // Each complete line once, plus one peek at the incomplete line per call.
        let calls = full.chars().count() as u64;
        assert!(growing.highlighted_lines() <= 40 + calls);
        let incremental = growing.highlight(full, "rust", THEME, Style::new(), true);
        let fresh = CodeCache::new().highlight(full, "rust", THEME, Style::new(), true);
        assert_eq!(incremental, fresh);
    }

    #[test]
    fn limits_fall_back_to_plain() {
        let base = Style::new().fg(Color::Gray);
        let long = format!(
            "let x = \"{}\";\nlet y = 1;",
            "a".repeat(MAX_HIGHLIGHT_LINE_BYTES)
        );
        let lines = CodeCache::new().highlight(&long, "rust", THEME, base, true);
        assert_eq!(lines.len(), 2);
        assert!(lines[0].iter().all(|s| s.style == base));
        assert!(
            lines[1].iter().all(|s| s.style == base),
            "plain after the limit"
        );
    }
}
