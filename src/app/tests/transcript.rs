//! The transcript as updates arrive: folded messages, merged checkpoints, resumed notices.

use super::*;

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
        kinds[1].starts_with("notice: Of the messages in checkpoint 1, 2 are yours (your oldest)"),
        "{kinds:?}"
    );
    assert_eq!(kinds[2], "m2");
    assert_eq!(kinds[3], "m3");
    assert!(kinds[4].contains("checkpoint 2"), "{kinds:?}");
}
