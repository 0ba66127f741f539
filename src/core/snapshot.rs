//! Snapshots: the full state of a session at a moment, for recovery and rollback.
//!
//! A snapshot is self-contained: besides the [`ActiveState`] (which names messages by id)
//! it carries the text of every message in the active context, so it can be inspected or
//! restored even if the session log were damaged. Snapshots are never sent to the model.

use crate::core::message::Message;
use crate::core::mode::{Mode, Tier};
use crate::core::record::{ActiveState, SnapshotPurpose};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Summary figures stored with a snapshot, shown by the restore picker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotMeta {
    pub id: String,
    pub session_id: String,
    pub created: DateTime<Utc>,
    pub purpose: SnapshotPurpose,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub model: String,
    pub tier: Tier,
    pub mode: Mode,
    /// Tokens of the active context (calibrated), as the gauge showed them.
    pub tokens: u32,
    pub message_count: usize,
    pub checkpoint_count: usize,
}

/// A full snapshot as written to disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub format_version: u32,
    pub meta: SnapshotMeta,
    pub state: ActiveState,
    /// The messages named by `state.messages`, with their text, in the same order.
    pub messages: Vec<Message>,
}
