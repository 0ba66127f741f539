//! The session log: `sessions/<id>.jsonl`, a header line then one [`Record`] per line.
//!
//! Strategy: each record is serialised to one line (with its `\n`) and written with ONE
//! `write_all` on a file opened `O_APPEND`, so a crash can leave at most the final line
//! torn; `sync` (fdatasync) is called by the owner at turn boundaries. Loading reads the
//! whole file once and parses it line by line:
//! - a torn final line (unterminated and unparsable, or terminated and unparsable) is
//!   appended to `<id>.jsonl.corrupt` and cut off, so the next append starts on a fresh
//!   line. An unterminated final line that *does* parse is a complete record that only
//!   lost its `\n`: it is kept and the `\n` is added;
//! - a bad line elsewhere is skipped and reported with its line number; loading goes on;
//! - a header from a newer format version, or a file that is not ours, is refused with a
//!   typed error and left untouched.
//!
//! Invariants: seqs in the returned records are strictly increasing (a line whose seq does
//! not follow is skipped and reported); `append` refuses a seq not greater than the last;
//! after a failed write the partial line is cut off before anything else is appended.
//! Replaying records into state is the engine's job; this module only returns them.

use crate::core::record::{FORMAT_VERSION, Header, LOG_FORMAT, Record};
use crate::store::error::StoreError;
use crate::store::fsutil::{open_private, sync_dir};
use crate::store::paths::{DataDir, validate_id};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A session log open for appending. The caller holds the session lock (see
/// [`crate::store::FileStore`], which takes it before opening).
#[derive(Debug)]
pub struct SessionLog {
    file: File,
    path: PathBuf,
    session_id: String,
    last_seq: u64,
    /// Bytes up to the end of the last complete line.
    len: u64,
    /// A write failed part-way: cut the file back to `len` before the next append.
    dirty: bool,
}

/// Everything a load found: the header, the good records in order, and what was skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedLog {
    pub header: Header,
    pub records: Vec<Record>,
    pub report: LoadReport,
}

impl LoadedLog {
    /// Seq of the last record, 0 for an empty log.
    pub fn last_seq(&self) -> u64 {
        self.records.last().map_or(0, |r| r.seq)
    }
}

/// What loading had to skip or set aside. Shown to the user when not clean, in the app's
/// words (`app::words::load_report`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadReport {
    pub skipped: Vec<SkippedLine>,
    pub torn_tail: Option<TornTail>,
    /// Seqs missing between two good lines with nothing skipped between them: records
    /// that were never written (a write failed and the record was not kept for a retry).
    pub gaps: Vec<std::ops::RangeInclusive<u64>>,
}

/// A line that could not be used; the line stays in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedLine {
    /// 1-based line number in the file (the header is line 1).
    pub line: usize,
    pub reason: String,
}

/// An incomplete final line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    /// Byte offset where it started in the log.
    pub offset: u64,
    pub len: u64,
    /// The `.corrupt` file it was appended to; `None` when loading read-only.
    pub set_aside: Option<PathBuf>,
}

impl LoadReport {
    pub fn is_clean(&self) -> bool {
        self.skipped.is_empty() && self.torn_tail.is_none() && self.gaps.is_empty()
    }
}

impl SessionLog {
    /// Create `sessions/<id>.jsonl` with its header line (synced, directory synced).
    /// The header's `format` and `format_version` are set to this build's. Refuses to
    /// overwrite an existing session.
    pub fn create(dir: &DataDir, mut header: Header) -> Result<SessionLog, StoreError> {
        validate_id("session", &header.session_id)?;
        header.format = LOG_FORMAT.to_string();
        header.format_version = FORMAT_VERSION;
        let path = dir.session_log_path(&header.session_id);
        let mut line = serde_json::to_vec(&header).map_err(|source| StoreError::Encode {
            what: "session header",
            source,
        })?;
        line.push(b'\n');

        let mut file = match open_private(
            &path,
            OpenOptions::new().read(true).append(true).create_new(true),
            "create session log",
        ) {
            Err(StoreError::Io { source, .. }) if source.kind() == io::ErrorKind::AlreadyExists => {
                return Err(StoreError::AlreadyExists {
                    what: "session",
                    id: header.session_id,
                    path,
                });
            }
            other => other?,
        };
        let written = file
            .write_all(&line)
            .and_then(|()| file.sync_data())
            .map_err(|e| StoreError::io(&path, "write header to", e));
        if let Err(e) = written {
            // Leave no half-created session behind; the id can be tried again.
            drop(file);
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        sync_dir(&dir.sessions_dir())?;
        Ok(SessionLog {
            file,
            path,
            session_id: header.session_id,
            last_seq: 0,
            len: line.len() as u64,
            dirty: false,
        })
    }

    /// Open an existing log for appending, repairing a torn tail (see the module docs).
    pub fn open(dir: &DataDir, session_id: &str) -> Result<(SessionLog, LoadedLog), StoreError> {
        validate_id("session", session_id)?;
        let path = dir.session_log_path(session_id);
        let mut file = open_existing(
            &path,
            session_id,
            OpenOptions::new().read(true).append(true),
        )?;
        let bytes = read_all(&mut file, &path)?;
        let scan = scan(&bytes, &path)?;

        let mut len = scan.good_len as u64;
        let mut torn_tail = None;
        if let Some(range) = &scan.torn {
            let corrupt = dir.corrupt_path(session_id);
            set_aside(&corrupt, &bytes[range.clone()])?;
            file.set_len(len)
                .and_then(|()| file.sync_data())
                .map_err(|e| StoreError::io(&path, "cut the incomplete last line off", e))?;
            torn_tail = Some(TornTail {
                offset: range.start as u64,
                len: range.len() as u64,
                set_aside: Some(corrupt),
            });
        } else if scan.missing_newline {
            file.write_all(b"\n")
                .and_then(|()| file.sync_data())
                .map_err(|e| StoreError::io(&path, "end the last line of", e))?;
            len += 1;
        }

        let last_seq = scan.items.last().map_or(0, |r| r.seq);
        let log = SessionLog {
            file,
            path,
            session_id: session_id.to_string(),
            last_seq,
            len,
            dirty: false,
        };
        let loaded = LoadedLog {
            header: scan.header,
            records: scan.items,
            report: LoadReport {
                skipped: scan.skipped,
                torn_tail,
                gaps: scan.gaps,
            },
        };
        Ok((log, loaded))
    }

    /// Load without modifying anything and without the lock (listing, export). A torn tail
    /// is reported but stays in place.
    pub fn read(dir: &DataDir, session_id: &str) -> Result<LoadedLog, StoreError> {
        validate_id("session", session_id)?;
        let path = dir.session_log_path(session_id);
        let mut file = open_existing(&path, session_id, OpenOptions::new().read(true))?;
        let bytes = read_all(&mut file, &path)?;
        let scan = scan(&bytes, &path)?;
        Ok(LoadedLog {
            header: scan.header,
            records: scan.items,
            report: LoadReport {
                skipped: scan.skipped,
                gaps: scan.gaps,
                torn_tail: scan.torn.map(|r| TornTail {
                    offset: r.start as u64,
                    len: r.len() as u64,
                    set_aside: None,
                }),
            },
        })
    }

    /// Append one record as one line with one write. Its seq must exceed the last one.
    pub fn append(&mut self, record: &Record) -> Result<(), StoreError> {
        if record.seq <= self.last_seq {
            return Err(StoreError::SeqOrder {
                path: self.path.clone(),
                seq: record.seq,
                last: self.last_seq,
            });
        }
        let mut line = serde_json::to_vec(record).map_err(|source| StoreError::Encode {
            what: "record",
            source,
        })?;
        line.push(b'\n');
        self.repair()?;
        if let Err(e) = self.file.write_all(&line) {
            self.dirty = true;
            // Best effort now; if it fails, the next append retries it and reports.
            let _ = self.repair();
            return Err(StoreError::io(&self.path, "append to", e));
        }
        self.len += line.len() as u64;
        self.last_seq = record.seq;
        Ok(())
    }

    /// fdatasync: everything appended so far survives a crash once this returns.
    pub fn sync(&mut self) -> Result<(), StoreError> {
        self.file
            .sync_data()
            .map_err(|e| StoreError::io(&self.path, "fsync", e))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Seq of the last record in the file (0 when there is none).
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Length of the log in bytes, up to the end of the last complete line.
    pub fn len_bytes(&self) -> u64 {
        self.len
    }

    fn repair(&mut self) -> Result<(), StoreError> {
        if self.dirty {
            self.file
                .set_len(self.len)
                .map_err(|e| StoreError::io(&self.path, "cut a partly written line off", e))?;
            self.dirty = false;
        }
        Ok(())
    }

    /// A log over an already open file, for exercising write failures (e.g. `/dev/full`).
    #[cfg(test)]
    pub(crate) fn over_file(file: File, path: PathBuf, last_seq: u64) -> SessionLog {
        SessionLog {
            file,
            path,
            session_id: "test".to_string(),
            last_seq,
            len: 0,
            dirty: false,
        }
    }
}

fn open_existing(
    path: &Path,
    session_id: &str,
    opts: &mut OpenOptions,
) -> Result<File, StoreError> {
    match open_private(path, opts, "open session log") {
        Err(StoreError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
            Err(StoreError::NotFound {
                what: "session",
                id: session_id.to_string(),
                path: path.parent().map(Path::to_path_buf).unwrap_or_default(),
            })
        }
        other => other,
    }
}

fn read_all(file: &mut File, path: &Path) -> Result<Vec<u8>, StoreError> {
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| StoreError::io(path, "read", e))?;
    Ok(bytes)
}

/// Append a torn tail to the `.corrupt` file, ending it with `\n` so tails stay apart.
fn set_aside(corrupt: &Path, tail: &[u8]) -> Result<(), StoreError> {
    let mut file = open_private(
        corrupt,
        OpenOptions::new().append(true).create(true),
        "open",
    )?;
    let mut buf = tail.to_vec();
    if !buf.ends_with(b"\n") {
        buf.push(b'\n');
    }
    file.write_all(&buf)
        .and_then(|()| file.sync_data())
        .map_err(|e| StoreError::io(corrupt, "write the incomplete last line to", e))
}

/// The result of parsing a log's bytes, before anything is repaired.
#[derive(Debug)]
pub(crate) struct Scan {
    pub header: Header,
    pub items: Vec<Record>,
    pub skipped: Vec<SkippedLine>,
    pub gaps: Vec<std::ops::RangeInclusive<u64>>,
    /// Byte range of a torn final line (to the end of the file).
    pub torn: Option<Range<usize>>,
    /// Bytes to keep: up to the end of the last line that is not torn.
    pub good_len: usize,
    /// The last kept line parsed but has no `\n`.
    pub missing_newline: bool,
}

/// Parse a whole log.
pub(crate) fn scan(bytes: &[u8], path: &Path) -> Result<Scan, StoreError> {
    if bytes.is_empty() {
        return Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            detail: "the file is empty; its header line is missing".to_string(),
        });
    }
    let (header_end, header_terminated) = line_end(bytes, 0);
    let header = parse_header(&bytes[..header_end], path, header_terminated)?;
    let mut out = Scan {
        header,
        items: Vec::new(),
        skipped: Vec::new(),
        gaps: Vec::new(),
        torn: None,
        good_len: bytes.len().min(header_end + 1),
        missing_newline: !header_terminated,
    };
    let mut last_seq = 0u64;
    // A gap right after a skipped line is that line's record, already reported.
    let mut skipped_since = false;
    let mut pos = out.good_len;
    let mut line_no = 1usize;
    while pos < bytes.len() {
        line_no += 1;
        let (end, terminated) = line_end(bytes, pos);
        let line = &bytes[pos..end];
        let next = if terminated { end + 1 } else { end };
        let is_last = next >= bytes.len();
        if line.trim_ascii().is_empty() {
            if !terminated {
                out.torn = Some(pos..bytes.len());
                break;
            }
            // A blank line carries nothing; step over it.
            out.good_len = next;
            pos = next;
            continue;
        }
        match serde_json::from_slice::<Record>(line) {
            Ok(item) => {
                out.missing_newline = !terminated;
                let seq = item.seq;
                if seq > last_seq {
                    if seq > last_seq + 1 && !skipped_since {
                        out.gaps.push(last_seq + 1..=seq - 1);
                    }
                    skipped_since = false;
                    last_seq = seq;
                    out.items.push(item);
                } else {
                    out.skipped.push(SkippedLine {
                        line: line_no,
                        reason: format!("seq {seq} does not follow seq {last_seq}"),
                    });
                }
                out.good_len = next;
            }
            Err(_) if is_last => {
                out.torn = Some(pos..bytes.len());
                break;
            }
            Err(e) => {
                out.skipped.push(SkippedLine {
                    line: line_no,
                    reason: e.to_string(),
                });
                skipped_since = true;
                out.good_len = next;
            }
        }
        pos = next;
    }
    Ok(out)
}

/// End of the line starting at `from` (exclusive of `\n`) and whether a `\n` ends it.
fn line_end(bytes: &[u8], from: usize) -> (usize, bool) {
    match memchr::memchr(b'\n', &bytes[from..]) {
        Some(i) => (from + i, true),
        None => (bytes.len(), false),
    }
}

fn parse_header(line: &[u8], path: &Path, terminated: bool) -> Result<Header, StoreError> {
    let corrupt = |detail: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        detail,
    };
    let not_ours = |detail: String| StoreError::NotOurFormat {
        path: path.to_path_buf(),
        detail,
    };
    let value: serde_json::Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) if line.trim_ascii_start().starts_with(b"{") => {
            let what = if terminated {
                "the header line is garbled"
            } else {
                "the header line is incomplete (interrupted while the session was created)"
            };
            return Err(corrupt(format!("{what}: {e}")));
        }
        Err(_) => return Err(not_ours("its first line is not a JSON header".to_string())),
    };
    let Some(obj) = value.as_object() else {
        return Err(not_ours("its first line is not a JSON object".to_string()));
    };
    match obj.get("format").and_then(|f| f.as_str()) {
        Some(LOG_FORMAT) => {}
        Some(other) => {
            return Err(not_ours(format!(
                "format {other:?}, expected {LOG_FORMAT:?}"
            )));
        }
        None => {
            return Err(not_ours(format!(
                "no \"format\": {LOG_FORMAT:?} in its header"
            )));
        }
    }
    let Some(found) = obj.get("format_version").and_then(|v| v.as_u64()) else {
        return Err(corrupt(
            "the header has no numeric format_version".to_string(),
        ));
    };
    if found > u64::from(FORMAT_VERSION) {
        return Err(StoreError::UnsupportedVersion {
            path: path.to_path_buf(),
            found: u32::try_from(found).unwrap_or(u32::MAX),
            supported: FORMAT_VERSION,
        });
    }
    serde_json::from_value(value).map_err(|e| corrupt(format!("the header is invalid: {e}")))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::message::ReplyStatus;
    use crate::core::record::RecordBody;
    use chrono::{TimeZone, Utc};

    fn header(id: &str) -> Header {
        Header {
            format: LOG_FORMAT.to_string(),
            format_version: FORMAT_VERSION,
            session_id: id.to_string(),
            app_version: "test".to_string(),
            model: "m".to_string(),
            created: Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap(),
            ctx: None,
            mode: Default::default(),
            fork_of: None,
            params: Default::default(),
        }
    }

    fn user(seq: u64, text: &str) -> Record {
        Record {
            seq,
            ts: Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap(),
            body: RecordBody::User {
                text: text.to_string(),
                pinned: false,
                tokens: None,
                images: Vec::new(),
            },
        }
    }

    fn log_bytes(records: &[Record]) -> Vec<u8> {
        let mut out = serde_json::to_vec(&header("s")).unwrap();
        out.push(b'\n');
        for r in records {
            out.extend(serde_json::to_vec(r).unwrap());
            out.push(b'\n');
        }
        out
    }

    #[test]
    fn scan_reads_header_and_records() {
        let bytes = log_bytes(&[user(1, "a"), user(2, "b")]);
        let s = scan(&bytes, Path::new("x")).unwrap();
        assert_eq!(s.header.session_id, "s");
        assert_eq!(s.items.len(), 2);
        assert!(s.torn.is_none() && s.skipped.is_empty() && !s.missing_newline);
        assert_eq!(s.good_len, bytes.len());
    }

    #[test]
    fn a_gap_in_seq_is_reported_unless_a_skipped_line_explains_it() {
        let bytes = log_bytes(&[user(1, "a"), user(2, "b"), user(5, "c"), user(6, "d")]);
        let s = scan(&bytes, Path::new("x")).unwrap();
        assert_eq!(s.items.len(), 4, "everything readable is kept");
        assert_eq!(s.gaps, [3..=4]);
        let report = LoadReport {
            skipped: s.skipped,
            torn_tail: None,
            gaps: s.gaps,
        };
        assert!(!report.is_clean());
        // A line that could not be read is reported as skipped, not also as a gap.
        let mut bytes = log_bytes(&[user(1, "a")]);
        bytes.extend_from_slice(b"{not json}\n");
        bytes.extend(
            log_bytes(&[user(3, "c")])
                .split(|b| *b == b'\n')
                .nth(1)
                .unwrap(),
        );
        bytes.push(b'\n');
        let s = scan(&bytes, Path::new("x")).unwrap();
        assert_eq!(s.skipped.len(), 1);
        assert!(s.gaps.is_empty(), "{:?}", s.gaps);
    }

    #[test]
    fn out_of_order_seq_is_skipped_not_fatal() {
        let bytes = log_bytes(&[user(1, "a"), user(3, "b"), user(2, "c"), user(4, "d")]);
        let s = scan(&bytes, Path::new("x")).unwrap();
        let seqs: Vec<u64> = s.items.iter().map(|r| r.seq).collect();
        assert_eq!(seqs, [1, 3, 4]);
        assert_eq!(s.skipped.len(), 1);
        assert_eq!(s.skipped[0].line, 4);
        assert!(
            s.skipped[0].reason.contains("seq 2"),
            "{}",
            s.skipped[0].reason
        );
    }

    #[test]
    fn blank_lines_are_stepped_over() {
        let mut bytes = log_bytes(&[user(1, "a")]);
        bytes.extend(b"\n  \n");
        bytes.extend(serde_json::to_vec(&user(2, "b")).unwrap());
        bytes.push(b'\n');
        let s = scan(&bytes, Path::new("x")).unwrap();
        assert_eq!(s.items.len(), 2);
        assert!(s.skipped.is_empty() && s.torn.is_none());
    }

    #[test]
    fn nul_filled_tail_counts_as_torn() {
        // What some file systems leave after a crash: the size grew, the data did not land.
        let mut bytes = log_bytes(&[user(1, "a")]);
        let good = bytes.len();
        bytes.extend([0u8; 64]);
        let s = scan(&bytes, Path::new("x")).unwrap();
        assert_eq!(s.items.len(), 1);
        assert_eq!(s.torn, Some(good..good + 64));
        assert_eq!(s.good_len, good);
    }

    #[test]
    fn header_errors_are_typed() {
        let p = Path::new("x");
        assert!(matches!(scan(b"", p), Err(StoreError::Corrupt { .. })));
        assert!(matches!(
            scan(b"hello world\n", p),
            Err(StoreError::NotOurFormat { .. })
        ));
        assert!(matches!(
            scan(b"{\"format\":\"other\",\"format_version\":1}\n", p),
            Err(StoreError::NotOurFormat { .. })
        ));
        assert!(matches!(
            scan(b"{\"format\":\"ollm-session\",\"format_versi", p),
            Err(StoreError::Corrupt { .. })
        ));
        let newer = format!(
            "{{\"format\":\"ollm-session\",\"format_version\":{},\"whatever\":true}}\n",
            FORMAT_VERSION + 1
        );
        match scan(newer.as_bytes(), p) {
            Err(StoreError::UnsupportedVersion {
                found, supported, ..
            }) => {
                assert_eq!((found, supported), (FORMAT_VERSION + 1, FORMAT_VERSION));
            }
            other => panic!("expected UnsupportedVersion, got {other:?}"),
        }
    }

    #[test]
    fn write_error_surfaces_and_does_not_advance_seq() {
        let Ok(full) = OpenOptions::new().append(true).open("/dev/full") else {
            return; // no /dev/full on this system
        };
        let mut log = SessionLog::over_file(full, PathBuf::from("/dev/full"), 0);
        let err = log.append(&user(1, "hello")).unwrap_err();
        assert_eq!(err.io_kind(), Some(io::ErrorKind::StorageFull), "{err}");
        assert!(err.to_string().contains("/dev/full"), "{err}");
        assert_eq!(log.last_seq(), 0);
        // The failure is not forgotten: the next append reports again rather than
        // writing after a partial line.
        assert!(log.append(&user(1, "hello")).is_err());
    }

    #[test]
    fn assistant_interrupted_survives_a_round_trip_through_scan() {
        let r = Record {
            seq: 1,
            ts: Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap(),
            body: RecordBody::Assistant {
                text: "partial".to_string(),
                status: ReplyStatus::Interrupted,
                model: "m".to_string(),
                prompt_eval_count: None,
                prompt_estimate: None,
                eval_count: None,
                tokens: None,
                prompt_eval_cached: None,
                tool_calls: Vec::new(),
                thinking: String::new(),
            },
        };
        let s = scan(&log_bytes(std::slice::from_ref(&r)), Path::new("x")).unwrap();
        assert_eq!(s.items, [r]);
    }
}
