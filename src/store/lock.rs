//! One writer per session: an exclusive `flock` on `sessions/<id>.lock`.
//!
//! Strategy: open the lock file without truncating it, `try_lock` it, and only once the
//! lock is ours replace its content with our pid and start time. A refused acquirer reads
//! that content to name the holder in its error. The kernel drops the lock when the holder
//! exits or crashes, so a stale file never blocks anyone.
//!
//! The holder removes the file when it lets go (a clean exit leaves no `.lock` behind, nor
//! does a failed start: a full disk once left a 0-byte one): it unlinks the path while it
//! still holds the lock, then unlocks. An acquirer that opened the old file meanwhile gets
//! the lock on an unlinked file, so after locking it checks that the path still names the
//! file it locked, and starts over if not.
//!
//! Invariant: while a [`SessionLock`] lives, no other handle — in another process or in
//! this one (flock locks belong to the open file, not the process) — can acquire the same
//! session.

use crate::small_file;
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
        let file = loop {
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
            // The holder before us may have removed the file after we opened it: then the
            // lock we hold is on a file nobody else will open. Start over.
            if same_file(&file, &path) {
                break file;
            }
        };
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
        let lock = SessionLock {
            file,
            path,
            session_id: session_id.to_string(),
        };
        // On a full disk the pid cannot be written: the lock is given up, and dropping it
        // removes the file again.
        let mut file = &lock.file;
        file.set_len(0)
            .and_then(|()| file.write_all(&line))
            .map_err(|e| StoreError::io(&lock.path, "write pid to", e))?;
        Ok(lock)
    }

    /// The pid of the process that has the session open, if one has; changes nothing
    /// (a shared lock is tried and dropped at once, and a missing lock file stays
    /// missing), so listing sessions never disturbs them.
    pub fn holder(dir: &DataDir, session_id: &str) -> Option<u32> {
        validate_id("session", session_id).ok()?;
        let mut file = small_file::open(&dir.lock_path(session_id), Some(dir.root())).ok()?;
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
        // Remove the file while still holding the lock (an acquirer that opened it
        // meanwhile sees it is gone and starts over), clear our pid in case removing
        // failed, then unlock explicitly: closing our fd alone is not enough while a
        // process forked by another thread still shares the open file (until its exec).
        if same_file(&self.file, &self.path) {
            let _ = std::fs::remove_file(&self.path);
        }
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

/// Whether `path` still names the open `file` (same device and inode).
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// The holder's record, if it can be read (it may be empty for an instant while a new
/// holder writes it).
fn read_holder(file: &mut File) -> Option<Holder> {
    let mut text = String::new();
    file.take(small_file::ONE_LINE as u64)
        .read_to_string(&mut text)
        .ok()?;
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

    #[test]
    fn letting_go_removes_the_lock_file_and_a_racing_acquirer_starts_over() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path()).unwrap();
        let lock = SessionLock::acquire(&dir, "s1").unwrap();
        let path = lock.path().to_path_buf();
        assert!(path.exists());
        // Someone opened the old file before we let go: it locks an unlinked file.
        let stale = File::open(&path).unwrap();
        drop(lock);
        assert!(!path.exists(), "a clean exit leaves no .lock behind");
        assert!(!same_file(&stale, &path));
        let again = SessionLock::acquire(&dir, "s1").unwrap();
        assert!(same_file(&again.file, &path));
        assert_eq!(SessionLock::holder(&dir, "s1"), Some(std::process::id()));
    }
}
