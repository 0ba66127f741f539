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
    /// Its firmest values are small: an hour ("at 3am"), a weekday or a day of the month
    /// alone ("the 24th"), a number of one or two digits that counts nothing ("came in
    /// at 8 to", "at 37 it ends up"). They are looked up at times, but they are also what
    /// a story is told with.
    Soft,
    /// Its values are names (a name is weak evidence: "our Rust service", "Historians
    /// argue"), and perhaps vague or small ones.
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
    "few", "some", "those", "these", "spent",
];
/// A year, and the words that make it the time of a story ("from 1987", "in 2003").
static YEAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:1[89]|20)\d\d$").unwrap_or_else(|e| panic!("{e}")));
const YEAR_BEFORE: &[&str] = &[
    "from", "in", "since", "back", "of", "the", "around", "about", "approx", "circa", "ca",
];

/// Words before a name that make it the answer to "who": a title ("Frau Petrović", "Mr.
/// Haas") or an introduction ("it's Branko", "called Pilatus"). A capital elsewhere may
/// be anything ("our Rust service"); a name introduced is looked up later ("what was the
/// electrician called?").
const INTRODUCE: &[&str] = &[
    "it's", "its", "is", "are", "be", "was", "called", "named", "mr", "mrs", "ms", "mx", "dr",
    "prof", "frau", "herr", "sir", "madam", "madame", "monsieur", "señor", "señora", "signor",
    "signora",
];

const ARTICLES: &[&str] = &["a", "an", "the"];
/// Short words inside a surname that the name pattern does not take ("Ní Bhriain", "Mac
/// Giolla", "van der Berg", "bin Salman"): the title before them introduces the name.
const PARTICLES: &[&str] = &[
    "ní", "nic", "mac", "mc", "ó", "ua", "de", "da", "di", "del", "van", "von", "der", "den",
    "ter", "le", "la", "du", "dos", "bin", "ibn", "al", "el",
];
/// A place said as where something is ("is at", "booked at", "based in").
const PLACE_BEFORE: &[&str] = &["at", "in"];
const PLACED: &[&str] = &[
    "is", "are", "was", "booked", "held", "based", "located", "moved", "lives", "live", "works",
    "meet", "meeting", "staying", "stays",
];

/// Verbs after a name that give the person a role or a thing others ask for ("Søren
/// has the pavilion keys", "Marta runs the tea rota"): "who has the keys?" is looked up.
const ROLE_AFTER: &[&str] = &[
    "has",
    "holds",
    "keeps",
    "runs",
    "owns",
    "handles",
    "manages",
    "organises",
    "organizes",
    "leads",
    "chairs",
    "coaches",
    "does",
    "looks",
    "covers",
    "books",
];
/// Words after "has" or "does" that make it a tense, not a role ("Søren has won eleven
/// times").
const PARTICIPLE: &[&str] = &[
    "won", "been", "got", "done", "had", "gone", "said", "made", "seen", "told", "given", "taken",
    "left", "become", "not", "never", "always", "just", "already",
];
/// "Minh is the ITC superuser", "Ines is our landlady": a name said to be someone, the
/// answer to "who is the …?". Only before a determiner: "Zsófia is not the one" and
/// "Brenda is away" give no one a role.
const IS: &[&str] = &["is", "was"];
const ROLE_DETERMINERS: &[&str] = &["the", "our", "my", "your", "their", "his", "her"];
/// A small value (see [`Weight::Soft`]).
static SMALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)^(?:\d{1,2}(?:st|nd|rd|th)|\d{1,2}\s?[ap]\.?m\.?",
        r"|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|\d{1,2})$",
    ))
    .unwrap_or_else(|e| panic!("{e}"))
});
/// Words after a bare number that show it counts nothing named ("at 8 to show me").
const COUNTS_NOTHING: &[&str] = &[
    "", "to", "it", "and", "but", "so", "or", "the", "a", "on", "in", "at", "for", "with", "then",
    "we", "i", "he", "she", "they", "you", "is", "was", "if", "when", "because",
];

/// A group by age ("the under-11s", "U13", "over-50s"): the name of a team, not a value
/// a person looks up.
static AGE_GROUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:under|over|u)-?\d{1,2}s?$").unwrap_or_else(|e| panic!("{e}"))
});

/// A word beside a value, lower case, without the punctuation around it.
fn plain(word: Option<&str>) -> String {
    word.map(|w| {
        w.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    })
    .unwrap_or_default()
}

/// The weight of a line of `text` (see the module docs): that of its weightiest value.
pub fn weight(text: &str) -> Weight {
    value_spans(text)
        .iter()
        .map(|(start, end, value)| value_weight(text, *start, *end, value))
        .max()
        .unwrap_or(Weight::Vague)
}

/// The weight of one value of `text`, standing at `start..end`: vague when it only
/// places a story in time or stresses it, a name unless introduced, else hard.
pub fn value_weight(text: &str, start: usize, end: usize, value: &str) -> Weight {
    let mut back = text[..start]
        .split_whitespace()
        .rev()
        .map(|w| plain(Some(w)));
    let before = back.next().unwrap_or_default();
    // "Ms. Ní Bhriain", "Herr von Arnim": a particle of the name stands between.
    let before = if PARTICLES.contains(&before.as_str()) {
        back.next().unwrap_or_default()
    } else {
        before
    };
    // "is a Vaillant", "booked at the Fleece": the article stands between.
    let before = if ARTICLES.contains(&before.as_str()) {
        back.next().unwrap_or_default()
    } else {
        before
    };
    // "booked at the Fleece", "is in Rm. B2": where a thing is, looked up later.
    let placed = PLACE_BEFORE.contains(&before.as_str())
        && back.next().is_some_and(|w| PLACED.contains(&w.as_str()));
    let mut next = text[end..].split_whitespace();
    let after = plain(next.next());
    let then = plain(next.next());
    let role = ROLE_AFTER.contains(&after.as_str())
        && !(then.ends_with("ed") || PARTICIPLE.contains(&then.as_str()))
        || IS.contains(&after.as_str()) && ROLE_DETERMINERS.contains(&then.as_str());
    let vague = VAGUE.is_match(value.trim())
        || (DECADE.is_match(value) || YEAR.is_match(value))
            && YEAR_BEFORE.contains(&before.as_str())
        || DURATION.is_match(value.trim())
            && (after == "ago" || TOLD_BEFORE.contains(&before.as_str()));
    // "Maya 31, Leo 28": a number said right after a name is that person's (a size, an
    // age, a score), asked for by the name later.
    let owned = text[..start]
        .split_whitespace()
        .next_back()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .is_some_and(|w| {
            let mut chars = w.chars();
            chars.next().is_some_and(char::is_uppercase)
                && w.chars().count() >= 3
                && chars.all(char::is_lowercase)
        });
    let small = SMALL.is_match(value.trim())
        && (!value.trim().chars().all(|c| c.is_ascii_digit())
            || COUNTS_NOTHING.contains(&after.as_str()) && !owned);
    if vague {
        Weight::Vague
    } else if small {
        Weight::Soft
    } else if AGE_GROUP.is_match(value)
        || kind(value) == Kind::Name && !INTRODUCE.contains(&before.as_str()) && !role && !placed
    {
        Weight::Names
    } else {
        Weight::Hard
    }
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
            // A title before a name's particle, a number said right after a name.
            "Maya's teacher this year is Ms. Ní Bhriain",
            "shoe sizes: Maya 31, Leo 28",
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

    #[test]
    fn who_has_a_thing_and_where_it_is_are_looked_up_and_a_story_is_not() {
        for hard in [
            // A name with a role, or after "is a" / "booked at the".
            "Søren Dahl has the pavilion keys",
            "Minh is the ITC superuser",
            "the boiler is a Vaillant",
            "presentation night is booked at the Fleece on Towngate",
            "living room walls are going to be Skimming Stone",
        ] {
            assert_eq!(weight(hard), Weight::Hard, "{hard}");
        }
        for told in [
            // "has" of a tense, a group by age, a year after "approx.".
            "which Søren has won eleven times",
            "Zsófia is not the one with jet lag",
            "the under-11s were brilliant tonight by the way",
            "he opens up on match days and has done since approx. 1994",
        ] {
            assert!(weight(told) < Weight::Hard, "{told}");
        }
        for small in [
            "Minh came in at 8 to show me how to clean the cell",
            "the alarm on the freezer went off at 3am",
            "at 37 it all ends up in inclusion bodies",
        ] {
            assert_eq!(weight(small), Weight::Soft, "{small}");
        }
        // A number that counts something stays hard.
        assert_eq!(weight("ordered the bathroom tiles, 14 boxes"), Weight::Hard);
    }
}
