//! Tool calls through the binary: approval dialogs, large results, recall and /done.

use super::harness::{Tmux, assert_terminal_clean, idle, session_logs};
use super::support::fake_ollama::FakeOllama;
use std::path::PathBuf;

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
    assert!(said.contains(&"read the first four"), "{said:?}");
    t.keys(&["C-q"]);
    assert_eq!(t.wait_exit().await, 0);
    let log = std::fs::read_to_string(&session_logs(home.path())[0]).unwrap();
    assert!(log.contains("\"type\":\"watermark\""), "{log}");
}
