//! The binary's command line: help, version, subcommands, and refusals that happen before
//! the terminal is touched (they print a message and exit non-zero).
#![allow(clippy::unwrap_used)]

use chrono::{TimeZone, Utc};
use ollm_tui::core::message::ReplyStatus;
use ollm_tui::core::mode::Mode;
use ollm_tui::core::record::{FORMAT_VERSION, Header, LOG_FORMAT, Record, RecordBody};
use ollm_tui::store::{DataDir, FileStore, SessionLock, SessionStore};
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_ollm-tui");

fn run(home: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("OLLM_HOME", home)
        .env_remove("OLLAMA_HOST")
        .output()
        .unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A session on disk with one exchange, one of them interrupted.
fn session(home: &Path, id: &str) {
    session_titled(home, id, "How do I cache fetch_orders()?");
}

fn session_titled(home: &Path, id: &str, first_line: &str) {
    let dir = DataDir::new(home).unwrap();
    let t = |s| Utc.timestamp_opt(1_790_000_000 + s, 0).unwrap();
    let mut store = FileStore::create(
        &dir,
        Header {
            format: LOG_FORMAT.into(),
            format_version: FORMAT_VERSION,
            session_id: id.into(),
            app_version: "test".into(),
            model: "llama3.2:3b".into(),
            created: t(0),
            ctx: Some(8192),
            mode: Mode::Developer,
        },
    )
    .unwrap();
    let records = [
        RecordBody::User {
            text: first_line.into(),
            pinned: false,
            tokens: None,
        },
        RecordBody::Assistant {
            text: "Use Redis with a 60 second TTL in src/server/cache.rs".into(),
            status: ReplyStatus::Interrupted,
            model: "llama3.2:3b".into(),
            prompt_eval_count: None,
            prompt_eval_cached: None,
            prompt_estimate: None,
            eval_count: None,
            tokens: None,
        },
    ];
    for (i, body) in records.into_iter().enumerate() {
        store
            .append(&Record {
                seq: i as u64 + 1,
                ts: t(i as i64 + 1),
                body,
            })
            .unwrap();
    }
    store.sync().unwrap();
}

#[test]
fn help_lists_every_flag_and_subcommand() {
    let home = tempfile::tempdir().unwrap();
    let o = run(home.path(), &["--help"]);
    assert!(o.status.success());
    let (out, _) = text(&o);
    for flag in [
        "--host",
        "--model",
        "--ctx",
        "--resume",
        "--mode",
        "sessions",
        "export",
        "--version",
    ] {
        assert!(out.contains(flag), "--help lacks {flag}:\n{out}");
    }
    for mode in ["assistant", "developer", "planning", "debugger"] {
        assert!(out.contains(mode), "{out}");
    }
    let o = run(home.path(), &["--version"]);
    assert!(text(&o).0.contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn sessions_lists_and_export_renders_markdown_and_json() {
    let home = tempfile::tempdir().unwrap();
    let o = run(home.path(), &["sessions"]);
    assert!(o.status.success());
    assert!(text(&o).0.contains("No sessions yet"));

    let id = "01a20000-0000-7000-8000-00000000cafe";
    session(home.path(), id);
    let (out, _) = text(&run(home.path(), &["sessions"]));
    assert!(
        out.contains(id)
            && out.contains("How do I cache fetch_orders()?")
            && out.contains("llama3.2:3b"),
        "{out}"
    );

    // A long title is cut with an ellipsis.
    let long = "01a20000-0000-7000-8000-00000000f00d";
    session_titled(home.path(), long, &"word ".repeat(40));
    let (out, _) = text(&run(home.path(), &["sessions"]));
    let row = out.lines().find(|l| l.starts_with(long)).unwrap();
    assert!(row.ends_with('…'), "{row}");

    // A unique prefix is enough.
    let o = run(
        home.path(),
        &["export", "01a20000-0000-7000-8000-00000000c"],
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let (md, _) = text(&o);
    assert!(md.contains("How do I cache fetch_orders()?"));
    assert!(md.contains("Interrupted"), "{md}");

    let o = run(home.path(), &["export", id, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["sessionId"], id);
    assert_eq!(v["messages"][0]["role"], "user");
    assert_eq!(
        v["messages"][1]["parts"][0]["text"],
        "Use Redis with a 60 second TTL in src/server/cache.rs"
    );

    let out_file = home.path().join("out.md");
    let o = run(
        home.path(),
        &["export", id, "-o", out_file.to_str().unwrap()],
    );
    assert!(o.status.success());
    assert!(
        std::fs::read_to_string(out_file)
            .unwrap()
            .contains("fetch_orders")
    );
}

#[test]
fn refusals_happen_before_the_terminal_is_touched() {
    let home = tempfile::tempdir().unwrap();
    // Nothing to resume.
    let o = run(home.path(), &["--resume"]);
    assert!(!o.status.success());
    let (out, err) = text(&o);
    assert!(out.is_empty(), "no escape sequences or screens: {out:?}");
    assert!(err.contains("no session to resume"), "{err}");

    // An unknown id.
    let o = run(home.path(), &["--resume", "nope"]);
    assert!(!o.status.success());
    assert!(text(&o).1.contains("nope"), "{:?}", text(&o));

    // A session open elsewhere is refused, naming the other process.
    let id = "01a20000-0000-7000-8000-00000000beef";
    session(home.path(), id);
    let dir = DataDir::new(home.path()).unwrap();
    let _held = SessionLock::acquire(&dir, id).unwrap();
    let o = run(home.path(), &["--resume", id]);
    assert!(!o.status.success());
    let (out, err) = text(&o);
    assert!(out.is_empty());
    assert!(
        err.contains(&std::process::id().to_string()),
        "names the holder's pid: {err}"
    );
    // The listing marks it as open there.
    let (out, _) = text(&run(home.path(), &["sessions"]));
    let row = out.lines().find(|l| l.starts_with(id)).unwrap();
    assert!(
        row.contains(&format!("[open, pid {}]", std::process::id())),
        "{out}"
    );

    // A bad config file names itself and the key.
    std::fs::write(home.path().join("config.toml"), "compress_at = 3.0\n").unwrap();
    let o = run(home.path(), &["sessions"]);
    assert!(!o.status.success());
    let err = text(&o).1;
    assert!(
        err.contains("config.toml") && err.contains("compress_at"),
        "{err}"
    );

    // An https host (no TLS in this build) is refused with the reason.
    std::fs::remove_file(home.path().join("config.toml")).unwrap();
    let o = run(home.path(), &["--host", "https://example.com"]);
    assert!(!o.status.success());
    assert!(text(&o).1.contains("https"), "{:?}", text(&o));
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    // `ollm-tui default-config | head -1` and the like: the reader is gone.
    let home = tempfile::tempdir().unwrap();
    session(home.path(), "01a20000-0000-7000-8000-00000000abcd");
    for args in [&["default-config"][..], &["sessions"]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let o = Command::new(BIN)
            .args(args)
            .env("OLLM_HOME", home.path())
            .stdout(writer)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}
