//! The transcript as the actor publishes it: every message of the current branch, with a
//! fold divider where each compression happened, and which messages each checkpoint now
//! stands for (so the screen can say "in checkpoint N").

use super::driver::Actor;
use crate::core::checkpoint::CheckpointId;
use crate::core::events::EngineEvent;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use crate::view::{Entry, EntryKind, Update};
use chrono::{DateTime, Utc};

fn fold(checkpoint: u32, messages: usize, tokens: u32, ts: DateTime<Utc>) -> Entry {
    Entry::new(
        EntryKind::Fold {
            checkpoint,
            messages,
            tokens,
            merged_into: None,
        },
        "",
        ts,
    )
}

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    /// The conversation as entries: every message of the current branch, with fold
    /// markers.
    fn transcript(&self) -> Vec<Entry> {
        let ids = self.engine.conversation_ids();
        let mut items: Vec<Entry> = ids
            .iter()
            .filter_map(|id| self.engine.history().get(*id))
            // A reply that was only tool calls shows as its calls' lines.
            .filter(|m| !m.text.is_empty() || m.calls.is_empty() || !m.thinking.is_empty())
            .map(Entry::from_message)
            .collect();
        // A fold marker where the compression happened, as it appeared live (after the
        // messages that existed then), and never before the messages it covers.
        for cp in self.engine.checkpoints().iter().rev() {
            let Some(last) = cp.covers.last() else {
                continue;
            };
            let after_covered = items
                .iter()
                .position(|i| i.id.is_some_and(|id| id > *last))
                .unwrap_or(items.len());
            let when_made = items
                .iter()
                .position(|i| i.id.is_some() && i.ts > cp.created_at)
                .unwrap_or(items.len());
            let pos = after_covered.max(when_made);
            items.insert(
                pos,
                fold(cp.number, cp.covers.len(), cp.tokens, cp.created_at),
            );
        }
        items
    }

    /// A new checkpoint: its divider in the transcript, and the messages it stands for.
    pub(super) fn checkpoint_created(&self, ev: &EngineEvent) {
        if let EngineEvent::CheckpointCreated {
            id,
            number,
            tokens,
            messages,
            ..
        } = ev
        {
            self.send(Update::Appended(fold(
                *number,
                *messages,
                *tokens,
                Utc::now(),
            )));
            self.send_folded(*id);
        }
    }

    /// Tell the UI which messages checkpoint `id` stands for.
    pub(super) fn send_folded(&self, id: CheckpointId) {
        if let Some(cp) = self.engine.checkpoints().iter().find(|c| c.id == id) {
            self.send(Update::Folded {
                checkpoint: cp.number,
                ids: cp.covers.clone(),
            });
        }
    }

    /// The whole transcript, then which messages each checkpoint covers.
    pub(super) fn send_transcript(&self) {
        self.send(Update::Transcript(self.transcript()));
        for cp in self.engine.checkpoints() {
            self.send_folded(cp.id);
        }
    }

    /// Checkpoints were merged: their dividers name the merge, their messages its number.
    pub(super) fn merged(&self, merged: &[CheckpointId], into: CheckpointId) {
        // The merged ones are gone from the engine; the list last published still names
        // them.
        let checkpoints: Vec<u32> = self
            .checkpoints
            .iter()
            .filter(|c| merged.contains(&c.id))
            .map(|c| c.number)
            .collect();
        if let Some(cp) = self.engine.checkpoints().iter().find(|c| c.id == into) {
            self.send(Update::Merged {
                checkpoints,
                into: cp.number,
            });
        }
        self.send_folded(into);
    }
}
