//! What the UI asks of the session actor.

use crate::core::checkpoint::{Checkpoint, CheckpointId};
use crate::core::goals::GoalChange;
use crate::core::message::{Message, MessageId};
use crate::core::mode::Mode;
use crate::core::snapshot::SnapshotMeta;
use crate::llm::ModelSummary;
use tokio::sync::oneshot;

/// A request to the actor. Replies, where there are any, come back on a oneshot; every
/// other outcome arrives as [`super::Update`]s and in the published view.
#[derive(Debug)]
pub enum Command {
    /// Record a user message and run the turn (compress if needed, stream the reply).
    Send {
        text: String,
    },
    /// Send the last user message again if it has no reply (after an error).
    Retry,
    /// Stop the reply being generated, or the compression under way.
    Stop,
    /// Compress now, optionally steering the summary.
    Compress {
        focus: Option<String>,
    },
    Snapshot {
        label: Option<String>,
    },
    ListSnapshots {
        reply: oneshot::Sender<Result<Vec<SnapshotMeta>, String>>,
    },
    Restore {
        id: String,
    },
    DeleteSnapshot {
        id: String,
    },
    /// A goal-board change by the user.
    Goal {
        change: GoalChange,
    },
    /// Pin or unpin a message; `None` means the latest reply.
    Pin {
        id: Option<MessageId>,
        pinned: bool,
    },
    SetModel {
        name: String,
    },
    /// `None` returns to the model's own (capped) context size.
    SetCtx {
        ctx: Option<u32>,
    },
    SetMode {
        mode: Mode,
    },
    ListModels {
        reply: oneshot::Sender<Result<Vec<ModelSummary>, String>>,
    },
    /// A checkpoint with the original messages it covers (for the inspector).
    Inspect {
        id: CheckpointId,
        reply: oneshot::Sender<Option<(Checkpoint, Vec<Message>)>>,
    },
    /// Write the session to a file under the data directory (`/export`); the outcome
    /// arrives as a notice.
    Export {
        json: bool,
    },
    /// Check the server again now.
    Reconnect,
    /// Finish what is under way, sync, and stop.
    Shutdown,
}

impl Command {
    /// Commands that only read the session: answered at once, even while a reply
    /// streams or a compression runs.
    pub(crate) fn is_read_only(&self) -> bool {
        matches!(
            self,
            Command::ListSnapshots { .. }
                | Command::ListModels { .. }
                | Command::Inspect { .. }
                | Command::Export { .. }
        )
    }
}
