//! The binary under faults: kill -9 mid-reply, signals in every state, a tiny terminal.

use super::harness::{Rig, Tmux, args, assert_terminal_clean, env, idle, session_logs};
use super::support::fake_ollama::{FakeOllama, Fault};
use std::process::Command;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_reply_loses_no_user_message_and_leaves_no_malformed_line() {
    let rig = Rig::slow(Duration::from_millis(80), 150).await;
    let mut sent = Vec::new();
    for round in 0..4 {
        let extra: Vec<&str> = if round == 0 {
            vec!["--model", "llama3.2:3b"]
        } else {
            vec!["--resume"]
        };
        let t = rig.connect(&extra, 100, 30).await;
        if round > 0 {
            // The resumed session shows what was said before the kill.
            let prev: &String = sent.last().unwrap();
            t.wait_for("the resumed transcript", |s| s.contains(prev.as_str()))
                .await;
        }
        let msg = format!("message before kill {round}");
        t.say(&msg);
        sent.push(msg);
        t.wait_for("the reply streaming", |s| {
            s.contains("generating") && s.contains("You said")
        })
        .await;
        let pid = t.pid();
        let killed = Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        assert_eq!(t.wait_exit().await, 137, "killed by SIGKILL");
    }
    let logs = session_logs(rig.home());
    assert_eq!(logs.len(), 1, "one session, resumed each time");
    let text = std::fs::read_to_string(&logs[0]).unwrap();
    for (i, line) in text.lines().enumerate() {
        assert!(
            serde_json::from_str::<serde_json::Value>(line).is_ok(),
            "line {} is malformed: {line}",
            i + 1
        );
    }
    for msg in &sent {
        assert!(text.contains(msg.as_str()), "{msg} lost");
    }
    // A last resume loads cleanly (torn tails set aside, nothing skipped in the middle).
    let t = rig.start(&["--resume"], 100, 30);
    let s = t.wait_connected().await;
    assert!(!s.contains("damaged"), "{s}");
    t.keys(&["C-q"]);
    t.wait_exit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tiny_terminal_does_not_break_it() {
    let rig = Rig::new().await;
    let t = rig.start(&["--model", "llama3.2:3b"], 12, 3);
    // Give it time to draw a few frames at this size, typing meanwhile.
    t.say("tiny");
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(800) {
        assert!(t.alive(), "it died at 12x3:\n{}", t.screen());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    t.tmux(&["resize-window", "-t", "e2e", "-x", "2", "-y", "1"]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(t.alive(), "it died at 2x1");
    t.tmux(&["resize-window", "-t", "e2e", "-x", "80", "-y", "24"]);
    t.wait_for("a normal screen again", |s| s.contains("Context:"))
        .await;
    t.keys(&["C-q"]);
    // If "tiny" was still unsent (typed before the app was reading keys), the first
    // Ctrl+Q only asks.
    let s = t
        .wait_for("exit or the question", |s| {
            s.contains("[exit ") || s.contains("again quits")
        })
        .await;
    if s.contains("again quits") {
        t.keys(&["C-q"]);
    }
    assert_eq!(t.wait_exit().await, 0);
    assert_terminal_clean(&t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_sigterm_sighup_and_sigquit_hand_the_terminal_back_in_every_state() {
    let server = FakeOllama::start().await;
    for signal in ["-INT", "-TERM", "-HUP", "-QUIT"] {
        for state in ["idle", "stalled reply", "compressing"] {
            let home = tempfile::tempdir().unwrap();
            let ctx = "4096";
            let t = Tmux::connected(
                &["--model", "llama3.2:3b", "--ctx", ctx],
                home.path(),
                &server.url(),
                100,
                30,
            )
            .await;
            assert_eq!(t.format("#{alternate_on}"), "1", "the TUI is up");
            match state {
                "stalled reply" => {
                    // The reply stops after a few words and the stream stays open: only
                    // the idle timeout (60 s) would end it.
                    server.push_fault(Fault::StallAfter { tokens: 3 });
                    t.say("tell me a story");
                    t.wait_for("the stalled reply", |s| s.contains("generating"))
                        .await;
                }
                "compressing" => {
                    // Long replies; the summary request is held by the server, so the
                    // summary asked after the fold stays under way.
                    server.set_reply_words(120);
                    server.hold_summaries(true);
                    until_compressing(&t).await;
                }
                _ => {}
            }
            let sent_at = Instant::now();
            let sent = Command::new("kill")
                .args([signal, &t.pid().to_string()])
                .status()
                .unwrap();
            assert!(sent.success());
            assert_eq!(t.wait_exit().await, 0, "{signal} {state}: a clean exit");
            let took = sent_at.elapsed();
            assert_terminal_clean(&t);
            server.hold_summaries(false);
            server.set_reply_words(30);
            if state != "idle" {
                // Far below any timeout: the stream was dropped, not waited for.
                assert!(
                    took < Duration::from_secs(10),
                    "{signal} {state}: exit took {took:?}"
                );
            }
            let logs = session_logs(home.path());
            if state == "stalled reply" {
                let text = std::fs::read_to_string(&logs[0]).unwrap();
                let interrupted = text.lines().any(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    v["type"] == "assistant" && v["status"] == "interrupted"
                });
                assert!(interrupted, "{signal}: the partial reply is kept\n{text}");
            }
            if state == "compressing" {
                // Every message is on disk, and the fold (made at once); the summary under
                // way when the signal came left nothing.
                let text = std::fs::read_to_string(&logs[0]).unwrap();
                let users = text.matches("\"type\":\"user\"").count();
                assert!(users >= 2, "{signal}: the messages are kept\n{text}");
                assert!(text.contains("\"type\":\"checkpoint\""), "{text}");
                assert!(
                    !text.contains("\"type\":\"checkpoint_summarized\""),
                    "{text}"
                );
            }
        }
    }
}

/// A few questions, then `/compress`: the fold is made at once and its summary asked of
/// the server (which holds it), so a summary is under way between turns.
async fn until_compressing(t: &Tmux) {
    // Enough replies that the server can afford the summary's time (compression may take
    // 15 % of its busy time).
    for i in 0..10 {
        t.ask(&format!("question {i} about the module layout"))
            .await;
    }
    t.say("/compress");
    t.wait_for("a summary under way", |s| s.contains("summarizing"))
        .await;
}

/// A small tmpfs (root may mount one; elsewhere the test says so and does nothing) whose
/// data directory is laid out and then filled to the last byte.
struct FullDisk {
    mount: tempfile::TempDir,
    filler: std::path::PathBuf,
}

impl FullDisk {
    fn new() -> Option<FullDisk> {
        let mount = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
            .arg(mount.path())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            println!("no tmpfs can be mounted here: the full-disk test does nothing");
            return None;
        }
        ollm_tui::store::DataDir::new(mount.path()).unwrap();
        std::fs::create_dir_all(mount.path().join("logs")).unwrap();
        let filler = mount.path().join("filler");
        let mut f = std::fs::File::create(&filler).unwrap();
        let block = vec![b'x'; 4096];
        while std::io::Write::write_all(&mut f, &block).is_ok() {}
        Some(FullDisk { mount, filler })
    }

    fn home(&self) -> &std::path::Path {
        self.mount.path()
    }

    fn free(&self) {
        std::fs::remove_file(&self.filler).unwrap();
    }

    fn lock_files(&self) -> Vec<String> {
        std::fs::read_dir(self.home().join("sessions"))
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".lock"))
            .collect()
    }
}

impl Drop for FullDisk {
    fn drop(&mut self) {
        // Lazily: an app that is still exiting may hold it for a moment.
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.mount.path())
            .status();
    }
}

/// A session started on a full disk: the message waits (the banner says how many records
/// and that creating the file is retried), nothing is sent the log lacks, no 0-byte `.lock`
/// is left; Ctrl+Q asks, and the second writes a rescue file. Started again on the full
/// disk, the session is saved once room returns — without a keystroke — and /retry sends;
/// after a clean exit no `.lock` is left either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_started_on_a_full_disk_is_saved_once_there_is_room() {
    let Some(disk) = FullDisk::new() else {
        return;
    };
    let server = FakeOllama::start().await;
    let rescue = tempfile::tempdir().unwrap();
    let mut env = env(disk.home(), &server.url());
    env.push(("TMPDIR", rescue.path().display().to_string()));
    // Quit while the disk is full: asked, then rescued.
    let t = Tmux::start(&args(&["--model", "llama3.2:3b"]), &env, 110, 30);
    t.wait_connected().await;
    t.say("first words on a full disk");
    t.wait_for("the banner", |s| {
        s.contains("Cannot create the session file") && s.contains("1 record")
    })
    .await;
    assert!(disk.lock_files().is_empty(), "{:?}", disk.lock_files());
    t.keys(&["C-q"]);
    t.wait_for("the question", |s| {
        s.contains("not on disk") && s.contains("again saves it to a rescue file")
    })
    .await;
    t.quit().await;
    let rescued: Vec<_> = std::fs::read_dir(rescue.path())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().contains("ollm-unsaved-"))
        .collect();
    assert_eq!(rescued.len(), 1, "{rescued:?}");
    let text = std::fs::read_to_string(&rescued[0]).unwrap();
    assert!(text.contains("first words on a full disk"), "{text}");
    drop(t);
    // Again, and this time room comes back while the app runs.
    let t = Tmux::start(&args(&["--model", "llama3.2:3b"]), &env, 110, 30);
    t.wait_connected().await;
    t.say("kept until there is room");
    t.wait_for("the banner", |s| {
        s.contains("Cannot create the session file")
    })
    .await;
    assert!(
        server.chat_requests().is_empty(),
        "sent before it was on disk"
    );
    disk.free();
    t.wait_for("written without a keystroke", |s| {
        s.contains("Writing the session log works again")
    })
    .await;
    t.say("/retry");
    t.wait_for("the reply", |s| {
        s.contains("You said: \"kept until there is room\"") && idle(s)
    })
    .await;
    t.quit().await;
    let logs = session_logs(disk.home());
    assert_eq!(logs.len(), 1);
    let log = std::fs::read_to_string(&logs[0]).unwrap();
    assert!(log.contains("kept until there is room"), "{log}");
    assert!(disk.lock_files().is_empty(), "{:?}", disk.lock_files());
}

/// The terminal goes away (its tmux server killed, as when a window is closed) while the
/// app runs: the app ends within moments, its session saved. (crossterm read the hung-up
/// tty again and again on the event loop's thread: 100 % CPU, forever.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_that_goes_away_ends_the_app_with_its_session_saved() {
    let rig = Rig::new().await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    t.ask("before the window closes").await;
    let pid = t.pid();
    t.tmux(&["kill-server"]);
    let gone = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| {
            s.rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().next())
                == Some("Z")
        })
    };
    let start = Instant::now();
    while !gone() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the app {pid} outlived its terminal"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = std::fs::read_to_string(&session_logs(rig.home())[0]).unwrap();
    assert!(log.contains("before the window closes"), "{log}");
    assert!(log.contains("You said"), "{log}");
}
