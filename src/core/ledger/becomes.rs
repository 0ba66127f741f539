//! Which value may become which: a correction replaces an amount only within its unit
//! and size, a day with a day, a clock time with a clock time, a date with a date. Read
//! by superseding and mending; the values themselves and their kinds are `values.rs`.

use super::patterns::{CURRENCY_CODE, HOUR_WORD, SMALL_NUMBERS, TENS, re};
use super::values::{Kind, SAID_IN_WORDS, kind};
use regex::Regex;
use std::sync::LazyLock;

/// What a number is counted in, lower case ("ml" of "2.4 ml", "€" of "€18"); empty for
/// a bare number. Money is counted in its sign however it is said: "twelve hundred and
/// forty quid" and "£1,480" are both pounds.
pub(super) fn unit(value: &str) -> String {
    let digit = |c: char| c.is_ascii_digit();
    let unit = match (value.find(digit), value.rfind(digit)) {
        (Some(first), Some(last)) => {
            let (sign, after) = (value[..first].trim(), value[last + 1..].trim());
            let after = match multiplier(sign, after) {
                // "£3.5k" is pounds; "12k" alone may be miles or money: counted in
                // thousands, which only a bare number or a currency's code can be.
                Some((_, rest)) if !sign.is_empty() => rest,
                Some((_, "")) => THOUSANDS,
                _ => after,
            };
            format!("{sign}{after}").to_lowercase()
        }
        // "two days" is counted in days (measured: as a bare amount it could be any
        // other, and "that's two days gone" wrote itself over "3.2 mg/mL").
        _ => SAID_IN_WORDS
            .find(value)
            .map(|m| value[m.end()..].trim().to_lowercase())
            .unwrap_or_default(),
    };
    match unit.as_str() {
        // Not "pounds", which weigh as often as they pay.
        "quid" | "gbp" => "£".to_string(),
        "euro" | "euros" | "eur" => "€".to_string(),
        "dollar" | "dollars" | "bucks" | "usd" => "$".to_string(),
        _ => unit,
    }
}

/// The unit of "12k" and "40 grand": thousands of something unsaid.
const THOUSANDS: &str = "k";

/// Whether `unit` is a currency's code ("nok"), which "860k" may be counted in.
fn currency_code(unit: &str) -> bool {
    CODED_UNIT.is_match(unit)
}

static CODED_UNIT: LazyLock<Regex> = LazyLock::new(|| re(&format!("^(?i:{CURRENCY_CODE})$")));

/// A figure's multiplier and what follows it: "860k" is 860 thousand and bare, "£3.5k"
/// thousands of pounds, "$2m" millions ("2m" alone is two metres), "40 grand" thousands.
/// Measured: "she came back with 860k" could not replace "Base salary: NOK 812,000".
fn multiplier<'a>(sign: &str, after: &'a str) -> Option<(f64, &'a str)> {
    let word = after
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or_default();
    let times = match word.to_lowercase().as_str() {
        "k" | "grand" => 1e3,
        "m" | "mn" if !sign.is_empty() => 1e6,
        "bn" => 1e9,
        _ => return None,
    };
    Some((times, after[word.len()..].trim()))
}

/// The size of a number's first figure, read the way it is written: "£9,400" and
/// "8.940 €" are thousands ("," or "." before three digits groups them), "2.4 ml" is
/// two and a bit, "twelve hundred and forty quid" 1,240. None for a value with neither.
fn magnitude(value: &str) -> Option<f64> {
    let Some(start) = value.find(|c: char| c.is_ascii_digit()) else {
        return in_words(value);
    };
    let figure: String = value[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '.')
        .collect();
    let figure = figure.trim_end_matches([',', '.']);
    let groups: Vec<&str> = figure.split([',', '.']).collect();
    // "0.125 mg" and "4.125%" are fractions, "£9,400" and "8.940 €" thousands.
    let grouped = groups.len() > 1
        && groups[0] != "0"
        && !value.trim_end().ends_with('%')
        && groups[1..].iter().all(|g| g.len() == 3);
    let text = if grouped {
        groups.concat()
    } else {
        figure.replace(',', ".")
    };
    let n: f64 = text.parse().ok()?;
    let sign = value[..start].trim();
    let after =
        value[start..].trim_start_matches(|c: char| c.is_ascii_digit() || c == ',' || c == '.');
    Some(multiplier(sign, after.trim()).map_or(n, |(times, _)| n * times))
}

/// The number an amount said in words opens with ("a hundred and fifty", "thirty-five",
/// "twelve hundred and forty"); None if it opens with none.
fn in_words(value: &str) -> Option<f64> {
    let (mut total, mut current, mut any) = (0.0, 0.0, false);
    let lower = value.to_lowercase();
    for word in lower.split([' ', '-']).filter(|w| !w.is_empty()) {
        if let Some(n) = SMALL_NUMBERS.iter().position(|w| *w == word) {
            current += n as f64;
        } else if let Some(n) = TENS.iter().position(|w| *w == word) {
            current += (n as f64 + 2.0) * 10.0;
        } else if word == "a" {
            current += 1.0;
        } else if word == "half" {
            current += 0.5;
        } else if word == "dozen" {
            current = current.max(1.0) * 12.0;
        } else if word == "hundred" {
            current = current.max(1.0) * 100.0;
        } else if word == "thousand" || word == "grand" {
            total += current.max(1.0) * 1000.0;
            current = 0.0;
        } else if word == "and" || word == "an" {
            continue;
        } else {
            break;
        }
        any = true;
    }
    (any && total + current > 0.0).then_some(total + current)
}

/// How far apart two amounts may be for one to be the other changed: a price haggled
/// down, a dose lowered, a guest count corrected stay within it; a car's price and its
/// insurance do not (measured: "the Mazda seller came down to £9,100" rewrote the
/// insurance quote "£574 for the Skoda").
const CHANGE_RATIO: f64 = 5.0;

/// The day of the week a value names, as its first three letters ("tue" for "Tue",
/// "Tuesday", "Tuesdays").
pub(super) fn weekday(value: &str) -> Option<String> {
    let lower = value.trim().to_lowercase();
    ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
        .iter()
        .find(|d| lower.starts_with(*d) && WEEKDAY.is_match(&lower))
        .map(|d| (*d).to_string())
}

static WEEKDAY: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)$")
});

/// Whether a time value is a clock time ("9 pm", "10:40", "half seven").
pub(super) fn clock_time(value: &str) -> bool {
    weekday(value).is_none() && CLOCK.is_match(value)
}

/// Which of day of the week, clock time and date a time value is: one only changes into
/// another of its class.
fn when_class(value: &str) -> u8 {
    if weekday(value).is_some() {
        0
    } else if CLOCK.is_match(value) {
        1
    } else {
        2
    }
}

static CLOCK: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)^(?:\d{{1,2}}:\d{{2}}.*|\d{{1,2}}\s?[ap]\.?m\.?|(?:half|quarter)\s.*|.*o'clock|{HOUR_WORD})$"
    ))
});

/// How far apart a bare number and an amount with a unit may be: "rent 980" may become
/// "€1,050 now", the year in "2019 Mazda 3" may not become "£9,100" (measured).
const UNIT_GAINED_RATIO: f64 = 2.0;
/// Bare numbers below this are hours, counts, floors: "at 11" may become "at 2"; a
/// small one never stands for a large one (measured: "viewing moved to fri 5.30" wrote
/// over the rent, "1850 pcm").
const SMALL_BARE: f64 = 100.0;

/// Whether `new` can be `old` changed: of two numbers, the same unit where both have one,
/// and sizes within [`CHANGE_RATIO`] of each other (closer where only one has a unit);
/// anything else of one kind can.
pub(super) fn could_become(old: &str, new: &str) -> bool {
    if kind(old) == Kind::When && kind(new) == Kind::When {
        // A day for a day, a clock time for a clock time, a date for a date (measured:
        // "Kasia's doing the Tuesday close" wrote "Tuesday" over the alarm's "set by
        // 17:30").
        return when_class(old) == when_class(new);
    }
    if kind(old) != Kind::Number || kind(new) != Kind::Number {
        return true;
    }
    let (ou, nu) = (unit(old), unit(new));
    let thousands_of = |a: &str, b: &str| a == THOUSANDS && currency_code(b);
    if !ou.is_empty()
        && !nu.is_empty()
        && ou != nu
        && !thousands_of(&ou, &nu)
        && !thousands_of(&nu, &ou)
    {
        return false;
    }
    let (Some(o), Some(n)) = (magnitude(old), magnitude(new)) else {
        return true;
    };
    if o <= 0.0 || n <= 0.0 {
        return true;
    }
    let ratio = o.max(n) / o.min(n);
    match (ou.is_empty(), nu.is_empty()) {
        (true, true) => o.max(n) < SMALL_BARE || ratio <= CHANGE_RATIO,
        (false, false) => ratio <= CHANGE_RATIO,
        _ => ratio <= UNIT_GAINED_RATIO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_stays_within_the_size_and_unit_of_what_it_changes() {
        assert!(could_become("£9,400", "£9,100"));
        assert!(could_become("4.125%", "4.5%"));
        assert!(could_become("0.125 mg", "0.25 mg"));
        assert!(could_become("2.4 ml", "2.0 ml"));
        assert!(could_become("8.940 €", "9.200 €"));
        assert!(could_become("11", "2"));
        assert!(could_become("980", "€1,050"));
        assert!(!could_become("£612", "£9,100"));
        assert!(!could_become("2019", "£9,100"));
        assert!(!could_become("1.5 mg", "2.0 ml"));
        // A small number never stands for a large one: a time is no rent.
        assert!(!could_become("1850", "5.30"));
        assert!(could_become("6", "5.30"));
        assert!(!could_become("3.2 mg", "two days"));
        assert!(could_become("two weeks", "3 weeks"));
        assert!(could_become("twelve hundred and forty quid", "£1,480"));
        assert!(could_become("250 euros", "€300"));
        assert!(!could_become("fifty quid", "€60"));
        assert!(!could_become("fifty quid", "£9,100"));
        assert!(!could_become("30 pounds", "£45"));
        // A multiplier is a size, not a unit.
        assert!(could_become("NOK 812,000", "860k"));
        assert!(could_become("£3.5k", "£3,900"));
        assert!(could_become("$2m", "$2,400,000"));
        assert!(!could_become("812,000", "860"));
        assert!(!could_become("2m", "$2m"));
        assert_eq!(unit("40 grand"), "k");
        assert_eq!(unit("£3.5k"), "£");
        // Thousands of miles are no price.
        assert!(!could_become("12k", "£11,500"));
        assert!(could_become("12k", "13,000"));
        assert_eq!(in_words("twelve hundred and forty quid"), Some(1240.0));
        assert_eq!(in_words("a hundred and fifty quid"), Some(150.0));
        assert_eq!(in_words("thirty-five people"), Some(35.0));
        assert_eq!(in_words("two weeks"), Some(2.0));
        assert_eq!(in_words("quid"), None);
        // Not numbers: a day for a day, a time for a time.
        assert!(could_become("Saturday", "Sunday"));
        assert!(could_become("Tue", "Thursday"));
        assert!(!could_become("17:30", "Tuesday"));
        assert!(!could_become("10:40", "14th"));
        assert!(could_become("12th", "14 March"));
        assert!(could_become("half seven", "8pm"));
        assert_eq!(weekday("thurs"), Some("thu".to_string()));
    }
}
