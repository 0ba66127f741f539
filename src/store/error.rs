//! The one error type of the store. Every variant names the file or id involved and, where
//! there is one, what the user can do about it, because these messages reach the screen.

use chrono::{DateTime, Utc};
use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A system call failed. `op` says what we were doing ("append to", "fsync", …).
    #[error("cannot {op} {}: {source}", path.display())]
    Io {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: io::Error,
    },

    /// Another handle (usually another ollm-tui process) holds the session lock.
    #[error("{}", locked_message(session_id, *pid, *since, *ours))]
    Locked {
        session_id: String,
        /// Pid written by the holder, when it could be read.
        pid: Option<u32>,
        /// When the holder took the lock, when it could be read.
        since: Option<DateTime<Utc>>,
        /// True when the holder is this very process (the session is opened twice).
        ours: bool,
        lock_path: PathBuf,
    },

    /// The file was written by a newer build; it is left untouched.
    #[error(
        "{} uses format version {found}, but this ollm-tui reads up to version {supported}; \
         upgrade ollm-tui to open it (the file was left untouched)",
        path.display()
    )]
    UnsupportedVersion {
        path: PathBuf,
        found: u32,
        supported: u32,
    },

    /// The file is not one of ours at all; it is left untouched.
    #[error("{} is not an ollm-tui file ({detail}); it was left untouched", path.display())]
    NotOurFormat { path: PathBuf, detail: String },

    /// The file is ours but damaged beyond what loading can skip (e.g. a garbled header,
    /// a snapshot whose checksum does not match).
    #[error("{} is damaged: {detail}", path.display())]
    Corrupt { path: PathBuf, detail: String },

    #[error("no {what} {id:?} in {}", path.display())]
    NotFound {
        what: &'static str,
        id: String,
        path: PathBuf,
    },

    #[error("{what} {id:?} already exists at {}; refusing to overwrite it", path.display())]
    AlreadyExists {
        what: &'static str,
        id: String,
        path: PathBuf,
    },

    /// Records must arrive with strictly increasing seqs (message ids are seqs).
    #[error(
        "record seq {seq} is not greater than the last one ({last}) in {}; not written",
        path.display()
    )]
    SeqOrder { path: PathBuf, seq: u64, last: u64 },

    /// A session id prefix matched several sessions.
    #[error("{prefix:?} matches {} sessions ({}); type more of the id", matches.len(), matches.join(", "))]
    Ambiguous {
        prefix: String,
        matches: Vec<String>,
    },

    /// An id that cannot safely name a file (empty, a path separator, a leading dot, …).
    #[error("invalid {what} id {id:?}: {reason}")]
    InvalidId {
        what: &'static str,
        id: String,
        reason: &'static str,
    },

    /// The session has no file yet: it is created with the first message, so there is
    /// nothing to attach a snapshot to, list, or export.
    #[error("the session has no file yet (it is created with the first message)")]
    NoSessionFile,

    /// A search the store will not run: no text, or more text than a search is for.
    #[error("{0}")]
    BadSearch(String),

    /// This store cannot do that (an in-memory store has nothing to export).
    #[error("{0} is not supported by this store")]
    Unsupported(&'static str),

    /// Serialising one of our own values failed (should not happen; reported, not hidden).
    #[error("cannot encode {what}: {source}")]
    Encode {
        what: &'static str,
        #[source]
        source: serde_json::Error,
    },
}

impl StoreError {
    pub(crate) fn io(path: impl Into<PathBuf>, op: &'static str, source: io::Error) -> Self {
        StoreError::Io {
            path: path.into(),
            op,
            source,
        }
    }

    /// The underlying I/O error kind, if this is an I/O error (lets the UI say "disk full").
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            StoreError::Io { source, .. } => Some(source.kind()),
            _ => None,
        }
    }
}

fn locked_message(
    session_id: &str,
    pid: Option<u32>,
    since: Option<DateTime<Utc>>,
    ours: bool,
) -> String {
    let holder = match pid {
        Some(pid) => format!("pid {pid}"),
        None => "pid unknown".to_string(),
    };
    let since = since
        .map(|t| format!(", since {}", t.format("%Y-%m-%d %H:%M:%S UTC")))
        .unwrap_or_default();
    if ours {
        format!("session {session_id} is already open in this ollm-tui ({holder}{since})")
    } else {
        format!(
            "session {session_id} is open in another ollm-tui ({holder}{since}); \
             close that one first, or start a new session"
        )
    }
}
