//! Store benchmarks: append cost per message at growing session sizes (should be flat),
//! the fdatasync at a turn boundary, and opening a 10,000-message session (goal < 100 ms).
#![allow(clippy::unwrap_used)]

use chrono::{Duration, TimeZone, Utc};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ollm_tui::core::message::ReplyStatus;
use ollm_tui::core::mode::Mode;
use ollm_tui::core::record::{FORMAT_VERSION, Header, LOG_FORMAT, Record, RecordBody};
use ollm_tui::store::{DataDir, FileStore, SessionLog, SessionStore};
use std::hint::black_box;

fn header(id: &str) -> Header {
    Header {
        format: LOG_FORMAT.to_string(),
        format_version: FORMAT_VERSION,
        session_id: id.to_string(),
        app_version: "bench".to_string(),
        model: "llama3.2:3b".to_string(),
        created: Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap(),
        ctx: Some(8192),
        mode: Mode::Developer,
        fork_of: None,
        params: Default::default(),
    }
}

/// A realistic message: short user turns, longer markdown replies with code.
fn message(seq: u64) -> Record {
    let ts = Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap() + Duration::seconds(seq as i64);
    let body = if seq % 2 == 1 {
        RecordBody::User {
            text: format!(
                "Question {seq}: how should the store handle a torn final line when the \
                 process dies mid-write, and what happens to \"quoted\" text? ünïcödé"
            ),
            pinned: false,
            tokens: None,
            images: Vec::new(),
        }
    } else {
        RecordBody::Assistant {
            text: format!(
                "Answer {seq}.\n\nSet the torn tail aside and truncate:\n\n```rust\nfn \
                 recover(log: &mut Log) -> Result<(), Error> {{\n    let good = \
                 log.last_good_offset();\n    log.set_len(good)?;\n    Ok(())\n}}\n```\n\n\
                 Then append as usual. {}",
                "More detail follows here. ".repeat(20)
            ),
            status: ReplyStatus::Complete,
            model: "llama3.2:3b".to_string(),
            prompt_eval_count: Some(2048),
            prompt_estimate: Some(2000),
            eval_count: Some(256),
            tokens: None,
            tool_calls: Vec::new(),
            thinking: String::new(),
            prompt_eval_cached: None,
        }
    };
    Record { seq, ts, body }
}

fn session_with(dir: &DataDir, id: &str, n: u64) {
    let mut log = SessionLog::create(dir, header(id)).unwrap();
    for seq in 1..=n {
        log.append(&message(seq)).unwrap();
    }
    log.sync().unwrap();
}

fn append(c: &mut Criterion) {
    let mut group = c.benchmark_group("append_per_message");
    group.measurement_time(std::time::Duration::from_secs(3));
    for existing in [10u64, 1_000, 10_000] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path()).unwrap();
        let id = format!("s{existing}");
        session_with(&dir, &id, existing);
        let (mut store, _) = FileStore::open(&dir, &id).unwrap();
        let mut next = message(existing + 2); // an assistant-sized record
        group.bench_with_input(BenchmarkId::from_parameter(existing), &existing, |b, _| {
            b.iter(|| {
                next.seq += 1;
                store.append(black_box(&next)).unwrap();
            })
        });
    }
    group.finish();
}

fn append_and_sync(c: &mut Criterion) {
    let mut group = c.benchmark_group("append_and_fdatasync");
    group.sample_size(20);
    for existing in [10u64, 10_000] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path()).unwrap();
        let id = format!("s{existing}");
        session_with(&dir, &id, existing);
        let (mut store, _) = FileStore::open(&dir, &id).unwrap();
        let mut next = message(existing + 2);
        group.bench_with_input(BenchmarkId::from_parameter(existing), &existing, |b, _| {
            b.iter(|| {
                next.seq += 1;
                store.append(&next).unwrap();
                store.sync().unwrap();
            })
        });
    }
    group.finish();
}

fn open(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = DataDir::new(tmp.path()).unwrap();
    session_with(&dir, "big", 10_000);
    let size = std::fs::metadata(dir.session_log_path("big"))
        .unwrap()
        .len();
    eprintln!("10,000-message session: {:.1} MB", size as f64 / 1e6);
    let mut group = c.benchmark_group("open_session");
    group.sample_size(20);
    group.bench_function("file_store_open_10000", |b| {
        b.iter(|| {
            let (store, loaded) = FileStore::open(&dir, "big").unwrap();
            assert_eq!(loaded.records.len(), 10_000);
            black_box((store, loaded))
        })
    });
    group.bench_function("read_only_10000", |b| {
        b.iter(|| black_box(SessionLog::read(&dir, "big").unwrap()))
    });
    group.bench_function("sessions_list_1_session_10000", |b| {
        b.iter(|| black_box(ollm_tui::store::sessions::list(&dir).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, append, append_and_sync, open);
criterion_main!(benches);
