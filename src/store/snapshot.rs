//! Snapshots on disk: `snapshots/<session-id>/<snapshot-id>.json`, one file each.
//!
//! Strategy: a snapshot is written whole to a hidden temp file in the same directory,
//! fsynced, renamed over its final name and the directory fsynced, so at every instant the
//! final name either does not exist or holds a complete file; a crash leaves at most a
//! stray `.<id>.json.tmp-*`, which listing ignores and [`SnapshotStore::remove_stale_temp_files`]
//! clears. The file is one pretty-printed JSON object: the [`Snapshot`] fields plus
//! `"format": "ollm-snapshot"` and a `"checksum"` over the canonical JSON of everything
//! else (see `checksum`), verified on every load; a mismatch is reported as corrupt.
//!
//! Invariants: snapshots never change after they are written (an existing id is never
//! overwritten); only purpose `recovery` snapshots are ever deleted automatically; one
//! unreadable file never makes listing fail, it is reported next to the good ones.

use crate::core::record::{FORMAT_VERSION, SnapshotPurpose};
use crate::core::snapshot::{Snapshot, SnapshotMeta};
use crate::store::checksum::checksum_of_object;
use crate::store::error::StoreError;
use crate::store::fsutil::{ensure_private_dir, open_private, sync_dir};
use crate::store::paths::{DataDir, validate_id};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Written in every snapshot file, so a stray JSON file is not mistaken for one.
pub const SNAPSHOT_FORMAT: &str = "ollm-snapshot";
/// How many automatic (recovery) snapshots to keep by default.
pub const DEFAULT_KEEP_AUTOMATIC: usize = 5;
const EXT: &str = ".json";
const TEMP_MARK: &str = ".tmp-";

/// The snapshots of one session.
#[derive(Debug, Clone)]
pub struct SnapshotStore {
    dir: PathBuf,
    session_id: String,
}

/// Everything in a session's snapshot directory: the good snapshots, newest first, and
/// the files that could not be read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SnapshotListing {
    pub snapshots: Vec<SnapshotMeta>,
    pub unreadable: Vec<UnreadableSnapshot>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadableSnapshot {
    pub path: PathBuf,
    /// Why, as a sentence for the user.
    pub reason: String,
}

/// A readable, time-ordered snapshot id: `20261122-153012-3f9a` (UTC, plus 16 random bits
/// so two snapshots in the same second do not collide).
pub fn new_snapshot_id(now: DateTime<Utc>) -> String {
    let uuid = uuid::Uuid::now_v7();
    let b = uuid.as_bytes();
    format!("{}-{:02x}{:02x}", now.format("%Y%m%d-%H%M%S"), b[14], b[15])
}

/// Newest first; ids break ties (they are time-ordered too).
pub(crate) fn sort_newest_first(metas: &mut [SnapshotMeta]) {
    metas.sort_by(|a, b| b.created.cmp(&a.created).then_with(|| b.id.cmp(&a.id)));
}

/// Points in an atomic write where a test can simulate a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    TempCreated,
    Written,
    Synced,
    Renamed,
}

impl SnapshotStore {
    /// The store for `session_id`; its directory is created on the first save.
    pub fn new(dir: &DataDir, session_id: &str) -> Result<SnapshotStore, StoreError> {
        validate_id("session", session_id)?;
        Ok(SnapshotStore {
            dir: dir.snapshots_dir(session_id),
            session_id: session_id.to_string(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Write a snapshot atomically and return its meta. An empty `meta.id` gets a fresh
    /// [`new_snapshot_id`]; an empty `meta.session_id` gets this store's.
    pub fn save(&self, snapshot: &Snapshot) -> Result<SnapshotMeta, StoreError> {
        self.save_with(snapshot, &mut |_| ControlFlow::Continue(()))
    }

    pub(crate) fn save_with(
        &self,
        snapshot: &Snapshot,
        hook: &mut dyn FnMut(Step) -> ControlFlow<()>,
    ) -> Result<SnapshotMeta, StoreError> {
        let mut meta = snapshot.meta.clone();
        if meta.session_id.is_empty() {
            meta.session_id = self.session_id.clone();
        } else if meta.session_id != self.session_id {
            return Err(StoreError::InvalidId {
                what: "snapshot session",
                id: meta.session_id,
                reason: "the snapshot belongs to another session than this store",
            });
        }
        ensure_private_dir(&self.dir)?;
        if meta.id.is_empty() {
            meta.id = loop {
                let id = new_snapshot_id(meta.created);
                if !self.path_of(&id).exists() {
                    break id;
                }
            };
        } else {
            validate_id("snapshot", &meta.id)?;
            let path = self.path_of(&meta.id);
            if path.exists() {
                return Err(StoreError::AlreadyExists {
                    what: "snapshot",
                    id: meta.id,
                    path,
                });
            }
        }
        let bytes = encode(snapshot, &meta)?;
        write_atomic(&self.dir, &format!("{}{EXT}", meta.id), &bytes, hook)?;
        Ok(meta)
    }

    /// The good snapshots, newest first. Unreadable files are skipped and logged; use
    /// [`SnapshotStore::scan`] to show them to the user.
    pub fn list(&self) -> Result<Vec<SnapshotMeta>, StoreError> {
        let listing = self.scan()?;
        for bad in &listing.unreadable {
            tracing::warn!(path = %bad.path.display(), reason = %bad.reason, "unreadable snapshot skipped");
        }
        Ok(listing.snapshots)
    }

    /// Read every snapshot file of the session (checksums verified).
    pub fn scan(&self) -> Result<SnapshotListing, StoreError> {
        let mut listing = SnapshotListing::default();
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(listing),
            Err(e) => return Err(StoreError::io(&self.dir, "list", e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| StoreError::io(&self.dir, "list", e))?;
            let name = entry.file_name();
            let Some(id) = name.to_str().and_then(|n| n.strip_suffix(EXT)) else {
                continue;
            };
            if validate_id("snapshot", id).is_err() {
                continue; // temp files (leading dot) and names we never write
            }
            match self.load(id) {
                Ok(snapshot) => listing.snapshots.push(snapshot.meta),
                Err(e) => listing.unreadable.push(UnreadableSnapshot {
                    path: entry.path(),
                    reason: e.to_string(),
                }),
            }
        }
        sort_newest_first(&mut listing.snapshots);
        listing.unreadable.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(listing)
    }

    /// Read and verify one snapshot. Its `meta.id` is the file's name.
    pub fn load(&self, id: &str) -> Result<Snapshot, StoreError> {
        validate_id("snapshot", id)?;
        let path = self.path_of(id);
        let bytes = match crate::small_file::read_whole(&path, Some(&self.dir)) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(StoreError::NotFound {
                    what: "snapshot",
                    id: id.to_string(),
                    path: self.dir.clone(),
                });
            }
            Err(e) => return Err(StoreError::io(&path, "read", e)),
        };
        let mut snapshot = decode(&bytes, &path)?;
        snapshot.meta.id = id.to_string();
        Ok(snapshot)
    }

    /// Delete one snapshot (manual ones included: the user asked).
    pub fn delete(&self, id: &str) -> Result<(), StoreError> {
        validate_id("snapshot", id)?;
        let path = self.path_of(id);
        match fs::remove_file(&path) {
            Ok(()) => sync_dir(&self.dir),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(StoreError::NotFound {
                what: "snapshot",
                id: id.to_string(),
                path: self.dir.clone(),
            }),
            Err(e) => Err(StoreError::io(&path, "delete", e)),
        }
    }

    /// Delete all but the newest `keep` recovery snapshots; returns the deleted ids.
    /// Rollback and emergency snapshots, and unreadable files, are never touched.
    pub fn prune_automatic(&self, keep: usize) -> Result<Vec<String>, StoreError> {
        let listing = self.scan()?;
        let mut deleted = Vec::new();
        for meta in listing
            .snapshots
            .iter()
            .filter(|m| m.purpose == SnapshotPurpose::Recovery)
            .skip(keep)
        {
            self.delete(&meta.id)?;
            deleted.push(meta.id.clone());
        }
        Ok(deleted)
    }

    /// Remove temp files a crash left behind mid-save. Call only while holding the
    /// session lock (a live save may own one). Returns how many were removed.
    pub fn remove_stale_temp_files(&self) -> Result<usize, StoreError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(StoreError::io(&self.dir, "list", e)),
        };
        let mut removed = 0;
        for entry in entries {
            let entry = entry.map_err(|e| StoreError::io(&self.dir, "list", e))?;
            let name = entry.file_name();
            let is_temp = name
                .to_str()
                .is_some_and(|n| n.starts_with('.') && n.contains(TEMP_MARK));
            if is_temp {
                fs::remove_file(entry.path())
                    .map_err(|e| StoreError::io(entry.path(), "remove stale temp file", e))?;
                removed += 1;
            }
        }
        if removed > 0 {
            sync_dir(&self.dir)?;
        }
        Ok(removed)
    }

    fn path_of(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}{EXT}"))
    }
}

fn encode(snapshot: &Snapshot, meta: &SnapshotMeta) -> Result<Vec<u8>, StoreError> {
    let enc = |source| StoreError::Encode {
        what: "snapshot",
        source,
    };
    let Value::Object(fields) = serde_json::to_value(snapshot).map_err(enc)? else {
        unreachable!("a struct serialises to a JSON object")
    };
    let mut body = Map::new();
    body.insert("format".into(), Value::from(SNAPSHOT_FORMAT));
    body.insert("format_version".into(), Value::from(FORMAT_VERSION));
    body.insert("meta".into(), serde_json::to_value(meta).map_err(enc)?);
    for (k, v) in fields {
        body.entry(k).or_insert(v);
    }
    let checksum = checksum_of_object(&body).map_err(enc)?;
    // Key order in the file is for people: format, version and checksum first.
    let mut file = Map::new();
    file.insert("format".into(), Value::from(SNAPSHOT_FORMAT));
    file.insert("format_version".into(), Value::from(FORMAT_VERSION));
    file.insert("checksum".into(), Value::from(checksum));
    for (k, v) in body {
        file.entry(k).or_insert(v);
    }
    let mut bytes = serde_json::to_vec_pretty(&Value::Object(file)).map_err(enc)?;
    bytes.push(b'\n');
    Ok(bytes)
}

fn decode(bytes: &[u8], path: &Path) -> Result<Snapshot, StoreError> {
    let corrupt = |detail: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        detail,
    };
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| corrupt(format!("not complete JSON ({e})")))?;
    let Value::Object(mut obj) = value else {
        return Err(corrupt("not a JSON object".to_string()));
    };
    if obj.get("format").and_then(Value::as_str) != Some(SNAPSHOT_FORMAT) {
        return Err(StoreError::NotOurFormat {
            path: path.to_path_buf(),
            detail: format!("no \"format\": {SNAPSHOT_FORMAT:?}"),
        });
    }
    let found = obj
        .get("format_version")
        .and_then(Value::as_u64)
        .ok_or_else(|| corrupt("no numeric format_version".to_string()))?;
    if found > u64::from(FORMAT_VERSION) {
        return Err(StoreError::UnsupportedVersion {
            path: path.to_path_buf(),
            found: u32::try_from(found).unwrap_or(u32::MAX),
            supported: FORMAT_VERSION,
        });
    }
    let stated = match obj.remove("checksum") {
        Some(Value::String(s)) => s,
        _ => return Err(corrupt("it has no checksum".to_string())),
    };
    let actual = checksum_of_object(&obj).map_err(|e| corrupt(e.to_string()))?;
    if actual != stated {
        return Err(corrupt(format!(
            "checksum mismatch (file says {stated}, content gives {actual})"
        )));
    }
    serde_json::from_value(Value::Object(obj))
        .map_err(|e| corrupt(format!("unexpected content: {e}")))
}

/// Why an atomic write stopped early.
enum Abort {
    /// The test hook asked to stop here, as if the process had died: nothing is cleaned.
    Crash(Step),
    Fail(StoreError),
}

/// Temp file in `dir`, write, fsync, rename to `name`, fsync `dir`. `hook` runs after
/// each step; `Break` simulates a crash there. A real failure removes the temp file.
fn write_atomic(
    dir: &Path,
    name: &str,
    bytes: &[u8],
    hook: &mut dyn FnMut(Step) -> ControlFlow<()>,
) -> Result<(), StoreError> {
    let crash = |step: Step| {
        StoreError::io(
            dir,
            "save snapshot in",
            io::Error::other(format!("simulated crash after {step:?}")),
        )
    };
    let suffix = uuid::Uuid::now_v7().simple().to_string();
    let temp = dir.join(format!(".{name}{TEMP_MARK}{}", &suffix[suffix.len() - 8..]));
    let target = dir.join(name);
    let mut file = open_private(
        &temp,
        OpenOptions::new().write(true).create_new(true),
        "create temp file",
    )?;
    match write_steps(&mut file, &temp, &target, bytes, hook) {
        Ok(()) => {}
        Err(Abort::Crash(step)) => return Err(crash(step)),
        Err(Abort::Fail(e)) => {
            let _ = fs::remove_file(&temp);
            return Err(e);
        }
    }
    if hook(Step::Renamed).is_break() {
        return Err(crash(Step::Renamed));
    }
    sync_dir(dir)
}

fn write_steps(
    file: &mut fs::File,
    temp: &Path,
    target: &Path,
    bytes: &[u8],
    hook: &mut dyn FnMut(Step) -> ControlFlow<()>,
) -> Result<(), Abort> {
    let mut step = |s: Step| match hook(s) {
        ControlFlow::Break(()) => Err(Abort::Crash(s)),
        ControlFlow::Continue(()) => Ok(()),
    };
    step(Step::TempCreated)?;
    file.write_all(bytes)
        .map_err(|e| Abort::Fail(StoreError::io(temp, "write", e)))?;
    step(Step::Written)?;
    file.sync_all()
        .map_err(|e| Abort::Fail(StoreError::io(temp, "fsync", e)))?;
    step(Step::Synced)?;
    fs::rename(temp, target)
        .map_err(|e| Abort::Fail(StoreError::io(target, "rename temp file to", e)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::message::{Message, MessageId, ReplyStatus, Role};
    use crate::core::mode::{Mode, Tier};
    use crate::core::record::ActiveState;
    use chrono::TimeZone;

    fn snapshot(purpose: SnapshotPurpose, secs: u32, text: &str) -> Snapshot {
        let created = Utc.with_ymd_and_hms(2026, 11, 22, 15, 30, secs).unwrap();
        Snapshot {
            format_version: FORMAT_VERSION,
            meta: SnapshotMeta {
                id: String::new(),
                session_id: String::new(),
                created,
                purpose,
                label: None,
                model: "m".into(),
                tier: Tier::T2,
                mode: Mode::Developer,
                tokens: 10,
                message_count: 1,
                checkpoint_count: 0,
            },
            state: ActiveState {
                messages: vec![MessageId(1)],
                model: "m".into(),
                ..Default::default()
            },
            messages: vec![Message {
                id: MessageId(1),
                role: Role::User,
                text: text.into(),
                ts: created,
                status: ReplyStatus::Complete,
                pinned: false,
                tool: None,
                calls: Vec::new(),
                thinking: String::new(),
                tokens: 3,
                images: Vec::new(),
            }],
        }
    }

    fn store() -> (tempfile::TempDir, SnapshotStore) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path()).unwrap();
        let store = SnapshotStore::new(&dir, "s1").unwrap();
        (tmp, store)
    }

    fn names_in(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_crash_at_any_step_leaves_the_old_snapshot_valid_and_the_new_absent_or_whole() {
        for crash_at in [
            Step::TempCreated,
            Step::Written,
            Step::Synced,
            Step::Renamed,
        ] {
            let (_tmp, store) = store();
            let old = store
                .save(&snapshot(SnapshotPurpose::Rollback, 0, "old"))
                .unwrap();
            let new = snapshot(SnapshotPurpose::Rollback, 1, "new");
            let err = store
                .save_with(&new, &mut |step| {
                    if step == crash_at {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                })
                .unwrap_err();
            assert!(err.to_string().contains("simulated crash"), "{err}");

            let listing = store.scan().unwrap();
            assert!(listing.unreadable.is_empty(), "{crash_at:?}: {listing:?}");
            assert_eq!(store.load(&old.id).unwrap().messages[0].text, "old");
            let ids: Vec<&str> = listing.snapshots.iter().map(|m| m.id.as_str()).collect();
            if crash_at == Step::Renamed {
                assert_eq!(ids.len(), 2, "{crash_at:?}");
                assert_eq!(store.load(ids[0]).unwrap().messages[0].text, "new");
            } else {
                assert_eq!(ids, [old.id.as_str()], "{crash_at:?}");
                // The stray temp file is there, ignored, and cleared on request.
                assert!(names_in(store.dir()).iter().any(|n| n.contains(TEMP_MARK)));
                assert_eq!(store.remove_stale_temp_files().unwrap(), 1);
                assert_eq!(names_in(store.dir()), [format!("{}.json", old.id)]);
            }
        }
    }

    #[test]
    fn a_real_write_error_removes_the_temp_file() {
        let (_tmp, store) = store();
        let err = store
            .save_with(&snapshot(SnapshotPurpose::Rollback, 0, "x"), &mut |step| {
                if step == Step::Written {
                    // Make the rename fail for real: occupy the target with a directory.
                    let ids: Vec<_> = names_in(store.dir());
                    let temp = ids.iter().find(|n| n.contains(TEMP_MARK)).unwrap();
                    let target = temp
                        .trim_start_matches('.')
                        .split(TEMP_MARK)
                        .next()
                        .unwrap()
                        .to_string();
                    fs::create_dir(store.dir().join(target)).unwrap();
                }
                ControlFlow::Continue(())
            })
            .unwrap_err();
        assert!(matches!(err, StoreError::Io { .. }), "{err}");
        assert!(
            !names_in(store.dir()).iter().any(|n| n.contains(TEMP_MARK)),
            "temp file left behind"
        );
    }
}
