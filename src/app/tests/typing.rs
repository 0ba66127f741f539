//! Typing and sending: messages typed ahead, taken back, and pastes folded to markers.

use super::*;

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
    let sent = user_message_sent(&mut h).await;
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
async fn readline_keys_edit_the_box_and_ctrl_d_on_an_empty_one_quits() {
    // #37 item 3: Ctrl+K compressed and Ctrl+U undid where readline kills text, and
    // Ctrl+D on an empty box did nothing where `ollama run` and shells end.
    let ctrl = KeyModifiers::CONTROL;
    let mut h = harness();
    let app = &mut h.app;
    type_text(app, "keep this cut that");
    for _ in 0.."cut that".len() {
        key(app, KeyCode::Left);
    }
    press(app, KeyCode::Char('k'), ctrl);
    assert_eq!(input(app), "keep this ");
    assert!(app.overlay.is_none(), "no compression asked");
    press(app, KeyCode::Char('u'), ctrl);
    assert_eq!(input(app), "");
    press(app, KeyCode::Char('z'), ctrl);
    assert_eq!(input(app), "keep this ", "Ctrl+Z undoes");
    // Over text, Ctrl+D deletes the next character and the app stays.
    key(app, KeyCode::Home);
    press(app, KeyCode::Char('d'), ctrl);
    assert_eq!(input(app), "eep this ");
    assert!(!app.leaving.decided());
    press(app, KeyCode::Char('u'), ctrl);
    key(app, KeyCode::End);
    press(app, KeyCode::Char('k'), ctrl);
    press(app, KeyCode::Char('u'), ctrl);
    assert_eq!(input(app), "");
    press(app, KeyCode::Char('d'), ctrl);
    assert!(
        app.leaving.decided(),
        "nothing to lose: Ctrl+D on an empty box quits"
    );
}

/// #37 item 3: compress moved to F7, so Ctrl+K on an empty box kills (nothing) rather
/// than fold the context; a person who bound compress to Ctrl+K keeps it there.
#[tokio::test]
async fn ctrl_k_never_compresses_unless_the_person_bound_it() {
    let ctrl = KeyModifiers::CONTROL;
    let mut h = harness();
    press(&mut h.app, KeyCode::Char('k'), ctrl);
    assert_eq!(input(&h.app), "");
    // The actor takes commands in order: a compression asked by Ctrl+K would answer
    // before the message typed after it arrives.
    type_text(&mut h.app, "probe");
    key(&mut h.app, KeyCode::Enter);
    let before = updates_until(
        &mut h,
        |u| matches!(u, Update::Appended(e) if e.kind == EntryKind::User),
    )
    .await;
    assert!(!before.iter().any(asks_compression), "{before:?}");
    key(&mut h.app, KeyCode::F(7));
    updates_until(&mut h, asks_compression).await;

    let mut keys = BTreeMap::new();
    keys.insert("compress".to_string(), "ctrl+k".to_string());
    let mut h = harness_with(&keys);
    type_text(&mut h.app, "cut this");
    key(&mut h.app, KeyCode::Home);
    press(&mut h.app, KeyCode::Char('k'), ctrl);
    assert_eq!(input(&h.app), "", "over text their Ctrl+K still kills");
    press(&mut h.app, KeyCode::Char('k'), ctrl);
    updates_until(&mut h, asks_compression).await;
}

/// A manual compression's answer (an empty session has nothing to fold).
fn asks_compression(u: &Update) -> bool {
    use crate::core::events::EngineEvent;
    matches!(
        u,
        Update::Engine(EngineEvent::NotCompressed { .. } | EngineEvent::Compressed { .. })
    )
}

/// The actor's updates up to the first that `until` takes, that one last.
async fn updates_until(h: &mut Harness, until: impl Fn(&Update) -> bool) -> Vec<Update> {
    let mut seen = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match h._spawned.updates.recv().await {
                Some(u) => {
                    let done = until(&u);
                    seen.push(u);
                    if done {
                        break;
                    }
                }
                None => panic!("the actor stopped"),
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("not seen; the updates were {seen:?}"));
    seen
}

#[tokio::test]
async fn three_quotes_open_a_message_of_several_lines_as_in_ollama_run() {
    let mut h = harness();
    let app = &mut h.app;
    type_text(app, "\"\"\"");
    key(app, KeyCode::Enter);
    assert_eq!(input(app), "\"\"\"\n", "Enter is a new line, nothing sent");
    assert!(
        app.input_note
            .as_deref()
            .unwrap_or("")
            .contains("several lines")
    );
    type_text(app, "first line");
    key(app, KeyCode::Enter);
    type_text(app, "second line");
    key(app, KeyCode::Enter);
    assert_eq!(input(app), "\"\"\"\nfirst line\nsecond line\n");
    type_text(app, "\"\"\"");
    key(app, KeyCode::Enter);
    assert_eq!(input(app), "", "the closing quotes send");
    let sent = user_message_sent(&mut h).await;
    assert_eq!(sent, "first line\nsecond line");
}

/// The text of the next message of the person's that reaches the session.
async fn user_message_sent(h: &mut Harness) -> String {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match h._spawned.updates.recv().await {
                Some(Update::Appended(e)) if e.kind == EntryKind::User => break e.text,
                Some(_) => {}
                None => panic!("the actor stopped"),
            }
        }
    })
    .await
    .expect("the message reached the session")
}
