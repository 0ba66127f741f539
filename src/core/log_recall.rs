//! Recall from the log: folded is not forgotten. Every message stays whole in history, so
//! before a request the sentences of the folded messages are ranked against what the
//! person just said (BM25, no model call), and the best few go into a small slot of the
//! request, labelled as quotes from earlier in the conversation.
//!
//! Strategy: the index holds one document per sentence of a folded message (the person's
//! and the model's; tool results have their own `recall`), tokenized for chat about
//! systems: identifiers stay whole *and* split ("service-13" is also "service" and "13"),
//! so a question that names `service-13` finds the line that does, and a question about
//! "the billing service" finds "billing-api". Function words are dropped and plural or
//! verb endings folded ("listens" finds "listen"). A hit must carry a rare word of the
//! query, and score near the best hit, so "thanks!" recalls nothing. The
//! person's lines rank a little above the model's: what they said is the record.
//!
//! The index changes only when messages are folded or a restore changes the folded set,
//! never per keystroke; a query costs the postings of its words. Pure and deterministic:
//! the same state and message recall the same lines, so replay sends the same request.

use crate::core::message::{MessageId, Role};
use std::collections::HashMap;

/// BM25's term-frequency saturation and length normalisation (the usual values).
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// The model's lines count this much of the person's, so a tie goes to the person.
const MODEL_WEIGHT: f64 = 0.8;
/// A hit scores at least this …
const MIN_SCORE: f64 = 0.5;
/// … and at least this share of the best hit …
const RELATIVE_FLOOR: f64 = 0.5;
/// … and matches a word of the query that at most this share of the sentences hold (or
/// two of them): a word every line has ("service", "port") finds nothing by itself.
const RARE_SHARE: f64 = 0.2;
/// A sentence longer than this many times the average counts as this long: BM25's
/// length normalisation would otherwise bury a long message's one relevant sentence.
const MAX_LENGTH_RATIO: f64 = 2.0;
/// Sentences longer than this (characters) are cut around their first matched word when
/// quoted: a recalled line is a quote, not a page.
const MAX_QUOTE_CHARS: usize = 320;

/// Words that say nothing about what a sentence is about.
const STOP: &[&str] = &[
    "a",
    "about",
    "after",
    "again",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "for",
    "from",
    "had",
    "has",
    "have",
    "he",
    "her",
    "here",
    "hi",
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "let",
    "me",
    "more",
    "my",
    "no",
    "not",
    "now",
    "of",
    "ok",
    "okay",
    "on",
    "or",
    "our",
    "out",
    "please",
    "she",
    "should",
    "so",
    "some",
    "tell",
    "than",
    "thank",
    "thanks",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "to",
    "up",
    "us",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "will",
    "with",
    "would",
    "yes",
    "you",
    "your",
    "again",
    "remind",
    "remember",
    "said",
    "say",
    "told",
    "mentioned",
    "earlier",
    "know",
];

/// A line recalled into a request: which message, whose, what. Kept with the event that
/// says it happened, so the transcript and the inspector can show which.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RecalledLine {
    pub id: MessageId,
    pub user: bool,
    pub text: String,
}

/// One recalled sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: MessageId,
    pub role: Role,
    pub text: String,
    pub score: f64,
}

#[derive(Debug, Clone, PartialEq)]
struct Doc {
    id: MessageId,
    role: Role,
    text: String,
    len: u32,
}

/// The folded sentences, indexed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecallIndex {
    docs: Vec<Doc>,
    /// word → (doc index, term frequency), doc indices increasing.
    postings: HashMap<String, Vec<(u32, u32)>>,
    total_len: u64,
}

/// The words of `text` as the index sees them: lower case, identifiers whole and split
/// at `-_./:@`, function words out, simple endings folded.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lower = text.to_lowercase();
    let is_word = |c: char| c.is_alphanumeric() || "-_./:@".contains(c);
    for raw in lower.split(|c: char| !is_word(c)) {
        let whole = raw.trim_matches(|c: char| !c.is_alphanumeric());
        if whole.is_empty() {
            continue;
        }
        let parts: Vec<&str> = whole
            .split(|c: char| !c.is_alphanumeric())
            .filter(|p| !p.is_empty())
            .collect();
        if parts.len() > 1 {
            out.push(whole.to_string());
            // "wi-fi" is also "wifi", "on-call" also "oncall".
            out.push(parts.concat());
        }
        for p in parts {
            if STOP.contains(&p) {
                continue;
            }
            out.push(fold_ending(p));
        }
    }
    out
}

/// "listens" → "listen", "owners" → "owner", "listening" → "listen": enough to match a
/// question's form of a word with a statement's, never applied to numbers or short words.
fn fold_ending(w: &str) -> String {
    if w.len() <= 3 || !w.chars().all(|c| c.is_ascii_alphabetic()) {
        return w.to_string();
    }
    for (suffix, shortest) in [("ing", 4), ("ed", 4), ("s", 3)] {
        if let Some(stem) = w.strip_suffix(suffix)
            && stem.len() >= shortest
            && !stem.ends_with('s')
        {
            return stem.to_string();
        }
    }
    w.to_string()
}

impl RecallIndex {
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Add the sentences of one folded message.
    pub fn add(&mut self, id: MessageId, role: Role, text: &str) {
        for sentence in sentences(text) {
            let ws = words(sentence);
            if ws.is_empty() {
                continue;
            }
            let index = self.docs.len() as u32;
            let mut tf: HashMap<&str, u32> = HashMap::new();
            for w in &ws {
                *tf.entry(w.as_str()).or_default() += 1;
            }
            for (w, n) in tf {
                self.postings
                    .entry(w.to_string())
                    .or_default()
                    .push((index, n));
            }
            self.total_len += ws.len() as u64;
            self.docs.push(Doc {
                id,
                role,
                text: sentence.to_string(),
                len: ws.len() as u32,
            });
        }
    }

    /// The sentences that best answer `query`, best first, at most `k`; none when nothing
    /// carries a rare word of it.
    pub fn search(&self, query: &str, k: usize) -> Vec<Hit> {
        if self.docs.is_empty() || k == 0 {
            return Vec::new();
        }
        let n = self.docs.len() as f64;
        let avg = (self.total_len as f64 / n).max(1.0);
        let mut terms = words(query);
        terms.sort();
        terms.dedup();
        let rare_df = (n * RARE_SHARE).max(2.0);
        let lists: Vec<(&Vec<(u32, u32)>, f64)> = terms
            .iter()
            .filter_map(|t| self.postings.get(t))
            .map(|list| {
                let df = list.len() as f64;
                (list, (1.0 + (n - df + 0.5) / (df + 0.5)).ln())
            })
            .collect();
        // Only a sentence with a rare word of the query can be a hit. Scores accumulate
        // over the postings of the query's words (their total length is the cost of a
        // query), the rare words marking the candidates.
        let mut score = vec![0f64; self.docs.len()];
        let mut candidate = vec![false; self.docs.len()];
        for (list, idf) in &lists {
            let rare = list.len() as f64 <= rare_df;
            for &(d, tf) in list.iter() {
                let ratio = (f64::from(self.docs[d as usize].len) / avg).min(MAX_LENGTH_RATIO);
                let tf = f64::from(tf);
                score[d as usize] += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * ratio));
                candidate[d as usize] |= rare;
            }
        }
        let weighted = |d: usize| {
            let w = if self.docs[d].role == Role::User {
                1.0
            } else {
                MODEL_WEIGHT
            };
            score[d] * w
        };
        let top = (0..self.docs.len())
            .filter(|&d| candidate[d])
            .map(weighted)
            .fold(0f64, f64::max);
        if top < MIN_SCORE {
            return Vec::new();
        }
        let floor = (top * RELATIVE_FLOOR).max(MIN_SCORE);
        let mut ranked: Vec<(u32, f64)> = (0..self.docs.len())
            .filter(|&d| candidate[d])
            .map(|d| (d as u32, weighted(d)))
            .filter(|(_, s)| *s >= floor)
            .collect();
        // Best first; ties to the newer sentence (a later statement is the current one).
        // Only the best few are ordered: a long chat can hold thousands near the top.
        let order = |a: &(u32, f64), b: &(u32, f64)| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0));
        let keep = k.saturating_mul(8);
        if ranked.len() > keep {
            ranked.select_nth_unstable_by(keep, order);
            ranked.truncate(keep);
        }
        ranked.sort_unstable_by(order);
        let mut out: Vec<Hit> = Vec::new();
        for (d, s) in ranked {
            if out.len() >= k {
                break;
            }
            let doc = &self.docs[d as usize];
            let text = quote(&doc.text, &terms);
            if out.iter().any(|h| h.text == text) {
                continue;
            }
            out.push(Hit {
                id: doc.id,
                role: doc.role,
                text,
                score: s,
            });
        }
        out
    }
}

/// The sentences of a message: its lines, each split at sentence ends; code fences and
/// blank lines out.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (line, code) in crate::core::prose::lines_with_code(text) {
        if code {
            continue;
        }
        let line = crate::core::prose::bare(line);
        let bytes = line.as_bytes();
        let mut start = 0;
        for i in 0..bytes.len() {
            if matches!(bytes[i], b'.' | b'!' | b'?')
                && bytes.get(i + 1).is_some_and(|b| *b == b' ')
            {
                push_trimmed(&mut out, &line[start..=i]);
                start = i + 1;
            }
        }
        push_trimmed(&mut out, &line[start..]);
    }
    out
}

fn push_trimmed<'a>(out: &mut Vec<&'a str>, s: &'a str) {
    let s = s.trim();
    if !s.is_empty() {
        out.push(s);
    }
}

/// `text` whole when short, else cut to [`MAX_QUOTE_CHARS`] around the first word of
/// `terms` it holds.
fn quote(text: &str, terms: &[String]) -> String {
    if text.chars().count() <= MAX_QUOTE_CHARS {
        return text.to_string();
    }
    let lower = text.to_lowercase();
    let at = terms
        .iter()
        .filter_map(|t| lower.find(t.as_str()))
        .min()
        .unwrap_or(0);
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let centre = chars.iter().position(|(b, _)| *b >= at).unwrap_or(0);
    let from = centre.saturating_sub(MAX_QUOTE_CHARS / 3);
    let to = (from + MAX_QUOTE_CHARS).min(chars.len());
    let mut out: String = chars[from..to].iter().map(|(_, c)| c).collect();
    if from > 0 {
        out.insert_str(0, "… ");
    }
    if to < chars.len() {
        out.push_str(" …");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(lines: &[(u64, Role, &str)]) -> RecallIndex {
        let mut ix = RecallIndex::default();
        for (id, role, text) in lines {
            ix.add(MessageId(*id), *role, text);
        }
        ix
    }

    #[test]
    fn a_question_finds_the_line_that_names_its_subject() {
        let mut lines = Vec::new();
        let texts: Vec<String> = (1..=24)
            .map(|k| {
                format!(
                    "Note {k}: service-{k} listens on port {} and its config is /etc/service-{k}/config.yaml.",
                    7000 + k * 10
                )
            })
            .collect();
        for (i, t) in texts.iter().enumerate() {
            lines.push((i as u64 * 2 + 2, Role::User, t.as_str()));
            lines.push((
                i as u64 * 2 + 3,
                Role::Assistant,
                "Got it, I will keep that in mind for the services.",
            ));
        }
        let ix = index(&lines);
        let hits = ix.search("Which port does service-3 listen on?", 3);
        assert!(!hits.is_empty());
        assert!(hits[0].text.contains("service-3 "), "{hits:?}");
        assert!(hits[0].text.contains("7030"));
        // Not service-13 or service-23 first.
        assert!(!hits[0].text.contains("service-13"));
    }

    #[test]
    fn identifiers_match_whole_and_in_parts() {
        let ix = index(&[
            (
                2,
                Role::User,
                "The billing-api runs on 8081, config under /srv/billing/app.yaml.",
            ),
            (4, Role::User, "Our Wi-Fi is called orchid-5g."),
            (
                6,
                Role::User,
                "The thing blowing up is parse_header() in src/http/parse.rs.",
            ),
        ]);
        assert_eq!(
            ix.search("where is the billing config?", 1)[0].id,
            MessageId(2)
        );
        assert_eq!(
            ix.search("which function was parse_header again", 1)[0].id,
            MessageId(6)
        );
        assert_eq!(
            ix.search("what's in src/http/parse.rs", 1)[0].id,
            MessageId(6)
        );
        assert_eq!(ix.search("the wifi orchid-5g", 1)[0].id, MessageId(4));
        assert_eq!(ix.search("what is my wifi called?", 1)[0].id, MessageId(4));
    }

    #[test]
    fn small_talk_recalls_nothing() {
        let ix = index(&[
            (2, Role::User, "The cache listens on port 6379."),
            (
                3,
                Role::Assistant,
                "Thanks, noted. Redis usually listens there.",
            ),
            (4, Role::User, "The nightly backup runs at 02:30 UTC."),
        ]);
        assert!(ix.search("Thanks, that's all for today!", 3).is_empty());
        assert!(ix.search("ok", 3).is_empty());
        assert!(ix.search("", 3).is_empty());
    }

    #[test]
    fn the_person_wins_a_tie_with_the_model() {
        let ix = index(&[
            (2, Role::User, "The backup runs at 02:30."),
            (3, Role::Assistant, "The backup runs at 02:30."),
            (4, Role::User, "Our gateway listens on 8443."),
        ]);
        let hits = ix.search("when does the backup run", 3);
        assert_eq!(hits.len(), 1, "the same sentence is quoted once: {hits:?}");
        assert_eq!(hits[0].role, Role::User);
    }

    #[test]
    fn long_sentences_are_quoted_around_the_match() {
        let long = format!(
            "{} the vault password rotates every 90 days {}",
            "filler words ".repeat(60),
            "more filler ".repeat(60)
        );
        let ix = index(&[
            (2, Role::User, &long),
            (4, Role::User, "The gateway listens on 8443."),
            (6, Role::User, "Backups run nightly at 02:30."),
            (8, Role::Assistant, "Sounds good, noted."),
        ]);
        let hits = ix.search("how often does the vault password rotate", 1);
        assert!(
            hits[0]
                .text
                .contains("vault password rotates every 90 days")
        );
        assert!(hits[0].text.chars().count() <= MAX_QUOTE_CHARS + 4);
    }

    #[test]
    fn words_keep_identifiers_and_fold_endings() {
        let w = words("Service-13 listens on port 7130 at /etc/svc.");
        for expected in [
            "service-13",
            "service",
            "13",
            "listen",
            "port",
            "7130",
            "etc/svc",
            "etc",
            "svc",
        ] {
            assert!(w.contains(&expected.to_string()), "{expected} in {w:?}");
        }
        assert!(!w.contains(&"on".to_string()));
    }
}
