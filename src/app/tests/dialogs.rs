//! Dialogs and the panel: what keys do over them, the help, the restore picker, the
//! session browser, and the banners that lead to one.

use super::*;

#[tokio::test]
async fn typing_with_the_panel_focused_goes_to_the_input_and_enter_sends() {
    let mut h = harness();
    let app = &mut h.app;
    focus_panel(app);
    type_text(app, "Question 9");
    assert!(!app.panel.focused(), "typing hands focus back to the input");
    assert_eq!(input(app), "Question 9");
    key(app, KeyCode::Enter);
    assert!(app.overlay.is_none());
    assert_eq!(input(app), "", "Enter sent the message");
    // Backspace, too, edits the input rather than being swallowed by the panel.
    type_text(app, "ab");
    key(app, KeyCode::Tab);
    assert!(app.panel.focused());
    key(app, KeyCode::Backspace);
    assert!(!app.panel.focused());
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
    assert!(!app.panel.focused());
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
    assert!(help("/compress").contains("(F7)"));
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
async fn a_paste_over_a_dialog_or_the_focused_panel_lands_in_the_input() {
    let mut h = harness();
    let app = &mut h.app;
    focus_panel(app);
    open_inspector(app);
    app.on_event(Event::Paste("one\rtwo".into()));
    assert!(app.overlay.is_none());
    assert!(!app.panel.focused());
    assert_eq!(input(app), "one\ntwo");
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
async fn the_browser_takes_every_character_for_its_filter() {
    let mut h = harness();
    let app = &mut h.app;
    app.overlay = Some(OverlayState::Sessions(Box::new(
        crate::app::sessions::Browser {
            all: Some(Vec::new()),
            filter: String::new(),
            selected: 0,
            mode: crate::app::sessions::BrowserMode::Browse,
            note: None,
        },
    )));
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
    app.overlay = Some(OverlayState::Sessions(Box::new(
        crate::app::sessions::Browser {
            all: Some(Vec::new()),
            filter: String::new(),
            selected: 0,
            mode: crate::app::sessions::BrowserMode::Rename(String::new()),
            note: None,
        },
    )));
    type_text(app, &"t".repeat(MAX_TITLE_CHARS + 20));
    match &app.overlay {
        Some(OverlayState::Sessions(b)) => {
            match &b.mode {
                crate::app::sessions::BrowserMode::Rename(t) => {
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
async fn pulling_the_model_a_failed_switch_asked_for_switches_to_it() {
    use crate::llm::LlmError;
    use crate::view::Notice;
    let mut h = harness();
    let app = &mut h.app;
    app.pull(Some("smollm2:135m".into()), false);
    assert!(
        !app.pull.job().unwrap().switch,
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
        app.pull.job().unwrap().switch,
        "the banner said the pull switches to it"
    );
}

/// #37 item 6: a failed pull left "Pulling NAME: Esc in its dialog cancels…" in the
/// transcript, reading as a pull still under way.
#[tokio::test]
async fn a_failed_pull_replaces_its_pulling_line() {
    let mut h = harness();
    let app = &mut h.app;
    type_text(app, "/pull smollm2:135m");
    key(app, KeyCode::Enter);
    let lines = |app: &App| -> Vec<String> {
        app.transcript
            .entries()
            .iter()
            .map(|e| e.text.clone())
            .collect()
    };
    assert!(
        lines(app)
            .iter()
            .any(|l| l.starts_with("Pulling smollm2:135m")),
        "{:?}",
        lines(app)
    );
    // The harness's server refuses connections: the pull fails.
    let reply = tokio::time::timeout(Duration::from_secs(10), app.replies.next())
        .await
        .unwrap()
        .unwrap();
    app.on_reply(reply);
    assert!(app.pull.job().is_none());
    let now = lines(app);
    assert!(!now.iter().any(|l| l.starts_with("Pulling")), "{now:?}");
    let failed: Vec<_> = app
        .transcript
        .entries()
        .iter()
        .filter(|e| e.text.starts_with("Cannot pull smollm2:135m"))
        .collect();
    assert_eq!(failed.len(), 1, "{now:?}");
    assert_eq!(
        failed[0].kind,
        EntryKind::Notice(crate::view::Severity::Warn)
    );
    assert!(
        app.banner
            .as_ref()
            .is_some_and(|b| b.title.starts_with("Cannot pull smollm2:135m")),
        "the banner says it with the fix"
    );
}

#[tokio::test]
async fn page_down_in_the_help_moves_a_page_of_the_screen() {
    // #37 item 5: PgDn moved 8 lines of a help 40 rows tall.
    let mut h = harness();
    let app = &mut h.app;
    app.screen_rows = 40;
    press(app, KeyCode::F(1), KeyModifiers::NONE);
    key(app, KeyCode::PageDown);
    assert!(
        matches!(
            app.overlay,
            Some(OverlayState::Help {
                scroll: 34,
                topic: None
            })
        ),
        "{:?}",
        app.overlay.as_ref().map(|_| ())
    );
    key(app, KeyCode::PageUp);
    assert!(matches!(
        app.overlay,
        Some(OverlayState::Help {
            scroll: 0,
            topic: None
        })
    ));
}

#[tokio::test]
async fn help_topic_opens_that_part_of_the_manual_in_the_helps_popup() {
    // #37 item 7: /help took no topic, and the README's long sections were nowhere in the app.
    let mut h = harness();
    let app = &mut h.app;
    app.screen_rows = 40;
    let topic = |app: &App| match &app.overlay {
        Some(OverlayState::Help { scroll, topic }) => Some((*scroll, topic.map(|t| t.name))),
        _ => None,
    };
    type_text(app, "/help tools");
    key(app, KeyCode::Enter);
    assert_eq!(topic(app), Some((0, Some("tools"))));
    assert_eq!(input(app), "", "the command left the box");
    // Scrolled and closed as the help is.
    key(app, KeyCode::PageDown);
    assert_eq!(topic(app), Some((34, Some("tools"))));
    key(app, KeyCode::Esc);
    assert_eq!(topic(app), None);
    // Forgiving as `ollm-tui help` is.
    type_text(app, "/help Comp");
    key(app, KeyCode::Enter);
    assert_eq!(topic(app), Some((0, Some("compression"))));
    key(app, KeyCode::Esc);
    // An unknown topic opens nothing and says which there are; the text stays to mend.
    type_text(app, "/help nope");
    key(app, KeyCode::Enter);
    assert_eq!(topic(app), None);
    assert_eq!(input(app), "/help nope");
    let note = app.input_note.clone().unwrap();
    assert!(note.contains("no manual topic \"nope\""), "{note}");
    for t in crate::manual::TOPICS {
        assert!(note.contains(t.name), "{note}");
    }
}

#[tokio::test]
async fn the_help_names_every_topic_of_the_manual() {
    let h = harness();
    let rows = &h.app.help_lines;
    assert!(rows.iter().any(|(k, _)| k == "/help [TOPIC]"), "{rows:#?}");
    for t in crate::manual::TOPICS {
        let command = format!("/help {}", t.name);
        assert!(rows.iter().any(|(k, _)| *k == command), "{command}");
    }
}

#[tokio::test]
async fn show_info_says_the_model_its_context_and_the_mode_as_ollama_run_does() {
    // #37 item 3: there was no /show.
    let mut h = harness();
    let app = &mut h.app;
    type_text(app, "/show info");
    key(app, KeyCode::Enter);
    let said = app
        .transcript
        .entries()
        .last()
        .map(|e| e.text.clone())
        .unwrap_or_default();
    assert!(said.contains("context: "), "{said}");
    assert!(said.contains("mode: "), "{said}");
    assert!(said.contains("tools: "), "{said}");
}

fn fact_rows() -> Vec<crate::core::engine::FactRow> {
    use crate::core::engine::{FactPlace, FactRow};
    let row = |key: &str, place, from| FactRow {
        key: key.into(),
        text: key.into(),
        from: Some(MessageId(from)),
        by_model: false,
        place,
        pinned: false,
        edited: false,
    };
    vec![
        row("The plumber is Branko.", FactPlace::NotSent, 3),
        row("Budget is 18,500 EUR.", FactPlace::Carried, 5),
        row("Flight FL-20931 on 4 May.", FactPlace::InView, 40),
    ]
}

#[tokio::test]
async fn the_fact_list_rewords_a_fact_in_the_box_and_says_when_a_row_is_not_there() {
    use crate::app::overlays::FactsAsk;
    let mut h = harness();
    let app = &mut h.app;
    app.on_reply(Reply::Facts {
        rows: fact_rows(),
        ask: FactsAsk::List,
    });
    assert!(matches!(
        &app.overlay,
        Some(OverlayState::Facts { rows, selected: 0 }) if rows.len() == 3
    ));
    // Its letters are its own: `e` rewords the selected fact in the message box.
    key(app, KeyCode::Down);
    key(app, KeyCode::Char('e'));
    assert!(app.overlay.is_none());
    assert_eq!(input(app), "/facts edit 2 Budget is 18,500 EUR.");
    // A fact in view is said by its message: not reworded here.
    type_text(app, "x");
    app.input = tui_textarea::TextArea::default();
    app.on_reply(Reply::Facts {
        rows: fact_rows(),
        ask: FactsAsk::Reword { row: 3 },
    });
    assert_eq!(input(app), "");
    assert!(last_line(app).contains("still sees"), "{}", last_line(app));
    // A draft in the box is never overwritten.
    type_text(app, "half a thought");
    app.on_reply(Reply::Facts {
        rows: fact_rows(),
        ask: FactsAsk::Reword { row: 1 },
    });
    assert_eq!(input(app), "half a thought");
    assert!(last_line(app).contains("draft"), "{}", last_line(app));
    // A row that is not there is named.
    app.on_reply(Reply::Facts {
        rows: fact_rows(),
        ask: FactsAsk::Edit {
            row: 9,
            edit: crate::core::ledger::FactEdit::Pin,
        },
    });
    assert!(last_line(app).contains("no fact 9"), "{}", last_line(app));
    // `p` over the list keeps it open (it refreshes when the engine has pinned it).
    app.on_reply(Reply::Facts {
        rows: fact_rows(),
        ask: FactsAsk::List,
    });
    key(app, KeyCode::Char('p'));
    assert!(matches!(app.overlay, Some(OverlayState::Facts { .. })));
    assert_eq!(input(app), "half a thought", "p was not typed");
}

fn last_line(app: &App) -> String {
    app.transcript.entries().last().unwrap().text.clone()
}

#[tokio::test]
async fn a_message_sent_during_a_check_goes_first_and_the_checks_answer_is_dropped() {
    let mut h = harness();
    let app = &mut h.app;
    type_text(app, "/check");
    key(app, KeyCode::Enter);
    assert!(app.checking);
    assert!(last_line(app).starts_with("Checking"), "{}", last_line(app));
    type_text(app, "Question 9");
    key(app, KeyCode::Enter);
    assert!(!app.checking);
    assert!(
        app.transcript
            .entries()
            .iter()
            .any(|e| e.text == crate::app::words::CHECK_STOPPED)
    );
    let shown = app.transcript.entries().len();
    app.on_reply(Reply::Checked(Err("late".into())));
    assert_eq!(
        app.transcript.entries().len(),
        shown,
        "a stopped check says nothing more"
    );
    // A check that ends is said, right or wrong.
    app.checking = true;
    app.on_reply(Reply::Checked(Err(
        "the Ollama server is not connected".into()
    )));
    assert!(
        last_line(app).contains("not connected"),
        "{}",
        last_line(app)
    );
}

/// `/theme` (#37 item 3): moving in the picker draws the screen in the selected theme,
/// Esc goes back to the one in use, Enter keeps the selected one and says how to make it
/// last; `/theme NAME` switches at once, a typo gets the closest name.
#[tokio::test]
async fn the_theme_picker_previews_esc_goes_back_and_enter_keeps() {
    use crate::app::themes::drawn;
    let mut h = harness();
    let app = &mut h.app;
    let drawn_name = |app: &App| drawn(&app.overlay, &app.opts.theme).name.clone();
    type_text(app, "/theme");
    key(app, KeyCode::Enter);
    assert!(matches!(app.overlay, Some(OverlayState::Themes(_))));
    assert_eq!(drawn_name(app), "dark", "opened on the theme in use");
    key(app, KeyCode::Down);
    assert_eq!(
        drawn_name(app),
        "light",
        "the preview follows the selection"
    );
    assert_eq!(app.opts.theme.name, "dark", "nothing kept yet");
    key(app, KeyCode::Down);
    assert_eq!(drawn_name(app), "high-contrast");
    key(app, KeyCode::Esc);
    assert!(app.overlay.is_none());
    assert_eq!(drawn_name(app), "dark", "Esc goes back");
    // Closed by typing, it goes back too (the character is typed).
    type_text(app, "/theme");
    key(app, KeyCode::Enter);
    key(app, KeyCode::Down);
    type_text(app, "x");
    assert_eq!(
        (drawn_name(app).as_str(), input(app).as_str()),
        ("dark", "x")
    );
    key(app, KeyCode::Backspace);

    type_text(app, "/theme");
    key(app, KeyCode::Enter);
    key(app, KeyCode::Down);
    key(app, KeyCode::Enter);
    assert!(app.overlay.is_none());
    assert_eq!(app.opts.theme.name, "light", "Enter keeps it");
    assert_eq!(
        app.theme().name,
        "light",
        "the next session of the run gets it"
    );
    assert_eq!(app.input_theme, app.opts.theme.fingerprint(), "the box too");
    let said = &app.transcript.entries().last().unwrap().text;
    assert!(
        said.contains("for this run") && said.contains("theme = \"light\" in config.toml"),
        "{said}"
    );

    type_text(app, "/theme high-contrast");
    key(app, KeyCode::Enter);
    assert_eq!(app.opts.theme.name, "high-contrast");
    type_text(app, "/theme drak");
    key(app, KeyCode::Enter);
    assert_eq!(app.opts.theme.name, "high-contrast", "unchanged");
    let note = app.input_note.clone().unwrap();
    assert!(note.contains("did you mean dark?"), "{note}");
}
