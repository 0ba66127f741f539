//! How long `ollm-tui search` takes over a large history: generates `--sessions` logs of
//! `--messages` messages each (written once into `--dir`, reused after), then times a
//! search that finds a handful of messages, one that finds many (stopped at the limit),
//! and one that finds nothing (every byte read), each `--runs` times.
//!
//!     cargo run --release --example search_timing -- --sessions 1000 --messages 1000
//!
//! The generated messages are a mix of chat sentences with names, paths and numbers, so
//! the search reads text shaped like real sessions.

use chrono::{TimeZone, Utc};
use clap::Parser;
use ollm_tui::core::message::ReplyStatus;
use ollm_tui::core::mode::Mode;
use ollm_tui::core::record::{FORMAT_VERSION, Header, LOG_FORMAT, Record, RecordBody};
use ollm_tui::store::search::search;
use ollm_tui::store::{DataDir, SessionLog};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Parser)]
struct Args {
    #[arg(long, default_value_t = 1000)]
    sessions: usize,
    #[arg(long, default_value_t = 1000)]
    messages: usize,
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Where the generated history lives (reused when it is already there).
    #[arg(long, default_value = "/tmp/ollm-search-timing")]
    dir: PathBuf,
}

const WORDS: &[&str] = &[
    "the",
    "cache",
    "service",
    "listens",
    "on",
    "port",
    "config",
    "lives",
    "at",
    "we",
    "decided",
    "to",
    "use",
    "postgres",
    "for",
    "orders",
    "deploy",
    "runs",
    "every",
    "night",
    "test",
    "fails",
    "with",
    "overflow",
    "in",
    "src/cart/total.rs",
    "build",
    "takes",
    "minutes",
    "and",
    "review",
    "the",
    "branch",
    "feature/checkout",
    "before",
    "merge",
];

/// A sentence of `n` words from a simple generator (no randomness crate needed).
fn sentence(seed: &mut u64, n: usize) -> String {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let w = WORDS[(*seed >> 33) as usize % WORDS.len()];
        out.push(if (*seed >> 20).is_multiple_of(11) {
            format!("{w}{}", (*seed >> 40) % 10_000)
        } else {
            w.to_string()
        });
    }
    out.join(" ")
}

fn generate(
    dir: &DataDir,
    sessions: usize,
    messages: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let t = |s: i64| Utc.timestamp_opt(1_790_000_000 + s, 0).unwrap();
    let mut seed = 7u64;
    for s in 0..sessions {
        let id = format!("gen-{s:05}");
        let mut log = SessionLog::create(
            dir,
            Header {
                format: LOG_FORMAT.into(),
                format_version: FORMAT_VERSION,
                session_id: id.clone(),
                app_version: "timing".into(),
                model: "llama3.1:8b".into(),
                created: t(s as i64 * 10_000),
                ctx: Some(8192),
                mode: Mode::Assistant,
                fork_of: None,
                params: Default::default(),
            },
        )?;
        for m in 0..messages {
            let seq = m as u64 + 1;
            // One message in the whole history names the needle the first search asks for.
            let text = if s == sessions / 2 && m == messages / 2 {
                "The staging cluster's ingress certificate expires on 2027-03-14.".to_string()
            } else {
                sentence(&mut seed, 20 + (m % 40))
            };
            let body = if m.is_multiple_of(2) {
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
                    model: "llama3.1:8b".into(),
                    prompt_eval_count: None,
                    prompt_eval_cached: None,
                    prompt_estimate: None,
                    eval_count: None,
                    tokens: None,
                    tool_calls: Vec::new(),
                    thinking: String::new(),
                }
            };
            log.append(&Record {
                seq,
                ts: t(s as i64 * 10_000 + m as i64),
                body,
            })?;
        }
        log.sync()?;
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let marker = args
        .dir
        .join(format!("generated-{}x{}", args.sessions, args.messages));
    if !marker.exists() {
        if args.dir.exists() {
            std::fs::remove_dir_all(&args.dir)?;
        }
        let dir = DataDir::new(&args.dir)?;
        let started = Instant::now();
        generate(&dir, args.sessions, args.messages)?;
        std::fs::write(&marker, "")?;
        eprintln!("generated in {:.1}s", started.elapsed().as_secs_f64());
    }
    let dir = DataDir::new(&args.dir)?;
    let bytes: u64 = std::fs::read_dir(dir.sessions_dir())?
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!(
        "{} sessions, {} messages, {:.0} MB of logs",
        args.sessions,
        args.sessions * args.messages,
        bytes as f64 / 1e6
    );
    for (what, text) in [
        ("one hit", "ingress certificate expires"),
        ("many hits (limit 50)", "postgres for orders"),
        ("no hit", "kubernetes operator"),
    ] {
        let mut times: Vec<Duration> = Vec::new();
        let mut hits = 0;
        for _ in 0..args.runs {
            let started = Instant::now();
            let r = search(&dir, text, 50)?;
            times.push(started.elapsed());
            hits = r.hit_count();
        }
        times.sort();
        println!(
            "{what:<22} {hits:>3} hits  median {:>7.1} ms  min {:>7.1} ms  max {:>7.1} ms",
            times[times.len() / 2].as_secs_f64() * 1000.0,
            times[0].as_secs_f64() * 1000.0,
            times[times.len() - 1].as_secs_f64() * 1000.0
        );
    }
    Ok(())
}
