//! Why a snapshot was taken: [`SnapshotPurpose`]. A word of its own, below both the log's
//! records (a snapshot record names it) and the engine's events (a snapshot saved or
//! failed says it), so neither of those files needs the other for it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SnapshotPurpose {
    /// Taken automatically before each compression.
    Recovery,
    /// Taken by the user (Ctrl+S, /snapshot).
    Rollback,
    /// Taken before an emergency rollover.
    Emergency,
}

impl SnapshotPurpose {
    pub fn as_str(self) -> &'static str {
        match self {
            SnapshotPurpose::Recovery => "recovery",
            SnapshotPurpose::Rollback => "rollback",
            SnapshotPurpose::Emergency => "emergency",
        }
    }
}
