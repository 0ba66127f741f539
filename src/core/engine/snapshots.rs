//! Snapshots and restore. The engine makes a snapshot and asks for it to be saved; once
//! saved it is logged (a `snapshot` record) and what waited on it goes on: an emergency
//! step of a turn, or a restore — which first saves the state it leaves, so every restore
//! can be undone by another, and is not made when that save fails.

use super::Engine;
use super::input::Effect;
use super::turn::Awaiting;
use crate::core::events::{EngineError, EngineEvent};
use crate::core::message::Message;
use crate::core::record::{FORMAT_VERSION, RecordBody, SnapshotPurpose};
use crate::core::snapshot::{Snapshot, SnapshotMeta};
use chrono::{DateTime, Utc};

/// A restore waiting for the snapshot of the state it leaves.
#[derive(Debug, Clone)]
pub(super) struct PendingRestore {
    /// Id of the snapshot of the current state, being saved.
    before: String,
    snapshot: Box<Snapshot>,
}

impl Engine {
    /// A snapshot of the current state, for the driver to save.
    pub(super) fn make_snapshot(
        &mut self,
        purpose: SnapshotPurpose,
        label: Option<String>,
        now: DateTime<Utc>,
    ) -> Snapshot {
        self.snapshot_counter += 1;
        let id = format!(
            "{}-{:03}{}",
            now.format("%Y%m%d-%H%M%S"),
            now.timestamp_subsec_millis(),
            if self.snapshot_counter > 1 {
                format!("-{}", self.snapshot_counter)
            } else {
                String::new()
            }
        );
        let state = self.active_state();
        let messages: Vec<Message> = state
            .messages
            .iter()
            .filter_map(|id| self.history.get(*id).cloned())
            .collect();
        Snapshot {
            format_version: FORMAT_VERSION,
            meta: SnapshotMeta {
                id,
                session_id: self.settings.session_id.clone(),
                created: now,
                purpose,
                label,
                model: self.settings.model.clone(),
                tier: self.tier(),
                mode: self.settings.mode,
                tokens: self.budget().total(),
                message_count: state.messages.len(),
                checkpoint_count: state.checkpoints.len(),
            },
            state,
            messages,
        }
    }

    /// A snapshot was written: log it, then go on with what waited for it.
    pub(super) fn snapshot_saved(
        &mut self,
        meta: &SnapshotMeta,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        self.commit(
            RecordBody::Snapshot {
                snapshot_id: meta.id.clone(),
                purpose: meta.purpose,
            },
            now,
            fx,
        );
        fx.push(Effect::Event(
            if meta.purpose == SnapshotPurpose::Recovery {
                EngineEvent::AutoSnapshotCreated {
                    id: meta.id.clone(),
                }
            } else {
                EngineEvent::SnapshotCreated {
                    id: meta.id.clone(),
                    purpose: meta.purpose,
                }
            },
        ));
        if let Some(pending) = self.take_pending_restore(&meta.id) {
            self.apply_restore_input(*pending.snapshot, pending.before, now, fx);
        }
        self.resume_turn_after(&Awaiting::Snapshot(meta.id.clone()), now, fx);
    }

    /// A snapshot could not be written: say so; a restore waiting for it is not made, an
    /// emergency step goes on without it (history on disk is intact either way).
    pub(super) fn snapshot_failed(
        &mut self,
        id: &str,
        error: String,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        fx.push(Effect::Event(EngineEvent::SnapshotError { error }));
        if let Some(pending) = self.take_pending_restore(id) {
            fx.push(Effect::Event(EngineEvent::RestoreNotSaved {
                id: pending.snapshot.meta.id,
            }));
        }
        self.resume_turn_after(&Awaiting::Snapshot(id.to_string()), now, fx);
    }

    fn take_pending_restore(&mut self, saved: &str) -> Option<PendingRestore> {
        self.pending_restore.take_if(|p| p.before == saved)
    }

    /// Restore `snapshot`: first ask for a snapshot of the state being left.
    pub(super) fn restore(
        &mut self,
        snapshot: Box<Snapshot>,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        if snapshot.meta.session_id != self.settings.session_id {
            fx.push(Effect::Event(EngineEvent::Refused {
                error: EngineError::WrongSession {
                    snapshot: snapshot.meta.id.clone(),
                    other: snapshot.meta.session_id.clone(),
                },
            }));
            return;
        }
        // A rollback point like Ctrl+S's, so pruning automatic snapshots keeps it.
        let before = self.make_snapshot(
            SnapshotPurpose::Rollback,
            Some(format!("before restoring {}", snapshot.meta.id)),
            now,
        );
        self.pending_restore = Some(PendingRestore {
            before: before.meta.id.clone(),
            snapshot,
        });
        fx.push(Effect::SaveSnapshot(Box::new(before)));
    }

    /// Make a snapshot's state the active state (model and ctx stay as they are now).
    fn apply_restore_input(
        &mut self,
        snapshot: Snapshot,
        before: String,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        let id = snapshot.meta.id;
        self.commit(
            RecordBody::Restore {
                snapshot_id: id.clone(),
                state: snapshot.state,
            },
            now,
            fx,
        );
        fx.push(Effect::Event(EngineEvent::SnapshotRestored { id, before }));
        fx.push(Effect::Sync);
    }
}
