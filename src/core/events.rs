//! What the engine asks the outside world to do ([`Effect`]) and tells it
//! ([`EngineEvent`], the seed's compression and snapshot events plus a few of ours).

use crate::core::checkpoint::{CheckpointId, Level};
use crate::core::goals::{Author, GoalChange};
use crate::core::message::MessageId;
use crate::core::record::{Record, SnapshotPurpose};
use serde::Serialize;

/// Something the actor must carry out, in order. (Short-lived, so not boxed.)
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Effect {
    /// Append this record to the session log.
    Persist(Record),
    /// A turn boundary: make the log durable (fdatasync).
    Sync,
    /// Tell the UI and the log.
    Event(EngineEvent),
}

/// Why a compression runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum CompressReason {
    /// The recent messages reached the trigger.
    Auto,
    /// The user asked (Ctrl+K, /compress), optionally with a focus.
    Manual { focus: Option<String> },
    /// The server rejected a request as too long, or truncated one.
    Overflow,
    /// The next request would not fit even after normal compression.
    Emergency,
}

/// How hard a compression folds (DESIGN §3.4 validate, issue #3 emergency rollover).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Intensity {
    /// Fold what is outside the recent window; age checkpoints one level.
    Normal,
    /// Emergency: keep only the last exchange, fold user text too, age every checkpoint
    /// to ancient and merge them.
    Hard,
    /// Last resort before clipping: marked truncation without the model.
    Truncate,
}

impl Intensity {
    /// The next, harder step after `current`.
    pub fn after(current: Option<Intensity>) -> Option<Intensity> {
        match current {
            None => Some(Intensity::Normal),
            Some(Intensity::Normal) => Some(Intensity::Hard),
            Some(Intensity::Hard) => Some(Intensity::Truncate),
            Some(Intensity::Truncate) => None,
        }
    }
}

/// Events for the UI and the log (seed 002 §Events and ours).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "event")]
pub enum EngineEvent {
    Compressed {
        number: u32,
        reason: CompressReason,
        intensity: Intensity,
        messages: usize,
        tokens_before: u32,
        tokens_after: u32,
        calls: u32,
    },
    CompressionSkipped {
        reason: String,
    },
    CompressionError {
        error: String,
    },
    RolloverComplete {
        intensity: Intensity,
        tokens_after: u32,
    },
    CheckpointCreated {
        id: CheckpointId,
        number: u32,
        level: Level,
        tokens: u32,
        original_tokens: u32,
        messages: usize,
    },
    CheckpointAged {
        id: CheckpointId,
        from: Level,
        to: Level,
        tokens_before: u32,
        tokens_after: u32,
    },
    CheckpointsMerged {
        merged: Vec<CheckpointId>,
        into: CheckpointId,
        tokens: u32,
    },
    SnapshotCreated {
        id: String,
        purpose: SnapshotPurpose,
    },
    AutoSnapshotCreated {
        id: String,
    },
    SnapshotRestored {
        id: String,
    },
    SnapshotError {
        error: String,
    },
    /// The server evaluated clearly fewer prompt tokens than we sent: it truncated.
    TruncationSuspected {
        sent: u32,
        seen: u32,
    },
    /// User text alone overflowed, so the oldest user messages were folded too.
    UserMessagesFolded {
        count: usize,
        checkpoint: u32,
    },
    /// A summary kept dropping facts; they were appended verbatim.
    FactsKept {
        checkpoint: u32,
        count: usize,
    },
    /// Emergency: a message is shown to the model cut down (history keeps it whole).
    MessageClipped {
        id: MessageId,
        omitted_tokens: u32,
    },
    ReliabilityWarning {
        compressions: u32,
        percent: u32,
        model: String,
    },
    GoalUpdated {
        change: GoalChange,
        author: Author,
    },
    GoalRejected {
        change: GoalChange,
        reason: String,
    },
}

impl EngineEvent {
    /// The seed's event name.
    pub fn name(&self) -> &'static str {
        match self {
            EngineEvent::Compressed { .. } => "compressed",
            EngineEvent::CompressionSkipped { .. } => "compression-skipped",
            EngineEvent::CompressionError { .. } => "compression-error",
            EngineEvent::RolloverComplete { .. } => "rollover-complete",
            EngineEvent::CheckpointCreated { .. } => "checkpoint-created",
            EngineEvent::CheckpointAged { .. } => "checkpoint-aged",
            EngineEvent::CheckpointsMerged { .. } => "checkpoints-merged",
            EngineEvent::SnapshotCreated { .. } => "snapshot-created",
            EngineEvent::AutoSnapshotCreated { .. } => "auto-snapshot-created",
            EngineEvent::SnapshotRestored { .. } => "snapshot-restored",
            EngineEvent::SnapshotError { .. } => "snapshot-error",
            EngineEvent::TruncationSuspected { .. } => "truncation-suspected",
            EngineEvent::UserMessagesFolded { .. } => "user-messages-folded",
            EngineEvent::FactsKept { .. } => "facts-kept",
            EngineEvent::MessageClipped { .. } => "message-clipped",
            EngineEvent::ReliabilityWarning { .. } => "reliability-warning",
            EngineEvent::GoalUpdated { .. } => "goal-updated",
            EngineEvent::GoalRejected { .. } => "goal-rejected",
        }
    }
}
