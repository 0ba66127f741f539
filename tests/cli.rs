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

mod support;

const BIN: &str = env!("CARGO_BIN_EXE_ollm-tui");

/// The fake Ollama server, served by a runtime of its own while the binary runs.
struct Server {
    fake: support::fake_ollama::FakeOllama,
    _runtime: tokio::runtime::Runtime,
}

impl Server {
    fn start() -> Server {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let fake = runtime.block_on(support::fake_ollama::FakeOllama::start());
        Server {
            fake,
            _runtime: runtime,
        }
    }

    fn url(&self) -> String {
        self.fake.url()
    }
}

fn run(home: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("OLLM_HOME", home)
        .env_remove("OLLAMA_HOST")
        .output()
        .unwrap()
}

/// The binary with `input` on its stdin (a pipe), or /dev/null when `None`.
fn run_with_input(home: &Path, args: &[&str], input: Option<&[u8]>) -> Output {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = Command::new(BIN)
        .args(args)
        .env("OLLM_HOME", home)
        .env_remove("OLLAMA_HOST")
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(bytes) = input {
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(bytes).unwrap();
    }
    child.wait_with_output().unwrap()
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
            fork_of: None,
            params: Default::default(),
        },
    )
    .unwrap();
    let records = [
        RecordBody::User {
            text: first_line.into(),
            pinned: false,
            tokens: None,
            images: Vec::new(),
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
            tool_calls: Vec::new(),
            thinking: String::new(),
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
        "[MODEL] [PROMPT]",
        "pipe text in",
        "/new",
        "/set temperature",
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
fn help_topic_prints_the_manual_built_into_the_binary() {
    // #37 item 7: `help` was clap's, and the README's long sections had no other home.
    let parent = tempfile::tempdir().unwrap();
    let home = parent.path().join("ollm");
    let o = run(&home, &["help", "compression"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.starts_with("# How the context is managed\n"), "{out}");
    assert!(out.contains("**Fact ledger"), "{out}");
    // Forgiving: any case, the start of a name, a word for it.
    for (asked, heading) in [
        ("COMP", "# How the context is managed"),
        ("config", "# Configuration"),
        ("approval", "# Tools and approval"),
    ] {
        let (out, err) = text(&run(&home, &["help", asked]));
        assert!(out.starts_with(heading), "help {asked}: {out}{err}");
    }
    // Alone: every topic, one a line.
    let o = run(&home, &["help"]);
    let (out, _) = text(&o);
    assert!(o.status.success());
    for topic in ollm_tui::manual::TOPICS {
        assert!(
            out.lines().any(|l| l.trim_start().starts_with(topic.name)),
            "{} missing:\n{out}",
            topic.name
        );
    }
    // An unknown topic fails, naming them all.
    let o = run(&home, &["help", "nope"]);
    let (out, err) = text(&o);
    assert!(!o.status.success());
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("no manual topic \"nope\""), "{err}");
    for topic in ollm_tui::manual::TOPICS {
        assert!(err.contains(topic.name), "{err}");
    }
    // The manual reads nothing: no data directory is made for it.
    assert!(!home.exists(), "{} was created", home.display());
    // `--help` is still clap's, and points at the manual.
    let (out, _) = text(&run(&home, &["--help"]));
    assert!(out.contains("Usage: ollm-tui"), "{out}");
    assert!(out.contains("help TOPIC"), "{out}");
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
    // The only session: the id's first 8 characters tell it apart.
    assert!(
        out.contains("\n01a20000 ")
            && out.contains("How do I cache fetch_orders()?")
            && out.contains("llama3.2:3b"),
        "{out}"
    );

    // A long title is cut with an ellipsis.
    let long = "01a20000-0000-7000-8000-00000000f00d";
    session_titled(home.path(), long, &"word ".repeat(40));
    let (out, _) = text(&run(home.path(), &["sessions"]));
    let row = out
        .lines()
        .find(|l| l.starts_with("01a20000-0000-7000-8000-00000000f "))
        .unwrap();
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
    let row = out.lines().find(|l| l.starts_with(&id[..8])).unwrap();
    assert!(
        row.contains(&format!("[open, pid {}]", std::process::id())),
        "{out}"
    );

    // A bad config file names itself and the key.
    std::fs::write(home.path().join("config.toml"), "compress_at = 3.0\n").unwrap();
    let o = run(home.path(), &["--model", "llama3.2:3b"]);
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

#[test]
fn without_a_terminal_the_chat_says_it_needs_one_and_writes_no_escape() {
    let home = tempfile::tempdir().unwrap();
    // `output()` gives the child no terminal: stdin is null, stdout a pipe.
    let o = run(home.path(), &["--model", "llama3.2:3b"]);
    assert!(!o.status.success());
    let (out, err) = text(&o);
    assert!(out.is_empty(), "nothing on stdout: {out:?}");
    assert!(err.contains("needs a terminal"), "{err}");
    assert!(
        !err.contains('\u{1b}') && !err.contains("panicked"),
        "{err:?}"
    );
}

#[test]
fn a_crafted_session_header_cannot_reach_the_terminal_through_an_error() {
    let home = tempfile::tempdir().unwrap();
    let id = "01a20000-0000-7000-8000-00000000e5c0";
    session(home.path(), id);
    let path = DataDir::new(home.path()).unwrap().session_log_path(id);
    let text_of = std::fs::read_to_string(&path).unwrap();
    let crafted = text_of.replacen(
        "\"mode\":\"developer\"",
        "\"mode\":\"\\u001b]0;pwned\\u0007\\u001b[31mred\"",
        1,
    );
    assert_ne!(crafted, text_of, "the header names the mode");
    std::fs::write(&path, crafted).unwrap();
    for args in [vec!["--resume", id], vec!["export", id]] {
        let o = run(home.path(), &args);
        assert!(!o.status.success(), "{args:?}");
        let (out, err) = text(&o);
        assert!(err.contains(id) || err.contains("mode"), "{args:?}: {err}");
        for s in [&out, &err] {
            assert!(
                !s.contains('\u{1b}') && !s.contains('\u{7}'),
                "{args:?}: {s:?}"
            );
        }
    }
}

#[test]
fn files_the_process_creates_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let id = "01a20000-0000-7000-8000-00000000f11e";
    session(home.path(), id);
    // The chat refuses without a terminal, after its log file is opened.
    let _ = run(home.path(), &["--model", "llama3.2:3b"]);
    let logs: Vec<_> = std::fs::read_dir(home.path().join("logs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!logs.is_empty(), "a log file was written");
    for log in &logs {
        let mode = std::fs::metadata(log).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", log.display());
    }
    let out = home.path().join("out.md");
    let o = run(home.path(), &["export", id, "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{:?}", text(&o));
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn damage_is_listed_even_when_a_session_has_a_title() {
    let home = tempfile::tempdir().unwrap();
    let id = "01a20000-0000-7000-8000-00000000da3a";
    session(home.path(), id);
    let dir = DataDir::new(home.path()).unwrap();
    // A torn last line (a crash mid-write).
    let path = dir.session_log_path(id);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(b"{\"seq\":99,\"ts\":");
    std::fs::write(&path, bytes).unwrap();
    // And a directory where another session's log should be.
    let gone = "01a20000-0000-7000-8000-00000000d1e0";
    std::fs::create_dir_all(dir.session_log_path(gone)).unwrap();
    let (out, _) = text(&run(home.path(), &["sessions"]));
    // Each by its shortest unique prefix (they part at the 34th character).
    let row = out.lines().find(|l| l.starts_with(&id[..34])).unwrap();
    assert!(
        row.contains("incomplete last line") && row.contains("How do I"),
        "{row}"
    );
    let row = out
        .lines()
        .find(|l| l.starts_with(&gone[..34]))
        .expect("listed");
    assert!(row.contains('('), "with its problem: {row}");
    let o = run(home.path(), &["--resume", gone]);
    assert!(!o.status.success());
    let err = text(&o).1;
    assert!(
        !err.contains("no session"),
        "says what is wrong instead: {err}"
    );
}

#[test]
fn sessions_rename_and_rm_move_a_session_to_the_trash() {
    let home = tempfile::tempdir().unwrap();
    session(home.path(), "aaaa1111");
    session_titled(home.path(), "bbbb2222", "Plan the Q3 migration");
    let o = run(
        home.path(),
        &["sessions", "rename", "aaaa", "Cache", "work"],
    );
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(text(&o).0.contains("\"Cache work\""));
    let (list, _) = text(&run(home.path(), &["sessions"]));
    let row = list.lines().find(|l| l.starts_with("aaaa1111")).unwrap();
    assert!(row.ends_with("Cache work"), "{row}");
    // The Markdown export is headed by the title, as the list names it (#37 item 5: it
    // was headed by the first message).
    let (md, _) = text(&run(home.path(), &["export", "aaaa"]));
    assert!(md.starts_with("# Cache work\n"), "{md}");
    // Deleting moves everything into the trash the message names; the other stays.
    let o = run(home.path(), &["sessions", "rm", "aaaa"]);
    assert!(o.status.success(), "{:?}", text(&o));
    let (out, _) = text(&o);
    assert!(out.contains("trash"), "{out}");
    let (list, _) = text(&run(home.path(), &["sessions"]));
    assert!(!list.contains("aaaa1111"), "{list}");
    assert!(list.contains("bbbb2222"), "{list}");
    let trashed: Vec<_> = std::fs::read_dir(home.path().join("trash"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(trashed.len(), 1);
    assert!(trashed[0].join("session.jsonl").exists());
    assert!(trashed[0].join("session.title").exists());
    // Again: a clear error, nothing else touched.
    let o = run(home.path(), &["sessions", "rm", "aaaa1111"]);
    assert!(!o.status.success());
    assert!(text(&o).1.contains("no session"), "{:?}", text(&o));
    assert!(home.path().join("sessions/bbbb2222.jsonl").exists());
}

#[test]
fn search_finds_a_message_in_any_session_and_says_what_it_skipped() {
    let home = tempfile::tempdir().unwrap();
    session(home.path(), "aaaa1111");
    session_titled(home.path(), "bbbb2222", "Plan the Q3 migration");
    let o = run(home.path(), &["search", "REDIS with"]);
    assert!(o.status.success(), "{:?}", text(&o));
    let (out, err) = text(&o);
    // Both sessions hold the reply; each lists it with its number, role and snippet.
    assert!(
        out.contains("aaaa1111  How do I cache fetch_orders()?  (1 hit)"),
        "{out}"
    );
    assert!(
        out.contains("bbbb2222  Plan the Q3 migration  (1 hit)"),
        "{out}"
    );
    assert!(out.contains("#2      "), "{out}");
    assert!(
        out.contains("assistant Use Redis with a 60 second TTL"),
        "{out}"
    );
    assert!(!out.contains('\u{1b}'), "no highlight escapes into a pipe");
    assert!(err.contains("2 hits in 2 of 2 sessions"), "{err}");
    // A damaged line that holds the text is skipped and said.
    let log = home.path().join("sessions/aaaa1111.jsonl");
    let mut bytes = std::fs::read(&log).unwrap();
    bytes.extend_from_slice(b"{\"seq\":3,\"type\":\"user\",\"text\":\"redis with a torn\n");
    bytes.extend_from_slice(b"{\"seq\":4,\"ts\":\"2026-01-01T00:00:00Z\",\"type\":\"user\",\"text\":\"redis with more\"}\n");
    std::fs::write(&log, bytes).unwrap();
    let (out, err) = text(&run(home.path(), &["search", "redis with"]));
    assert!(out.contains("(2 hits)"), "{out}");
    assert!(out.contains("#4 "), "{out}");
    assert!(
        err.contains("1 line(s) holding the text could not be read in aaaa1111"),
        "{err}"
    );
    let (out, err) = text(&run(home.path(), &["search", "nowhere-to-be-found"]));
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("0 hits"), "{err}");
    assert!(!err.contains("--resume"), "no id to open: {err}");
}

#[test]
fn a_model_given_as_the_first_word_is_taken_as_ollama_run_takes_it() {
    let server = Server::start();
    let url = server.url();
    let home = tempfile::tempdir().unwrap();
    // Taken as the model: the chat goes on and only stops for want of a terminal.
    let o = run(home.path(), &["--host", &url, "llama3.2:3b"]);
    let (_, err) = text(&o);
    assert!(err.contains("needs a terminal"), "{err}");
    // A subcommand's name still wins.
    let o = run(home.path(), &["--host", &url, "sessions"]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(text(&o).0.contains("No sessions yet"));
    // A near miss of a subcommand is named.
    let o = run(home.path(), &["--host", &url, "sesions"]);
    assert!(!o.status.success());
    let (out, err) = text(&o);
    assert!(out.is_empty(), "{out:?}");
    assert!(
        err.contains("ollm-tui sessions") && err.contains("-m MODEL"),
        "{err}"
    );
    // A word that is neither: the installed models and -m.
    let o = run(home.path(), &["--host", &url, "mistral"]);
    assert!(!o.status.success());
    let err = text(&o).1;
    assert!(
        err.contains("neither a subcommand")
            && err.contains("llama3.1:70b, llama3.2:3b")
            && err.contains("-m MODEL")
            && err.contains("ollama pull mistral"),
        "{err}"
    );
    // No server to ask: a typo is still caught, any other word goes on to the chat.
    let o = run(home.path(), &["--host", "127.0.0.1:9", "sesions"]);
    assert!(text(&o).1.contains("ollm-tui sessions"), "{:?}", text(&o));
    let o = run(home.path(), &["--host", "127.0.0.1:9", "mistral"]);
    assert!(text(&o).1.contains("needs a terminal"), "{:?}", text(&o));
}

#[test]
fn a_mistake_in_the_config_file_blocks_the_chat_but_not_the_subcommands() {
    let home = tempfile::tempdir().unwrap();
    let id = "01a20000-0000-7000-8000-00000000c0f1";
    session(home.path(), id);
    std::fs::write(home.path().join("config.toml"), "compress_at = 3.0\n").unwrap();
    // None of these reads the config: each works, and says the file needs fixing.
    for args in [
        vec!["sessions"],
        vec!["search", "fetch_orders"],
        vec!["export", id],
        vec!["default-config"],
        vec!["sessions", "rename", id, "Cache", "work"],
    ] {
        let o = run(home.path(), &args);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{args:?}: {err}");
        assert!(!out.is_empty(), "{args:?}");
        assert!(
            err.contains("config.toml") && err.contains("compress_at"),
            "{args:?} names the mistake: {err}"
        );
    }
    // The chat needs it, and refuses.
    let o = run(home.path(), &["--resume", id]);
    assert!(!o.status.success());
    assert!(text(&o).1.contains("compress_at"), "{:?}", text(&o));
}

#[test]
fn without_a_terminal_the_refusal_creates_no_data_directory() {
    let parent = tempfile::tempdir().unwrap();
    let home = parent.path().join("ollm");
    let o = run(&home, &["--model", "llama3.2:3b"]);
    assert!(!o.status.success());
    assert!(text(&o).1.contains("needs a terminal"), "{:?}", text(&o));
    assert!(!home.exists(), "{} was created", home.display());
}

#[test]
fn ids_are_shown_as_their_shortest_unique_prefix_and_resume_takes_it() {
    let home = tempfile::tempdir().unwrap();
    // Two sessions started in the same minute share their first 8 characters.
    let a = "01a217c0-3f2a-7000-8000-000000000001";
    let b = "01a217c0-3f9b-7000-8000-000000000002";
    let lone = "01b00000-0000-7000-8000-000000000003";
    session(home.path(), a);
    session_titled(home.path(), b, "Plan the Q3 migration");
    session_titled(home.path(), lone, "Cache the orders again");
    let (out, _) = text(&run(home.path(), &["sessions"]));
    let starts: Vec<&str> = out
        .lines()
        .skip(1)
        .filter_map(|l| l.split(' ').next())
        .collect();
    let mut sorted = starts.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        ["01a217c0-3f2", "01a217c0-3f9", "01b00000"],
        "{out}"
    );
    // Search names them the same way.
    let (out, _) = text(&run(home.path(), &["search", "redis"]));
    for short in ["01a217c0-3f2  ", "01a217c0-3f9  ", "01b00000  "] {
        assert!(
            out.lines().any(|l| l.starts_with(short)),
            "{short:?}:\n{out}"
        );
    }
    // What is shown is enough to resume: the chat goes on (and stops for want of a
    // terminal), where the 8 characters shown before matched two sessions.
    let o = run(home.path(), &["--resume", "01a217c0-3f2"]);
    assert!(text(&o).1.contains("needs a terminal"), "{:?}", text(&o));
    let o = run(home.path(), &["--resume", "01a217c0"]);
    assert!(text(&o).1.contains("matches 2"), "{:?}", text(&o));
}

#[test]
fn the_listing_marks_the_session_plain_resume_opens_and_a_fork_does_not_take_it() {
    let home = tempfile::tempdir().unwrap();
    let parent = "01a20000-0000-7000-8000-0000000000aa";
    session(home.path(), parent);
    // A fork made from its last message: a newer file, nothing the person wrote in it.
    let dir = DataDir::new(home.path()).unwrap();
    let fork = ollm_tui::store::manage::fork(&dir, parent, 2).unwrap();
    let (out, _) = text(&run(home.path(), &["sessions"]));
    let marked: Vec<&str> = out.lines().filter(|l| l.contains("[--resume]")).collect();
    assert_eq!(marked.len(), 1, "{out}");
    assert!(marked[0].starts_with(&parent[..8]), "{out}");
    // Once the app says the person went on in the fork, the fork is the one.
    ollm_tui::store::sessions::mark_used(&dir, &fork).unwrap();
    let (out, _) = text(&run(home.path(), &["sessions"]));
    let marked: Vec<&str> = out.lines().filter(|l| l.contains("[--resume]")).collect();
    assert_eq!(marked.len(), 1, "{out}");
    assert!(marked[0].contains("(fork of"), "{out}");
}

/// The content of the last user message of each chat request (summaries and titles left
/// out: they are the app's own requests).
fn user_messages_sent(server: &Server) -> Vec<String> {
    server
        .fake
        .chat_requests()
        .iter()
        .filter_map(|r| {
            let msgs = r["messages"].as_array()?;
            let last = msgs.iter().rev().find(|m| m["role"] == "user")?;
            Some(last["content"].as_str()?.to_string())
        })
        .collect()
}

#[test]
fn a_prompt_with_piped_input_is_answered_on_stdout_and_kept_as_a_session() {
    let server = Server::start();
    let url = server.url();
    let home = tempfile::tempdir().unwrap();
    let o = run_with_input(
        home.path(),
        &["--host", &url, "-m", "llama3.2:3b", "explain this"],
        Some(b"fn main() { println!(\"hi\"); }\n"),
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    // The fake answers by quoting the message: the reply came through, whole, plain.
    assert!(out.starts_with("You said: \"explain this"), "{out:?}");
    assert!(out.ends_with('\n') && !out.contains('\u{1b}'), "{out:?}");
    // The piped file reached the request, fenced after the prompt.
    let sent = user_messages_sent(&server);
    assert!(
        sent.iter().any(
            |m| m.starts_with("explain this\n\nInput (from stdin):\n```\n")
                && m.contains("fn main() { println!(\"hi\"); }")
        ),
        "{sent:?}"
    );
    // Kept like any session: listed, and the one plain --resume opens.
    assert!(err.contains("kept as session"), "{err}");
    let (list, _) = text(&run(home.path(), &["sessions"]));
    assert_eq!(list.lines().count(), 2, "{list}");
    assert!(list.contains("[--resume] "), "{list}");
    // And it goes on: a follow-up through --resume lands in the same session.
    let o = run_with_input(
        home.path(),
        &["--host", &url, "and then?", "--resume"],
        None,
    );
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(
        text(&o).0.starts_with("You said: \"and then?\""),
        "{:?}",
        text(&o)
    );
    let (list, _) = text(&run(home.path(), &["sessions"]));
    assert_eq!(list.lines().count(), 2, "{list}");
    let row = list.lines().nth(1).unwrap();
    assert!(row.contains("     4 "), "four messages: {row}");
}

#[test]
fn a_piped_input_longer_than_the_window_is_said_on_stderr_not_cut_silently() {
    // #37 item 1: 60 KB through a pipe at --ctx 2048 printed a confident reply and said
    // nothing of the ~15,000 tokens the model never saw.
    let server = Server::start();
    let url = server.url();
    let home = tempfile::tempdir().unwrap();
    let big: String = (0..1500)
        .map(|i| format!("line {i}: let value_{i} = compute({i}) + offset;\n"))
        .collect();
    let o = run_with_input(
        home.path(),
        &[
            "--host",
            &url,
            "-m",
            "llama3.2:3b",
            "--ctx",
            "2048",
            "summarise this",
        ],
        Some(big.as_bytes()),
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(!out.is_empty(), "the reply still comes");
    assert!(
        !out.contains("left out"),
        "stdout is the reply alone: {out:?}"
    );
    assert!(err.contains("left out"), "{err}");
    // What the model saw of the whole, in numbers, and the window that sends it whole
    // (1,500 lines are some 25,000 tokens: "saw 441 of its 25,513 tokens … --ctx 32768").
    let saw = regex::Regex::new(r"the model saw ([\d,]+) of its ([\d,]+) tokens").unwrap();
    let caps = saw.captures(&err).unwrap_or_else(|| panic!("{err}"));
    let n = |i: usize| caps[i].replace(',', "").parse::<u32>().unwrap();
    assert!(n(1) < 2048 && n(2) > 20_000, "{err}");
    let ctx = regex::Regex::new(r"--ctx (\d+) would send it whole").unwrap();
    let fits: u32 = ctx.captures(&err).unwrap_or_else(|| panic!("{err}"))[1]
        .parse()
        .unwrap();
    assert!(fits.is_power_of_two() && fits >= n(2), "{err}");
    // Not read through, and why: some 25,000 tokens in parts would take longer than the
    // limit even on a fast GPU.
    assert!(err.contains("not read through"), "{err}");
    assert!(err.contains("over the 30 s limit"), "{err}");
    // A small input says nothing of the kind.
    let o = run_with_input(
        home.path(),
        &["--host", &url, "-m", "llama3.2:3b", "summarise this"],
        Some(b"a short note\n"),
    );
    assert!(!text(&o).1.contains("left out"), "{:?}", text(&o));
}

/// Some 6,000 tokens with a marker at the start, in the middle and at the end: five
/// parts at --ctx 2048.
fn marked_input() -> String {
    let mut big: String = (0..360)
        .map(|i| format!("line {i}: let value_{i} = compute({i}) + offset;\n"))
        .collect();
    big.insert_str(0, "[START-MARK] the first line, 7731 of them\n");
    let middle = big.len() / 2;
    let at = middle + big[middle..].find('\n').unwrap() + 1;
    big.insert_str(at, "[MIDDLE-MARK] the middle line, 4242 of them\n");
    big.push_str("[END-MARK] the last line, 9090 of them\n");
    big
}

const SMALL_CTX: &[&str] = &["-m", "llama3.2:3b", "--ctx", "2048", "summarise this"];

#[test]
fn a_piped_input_longer_than_the_window_is_read_through_in_parts_when_that_is_quick() {
    // #37 item 1: what does not fit is read through when the speed allows.
    let server = Server::start();
    let url = server.url();
    let home = tempfile::tempdir().unwrap();
    let mut args = vec!["--host", url.as_str()];
    args.extend_from_slice(SMALL_CTX);
    let o = run_with_input(home.path(), &args, Some(marked_input().as_bytes()));
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.starts_with("You said: \"summarise this"), "{out:?}");
    // Every part reached the model: each marker is in some note-taking request.
    let notes = server.fake.summary_requests();
    assert!(notes.len() >= 4, "{}", notes.len());
    for mark in ["[START-MARK]", "[MIDDLE-MARK]", "[END-MARK]"] {
        assert!(
            notes.iter().any(|r| r.to_string().contains(mark)),
            "{mark} never reached the model"
        );
    }
    // The answer is asked over the notes, the person's words first; nothing clipped.
    let sent = user_messages_sent(&server);
    let answered = sent
        .iter()
        .find(|m| m.starts_with("summarise this\n\nInput (from stdin), as notes:\n"))
        .unwrap_or_else(|| panic!("{sent:?}"));
    assert!(
        answered.contains("[The input was too long for the context: the model read all")
            && answered.contains("Lines 1-")
            && answered.contains("[START-MARK]"),
        "the notes, as the parts gave them: {answered}"
    );
    assert!(
        !sent
            .iter()
            .any(|m| m.contains("[MIDDLE-MARK] the middle line")
                && m.starts_with("summarise this\n\nInput (from stdin):")),
        "{sent:?}"
    );
    let read = regex::Regex::new(
        r"read through in (\d+) parts \(\d+ s\): the model read all ([\d,]+) tokens",
    )
    .unwrap();
    let caps = read.captures(&err).unwrap_or_else(|| panic!("{err}"));
    assert!(caps[1].parse::<usize>().unwrap() >= 4, "{err}");
    assert!(
        caps[2].replace(',', "").parse::<u32>().unwrap() > 4_000,
        "{err}"
    );
    assert!(!err.contains("left out"), "{err}");
}

#[test]
fn long_input_clip_and_a_slow_first_part_keep_the_start_and_end_with_the_warning() {
    let server = Server::start();
    let url = server.url();
    let home = tempfile::tempdir().unwrap();
    // Chosen by the person.
    let mut args = vec!["--host", url.as_str(), "--long-input", "clip"];
    args.extend_from_slice(SMALL_CTX);
    let o = run_with_input(home.path(), &args, Some(marked_input().as_bytes()));
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("the model saw") && err.contains("left out"),
        "{err}"
    );
    assert!(!err.contains("read through"), "{err}");
    // Nothing was read in parts: the middle never reached the model.
    let middle = |server: &Server| {
        server
            .fake
            .chat_requests()
            .iter()
            .filter(|r| r.to_string().contains("[MIDDLE-MARK]"))
            .count()
    };
    assert_eq!(middle(&server), 0);
    // Measured: the first part takes some 7 s (60 ms a token), so the five would take
    // over the 30 s limit; the reading stops there and the input is clipped.
    server
        .fake
        .set_token_delay(std::time::Duration::from_millis(60));
    let mut args = vec!["--host", url.as_str()];
    args.extend_from_slice(SMALL_CTX);
    let o = run_with_input(home.path(), &args, Some(marked_input().as_bytes()));
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("not read through") && err.contains("as measured on its first 1 part"),
        "{err}"
    );
    assert!(err.contains("left out"), "{err}");
    assert_eq!(
        middle(&server),
        0,
        "the reading stopped after the first part"
    );
}

#[test]
fn piped_text_alone_is_the_message_and_the_model_can_be_the_first_word() {
    let server = Server::start();
    let url = server.url();
    let home = tempfile::tempdir().unwrap();
    // `git diff | ollm-tui "write a commit message"`: no model named, the newest is used.
    let o = run_with_input(
        home.path(),
        &["--host", &url, "write a commit message"],
        Some(b"diff --git a/x b/x\n+added\n"),
    );
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(text(&o).0.contains("You said:"), "{:?}", text(&o));
    // `ollm-tui MODEL PROMPT`, as with ollama run, and stdin alone.
    let o = run_with_input(
        home.path(),
        &["--host", &url, "qwen2.5-coder:0.5b", "hi"],
        None,
    );
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(text(&o).0.starts_with("You said: \"hi\""), "{:?}", text(&o));
    let o = run_with_input(home.path(), &["--host", &url], Some(b"just this\n"));
    assert!(
        text(&o).0.starts_with("You said: \"just this"),
        "{:?}",
        text(&o)
    );
    let sent = user_messages_sent(&server);
    assert!(sent.iter().any(|m| m.contains("+added")), "{sent:?}");
    let models: Vec<String> = server
        .fake
        .chat_requests()
        .iter()
        .map(|r| r["model"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        models.iter().any(|m| m == "qwen2.5-coder:0.5b"),
        "{models:?}"
    );
}

#[test]
fn a_plain_first_word_no_model_is_called_by_is_the_message_and_a_printed_id_stays_unique() {
    // #37 item 2: `cat f | ollm-tui summarize` asked to `ollama pull summarize`;
    // `ollm-tui --resume ID "continue"` took "continue" as a model; the id printed after a
    // pipe matched three sessions a minute later.
    let server = Server::start();
    let url = server.url();
    let home = tempfile::tempdir().unwrap();
    let o = run_with_input(
        home.path(),
        &["--host", &url, "summarize"],
        Some(b"the meeting moved to Thursday\n"),
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.starts_with("You said: \"summarize"), "{out:?}");
    assert!(
        err.contains("\"summarize\" is not an installed model"),
        "{err}"
    );
    let printed = err
        .split("--resume ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .expect("an id to go on with")
        .to_string();
    // More sessions in the same minute: the printed id still names the first alone.
    for i in 0..3 {
        let o = run_with_input(
            home.path(),
            &["--host", &url, "-m", "llama3.2:3b", &format!("other {i}")],
            None,
        );
        assert!(o.status.success(), "{:?}", text(&o));
    }
    let o = run_with_input(
        home.path(),
        &["--host", &url, "--resume", &printed, "continue"],
        None,
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "--resume {printed}: {err}");
    assert!(out.starts_with("You said: \"continue\""), "{out:?}");
    // It went on in that session: its two exchanges are there.
    let (list, _) = text(&run(home.path(), &["sessions"]));
    let row = list
        .lines()
        .find(|l| l.contains(&printed[..8]) && l.contains("     4 "))
        .unwrap_or_default();
    assert!(!row.is_empty(), "{list}");
    // A model's name, or a typo of one, is still a model: refused with the installed ones.
    let o = run_with_input(home.path(), &["--host", &url, "lama3.2", "hi"], None);
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(err.contains("llama3.2:3b"), "{err}");
}

#[test]
fn no_save_answers_a_pipe_and_keeps_nothing_of_it() {
    // #37 item 1: a pipe need not become a session, and takes a system prompt.
    let server = Server::start();
    let url = server.url();
    let home = tempfile::tempdir().unwrap();
    let o = run_with_input(
        home.path(),
        &[
            "--host",
            &url,
            "-m",
            "llama3.2:3b",
            "--no-save",
            "explain this",
        ],
        Some(b"fn main() {}\n"),
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.starts_with("You said: \"explain this"), "{out:?}");
    assert!(!err.contains("kept as session"), "{err}");
    // --system goes with the message, after the app's own instructions.
    let o = run_with_input(
        home.path(),
        &[
            "--host",
            &url,
            "-m",
            "llama3.2:3b",
            "--no-save",
            "--system",
            "Answer in French.",
            "hi",
        ],
        None,
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let last = server.fake.chat_requests().last().cloned().unwrap();
    let system = last["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(system.ends_with("Answer in French."), "{system}");
    let logs: Vec<_> = std::fs::read_dir(home.path().join("sessions"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(logs.is_empty(), "{logs:?}");
    // A chat is always kept: the flag is refused without a message to send.
    let o = run(home.path(), &["--host", &url, "--no-save"]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("--no-save is for one message"),
        "{:?}",
        text(&o)
    );
}

#[test]
fn a_prompt_that_gets_no_reply_fails_with_the_reason_and_saves_nothing_half() {
    let server = Server::start();
    let url = server.url();
    let home = tempfile::tempdir().unwrap();
    // No server.
    let o = run_with_input(
        home.path(),
        &["--host", "127.0.0.1:9", "-m", "llama3.2:3b", "hello"],
        None,
    );
    let (out, err) = text(&o);
    assert!(!o.status.success());
    assert!(out.is_empty(), "{out:?}");
    assert!(err.contains("cannot reach Ollama at"), "{err}");
    // A model the server does not have.
    let o = run_with_input(
        home.path(),
        &["--host", &url, "-m", "nosuch:1b", "hello"],
        None,
    );
    let (out, err) = text(&o);
    assert!(!o.status.success());
    assert!(out.is_empty(), "{out:?}");
    assert!(
        err.contains("\"nosuch:1b\" is not installed") && err.contains("ollama pull nosuch:1b"),
        "{err}"
    );
    // Nothing to send.
    let o = run_with_input(
        home.path(),
        &["--host", &url, "-m", "llama3.2:3b"],
        Some(b" \n"),
    );
    assert!(!o.status.success());
    assert!(text(&o).1.contains("nothing to send"), "{:?}", text(&o));
    // Not text.
    let o = run_with_input(
        home.path(),
        &["--host", &url, "-m", "llama3.2:3b", "what is this"],
        Some(b"\xff\xfe\x00binary"),
    );
    assert!(!o.status.success());
    assert!(text(&o).1.contains("not UTF-8"), "{:?}", text(&o));
    // None of these left a session behind, and no request was sent.
    assert!(user_messages_sent(&server).is_empty());
    let (list, _) = text(&run(home.path(), &["sessions"]));
    assert!(list.contains("No sessions yet"), "{list}");
    // A request the server fails: the message is kept (for --resume), the exit says why.
    server
        .fake
        .push_fault(support::fake_ollama::Fault::Http500 {
            message: "out of memory".into(),
        });
    let o = run_with_input(
        home.path(),
        &["--host", &url, "-m", "llama3.2:3b", "hello"],
        None,
    );
    assert!(!o.status.success());
    let err = text(&o).1;
    assert!(
        err.contains("out of memory") && err.contains("kept"),
        "{err}"
    );
}

#[test]
fn the_reply_streams_to_stdout_as_it_arrives() {
    use std::io::Read as _;
    let server = Server::start();
    // The server sends the first words, then stalls with the reply unfinished: what is
    // on stdout by then was printed as it came, not at the end.
    server
        .fake
        .push_fault(support::fake_ollama::Fault::StallAfter { tokens: 5 });
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(["--host", &server.url(), "-m", "llama3.2:3b", "hello"])
        .env("OLLM_HOME", home.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut got = Vec::new();
        let mut buf = [0u8; 64];
        while !String::from_utf8_lossy(&got).contains("You") {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        let _ = tx.send(got);
    });
    // A deadline only for a failing build (it would print nothing until the end).
    let got = rx.recv_timeout(std::time::Duration::from_secs(30));
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    let got = got.expect("nothing on stdout while the reply was under way");
    assert!(String::from_utf8_lossy(&got).starts_with("You"), "{got:?}");
    assert!(running, "the reply was not over");
}

/// The issue's one-shot output (#36): piped, it kept a U+202E, and the payload of an
/// escape sequence whose ESC was dropped still printed (`]52;c;…`). Now it is text without
/// controls but newline and tab, each sequence gone with its payload.
#[test]
fn piped_output_carries_no_control_and_no_escape_payload() {
    let server = Server::start();
    server.fake.push_reply(
        "safe \u{1b}]52;c;Y3VybCBldmlsIHwgc2g=\u{7}text\u{202E}gnp.exe \u{1b}[31mred\u{1b}[0m\r\nend",
    );
    let home = tempfile::tempdir().unwrap();
    let o = run_with_input(
        home.path(),
        &["--host", &server.url(), "-m", "llama3.2:3b", "hello"],
        None,
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(out, "safe textgnp.exe red\nend\n");
    assert!(
        !out.chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202E}'),
        "{out:?}"
    );
}

#[test]
fn a_reader_that_goes_away_mid_reply_is_not_an_error() {
    // `ollm-tui "…" | head -c 10`: the reader had enough.
    let server = Server::start();
    let home = tempfile::tempdir().unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = Command::new(BIN)
        .args(["--host", &server.url(), "-m", "llama3.2:3b", "hello"])
        .env("OLLM_HOME", home.path())
        .stdin(std::process::Stdio::null())
        .stdout(writer)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        !err.contains("pipe") && !err.contains("cannot write"),
        "{err}"
    );
}

#[test]
fn a_prompt_taken_by_resume_as_its_id_gets_a_hint() {
    let home = tempfile::tempdir().unwrap();
    session(home.path(), "01a20000-0000-7000-8000-0000000000bb");
    let o = run(home.path(), &["--resume", "and then?"]);
    assert!(!o.status.success());
    let err = text(&o).1;
    assert!(err.contains("ollm-tui \"and then?\" --resume"), "{err}");
}

/// The binary with a deadline: a hang is a failure, not a stuck suite.
fn run_within(home: &Path, args: &[&str], limit: std::time::Duration) -> Output {
    use std::process::Stdio;
    let mut child = Command::new(BIN)
        .args(args)
        .env("OLLM_HOME", home)
        .env_remove("OLLAMA_HOST")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!(
                "{args:?} still ran after {limit:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// The issue's data folder (#36): `sessions/last-used` a FIFO hung `sessions` and
/// `--resume`; a link to /dev/zero took them to 4.3 GB. So are a session's lock and title.
/// Each is refused at once now (not read), and what can be listed is.
#[test]
fn fifos_and_links_in_the_data_folder_neither_hang_nor_flood() {
    let id = "01a20000-0000-7000-8000-0000000000cc";
    let limit = std::time::Duration::from_secs(20);
    let server = Server::start();
    for plant in ["fifo", "zero"] {
        let home = tempfile::tempdir().unwrap();
        session(home.path(), id);
        let sessions = home.path().join("sessions");
        for name in [
            "last-used".to_string(),
            format!("{id}.title"),
            format!("{id}.lock"),
        ] {
            let p = sessions.join(name);
            match plant {
                "fifo" => support::files::mkfifo(&p),
                _ => std::os::unix::fs::symlink("/dev/zero", &p).unwrap(),
            }
        }
        let o = run_within(home.path(), &["sessions"], limit);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{plant}: {err}");
        assert!(
            out.contains("01a20000"),
            "{plant}: the session is listed: {out}"
        );
        // One message after the session last used: it must not wait on `last-used`.
        let o = run_within(
            home.path(),
            &["--host", &server.url(), "and then?", "--resume"],
            limit,
        );
        let (_, err) = text(&o);
        assert!(!err.contains("panicked"), "{plant}: {err}");
    }
}
