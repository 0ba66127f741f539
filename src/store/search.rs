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
//! Bounded, whatever the logs hold: each log is read a line at a time (never whole); a
//! line longer than [`MAX_LINE_BYTES`] — no message the app writes is that long, but a
//! crafted log may hold a 100 MB line — is not kept: it is scanned in pieces for the text
//! and, if it holds it, counted as a hit too long to show. The text searched for is at most
//! [`MAX_QUERY_CHARS`] characters (a 130 KB query made the matcher take 75 s and 1 GB),
//! and a snippet is cut from the message where the match is, without copying the message.
//!
//! Invariants: a damaged log is searched as far as it can be read, and what could not be
//! read is counted and said; sessions are listed newest first, hits in message order.

use crate::core::record::{Record, RecordBody};
use crate::core::sanitize::sanitize;
use crate::small_file;
use crate::store::error::StoreError;
use crate::store::paths::DataDir;
use chrono::{DateTime, Utc};
use regex::bytes::RegexBuilder;
use std::io::{BufRead, BufReader, Read};

/// Characters of context either side of a match in a snippet.
const BEFORE: usize = 40;
const AFTER: usize = 80;
/// The longest text a search looks for.
pub const MAX_QUERY_CHARS: usize = 256;
/// Log lines longer than this are scanned, not parsed (see the module docs).
pub const MAX_LINE_BYTES: usize = 16 << 20;
/// The piece a too-long line is scanned in.
const SCAN_CHUNK: usize = 1 << 20;

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
    /// Lines that hold the text but are too long to read ([`MAX_LINE_BYTES`]).
    pub too_long_lines: usize,
    /// More hits than `limit`: the rest were not listed.
    pub truncated: bool,
}

impl SearchReport {
    pub fn hit_count(&self) -> usize {
        self.sessions.iter().map(|s| s.hits.len()).sum()
    }
}

/// Find `text` (case-insensitive) in every message of every session, at most `limit`
/// hits. Empty text, or text over [`MAX_QUERY_CHARS`], is refused.
pub fn search(dir: &DataDir, text: &str, limit: usize) -> Result<SearchReport, StoreError> {
    let mut report = SearchReport::default();
    let needle = text.trim();
    if needle.is_empty() {
        return Err(StoreError::BadSearch(
            "nothing to search for: give the text to find".into(),
        ));
    }
    let chars = needle.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(StoreError::BadSearch(format!(
            "the search text is {chars} characters; a search looks for at most {MAX_QUERY_CHARS} (a phrase from the message)"
        )));
    }
    // The text as it appears inside a JSON string (quotes, backslashes and control
    // characters escaped); serde_json writes other characters as they are.
    let escaped = serde_json::to_string(needle).unwrap_or_default();
    let escaped = &escaped[1..escaped.len().saturating_sub(1)];
    let raw = RegexBuilder::new(&regex::escape(escaped))
        .case_insensitive(true)
        .build()
        .map_err(|e| StoreError::BadSearch(format!("cannot search for {needle:?}: {e}")))?;
    let in_text = regex::RegexBuilder::new(&regex::escape(needle))
        .case_insensitive(true)
        .build()
        .map_err(|e| StoreError::BadSearch(format!("cannot search for {needle:?}: {e}")))?;
    let mut logs = crate::store::sessions::log_files(dir)?;
    // Newest first, by the log's last write.
    logs.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| b.0.cmp(&a.0)));
    let mut total = 0usize;
    for (id, path, mtime) in logs {
        report.sessions_searched += 1;
        let mut reader = match small_file::open(&path, path.parent()) {
            Ok(f) => BufReader::with_capacity(256 * 1024, f),
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
        let mut first_user: Option<String> = None;
        // The title the model wrote (the last `title` record), read like the first message.
        let mut titled: Option<String> = None;
        let mut line = Vec::new();
        let mut header = true;
        loop {
            line.clear();
            let read = match read_line_bounded(&mut reader, &mut line, &raw, escaped.len()) {
                Ok(r) => r,
                Err(e) => {
                    report
                        .unreadable_sessions
                        .push((id.clone(), StoreError::io(&path, "read", e).to_string()));
                    break;
                }
            };
            let holds = match read {
                Line::End => break,
                Line::TooLong { holds } => {
                    header = false;
                    report.too_long_lines += usize::from(holds);
                    continue;
                }
                Line::Kept => raw.is_match(&line),
            };
            // The header line holds no message; a match there is not a hit.
            if std::mem::take(&mut header) {
                continue;
            }
            if first_user.is_none() && line.windows(13).any(|w| w == b"\"type\":\"user\"") {
                first_user = match serde_json::from_slice::<Record>(&line).map(|r| r.body) {
                    Ok(RecordBody::User { text, .. }) => crate::store::sessions::title_of(&text),
                    _ => None,
                };
            }
            if line.windows(14).any(|w| w == b"\"type\":\"title\"")
                && let Ok(Record {
                    body: RecordBody::Title { title },
                    ..
                }) = serde_json::from_slice::<Record>(&line)
            {
                titled = (!title.is_empty()).then_some(title);
            }
            if !holds {
                continue;
            }
            match serde_json::from_slice::<Record>(&line) {
                Ok(r) => {
                    if let Some(hit) = hit_in(&id, &r, &in_text) {
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
            found.title =
                crate::store::manage::custom_title(&path, titled.as_deref()).or(first_user);
            report.sessions.push(found);
        }
        if report.truncated {
            break;
        }
    }
    Ok(report)
}

/// How a line was read.
enum Line {
    /// In `buf`, whole (without its newline).
    Kept,
    /// Longer than [`MAX_LINE_BYTES`]: not kept; whether it holds the text.
    TooLong {
        holds: bool,
    },
    End,
}

/// Read one line into `buf`, unless it is longer than [`MAX_LINE_BYTES`]: then it is
/// read through in pieces, each (with an overlap of the needle's length) looked at for
/// the text, and only that is said.
fn read_line_bounded(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    raw: &regex::bytes::Regex,
    needle_len: usize,
) -> std::io::Result<Line> {
    let n = reader
        .by_ref()
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(Line::End);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        return Ok(Line::Kept);
    }
    if buf.len() <= MAX_LINE_BYTES {
        return Ok(Line::Kept);
    }
    // Too long: keep only an overlap while scanning the rest in pieces.
    let overlap = needle_len * 4 + 16;
    let mut holds = raw.is_match(buf);
    loop {
        let keep = buf.len().min(overlap);
        buf.drain(..buf.len() - keep);
        let before = buf.len();
        let got = reader
            .by_ref()
            .take(SCAN_CHUNK as u64)
            .read_until(b'\n', buf)?;
        let ended = got == 0 || buf.last() == Some(&b'\n');
        if !holds && buf.len() > before {
            holds = raw.is_match(buf);
        }
        if ended {
            buf.clear();
            return Ok(Line::TooLong { holds });
        }
    }
}

/// The hit in `r`, if it is a message whose text holds what `in_text` finds.
fn hit_in(session: &str, r: &Record, in_text: &regex::Regex) -> Option<Hit> {
    let (role, text) = match &r.body {
        RecordBody::User { text, .. } => ("user", text),
        RecordBody::Assistant { text, .. } => ("assistant", text),
        RecordBody::Tool { result, .. } => ("tool", result),
        _ => return None,
    };
    let (snippet, matched) = snippet(text, in_text)?;
    Some(Hit {
        session_id: session.to_string(),
        seq: r.seq,
        ts: r.ts,
        role,
        snippet,
        matched,
    })
}

/// One line around the first match of `in_text` in `text`: up to `BEFORE` characters
/// before it and `AFTER` after, on one line, sanitised; with the match's byte range. Only
/// the snippet is copied, however long the message.
pub fn snippet(text: &str, in_text: &regex::Regex) -> Option<(String, std::ops::Range<usize>)> {
    let m = in_text.find(text)?;
    let from = text[..m.start()]
        .char_indices()
        .rev()
        .nth(BEFORE - 1)
        .map_or(0, |(i, _)| i);
    let to = text[m.end()..]
        .char_indices()
        .nth(AFTER)
        .map_or(text.len(), |(i, _)| m.end() + i);
    let flat = |s: &str| -> String {
        let s: String = s
            .chars()
            .map(|c| if c.is_whitespace() { ' ' } else { c })
            .collect();
        sanitize(&s).into_owned()
    };
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.push_str(&flat(&text[from..m.start()]));
    let m_start = out.len();
    out.push_str(&flat(m.as_str()));
    let m_end = out.len();
    out.push_str(&flat(&text[m.end()..to]));
    if to < text.len() {
        out.push('…');
    }
    Some((out, m_start..m_end))
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
        let re = |t: &str| {
            regex::RegexBuilder::new(&regex::escape(t))
                .case_insensitive(true)
                .build()
                .unwrap()
        };
        let (s, m) = snippet(&text, &re("cache service")).unwrap();
        assert_eq!(&s[m.clone()], "Cache service");
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(!s.contains('\n'));
        assert!(snippet("nothing here", &re("cache")).is_none());
    }
}
