//! Tool calls through the binary: approval dialogs, large results, recall and /done.

use super::harness::{Rig, Tmux, assert_terminal_clean, idle, session_logs};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The app on `rig` with llama3.2:3b, its tools working in `work`, `extra` arguments
/// after, once it has connected and is idle.
async fn connect_in(rig: &Rig, work: &Path, extra: &[&str], width: u16, height: u16) -> Tmux {
    let workdir = work.display().to_string();
    let mut args = vec!["--model", "llama3.2:3b", "--workdir", &workdir];
    args.extend_from_slice(extra);
    rig.connect(&args, width, height).await
}

/// One scripted `run_command` call of `command`.
fn run_command(command: &str) -> Vec<(&'static str, serde_json::Value)> {
    vec![("run_command", serde_json::json!({ "command": command }))]
}

/// The model (scripted) asks to run a command: the dialog shows the command line, `y`
/// runs it and the transcript shows the call as one line; a second command is denied
/// with `n`, does not run, and the model is told so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_the_model_asks_for_runs_after_approval_and_not_after_a_denial() {
    let rig = Rig::new().await;
    let work = tempfile::tempdir().unwrap();
    rig.server
        .push_tool_calls(run_command("echo approved-run > ran.txt && echo done-e2e"));
    let t = connect_in(&rig, work.path(), &[], 110, 36).await;
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
    rig.server.push_tool_calls(run_command("touch denied.txt"));
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
    let sent = rig.server.chat_requests();
    let messages = sent.last().unwrap()["messages"].as_array().unwrap().clone();
    let tool_msg = messages.iter().rev().find(|m| m["role"] == "tool").unwrap();
    assert!(
        tool_msg["content"].as_str().unwrap().contains("denied"),
        "{tool_msg}"
    );
    t.quit().await;
    assert_terminal_clean(&t);
}

/// The real binary at `--ctx 4096` reads eight files of 20–200 KB: every request stays
/// within the context, each result reaches the model shortened with its recall id and
/// is kept whole in the data directory (0600); `recall` brings back exactly the lines
/// asked for; `/done` takes the tool messages out of the next request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_results_are_shortened_recalled_and_cleared_by_done() {
    use std::os::unix::fs::PermissionsExt;
    let rig = Rig::new().await;
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
        rig.server.push_tool_calls(
            batch
                .iter()
                .map(|(name, _)| ("read_file", serde_json::json!({"path": name})))
                .collect(),
        );
    }
    let t = connect_in(&rig, work.path(), &["--ctx", "4096"], 120, 40).await;
    for (i, ask) in ["read the first four", "now the other four"]
        .iter()
        .enumerate()
    {
        t.ask(ask).await;
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
    let requests = rig.server.chat_requests();
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
    let sessions: Vec<PathBuf> = std::fs::read_dir(rig.home().join("results"))
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
    assert!(!rig.server.summary_requests().is_empty());
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
    rig.server.push_tool_calls(vec![(
        "recall",
        serde_json::json!({"id": id, "start_line": 1000, "end_line": 1001}),
    )]);
    t.say("what is on line 1000 of f7.rs?");
    t.wait_for("the recall", |s| {
        s.contains("You said: \"what is on line 1000") && idle(s)
    })
    .await;
    let recalled = tool_messages(rig.server.chat_requests().last().unwrap())
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
    t.ask("next task please").await;
    let after = rig.server.chat_requests().last().unwrap().clone();
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
    t.quit().await;
    let log = std::fs::read_to_string(&session_logs(rig.home())[0]).unwrap();
    assert!(log.contains("\"type\":\"watermark\""), "{log}");
}

/// A tool line of the transcript (the `n`th one, from 0) once the screen shows it.
fn tool_line(screen: &str, tool: &str, n: usize) -> Option<String> {
    screen
        .lines()
        .filter(|l| l.contains(&format!("⚙ {tool}")))
        .nth(n)
        .map(str::to_string)
}

/// The attack of a command whose first line is harmless and whose last, 300 lines down,
/// is not: the dialog shows that last line (the blank run is said as such), and what
/// does not fit is counted. Then "allow for the session" on `echo` covers `echo` alone:
/// `echo x; touch pwned` still asks, and the dialog names both programs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_line_command_is_shown_whole_and_an_allowance_covers_only_its_programs() {
    let rig = Rig::new().await;
    let work = tempfile::tempdir().unwrap();
    let hidden = format!("echo harmless{}touch pwned-hidden", "\n".repeat(301));
    let many: String = (1..=60)
        .map(|i| format!("echo line-{i}\n"))
        .collect::<String>()
        + "touch pwned-last";
    rig.server.push_tool_calls(run_command(&hidden));
    rig.server.push_tool_calls(run_command(&many));
    rig.server.push_tool_calls(run_command("echo first"));
    rig.server
        .push_tool_calls(run_command("echo x; touch pwned-compound"));
    rig.server.push_tool_calls(run_command("echo again"));
    let t = connect_in(&rig, work.path(), &[], 110, 36).await;
    // The scripted calls come one after another in the same turn: each answer sends the
    // result back, and the next request brings the next call.
    t.say("run them");
    let s = t
        .wait_for("the dialog", |s| s.contains("Allow run_command?"))
        .await;
    assert!(s.contains("$ echo harmless"), "{s}");
    assert!(
        s.contains("touch pwned-hidden") && s.contains("[300 blank lines]"),
        "the last line is in sight:\n{s}"
    );
    assert!(s.contains("(302 lines)"), "{s}");
    t.keys(&["n"]);
    // Sixty lines do not fit the dialog: the last row says how many more follow.
    let s = t
        .wait_for("the second dialog", |s| {
            s.contains("Allow run_command?") && s.contains("echo line-1")
        })
        .await;
    assert!(
        s.contains("more lines below (↓ PgDn)"),
        "the dialog says what follows:\n{s}"
    );
    t.keys(&["n"]);
    // `a` on `echo first`: echo is allowed for the session.
    let s = t
        .wait_for("the third dialog", |s| {
            s.contains("Allow run_command?") && s.contains("$ echo first")
        })
        .await;
    assert!(s.contains("a allow `echo` this session"), "{s}");
    t.keys(&["a"]);
    // A compound line with a program not allowed asks, naming both.
    let s = t
        .wait_for("the fourth dialog", |s| {
            s.contains("Allow run_command?") && s.contains("touch pwned-compound")
        })
        .await;
    assert!(s.contains("a allow `echo`, `touch` this session"), "{s}");
    t.keys(&["n"]);
    // `echo` alone runs without asking now.
    let s = t
        .wait_for("the answer", |s| {
            s.contains("You said: \"run them\"") && idle(s)
        })
        .await;
    assert!(!s.contains("Allow run_command?"), "{s}");
    let ran = tool_line(&s, "run_command", 4).unwrap_or_else(|| panic!("{s}"));
    assert!(ran.contains('✓'), "{ran}");
    for f in ["pwned-hidden", "pwned-last", "pwned-compound"] {
        assert!(!work.path().join(f).exists(), "{f} ran");
    }
    t.quit().await;
    assert_terminal_clean(&t);
}

/// `run_command` under `--tools auto` starts a detached child (`setsid`, a session of its
/// own) and sleeps: Esc stops the call and the child is gone; the same with Ctrl+C, which
/// stops the call without quitting the app.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_and_ctrl_c_stop_a_running_command_and_everything_it_started() {
    let rig = Rig::new().await;
    let work = tempfile::tempdir().unwrap();
    let spawn_and_sleep = |name: &str| {
        format!("setsid sh -c 'echo $$ > {name}.pid; exec sleep 300' > /dev/null 2>&1 & sleep 300")
    };
    rig.server
        .push_tool_calls(run_command(&spawn_and_sleep("esc")));
    rig.server
        .push_tool_calls(run_command(&spawn_and_sleep("ctrl-c")));
    let t = connect_in(&rig, work.path(), &["--tools", "auto"], 110, 30).await;
    for (i, (name, key)) in [("esc", "Escape"), ("ctrl-c", "C-c")]
        .into_iter()
        .enumerate()
    {
        t.say(&format!("start {name}"));
        t.wait_for("the command running", |s| s.contains("running run_command"))
            .await;
        let pid_file = work.path().join(format!("{name}.pid"));
        let pid = wait_for_file(&pid_file).await;
        assert!(alive(pid), "the child runs");
        t.keys(&[key]);
        let s = t
            .wait_for("the call stopped", |s| {
                tool_line(s, "run_command", i).is_some_and(|l| l.contains('✗')) && idle(s)
            })
            .await;
        assert!(t.alive(), "{key} quit the app:\n{s}");
        // Gone: the supervisor killed it (and reaped it) when the call was stopped.
        let start = std::time::Instant::now();
        while alive(pid) {
            assert!(
                start.elapsed() < std::time::Duration::from_secs(30),
                "the detached child {pid} outlived the stopped call"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
    t.quit().await;
    assert_terminal_clean(&t);
}

/// The escape (#36) through the binary: a command that kills its own supervisor
/// (`kill -9 $PPID`) leaves a detached sleep, which comes to the app (a subreaper too) and
/// is killed and reaped before the call's line shows; and a command is not handed `$TMUX`
/// (the pane's own tmux server, which would start what it is asked to outside any
/// supervisor).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_that_kills_its_supervisor_leaves_nothing_and_cannot_see_tmux() {
    let rig = Rig::new().await;
    let work = tempfile::tempdir().unwrap();
    rig.server.push_tool_calls(run_command(
        "setsid sleep 1009 >/dev/null 2>&1 & echo $! > orphan.pid; kill -9 $PPID",
    ));
    rig.server
        .push_tool_calls(run_command("echo \"tmux=[$TMUX][$TMUX_PANE]\" > env.txt"));
    let t = connect_in(&rig, work.path(), &["--tools", "auto"], 110, 30).await;
    t.say("escape");
    t.wait_for("the call's line", |s| {
        tool_line(s, "run_command", 0).is_some() && idle(s)
    })
    .await;
    let pid = wait_for_file(&work.path().join("orphan.pid")).await;
    let left = alive(pid);
    if left {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    assert!(!left, "the sleep {pid} outlived its killed supervisor");
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "the sleep {pid} was not reaped"
    );
    t.say("and tmux?");
    t.wait_for("the second call's line", |s| {
        tool_line(s, "run_command", 1).is_some() && idle(s)
    })
    .await;
    assert_eq!(
        std::fs::read_to_string(work.path().join("env.txt")).unwrap(),
        "tmux=[][]\n"
    );
    t.quit().await;
}

/// The pid a command wrote to `path`, once it is there.
async fn wait_for_file(path: &std::path::Path) -> i32 {
    let start = std::time::Instant::now();
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "{} never appeared",
            path.display()
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// A process that exists and is not a zombie.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z")
    })
}

/// What the tools create in the project gets the person's umask (022 in the pane), not
/// the app's own 077: a file written by `write_file` in a new folder, and a file and a
/// folder made by a command.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_the_tools_create_get_the_persons_umask() {
    use std::os::unix::fs::PermissionsExt;
    let rig = Rig::new().await;
    let work = tempfile::tempdir().unwrap();
    rig.server.push_tool_calls(vec![
        (
            "write_file",
            serde_json::json!({"path": "new/dir/a.txt", "content": "hello\n"}),
        ),
        (
            "run_command",
            serde_json::json!({"command": "touch b.txt && mkdir c"}),
        ),
    ]);
    let t = connect_in(&rig, work.path(), &["--tools", "auto"], 110, 30).await;
    t.ask("make them").await;
    let mode = |p: &str| {
        std::fs::metadata(work.path().join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("new/dir/a.txt"), 0o644);
    assert_eq!(mode("new"), 0o755);
    assert_eq!(mode("new/dir"), 0o755);
    assert_eq!(mode("b.txt"), 0o644);
    assert_eq!(mode("c"), 0o755);
    // The app's own files stay private.
    let log = &session_logs(rig.home())[0];
    assert_eq!(
        std::fs::metadata(log).unwrap().permissions().mode() & 0o777,
        0o600
    );
    t.quit().await;
}

/// A FIFO in the working directory: `write_file` on it is refused before any dialog (it
/// used to hang the actor, and Esc, Ctrl+Q and SIGTERM with it), `read_file` too; the app
/// answers and quits as usual.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_in_the_workdir_is_refused_before_any_dialog_and_nothing_hangs() {
    let rig = Rig::new().await;
    let work = tempfile::tempdir().unwrap();
    let fifo = work.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    rig.server.push_tool_calls(vec![
        (
            "write_file",
            serde_json::json!({"path": "pipe", "content": "x"}),
        ),
        ("read_file", serde_json::json!({"path": "pipe"})),
        (
            "edit_file",
            serde_json::json!({"path": "pipe", "old_text": "a", "new_text": "b"}),
        ),
    ]);
    let t = connect_in(&rig, work.path(), &[], 110, 30).await;
    let s = t.ask("poke the pipe").await;
    assert!(!s.contains("Allow "), "a dialog was shown:\n{s}");
    for (i, tool) in ["write_file", "read_file", "edit_file"].iter().enumerate() {
        let line = tool_line(&s, tool, 0).unwrap_or_else(|| panic!("no {tool} line {i}:\n{s}"));
        assert!(line.contains('✗'), "{line}");
    }
    assert!(s.contains("FIFO"), "the reason is said:\n{s}");
    t.quit().await;
    assert_terminal_clean(&t);
}
