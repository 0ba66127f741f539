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
    // Contractions' first halves, and what small talk says.
    "alright",
    "awesome",
    "bye",
    "cheers",
    "cool",
    "fine",
    "glad",
    "good",
    "got",
    "great",
    "hello",
    "hey",
    "lot",
    "much",
    "nice",
    "perfect",
    "really",
    "see",
    "sorry",
    "sound",
    "sure",
    "very",
    "welcome",
    "well",
    "yeah",
    "yep",
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

/// Characters a word is made of (an identifier's separators and apostrophes included;
/// they are split or dropped after).
fn word_char(c: char) -> bool {
    c.is_alphanumeric() || "-_./:@'’".contains(c)
}

/// Ideographs and kana: written without spaces, so each is a word of its own.
fn ideograph(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xf900..=0xfaff | 0x20000..=0x2fa1f)
}

/// `text` lower case with its accents folded ("Zoë" → "zoe", "Łukasz" → "lukasz",
/// "Sørensen" → "sorensen"), so a name typed without them still matches. Only Latin,
/// Greek and Cyrillic letters are decomposed and lose their marks: in other scripts the
/// marks are parts of the letters.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut after_alphabetic = false;
    for c in text.to_lowercase().chars() {
        if unicode_normalization::char::is_combining_mark(c) {
            // A mark typed apart ("e" + U+0308) goes with the letter it follows.
            if !after_alphabetic {
                out.push(c);
            }
            continue;
        }
        after_alphabetic = (c as u32) < 0x0530;
        if !after_alphabetic {
            if ideograph(c) {
                out.push(' ');
                out.push(c);
                out.push(' ');
            } else {
                out.push(c);
            }
            continue;
        }
        unicode_normalization::char::decompose_canonical(c, |d| {
            if unicode_normalization::char::is_combining_mark(d) {
                return;
            }
            match d {
                'ł' => out.push('l'),
                'ø' => out.push('o'),
                'đ' | 'ð' => out.push('d'),
                'ħ' => out.push('h'),
                'ı' => out.push('i'),
                'ß' => out.push_str("ss"),
                'æ' => out.push_str("ae"),
                'œ' => out.push_str("oe"),
                'þ' => out.push_str("th"),
                d => out.push(d),
            }
        });
    }
    out.replace('’', "'")
}

/// A word without its contraction's tail ("that's" → "that", "we'll" → "we"); `None` for
/// a negated auxiliary ("don't"), a function word whole. Other apostrophes go ("O'Brien"
/// → "obrien").
fn uncontract(raw: &str) -> Option<String> {
    if raw.ends_with("n't") {
        return None;
    }
    if let Some((head, tail)) = raw.rsplit_once('\'')
        && ["s", "re", "ve", "ll", "d", "m"].contains(&tail)
    {
        return Some(head.replace('\'', ""));
    }
    Some(raw.replace('\'', ""))
}

/// The words of `text` as the index sees them: folded (lower case, no accents),
/// identifiers whole and split at `-_./:@`, function words out, simple endings folded.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let folded = fold(text);
    for raw in folded.split(|c: char| !word_char(c)) {
        let Some(raw) = uncontract(raw.trim_matches('\'')) else {
            continue;
        };
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
            let stem = fold_ending(p);
            if STOP.contains(&p) || STOP.contains(&stem.as_str()) {
                continue;
            }
            out.push(stem);
        }
    }
    out
}

/// "listens" → "listen", "owners" → "owner", "listening" → "listen": enough to match a
/// question's form of a word with a statement's, never applied to numbers or short words.
/// The endings are English; a word of another script keeps its own.
fn fold_ending(w: &str) -> String {
    if w.chars().count() <= 3 || !w.chars().all(char::is_alphabetic) {
        return w.to_string();
    }
    for (suffix, shortest) in [("ing", 4), ("ed", 4), ("s", 3)] {
        if let Some(stem) = w.strip_suffix(suffix)
            && stem.chars().count() >= shortest
            && !stem.ends_with('s')
        {
            return stem.to_string();
        }
    }
    w.to_string()
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

/// The words of a sentence as written, lower case, for the checks below.
fn plain_words(sentence: &str) -> Vec<String> {
    fold(sentence)
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').to_string())
        .filter(|w| !w.is_empty())
        .collect()
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

    /// A team-event chat: the workshop, the rooms, the hotel and the bus come up again and
    /// again, so none of those words is rare; small talk between.
    fn event_chat() -> Vec<(u64, Role, &'static str)> {
        vec![
            (
                2,
                Role::User,
                "We are planning the team offsite in Málaga for 40 people.",
            ),
            (
                3,
                Role::Assistant,
                "Great, an offsite in Málaga sounds lovely.",
            ),
            (4, Role::User, "The workshop starts on Tuesday at 9:30."),
            (
                5,
                Role::Assistant,
                "Noted, the workshop starts Tuesday morning.",
            ),
            (
                6,
                Role::User,
                "Zoë Lind runs the workshop and Łukasz handles the bus.",
            ),
            (7, Role::Assistant, "Zoë runs the workshop, Łukasz the bus."),
            (
                8,
                Role::User,
                "The hotel is the Miramar, next to the beach.",
            ),
            (9, Role::Assistant, "The hotel is next to the beach, nice."),
            (10, Role::User, "Every room at the hotel has a sea view."),
            (
                11,
                Role::Assistant,
                "A room with a sea view for everyone, lovely.",
            ),
            (
                12,
                Role::User,
                "The workshop room is Sala Picasso on the first floor.",
            ),
            (
                13,
                Role::Assistant,
                "The workshop has its room on the first floor.",
            ),
            (14, Role::User, "Lunch after the workshop is at the hotel."),
            (
                15,
                Role::Assistant,
                "Lunch at the hotel after the workshop, got it.",
            ),
            (
                16,
                Role::User,
                "The bus leaves the hotel at 8:45 for the workshop.",
            ),
            (
                17,
                Role::Assistant,
                "The bus leaves the hotel before the workshop.",
            ),
            (
                18,
                Role::User,
                "Sørensen pays the dinner, approx. 35 euros a head.",
            ),
            (19, Role::Assistant, "Thanks for the details, that helps."),
            (20, Role::User, "The weather should be warm and sunny."),
            (
                21,
                Role::Assistant,
                "Warm weather is good for the workshop break.",
            ),
        ]
    }

    #[test]
    fn accents_fold_and_every_script_is_read() {
        assert_eq!(
            words("Zoë's Málaga Łukasz Sørensen Straße"),
            ["zoe", "malaga", "lukasz", "sorensen", "strasse"]
        );
        // Marks stay on scripts whose marks are letters' parts; ideographs are words.
        assert_eq!(words("東京の会議"), ["東", "京", "の", "会", "議"]);
        assert_eq!(words("Встреча в Москве"), ["встреча", "в", "москве"]);
        // A mark typed apart folds too; other scripts keep theirs.
        assert_eq!(words("Zoe\u{308} İstanbul"), ["zoe", "istanbul"]);
        assert_eq!(fold("नमस्ते 한국"), "नमस्ते 한국");
        assert!(
            words("don't we'll that's").is_empty(),
            "{:?}",
            words("don't we'll that's")
        );
        let ix = index(&event_chat());
        for (query, expected) in [
            ("Who runs the workshop, Zoe?", 6),
            ("What does Lukasz handle?", 6),
            ("How much does Sorensen pay?", 18),
            ("How many people come to Malaga?", 2),
            ("Who pays, Sørensen?", 18),
        ] {
            let hits = ix.search(query, 3);
            assert_eq!(
                hits.first().map(|h| h.id),
                Some(MessageId(expected)),
                "{query}: {hits:?}"
            );
        }
    }

    #[test]
    fn a_question_whose_words_are_everywhere_finds_the_sentence_holding_them_all() {
        let ix = index(&event_chat());
        // "workshop" and "room" are in a third of the sentences: neither is rare.
        let hits = ix.search("In which room is the workshop?", 3);
        assert!(!hits.is_empty());
        assert!(hits[0].text.contains("Sala Picasso"), "{hits:?}");
        // Three words of the question, all common, stand in one sentence.
        let hits = ix.search("bus hotel workshop?", 3);
        assert!(hits[0].text.contains("8:45"), "{hits:?}");
        // Small talk still recalls nothing.
        for talk in [
            "Thanks, that's all!",
            "ok great, sounds good",
            "Thank you so much, that's really helpful.",
            "Answer in one short sentence.",
            "Good morning!",
        ] {
            assert!(
                ix.search(talk, 3).is_empty(),
                "{talk}: {:?}",
                ix.search(talk, 3)
            );
        }
    }

    #[test]
    fn the_persons_correction_ranks_above_the_models_paraphrase_and_earlier_questions() {
        let mut chat = event_chat();
        chat.extend([
            (22, Role::User, "Which room is the dinner in?"),
            (23, Role::Assistant, "The dinner room is not decided yet."),
            (24, Role::User, "The dinner is in the Terrace room."),
            (
                25,
                Role::Assistant,
                "The dinner room is confirmed for the evening.",
            ),
            (
                26,
                Role::User,
                "Actually, the dinner moved to the Garden room.",
            ),
            (
                27,
                Role::Assistant,
                "Understood, the dinner moved to another room.",
            ),
        ]);
        let ix = index(&chat);
        let hits = ix.search("Which room is the dinner in?", 4);
        assert!(hits[0].text.contains("Garden"), "{hits:?}");
        assert_eq!(hits[0].role, Role::User);
        let place = |needle: &str| hits.iter().position(|h| h.text.contains(needle));
        // The earlier question, worded as this one, ranks below every statement of it.
        if let Some(q) = place("Which room is the dinner in?") {
            assert!(place("Terrace").is_none_or(|t| t < q), "{hits:?}");
        }
        // The person's older statement ranks above the model's paraphrases without a value.
        if let (Some(t), Some(m)) = (place("Terrace"), place("confirmed")) {
            assert!(t < m, "{hits:?}");
        }
    }

    #[test]
    fn instructions_are_not_indexed_and_do_not_weigh_in_a_query() {
        let mut chat: Vec<(u64, Role, &str)> = event_chat()
            .into_iter()
            .filter(|(_, _, t)| !t.contains("dinner"))
            .collect();
        chat.extend([
            (
                30,
                Role::User,
                "What time is the dinner? Answer in one short sentence.",
            ),
            (31, Role::Assistant, "I do not know yet."),
            (
                32,
                Role::User,
                "The dinner is at 19:30 at Cervejaria Ramiro.",
            ),
            (34, Role::User, "Please keep it brief."),
        ]);
        let ix = index(&chat);
        assert_eq!(
            RecallIndex::sentences("What time is the dinner? Answer in one short sentence."),
            ["What time is the dinner?"]
        );
        assert!(RecallIndex::sentences("Please keep it brief.").is_empty());
        let hits = ix.search("Where is the dinner? Answer in one short sentence.", 3);
        assert_eq!(hits[0].id, MessageId(32), "{hits:?}");
        assert!(hits.iter().all(|h| !h.text.contains("Answer")), "{hits:?}");
        // A request worded as an instruction still asks.
        assert_eq!(
            ix.search("Tell me the dinner place.", 1)[0].id,
            MessageId(32)
        );
    }

    #[test]
    fn sentences_are_keyed_by_their_place_in_the_message() {
        let text = "Note 5: Dr. Okafor moved the talk to B2.\n```\ncode here.\n```\n- Answer briefly.\n- The bus leaves at 8:45. Thanks!";
        assert_eq!(
            RecallIndex::sentences(text),
            [
                "Note 5: Dr. Okafor moved the talk to B2.",
                "The bus leaves at 8:45."
            ]
        );
        let ix = index(&[(7, Role::User, text)]);
        let hit = &ix.search("when does the bus leave", 1)[0];
        assert_eq!((hit.id, hit.sentence), (MessageId(7), 1));
        let hit = &ix.search("Who is Dr. Okafor?", 1)[0];
        assert!(hit.text.starts_with("Note 5: Dr. Okafor"), "{hit:?}");
    }

    /// Vectors for a toy model of four concepts (money, sleeping, transport, other): the
    /// test says which sentences mean what.
    fn vectors_for(
        ix_lines: &[(u64, Role, &str)],
        meaning: &[(&str, [f32; 4])],
    ) -> SentenceVectors {
        let mut store = SentenceVectors::default();
        for (id, _, text) in ix_lines {
            let vectors: Vec<Vec<f32>> = RecallIndex::sentences(text)
                .iter()
                .map(|s| {
                    meaning
                        .iter()
                        .find(|(needle, _)| s.contains(needle))
                        .map_or(vec![0.05, 0.05, 0.05, 1.0], |(_, v)| v.to_vec())
                })
                .collect();
            assert_eq!(store.insert_message(MessageId(*id), vectors), Ok(()));
        }
        store
    }

    #[test]
    fn a_question_worded_unlike_the_fact_is_found_through_vectors() {
        let chat = [
            (2, Role::User, "I kept the receipt for the taxi, 42 euros."),
            (3, Role::Assistant, "Good idea to keep it."),
            (
                4,
                Role::User,
                "The hotel is the Miramar, next to the beach.",
            ),
            (5, Role::User, "The bus leaves at 8:45."),
            (6, Role::User, "The weather should be warm."),
        ];
        let ix = index(&chat);
        let store = vectors_for(
            &chat,
            &[
                ("receipt", [1.0, 0.0, 0.1, 0.1]),
                ("hotel", [0.0, 1.0, 0.1, 0.1]),
                ("bus", [0.1, 0.0, 1.0, 0.1]),
            ],
        );
        let claim = "How much was my expense claim?";
        assert!(ix.search(claim, 3).is_empty(), "no shared word");
        let hits = ix.search_with(claim, Some(&[0.9, 0.1, 0.1, 0.2]), &store, 3);
        assert_eq!(hits.len(), 1, "only the near one: {hits:?}");
        assert_eq!((hits[0].id, hits[0].sentence), (MessageId(2), 0));
        let hits = ix.search_with(
            "Where are we sleeping?",
            Some(&[0.1, 0.8, 0.0, 0.3]),
            &store,
            3,
        );
        assert_eq!(hits[0].id, MessageId(4), "{hits:?}");
        // Far from everything: nothing.
        assert!(
            ix.search_with(
                "What about the budget?",
                Some(&[0.0, 0.0, 0.0, -1.0]),
                &store,
                3
            )
            .is_empty()
        );
        // Small talk recalls nothing however near its vector.
        assert!(
            ix.search_with("thanks!", Some(&[1.0, 0.0, 0.1, 0.1]), &store, 3)
                .is_empty()
        );
        // Nor does small talk with a word of its own: it asks nothing.
        assert!(
            ix.search_with(
                "Thanks, that's all for today!",
                Some(&[1.0, 0.0, 0.1, 0.1]),
                &store,
                3
            )
            .is_empty()
        );
        // A request to be reminded asks.
        let hits = ix.search_with(
            "Remind me about the expense claim.",
            Some(&[0.9, 0.1, 0.1, 0.2]),
            &store,
            3,
        );
        assert_eq!(hits[0].id, MessageId(2), "{hits:?}");
        // Another model's vector (another dimension) is BM25 alone.
        assert_eq!(
            ix.search_with("when does the bus leave", Some(&[1.0; 3]), &store, 3),
            ix.search("when does the bus leave", 3)
        );
    }

    #[test]
    fn words_and_vectors_agreeing_rank_first() {
        let chat = [
            (2, Role::User, "The bus to the airport leaves at 8:45."),
            (
                4,
                Role::User,
                "The shuttle to the airport runs every 25 minutes.",
            ),
            (6, Role::User, "The airport is 20 minutes away."),
        ];
        let ix = index(&chat);
        let store = vectors_for(
            &chat,
            &[
                ("bus", [0.0, 0.0, 1.0, 0.2]),
                ("shuttle", [0.0, 0.0, 0.9, 0.3]),
                ("away", [0.0, 0.0, 0.2, 1.0]),
            ],
        );
        let query = "When does the airport bus leave?";
        let words_only = ix.search(query, 3);
        assert_eq!(words_only[0].id, MessageId(2));
        let fused = ix.search_with(query, Some(&[0.0, 0.0, 1.0, 0.25]), &store, 3);
        // The bus sentence is first by both; the shuttle, near by meaning, comes next.
        assert_eq!(fused[0].id, MessageId(2), "{fused:?}");
        assert!(fused.iter().any(|h| h.id == MessageId(4)), "{fused:?}");
    }

    #[test]
    fn the_order_messages_were_folded_in_does_not_change_what_is_recalled() {
        // Replay may fold in another order than the live session did (a person's message
        // kept back at first and folded later): ties must fall the same way.
        let mut chat = event_chat();
        chat.extend([
            (
                40,
                Role::User,
                "The bus leaves the hotel at 8:45 for the workshop.",
            ),
            (
                41,
                Role::Assistant,
                "The workshop room is on the first floor.",
            ),
            (42, Role::User, "The workshop room is on the first floor."),
        ]);
        let forward = index(&chat);
        let mut reversed = chat.clone();
        reversed.reverse();
        let backward = index(&reversed);
        for query in [
            "In which room is the workshop?",
            "bus hotel workshop?",
            "When does the bus leave?",
            "Who runs the workshop?",
        ] {
            assert_eq!(
                forward.search(query, 3),
                backward.search(query, 3),
                "{query}"
            );
        }
    }
}
