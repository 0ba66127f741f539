//! CLI support: the `sessions` listing, resolving ids and prefixes, the latest session,
//! and `export` as JSON (the seed's session-file shape) and Markdown.
#![allow(clippy::unwrap_used)]

#[path = "store_fixtures.rs"]
mod fixtures;

use fixtures::*;
use ollm_tui::app::words;
use ollm_tui::core::checkpoint::CheckpointId;
use ollm_tui::core::goals::{Author, GoalChange, Priority, StepStatus};
use ollm_tui::core::message::ReplyStatus;
use ollm_tui::core::record::{Header, Record, RecordBody};
use ollm_tui::store::{DataDir, SessionLog, StoreError, export, sessions};
use std::fs;

fn write_session(dir: &DataDir, header: Header, records: &[Record]) {
    let mut log = SessionLog::create(dir, header).unwrap();
    for r in records {
        log.append(r).unwrap();
    }
    log.sync().unwrap();
}

fn header_at(id: &str, created_secs: i64) -> Header {
    Header {
        created: ts(created_secs),
        ..header(id)
    }
}

fn rec(seq: u64, body: RecordBody) -> Record {
    Record {
        seq,
        ts: ts(seq as i64 * 60),
        body,
    }
}

#[test]
fn sessions_list_shows_title_model_counts_and_activity_newest_first() {
    let (_tmp, dir) = data_dir();
    let mut busy = vec![
        user(
            1,
            "  \nHow do I \u{1b}[31mparse\u{1b}[0m JSONL in Rust?\nsecond line",
        ),
        assistant(2, "Use serde_json.", ReplyStatus::Complete),
        rec(
            3,
            RecordBody::Tool {
                name: "grep".into(),
                args: "{}".into(),
                result: "".into(),
                is_error: false,
                tokens: None,
                call_id: None,
                ms: None,
                original: None,
            },
        ),
        rec(
            4,
            RecordBody::Checkpoint {
                checkpoint: checkpoint(1, &[1, 2]),
            },
        ),
        rec(
            5,
            RecordBody::Settings {
                model: Some("qwen2.5:7b".into()),
                ctx: None,
                mode: None,
                params: None,
            },
        ),
        rec(
            6,
            RecordBody::Checkpoint {
                checkpoint: checkpoint(2, &[3]),
            },
        ),
        user(7, "next question"),
    ];
    busy[6].ts = ts(5000);
    write_session(&dir, header_at("0192aaaa-1111", 0), &busy);
    write_session(&dir, header_at("0192aaaa-2222", 100), &[]);
    write_session(&dir, header_at("0192bbbb-3333", 50), &[user(1, "old")]);
    // A newer build's session, and files that are not sessions at all.
    fs::write(
        dir.session_log_path("0192cccc-4444"),
        "{\"format\":\"ollm-session\",\"format_version\":99}\n",
    )
    .unwrap();
    fs::write(dir.sessions_dir().join("notes.txt"), "x").unwrap();
    fs::write(dir.corrupt_path("0192aaaa-1111"), "junk\n").unwrap();
    fs::write(dir.lock_path("0192aaaa-1111"), "").unwrap();

    let list = sessions::list(&dir).unwrap();
    let ids: Vec<&str> = list.iter().map(|s| s.id.as_str()).collect();
    // The unreadable one sorts by its file time (now), so it comes first.
    assert_eq!(
        ids,
        [
            "0192cccc-4444",
            "0192aaaa-1111",
            "0192aaaa-2222",
            "0192bbbb-3333"
        ]
    );

    let newer = &list[0];
    let problem = newer.problem.as_deref().unwrap();
    assert!(problem.contains("format version 99"), "{problem}");

    let s = &list[1];
    assert_eq!(s.title.as_deref(), Some("How do I parse JSONL in Rust?"));
    assert_eq!(s.model, "qwen2.5:7b");
    assert_eq!((s.messages, s.compressions), (4, 2));
    assert_eq!(s.created, Some(ts(0)));
    assert_eq!(s.last_activity, ts(5000));
    assert_eq!(s.size_bytes, fs::metadata(&s.path).unwrap().len());
    assert_eq!(s.problem, None);

    let empty = &list[2];
    assert_eq!((empty.title.as_deref(), empty.messages), (None, 0));
    assert_eq!(empty.last_activity, ts(100));
    assert_eq!(empty.model, "llama3.2:3b");
}

#[test]
fn a_damaged_session_is_listed_with_its_problem() {
    let (_tmp, dir) = data_dir();
    write_session(&dir, header("s"), &[user(1, "a"), user(2, "b")]);
    let path = dir.session_log_path("s");
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1] = "garbage";
    fs::write(&path, lines.join("\n") + "\n{\"seq\":3").unwrap();
    let list = sessions::list(&dir).unwrap();
    assert_eq!(list[0].messages, 1);
    let problem = list[0].problem.as_deref().unwrap();
    assert!(problem.contains("1 unreadable record"), "{problem}");
    assert!(problem.contains("incomplete last line"), "{problem}");
    // Listing is read-only.
    assert!(fs::read_to_string(&path).unwrap().ends_with("{\"seq\":3"));
}

#[test]
fn resolve_accepts_ids_and_unique_prefixes() {
    let (_tmp, dir) = data_dir();
    for id in ["0192aaaa-1111", "0192aaaa-2222", "0192bbbb-3333", "0192b"] {
        write_session(&dir, header(id), &[]);
    }
    assert_eq!(
        sessions::resolve(&dir, "0192aaaa-1111").unwrap(),
        "0192aaaa-1111"
    );
    assert_eq!(
        sessions::resolve(&dir, "0192aaaa-2").unwrap(),
        "0192aaaa-2222"
    );
    // An exact id wins over being a prefix of another.
    assert_eq!(sessions::resolve(&dir, "0192b").unwrap(), "0192b");
    assert_eq!(sessions::resolve(&dir, "0192bb").unwrap(), "0192bbbb-3333");

    match sessions::resolve(&dir, "0192a").unwrap_err() {
        StoreError::Ambiguous { prefix, matches } => {
            assert_eq!(prefix, "0192a");
            assert_eq!(matches, ["0192aaaa-1111", "0192aaaa-2222"]);
        }
        other => panic!("expected Ambiguous, got {other:?}"),
    }
    let msg = sessions::resolve(&dir, "0192").unwrap_err().to_string();
    assert!(msg.contains("matches 4 sessions"), "{msg}");
    assert!(matches!(
        sessions::resolve(&dir, "ffff"),
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        sessions::resolve(&dir, "../etc"),
        Err(StoreError::InvalidId { .. })
    ));
}

#[test]
fn latest_is_the_session_last_used_not_the_last_file_written() {
    let (_tmp, dir) = data_dir();
    assert_eq!(sessions::latest(&dir).unwrap(), None);
    write_session(
        &dir,
        header("a"),
        &[user(1, "old"), assistant(2, "reply", ReplyStatus::Complete)],
    );
    let mut later = vec![
        user(1, "newer"),
        assistant(2, "reply", ReplyStatus::Complete),
    ];
    for r in &mut later {
        r.ts = ts(1000 + r.seq as i64);
    }
    write_session(&dir, header("b"), &later);
    // Forks of both, each at its last message: new files, written after everything.
    let fork_of_a = ollm_tui::store::manage::fork(&dir, "a", 2).unwrap();
    let fork_of_b = ollm_tui::store::manage::fork(&dir, "b", 2).unwrap();
    // Without a word from the app: the newest record, and a fork that adds none does
    // not outrank its parent.
    assert_eq!(sessions::latest(&dir).unwrap().as_deref(), Some("b"));
    // What the app says the person used wins, forks included.
    sessions::mark_used(&dir, "a").unwrap();
    assert_eq!(sessions::latest(&dir).unwrap().as_deref(), Some("a"));
    sessions::mark_used(&dir, &fork_of_a).unwrap();
    assert_eq!(
        sessions::latest(&dir).unwrap().as_deref(),
        Some(fork_of_a.as_str())
    );
    // A session that is gone is not resumed.
    fs::remove_file(dir.session_log_path(&fork_of_a)).unwrap();
    assert_eq!(sessions::latest(&dir).unwrap().as_deref(), Some("b"));
    // Nor is whatever else the file might hold.
    fs::write(dir.last_used_path(), "../../etc/passwd\n").unwrap();
    assert_eq!(sessions::latest(&dir).unwrap().as_deref(), Some("b"));
    assert!(sessions::mark_used(&dir, "../x").is_err());
    let _ = fork_of_b;
}

fn sample_session() -> ollm_tui::store::LoadedLog {
    let (_tmp, dir) = data_dir();
    let mut records = vec![
        user(1, "Plan the store module\nwith details"),
        assistant(
            2,
            "Here is a plan:\n\n1. log\n2. snapshots",
            ReplyStatus::Complete,
        ),
        rec(
            3,
            RecordBody::Goal {
                change: GoalChange::SetGoal {
                    description: "Ship the store".into(),
                    priority: Priority::High,
                },
                author: Author::User,
            },
        ),
        rec(
            4,
            RecordBody::Goal {
                change: GoalChange::Checkpoint {
                    description: "write tests".into(),
                    status: StepStatus::Completed,
                },
                author: Author::Model,
            },
        ),
        rec(
            5,
            RecordBody::Goal {
                change: GoalChange::Decision {
                    text: "JSONL log".into(),
                    locked: true,
                },
                author: Author::User,
            },
        ),
        rec(
            6,
            RecordBody::Tool {
                name: "read_file".into(),
                args: r#"{"path":"src/lib.rs"}"#.into(),
                result: "pub mod store; // ``` inside".into(),
                is_error: false,
                tokens: None,
                call_id: None,
                ms: None,
                original: None,
            },
        ),
        rec(
            7,
            RecordBody::Checkpoint {
                checkpoint: checkpoint(1, &[1, 2]),
            },
        ),
        user(8, "Paste: \u{1b}]52;c;ZXZpbA==\u{7}done \u{202e}evil"),
        assistant(9, "Partial ans", ReplyStatus::Interrupted),
    ];
    for r in &mut records {
        r.ts = ts(r.seq as i64 * 60);
    }
    write_session(&dir, header("0192f0c4-demo"), &records);
    SessionLog::read(&dir, "0192f0c4-demo").unwrap()
}

#[test]
fn json_export_has_the_seed_session_file_shape() {
    let log = sample_session();
    let v = export::to_json(&log);
    assert_eq!(v["sessionId"], "0192f0c4-demo");
    assert_eq!(v["startTime"], "2026-11-22T10:00:00+00:00");
    assert_eq!(v["lastActivity"], "2026-11-22T10:09:00+00:00");
    assert_eq!(v["model"], "llama3.2:3b");
    assert_eq!(v["provider"], "ollama");

    let messages = v["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4);
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
    for m in messages {
        assert_eq!(m["parts"][0]["type"], "text");
        assert!(m["parts"][0]["text"].is_string());
        assert!(m["timestamp"].is_string());
    }
    assert_eq!(
        messages[0]["parts"][0]["text"],
        "Plan the store module\nwith details"
    );
    // JSON keeps the text byte for byte (escapes included); only Markdown sanitises.
    assert!(
        messages[2]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .contains('\u{1b}')
    );
    assert_eq!(messages[1]["status"], "complete");
    assert_eq!(messages[3]["status"], "interrupted");

    let calls = v["toolCalls"].as_array().unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["id"], "call_6");
    assert_eq!(calls[0]["name"], "read_file");
    assert_eq!(calls[0]["args"]["path"], "src/lib.rs");
    assert_eq!(
        calls[0]["result"]["llmContent"],
        "pub mod store; // ``` inside"
    );
    assert_eq!(calls[0]["timestamp"], "2026-11-22T10:06:00+00:00");

    assert_eq!(v["metadata"]["compressionCount"], 1);
    assert_eq!(v["metadata"]["tokenCount"], 1200 + 85);
    assert_eq!(
        v["checkpoints"][0]["messageRange"],
        serde_json::json!([1, 2])
    );
    assert_eq!(v["goals"]["active"]["description"], "Ship the store");
    // camelCase like the rest of the file.
    assert!(
        v["goals"]["active"]["createdAt"].is_string(),
        "{}",
        v["goals"]
    );
    assert!(v["goals"]["active"].get("created_at").is_none());
    assert_eq!(v["goals"]["decisions"][0]["locked"], true);
}

#[test]
fn exports_show_the_settings_the_log_ends_with() {
    // Changed mid-session (/ctx, /mode, /model): the header keeps the first values.
    let (_tmp, dir) = data_dir();
    let records = vec![
        user(1, "hello"),
        rec(
            2,
            RecordBody::Settings {
                model: Some("qwen2.5:7b".into()),
                ctx: Some(16384),
                mode: Some(ollm_tui::core::mode::Mode::Planning),
                params: None,
            },
        ),
    ];
    let mut records = records;
    // Two checkpoints merged: named by number, as on screen, not by internal id.
    let mut first = checkpoint(7, &[1]);
    first.number = 1;
    let mut second = checkpoint(8, &[1]);
    second.number = 2;
    let mut merged = checkpoint(9, &[1]);
    merged.number = 1;
    records.push(rec(3, RecordBody::Checkpoint { checkpoint: first }));
    records.push(rec(4, RecordBody::Checkpoint { checkpoint: second }));
    records.push(rec(
        5,
        RecordBody::CheckpointsMerged {
            merged: vec![CheckpointId(7), CheckpointId(8)],
            checkpoint: merged,
        },
    ));
    // A merge that takes in an earlier merge's result names it by number too.
    let mut third = checkpoint(10, &[1]);
    third.number = 3;
    let mut merged_again = checkpoint(11, &[1]);
    merged_again.number = 1;
    records.push(rec(7, RecordBody::Checkpoint { checkpoint: third }));
    records.push(rec(
        8,
        RecordBody::CheckpointsMerged {
            merged: vec![CheckpointId(9), CheckpointId(10)],
            checkpoint: merged_again,
        },
    ));
    records.push(rec(
        9,
        RecordBody::Settings {
            model: None,
            ctx: Some(0),
            mode: None,
            params: None,
        },
    ));
    write_session(&dir, header("settings-demo"), &records);
    let log = SessionLog::read(&dir, "settings-demo").unwrap();
    let v = export::to_json(&log);
    assert_eq!(v["model"], "qwen2.5:7b");
    // `/ctx auto` came last: the model's own size.
    assert_eq!(v["metadata"]["ctx"], serde_json::Value::Null);
    assert_eq!(v["metadata"]["mode"], "planning");
    let md = export::to_markdown(&log, &words::MARKDOWN);
    assert!(
        md.contains("- **Model:** qwen2.5:7b · mode planning\n"),
        "{md}"
    );
    assert!(md.contains("ctx → 16384"), "{md}");
    assert!(md.contains("ctx → the model's own"), "{md}");
    assert!(
        md.contains("Checkpoints 1, 2 merged into checkpoint 1"),
        "{md}"
    );
    assert!(!md.contains("cp7"), "{md}");
    assert!(
        md.contains("Checkpoints 1, 3 merged into checkpoint 1"),
        "{md}"
    );
    assert!(!md.contains("cp9"), "{md}");
}

#[test]
fn markdown_export_is_readable_and_terminal_safe() {
    let md = export::to_markdown(&sample_session(), &words::MARKDOWN);
    assert!(!md.contains('\u{1b}'), "escape sequence leaked");
    assert!(!md.contains('\u{202e}'), "bidi override leaked");
    assert!(!md.contains("ZXZpbA=="), "OSC 52 payload leaked");
    insta::assert_snapshot!(md, @r#"
    # Plan the store module

    - **Session:** `0192f0c4-demo`
    - **Model:** llama3.2:3b · mode developer · ctx 8192
    - **Started:** 2026-11-22 10:00:00 UTC
    - **Last activity:** 2026-11-22 10:09:00 UTC
    - **Messages:** 5 · **Compressions:** 1

    ## Goal board

    **Active goal:** Ship the store (High priority, Active)

    - [x] write tests

    **Decisions:**

    - 🔒 JSONL log (#1)

    ## Conversation

    ### User #1 · 2026-11-22 10:01:00 UTC

    Plan the store module
    with details

    ### Assistant #2 · 2026-11-22 10:02:00 UTC · llama3.2:3b

    Here is a plan:

    1. log
    2. snapshots

    > 🎯 Goal set: Ship the store (High priority) (by user) · 2026-11-22 10:03:00 UTC

    > 🎯 Goal checkpoint write tests — COMPLETED (by model) · 2026-11-22 10:04:00 UTC

    > 🎯 Decision (locked): JSONL log (by user) · 2026-11-22 10:05:00 UTC

    ### Tool `read_file` #6 · 2026-11-22 10:06:00 UTC

    **Arguments**

    ```json
    {"path":"src/lib.rs"}
    ```

    **Result**

    ````
    pub mod store; // ``` inside
    ````

    <details>
    <summary>📝 Checkpoint 1: messages #1–#2 folded (1500 → 120 tokens, detailed) · 2026-11-22 10:07:00 UTC</summary>

    Summary of part 1: decided to use `Vec<u8>` in src/lib.rs

    </details>

    ### User #8 · 2026-11-22 10:08:00 UTC

    Paste: done evil

    ### Assistant #9 · 2026-11-22 10:09:00 UTC · llama3.2:3b

    Partial ans

    > ⚠ **Interrupted** — the reply stopped here; the partial text above was kept.
    "#);
}

#[test]
fn an_export_replaces_a_planted_symlink_instead_of_writing_through_it() {
    use std::os::unix::fs::PermissionsExt;
    let (tmp, dir) = data_dir();
    let id = "01a20000-0000-7000-8000-0000000051a1";
    write_session(&dir, header(id), &[user(1, "hello")]);
    let exports = dir.root().join("exports");
    fs::create_dir_all(&exports).unwrap();
    let victim = tmp.path().join("victim.txt");
    fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, exports.join(format!("{id}.md"))).unwrap();
    let path = export::write_export(&dir, id, &export::Format::Markdown(words::MARKDOWN)).unwrap();
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    let meta = fs::symlink_metadata(&path).unwrap();
    assert!(
        meta.file_type().is_file(),
        "the link was replaced by the export"
    );
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(fs::read_to_string(&path).unwrap().contains("hello"));
    // No temporary file is left behind.
    let names: Vec<_> = fs::read_dir(&exports)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn the_json_export_escapes_what_acts_on_a_terminal_and_means_the_same() {
    let (_tmp, dir) = data_dir();
    let id = "01a20000-0000-7000-8000-0000000051a2";
    let text = "csi \u{9b}31m osc \u{9d}0;x\u{7} bidi \u{202e}txet\u{202c} ok";
    write_session(&dir, header(id), &[user(1, text)]);
    let log = SessionLog::read(&dir, id).unwrap();
    let json = export::to_json_text(&log).unwrap();
    for c in ['\u{9b}', '\u{9d}', '\u{202e}', '\u{202c}', '\u{7}'] {
        assert!(!json.contains(c), "raw {c:?} in the export");
    }
    let back: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(back, export::to_json(&log), "the same document");
    // And the file written by /export is the same text.
    let path = export::write_export(&dir, id, &export::Format::Json).unwrap();
    assert_eq!(fs::read_to_string(path).unwrap(), json);
}

#[test]
fn both_exports_carry_tool_calls_and_reasoning() {
    let (_tmp, dir) = data_dir();
    let mut asks = assistant(2, "", ReplyStatus::Complete);
    if let RecordBody::Assistant {
        tool_calls,
        thinking,
        ..
    } = &mut asks.body
    {
        *thinking = "The file will say; read it first.".into();
        tool_calls.push(ollm_tui::core::message::ToolCall {
            id: "call_ab12".into(),
            name: "read_file".into(),
            args: r#"{"path":"notes.txt"}"#.into(),
            from_text: true,
        });
    }
    let records = vec![
        user(1, "What is in notes.txt?"),
        asks,
        rec(
            3,
            RecordBody::Tool {
                name: "read_file".into(),
                args: r#"{"path":"notes.txt"}"#.into(),
                result: "1| port 7040".into(),
                is_error: false,
                tokens: None,
                call_id: Some("call_ab12".into()),
                ms: Some(1500),
                original: None,
            },
        ),
        assistant(4, "It says port 7040.", ReplyStatus::Complete),
    ];
    write_session(&dir, header("tools-demo"), &records);
    let log = SessionLog::read(&dir, "tools-demo").unwrap();

    let v = export::to_json(&log);
    let asked = &v["messages"][1];
    assert_eq!(asked["parts"][0]["type"], "thinking");
    assert_eq!(
        asked["parts"][0]["text"],
        "The file will say; read it first."
    );
    assert_eq!(asked["toolCalls"][0]["id"], "call_ab12");
    assert_eq!(asked["toolCalls"][0]["args"]["path"], "notes.txt");
    assert_eq!(asked["toolCalls"][0]["fromText"], true);
    let call = &v["toolCalls"][0];
    assert_eq!(
        call["id"], "call_ab12",
        "the result names the call it answers"
    );
    assert_eq!(call["durationMs"], 1500);
    assert_eq!(call["result"]["llmContent"], "1| port 7040");

    let md = export::to_markdown(&log, &words::MARKDOWN);
    assert!(md.contains("<summary>Thinking (7 words)</summary>"), "{md}");
    assert!(md.contains("The file will say; read it first."), "{md}");
    assert!(
        md.contains("Calls `read_file` (written as text, read as a call)"),
        "{md}"
    );
    assert!(md.contains("### Tool `read_file` #3"), "{md}");
    assert!(md.contains("· 1.5s"), "{md}");
    assert!(md.contains("1| port 7040"), "{md}");
}

/// Search reads the logs, so a message folded into a checkpoint long ago is found as it
/// was written; text with quotes is found as JSON escapes it; the limit is kept and said.
#[test]
fn search_finds_folded_messages_quoted_text_and_keeps_its_limit() {
    use ollm_tui::store::search::search;
    let (_tmp, dir) = data_dir();
    let mut records = vec![
        user(1, "Our cache service (Redis) listens on port 6379."),
        assistant(2, "Noted: Redis on 6379.", ReplyStatus::Complete),
        rec(
            3,
            RecordBody::Checkpoint {
                checkpoint: checkpoint(3, &[1, 2]),
            },
        ),
        user(4, "She said \"ship it\" on Friday"),
    ];
    for i in 0..30 {
        records.push(user(5 + i, &format!("filler {i} about redis again")));
    }
    write_session(&dir, header_at("s1", 0), &records);
    let r = search(&dir, "listens on PORT 6379", 10).unwrap();
    assert_eq!(r.hit_count(), 1);
    let hit = &r.sessions[0].hits[0];
    assert_eq!((hit.seq, hit.role), (1, "user"));
    assert_eq!(&hit.snippet[hit.matched.clone()], "listens on port 6379");
    assert_eq!(
        r.sessions[0].title.as_deref(),
        Some("Our cache service (Redis) listens on port 6379.")
    );
    let r = search(&dir, "\"ship it\"", 10).unwrap();
    assert_eq!(r.hit_count(), 1, "{r:?}");
    assert_eq!(r.sessions[0].hits[0].seq, 4);
    let r = search(&dir, "redis", 10).unwrap();
    assert_eq!(r.hit_count(), 10);
    assert!(r.truncated);
    // A field name or the header is not a hit.
    assert_eq!(search(&dir, "checkpoint", 10).unwrap().hit_count(), 0);
    assert_eq!(search(&dir, "llama", 10).unwrap().hit_count(), 0);
}

/// #38 item 1: the model's title is a `title` record: the list, search and the Markdown
/// export name the session by it; a title given with rename (a file) wins; a session
/// titled before titles were records (`<id>.autotitle`) keeps its title; a fork does not
/// take its parent's, and its seqs have no gap.
#[test]
fn the_models_title_is_a_record_that_the_list_search_and_export_read() {
    use ollm_tui::store::search::search;
    let (_tmp, dir) = data_dir();
    let title = |seq, t: &str| {
        rec(
            seq,
            RecordBody::Title {
                title: t.to_string(),
            },
        )
    };
    write_session(
        &dir,
        header_at("s1", 0),
        &[
            user(1, "How do I cache fetch_orders?"),
            assistant(2, "With Redis.", ReplyStatus::Complete),
            title(3, "Redis cache for orders"),
            user(4, "and the TTL?"),
        ],
    );
    let row = |dir: &DataDir, id: &str| {
        sessions::list(dir)
            .unwrap()
            .into_iter()
            .find(|s| s.id == id)
            .unwrap()
    };
    let s = row(&dir, "s1");
    assert_eq!(s.title.as_deref(), Some("Redis cache for orders"));
    assert_eq!((s.messages, s.problem.as_deref()), (3, None));
    let found = search(&dir, "fetch_orders", 10).unwrap();
    assert_eq!(
        found.sessions[0].title.as_deref(),
        Some("Redis cache for orders")
    );
    let md = fs::read_to_string(
        export::write_export(&dir, "s1", &export::Format::Markdown(words::MARKDOWN)).unwrap(),
    )
    .unwrap();
    assert!(md.starts_with("# Redis cache for orders\n"), "{md}");
    // A fork holds the parent's records up to its message, the title's seq kept empty.
    let fork = ollm_tui::store::manage::fork(&dir, "s1", 4).unwrap();
    let (_, forked) = SessionLog::open(&dir, &fork).unwrap();
    assert!(forked.report.is_clean(), "{:?}", forked.report);
    assert_eq!(
        forked.records[2].body,
        RecordBody::Title {
            title: String::new()
        }
    );
    assert_eq!(
        row(&dir, &fork).title.as_deref(),
        Some("How do I cache fetch_orders?")
    );
    // The files say nothing of the record (the engine knows it); a rename wins over it.
    assert!(ollm_tui::store::manage::wants_title(&dir, "s1"));
    ollm_tui::store::manage::rename(&dir, "s1", "Mine").unwrap();
    assert_eq!(row(&dir, "s1").title.as_deref(), Some("Mine"));
    // Written by an earlier version: a file beside the log, still read.
    write_session(
        &dir,
        header_at("old", 0),
        &[user(1, "Plan the Q3 migration")],
    );
    fs::write(
        dir.session_log_path("old").with_extension("autotitle"),
        "Q3 plan",
    )
    .unwrap();
    assert_eq!(row(&dir, "old").title.as_deref(), Some("Q3 plan"));
    assert!(!ollm_tui::store::manage::wants_title(&dir, "old"));
}
