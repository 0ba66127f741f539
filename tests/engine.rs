//! The context engine through its public API: turns, compression, aging, protection,
//! validation, emergencies, snapshots and replay. No runtime, no I/O.
#![allow(clippy::unwrap_used)]

use ollm_tui::core::budget::{MIN_RESERVE_TOKENS, reserve_for};
use ollm_tui::core::checkpoint::Level;
use ollm_tui::core::compress::pipeline::limit_for;
use ollm_tui::core::engine::ToolAnswer;
use ollm_tui::core::engine::{
    ChatPrompt, Effect, EngineConfig, EngineError, Input, PromptRole, ReplyInput, Request,
    ToolOffer, max_reply,
};
use ollm_tui::core::events::{CompressReason, EngineEvent, Intensity, SkipReason};
use ollm_tui::core::goals::{GoalChange, GoalError, Priority};
use ollm_tui::core::message::{MessageId, ReplyStatus, Role, ToolCall};
use ollm_tui::core::mode::Mode;
use ollm_tui::core::record::{RecordBody, SnapshotPurpose};
use ollm_tui::core::snapshot::Snapshot;
use ollm_tui::core::summarizer::doubles::{Extractive, Failing, Scripted};
use ollm_tui::core::testing::{Harness, futures_lite_block_on};
use ollm_tui::core::tokens::{ByteEstimate, Tiktoken};
use std::collections::BTreeSet;
use std::sync::Arc;

fn tok() -> Arc<ByteEstimate> {
    Arc::new(ByteEstimate)
}

fn reply_of(n: usize) -> impl Fn(&ollm_tui::core::engine::ChatPrompt) -> String {
    move |_| {
        format!(
            "Here is a detailed answer number {n}. We should edit src/module_{n}.rs and set the timeout to {}ms. {}",
            1000 + n,
            "More explanation follows with several sentences of ordinary prose. ".repeat(4)
        )
    }
}

/// The one request among `fx`, unanswered.
fn chat_request(fx: Vec<Effect>) -> ChatPrompt {
    match fx.as_slice() {
        [Effect::Chat(p)] => p.clone(),
        other => panic!("expected one chat request: {other:?}"),
    }
}

/// The refusal among `events`, if an input was refused.
fn refusal(events: &[EngineEvent]) -> Option<&EngineError> {
    events.iter().find_map(|e| match e {
        EngineEvent::Refused { error } => Some(error),
        _ => None,
    })
}

/// The snapshot the engine asks to save for a compression or an emergency, as the
/// person's Ctrl+S would take it now (the state only; the test keeps it).
fn snapshot_now<S: ollm_tui::core::summarizer::Summarizer>(h: &mut Harness<S>) -> Snapshot {
    h.snapshot()
}

fn chat<S: ollm_tui::core::summarizer::Summarizer>(h: &mut Harness<S>, turns: usize) {
    for i in 0..turns {
        let r = h.turn(
            &format!("Question {i}: how do we handle case {i}?"),
            reply_of(i),
        );
        assert!(r.blocked.is_none(), "turn {i} blocked: {:?}", r.blocked);
    }
}

/// A harness whose reply reserve is fixed at max(1024, 10 %) as it used to be, for tests
/// of the emergency measures that are built around that budget, not around reply lengths.
fn fixed_reserve<S: ollm_tui::core::summarizer::Summarizer>(
    ctx: u32,
    tok: Arc<ByteEstimate>,
    summarizer: S,
) -> Harness<S> {
    let mut cfg = EngineConfig::default();
    cfg.budget.reserve_tokens = Some(1024.max(ctx / 10).min(ctx / 2));
    Harness::with_config(ctx, cfg, tok, summarizer)
}

/// [`fixed_reserve`] with tool results entering whole (`results = "whole"`): the
/// emergency paths must cope with a result larger than its share of the context.
fn whole_results<S: ollm_tui::core::summarizer::Summarizer>(ctx: u32, summarizer: S) -> Harness<S> {
    let mut cfg = EngineConfig::default();
    cfg.budget.reserve_tokens = Some(1024.max(ctx / 10).min(ctx / 2));
    cfg.whole_results = true;
    Harness::with_config(ctx, cfg, tok(), summarizer)
}

fn pin(id: MessageId) -> Request {
    Request::Pin {
        id: Some(id),
        pinned: true,
    }
}

/// Record a tool result; its message id.
fn tool_result<S: ollm_tui::core::summarizer::Summarizer>(
    h: &mut Harness<S>,
    name: &str,
    args: &str,
    result: &str,
    is_error: bool,
) -> MessageId {
    let fx = h.engine.handle(
        Input::ToolResult(ToolAnswer {
            call: ToolCall {
                id: String::new(),
                name: name.into(),
                args: args.into(),
                from_text: false,
            },
            result: result.into(),
            is_error,
            digest: None,
            ms: None,
        }),
        h.clock.tick(),
    );
    let id = MessageId(fx.iter().find_map(|e| e.record()).unwrap().seq);
    h.absorb(fx);
    id
}

/// Every id of the conversation is active or covered by exactly one checkpoint.
fn assert_coverage<S>(h: &Harness<S>) {
    let e = &h.engine;
    let mut seen = BTreeSet::new();
    for cp in e.checkpoints() {
        for id in &cp.covers {
            assert!(seen.insert(*id), "{id} covered twice");
        }
    }
    for m in e.active().messages() {
        assert!(seen.insert(m.id), "{} both active and covered", m.id);
    }
    for m in e.history().iter() {
        assert!(seen.contains(&m.id), "{} lost", m.id);
    }
}

#[test]
fn a_turn_records_the_user_message_first_and_sends_it() {
    let mut h = Harness::new(8192, tok(), Extractive::new());
    let r = h.turn("Hello there", |_| "General Kenobi".into());
    assert_eq!(r.sent.len(), 1);
    let p = &r.sent[0];
    assert_eq!(p.num_ctx, 8192);
    assert_eq!(p.messages[0].role, PromptRole::System);
    assert_eq!(p.messages.last().unwrap().content, "Hello there");
    // Records: the user message, then the assistant's.
    assert!(
        matches!(h.records[0].body, RecordBody::User { ref text, .. } if text == "Hello there")
    );
    assert!(matches!(
        h.records[1].body,
        RecordBody::Assistant { ref text, status: ReplyStatus::Complete, .. } if text == "General Kenobi"
    ));
    assert_eq!(h.records[0].seq, 1);
    assert_eq!(h.records[1].seq, 2);
    assert_eq!(h.engine.history().len(), 2);
}

#[test]
fn calibration_learns_from_prompt_eval_count() {
    let mut h = Harness::new(8192, tok(), Extractive::new());
    h.turn_with(&"x".repeat(2000), &|p| {
        ("ok".into(), Some(p.raw_estimate * 13 / 10))
    });
    let cal = h.engine.calibration();
    assert!((cal.factor - 1.3).abs() < 0.01, "{cal:?}");
    assert_eq!(cal.samples, 1);
    // The gauge now shows what the model sees.
    let prompt = h.engine.prompt();
    assert_eq!(
        prompt.estimate,
        (f64::from(prompt.raw_estimate) * cal.factor).ceil() as u32
    );
}

#[test]
fn compression_happens_before_a_request_passes_the_trigger() {
    let mut h = Harness::new(2048, tok(), Extractive::new());
    for i in 0..60 {
        let r = h.turn(&format!("Question {i}"), reply_of(i));
        for p in &r.sent {
            let b = h.engine.budget();
            assert!(p.estimate <= b.hard_limit());
        }
        // After any turn the recent part may exceed the trigger only by the last exchange.
    }
    assert!(
        h.engine.compressions() >= 5,
        "only {} compressions",
        h.engine.compressions()
    );
    assert_coverage(&h);
    let names: Vec<&str> = h.events.iter().map(|e| e.name()).collect();
    assert!(names.contains(&"compressed"));
    assert!(names.contains(&"checkpoint-created"));
    // Sixty turns make more checkpoints than are kept apart: the oldest are merged.
    assert!(names.contains(&"checkpoints-merged"));
    assert!(h.engine.checkpoints().len() <= ollm_tui::core::budget::MAX_CHECKPOINTS);
    assert!(names.contains(&"auto-snapshot-created"));
}

#[test]
fn checkpoints_age_level_by_level_and_ancient_ones_merge() {
    let mut h = Harness::new(2048, tok(), Extractive::new());
    chat(&mut h, 120);
    let cps = h.engine.checkpoints();
    let levels: Vec<Level> = cps.iter().map(|c| c.level).collect();
    // Oldest first: at most two ancients, then compact, moderate, detailed.
    assert!(levels.len() <= 5, "{levels:?}");
    assert_eq!(*levels.last().unwrap(), Level::Detailed, "{levels:?}");
    assert!(levels.windows(2).all(|w| w[0] <= w[1]), "{levels:?}");
    assert!(levels.iter().filter(|l| **l == Level::Ancient).count() <= 2);
    let b = h.engine.budget();
    assert!(
        b.checkpoints <= b.checkpoint_bound() + 40,
        "{} > {}",
        b.checkpoints,
        b.checkpoint_bound()
    );
    assert!(
        h.events
            .iter()
            .any(|e| matches!(e, EngineEvent::CheckpointsMerged { .. }))
    );
    assert_coverage(&h);
}

#[test]
fn a_summary_is_asked_from_the_original_messages_and_never_from_a_summary() {
    let s = Scripted::new((0..200).map(|i| Ok(format!("summary text {i} src/x.rs"))));
    let mut h = Harness::new(2048, tok(), s);
    // A distinctive phrase in an early reply.
    h.turn("first question", |_| {
        format!(
            "The secret word is PAPAYA-7. {}",
            "Filler sentence for length. ".repeat(30)
        )
    });
    chat(&mut h, 40);
    let reqs = h.summarizer.requests();
    assert!(
        reqs.iter().any(|r| r.user.contains("PAPAYA-7")),
        "the first fold's summary never saw the original text"
    );
    assert!(
        reqs.iter().all(|r| !r.user.contains("summary text")),
        "a summary was summarized"
    );
}

#[test]
fn summary_requests_carry_a_cap_and_a_mode_and_goal_aware_prompt() {
    let s = Scripted::new((0..100).map(|i| Ok(format!("compact summary {i}"))));
    let mut h = Harness::new(2048, tok(), s);
    h.apply(Request::SetMode {
        mode: Mode::Developer,
    });
    let events = h.apply(Request::Goal {
        change: GoalChange::SetGoal {
            description: "Ship the parser".into(),
            priority: Priority::High,
        },
    });
    assert!(refusal(&events).is_none());
    chat(&mut h, 20);
    let reqs = h.summarizer.requests();
    assert!(!reqs.is_empty());
    let b = h.engine.budget();
    for r in &reqs {
        assert!(r.num_predict > 0 && r.num_predict <= b.level_cap(Level::Detailed));
        assert!(
            r.system.contains("never refuse"),
            "job stated in the system message"
        );
        assert!(
            r.system.contains("file paths"),
            "developer mode focus: {}",
            r.system
        );
    }
    assert!(reqs[0].user.contains("Ship the parser"), "goal-aware");
}

#[test]
fn manual_compression_with_focus() {
    let s = Scripted::new((0..10).map(|_| Ok("short".into())));
    let mut h = Harness::new(8192, tok(), s);
    chat(&mut h, 30);
    let rep = h.compress_now(Some("the database schema".into()));
    assert_eq!(rep.compressions, 1);
    let reqs = h.summarizer.requests();
    assert!(
        reqs[0]
            .user
            .contains("Pay special attention to: the database schema")
    );
    assert_eq!(h.engine.compressions(), 1);
}

#[test]
fn pinned_messages_tool_errors_and_the_last_exchange_are_never_folded() {
    let mut h = Harness::new(2048, tok(), Extractive::new());
    h.turn("remember this", |_| {
        format!("PINNED-FACT: the key is 0xDEADBEEF. {}", "pad ".repeat(100))
    });
    let pinned_id = h.engine.last_active(Role::Assistant).unwrap();
    assert!(refusal(&h.apply(pin(pinned_id))).is_none());
    let err_id = tool_result(
        &mut h,
        "read_file",
        "{\"path\":\"x\"}",
        "ERROR: permission denied on /etc/shadow",
        true,
    );
    chat(&mut h, 50);
    assert!(h.engine.compressions() >= 3);
    for cp in h.engine.checkpoints() {
        assert!(!cp.covers.contains(&pinned_id));
        assert!(!cp.covers.contains(&err_id));
    }
    let prompt = h.engine.prompt();
    let all: String = prompt.messages.iter().map(|m| m.content.clone()).collect();
    assert!(all.contains("PINNED-FACT: the key is 0xDEADBEEF."));
    assert!(all.contains("ERROR: permission denied on /etc/shadow"));
    // The last exchange is verbatim at the end.
    let n = prompt.messages.len();
    assert!(prompt.messages[n - 2].content.starts_with("Question 49"));
    assert_coverage(&h);
}

#[test]
fn file_and_command_tools_wait_until_the_chat_turns_to_the_workspace() {
    // Offered them, the real 0.5B model answered "dinner at mine on saturday" with a call
    // to read path/to/dinner.txt, five times out of five; not offered them, in words.
    let offers = || -> Vec<ToolOffer> {
        ollm_tui::tools::builtin_specs()
            .into_iter()
            .map(|s| ToolOffer {
                name: s.name,
                schema: s.schema.to_string(),
                need: s.need,
            })
            .collect()
    };
    let mut h = Harness::new(4096, tok(), Extractive::new());
    h.apply(Input::ToolsAvailable(offers()));
    let r = h.turn("dinner at mine on saturday, 6 of us", |_| "Lovely.".into());
    assert_eq!(r.sent[0].tools, Vec::<String>::new());
    assert!(
        h.engine
            .tools_offered()
            .waiting
            .iter()
            .any(|t| t == "read_file")
    );
    let r = h.turn("can you check notes/menu.md for the wine?", |_| {
        "Sure.".into()
    });
    assert!(
        r.sent[0].tools.iter().any(|t| t == "read_file"),
        "{:?}",
        r.sent[0].tools
    );
    // From then on, and after a restart (the log says so).
    let r = h.turn("thanks! and dessert?", |_| "Tiramisu.".into());
    assert!(r.sent[0].tools.iter().any(|t| t == "edit_file"));
    let (mut replayed, _) = h.replayed();
    replayed.handle(Input::ToolsAvailable(offers()), h.clock.tick());
    assert!(
        replayed
            .tools_offered()
            .offered
            .iter()
            .any(|t| t == "run_command")
    );
    assert!(replayed.tools_offered().waiting.is_empty());

    // The developer mode offers them from the first message.
    let mut dev = Harness::new(4096, tok(), Extractive::new());
    dev.apply(Request::SetMode {
        mode: Mode::Developer,
    });
    dev.apply(Input::ToolsAvailable(offers()));
    let r = dev.turn("hi there", |_| "Hello.".into());
    assert!(r.sent[0].tools.iter().any(|t| t == "read_file"));
}

#[test]
fn a_kept_tool_error_keeps_the_call_that_made_it() {
    // On the real 0.5B model the call was folded and its error kept: every later request
    // held "cannot open D:\\path\\to\\your\\file.txt" answering nothing, and the model
    // called for that file again turn after turn. A kept error keeps its call.
    let mut h = Harness::new(2048, tok(), Extractive::new());
    h.scripted_calls.push_back(vec![ToolCall {
        id: String::new(),
        name: "read_file".into(),
        args: "{\"path\":\"D:/path/to/your/file.txt\"}".into(),
        from_text: false,
    }]);
    h.tool_output = |call| (format!("Error: cannot open {}", call.args), true);
    h.turn("dinner at mine on saturday, 6 of us", |_| "Noted.".into());
    let call_id = h
        .engine
        .history()
        .iter()
        .find(|m| !m.calls.is_empty())
        .map(|m| m.id)
        .expect("the call is in the log");
    chat(&mut h, 40);
    assert!(h.engine.compressions() >= 2);
    for cp in h.engine.checkpoints() {
        assert!(!cp.covers.contains(&call_id), "the call was folded");
    }
    let prompt = h.engine.prompt();
    let at = |pred: &dyn Fn(&ollm_tui::core::engine::PromptMessage) -> bool| {
        prompt.messages.iter().position(pred)
    };
    let call = at(&|m| m.tool_calls.iter().any(|c| c.name == "read_file")).expect("call sent");
    let error = at(&|m| m.content.starts_with("Error: cannot open")).expect("error sent");
    assert_eq!(
        error,
        call + 1,
        "the error answers the call right before it"
    );
    assert_coverage(&h);
}

#[test]
fn refused_tool_calls_that_fill_the_window_are_folded_in_an_emergency() {
    // #36 item 8: a model that repeats refused calls filled the window past 100 % with
    // errors nothing could fold (they stood inside the last exchange, and errors were
    // never folded), and a plain message was never sent. Errors stay in view until an
    // emergency; then the tool traffic of the last exchange folds like any message (the
    // person's message and the final reply stay; the log keeps everything).
    // As measured: replies of 40, 100, 100 and 100 calls, every one refused.
    let mut h = Harness::new(8192, tok(), Extractive::new());
    let call = |i: usize| ToolCall {
        id: String::new(),
        name: "read_file".into(),
        args: format!("{{\"path\":\"notes/{i}.md\"}}"),
        from_text: false,
    };
    h.tool_output = |call| {
        (
            format!(
                "Not run: the user refused this call: {} {}. Ask first.",
                call.name, call.args
            ),
            true,
        )
    };
    let mut n = 0;
    for (turn, calls) in [40, 100, 100, 100].into_iter().enumerate() {
        h.scripted_calls
            .push_back((n..n + calls).map(call).collect());
        n += calls;
        // Every turn is sent or explained.
        h.turn(&format!("read my notes please ({turn})"), |_| {
            "I could not read them.".into()
        });
    }
    assert_eq!(h.tools_run.len(), 340);
    let errors: Vec<MessageId> = h
        .engine
        .history()
        .iter()
        .filter(|m| m.is_tool_error())
        .map(|m| m.id)
        .collect();
    assert_eq!(errors.len(), 340);
    let r = h.turn("never mind, what is 2 + 2?", |_| "4.".into());
    assert!(r.blocked.is_none(), "blocked: {:?}", r.blocked);
    let sent = r.sent.last().expect("a request");
    assert!(
        sent.messages
            .iter()
            .any(|m| m.content.contains("what is 2 + 2")),
        "the message is sent"
    );
    let folded = errors
        .iter()
        .filter(|id| {
            h.engine
                .checkpoints()
                .iter()
                .any(|cp| cp.covers.contains(id))
        })
        .count();
    assert!(folded > 100, "{folded} of 340 errors folded");
    assert_coverage(&h);
}

#[test]
fn user_messages_stay_verbatim_until_user_text_alone_overflows() {
    let mut h = Harness::new(4096, tok(), Extractive::new());
    chat(&mut h, 42);
    // Short user messages: none folded yet.
    assert!(h.engine.compressions() >= 1);
    for cp in h.engine.checkpoints() {
        for id in &cp.covers {
            assert_ne!(h.engine.history().get(*id).unwrap().role, Role::User);
        }
    }
    // Now long user messages, short replies: user text alone overflows.
    for i in 0..40 {
        let q = format!("Long question {i}: {}", "detail ".repeat(120));
        let r = h.turn(&q, |_| "ok".into());
        assert!(r.blocked.is_none());
    }
    let folded_users = h
        .events
        .iter()
        .any(|e| matches!(e, EngineEvent::UserMessagesFolded { .. }));
    assert!(folded_users, "the UI is told when user messages are folded");
    assert_coverage(&h);
}

#[test]
fn a_failed_summary_loses_nothing_and_the_request_still_fits() {
    let mut h = Harness::new(2048, tok(), Failing);
    for i in 0..40 {
        let r = h.turn(&format!("Question {i}"), reply_of(i));
        assert!(r.blocked.is_none(), "{:?}", r.blocked);
    }
    // Folds ask no model: a summarizer that fails costs nothing but the summaries asked
    // between turns, and no emergency is needed.
    assert!(h.engine.compressions() >= 2);
    let names: Vec<&str> = h.events.iter().map(|e| e.name()).collect();
    assert!(!names.contains(&"rollover-complete"), "{names:?}");
    assert!(h.engine.checkpoints().iter().all(|c| !c.truncated));
    // History holds every message, in full.
    assert_eq!(h.engine.history().len(), 80);
    assert_coverage(&h);
}

#[test]
fn compression_that_frees_too_little_backs_off_instead_of_looping() {
    // Pinned replies take ~80% of the room, so once small turns reach the trigger a pass
    // can fold only a little. Automatic compression must then pause, not run every turn,
    // and say why once.
    let mut h = Harness::new(4096, tok(), Extractive::new());
    for i in 0..7 {
        h.turn(&format!("q{i}"), |_| {
            format!("BIG {}", "pinned content ".repeat(105))
        });
        let id = h.engine.last_active(Role::Assistant).unwrap();
        assert!(refusal(&h.apply(pin(id))).is_none());
    }
    let mut per_turn = Vec::new();
    for i in 0..150 {
        let r = h.turn(&format!("small {i}"), |_| {
            "a short reply of a few words".into()
        });
        assert!(r.blocked.is_none());
        per_turn.push(r.compressions);
    }
    assert!(per_turn.iter().all(|&c| c <= 1), "{per_turn:?}");
    let compressions: usize = per_turn.iter().sum();
    assert!(compressions >= 1, "{per_turn:?}");
    let backoffs = h
        .events
        .iter()
        .filter(|e| {
            matches!(
                e,
                EngineEvent::CompressionSkipped {
                    reason: SkipReason::BackedOff { .. }
                }
            )
        })
        .count();
    assert!(backoffs >= 1, "back-off reported: {per_turn:?}");
    // Skips are reported once per situation, not every turn.
    let skips = h
        .events
        .iter()
        .filter(|e| matches!(e, EngineEvent::CompressionSkipped { .. }))
        .count();
    assert!(
        skips <= compressions + 2,
        "{skips} skip notices for {compressions} compressions"
    );
    // Between compressions the conversation grew by a real amount.
    let gaps: Vec<usize> = per_turn
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(i, _)| i)
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| w[1] - w[0])
        .collect();
    assert!(
        gaps.iter().all(|&g| g >= 3),
        "compressions too close together: {gaps:?}"
    );
}

#[test]
fn a_giant_paste_is_clipped_for_the_model_and_kept_whole_in_history() {
    let mut h = Harness::new(2048, tok(), Extractive::new());
    chat(&mut h, 3);
    let paste = format!("BEGIN {} END", "lorem ipsum dolor sit amet ".repeat(2000));
    let r = h.turn(&paste, |_| "That is a lot of text.".into());
    assert!(r.blocked.is_none(), "{:?}", r.blocked);
    let names: Vec<&str> = r.events.iter().map(|e| e.name()).collect();
    assert!(names.contains(&"message-clipped"), "{names:?}");
    // A message larger than the whole room is clipped first: folding history before
    // that would cost a summary pass and free nothing that helps.
    let clipped_at = names.iter().position(|n| *n == "message-clipped");
    let compressed_at = names.iter().position(|n| *n == "compressed");
    assert!(
        compressed_at.is_none_or(|c| clipped_at < Some(c)),
        "{names:?}"
    );
    let sent = r.sent.last().unwrap();
    let last_user = sent
        .messages
        .iter()
        .rev()
        .find(|m| m.role == PromptRole::User)
        .unwrap();
    assert!(last_user.content.starts_with("BEGIN"));
    assert!(last_user.content.ends_with("END"));
    assert!(last_user.content.contains("tokens cut here"));
    // History and the log keep it whole.
    assert!(h.engine.history().iter().any(|m| m.text == paste));
    assert!(
        h.records
            .iter()
            .any(|r| matches!(&r.body, RecordBody::User { text, .. } if *text == paste))
    );
    // An emergency snapshot was taken first.
    assert!(h.records.iter().any(|r| matches!(
        r.body,
        RecordBody::Snapshot {
            purpose: SnapshotPurpose::Emergency,
            ..
        }
    )));
}

#[test]
fn a_request_that_cannot_fit_is_blocked_with_a_reason_not_sent() {
    let mut h = Harness::new(1024, tok(), Extractive::new());
    h.turn("hi", |_| "hello".into());
    let big = "x".repeat(8000);
    // Sent while the server was down: saved, unanswered.
    let fx = h.engine.handle(
        Request::Send {
            text: big,
            images: Vec::new(),
        },
        h.clock.tick(),
    );
    let id = MessageId(fx[0].record().unwrap().seq);
    h.take(fx);
    h.apply(Input::NoReply);
    assert!(refusal(&h.apply(pin(id))).is_none());
    let mut report = Default::default();
    h.run(Request::Retry, &mut report, &|_| panic!("must not send"));
    let blocked = report.blocked.unwrap();
    assert!(
        blocked.pinned > blocked.ctx - blocked.reserve,
        "{blocked:?}"
    );
}

#[test]
fn truncation_by_the_server_is_detected_and_compressed() {
    let mut h = Harness::new(4096, tok(), Extractive::new());
    chat(&mut h, 12);
    let compressions = h.engine.compressions();
    // The server says it saw a third of what we sent.
    let report = h.turn_with("next", &|p| ("ok".into(), Some(p.raw_estimate / 3)));
    assert!(
        report
            .events
            .iter()
            .any(|e| matches!(e, EngineEvent::TruncationSuspected { .. }))
    );
    // The server's window is now known to be a third: the pass the next request needs
    // runs at once, after the reply that revealed it, and it is the forced one.
    let first = report.events.iter().find_map(|e| match e {
        EngineEvent::Compressed { reason, .. } => Some(reason.clone()),
        _ => None,
    });
    assert_eq!(first, Some(CompressReason::Overflow), "{:?}", report.events);
    // Going harder to fit the smaller window is allowed; but no server's count talks the
    // session into a window far below its num_ctx (#36): at least three quarters of it.
    let r = h.turn("and then", |_| "fine".into());
    let b = h.engine.budget();
    assert!(
        b.ctx < 4096 && b.ctx >= 4096 * 3 / 4,
        "the learned window: {b:?}"
    );
    assert!(r.sent.iter().all(|p| p.estimate <= b.hard_limit()));
    assert_eq!(
        h.engine.compressions(),
        compressions + (report.compressions + r.compressions) as u32
    );
}

#[test]
fn markers_in_replies_update_the_goal_board_but_cannot_unlock() {
    let mut h = Harness::new(8192, tok(), Extractive::new());
    let events = h.apply(Request::Goal {
        change: GoalChange::Decision {
            text: "Use Postgres".into(),
            locked: true,
        },
    });
    assert!(refusal(&events).is_none());
    h.turn("plan it", |_| {
        "[GOAL] Build the API\n[CHECKPOINT] Schema - COMPLETED\n[DECISION] Use JWT - LOCKED\n[ARTIFACT] Created src/api.rs\n[NEXT] Write handlers".into()
    });
    let g = h.engine.goals();
    assert_eq!(g.active.as_ref().unwrap().description, "Build the API");
    assert_eq!(g.decisions.len(), 2);
    assert!(g.decisions.iter().all(|d| d.locked));
    // The board is in the system prompt, verbatim.
    let sys = &h.engine.prompt().messages[0].content;
    assert!(
        sys.contains("Use JWT") && sys.contains("src/api.rs") && sys.contains("Write handlers")
    );
    // The model cannot unlock: a marker line asking to is refused and said.
    h.turn("and the lock?", |_| "[DECISION] Use Postgres".into());
    assert!(h.engine.goals().decisions[0].locked);
    assert_eq!(h.engine.goals().decisions.len(), 2);
    // The person can.
    let events = h.apply(Request::Goal {
        change: GoalChange::Unlock { id: 1 },
    });
    assert!(refusal(&events).is_none(), "{events:?}");
    assert!(!h.engine.goals().decisions[0].locked);
    assert_eq!(
        refusal(&h.apply(Request::Goal {
            change: GoalChange::Unlock { id: 9 },
        })),
        Some(&EngineError::Goal(GoalError::NoSuchDecision(9)))
    );
}

#[test]
fn snapshot_and_restore_roll_back_the_active_state() {
    let mut h = Harness::new(8192, tok(), Extractive::new());
    chat(&mut h, 3);
    let snap = h.snapshot();
    assert_eq!(snap.messages.len(), 6);
    let before = h.engine.active_state();
    chat(&mut h, 2);
    assert_ne!(h.engine.active_state(), before);
    let events = h.restore(&snap);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, EngineEvent::SnapshotRestored { .. })),
        "{events:?}"
    );
    assert_eq!(h.engine.active_state(), before);
    // The state it left was saved first, so the restore can be undone.
    let left: Vec<_> = h
        .records
        .iter()
        .filter(|r| matches!(r.body, RecordBody::Snapshot { .. }))
        .collect();
    assert_eq!(
        left.len(),
        2,
        "the person's snapshot, then the one before restoring"
    );
    // History keeps the abandoned branch; the conversation view does not.
    assert_eq!(h.engine.history().len(), 10);
    assert_eq!(h.engine.conversation_ids().len(), 6);
    // Replay reproduces the restored state.
    let (re, report) = h.replayed();
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(re.active_state(), h.engine.active_state());
}

#[test]
fn replay_reproduces_the_state_exactly() {
    let mut h = Harness::new(2048, Arc::new(Tiktoken::new().unwrap()), Extractive::new());
    h.apply(Request::Goal {
        change: GoalChange::SetGoal {
            description: "Finish".into(),
            priority: Priority::Low,
        },
    });
    chat(&mut h, 80);
    assert!(h.engine.compressions() >= 4);
    let (re, report) = h.replayed();
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(report.applied, h.records.len());
    assert_eq!(re.active_state(), h.engine.active_state());
    assert_eq!(re.budget(), h.engine.budget());
    assert_eq!(re.prompt(), h.engine.prompt());
    assert_eq!(re.history(), h.engine.history());
    assert_eq!(re.calibration(), h.engine.calibration());
    assert_eq!(re.next_seq(), h.engine.next_seq());
    // Replaying by value (moving text out of the records) gives the same state.
    let (owned, report) = ollm_tui::core::engine::Engine::replay_owned(
        &h.header(),
        h.records.clone(),
        h.engine.config().clone(),
        h.engine.tokenizer().clone(),
        h.engine.prompts().clone(),
    );
    assert!(report.issues.is_empty());
    assert_eq!(owned.active_state(), h.engine.active_state());
    assert_eq!(owned.history(), h.engine.history());
    assert_eq!(owned.prompt(), h.engine.prompt());
}

#[test]
fn a_manual_compression_folds_at_once_and_stopping_its_summary_changes_nothing() {
    let mut h = fixed_reserve(2048, tok(), Extractive::new());
    chat(&mut h, 6);
    let fx = h
        .engine
        .handle(Request::Compress { focus: None }, h.clock.tick());
    let requests = h.take(fx);
    // The fold is made in the engine, without the model: nobody waits for it.
    assert_eq!(h.engine.compressions(), 1);
    assert_eq!(h.summarizer.calls(), 0);
    let folded = h.engine.active_state();
    // Its summary is asked between turns; the person stops it (Esc): nothing changes.
    assert!(
        matches!(requests.last(), Some(Effect::CompressInBackground(_))),
        "{requests:?}"
    );
    drop(requests);
    let events = h.apply(Input::CompressionStopped);
    assert_eq!(events, [EngineEvent::CompressionStopped { unsent: false }]);
    assert_eq!(h.engine.active_state(), folded);
}

#[test]
fn a_summary_for_a_changed_conversation_is_discarded() {
    let mut h = Harness::new(8192, tok(), Extractive::new());
    chat(&mut h, 30);
    let fx = h
        .engine
        .handle(Request::Compress { focus: None }, h.clock.tick());
    let Some(Effect::CompressInBackground(plan)) = h.take(fx).pop() else {
        panic!("expected the fold's summary to be asked")
    };
    let outcome = futures_lite_block_on(plan.run(&h.summarizer));
    // A pin changes the conversation (an append would not).
    let oldest = h.engine.active().messages()[0].id;
    h.apply(pin(oldest));
    let state = h.engine.active_state();
    h.apply(Input::Compressed(Box::new(outcome)));
    assert_eq!(h.engine.active_state(), state);
    assert_eq!(h.engine.summary_verdicts(), Default::default());
}

#[test]
fn the_badge_counts_the_persons_facts_the_request_carries_and_warns_on_measured_loss() {
    // #37 item 4: "3 compressions · 🟠 56%!" with every fact still in the request. The
    // badge now counts: of the facts the person stated in folded messages, how many the
    // next request carries; compressions alone cost nothing.
    let mut small_talk = Harness::new(2048, tok(), Extractive::new());
    chat(&mut small_talk, 40);
    assert!(small_talk.engine.compressions() >= 3);
    let rel = small_talk.engine.reliability();
    assert!(!rel.warn, "{rel:?}");
    assert!(
        !small_talk
            .events
            .iter()
            .any(|e| matches!(e, EngineEvent::ReliabilityWarning { .. })),
        "no warning for compressions alone"
    );
    // 250 facts in a 2K window: the ledger cannot carry them all, and the badge and
    // the one warning say how many it does.
    let mut h = Harness::new(2048, tok(), Extractive::new());
    h.state_locker_codes(250);
    let rel = h.engine.reliability();
    assert!(rel.measured(), "{rel:?}");
    assert!(rel.stated >= 50, "{rel:?}");
    assert!(rel.carried < rel.stated, "{rel:?}");
    assert_eq!(rel.score, rel.carried as f64 / rel.stated as f64);
    let warnings: Vec<_> = h
        .events
        .iter()
        .filter(|e| matches!(e, EngineEvent::ReliabilityWarning { .. }))
        .collect();
    if rel.warn {
        assert_eq!(warnings.len(), 1, "said once: {warnings:?}");
    }
    // The ledger in the request holds exactly the carried count of the person's lines.
    let prompt = h.engine.prompt();
    let all: String = prompt.messages.iter().map(|m| m.content.clone()).collect();
    let shown = (0..250)
        .filter(|i| all.contains(&ollm_tui::core::testing::locker_code(*i).to_string()))
        .count();
    assert!(shown >= rel.carried, "{shown} in the request, {rel:?}");
}

#[test]
fn emergency_escalation_order() {
    assert_eq!(Intensity::after(None), Some(Intensity::Normal));
    assert_eq!(
        Intensity::after(Some(Intensity::Normal)),
        Some(Intensity::Hard)
    );
    assert_eq!(
        Intensity::after(Some(Intensity::Hard)),
        Some(Intensity::Truncate)
    );
    assert_eq!(Intensity::after(Some(Intensity::Truncate)), None);
}

#[test]
fn interrupted_replies_are_kept_and_marked() {
    let mut h = Harness::new(8192, tok(), Extractive::new());
    let fx = h.engine.handle(
        Request::Send {
            text: "tell me a story".into(),
            images: Vec::new(),
        },
        h.clock.tick(),
    );
    let p = chat_request(h.take(fx));
    h.apply(Input::Reply(ReplyInput {
        text: "Once upon a".into(),
        status: ReplyStatus::Interrupted,
        prompt_eval_count: None,
        prompt_eval_cached: None,
        eval_count: None,
        prompt_raw: p.raw_estimate,
        tool_calls: Vec::new(),
        thinking: String::new(),
        timing: None,
    }));
    let m = h.engine.history().get(MessageId(2)).unwrap();
    assert_eq!(m.status, ReplyStatus::Interrupted);
    assert_eq!(m.text, "Once upon a");

    // Retried (it is last): the request ends with the question, and its estimate does
    // not count the fragment (else the server's count would look like a truncation).
    let contents = |p: &ollm_tui::core::engine::ChatPrompt| -> Vec<String> {
        p.messages
            .iter()
            .skip(1)
            .map(|m| m.content.clone())
            .collect()
    };
    // The link is checked first (the driver reconnects if it must); then the request.
    let fx = h.engine.handle(Request::Retry, h.clock.tick());
    assert!(
        matches!(&h.take(fx)[..], [Effect::CheckLink]),
        "the request waits for the link"
    );
    let fx = h.engine.handle(Input::LinkChecked, h.clock.tick());
    let retry = chat_request(h.take(fx));
    assert_eq!(contents(&retry), ["tell me a story"]);
    assert_eq!(retry.raw_estimate, p.raw_estimate);
    h.apply(Input::Reply(ReplyInput {
        text: "Once upon a time, the end.".into(),
        status: ReplyStatus::Complete,
        prompt_eval_count: None,
        prompt_eval_cached: None,
        eval_count: None,
        prompt_raw: retry.raw_estimate,
        tool_calls: Vec::new(),
        thinking: String::new(),
        timing: None,
    }));
    // Answered afresh: the fragment stays in history, out of the requests.
    let r = h.turn("and then?", |_| "They lived on.".into());
    let sent = contents(r.sent.last().unwrap());
    assert_eq!(
        sent,
        ["tell me a story", "Once upon a time, the end.", "and then?"]
    );
    assert_eq!(
        h.engine.history().get(MessageId(2)).unwrap().text,
        "Once upon a"
    );

    // Not retried: a broken-off reply is context for what the person says next.
    let mut h = Harness::new(8192, tok(), Extractive::new());
    h.turn("write a list", |_| "1. one".into());
    let fx = h.engine.handle(
        Request::Send {
            text: "go on".into(),
            images: Vec::new(),
        },
        h.clock.tick(),
    );
    h.take(fx);
    h.apply(Input::Reply(ReplyInput {
        text: "2. tw".into(),
        status: ReplyStatus::Interrupted,
        prompt_eval_count: None,
        prompt_eval_cached: None,
        eval_count: None,
        prompt_raw: 0,
        tool_calls: Vec::new(),
        thinking: String::new(),
        timing: None,
    }));
    let r = h.turn("continue from there", |_| "2. two".into());
    assert!(contents(r.sent.last().unwrap()).contains(&"2. tw".to_string()));
}

#[test]
fn an_emergency_keeps_the_last_exchange_and_clips_instead_of_truncating_it() {
    // Found by tests/engine_props.rs: at 1K ctx a reply larger than the whole budget was
    // folded, with the user message before it, into a marked truncation (only its opening
    // kept) by the `Truncate` step. The last exchange is protected: the only allowed
    // alteration is the reported clip, which keeps head and tail.
    let mut h = Harness::new(1024, tok(), Extractive::new());
    let long_reply = format!("START {} FINISH", "word ".repeat(800));
    h.turn("first", |_| long_reply.clone());
    let reply_id = h.engine.last_active(Role::Assistant).unwrap();
    let r = h.turn("second", |_| "ok".into());
    assert!(r.blocked.is_none(), "{:?}", r.blocked);
    let sent = r.sent.last().unwrap();
    let bodies: Vec<&str> = sent.messages[1..]
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    assert!(
        bodies.contains(&"first"),
        "user message of the last exchange"
    );
    assert!(bodies.contains(&"second"));
    assert!(
        r.events
            .iter()
            .any(|e| matches!(e, EngineEvent::MessageClipped { id, .. } if *id == reply_id))
    );
    let clipped = bodies.iter().find(|b| b.starts_with("START")).unwrap();
    assert!(clipped.ends_with("FINISH") && clipped.contains("tokens cut here"));
    assert!(
        h.engine
            .checkpoints()
            .iter()
            .all(|c| !c.covers.contains(&reply_id))
    );
}

#[test]
fn the_last_answered_exchange_is_kept_when_a_later_message_went_unanswered() {
    // Found by tests/engine_props.rs: identify protected "the user message before the
    // pending one" whether or not it had been answered, so after a failed request (or a
    // restore to a state with a pending message) the last real exchange could be folded.
    let mut h = fixed_reserve(2048, tok(), Extractive::new());
    chat(&mut h, 4);
    let fx = h.engine.handle(
        Request::Send {
            text: "LAST-QUESTION".into(),
            images: Vec::new(),
        },
        h.clock.tick(),
    );
    let Some(Effect::Chat(prompt)) = h.take(fx).pop() else {
        panic!("expected the request")
    };
    let reply = ReplyInput {
        text: format!("LAST-REPLY {}", "detail ".repeat(350)),
        status: ReplyStatus::Complete,
        prompt_eval_count: Some(prompt.estimate),
        prompt_eval_cached: None,
        eval_count: Some(10),
        prompt_raw: prompt.raw_estimate,
        tool_calls: Vec::new(),
        thinking: String::new(),
        timing: None,
    };
    let fx = h.engine.handle(Input::Reply(reply), h.clock.tick());
    // The background pass after the reply is stopped, so the retry must make room itself
    // while the unanswered message waits.
    if h.take(fx)
        .iter()
        .any(|e| matches!(e, Effect::CompressInBackground(_)))
    {
        h.apply(Input::CompressionStopped);
    }
    let reply_id = h.engine.last_active(Role::Assistant).unwrap();
    // The next request failed (server down): the message stays saved, unanswered.
    let fx = h.engine.handle(
        Request::Send {
            text: "are you there?".into(),
            images: Vec::new(),
        },
        h.clock.tick(),
    );
    h.take(fx);
    h.apply(Input::NoReply);
    let r = h.turn(&format!("retry {}", "context ".repeat(150)), |_| {
        "back".into()
    });
    assert!(r.blocked.is_none(), "{:?}", r.blocked);
    assert!(r.compressions > 0, "the request needed room");
    // What the retry's request carried is the test: once "back" answers it, the pass
    // after that turn may fold the older exchange like any other.
    let sent = r.sent.last().unwrap();
    let bodies: Vec<&str> = sent.messages.iter().map(|m| m.content.as_str()).collect();
    assert!(bodies.contains(&"LAST-QUESTION"));
    let reply = h.engine.history().get(reply_id).unwrap().text.clone();
    let clipped = h
        .events
        .iter()
        .any(|e| matches!(e, EngineEvent::MessageClipped { id, .. } if *id == reply_id));
    assert!(bodies.contains(&reply.as_str()) || clipped);
}

#[test]
fn pinning_a_clipped_message_shows_it_whole_again() {
    // Found by tests/engine_props.rs: a message clipped in an emergency and pinned later
    // stayed clipped, so a pinned message reached the model altered (also after restoring
    // a snapshot taken while it was clipped).
    let mut h = fixed_reserve(2048, tok(), Extractive::new());
    chat(&mut h, 2);
    let paste = format!("BEGIN {} END", "lorem ipsum ".repeat(400));
    let r = h.turn(&paste, |_| "noted".into());
    let id = h
        .engine
        .history()
        .iter()
        .find(|m| m.text == paste)
        .unwrap()
        .id;
    assert!(
        r.events
            .iter()
            .any(|e| matches!(e, EngineEvent::MessageClipped { id: c, .. } if *c == id))
    );
    let snap = h.snapshot();
    assert!(refusal(&h.apply(pin(id))).is_none());
    let whole = |h: &Harness<Extractive>| {
        h.engine
            .prompt()
            .messages
            .iter()
            .any(|m| m.content == paste)
    };
    assert!(whole(&h), "pinned message shown whole");
    // Whole, it no longer fits: the next request is blocked, not sent clipped.
    let r = h.turn("and?", |_| panic!("must not send"));
    assert!(r.blocked.unwrap().pinned > 0);
    h.restore(&snap);
    assert!(
        whole(&h),
        "a restored clip does not apply to a pinned message"
    );
    let (re, report) = h.replayed();
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(re.prompt(), h.engine.prompt());
}

#[test]
fn restoring_a_state_where_a_message_is_folded_drops_its_later_pin() {
    // Found by tests/engine_props.rs: restore a snapshot where message M is active, pin M,
    // then restore a snapshot where M is folded. M stayed pinned in history while summarized
    // in a checkpoint: a "pinned" message the model never sees whole, and that cannot be
    // unpinned (it is folded). At snapshot time M was not pinned (pinned messages are never
    // folded), so restoring that state drops the pin.
    let mut h = Harness::new(2048, tok(), Extractive::new());
    chat(&mut h, 2);
    let early = snapshot_now(&mut h);
    chat(&mut h, 20);
    let later = snapshot_now(&mut h);
    let folded = h.engine.checkpoints()[0].covers[0];
    assert!(early.state.messages.contains(&folded));
    h.restore(&early);
    assert!(refusal(&h.apply(pin(folded))).is_none());
    h.restore(&later);
    assert!(h.engine.checkpoints()[0].covers.contains(&folded));
    assert!(!h.engine.history().get(folded).unwrap().pinned);
    let (re, report) = h.replayed();
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(re.history(), h.engine.history());
}

/// Summarizes new folds well and fails every aging and merging call.
struct FailsAging;

impl ollm_tui::core::summarizer::Summarizer for FailsAging {
    async fn summarize(
        &self,
        request: ollm_tui::core::summarizer::SummaryRequest,
    ) -> Result<String, ollm_tui::core::summarizer::SummaryError> {
        if request.system.contains("detailed (") {
            let words = (request.num_predict as usize * 6 / 10).max(4);
            Ok(ollm_tui::core::summarizer::doubles::extract_summary(
                &request.user,
                words,
            ))
        } else {
            Err(ollm_tui::core::summarizer::SummaryError::Failed(
                "model overloaded".into(),
            ))
        }
    }
}

#[test]
fn failed_aging_and_merging_still_keep_checkpoints_bounded() {
    // Found by tests/engine_props.rs: a failed aging left the checkpoint at its level and a
    // failed merge left ancients apart, so with a summarizer that fails now and then,
    // checkpoints piled up with the number of compressions (15 ancients after 200 with
    // `Erratic`) and the geometric bound on checkpoint tokens did not hold. A failed aging or
    // merge shortened the existing summaries mechanically; now upkeep is always done so
    // (the ledger keeps the facts), and the bound holds whatever the summarizer does.
    let mut h = Harness::new(2048, tok(), FailsAging);
    for i in 0..140 {
        chat(&mut h, 1);
        // At most MAX_CHECKPOINTS checkpoints after every turn.
        let cps = h.engine.checkpoints();
        let levels: Vec<Level> = cps.iter().map(|c| c.level).collect();
        assert!(
            cps.len() <= ollm_tui::core::budget::MAX_CHECKPOINTS,
            "turn {i}: {levels:?}"
        );
        // Oldest first, never younger than a newer one.
        assert!(
            levels.windows(2).all(|w| w[0] <= w[1]),
            "turn {i}: {levels:?}"
        );
        let b = h.engine.budget();
        let bound = ollm_tui::core::budget::MAX_CHECKPOINTS as u32
            * limit_for(b.level_cap(Level::Detailed));
        let total: u32 = cps.iter().map(|c| c.tokens).sum();
        assert!(total <= bound, "turn {i}: {total} > {bound}");
    }
    assert!(h.engine.compressions() >= 10, "{}", h.engine.compressions());
    // Upkeep asks no model now: nothing of it can fail.
    assert!(
        !h.events
            .iter()
            .any(|e| matches!(e, EngineEvent::CompressionFailed { .. }))
    );
    assert_coverage(&h);
    let (re, report) = h.replayed();
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(re.active_state(), h.engine.active_state());
}

#[test]
fn a_fold_that_would_free_nothing_is_not_applied() {
    // Found by tests/engine_props.rs: at 1K ctx with a large pinned tool result, a blocked
    // 13-token user message was folded by the emergency Truncate step into a 15-token
    // marked truncation plus the checkpoint header: the request grew (518 → 561 tokens),
    // the user's text was replaced by a marker for nothing, and the turn stayed blocked.
    let mut h = whole_results(1024, Extractive::new());
    let tool = tool_result(
        &mut h,
        "read_file",
        "{}",
        &"the file says: ".repeat(130),
        false,
    );
    assert!(refusal(&h.apply(pin(tool))).is_none());
    let r = h.turn("please summarize the file above, briefly", |_| {
        panic!("cannot fit")
    });
    assert!(r.blocked.is_some());
    let r = h.turn("?", |_| panic!("cannot fit"));
    assert!(r.blocked.is_some());
    // A fold that keeps the facts only (none here) costs nothing in the request, so it
    // may be made; one that would cost room (a marked truncation) is not.
    assert!(
        h.engine.checkpoints().iter().all(|c| !c.truncated),
        "{:?}",
        h.engine.checkpoints()
    );
    assert!(
        h.events.iter().all(|e| match e {
            EngineEvent::Compressed {
                tokens_before,
                tokens_after,
                ..
            } => tokens_after <= tokens_before,
            _ => true,
        }),
        "a compression grew the request"
    );
    let prompt = h.engine.prompt();
    assert!(
        prompt
            .messages
            .iter()
            .any(|m| m.content == "please summarize the file above, briefly")
    );
}

#[test]
fn an_overage_no_single_message_covers_is_clipped_across_messages() {
    // Found by tests/engine_props.rs: clipping only happened when the largest message
    // alone could absorb the whole overage, and a clipped message was never clipped
    // again. Four ~450-token messages in the last exchange at 2K ctx, or a follow-up
    // question after a clipped paste, were blocked ("what is left is protected") though
    // clipping would make them fit.
    let mut h = whole_results(2048, Extractive::new());
    let big = |c: &str| format!("{c}-HEAD {} {c}-TAIL", "text ".repeat(360));
    h.turn(&big("Q1"), |_| big("A1"));
    tool_result(&mut h, "t", "{}", &big("T1"), false);
    let r = h.turn(&big("Q2"), |_| "ok".into());
    assert!(r.blocked.is_none(), "{:?}", r.blocked);
    let clipped: Vec<MessageId> = r
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::MessageClipped { id, .. } => Some(*id),
            _ => None,
        })
        .collect();
    assert!(clipped.len() >= 2, "{clipped:?}");
    let sent = r.sent.last().unwrap();
    for tag in ["Q1", "A1", "T1", "Q2"] {
        let m = sent
            .messages
            .iter()
            .find(|m| m.content.starts_with(&format!("{tag}-HEAD")))
            .unwrap_or_else(|| panic!("{tag} missing"));
        assert!(m.content.ends_with(&format!("{tag}-TAIL")), "{tag}");
    }

    // A follow-up after a clipped paste: the paste is clipped further, not the turn blocked.
    let mut h = Harness::new(2048, tok(), Extractive::new());
    let paste = format!("BEGIN {} END", "lorem ipsum dolor sit amet ".repeat(600));
    h.turn(&paste, |_| "Noted.".into());
    let question = format!("So what does it say about {}?", "this and that ".repeat(60));
    let r = h.turn(&question, |_| "It says things.".into());
    assert!(r.blocked.is_none(), "{:?}", r.blocked);
    let sent = r.sent.last().unwrap();
    assert!(sent.messages.iter().any(|m| m.content == question));
    let p = sent
        .messages
        .iter()
        .find(|m| m.content.starts_with("BEGIN"))
        .unwrap();
    assert!(p.content.ends_with("END") && p.content.contains("tokens cut here"));
    let (re, report) = h.replayed();
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(re.prompt(), h.engine.prompt());
}

#[test]
fn long_chats_leave_several_turns_between_compressions() {
    // ~110 tokens a turn. After the first few passes the checkpoints take their share of
    // the room; compressions must still be spaced by a real amount of conversation.
    for (ctx, min_gap) in [(4096, 6), (8192, 10)] {
        let mut h = Harness::new(ctx, tok(), Extractive::new());
        let mut at = Vec::new();
        for i in 0..300 {
            // User text is a large share: kept verbatim, it crowds the headroom.
            let q = format!(
                "Question {i}: {}",
                "please consider this constraint as well ".repeat(6)
            );
            let r = h.turn(&q, reply_of(i));
            assert!(r.blocked.is_none());
            if r.compressions > 0 {
                at.push(i);
            }
        }
        let gaps: Vec<usize> = at.windows(2).map(|w| w[1] - w[0]).collect();
        let steady = &gaps[gaps.len().min(3)..];
        assert!(!steady.is_empty(), "ctx {ctx}: {at:?}");
        let worst = steady.iter().min().copied().unwrap_or(0);
        assert!(worst >= min_gap, "ctx {ctx}: gaps {gaps:?}");
    }
}

#[test]
fn a_runaway_reply_is_clipped_before_history_is_folded_harder() {
    let mut h = fixed_reserve(4096, tok(), Extractive::new());
    chat(&mut h, 70);
    assert!(h.engine.checkpoints().len() >= 2);
    // A model stuck in a loop: a reply three times the room.
    h.turn("list the steps", |_| {
        "1. Use a more efficient data structure.\n".repeat(400)
    });
    let checkpoints_before = h.engine.checkpoints().to_vec();
    let r = h.turn("thanks", |_| "ok".into());
    assert!(r.blocked.is_none(), "{:?}", r.blocked);
    let names: Vec<&str> = r.events.iter().map(|e| e.name()).collect();
    assert!(names.contains(&"message-clipped"), "{names:?}");
    assert!(
        !names.contains(&"rollover-complete"),
        "no emergency fold was needed: {names:?}"
    );
    assert!(!names.contains(&"checkpoints-merged"), "{names:?}");
    // The checkpoints were left as they were (at most aged by a normal pass).
    let after = h.engine.checkpoints();
    for cp in &checkpoints_before {
        assert!(
            after.iter().any(|c| c.covers.first() == cp.covers.first()),
            "a checkpoint was merged away"
        );
    }
}

#[test]
fn the_prompt_states_the_room_left_for_the_reply() {
    let mut h = Harness::new(2048, tok(), Extractive::new());
    for i in 0..20 {
        let r = h.turn(&format!("q{i}"), reply_of(i));
        for p in &r.sent {
            let b = h.engine.budget();
            // The prompt counted 5 % longer by the model's tokenizer, plus the cap, still
            // fits the window, unless that would leave less than the reserve's floor.
            let model_count = p.estimate + p.estimate.div_ceil(20);
            if p.max_reply > MIN_RESERVE_TOKENS {
                assert!(model_count + p.max_reply <= b.ctx, "{p:?}");
                assert!(
                    model_count + p.max_reply + 1 >= b.ctx,
                    "cap too small: {p:?}"
                );
            } else {
                assert_eq!(p.max_reply, MIN_RESERVE_TOKENS.min(b.ctx - p.estimate));
            }
            assert!(p.max_reply >= MIN_RESERVE_TOKENS.min(b.reserve));
            assert!(p.max_reply + p.estimate <= b.ctx);
        }
    }
}

#[test]
fn the_budget_follows_the_context_the_server_loaded() {
    let mut h = Harness::new(8192, tok(), Extractive::new());
    assert_eq!(h.engine.budget().ctx, 8192);
    // A larger window than asked changes nothing.
    assert!(h.apply(Input::LoadedCtx { ctx: Some(16384) }).is_empty());
    assert_eq!(
        h.apply(Input::LoadedCtx { ctx: Some(2048) }),
        [EngineEvent::LoadedCtxSmaller {
            model: "test:3b".into(),
            loaded: 2048,
            asked: 8192
        }]
    );
    let b = h.engine.budget();
    let reserve = reserve_for(2048, None, &[]);
    assert_eq!(
        (b.ctx, b.reserve),
        (2048, reserve),
        "the reserve follows the real window"
    );
    // num_ctx stays what was asked (changing it would reload the model).
    assert_eq!(h.engine.prompt().num_ctx, 8192);
    let r = h.turn("hello", |_| "hi".into());
    assert!(
        r.sent[0].estimate <= 2048 - reserve
            && r.sent[0].max_reply == max_reply(2048, r.sent[0].estimate)
    );
    // A new ctx forgets it.
    h.apply(Request::SetCtx { ctx: Some(4096) });
    assert_eq!(h.engine.budget().ctx, 4096);
}

/// Answers with the person's lines of the transcript it is given, as many as its cap
/// allows: a summary that carries its span's facts, so it is kept (and later aged).
struct EchoUser;

impl ollm_tui::core::summarizer::Summarizer for EchoUser {
    async fn summarize(
        &self,
        request: ollm_tui::core::summarizer::SummaryRequest,
    ) -> Result<String, ollm_tui::core::summarizer::SummaryError> {
        let lines: Vec<String> = request
            .user
            .lines()
            .filter_map(|l| l.strip_prefix("User: "))
            .map(|l| format!("- {l}"))
            .collect();
        let words = request.num_predict as usize * 6 / 10;
        let mut out = String::new();
        for l in lines {
            if out.split_whitespace().count() + l.split_whitespace().count() > words {
                break;
            }
            out.push_str(&l);
            out.push('\n');
        }
        // Notes as long as the cap allows, so the summaries outgrow their share and age.
        while out.split_whitespace().count() + 4 <= words {
            out.push_str("- more notes here\n");
        }
        Ok(out)
    }
}

#[test]
fn summaries_that_carry_their_facts_are_kept_and_aging_never_makes_them_larger() {
    let mut h = Harness::new(8192, tok(), EchoUser);
    for i in 0..420 {
        let r = h.turn(&format!("Question {i} about src/mod_{i}.rs"), reply_of(i));
        assert!(r.blocked.is_none(), "{:?}", r.blocked);
    }
    assert!(h.engine.summary_verdicts().kept > 0, "no summary was kept");
    assert!(h.engine.summaries_on());
    let aged: Vec<(u32, u32)> = h
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::CheckpointAged {
                tokens_before,
                tokens_after,
                ..
            } => Some((*tokens_before, *tokens_after)),
            _ => None,
        })
        .collect();
    assert!(!aged.is_empty(), "no aging happened");
    assert!(aged.iter().all(|(b, a)| a <= b), "{aged:?}");
}

#[test]
fn compress_now_on_a_short_conversation_says_why_without_a_zero() {
    let mut h = Harness::new(8192, tok(), Extractive::new());
    h.turn("hello", |_| "hi".into());
    let report = h.compress_now(None);
    assert_eq!(report.compressions, 0);
    assert_eq!(
        report.events,
        [EngineEvent::NotCompressed {
            reason: SkipReason::RecentKept { recent: 2 }
        }],
        "no mention of zero protected messages"
    );
}

#[test]
fn a_checkpoint_merged_away_is_found_in_the_one_it_was_merged_into() {
    let mut h = Harness::new(2048, tok(), Extractive::new());
    chat(&mut h, 120);
    assert!(
        h.events
            .iter()
            .any(|e| matches!(e, EngineEvent::CheckpointsMerged { .. })),
        "no merge in 120 turns"
    );
    let live: Vec<u32> = h.engine.checkpoints().iter().map(|c| c.number).collect();
    // Every number ever given out resolves: to itself while live, else to a live
    // checkpoint with a smaller number (merges keep the oldest part's number).
    for n in 1..=h.engine.compressions() {
        let cp = h
            .engine
            .checkpoint_numbered(n)
            .unwrap_or_else(|| panic!("checkpoint {n} lost (live {live:?})"));
        if live.contains(&n) {
            assert_eq!(cp.number, n);
        } else {
            assert!(cp.number < n, "{n} → {}", cp.number);
        }
    }
    assert!(
        h.engine
            .checkpoint_numbered(h.engine.compressions() + 1)
            .is_none()
    );
    // Replay rebuilds the same answers.
    let (re, _) = h.replayed();
    for n in 1..=h.engine.compressions() {
        assert_eq!(
            re.checkpoint_numbered(n).map(|c| c.id),
            h.engine.checkpoint_numbered(n).map(|c| c.id)
        );
    }
}

/// The ledger lines in the request: what follows the ledger header in the checkpoints'
/// message.
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

/// The person states the gateway's port (then `also`), chats, changes the port, and
/// chats on long enough for all of it to be folded and aged.
fn gateway_port_changes<S: ollm_tui::core::summarizer::Summarizer>(
    h: &mut Harness<S>,
    also: &[&str],
) {
    h.turn(
        "Note this: the API gateway listens on port 8443 behind the load balancer.",
        reply_of(0),
    );
    for (i, text) in also.iter().enumerate() {
        h.turn(text, reply_of(i + 1));
    }
    chat(h, 6);
    h.turn(
        "Change of plan: the API gateway now listens on port 9443, not 8443.",
        reply_of(2),
    );
    chat(h, 40);
}

#[test]
fn folded_facts_stay_whole_in_the_ledger_and_the_latest_value_wins() {
    // Summaries that keep nothing specific: only the ledger can carry the facts.
    let s = Scripted::new((0..400).map(|i| Ok(format!("- we talked it over, part {i}"))));
    let mut h = Harness::new(2048, tok(), s);
    gateway_port_changes(&mut h, &["And the nightly backup runs at 14:00 every day."]);
    assert!(h.engine.compressions() >= 3, "{}", h.engine.compressions());
    // The three messages are folded away, and the checkpoints were merged or aged since.
    let active: Vec<&str> = h
        .engine
        .active()
        .messages()
        .iter()
        .filter_map(|m| h.engine.history().get(m.id).map(|h| h.text.as_str()))
        .collect();
    assert!(
        active
            .iter()
            .all(|t| !t.contains("gateway") && !t.contains("14:00"))
    );
    assert!(h.events.iter().any(|e| matches!(
        e,
        EngineEvent::CheckpointsMerged { .. } | EngineEvent::CheckpointAged { .. }
    )));
    let lines = ledger_lines(&h.engine.prompt());
    // Whole and with its subject: the time is one value beside what runs at it.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("backup") && l.contains("14:00")),
        "{lines:?}"
    );
    // The newer port replaced the older one: no line holds 8443 alone.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("gateway") && l.contains("9443")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .all(|l| !l.contains("8443") || l.contains("9443")),
        "{lines:?}"
    );
}

/// A summarizer whose every summary restates the gateway's old port.
fn stale_port_summaries() -> Scripted {
    Scripted::new((0..400).map(|i| {
        Ok(format!(
            "- The API gateway listens on port 8443.\n- we talked it over, part {i}"
        ))
    }))
}

/// The request's checkpoints message (summaries and ledger), or "" without one.
fn checkpoints_message(p: &ChatPrompt) -> String {
    p.messages
        .iter()
        .find(|m| {
            m.content.starts_with("Summary of the earlier conversation")
                || m.content.starts_with("Facts stated earlier")
        })
        .map(|m| m.content.clone())
        .unwrap_or_default()
}

#[test]
fn a_summary_that_still_states_a_corrected_value_is_sent_without_it() {
    // Measured on the real 0.5B model: a checkpoint's summary still said "retention is
    // 14 days" after the person corrected it to 30, the ledger said 30, and the model
    // answered 14. Here every summary restates the old port.
    let s = stale_port_summaries();
    let mut h = Harness::new(2048, tok(), s);
    gateway_port_changes(&mut h, &[]);
    assert!(h.engine.compressions() >= 3, "{}", h.engine.compressions());
    let prompt = h.engine.prompt();
    let checkpoints = checkpoints_message(&prompt);
    // The rest of each summary is still there; the stale sentence is not, and the
    // ledger holds the new port.
    assert!(checkpoints.contains("we talked it over"), "{checkpoints}");
    assert!(
        checkpoints
            .lines()
            .all(|l| !l.contains("8443") || l.contains("9443")),
        "{checkpoints}"
    );
    assert!(
        ledger_lines(&prompt).iter().any(|l| l.contains("9443")),
        "{checkpoints}"
    );
    // The stored summaries are the model's, untouched: only the request leaves it out.
    let (re, _) = h.replayed();
    assert_eq!(re.prompt().messages, prompt.messages);
}

#[test]
fn a_correction_replaces_the_folded_value_before_it_is_folded_itself() {
    // Measured on the real 0.5B model: the correction was still among the recent
    // messages, the folded ledger still held the old value beside it, and the model
    // answered with the old one. Here every summary restates the old port too.
    let s = stale_port_summaries();
    let mut h = Harness::new(2048, tok(), s);
    h.turn(
        "Note this: the API gateway listens on port 8443 behind the load balancer.",
        reply_of(0),
    );
    // Chat until the person's message is folded (their messages stay verbatim while the
    // fold target leaves room for them).
    for _ in 0..60 {
        chat(&mut h, 1);
        if ledger_lines(&h.engine.prompt())
            .iter()
            .any(|l| l.contains("8443"))
        {
            break;
        }
    }
    assert!(h.engine.compressions() >= 1, "{}", h.engine.compressions());
    let before = h.engine.prompt();
    assert!(
        ledger_lines(&before).iter().any(|l| l.contains("8443")),
        "{:?}",
        ledger_lines(&before)
    );
    let fx = h.engine.handle(
        Request::Send {
            text: "Change of plan: the API gateway now listens on port 9443, not 8443.".into(),
            images: Vec::new(),
        },
        h.clock.tick(),
    );
    let prompt = chat_request(h.take(fx));
    let checkpoints = checkpoints_message(&prompt);
    // The correction goes out word for word as the newest message; the folded part
    // holds neither a ledger line nor a summary sentence with the old port alone.
    assert!(
        prompt
            .messages
            .last()
            .is_some_and(|m| m.content.contains("9443")),
        "{:?}",
        prompt.messages.last()
    );
    assert!(checkpoints.contains("we talked it over"), "{checkpoints}");
    assert!(!checkpoints.contains("8443"), "{checkpoints}");
    assert!(prompt.estimate <= h.engine.budget().hard_limit());
    // The request depends on the state only: replay rebuilds the same.
    let (re, _) = h.replayed();
    assert_eq!(re.prompt().messages, h.engine.prompt().messages);
}

/// Send `text` and answer its request with `reply`: what the engine asks for after the
/// reply (recorded effects are kept by the harness).
fn reply_turn<S: ollm_tui::core::summarizer::Summarizer>(
    h: &mut Harness<S>,
    text: &str,
    reply: &str,
) -> Vec<Effect> {
    let fx = h.engine.handle(
        Request::Send {
            text: text.into(),
            images: Vec::new(),
        },
        h.clock.tick(),
    );
    let prompt = chat_request(h.take(fx));
    assert!(prompt.estimate <= h.engine.budget().hard_limit());
    let fx = h.engine.handle(
        Input::Reply(ReplyInput {
            text: reply.into(),
            status: ReplyStatus::Complete,
            prompt_eval_count: Some(prompt.estimate),
            prompt_eval_cached: None,
            eval_count: Some(10),
            prompt_raw: prompt.raw_estimate,
            tool_calls: Vec::new(),
            thinking: String::new(),
            timing: None,
        }),
        h.clock.tick(),
    );
    h.take(fx)
}

/// Turns until a reply leaves the recent messages at the trigger: the effects after the
/// reply that folded.
fn until_fold<S: ollm_tui::core::summarizer::Summarizer>(h: &mut Harness<S>) -> Vec<Effect> {
    for i in 0..60 {
        let reply = format!(
            "Answer {i}: edit src/module_{i}.rs and set the timeout to {}ms. {}",
            1000 + i,
            "More explanation in ordinary prose. ".repeat(6)
        );
        let before = h.engine.compressions();
        let requests = reply_turn(h, &format!("Question {i}: case {i}?"), &reply);
        if h.engine.compressions() > before {
            return requests;
        }
    }
    panic!("the trigger was never reached")
}

#[test]
fn at_the_trigger_a_reply_folds_at_once_and_the_summary_gives_way_to_the_next_message() {
    let mut h = fixed_reserve(2048, tok(), Extractive::new());
    let requests = until_fold(&mut h);
    // Folded when the reply ended, without the model.
    assert!(!h.engine.budget().over_trigger());
    assert_eq!(h.engine.compressions(), 1);
    // The fold's summary is asked between turns.
    assert!(
        requests
            .iter()
            .any(|e| matches!(e, Effect::CompressInBackground(_))),
        "{requests:?}"
    );
    // The next message cancels it and goes out at once: the server serves one request at
    // a time, and the person does not wait on a summary.
    let fx = h.engine.handle(
        Request::Send {
            text: "NEXT".into(),
            images: Vec::new(),
        },
        h.clock.tick(),
    );
    let requests = h.take(fx);
    assert!(
        matches!(
            requests.as_slice(),
            [Effect::CancelBackground, Effect::Chat(_)]
        ),
        "{requests:?}"
    );
    assert_eq!(h.summarizer.calls(), 0);
    // The log replays to the same state.
    let (replayed, report) = h.replayed();
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(replayed.active_state(), h.engine.active_state());
}

#[test]
fn a_message_that_does_not_fit_is_folded_for_in_the_turn_without_the_model() {
    let mut h = fixed_reserve(2048, tok(), Extractive::new());
    // Below the trigger, then a message too large for what is left.
    for i in 0..4 {
        reply_turn(
            &mut h,
            &format!("q{i}"),
            &"An answer in plain words. ".repeat(20),
        );
    }
    let before = h.engine.compressions();
    let big = format!("BIG {}", "word ".repeat(400));
    let fx = h.engine.handle(
        Request::Send {
            text: big.clone(),
            images: Vec::new(),
        },
        h.clock.tick(),
    );
    let requests = h.take(fx);
    let Some(Effect::Chat(prompt)) = requests.last() else {
        panic!("expected the request at once: {requests:?}")
    };
    assert!(prompt.messages.iter().any(|m| m.content == big));
    assert!(h.engine.compressions() > before);
    assert_eq!(h.summarizer.calls(), 0);
}

#[test]
fn models_under_a_billion_parameters_are_not_taught_the_marker_lines() {
    let system_of = |h: &mut Harness<Extractive>| {
        let fx = h.engine.handle(
            Request::Send {
                text: "hello".into(),
                images: Vec::new(),
            },
            h.clock.tick(),
        );
        let p = chat_request(h.take(fx));
        h.apply(Input::NoReply);
        p.messages[0].content.clone()
    };
    let mut h = Harness::new(8192, tok(), Extractive::new());
    let taught = system_of(&mut h);
    assert!(taught.contains("[GOAL] <goal>"), "{taught}");
    // The server says it is a 0.5B model: the instructions go, the rest stays.
    h.apply(Input::ModelInfo {
        context_length: Some(32_768),
        parameter_size: Some("494.03M".into()),
        server_ctx: None,
        vision: false,
    });
    let small = system_of(&mut h);
    assert!(!small.contains("[GOAL]"), "{small}");
    assert!(small.contains("Mode: general assistant."), "{small}");
    assert!(
        small.len() > "Mode: general assistant.".len() + 100,
        "{small}"
    );
}

/// #38 item 2: `/retry` is sorted by the engine alone. With nothing to answer it writes
/// what waits and says so; with a message to answer it asks for the link to be checked
/// first (the driver reconnects if it must), and the request follows that answer.
#[test]
fn retry_writes_what_waits_and_checks_the_link_before_it_asks_again() {
    let mut h = Harness::new(4096, tok(), Extractive::new());
    h.turn("hi", |_| "hello".into());
    let fx = h.engine.handle(Request::Retry, h.clock.tick());
    assert!(
        matches!(
            &fx[..],
            [
                Effect::WriteWaiting,
                Effect::Event(EngineEvent::NothingToRetry)
            ]
        ),
        "{fx:?}"
    );
    let fx = h.engine.handle(
        Request::Send {
            text: "and then?".into(),
            images: Vec::new(),
        },
        h.clock.tick(),
    );
    h.take(fx);
    h.apply(Input::NoReply);
    let fx = h.engine.handle(Request::Retry, h.clock.tick());
    assert!(
        matches!(&fx[..], [Effect::WriteWaiting, Effect::CheckLink]),
        "{fx:?}"
    );
    let fx = h.engine.handle(Input::LinkChecked, h.clock.tick());
    assert!(matches!(fx.last(), Some(Effect::Chat(_))), "{fx:?}");
}
