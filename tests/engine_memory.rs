//! What a long chat keeps, through the engine's public API (#28): passes far apart at every
//! context size (hysteresis), the person's facts kept once in the ledger whatever the
//! model says about them, and folded lines recalled from the log for a question about
//! them, inside their slot and the budget — by meaning too, with a toy embedding model's
//! vectors kept in the log. No runtime, no I/O.
#![allow(clippy::unwrap_used)]

use ollm_tui::core::engine::{ChatPrompt, Effect, Embedder, Input, PromptRole};
use ollm_tui::core::events::EngineEvent;
use ollm_tui::core::message::MessageId;
use ollm_tui::core::record::RecordBody;
use ollm_tui::core::summarizer::doubles::{Extractive, Scripted};
use ollm_tui::core::testing::Harness;
use ollm_tui::core::tokens::{Tiktoken, Tokenizer};
use std::sync::Arc;

fn tok() -> Arc<Tiktoken> {
    Arc::new(Tiktoken::new().unwrap())
}

/// A reply of about `tokens` tokens that talks around the question.
fn reply(tokens: usize) -> String {
    let sentence = "That is a sensible approach and it should work well for the team. ";
    sentence.repeat(tokens / 14 + 1)
}

/// The ledger lines of a request.
fn ledger_lines(p: &ChatPrompt) -> Vec<String> {
    p.messages
        .iter()
        .find_map(|m| m.content.split_once("Facts stated earlier"))
        .map(|(_, rest)| {
            rest.lines()
                .filter_map(|l| l.strip_prefix("- "))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_pass_leaves_several_turns_of_headroom_at_every_context_size() {
    // A turn takes a twelfth of the room at every size: a 2K context should behave as a
    // 32K one, only sooner. Before #28, at 2K the next turn crossed the trigger again and
    // a pass ran every turn or two.
    for ctx in [2048u32, 8192, 32768] {
        let mut h = Harness::new(ctx, tok(), Extractive::new());
        let room = h.engine.budget().room();
        let per_turn = (room / 12) as usize;
        let mut passes_at = Vec::new();
        for i in 0..80 {
            let user = format!("Question {i}: what about the next step?");
            let r = h.turn(&user, |_| reply(per_turn));
            assert!(r.blocked.is_none());
            if r.compressions > 0 {
                passes_at.push(i);
            }
        }
        assert!(passes_at.len() >= 3, "ctx {ctx}: {passes_at:?}");
        let gaps: Vec<usize> = passes_at.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(
            gaps.iter().all(|&g| g >= 4),
            "ctx {ctx}: passes at turns {passes_at:?}"
        );
    }
}

#[test]
fn the_persons_fact_is_kept_once_whatever_the_model_says_about_it() {
    // The model echoes the fact, restates it wrongly, and adds its own advice; the
    // summaries say nothing specific. The ledger holds the person's line once, the
    // wrong restatement never replaces it, and the model's own value is marked.
    let s = Scripted::new((0..200).map(|i| Ok(format!("- we talked it over, part {i}"))));
    let mut h = Harness::new(2048, tok(), s);
    h.turn(
        "Note 3: the billing-api listens on port 8081 and its config is /srv/billing/app.yaml.",
        |_| {
            "Got it: billing-api listens on port 8081 with its config at /srv/billing/app.yaml. \
             I think billing-api listens on port 8018 actually. \
             You could also give billing-api a 30 second timeout."
                .into()
        },
    );
    for i in 0..40 {
        h.turn(&format!("Tell me something about topic {i}."), |_| {
            reply(120)
        });
    }
    let lines = ledger_lines(&h.engine.prompt());
    let port: Vec<&String> = lines.iter().filter(|l| l.contains("8081")).collect();
    assert_eq!(port.len(), 1, "{lines:?}");
    assert!(port[0].contains("billing-api"), "{lines:?}");
    assert!(!port[0].starts_with("Note"), "compacted: {lines:?}");
    assert!(
        lines
            .iter()
            .all(|l| !l.contains("8018") || l.starts_with("(assistant)")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .filter(|l| l.contains("30 second"))
            .all(|l| l.starts_with("(assistant)")),
        "{lines:?}"
    );
}

#[test]
fn a_question_about_a_folded_fact_recalls_its_line_within_the_slot() {
    let mut h = Harness::new(2048, tok(), Extractive::new());
    h.turn(
        "Before I forget: the vault password rotates every 90 days and the vault lives on vault-7.internal.",
        |_| reply(60),
    );
    for i in 0..40 {
        h.turn(&format!("Tell me something about topic {i}."), |_| {
            reply(120)
        });
    }
    // Folded by now, and out of the ledger for this test's sake: only recall can bring
    // the sentence back whole.
    let folded = h
        .engine
        .checkpoints()
        .iter()
        .any(|c| c.covers.iter().any(|id| id.0 <= 2));
    assert!(folded);
    let r = h.turn("How often does the vault password rotate?", |p| {
        let recalled = p
            .messages
            .iter()
            .find(|m| m.role == PromptRole::System && m.content.starts_with("Quotes from earlier"))
            .expect("a recall slot");
        assert!(
            recalled.content.contains("every 90 days"),
            "{}",
            recalled.content
        );
        // The slot sits right before the question.
        let at = p.messages.iter().position(|m| m == recalled).unwrap();
        assert_eq!(p.messages[at + 1].role, PromptRole::User);
        "Every 90 days.".into()
    });
    let sent = &r.sent[0];
    let b = h.engine.budget();
    assert!(sent.estimate <= b.hard_limit());
    let slot = sent
        .messages
        .iter()
        .find(|m| m.content.starts_with("Quotes from earlier"))
        .unwrap();
    assert!(Tiktoken::new().unwrap().count(&slot.content) <= b.room() / 10);
    assert!(r.events.iter().any(|e| matches!(
        e,
        EngineEvent::Recalled { lines } if lines.iter().any(|l| l.text.contains("90 days") && l.user)
    )));
    // Small talk recalls nothing, and replay sends the same request.
    let r = h.turn("Thanks, that's all!", |p| {
        assert!(
            p.messages
                .iter()
                .all(|m| !m.content.starts_with("Quotes from earlier"))
        );
        "You're welcome.".into()
    });
    assert!(
        !r.events
            .iter()
            .any(|e| matches!(e, EngineEvent::Recalled { .. }))
    );
    let (re, _) = h.replayed();
    let q = "Where does the vault live?";
    assert_eq!(re.prompt_for(q).messages, h.engine.prompt_for(q).messages);
}

#[test]
fn recall_never_pushes_a_request_over_the_hard_limit() {
    // A context filled to just under the hard limit: a question whose folded answer is
    // long gets what fits, or nothing.
    let mut h = Harness::new(2048, tok(), Extractive::new());
    h.turn(
        &format!(
            "The deploy checklist for payments-gateway: {}",
            "check the payments-gateway dashboards, drain the payments-gateway queue, ".repeat(12)
        ),
        |_| reply(60),
    );
    for i in 0..30 {
        h.turn(&format!("Tell me something about topic {i}."), |_| {
            reply(150)
        });
    }
    for i in 0..6 {
        let r = h.turn(
            &format!("What was on the payments-gateway checklist? ({i})"),
            |_| reply(200),
        );
        let b = h.engine.budget();
        for p in &r.sent {
            assert!(
                p.estimate <= b.hard_limit(),
                "{} > {}",
                p.estimate,
                b.hard_limit()
            );
        }
    }
}

/// The quotes recalled for a question never bring back a value the person corrected: on
/// the real 0.5B model, "The code freeze starts on March 14th." recalled right before
/// "When does the code freeze start?" won over the correction to March 20th.
#[test]
fn recall_never_quotes_a_value_the_person_corrected() {
    let mut h = Harness::new(2048, tok(), Extractive::new());
    h.turn("The code freeze starts on March 14th.", |_| reply(60));
    for i in 0..4 {
        h.turn(&format!("Tell me something about topic {i}."), |_| {
            reply(150)
        });
    }
    h.turn("Scratch that, the code freeze moved to March 20th.", |_| {
        reply(60)
    });
    // Enough that both statements are folded (the person's messages go last).
    let correction = h
        .engine
        .history()
        .iter()
        .find(|m| m.text.starts_with("Scratch that"))
        .unwrap()
        .id;
    let mut i = 4;
    while !h
        .engine
        .checkpoints()
        .iter()
        .any(|c| c.covers.contains(&correction))
    {
        h.turn(&format!("Tell me something about topic {i}."), |_| {
            reply(150)
        });
        i += 1;
        assert!(i < 200, "never folded");
    }
    let p = h.engine.prompt_for("When does the code freeze start?");
    let slot = p
        .messages
        .iter()
        .find(|m| m.content.starts_with("Quotes from earlier"))
        .expect("a recall slot");
    assert!(slot.content.contains("March 20th"), "{}", slot.content);
    assert!(!slot.content.contains("March 14th"), "{}", slot.content);
}

// ----- #35: never lose to doing nothing -----

/// The person's messages of a request, in order.
fn user_messages(p: &ChatPrompt) -> Vec<&str> {
    p.messages
        .iter()
        .filter(|m| m.role == PromptRole::User)
        .map(|m| m.content.as_str())
        .collect()
}

#[test]
fn a_chat_that_fits_the_window_folds_nothing() {
    // Fourteen short turns and short replies: the whole chat fits a 2K window, as it does
    // for plain truncation. Folding any of it would lose to doing nothing.
    let mut h = Harness::new(2048, tok(), Extractive::new());
    let said: Vec<String> = (0..14)
        .map(|i| format!("Dinner note {i}: table for six at Casa Lúcio, seat {i} is Zoë's."))
        .collect();
    for text in &said {
        let r = h.turn(text, |_| "Noted, sounds lovely.".into());
        assert!(r.blocked.is_none());
    }
    assert_eq!(h.engine.compressions(), 0);
    let p = h.engine.prompt();
    assert_eq!(
        user_messages(&p),
        said.iter().map(String::as_str).collect::<Vec<_>>()
    );
}

#[test]
fn a_summary_that_drops_its_spans_facts_is_left_out_and_summaries_stop_after_two() {
    // The model's summaries say nothing specific (the seven wrong words the real 0.5B
    // model wrote): each fold keeps its facts in the ledger instead, and after two such
    // summaries none is asked again. The person says a lot, the model little, so their
    // messages are folded too.
    let s = Scripted::new(
        (0..50).map(|_| Ok("- X and her sister are discussing their trip".to_string())),
    );
    let mut h = Harness::new(2048, tok(), s);
    let mut k = 0;
    while h.engine.summary_verdicts().rejected < 2 && k < 200 {
        let text = format!(
            "Booking {k}: the room at Hotel Miramar is number {} and costs €{} a night. {}",
            100 + k,
            80 + k,
            "We will arrive late in the evening after the long drive down the coast. ".repeat(3)
        );
        h.turn(&text, |_| "Noted.".into());
        k += 1;
    }
    let v = h.engine.summary_verdicts();
    assert_eq!(v.rejected, 2, "after {k} turns: {v:?}");
    assert!(!h.engine.summaries_on());
    let asked = h.summarizer.requests().len();
    // No summary stands in for a fold's facts: the ledger has them.
    assert!(
        h.engine
            .checkpoints()
            .iter()
            .all(|c| !c.summary.contains("her sister"))
    );
    let lines = ledger_lines(&h.engine.prompt());
    assert!(
        lines
            .iter()
            .any(|l| l.contains("Miramar") && l.contains("€")),
        "{lines:?}"
    );
    let off: Vec<&EngineEvent> = h
        .events
        .iter()
        .filter(|e| matches!(e, EngineEvent::SummariesOff { .. }))
        .collect();
    assert_eq!(off.len(), 1, "said once");
    // From now on folds ask nothing of the model.
    let before = h.engine.compressions();
    for i in 0..60 {
        let text = format!(
            "Booking {}: room number {}. {}",
            k + i,
            300 + i,
            "We will arrive late in the evening after the long drive down the coast. ".repeat(3)
        );
        h.turn(&text, |_| "Noted.".into());
    }
    assert!(h.engine.compressions() >= before + 2);
    assert_eq!(h.summarizer.requests().len(), asked);
    // The log replays to the same verdicts.
    let (re, _) = h.replayed();
    assert_eq!(re.summary_verdicts(), h.engine.summary_verdicts());
    assert!(!re.summaries_on());
}

/// Everything a request carries, as one text.
fn all_text(p: &ChatPrompt) -> String {
    p.messages
        .iter()
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_model_line_enters_the_ledger_only_when_the_person_confirms_it() {
    let mut h = Harness::new(2048, tok(), Extractive::new());
    h.turn(
        "The team event is on 14 June at the Aurora room, 3rd floor.",
        |_| {
            "Great! The event is on 14 June in the Aurora room, and I've ordered a shuttle \
             from the airport every 25 minutes."
                .into()
        },
    );
    // The invention is not confirmed: the person moves on.
    h.turn("Also, lunch is at 12:30.", |_| {
        "Lunch at 12:30 it is. Shall I book the caterer for 40 people?".into()
    });
    // This one the person confirms.
    h.turn("yes, exactly", |_| "Done.".into());
    // Long talk after it, so that the replies above are folded.
    while h.engine.compressions() == 0 {
        h.turn("Anything else to plan for the day?", |_| reply(150));
    }
    let p = h.engine.prompt();
    let text = all_text(&p);
    assert!(
        text.contains("Aurora") && text.contains("14 June"),
        "{text}"
    );
    assert!(text.contains("12:30"), "{text}");
    assert!(
        !text.contains("25 minutes"),
        "an unconfirmed model line is still sent: {text}"
    );
    let lines = ledger_lines(&p);
    assert!(
        lines.iter().any(|l| l.contains("40 people")),
        "the confirmed model line is missing: {lines:?}"
    );
}

#[test]
fn recall_has_room_at_a_full_context() {
    // A statement with no hard value (the ledger does not keep it: a dislike, where an
    // allergy would be kept) is folded — the person
    // says a lot, so their messages are folded too — and later, with the context as full
    // as it gets before the next fold, a question about it is asked.
    let mut h = Harness::new(2048, tok(), Extractive::new());
    let long = "We spent the afternoon going through the seating and the music again. ".repeat(4);
    h.turn(
        &format!("My brother-in-law can't stand shellfish, so no paella for him. {long}"),
        |_| "Noted.".into(),
    );
    let folded =
        |h: &Harness<Extractive>| !all_text(&h.engine.prompt()).contains("stand shellfish");
    let mut guard = 0;
    while !folded(&h) && guard < 100 {
        h.turn(&format!("Another thing. {long}"), |_| "Noted.".into());
        guard += 1;
    }
    assert!(folded(&h), "the statement was never folded");
    // Up to the edge: one more turn would fold again.
    loop {
        let b = h.engine.budget();
        if b.recent + 200 > b.trigger {
            break;
        }
        let before = h.engine.compressions();
        h.turn("And then?", |_| reply(60));
        if h.engine.compressions() > before {
            break;
        }
    }
    let p = h
        .engine
        .prompt_for("Which food can my brother-in-law not stand?");
    assert!(!p.recalled.is_empty(), "no recall at a full context");
    assert!(
        p.recalled.iter().any(|l| l.text.contains("shellfish")),
        "{:?}",
        p.recalled
    );
    assert!(p.estimate <= h.engine.budget().hard_limit());
}

// ----- recall by meaning: vectors of the folded sentences -----

/// A toy embedding model: each word adds one to the meaning it belongs to, and every text
/// means a little of "anything else", so a text without a listed word points nowhere in
/// particular. What a real model learned, in miniature: "landlord" and "owns the flat"
/// mean the same thing, and share no word.
fn meaning(text: &str) -> Vec<f32> {
    const MEANINGS: &[&[&str]] = &[
        &[
            "landlord",
            "landlady",
            "owns",
            "owner",
            "flat",
            "apartment",
            "rent",
            "tenant",
        ],
        &["dentist", "tooth", "teeth", "appointment"],
        &["train", "station", "platform", "ticket"],
    ];
    let mut v = vec![0.0f32; MEANINGS.len() + 1];
    for w in text.to_lowercase().split(|c: char| !c.is_alphanumeric()) {
        if let Some(i) = MEANINGS.iter().position(|m| m.contains(&w)) {
            v[i] += 1.0;
        }
    }
    v[MEANINGS.len()] = 0.3;
    v
}

const LANDLORD: &str = "By the way, my landlord is Jürgen Müller and he lives on the ground floor.";
const WHO_OWNS: &str = "Who owns the apartment I rent?";

/// The fact said first, then enough talk about other things to fold it, with the toy model
/// as the session's embedding model when `vectors` (else none is installed).
fn landlord_chat(vectors: bool) -> Harness<Extractive> {
    let mut h = Harness::new(2048, tok(), Extractive::new());
    if vectors {
        h.embed = Some(meaning);
        h.apply(Input::Embedder(Embedder::Model("toy-embed".into())));
    }
    h.turn(LANDLORD, |_| reply(60));
    let fact = landlord_id(&h);
    let mut i = 0;
    while !h
        .engine
        .checkpoints()
        .iter()
        .any(|c| c.covers.contains(&fact))
    {
        h.turn(&format!("Tell me something about topic {i}."), |_| {
            reply(120)
        });
        i += 1;
        assert!(i < 100, "the fact was never folded");
    }
    h
}

/// The id of the person's message about their landlord.
fn landlord_id(h: &Harness<Extractive>) -> MessageId {
    h.engine
        .history()
        .iter()
        .find(|m| m.text == LANDLORD)
        .map(|m| m.id)
        .unwrap()
}

/// The recall slot of a request, if it has one.
fn recall_slot(p: &ChatPrompt) -> Option<&str> {
    p.messages
        .iter()
        .find(|m| m.role == PromptRole::System && m.content.starts_with("Quotes from earlier"))
        .map(|m| m.content.as_str())
}

#[test]
fn a_question_worded_unlike_a_folded_fact_finds_it_only_by_meaning() {
    // By words: nothing of the question is in the fact, so nothing is recalled.
    let mut words_only = landlord_chat(false);
    let r = words_only.turn(WHO_OWNS, |p| {
        assert!(
            recall_slot(p).is_none_or(|s| !s.contains("Müller")),
            "{:?}",
            recall_slot(p)
        );
        "I do not know.".into()
    });
    assert!(
        !r.events.iter().any(
            |e| matches!(e, EngineEvent::Recalled { lines } if lines.iter().any(|l| l.text.contains("Müller")))
        ),
        "{:?}",
        r.events
    );
    assert!(words_only.embedded_sentences.is_empty());
    assert!(words_only.embedded_queries.is_empty());

    // By meaning: the folded sentences got their vectors once, the question its own, and
    // the slot quotes the fact, the name as it was written.
    let mut h = landlord_chat(true);
    let sentences = h.embedded_sentences.clone();
    assert!(
        sentences.iter().any(|s| s.contains("Müller")),
        "{:?}",
        h.engine.recall_status()
    );
    let mut distinct = sentences.clone();
    distinct.sort();
    let repeated = sentences.len()
        - sentences
            .iter()
            .enumerate()
            .filter(|(i, s)| sentences[..*i].contains(s))
            .count();
    // Each folded message's sentences are asked for once (different messages may say
    // the same sentence: the filler replies do).
    let messages_asked: Vec<MessageId> = h
        .records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::SentenceVectors { model, messages } => {
                assert_eq!(model, "toy-embed");
                Some(messages.iter().map(|m| m.id).collect::<Vec<_>>())
            }
            _ => None,
        })
        .flatten()
        .collect();
    let mut unique = messages_asked.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        messages_asked.len(),
        "a message embedded twice"
    );
    assert!(repeated > 0 && distinct.len() == sentences.len());
    assert!(messages_asked.contains(&landlord_id(&h)));
    let status = h.engine.recall_status();
    assert_eq!(status.with_vectors, status.lines, "{status:?}");
    let queries_before = h.embedded_queries.len();
    let r = h.turn(WHO_OWNS, |p| {
        let slot = recall_slot(p).expect("a recall slot");
        assert!(slot.contains("Jürgen Müller"), "{slot}");
        "Jürgen Müller.".into()
    });
    assert_eq!(h.embedded_queries.len(), queries_before + 1);
    assert_eq!(
        h.embedded_queries.last().map(String::as_str),
        Some(WHO_OWNS)
    );
    assert!(r.events.iter().any(
        |e| matches!(e, EngineEvent::Recalled { lines } if lines.iter().any(|l| l.text.contains("Müller") && l.user))
    ));
    assert!(r.sent[0].estimate <= h.engine.budget().hard_limit());
    // Small talk asks for no vector and recalls nothing.
    let queries_before = h.embedded_queries.len();
    let r = h.turn("Thanks!", |p| {
        assert!(recall_slot(p).is_none());
        "You're welcome.".into()
    });
    assert_eq!(h.embedded_queries.len(), queries_before);
    assert!(r.sent.len() == 1);
}

#[test]
fn the_vectors_come_back_from_the_log_without_the_model() {
    let mut h = landlord_chat(true);
    h.turn(WHO_OWNS, |_| "Jürgen Müller.".into());
    let (re, report) = h.replayed();
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(re.sentence_vectors(), h.engine.sentence_vectors());
    assert!(!re.sentence_vectors().is_empty());
    // The same request by meaning, the fact in it.
    let q = "And who is the owner of my flat?";
    let v = meaning(q);
    let live = h.engine.prompt_for_with(q, Some(&v));
    let replayed = re.prompt_for_with(q, Some(&v));
    assert_eq!(live.messages, replayed.messages);
    assert!(recall_slot(&replayed).is_some_and(|s| s.contains("Müller")));
    // Told of the same model again (a resumed session connecting), it asks for nothing.
    let mut re = re;
    let fx = re.handle(
        Input::Embedder(Embedder::Model("toy-embed".into())),
        chrono::Utc::now(),
    );
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::EmbedSentences(_))),
        "{fx:?}"
    );
    assert_eq!(re.recall_status().with_vectors, re.recall_status().lines);
    // Another model's vectors are not comparable: everything is asked of it again.
    let fx = re.handle(
        Input::Embedder(Embedder::Model("other-embed".into())),
        chrono::Utc::now(),
    );
    assert!(
        fx.iter().any(|e| matches!(e, Effect::EmbedSentences(_))),
        "{fx:?}"
    );
}

#[test]
fn a_failing_embedding_model_leaves_recall_by_words_and_is_not_asked_every_turn() {
    let mut h = Harness::new(2048, tok(), Extractive::new());
    // A model is said to be there, but every embed request fails.
    h.apply(Input::Embedder(Embedder::Model("broken-embed".into())));
    h.turn(
        "Before I forget: the vault password rotates every 90 days.",
        |_| reply(60),
    );
    let mut asked_at_folds = Vec::new();
    for i in 0..40 {
        let before = h.embedded_sentences.len();
        let folds = h.engine.compressions();
        h.turn(&format!("Tell me something about topic {i}."), |_| {
            reply(120)
        });
        if h.embedded_sentences.len() > before {
            asked_at_folds.push(h.engine.compressions() > folds);
        }
    }
    // Asked again only when something new was folded.
    assert!(!asked_at_folds.is_empty());
    assert!(
        asked_at_folds.iter().all(|folded| *folded),
        "{asked_at_folds:?}"
    );
    let status = h.engine.recall_status();
    assert!(
        status.failed.is_some() && status.with_vectors == 0,
        "{status:?}"
    );
    // No vectors: no query is embedded, and recall by words still works.
    h.turn("How often does the vault password rotate?", |p| {
        assert!(recall_slot(p).is_some_and(|s| s.contains("every 90 days")));
        "Every 90 days.".into()
    });
    assert!(h.embedded_queries.is_empty());
    assert!(
        !h.records
            .iter()
            .any(|r| matches!(r.body, RecordBody::SentenceVectors { .. }))
    );
}

#[test]
fn the_person_sees_every_fact_and_pins_rewords_or_forgets_one_and_replay_keeps_it() {
    // #37 item 5: the ledger visible, with each fact's message and whether the next
    // request carries it, and the person's hand on it.
    use ollm_tui::core::engine::{FactPlace, Request};
    use ollm_tui::core::ledger::FactEdit;
    use ollm_tui::core::testing::locker_code;
    let mut h = Harness::new(2048, tok(), Extractive::new());
    h.state_locker_codes(120);
    let rows = h.engine.fact_rows();
    let place = |p: FactPlace| rows.iter().filter(|r| r.place == p).count();
    assert!(
        place(FactPlace::NotSent) > 0,
        "a 2K ledger cannot carry 120 codes"
    );
    assert!(place(FactPlace::Carried) > 0 && place(FactPlace::InView) > 0);
    assert_eq!(
        place(FactPlace::NotSent),
        h.engine.facts_missing().len(),
        "the list and the badge count the same"
    );
    // Each fact names the message it was said in.
    for r in &rows {
        let said = h.engine.history().get(r.from.unwrap()).unwrap();
        assert!(said.text.contains(&r.key), "{r:?} from {said:?}");
    }
    let request = |h: &Harness<Extractive>| ledger_lines(&h.engine.prompt()).join("\n");
    let code = |r: &ollm_tui::core::engine::FactRow| {
        (0..120)
            .map(locker_code)
            .find(|c| r.key.contains(&c.to_string()))
            .unwrap()
    };
    let missing = rows.iter().find(|r| r.place == FactPlace::NotSent).unwrap();
    let carried = rows.iter().find(|r| r.place == FactPlace::Carried).unwrap();
    assert!(!request(&h).contains(&code(missing).to_string()));
    assert!(request(&h).contains(&code(carried).to_string()));

    // Pinned, a fact left out comes back; forgotten, a carried one leaves.
    h.apply(Request::Fact {
        fact: missing.key.clone(),
        edit: FactEdit::Pin,
    });
    h.apply(Request::Fact {
        fact: carried.key.clone(),
        edit: FactEdit::Forget,
    });
    assert!(request(&h).contains(&code(missing).to_string()));
    assert!(!request(&h).contains(&code(carried).to_string()));
    // Reworded, it is sent in the person's words.
    let reworded = h
        .engine
        .fact_rows()
        .into_iter()
        .find(|r| r.place == FactPlace::Carried && r.key != missing.key)
        .unwrap();
    h.apply(Request::Fact {
        fact: reworded.key.clone(),
        edit: FactEdit::Replace {
            text: "The locker code for the gym is 777123.".into(),
        },
    });
    assert!(request(&h).contains("777123"), "{}", request(&h));
    assert!(!request(&h).contains(&code(&reworded).to_string()));
    let after = h.engine.fact_rows();
    let row = |key: &str| after.iter().find(|r| r.key == key).unwrap().clone();
    assert!(row(&missing.key).pinned && row(&missing.key).place == FactPlace::Carried);
    assert_eq!(row(&carried.key).place, FactPlace::Forgotten);
    assert!(row(&reworded.key).edited);

    // A fact in view is said by its message: it can be pinned, not changed.
    let in_view = after.iter().find(|r| r.place == FactPlace::InView).unwrap();
    let records = h.records.len();
    let events = h.apply(Request::Fact {
        fact: in_view.key.clone(),
        edit: FactEdit::Forget,
    });
    assert!(
        events
            .iter()
            .any(|e| matches!(e, EngineEvent::Refused { .. })),
        "{events:?}"
    );
    assert_eq!(h.records.len(), records, "a refused edit writes nothing");

    // Replay rebuilds the same list and the same request.
    let (replayed, _) = h.replayed();
    assert_eq!(replayed.fact_rows(), h.engine.fact_rows());
    assert_eq!(
        ledger_lines(&replayed.prompt()),
        ledger_lines(&h.engine.prompt())
    );
    // Taken back, the forgotten fact stands again (sent if the ledger has room).
    h.apply(Request::Fact {
        fact: carried.key.clone(),
        edit: FactEdit::Keep,
    });
    let kept = h.engine.fact_rows();
    let back = kept.iter().find(|r| r.key == carried.key).unwrap();
    assert_ne!(back.place, FactPlace::Forgotten);
    assert_eq!(
        back.place == FactPlace::Carried,
        request(&h).contains(&code(carried).to_string())
    );
}
