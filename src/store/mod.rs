//! Persistence: the append-only session log, atomic snapshots, the session lock, the
//! session listing and export. Layout and file formats are in [`paths`], [`log`] and
//! [`snapshot`].
//!
//! Strategy: the session actor talks to a [`SessionStore`] — [`FileStore`] on disk,
//! [`MemoryStore`] in tests — with small synchronous calls. Everything on disk is private
//! (directories 0700, files 0600), carries a format version (newer ones are refused, never
//! overwritten), and is written so a crash at any instant loses at most the line being
//! written: log lines are single appends, snapshots are renamed into place. Every write
//! error is returned as a [`StoreError`] naming the file; none is dropped.
//!
//! Typical use by the actor:
//! ```no_run
//! # use ollm_tui::store::{DataDir, FileStore, SessionStore};
//! # fn f(dir: &DataDir, record: &ollm_tui::core::record::Record) -> Result<(), ollm_tui::store::StoreError> {
//! let (mut store, loaded) = FileStore::open(dir, "0192f0c4-…")?;
//! if !loaded.report.is_clean() { /* tell the user: loaded.report */ }
//! store.append(record)?; // user message, before the request goes out
//! store.sync()?;         // at the turn boundary
//! # Ok(()) }
//! ```

pub mod attach;
mod checksum;
pub mod error;
pub mod export;
mod file_store;
pub(crate) mod fsutil;
pub mod images;
pub mod lock;
pub mod log;
pub mod manage;
mod memory;
pub mod paths;
pub mod search;
pub mod sessions;
pub mod snapshot;

pub use error::StoreError;
pub use file_store::FileStore;
pub use lock::SessionLock;
pub use log::{LoadReport, LoadedLog, SessionLog, SkippedLine, TornTail};
pub use memory::MemoryStore;
pub use paths::{DataDir, new_session_id};
pub use sessions::SessionSummary;
pub use snapshot::{DEFAULT_KEEP_AUTOMATIC, SnapshotStore, new_snapshot_id};

use crate::core::record::Record;
use crate::core::snapshot::{Snapshot, SnapshotMeta};
use std::path::PathBuf;

/// What the session actor needs from persistence. Calls are synchronous and small.
pub trait SessionStore: Send + 'static {
    /// Append one record (its seq must exceed the last one's).
    fn append(&mut self, record: &Record) -> Result<(), StoreError>;
    /// Make everything appended so far durable (call at turn boundaries).
    fn sync(&mut self) -> Result<(), StoreError>;
    /// Save a snapshot; an empty `meta.id` gets a fresh one. Returns the stored meta.
    fn save_snapshot(&mut self, snapshot: &Snapshot) -> Result<SnapshotMeta, StoreError>;
    /// Readable snapshots, newest first.
    fn list_snapshots(&self) -> Result<Vec<SnapshotMeta>, StoreError>;
    /// Readable snapshots, newest first, and the files that could not be read (a bad
    /// checksum, a torn write): for the picker, which must not hide them.
    fn scan_snapshots(&self) -> Result<snapshot::SnapshotListing, StoreError> {
        Ok(snapshot::SnapshotListing {
            snapshots: self.list_snapshots()?,
            unreadable: Vec::new(),
        })
    }
    fn load_snapshot(&self, id: &str) -> Result<Snapshot, StoreError>;
    fn delete_snapshot(&mut self, id: &str) -> Result<(), StoreError>;
    /// Keep the newest `keep` recovery snapshots, delete older ones; returns deleted ids.
    fn prune_automatic(&mut self, keep: usize) -> Result<Vec<String>, StoreError>;
    /// Write the session as Markdown (or JSON) under the data directory's `exports/`;
    /// returns the file written.
    fn export(&self, format: &export::Format) -> Result<PathBuf, StoreError>;
    /// Keep a tool result whole under `file` (a plain name) in the session's results.
    fn save_result(&mut self, file: &str, text: &str) -> Result<(), StoreError>;
    /// A tool result saved by `save_result`.
    fn load_result(&self, file: &str) -> Result<String, StoreError>;
    /// Keep an attached picture's bytes under its hash (before the record naming it).
    fn save_image(
        &mut self,
        image: &crate::core::image::ImageRef,
        bytes: &[u8],
    ) -> Result<(), StoreError>;
    /// A picture's bytes, checked against its hash.
    fn load_image(&self, image: &crate::core::image::ImageRef) -> Result<Vec<u8>, StoreError>;
    /// A new session holding this one up to message `at` (`/fork`); its id.
    fn fork(&mut self, at: u64) -> Result<String, StoreError> {
        let _ = at;
        Err(StoreError::Unsupported("forking"))
    }
    /// Whether a title the model writes is wanted, as far as the files beside the log
    /// say: this store keeps sessions on disk, and none was given with rename nor written
    /// by an earlier version (`<id>.autotitle`). A title the model wrote since is a
    /// record, which the engine knows (`Engine::title`).
    fn wants_title(&self) -> bool {
        false
    }
}

impl<S: SessionStore + ?Sized> SessionStore for Box<S> {
    fn append(&mut self, record: &Record) -> Result<(), StoreError> {
        (**self).append(record)
    }
    fn sync(&mut self) -> Result<(), StoreError> {
        (**self).sync()
    }
    fn save_snapshot(&mut self, snapshot: &Snapshot) -> Result<SnapshotMeta, StoreError> {
        (**self).save_snapshot(snapshot)
    }
    fn list_snapshots(&self) -> Result<Vec<SnapshotMeta>, StoreError> {
        (**self).list_snapshots()
    }
    fn load_snapshot(&self, id: &str) -> Result<Snapshot, StoreError> {
        (**self).load_snapshot(id)
    }
    fn delete_snapshot(&mut self, id: &str) -> Result<(), StoreError> {
        (**self).delete_snapshot(id)
    }
    fn prune_automatic(&mut self, keep: usize) -> Result<Vec<String>, StoreError> {
        (**self).prune_automatic(keep)
    }
    fn export(&self, format: &export::Format) -> Result<PathBuf, StoreError> {
        (**self).export(format)
    }
    fn save_result(&mut self, file: &str, text: &str) -> Result<(), StoreError> {
        (**self).save_result(file, text)
    }
    fn load_result(&self, file: &str) -> Result<String, StoreError> {
        (**self).load_result(file)
    }
    fn save_image(
        &mut self,
        image: &crate::core::image::ImageRef,
        bytes: &[u8],
    ) -> Result<(), StoreError> {
        (**self).save_image(image, bytes)
    }
    fn load_image(&self, image: &crate::core::image::ImageRef) -> Result<Vec<u8>, StoreError> {
        (**self).load_image(image)
    }
    fn fork(&mut self, at: u64) -> Result<String, StoreError> {
        (**self).fork(at)
    }
    fn wants_title(&self) -> bool {
        (**self).wants_title()
    }
}
