//! Sessions through the binary: the browser, search, fork, titles, and sessions that
//! cannot be opened.

use super::fixtures;
use super::harness::{Rig, assert_terminal_clean, idle, session_logs};
use std::path::Path;
use std::time::{Duration, Instant};

/// Sessions on disk for the browser: a title, and messages the checkpoint folded.
fn disk_session(home: &Path, id: &str, texts: &[&str], fold: usize) {
    use ollm_tui::core::message::ReplyStatus;
    use ollm_tui::core::record::{Record, RecordBody};
    let dir = ollm_tui::store::DataDir::new(home).unwrap();
    let mut log = ollm_tui::store::SessionLog::create(&dir, fixtures::header(id)).unwrap();
    let mut seq = 0;
    for (i, t) in texts.iter().enumerate() {
        seq += 1;
        let r = if i % 2 == 0 {
            fixtures::user(seq, t)
        } else {
            fixtures::assistant(seq, t, ReplyStatus::Complete)
        };
        log.append(&r).unwrap();
    }
    if fold > 0 {
        seq += 1;
        let covers: Vec<u64> = (1..=fold as u64).collect();
        log.append(&Record {
            seq,
            ts: fixtures::ts(seq as i64),
            body: RecordBody::Checkpoint {
                checkpoint: fixtures::checkpoint(seq, &covers),
            },
        })
        .unwrap();
    }
    log.sync().unwrap();
}

/// The session browser and search, through the binary: filter and open a session, rename
/// one and delete another (it goes to the trash), then find a message folded long ago in
/// a third session and open that session there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_opens_renames_and_deletes_and_search_opens_a_folded_message() {
    let rig = Rig::new().await;
    disk_session(
        rig.home(),
        "aaaa1111-infra",
        &["Infra notes for the shop", "Noted, the infra notes."],
        0,
    );
    disk_session(
        rig.home(),
        "bbbb2222-throw",
        &["Throwaway test session", "Fine."],
        0,
    );
    disk_session(
        rig.home(),
        "cccc3333-garden",
        &[
            "Planning the garden: the marmalade key is 4471",
            "Keeping that in mind.",
            "Now the beds.",
            "Three beds.",
        ],
        2,
    );
    let t = rig.connect(&["--model", "llama3.2:3b"], 120, 32).await;
    t.keys(&["C-t"]);
    t.wait_for("the browser", |s| {
        s.contains("Sessions") && s.contains("3 sessions")
    })
    .await;
    t.type_text("infra");
    t.wait_for("the filter", |s| {
        s.contains("1 of 3") && s.contains("Infra notes for the shop") && !s.contains("Throwaway")
    })
    .await;
    t.keys(&["Enter"]);
    t.wait_for("the session opened", |s| {
        s.contains("Noted, the infra notes.") && !s.contains("Filter:")
    })
    .await;
    // Rename it, delete another.
    t.keys(&["C-t"]);
    t.wait_for("the browser again", |s| {
        s.contains("● Infra notes for the shop")
    })
    .await;
    t.keys(&["F2"]);
    t.wait_for("the title field", |s| {
        s.contains("New title: Infra notes for the shop")
    })
    .await;
    t.say(" v2");
    t.wait_for("renamed", |s| {
        s.contains("Renamed to \"Infra notes for the shop v2\"")
    })
    .await;
    t.type_text("throwaway");
    t.wait_for("filtered", |s| {
        s.contains("1 of 3") && s.contains("Throwaway")
    })
    .await;
    t.keys(&["DC"]);
    t.wait_for("asked", |s| s.contains("Move this session to the trash?"))
        .await;
    t.keys(&["y"]);
    t.wait_for("deleted", |s| {
        s.contains("Moved to") && s.contains("0 of 2")
    })
    .await;
    t.keys(&["Escape"]);
    t.wait_for("the browser closed", |s| !s.contains("Filter:"))
        .await;
    assert!(!rig.home().join("sessions/bbbb2222-throw.jsonl").exists());
    assert_eq!(
        std::fs::read_dir(rig.home().join("trash")).unwrap().count(),
        1
    );
    assert_eq!(
        std::fs::read_to_string(rig.home().join("sessions/aaaa1111-infra.title")).unwrap(),
        "Infra notes for the shop v2"
    );
    // Search finds the folded message of the third session; Enter opens it there.
    t.say("/search MARMALADE key");
    t.wait_for("the hits", |s| {
        s.contains("Search: MARMALADE key") && s.contains("1 hit")
    })
    .await;
    t.keys(&["Enter"]);
    let s = t
        .wait_for("the other session, at the message", |s| {
            s.contains("the marmalade key is 4471") && !s.contains("Search:")
        })
        .await;
    assert!(
        s.contains("in checkpoint"),
        "the message is shown as folded:\n{s}"
    );
    t.quit().await;
    assert_terminal_clean(&t);
    // Each session was left cleanly: its lock released.
    for id in ["aaaa1111-infra", "cccc3333-garden"] {
        let dir = ollm_tui::store::DataDir::new(rig.home()).unwrap();
        assert_eq!(ollm_tui::store::SessionLock::holder(&dir, id), None, "{id}");
    }
}

/// `/fork N` through the binary: the app moves to a new session holding messages up to
/// #N; what is said there goes to the fork's log only; the parent's log is untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fork_at_n_starts_a_new_session_and_leaves_the_parent_untouched() {
    use ollm_tui::core::record::RecordBody;
    let rig = Rig::new().await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    for ask in ["first question", "second question"] {
        t.ask(ask).await;
    }
    let logs = session_logs(rig.home());
    assert_eq!(logs.len(), 1);
    let parent_bytes = std::fs::read(&logs[0]).unwrap();
    t.say("/fork 2");
    // The fork holds the first exchange only.
    t.wait_for("the fork", |s| {
        s.contains("You said: \"first question\"") && !s.contains("second question") && idle(s)
    })
    .await;
    t.ask("in the fork").await;
    t.quit().await;
    assert_terminal_clean(&t);
    assert_eq!(
        std::fs::read(&logs[0]).unwrap(),
        parent_bytes,
        "the parent is untouched"
    );
    let dir = ollm_tui::store::DataDir::new(rig.home()).unwrap();
    let parent_id = logs[0].file_stem().unwrap().to_str().unwrap().to_string();
    let fork_log = session_logs(rig.home())
        .into_iter()
        .find(|p| *p != logs[0])
        .expect("a second session log");
    let fork_id = fork_log.file_stem().unwrap().to_str().unwrap().to_string();
    let loaded = ollm_tui::store::SessionLog::read(&dir, &fork_id).unwrap();
    let origin = loaded.header.fork_of.clone().unwrap();
    assert_eq!(
        (origin.session_id.as_str(), origin.at),
        (parent_id.as_str(), 2)
    );
    let users: Vec<String> = loaded
        .records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::User { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(users, vec!["first question", "in the fork"]);
    // The session list names the parent.
    let list = ollm_tui::store::sessions::list(&dir).unwrap();
    let row = list.iter().find(|s| s.id == fork_id).unwrap();
    assert_eq!(row.parent.as_deref(), Some(parent_id.as_str()));
}

/// Bad input around the browser: a session deleted from outside while the browser shows
/// it cannot be opened — the app says why and stays in (or comes back to) the session it
/// was in; one open in another instance is not opened, and the browser names the pid.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_gone_or_open_elsewhere_is_not_opened_and_nothing_is_lost() {
    let rig = Rig::new().await;
    disk_session(rig.home(), "aaaa1111-here", &["Where we are", "Here."], 0);
    disk_session(
        rig.home(),
        "bbbb2222-gone",
        &["About to vanish", "Gone."],
        0,
    );
    disk_session(rig.home(), "cccc3333-held", &["Held elsewhere", "Held."], 0);
    let dir = ollm_tui::store::DataDir::new(rig.home()).unwrap();
    let held = ollm_tui::store::SessionLock::acquire(&dir, "cccc3333-held").unwrap();
    let t = rig
        .connect(
            &["--model", "llama3.2:3b", "--resume", "aaaa1111-here"],
            120,
            32,
        )
        .await;
    t.wait_for("resumed", |s| s.contains("Where we are")).await;
    t.keys(&["C-t"]);
    t.wait_for("the browser", |s| s.contains("3 sessions"))
        .await;
    // Held by another process: not opened, the pid is said.
    t.type_text("held");
    t.wait_for("filtered", |s| s.contains("1 of 3")).await;
    t.keys(&["Enter"]);
    t.wait_for("refused", |s| {
        s.contains(&format!(
            "open in another ollm-tui (pid {})",
            std::process::id()
        ))
    })
    .await;
    // Deleted from outside after the list was read: a clear error, back where we were.
    t.keys(&["BSpace", "BSpace", "BSpace", "BSpace"]);
    t.wait_for("the filter cleared", |s| s.contains("3 sessions"))
        .await;
    t.type_text("vanish");
    t.wait_for("filtered", |s| s.contains("About to vanish"))
        .await;
    std::fs::remove_file(rig.home().join("sessions/bbbb2222-gone.jsonl")).unwrap();
    t.keys(&["Enter"]);
    let s = t
        .wait_for("the error, back in the session", |s| {
            s.contains("Could not open session bbbb2222-gone") && s.contains("Where we are")
        })
        .await;
    assert!(s.contains("You are back in the session you left"), "{s}");
    // Still usable: a message goes to the session we were in (once Esc has closed the
    // banner: Esc and a letter sent at once read as Alt+letter).
    t.keys(&["Escape"]);
    t.wait_for("the banner closed", |s| {
        !s.contains("Could not open session") && s.contains("Where we are")
    })
    .await;
    t.ask("still here").await;
    t.quit().await;
    drop(held);
    let log = std::fs::read_to_string(rig.home().join("sessions/aaaa1111-here.jsonl")).unwrap();
    assert!(log.contains("still here"));
}

/// After its first answer a session gets a short title from the model, in the background:
/// the session list shows it; a title given with rename wins over it; the request asked
/// for a few tokens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_titles_a_session_after_its_first_answer_and_a_rename_wins() {
    let rig = Rig::new().await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    t.say("How do I cache fetch_orders with Redis?");
    t.wait_for("the reply", |s| s.contains("You said:") && idle(s))
        .await;
    let logs = session_logs(rig.home());
    let id = logs[0].file_stem().unwrap().to_str().unwrap().to_string();
    // The title is a record of the log, written by the session's writer (#38 item 1).
    let log = logs[0].clone();
    let recorded = || {
        std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|r| r["type"] == "title")
            .map(|r| r["title"].as_str().unwrap().to_string())
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    let title = loop {
        if let Some(t) = recorded() {
            break t;
        }
        assert!(Instant::now() < deadline, "no title was written");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(!title.is_empty() && !title.contains('\n'), "{title:?}");
    assert!(!log.with_extension("autotitle").exists());
    let asked = rig.server.summary_requests();
    let request = asked
        .iter()
        .find(|r| {
            r["messages"][0]["content"]
                .as_str()
                .unwrap()
                .contains("as a title")
        })
        .expect("the title request");
    assert_eq!(request["options"]["num_predict"], 24);
    assert!(
        request["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("fetch_orders")
    );
    // A second answer asks for no other title.
    t.ask("and the TTL?").await;
    t.quit().await;
    let titles = rig
        .server
        .summary_requests()
        .iter()
        .filter(|r| {
            r["messages"][0]["content"]
                .as_str()
                .unwrap()
                .contains("as a title")
        })
        .count();
    assert_eq!(titles, 1);
    let dir = ollm_tui::store::DataDir::new(rig.home()).unwrap();
    let row = |dir: &ollm_tui::store::DataDir| {
        ollm_tui::store::sessions::list(dir)
            .unwrap()
            .into_iter()
            .find(|s| s.id == id)
            .unwrap()
            .title
    };
    assert_eq!(row(&dir).as_deref(), Some(title.trim()));
    ollm_tui::store::manage::rename(&dir, &id, "My own title").unwrap();
    assert_eq!(row(&dir).as_deref(), Some("My own title"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_resume_opens_the_session_last_used_not_a_newer_fork_and_says_which() {
    let rig = Rig::new().await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    t.ask("plan the cache layer").await;
    t.quit().await;
    let logs = session_logs(rig.home());
    let id = logs[0].file_stem().unwrap().to_str().unwrap().to_string();
    // The exit line names the session by its id and title (the one the model wrote).
    let after = t.screen();
    assert!(
        after.contains(&format!("Session saved: {} \u{201c}", &id[..8])),
        "{after}"
    );
    drop(t);
    // A fork written after it (the newest file), never used by the person.
    let dir = ollm_tui::store::DataDir::new(rig.home()).unwrap();
    let fork = ollm_tui::store::manage::fork(&dir, &id, 1).unwrap();
    // Made in the same minute, they share their first 8 characters: the banner shows
    // each id as its shortest unique prefix.
    let (short, short_fork) = (
        ollm_tui::store::sessions::short_id(&dir, &id),
        ollm_tui::store::sessions::short_id(&dir, &fork),
    );
    let t = rig.connect(&["--resume"], 100, 30).await;
    let s = t
        .wait_for("the banner naming the session", |s| {
            s.contains("Resumed the session you last used")
        })
        .await;
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!("{short} ")) && !flat.contains(&short_fork),
        "{s}"
    );
    t.keys(&["C-q"]);
    t.wait_exit().await;
}
