//! Where everything lives under the data directory (`~/.ollm` or `$OLLM_HOME`):
//!
//! ```text
//! <root>/sessions/<id>.jsonl           session log (append-only)
//! <root>/sessions/<id>.jsonl.corrupt   torn tails set aside on load
//! <root>/sessions/<id>.lock            holder's pid; flock'ed while the session is open
//! <root>/sessions/last-used            the id of the session the person last used
//! <root>/snapshots/<id>/<snap>.json    snapshots
//! <root>/config.toml  <root>/themes/  <root>/logs/
//! ```
//!
//! Invariant: ids are checked with [`validate_id`] before they become part of a path, so a
//! session or snapshot id can never point outside its directory.

use crate::store::error::StoreError;
use crate::store::fsutil::ensure_private_dir;
use std::path::{Path, PathBuf};

pub(crate) const LOG_EXT: &str = "jsonl";
const MAX_ID_LEN: usize = 128;

/// The data directory, created (0700) when constructed. Cheap to clone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataDir {
    root: PathBuf,
}

impl DataDir {
    /// Create the root and the `sessions`, `snapshots` and `logs` directories (0700), or
    /// tighten them if they exist with group/other access — the root included, so it must
    /// be a directory of its own (`~/.ollm`), never the home directory itself. The root
    /// comes from the caller (config resolves `OLLM_HOME` / the home directory).
    pub fn new(root: impl Into<PathBuf>) -> Result<DataDir, StoreError> {
        let dir = DataDir { root: root.into() };
        ensure_private_dir(&dir.root)?;
        ensure_private_dir(&dir.sessions_dir())?;
        ensure_private_dir(&dir.snapshots_root())?;
        ensure_private_dir(&dir.logs_dir())?;
        Ok(dir)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.root.join("sessions")
    }

    /// `sessions/<id>.jsonl`. `session_id` must have passed [`validate_id`].
    pub fn session_log_path(&self, session_id: &str) -> PathBuf {
        self.sessions_dir().join(format!("{session_id}.{LOG_EXT}"))
    }

    /// Where torn tails of a session log are set aside.
    pub fn corrupt_path(&self, session_id: &str) -> PathBuf {
        self.sessions_dir()
            .join(format!("{session_id}.{LOG_EXT}.corrupt"))
    }

    /// `sessions/<id>.title`: the title given with rename (absent: the first message).
    pub fn title_path(&self, session_id: &str) -> PathBuf {
        self.sessions_dir().join(format!("{session_id}.title"))
    }

    /// `sessions/last-used`: the id of the session the person last used (`--resume`
    /// with no id opens it).
    pub fn last_used_path(&self) -> PathBuf {
        self.sessions_dir().join("last-used")
    }

    /// `trash/`: deleted sessions, each in a folder of its own, until the person empties it.
    pub fn trash_dir(&self) -> PathBuf {
        self.root.join("trash")
    }

    /// `exports/`: what `/export` and `ollm-tui export -o` wrote there.
    pub fn exports_dir(&self) -> PathBuf {
        self.root.join("exports")
    }

    pub fn lock_path(&self, session_id: &str) -> PathBuf {
        self.sessions_dir().join(format!("{session_id}.lock"))
    }

    pub fn snapshots_root(&self) -> PathBuf {
        self.root.join("snapshots")
    }

    /// `snapshots/<session-id>/` (created on the first save).
    pub fn snapshots_dir(&self, session_id: &str) -> PathBuf {
        self.snapshots_root().join(session_id)
    }

    /// `results/<session-id>/`: tool results kept whole (created on the first save).
    pub fn results_dir(&self, session_id: &str) -> PathBuf {
        self.root.join("results").join(session_id)
    }

    /// `images/<session-id>/`: the pictures attached to its messages, one file per
    /// content hash (created on the first attach).
    pub fn images_dir(&self, session_id: &str) -> PathBuf {
        self.root.join("images").join(session_id)
    }

    pub fn config_path(&self) -> PathBuf {
        self.root.join("config.toml")
    }

    /// User theme overrides; not created here (it only matters when the user adds one).
    pub fn themes_dir(&self) -> PathBuf {
        self.root.join("themes")
    }

    pub fn logs_dir(&self) -> PathBuf {
        self.root.join("logs")
    }
}

/// A fresh session id: a UUID v7, so ids sort by creation time and a short prefix is
/// usually unique.
pub fn new_session_id() -> String {
    uuid::Uuid::now_v7().hyphenated().to_string()
}

/// Check that `id` can name a file: 1–128 ASCII letters, digits, `-`, `_` or `.`, not
/// starting with `.` (no hidden files, no `..`).
pub fn validate_id(what: &'static str, id: &str) -> Result<(), StoreError> {
    let reason = if id.is_empty() {
        Some("it is empty")
    } else if id.len() > MAX_ID_LEN {
        Some("it is longer than 128 characters")
    } else if id.starts_with('.') {
        Some("it starts with a dot")
    } else if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        Some("only letters, digits, '-', '_' and '.' are allowed")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(StoreError::InvalidId {
            what,
            id: id.to_string(),
            reason,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_could_escape_or_hide_are_refused() {
        for bad in ["", ".", "..", "../x", "a/b", ".hidden", "a b", "é", "a\0b"] {
            assert!(validate_id("session", bad).is_err(), "{bad:?} accepted");
        }
        assert!(validate_id("session", &"x".repeat(129)).is_err());
        for good in [
            "0192f0c4-1a2b-7c3d-8e4f-000000000000",
            "20261122-153012-3f9a",
            "a.b_c",
        ] {
            validate_id("session", good).unwrap();
        }
    }

    #[test]
    fn new_session_ids_are_valid_and_time_ordered() {
        let a = new_session_id();
        let b = new_session_id();
        validate_id("session", &a).unwrap();
        assert!(a < b, "{a} !< {b}");
    }

    #[test]
    fn layout_matches_the_documented_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path().join("home")).unwrap();
        let root = tmp.path().join("home");
        assert_eq!(dir.session_log_path("s1"), root.join("sessions/s1.jsonl"));
        assert_eq!(
            dir.corrupt_path("s1"),
            root.join("sessions/s1.jsonl.corrupt")
        );
        assert_eq!(dir.lock_path("s1"), root.join("sessions/s1.lock"));
        assert_eq!(dir.snapshots_dir("s1"), root.join("snapshots/s1"));
        assert_eq!(dir.config_path(), root.join("config.toml"));
        assert_eq!(dir.themes_dir(), root.join("themes"));
        assert!(dir.sessions_dir().is_dir());
        assert!(dir.snapshots_root().is_dir());
        assert!(dir.logs_dir().is_dir());
    }
}
