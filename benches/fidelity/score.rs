//! Scoring: whether a context still holds a fact *with its subject*, and whether a quiz
//! answer gives the right value.
//!
//! A fact counts as kept only when its value and one of its subject words stand in the
//! same line or sentence of the context: "6379" alone says nothing about what listens on
//! it. A changed fact counts only when its latest value is there with the subject and the
//! stale one is not presented as current (it may remain elsewhere, e.g. "moved from
//! Tuesday to Thursday" keeps both in one sentence and still counts).

use super::scenarios::Fact;
use regex::Regex;
use std::sync::LazyLock;

fn regex(pattern: &str) -> Regex {
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
    let day = |d: &str| {
        let n = d.parse::<u32>().unwrap_or(0);
        let suffix = match (n % 10, n % 100) {
            (_, 11..=13) => "th",
            (1, _) => "st",
            (2, _) => "nd",
            (3, _) => "rd",
            _ => "th",
        };
        format!("{n}{suffix}")
    };
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
    let s = DAY_MONTH.replace_all(&s, |c: &regex::Captures| {
        written(month_name(&c[2]), &c[1], c.get(3).map(|y| y.as_str()))
    });
    MONTH_DAY
        .replace_all(&s, |c: &regex::Captures| {
            written(month_name(&c[1]), &c[2], c.get(3).map(|y| y.as_str()))
        })
        .into_owned()
}

/// Lower case, without markup, and with a number's unit written one way: "12-second",
/// "12 seconds" and "12 second" are one value, as are "25MB" and "25 MB", "100 requests
/// a minute" and "100 req/min", and a date in any of its usual forms.
fn normalize(s: &str) -> String {
    static UNIT: LazyLock<Regex> = LazyLock::new(|| {
        regex(r"(\d)[ -]?(second|minute|hour|day|week|month|year|mb|gb|tb|kb)s?\b")
    });
    static RATE: LazyLock<Regex> = LazyLock::new(|| {
        regex(
            r"(\d) ?(?:requests?|reqs?|calls?) ?(?:a|an|per|each|every|/) ?(second|sec|minute|min|hour|hr)s?\b",
        )
    });
    let plain = s.to_lowercase().replace(['`', '*'], "");
    let plain = dates(&plain);
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

/// The lines and sentences of `text`.
fn passages(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        out.push(line.to_string());
        // Sentences: split at ". " so a path or a version number is not cut.
        for s in line.split(". ") {
            out.push(s.to_string());
        }
    }
    out
}

fn has_subject(passage: &str, fact: &Fact) -> bool {
    fact.subject.iter().any(|w| passage.contains(&normalize(w)))
}

/// Whether `context` holds `fact`'s current value beside its subject.
pub fn kept_with_subject(context: &str, fact: &Fact) -> bool {
    let value = normalize(fact.value);
    let stale = fact.stale.map(normalize);
    passages(&normalize(context)).iter().any(|p| {
        p.contains(&value)
            && has_subject(p, fact)
            && stale
                .as_ref()
                .is_none_or(|s| !p.contains(s.as_str()) || current_beside_stale(p, &value, s))
    })
}

/// A passage naming both values presents the new one as current: "moved from X to Y"
/// (the new value last) or "now Y, not X" (the old one denied).
fn current_beside_stale(passage: &str, value: &str, stale: &str) -> bool {
    let denied = |v: &str| {
        ["not ", "instead of ", "no longer ", "rather than "]
            .iter()
            .any(|p| passage.contains(&format!("{p}{v}")))
    };
    !denied(value) && (denied(stale) || passage.rfind(value) > passage.rfind(stale))
}

/// Whether a quiz answer gives the fact's value (and, for a changed fact, not the stale
/// one instead).
pub fn answer_is_right(answer: &str, fact: &Fact) -> bool {
    let a = normalize(answer);
    let value = normalize(fact.value);
    let value = value.trim_end_matches("()");
    if !a.contains(value) {
        return false;
    }
    match fact.stale.map(normalize) {
        Some(s) if a.contains(&s) => a.rfind(value) > a.rfind(&s),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(
        subject: &'static [&'static str],
        value: &'static str,
        stale: Option<&'static str>,
    ) -> Fact {
        Fact {
            subject,
            value,
            stale,
            turn: 0,
        }
    }

    /// Every scenario says each fact with its own subject, in one sentence: the scorer
    /// finds it where the person put it.
    #[test]
    fn every_scenario_fact_is_said_beside_its_subject() {
        let scenarios = super::super::scenarios::all();
        let stretched = scenarios.iter().map(|s| s.stretched(2)).collect::<Vec<_>>();
        for s in scenarios.into_iter().chain(stretched) {
            for f in &s.facts {
                assert!(
                    kept_with_subject(&s.turns[f.turn], f),
                    "{}: {} not beside any of {:?} in turn {}",
                    s.name,
                    f.value,
                    f.subject,
                    f.turn
                );
            }
        }
    }

    #[test]
    fn a_bare_value_is_not_a_kept_fact() {
        let port = f(&["cache", "redis"], "6379", None);
        assert!(kept_with_subject(
            "- The cache (Redis) listens on 6379.",
            &port
        ));
        assert!(!kept_with_subject("Kept facts: 14; 00; 6379", &port));
        assert!(!kept_with_subject("The cache is fast.\nPorts: 6379", &port));
        assert!(kept_with_subject("Redis port: `6379`", &port));
    }

    #[test]
    fn a_changed_fact_needs_its_latest_value() {
        let city = f(&["city", "launch"], "Porto", Some("Lisbon"));
        assert!(kept_with_subject("Launch city: Porto.", &city));
        assert!(kept_with_subject(
            "The launch city moved from Lisbon to Porto.",
            &city
        ));
        assert!(kept_with_subject(
            "The launch city is now Porto, not Lisbon.",
            &city
        ));
        assert!(!kept_with_subject("The launch city is Lisbon.", &city));
        assert!(!kept_with_subject(
            "The launch city is Lisbon, not Porto.",
            &city
        ));
        assert!(!kept_with_subject(
            "The launch city is Porto, later changed to Lisbon.",
            &city
        ));
        assert!(answer_is_right("We launch in Porto.", &city));
        assert!(!answer_is_right("Lisbon.", &city));
        assert!(!answer_is_right("Porto, or rather Lisbon", &city));
    }

    #[test]
    fn answers_are_matched_without_case_or_markup() {
        let func = f(&["function"], "compute_total()", None);
        assert!(answer_is_right("It is `compute_total`.", &func));
        assert!(!answer_is_right("apply_discounts()", &func));
    }

    #[test]
    fn a_date_matches_in_any_of_its_usual_forms() {
        let audit = f(&["audit"], "2026-04-09", None);
        for said in [
            "The audit starts 2026-04-09.",
            "The audit starts on April 9th, 2026.",
            "The audit starts on the 9th of April 2026.",
            "The audit starts Apr. 9 2026.",
        ] {
            assert!(kept_with_subject(said, &audit), "{said}");
            assert!(answer_is_right(said, &audit), "{said}");
        }
        // Another day, or the day without the year the value names, is not it.
        assert!(!answer_is_right("April 19, 2026.", &audit));
        assert!(!answer_is_right("2026-04-10", &audit));
        assert!(!answer_is_right("April 9.", &audit));
        let office = f(&["lisbon"], "3rd of May", None);
        for said in ["May 3rd", "May 3", "3 May", "the 3rd of May", "2026-05-03"] {
            assert!(answer_is_right(said, &office), "{said}");
        }
        assert!(!answer_is_right("May 30th", &office));
        assert!(!answer_is_right("March 3rd", &office));
        // A correction between two forms of a date: the stale one denied still counts.
        let freeze = f(&["freeze"], "March 20", Some("March 14"));
        assert!(kept_with_subject(
            "The freeze starts on the 20th of March, not March 14th.",
            &freeze
        ));
        assert!(!kept_with_subject(
            "The freeze starts on 14 March.",
            &freeze
        ));
        assert!(!answer_is_right("March 14th", &freeze));
    }

    #[test]
    fn a_rate_matches_however_it_is_written() {
        let limit = f(&["public api"], "100 requests a minute", None);
        for said in [
            "100 requests per minute",
            "100 req/min",
            "100 requests/minute",
            "100 calls a minute",
        ] {
            assert!(answer_is_right(said, &limit), "{said}");
        }
        assert!(!answer_is_right("100 requests per hour", &limit));
        assert!(!answer_is_right("1000 requests a minute", &limit));
    }

    #[test]
    fn a_value_with_a_unit_matches_however_the_unit_is_written() {
        // Found on the real model: "We decided on a 12-second timeout" was scored wrong.
        let timeout = f(&["timeout"], "12 seconds", None);
        assert!(answer_is_right(
            "We decided on a 12-second timeout.",
            &timeout
        ));
        assert!(answer_is_right("12 seconds.", &timeout));
        assert!(!answer_is_right("A 30-second timeout.", &timeout));
        let upload = f(&["upload"], "25 MB", None);
        assert!(kept_with_subject(
            "Uploads are capped at 25MB per file.",
            &upload
        ));
        let retention = f(&["retention"], "30 days", Some("14 days"));
        assert!(!answer_is_right(
            "Retention: 30-day, or rather 14 days.",
            &retention
        ));
        assert!(answer_is_right(
            "It was 14 days; now it is a 30-day retention.",
            &retention
        ));
    }
}
