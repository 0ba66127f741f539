//! Words that say a value changed ("moved", "now", "instead"): read by extraction, which
//! keeps a change with the sentence it corrects, and by superseding, which decides what
//! it replaces.

/// Words that say a value changed.
const CHANGE_WORDS: &[&str] = &[
    "now",
    "change",
    "changed",
    "changes",
    "move",
    "moved",
    "moving",
    "moves",
    "raise",
    "raised",
    "lower",
    "lowered",
    "instead",
    "final",
    "finally",
    "update",
    "updated",
    "switch",
    "switched",
    "replace",
    "replaced",
    "new",
    "no longer",
    "rather",
    // Corrections and adjustments, as people write them in handover notes and plans.
    "correction",
    "corrected",
    "extended",
    "increased",
    "decreased",
    "reduced",
    "shortened",
    "bumped",
    "revised",
    "postponed",
    "rescheduled",
    // Taking back what was said.
    "scratch",
    "wrong",
    "mistake",
    "misspoke",
    "typo",
];

/// Whether `lower` (lower case) says a change.
pub(super) fn says_change(lower: &str) -> bool {
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    CHANGE_WORDS.iter().any(|w| match w.split_once(' ') {
        Some((a, b)) => words.windows(2).any(|p| p[0] == a && p[1] == b),
        None => words.contains(w),
    })
}
