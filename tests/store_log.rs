//! Session log: round trips, torn tails at every byte offset, bad middle lines, versions,
//! seq order, linear size.
#![allow(clippy::unwrap_used)]

#[path = "store_fixtures.rs"]
mod fixtures;

use fixtures::*;
use ollm_tui::app::words;
use ollm_tui::core::message::ReplyStatus;
use ollm_tui::core::record::{FORMAT_VERSION, Record};
use ollm_tui::store::{DataDir, SessionLog, StoreError};
use std::fs;

/// A log with `n` user/assistant records whose texts vary in length and include
/// multi-byte UTF-8, so cuts land mid-character too.
fn write_log(dir: &DataDir, id: &str, n: u64) -> Vec<Record> {
    let mut log = SessionLog::create(dir, header(id)).unwrap();
    let records: Vec<Record> = (1..=n)
        .map(|i| {
            let text = format!("msg {i} {} ünï ✓", "x".repeat((i % 7) as usize));
            if i % 2 == 1 {
                user(i, &text)
            } else {
                assistant(i, &text, ReplyStatus::Complete)
            }
        })
        .collect();
    for r in &records {
        log.append(r).unwrap();
    }
    log.sync().unwrap();
    records
}

#[test]
fn every_record_variant_round_trips() {
    let (_tmp, dir) = data_dir();
    let records = every_variant(1);
    {
        let mut log = SessionLog::create(&dir, header("s")).unwrap();
        for r in &records {
            log.append(r).unwrap();
        }
        log.sync().unwrap();
        assert_eq!(log.last_seq(), records.len() as u64);
    }
    let (log, loaded) = SessionLog::open(&dir, "s").unwrap();
    assert_eq!(loaded.header, header("s"));
    assert_eq!(loaded.records, records);
    assert!(loaded.report.is_clean(), "{:?}", loaded.report);
    assert_eq!(log.last_seq(), records.len() as u64);
    assert_eq!(SessionLog::read(&dir, "s").unwrap(), loaded);
}

#[test]
fn each_record_is_one_line_after_the_header() {
    let (_tmp, dir) = data_dir();
    let records = write_log(&dir, "s", 5);
    let text = fs::read_to_string(dir.session_log_path("s")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + records.len());
    let head: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(head["format"], "ollm-session");
    assert_eq!(head["format_version"], FORMAT_VERSION);
    assert_eq!(head["session_id"], "s");
    assert_eq!(head["model"], "llama3.2:3b");
    assert!(head["created"].is_string() && head["app_version"].is_string());
    for (line, r) in lines[1..].iter().zip(&records) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["seq"], r.seq);
        assert!(v["ts"].is_string());
        assert_eq!(v["type"], r.body.kind());
    }
    assert!(text.ends_with('\n'));
}

#[test]
fn torn_tail_at_every_byte_offset_is_set_aside_and_the_log_stays_appendable() {
    let (_tmp, dir) = data_dir();
    let records = write_log(&dir, "s", 50);
    let path = dir.session_log_path("s");
    let corrupt = dir.corrupt_path("s");
    let full = fs::read(&path).unwrap();
    let ends: Vec<usize> = full
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i)
        .collect();
    assert_eq!(ends.len(), 51);

    for cut in 0..full.len() {
        let prefix = &full[..cut];
        fs::write(&path, prefix).unwrap();
        let _ = fs::remove_file(&corrupt);

        // Lines (header included) whose content lies wholly inside the prefix.
        let complete = ends.iter().filter(|&&e| e <= cut).count();
        if complete == 0 {
            // Cut inside the header: a clear error, and nothing is touched.
            let err = SessionLog::open(&dir, "s").unwrap_err();
            assert!(
                matches!(err, StoreError::Corrupt { .. }),
                "cut {cut}: {err:?}"
            );
            assert_eq!(fs::read(&path).unwrap(), prefix, "cut {cut}");
            assert!(!corrupt.exists());
            continue;
        }
        let kept = complete - 1;
        let last_end = ends[complete - 1];
        let (mut log, loaded) = SessionLog::open(&dir, "s").unwrap();
        assert_eq!(loaded.records, records[..kept], "cut {cut}");
        assert!(loaded.report.skipped.is_empty(), "cut {cut}");

        let after = fs::read(&path).unwrap();
        if last_end == cut {
            // Only the final '\n' was lost: the record is whole and kept, the '\n' added.
            assert!(loaded.report.torn_tail.is_none(), "cut {cut}");
            assert_eq!(after, &full[..cut + 1], "cut {cut}");
        } else if last_end + 1 == cut {
            assert!(loaded.report.is_clean(), "cut {cut}");
            assert_eq!(after, prefix, "cut {cut}");
        } else {
            let good = last_end + 1;
            let torn = loaded.report.torn_tail.as_ref().unwrap();
            assert_eq!((torn.offset, torn.len), (good as u64, (cut - good) as u64));
            assert_eq!(torn.set_aside.as_deref(), Some(corrupt.as_path()));
            let mut expect = full[good..cut].to_vec();
            expect.push(b'\n');
            assert_eq!(fs::read(&corrupt).unwrap(), expect, "cut {cut}");
            assert_eq!(after, &full[..good], "cut {cut}");
        }

        let next = user(kept as u64 + 1, "after recovery");
        log.append(&next).unwrap();
        drop(log);
        let again = SessionLog::read(&dir, "s").unwrap();
        assert!(again.report.is_clean(), "cut {cut}: {:?}", again.report);
        assert_eq!(again.records.len(), kept + 1, "cut {cut}");
        assert_eq!(again.records[kept], next, "cut {cut}");
    }
}

#[test]
fn torn_tails_accumulate_in_the_corrupt_file_and_appends_count_up() {
    let (_tmp, dir) = data_dir();
    write_log(&dir, "s", 3);
    let path = dir.session_log_path("s");
    for (round, junk) in [&b"{\"seq\":4,\"ts\":\"20"[..], &b"\0\0\0\0"[..]]
        .into_iter()
        .enumerate()
    {
        let mut bytes = fs::read(&path).unwrap();
        bytes.extend_from_slice(junk);
        fs::write(&path, bytes).unwrap();
        let (mut log, loaded) = SessionLog::open(&dir, "s").unwrap();
        assert_eq!(loaded.records.len(), 3 + round);
        assert!(
            words::load_report(&loaded.report).contains("set aside"),
            "{:?}",
            loaded.report
        );
        log.append(&user(4 + round as u64, "next")).unwrap();
    }
    let corrupt = fs::read(dir.corrupt_path("s")).unwrap();
    assert_eq!(corrupt, b"{\"seq\":4,\"ts\":\"20\n\0\0\0\0\n");
    let loaded = SessionLog::read(&dir, "s").unwrap();
    assert_eq!(loaded.records.len(), 5);
    assert!(loaded.report.is_clean());
}

#[test]
fn read_only_load_reports_a_torn_tail_without_touching_the_file() {
    let (_tmp, dir) = data_dir();
    write_log(&dir, "s", 3);
    let path = dir.session_log_path("s");
    let mut bytes = fs::read(&path).unwrap();
    bytes.extend_from_slice(b"{\"seq\":4");
    fs::write(&path, &bytes).unwrap();
    let loaded = SessionLog::read(&dir, "s").unwrap();
    assert_eq!(loaded.records.len(), 3);
    let torn = loaded.report.torn_tail.unwrap();
    assert_eq!((torn.len, torn.set_aside), (8, None));
    assert_eq!(fs::read(&path).unwrap(), bytes);
    assert!(!dir.corrupt_path("s").exists());
}

#[test]
fn a_corrupt_middle_line_is_skipped_and_counted_never_the_rest() {
    let (_tmp, dir) = data_dir();
    let records = write_log(&dir, "s", 50);
    let path = dir.session_log_path("s");
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    // Line 21 of the file holds record 20; damage it the way a bad sector or an editor
    // might: valid prefix, garbage after.
    lines[20] = format!("{}#@!garbage", &lines[20][..15]);
    let damaged = lines.join("\n") + "\n";
    fs::write(&path, &damaged).unwrap();

    let (mut log, loaded) = SessionLog::open(&dir, "s").unwrap();
    let expected: Vec<Record> = records.iter().filter(|r| r.seq != 20).cloned().collect();
    assert_eq!(loaded.records, expected);
    assert_eq!(loaded.report.skipped.len(), 1);
    assert_eq!(loaded.report.skipped[0].line, 21);
    assert!(loaded.report.torn_tail.is_none());
    assert_eq!(
        words::load_report(&loaded.report),
        "1 record skipped (line 21)",
        "the user-facing summary"
    );
    // The bad line stays where it is (nothing is rewritten) and appends continue.
    assert_eq!(fs::read_to_string(&path).unwrap(), damaged);
    log.append(&user(51, "more")).unwrap();
    drop(log);
    let again = SessionLog::read(&dir, "s").unwrap();
    assert_eq!(again.records.len(), 50);
    assert_eq!(again.report.skipped.len(), 1);
}

#[test]
fn a_corrupt_middle_line_and_a_torn_tail_together() {
    let (_tmp, dir) = data_dir();
    write_log(&dir, "s", 10);
    let path = dir.session_log_path("s");
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines[3] = "not json at all".to_string();
    let damaged = lines.join("\n") + "\n{\"seq\":11,\"ts";
    fs::write(&path, damaged).unwrap();
    let (_log, loaded) = SessionLog::open(&dir, "s").unwrap();
    assert_eq!(loaded.records.len(), 9);
    assert_eq!(loaded.report.skipped[0].line, 4);
    assert_eq!(loaded.report.torn_tail.as_ref().unwrap().len, 13);
}

#[test]
fn a_newer_format_version_is_refused_and_the_file_left_untouched() {
    let (_tmp, dir) = data_dir();
    write_log(&dir, "s", 3);
    let path = dir.session_log_path("s");
    let text = fs::read_to_string(&path).unwrap();
    let newer = text.replacen(
        &format!("\"format_version\":{FORMAT_VERSION}"),
        "\"format_version\":7",
        1,
    );
    // A newer build may also have added header fields we do not know.
    let newer = newer.replacen("{", "{\"future_field\":[1,2],", 1);
    fs::write(&path, &newer).unwrap();
    let mtime = fs::metadata(&path).unwrap().modified().unwrap();

    let err = SessionLog::open(&dir, "s").unwrap_err();
    match &err {
        StoreError::UnsupportedVersion {
            found, supported, ..
        } => assert_eq!((*found, *supported), (7, FORMAT_VERSION)),
        other => panic!("expected UnsupportedVersion, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(msg.contains("format version 7"), "{msg}");
    assert!(msg.contains("reads up to version 1"), "{msg}");
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("untouched"), "{msg}");

    assert_eq!(fs::read_to_string(&path).unwrap(), newer);
    assert_eq!(fs::metadata(&path).unwrap().modified().unwrap(), mtime);
    assert!(!dir.corrupt_path("s").exists());
    assert!(matches!(
        SessionLog::read(&dir, "s"),
        Err(StoreError::UnsupportedVersion { .. })
    ));
}

#[test]
fn missing_or_foreign_headers_get_clear_errors() {
    let (_tmp, dir) = data_dir();
    let path = dir.session_log_path("s");
    let cases: [(&[u8], &str); 4] = [
        (b"", "header line is missing"),
        (b"just some notes\n", "not an ollm-tui file"),
        (b"{\"format\":\"something-else\"}\n", "not an ollm-tui file"),
        (
            b"{\"format\":\"ollm-session\",\"format_version\":1}\n",
            "header is invalid",
        ),
    ];
    for (bytes, expect) in cases {
        fs::write(&path, bytes).unwrap();
        let msg = SessionLog::open(&dir, "s").unwrap_err().to_string();
        assert!(msg.contains(expect), "{bytes:?}: {msg}");
        assert_eq!(fs::read(&path).unwrap(), bytes);
    }
}

#[test]
fn seqs_must_increase_on_append_and_across_reopen() {
    let (_tmp, dir) = data_dir();
    let mut log = SessionLog::create(&dir, header("s")).unwrap();
    log.append(&user(5, "a")).unwrap();
    for bad in [5, 3, 0] {
        match log.append(&user(bad, "b")).unwrap_err() {
            StoreError::SeqOrder { seq, last, .. } => assert_eq!((seq, last), (bad, 5)),
            other => panic!("expected SeqOrder, got {other:?}"),
        }
    }
    drop(log);
    let (mut log, loaded) = SessionLog::open(&dir, "s").unwrap();
    assert_eq!(loaded.records.len(), 1);
    assert_eq!(loaded.last_seq(), 5);
    assert!(log.append(&user(5, "c")).is_err());
    log.append(&user(6, "c")).unwrap();
}

#[test]
fn create_refuses_an_existing_session_and_open_a_missing_one() {
    let (_tmp, dir) = data_dir();
    write_log(&dir, "s", 2);
    let before = fs::read(dir.session_log_path("s")).unwrap();
    assert!(matches!(
        SessionLog::create(&dir, header("s")),
        Err(StoreError::AlreadyExists { .. })
    ));
    assert_eq!(fs::read(dir.session_log_path("s")).unwrap(), before);
    assert!(matches!(
        SessionLog::open(&dir, "nope"),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        SessionLog::open(&dir, "../escape"),
        Err(StoreError::InvalidId { .. })
    ));
}

#[test]
fn file_size_is_linear_in_content() {
    let (_tmp, dir) = data_dir();
    let mut sizes = Vec::new();
    for (id, n) in [("ten", 10u64), ("thousand", 1000)] {
        let mut log = SessionLog::create(&dir, header(id)).unwrap();
        let header_len = log.len_bytes();
        let mut line_len = 0;
        for i in 1..=n {
            let r = user(i, &"y".repeat(200));
            line_len = serde_json::to_vec(&r).unwrap().len() as u64 + 1;
            log.append(&r).unwrap();
        }
        let size = fs::metadata(log.path()).unwrap().len();
        assert_eq!(size, log.len_bytes());
        // Exactly header + n lines (seq digits aside, every line is the same size).
        let digits_extra: u64 = (1..=n).map(|i| i.to_string().len() as u64 - 1).sum();
        let one_digit_line = line_len - (n.to_string().len() as u64 - 1);
        assert_eq!(size, header_len + n * one_digit_line + digits_extra);
        sizes.push(size - header_len);
    }
    let per_record_10 = sizes[0] as f64 / 10.0;
    let per_record_1000 = sizes[1] as f64 / 1000.0;
    assert!((per_record_1000 / per_record_10 - 1.0).abs() < 0.02);
}

#[test]
fn creating_in_a_removed_directory_reports_the_path() {
    let (_tmp, dir) = data_dir();
    fs::remove_dir_all(dir.sessions_dir()).unwrap();
    let err = SessionLog::create(&dir, header("s")).unwrap_err();
    assert!(matches!(err, StoreError::Io { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains(&dir.session_log_path("s").display().to_string()),
        "{err}"
    );
}

/// The store reports what it skipped as data; the app says it (`words::load_report`).
#[test]
fn a_load_report_is_said_in_the_apps_words() {
    use ollm_tui::store::{LoadReport, SkippedLine, TornTail};
    let clean = LoadReport::default();
    assert_eq!(words::load_report(&clean), "clean");
    let gaps = LoadReport {
        gaps: vec![3..=4],
        ..LoadReport::default()
    };
    assert_eq!(
        words::load_report(&gaps),
        "2 records never written (seq 3–4)"
    );
    let all = LoadReport {
        skipped: (1..=6)
            .map(|line| SkippedLine {
                line,
                reason: "bad".into(),
            })
            .collect(),
        torn_tail: Some(TornTail {
            offset: 0,
            len: 8,
            set_aside: Some("s.corrupt".into()),
        }),
        gaps: vec![9..=9],
    };
    assert_eq!(
        words::load_report(&all),
        "6 records skipped (lines 1, 2, 3, 4, 5, …); 1 record never written (seq 9); \
         an incomplete last line (8 bytes) was set aside to s.corrupt"
    );
}
