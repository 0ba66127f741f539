//! What `ollama run` users reach for (#31): `/new` (and `/clear`) for a fresh conversation
//! that keeps the old one, `/bye`, a session's own `/system` prompt and `/set`
//! parameters (shown in the goal panel, sent to the server, kept across quit and
//! `--resume`), and `/fork` keeping the model and context and saying what it did.

use super::harness::{BIN, Rig, assert_terminal_clean, idle, session_logs};
use super::support::fake_ollama::FakeOllama;
use std::path::Path;

const SMALL: &str = "qwen2.5-coder:0.5b";

/// The status line shows `SMALL` and a 1,024-token context.
fn small_at_1k(s: &str) -> bool {
    s.contains(SMALL)
        && s.lines()
            .any(|l| l.contains("Context:") && l.contains("/1,024"))
}

/// The chat request that sent the person's `text` (not a title or summary request).
fn request_with(server: &FakeOllama, text: &str) -> serde_json::Value {
    server
        .chat_requests()
        .into_iter()
        .rev()
        .find(|r| {
            r["messages"]
                .as_array()
                .and_then(|m| m.last())
                .is_some_and(|m| m["role"] == "user" && m["content"] == text)
        })
        .unwrap_or_else(|| panic!("no request sent {text:?}"))
}

/// `ollm-tui sessions` for the data in `home`.
fn sessions_listing(home: &Path) -> String {
    let out = std::process::Command::new(BIN)
        .arg("sessions")
        .env("OLLM_HOME", home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// `/new` inside the app: the old session is closed and saved (listed, resumable), the new
/// one is empty and keeps the model, context and the session's own settings, and the
/// screen says where the old one went. `/clear` does the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_starts_an_empty_session_with_the_same_settings_and_keeps_the_old_one() {
    let rig = Rig::new().await;
    let t = rig.connect(&["-m", SMALL, "--ctx", "1024"], 120, 36).await;
    t.say("/system Answer like a pirate.");
    t.wait_for("the system prompt set", |s| s.contains("System prompt set"))
        .await;
    t.ask("first question").await;
    t.say("/new");
    let s = t
        .wait_for("the new session", |s| {
            s.contains("New session. The previous one") && !s.contains("first question")
        })
        .await;
    assert!(s.contains("--resume"), "how to get back:\n{s}");
    t.wait_for("the same model and context", |s| small_at_1k(s) && idle(s))
        .await;
    let s = t.ask("second question").await;
    assert!(
        !s.contains("first question"),
        "the new session is empty:\n{s}"
    );
    // The system prompt went along: the server saw it in the new session's request.
    let last = request_with(&rig.server, "second question");
    assert!(
        last["messages"][0]["content"]
            .as_str()
            .unwrap()
            .ends_with("Answer like a pirate."),
        "{last}"
    );
    assert_eq!(last["messages"].as_array().unwrap().len(), 2, "{last}");
    assert_eq!(last["model"], SMALL);
    assert_eq!(last["options"]["num_ctx"], 1024);
    // `/clear` is `/new` for `ollama run` hands: the second session is kept too.
    t.say("/clear");
    t.wait_for("another new session", |s| {
        s.contains("New session. The previous one") && !s.contains("second question")
    })
    .await;
    t.quit().await;
    assert_terminal_clean(&t);
    // Both conversations are on disk and listed; the third had nothing to keep.
    let logs = session_logs(rig.home());
    assert_eq!(logs.len(), 2, "{logs:?}");
    let listing = sessions_listing(rig.home());
    let listed: Vec<&str> = listing
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for log in &logs {
        let id = log.file_stem().unwrap().to_str().unwrap();
        assert!(
            listed.iter().any(|short| id.starts_with(short)),
            "{id} listed:\n{listing}"
        );
    }
    let old = logs
        .iter()
        .find(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("first question")
        })
        .unwrap();
    let old_id = old.file_stem().unwrap().to_str().unwrap().to_string();
    // The old one is reachable with --resume.
    let t = rig.connect(&["--resume", &old_id], 120, 36).await;
    t.wait_for("the old conversation", |s| {
        s.contains("first question") && !s.contains("second question") && small_at_1k(s)
    })
    .await;
}

/// `/bye`, as `ollama run` users leave: it quits like `/quit`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_users_bye_quits() {
    let rig = Rig::new().await;
    let t = rig.connect(&["-m", SMALL], 100, 30).await;
    t.ask("hello").await;
    t.say("/bye");
    assert_eq!(t.wait_exit().await, 0);
    assert_terminal_clean(&t);
    assert!(t.screen().contains("Session saved"), "{}", t.screen());
}

/// `/set verbose`, as `ollama run --verbose` (#37 item 3): each reply is followed by a dim
/// line of its timing and speed, the fake server's figures as Ollama reports them;
/// `/set quiet` stops it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_users_set_verbose_shows_each_replys_timing() {
    let rig = Rig::new().await;
    let t = rig.connect(&["-m", SMALL], 120, 30).await;
    t.say("/set verbose");
    t.wait_for("verbose on", |s| s.contains("Verbose: each reply"))
        .await;
    t.ask("how fast are you").await;
    let s = t
        .wait_for("the timing line", |s| {
            s.contains("load duration 12 ms") && s.contains("tokens/s") && idle(s)
        })
        .await;
    let line = s
        .lines()
        .find(|l| l.contains("load duration"))
        .unwrap()
        .trim();
    assert!(line.starts_with("total duration "), "{line}");
    assert!(
        line.contains("prompt eval ") && line.contains("4,000 tokens/s"),
        "{line}"
    );
    assert!(line.ends_with(" tokens, 50.0 tokens/s"), "{line}");
    t.say("/set quiet");
    t.wait_for("quiet", |s| s.contains("Quiet: no timing after replies"))
        .await;
    let s = t.ask("and now").await;
    assert_eq!(
        s.matches("load duration").count(),
        1,
        "no line after the quiet reply:\n{s}"
    );
    t.quit().await;
}

/// `/system` and `/set temperature` (and `ollama run`'s `/set parameter` form): shown in
/// the goal panel, sent to the server, and still there after quitting and `--resume`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_settings_show_in_the_panel_reach_the_server_and_survive_resume() {
    let rig = Rig::new().await;
    let t = rig.connect(&["-m", SMALL], 120, 36).await;
    t.say("/system Answer like a pirate.");
    t.wait_for("the system prompt set", |s| s.contains("System prompt set"))
        .await;
    // A value out of range is refused with its usage and stays in the box to be fixed.
    t.say("/set temperature 5");
    t.wait_for("the usage", |s| {
        s.contains("temperature takes a number from 0 to 2")
    })
    .await;
    t.keys(&["BSpace"]);
    t.wait_for("the 5 erased", |s| !s.contains("/set temperature 5"))
        .await;
    t.say("0.2");
    t.wait_for("the temperature set", |s| {
        s.contains("temperature set to 0.2")
    })
    .await;
    t.say("/set parameter seed 42");
    t.wait_for("the seed set", |s| s.contains("seed set to 42"))
        .await;
    t.say("/goals");
    let panel = |s: &str| {
        s.contains("Session settings")
            && s.contains("Answer like a pirate.")
            && s.contains("temperature 0.2")
            && s.contains("seed 42")
    };
    t.wait_for("the settings in the goal panel", panel).await;
    t.ask("ahoy there").await;
    let sent = |server: &FakeOllama, text: &str| {
        let last = request_with(server, text);
        assert_eq!(
            last["options"]["temperature"].as_f64(),
            Some(0.2_f32.into())
        );
        assert_eq!(last["options"]["seed"], 42);
        let system = last["messages"][0]["content"].as_str().unwrap().to_string();
        assert!(system.ends_with("Answer like a pirate."), "{system}");
        // Beside the app's own instructions, not instead of them.
        assert!(
            system.len() > "Answer like a pirate.".len() + 40,
            "{system}"
        );
    };
    sent(&rig.server, "ahoy there");
    t.quit().await;
    // Back with --resume: the panel shows them and the next request carries them.
    let t = rig.connect(&["--resume"], 120, 36).await;
    t.say("/goals");
    t.wait_for("the settings restored", panel).await;
    t.say("/set");
    t.wait_for("the listing", |s| {
        s.contains("system: Answer like a pirate.") && s.contains("top_p: default")
    })
    .await;
    t.ask("still there?").await;
    sent(&rig.server, "still there?");
}

/// `/fork` keeps the model and context the session runs with (a small model at a
/// 1,024-token context, from the flags) and says what it did; and a model and context
/// switched after the last message (the copied records alone would undo them: the fork
/// went back to the model and context the session began with) are kept too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_fork_keeps_the_model_and_context_and_says_so() {
    let rig = Rig::new().await;
    let t = rig.connect(&["-m", SMALL, "--ctx", "1024"], 120, 36).await;
    t.wait_for("the small model at 1K", small_at_1k).await;
    t.say("/set temperature 0.3");
    t.wait_for("the temperature set", |s| {
        s.contains("temperature set to 0.3")
    })
    .await;
    t.ask("first question").await;
    t.say("/fork");
    let s = t
        .wait_for("the fork's confirmation", |s| {
            // #1 is the settings record, #2 and #3 the exchange.
            s.contains("Forked at #3 into session") && idle(s)
        })
        .await;
    assert!(small_at_1k(&s), "the model and context are kept:\n{s}");
    assert!(s.contains("kept"), "{s}");
    t.ask("in the fork").await;
    let last = request_with(&rig.server, "in the fork");
    assert_eq!(last["model"], SMALL);
    assert_eq!(last["options"]["num_ctx"], 1024);
    assert_eq!(
        last["options"]["temperature"].as_f64(),
        Some(0.3_f32.into())
    );
    // Switched after the last message, then forked: the switch is kept.
    t.say("/model llama3.2:3b");
    t.wait_for("the switch", |s| {
        s.lines()
            .any(|l| l.contains("Context:") && l.contains("llama3.2:3b"))
            && idle(s)
    })
    .await;
    t.say("/ctx 2048");
    t.wait_for("the new context", |s| {
        s.lines()
            .any(|l| l.contains("Context:") && l.contains("/2,048"))
    })
    .await;
    t.say("/fork");
    let s = t
        .wait_for("the second fork", |s| {
            s.contains("Forked at #5 into session") && idle(s)
        })
        .await;
    assert!(
        s.lines()
            .any(|l| l.contains("Context:") && l.contains("/2,048") && l.contains("llama3.2:3b")),
        "{s}"
    );
    t.quit().await;
}
