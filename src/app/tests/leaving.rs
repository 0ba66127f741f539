//! Leaving a session (quit, `/new`, Ctrl+N): asked first over whatever would be lost.

use super::*;

#[tokio::test]
async fn quitting_over_unsent_text_asks_first() {
    let mut h = harness();
    let app = &mut h.app;
    type_text(app, "half a thought");
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(!app.leaving.decided(), "the draft would be lost");
    assert!(app.input_note.as_deref().unwrap().contains("Ctrl+Q again"));
    // Typing on withdraws the question; the next Ctrl+Q asks again.
    type_text(app, "!");
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(!app.leaving.decided());
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(app.leaving.decided(), "asked twice: quit");
    assert_eq!(input(app), "half a thought!");

    let mut h = harness();
    press(&mut h.app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(h.app.leaving.decided(), "nothing to lose: quit at once");
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
    assert!(
        !app.leaving.decided(),
        "Ctrl+C stopped the call, it did not quit"
    );
}

#[tokio::test]
async fn quitting_while_records_wait_to_be_written_asks_first() {
    let mut h = harness();
    let app = &mut h.app;
    let mut v = (*app.session).clone();
    v.unwritten = 2;
    app.session = Arc::new(v);
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(!app.leaving.decided(), "the records would be lost");
    let note = app.input_note.clone().unwrap();
    assert!(
        note.contains("2 records not on disk") && note.contains("rescue file"),
        "{note}"
    );
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(
        app.leaving.decided(),
        "asked once: the second press quits (and rescues)"
    );
}

#[tokio::test]
async fn quitting_with_messages_queued_asks_first() {
    let mut h = harness();
    let app = &mut h.app;
    let mut v = (*app.session).clone();
    v.queued = vec!["typed ahead".into()];
    app.session = Arc::new(v);
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(!app.leaving.decided(), "the queued message would be lost");
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(app.leaving.decided());
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
    assert!(!app.leaving.decided(), "the queued message would be lost");
    assert!(app.input_note.as_deref().unwrap().contains("again quits"));
    // Asked once about the same queue: the second /quit quits.
    type_text(app, "/exit");
    key(app, KeyCode::Enter);
    assert!(app.leaving.decided(), "asked once: /quit again quits");

    let mut h = harness();
    let app = &mut h.app;
    let mut v = (*app.session).clone();
    v.unwritten = 3;
    app.session = Arc::new(v);
    type_text(app, "/q");
    key(app, KeyCode::Enter);
    assert!(!app.leaving.decided(), "the records would be lost");
    assert!(
        app.input_note
            .as_deref()
            .unwrap()
            .contains("3 records not on disk")
    );
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(
        app.leaving.decided(),
        "the key answers the question /quit asked"
    );

    let mut h = harness();
    type_text(&mut h.app, "/quit");
    key(&mut h.app, KeyCode::Enter);
    assert!(h.app.leaving.decided(), "nothing to lose: quit at once");
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
    assert!(!app.leaving.decided());
    press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert!(app.leaving.decided(), "both questions answered");
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
    assert!(!app.leaving.decided(), "the queued message would be lost");
    let note = app.input_note.clone().unwrap();
    assert!(note.contains("/new again"), "{note}");
    type_text(app, "/new llama3.2:1b");
    key(app, KeyCode::Enter);
    assert!(app.leaving.decided());
    assert_eq!(
        app.leaving.exit(),
        AppExit::New {
            model: Some("llama3.2:1b".into())
        }
    );

    let mut h = harness();
    type_text(&mut h.app, "/bye");
    key(&mut h.app, KeyCode::Enter);
    assert!(h.app.leaving.decided(), "nothing to lose: quit at once");
    assert_eq!(h.app.leaving.exit(), AppExit::Quit);
}

#[tokio::test]
async fn leaving_during_a_pull_asks_first() {
    for (typed, again) in [("/bye", "quits"), ("/new", "starts the new session")] {
        let mut h = harness();
        let app = &mut h.app;
        app.pull(Some("tinyllama:1.1b".into()), false);
        assert!(app.pull.job().is_some());
        app.overlay = None;
        type_text(app, typed);
        key(app, KeyCode::Enter);
        assert!(
            !app.leaving.decided(),
            "{typed}: the pull would stop unasked"
        );
        let note = app.input_note.clone().unwrap();
        assert!(
            note.contains("pulling tinyllama:1.1b") && note.contains(again),
            "{note}"
        );
        type_text(app, typed);
        key(app, KeyCode::Enter);
        assert!(app.leaving.decided(), "{typed} again leaves");
    }
}

/// Habits from oterm and `ollama run`: Ctrl+N starts a new session, `/load MODEL` switches.
#[tokio::test]
async fn ctrl_n_starts_a_new_session_and_load_switches_the_model() {
    use crate::app::AppExit;
    use crate::app::intent::Intent;
    let mut h = harness();
    press(&mut h.app, KeyCode::Char('n'), KeyModifiers::CONTROL);
    assert!(
        h.app.leaving.decided(),
        "nothing to lose: a new session at once"
    );
    assert_eq!(h.app.leaving.exit(), AppExit::New { model: None });
    assert!(matches!(
        crate::app::commands::parse("/load llama3.2:1b"),
        Some(Ok(Intent::Actor(crate::actor::Command::SetModel { name }))) if name == "llama3.2:1b"
    ));
}
