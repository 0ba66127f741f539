//! What the actor tells the UI: a published [`SessionView`] (the latest state, for the
//! status line and panels) and a stream of [`Update`]s (transcript changes, notices).
//! Neither ever blocks the actor: the view is a `watch`, updates an unbounded channel.

use super::notice::Notice;
use crate::core::checkpoint::Checkpoint;
use crate::core::engine::EngineStatus;
use crate::core::events::EngineEvent;
use crate::core::goals::GoalBoard;
use crate::core::message::{MessageId, ReplyStatus};
use chrono::{DateTime, Utc};
use std::sync::Arc;
use std::time::Instant;

/// The server as far as the actor knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connection {
    Connecting,
    Connected {
        version: String,
    },
    Unreachable {
        url: String,
        error: String,
    },
    ModelMissing {
        model: String,
    },
    /// The server runs but has no model installed.
    NoModels,
}

/// What the actor is doing.
#[derive(Debug, Clone, PartialEq)]
pub enum Activity {
    Loading,
    Idle,
    Generating { since: Instant, chunks: u32 },
    Compressing { since: Instant, what: String },
}

/// The latest state, cheap to clone (`Arc`s inside are replaced only on change).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionView {
    pub session_id: String,
    pub host: String,
    pub status: EngineStatus,
    pub connection: Connection,
    pub activity: Activity,
    pub checkpoints: Arc<Vec<Checkpoint>>,
    pub goals: Arc<GoalBoard>,
    /// The session has a log on disk (it is created with the first message).
    pub persisted: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeLevel {
    Info,
    Warn,
    Error,
}

/// One line of the transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum ItemKind {
    User,
    Assistant {
        status: ReplyStatus,
    },
    Tool {
        name: String,
        is_error: bool,
    },
    /// Messages were folded into a checkpoint here.
    Fold {
        checkpoint: u32,
        messages: usize,
        tokens_before: u32,
        tokens_after: u32,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub id: Option<MessageId>,
    pub kind: ItemKind,
    pub text: String,
    pub ts: DateTime<Utc>,
    pub pinned: bool,
}

/// Something changed.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// Replace the whole transcript (start, resume, restore).
    Transcript(Vec<Item>),
    Appended(Item),
    /// A reply starts streaming.
    ReplyStart,
    Delta(String),
    /// The streamed reply ended; `id` is its message id when it was recorded.
    ReplyEnd {
        status: ReplyStatus,
        id: Option<MessageId>,
    },
    /// These messages are now covered by checkpoint `checkpoint` (folded live, merged, or
    /// already folded when the transcript was sent): the model sees its summary instead.
    Folded {
        checkpoint: u32,
        ids: Vec<MessageId>,
    },
    /// Checkpoints `checkpoints` (by number) were merged into checkpoint `into`.
    Merged {
        checkpoints: Vec<u32>,
        into: u32,
    },
    /// A message was pinned or unpinned.
    Pinned {
        id: MessageId,
        pinned: bool,
    },
    /// A line in the transcript: something happened.
    Notice(Notice),
    /// Something the person must see until it is dealt with (or the next success of the
    /// same kind takes it down).
    Banner(Notice),
    /// A banner's problem is gone (e.g. the server is reachable again).
    ClearBanner,
    /// The engine's own event, for the log and for panels that care.
    Engine(EngineEvent),
    /// The actor has stopped.
    Closed,
}
