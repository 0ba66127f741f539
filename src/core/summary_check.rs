//! Whether a summary earns its place, decided without a model call.
//!
//! A fold keeps the person's facts in the ledger whatever happens (`core::ledger`); a
//! model's summary of the same messages is worth its tokens only if it carries at least as
//! much. So a summary is checked against its span's facts — the lines the ledger extracted
//! from the messages it stands for: a fact is carried when one line of the summary holds
//! every value of it beside one of its subject words. A summary that carries fewer is
//! replaced by those facts (the checkpoint keeps no summary; the ledger shows the facts).
//!
//! Before the check, the summary is cleaned of what only spends its tokens: lines that
//! repeat protected text (the goal board and locked decisions, which every request
//! carries anyway — a small model shown a locked decision copies it) and questions (what
//! the person asked is not what was settled).

use crate::core::ledger::{LedgerLine, values};
use crate::core::prose::{bare, lines_with_code};
use std::collections::HashSet;

/// Share of a line's words found in one protected text above which the line repeats it.
const REPEAT_SHARE: f64 = 0.6;
/// A line this short (in words that say something) repeats a protected text only when all
/// its words are that text's: "Tuesdays are busy" beside a decision about Tuesdays may be
/// a fact of its own.
const MIN_REPEAT_WORDS: usize = 3;

/// Words that say nothing of what a line is about.
const FUNCTION_WORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "and",
    "or",
    "but",
    "of",
    "to",
    "in",
    "on",
    "at",
    "for",
    "with",
    "by",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "it",
    "its",
    "this",
    "that",
    "these",
    "those",
    "we",
    "our",
    "you",
    "your",
    "they",
    "their",
    "i",
    "my",
    "he",
    "she",
    "his",
    "her",
    "as",
    "from",
    "into",
    "will",
    "would",
    "should",
    "can",
    "could",
    "has",
    "have",
    "had",
    "do",
    "does",
    "did",
    "not",
    "no",
    "so",
    "also",
    "only",
    "after",
    "before",
    "about",
    "user",
    "assistant",
    "said",
    "says",
    "mentioned",
    "discussed",
    "asked",
    "noted",
];

/// The words of `text` that say something: lower case, letters and digits, function
/// words out.
fn content_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !FUNCTION_WORDS.contains(w))
        .map(str::to_string)
        .collect()
}

/// Whether `line` repeats one of `protected` (most of its words are that text's).
fn repeats(line: &str, protected: &[HashSet<String>]) -> bool {
    let words = content_words(line);
    if words.len() < 2 {
        return false;
    }
    protected.iter().any(|p| {
        let inside = words.iter().filter(|w| p.contains(*w)).count();
        inside == words.len()
            || (words.len() >= MIN_REPEAT_WORDS
                && inside as f64 / words.len() as f64 >= REPEAT_SHARE)
    })
}

/// `summary` without the lines that repeat `protected` texts or ask a question; code kept
/// as it is.
pub fn clean(summary: &str, protected: &[&str]) -> String {
    let protected: Vec<HashSet<String>> = protected
        .iter()
        .map(|p| content_words(p).into_iter().collect())
        .filter(|s: &HashSet<String>| !s.is_empty())
        .collect();
    let mut out = Vec::new();
    for (line, code) in lines_with_code(summary) {
        if !code {
            let plain = bare(line).trim();
            if plain.ends_with('?') || repeats(plain, &protected) {
                continue;
            }
        }
        out.push(line);
    }
    // No empty lines left at either end by what was taken out.
    out.join("\n").trim().to_string()
}

/// How a summary measured against its span's facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Facts the summary carries with their subject.
    pub carried: usize,
    /// The span's facts.
    pub facts: usize,
}

impl Verdict {
    /// The summary carries at least what its span's facts would.
    pub fn earns_its_place(&self) -> bool {
        self.carried >= self.facts
    }
}

/// Lower case with runs of white space as one, for finding a value in a line.
fn plain(text: &str) -> String {
    text.to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether some line of `summary` holds every value of `fact` beside one of its subject
/// words (the line's other words that say something; a line of values alone needs none).
fn carries(summary_lines: &[String], fact: &LedgerLine) -> bool {
    let vals: Vec<String> = values(&fact.text).iter().map(|v| plain(v)).collect();
    if vals.is_empty() {
        return true;
    }
    let in_values = |w: &str| vals.iter().any(|v| v.contains(w));
    let subject: Vec<String> = content_words(&fact.text)
        .into_iter()
        .filter(|w| w.len() > 2 && !in_values(w))
        .collect();
    summary_lines.iter().any(|line| {
        vals.iter().all(|v| line.contains(v.as_str()))
            && (subject.is_empty() || subject.iter().any(|s| line.contains(s.as_str())))
    })
}

/// Measure `summary` against the span's `facts`.
pub fn check(summary: &str, facts: &[LedgerLine]) -> Verdict {
    let lines: Vec<String> = summary
        .lines()
        .flat_map(|l| l.split(". "))
        .map(plain)
        .collect();
    Verdict {
        carried: facts.iter().filter(|f| carries(&lines, f)).count(),
        facts: facts.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> LedgerLine {
        LedgerLine {
            text: text.into(),
            user: true,
            ..LedgerLine::default()
        }
    }

    #[test]
    fn a_summary_that_keeps_every_fact_with_its_subject_earns_its_place() {
        let facts = [
            user("the workshop is in room Aurora on the 3rd floor"),
            user("the budget is €4,500"),
        ];
        let good = "- Planning the offsite: the workshop takes room Aurora (3rd floor).\n- Budget: €4,500.";
        assert!(check(good, &facts).earns_its_place());
        // A value without its subject does not count: "€4,500" alone says nothing.
        let bare = "- The workshop is in room Aurora on the 3rd floor.\n- Something costs €4,500.";
        let v = check(bare, &facts);
        assert_eq!((v.carried, v.facts), (1, 2));
        assert!(!v.earns_its_place());
        // The seven-word summary that was wrong carries nothing.
        let v = check("X and her sister are discussing their trip", &facts);
        assert_eq!(v.carried, 0);
    }

    #[test]
    fn a_span_without_facts_asks_nothing_of_its_summary() {
        assert!(check("They talked about coffee.", &[]).earns_its_place());
    }

    #[test]
    fn cleaning_drops_the_locked_decision_copied_and_the_questions() {
        let decision = "Deploy only on Tuesdays after the standup";
        let summary = "- Deploy only on Tuesdays after the standup.\n\
                       - The team dinner is at Cervejaria Ramiro on the 14th.\n\
                       - What time does the bus leave?\n\
                       - Deploy only on Tuesdays after …";
        let cleaned = clean(summary, &[decision]);
        assert_eq!(
            cleaned,
            "- The team dinner is at Cervejaria Ramiro on the 14th."
        );
        // A short line that merely shares a word is kept.
        assert_eq!(
            clean("- Tuesdays are busy.", &[decision]),
            "- Tuesdays are busy."
        );
    }
}
