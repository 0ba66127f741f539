//! Finding sessions: the `sessions` listing, resolving an id or prefix, the latest one.
//!
//! Strategy: listing reads each log once, read-only and without the lock, and folds its
//! records with the same `SessionOverview` the exports use; a log that cannot be read
//! still appears, with the reason, so nothing vanishes from the list silently.
//!
//! "The latest session" (`--resume` with no id) is the one the person last used: the app
//! names it in `sessions/last-used` when it opens a session for them and when they leave
//! one. A log's modification time is not that: `/fork` writes a whole new log the moment
//! it is made, and the person may go back to the session they forked from and quit there.
//! Without that file (data from before it), the session with the newest record wins — a
//! fork's records keep the times they were written in its parent, so a fork made and left
//! untouched does not outrank the parent.

use crate::core::overview::SessionOverview;
use crate::core::sanitize::sanitize;
use crate::small_file;
use crate::store::error::StoreError;
use crate::store::log::scan;
use crate::store::paths::{DataDir, LOG_EXT, validate_id};
use chrono::{DateTime, Utc};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Longest title kept, in chars (the first line of the first user message).
const TITLE_MAX_CHARS: usize = 80;

/// One row of `ollm-tui sessions`.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    pub id: String,
    /// First line of the first user message, sanitised; `None` before the first message.
    pub title: Option<String>,
    /// The model in use at the end of the log (header, then any settings change).
    pub model: String,
    pub created: Option<DateTime<Utc>>,
    /// Time of the last record (the file's mtime when the log cannot be read).
    pub last_activity: DateTime<Utc>,
    /// User, assistant and tool messages.
    pub messages: usize,
    /// Compressions (checkpoint records).
    pub compressions: usize,
    pub size_bytes: u64,
    pub path: PathBuf,
    /// Why the log could not be read or was read with losses; `None` when clean.
    pub problem: Option<String>,
    /// The session this one was forked from (`/fork`), if it was.
    pub parent: Option<String>,
}

/// All sessions, most recent activity first.
pub fn list(dir: &DataDir) -> Result<Vec<SessionSummary>, StoreError> {
    let mut out = Vec::new();
    for (id, path, mtime) in log_files(dir)? {
        out.push(summarize(id, path, mtime));
    }
    out.sort_by(|a, b| {
        b.last_activity
            .cmp(&a.last_activity)
            .then_with(|| b.id.cmp(&a.id))
    });
    Ok(out)
}

/// One session's row of the listing (its log read once), for naming it to the person.
pub fn summary(dir: &DataDir, id: &str) -> Result<SessionSummary, StoreError> {
    validate_id("session", id)?;
    let path = dir.session_log_path(id);
    let mtime = fs::metadata(&path)
        .and_then(|m| m.modified())
        .map_err(|e| StoreError::io(&path, "inspect", e))?;
    Ok(summarize(id.to_string(), path, mtime))
}

/// The session named exactly by `id_or_prefix`, or the only one whose id starts with it.
pub fn resolve(dir: &DataDir, id_or_prefix: &str) -> Result<String, StoreError> {
    validate_id("session", id_or_prefix)?;
    if dir.session_log_path(id_or_prefix).exists() {
        return Ok(id_or_prefix.to_string());
    }
    let mut matches: Vec<String> = log_files(dir)?
        .into_iter()
        .map(|(id, _, _)| id)
        .filter(|id| id.starts_with(id_or_prefix))
        .collect();
    matches.sort();
    match matches.len() {
        0 => Err(StoreError::NotFound {
            what: "session",
            id: id_or_prefix.to_string(),
            path: dir.sessions_dir(),
        }),
        1 => Ok(matches.remove(0)),
        _ => Err(StoreError::Ambiguous {
            prefix: id_or_prefix.to_string(),
            matches,
        }),
    }
}

/// The session the person last used: the one named in `sessions/last-used` while its
/// log exists, else the one with the newest record (a parent before its fork made from
/// its last message: they tie).
pub fn latest(dir: &DataDir) -> Result<Option<String>, StoreError> {
    if let Some(id) = last_used(dir) {
        return Ok(Some(id));
    }
    Ok(latest_among(dir, &list(dir)?).map(str::to_string))
}

/// [`latest`] among sessions already listed (`list`): the listing marks it.
pub fn latest_among<'a>(dir: &DataDir, listed: &'a [SessionSummary]) -> Option<&'a str> {
    let marked = last_used(dir);
    if let Some(s) = listed.iter().find(|s| Some(&s.id) == marked.as_ref()) {
        return Some(&s.id);
    }
    listed
        .iter()
        .max_by(|a, b| {
            a.last_activity
                .cmp(&b.last_activity)
                .then_with(|| b.parent.is_some().cmp(&a.parent.is_some()))
                .then_with(|| a.id.cmp(&b.id))
        })
        .map(|s| s.id.as_str())
}

/// The session named in `sessions/last-used`, if that names one whose log exists.
pub fn last_used(dir: &DataDir) -> Option<String> {
    let text = small_file::read_to_string(
        &dir.last_used_path(),
        Some(dir.root()),
        small_file::ONE_LINE,
    )
    .ok()?;
    let id = text.trim();
    (validate_id("session", id).is_ok() && dir.session_log_path(id).exists())
        .then(|| id.to_string())
}

/// Say that the person is using session `id` now: `--resume` with no id opens it next.
pub fn mark_used(dir: &DataDir, id: &str) -> Result<(), StoreError> {
    validate_id("session", id)?;
    crate::store::export::write_replacing(&dir.last_used_path(), format!("{id}\n").as_bytes())
}

/// The fewest characters of an id ever shown. Session ids are UUIDv7: their first 8 hex
/// digits are the top of a millisecond clock and change only every 65 s or so, so a
/// shorter prefix (git's 7) would almost never be unique among a day's sessions; 8 is
/// also what was shown before, so prefixes people already typed keep meaning the same.
pub const MIN_ID_CHARS: usize = 8;

/// For each id, the shortest prefix no other id of `all` starts with: at least
/// [`MIN_ID_CHARS`], never ending on a `-` (it tells nothing), the whole id when nothing
/// shorter is unique. `ids` need not be in `all`; each is told apart from all of `all`.
pub fn short_ids(ids: &[&str], all: &[&str]) -> std::collections::HashMap<String, String> {
    ids.iter()
        .map(|id| {
            let shared = all
                .iter()
                .filter(|other| *other != id)
                .map(|other| common_prefix_bytes(id, other))
                .max()
                .unwrap_or(0);
            let mut cut = (shared + 1).max(MIN_ID_CHARS).min(id.len());
            while cut < id.len() && (!id.is_char_boundary(cut) || id[..cut].ends_with('-')) {
                cut += 1;
            }
            (id.to_string(), id[..cut].to_string())
        })
        .collect()
}

/// The id of every session in `dir`, in no order.
pub fn list_ids(dir: &DataDir) -> Result<Vec<String>, StoreError> {
    Ok(log_files(dir)?.into_iter().map(|(id, _, _)| id).collect())
}

/// The shortest unique prefix of session `id` among the sessions in `dir` (see
/// [`short_ids`]); the whole id when the directory cannot be listed.
pub fn short_id(dir: &DataDir, id: &str) -> String {
    let all = list_ids(dir).unwrap_or_default();
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    short_ids(&[id], &all)
        .remove(id)
        .unwrap_or_else(|| id.to_string())
}

fn common_prefix_bytes(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// `(id, path, mtime)` of every `<id>.jsonl` in the sessions directory.
pub(crate) fn log_files(dir: &DataDir) -> Result<Vec<(String, PathBuf, SystemTime)>, StoreError> {
    let sessions = dir.sessions_dir();
    let entries = match fs::read_dir(&sessions) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io(&sessions, "list", e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io(&sessions, "list", e))?;
        let name = entry.file_name();
        let Some(id) = name
            .to_str()
            .and_then(|n| n.strip_suffix(LOG_EXT))
            .and_then(|n| n.strip_suffix('.'))
        else {
            continue;
        };
        if validate_id("session", id).is_err() {
            continue;
        }
        let meta = entry
            .metadata()
            .map_err(|e| StoreError::io(entry.path(), "inspect", e))?;
        // Something else at a log's name (a directory) is listed with its problem
        // (reading it fails and says why), not hidden.
        let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        out.push((id.to_string(), entry.path(), mtime));
    }
    Ok(out)
}

fn summarize(id: String, path: PathBuf, mtime: SystemTime) -> SessionSummary {
    let mut summary = SessionSummary {
        id,
        title: None,
        model: String::new(),
        created: None,
        last_activity: DateTime::<Utc>::from(mtime),
        messages: 0,
        compressions: 0,
        size_bytes: 0,
        path,
        problem: None,
        parent: None,
    };
    let bytes = match small_file::read_whole(&summary.path, summary.path.parent()) {
        Ok(b) => b,
        Err(e) => {
            summary.problem = Some(StoreError::io(&summary.path, "read", e).to_string());
            return summary;
        }
    };
    summary.size_bytes = bytes.len() as u64;
    // The session's pictures are its own too: `images/<id>/`, beside `sessions/`.
    if let Some(root) = summary.path.parent().and_then(Path::parent) {
        summary.size_bytes +=
            crate::store::images::folder_bytes(&root.join("images").join(&summary.id));
    }
    let scan = match scan(&bytes, &summary.path) {
        Ok(s) => s,
        Err(e) => {
            summary.problem = Some(e.to_string());
            return summary;
        }
    };
    let overview = SessionOverview::of(&scan.header, &scan.items);
    summary.model = overview.settings.model;
    summary.created = Some(scan.header.created);
    summary.parent = scan.header.fork_of.as_ref().map(|f| f.session_id.clone());
    summary.last_activity = overview.last_activity;
    summary.messages = overview.messages;
    summary.compressions = overview.compressions;
    summary.title = crate::store::manage::custom_title(&summary.path, overview.titled.as_deref())
        .or_else(|| overview.title.as_deref().and_then(title_of));
    let mut problems = Vec::new();
    if !scan.skipped.is_empty() {
        problems.push(format!("{} unreadable record(s)", scan.skipped.len()));
    }
    if scan.torn.is_some() {
        problems.push("incomplete last line (repaired when next opened)".to_string());
    }
    if !scan.gaps.is_empty() {
        let missing: u64 = scan.gaps.iter().map(|g| g.end() - g.start() + 1).sum();
        problems.push(format!("{missing} record(s) never written"));
    }
    if !problems.is_empty() {
        summary.problem = Some(problems.join("; "));
    }
    summary
}

/// First non-blank line, sanitised, trimmed and shortened.
pub(crate) fn title_of(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let clean = sanitize(line);
    let clean = clean.trim();
    if clean.chars().count() <= TITLE_MAX_CHARS {
        Some(clean.to_string())
    } else {
        let cut: String = clean.chars().take(TITLE_MAX_CHARS - 1).collect();
        Some(format!("{}…", cut.trim_end()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_short_id_is_the_shortest_unique_prefix_of_at_least_eight() {
        let all = [
            "01a217c0-3f2a-7000-8000-000000000001",
            "01a217c0-3f9b-7000-8000-000000000002",
            "01a217c1-0000-7000-8000-000000000003",
            "01b00000-0000-7000-8000-000000000004",
            "aaaa1111",
        ];
        let short = short_ids(&all, &all);
        assert_eq!(short[all[0]], "01a217c0-3f2");
        assert_eq!(short[all[1]], "01a217c0-3f9");
        // Unique at 8: not cut shorter, and not on the dash.
        assert_eq!(short[all[2]], "01a217c1");
        assert_eq!(short[all[3]], "01b00000");
        assert_eq!(short["aaaa1111"], "aaaa1111");
        // Two that differ only after the dash: the cut goes past it.
        let pair = ["01a217c0-1000", "01a217c0-2000"];
        let short = short_ids(&pair, &pair);
        assert_eq!(short[pair[0]], "01a217c0-1");
    }

    #[test]
    fn title_is_the_first_nonblank_line_sanitised_and_shortened() {
        assert_eq!(title_of("\n  hello \nworld").as_deref(), Some("hello"));
        assert_eq!(title_of("a\u{1b}[31mred\u{202e}").as_deref(), Some("ared"));
        assert_eq!(title_of("   \n "), None);
        let long = "x".repeat(200);
        let t = title_of(&long).unwrap();
        assert_eq!(t.chars().count(), TITLE_MAX_CHARS);
        assert!(t.ends_with('…'));
    }
}
