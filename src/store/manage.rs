//! Renaming and deleting sessions (`ollm-tui sessions rename|rm`, the session browser).
//!
//! A title given by rename is a small file beside the log (`<id>.title`), not a log
//! record: renaming never needs the session's lock (a session open elsewhere can be
//! renamed), and only the instance holding the lock may append to a log. The title the
//! model writes is a `title` record, written by the session's own writer; one written
//! before titles were records is still read from `<id>.autotitle`. Deleting moves
//! everything the session owns — its log, title, set-aside torn tails, snapshots, saved
//! tool results and exports — into `trash/<id>-<time>/` under the data directory, where
//! it can be restored by moving it back; nothing is erased. It takes the session's lock
//! first, so a session open in another instance is never pulled from under it, and two
//! deletes of one session cannot both succeed (the second finds nothing to delete).

use crate::small_file;
use crate::store::error::StoreError;
use crate::store::fsutil::{ensure_private_dir, open_private, sync_dir};
use crate::store::lock::SessionLock;
use crate::store::paths::DataDir;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Longest title kept, in characters (core's rule, for the rename dialog).
pub use crate::core::overview::MAX_TITLE_CHARS;

/// The title of the session whose log is at `log` (`sessions/<id>.jsonl`): the one given
/// with rename (`<id>.title`), else the one the model wrote — `recorded`, its `title`
/// record (`SessionOverview::titled`), or for a session titled by an earlier version, the
/// file it was kept in then (`<id>.autotitle`).
pub fn custom_title(log: &Path, recorded: Option<&str>) -> Option<String> {
    let file = |ext: &str| {
        let text = small_file::read_to_string(
            &log.with_extension(ext),
            log.parent(),
            small_file::ONE_LINE,
        )
        .ok()?;
        let t = text.trim();
        (!t.is_empty()).then(|| t.to_string())
    };
    file("title")
        .or_else(|| recorded.map(str::to_string))
        .or_else(|| file("autotitle"))
}

/// Whether session `id` has no title in a file: none given with rename, none the model
/// wrote before titles were records. (A title the model wrote since is in the log.)
pub fn wants_title(dir: &DataDir, id: &str) -> bool {
    let log = dir.session_log_path(id);
    !log.with_extension("title").exists() && !log.with_extension("autotitle").exists()
}

/// Written aside and renamed over: a reader sees the old text or the new, never half.
fn write_aside(dir: &DataDir, path: &Path, text: &str) -> Result<(), StoreError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let mut f = open_private(
        &tmp,
        fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true),
        "write title to",
    )?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.sync_all())
        .map_err(|e| StoreError::io(&tmp, "write title to", e))?;
    fs::rename(&tmp, path).map_err(|e| StoreError::io(path, "rename title to", e))?;
    sync_dir(&dir.sessions_dir())
}

/// Give session `id` a title; an empty one goes back to the first message. The title is
/// one line, sanitised, at most [`MAX_TITLE_CHARS`]. Returns the title kept.
pub fn rename(dir: &DataDir, id: &str, title: &str) -> Result<Option<String>, StoreError> {
    require_log(dir, id)?;
    let path = dir.title_path(id);
    let clean = crate::core::overview::clean_title(title);
    if clean.is_empty() {
        return match fs::remove_file(&path) {
            Ok(()) => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::io(&path, "remove", e)),
        };
    }
    write_aside(dir, &path, &clean)?;
    Ok(Some(clean))
}

/// What a delete moved, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trashed {
    pub folder: PathBuf,
    /// The names moved into it (`session.jsonl`, `snapshots`, …).
    pub moved: Vec<String>,
}

/// Move session `id` and everything it owns into the trash. Fails with
/// [`StoreError::Locked`] while the session is open in an instance (this one included).
pub fn trash(dir: &DataDir, id: &str) -> Result<Trashed, StoreError> {
    let lock = SessionLock::acquire(dir, id)?;
    let outcome = move_out(dir, id);
    let lock_path = lock.path().to_path_buf();
    drop(lock);
    // The lock file goes with the session (a later delete of the same id finds nothing).
    if outcome.is_ok() || !dir.session_log_path(id).exists() {
        let _ = fs::remove_file(lock_path);
    }
    outcome
}

fn move_out(dir: &DataDir, id: &str) -> Result<Trashed, StoreError> {
    require_log(dir, id)?;
    let trash = dir.trash_dir();
    ensure_private_dir(&trash)?;
    let stamp = chrono::Utc::now().format("%Y%m%d-%H%M%S");
    let mut folder = trash.join(format!("{id}-{stamp}"));
    let mut n = 1;
    while folder.exists() {
        n += 1;
        folder = trash.join(format!("{id}-{stamp}-{n}"));
    }
    ensure_private_dir(&folder)?;
    let exports = dir.exports_dir();
    // The log first: once it is gone the session is gone from every list, and the
    // rest follows it.
    let owned = [
        (dir.session_log_path(id), "session.jsonl".to_string()),
        (dir.title_path(id), "session.title".to_string()),
        (
            dir.session_log_path(id).with_extension("autotitle"),
            "session.autotitle".to_string(),
        ),
        (dir.corrupt_path(id), "session.jsonl.corrupt".to_string()),
        (dir.snapshots_dir(id), "snapshots".to_string()),
        (dir.results_dir(id), "results".to_string()),
        (dir.images_dir(id), "images".to_string()),
        (exports.join(format!("{id}.md")), format!("{id}.md")),
        (exports.join(format!("{id}.json")), format!("{id}.json")),
    ];
    let mut moved = Vec::new();
    for (from, name) in owned {
        match fs::rename(&from, folder.join(&name)) {
            Ok(()) => moved.push(name),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if moved.is_empty() {
                    // Another instance deleted it between the check and the move.
                    let _ = fs::remove_dir(&folder);
                    return Err(not_found(dir, id));
                }
            }
            Err(e) => return Err(StoreError::io(&from, "move to the trash", e)),
        }
    }
    sync_dir(&dir.sessions_dir())?;
    Ok(Trashed { folder, moved })
}

/// A new session holding session `parent` up to its message `at`: every record up to
/// that message (messages, checkpoints that cover only earlier ones, the goal board,
/// pins, settings — replaying them rebuilds the state the parent had there), the saved
/// tool results those records name, and a header that names the parent. The parent is
/// only read. Returns the fork's id.
///
/// The settings are the parent's as they are now, not as they were at `at`: the person
/// forks from where they are, with the model, context, mode, system prompt and
/// parameters in use (a `/model` or `/ctx` after message `at` is not undone). A
/// `settings` record after the copied ones says what differs.
pub fn fork(dir: &DataDir, parent: &str, at: u64) -> Result<String, StoreError> {
    let loaded = crate::store::SessionLog::read(dir, parent)?;
    if !loaded
        .records
        .iter()
        .any(|r| r.seq == at && r.body.is_message())
    {
        return Err(StoreError::NotFound {
            what: "message",
            id: format!("#{at}"),
            path: dir.session_log_path(parent),
        });
    }
    let id = crate::store::new_session_id();
    let header = crate::core::record::Header {
        session_id: id.clone(),
        created: chrono::Utc::now(),
        fork_of: Some(crate::core::record::ForkOrigin {
            session_id: parent.to_string(),
            at,
        }),
        ..loaded.header.clone()
    };
    let mut log = crate::store::SessionLog::create(dir, header)?;
    let from = dir.results_dir(parent);
    let to = dir.results_dir(&id);
    for r in loaded.records.iter().take_while(|r| r.seq <= at) {
        if let crate::core::record::RecordBody::Tool {
            original: Some(o), ..
        } = &r.body
        {
            ensure_private_dir(to.parent().unwrap_or(&to))?;
            ensure_private_dir(&to)?;
            let (src, dst) = (from.join(&o.file), to.join(&o.file));
            match fs::copy(&src, &dst) {
                Ok(_) => {}
                // A result that could not be saved in the parent is missing here too;
                // recall says so there and here alike.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(StoreError::io(&dst, "copy a saved result to", e)),
            }
        }
        if let crate::core::record::RecordBody::User { images, .. } = &r.body {
            crate::store::images::copy(dir, parent, &id, images)?;
        }
        if let crate::core::record::RecordBody::Title { .. } = &r.body {
            // The parent's title is not the fork's (it gets one of its own after its
            // first answer); the record stays, empty, so the fork's seqs have no gap.
            log.append(&crate::core::record::Record {
                body: crate::core::record::RecordBody::Title {
                    title: String::new(),
                },
                ..r.clone()
            })?;
            continue;
        }
        log.append(r)?;
    }
    let now = settings_after(&loaded.header, loaded.records.iter());
    let there = settings_after(
        &loaded.header,
        loaded.records.iter().take_while(|r| r.seq <= at),
    );
    if let Some(body) = settings_change(&there, &now) {
        let seq = loaded
            .records
            .iter()
            .take_while(|r| r.seq <= at)
            .last()
            .map_or(1, |r| r.seq + 1);
        log.append(&crate::core::record::Record {
            seq,
            ts: chrono::Utc::now(),
            body,
        })?;
    }
    log.sync()?;
    Ok(id)
}

/// The settings after `records`, starting from `header`'s.
fn settings_after<'a>(
    header: &crate::core::record::Header,
    records: impl Iterator<Item = &'a crate::core::record::Record>,
) -> crate::core::record::Header {
    let mut h = header.clone();
    for r in records {
        h.apply_settings(&r.body);
    }
    h
}

/// The `settings` record that turns `from`'s settings into `to`'s, if they differ.
fn settings_change(
    from: &crate::core::record::Header,
    to: &crate::core::record::Header,
) -> Option<crate::core::record::RecordBody> {
    let body = crate::core::record::RecordBody::Settings {
        model: (from.model != to.model).then(|| to.model.clone()),
        ctx: (from.ctx != to.ctx).then(|| to.ctx.unwrap_or(0)),
        mode: (from.mode != to.mode).then_some(to.mode),
        params: (from.params != to.params).then(|| to.params.clone()),
    };
    let same = crate::core::record::RecordBody::Settings {
        model: None,
        ctx: None,
        mode: None,
        params: None,
    };
    (body != same).then_some(body)
}

fn require_log(dir: &DataDir, id: &str) -> Result<(), StoreError> {
    crate::store::paths::validate_id("session", id)?;
    if dir.session_log_path(id).exists() {
        Ok(())
    } else {
        Err(not_found(dir, id))
    }
}

fn not_found(dir: &DataDir, id: &str) -> StoreError {
    StoreError::NotFound {
        what: "session",
        id: id.to_string(),
        path: dir.sessions_dir(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn session(dir: &DataDir, id: &str) {
        fs::write(dir.session_log_path(id), "{}\n").unwrap();
        fs::create_dir_all(dir.snapshots_dir(id)).unwrap();
        fs::write(dir.snapshots_dir(id).join("a.json"), "{}").unwrap();
        fs::create_dir_all(dir.results_dir(id)).unwrap();
        fs::write(dir.results_dir(id).join("7.txt"), "whole").unwrap();
    }

    #[test]
    fn rename_keeps_one_clean_line_and_empty_goes_back() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path().join("d")).unwrap();
        session(&dir, "s1");
        let kept = rename(&dir, "s1", "  Infra\n notes \x1b[31mred ").unwrap();
        assert_eq!(kept.as_deref(), Some("Infra notes red"));
        assert_eq!(
            custom_title(&dir.session_log_path("s1"), None).as_deref(),
            Some("Infra notes red")
        );
        assert_eq!(rename(&dir, "s1", "   ").unwrap(), None);
        assert_eq!(custom_title(&dir.session_log_path("s1"), None), None);
        assert!(matches!(
            rename(&dir, "nope", "x"),
            Err(StoreError::NotFound { .. })
        ));
    }

    #[test]
    fn trash_moves_everything_the_session_owns_and_a_second_delete_finds_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path().join("d")).unwrap();
        session(&dir, "s1");
        session(&dir, "s2");
        rename(&dir, "s1", "mine").unwrap();
        let t = trash(&dir, "s1").unwrap();
        assert!(t.moved.contains(&"session.jsonl".to_string()));
        assert!(t.moved.contains(&"snapshots".to_string()));
        assert!(t.moved.contains(&"results".to_string()));
        assert!(t.folder.join("results/7.txt").exists());
        assert!(t.folder.join("session.title").exists());
        assert!(!dir.session_log_path("s1").exists());
        assert!(!dir.lock_path("s1").exists());
        // The other session is untouched.
        assert!(dir.session_log_path("s2").exists());
        assert!(dir.results_dir("s2").join("7.txt").exists());
        assert!(matches!(
            trash(&dir, "s1"),
            Err(StoreError::NotFound { .. })
        ));
    }

    #[test]
    fn a_session_open_elsewhere_is_not_deleted() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path().join("d")).unwrap();
        session(&dir, "s1");
        let held = SessionLock::acquire(&dir, "s1").unwrap();
        assert!(matches!(trash(&dir, "s1"), Err(StoreError::Locked { .. })));
        assert!(dir.session_log_path("s1").exists());
        drop(held);
        trash(&dir, "s1").unwrap();
    }
}
