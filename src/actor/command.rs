//! What the UI asks of the session actor.

use crate::core::checkpoint::Checkpoint;
use crate::core::engine::Request;
use crate::core::message::Message;
use crate::llm::ModelSummary;
use tokio::sync::oneshot;

/// A request to the actor. Replies, where there are any, come back on a oneshot; every
/// other outcome arrives as [`crate::view::Update`]s and in the published view.
#[derive(Debug)]
pub enum Command {
    /// What the person asks of the conversation, passed to the engine as it is (a message,
    /// retry, compress, the goal board, pins, ctx, mode, a snapshot).
    Request(Request),
    /// Stop the reply being generated, or the compression under way.
    Stop,
    /// Switch models: checked with the server first.
    SetModel {
        name: String,
    },
    ListSnapshots {
        reply: oneshot::Sender<Result<crate::store::snapshot::SnapshotListing, String>>,
    },
    /// Restore a snapshot by id or the start of one.
    Restore {
        id: String,
    },
    DeleteSnapshot {
        id: String,
    },
    ListModels {
        reply: oneshot::Sender<Result<Vec<ModelSummary>, String>>,
    },
    /// Checkpoint `number` (the newest when `None`) with the original messages it covers,
    /// for the inspector. A checkpoint merged away is found in the one it was merged into.
    Inspect {
        number: Option<u32>,
        reply: oneshot::Sender<Option<Inspection>>,
    },
    /// Ask the model a few questions about the person's folded facts (`/check`); the
    /// answer arrives when all are graded, or why not.
    Check {
        reply: oneshot::Sender<Result<super::CheckReport, String>>,
    },
    /// Every fact of the conversation and where it stands for the next request (`/facts`).
    ListFacts {
        reply: oneshot::Sender<Vec<crate::core::engine::FactRow>>,
    },
    /// Tool result `id`: what the model saw beside the whole result (`/inspect #N`).
    InspectResult {
        id: crate::core::message::MessageId,
        reply: oneshot::Sender<Result<ResultInspection, String>>,
    },
    /// Write the session to a file under the data directory (`/export`); the outcome
    /// arrives as a notice. Markdown carries the app's words for its sentences.
    Export {
        format: crate::store::export::Format,
    },
    /// Check the server again now.
    Reconnect,
    /// A model was installed (a pull ended): recall's embedding model is picked again.
    ModelsChanged,
    /// The person's answer to the tool call that asks ([`crate::view::Activity::Approval`]
    /// with this `id`).
    Approve {
        id: u64,
        answer: Approval,
    },
    /// Start a new session from this one's messages up to `at` (the last when `None`);
    /// answers the new session's id and the message it was made at (`/fork`).
    Fork {
        at: Option<crate::core::message::MessageId>,
        reply: oneshot::Sender<Result<Forked, String>>,
    },
    /// Return the messages typed ahead (not sent yet) and drop them from the queue.
    TakeBackQueued {
        reply: oneshot::Sender<Vec<String>>,
    },
    /// Finish what is under way, sync, and stop.
    Shutdown,
}

/// A fork just made (`Command::Fork`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forked {
    /// The new session's id.
    pub id: String,
    /// The last message of this session it holds.
    pub at: crate::core::message::MessageId,
}

/// An answer to a tool call that asks first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    Once,
    /// This tool (or, for a command, its first word) for the rest of the session.
    Session,
    Deny {
        reason: Option<String>,
    },
}

/// A tool result as the model saw it beside the whole of it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultInspection {
    pub id: crate::core::message::MessageId,
    pub tool: String,
    pub seen: String,
    pub original: String,
}

/// A checkpoint beside the messages it stands for.
#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    /// The number asked for; differs from `checkpoint.number` when it was merged.
    pub asked: Option<u32>,
    pub checkpoint: Checkpoint,
    pub originals: Vec<Message>,
}

impl From<Request> for Command {
    fn from(r: Request) -> Command {
        Command::Request(r)
    }
}
