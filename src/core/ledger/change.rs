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
    "scrap",
    // The value said right this time: "the actual order number is …".
    "actual",
    "correct",
];

/// Words that take back what was said before ("that was wrong", "correction on the
/// Merck thing: the number I gave you was the quote"): a sentence of them without a
/// value of its own says the next value it is followed by replaces the earlier one.
const TAKE_BACK: &[&str] = &[
    "correction",
    "wrong",
    "mistake",
    "misspoke",
    "typo",
    "scratch",
    "scrap",
];

/// Whether `sentence` takes back what was said before.
pub(super) fn takes_back(sentence: &str) -> bool {
    sentence
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| TAKE_BACK.contains(&w))
}

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
