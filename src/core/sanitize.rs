//! Make untrusted text (model output, pasted input, file contents) safe for a terminal.
//!
//! Strategy: one pass over the chars. Escape sequences are removed whole — CSI
//! (`ESC [` … final byte), OSC / DCS / APC / PM / SOS (`ESC ] P _ ^ X` … `BEL` or `ESC \`),
//! and their single-byte C1 introducers (U+009B, U+009D, U+0090, U+009F, U+009E, U+0098) —
//! so that no parameter text leaks out either. Other C0/C1 controls, DEL, carriage
//! returns, backspaces and the bidi embedding/override/isolate characters (U+202A–202E,
//! U+2066–2069, which can make text display in an order other than it reads) are dropped.
//! Newlines and tabs survive. A trailing unterminated sequence is dropped. Text that
//! arrives in pieces goes through a [`Scrubber`], which carries where it is from one piece
//! to the next, so a sequence split between two is dropped whole all the same.
//!
//! Invariant: the output contains no char in U+0000–U+001F except `\n` and `\t`, no
//! U+007F–U+009F, and no bidi control; text without such chars is returned borrowed.

use std::borrow::Cow;

const ESC: char = '\u{1b}';
const BEL: char = '\u{07}';

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
}

/// Strip everything that could act on the terminal instead of being displayed.
pub fn sanitize(input: &str) -> Cow<'_, str> {
    Scrubber::default().push(input)
}

/// Where a [`Scrubber`] is: in text, or inside an escape sequence being dropped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum State {
    #[default]
    Text,
    /// After `ESC`.
    Escape,
    /// CSI: parameter and intermediate bytes, then one final byte in `@`..=`~`.
    Csi,
    /// OSC, DCS, APC, PM, SOS: ended by `BEL`, `ESC \` or U+009C.
    String,
    /// `ESC` inside a string: a `\` after it belongs to the terminator.
    StringEscape,
    /// Two-char escapes (`ESC (` B …): the next char goes too.
    SkipOne,
}

/// [`sanitize`] for text that comes in pieces (a reply as it streams): a sequence split
/// between two pieces is still dropped whole, its payload with it. It holds nothing back
/// (only where it is), so memory does not grow with an unterminated sequence; one never
/// terminated is simply never shown.
#[derive(Debug, Clone, Default)]
pub struct Scrubber {
    state: State,
}

impl Scrubber {
    /// The next piece, scrubbed; borrowed when there was nothing to take out.
    pub fn push<'a>(&mut self, input: &'a str) -> Cow<'a, str> {
        if self.state == State::Text && !input.chars().any(is_unsafe) {
            return Cow::Borrowed(input);
        }
        let mut out = String::with_capacity(input.len());
        for c in input.chars() {
            if let Some(c) = self.step(c) {
                out.push(c);
            }
        }
        Cow::Owned(out)
    }

    /// One char in; the char to show, if any.
    fn step(&mut self, c: char) -> Option<char> {
        match self.state {
            State::Text => {
                match c {
                    ESC => self.state = State::Escape,
                    '\u{9b}' => self.state = State::Csi,
                    '\u{9d}' | '\u{90}' | '\u{9f}' | '\u{9e}' | '\u{98}' => {
                        self.state = State::String
                    }
                    // CRLF becomes LF; a lone CR (overwrite the line) is dropped.
                    '\r' => {}
                    c if is_unsafe(c) => {}
                    c => return Some(c),
                }
                None
            }
            State::Escape => {
                self.state = match c {
                    '[' => State::Csi,
                    ']' | 'P' | '_' | '^' | 'X' => State::String,
                    '(' | ')' | '#' | '%' => State::SkipOne,
                    // Other two-char escapes (ESC 7, ESC c): both go.
                    _ => State::Text,
                };
                None
            }
            State::Csi => {
                // A final byte ends it; so does a byte that cannot belong to a CSI.
                if !(' '..='?').contains(&c) {
                    self.state = State::Text;
                }
                None
            }
            State::String => {
                match c {
                    BEL | '\u{9c}' => self.state = State::Text,
                    ESC => self.state = State::StringEscape,
                    _ => {}
                }
                None
            }
            State::StringEscape => {
                self.state = State::Text;
                if c == '\\' { None } else { self.step(c) }
            }
            State::SkipOne => {
                self.state = State::Text;
                None
            }
        }
    }
}

/// The longest prefix of `text` within `limit` bytes that ends on a char boundary, so
/// a cut never splits a multi-byte character. (`str::floor_char_boundary` does this from
/// Rust 1.91; the crate supports 1.89.)
pub fn byte_prefix(text: &str, limit: usize) -> &str {
    if text.len() <= limit {
        return text;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_prefix_is_the_longest_whole_char_prefix_within_the_limit() {
        let text = "aé≥😀b";
        for limit in 0..=text.len() + 2 {
            let kept = byte_prefix(text, limit);
            assert!(kept.len() <= limit && text.starts_with(kept), "{limit}");
            // One more char would not have fitted.
            let next = text[kept.len()..].chars().next();
            assert!(
                next.is_none_or(|c| kept.len() + c.len_utf8() > limit),
                "{limit}"
            );
        }
    }

    #[test]
    fn plain_text_is_borrowed() {
        let s = "hello\n\tworld — ünïcode 🦀";
        assert!(matches!(sanitize(s), Cow::Borrowed(_)));
    }

    #[test]
    fn strips_csi_with_parameters() {
        assert_eq!(sanitize("a\u{1b}[31;1mred\u{1b}[0m b"), "ared b");
        assert_eq!(sanitize("x\u{1b}[2J\u{1b}[Hy"), "xy");
    }

    #[test]
    fn strips_osc_with_bel_and_st() {
        // OSC 52 (clipboard write) and OSC 8 hyperlinks must not survive.
        assert_eq!(sanitize("a\u{1b}]52;c;ZXZpbA==\u{07}b"), "ab");
        assert_eq!(
            sanitize("a\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\b"),
            "alinkb"
        );
    }

    #[test]
    fn strips_dcs_apc_pm_sos() {
        assert_eq!(sanitize("a\u{1b}Pq#0;2;0;0;0\u{1b}\\b"), "ab");
        assert_eq!(sanitize("a\u{1b}_Gf=100;AAAA\u{1b}\\b"), "ab");
        assert_eq!(sanitize("a\u{1b}^pm\u{1b}\\b\u{1b}Xsos\u{07}c"), "abc");
    }

    #[test]
    fn strips_c1_introducers_and_their_payloads() {
        assert_eq!(sanitize("a\u{9b}31mb"), "ab");
        assert_eq!(sanitize("a\u{9d}0;title\u{9c}b"), "ab");
        assert_eq!(sanitize("a\u{85}b\u{9c}c"), "abc");
    }

    #[test]
    fn carriage_return_backspace_and_del() {
        assert_eq!(sanitize("line\r\nnext"), "line\nnext");
        assert_eq!(sanitize("safe\rEVIL"), "safeEVIL");
        assert_eq!(sanitize("ab\u{8}\u{8}cd\u{7f}"), "abcd");
    }

    #[test]
    fn strips_bidi_overrides_and_isolates() {
        assert_eq!(sanitize("a\u{202E}gnp.exe\u{202C}b"), "agnp.exeb");
        assert_eq!(sanitize("\u{2066}x\u{2069}\u{2067}y\u{2068}"), "xy");
    }

    #[test]
    fn unterminated_sequences_are_dropped() {
        assert_eq!(sanitize("ok\u{1b}"), "ok");
        assert_eq!(sanitize("ok\u{1b}[12;"), "ok");
        assert_eq!(sanitize("ok\u{1b}]0;title never ends"), "ok");
    }

    /// One-shot output streams (#36): a sequence split between two pieces, at any point,
    /// is dropped whole with its payload, as in one piece.
    #[test]
    fn a_sequence_split_between_pieces_is_dropped_whole() {
        let text = "ok \u{1b}]52;c;ZXZpbA==\u{07} a\u{1b}[31mb \u{202E}c\u{1b}]8;;x\u{1b}\\d\u{9b}1mé\u{1b}(Bz\r\n";
        let whole = sanitize(text).into_owned();
        assert_eq!(whole, "ok  ab cdéz\n");
        let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        for &i in &cuts {
            for &j in cuts.iter().filter(|j| **j >= i) {
                let mut s = Scrubber::default();
                let got = [&text[..i], &text[i..j], &text[j..]]
                    .iter()
                    .map(|p| s.push(p).into_owned())
                    .collect::<String>();
                assert_eq!(got, whole, "cut at {i} and {j}");
            }
        }
    }

    #[test]
    fn output_never_contains_controls() {
        let nasty: String = (0u32..0x2100)
            .filter_map(char::from_u32)
            .collect::<String>()
            .repeat(2);
        let out = sanitize(&nasty);
        assert!(!out.chars().any(is_unsafe));
    }
}
