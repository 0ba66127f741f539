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

/// Lower case, without markup, and with a number's unit written one way: "12-second",
/// "12 seconds" and "12 second" are one value, as are "25MB" and "25 MB".
fn normalize(s: &str) -> String {
    static UNIT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(\d)[ -]?(second|minute|hour|day|week|month|year|mb|gb|tb|kb)s?\b")
            .unwrap_or_else(|e| panic!("bad built-in regex: {e}"))
    });
    let plain = s.to_lowercase().replace(['`', '*'], "");
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
