//! A value in a text as people write it: what `/check` and the fidelity benchmark both
//! use to decide whether an answer gives a fact's value.
//!
//! Text is compared as people read it, not byte for byte: case, accents ("Zoë", "ZOË" and
//! "Zoe" are one name), and the usual ways of writing a date, a clock time, an amount of
//! money, a phone number, a rate or a unit are made one before looking; and a value
//! counts only as a whole ("1450 eur" is not in "11450 eur").

use regex::Regex;
use std::sync::LazyLock;

fn regex(pattern: &str) -> Regex {
    // The patterns are constants covered by tests; failing to compile is a build bug.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad built-in regex: {e}"))
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
/// A month's name or its usual abbreviation (lower case).
const MONTH: &str = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?";

/// The full name of a month given by name, abbreviation or number (1-based).
fn month_name(m: &str) -> &'static str {
    if let Ok(n) = m.parse::<usize>() {
        return MONTHS.get(n.wrapping_sub(1)).copied().unwrap_or("");
    }
    MONTHS
        .iter()
        .find(|full| full.starts_with(&m[..m.len().min(3)]))
        .copied()
        .unwrap_or("")
}

/// A date written one way, "march 14th" (and "march 14th 2026" with a year): people say
/// "2026-03-14", "March 14th", "14 March" and "the 14th of March" for the same day, and a
/// right answer in another form than the script's is still right.
fn dates(s: &str) -> String {
    static ISO: LazyLock<Regex> = LazyLock::new(|| regex(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"));
    static DAY_MONTH: LazyLock<Regex> = LazyLock::new(|| {
        regex(&format!(
            r"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? {MONTH}(?:,? (\d{{4}}))?\b"
        ))
    });
    static MONTH_DAY: LazyLock<Regex> = LazyLock::new(|| {
        regex(&format!(
            r"\b{MONTH} (?:the )?(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (\d{{4}})\b)?"
        ))
    });
    // The day as an ordinal, which also ends it: "may 3rd" is not in "may 30th".
    let day = |d: &str| ordinal(d.parse::<u32>().unwrap_or(0));
    let written = |month: &str, d: &str, year: Option<&str>| match year {
        Some(y) => format!("{month} {} {y}", day(d)),
        None => format!("{month} {}", day(d)),
    };
    let s = ISO.replace_all(s, |c: &regex::Captures| {
        let month = month_name(&c[2]);
        if month.is_empty() {
            c[0].to_string()
        } else {
            written(month, &c[3], Some(&c[1]))
        }
    });
    // Not a day: minutes ("7:30 may be late") or a number past 31.
    let not_a_day = |s: &str, c: &regex::Captures, d: &str| {
        let start = c.get(0).map_or(0, |m| m.start());
        s[..start].ends_with(':') || !d.parse::<u32>().is_ok_and(|n| (1..=31).contains(&n))
    };
    let s = DAY_MONTH.replace_all(&s, |c: &regex::Captures| {
        if not_a_day(&s, c, &c[1]) {
            return c[0].to_string();
        }
        written(month_name(&c[2]), &c[1], c.get(3).map(|y| y.as_str()))
    });
    MONTH_DAY
        .replace_all(&s, |c: &regex::Captures| {
            if !c[2].parse::<u32>().is_ok_and(|n| (1..=31).contains(&n)) {
                return c[0].to_string();
            }
            written(month_name(&c[1]), &c[2], c.get(3).map(|y| y.as_str()))
        })
        .into_owned()
}

/// A clock time written one way, "07:45" (24-hour): "7:45", "07:45", "7:45 am" and
/// "7.45am" are one time, "7:30pm" and "19:30" another. A bare time is read as written,
/// on a 24-hour clock, so the scripts write an evening as "19:30" or "7:30pm". "quarter
/// to eight" is not read (it could be either half of the day).
fn clock(s: &str) -> String {
    static COLON: LazyLock<Regex> =
        LazyLock::new(|| regex(r"\b(\d{1,2}):(\d{2})(?:\s?([ap])\.?m\b\.?|\b)"));
    static MERIDIEM: LazyLock<Regex> =
        LazyLock::new(|| regex(r"\b(\d{1,2})(?:\.(\d{2}))?\s?([ap])\.?m\b\.?"));
    let written = |c: &regex::Captures, h: &str, m: Option<&str>, half: Option<&str>| {
        let (Ok(mut h), Ok(m)) = (h.parse::<u32>(), m.unwrap_or("0").parse::<u32>()) else {
            return c[0].to_string();
        };
        match half {
            Some(_) if h == 0 || h > 12 => return c[0].to_string(),
            Some("a") if h == 12 => h = 0,
            Some("p") if h < 12 => h += 12,
            _ => {}
        }
        if h > 23 || m > 59 {
            return c[0].to_string();
        }
        format!("{h:02}:{m:02}")
    };
    let s = COLON.replace_all(s, |c: &regex::Captures| {
        written(c, &c[1], Some(&c[2]), c.get(3).map(|m| m.as_str()))
    });
    MERIDIEM
        .replace_all(&s, |c: &regex::Captures| {
            written(
                c,
                &c[1],
                c.get(2).map(|m| m.as_str()),
                c.get(3).map(|m| m.as_str()),
            )
        })
        .into_owned()
}

/// An amount of money written one way, "1450 eur": "€1,450", "€ 1,450.00", "1,450 EUR"
/// and "1450 euros" are one amount, as "CHF 180" and "180 Swiss francs" are. Thousands
/// are read only with commas ("1.450 €" is not), and an amount without its currency
/// ("1,450") is just the number, "1450", which the amount with a currency contains.
fn money(s: &str) -> String {
    static THOUSANDS: LazyLock<Regex> = LazyLock::new(|| regex(r"\b\d{1,3}(?:,\d{3})+\b"));
    static BEFORE: LazyLock<Regex> =
        LazyLock::new(|| regex(r"(€|£|\$|\b(?:eur|gbp|usd|chf|pln)\b)\s?(\d+(?:[.,]\d{1,2})?)\b"));
    static AFTER: LazyLock<Regex> = LazyLock::new(|| {
        regex(
            r"\b(\d+(?:[.,]\d{1,2})?)\s?(€|£|\$|(?:euros?|eur|pounds?|gbp|dollars?|usd|swiss francs?|francs?|chf|pln|zlotys?|zl)\b)",
        )
    });
    let code = |c: &str| match c {
        "€" | "euro" | "euros" | "eur" => "eur",
        "£" | "pound" | "pounds" | "gbp" => "gbp",
        "$" | "dollar" | "dollars" | "usd" => "usd",
        "pln" | "zloty" | "zlotys" | "zl" => "pln",
        _ => "chf",
    };
    let amount = |a: &str| {
        let a = a.replace(',', ".");
        match a.strip_suffix(".00").or_else(|| a.strip_suffix(".0")) {
            Some(whole) => whole.to_string(),
            None => a,
        }
    };
    let s = THOUSANDS.replace_all(s, |c: &regex::Captures| c[0].replace(',', ""));
    let s = BEFORE.replace_all(&s, |c: &regex::Captures| {
        format!("{} {}", amount(&c[2]), code(&c[1]))
    });
    AFTER
        .replace_all(&s, |c: &regex::Captures| {
            format!("{} {}", amount(&c[1]), code(&c[2]))
        })
        .into_owned()
}

/// A phone number without its spaces and dashes: "+34 612 48 93 07" and "+34 612 489 307"
/// are one number. Only what looks like one: "+" or "0", then at least 8 digits in three
/// or more groups.
fn phones(s: &str) -> String {
    static PHONE: LazyLock<Regex> =
        LazyLock::new(|| regex(r"(?:\+|\b0)\d{1,4}(?:[ -]\d{2,4}){2,}\b"));
    PHONE
        .replace_all(s, |c: &regex::Captures| {
            let digits: String = c[0].chars().filter(|ch| ch.is_ascii_digit()).collect();
            if digits.len() < 8 {
                return c[0].to_string();
            }
            if c[0].starts_with('+') {
                format!("+{digits}")
            } else {
                digits
            }
        })
        .into_owned()
}

/// Lower-case letters without their accents: "zoë" is "zoe", "łukasz" "lukasz", "sørensen"
/// "sorensen", "straße" "strasse"; combining accents (text in decomposed form) are
/// dropped. A model that writes a name without its accents still names the person.
fn fold_accents(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let plain = match c {
            '\u{300}'..='\u{36f}' => "",
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
            'æ' => "ae",
            'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => "c",
            'ď' | 'đ' | 'ð' => "d",
            'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => "e",
            'ĝ' | 'ğ' | 'ġ' | 'ģ' => "g",
            'ì' | 'í' | 'î' | 'ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' | 'ı' => "i",
            'ķ' => "k",
            'ĺ' | 'ļ' | 'ľ' | 'ŀ' | 'ł' => "l",
            'ñ' | 'ń' | 'ņ' | 'ň' => "n",
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ŏ' | 'ő' => "o",
            'œ' => "oe",
            'ŕ' | 'ŗ' | 'ř' => "r",
            'ś' | 'ŝ' | 'ş' | 'š' | 'ș' => "s",
            'ß' => "ss",
            'ţ' | 'ť' | 'ț' => "t",
            'þ' => "th",
            'ù' | 'ú' | 'û' | 'ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => "u",
            'ý' | 'ÿ' => "y",
            'ź' | 'ż' | 'ž' => "z",
            '’' | '‘' => "'",
            _ => {
                out.push(c);
                continue;
            }
        };
        out.push_str(plain);
    }
    out
}

/// Lower case, without accents or markup, and with a number's unit written one way:
/// "12-second", "12 seconds" and "12 second" are one value, as are "25MB" and "25 MB",
/// "100 requests a minute" and "100 req/min", and a date, a clock time, an amount of
/// money or a phone number in any of its usual forms.
pub fn normalize(s: &str) -> String {
    static UNIT: LazyLock<Regex> = LazyLock::new(|| {
        regex(r"(\d)[ -]?(second|minute|hour|day|week|month|year|mb|gb|tb|kb)s?\b")
    });
    static RATE: LazyLock<Regex> = LazyLock::new(|| {
        regex(
            r"(\d) ?(?:requests?|reqs?|calls?) ?(?:a|an|per|each|every|/) ?(second|sec|minute|min|hour|hr)s?\b",
        )
    });
    let plain = fold_accents(&s.to_lowercase()).replace(['`', '*'], "");
    let plain = dates(&plain);
    let plain = clock(&plain);
    let plain = phones(&plain);
    let plain = money(&plain);
    let plain = RATE.replace_all(&plain, |c: &regex::Captures| {
        let unit = match &c[2] {
            "sec" => "second",
            "min" => "minute",
            "hr" => "hour",
            u => u,
        };
        format!("{} requests per {unit}", &c[1])
    });
    UNIT.replace_all(&plain, "$1 $2").into_owned()
}

/// Where `value` stands in `text` as a whole, not inside a longer number or word: "1450
/// eur" is not in "11450 eur", "7:45" is not in "17:45", "walk" is not in "walking"; a
/// letter may touch a number ("v0.9.3" holds "0.9.3").
pub fn positions(text: &str, value: &str) -> Vec<usize> {
    let joined = |a: char, b: char| {
        (a.is_ascii_digit() && b.is_ascii_digit()) || (a.is_alphabetic() && b.is_alphabetic())
    };
    let (first, last) = (value.chars().next(), value.chars().next_back());
    text.match_indices(value)
        .map(|(i, _)| i)
        .filter(|&i| {
            let before = text[..i].chars().next_back();
            let after = text[i + value.len()..].chars().next();
            !matches!((before, first), (Some(b), Some(f)) if joined(b, f))
                && !matches!((last, after), (Some(l), Some(a)) if joined(l, a))
        })
        .collect()
}

/// Whether `value` stands in `text` as a whole ([`positions`]).
pub fn holds(text: &str, value: &str) -> bool {
    !positions(text, value).is_empty()
}

/// A day of the month as it is said: "1st", "2nd", "11th", "23rd".
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}
