//! The data folder's sessions besides this one, for the session browser and `/search`:
//! listed, renamed, moved to the trash and searched on the blocking pool, so the actor's
//! loop never waits on a slow disk, and the answer goes back on the command's oneshot.

use super::command::{SessionChange, SessionChanged, SessionListing};
use crate::store::DataDir;
use crate::store::search::SearchReport;
use tokio::sync::oneshot;

/// Why nothing is listed: the session is not kept on disk (tests, `--no-save`).
const NOT_ON_DISK: &str = "sessions are not kept on disk here";

/// `change` the sessions of `dir` (or not), then list them again.
pub(super) fn list(
    dir: Option<DataDir>,
    change: Option<SessionChange>,
    reply: oneshot::Sender<SessionListing>,
) {
    tokio::task::spawn_blocking(move || {
        let Some(dir) = dir else {
            let _ = reply.send(SessionListing {
                changed: None,
                list: Err(NOT_ON_DISK.to_string()),
            });
            return;
        };
        let changed = change.map(|c| match c {
            SessionChange::Rename { id, title } => SessionChanged::Renamed(
                crate::store::manage::rename(&dir, &id, &title).map_err(|e| e.to_string()),
            ),
            SessionChange::Trash { id } => SessionChanged::Trashed(
                crate::store::manage::trash(&dir, &id)
                    .map(|t| t.folder)
                    .map_err(|e| e.to_string()),
            ),
        });
        let list = crate::store::sessions::list(&dir).map_err(|e| e.to_string());
        let _ = reply.send(SessionListing { changed, list });
    });
}

/// Every session of `dir` searched for `query`, `limit` hits at most.
pub(super) fn search(
    dir: Option<DataDir>,
    query: String,
    limit: usize,
    reply: oneshot::Sender<Result<SearchReport, String>>,
) {
    tokio::task::spawn_blocking(move || {
        let found = match dir {
            Some(dir) => {
                crate::store::search::search(&dir, &query, limit).map_err(|e| e.to_string())
            }
            None => Err(NOT_ON_DISK.to_string()),
        };
        let _ = reply.send(found);
    });
}
