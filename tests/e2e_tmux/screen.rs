//! What a newcomer's screen says (#31): a resumed transcript in the order it was lived,
//! a title that stops visibly at its limit, a restore said once, and a first screen
//! without alarm or jargon whose help explains the status line.

use super::harness::{Rig, Tmux, idle};
use super::support::fake_ollama::FakeOllama;

/// The lines that tell the folds: dividers and the notices about them, in screen order.
fn fold_lines(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("┄┄") || (l.starts_with('ℹ') && l.contains("checkpoint")))
        .map(str::to_string)
        .collect()
}

fn position(lines: &[String], what: &str) -> usize {
    lines
        .iter()
        .position(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no {what:?} in {lines:#?}"))
}

/// Item 10: two folds with no message between them (an automatic one, then F7 at
/// once), quit, `--resume`: checkpoint 1's divider above checkpoint 2's, each followed by
/// its own notice, exactly as the live screen read. (The resumed transcript put both
/// notices below both dividers.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_after_two_folds_keeps_dividers_and_notices_in_order() {
    let rig = Rig::new().await;
    let args = ["--model", "qwen2.5-coder:0.5b", "--ctx", "1024"];
    let t = rig.connect(&args, 100, 300).await;
    let mut folded = false;
    for i in 1..=15 {
        let text = format!("note {i} about the deadline 2026-03-{i:02}");
        let s = t.ask(&text).await;
        if s.contains("┄┄ checkpoint 1:") {
            folded = true;
            break;
        }
    }
    assert!(folded, "no automatic fold:\n{}", t.screen());
    t.keys(&["F7"]);
    let live = t
        .wait_for("the second fold", |s| {
            s.contains("┄┄ checkpoint 2:")
                && s.contains("Of the messages in checkpoint 2")
                && idle(s)
        })
        .await;
    let live = fold_lines(&live);
    t.quit().await;
    drop(t);
    let t = rig.connect(&["--resume"], 100, 300).await;
    let resumed = t
        .wait_for("the resumed transcript", |s| {
            s.contains("┄┄ checkpoint 2:") && s.contains("Of the messages in checkpoint 2")
        })
        .await;
    let resumed = fold_lines(&resumed);
    let order: Vec<usize> = [
        "┄┄ checkpoint 1:",
        "Of the messages in checkpoint 1",
        "┄┄ checkpoint 2:",
        "Of the messages in checkpoint 2",
    ]
    .iter()
    .map(|w| position(&resumed, w))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{resumed:#?}");
    assert_eq!(
        resumed, live,
        "the resumed transcript reads as the live one did"
    );
    t.keys(&["C-q"]);
    t.wait_exit().await;
}

/// Item 11: F2 with a 100-character title: the input stops at 80, the count and a note
/// say so, and the title saved is what the screen showed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_with_a_hundred_characters_stops_visibly_and_saves_what_was_shown() {
    let rig = Rig::new().await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 120, 30).await;
    t.ask("plan the cache layer").await;
    t.keys(&["C-t"]);
    t.wait_for("the browser", |s| {
        s.contains("F2 rename") && s.contains("1 session")
    })
    .await;
    t.keys(&["F2"]);
    t.wait_for("the title input", |s| s.contains("New title:"))
        .await;
    let clear = vec!["BSpace"; 100];
    t.keys(&clear);
    t.wait_for("an empty title", |s| s.contains("  0/80")).await;
    let typed: String = (0..10).map(|i| format!("title{i}abcd")).collect();
    assert_eq!(typed.chars().count(), 100);
    t.type_text(&typed);
    let s = t
        .wait_for("the input stopped at the limit", |s| {
            s.contains("80/80") && s.contains("Titles are at most 80 characters")
        })
        .await;
    let kept = &typed[..80];
    assert!(s.contains(&format!("{kept}▏")), "{s}");
    assert!(
        !s.contains("title8"),
        "nothing past the limit is shown:\n{s}"
    );
    t.keys(&["Enter"]);
    t.wait_for("renamed", |s| s.contains("Renamed to")).await;
    let dir = ollm_tui::store::DataDir::new(rig.home()).unwrap();
    let title = ollm_tui::store::sessions::list(&dir).unwrap()[0]
        .title
        .clone()
        .unwrap();
    assert_eq!(title, kept, "saved as the screen showed it");
    t.keys(&["Escape"]);
    t.wait_for("the browser closed", |s| !s.contains("F2 rename"))
        .await;
    t.keys(&["C-q"]);
    t.wait_exit().await;
}

/// Item 11: a restore is said once on the live screen (it was said by the rebuilt
/// transcript's notices and again as a line of its own).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restore_is_said_once() {
    let rig = Rig::new().await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 40).await;
    t.ask("first thing").await;
    t.keys(&["C-s"]);
    t.wait_for("the snapshot", |s| {
        s.contains("Snapshot ") && s.contains(" saved")
    })
    .await;
    t.ask("second thing").await;
    t.keys(&["C-r"]);
    t.wait_for("the picker", |s| {
        s.contains("Restore a snapshot") && s.contains("by you")
    })
    .await;
    t.keys(&["Enter"]);
    let s = t
        .wait_for("the restore", |s| {
            s.contains("Restored snapshot") && !s.contains("second thing")
        })
        .await;
    assert_eq!(s.matches("Restored snapshot").count(), 1, "{s}");
    t.keys(&["C-q"]);
    t.wait_exit().await;
}

/// Item 12: a brand-new chat with a small model at 80×24 and 200×50: no reliability badge
/// (nothing was compressed, nothing lost), no "(capped)" or "T1"/"T2"; F1's help starts
/// with the status line, part by part, and says how to scroll and close it; F1 closes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_small_model_session_is_calm_and_help_explains_the_status_line() {
    let server = FakeOllama::start().await;
    for (w, h) in [(80u16, 24u16), (200, 50)] {
        let home = tempfile::tempdir().unwrap();
        let t = Tmux::connected(
            &["--model", "qwen2.5-coder:0.5b"],
            home.path(),
            &server.url(),
            w,
            h,
        )
        .await;
        let s = t.screen();
        let status = s.lines().rev().find(|l| l.contains("Context:")).unwrap();
        for jargon in ["🔴", "🟠", "🟡", "🟢", "(capped)", " T1", " T2"] {
            assert!(
                !status.contains(jargon),
                "{w}x{h}: {jargon:?} in {status:?}"
            );
        }
        assert!(status.contains("(default)"), "{status:?}");
        if w >= 200 {
            assert!(status.contains("nothing compressed yet"), "{status:?}");
            assert!(status.contains("assistant mode"), "{status:?}");
        }
        t.keys(&["F1"]);
        // The whole help drawn (a capture can catch a frame half written).
        let parts = [
            "The status line",
            "Context: 560/8,192",
            "┃ marks where compression",
            "scroll",
            "Esc close",
        ];
        t.wait_for(
            "the help explaining the status line, its scrolling and closing",
            |s| parts.iter().all(|p| s.contains(p)),
        )
        .await;
        t.keys(&["F1"]);
        t.wait_for("the help closed", |s| !s.contains("The status line"))
            .await;
        t.keys(&["C-q"]);
        t.wait_exit().await;
    }
}

/// #37 item 7: `/help TOPIC` shows that part of the manual, built into the binary, in the
/// help's popup: PgDn pages through it, Esc closes it; an unknown topic names the topics.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_topic_shows_the_manual_offline_and_pages_through_it() {
    let rig = Rig::new().await;
    let t = rig.connect(&[], 100, 30).await;
    t.say("/help tools");
    let first = t
        .wait_for("the tools topic", |s| {
            s.contains("Tools and approval") && s.contains("read_file") && s.contains("Esc close")
        })
        .await;
    t.keys(&["PageDown"]);
    t.wait_for("the next page of it", |s| {
        s.contains("Tools and approval") && *s != first
    })
    .await;
    t.keys(&["Escape"]);
    t.wait_for("the topic closed", |s| !s.contains("Tools and approval"))
        .await;
    t.say("/help nope");
    t.wait_for("the topics named", |s| s.contains("no manual topic"))
        .await;
    // The mistyped command stays in the box to mend: quitting asks first.
    t.keys(&["C-q"]);
    t.wait_for("asked before the draft is lost", |s| {
        s.contains("Ctrl+Q again")
    })
    .await;
    t.quit().await;
}

/// The status line (the last row) as captured with its colours.
fn styled_status(styled: &str) -> String {
    styled
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .to_string()
}

/// `/theme` (#37 item 3): moving in the picker recolours the whole screen at once (the
/// status line below the popup included), Esc goes back to the colours it had, Enter
/// keeps the theme and says how to make it last; a typo gets the closest name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_theme_picker_recolours_the_screen_and_esc_goes_back() {
    let rig = Rig::new().await;
    let t = rig.connect(&["--model", "llama3.2:3b"], 100, 30).await;
    t.ask("colour me").await;
    let dark = styled_status(&t.styled_screen());
    t.say("/theme");
    t.wait_for("the picker", |s| {
        s.contains("Enter keep") && s.contains("high-contrast")
    })
    .await;
    t.keys(&["Down"]);
    let light = t
        .wait_for_styled("the screen in the selected theme", |s| {
            styled_status(s) != dark
        })
        .await;
    let light = styled_status(&light);
    t.keys(&["Escape"]);
    t.wait_for_styled("the picker closed and the colours back", |s| {
        !s.contains("Enter keep") && styled_status(s) == dark
    })
    .await;
    t.say("/theme");
    t.wait_for("the picker again", |s| s.contains("Enter keep"))
        .await;
    t.keys(&["Down"]);
    t.wait_for_styled("the preview again", |s| styled_status(s) == light)
        .await;
    t.keys(&["Enter"]);
    t.wait_for_styled("light kept", |s| {
        s.contains("Theme: light, for this run")
            && s.contains("theme = \"light\" in config.toml")
            && styled_status(s) == light
    })
    .await;
    t.say("/theme drak");
    t.wait_for("did you mean", |s| s.contains("did you mean dark?"))
        .await;
    t.quit().await;
}
