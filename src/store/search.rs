//! Search across every session's log (`ollm-tui search`, `/search`): the logs keep every
//! message whole, folded or not, so a message compressed away long ago is still found.
//!
//! Strategy: a plain scan, made cheap by looking at bytes before parsing. Each log is read
//! once; a case-insensitive literal search (the `regex` crate, which finds literals with
//! SIMD) runs over its raw JSON lines for the text as JSON writes it, and only the lines
//! that contain it are parsed — almost none, for any useful search. A hit is confirmed in
//! the parsed message (a match inside a field name or another field does not count).
//! No index to build, keep in step or repair.
//!
//! Invariants: a damaged log is searched as far as it can be read, and what could not be
//! read is counted and said; sessions are listed newest first, hits in message order.

use crate::core::record::{Record, RecordBody};
use crate::core::sanitize::sanitize;
use crate::store::error::StoreError;
use crate::store::paths::DataDir;
use chrono::{DateTime, Utc};
use regex::bytes::RegexBuilder;
use std::fs;

/// Characters of context either side of a match in a snippet.
const BEFORE: usize = 40;
const AFTER: usize = 80;

/// One message that holds the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub session_id: String,
    /// The message's number (its record's seq), as `#N` on screen.
    pub seq: u64,
    pub ts: DateTime<Utc>,
    /// `user`, `assistant` or `tool`.
    pub role: &'static str,
    /// One line of the message around the match, sanitised.
    pub snippet: String,
    /// Where the match is in `snippet`, in bytes.
    pub matched: std::ops::Range<usize>,
}

/// A session with hits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionHits {
    pub session_id: String,
    pub title: Option<String>,
    pub last_activity: DateTime<Utc>,
    pub hits: Vec<Hit>,
}

/// Everything one search found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchReport {
    pub sessions: Vec<SessionHits>,
    pub sessions_searched: usize,
    /// Lines that held the text but could not be read (a damaged log), and in how many
    /// sessions.
    pub unreadable_lines: usize,
    pub damaged_sessions: Vec<String>,
    /// Logs that could not be read at all (with why).
    pub unreadable_sessions: Vec<(String, String)>,
    /// More hits than `limit`: the rest were not listed.
    pub truncated: bool,
}

impl SearchReport {
    pub fn hit_count(&self) -> usize {
        self.sessions.iter().map(|s| s.hits.len()).sum()
    }
}

/// Find `text` (case-insensitive) in every message of every session, at most `limit`
/// hits. Empty text finds nothing.
pub fn search(dir: &DataDir, text: &str, limit: usize) -> Result<SearchReport, StoreError> {
    let mut report = SearchReport::default();
    let needle = text.trim();
    if needle.is_empty() {
        return Ok(report);
    }
    // The text as it appears inside a JSON string (quotes, backslashes and control
    // characters escaped); serde_json writes other characters as they are.
    let escaped = serde_json::to_string(needle).unwrap_or_default();
    let escaped = &escaped[1..escaped.len().saturating_sub(1)];
    let raw = RegexBuilder::new(&regex::escape(escaped))
        .case_insensitive(true)
        .build()
        .map_err(|e| StoreError::Corrupt {
            path: dir.sessions_dir(),
            detail: format!("cannot search for {needle:?}: {e}"),
        })?;
    let lower = needle.to_lowercase();
    let mut logs = crate::store::sessions::log_files(dir)?;
    // Newest first, by the log's last write.
    logs.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| b.0.cmp(&a.0)));
    let mut total = 0usize;
    for (id, path, mtime) in logs {
        report.sessions_searched += 1;
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                report
                    .unreadable_sessions
                    .push((id, StoreError::io(&path, "read", e).to_string()));
                continue;
            }
        };
        let mut found = SessionHits {
            session_id: id.clone(),
            title: None,
            last_activity: DateTime::<Utc>::from(mtime),
            hits: Vec::new(),
        };
        let mut bad = 0usize;
        // The header line holds no message; a match there is not a hit.
        let body_start = memchr::memchr(b'\n', &bytes).map_or(bytes.len(), |i| i + 1);
        let mut at = body_start;
        while let Some(m) = raw.find_at(&bytes, at) {
            let start = memchr::memrchr(b'\n', &bytes[..m.start()]).map_or(0, |i| i + 1);
            let end = memchr::memchr(b'\n', &bytes[m.end()..]).map_or(bytes.len(), |i| m.end() + i);
            at = end.max(m.end());
            match serde_json::from_slice::<Record>(&bytes[start..end]) {
                Ok(r) => {
                    if let Some(hit) = hit_in(&id, &r, &lower) {
                        if total == limit {
                            report.truncated = true;
                            break;
                        }
                        total += 1;
                        found.hits.push(hit);
                    }
                }
                Err(_) => bad += 1,
            }
        }
        if bad > 0 {
            report.unreadable_lines += bad;
            report.damaged_sessions.push(id.clone());
        }
        if !found.hits.is_empty() {
            found.title = crate::store::manage::custom_title(&path)
                .or_else(|| first_user_title(&bytes[body_start..]));
            report.sessions.push(found);
        }
        if report.truncated {
            break;
        }
    }
    Ok(report)
}

/// The hit in `r`, if it is a message whose text holds `lower` (already lowercased).
fn hit_in(session: &str, r: &Record, lower: &str) -> Option<Hit> {
    let (role, text) = match &r.body {
        RecordBody::User { text, .. } => ("user", text),
        RecordBody::Assistant { text, .. } => ("assistant", text),
        RecordBody::Tool { result, .. } => ("tool", result),
        _ => return None,
    };
    let (snippet, matched) = snippet(text, lower)?;
    Some(Hit {
        session_id: session.to_string(),
        seq: r.seq,
        ts: r.ts,
        role,
        snippet,
        matched,
    })
}

/// One line around the first match of `lower` in `text`: up to `BEFORE` characters
/// before it and `AFTER` after, on one line, sanitised; with the match's byte range.
pub fn snippet(text: &str, lower: &str) -> Option<(String, std::ops::Range<usize>)> {
    // Lowercasing can change lengths (a few characters); find the match by characters.
    let chars: Vec<char> = text.chars().collect();
    let needle: Vec<char> = lower.chars().collect();
    if needle.is_empty() {
        return None;
    }
    let folded: Vec<char> = chars
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let at = folded
        .windows(needle.len())
        .position(|w| w == needle.as_slice())?;
    let from = at.saturating_sub(BEFORE);
    let to = (at + needle.len() + AFTER).min(chars.len());
    let flat = |cs: &[char]| -> String {
        let s: String = cs
            .iter()
            .map(|c| if c.is_whitespace() { ' ' } else { *c })
            .collect();
        sanitize(&s).into_owned()
    };
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.push_str(&flat(&chars[from..at]));
    let m_start = out.len();
    out.push_str(&flat(&chars[at..at + needle.len()]));
    let m_end = out.len();
    out.push_str(&flat(&chars[at + needle.len()..to]));
    if to < chars.len() {
        out.push('…');
    }
    Some((out, m_start..m_end))
}

/// The first user message's first line, as the session list titles it.
fn first_user_title(body: &[u8]) -> Option<String> {
    body.split(|b| *b == b'\n')
        .filter(|l| l.windows(13).any(|w| w == b"\"type\":\"user\""))
        .find_map(|l| match serde_json::from_slice::<Record>(l).ok()?.body {
            RecordBody::User { text, .. } => crate::store::sessions::title_of(&text),
            _ => None,
        })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_snippet_is_one_line_around_the_match_with_its_range() {
        let text = format!(
            "{}\nthe Cache service listens on port 6379\n{}",
            "a ".repeat(40),
            "b ".repeat(60)
        );
        let (s, m) = snippet(&text, "cache service").unwrap();
        assert_eq!(&s[m.clone()], "Cache service");
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(!s.contains('\n'));
        assert!(snippet("nothing here", "cache").is_none());
    }
}
