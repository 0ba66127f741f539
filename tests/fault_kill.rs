//! kill -9 at random points, 200 times, with a property check of the log after each.
//!
//! The writer is this test binary run again as a child (`child_writer`, ignored unless
//! asked for): it appends records to a real session log through `FileStore` and says on
//! stdout each time a sync returned. The parent kills it with SIGKILL after a random delay,
//! then opens the log as a resume would and checks: every line before a torn tail is a
//! valid record, seqs run 1, 2, 3… without a gap, everything the writer saw synced is
//! there, and the log takes appends again. The totals are printed for the closing note.
#![allow(clippy::unwrap_used)]

use chrono::{TimeZone, Utc};
use ollm_tui::core::message::ReplyStatus;
use ollm_tui::core::mode::Mode;
use ollm_tui::core::record::{FORMAT_VERSION, Header, LOG_FORMAT, Record, RecordBody};
use ollm_tui::store::{DataDir, FileStore, SessionStore};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

const ROUNDS: u64 = 200;
const SESSION: &str = "01a20000-0000-7000-8000-00000000c111";

fn header() -> Header {
    Header {
        format: LOG_FORMAT.into(),
        format_version: FORMAT_VERSION,
        session_id: SESSION.into(),
        app_version: "test".into(),
        model: "m".into(),
        created: Utc.timestamp_opt(1_790_000_000, 0).unwrap(),
        ctx: None,
        mode: Mode::Assistant,
        fork_of: None,
        params: Default::default(),
    }
}

fn record(seq: u64) -> Record {
    // Sizes vary, so kills land inside lines of different lengths.
    let text = format!("record {seq} {}", "word ".repeat((seq % 97) as usize * 7));
    let body = if seq % 2 == 1 {
        RecordBody::User {
            text,
            pinned: false,
            tokens: None,
            images: Vec::new(),
        }
    } else {
        RecordBody::Assistant {
            text,
            status: ReplyStatus::Complete,
            model: "m".into(),
            prompt_eval_count: None,
            prompt_eval_cached: None,
            prompt_estimate: None,
            eval_count: None,
            tokens: None,
            tool_calls: Vec::new(),
            thinking: String::new(),
        }
    };
    Record {
        seq,
        ts: Utc.timestamp_opt(1_790_000_000 + seq as i64, 0).unwrap(),
        body,
    }
}

/// The child: resume the log (or create it) and append until killed, saying what is synced.
#[test]
#[ignore = "run by kill_9_at_random_points_never_breaks_the_log as its child"]
fn child_writer() {
    let Ok(home) = std::env::var("OLLM_KILL_HOME") else {
        return;
    };
    let dir = DataDir::new(&home).unwrap();
    let (mut store, next) = match FileStore::open(&dir, SESSION) {
        Ok((store, loaded)) => (store, loaded.records.last().map_or(1, |r| r.seq + 1)),
        Err(_) => (FileStore::create(&dir, header()).unwrap(), 1),
    };
    let mut out = std::io::stdout().lock();
    for seq in next.. {
        store.append(&record(seq)).unwrap();
        // Paced like a chat (many small appends), so the log stays small over 200 rounds.
        std::thread::sleep(Duration::from_micros(200));
        if seq % 3 == 0 {
            store.sync().unwrap();
            use std::io::Write;
            writeln!(out, "synced {seq}").unwrap();
            out.flush().unwrap();
        }
    }
}

/// A small deterministic generator (no dependency for one number per round).
fn next_random(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn kill_9_at_random_points_never_breaks_the_log() {
    let home = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let (mut checked, mut acknowledged, mut torn) = (0u64, 0u64, 0u64);
    for round in 0..ROUNDS {
        let mut child = Command::new(&exe)
            .args([
                "child_writer",
                "--exact",
                "--ignored",
                "--nocapture",
                "--quiet",
            ])
            .env("OLLM_KILL_HOME", home.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Wait for the first sync (the child is writing), then a random 0–20 ms more.
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut synced = 0u64;
        for line in lines.by_ref() {
            if let Some(n) = line.unwrap().strip_prefix("synced ") {
                synced = n.trim().parse().unwrap();
                break;
            }
        }
        std::thread::sleep(Duration::from_micros(next_random(&mut rng) % 20_000));
        child.kill().unwrap(); // SIGKILL
        // Whatever it printed before dying was synced before it died.
        for line in lines.map_while(Result::ok) {
            if let Some(n) = line.strip_prefix("synced ") {
                synced = synced.max(n.trim().parse().unwrap());
            }
        }
        child.wait().unwrap();

        // Open it as a resume does: a torn last line is set aside, nothing else is lost.
        let dir = DataDir::new(home.path()).unwrap();
        let (mut store, loaded) = FileStore::open(&dir, SESSION).unwrap();
        assert!(
            loaded.report.skipped.is_empty() && loaded.report.gaps.is_empty(),
            "round {round}: {:?}",
            loaded.report
        );
        torn += u64::from(loaded.report.torn_tail.is_some());
        for (i, r) in loaded.records.iter().enumerate() {
            assert_eq!(r.seq, i as u64 + 1, "round {round}: a gap or reorder");
            assert_eq!(r, &record(r.seq), "round {round}: record {} altered", r.seq);
        }
        let last = loaded.records.last().map_or(0, |r| r.seq);
        assert!(
            last >= synced,
            "round {round}: synced up to {synced}, only {last} on disk"
        );
        checked += last;
        acknowledged += synced;
        // The log takes appends again (the next child goes on from here).
        store.append(&record(last + 1)).unwrap();
        store.sync().unwrap();
        drop(store);
    }
    println!(
        "kill -9 suite: {ROUNDS} runs, {ROUNDS} kills, {checked} records checked \
         ({acknowledged} acknowledged as synced), {torn} torn tails set aside, 0 lost"
    );
}
