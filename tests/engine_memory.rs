//! What a long chat keeps, through the engine's public API (#28): passes far apart at every
//! context size (hysteresis), the person's facts kept once in the ledger whatever the
//! model says about them, and folded lines recalled from the log for a question about
//! them, inside their slot and the budget. No runtime, no I/O.
#![allow(clippy::unwrap_used)]

use ollm_tui::core::engine::{ChatPrompt, PromptRole};
use ollm_tui::core::events::EngineEvent;
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
