//! Recall from the log: folded is not forgotten. Every message stays whole in history, so
//! before a request the sentences of the folded messages are ranked against what the
//! person just said (BM25, no model call; fused with an embedding model's ranking when the
//! server has one, `semantic`), and the best few go into a small slot of the request,
//! labelled as quotes from earlier in the conversation.
//!
//! Strategy: the index holds one document per sentence of a folded message (the person's
//! and the model's; tool results have their own `recall`), tokenized for chat about
//! systems and people: identifiers stay whole *and* split ("service-13" is also "service"
//! and "13"), so a question that names `service-13` finds the line that does, and a
//! question about "the billing service" finds "billing-api". Every script is read
//! (ideographs one by one), accents are folded ("Zoe" finds "Zoë", "Lukasz" "Łukasz"),
//! function words and contraction tails are dropped and plural or verb endings folded
//! ("listens" finds "listen").
//!
//! A hit must carry a rare word of the query, or most of the query: at least two of its
//! words carrying [`COVERAGE`] of its weight ("In which room is the workshop?" finds "the
//! workshop room is B2" in a chat that talks about the workshop all day). It must score
//! near the best hit, so "thanks!" recalls nothing. Sentences are weighed by what they
//! are: what the person stated is the record, their corrections most of all; the model's
//! words count less, a sentence without a value (a paraphrase that lost the number) less,
//! questions much less; instructions about the answer ("Answer in one short sentence.")
//! are not indexed at all.
//!
//! The index changes only when messages are folded or a restore changes the folded set,
//! never per keystroke; a query costs the postings of its words (and a dot product per
//! sentence with vectors). Pure and deterministic: the same state and message recall the
//! same lines, so replay sends the same request.

use crate::core::message::{MessageId, Role};
use crate::core::prose;
use crate::core::semantic::{self, SentenceKey, SentenceVectors};
use std::collections::HashMap;

mod words;

pub use words::{fold, words};
use words::{plain_words, word_char};

/// BM25's term-frequency saturation and length normalisation (the usual values).
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// The model's lines count this much of the person's: what they said is the record, and
/// a model's paraphrase of it often drops the value (measured: recall quoted the model's
/// "the room is confirmed" over the person's correction naming the room).
const MODEL_WEIGHT: f64 = 0.6;
/// A person's correction counts this much more than their other statements: it holds the
/// current value.
const CORRECTION_WEIGHT: f64 = 1.3;
/// A question, anyone's, counts this much of a statement: asking says nothing is so
/// (measured: a previous question was recalled instead of the answer).
const QUESTION_WEIGHT: f64 = 0.4;
/// A sentence without a value (number, name, identifier) counts this much of one with.
const NO_VALUE_WEIGHT: f64 = 0.85;
/// A hit scores at least this …
const MIN_SCORE: f64 = 0.5;
/// … and at least this share of the best hit …
const RELATIVE_FLOOR: f64 = 0.5;
/// … and matches a word of the query that at most this share of the sentences hold (or
/// two of them): a word every line has ("service", "port") finds nothing by itself …
const RARE_SHARE: f64 = 0.2;
/// … or matches two words of the query or more that carry this share of the query's
/// weight (the sum of its words' idf; a word the index lacks weighs as the rarest): when
/// the subject is discussed all along, no word of the question is rare, and the sentence
/// that holds most of it is still the answer.
const COVERAGE: f64 = 0.5;
/// A sentence longer than this many times the average counts as this long: BM25's
/// length normalisation would otherwise bury a long message's one relevant sentence.
const MAX_LENGTH_RATIO: f64 = 2.0;
/// Sentences longer than this (characters) are cut around their first matched word when
/// quoted: a recalled line is a quote, not a page.
const MAX_QUOTE_CHARS: usize = 320;
/// Candidates ordered per list, as a multiple of the hits asked for: a long chat can
/// hold thousands near the top, and only the best few are quoted.
const KEEP_FACTOR: usize = 8;

/// Words that open an instruction about the answer rather than a statement.
const IMPERATIVES: &[&str] = &[
    "answer",
    "reply",
    "respond",
    "keep",
    "write",
    "explain",
    "be",
    "give",
    "list",
    "summarize",
    "summarise",
    "describe",
    "tell",
    "say",
    "make",
    "try",
    "avoid",
    "stop",
    "continue",
    "show",
    "format",
    "think",
    "remember",
    "don't",
    "do",
    "use",
];
/// Words before an imperative that keep it one ("Please just answer …").
const SOFTENERS: &[&str] = &[
    "please", "just", "now", "and", "so", "only", "also", "ok", "okay",
];
/// Words that open a question written without its question mark.
const INTERROGATIVES: &[&str] = &[
    "what", "where", "when", "which", "who", "whom", "whose", "why", "how", "is", "are", "do",
    "does", "did", "can", "could", "would", "will", "should", "shall",
];
/// Words that say a sentence corrects an earlier one.
const CORRECTION_WORDS: &[&str] = &[
    "actually",
    "correction",
    "corrected",
    "instead",
    "rather",
    "wrong",
    "mistake",
    "misspoke",
    "typo",
    "scratch",
    "changed",
    "moved",
    "rescheduled",
    "postponed",
    "switched",
    "replaced",
    "update",
    "updated",
    "longer",
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
    /// Its place among [`RecallIndex::sentences`] of the message.
    pub sentence: u32,
    pub role: Role,
    pub text: String,
    /// BM25's weighted score alone, or the fused score (reciprocal ranks) when vectors
    /// took part: for ordering, not comparable between the two.
    pub score: f64,
}

#[derive(Debug, Clone, PartialEq)]
struct Doc {
    id: MessageId,
    sentence: u32,
    role: Role,
    text: String,
    len: u32,
    /// What the sentence is worth as an answer (who said it, what kind it is).
    weight: f64,
}

/// The folded sentences, indexed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecallIndex {
    docs: Vec<Doc>,
    /// word → (doc index, term frequency), doc indices increasing.
    postings: HashMap<String, Vec<(u32, u32)>>,
    total_len: u64,
}

/// What a sentence is, for ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Statement,
    /// A statement that takes an earlier one back ("actually, it moved to B2").
    Correction,
    Question,
    /// An instruction about the answer with nothing in it to recall.
    Instruction,
}

/// Whether a sentence states a value: a number, a name (a capital inside the sentence), an
/// identifier or an amount.
fn has_value(sentence: &str) -> bool {
    sentence
        .chars()
        .any(|c| c.is_numeric() || "$€£¥@".contains(c))
        || sentence.split_whitespace().skip(1).any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            w.chars().next().is_some_and(char::is_uppercase) && w != "I"
                || w.contains(['-', '_', '/', '.'])
        })
}

fn kind(sentence: &str) -> Kind {
    let end = sentence.trim_end_matches(['"', '\'', ')', ']', '”', '’', '»', ' ']);
    let words = plain_words(sentence);
    let first = words
        .iter()
        .find(|w| !SOFTENERS.contains(&w.as_str()))
        .map_or("", String::as_str);
    let open = !end.ends_with(['.', '!']);
    if end.ends_with('?') || open && INTERROGATIVES.contains(&first) {
        return Kind::Question;
    }
    if IMPERATIVES.contains(&first) && !has_value(sentence) {
        return Kind::Instruction;
    }
    let corrects = words.iter().any(|w| CORRECTION_WORDS.contains(&w.as_str()))
        || sentence.to_lowercase().contains("no longer");
    if corrects {
        Kind::Correction
    } else {
        Kind::Statement
    }
}

/// What a sentence of `role` and `kind` is worth as an answer.
fn weight(role: Role, kind: Kind, value: bool) -> f64 {
    let who = if role == Role::User {
        1.0
    } else {
        MODEL_WEIGHT
    };
    let what = match kind {
        // The model "correcting" is not the record changing.
        Kind::Correction if role == Role::User => CORRECTION_WEIGHT,
        Kind::Statement | Kind::Correction => 1.0,
        Kind::Question => QUESTION_WEIGHT,
        Kind::Instruction => 0.0,
    };
    let value = if value { 1.0 } else { NO_VALUE_WEIGHT };
    who * what * value
}

impl RecallIndex {
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The sentences of a message as the index holds them, in order: its lines outside
    /// code fences, without bullets, split at sentence ends ([`prose::split_sentences`]),
    /// without those that hold no word or only an instruction about the answer. The
    /// driver embeds these for message N; the `i`-th is [`SentenceKey`] `{ id: N,
    /// sentence: i }`.
    pub fn sentences(text: &str) -> Vec<&str> {
        indexed(text).map(|(s, _, _)| s).collect()
    }

    /// Whether `query` has anything to search for: a word that is not small talk or an
    /// instruction about the answer. Without one, recall finds nothing, by words or by
    /// meaning, so its vector need not be asked for.
    pub fn searchable(query: &str) -> bool {
        !query_terms(query).is_empty()
    }

    /// Add the sentences of one folded message.
    pub fn add(&mut self, id: MessageId, role: Role, text: &str) {
        for (i, (sentence, ws, kind)) in indexed(text).enumerate() {
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
                sentence: i as u32,
                role,
                text: sentence.to_string(),
                len: ws.len() as u32,
                weight: weight(role, kind, has_value(sentence)),
            });
        }
    }

    /// The sentences that best answer `query` by their words alone, best first, at most
    /// `k`; none when nothing carries a rare word or most of it.
    pub fn search(&self, query: &str, k: usize) -> Vec<Hit> {
        self.search_with(query, None, &SentenceVectors::default(), k)
    }

    /// The sentences that best answer `query`, best first, at most `k`: BM25's ranking
    /// fused with the ranking by cosine to `query_vector` (the same model's vector of
    /// `query`) over the sentences `vectors` holds, by reciprocal rank. Without a vector
    /// (no embedding model), or of another dimension, this is [`Self::search`]. The
    /// vectors find sentences BM25 did not only for a query that asks something (a
    /// question, "remind me …"), and only those near it ([`semantic::MIN_COSINE`]) and
    /// near the best ([`semantic::COSINE_SHARE`]); otherwise they only reorder BM25's.
    /// A query without a content word ("thanks!", "ok") recalls nothing either way.
    pub fn search_with(
        &self,
        query: &str,
        query_vector: Option<&[f32]>,
        vectors: &SentenceVectors,
        k: usize,
    ) -> Vec<Hit> {
        let terms = query_terms(query);
        if self.docs.is_empty() || k == 0 || terms.is_empty() {
            return Vec::new();
        }
        let keep = k.saturating_mul(KEEP_FACTOR);
        let lexical = self.bm25(&terms, keep);
        let by_words: Vec<u32> = lexical.iter().map(|(d, _)| *d).collect();
        let close = query_vector
            .map(|q| {
                let among = (!asks(query)).then_some(by_words.as_slice());
                self.nearest(q, vectors, among, keep)
            })
            .unwrap_or_default();
        let ranked: Vec<(u32, f64)> = if close.is_empty() {
            lexical
        } else {
            semantic::fuse(&[&by_words, &close], semantic::RRF_K)
        };
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
                sentence: doc.sentence,
                role: doc.role,
                text,
                score: s,
            });
        }
        out
    }

    /// `ranked` best first, cut to `keep` (only the best few are ordered). Ties go to the
    /// newer sentence, a later statement being the current one, by message and place, not
    /// by position in the index: a replay that folds in another order must recall the same.
    fn sort_best(&self, ranked: &mut Vec<(u32, f64)>, keep: usize) {
        let key = |d: u32| {
            let doc = &self.docs[d as usize];
            (doc.id, doc.sentence)
        };
        let order =
            |a: &(u32, f64), b: &(u32, f64)| b.1.total_cmp(&a.1).then(key(b.0).cmp(&key(a.0)));
        if ranked.len() > keep {
            ranked.select_nth_unstable_by(keep, order);
            ranked.truncate(keep);
        }
        ranked.sort_unstable_by(order);
    }

    /// BM25's candidates for `terms`, weighted, above the floors, best first (ties to the
    /// newer sentence: a later statement is the current one), at most `keep`.
    fn bm25(&self, terms: &[String], keep: usize) -> Vec<(u32, f64)> {
        let n = self.docs.len() as f64;
        let avg = (self.total_len as f64 / n).max(1.0);
        let idf = |df: f64| (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        let unseen = idf(0.0);
        let rare_df = (n * RARE_SHARE).max(2.0);
        let lists: Vec<Option<&Vec<(u32, u32)>>> =
            terms.iter().map(|t| self.postings.get(t)).collect();
        let total_idf: f64 = lists
            .iter()
            .map(|l| l.map_or(unseen, |l| idf(l.len() as f64)))
            .sum();
        // Scores accumulate over the postings of the query's words (their total length is
        // the cost of a query); a sentence is a candidate by a rare word or by coverage.
        let mut score = vec![0f64; self.docs.len()];
        let mut covered = vec![(0f64, 0u32); self.docs.len()];
        let mut rare = vec![false; self.docs.len()];
        for list in lists.into_iter().flatten() {
            let df = list.len() as f64;
            let w = idf(df);
            for &(d, tf) in list {
                let d = d as usize;
                let ratio = (f64::from(self.docs[d].len) / avg).min(MAX_LENGTH_RATIO);
                let tf = f64::from(tf);
                score[d] += w * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * ratio));
                covered[d].0 += w;
                covered[d].1 += 1;
                rare[d] |= df <= rare_df;
            }
        }
        let candidate =
            |d: usize| rare[d] || covered[d].1 >= 2 && covered[d].0 >= COVERAGE * total_idf;
        let mut ranked: Vec<(u32, f64)> = (0..self.docs.len())
            .filter(|&d| candidate(d))
            .map(|d| (d as u32, score[d] * self.docs[d].weight))
            .collect();
        let top = ranked.iter().map(|(_, s)| *s).fold(0f64, f64::max);
        if top < MIN_SCORE {
            return Vec::new();
        }
        let floor = (top * RELATIVE_FLOOR).max(MIN_SCORE);
        ranked.retain(|(_, s)| *s >= floor);
        self.sort_best(&mut ranked, keep);
        ranked
    }

    /// The sentences near `query` by their vectors, weighted as BM25's are, best first, at
    /// most `keep`: `among` those (BM25's candidates) in any case, else those at least
    /// [`semantic::MIN_COSINE`] close with [`semantic::COSINE_SHARE`] of the best.
    fn nearest(
        &self,
        query: &[f32],
        vectors: &SentenceVectors,
        among: Option<&[u32]>,
        keep: usize,
    ) -> Vec<u32> {
        let docs: Vec<u32> = match among {
            Some(candidates) => candidates.to_vec(),
            None => (0..self.docs.len() as u32).collect(),
        };
        let keys = docs.iter().map(|&d| SentenceKey {
            id: self.docs[d as usize].id,
            sentence: self.docs[d as usize].sentence,
        });
        let Some(cosines) = vectors.cosines(query, keys) else {
            return Vec::new();
        };
        let mut ranked: Vec<(u32, f64)> = docs
            .into_iter()
            .zip(cosines)
            .filter_map(|(d, c)| Some((d, c?)))
            .filter(|(_, c)| among.is_some() || *c >= semantic::MIN_COSINE)
            .map(|(d, c)| (d, f64::from(c) * self.docs[d as usize].weight))
            .collect();
        if among.is_none() {
            let top = ranked.iter().map(|(_, s)| *s).fold(0f64, f64::max);
            ranked.retain(|(_, s)| *s > 0.0 && *s >= top * semantic::COSINE_SHARE);
        }
        self.sort_best(&mut ranked, keep);
        ranked.into_iter().map(|(d, _)| d).collect()
    }
}

/// The sentences of a message the index holds, with their words and kind.
fn indexed(text: &str) -> impl Iterator<Item = (&str, Vec<String>, Kind)> {
    prose::lines_with_code(text)
        .filter(|(_, code)| !code)
        .flat_map(|(line, _)| prose::split_sentences(prose::bare(line)))
        .map(prose::bare)
        .filter_map(|s| {
            let kind = kind(s);
            let ws = words(s);
            (!ws.is_empty() && kind != Kind::Instruction).then_some((s, ws, kind))
        })
}

/// Verbs that open a request for something said before ("remind me …", "tell me …").
const ASKING: &[&str] = &[
    "tell", "remind", "recall", "repeat", "list", "give", "show", "find", "name", "check",
    "confirm", "look",
];

/// Whether `query` asks something: a question, or a request to be told or reminded. Only
/// such a message lets the vectors bring sentences of their own: "Thanks, that's all
/// for today!" came within 0.38 of the model's "Thanks for the details" (all-minilm).
fn asks(query: &str) -> bool {
    query
        .lines()
        .flat_map(|l| prose::split_sentences(prose::bare(l)))
        .any(|s| {
            let words = plain_words(s);
            let first = words
                .iter()
                .find(|w| !SOFTENERS.contains(&w.as_str()))
                .map_or("", String::as_str);
            kind(s) == Kind::Question || ASKING.contains(&first)
        })
}

/// Times of day a greeting names ("Good morning!"): not what the message is about
/// (measured: "Good morning!" recalled "the workshop starts Tuesday morning").
const GREETED: &[&str] = &["morning", "afternoon", "evening", "night", "day"];

/// `sentence` without a greeting it opens with ("Good morning, where …" → "where …").
fn ungreeted(sentence: &str) -> &str {
    let t = sentence.trim_start();
    let mut parts = t.splitn(3, |c: char| !c.is_alphanumeric());
    let (Some(first), Some(second)) = (parts.next(), parts.next()) else {
        return t;
    };
    let greets = first.eq_ignore_ascii_case("good")
        && GREETED.iter().any(|g| second.eq_ignore_ascii_case(g));
    if greets {
        parts.next().unwrap_or("")
    } else {
        t
    }
}

/// The words of a query, sorted and distinct, without its instructions about the answer
/// ("… Answer in one short sentence."): they are not what it asks about, and would weigh
/// against the sentences that are. A query that is only an instruction ("Tell me the
/// hotel's name") keeps its words.
fn query_terms(query: &str) -> Vec<String> {
    let sentences: Vec<&str> = query
        .lines()
        .flat_map(|l| prose::split_sentences(prose::bare(l)))
        .collect();
    let asking: Vec<&str> = sentences
        .iter()
        .copied()
        .filter(|s| kind(s) != Kind::Instruction)
        .collect();
    let chosen = if asking.is_empty() { sentences } else { asking };
    let mut terms: Vec<String> = chosen.into_iter().map(ungreeted).flat_map(words).collect();
    terms.sort();
    terms.dedup();
    terms
}

/// `text` whole when short, else cut to [`MAX_QUOTE_CHARS`] around the first word of
/// `terms` it holds.
fn quote(text: &str, terms: &[String]) -> String {
    if text.chars().count() <= MAX_QUOTE_CHARS {
        return text.to_string();
    }
    // The first word of the text (as written) that is a word of the query once folded.
    let mut at = 0;
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        if word_char(c) {
            start.get_or_insert(i);
        } else if let Some(s) = start.take()
            && words(&text[s..i]).iter().any(|w| terms.contains(w))
        {
            at = s;
            break;
        }
    }
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
mod tests;
