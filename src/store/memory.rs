//! An in-memory [`SessionStore`] for actor and engine tests: same rules as the file store
//! (strictly increasing seqs, snapshot ids, newest-first listing, pruning only recovery
//! snapshots), no disk. Clones share state, so a test keeps one handle to look inside and
//! to inject failures while the actor owns another.

use crate::core::record::{Header, Record, SnapshotPurpose};
use crate::core::snapshot::{Snapshot, SnapshotMeta};
use crate::store::SessionStore;
use crate::store::error::StoreError;
use crate::store::log::{LoadReport, LoadedLog};
use crate::store::paths::validate_id;
use crate::store::snapshot::{new_snapshot_id, sort_newest_first};
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

const MEMORY_PATH: &str = "<memory>";

#[derive(Debug, Clone)]
pub struct MemoryStore {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Debug)]
struct Inner {
    header: Header,
    records: Vec<Record>,
    /// How many records the last `sync` covered.
    synced: usize,
    syncs: usize,
    snapshots: Vec<Snapshot>,
    fail_next: bool,
    fail_all: bool,
    results: std::collections::BTreeMap<String, String>,
    /// Attached pictures by hash.
    images: std::collections::BTreeMap<String, Vec<u8>>,
}

impl MemoryStore {
    pub fn new(header: Header) -> MemoryStore {
        Self::with_records(header, Vec::new())
    }

    /// A store that already holds `records` (as if resumed); they count as synced.
    pub fn with_records(header: Header, records: Vec<Record>) -> MemoryStore {
        let synced = records.len();
        MemoryStore {
            inner: Arc::new(Mutex::new(Inner {
                header,
                records,
                synced,
                syncs: 0,
                snapshots: Vec::new(),
                fail_next: false,
                fail_all: false,
                results: std::collections::BTreeMap::new(),
                images: std::collections::BTreeMap::new(),
            })),
        }
    }

    /// The next mutating call (append, sync, save, delete, prune) fails like a full disk.
    pub fn fail_next_write(&self) {
        self.inner().fail_next = true;
    }

    /// Every mutating call fails like a full disk until switched off.
    pub fn fail_all_writes(&self, on: bool) {
        self.inner().fail_all = on;
    }

    pub fn header(&self) -> Header {
        self.inner().header.clone()
    }

    pub fn records(&self) -> Vec<Record> {
        self.inner().records.clone()
    }

    /// Records that a crash would not lose (those covered by the last `sync`).
    pub fn synced_records(&self) -> usize {
        self.inner().synced
    }

    pub fn sync_count(&self) -> usize {
        self.inner().syncs
    }

    pub fn snapshots(&self) -> Vec<Snapshot> {
        self.inner().snapshots.clone()
    }

    /// What loading this session from disk would return.
    pub fn loaded(&self) -> LoadedLog {
        let inner = self.inner();
        LoadedLog {
            header: inner.header.clone(),
            records: inner.records.clone(),
            report: LoadReport::default(),
        }
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        // A panic in another test thread must not hide this store's state.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Inner {
    fn check_write(&mut self, op: &'static str) -> Result<(), StoreError> {
        if self.fail_all || std::mem::take(&mut self.fail_next) {
            return Err(StoreError::io(
                MEMORY_PATH,
                op,
                io::Error::new(io::ErrorKind::StorageFull, "injected failure: disk full"),
            ));
        }
        Ok(())
    }

    fn not_found(id: &str) -> StoreError {
        StoreError::NotFound {
            what: "snapshot",
            id: id.to_string(),
            path: PathBuf::from(MEMORY_PATH),
        }
    }
}

impl SessionStore for MemoryStore {
    fn append(&mut self, record: &Record) -> Result<(), StoreError> {
        let mut inner = self.inner();
        let last = inner.records.last().map_or(0, |r| r.seq);
        if record.seq <= last {
            return Err(StoreError::SeqOrder {
                path: PathBuf::from(MEMORY_PATH),
                seq: record.seq,
                last,
            });
        }
        inner.check_write("append to")?;
        inner.records.push(record.clone());
        Ok(())
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        let mut inner = self.inner();
        inner.check_write("fsync")?;
        inner.synced = inner.records.len();
        inner.syncs += 1;
        Ok(())
    }

    fn save_snapshot(&mut self, snapshot: &Snapshot) -> Result<SnapshotMeta, StoreError> {
        let mut inner = self.inner();
        inner.check_write("save snapshot in")?;
        let mut snapshot = snapshot.clone();
        let meta = &mut snapshot.meta;
        if meta.session_id.is_empty() {
            meta.session_id = inner.header.session_id.clone();
        }
        if meta.id.is_empty() {
            meta.id = loop {
                let id = new_snapshot_id(meta.created);
                if !inner.snapshots.iter().any(|s| s.meta.id == id) {
                    break id;
                }
            };
        } else {
            validate_id("snapshot", &meta.id)?;
            if inner.snapshots.iter().any(|s| s.meta.id == meta.id) {
                return Err(StoreError::AlreadyExists {
                    what: "snapshot",
                    id: meta.id.clone(),
                    path: PathBuf::from(MEMORY_PATH),
                });
            }
        }
        let meta = snapshot.meta.clone();
        inner.snapshots.push(snapshot);
        Ok(meta)
    }

    fn list_snapshots(&self) -> Result<Vec<SnapshotMeta>, StoreError> {
        let mut metas: Vec<SnapshotMeta> = self
            .inner()
            .snapshots
            .iter()
            .map(|s| s.meta.clone())
            .collect();
        sort_newest_first(&mut metas);
        Ok(metas)
    }

    fn load_snapshot(&self, id: &str) -> Result<Snapshot, StoreError> {
        self.inner()
            .snapshots
            .iter()
            .find(|s| s.meta.id == id)
            .cloned()
            .ok_or_else(|| Inner::not_found(id))
    }

    fn delete_snapshot(&mut self, id: &str) -> Result<(), StoreError> {
        let mut inner = self.inner();
        inner.check_write("delete snapshot from")?;
        let before = inner.snapshots.len();
        inner.snapshots.retain(|s| s.meta.id != id);
        if inner.snapshots.len() == before {
            return Err(Inner::not_found(id));
        }
        Ok(())
    }

    fn prune_automatic(&mut self, keep: usize) -> Result<Vec<String>, StoreError> {
        let doomed: Vec<String> = self
            .list_snapshots()?
            .into_iter()
            .filter(|m| m.purpose == SnapshotPurpose::Recovery)
            .skip(keep)
            .map(|m| m.id)
            .collect();
        let mut inner = self.inner();
        if !doomed.is_empty() {
            inner.check_write("prune snapshots in")?;
        }
        inner.snapshots.retain(|s| !doomed.contains(&s.meta.id));
        Ok(doomed)
    }

    fn export(
        &self,
        _format: &crate::store::export::Format,
    ) -> Result<std::path::PathBuf, StoreError> {
        Err(StoreError::Unsupported("export"))
    }

    fn save_result(&mut self, file: &str, text: &str) -> Result<(), StoreError> {
        let mut inner = self.inner();
        inner.check_write("save a tool result in")?;
        inner.results.insert(file.to_string(), text.to_string());
        Ok(())
    }

    fn save_image(
        &mut self,
        image: &crate::core::image::ImageRef,
        bytes: &[u8],
    ) -> Result<(), StoreError> {
        let mut inner = self.inner();
        inner.check_write("save an image in")?;
        inner.images.insert(image.hash.clone(), bytes.to_vec());
        Ok(())
    }

    fn load_image(&self, image: &crate::core::image::ImageRef) -> Result<Vec<u8>, StoreError> {
        self.inner()
            .images
            .get(&image.hash)
            .cloned()
            .ok_or_else(|| StoreError::NotFound {
                what: "image",
                id: image.name.clone(),
                path: PathBuf::from(MEMORY_PATH),
            })
    }

    fn load_result(&self, file: &str) -> Result<String, StoreError> {
        self.inner()
            .results
            .get(file)
            .cloned()
            .ok_or_else(|| StoreError::NotFound {
                what: "saved tool result",
                id: file.to_string(),
                path: PathBuf::from(MEMORY_PATH),
            })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::record::{FORMAT_VERSION, LOG_FORMAT, RecordBody};
    use chrono::{TimeZone, Utc};

    fn record(seq: u64) -> Record {
        Record {
            seq,
            ts: Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap(),
            body: RecordBody::User {
                text: format!("m{seq}"),
                pinned: false,
                tokens: None,
                images: Vec::new(),
            },
        }
    }

    #[test]
    fn a_resumed_store_continues_after_its_last_seq() {
        let header = Header {
            format: LOG_FORMAT.into(),
            format_version: FORMAT_VERSION,
            session_id: "s".into(),
            app_version: "t".into(),
            model: "m".into(),
            created: Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap(),
            ctx: None,
            mode: Default::default(),
            fork_of: None,
            params: Default::default(),
        };
        let mut store = MemoryStore::with_records(header, vec![record(1), record(4)]);
        assert_eq!(store.synced_records(), 2);
        assert!(matches!(
            store.append(&record(4)),
            Err(StoreError::SeqOrder {
                seq: 4,
                last: 4,
                ..
            })
        ));
        store.append(&record(5)).unwrap();
        assert_eq!(store.loaded().records.len(), 3);
        assert_eq!(store.synced_records(), 2, "not durable until synced");
    }
}
