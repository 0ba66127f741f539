//! Weight: which of the person's lines a full ledger lets go of first.
//!
//! A ledger line is kept for the question a person asks later ("what was the tile order
//! number?", "until when can I drill?"): a code, an amount, a time, a date, a measure —
//! a value someone would otherwise have to look up. Lines whose only values place an
//! anecdote in time ("a newspaper from 1987", "wallpaper from the 70s", "three weeks
//! ago", "for ten minutes") or add emphasis ("100% about me") are told, not looked up.
//! Measured on a 62-turn chat at 2K: eleven such lines outlasted the budget, the tile
//! order number and the door code that were said before them.

use super::values::{Kind, kind, value_spans};
use regex::Regex;
use std::sync::LazyLock;

/// How much a line is worth keeping, least first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Weight {
    /// Every value only places the line in time or stresses it.
    Vague,
    /// Its values are names (a name is weak evidence: "our Rust service", "Historians
    /// argue"), and perhaps vague ones.
    Names,
    /// At least one value a person would look up: a code, an amount, a time, a measure.
    Hard,
}

/// A value that stresses or places a story in time by its shape alone: a decade ("the
/// 70s", "1950s") or "100%".
static VAGUE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(?:1[89]\d0s|100\s?%)$").unwrap_or_else(|e| panic!("{e}")));
/// "the 70s", "from the 90s" — where "timeout 30s" is thirty seconds.
static DECADE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^'?\d0s$").unwrap_or_else(|e| panic!("{e}")));
/// A stretch of time ("ten minutes", "2 months"): vague when it is told ("for ten
/// minutes", "from 1 day to 2 weeks", "three weeks ago"), hard when it is set ("the
/// notice is 48 hours", "a timeout of 30 minutes").
static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)^(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|a\s+hundred|a\s+thousand)",
        r"\s*-?\s*(?:mins?|minutes?|h|hrs?|hours?|days?|nights?|weeks?|months?|years?)$",
    ))
    .unwrap_or_else(|e| panic!("bad built-in regex: {e}"))
});
const TOLD_BEFORE: &[&str] = &[
    "for", "from", "to", "about", "around", "maybe", "last", "past", "nearly", "almost", "over",
    "few", "some", "those", "these",
];
/// A year, and the words that make it the time of a story ("from 1987", "in 2003").
static YEAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:1[89]|20)\d\d$").unwrap_or_else(|e| panic!("{e}")));
const YEAR_BEFORE: &[&str] = &["from", "in", "since", "back", "of", "the", "around"];

/// Words before a name that make it the answer to "who": a title ("Frau Petrović", "Mr.
/// Haas") or an introduction ("it's Branko", "called Pilatus"). A capital elsewhere may
/// be anything ("our Rust service"); a name introduced is looked up later ("what was the
/// electrician called?").
const INTRODUCE: &[&str] = &[
    "it's", "its", "is", "called", "named", "mr", "mrs", "ms", "mx", "dr", "prof", "frau", "herr",
    "sir", "madam", "madame", "monsieur", "señor", "señora", "signor", "signora",
];

/// A word beside a value, lower case, without the punctuation around it.
fn plain(word: Option<&str>) -> String {
    word.map(|w| {
        w.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    })
    .unwrap_or_default()
}

/// The weight of a line of `text` (see the module docs).
pub fn weight(text: &str) -> Weight {
    let spans = value_spans(text);
    let mut names = false;
    for (start, end, value) in &spans {
        let before = plain(text[..*start].split_whitespace().next_back());
        let after = plain(text[*end..].split_whitespace().next());
        let vague = VAGUE.is_match(value.trim())
            || (DECADE.is_match(value) || YEAR.is_match(value))
                && YEAR_BEFORE.contains(&before.as_str())
            || DURATION.is_match(value.trim())
                && (after == "ago" || TOLD_BEFORE.contains(&before.as_str()));
        if vague {
            continue;
        }
        if kind(value) == Kind::Name && !INTRODUCE.contains(&before.as_str()) {
            names = true;
        } else {
            return Weight::Hard;
        }
    }
    if names { Weight::Names } else { Weight::Vague }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_person_looks_up_outweighs_a_story_told() {
        for hard in [
            "total budget for the reno is €18,500",
            "the tile order number is FL-20931",
            "drilling only until 18:00 on weekdays",
            "the front door code downstairs is 1953",
            "kitchen delivery is on the 6th of March",
            "the back wall is 2.35 wide",
            "ordered the bathroom tiles, 14 boxes",
            "the notice is 48 hours",
            "85% of the budget is gone",
        ] {
            assert_eq!(weight(hard), Weight::Hard, "{hard}");
        }
        for hard in [
            "electrician's sorted, it's Branko",
            "Frau Petrović has our spare key",
        ] {
            assert_eq!(weight(hard), Weight::Hard, "{hard}");
        }
        for names in ["Miri wants the paper one", "we love Leipzig in the spring"] {
            assert_eq!(weight(names), Weight::Names, "{names}");
        }
        for vague in [
            "also a newspaper from 1987",
            "under that was newspaper from the 1950s",
            "a whole roll of wallpaper from the 70s",
            "I just found out what a riser is three weeks ago",
            "'not even for a short time' is 100% about me",
            "I've heard everything from 1 day to 2 weeks",
            "she stood in the doorway for ten minutes",
        ] {
            assert_eq!(weight(vague), Weight::Vague, "{vague}");
        }
    }
}
