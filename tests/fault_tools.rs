//! The tool attacks of a hostile model, through the fake server's scripted tool calls over
//! real HTTP, against the session actor with its tools in a scratch working directory.
//!
//! Each test injects its faults (a FIFO or a device where a file should be, a 2 GiB file,
//! a 100,000-line overwrite, a detached child, a compound command behind an allowance, a
//! reply that loops), checks what the person and the model are told, and then checks the
//! session's records: seqs without a gap, every call answered by exactly one result,
//! every message said still there. Each prints its figures (runs, faults injected,
//! records checked, records lost) for the closing note.
#![allow(clippy::unwrap_used)]

mod support;

use ollm_tui::actor::{self, ActorConfig, ActorExit, Approval, Command, Parts, StoreSlot};
use ollm_tui::core::engine::Request;
use ollm_tui::core::message::ReplyStatus;
use ollm_tui::core::record::RecordBody;
use ollm_tui::llm::{OllamaBackend, OllamaOptions};
use ollm_tui::store::MemoryStore;
use ollm_tui::tools::{Approvals, Limits, Sandbox, ToolEnv, ToolMode};
use ollm_tui::view::{Activity, ApprovalAsk, SessionScope, Update};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use support::child::ChildRun;
use support::fake_ollama::FakeOllama;
use support::files::mkfifo;
use support::session::{Session, engine};

/// A session whose tools work in `dir` under `mode`, commands supervised by the real
/// binary, with the app's own private umask (as `main` sets it) in this process.
fn start(
    server: &FakeOllama,
    dir: &Path,
    mode: ToolMode,
    config: impl FnOnce(&mut ActorConfig),
) -> Session {
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
    let engine = engine("llama3.2:3b", None);
    let header = engine.header("test");
    let mut cfg = ActorConfig {
        host: server.url(),
        reconnect_after: Duration::from_secs(3600),
        tools: Some(actor::ToolsConfig {
            sandbox: Sandbox::new(dir).unwrap(),
            approvals: Approvals::new(mode, Default::default()),
            limits: Limits::default(),
            mcp: Vec::new(),
            env: ToolEnv {
                umask: 0o022,
                supervisor: Some(env!("CARGO_BIN_EXE_ollm-tui").into()),
            },
        }),
        ..ActorConfig::default()
    };
    config(&mut cfg);
    let spawned = actor::spawn(Parts {
        backend: OllamaBackend::new(&server.url(), OllamaOptions::default()).unwrap(),
        summary_backend: None,
        engine: Box::new(move || engine),
        store: StoreSlot::Open(MemoryStore::new(header)),
        config: cfg,
        model: None,
    });
    Session { spawned }
}

/// The records of a finished session, checked: seqs run without a gap, every tool call
/// of a reply has exactly one result, every message in `said` is there. Returns how many
/// records were checked.
fn check_records(exit: &ActorExit<MemoryStore>, said: &[&str]) -> usize {
    let records = exit.store.as_ref().unwrap().records();
    for (i, r) in records.iter().enumerate() {
        assert_eq!(
            r.seq,
            records[0].seq + i as u64,
            "a gap in seq: {records:?}"
        );
    }
    let mut calls = Vec::new();
    let mut results = Vec::new();
    let mut users = Vec::new();
    for r in &records {
        match &r.body {
            RecordBody::Assistant { tool_calls, .. } => {
                calls.extend(tool_calls.iter().map(|c| c.id.clone()));
            }
            RecordBody::Tool { call_id, .. } => results.push(call_id.clone().unwrap_or_default()),
            RecordBody::User { text, .. } => users.push(text.clone()),
            _ => {}
        }
    }
    calls.sort();
    results.sort();
    assert_eq!(calls, results, "every call answered once");
    for s in said {
        assert!(users.iter().any(|u| u == s), "{s:?} lost: {users:?}");
    }
    records.len()
}

fn figures(name: &str, faults: usize, checked: usize) {
    println!(
        "fault_tools {name}: 1 run, {faults} faults injected, {checked} records checked, 0 records lost"
    );
}

/// The tool results recorded, in order: (text, is_error).
fn results(exit: &ActorExit<MemoryStore>) -> Vec<(String, bool)> {
    exit.store
        .as_ref()
        .unwrap()
        .records()
        .into_iter()
        .filter_map(|r| match r.body {
            RecordBody::Tool {
                result, is_error, ..
            } => Some((result, is_error)),
            _ => None,
        })
        .collect()
}

/// The approval the session asks for next, after question `after`.
async fn next_ask(s: &Session, after: u64) -> Arc<ApprovalAsk> {
    let mut view = s.spawned.view.clone();
    let v = tokio::time::timeout(
        Duration::from_secs(30),
        view.wait_for(|v| matches!(&v.activity, Activity::Approval(a) if a.id > after)),
    )
    .await
    .expect("the call did not ask")
    .unwrap();
    match &v.activity {
        Activity::Approval(a) => a.clone(),
        _ => unreachable!(),
    }
}

/// A FIFO and (where this process may make one) a `/dev/zero` node in the working
/// directory, called by `write_file`, `edit_file` and `read_file`, as tool calls and as
/// a call written as plain JSON text: each is refused before any dialog (the test never
/// approves anything, so a dialog would leave it waiting), nothing hangs, and the model
/// is told why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifos_and_devices_are_refused_before_any_dialog() {
    let dir = tempfile::tempdir().unwrap();
    mkfifo(&dir.path().join("pipe"));
    let zero = rustix::fs::mknodat(
        rustix::fs::CWD,
        dir.path().join("zero"),
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::Mode::from_raw_mode(0o666),
        rustix::fs::makedev(1, 5),
    )
    .is_ok();
    let server = FakeOllama::start().await;
    let mut targets = vec!["pipe"];
    if zero {
        targets.push("zero");
    } else {
        println!("fault_tools: no device node (mknod not permitted here); FIFOs only");
    }
    let mut calls = Vec::new();
    for t in &targets {
        calls.push(("write_file", serde_json::json!({"path": t, "content": "x"})));
        calls.push((
            "edit_file",
            serde_json::json!({"path": t, "old_text": "a", "new_text": "b"}),
        ));
        calls.push(("read_file", serde_json::json!({"path": t})));
    }
    let faults = calls.len() + 1;
    server.push_tool_calls(calls);
    let s = start(&server, dir.path(), ToolMode::Ask, |_| {});
    s.say("poke the special files").await;
    s.wait_for_messages(3 + targets.len() * 3).await;
    // The same, written as text by a small model.
    server.push_reply(r#"{"name": "write_file", "arguments": {"path": "pipe", "content": "x"}}"#);
    s.say("and as text").await;
    let (exit, _) = s.finish().await;
    let res = results(&exit);
    assert_eq!(res.len(), faults, "{res:?}");
    for (text, is_error) in &res {
        assert!(*is_error, "{text}");
        assert!(
            text.contains("FIFO") || text.contains("character device"),
            "{text}"
        );
    }
    let checked = check_records(&exit, &["poke the special files", "and as text"]);
    figures("fifos_and_devices", faults, checked);
}

/// The child half of the next test: read a 2 GiB file through the tool and report this
/// process's peak memory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by a_huge_file_is_read_in_bounded_memory as its child"]
async fn child_reads_a_huge_file() {
    let Ok(dir) = std::env::var("OLLM_HUGE_DIR") else {
        return;
    };
    let server = FakeOllama::start().await;
    server.push_tool_calls(vec![("read_file", serde_json::json!({"path": "huge.log"}))]);
    let s = start(&server, Path::new(&dir), ToolMode::Ask, |_| {});
    s.say("read the log").await;
    s.wait_for_messages(4).await;
    let (exit, _) = s.finish().await;
    let (text, is_error) = results(&exit).remove(0);
    assert!(!is_error, "{text}");
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let peak: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    println!("peak_kb {peak}");
    println!("counted {}", text.contains("counting stopped"));
    println!("records {}", check_records(&exit, &["read the log"]));
}

/// A 2 GiB file whose first 8 KiB are text (sparse, so it costs no disk): `read_file`
/// reads it without asking, so any model can try; it used to take the whole file into
/// memory. The read runs in a child process whose peak memory is measured.
#[test]
fn a_huge_file_is_read_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.log");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&path).unwrap();
        for i in 0..200 {
            writeln!(f, "log line {i:04}: {}", "x".repeat(28)).unwrap();
        }
        f.set_len(2 << 30).unwrap();
    }
    let child = ChildRun::of(
        "child_reads_a_huge_file",
        &[("OLLM_HUGE_DIR", &dir.path().display().to_string())],
        Duration::from_secs(600),
    );
    child.assert_success();
    let peak_kb: u64 = child.expect("peak_kb").parse().unwrap();
    // The output cap is 1 MiB; the test binary itself takes some tens of MB.
    assert!(
        peak_kb < 200 * 1024,
        "reading a 2 GiB file took {peak_kb} kB at its peak"
    );
    assert_eq!(
        child.expect("counted"),
        "true",
        "the total is said to be partial"
    );
    let checked: usize = child.expect("records").parse().unwrap();
    figures("huge_file", 1, checked);
}

/// Replacing a 3 MB, 100,000-line file: the dialog gets a summary (sizes, the first lines
/// of the new content) instead of a diff that took 65 s to build on the actor; the file is
/// replaced once allowed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_overwrite_is_summed_up_in_the_dialog() {
    let dir = tempfile::tempdir().unwrap();
    let big: String = (0..100_000)
        .map(|i| format!("line {i:06} of the old generated file\n"))
        .collect();
    std::fs::write(dir.path().join("big.txt"), &big).unwrap();
    let new: String = (0..12).map(|i| format!("new line {i}\n")).collect();
    let server = FakeOllama::start().await;
    server.push_tool_calls(vec![(
        "write_file",
        serde_json::json!({"path": "big.txt", "content": new}),
    )]);
    let s = start(&server, dir.path(), ToolMode::Ask, |_| {});
    s.say("replace it").await;
    let ask = next_ask(&s, 0).await;
    assert!(
        ask.preview.len() < 4_000,
        "a preview of {} bytes",
        ask.preview.len()
    );
    assert!(ask.preview.contains("100000 lines"), "{}", ask.preview);
    assert!(
        ask.preview.contains("too large to show as a diff"),
        "{}",
        ask.preview
    );
    assert!(ask.preview.contains("+new line 11"), "{}", ask.preview);
    s.cmd(Command::Approve {
        id: ask.id,
        answer: Approval::Once,
    })
    .await;
    s.wait_for_messages(4).await;
    let (exit, _) = s.finish().await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("big.txt")).unwrap(),
        new
    );
    let checked = check_records(&exit, &["replace it"]);
    figures("huge_overwrite", 1, checked);
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

fn pid_in(path: &Path) -> i32 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Commands that leave a detached child behind (`setsid`, a session of its own), ending
/// three ways: on their own, at the timeout, and stopped. When the call's result is
/// recorded (or, for Stop, soon after) the child is gone, and the model is told a process
/// was left running and killed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_a_command_starts_outlives_it() {
    let dir = tempfile::tempdir().unwrap();
    let detach = |name: &str| {
        format!("setsid sh -c 'echo $$ > {name}.pid; exec sleep 300' > /dev/null 2>&1 & ")
    };
    let wait_pid = |name: &str| format!("while [ ! -s {name}.pid ]; do sleep 0.01; done");
    let server = FakeOllama::start().await;
    let s = start(&server, dir.path(), ToolMode::Auto, |c| {
        if let Some(t) = c.tools.as_mut() {
            t.limits.command_timeout = Duration::from_secs(3);
        }
    });
    // Each turn's call is scripted once the turn before it is over (a scripted call goes
    // to the next request, which within a turn is the one after a result).
    server.push_tool_calls(vec![(
        "run_command",
        serde_json::json!({"command": format!("{}{}", detach("ends"), wait_pid("ends"))}),
    )]);
    s.say("start a daemon").await;
    s.wait_for_messages(4).await;
    // The command ended; what it left running was killed before the result was recorded.
    assert!(
        !alive(pid_in(&dir.path().join("ends.pid"))),
        "it outlived its command"
    );
    server.push_tool_calls(vec![(
        "run_command",
        serde_json::json!({"command": format!("{}sleep 300", detach("timeout"))}),
    )]);
    s.say("start one that hangs").await;
    s.wait_for_messages(8).await;
    assert!(
        !alive(pid_in(&dir.path().join("timeout.pid"))),
        "it outlived the timeout"
    );
    // Stopped while it runs.
    server.push_tool_calls(vec![(
        "run_command",
        serde_json::json!({"command": format!("{}sleep 300", detach("stopped"))}),
    )]);
    s.say("start one to stop").await;
    let pid_file = dir.path().join("stopped.pid");
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&pid_file).map_or(true, |t| t.trim().is_empty()) {
        assert!(start.elapsed() < Duration::from_secs(30), "never started");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let pid = pid_in(&pid_file);
    s.cmd(Command::Stop).await;
    let start = std::time::Instant::now();
    while alive(pid) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "it outlived the Stop"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    s.wait_for_messages(11).await;
    let (exit, _) = s.finish().await;
    let res = results(&exit);
    assert!(
        res[0]
            .0
            .contains("1 process the command left running was killed"),
        "{}",
        res[0].0
    );
    assert!(
        res[1].0.contains("did not finish within 3 s"),
        "{}",
        res[1].0
    );
    // Stopped while it ran: said as what happened (it printed nothing).
    assert!(
        res[2].0.starts_with("Error: stopped after ") && res[2].0.ends_with("it printed nothing"),
        "{}",
        res[2].0
    );
    let checked = check_records(
        &exit,
        &[
            "start a daemon",
            "start one that hangs",
            "start one to stop",
        ],
    );
    figures("detached_children", 3, checked);
}

/// The child half of the next test: this process plays the app, a subreaper as `main`
/// makes it, whose command kills its own supervisor; then a command prints the server
/// variables it was given.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by a_command_that_kills_its_supervisor_leaves_nothing as its child"]
async fn child_whose_command_kills_its_supervisor() {
    let Ok(dir) = std::env::var("OLLM_ORPHAN_DIR") else {
        return;
    };
    let dir = Path::new(&dir);
    assert!(ollm_tui::tools::orphans::adopt(), "a subreaper (Linux)");
    let server = FakeOllama::start().await;
    server.push_tool_calls(vec![(
        "run_command",
        serde_json::json!({"command": "setsid sleep 1009 >/dev/null 2>&1 & echo $! > orphan.pid; kill -9 $PPID"}),
    )]);
    let s = start(&server, dir, ToolMode::Auto, |_| {});
    s.say("kill your supervisor").await;
    s.wait_for_messages(4).await;
    // The result is recorded: whatever the command left is gone by now.
    let orphan = pid_in(&dir.join("orphan.pid"));
    println!("orphan_pid {orphan}");
    println!(
        "orphan_gone {}",
        !Path::new(&format!("/proc/{orphan}")).exists()
    );
    server.push_tool_calls(vec![(
        "run_command",
        serde_json::json!({"command": "echo \"[$TMUX][$TMUX_PANE][$STY][$ZELLIJ]\""}),
    )]);
    s.say("which servers can you reach?").await;
    s.wait_for_messages(8).await;
    let (exit, _) = s.finish().await;
    let res = results(&exit);
    println!("said {:?}", res[0].0);
    println!("variables {:?}", res[1].0);
    println!(
        "records {}",
        check_records(
            &exit,
            &["kill your supervisor", "which servers can you reach?"]
        )
    );
}

/// The issue's escape (#36): `setsid sleep 1009 … & kill -9 $PPID` killed the supervisor
/// before it could clean up and left the sleep under PID 1; and a command could reach the
/// person's tmux through `$TMUX`. The app adopts orphans (a subreaper itself): the sleep
/// comes to it and is killed and reaped before the result is recorded, and the model is
/// told. The server variables are not handed down. Run in a child process, which alone
/// plays the app (a subreaper sweeps children it did not start: no other test beside it).
#[test]
fn a_command_that_kills_its_supervisor_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let child = ChildRun::of(
        "child_whose_command_kills_its_supervisor",
        &[
            ("OLLM_ORPHAN_DIR", &dir.path().display().to_string()),
            ("TMUX", "/tmp/tmux-1000/default,4242,0"),
            ("TMUX_PANE", "%7"),
            ("STY", "4242.pts-0.host"),
            ("ZELLIJ", "0"),
        ],
        Duration::from_secs(120),
    );
    // Whatever happened, nothing is left running behind the test.
    if let Some(pid) = child
        .field("orphan_pid")
        .and_then(|p| p.parse::<i32>().ok())
        && alive(pid)
    {
        let _ = rustix::process::kill_process(
            rustix::process::Pid::from_raw(pid).unwrap(),
            rustix::process::Signal::KILL,
        );
    }
    child.assert_success();
    assert_eq!(
        child.expect("orphan_gone"),
        "true",
        "the sleep outlived its supervisor:\n{}",
        child.stdout
    );
    // The sleep, and the shell too when it had not yet exited.
    let said = child.expect("said");
    assert!(
        said.contains("killed its supervisor; 1 process it left running was killed")
            || said.contains("killed its supervisor; 2 processes it left running were killed"),
        "{said}"
    );
    let variables = child.expect("variables");
    assert!(variables.contains("[][][][]"), "{variables}");
    let checked: usize = child.expect("records").parse().unwrap();
    figures("supervisor_killed", 2, checked);
}

/// "Allow for the session" given on `echo`: a compound line with another program asks
/// (`;`, `&&`, a second line after a comment that a backslash or a quote seemed to carry
/// on), one that cannot be read through asks and offers no allowance (`$(…)`, `sh -c`,
/// `.`), and `echo` alone runs unasked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowance_covers_every_program_of_a_line_or_the_line_asks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("script"), "touch pwned-8\n").unwrap();
    // Ten rounds of calls at most in a turn: the first, eight attacks, the last.
    let server = FakeOllama::start().await;
    // Each attack, and whether the dialog may offer an allowance for it (the programs it
    // names), or none (the line cannot be read through).
    let attacks = [
        ("echo x; touch pwned-1", true),
        ("echo x && touch pwned-2", true),
        ("echo x #\\\ntouch pwned-3", true),
        ("echo x #\"\ntouch pwned-4\n#\"", true),
        ("echo x #'\ntouch pwned-5\n#'", true),
        ("echo $(touch pwned-6)", false),
        ("sh -c 'touch pwned-7'", false),
        (". ./script", false),
    ];
    let lines: Vec<&str> = std::iter::once("echo first")
        .chain(attacks.iter().map(|(l, _)| *l))
        .chain(["echo alone"])
        .collect();
    for l in &lines {
        server.push_tool_calls(vec![("run_command", serde_json::json!({"command": l}))]);
    }
    let s = start(&server, dir.path(), ToolMode::Ask, |_| {});
    s.say("run them all").await;
    // The first is allowed for the session; each attack after it must ask.
    let first = next_ask(&s, 0).await;
    assert_eq!(
        first.session_scope,
        SessionScope::Programs(vec!["echo".into()])
    );
    s.cmd(Command::Approve {
        id: first.id,
        answer: Approval::Session,
    })
    .await;
    let mut last = first.id;
    for (line, offered) in attacks {
        let ask = next_ask(&s, last).await;
        last = ask.id;
        let shown = line.lines().next().unwrap();
        assert!(
            ask.preview.contains(shown),
            "{line:?}: asked {:?}",
            ask.preview
        );
        let scope_ok = if offered {
            matches!(&ask.session_scope, SessionScope::Programs(p) if p.len() == 2)
        } else {
            matches!(ask.session_scope, SessionScope::NotOffered(_))
        };
        assert!(scope_ok, "{line:?}: {:?}", ask.session_scope);
        s.cmd(Command::Approve {
            id: ask.id,
            answer: Approval::Deny { reason: None },
        })
        .await;
    }
    // `echo alone` runs without asking.
    s.wait_for_messages(2 + 2 * lines.len()).await;
    let (exit, _) = s.finish().await;
    let res = results(&exit);
    let alone = &res[lines.len() - 1];
    assert!(alone.0.contains("alone") && !alone.1, "{alone:?}");
    for i in 1..=attacks.len() {
        assert!(
            !dir.path().join(format!("pwned-{i}")).exists(),
            "pwned-{i} ran"
        );
    }
    let checked = check_records(&exit, &["run them all"]);
    figures("compound_commands", attacks.len(), checked);
}

/// A model that loops — the same call line again and again after a tool result, as the
/// real 0.5B model did until `num_predict` ran out — is stopped by the repetition guard:
/// the stream is closed, what arrived is kept (interrupted), the transcript says why.
/// With `repeat_limit = 0` the same reply runs to its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_that_repeats_itself_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let line = r#"{"name": "read_file", "arguments": {"path": "notes.txt"}}"#;
    let looping = format!("Let me read it again.\n{}", format!("{line}\n").repeat(150));
    let mut checked = 0;
    for limit in [10usize, 0] {
        let server = FakeOllama::start_with(support::fake_ollama::FakeConfig {
            token_delay: Duration::from_millis(2),
            ..Default::default()
        })
        .await;
        server.push_reply(looping.clone());
        let s = start(&server, dir.path(), ToolMode::Ask, |c| {
            c.repeat_limit = limit
        });
        s.say("what is in notes.txt?").await;
        s.wait_for_messages(2).await;
        let (exit, updates) = s.finish().await;
        let reply = exit.engine.history().iter().last().unwrap().clone();
        let looped = updates.iter().any(|u| {
            matches!(
                u,
                Update::Notice(ollm_tui::view::Notice::ReplyLooped { .. })
            )
        });
        if limit > 0 {
            assert_eq!(reply.status, ReplyStatus::Interrupted);
            let repeats = reply.text.matches(line).count();
            assert!((10..20).contains(&repeats), "{repeats} repeats kept");
            assert!(looped, "the transcript says why");
            assert!(
                server
                    .wait_for_disconnect(Duration::from_secs(5))
                    .await
                    .is_some(),
                "the stream was closed"
            );
        } else {
            assert_eq!(reply.status, ReplyStatus::Complete);
            assert!(!looped);
            assert!(reply.text.matches(line).count() > 20);
        }
        checked += check_records(&exit, &["what is in notes.txt?"]);
    }
    figures("looping_reply", 1, checked);
}

/// The whole set of calls of one turn is answered even when the person stops halfway:
/// Stop during a slow command reports that command as stopped (it ran) and leaves the
/// rest recorded as not run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_during_a_command_answers_every_call_of_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOllama::start().await;
    server.push_tool_calls(vec![
        ("run_command", serde_json::json!({"command": "sleep 300"})),
        ("read_file", serde_json::json!({"path": "nothing-here"})),
    ]);
    let s = start(&server, dir.path(), ToolMode::Auto, |_| {});
    s.say("run and read").await;
    let mut view = s.spawned.view.clone();
    tokio::time::timeout(
        Duration::from_secs(30),
        view.wait_for(|v| matches!(v.activity, Activity::Tool { .. })),
    )
    .await
    .unwrap()
    .unwrap();
    drop(view);
    s.cmd(Command::Stop).await;
    s.cmd(Request::Send {
        text: "after the stop".into(),
        images: Vec::new(),
    })
    .await;
    s.wait_for_messages(6).await;
    let (exit, _) = s.finish().await;
    let res = results(&exit);
    assert!(
        res[0].1 && res[0].0.starts_with("Error: stopped after "),
        "{res:?}"
    );
    assert!(res[1].1 && res[1].0.contains("Not run"), "{res:?}");
    let checked = check_records(&exit, &["run and read", "after the stop"]);
    figures("stop_mid_turn", 1, checked);
}

/// The issue's report (#36): a command stopped by Esc after it ran a while was told to the
/// model as "Not run: the user stopped the tool calls", so the model might run again a
/// command that cannot be run twice. It is reported as what happened — "stopped after
/// N s; output so far: …" — the Stop ends the turn (the model is not asked then), and the
/// next message's request carries that report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_stopped_while_it_runs_is_reported_as_run() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOllama::start().await;
    server.push_tool_calls(vec![(
        "run_command",
        serde_json::json!({"command": "echo migrated 3 tables; touch ready; sleep 300"}),
    )]);
    let s = start(&server, dir.path(), ToolMode::Auto, |_| {});
    s.say("run the migration").await;
    let ready = dir.path().join("ready");
    let start = std::time::Instant::now();
    while !ready.exists() {
        assert!(start.elapsed() < Duration::from_secs(30), "never started");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    s.cmd(Command::Stop).await;
    s.wait_for_messages(3).await;
    assert_eq!(server.chat_requests().len(), 1, "the Stop ended the turn");
    s.say("what happened?").await;
    s.wait_for_messages(5).await;
    let (exit, _) = s.finish().await;
    let res = results(&exit);
    assert_eq!(res.len(), 1, "{res:?}");
    let (text, is_error) = &res[0];
    assert!(*is_error);
    assert!(text.starts_with("Error: stopped after "), "{text}");
    assert!(
        text.contains(" s; output so far:\n--- stdout ---\nmigrated 3 tables\n"),
        "{text}"
    );
    let asked = server.chat_requests();
    assert_eq!(asked.len(), 2);
    assert!(
        asked[1].to_string().contains("stopped after"),
        "the model is told: {}",
        asked[1]
    );
    let checked = check_records(&exit, &["run the migration", "what happened?"]);
    figures("stopped_command", 1, checked);
}
