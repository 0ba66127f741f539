//! A finished task's watermark: when the person says a task is done (`/done`) or the
//! model calls `task_done`, the tool calls and results up to that point leave the active
//! context, while what was said — the person's messages, the model's answers — stays.
//!
//! Invariants: exactly the tool messages up to the watermark, and assistant messages that
//! held nothing but calls, leave; an answer that also called tools stays, without its
//! calls. The watermark is a log record (replay rebuilds it) and part of the active state
//! (a snapshot taken before it, restored, brings everything back; `/done` takes one).

use super::Engine;
use super::input::Effect;
use crate::core::events::{EngineError, EngineEvent};
use crate::core::message::{MessageId, Role};
use crate::core::record::{RecordBody, SnapshotPurpose};
use chrono::{DateTime, Utc};

fn refused(fx: &mut Vec<Effect>) {
    fx.push(Effect::Event(EngineEvent::Refused {
        error: EngineError::NothingToClear,
    }));
}

/// The tool the model calls when the person's task is finished.
pub const TASK_DONE_TOOL: &str = "task_done";

impl Engine {
    /// `/done`: a snapshot of the state (to undo it with a restore), then the watermark
    /// at the newest message.
    pub(super) fn done(&mut self, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        let Some(at) = self.active.messages().last().map(|e| e.id) else {
            return refused(fx);
        };
        if self.watermarked_ids(at).is_empty() {
            return refused(fx);
        }
        // Taken of the state before, saved after the watermark's record: the snapshot's
        // own record must follow it in the log.
        let snap = self.make_snapshot(SnapshotPurpose::Recovery, Some("before /done".into()), now);
        self.watermark_at(at, now, fx);
        fx.push(Effect::SaveSnapshot(Box::new(snap)));
    }

    /// Record the watermark at `at` and say what it freed.
    pub(super) fn watermark_at(&mut self, at: MessageId, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        let messages = self.watermarked_ids(at).len();
        if messages == 0 {
            return;
        }
        let before = self.budget().total();
        self.commit(RecordBody::Watermark { at }, now, fx);
        let tokens = before.saturating_sub(self.budget().total());
        fx.push(Effect::Event(EngineEvent::TaskDone { messages, tokens }));
    }

    /// The active messages a watermark at `at` removes.
    fn watermarked_ids(&self, at: MessageId) -> Vec<MessageId> {
        self.active
            .messages()
            .iter()
            .filter(|e| e.id <= at)
            .filter(|e| match e.role {
                Role::Tool => true,
                Role::Assistant => self
                    .history
                    .get(e.id)
                    .is_some_and(|m| !m.calls.is_empty() && m.text.trim().is_empty()),
                Role::User => false,
            })
            .map(|e| e.id)
            .collect()
    }

    pub(super) fn apply_watermark(&mut self, at: MessageId) {
        let ids = self.watermarked_ids(at);
        self.active.remove_sorted(&ids);
        self.watermark = Some(self.watermark.map_or(at, |w| w.max(at)));
        self.version += 1;
    }
}
