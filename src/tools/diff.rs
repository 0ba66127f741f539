//! Diffs of a write or an edit — in the approval dialog and in what the model is told —
//! with bounded cost and size.
//!
//! A diff's cost grows with the product of the lines changed: replacing a 100,000-line file
//! took 65 s on the actor and the dialog then re-wrapped megabytes every frame. So inputs
//! over [`MAX_INPUT_BYTES`] are summed up instead (the sizes, and the first lines of the new
//! content), a diff gets a time limit (past it, `similar` gives a coarser but correct
//! diff), and what is shown is cut at [`MAX_SHOWN_LINES`] lines with the count of the rest.
//! The callers run this off the actor.

use similar::{ChangeTag, TextDiff};
use std::time::Duration;

/// Before and after together above this are summed up, not diffed.
pub const MAX_INPUT_BYTES: usize = 512 * 1024;
/// Lines of a diff (or of new content) shown at most.
pub const MAX_SHOWN_LINES: usize = 400;
/// A diff taking longer than this settles for a coarser result.
const TIME_LIMIT: Duration = Duration::from_millis(500);
/// Lines of new content shown when a change is summed up.
const HEAD_LINES: usize = 40;

/// A change as it is shown, and how many lines it adds and removes (when diffed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub text: String,
    /// Lines added and removed; `None` when the change was summed up, not diffed.
    pub counts: Option<(usize, usize)>,
}

fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / (1 << 20) as f64)
    } else if bytes >= 1 << 10 {
        format!("{:.1} KB", bytes as f64 / (1 << 10) as f64)
    } else {
        format!("{bytes} B")
    }
}

/// Keep the first [`MAX_SHOWN_LINES`] lines of `text`, saying how many more there were.
fn cut(text: String) -> String {
    let total = text.lines().count();
    if total <= MAX_SHOWN_LINES {
        return text;
    }
    let mut kept: String = text
        .lines()
        .take(MAX_SHOWN_LINES)
        .flat_map(|l| [l, "\n"])
        .collect();
    kept.push_str(&format!(
        "[… {} more lines of the diff not shown]\n",
        total - MAX_SHOWN_LINES
    ));
    kept
}

/// A unified diff of `before` → `after` for `shown`, or a summary when they are large.
pub fn diff(shown: &str, before: &str, after: &str) -> Shown {
    if before.len() + after.len() > MAX_INPUT_BYTES {
        let mut text = format!(
            "{} lines ({}) → {} lines ({}): too large to show as a diff; the new content begins:\n",
            before.lines().count(),
            size(before.len()),
            after.lines().count(),
            size(after.len()),
        );
        for l in after.lines().take(HEAD_LINES) {
            text.push('+');
            text.push_str(l);
            text.push('\n');
        }
        let more = after.lines().count().saturating_sub(HEAD_LINES);
        if more > 0 {
            text.push_str(&format!("[… {more} more lines]\n"));
        }
        return Shown { text, counts: None };
    }
    let d = TextDiff::configure()
        .timeout(TIME_LIMIT)
        .diff_lines(before, after);
    let (mut added, mut removed) = (0, 0);
    for c in d.iter_all_changes() {
        match c.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    let text = d
        .unified_diff()
        .context_radius(2)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string();
    Shown {
        text: cut(text),
        counts: Some((added, removed)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_small_change_is_a_unified_diff_with_its_counts() {
        let d = diff("a.txt", "one\ntwo\nthree\n", "one\n2\nthree\nfour\n");
        assert!(d.text.contains("-two\n+2\n"), "{}", d.text);
        assert_eq!(d.counts, Some((2, 1)));
    }

    #[test]
    fn a_huge_overwrite_is_summed_up_not_diffed() {
        let before: String = (0..100_000).map(|i| format!("old line {i}\n")).collect();
        let after: String = (0..12).map(|i| format!("new {i}\n")).collect();
        let d = diff("big.txt", &before, &after);
        assert_eq!(d.counts, None);
        assert!(d.text.starts_with("100000 lines ("), "{}", d.text);
        assert!(d.text.contains("→ 12 lines"), "{}", d.text);
        assert!(d.text.contains("+new 11\n"), "{}", d.text);
        assert!(d.text.len() < 2_000, "{}", d.text.len());
    }

    #[test]
    fn a_long_diff_is_cut_and_says_how_much_is_left() {
        let before: String = (0..3_000).map(|i| format!("a{i}\n")).collect();
        let after: String = (0..3_000).map(|i| format!("b{i}\n")).collect();
        let d = diff("f", &before, &after);
        assert_eq!(d.text.lines().count(), MAX_SHOWN_LINES + 1);
        assert!(
            d.text.contains("more lines of the diff not shown"),
            "{}",
            d.text
        );
        assert_eq!(d.counts, Some((3_000, 3_000)));
    }
}
