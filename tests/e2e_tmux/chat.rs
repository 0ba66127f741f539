//! A conversation through the binary: a reply streams, Esc stops it, snapshots restore,
//! the gauge follows the turns, pastes keep their shape, typed-ahead messages queue, and
//! `/quit` asks over them as Ctrl+Q does.

use super::harness::{Rig, Tmux, args, assert_terminal_clean, env, gauge_used, idle, session_logs};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_streams_back_and_quitting_leaves_the_terminal_clean() {
    let rig = Rig::new().await;
    let t = rig.start(&["--model", "llama3.2:3b"], 100, 30);
    t.wait_for("the first frame", |s| {
        s.contains("Context:") && s.contains("llama3.2:3b")
    })
    .await;
    let before = t.wait_for("connected", idle).await;
    let s = t.ask("hello from tmux").await;
    assert!(s.contains("Assistant"));
    assert!(
        gauge_used(&s).unwrap() > gauge_used(&before).unwrap(),
        "the gauge moved:\n{s}"
    );
    t.quit().await;
    assert_terminal_clean(&t);
    let after = t.screen();
    assert!(
        after.contains("Resume it with: ollm-tui --resume"),
        "{after}"
    );
    // The message is on disk.
    let log = std::fs::read_to_string(&session_logs(rig.home())[0]).unwrap();
    assert!(log.contains("hello from tmux"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshot_then_restore_brings_back_the_earlier_state() {
    let rig = Rig::new().await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 40).await;
    t.ask("alpha question").await;
    t.keys(&["C-s"]);
    t.wait_for("snapshot saved", |s| {
        s.contains("saved (Ctrl+R to restore)")
    })
    .await;
    let with_b = t.ask("bravo question").await;
    t.keys(&["C-r"]);
    t.wait_for("the restore picker", |s| {
        s.contains("Restore a snapshot") && s.contains("by you")
    })
    .await;
    t.keys(&["Enter"]);
    // The transcript and the gauge travel on different channels: wait for both.
    let b_used = gauge_used(&with_b).unwrap();
    let restored = t
        .wait_for("the restored state and a smaller gauge", |s| {
            s.contains("Restored snapshot")
                && !s.contains("bravo question")
                && gauge_used(s).is_some_and(|u| u < b_used)
        })
        .await;
    assert!(restored.contains("alpha question"));
    t.quit().await;
    assert_terminal_clean(&t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gauge_grows_with_turns_and_drops_after_a_compression() {
    let rig = Rig::new().await;
    rig.server.set_reply_words(70);
    let t = rig
        .connect(&["--model", "llama3.2:3b", "--ctx", "2048"], 110, 30)
        .await;
    let mut last = 0;
    let mut peak = 0;
    for i in 0..30 {
        let s = t.ask(&format!("question number {i} about topic_{i}")).await;
        let used = gauge_used(&s).unwrap();
        if s.contains("1 compression")
            || s.contains("compressions") && !s.contains("0 compressions")
        {
            assert!(
                used < peak,
                "the gauge dropped after compressing: {used} vs peak {peak}\n{s}"
            );
            t.keys(&["C-q"]);
            t.wait_exit().await;
            return;
        }
        assert!(
            used > last,
            "the gauge grew with turn {i}: {used} after {last}\n{s}"
        );
        last = used;
        peak = peak.max(used);
    }
    panic!("no compression after 30 turns at ctx 2048");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_stops_a_slow_reply() {
    let rig = Rig::slow(Duration::from_millis(150), 200).await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    t.say("a very long answer please");
    t.wait_for("generation", |s| {
        s.contains("generating") && s.contains("You said")
    })
    .await;
    t.keys(&["Escape"]);
    let s = t
        .wait_for("the stop", |s| s.contains("interrupted") && idle(s))
        .await;
    assert!(s.contains("partial text kept"), "{s}");
    assert!(
        rig.server
            .wait_for_disconnect(Duration::from_secs(5))
            .await
            .is_some()
    );
    t.quit().await;
    assert_terminal_clean(&t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_server_it_says_where_it_looked_and_how_to_fix_it() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let home = tempfile::tempdir().unwrap();
    let t = Tmux::start(
        &args(&["--model", "llama3.2:3b"]),
        &env(home.path(), &dead),
        110,
        30,
    );
    let s = t
        .wait_for("the unreachable banner", |s| {
            s.contains(&dead) && s.contains("ollama serve")
        })
        .await;
    assert!(s.contains("Cannot reach Ollama"), "{s}");
    // Typing still works and the message is kept.
    t.say("are you there");
    let s = t
        .wait_for("the message kept and the send refused", |s| {
            s.contains("are you there") && s.contains("/retry") && idle(s)
        })
        .await;
    // A reply that never began leaves no empty "interrupted" entry behind.
    assert!(!s.contains("interrupted"), "{s}");
    t.quit().await;
    assert_terminal_clean(&t);
    let log = std::fs::read_to_string(&session_logs(home.path())[0]).unwrap();
    assert!(log.contains("are you there"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_paste_is_a_marker_in_the_box_and_sent_whole() {
    let rig = Rig::new().await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    let file = rig.home().join("paste.txt");
    let pasted = (0..3_000)
        .map(|i| format!("log line {i}: request served in {} ms", i % 97))
        .collect::<Vec<_>>()
        .join("\n");
    t.type_text("summarise ");
    t.wait_for("the typed text", |s| s.contains("summarise"))
        .await;
    t.paste(&file, &pasted);
    t.wait_for("the marker", |s| {
        s.contains("[paste 1: 3,000 lines, ") && s.contains("sent in full")
    })
    .await;
    t.say(" please");
    t.wait_for("the reply", |s| {
        s.contains("You said: \"summarise log line 0") && idle(s)
    })
    .await;
    t.quit().await;
    let logs = session_logs(rig.home());
    let text = std::fs::read_to_string(&logs[0]).unwrap();
    let user = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["type"] == "user")
        .expect("the message is in the log");
    assert_eq!(
        user["text"].as_str().unwrap(),
        format!("summarise {pasted} please"),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pasted_text_keeps_its_line_breaks() {
    let rig = Rig::new().await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    let file = rig.home().join("paste.txt");
    t.paste(&file, "alpha line\nbeta line\ngamma line");
    t.wait_for("the paste in the input", |s| s.contains("gamma line"))
        .await;
    t.keys(&["Enter"]);
    let s = t
        .wait_for("the reply", |s| {
            s.contains("You said: \"alpha line") && idle(s)
        })
        .await;
    let rows: Vec<&str> = s.lines().map(str::trim).collect();
    for line in ["alpha line", "beta line", "gamma line"] {
        assert!(rows.contains(&line), "{line:?} on a row of its own:\n{s}");
    }
    assert!(!s.contains("alpha linebeta"), "{s}");
    t.quit().await;
}

/// Type ahead: Enter during a slow reply queues the message (shown as queued), which is
/// sent when the reply ends; Esc takes a queued message back into the box without
/// stopping the reply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_typed_during_a_reply_is_queued_then_sent_and_esc_takes_one_back() {
    let rig = Rig::slow(Duration::from_millis(40), 120).await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    t.say("first question");
    t.wait_for("generation", |s| s.contains("generating")).await;
    t.say("second typed ahead");
    let s = t
        .wait_for("the queued line", |s| {
            s.contains("queued") && s.contains("second typed ahead")
        })
        .await;
    assert!(s.contains("Esc takes it back"), "{s}");
    // The first reply ends, then the queued message goes out and is answered.
    t.wait_for("the queued message sent", |s| {
        s.contains("You said: \"second typed ahead\"")
    })
    .await;
    // Typed during the second reply, then taken back: Esc does not stop the reply.
    t.say("third taken back");
    t.wait_for("the second queue", |s| {
        s.contains(" queued ") && s.contains("third taken back")
    })
    .await;
    t.keys(&["Escape"]);
    let s = t
        .wait_for("the reply ended, the text in the box", |s| {
            idle(s) && !s.contains(" queued ") && s.contains("third taken back")
        })
        .await;
    assert!(
        !s.contains("interrupted"),
        "the reply was not stopped:\n{s}"
    );
    assert!(!s.contains("You said: \"third taken back\""), "{s}");
    // Unsent text in the box: the first Ctrl+Q only asks.
    t.keys(&["C-q"]);
    t.wait_for("the question", |s| {
        s.contains("again quits and discards it")
    })
    .await;
    t.quit().await;
    assert_terminal_clean(&t);
    // The chat requests (the session's title is asked for apart, as a summary).
    let titles = rig.server.summary_requests();
    let users: Vec<String> = rig
        .server
        .chat_requests()
        .iter()
        .filter(|r| !titles.contains(r))
        .map(|r| {
            let m = r["messages"].as_array().unwrap();
            m.last().unwrap()["content"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(users, vec!["first question", "second typed ahead"]);
}

/// `/quit` is Ctrl+Q typed: with a message typed ahead during a reply, the first one only
/// asks (the queued message would be lost), the second quits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_quit_over_a_queued_message_asks_first_like_the_key() {
    let rig = Rig::slow(Duration::from_millis(40), 600).await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    t.say("first question");
    t.wait_for("generation", |s| s.contains("generating")).await;
    t.say("typed ahead");
    t.wait_for("the queued line", |s| {
        s.contains("queued") && s.contains("typed ahead")
    })
    .await;
    t.say("/quit");
    let s = t
        .wait_for("the question", |s| {
            s.contains("again quits and discards it")
        })
        .await;
    assert!(s.contains("queued"), "still running, still queued:\n{s}");
    t.say("/quit");
    assert_eq!(t.wait_exit().await, 0);
    assert_terminal_clean(&t);
}
