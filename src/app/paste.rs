//! Turning a bracketed paste into text for the input box.
//!
//! Terminals (xterm, VTE, tmux's `paste-buffer`) deliver the newlines of pasted text as
//! a lone carriage return, the Enter key's byte. The sanitizer drops a lone CR (in model
//! output it means "overwrite the line"), which would join every pasted line into one;
//! so a paste's line ends are normalised to `\n` before it is sanitized.

use std::borrow::Cow;

/// `\r\n` and a lone `\r` both become `\n`; text without CR is returned borrowed.
pub fn normalize_newlines(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carriage_returns_become_newlines() {
        assert_eq!(
            normalize_newlines("alpha line\rbeta line\rgamma line"),
            "alpha line\nbeta line\ngamma line"
        );
        assert_eq!(normalize_newlines("a\r\nb\r\n"), "a\nb\n");
        // A CRLF is one line end, not two; CR CR is two.
        assert_eq!(normalize_newlines("a\r\n\rb"), "a\n\nb");
        assert!(matches!(normalize_newlines("a\nb"), Cow::Borrowed("a\nb")));
    }
}
