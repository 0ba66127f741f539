//! Make untrusted text (model output, pasted input, file contents) safe for a terminal.
//!
//! Strategy: one pass over the chars. Escape sequences are removed whole — CSI
//! (`ESC [` … final byte), OSC / DCS / APC / PM / SOS (`ESC ] P _ ^ X` … `BEL` or `ESC \`),
//! and their single-byte C1 introducers (U+009B, U+009D, U+0090, U+009F, U+009E, U+0098) —
//! so that no parameter text leaks out either. Other C0/C1 controls, DEL, carriage
//! returns, backspaces and the bidi embedding/override/isolate characters (U+202A–202E,
//! U+2066–2069, which can make text display in an order other than it reads) are dropped.
//! Newlines and tabs survive. A trailing unterminated sequence is dropped.
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
    if !input.chars().any(is_unsafe) {
        return Cow::Borrowed(input);
    }
    let mut out = String::with_capacity(input.len());
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']' | 'P' | '_' | '^' | 'X') => skip_string(&mut chars),
                // Two-char escapes (ESC 7, ESC c, ESC ( B …): drop the next char too.
                Some(n) if n == '(' || n == ')' || n == '#' || n == '%' => {
                    chars.next();
                }
                _ => {}
            },
            '\u{9b}' => skip_csi(&mut chars),
            '\u{9d}' | '\u{90}' | '\u{9f}' | '\u{9e}' | '\u{98}' => skip_string(&mut chars),
            '\r' => {
                // CRLF becomes LF; a lone CR (overwrite the line) is dropped.
            }
            c if is_unsafe(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// CSI: parameter and intermediate bytes, then one final byte in `@`..=`~`.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('@'..='~').contains(&c) {
            return;
        }
        if !(' '..='?').contains(&c) {
            // Malformed: stop at the first byte that cannot belong to a CSI.
            return;
        }
    }
}

/// String sequences end with BEL, `ESC \`, or the C1 string terminator U+009C.
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            BEL | '\u{9c}' => return,
            ESC => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                return;
            }
            _ => {}
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
