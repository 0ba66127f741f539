//! The real store: a session's log, its snapshots and its lock, held together.
//!
//! Invariant: the lock is taken before the log is created or opened (opening may repair a
//! torn tail, and stray snapshot temp files are removed) and released last, after the log
//! file is closed — fields drop in declaration order.

use crate::core::record::{Header, Record};
use crate::core::snapshot::{Snapshot, SnapshotMeta};
use crate::store::SessionStore;
use crate::store::error::StoreError;
use crate::store::fsutil;
use crate::store::lock::SessionLock;
use crate::store::log::{LoadedLog, SessionLog};
use crate::store::paths::DataDir;
use crate::store::snapshot::SnapshotStore;
use std::path::PathBuf;

#[derive(Debug)]
pub struct FileStore {
    /// Where exports are written.
    dir: DataDir,
    log: SessionLog,
    snapshots: SnapshotStore,
    lock: SessionLock,
}

impl FileStore {
    /// Start a new session: lock it, then write the log's header.
    pub fn create(dir: &DataDir, header: Header) -> Result<FileStore, StoreError> {
        let lock = SessionLock::acquire(dir, &header.session_id)?;
        let snapshots = SnapshotStore::new(dir, &header.session_id)?;
        let log = SessionLog::create(dir, header)?;
        Ok(FileStore {
            dir: dir.clone(),
            log,
            snapshots,
            lock,
        })
    }

    /// Resume a session: lock it, load (and repair) its log, clear stray temp files.
    pub fn open(dir: &DataDir, session_id: &str) -> Result<(FileStore, LoadedLog), StoreError> {
        let lock = SessionLock::acquire(dir, session_id)?;
        let (log, loaded) = SessionLog::open(dir, session_id)?;
        let snapshots = SnapshotStore::new(dir, session_id)?;
        let removed = snapshots.remove_stale_temp_files()?;
        if removed > 0 {
            tracing::info!(
                session_id,
                removed,
                "removed temp files of interrupted snapshot saves"
            );
        }
        Ok((
            FileStore {
                dir: dir.clone(),
                log,
                snapshots,
                lock,
            },
            loaded,
        ))
    }

    pub fn session_id(&self) -> &str {
        self.lock.session_id()
    }

    pub fn log(&self) -> &SessionLog {
        &self.log
    }

    pub fn snapshots(&self) -> &SnapshotStore {
        &self.snapshots
    }
}

impl SessionStore for FileStore {
    fn append(&mut self, record: &Record) -> Result<(), StoreError> {
        self.log.append(record)
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        self.log.sync()
    }

    fn save_snapshot(&mut self, snapshot: &Snapshot) -> Result<SnapshotMeta, StoreError> {
        self.snapshots.save(snapshot)
    }

    fn list_snapshots(&self) -> Result<Vec<SnapshotMeta>, StoreError> {
        self.snapshots.list()
    }

    fn scan_snapshots(&self) -> Result<crate::store::snapshot::SnapshotListing, StoreError> {
        self.snapshots.scan()
    }

    fn load_snapshot(&self, id: &str) -> Result<Snapshot, StoreError> {
        self.snapshots.load(id)
    }

    fn delete_snapshot(&mut self, id: &str) -> Result<(), StoreError> {
        self.snapshots.delete(id)
    }

    fn prune_automatic(&mut self, keep: usize) -> Result<Vec<String>, StoreError> {
        self.snapshots.prune_automatic(keep)
    }

    fn export(&self, format: &crate::store::export::Format) -> Result<PathBuf, StoreError> {
        crate::store::export::write_export(&self.dir, self.session_id(), format)
    }

    /// Written, then synced with its directory: the log record naming it follows.
    fn save_result(&mut self, file: &str, text: &str) -> Result<(), StoreError> {
        use std::io::Write;
        let path = self.result_path(file)?;
        let dir = self.dir.results_dir(self.session_id());
        fsutil::ensure_private_dir(&dir)?;
        let mut f = fsutil::open_private(
            &path,
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true),
            "write",
        )?;
        f.write_all(text.as_bytes())
            .and_then(|()| f.sync_data())
            .map_err(|e| StoreError::io(&path, "write", e))?;
        fsutil::sync_dir(&dir)
    }

    fn load_result(&self, file: &str) -> Result<String, StoreError> {
        let path = self.result_path(file)?;
        crate::small_file::read_whole(&path, path.parent())
            .and_then(|b| {
                String::from_utf8(b)
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
            })
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => StoreError::NotFound {
                    what: "saved tool result",
                    id: file.to_string(),
                    path: path.clone(),
                },
                _ => StoreError::io(&path, "read", e),
            })
    }

    fn wants_title(&self) -> bool {
        crate::store::manage::wants_title(&self.dir, self.log.session_id())
    }

    fn save_image(
        &mut self,
        image: &crate::core::image::ImageRef,
        bytes: &[u8],
    ) -> Result<(), StoreError> {
        crate::store::images::save(&self.dir, self.session_id(), image, bytes)
    }

    fn load_image(&self, image: &crate::core::image::ImageRef) -> Result<Vec<u8>, StoreError> {
        crate::store::images::load(&self.dir, self.session_id(), image)
    }

    /// Everything appended is made durable first: the fork reads the log from disk.
    fn fork(&mut self, at: u64) -> Result<String, StoreError> {
        self.log.sync()?;
        crate::store::manage::fork(&self.dir, self.log.session_id(), at)
    }
}

impl FileStore {
    /// A saved result's path; a name that is not a plain file name is refused.
    fn result_path(&self, file: &str) -> Result<PathBuf, StoreError> {
        crate::store::paths::validate_id("tool result", file)?;
        Ok(self.dir.results_dir(self.session_id()).join(file))
    }
}
