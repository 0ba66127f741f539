//! The session's published state: what the status line and panels read. The actor
//! replaces it (a `watch`) whenever it changes; the `Arc`s inside are replaced only when
//! their content changes, so cloning a view is cheap.

use crate::core::checkpoint::Checkpoint;
use crate::core::engine::EngineStatus;
use crate::core::goals::GoalBoard;
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
    /// The session's model makes embeddings only: it cannot chat.
    NotChat {
        model: String,
    },
}

/// What the actor is doing.
#[derive(Debug, Clone, PartialEq)]
pub enum Activity {
    Loading,
    Idle,
    Generating {
        since: Instant,
        chunks: u32,
    },
    /// A thinking model reasons before it answers (its answer has not started).
    Thinking {
        since: Instant,
        chunks: u32,
    },
    Compressing {
        since: Instant,
        what: String,
    },
    /// A tool call runs ("run_command cargo test").
    Tool {
        since: Instant,
        what: String,
    },
    /// A tool call waits for the person's yes or no.
    Approval(Arc<ApprovalAsk>),
}

/// A call that asks before it runs: what it will do, exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalAsk {
    /// Names this question, so an answer meant for it cannot approve the next one.
    pub id: u64,
    pub tool: String,
    /// The command line, or the diff of the edit.
    pub preview: String,
    /// What "allow for this session" covers: a tool, or the programs a command runs.
    pub session_scope: SessionScope,
    /// The model wrote the call as text (it was recovered, not sent as a tool call).
    pub from_text: bool,
}

/// What "allow for this session" would allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionScope {
    Tool(String),
    /// Every program the command line runs (each, with any arguments).
    Programs(Vec<String>),
    /// Nothing: the command line cannot be read through (why), so it always asks.
    NotOffered(String),
}

/// Whether the model can call tools, for the status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolsState {
    /// Turned off (`--tools off`), or not set up.
    #[default]
    Off,
    /// On, but the model does not have the `tools` capability.
    Unsupported,
    /// Offered to the model: this many.
    On(usize),
}

/// A compression running between turns, while the person reads and types: sending is
/// not held up by it unless the request would not fit without it.
#[derive(Debug, Clone, PartialEq)]
pub struct BackgroundWork {
    pub since: Instant,
    /// What it does, with its progress ("fold 8 messages (1/2)").
    pub what: String,
}

/// The latest state, cheap to clone (`Arc`s inside are replaced only on change).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionView {
    pub session_id: String,
    pub host: String,
    pub status: EngineStatus,
    pub connection: Connection,
    pub activity: Activity,
    /// A compression under way in the background, if any.
    pub background: Option<BackgroundWork>,
    /// Records kept in memory because the session log could not be written (disk full).
    pub unwritten: usize,
    pub checkpoints: Arc<Vec<Checkpoint>>,
    pub goals: Arc<GoalBoard>,
    /// The session has a log on disk (it is created with the first message).
    pub persisted: bool,
    pub tools: ToolsState,
    /// Messages typed ahead while a reply or compression ran: sent in order when the
    /// turn ends (`Ask::TakeBackQueued` returns them to the input).
    pub queued: Vec<String>,
    /// The model sees pictures (`vision`): a message may carry the ones attached.
    pub sees_images: bool,
}
