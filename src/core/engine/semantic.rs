//! Recall by meaning, the engine's half: which folded sentences still need vectors, the
//! job that asks the driver for them, the answer kept in the log, and the vector of the
//! message a turn answers.
//!
//! Strategy: embedding is I/O, so the engine only says what to embed. Between turns, when
//! the driver has an embedding model ([`Embedder::Model`]), the folded messages without
//! vectors of that model are asked for ([`Effect::EmbedSentences`], at most
//! [`JOB_SENTENCES`] sentences a job, newest folded first); the answer is recorded
//! (`sentence_vectors`, half floats) and applied like every record, so replay restores
//! the vectors without the model and the live engine holds exactly what replay will. A
//! message is asked for once: again only when its vectors are missing after a failure
//! (then not before the next fold) or when the embedding model changed. In a turn, once
//! vectors exist, the message being answered is embedded first ([`Effect::EmbedQuery`],
//! which the driver answers within a short time limit, or with nothing): its vector is
//! runtime only, and the recall slot fuses the ranking by it with BM25's. Without a model,
//! on a failure or a timeout, recall is by words alone; nothing else changes.

use super::Engine;
use super::input::{Effect, Input};
use crate::core::log_recall::RecallIndex;
use crate::core::message::{MessageId, Role};
use crate::core::record::{MessageVectors, RecordBody};
use crate::core::semantic::{SentenceVectors, decode_vectors, encode_vectors};
use chrono::{DateTime, Utc};

/// Sentences one job asks for at most (a message's are never split): two of the backend's
/// batches of 32, well under a second on a small model, so a job between turns is done
/// before the person's next message needs the server, and a record stays small.
pub const JOB_SENTENCES: usize = 64;

/// Characters of the person's message embedded for its vector: an embedding model reads
/// a few hundred tokens at most, and the question is asked near the start.
pub const QUERY_CHARS: usize = 2000;

/// What makes the vectors for recall by meaning, as the driver found it (its setting and
/// the installed models). Runtime only.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Embedder {
    /// Not known yet (the server was not asked).
    #[default]
    Unknown,
    /// The person turned recall by meaning off (`embedding_model = "off"`).
    Off,
    /// No embedding model is installed, or not the one the person named: `pull` is the
    /// one to pull for it (theirs, or a small one).
    Missing { pull: String },
    /// This installed model makes the vectors.
    Model(String),
}

/// Each message's sentence vectors, in the order of its sentences.
pub type MessageVectorList = Vec<(MessageId, Vec<Vec<f32>>)>;

/// Folded sentences to embed: per message, the sentences `RecallIndex::sentences` gives
/// for its text, in order. Answered with [`EmbedJob::answer`].
#[derive(Debug, Clone, PartialEq)]
pub struct EmbedJob {
    pub model: String,
    pub messages: Vec<(MessageId, Vec<String>)>,
}

impl EmbedJob {
    /// Every sentence of the job, in order: what the embedding model is sent.
    pub fn inputs(&self) -> Vec<String> {
        self.messages
            .iter()
            .flat_map(|(_, s)| s.iter().cloned())
            .collect()
    }

    /// The engine's input for the model's answer to [`Self::inputs`] (one vector per
    /// input, in order) or its failure.
    pub fn answer(self, result: Result<Vec<Vec<f32>>, String>) -> Input {
        let vectors = result.and_then(|all| {
            let wanted: usize = self.messages.iter().map(|(_, s)| s.len()).sum();
            if all.len() != wanted {
                return Err(format!("{} vectors for {wanted} sentences", all.len()));
            }
            let mut all = all.into_iter();
            Ok(self
                .messages
                .iter()
                .map(|(id, s)| (*id, all.by_ref().take(s.len()).collect()))
                .collect())
        });
        Input::SentencesEmbedded {
            model: self.model,
            vectors,
        }
    }
}

/// Recall as the panel shows it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecallStatus {
    pub embedder: Embedder,
    /// Sentences of folded messages recall searches.
    pub lines: usize,
    /// Of them, those with vectors of the embedding model.
    pub with_vectors: usize,
    /// Why the last job failed, while its sentences are still without vectors.
    pub failed: Option<String>,
}

/// The engine's state for recall by meaning (see the module docs).
#[derive(Debug, Clone, Default)]
pub(super) struct Semantic {
    /// Runtime: the driver says.
    embedder: Embedder,
    /// From the log.
    vectors: SentenceVectors,
    /// A job is out (runtime).
    asked: bool,
    /// Something may need vectors: the folded set, the model or the vectors changed.
    dirty: bool,
    failed: Option<String>,
    /// The vector of the person's message a turn answers (runtime).
    query: Option<(MessageId, Vec<f32>)>,
    /// Folded sentences with vectors of the embedder's model (kept current: the status
    /// is read on every redraw).
    with_vectors: usize,
}

impl Semantic {
    /// The model whose vectors are held and are usable now: the embedder's.
    fn usable_model(&self) -> Option<&str> {
        match &self.embedder {
            Embedder::Model(m) if !self.vectors.is_empty() && self.vectors.model() == m => Some(m),
            _ => None,
        }
    }
}

impl Engine {
    /// The vectors of the folded sentences (from the log).
    pub fn sentence_vectors(&self) -> &SentenceVectors {
        &self.semantic.vectors
    }

    /// Recall as the panel shows it.
    pub fn recall_status(&self) -> RecallStatus {
        RecallStatus {
            embedder: self.semantic.embedder.clone(),
            lines: self.recall.lines(),
            with_vectors: self.semantic.with_vectors,
            failed: self.semantic.failed.clone(),
        }
    }

    /// The vector of message `id` when a turn answers it and one was given.
    pub(super) fn query_vector(&self, id: Option<MessageId>) -> Option<&[f32]> {
        let (qid, v) = self.semantic.query.as_ref()?;
        (Some(*qid) == id && self.semantic.usable_model().is_some()).then_some(v.as_slice())
    }

    pub(super) fn set_embedder(&mut self, embedder: Embedder) {
        if embedder != self.semantic.embedder {
            tracing::info!(?embedder, "recall by meaning");
            self.semantic.embedder = embedder;
            self.semantic.dirty = true;
            self.semantic.failed = None;
            self.semantic.query = None;
            self.recount_vectors();
        }
    }

    /// The folded set changed: its new messages may need vectors.
    pub(super) fn folded_changed(&mut self) {
        self.semantic.dirty = true;
        self.recount_vectors();
    }

    /// Count the folded sentences that have vectors of the embedder's model.
    pub(super) fn recount_vectors(&mut self) {
        let s = &self.semantic;
        self.semantic.with_vectors = match &s.embedder {
            Embedder::Model(m) if s.vectors.model() == m => self
                .recall
                .folded()
                .iter()
                .map(|id| s.vectors.sentences_of(*id))
                .sum::<usize>()
                .min(self.recall.lines()),
            _ => 0,
        };
    }

    /// Between turns: ask for the vectors of folded messages that lack them, one job at a
    /// time (see the module docs).
    pub(super) fn ask_vectors(&mut self, fx: &mut Vec<Effect>) {
        if self.turn.is_some() || self.replaying || self.semantic.asked || !self.semantic.dirty {
            return;
        }
        let Embedder::Model(model) = &self.semantic.embedder else {
            return;
        };
        let held = self.semantic.vectors.model() == model;
        let mut messages = Vec::new();
        let mut sentences = 0usize;
        // Newest folded first: the likeliest to be asked about.
        for id in self.recall.folded().iter().rev() {
            if held && self.semantic.vectors.has_message(*id) {
                continue;
            }
            let Some(m) = self.history.get(*id).filter(|m| m.role != Role::Tool) else {
                continue;
            };
            let s: Vec<String> = RecallIndex::sentences(&m.text)
                .into_iter()
                .map(str::to_string)
                .collect();
            if s.is_empty() {
                continue;
            }
            if sentences > 0 && sentences + s.len() > JOB_SENTENCES {
                break;
            }
            sentences += s.len();
            messages.push((*id, s));
        }
        if messages.is_empty() {
            self.semantic.dirty = false;
            return;
        }
        self.semantic.asked = true;
        fx.push(Effect::EmbedSentences(EmbedJob {
            model: model.clone(),
            messages,
        }));
    }

    /// The answer to `EmbedSentences`: the vectors recorded (those that fit what they are
    /// for), or the failure kept for the panel until the next fold tries again.
    pub(super) fn sentences_embedded(
        &mut self,
        model: String,
        vectors: Result<MessageVectorList, String>,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        self.semantic.asked = false;
        let list = match vectors {
            Ok(list) => list,
            Err(why) => {
                tracing::info!(%model, %why, "no vectors for the folded sentences: recall stays by words");
                self.semantic.failed = Some(why);
                self.semantic.dirty = false;
                return;
            }
        };
        if self.semantic.embedder != Embedder::Model(model.clone()) {
            // Asked of a model the session no longer uses: another job asks the new one.
            return;
        }
        let before = self.semantic.with_vectors;
        let replacing = self.semantic.vectors.model() != model;
        let mut dim = if replacing {
            None
        } else {
            Some(self.semantic.vectors.dim()).filter(|d| *d > 0)
        };
        let mut messages = Vec::new();
        for (id, v) in list {
            let fits = self
                .history
                .get(id)
                .is_some_and(|m| RecallIndex::sentences(&m.text).len() == v.len());
            let d = v.first().map_or(0, Vec::len);
            if !fits || d == 0 || dim.is_some_and(|dim| dim != d) {
                tracing::warn!(%id, "vectors that do not fit the message's sentences");
                continue;
            }
            dim = Some(d);
            match encode_vectors(&v) {
                Ok(vectors) => messages.push(MessageVectors { id, vectors }),
                Err(e) => tracing::warn!(%id, error = %e, "vectors that cannot be kept"),
            }
        }
        if !messages.is_empty() {
            self.commit(RecordBody::SentenceVectors { model, messages }, now, fx);
        }
        if self.semantic.with_vectors > before || replacing && !self.semantic.vectors.is_empty() {
            self.semantic.failed = None;
            self.semantic.dirty = true;
        } else {
            // Nothing new could be kept: asking again would get the same.
            self.semantic.failed = Some("the embedding model's vectors did not fit".into());
            self.semantic.dirty = false;
        }
    }

    /// A `sentence_vectors` record applied: the vectors of each message whose sentences
    /// they fit; another model's replace those held.
    pub(super) fn apply_vectors(
        &mut self,
        model: &str,
        messages: &[MessageVectors],
    ) -> Result<(), String> {
        if self.semantic.vectors.model() != model {
            self.semantic.vectors = SentenceVectors::new(model);
        }
        let mut issues = Vec::new();
        for mv in messages {
            let Some(m) = self.history.get(mv.id) else {
                issues.push(format!("vectors of unknown message {}", mv.id));
                continue;
            };
            let expected = RecallIndex::sentences(&m.text).len();
            let result = decode_vectors(&mv.vectors)
                .map_err(|e| e.to_string())
                .and_then(|v| {
                    if v.len() == expected {
                        Ok(v)
                    } else {
                        Err(format!("{} vectors for {expected} sentences", v.len()))
                    }
                })
                .and_then(|v| {
                    self.semantic
                        .vectors
                        .insert_message(mv.id, v)
                        .map_err(|e| e.to_string())
                });
            if let Err(e) = result {
                issues.push(format!("message {}: {e}", mv.id));
            }
        }
        if !self.replaying {
            self.recount_vectors();
        }
        if issues.is_empty() {
            Ok(())
        } else {
            Err(issues.join("; "))
        }
    }

    /// At the start of a turn: the person's message to embed first, when vectors exist
    /// to compare it with and it has words to search for.
    pub(super) fn query_to_embed(&self) -> Option<Effect> {
        let model = self.semantic.usable_model()?;
        if self.recall.is_empty() {
            return None;
        }
        let id = self.last_active(Role::User)?;
        if self.semantic.query.as_ref().is_some_and(|(q, _)| *q == id) {
            return None;
        }
        let text = &self.history.get(id)?.text;
        if !RecallIndex::searchable(text) {
            return None;
        }
        let text = match text.char_indices().nth(QUERY_CHARS) {
            Some((at, _)) => text[..at].to_string(),
            None => text.clone(),
        };
        Some(Effect::EmbedQuery {
            model: model.to_string(),
            text,
        })
    }

    /// The answer to `EmbedQuery`: kept for the message the turn answers.
    pub(super) fn query_embedded(&mut self, vector: Option<Vec<f32>>) {
        self.semantic.query = vector
            .filter(|v| !v.is_empty())
            .and_then(|v| Some((self.last_active(Role::User)?, v)));
    }
}
