//! Superseding: which later line replaces an earlier one, which of the person's recent
//! lines count as corrections before they are folded, and what a correction takes out
//! of a summary written before it.

use super::LedgerLine;
use super::extract::{extract, line_sentences, values};
use crate::core::prose::{BULLETS, bare};
use std::borrow::Cow;
use std::collections::HashSet;

/// Words that say a value changed.
const CHANGE_WORDS: &[&str] = &[
    "now",
    "change",
    "changed",
    "changes",
    "move",
    "moved",
    "moving",
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
];

/// Words too common to tie two lines to one subject.
const STOP: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "into", "will", "would", "should", "have",
    "has", "had", "was", "were", "are", "our", "your", "their", "there", "what", "when", "which",
    "who", "about", "also", "just", "then", "than", "them", "they", "its", "not", "but", "all",
    "any", "can", "use", "using", "used", "set", "get", "now", "new", "final", "change", "changed",
    "plan", "another", "noted", "okay", "good", "great", "thanks", "please", "sure", "here",
    "some", "more", "most", "only", "each", "every", "been", "being", "does", "did", "done",
    "make", "made", "need", "needs", "let", "lets",
];

fn lower_words(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 3 && !STOP.contains(&w.as_str()))
        .collect()
}

/// The words that say what a line is about: its words outside its values, so two lines
/// naming paths under one directory ("src/cart/…") do not share a subject by it.
fn subject_words(text: &str, values: &[String]) -> Vec<String> {
    let mut rest = text.to_string();
    for v in values {
        rest = rest.replace(v.as_str(), " ");
    }
    lower_words(&rest)
}

fn says_change(lower: &str) -> bool {
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    CHANGE_WORDS.iter().any(|w| match w.split_once(' ') {
        Some((a, b)) => words.windows(2).any(|p| p[0] == a && p[1] == b),
        None => words.contains(w),
    })
}

/// A line with what `supersedes` needs, computed once.
struct Parsed {
    line: LedgerLine,
    values: Vec<String>,
    lower_values: Vec<String>,
    lower: String,
    words: Vec<String>,
    change: bool,
}

impl Parsed {
    fn new(line: &LedgerLine) -> Parsed {
        let lower = line.text.to_lowercase();
        let values = values(&line.text);
        let words = subject_words(&line.text, &values);
        Parsed {
            lower_values: values.iter().map(|v| v.to_lowercase()).collect(),
            values,
            words,
            change: says_change(&lower),
            lower,
            line: line.clone(),
        }
    }
}

/// What comes before a value a line names as replaced: "not Lisbon", "from 14 days".
const REPLACED: &[&str] = &["not ", "instead of ", "no longer ", "from "];

/// Whether `newer` supersedes `older`.
fn supersedes(newer: &Parsed, older: &Parsed) -> bool {
    if older.values.is_empty() {
        return false;
    }
    // "now Porto, not Lisbon": the old value named on its own beside a new one
    // ("src/a.rs:41" extends "src/a.rs", it does not replace it).
    let names_old_as_replaced = older.values.iter().zip(&older.lower_values).any(|(v, lv)| {
        newer.values.contains(v)
            && newer.values.iter().any(|n| !older.values.contains(n))
            && (newer.change
                || REPLACED
                    .iter()
                    .any(|p| newer.lower.contains(&format!("{p}{lv}"))))
    });
    if names_old_as_replaced {
        return true;
    }
    // "the budget was raised to 15,000": a change word, a shared subject, a new value.
    if !newer.change || older.lower_values.iter().any(|v| newer.lower.contains(v)) {
        return false;
    }
    newer
        .words
        .iter()
        .filter(|w| !newer.lower_values.contains(w))
        .any(|w| older.words.contains(w))
}

/// Lines in order (oldest first) with superseded ones and repeats removed. The model's
/// lines never supersede the person's: a reply that echoes a value wrongly, or proposes
/// one ("we could move it to 8080"), must not erase what the person stated. A person's
/// line that replaced another is marked `corrects`, and keeps the mark through later
/// merges (the line it replaced is gone by then).
pub fn merge<'a>(lines: impl IntoIterator<Item = &'a LedgerLine>) -> Vec<LedgerLine> {
    let mut out: Vec<Parsed> = Vec::new();
    for line in lines {
        if let Some(same) = out.iter_mut().find(|p| p.line.text == line.text) {
            same.line.corrects |= line.corrects;
            continue;
        }
        let mut parsed = Parsed::new(line);
        let before = out.len();
        out.retain(|old| !(supersedes(&parsed, old) && (parsed.line.user || !old.line.user)));
        parsed.line.corrects |= parsed.line.user && out.len() < before;
        out.push(parsed);
    }
    out.into_iter().map(|p| p.line).collect()
}

/// The lines of a person's message that may replace an earlier value (by the rule of
/// [`merge`]: they say a change or name a value as replaced), for corrections said but
/// not folded yet.
pub fn corrections_said(text: &str) -> Vec<LedgerLine> {
    let mut lines = extract(text, true);
    lines.retain(|l| {
        let lower = l.text.to_lowercase();
        says_change(&lower) || REPLACED.iter().any(|p| lower.contains(p))
    });
    lines
}

/// The folded ledger beside what the person said since, not folded yet: the folded lines
/// still standing (to show: the later lines are in the request word for word already),
/// and the whole merge (whose corrections [`drop_replaced`] takes). A correction then
/// replaces the old value when it is said, not when it is folded (measured: with the
/// correction still recent, the ledger's old line beside it won the model's answer).
pub fn settle(folded: Vec<LedgerLine>, said: &[LedgerLine]) -> (Vec<LedgerLine>, Vec<LedgerLine>) {
    if said.is_empty() {
        return (folded.clone(), folded);
    }
    let all = merge(folded.iter().chain(said));
    let standing: HashSet<&str> = all.iter().map(|l| l.text.as_str()).collect();
    let shown = folded
        .into_iter()
        .filter(|l| standing.contains(l.text.as_str()))
        .collect();
    (shown, all)
}

/// `summary` without the sentences one of the `ledger`'s corrections replaced, by the
/// rule the ledger applies to its own lines. A summary written before the person
/// corrected a value still states the old one; the ledger holds the new one, and a small
/// model shown both tends to answer with the one it read first (measured: "retention is
/// 14 days" in a summary beat "retention was extended to 30 days" in the ledger).
pub fn drop_replaced<'a>(summary: &'a str, ledger: &[LedgerLine]) -> Cow<'a, str> {
    let corrections: Vec<Parsed> = ledger
        .iter()
        .filter(|l| l.corrects)
        .map(Parsed::new)
        .collect();
    if corrections.is_empty() {
        return Cow::Borrowed(summary);
    }
    let stale = |sentence: &str| {
        let line = Parsed::new(&LedgerLine {
            text: bare(sentence).to_string(),
            ..LedgerLine::default()
        });
        corrections.iter().any(|c| supersedes(c, &line))
    };
    let mut dropped = false;
    let mut out: Vec<String> = Vec::new();
    for line in summary.lines() {
        let parts = line_sentences(line);
        let before = parts.len();
        let kept: Vec<&str> = parts.into_iter().filter(|s| !stale(s)).collect();
        if kept.len() == before {
            out.push(line.to_string());
            continue;
        }
        dropped = true;
        if kept.iter().all(|s| bare(s).is_empty()) {
            continue;
        }
        // The line's indent and bullet stay when its first sentence went.
        let lead_len = line.len()
            - line
                .trim_start()
                .trim_start_matches(BULLETS)
                .trim_start()
                .len();
        let text = kept.iter().map(|s| bare(s)).collect::<Vec<_>>().join(" ");
        out.push(format!("{}{text}", &line[..lead_len]));
    }
    if dropped {
        Cow::Owned(out.join("\n"))
    } else {
        Cow::Borrowed(summary)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::ledger::lines::{texts, user};

    #[test]
    fn a_later_value_replaces_an_earlier_one() {
        let lines = vec![
            user("The launch city is Lisbon."),
            user("The budget for the pilot is 12,000 EUR."),
            user("We'll deploy the backend on Tuesday, March 3."),
            user("The discount rules live in src/cart/discount.rs."),
            user("Change of plan: the launch city is now Porto, not Lisbon."),
            user("Another change: move the backend deploy to Thursday, March 5."),
            user("The budget was raised to 15,000 EUR."),
            user("Now clippy complains at src/cart/discount.rs:41."),
        ];
        let merged = merge(&lines);
        assert_eq!(
            texts(&merged),
            [
                "The discount rules live in src/cart/discount.rs.",
                "Change of plan: the launch city is now Porto, not Lisbon.",
                "Another change: move the backend deploy to Thursday, March 5.",
                "The budget was raised to 15,000 EUR.",
                "Now clippy complains at src/cart/discount.rs:41.",
            ]
        );
        // Unrelated lines with change words do not replace each other.
        let kept = merge(&[
            user("The gateway listens on port 8443."),
            user("Now the cache uses 6379."),
        ]);
        assert_eq!(kept.len(), 2);
        // "Now" opening a sentence, and paths under one directory, tie nothing together.
        let kept = merge(&[
            user("The function at that line is compute_total(), it subtracts the discount."),
            user("I run the tests with: cargo test --test cart_total -- --nocapture"),
            user("Now clippy complains: this `if` has identical blocks at src/cart/total.rs:41."),
        ]);
        assert_eq!(kept.len(), 3, "{:?}", texts(&kept));
    }

    #[test]
    fn a_correction_replaces_the_value_it_corrects() {
        let merged = merge(&[
            user("Log retention for the app servers is 14 days."),
            user("The cleanup cron job runs every 15 minutes."),
            user("Correction on logs: retention was extended to 30 days for compliance."),
        ]);
        assert_eq!(
            texts(&merged),
            [
                "The cleanup cron job runs every 15 minutes.",
                "Correction on logs: retention was extended to 30 days for compliance.",
            ]
        );
    }

    #[test]
    fn a_correction_said_but_not_folded_settles_the_folded_ledger() {
        let folded = merge(&[
            user("Log retention for the app servers is 14 days."),
            user("The cleanup cron job runs every 15 minutes."),
        ]);
        // Only the lines that may replace something count as said corrections.
        let said = corrections_said(
            "Thanks. The dashboard is at grafana.internal. \
             Correction on logs: retention was extended to 30 days for compliance.",
        );
        assert_eq!(
            texts(&said),
            ["Correction on logs: retention was extended to 30 days for compliance."]
        );
        let (shown, all) = settle(folded.clone(), &said);
        // The old value is no longer shown; the correction is not shown either (it is in
        // the request word for word), but it is what summaries are cut by.
        assert_eq!(
            texts(&shown),
            ["The cleanup cron job runs every 15 minutes."]
        );
        assert!(all.iter().any(|l| l.corrects && l.text.contains("30 days")));
        assert_eq!(
            drop_replaced(
                "- Log retention for the app servers is 14 days.\n- Cron: 15 min.",
                &all
            ),
            "- Cron: 15 min."
        );
        // Nothing said since: the folded ledger as it was.
        assert_eq!(settle(folded.clone(), &[]).0, folded);
        // A line that corrects nothing folded leaves the ledger whole.
        let other = corrections_said("The cache now listens on port 6380.");
        assert_eq!(settle(folded.clone(), &other).0, folded);
    }

    #[test]
    fn a_summary_loses_the_sentences_a_correction_replaced() {
        let ledger = merge(&[
            user("The launch review is on Tuesday at 10:00."),
            user("The budget for the pilot is 12,000 euros."),
            user("Correction: the launch review moved to Thursday at 15:30."),
        ]);
        assert_eq!(
            ledger.iter().map(|l| l.corrects).collect::<Vec<_>>(),
            [false, true]
        );
        let summary = "- The launch review is on Tuesday at 10:00.\n\
                       - The pilot budget is 12,000 euros. We agreed the review is Tuesday at 10:00.\n\
                       - The review moved from Tuesday 10:00 to Thursday 15:30.\n\
                       The team likes the plan.";
        assert_eq!(
            drop_replaced(summary, &ledger),
            "- The pilot budget is 12,000 euros.\n\
             - The review moved from Tuesday 10:00 to Thursday 15:30.\n\
             The team likes the plan."
        );
        // Nothing corrected, nothing taken out (and nothing copied).
        assert!(matches!(
            drop_replaced(summary, &ledger[..1]),
            Cow::Borrowed(_)
        ));
        // The mark outlives the line it replaced: a later merge no longer sees that line.
        let later = merge(&ledger[1..]);
        assert!(later[0].corrects);
        let unrelated = [LedgerLine {
            corrects: true,
            ..user("The pilot now runs in Lisbon.")
        }];
        assert!(matches!(
            drop_replaced("- The review is on Tuesday at 10:00.", &unrelated),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn only_the_persons_lines_count_as_corrections() {
        let merged = merge(&[
            LedgerLine {
                text: "The review is on Tuesday at 10:00.".into(),
                ..LedgerLine::default()
            },
            LedgerLine {
                text: "The review moved to Friday at 09:00.".into(),
                ..LedgerLine::default()
            },
        ]);
        assert_eq!(merged.len(), 1);
        assert!(!merged[0].corrects);
    }

    #[test]
    fn the_model_never_supersedes_what_the_person_stated() {
        let assistant = |t: &str| LedgerLine {
            text: t.into(),
            user: false,
            corrects: false,
        };
        let merged = merge(&[
            user("The public API gateway listens on port 8443."),
            assistant("We could move the gateway to port 8080 instead of 8443."),
        ]);
        assert_eq!(merged.len(), 2, "{:?}", texts(&merged));
        // The person's own change still wins over the model's older line.
        let merged = merge(&[
            assistant("The gateway listens on port 8443."),
            user("Change of plan: the gateway now listens on 8080, not 8443."),
        ]);
        assert_eq!(
            texts(&merged),
            ["Change of plan: the gateway now listens on 8080, not 8443."]
        );
    }
}
