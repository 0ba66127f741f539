//! `/pull` through the binary: a missing model pulled from the fake server with a progress
//! bar that advances and finishes, the session then chatting with it; a pull cancelled
//! with Esc, which the server sees as a disconnect.

use super::harness::{Rig, idle};
use std::time::Duration;

/// The percent the pull dialog shows ("… · 42 % · …").
fn percent(screen: &str) -> Option<u32> {
    let line = screen.lines().find(|l| l.contains(" % "))?;
    let before = &line[..line.find(" % ")?];
    before.rsplit(' ').next()?.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pulling_the_missing_model_shows_a_bar_then_chats_with_it() {
    let rig = Rig::new().await;
    // 40 steps 40 ms apart: long enough to see the bar move, short enough for a test.
    rig.server.set_pull_pace(40, Duration::from_millis(40));
    let t = rig.start(&["--model", "smollm2:135m"], 100, 30);
    t.wait_for("the missing model's banner pointing at /pull", |s| {
        s.contains("\"smollm2:135m\" is not installed") && s.contains("/pull smollm2:135m")
    })
    .await;
    t.say("/pull");
    let first = t
        .wait_for("the pull dialog with a bar", |s| {
            s.contains("Pulling smollm2:135m") && s.contains('█') && percent(s).is_some()
        })
        .await;
    let p0 = percent(&first).unwrap();
    let later = t
        .wait_for("the bar to advance", |s| {
            percent(s).is_some_and(|p| p > p0) || s.contains("Pulled smollm2:135m")
        })
        .await;
    assert!(
        later.contains("MB of") || later.contains("Pulled"),
        "bytes shown:\n{later}"
    );
    let done = t
        .wait_for("the pull to finish and the switch", |s| {
            s.contains("Pulled smollm2:135m") && s.contains("switching to it")
        })
        .await;
    assert!(!done.contains("Esc cancel"), "the dialog closed:\n{done}");
    t.wait_for("the banner gone and the model usable", |s| {
        !s.contains("not installed") && s.contains("Context:") && idle(s)
    })
    .await;
    t.ask("hello pulled model").await;
    let chats = rig.server.chat_requests();
    assert_eq!(
        chats.last().unwrap()["model"],
        "smollm2:135m",
        "the chat went to the pulled model"
    );
    assert_eq!(rig.server.pull_requests(), ["smollm2:135m"]);

    // A second pull, cancelled once its bar shows.
    rig.server.set_pull_pace(400, Duration::from_millis(50));
    t.say("/pull tinyllama:1.1b");
    t.wait_for("the second pull's bar", |s| {
        s.contains("Pulling tinyllama:1.1b") && percent(s).is_some() && s.contains("MB/s")
    })
    .await;
    // Hidden, it goes on in the status line; /pull brings the dialog back.
    t.keys(&["q"]);
    t.wait_for("the hidden pull on the status line", |s| {
        !s.contains("Esc cancel")
            && s.contains("pulling tinyllama:1.1b")
            && s.contains("(/pull shows it)")
    })
    .await;
    t.say("/pull");
    t.wait_for("the dialog shown again", |s| {
        s.contains("Pulling tinyllama:1.1b")
            && s.contains("Esc cancel")
            && !s.contains("(/pull shows it)")
    })
    .await;
    t.keys(&["Escape"]);
    let s = t
        .wait_for("the pull cancelled", |s| {
            s.contains("Pull of tinyllama:1.1b cancelled") && !s.contains("Esc cancel")
        })
        .await;
    assert!(
        s.contains("cancelled after") && s.contains("resumes"),
        "{s}"
    );
    let gone = rig
        .server
        .wait_for_disconnect(Duration::from_secs(10))
        .await;
    assert!(gone.is_some(), "the server saw the pull's connection close");
    t.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_model_says_why_and_the_picker_offers_the_missing_one() {
    let rig = Rig::new().await;
    let t = rig.start(&["--model", "tinyllama:1.1b"], 100, 30);
    t.wait_for("the missing model's banner", |s| {
        s.contains("\"tinyllama:1.1b\" is not installed")
    })
    .await;
    t.say("/pull nosuch:7b");
    // The "Pulling nosuch:7b…" line is replaced by the failure, not left as if it went on.
    t.wait_for("Ollama's error for an unknown model", |s| {
        s.contains("Cannot pull nosuch:7b")
            && s.contains("file does not exist")
            && !s.contains("Pulling nosuch:7b")
    })
    .await;
    // The picker's first row pulls the session's missing model.
    t.keys(&["C-l"]);
    t.wait_for("the picker offering the pull", |s| {
        s.contains("Pull tinyllama:1.1b…") && s.contains("llama3.2:3b")
    })
    .await;
    t.keys(&["Enter"]);
    t.wait_for("the pull done and the switch", |s| {
        s.contains("Pulled tinyllama:1.1b") && s.contains("switching to it")
    })
    .await;
    t.wait_for("connected to the pulled model", |s| {
        !s.contains("not installed") && s.contains("tinyllama:1.1b") && idle(s)
    })
    .await;
    t.quit().await;
}
