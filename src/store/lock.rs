//! One writer per session: an exclusive `flock` on `sessions/<id>.lock`.
//!
//! Strategy: open the lock file without truncating it, `try_lock` it, and only once the
//! lock is ours replace its content with our pid and start time. A refused acquirer reads
//! that content to name the holder in its error. The kernel drops the lock when the holder
//! exits or crashes, so a stale file never blocks anyone; the file itself is never deleted
//! (unlinking a lock file races with a concurrent acquirer).
//!
//! Invariant: while a [`SessionLock`] lives, no other handle — in another process or in
//! this one (flock locks belong to the open file, not the process) — can acquire the same
//! session.

use crate::store::error::StoreError;
use crate::store::fsutil::open_private;
use crate::store::paths::{DataDir, validate_id};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Holds a session's lock until dropped.
#[derive(Debug)]
pub struct SessionLock {
    file: File,
    path: PathBuf,
    session_id: String,
}

/// What the holder writes into the lock file.
#[derive(Debug, Serialize, Deserialize)]
struct Holder {
    pid: u32,
    since: DateTime<Utc>,
    #[serde(default)]
    app: String,
}

impl SessionLock {
    /// Take the session's lock, or fail with [`StoreError::Locked`] naming the holder.
    pub fn acquire(dir: &DataDir, session_id: &str) -> Result<SessionLock, StoreError> {
        validate_id("session", session_id)?;
        let path = dir.lock_path(session_id);
        let mut file = open_private(
            &path,
            OpenOptions::new().read(true).write(true).create(true),
            "open lock file",
        )?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let holder = read_holder(&mut file);
                let pid = holder.as_ref().map(|h| h.pid);
                return Err(StoreError::Locked {
                    session_id: session_id.to_string(),
                    pid,
                    since: holder.map(|h| h.since),
                    ours: pid == Some(std::process::id()),
                    lock_path: path,
                });
            }
            Err(TryLockError::Error(e)) => return Err(StoreError::io(&path, "lock", e)),
        }
        let me = Holder {
            pid: std::process::id(),
            since: Utc::now(),
            app: format!("ollm-tui {}", env!("CARGO_PKG_VERSION")),
        };
        let mut line = serde_json::to_vec(&me).map_err(|source| StoreError::Encode {
            what: "lock holder",
            source,
        })?;
        line.push(b'\n');
        file.set_len(0)
            .and_then(|()| file.write_all(&line))
            .map_err(|e| StoreError::io(&path, "write pid to", e))?;
        Ok(SessionLock {
            file,
            path,
            session_id: session_id.to_string(),
        })
    }

    /// The pid of the process that has the session open, if one has; changes nothing
    /// (a shared lock is tried and dropped at once, and a missing lock file stays
    /// missing), so listing sessions never disturbs them.
    pub fn holder(dir: &DataDir, session_id: &str) -> Option<u32> {
        validate_id("session", session_id).ok()?;
        let mut file = File::open(dir.lock_path(session_id)).ok()?;
        match file.try_lock_shared() {
            Ok(()) => {
                let _ = file.unlock();
                None
            }
            Err(TryLockError::WouldBlock) => Some(read_holder(&mut file).map_or(0, |h| h.pid)),
            Err(TryLockError::Error(_)) => None,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }
}

impl Drop for SessionLock {
    fn drop(&mut self) {
        // Clear our pid so nobody reads a stale one, then unlock explicitly: closing our
        // fd alone is not enough while a process forked by another thread still shares
        // the open file (until its exec), and the session would stay locked meanwhile.
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

/// The holder's record, if it can be read (it may be empty for an instant while a new
/// holder writes it).
fn read_holder(file: &mut File) -> Option<Holder> {
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    serde_json::from_str(text.trim()).ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn second_acquire_in_this_process_is_refused_and_names_us() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path()).unwrap();
        let first = SessionLock::acquire(&dir, "s1").unwrap();
        match SessionLock::acquire(&dir, "s1") {
            Err(err @ StoreError::Locked { .. }) => {
                let msg = err.to_string();
                let StoreError::Locked { pid, ours, .. } = err else {
                    unreachable!()
                };
                assert_eq!(pid, Some(std::process::id()));
                assert!(ours);
                assert!(
                    msg.contains(&format!("pid {}", std::process::id())),
                    "{msg}"
                );
                assert!(msg.contains("s1"), "{msg}");
            }
            other => panic!("expected Locked, got {other:?}"),
        }
        assert_eq!(SessionLock::holder(&dir, "s1"), Some(std::process::id()));
        assert_eq!(SessionLock::holder(&dir, "never-opened"), None);
        // Other sessions are independent.
        let _other = SessionLock::acquire(&dir, "s2").unwrap();
        drop(first);
        assert_eq!(SessionLock::holder(&dir, "s1"), None);
        SessionLock::acquire(&dir, "s1").unwrap();
    }
}
