//! The fact ledger: what must survive compression, kept whole and with its subject, in a
//! compact place of its own beside the prose summaries.
//!
//! Small models paraphrase well and drop specifics; appending the specifics they dropped
//! ("Kept facts: 14; 00; 7010") keeps numbers without what they belong to. So when
//! messages are folded, the sentences that state a hard value — a number, time, version,
//! path, URL, identifier, address, name — are taken from the originals mechanically (no
//! model call), cut to a short window around their values, and kept as ledger lines: "our
//! cache service (Redis) listens on port 6379". Aging never touches them.
//!
//! Rules, all pure and deterministic (so replay rebuilds the same ledger):
//! - questions state nothing; a line the ledger already holds is not added twice;
//! - a later line supersedes an earlier one when it names the earlier value as replaced
//!   ("now Porto, not Lisbon") or when it says the thing changed ("moved", "raised",
//!   "final", …) and shares a subject word with it while not repeating its value;
//! - under a token budget the person's own lines come first, the assistant's lines
//!   whose values the person's lines already hold go first, then the oldest.
//! - a person's line that replaced another is a correction (marked, and the mark kept
//!   through merges); summaries are sent without the sentences a correction replaces.

use crate::core::tokens::Tokenizer;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::LazyLock;

/// One ledger line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerLine {
    pub text: String,
    /// Stated by the person (else by the assistant or a tool).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub user: bool,
    /// A line of the person's that replaced an earlier value, here or in a merge since:
    /// summaries are sent without what it replaced ([`drop_replaced`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub corrects: bool,
}

/// Words of context kept before the first value and after the last.
const WORDS_BEFORE: usize = 12;
const WORDS_AFTER: usize = 8;

fn re(pattern: &str) -> Regex {
    // The patterns are constants covered by tests; failing to compile is a build bug.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad built-in regex {pattern}: {e}"))
}

/// Hard values: what makes a sentence worth keeping word for word.
static VALUE: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"https?://[^\s<>`)\]]+",                            // URL
        r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+",                    // e-mail
        r"|(?:~|\.{1,2})?/?(?:[\w.@-]+/)+[\w.@-]+(?::\d+)?", // path
        r"|\b[\w-]+\.(?:rs|py|ts|js|go|c|h|cpp|java|rb|toml|json|ya?ml|md|txt|sh|sql|conf|ini|env|xml|lock|proto|html|css)\b(?::\d+)?",
        r"|\b\d{1,2}:\d{2}(?::\d{2})?\b", // time
        r"|\b\d+(?:[.,]\d+)+\b",          // 1,024 · 16.2 · IPs
        r"|\b\d{2,}\b",                   // numbers
        r"|`[^`\n]{2,60}`",               // code
        r"|\b[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?", // paths in code
        r"|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:\(\))?", // snake_case
        r"|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b", // CONSTANT_CASE
        r"|\b[a-z]+[0-9][a-z0-9]*(?:-[a-z0-9]+)+\b|\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-[a-z]*[0-9][a-z0-9]*\b", // kebab-case with a digit: orchid-5g
        r"|\b[a-z][a-z0-9]*(?:-[a-z0-9]+){2,}\b", // kebab-case, three parts or more: shop-assets-eu
        r"|\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*\.(?:internal|local|lan|com|org|net|io|dev|example)\b", // host
        r"|\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b",
        r"|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2}\b",
    ))
});

/// A capitalised word inside a sentence: a name ("Porto", "Stripe").
static NAME: LazyLock<Regex> = LazyLock::new(|| re(r"\s([A-Z][a-z]{2,}(?:[A-Z][a-z]+)*)\b"));

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

/// "up-to-date", "end-to-end": hyphenated English, not a name of something.
fn english_compound(v: &str) -> bool {
    v.contains('-')
        && v.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
        && v.split('-').any(|w| {
            [
                "a", "an", "and", "at", "by", "for", "in", "of", "on", "the", "to",
            ]
            .contains(&w)
        })
}

/// The values a sentence states.
pub fn values(sentence: &str) -> Vec<String> {
    let mut out: Vec<String> = VALUE
        .find_iter(sentence)
        .map(|m| {
            m.as_str()
                .trim_matches('`')
                .trim_end_matches(['.', ','])
                .to_string()
        })
        .filter(|v| v.len() >= 2 && !english_compound(v))
        .collect();
    for c in NAME.captures_iter(sentence) {
        if let Some(m) = c.get(1) {
            out.push(m.as_str().to_string());
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The sentences of one line as written (with their spaces): split at sentence ends
/// (". " etc.), so paths and version numbers stay whole.
fn line_sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = line.as_bytes();
    for i in 0..bytes.len() {
        if matches!(bytes[i], b'.' | b'!' | b'?')
            && bytes.get(i + 1).is_some_and(|b| *b == b' ')
            && i + 2 < bytes.len()
        {
            out.push(&line[start..=i]);
            start = i + 2;
        }
    }
    out.push(&line[start..]);
    out
}

/// What a list item may start with.
const BULLETS: [char; 3] = ['-', '*', '•'];

/// A sentence without its list bullet and surrounding space.
fn bare(sentence: &str) -> &str {
    sentence.trim().trim_start_matches(BULLETS).trim()
}

/// Sentences of `text`: its lines' sentences, bare.
fn sentences(text: &str) -> Vec<&str> {
    text.lines()
        .flat_map(line_sentences)
        .map(bare)
        .filter(|s| !s.is_empty())
        .collect()
}

/// A sentence cut to a window around its values (whole words).
fn window(sentence: &str, values: &[String]) -> String {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    let hit = |w: &&str| {
        values.iter().any(|v| {
            w.contains(v.as_str())
                || v.contains(w.trim_matches(|c: char| !c.is_alphanumeric())) && w.len() > 1
        })
    };
    let first = words.iter().position(hit).unwrap_or(0);
    let last = words
        .iter()
        .rposition(hit)
        .unwrap_or(words.len().saturating_sub(1));
    let from = first.saturating_sub(WORDS_BEFORE);
    let to = (last + WORDS_AFTER + 1).min(words.len());
    let mut out = words[from..to].join(" ");
    if from > 0 {
        out.insert_str(0, "… ");
    }
    if to < words.len() {
        out.push_str(" …");
    }
    out
}

/// The ledger lines of one message.
pub fn extract(text: &str, user: bool) -> Vec<LedgerLine> {
    let mut out: Vec<LedgerLine> = Vec::new();
    for s in sentences(text) {
        if s.ends_with('?') {
            continue;
        }
        let vals = values(s);
        if vals.is_empty() {
            continue;
        }
        let line = window(s, &vals);
        if !out.iter().any(|l| l.text == line) {
            out.push(LedgerLine {
                text: line,
                user,
                corrects: false,
            });
        }
    }
    out
}

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

/// The lines that fit `budget` tokens (each counted as rendered, with its "- "). What
/// goes first: assistant lines whose values the person's lines already hold, then other
/// assistant lines, then the person's lines whose only value is a capitalised word (a
/// name is weak evidence: "our Rust service", "Historians argue"), then the rest; the
/// oldest first within each. Order is preserved.
pub fn fit(lines: Vec<LedgerLine>, budget: u32, tok: &dyn Tokenizer) -> Vec<LedgerLine> {
    let cost = |l: &LedgerLine| tok.count(&l.text) + 2;
    let mut total: u32 = lines.iter().map(cost).sum();
    if total <= budget {
        return lines;
    }
    let mut keep = vec![true; lines.len()];
    // Redundant assistant lines: every value already in a person's line.
    let user_text: String = lines
        .iter()
        .filter(|l| l.user)
        .map(|l| l.text.to_lowercase())
        .collect::<Vec<_>>()
        .join("\n");
    let redundant = |l: &LedgerLine| {
        !l.user
            && values(&l.text)
                .iter()
                .all(|v| user_text.contains(&v.to_lowercase()))
    };
    let names_only = |l: &LedgerLine| !VALUE.is_match(&l.text);
    let order: Vec<usize> = (0..lines.len())
        .filter(|&i| redundant(&lines[i]))
        .chain((0..lines.len()).filter(|&i| !lines[i].user && !redundant(&lines[i])))
        .chain((0..lines.len()).filter(|&i| lines[i].user && names_only(&lines[i])))
        .chain((0..lines.len()).filter(|&i| lines[i].user && !names_only(&lines[i])))
        .collect();
    for i in order {
        if total <= budget {
            break;
        }
        keep[i] = false;
        total = total.saturating_sub(cost(&lines[i]));
    }
    lines
        .into_iter()
        .zip(keep)
        .filter_map(|(l, k)| k.then_some(l))
        .collect()
}

/// The ledger as it appears in the request: a header, then a line each.
pub fn render(header: &str, lines: &[LedgerLine]) -> String {
    let mut out = String::from(header);
    for l in lines {
        out.push_str("\n- ");
        out.push_str(&l.text);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::tokens::ByteEstimate;

    fn texts(lines: &[LedgerLine]) -> Vec<&str> {
        lines.iter().map(|l| l.text.as_str()).collect()
    }

    fn user(text: &str) -> LedgerLine {
        LedgerLine {
            text: text.into(),
            user: true,
            corrects: false,
        }
    }

    #[test]
    fn facts_are_kept_whole_with_their_subject() {
        let lines = extract(
            "Hi! I'm setting up the notes. First thing: our cache service (Redis) listens on port 6379. \
             The meeting is at 14:00 with the team. What about you?",
            true,
        );
        assert_eq!(
            texts(&lines),
            [
                "First thing: our cache service (Redis) listens on port 6379.",
                "The meeting is at 14:00 with the team."
            ]
        );
        // A time stays one value, not "14" and "00".
        assert_eq!(values("at 14:00 sharp"), ["14:00"]);
        assert!(values("version 16.2 of PostgreSQL").contains(&"16.2".to_string()));
        let v = values("the file /etc/shopd/shop.toml and src/cart/total.rs:88");
        assert!(v.contains(&"/etc/shopd/shop.toml".to_string()), "{v:?}");
        assert!(v.contains(&"src/cart/total.rs:88".to_string()), "{v:?}");
        // Prose without hard values, and questions, state nothing.
        assert!(extract("That sounds like a good plan to me.", true).is_empty());
        assert_eq!(values("My network is called orchid-5g."), ["orchid-5g"]);
        assert_eq!(
            values("The images are in shop-assets-eu now."),
            ["shop-assets-eu"]
        );
        assert!(extract("Keep the docs up-to-date, end-to-end.", true).is_empty());
        assert!(extract("A well-known, long-term plan.", true).is_empty());
        assert!(extract("Which port does it use, 6379?", true).is_empty());
    }

    #[test]
    fn long_sentences_are_cut_around_their_values() {
        let long = format!(
            "{} the gateway listens on port 8443 {}",
            "word ".repeat(30),
            "tail ".repeat(20)
        );
        let l = &extract(&long, true)[0].text;
        assert!(l.starts_with("… ") && l.ends_with(" …"), "{l}");
        assert!(l.contains("the gateway listens on port 8443"), "{l}");
        assert!(l.split_whitespace().count() <= WORDS_BEFORE + WORDS_AFTER + 3);
    }

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

    #[test]
    fn under_the_budget_a_line_with_only_a_name_goes_before_a_hard_value() {
        let lines = vec![
            user("The test tests/cart_total.rs fails at src/cart/total.rs:88."),
            user("I'm debugging our Rust checkout service."),
            user("The payment client reads PAYMENT_API_URL."),
        ];
        let tok = ByteEstimate;
        let all: u32 = lines.iter().map(|l| tok.count(&l.text) + 2).sum();
        let fitted = fit(lines.clone(), all - 1, &tok);
        assert_eq!(
            texts(&fitted),
            [
                "The test tests/cart_total.rs fails at src/cart/total.rs:88.",
                "The payment client reads PAYMENT_API_URL.",
            ]
        );
    }

    #[test]
    fn the_budget_drops_redundant_and_old_assistant_lines_first() {
        let lines = vec![
            user("The cache listens on port 6379."),
            LedgerLine {
                text: "Redis runs on 6379 as you said.".into(),
                user: false,
                corrects: false,
            },
            LedgerLine {
                text: "You could also tune maxmemory to 256 MB.".into(),
                user: false,
                corrects: false,
            },
            user("The config lives at /etc/shopd/shop.toml."),
        ];
        let tok = ByteEstimate;
        let all: u32 = lines.iter().map(|l| tok.count(&l.text) + 2).sum();
        let one_less = fit(lines.clone(), all - 1, &tok);
        assert_eq!(one_less.len(), 3);
        assert!(!texts(&one_less).contains(&"Redis runs on 6379 as you said."));
        let users_only = fit(lines.clone(), 2 * (all / 3), &tok);
        assert!(users_only.iter().all(|l| l.user), "{users_only:?}");
        assert_eq!(fit(lines.clone(), all, &tok), lines);
    }
}
