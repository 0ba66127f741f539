//! Finding sessions: the `sessions` listing, resolving an id or prefix, the latest one.
//!
//! Strategy: listing reads each log once, read-only and without the lock, and folds its
//! records with the same `SessionOverview` the exports use; a log that cannot be read
//! still appears, with the reason, so nothing vanishes from the list silently. `latest` only looks at modification times (the log is append-only, so
//! its mtime is its last activity) and never parses anything.

use crate::core::overview::SessionOverview;
use crate::core::sanitize::sanitize;
use crate::store::error::StoreError;
use crate::store::log::scan;
use crate::store::paths::{DataDir, LOG_EXT, validate_id};
use chrono::{DateTime, Utc};
use std::fs;
use std::io;
use std::path::PathBuf;
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

/// The session written to most recently (by the log's modification time), if any.
pub fn latest(dir: &DataDir) -> Result<Option<String>, StoreError> {
    Ok(log_files(dir)?
        .into_iter()
        .max_by(|a, b| a.2.cmp(&b.2).then_with(|| a.0.cmp(&b.0)))
        .map(|(id, _, _)| id))
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
    let bytes = match fs::read(&summary.path) {
        Ok(b) => b,
        Err(e) => {
            summary.problem = Some(StoreError::io(&summary.path, "read", e).to_string());
            return summary;
        }
    };
    summary.size_bytes = bytes.len() as u64;
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
    summary.title = crate::store::manage::custom_title(&summary.path)
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
