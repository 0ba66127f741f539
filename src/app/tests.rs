//! The app's state machine driven by key events, against a real actor whose server is
//! unreachable (commands queue; the tests look at the app's own state).
#![allow(clippy::unwrap_used)]

use super::keymap::Keymap;
use super::overlays::{OverlayState, Reply};
use super::{App, AppOptions};
use crate::actor::{self, ActorConfig, Inspection, Parts, StoreSlot};
use crate::core::checkpoint::Checkpoint;
use crate::core::checkpoint::{CheckpointId, Level};
use crate::core::engine::{Engine, EngineConfig, SessionSpec};
use crate::core::message::MessageId;
use crate::core::mode::Mode;
use crate::core::prompts::Prompts;
use crate::core::snapshot::SnapshotMeta;
use crate::core::tokens::ByteEstimate;
use crate::llm::{OllamaBackend, OllamaOptions};
use crate::store::MemoryStore;
use crate::ui::Theme;
use crate::view::{Activity, Entry, EntryKind, Update};
use chrono::Utc;
use crossterm::event::KeyEventState;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

struct Harness {
    app: App,
    _spawned: actor::Spawned<MemoryStore>,
}

fn harness_with(keys: &BTreeMap<String, String>) -> Harness {
    let engine = Engine::new(
        SessionSpec {
            session_id: "app-test".into(),
            model: "llama3.2:3b".into(),
            mode: Mode::Assistant,
            ctx: Some(4096),
            params: Default::default(),
        },
        EngineConfig::default(),
        Arc::new(ByteEstimate),
        Arc::new(Prompts::builtin()),
        Utc::now(),
    );
    let header = engine.header("test");
    // Port 9 (discard) refuses connections: the actor never gets a server.
    let url = "http://127.0.0.1:9";
    let spawned = actor::spawn(Parts {
        backend: OllamaBackend::new(url, OllamaOptions::default()).unwrap(),
        summary_backend: None,
        engine: Box::new(move || engine),
        store: StoreSlot::Open(MemoryStore::new(header)),
        config: ActorConfig {
            host: url.into(),
            reconnect_after: Duration::from_secs(3600),
            ..ActorConfig::default()
        },
        model: None,
    });
    let app = App::new(
        spawned.handle.clone(),
        spawned.view.clone(),
        AppOptions {
            keymap: Keymap::new(keys).unwrap(),
            theme: Theme::default(),
            ascii: false,
            paste_limit_bytes: 1 << 20,
            startup_banner: None,
            data_dir: None,
            start_at: None,
            config_temperature: None,
            mouse: true,
        },
    );
    Harness {
        app,
        _spawned: spawned,
    }
}

fn harness() -> Harness {
    harness_with(&BTreeMap::new())
}

fn press(app: &mut App, code: KeyCode, modifiers: KeyModifiers) {
    app.on_event(Event::Key(KeyEvent {
        code,
        modifiers,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    }));
}

fn key(app: &mut App, code: KeyCode) {
    press(app, code, KeyModifiers::NONE);
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        let mods = if c.is_uppercase() {
            KeyModifiers::SHIFT
        } else {
            KeyModifiers::NONE
        };
        press(app, KeyCode::Char(c), mods);
    }
}

fn input(app: &App) -> String {
    app.input.lines().join("\n")
}

fn checkpoint() -> Checkpoint {
    Checkpoint {
        id: CheckpointId(1),
        number: 1,
        level: Level::Detailed,
        summary: "We chose Postgres.".into(),
        tokens: 10,
        covers: vec![MessageId(1), MessageId(2)],
        original_tokens: 100,
        created_at: Utc::now(),
        aged_at: None,
        times_compressed: 0,
        truncated: false,
        key_decisions: vec![],
        files: vec![],
        next_steps: vec![],
        facts: vec![],
    }
}

fn open_inspector(app: &mut App) {
    app.overlay = Some(OverlayState::Inspector {
        checkpoint: checkpoint(),
        originals: vec![],
        scroll: 0,
    });
}

/// Ctrl+G, then Tab: the panel is shown and focused.
fn focus_panel(app: &mut App) {
    press(app, KeyCode::Char('g'), KeyModifiers::CONTROL);
    key(app, KeyCode::Tab);
    assert!(app.panel && app.panel_focus);
}

#[tokio::test]
async fn typing_with_the_panel_focused_goes_to_the_input_and_enter_sends() {
    let mut h = harness();
    let app = &mut h.app;
    focus_panel(app);
    type_text(app, "Question 9");
    assert!(!app.panel_focus, "typing hands focus back to the input");
    assert_eq!(input(app), "Question 9");
    key(app, KeyCode::Enter);
    assert!(app.overlay.is_none());
    assert_eq!(input(app), "", "Enter sent the message");
    // Backspace, too, edits the input rather than being swallowed by the panel.
    type_text(app, "ab");
    key(app, KeyCode::Tab);
    assert!(app.panel_focus);
    key(app, KeyCode::Backspace);
    assert!(!app.panel_focus);
    assert_eq!(input(app), "a");
}

#[tokio::test]
async fn a_key_typed_over_the_inspector_closes_it_and_reaches_the_input() {
    let mut h = harness();
    let app = &mut h.app;
    focus_panel(app);
    open_inspector(app);
    // Its own keys still work.
    key(app, KeyCode::Down);
    assert!(matches!(
        app.overlay,
        Some(OverlayState::Inspector { scroll: 1, .. })
    ));
    type_text(app, "Question 9");
    assert!(
        app.overlay.is_none(),
        "the first letter closed the inspector"
    );
    assert!(!app.panel_focus);
    assert_eq!(input(app), "Question 9", "no letter was lost");
    key(app, KeyCode::Enter);
    assert_eq!(input(app), "", "Enter sent the message");
    // `q` stays the inspector's close key.
    open_inspector(app);
    key(app, KeyCode::Char('q'));
    assert!(app.overlay.is_none());
    assert_eq!(input(app), "");
}

#[tokio::test]
async fn hints_name_the_keys_actually_bound() {
    let mut keys = BTreeMap::new();
    keys.insert("snapshot".to_string(), "f5".to_string());
    keys.insert("restore".to_string(), "f6".to_string());
    let mut h = harness_with(&keys);
    let app = &mut h.app;
    app.on_reply(Reply::Snapshots(Ok(Default::default())));
    let last = app.transcript.entries().last().unwrap().text.clone();
    assert!(last.contains("F5") && !last.contains("Ctrl+S"), "{last}");
    let help = |cmd: &str| {
        app.help_lines
            .iter()
            .find(|(k, _)| k.starts_with(cmd))
            .unwrap()
            .1
            .clone()
    };
    assert!(help("/snapshot").contains("(F5)"), "{}", help("/snapshot"));
    let mut rebound = BTreeMap::new();
    rebound.insert("help".to_string(), "f10".to_string());
    let h2 = harness_with(&rebound);
    assert!(
        h2.app
            .help_lines
            .iter()
            .any(|(k, v)| k == "Esc, q or F10 (help)" && v.starts_with("close this help")),
        "the help names the key that opens it: {:?}",
        &h2.app.help_lines[..10]
    );
    assert_eq!(
        h2.app.transcript.empty_hint(),
        Some("Type below and press Enter to send; ? or F10 opens the help."),
        "so does the empty transcript"
    );
    assert!(help("/restore").contains("(F6)"), "{}", help("/restore"));
    assert!(help("/compress").contains("(Ctrl+K)"));
}

fn meta(id: &str) -> SnapshotMeta {
    SnapshotMeta {
        id: id.into(),
        session_id: "app-test".into(),
        created: Utc::now(),
        purpose: crate::core::record::SnapshotPurpose::Rollback,
        label: None,
        model: "m".into(),
        tier: crate::core::mode::Tier::T2,
        mode: Mode::Assistant,
        tokens: 1,
        message_count: 1,
        checkpoint_count: 0,
    }
}

fn picker_ids(app: &App) -> Vec<String> {
    match &app.overlay {
        Some(OverlayState::Snapshots { items, .. }) => items.iter().map(|m| m.id.clone()).collect(),
        _ => panic!("the picker is closed"),
    }
}

#[tokio::test]
async fn del_in_the_restore_picker_asks_before_deleting() {
    let mut h = harness();
    let app = &mut h.app;
    app.on_reply(Reply::Snapshots(Ok(
        crate::store::snapshot::SnapshotListing {
            snapshots: vec![meta("a"), meta("b"), meta("c")],
            unreadable: Vec::new(),
        },
    )));
    key(app, KeyCode::Delete);
    assert_eq!(picker_ids(app), ["a", "b", "c"], "the first Del only asks");
    // Moving on, or Esc, withdraws the question; Esc keeps the picker open.
    key(app, KeyCode::Down);
    key(app, KeyCode::Delete);
    key(app, KeyCode::Esc);
    assert_eq!(picker_ids(app), ["a", "b", "c"]);
    key(app, KeyCode::Delete);
    key(app, KeyCode::Delete);
    assert_eq!(picker_ids(app), ["a", "c"], "Del again confirms");
    key(app, KeyCode::Delete);
    key(app, KeyCode::Char('y'));
    assert_eq!(picker_ids(app), ["a"], "so does y");
    assert_eq!(input(app), "", "that y was not typed");
}

#[tokio::test]
async fn the_help_lists_tab_del_escapes_and_the_wheel() {
    let h = harness();
    let keys: Vec<&str> = h.app.help_lines.iter().map(|(k, _)| k.as_str()).collect();
    for want in [
        "Tab",
        "Enter (panel)",
        "Del (restore picker)",
        "//text",
        "mouse wheel",
    ] {
        assert!(keys.iter().any(|k| k.starts_with(want)), "{want}: {keys:?}");
    }
}

#[tokio::test]
async fn folded_updates_mark_the_messages_they_name() {
    let mut h = harness();
    let app = &mut h.app;
    let item = |id: u64, text: &str| {
        let mut e = Entry::user(text, Utc::now());
        e.id = Some(MessageId(id));
        e
    };
    app.on_update(Update::Transcript(vec![
        item(1, "a"),
        item(2, "b"),
        item(3, "c"),
    ]));
    app.on_update(Update::Folded {
        checkpoint: 4,
        ids: vec![MessageId(1), MessageId(3)],
    });
    let folded: Vec<Option<u32>> = app.transcript.entries().iter().map(|e| e.folded).collect();
    assert_eq!(folded, [Some(4), None, Some(4)]);
}

#[tokio::test]
async fn a_merged_checkpoint_is_labelled_and_inspect_leads_to_its_successor() {
    let mut h = harness();
    let app = &mut h.app;
    let fold = |n: u32| {
        Entry::new(
            EntryKind::Fold {
                checkpoint: n,
                messages: 4,
                tokens: 80,
                merged_into: None,
            },
            "",
            Utc::now(),
        )
    };
    app.on_update(Update::Transcript(vec![fold(1), fold(2), fold(3)]));
    app.on_update(Update::Merged {
        checkpoints: vec![1, 2],
        into: 1,
    });
    let merged: Vec<Option<u32>> = app
        .transcript
        .entries()
        .iter()
        .map(|e| match e.kind {
            EntryKind::Fold { merged_into, .. } => merged_into,
            _ => None,
        })
        .collect();
    assert_eq!(merged, [None, Some(1), None]);
    // The actor finds checkpoint 2 inside checkpoint 1 (the engine tests how): the app
    // says so and shows that one.
    app.on_reply(Reply::Inspect {
        from_panel: false,
        inspection: Some(Box::new(Inspection {
            asked: Some(2),
            checkpoint: checkpoint(),
            originals: vec![],
        })),
    });
    let last = app.transcript.entries().last().unwrap();
    assert!(
        last.text
            .contains("Checkpoint 2 was merged into checkpoint 1"),
        "{}",
        last.text
    );
    assert!(matches!(app.overlay, Some(OverlayState::Inspector { .. })));
    app.overlay = None;
    app.on_reply(Reply::Inspect {
        from_panel: false,
        inspection: None,
    });
    assert!(
        app.transcript
            .entries()
            .last()
            .unwrap()
            .text
            .contains("No such checkpoint")
    );
}

#[tokio::test]
async fn quitting_over_unsent_text_asks_first() {
    let mut h = harness();
    let app = &mut h.app;
    type_text(app, "half a thought");
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(!app.quit, "the draft would be lost");
    assert!(app.input_note.as_deref().unwrap().contains("Ctrl+Q again"));
    // Typing on withdraws the question; the next Ctrl+Q asks again.
    type_text(app, "!");
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(!app.quit);
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(app.quit, "asked twice: quit");
    assert_eq!(input(app), "half a thought!");

    let mut h = harness();
    press(&mut h.app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(h.app.quit, "nothing to lose: quit at once");
}

#[tokio::test]
async fn enter_during_a_reply_or_compression_hands_the_message_on_to_queue() {
    for activity in [
        Activity::Compressing {
            since: std::time::Instant::now(),
            what: "summarizing 2 messages".into(),
        },
        Activity::Generating {
            since: std::time::Instant::now(),
            chunks: 3,
        },
    ] {
        let mut h = harness();
        let app = &mut h.app;
        let mut v = (*app.session).clone();
        v.activity = activity;
        app.session = Arc::new(v);
        type_text(app, "next question");
        key(app, KeyCode::Enter);
        // No refusal: the box is free for the next thought; the actor queues it.
        assert_eq!(input(app), "");
        assert_eq!(app.input_note, None);
    }
}

#[tokio::test]
async fn messages_taken_back_from_the_queue_return_to_the_input() {
    let mut h = harness();
    let app = &mut h.app;
    type_text(app, "half typed");
    app.on_reply(Reply::TakenBack(vec![
        "first".into(),
        "second\nline".into(),
    ]));
    assert_eq!(input(app), "first\n\nsecond\nline\n\nhalf typed");
    // A long one comes back folded, as a paste would.
    let mut h = harness();
    let app = &mut h.app;
    app.on_reply(Reply::TakenBack(vec!["x".repeat(20_000)]));
    assert!(input(app).starts_with("[paste 1"), "{}", input(app));
    assert_eq!(app.draft(), "x".repeat(20_000));
}

#[tokio::test]
async fn a_paste_over_a_dialog_or_the_focused_panel_lands_in_the_input() {
    let mut h = harness();
    let app = &mut h.app;
    focus_panel(app);
    open_inspector(app);
    app.on_event(Event::Paste("one\rtwo".into()));
    assert!(app.overlay.is_none());
    assert!(!app.panel_focus);
    assert_eq!(input(app), "one\ntwo");
}

#[tokio::test]
async fn enter_while_compressing_in_the_background_sends_at_once() {
    let mut h = harness();
    let app = &mut h.app;
    let mut v = (*app.session).clone();
    v.activity = Activity::Idle;
    v.background = Some(crate::view::BackgroundWork {
        since: std::time::Instant::now(),
        what: "fold 8 messages (1/2)".into(),
    });
    app.session = Arc::new(v);
    assert!(app.busy(), "the spinner turns");
    assert!(!app.generating());
    type_text(app, "next question");
    key(app, KeyCode::Enter);
    assert_eq!(app.input_note, None);
    assert_eq!(input(app), "", "sent");
}

#[tokio::test]
async fn a_burst_of_typed_text_goes_in_at_once_and_folds_like_a_paste() {
    let mut h = harness();
    let app = &mut h.app;
    let text: String = (0..4000).map(|i| format!("word{i} ")).collect();
    let keys: Vec<Event> = text
        .chars()
        .map(|c| {
            Event::Key(KeyEvent {
                code: KeyCode::Char(c),
                modifiers: KeyModifiers::NONE,
                kind: KeyEventKind::Press,
                state: KeyEventState::NONE,
            })
        })
        .collect();
    app.on_events(keys);
    assert!(input(app).starts_with("[paste 1: "), "{}", input(app));
    assert_eq!(app.draft(), text, "sent whole");
    // A few keys typed together are just typed.
    let mut h = harness();
    let app = &mut h.app;
    let keys: Vec<Event> = "hi there"
        .chars()
        .map(|c| {
            Event::Key(KeyEvent {
                code: KeyCode::Char(c),
                modifiers: KeyModifiers::NONE,
                kind: KeyEventKind::Press,
                state: KeyEventState::NONE,
            })
        })
        .collect();
    app.on_events(keys);
    assert_eq!(input(app), "hi there");
}

#[tokio::test]
async fn ctrl_c_while_a_tool_runs_stops_it_rather_than_quitting() {
    let mut h = harness();
    let app = &mut h.app;
    let mut v = (*app.session).clone();
    v.activity = Activity::Tool {
        since: std::time::Instant::now(),
        what: "run_command sleep 20".into(),
    };
    app.session = Arc::new(v);
    assert!(app.generating(), "Esc stops a running tool");
    press(app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(!app.quit, "Ctrl+C stopped the call, it did not quit");
}

#[tokio::test]
async fn quitting_while_records_wait_to_be_written_asks_first() {
    let mut h = harness();
    let app = &mut h.app;
    let mut v = (*app.session).clone();
    v.unwritten = 2;
    app.session = Arc::new(v);
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(!app.quit, "the records would be lost");
    let note = app.input_note.clone().unwrap();
    assert!(
        note.contains("2 records not on disk") && note.contains("rescue file"),
        "{note}"
    );
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(app.quit, "asked once: the second press quits (and rescues)");
}

#[tokio::test]
async fn a_damaged_snapshot_is_said_not_hidden_behind_no_snapshots_yet() {
    let mut h = harness();
    let app = &mut h.app;
    app.on_reply(Reply::Snapshots(Ok(
        crate::store::snapshot::SnapshotListing {
            snapshots: Vec::new(),
            unreadable: vec![crate::store::snapshot::UnreadableSnapshot {
                path: "/home/u/.ollm/snapshots/s/20261122-153012-3f9a.json".into(),
                reason: "the checksum does not match".into(),
            }],
        },
    )));
    let banner = app.banner.as_ref().expect("a banner");
    assert!(
        banner.title.contains("1 snapshot file could not be read")
            && banner.title.contains("checksum"),
        "{banner:?}"
    );
    assert!(app.overlay.is_none());
}

#[tokio::test]
async fn a_large_paste_shows_as_a_marker_and_is_sent_in_full() {
    let mut h = harness();
    let app = &mut h.app;
    let pasted = "2025-11-24 12:00:01 INFO request served in 3 ms\n".repeat(2_000);
    type_text(app, "why so slow? ");
    app.on_event(Event::Paste(pasted.clone()));
    assert!(
        app.input_note.as_deref().unwrap().contains("sent in full"),
        "{:?}",
        app.input_note
    );
    type_text(app, " thanks");
    let shown = input(app);
    assert_eq!(
        shown, "why so slow? [paste 1: 2,000 lines, 93 KiB] thanks",
        "the box holds a marker, not 93 KiB"
    );
    key(app, KeyCode::Enter);
    assert_eq!(input(app), "", "sent");
    let sent = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match h._spawned.updates.recv().await {
                Some(Update::Appended(e)) if e.kind == EntryKind::User => break e.text,
                Some(_) => {}
                None => panic!("the actor stopped"),
            }
        }
    })
    .await
    .expect("the message reached the session");
    assert_eq!(sent, format!("why so slow? {pasted} thanks"));
}

#[tokio::test]
async fn a_deleted_paste_marker_sends_nothing_of_the_paste() {
    let mut h = harness();
    let app = &mut h.app;
    app.on_event(Event::Paste("x".repeat(64 * 1024)));
    assert!(input(app).starts_with("[paste 1:"));
    // Delete it, then type something else.
    for _ in 0..input(app).chars().count() {
        key(app, KeyCode::Backspace);
    }
    assert_eq!(input(app), "");
    type_text(app, "never mind");
    assert_eq!(app.draft(), "never mind");
}

#[tokio::test]
async fn quitting_with_messages_queued_asks_first() {
    let mut h = harness();
    let app = &mut h.app;
    let mut v = (*app.session).clone();
    v.queued = vec!["typed ahead".into()];
    app.session = Arc::new(v);
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(!app.quit, "the queued message would be lost");
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(app.quit);
}

#[tokio::test]
async fn the_browser_takes_every_character_for_its_filter() {
    let mut h = harness();
    let app = &mut h.app;
    app.overlay = Some(OverlayState::Sessions(Box::new(super::sessions::Browser {
        all: Some(Vec::new()),
        filter: String::new(),
        selected: 0,
        mode: super::sessions::BrowserMode::Browse,
        note: None,
    })));
    type_text(app, "q3 plan");
    match &app.overlay {
        Some(OverlayState::Sessions(b)) => assert_eq!(b.filter, "q3 plan"),
        _ => panic!("the browser closed"),
    }
    key(app, KeyCode::Backspace);
    key(app, KeyCode::Esc);
    assert!(app.overlay.is_none());
    assert_eq!(input(app), "", "nothing typed reached the message box");
}

/// F2's title stops at the length a title is kept with, and says so (#31): what is
/// saved is what the screen showed, never a silent cut.
#[tokio::test]
async fn a_title_typed_past_its_limit_stops_there_and_says_why() {
    use crate::store::manage::MAX_TITLE_CHARS;
    let mut h = harness();
    let app = &mut h.app;
    app.overlay = Some(OverlayState::Sessions(Box::new(super::sessions::Browser {
        all: Some(Vec::new()),
        filter: String::new(),
        selected: 0,
        mode: super::sessions::BrowserMode::Rename(String::new()),
        note: None,
    })));
    type_text(app, &"t".repeat(MAX_TITLE_CHARS + 20));
    match &app.overlay {
        Some(OverlayState::Sessions(b)) => {
            match &b.mode {
                super::sessions::BrowserMode::Rename(t) => {
                    assert_eq!(t.chars().count(), MAX_TITLE_CHARS);
                }
                _ => panic!("not renaming"),
            }
            let note = b.note.as_deref().unwrap_or_default();
            assert!(
                note.contains(&format!("at most {MAX_TITLE_CHARS}")),
                "{note}"
            );
        }
        _ => panic!("the browser closed"),
    }
    key(app, KeyCode::Backspace);
    match &app.overlay {
        Some(OverlayState::Sessions(b)) => assert_eq!(b.note, None, "the note goes with the limit"),
        _ => panic!("the browser closed"),
    }
}

#[tokio::test]
async fn past_notices_are_placed_among_the_resumed_entries_in_words() {
    use crate::core::events::EngineEvent;
    use crate::view::Notice;
    let mut h = harness();
    let app = &mut h.app;
    let item = |id: u64| {
        let mut e = Entry::user(format!("m{id}"), Utc::now());
        e.id = Some(MessageId(id));
        e
    };
    app.on_update(Update::Transcript(vec![item(1), item(2), item(3)]));
    let folded =
        |count, checkpoint| Notice::Engine(EngineEvent::UserMessagesFolded { count, checkpoint });
    app.on_update(Update::PastNotices(vec![
        (1, Utc::now(), folded(2, 1)),
        (3, Utc::now(), folded(1, 2)),
    ]));
    let kinds: Vec<String> = app
        .transcript
        .entries()
        .iter()
        .map(|e| match &e.kind {
            EntryKind::Notice(_) => format!("notice: {}", e.text),
            _ => e.text.clone(),
        })
        .collect();
    assert_eq!(kinds.len(), 5, "{kinds:?}");
    assert_eq!(kinds[0], "m1");
    assert!(
        kinds[1].starts_with("notice: 2 of your oldest messages were folded into checkpoint 1"),
        "{kinds:?}"
    );
    assert_eq!(kinds[2], "m2");
    assert_eq!(kinds[3], "m3");
    assert!(kinds[4].contains("checkpoint 2"), "{kinds:?}");
}

/// `/quit` and Ctrl+Q are one intent with one handler: typed, it asks before dropping
/// messages typed ahead or records not on disk, exactly as the key does.
#[tokio::test]
async fn slash_quit_asks_before_dropping_what_the_key_would_ask_about() {
    let mut h = harness();
    let app = &mut h.app;
    let mut v = (*app.session).clone();
    v.queued = vec!["typed ahead".into()];
    app.session = Arc::new(v);
    type_text(app, "/quit");
    key(app, KeyCode::Enter);
    assert!(!app.quit, "the queued message would be lost");
    assert!(app.input_note.as_deref().unwrap().contains("again quits"));
    // Asked once about the same queue: the second /quit quits.
    type_text(app, "/exit");
    key(app, KeyCode::Enter);
    assert!(app.quit, "asked once: /quit again quits");

    let mut h = harness();
    let app = &mut h.app;
    let mut v = (*app.session).clone();
    v.unwritten = 3;
    app.session = Arc::new(v);
    type_text(app, "/q");
    key(app, KeyCode::Enter);
    assert!(!app.quit, "the records would be lost");
    assert!(
        app.input_note
            .as_deref()
            .unwrap()
            .contains("3 records not on disk")
    );
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(app.quit, "the key answers the question /quit asked");

    let mut h = harness();
    type_text(&mut h.app, "/quit");
    key(&mut h.app, KeyCode::Enter);
    assert!(h.app.quit, "nothing to lose: quit at once");
}

/// Asked about unsent text and then about records not on disk, the third press quits:
/// it does not go back to the first question.
#[tokio::test]
async fn two_questions_then_quit() {
    let mut h = harness();
    let app = &mut h.app;
    let mut v = (*app.session).clone();
    v.unwritten = 1;
    app.session = Arc::new(v);
    type_text(app, "draft");
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(app.input_note.as_deref().unwrap().contains("unsent text"));
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(app.input_note.as_deref().unwrap().contains("not on disk"));
    assert!(!app.quit);
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(app.quit, "both questions answered");
}

/// #31 item 2: `/new` leaves for a new session (`AppExit::New`), asking first, as
/// quitting does, over messages typed ahead; `/bye` quits.
#[tokio::test]
async fn new_leaves_for_a_new_session_asking_over_what_would_be_lost() {
    use crate::app::AppExit;
    let mut h = harness();
    let app = &mut h.app;
    let mut v = (*app.session).clone();
    v.queued = vec!["typed ahead".into()];
    app.session = Arc::new(v);
    type_text(app, "/new");
    key(app, KeyCode::Enter);
    assert!(!app.quit, "the queued message would be lost");
    let note = app.input_note.clone().unwrap();
    assert!(note.contains("/new again"), "{note}");
    type_text(app, "/new llama3.2:1b");
    key(app, KeyCode::Enter);
    assert!(app.quit);
    assert_eq!(
        app.exit,
        AppExit::New {
            model: Some("llama3.2:1b".into())
        }
    );

    let mut h = harness();
    type_text(&mut h.app, "/bye");
    key(&mut h.app, KeyCode::Enter);
    assert!(h.app.quit, "nothing to lose: quit at once");
    assert_eq!(h.app.exit, AppExit::Quit);
}

#[tokio::test]
async fn leaving_during_a_pull_asks_first() {
    for (typed, again) in [("/bye", "quits"), ("/new", "starts the new session")] {
        let mut h = harness();
        let app = &mut h.app;
        app.pull(Some("tinyllama:1.1b".into()), false);
        assert!(app.pull.is_some());
        app.overlay = None;
        type_text(app, typed);
        key(app, KeyCode::Enter);
        assert!(!app.quit, "{typed}: the pull would stop unasked");
        let note = app.input_note.clone().unwrap();
        assert!(
            note.contains("pulling tinyllama:1.1b") && note.contains(again),
            "{note}"
        );
        type_text(app, typed);
        key(app, KeyCode::Enter);
        assert!(app.quit, "{typed} again leaves");
    }
}

#[tokio::test]
async fn pulling_the_model_a_failed_switch_asked_for_switches_to_it() {
    use crate::llm::LlmError;
    use crate::view::Notice;
    let mut h = harness();
    let app = &mut h.app;
    app.pull(Some("smollm2:135m".into()), false);
    assert!(
        !app.pull.as_ref().unwrap().switch,
        "a model nobody asked for is only pulled"
    );
    app.cancel_pull();
    app.on_update(Update::Banner(Notice::ModelSwitchFailed {
        name: "tinyllama:1.1b".into(),
        error: LlmError::ModelNotFound {
            model: "tinyllama:1.1b".into(),
        },
    }));
    let banner = app.banner.clone().unwrap();
    assert!(
        banner
            .hint
            .as_deref()
            .unwrap()
            .contains("/pull tinyllama:1.1b"),
        "{banner:?}"
    );
    app.pull(Some("tinyllama:1.1b".into()), false);
    assert!(
        app.pull.as_ref().unwrap().switch,
        "the banner said the pull switches to it"
    );
}

/// Habits from oterm and `ollama run`: Ctrl+N starts a new session, `/load MODEL` switches.
#[tokio::test]
async fn ctrl_n_starts_a_new_session_and_load_switches_the_model() {
    use crate::app::AppExit;
    use crate::app::intent::Intent;
    let mut h = harness();
    press(&mut h.app, KeyCode::Char('n'), KeyModifiers::CONTROL);
    assert!(h.app.quit, "nothing to lose: a new session at once");
    assert_eq!(h.app.exit, AppExit::New { model: None });
    assert!(matches!(
        super::commands::parse("/load llama3.2:1b"),
        Some(Ok(Intent::Actor(crate::actor::Command::SetModel { name }))) if name == "llama3.2:1b"
    ));
}
