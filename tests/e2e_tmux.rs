//! End to end: the real `ollm-tui` binary in a tmux pane, talking to the fake Ollama server
//! over HTTP. Keys go in with `send-keys`, the screen comes out with `capture-pane`.
//!
//! Waiting is always for a condition on the screen (polling `capture-pane`) with a
//! generous deadline, never a fixed sleep that passes by luck. tmux is required
//! (`.ci/run` installs it); each test uses its own tmux server socket.
#![allow(clippy::unwrap_used)]

#[path = "store_fixtures.rs"]
mod fixtures;
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use support::fake_ollama::{FakeConfig, FakeOllama, Fault};

const BIN: &str = env!("CARGO_BIN_EXE_ollm-tui");
/// Generous: waits are for a screen condition, and a starved CI machine (the suite once ran
/// beside a model on both cores) must not turn slowness into a failure.
const DEADLINE: Duration = Duration::from_secs(60);
static SEQ: AtomicUsize = AtomicUsize::new(0);

struct Tmux {
    socket: String,
}

impl Tmux {
    /// A tmux server with one pane running `cmd` (the binary itself, so the pane's pid is
    /// the app's).
    fn start(cmd: &[String], env: &[(&str, String)], width: u16, height: u16) -> Tmux {
        let version = Command::new("tmux").arg("-V").output();
        assert!(
            version.is_ok_and(|o| o.status.success()),
            "tmux is required for the end-to-end tests: apt-get install tmux"
        );
        let socket = format!(
            "ollm-e2e-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::SeqCst)
        );
        let t = Tmux { socket };
        let mut c = Command::new("tmux");
        c.args([
            "-L",
            &t.socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "e2e",
        ])
        .args(["-x", &width.to_string(), "-y", &height.to_string()]);
        for (k, v) in env {
            c.args(["-e", &format!("{k}={v}")]);
        }
        // A shell runs the app, then reports its exit status and idles, so the pane keeps
        // exactly the terminal state the app left (tmux's own "pane is dead" line would
        // change it).
        c.args([
            "--",
            "sh",
            "-c",
            "\"$@\"; echo \"[exit $?]\"; exec sleep 3600",
            "sh",
        ])
        .args(cmd);
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        t
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "e2e", "-l", text]);
    }

    /// Type `text` and press Enter: send a message, or run a slash command.
    fn say(&self, text: &str) {
        self.type_text(text);
        self.keys(&["Enter"]);
    }

    /// Paste `text` as a terminal does: `paste-buffer -p` sends a bracketed paste with
    /// each `\n` turned into a CR, as xterm and VTE do. `file` holds it on the way.
    fn paste(&self, file: &Path, text: &str) {
        std::fs::write(file, text).unwrap();
        self.tmux(&["load-buffer", file.to_str().unwrap()]);
        self.tmux(&["paste-buffer", "-p", "-t", "e2e"]);
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "e2e"])
    }

    fn format(&self, f: &str) -> String {
        self.tmux(&["display-message", "-p", "-t", "e2e", f])
            .trim()
            .to_string()
    }

    /// The app's exit status, once it has exited.
    fn exit_status(&self) -> Option<i32> {
        // After a SIGKILL the terminal is still raw, so the marker may sit mid-line and
        // wrap at the pane's edge: join wrapped lines (-J) before looking.
        let s = self.tmux(&["capture-pane", "-p", "-J", "-t", "e2e"]);
        let at = s.rfind("[exit ")?;
        let rest = &s[at + "[exit ".len()..];
        rest[..rest.find(']')?].parse().ok()
    }

    /// The app's pid (a child of the pane's shell).
    fn pid(&self) -> u32 {
        let shell = self.format("#{pane_pid}");
        let out = Command::new("pgrep").args(["-P", &shell]).output().unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .and_then(|l| l.trim().parse().ok())
            .expect("the app is running")
    }

    /// Wait until `cond` holds for the screen; panic with the screen if it never does.
    async fn wait_for(&self, what: &str, cond: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if cond(&s) {
                return s;
            }
            if start.elapsed() > DEADLINE {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    }

    async fn wait_exit(&self) -> i32 {
        let start = Instant::now();
        loop {
            if let Some(code) = self.exit_status() {
                return code;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "the app did not exit:\n{}",
                self.screen()
            );
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    }

    fn alive(&self) -> bool {
        self.exit_status().is_none()
    }

    /// The app with `extra` arguments, data in `home`, talking to `server`, once it has
    /// connected and is idle.
    async fn connected(extra: &[&str], home: &Path, server: &str, width: u16, height: u16) -> Tmux {
        let t = Tmux::start(&args(extra), &env(home, server), width, height);
        t.wait_for("connected", |s| s.contains("Context:") && idle(s))
            .await;
        t
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

fn env(home: &Path, server: &str) -> Vec<(&'static str, String)> {
    vec![
        ("OLLM_HOME", home.display().to_string()),
        ("OLLAMA_HOST", server.to_string()),
        ("LANG", "C.UTF-8".to_string()),
        ("TERM", "xterm-256color".to_string()),
    ]
}

fn args(extra: &[&str]) -> Vec<String> {
    std::iter::once(BIN)
        .chain(extra.iter().copied())
        .map(str::to_string)
        .collect()
}

/// "Context: 1,234/8,192" → 1234.
fn gauge_used(screen: &str) -> Option<u32> {
    let line = screen.lines().find(|l| l.contains("Context: "))?;
    let after = line.split("Context: ").nth(1)?;
    let used = after.split('/').next()?;
    used.replace(',', "").trim().parse().ok()
}

fn idle(screen: &str) -> bool {
    !screen.contains("generating")
        && !screen.contains("waiting for the model")
        && !screen.contains("compressing")
        && !screen.contains("connecting")
}

/// The terminal was handed back: no alternate screen, cursor shown, no mouse reporting.
fn assert_terminal_clean(t: &Tmux) {
    assert_eq!(
        t.format("#{alternate_on}"),
        "0",
        "still on the alternate screen"
    );
    assert_eq!(t.format("#{cursor_flag}"), "1", "cursor hidden");
    assert_eq!(
        t.format("#{mouse_any_flag}"),
        "0",
        "mouse reporting left on"
    );
    assert_eq!(
        t.format("#{mouse_standard_flag}"),
        "0",
        "mouse reporting left on"
    );
}

fn session_logs(home: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(home.join("sessions"))
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_streams_back_and_quitting_leaves_the_terminal_clean() {
    let server = FakeOllama::start().await;
    let home = tempfile::tempdir().unwrap();
    let t = Tmux::start(
        &args(&["--model", "llama3.2:3b"]),
        &env(home.path(), &server.url()),
        100,
        30,
    );
    t.wait_for("the first frame", |s| {
        s.contains("Context:") && s.contains("llama3.2:3b")
    })
    .await;
    let before = t.wait_for("connected", idle).await;
    t.say("hello from tmux");
    let s = t
        .wait_for("the streamed reply", |s| {
            s.contains("You said: \"hello from tmux\"") && idle(s)
        })
        .await;
    assert!(s.contains("Assistant"));
    assert!(
        gauge_used(&s).unwrap() > gauge_used(&before).unwrap(),
        "the gauge moved:\n{s}"
    );
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
    assert_terminal_clean(&t);
    let after = t.screen();
    assert!(
        after.contains("Resume it with: ollm-tui --resume"),
        "{after}"
    );
    // The message is on disk.
    let log = std::fs::read_to_string(&session_logs(home.path())[0]).unwrap();
    assert!(log.contains("hello from tmux"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshot_then_restore_brings_back_the_earlier_state() {
    let server = FakeOllama::start().await;
    let home = tempfile::tempdir().unwrap();
    let t = Tmux::connected(
        &["--model", "llama3.2:3b"],
        home.path(),
        &server.url(),
        100,
        40,
    )
    .await;
    t.say("alpha question");
    t.wait_for("first reply", |s| {
        s.contains("You said: \"alpha question\"") && idle(s)
    })
    .await;
    t.keys(&["C-s"]);
    t.wait_for("snapshot saved", |s| {
        s.contains("saved (Ctrl+R to restore)")
    })
    .await;
    t.say("bravo question");
    let with_b = t
        .wait_for("second reply", |s| {
            s.contains("You said: \"bravo question\"") && idle(s)
        })
        .await;
    t.keys(&["C-r"]);
    t.wait_for("the restore picker", |s| {
        s.contains("Restore a snapshot") && s.contains("rollback")
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
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
    assert_terminal_clean(&t);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gauge_grows_with_turns_and_drops_after_a_compression() {
    let server = FakeOllama::start().await;
    server.set_reply_words(70);
    let home = tempfile::tempdir().unwrap();
    let t = Tmux::connected(
        &["--model", "llama3.2:3b", "--ctx", "2048"],
        home.path(),
        &server.url(),
        110,
        30,
    )
    .await;
    let mut last = 0;
    let mut peak = 0;
    for i in 0..30 {
        t.say(&format!("question number {i} about topic_{i}"));
        let s = t
            .wait_for("this turn's reply", |s| {
                s.contains(&format!(
                    "You said: \"question number {i} about topic_{i}\""
                )) && idle(s)
            })
            .await;
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
    let server = FakeOllama::start_with(FakeConfig {
        token_delay: Duration::from_millis(150),
        reply_words: 200,
        ..FakeConfig::default()
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    let t = Tmux::connected(
        &["--model", "llama3.2:3b"],
        home.path(),
        &server.url(),
        100,
        30,
    )
    .await;
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
        server
            .wait_for_disconnect(Duration::from_secs(5))
            .await
            .is_some()
    );
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
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
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
    assert_terminal_clean(&t);
    let log = std::fs::read_to_string(&session_logs(home.path())[0]).unwrap();
    assert!(log.contains("are you there"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_reply_loses_no_user_message_and_leaves_no_malformed_line() {
    let server = FakeOllama::start_with(FakeConfig {
        token_delay: Duration::from_millis(80),
        reply_words: 150,
        ..FakeConfig::default()
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    let mut sent = Vec::new();
    for round in 0..4 {
        let extra: Vec<&str> = if round == 0 {
            vec!["--model", "llama3.2:3b"]
        } else {
            vec!["--resume"]
        };
        let t = Tmux::connected(&extra, home.path(), &server.url(), 100, 30).await;
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
    let logs = session_logs(home.path());
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
    let t = Tmux::start(
        &args(&["--resume"]),
        &env(home.path(), &server.url()),
        100,
        30,
    );
    let s = t
        .wait_for("connected", |s| s.contains("Context:") && idle(s))
        .await;
    assert!(!s.contains("damaged"), "{s}");
    t.keys(&["C-q"]);
    t.wait_exit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tiny_terminal_does_not_break_it() {
    let server = FakeOllama::start().await;
    let home = tempfile::tempdir().unwrap();
    let t = Tmux::start(
        &args(&["--model", "llama3.2:3b"]),
        &env(home.path(), &server.url()),
        12,
        3,
    );
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
async fn sigint_sigterm_and_sighup_hand_the_terminal_back_in_every_state() {
    let server = FakeOllama::start().await;
    for signal in ["-INT", "-TERM", "-HUP"] {
        for state in ["idle", "stalled reply", "compressing"] {
            let home = tempfile::tempdir().unwrap();
            let ctx = if state == "compressing" {
                "2048"
            } else {
                "4096"
            };
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
                    // Long replies fill the 2K context; the summary request is held by
                    // the server, so the compression that starts stays under way.
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
                // Every message is on disk; the unfinished compression left nothing.
                let text = std::fs::read_to_string(&logs[0]).unwrap();
                let users = text.matches("\"type\":\"user\"").count();
                assert!(users >= 2, "{signal}: the messages are kept\n{text}");
                assert!(!text.contains("\"type\":\"checkpoint\""), "{text}");
            }
        }
    }
}

/// Send questions until the status line says a compression is under way.
async fn until_compressing(t: &Tmux) {
    for i in 0..12 {
        t.say(&format!("question {i} about the module layout"));
        // A compression may start between a reply and the next Enter (it runs in the
        // background), and then the message waits for it: either ends this turn.
        let s = t
            .wait_for("the reply or a compression", |s| {
                s.contains("compressing")
                    || (s.contains(&format!("You said: \"question {i}"))
                        && !s.contains("generating")
                        && !s.contains("waiting for the model"))
            })
            .await;
        if s.contains("compressing") {
            return;
        }
    }
    panic!("no compression started:\n{}", t.screen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_paste_is_a_marker_in_the_box_and_sent_whole() {
    let server = FakeOllama::start().await;
    let home = tempfile::tempdir().unwrap();
    let t = Tmux::connected(
        &["--model", "llama3.2:3b"],
        home.path(),
        &server.url(),
        100,
        30,
    )
    .await;
    let file = home.path().join("paste.txt");
    let pasted = (0..3_000)
        .map(|i| format!("log line {i}: request served in {} ms", i % 97))
        .collect::<Vec<_>>()
        .join("\n");
    t.type_text("summarise ");
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
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
    let logs = session_logs(home.path());
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
    let server = FakeOllama::start().await;
    let home = tempfile::tempdir().unwrap();
    let t = Tmux::connected(
        &["--model", "llama3.2:3b"],
        home.path(),
        &server.url(),
        100,
        30,
    )
    .await;
    let file = home.path().join("paste.txt");
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
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
}

/// The model (scripted) asks to run a command: the dialog shows the command line, `y`
/// runs it and the transcript shows the call as one line; a second command is denied
/// with `n`, does not run, and the model is told so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_the_model_asks_for_runs_after_approval_and_not_after_a_denial() {
    let server = FakeOllama::start().await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let workdir = work.path().display().to_string();
    server.push_tool_calls(vec![(
        "run_command",
        serde_json::json!({"command": "echo approved-run > ran.txt && echo done-e2e"}),
    )]);
    let t = Tmux::connected(
        &["--model", "llama3.2:3b", "--workdir", &workdir],
        home.path(),
        &server.url(),
        110,
        36,
    )
    .await;
    t.say("please run it");
    let s = t
        .wait_for("the approval dialog", |s| {
            s.contains("Allow run_command?") && s.contains("echo approved-run > ran.txt")
        })
        .await;
    assert!(s.contains("y/Enter allow"), "{s}");
    assert!(
        !work.path().join("ran.txt").exists(),
        "ran before it was approved"
    );
    t.keys(&["y"]);
    let s = t
        .wait_for("the result and the answer", |s| {
            s.contains("⚙ run_command") && s.contains("You said: \"please run it\"") && idle(s)
        })
        .await;
    assert!(!s.contains("Allow run_command?"), "the dialog stayed:\n{s}");
    let tool_line = s.lines().find(|l| l.contains("⚙ run_command")).unwrap();
    assert!(tool_line.contains('✓'), "{tool_line}");
    assert_eq!(
        std::fs::read_to_string(work.path().join("ran.txt")).unwrap(),
        "approved-run\n"
    );
    // A reply that only called the tool leaves no empty entry.
    assert!(!s.contains("Assistant #2"), "{s}");
    // Folded, the output is not shown (only the command, on the tool line); the details
    // key unfolds the arguments and the output.
    assert_eq!(s.matches("done-e2e").count(), 1, "{s}");
    t.keys(&["C-o"]);
    t.wait_for("the unfolded result", |s| {
        s.contains("command: echo approved-run") && s.matches("done-e2e").count() >= 3
    })
    .await;
    t.keys(&["C-o"]);
    t.wait_for("folded again", |s| s.matches("done-e2e").count() == 1)
        .await;

    // The second one is denied.
    server.push_tool_calls(vec![(
        "run_command",
        serde_json::json!({"command": "touch denied.txt"}),
    )]);
    t.say("and the other one");
    t.wait_for("the second dialog", |s| {
        s.contains("Allow run_command?") && s.contains("touch denied.txt")
    })
    .await;
    t.keys(&["n"]);
    let s = t
        .wait_for("the answer after the denial", |s| {
            s.contains("You said: \"and the other one\"") && idle(s)
        })
        .await;
    let denied = s
        .lines()
        .filter(|l| l.contains("⚙ run_command"))
        .nth(1)
        .unwrap_or_else(|| panic!("no second tool line:\n{s}"));
    assert!(denied.contains('✗'), "{denied}");
    assert!(
        !work.path().join("denied.txt").exists(),
        "a denied command ran"
    );
    // What went back to the model says it was denied.
    let sent = server.chat_requests();
    let messages = sent.last().unwrap()["messages"].as_array().unwrap().clone();
    let tool_msg = messages.iter().rev().find(|m| m["role"] == "tool").unwrap();
    assert!(
        tool_msg["content"].as_str().unwrap().contains("denied"),
        "{tool_msg}"
    );
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
    assert_terminal_clean(&t);
}

/// The real binary at `--ctx 4096` reads eight files of 20–200 KB: every request stays
/// within the context, each result reaches the model shortened with its recall id and
/// is kept whole in the data directory (0600); `recall` brings back exactly the lines
/// asked for; `/done` takes the tool messages out of the next request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_results_are_shortened_recalled_and_cleared_by_done() {
    use std::os::unix::fs::PermissionsExt;
    let server = FakeOllama::start().await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for i in 0..8 {
        let kb = 20 + i * 25;
        let mut text = String::new();
        let mut n = 0;
        while text.len() < kb * 1024 {
            n += 1;
            text.push_str(&format!("fn item_{i}_{n}() -> u32 {{ {n} }} // file {i}\n"));
        }
        let name = format!("f{i}.rs");
        std::fs::write(work.path().join(&name), &text).unwrap();
        files.push((name, text));
    }
    for batch in files.chunks(4) {
        server.push_tool_calls(
            batch
                .iter()
                .map(|(name, _)| ("read_file", serde_json::json!({"path": name})))
                .collect(),
        );
    }
    let workdir = work.path().display().to_string();
    let t = Tmux::connected(
        &[
            "--model",
            "llama3.2:3b",
            "--ctx",
            "4096",
            "--workdir",
            &workdir,
        ],
        home.path(),
        &server.url(),
        120,
        40,
    )
    .await;
    for (i, ask) in ["read the first four", "now the other four"]
        .iter()
        .enumerate()
    {
        t.say(ask);
        t.wait_for("the reads and the answer", |s| {
            s.contains(&format!("You said: \"{ask}\"")) && idle(s)
        })
        .await;
        let s = t.screen();
        assert!(
            s.lines()
                .filter(|l| l.contains("⚙ read_file") && l.contains("· recall #"))
                .count()
                >= 4.min(4 * (i + 1)),
            "the tool lines say what was kept:\n{s}"
        );
    }
    let tok = ollm_tui::core::tokens::Tiktoken::new().unwrap();
    let requests = server.chat_requests();
    let tool_messages = |r: &serde_json::Value| -> Vec<String> {
        r["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap().to_string())
            .collect()
    };
    for r in &requests {
        let text: String = r["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"].as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        let tokens = ollm_tui::core::tokens::Tokenizer::count(&tok, &text);
        assert!(tokens < 4096, "a request of {tokens} tokens at ctx 4096");
        assert_eq!(r["options"]["num_ctx"], 4096);
    }
    let seen: Vec<String> = requests.iter().flat_map(tool_messages).collect();
    assert!(!seen.is_empty());
    let sessions: Vec<PathBuf> = std::fs::read_dir(home.path().join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    // The smaller reads are read through by the model (layer 1), the larger shortened.
    let summarized = seen
        .iter()
        .filter(|c| c.starts_with("[Summarized file:"))
        .count();
    assert!(summarized >= 1 && summarized < seen.len(), "{summarized}");
    assert!(!server.summary_requests().is_empty());
    for content in &seen {
        assert!(
            content.starts_with("[Shortened file:") || content.starts_with("[Summarized file:"),
            "{content}"
        );
        let id: u64 = content
            .split("recall with id ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no id in {content}"));
        let saved = sessions[0].join(format!("{id}.txt"));
        let mode = std::fs::metadata(&saved).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", saved.display());
        let whole = std::fs::read_to_string(&saved).unwrap();
        let (name, text) = files
            .iter()
            .find(|(name, _)| whole.starts_with(&format!("{name}: lines")))
            .unwrap();
        assert_eq!(whole.lines().count(), text.lines().count() + 1, "{name}");
    }
    // Recall: the model asks for two lines of the last file and gets exactly them.
    let last = seen.last().unwrap();
    let id: u64 = last
        .split("recall with id ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    server.push_tool_calls(vec![(
        "recall",
        serde_json::json!({"id": id, "start_line": 1000, "end_line": 1001}),
    )]);
    t.say("what is on line 1000 of f7.rs?");
    t.wait_for("the recall", |s| {
        s.contains("You said: \"what is on line 1000") && idle(s)
    })
    .await;
    let recalled = tool_messages(server.chat_requests().last().unwrap())
        .pop()
        .unwrap();
    assert_eq!(
        recalled,
        format!(
            "result {id}: f7.rs lines 1000–1001 (of {} in the file)\n 1000  fn item_7_1000() -> u32 {{ 1000 }} // file 7\n 1001  fn item_7_1001() -> u32 {{ 1001 }} // file 7\n",
            files[7].1.lines().count()
        )
    );
    // /done: the tool calls and results leave the next request; what was said stays.
    t.say("/done");
    t.wait_for("the task-done line", |s| s.contains("Task done: "))
        .await;
    t.say("next task please");
    t.wait_for("the next answer", |s| {
        s.contains("You said: \"next task please\"") && idle(s)
    })
    .await;
    let after = server.chat_requests().last().unwrap().clone();
    assert!(tool_messages(&after).is_empty(), "{after}");
    let said: Vec<&str> = after["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    // What the person said during the task stays (a compression may have folded the
    // oldest of it by now; the last of it is still recent).
    assert!(said.contains(&"now the other four"), "{said:?}");
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
    let log = std::fs::read_to_string(&session_logs(home.path())[0]).unwrap();
    assert!(log.contains("\"type\":\"watermark\""), "{log}");
}

/// Type ahead: Enter during a slow reply queues the message (shown as queued), which is
/// sent when the reply ends; Esc takes a queued message back into the box without
/// stopping the reply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_typed_during_a_reply_is_queued_then_sent_and_esc_takes_one_back() {
    let server = FakeOllama::start_with(FakeConfig {
        token_delay: Duration::from_millis(40),
        reply_words: 120,
        ..FakeConfig::default()
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    let t = Tmux::connected(
        &["--model", "llama3.2:3b"],
        home.path(),
        &server.url(),
        100,
        30,
    )
    .await;
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
    t.keys(&["C-q"]);
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
    assert_terminal_clean(&t);
    // The chat requests (the session's title is asked for apart, as a summary).
    let titles = server.summary_requests();
    let users: Vec<String> = server
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
    let server = FakeOllama::start().await;
    let home = tempfile::tempdir().unwrap();
    disk_session(
        home.path(),
        "aaaa1111-infra",
        &["Infra notes for the shop", "Noted, the infra notes."],
        0,
    );
    disk_session(
        home.path(),
        "bbbb2222-throw",
        &["Throwaway test session", "Fine."],
        0,
    );
    disk_session(
        home.path(),
        "cccc3333-garden",
        &[
            "Planning the garden: the marmalade key is 4471",
            "Keeping that in mind.",
            "Now the beds.",
            "Three beds.",
        ],
        2,
    );
    let t = Tmux::connected(
        &["--model", "llama3.2:3b"],
        home.path(),
        &server.url(),
        120,
        32,
    )
    .await;
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
    assert!(!home.path().join("sessions/bbbb2222-throw.jsonl").exists());
    assert_eq!(
        std::fs::read_dir(home.path().join("trash"))
            .unwrap()
            .count(),
        1
    );
    assert_eq!(
        std::fs::read_to_string(home.path().join("sessions/aaaa1111-infra.title")).unwrap(),
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
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
    assert_terminal_clean(&t);
    // Each session was left cleanly: its lock released.
    for id in ["aaaa1111-infra", "cccc3333-garden"] {
        let dir = ollm_tui::store::DataDir::new(home.path()).unwrap();
        assert_eq!(ollm_tui::store::SessionLock::holder(&dir, id), None, "{id}");
    }
}

/// `/fork N` through the binary: the app moves to a new session holding messages up to
/// #N; what is said there goes to the fork's log only; the parent's log is untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fork_at_n_starts_a_new_session_and_leaves_the_parent_untouched() {
    use ollm_tui::core::record::RecordBody;
    let server = FakeOllama::start().await;
    let home = tempfile::tempdir().unwrap();
    let t = Tmux::connected(
        &["--model", "llama3.2:3b"],
        home.path(),
        &server.url(),
        100,
        30,
    )
    .await;
    for ask in ["first question", "second question"] {
        t.say(ask);
        t.wait_for("the reply", |s| {
            s.contains(&format!("You said: \"{ask}\"")) && idle(s)
        })
        .await;
    }
    let logs = session_logs(home.path());
    assert_eq!(logs.len(), 1);
    let parent_bytes = std::fs::read(&logs[0]).unwrap();
    t.say("/fork 2");
    // The fork holds the first exchange only.
    t.wait_for("the fork", |s| {
        s.contains("You said: \"first question\"") && !s.contains("second question") && idle(s)
    })
    .await;
    t.say("in the fork");
    t.wait_for("the fork's reply", |s| {
        s.contains("You said: \"in the fork\"") && idle(s)
    })
    .await;
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
    assert_terminal_clean(&t);
    assert_eq!(
        std::fs::read(&logs[0]).unwrap(),
        parent_bytes,
        "the parent is untouched"
    );
    let dir = ollm_tui::store::DataDir::new(home.path()).unwrap();
    let parent_id = logs[0].file_stem().unwrap().to_str().unwrap().to_string();
    let fork_log = session_logs(home.path())
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
    let server = FakeOllama::start().await;
    let home = tempfile::tempdir().unwrap();
    disk_session(home.path(), "aaaa1111-here", &["Where we are", "Here."], 0);
    disk_session(
        home.path(),
        "bbbb2222-gone",
        &["About to vanish", "Gone."],
        0,
    );
    disk_session(
        home.path(),
        "cccc3333-held",
        &["Held elsewhere", "Held."],
        0,
    );
    let dir = ollm_tui::store::DataDir::new(home.path()).unwrap();
    let held = ollm_tui::store::SessionLock::acquire(&dir, "cccc3333-held").unwrap();
    let t = Tmux::connected(
        &["--model", "llama3.2:3b", "--resume", "aaaa1111-here"],
        home.path(),
        &server.url(),
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
    for _ in 0..4 {
        t.keys(&["BSpace"]);
    }
    t.type_text("vanish");
    t.wait_for("filtered", |s| s.contains("About to vanish"))
        .await;
    std::fs::remove_file(home.path().join("sessions/bbbb2222-gone.jsonl")).unwrap();
    t.keys(&["Enter"]);
    let s = t
        .wait_for("the error, back in the session", |s| {
            s.contains("Could not open session bbbb2222-gone") && s.contains("Where we are")
        })
        .await;
    assert!(s.contains("You are back in the session you left"), "{s}");
    // Still usable: a message goes to the session we were in.
    t.keys(&["Escape"]);
    t.say("still here");
    t.wait_for("the reply", |s| {
        s.contains("You said: \"still here\"") && idle(s)
    })
    .await;
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
    drop(held);
    let log = std::fs::read_to_string(home.path().join("sessions/aaaa1111-here.jsonl")).unwrap();
    assert!(log.contains("still here"));
}

/// After its first answer a session gets a short title from the model, in the background:
/// the session list shows it; a title given with rename wins over it; the request asked
/// for a few tokens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_titles_a_session_after_its_first_answer_and_a_rename_wins() {
    let server = FakeOllama::start().await;
    let home = tempfile::tempdir().unwrap();
    let t = Tmux::connected(
        &["--model", "llama3.2:3b"],
        home.path(),
        &server.url(),
        100,
        30,
    )
    .await;
    t.say("How do I cache fetch_orders with Redis?");
    t.wait_for("the reply", |s| s.contains("You said:") && idle(s))
        .await;
    let logs = session_logs(home.path());
    let id = logs[0].file_stem().unwrap().to_str().unwrap().to_string();
    let auto = home.path().join(format!("sessions/{id}.autotitle"));
    let deadline = Instant::now() + Duration::from_secs(20);
    while !auto.exists() {
        assert!(Instant::now() < deadline, "no title was written");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let title = std::fs::read_to_string(&auto).unwrap();
    assert!(!title.is_empty() && !title.contains('\n'), "{title:?}");
    let asked = server.summary_requests();
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
    t.say("and the TTL?");
    t.wait_for("the second reply", |s| {
        s.contains("You said: \"and the TTL?\"") && idle(s)
    })
    .await;
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
    let titles = server
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
    let dir = ollm_tui::store::DataDir::new(home.path()).unwrap();
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
