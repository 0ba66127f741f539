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
}

/// What the actor is doing.
#[derive(Debug, Clone, PartialEq)]
pub enum Activity {
    Loading,
    Idle,
    Generating { since: Instant, chunks: u32 },
    Compressing { since: Instant, what: String },
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
}
