//! How a line names a value as replaced: "not the 12th", "instead of Lisbon", "from the
//! Crown to the Feathers" (with a change), "Saturday's off", "Priya can't make it", a
//! date by its day alone, a count by its number alone. Read by superseding (which line
//! replaces which) and mending (what the correction writes in the old line's place).

use super::becomes::{unit, weekday};
use super::parsed::Parsed;
use super::patterns::{MONTH, re};
use super::values::Kind;
use crate::core::answer::ordinal;
use regex::Regex;
use std::sync::LazyLock;

/// What comes before a value a line names as replaced: "not Lisbon", "from 14 days",
/// "statt 85.000 €", "en vez de 62,50 €", "120, no 110".
pub(super) const REPLACED: &[&str] = &[
    "not ",
    "instead of ",
    "no longer ",
    "scratch ",
    "cancel ",
    "from ",
    "statt ",
    "anstatt ",
    "nicht ",
    "en vez de ",
    "en lugar de ",
    "no ",
    "au lieu de ",
    "pas ",
    "invece di ",
    "em vez de ",
];

/// Whether `lower` calls the time `value` off ("saturday's off", not "saturday's
/// office hours").
fn called_off(lower: &str, value: &str) -> bool {
    followed_by(lower, value, CALLED_OFF)
}

/// Whether `value` stands in `lower` followed by one of `phrases`, the phrase ending at a
/// word's end.
fn followed_by(lower: &str, value: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| {
        let said = format!("{value}{p}");
        lower
            .match_indices(&said)
            .any(|(at, _)| !lower[at + said.len()..].starts_with(char::is_alphanumeric))
    })
}

/// Whether `said` ("from rafe", "not the 12th") stands in `lower` as naming a value
/// replaced. "From" a name is where something came from ("a tip from Rafe": measured,
/// it took the line naming Rafe as the buddy for a change) unless a "to" follows and the
/// line says a change: "from Tokyo to Kyoto" alone is a route (measured: "the Nozomi 215
/// from Tokyo to Kyoto" replaced the line of the Tokyo hotel), "moved from the Crown to
/// the Feathers" a change.
fn replaced_by(lower: &str, said: &str, prefix: &str, kind: Kind, change: bool) -> bool {
    lower.match_indices(said).any(|(at, _)| {
        prefix != "from "
            || kind != Kind::Name
            || change
                && lower[at + said.len()..]
                    .split_whitespace()
                    .take(3)
                    .any(|w| w == "to")
    })
}

/// A month's name at the start of a word, in any case ("January", "sept", "Mar.").
static MONTH_NAMED: LazyLock<Regex> = LazyLock::new(|| re(&format!(r"(?i)\b({MONTH})")));

/// The day of a date said with its month ("4 January 2027", "March 14th"), as it is said
/// alone: "4th", "14th".
fn day_alone(date: &str) -> Option<String> {
    static DAY: LazyLock<Regex> = LazyLock::new(|| {
        re(&format!(
            r"(?i)^(?:(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH}|{MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b)"
        ))
    });
    let caps = DAY.captures(date.trim())?;
    let n: u32 = caps.get(1).or_else(|| caps.get(2))?.as_str().parse().ok()?;
    (1..=31).contains(&n).then(|| ordinal(n))
}

/// The number of a count said with what it counts ("12" of "12 kids"), as it is said
/// alone; nothing for a bare number, an amount of money or a measure with a sign.
pub(super) fn number_alone(count: &str) -> Option<&str> {
    let (number, noun) = count.split_once(' ')?;
    (number.chars().all(|c| c.is_ascii_digit())
        && noun.chars().all(|c| c.is_alphabetic() || c == ' '))
    .then_some(number)
}

/// What follows a time to call it off: "Saturday's off, … so the test drive is Sunday".
const CALLED_OFF: &[&str] = &[
    "'s off",
    "’s off",
    " is off",
    "'s cancelled",
    "’s cancelled",
    " is cancelled",
    " was cancelled",
    " got cancelled",
    "'s canceled",
    " is canceled",
    " was canceled",
    " fell through",
];

/// The value of `older` that `newer` names as replaced ("the 14th not the 12th",
/// "Saturday's off"), and the one value of its kind that `newer` brings in its place, if there is just one.
pub(super) fn named_replaced<'a>(
    newer: &'a Parsed,
    older: &'a Parsed,
) -> Option<(&'a str, Option<&'a str>)> {
    let one_new = |kind: Kind| {
        let mut new = newer
            .values
            .iter()
            .zip(&newer.kinds)
            .filter(|(v, k)| **k == kind && !older.values.contains(v) && !newer.denies(v))
            .map(|(v, _)| v.as_str());
        match (new.next(), new.next()) {
            (Some(v), None) => Some(v),
            _ => None,
        }
    };
    older
        .values
        .iter()
        .zip(&older.lower_values)
        .zip(&older.kinds)
        .filter(|_| newer.values.iter().any(|n| !older.values.contains(n)))
        .find_map(|((v, lv), k)| {
            // A date is also named by its day alone: "it's not the 4th it's the 11th of
            // January" after "Start date: 4 January 2027" (measured: both stood).
            // Weaker than the date said whole, so said of the same thing.
            // The new date must name the old one's month ("the 11th of January"), and both
            // lines the same thing (measured otherwise: "the party is the 7th, not the 4th"
            // took "Mum's birthday is 4 June").
            let day = (*k == Kind::When
                && newer.names_month_of(v)
                && older.words.iter().any(|w| newer.words.contains(w)))
            .then(|| day_alone(v))
            .flatten();
            // A count is also named by its number alone where the new line counts the
            // same thing: "not 12" of "12 kids" beside "14 kids now" (measured: both
            // counts stood).
            let count = number_alone(v).filter(|_| {
                let counted = unit(v);
                newer.values.iter().any(|n| n != v && unit(n) == counted)
            });
            let named = std::iter::once(lv.as_str())
                .filter(|_| newer.values.contains(v))
                .chain(
                    day.as_deref()
                        .filter(|d| newer.lower_values.iter().any(|n| n == d)),
                )
                .chain(count.filter(|c| newer.values.iter().any(|n| n == c)))
                .any(|lv| {
                    REPLACED.iter().any(|p| {
                        [format!("{p}{lv}"), format!("{p}the {lv}")]
                            .iter()
                            .any(|said| replaced_by(&newer.lower, said, p, *k, newer.change))
                    }) || *k == Kind::When && called_off(&newer.lower, lv)
                });
            if named {
                return Some((v.as_str(), one_new(*k)));
            }
            // "the Crown can't do Saturday so we're going to the Feathers": a name that
            // cannot is replaced by the one other name brought, and only then ("Priya
            // can't make it on Tuesday" takes nothing from "Priya is bringing the cake").
            (*k == Kind::Name && cannot(&newer.lower, lv))
                .then(|| one_new(*k))
                .flatten()
                .map(|new| (v.as_str(), Some(new)))
        })
}

/// Whether `lower` says the name `name` cannot do what it was down for, whole words
/// ("tom's off", not "tom's office"), with either apostrophe.
fn cannot(lower: &str, name: &str) -> bool {
    followed_by(&lower.replace('’', "'"), name, CANNOT)
}

/// What follows a name that cannot do what it was down for.
const CANNOT: &[&str] = &[
    " can't do",
    " cannot do",
    " can't make it",
    " cannot make it",
    " can't come",
    " pulled out",
    " dropped out",
    " fell through",
    " is fully booked",
    " is booked up",
    " let us down",
    "'s off",
    " is off",
];

impl Parsed {
    /// Whether another of this line's dates names the month `date` names.
    fn names_month_of(&self, date: &str) -> bool {
        let month = |v: &str| {
            MONTH_NAMED
                .captures(v)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str().to_lowercase()[..3].to_string())
        };
        month(date).is_some_and(|m| {
            self.values
                .iter()
                .filter(|v| v.as_str() != date)
                .any(|v| month(v).as_deref() == Some(m.as_str()))
        })
    }

    /// Whether this line names `value` as replaced: a value it denies is none of its new
    /// ones. "6 April, not the 5th" brings one date (measured: "5th" counted as a second,
    /// and the line the change left a time in was dropped); "14 kids now not 12" one
    /// count (measured: "12" was written over the price beside the old count).
    /// "From" only in a line that says a change: "the apartment is from the 14th to the
    /// 20th" is a stay, not the 14th replaced.
    /// Asked of the line's own values only: read once for all of them.
    pub(super) fn denies(&self, value: &str) -> bool {
        let denied = self.denied.get_or_init(|| {
            self.lower_values
                .iter()
                .filter(|v| {
                    REPLACED
                        .iter()
                        .filter(|p| self.change || **p != "from ")
                        .any(|p| {
                            [format!("{p}{v}"), format!("{p}the {v}")]
                                .iter()
                                .any(|said| self.lower.contains(said.as_str()))
                        })
                })
                .cloned()
                .collect()
        });
        denied.contains(&value.to_lowercase())
    }

    /// The days of the week this line names ("tue" for "Tue", "Tuesday").
    fn days(&self) -> Vec<String> {
        self.values.iter().filter_map(|v| weekday(v)).collect()
    }

    /// Whether this line changes something else on a day `older` does not name: "Kasia's
    /// doing the Tuesday close from now on, not Ben" names a person as replaced and the
    /// day as where; "| Thu | Ben | 7:00–14:00 |" is another day's (measured: every row
    /// naming Ben took Kasia, and every row's day became Tuesday).
    pub(super) fn on_another_day(&self, older: &Parsed) -> bool {
        let (new_days, old_days) = (self.days(), older.days());
        let names_other_replaced = self.values.iter().zip(&self.kinds).any(|(v, k)| {
            *k != Kind::When
                && REPLACED.iter().any(|p| {
                    let said = format!("{p}{}", v.to_lowercase());
                    replaced_by(&self.lower, &said, p, *k, self.change)
                })
        });
        names_other_replaced
            && !new_days.is_empty()
            && !old_days.is_empty()
            && !new_days.iter().any(|d| old_days.contains(d))
    }
}
