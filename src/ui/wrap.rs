//! Wrapping styled text to a display width.
//!
//! Strategy: the spans are cut into tokens — words (which may cross style boundaries, as
//! in `**bold**text`), runs of spaces, and newlines — then laid out greedily. A line may
//! break at a space, and before or after any double-width character (CJK text has no
//! spaces). A word wider than the line is split by characters. Widths come from
//! `unicode-width`, so CJK and emoji take two columns.
//!
//! Invariants: no produced line is wider than `width` (prefix included) unless a single
//! character is wider than the space left for it; spaces at a soft break are dropped,
//! spaces at the start of a source line (indentation) are kept.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use super::text::width as str_width;

const ZWJ: char = '\u{200D}';

/// A run of styled text that should stay on one line.
#[derive(Debug, Default)]
struct Word {
    parts: Vec<(String, Style)>,
    width: usize,
}

impl Word {
    fn push(&mut self, c: char, style: Style) {
        match self.parts.last_mut() {
            Some((s, st)) if *st == style => s.push(c),
            _ => self.parts.push((c.to_string(), style)),
        }
    }

    fn finish(mut self) -> Option<Word> {
        if self.parts.is_empty() {
            return None;
        }
        self.width = self.parts.iter().map(|(s, _)| str_width(s)).sum();
        Some(self)
    }
}

#[derive(Debug)]
enum Token {
    Word(Word),
    Space(String, Style),
    Newline,
}

fn tokenize(spans: &[Span<'_>]) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut word = Word::default();
    let mut prev = '\0';
    for span in spans {
        let style = span.style;
        for c in span.content.chars() {
            match c {
                '\n' => {
                    if let Some(w) = std::mem::take(&mut word).finish() {
                        tokens.push(Token::Word(w));
                    }
                    tokens.push(Token::Newline);
                }
                ' ' => {
                    if let Some(w) = std::mem::take(&mut word).finish() {
                        tokens.push(Token::Word(w));
                    }
                    match tokens.last_mut() {
                        Some(Token::Space(s, st)) if *st == style => s.push(' '),
                        _ => tokens.push(Token::Space(" ".to_string(), style)),
                    }
                }
                c => {
                    let w = c.width().unwrap_or(0);
                    if w == 0 && word.parts.is_empty() {
                        // A combining mark or joiner belongs to the previous word.
                        if let Some(Token::Word(last)) = tokens.last_mut() {
                            last.parts.push((c.to_string(), style));
                            last.width = last.parts.iter().map(|(s, _)| str_width(s)).sum();
                        } else {
                            word.push(c, style);
                        }
                    } else if w >= 2 && prev != ZWJ {
                        // Break opportunity before and after a wide character.
                        if let Some(done) = std::mem::take(&mut word).finish() {
                            tokens.push(Token::Word(done));
                        }
                        word.push(c, style);
                        if let Some(done) = std::mem::take(&mut word).finish() {
                            tokens.push(Token::Word(done));
                        }
                    } else {
                        word.push(c, style);
                    }
                }
            }
            prev = c;
        }
    }
    if let Some(w) = word.finish() {
        tokens.push(Token::Word(w));
    }
    tokens
}

fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| str_width(&s.content)).sum()
}

/// Builds lines; knows the prefixes and the space left.
struct Layout<'p> {
    width: usize,
    first: &'p [Span<'static>],
    rest: &'p [Span<'static>],
    lines: Vec<Line<'static>>,
    cur: Vec<Span<'static>>,
    cur_w: usize,
}

impl Layout<'_> {
    fn prefix(&self) -> &[Span<'static>] {
        let p = if self.lines.is_empty() {
            self.first
        } else {
            self.rest
        };
        // A prefix that leaves no room for text is dropped: text beats decoration.
        if spans_width(p) >= self.width { &[] } else { p }
    }

    fn avail(&self) -> usize {
        self.width.saturating_sub(spans_width(self.prefix())).max(1)
    }

    fn emit(&mut self, text: &str, style: Style, w: usize) {
        match self.cur.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.cur.push(Span::styled(text.to_string(), style)),
        }
        self.cur_w += w;
    }

    fn flush(&mut self) {
        let mut spans = self.prefix().to_vec();
        spans.append(&mut self.cur);
        self.lines.push(Line::from(spans));
        self.cur_w = 0;
    }

    /// Split an over-long word across lines by characters.
    fn emit_split(&mut self, word: Word) {
        for (text, style) in word.parts {
            for c in text.chars() {
                let w = c.width().unwrap_or(0);
                if self.cur_w + w > self.avail() && self.cur_w > 0 {
                    self.flush();
                }
                let mut buf = [0u8; 4];
                self.emit(c.encode_utf8(&mut buf), style, w);
            }
        }
    }
}

/// Wrap `spans` to `width` columns. `first` prefixes the first line, `rest` every other
/// (list markers, quote bars, indentation). Always returns at least one line.
pub(crate) fn wrap(
    spans: &[Span<'_>],
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let mut lay = Layout {
        width,
        first,
        rest,
        lines: Vec::new(),
        cur: Vec::new(),
        cur_w: 0,
    };
    let mut pending: Option<(String, Style)> = None;
    // True right after a soft break: leading spaces there are dropped.
    let mut soft = false;
    for tok in tokenize(spans) {
        match tok {
            Token::Newline => {
                pending = None;
                soft = false;
                lay.flush();
            }
            Token::Space(s, style) => {
                if lay.cur_w == 0 && !soft {
                    // Indentation at the start of a source line: keep what fits.
                    let n = s.len().min(lay.avail().saturating_sub(1));
                    lay.emit(&s[..n], style, n);
                } else if lay.cur_w > 0 {
                    match &mut pending {
                        Some((p, st)) if *st == style => p.push_str(&s),
                        Some(_) | None => pending = Some((s, style)),
                    }
                }
            }
            Token::Word(word) => {
                let sp = pending.as_ref().map_or(0, |(s, _)| s.len());
                let avail = lay.avail();
                if lay.cur_w + sp + word.width <= avail {
                    if let Some((s, st)) = pending.take() {
                        lay.emit(&s, st, sp);
                    }
                    for (text, style) in word.parts {
                        let w = str_width(&text);
                        lay.emit(&text, style, w);
                    }
                } else if word.width <= avail {
                    pending = None;
                    lay.flush();
                    for (text, style) in word.parts {
                        let w = str_width(&text);
                        lay.emit(&text, style, w);
                    }
                } else {
                    // Too long for any line: continue on this line when there is a fair
                    // amount of room, otherwise start a fresh one.
                    if lay.cur_w > 0 {
                        if lay.cur_w + sp + 8 < avail {
                            if let Some((s, st)) = pending.take() {
                                lay.emit(&s, st, sp);
                            }
                        } else {
                            lay.flush();
                        }
                    }
                    pending = None;
                    lay.emit_split(word);
                }
                soft = true;
            }
        }
    }
    if !lay.cur.is_empty() || lay.lines.is_empty() {
        lay.flush();
    }
    lay.lines
}

/// Hard-wrap one source line by characters, keeping every space (code blocks).
pub(crate) fn wrap_chars(spans: &[Span<'_>], width: usize) -> Vec<Vec<Span<'static>>> {
    let width = width.max(1);
    let mut out: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut cur_w = 0usize;
    for span in spans {
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if cur_w + w > width && cur_w > 0 {
                out.push(Vec::new());
                cur_w = 0;
            }
            if let Some(line) = out.last_mut() {
                match line.last_mut() {
                    Some(last) if last.style == span.style => last.content.to_mut().push(c),
                    _ => line.push(Span::styled(c.to_string(), span.style)),
                }
            }
            cur_w += w;
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ratatui::style::Stylize;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn wraps_at_spaces() {
        let lines = wrap(&[Span::raw("the quick brown fox jumps")], 10, &[], &[]);
        assert_eq!(texts(&lines), ["the quick", "brown fox", "jumps"]);
    }

    #[test]
    fn keeps_words_that_cross_styles_together() {
        let spans = [Span::raw("aa "), "bold".bold(), Span::raw("tail zz")];
        let lines = wrap(&spans, 9, &[], &[]);
        assert_eq!(texts(&lines), ["aa", "boldtail", "zz"]);
        assert_eq!(lines[1].spans[0].style, Style::new().bold());
    }

    #[test]
    fn cjk_breaks_between_characters_by_display_width() {
        let lines = wrap(&[Span::raw("日本語のテキストです")], 8, &[], &[]);
        assert_eq!(texts(&lines), ["日本語の", "テキスト", "です"]);
        for l in &lines {
            assert!(l.width() <= 8);
        }
    }

    #[test]
    fn emoji_count_two_columns() {
        let lines = wrap(&[Span::raw("🦀🦀🦀 ok")], 5, &[], &[]);
        assert_eq!(texts(&lines), ["🦀🦀", "🦀 ok"]);
    }

    #[test]
    fn long_words_split_by_characters() {
        let lines = wrap(
            &[Span::raw("https://example.com/very/long/path")],
            12,
            &[],
            &[],
        );
        assert!(lines.len() >= 3);
        for l in &lines {
            assert!(l.width() <= 12);
        }
        let joined: String = texts(&lines).concat();
        assert_eq!(joined, "https://example.com/very/long/path");
    }

    #[test]
    fn prefixes_apply_to_first_and_rest() {
        let first = [Span::raw("• ")];
        let rest = [Span::raw("  ")];
        let lines = wrap(&[Span::raw("one two three four")], 9, &first, &rest);
        assert_eq!(texts(&lines), ["• one two", "  three", "  four"]);
    }

    #[test]
    fn newlines_and_indentation_are_kept() {
        let lines = wrap(&[Span::raw("a\n    b\n\nc")], 20, &[], &[]);
        assert_eq!(texts(&lines), ["a", "    b", "", "c"]);
    }

    #[test]
    fn empty_input_gives_one_line() {
        assert_eq!(wrap(&[], 10, &[], &[]).len(), 1);
    }

    #[test]
    fn char_wrap_keeps_spaces() {
        let out = wrap_chars(&[Span::raw("  let x = 1;")], 5);
        let t: Vec<String> = out
            .iter()
            .map(|l| l.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert_eq!(t, ["  let", " x = ", "1;"]);
    }
}
