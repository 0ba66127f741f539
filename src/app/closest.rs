//! "Did you mean": the nearest of some names to what was typed, for commands and
//! themes alike.

/// The name among `names` that `typed` is a typo of, for "did you mean": at most two
/// edits away (one for short words, so "/x" is not taken for something else).
pub fn closest<'a>(typed: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = if typed.chars().count() <= 3 { 1 } else { 2 };
    names
        .into_iter()
        .map(|n| (strsim::damerau_levenshtein(typed, n), n))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}
