//! The transcript as the actor publishes it: every message of the current branch, with a
//! fold divider where each compression happened, and which messages each checkpoint now
//! stands for (so the screen can say "in checkpoint N").

use super::driver::Actor;
use super::view::{Item, ItemKind, Update};
use crate::core::checkpoint::CheckpointId;
use crate::core::events::EngineEvent;
use crate::core::message::{Message, Role};
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use chrono::{DateTime, Utc};

/// A message as a transcript item.
pub fn item_of(m: &Message) -> Item {
    Item {
        id: Some(m.id),
        kind: match m.role {
            Role::User => ItemKind::User,
            Role::Assistant => ItemKind::Assistant { status: m.status },
            Role::Tool => ItemKind::Tool {
                name: m.tool.as_ref().map(|t| t.name.clone()).unwrap_or_default(),
                is_error: m.is_tool_error(),
            },
        },
        text: m.text.clone(),
        ts: m.ts,
        pinned: m.pinned,
    }
}

/// The divider a new checkpoint leaves in the transcript.
pub(super) fn fold_item(ev: &EngineEvent, ts: DateTime<Utc>) -> Option<Item> {
    let EngineEvent::CheckpointCreated {
        number,
        tokens,
        original_tokens,
        messages,
        ..
    } = ev
    else {
        return None;
    };
    Some(Item {
        id: None,
        kind: ItemKind::Fold {
            checkpoint: *number,
            messages: *messages,
            tokens_before: *original_tokens,
            tokens_after: *tokens,
        },
        text: String::new(),
        ts,
        pinned: false,
    })
}

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    /// The conversation as items: every message of the current branch, with fold markers.
    fn transcript(&self) -> Vec<Item> {
        let ids = self.engine.conversation_ids();
        let mut items: Vec<Item> = ids
            .iter()
            .filter_map(|id| self.engine.history().get(*id))
            .map(item_of)
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
                Item {
                    id: None,
                    kind: ItemKind::Fold {
                        checkpoint: cp.number,
                        messages: cp.covers.len(),
                        tokens_before: cp.original_tokens,
                        tokens_after: cp.tokens,
                    },
                    text: String::new(),
                    ts: cp.created_at,
                    pinned: false,
                },
            );
        }
        items
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
