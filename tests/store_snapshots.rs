//! Snapshots: save/list/load/delete/prune, checksums, stray and damaged files, and the
//! `SessionStore` contract shared by `FileStore` and `MemoryStore`.
#![allow(clippy::unwrap_used)]

#[path = "store_fixtures.rs"]
mod fixtures;

use fixtures::*;
use ollm_tui::core::record::SnapshotPurpose::{Emergency, Recovery, Rollback};
use ollm_tui::core::snapshot::Snapshot;
use ollm_tui::store::snapshot::SnapshotStore;
use ollm_tui::store::{FileStore, MemoryStore, SessionStore, StoreError};
use std::fs;

fn store() -> (tempfile::TempDir, ollm_tui::store::DataDir, SnapshotStore) {
    let (tmp, dir) = data_dir();
    let store = SnapshotStore::new(&dir, "s1").unwrap();
    (tmp, dir, store)
}

#[test]
fn save_assigns_a_readable_time_ordered_id_and_load_returns_the_same_snapshot() {
    let (_tmp, _dir, store) = store();
    let snap = snapshot(Rollback, 12, "hello ünï \u{1b}[31m");
    let meta = store.save(&snap).unwrap();
    let re = regex::Regex::new(r"^20261122-100012-[0-9a-f]{4}$").unwrap();
    assert!(re.is_match(&meta.id), "{}", meta.id);
    assert_eq!(meta.session_id, "s1");

    let loaded = store.load(&meta.id).unwrap();
    let mut expected = snap.clone();
    expected.meta = meta.clone();
    assert_eq!(loaded, expected);
    assert!(store.dir().join(format!("{}.json", meta.id)).is_file());
}

#[test]
fn the_file_is_readable_json_with_format_version_and_checksum() {
    let (_tmp, _dir, store) = store();
    let meta = store.save(&snapshot(Recovery, 0, "x")).unwrap();
    let text = fs::read_to_string(store.dir().join(format!("{}.json", meta.id))).unwrap();
    assert!(
        text.contains("\n  \"format\": \"ollm-snapshot\""),
        "pretty-printed"
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["format"], "ollm-snapshot");
    assert_eq!(v["format_version"], 1);
    assert!(v["checksum"].as_str().unwrap().starts_with("crc32:"));
    assert_eq!(v["meta"]["purpose"], "recovery");
    assert_eq!(v["meta"]["id"], meta.id.as_str());
    assert_eq!(v["messages"][0]["text"], "x");
}

#[test]
fn reformatting_the_file_keeps_it_valid_but_changing_content_is_detected() {
    let (_tmp, _dir, store) = store();
    let meta = store.save(&snapshot(Rollback, 0, "original text")).unwrap();
    let path = store.dir().join(format!("{}.json", meta.id));
    let text = fs::read_to_string(&path).unwrap();

    // Compact re-encoding with the keys in another order: same data, still valid.
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut obj: Vec<(String, serde_json::Value)> =
        v.as_object().unwrap().clone().into_iter().collect();
    obj.reverse();
    let reordered = serde_json::Value::Object(obj.into_iter().collect());
    fs::write(&path, serde_json::to_string(&reordered).unwrap()).unwrap();
    assert_eq!(
        store.load(&meta.id).unwrap().messages[0].text,
        "original text"
    );

    // One changed character in a message: the checksum catches it.
    fs::write(&path, text.replace("original text", "origina1 text")).unwrap();
    let err = store.load(&meta.id).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    assert!(err.to_string().contains("checksum mismatch"), "{err}");
}

#[test]
fn listing_is_newest_first_and_survives_damaged_stray_and_newer_files() {
    let (_tmp, _dir, store) = store();
    let old = store.save(&snapshot(Rollback, 10, "old")).unwrap();
    let new = store.save(&snapshot(Recovery, 30, "new")).unwrap();
    let mid = store.save(&snapshot(Emergency, 20, "mid")).unwrap();

    // A truncated snapshot (as a non-atomic writer would leave), a newer-format one,
    // a stray half-written temp file, and unrelated files.
    let full = fs::read(store.dir().join(format!("{}.json", old.id))).unwrap();
    fs::write(
        store.dir().join("20261122-100001-dead.json"),
        &full[..full.len() / 2],
    )
    .unwrap();
    let newer = String::from_utf8(full.clone()).unwrap().replacen(
        "\"format_version\": 1",
        "\"format_version\": 9",
        1,
    );
    fs::write(store.dir().join("20261122-100002-beef.json"), newer).unwrap();
    fs::write(
        store.dir().join(format!(".{}.json.tmp-0badf00d", new.id)),
        &full[..100],
    )
    .unwrap();
    fs::write(store.dir().join("notes.txt"), "hi").unwrap();
    fs::create_dir(store.dir().join("subdir")).unwrap();

    let ids: Vec<String> = store.list().unwrap().into_iter().map(|m| m.id).collect();
    assert_eq!(ids, [new.id.clone(), mid.id.clone(), old.id.clone()]);

    let listing = store.scan().unwrap();
    assert_eq!(listing.snapshots.len(), 3);
    assert_eq!(listing.unreadable.len(), 2, "{:?}", listing.unreadable);
    assert!(listing.unreadable[0].reason.contains("not complete JSON"));
    assert!(listing.unreadable[1].reason.contains("format version 9"));
    assert_eq!(store.load(&old.id).unwrap().messages[0].text, "old");
}

#[test]
fn prune_keeps_the_newest_recovery_snapshots_and_never_touches_manual_ones() {
    let (_tmp, _dir, store) = store();
    let mut recovery = Vec::new();
    for i in 0..7 {
        recovery.push(store.save(&snapshot(Recovery, i * 10, "r")).unwrap().id);
    }
    let rollback = store.save(&snapshot(Rollback, 1, "manual")).unwrap().id;
    let emergency = store.save(&snapshot(Emergency, 2, "emergency")).unwrap().id;

    let mut deleted = store.prune_automatic(5).unwrap();
    deleted.sort();
    assert_eq!(deleted, recovery[..2]);
    let left: Vec<String> = store.list().unwrap().into_iter().map(|m| m.id).collect();
    assert_eq!(left.len(), 7);
    for id in recovery[2..].iter().chain([&rollback, &emergency]) {
        assert!(left.contains(id), "{id} was pruned");
    }
    assert!(store.prune_automatic(5).unwrap().is_empty());
    assert_eq!(store.prune_automatic(0).unwrap().len(), 5);
    let left: Vec<String> = store.list().unwrap().into_iter().map(|m| m.id).collect();
    assert_eq!(left, [emergency, rollback]);
}

#[test]
fn delete_removes_one_snapshot_and_reports_a_missing_one() {
    let (_tmp, _dir, store) = store();
    let a = store.save(&snapshot(Rollback, 0, "a")).unwrap();
    let b = store.save(&snapshot(Rollback, 1, "b")).unwrap();
    store.delete(&a.id).unwrap();
    assert_eq!(store.list().unwrap(), [b]);
    assert!(matches!(
        store.delete(&a.id),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.load(&a.id),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.load("../../sessions/x"),
        Err(StoreError::InvalidId { .. })
    ));
}

#[test]
fn an_explicit_id_is_never_overwritten() {
    let (_tmp, _dir, store) = store();
    let mut snap = snapshot(Rollback, 0, "first");
    snap.meta.id = "my-checkpoint".to_string();
    store.save(&snap).unwrap();
    snap.messages[0].text = "second".to_string();
    assert!(matches!(
        store.save(&snap),
        Err(StoreError::AlreadyExists { .. })
    ));
    assert_eq!(
        store.load("my-checkpoint").unwrap().messages[0].text,
        "first"
    );
}

#[test]
fn a_snapshot_of_another_session_is_refused() {
    let (_tmp, _dir, store) = store();
    let mut snap = snapshot(Rollback, 0, "x");
    snap.meta.session_id = "someone-else".to_string();
    assert!(matches!(
        store.save(&snap),
        Err(StoreError::InvalidId { .. })
    ));
}

#[test]
fn a_save_that_cannot_write_surfaces_the_error() {
    let (_tmp, dir, store) = store();
    // The snapshot directory's place is taken by a file: nothing can be written there.
    fs::write(dir.snapshots_dir("s1"), b"in the way").unwrap();
    let err = store.save(&snapshot(Rollback, 0, "x")).unwrap_err();
    assert!(matches!(err, StoreError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("snapshots/s1"), "{err}");
}

#[test]
fn opening_a_session_clears_stray_temp_files() {
    let (_tmp, dir) = data_dir();
    drop(FileStore::create(&dir, header("s1")).unwrap());
    let snaps = SnapshotStore::new(&dir, "s1").unwrap();
    let kept = snaps.save(&snapshot(Rollback, 0, "kept")).unwrap();
    let temp = snaps
        .dir()
        .join(format!(".{}.json.tmp-12345678", "20261122-100009-aaaa"));
    fs::write(&temp, b"{\"format\":").unwrap();
    let (store, _) = FileStore::open(&dir, "s1").unwrap();
    assert!(!temp.exists());
    assert_eq!(store.list_snapshots().unwrap(), [kept]);
}

/// The behaviour the actor relies on, whichever store it is given.
fn contract(store: &mut dyn SessionStore) {
    store.append(&user(1, "hi")).unwrap();
    assert!(matches!(
        store.append(&user(1, "again")),
        Err(StoreError::SeqOrder { .. })
    ));
    store.sync().unwrap();

    let a = store.save_snapshot(&snapshot(Recovery, 10, "a")).unwrap();
    let b = store.save_snapshot(&snapshot(Rollback, 20, "b")).unwrap();
    let c = store.save_snapshot(&snapshot(Recovery, 30, "c")).unwrap();
    assert_eq!(a.session_id, "s1");
    let ids: Vec<String> = store
        .list_snapshots()
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(ids, [c.id.clone(), b.id.clone(), a.id.clone()]);
    let loaded: Snapshot = store.load_snapshot(&b.id).unwrap();
    assert_eq!(loaded.messages[0].text, "b");
    assert_eq!(store.prune_automatic(1).unwrap(), [a.id]);
    store.delete_snapshot(&b.id).unwrap();
    assert!(matches!(
        store.load_snapshot(&b.id),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.delete_snapshot(&b.id),
        Err(StoreError::NotFound { .. })
    ));
    store.append(&user(2, "bye")).unwrap();
}

#[test]
fn memory_store_honours_the_contract_and_can_fail_like_a_full_disk() {
    let mem = MemoryStore::new(header("s1"));
    let probe = mem.clone();
    let mut boxed: Box<dyn SessionStore> = Box::new(mem);
    contract(&mut boxed);
    assert_eq!(probe.records(), [user(1, "hi"), user(2, "bye")]);
    assert_eq!((probe.sync_count(), probe.synced_records()), (1, 1));

    probe.fail_next_write();
    let err = boxed.append(&user(3, "lost?")).unwrap_err();
    assert_eq!(
        err.io_kind(),
        Some(std::io::ErrorKind::StorageFull),
        "{err}"
    );
    // Only the next write failed, and the failed record was not taken.
    boxed.append(&user(3, "retried")).unwrap();
    assert_eq!(probe.records().len(), 3);

    probe.fail_all_writes(true);
    assert!(boxed.sync().is_err());
    assert!(boxed.save_snapshot(&snapshot(Rollback, 50, "x")).is_err());
    assert!(boxed.append(&user(4, "x")).is_err());
    assert_eq!(
        probe.synced_records(),
        1,
        "a failed sync made nothing durable"
    );
    probe.fail_all_writes(false);
    boxed.sync().unwrap();
    assert_eq!(probe.synced_records(), 3);
    assert_eq!(probe.loaded().records.len(), 3);
}

#[test]
fn file_store_honours_the_contract_and_persists_it() {
    let (_tmp, dir) = data_dir();
    let mut store = FileStore::create(&dir, header("s1")).unwrap();
    contract(&mut store);
    drop(store);
    let (store, loaded) = FileStore::open(&dir, "s1").unwrap();
    assert_eq!(loaded.records, [user(1, "hi"), user(2, "bye")]);
    assert_eq!(store.list_snapshots().unwrap().len(), 1);
}
