//! Turning a bracketed paste into text for the input box.
//!
//! A large paste (over [`FOLD_BYTES`]) is not put in the box: the box shows a marker
//! (`[paste 1: 20,000 lines, 1.0 MiB]`) and the text waits in [`Folded`] until the
//! message is sent, when each marker still in the draft becomes its text. Why: the
//! textarea re-wraps its whole content after every edit, so with a megabyte in it each
//! keystroke cost a quarter of a second; with the marker it costs what a short draft does.
//! Deleting the marker drops the paste.
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

/// Pastes larger than this are folded to a marker.
pub const FOLD_BYTES: usize = 16 * 1024;

/// Folded pastes of the current draft, in the order pasted.
#[derive(Debug, Default)]
pub struct Folded {
    items: Vec<(String, String)>,
    next: usize,
}

/// Every marker starts with this (how [`Folded::expand`] finds them).
const MARKER_START: &str = "[paste ";

impl Folded {
    /// Keep `text` and return the marker that stands for it in the draft.
    pub fn fold(&mut self, text: String) -> String {
        self.next += 1;
        let lines = text.lines().count().max(1);
        let marker = format!(
            "{MARKER_START}{}: {} line{}, {}]",
            self.next,
            crate::ui::text::thousands(lines as u64),
            if lines == 1 { "" } else { "s" },
            size(text.len()),
        );
        self.items.push((marker.clone(), text));
        marker
    }

    /// The draft with each marker (its first occurrence) replaced by its paste, in one
    /// pass: a paste that happens to contain another paste's marker text stays as it is.
    pub fn expand(&self, draft: &str) -> String {
        if self.items.is_empty() {
            return draft.to_string();
        }
        let mut used = vec![false; self.items.len()];
        let mut out = String::with_capacity(draft.len());
        let mut rest = draft;
        while let Some(at) = rest.find(MARKER_START) {
            out.push_str(&rest[..at]);
            let here = &rest[at..];
            let hit = self
                .items
                .iter()
                .enumerate()
                .find(|(k, (marker, _))| !used[*k] && here.starts_with(marker.as_str()));
            match hit {
                Some((k, (marker, text))) => {
                    used[k] = true;
                    out.push_str(text);
                    rest = &here[marker.len()..];
                }
                None => {
                    out.push_str(MARKER_START);
                    rest = &here[MARKER_START.len()..];
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// The draft was sent or discarded: its pastes go with it.
    pub fn clear(&mut self) {
        self.items.clear();
        self.next = 0;
    }
}

/// `900 B`, `16 KiB`, `1.0 MiB`.
fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_expand_where_they_stand_and_deleted_ones_are_dropped() {
        let mut f = Folded::default();
        let one = f.fold("line\n".repeat(20_000));
        let two = f.fold("x".repeat(20 * 1024));
        assert_eq!(one, "[paste 1: 20,000 lines, 97 KiB]");
        assert_eq!(two, "[paste 2: 1 line, 20 KiB]");
        let draft = format!("look at {one} and say why");
        let sent = f.expand(&draft);
        assert_eq!(
            sent,
            format!("look at {} and say why", "line\n".repeat(20_000))
        );
        // A marker typed twice expands once; an edited marker is plain text.
        let draft = format!("{two}{two} [paste 1: edited]");
        let sent = f.expand(&draft);
        assert_eq!(
            sent,
            format!("{}{two} [paste 1: edited]", "x".repeat(20 * 1024))
        );
    }

    #[test]
    fn a_paste_containing_a_marker_is_not_expanded_twice() {
        let mut f = Folded::default();
        let one = f.fold("see [paste 2: 1 line, 20 KiB] here".into());
        let two = f.fold("y".repeat(20 * 1024));
        assert_eq!(two, "[paste 2: 1 line, 20 KiB]");
        let sent = f.expand(&format!("{one}|{two}"));
        assert_eq!(sent, format!("see {two} here|{}", "y".repeat(20 * 1024)));
    }

    #[test]
    fn clear_starts_numbering_again() {
        let mut f = Folded::default();
        f.fold("a".into());
        f.clear();
        assert_eq!(f.expand("[paste 1: 1 line, 1 B]"), "[paste 1: 1 line, 1 B]");
        assert!(f.fold("b".into()).starts_with("[paste 1:"));
    }

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
