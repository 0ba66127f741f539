//! Recall from the log, the engine's side: the index of the folded messages' sentences
//! (`log_recall`) kept up to date as the folded set changes, the room the budget keeps for
//! recalled lines, the lines quoted into a request for the message it answers, and the
//! `search_history` tool's answer over the whole conversation. Recall by meaning (the
//! vectors) is `semantic.rs`; both rank through `log_recall::RecallIndex::search_with`.

use super::Engine;
use crate::core::budget::Budget;
use crate::core::ledger;
use crate::core::log_recall::{RecallIndex, RecalledLine};
use crate::core::message::{MessageId, Role};
use crate::core::tokens::MESSAGE_OVERHEAD_TOKENS;

/// Share of the room kept for recalled lines once something is folded (the budget keeps
/// it free: `Budget::recall`).
const RECALL_SHARE: f64 = 0.1;
/// Recalled lines a request carries at most.
const RECALL_LINES: usize = 4;

/// The folded messages' sentences, indexed for recall, and which messages they are: the
/// index is brought up to date when the folded set changes (only the newly folded are
/// added after a fold; a restore builds it again).
#[derive(Debug, Clone, Default)]
pub(super) struct Recall {
    index: RecallIndex,
    /// The ids of the folded messages the index holds, sorted.
    folded: Vec<MessageId>,
}

impl Recall {
    /// Nothing folded is indexed: there is nothing to recall.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Sentences indexed.
    pub fn lines(&self) -> usize {
        self.index.len()
    }

    /// The folded messages the index holds, sorted.
    pub fn folded(&self) -> &[MessageId] {
        &self.folded
    }
}

impl Engine {
    /// The room the budget keeps for recalled lines: a share of `b`'s room whenever
    /// something is folded (recall is the only way a question about a folded fact the
    /// ledger lost finds its answer).
    pub(super) fn recall_room(&self, b: &Budget) -> u32 {
        if self.recall.index.is_empty() {
            0
        } else {
            (f64::from(b.room()) * RECALL_SHARE) as u32
        }
    }

    /// The recalled lines for the person's `query` (with its `vector`, by meaning too),
    /// as a message under its header: its text, raw tokens and lines. Within [`RECALL_SHARE`] of the room and what is left
    /// under the hard limit beside a request of `raw_estimate`; `None` when nothing was
    /// found or nothing fits.
    pub(super) fn recall_slot(
        &self,
        query: &str,
        vector: Option<&[f32]>,
        raw_estimate: u32,
    ) -> Option<(String, u32, Vec<RecalledLine>)> {
        if self.recall.index.is_empty() {
            return None;
        }
        let b = self.budget();
        let cal = self.calibration();
        let left = b
            .hard_limit()
            .saturating_sub(cal.apply(raw_estimate))
            .min((f64::from(b.room()) * RECALL_SHARE) as u32);
        let header = &self.prompts.chat.recall_header;
        let fixed = self.tok.count(header) + MESSAGE_OVERHEAD_TOKENS;
        if cal.apply(fixed) >= left {
            return None;
        }
        let mut text = header.clone();
        let mut raw = fixed;
        let mut lines = Vec::new();
        let hits =
            self.recall
                .index
                .search_with(query, vector, self.sentence_vectors(), RECALL_LINES);
        let corrections = if hits.is_empty() {
            Vec::new()
        } else {
            self.corrections()
        };
        let stale = ledger::replaced(&corrections);
        for hit in hits.into_iter().filter(|h| !stale(&h.text)) {
            let line = format!(
                "\n- {}: \"{}\"",
                if hit.role == Role::User {
                    "user"
                } else {
                    "assistant"
                },
                hit.text
            );
            let cost = self.tok.count(&line);
            if cal.apply(raw + cost) > left {
                continue;
            }
            raw += cost;
            text.push_str(&line);
            lines.push(RecalledLine {
                id: hit.id,
                user: hit.role == Role::User,
                text: hit.text,
            });
        }
        (!lines.is_empty()).then_some((text, raw, lines))
    }

    /// The `search_history` tool's answer: the lines of the whole conversation (what is
    /// shown and what was folded, the person's and the model's) that best match `query`,
    /// each with its message number and who said it, at most `limit` (1–20).
    pub fn search_history(&self, query: &str, limit: usize) -> String {
        let mut index = RecallIndex::default();
        for id in self.conversation_ids() {
            if let Some(m) = self.history.get(id).filter(|m| m.role != Role::Tool) {
                index.add(m.id, m.role, &m.text);
            }
        }
        let hits = index.search(query, limit.clamp(1, 20));
        if hits.is_empty() {
            return format!("Nothing in this conversation matches {query:?}.");
        }
        let mut out = format!("Lines of this conversation matching {query:?}, best first:");
        for h in hits {
            let who = if h.role == Role::User {
                "user"
            } else {
                "assistant"
            };
            out.push_str(&format!("\n- message {} ({who}): {}", h.id, h.text));
        }
        out
    }

    /// Bring the recall index up to the folded messages: the newly folded ones are added
    /// (a fold); when some left the folded set (a restore) it is built again.
    pub(super) fn refresh_recall(&mut self) {
        let mut ids: Vec<MessageId> = self
            .active
            .checkpoints()
            .iter()
            .flat_map(|c| c.covers.iter().copied())
            .collect();
        ids.sort_unstable();
        if ids == self.recall.folded {
            return;
        }
        let grown = self.recall.folded.len() <= ids.len()
            && self
                .recall
                .folded
                .iter()
                .all(|id| ids.binary_search(id).is_ok());
        let new: Vec<MessageId> = if grown {
            ids.iter()
                .copied()
                .filter(|id| self.recall.folded.binary_search(id).is_err())
                .collect()
        } else {
            self.recall.index = RecallIndex::default();
            ids.clone()
        };
        for m in new.iter().filter_map(|id| self.history.get(*id)) {
            if m.role != Role::Tool {
                self.recall.index.add(m.id, m.role, &m.text);
            }
        }
        self.recall.folded = ids;
        self.folded_changed();
    }
}
