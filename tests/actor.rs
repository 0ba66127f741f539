//! The session actor against the fake Ollama server over real HTTP: turns, compression,
//! num_ctx discipline, truncation detection, every fault mode, Stop.
//!
//! Tests enqueue commands, drop the handle and await the actor: it finishes what is
//! queued and returns its state, so outcomes are deterministic (no sleeps).
#![allow(clippy::unwrap_used)]

mod support;

use ollm_tui::actor::{self, ActorConfig, ActorExit, Ask, Command, Parts, StoreSlot};
use ollm_tui::app::words::{self, KeyNames};
use ollm_tui::core::budget::CtxSource;
use ollm_tui::core::engine::{Engine, EngineConfig, Input, ReplyInput, Request};
use ollm_tui::core::message::{ReplyStatus, Role};
use ollm_tui::core::mode::Mode;
use ollm_tui::core::prompts::Prompts;
use ollm_tui::core::record::{Header, RecordBody};
use ollm_tui::llm::{OllamaBackend, OllamaOptions};
use ollm_tui::store::MemoryStore;
use ollm_tui::view::{Activity, Connection, Entry, EntryKind, Update};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use support::fake_ollama::{FakeConfig, FakeModel, FakeOllama, Fault};
use support::session::{Session, TOKENIZER, engine};

/// A session on `url` whose store `store` makes from the engine's header; `config` may
/// change the actor's settings (reconnecting is off: tests say when to connect).
fn spawn_session(
    url: &str,
    engine: Engine,
    options: OllamaOptions,
    store: impl FnOnce(Header) -> StoreSlot<MemoryStore>,
    config: impl FnOnce(&mut ActorConfig),
) -> Session {
    let backend = OllamaBackend::new(url, options).unwrap();
    let store = store(engine.header("test"));
    let mut cfg = ActorConfig {
        host: url.to_string(),
        reconnect_after: Duration::from_secs(3600),
        ..ActorConfig::default()
    };
    config(&mut cfg);
    let spawned = actor::spawn(Parts {
        backend,
        summary_backend: None,
        engine: Box::new(move || engine),
        store,
        config: cfg,
        model: None,
    });
    Session { spawned }
}

fn open_store(header: Header) -> StoreSlot<MemoryStore> {
    StoreSlot::Open(MemoryStore::new(header))
}

fn start_with(server: &FakeOllama, engine: Engine, options: OllamaOptions) -> Session {
    spawn_session(&server.url(), engine, options, open_store, |_| {})
}

/// A session whose store is created only when the actor first needs it; the flag says
/// whether it was.
fn start_lazy(server: &FakeOllama, model: &str) -> (Session, Arc<AtomicBool>) {
    let created = Arc::new(AtomicBool::new(false));
    let flag = created.clone();
    let lazy = move |_| {
        StoreSlot::Lazy(Box::new(move |header: &Header| {
            flag.store(true, Ordering::SeqCst);
            Ok(MemoryStore::new(header.clone()))
        }))
    };
    let s = spawn_session(
        &server.url(),
        engine(model, None),
        OllamaOptions::default(),
        lazy,
        |_| {},
    );
    (s, created)
}

fn start(server: &FakeOllama, model: &str, ctx: Option<u32>) -> Session {
    start_with(server, engine(model, ctx), OllamaOptions::default())
}

/// The banners the actor raised, in the words the app shows (default keys).
fn banners(updates: &[Update]) -> Vec<(String, Option<String>)> {
    updates
        .iter()
        .filter_map(|u| match u {
            Update::Banner(n) => {
                let w = words::notice(n, &KeyNames::default());
                Some((w.title, w.hint))
            }
            _ => None,
        })
        .collect()
}

/// The notices (ℹ/⚠ lines) the actor put in the transcript, in order, in the words the
/// app shows with `keys`.
fn notices_with(updates: &[Update], keys: &KeyNames) -> Vec<String> {
    updates
        .iter()
        .filter_map(|u| match u {
            Update::Notice(n) => Some(words::notice(n, keys).text()),
            _ => None,
        })
        .collect()
}

fn notices(updates: &[Update]) -> Vec<String> {
    notices_with(updates, &KeyNames::default())
}

/// An engine state as a crash would leave it: the inputs applied, their effects dropped.
fn with_inputs(mut e: Engine, inputs: Vec<Input>) -> Engine {
    for input in inputs {
        e.handle(input, chrono::Utc::now());
    }
    e
}

/// The engine `--resume` would rebuild from what the session wrote: its log replayed with
/// the live engine's configuration. A replay that finds issues fails the test.
fn replayed(exit: &ActorExit<MemoryStore>) -> Engine {
    let store = exit.store.as_ref().unwrap();
    let (engine, report) = Engine::replay_owned(
        &store.header(),
        store.records(),
        exit.engine.config().clone(),
        exit.engine.tokenizer().clone(),
        exit.engine.prompts().clone(),
    );
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    engine
}

fn records(exit: &ActorExit<MemoryStore>) -> Vec<RecordBody> {
    exit.store
        .as_ref()
        .unwrap()
        .records()
        .into_iter()
        .map(|r| r.body)
        .collect()
}

#[tokio::test]
async fn a_turn_streams_and_records_both_messages() {
    let server = FakeOllama::start().await;
    let s = start(&server, "llama3.2:3b", None);
    s.say("hello there").await;
    let (exit, updates) = s.finish().await;
    let recs = records(&exit);
    assert!(matches!(&recs[0], RecordBody::User { text, .. } if text == "hello there"));
    let RecordBody::Assistant {
        text,
        status,
        prompt_eval_count,
        prompt_estimate,
        ..
    } = &recs[1]
    else {
        panic!("{recs:?}")
    };
    assert!(text.starts_with("You said: \"hello there\""), "{text}");
    assert_eq!(*status, ReplyStatus::Complete);
    assert!(prompt_eval_count.is_some() && prompt_estimate.is_some());
    // The UI saw the user item, deltas that add up to the reply, and the end.
    let deltas: String = updates
        .iter()
        .filter_map(|u| match u {
            Update::Delta(d) => Some(d.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(&deltas, text);
    assert!(updates.iter().any(|u| matches!(
        u,
        Update::ReplyEnd {
            status: ReplyStatus::Complete,
            id: Some(_)
        }
    )));
    // The model is not loaded: its context length (131072) was capped at 8192.
    assert_eq!(exit.engine.ctx(), 8192);
    assert_eq!(exit.engine.ctx_source(), CtxSource::Capped);
    let chat = server.chat_requests();
    assert_eq!(chat[0]["options"]["num_ctx"], 8192);
    assert_eq!(chat[0]["truncate"], false);
    assert_eq!(chat[0]["shift"], false);
    // User record synced before the request (write-before-send).
    let store = exit.store.as_ref().unwrap();
    assert!(store.sync_count() >= 2);
}

#[tokio::test]
async fn the_default_context_is_what_the_server_loaded_the_model_with() {
    // A big GPU: Ollama loaded the model with 32K by itself. Without --ctx we use that
    // (not our 8K cap), so nothing reloads and the gauge says where it came from.
    let server = FakeOllama::start().await;
    server.preload("llama3.2:3b", 32768);
    let s = start(&server, "llama3.2:3b", None);
    s.say("hello there").await;
    let (exit, _) = s.finish().await;
    assert_eq!(exit.engine.ctx(), 32768);
    assert_eq!(exit.engine.ctx_source(), CtxSource::Server);
    assert_eq!(server.chat_requests()[0]["options"]["num_ctx"], 32768);
    // --ctx still wins.
    let server = FakeOllama::start().await;
    server.preload("llama3.2:3b", 32768);
    let s = start(&server, "llama3.2:3b", Some(4096));
    s.say("hello").await;
    let (exit, _) = s.finish().await;
    assert_eq!(exit.engine.ctx_source(), CtxSource::Set);
    assert_eq!(server.chat_requests()[0]["options"]["num_ctx"], 4096);
}

#[tokio::test]
async fn three_hundred_turns_at_2k_compress_and_never_exceed_ctx() {
    let server = FakeOllama::start().await;
    server.set_reply_words(45);
    let s = start(&server, "llama3.2:3b", Some(2048));
    for i in 0..300 {
        s.say(&format!(
            "Turn {i}: tell me about item_{i} in src/lib_{i}.rs please"
        ))
        .await;
    }
    let (exit, _updates) = s.finish().await;
    let outcomes = server.chat_outcomes();
    let chats: Vec<_> = outcomes.iter().filter(|o| !o.summary).collect();
    assert_eq!(chats.len(), 300, "every turn got its request");
    assert!(
        exit.engine.compressions() >= 10,
        "{}",
        exit.engine.compressions()
    );
    // num_ctx identical everywhere, summaries included; num_predict on every summary.
    for (i, body) in server.chat_requests().iter().enumerate() {
        assert_eq!(body["options"]["num_ctx"], 2048, "request {i}");
        // Chats and summaries alike are capped: a reply never runs past the window.
        assert!(
            body["options"]["num_predict"].as_u64().unwrap() > 0,
            "request {i}"
        );
    }
    for (o, body) in outcomes.iter().zip(server.chat_requests()) {
        if !o.summary {
            // A chat's cap leaves at least the reserve (which follows reply lengths, and
            // never goes below its floor).
            assert!(
                body["options"]["num_predict"].as_u64().unwrap()
                    >= u64::from(ollm_tui::core::budget::reserve_floor(2048)),
                "{body}"
            );
        }
    }
    // The server never had to cut anything, and never saw more than ctx.
    for o in &outcomes {
        assert_eq!(
            o.dropped_messages, 0,
            "request {} truncated",
            o.request_index
        );
        assert!(
            o.prompt_tokens_sent <= 2048,
            "request {}: {}",
            o.request_index,
            o.prompt_tokens_sent
        );
    }
    // Every user message is in the log.
    let users = records(&exit)
        .iter()
        .filter(|r| matches!(r, RecordBody::User { .. }))
        .count();
    assert_eq!(users, 300);
}

/// A model trained on 1,024 tokens, asked for 8,192 and sent twenty questions: what
/// Ollama does then (cut num_ctx, maybe silently) is what the caller's server decides.
async fn twenty_questions_to_a_1k_model_asked_for_8k(
    server: &FakeOllama,
) -> (ActorExit<MemoryStore>, Vec<Update>) {
    server.add_model(FakeModel::new(
        "tiny:1b",
        "llama",
        "1.2B",
        1_200_000_000,
        1024,
    ));
    let s = start(server, "tiny:1b", Some(8192));
    for i in 0..20 {
        s.say(&format!(
            "Question {i}: {}",
            "please explain this in detail ".repeat(8)
        ))
        .await;
    }
    s.finish().await
}

#[tokio::test]
async fn truncation_by_the_server_is_detected_and_compressed() {
    // A model trained on 1024 tokens: Ollama cuts num_ctx to that and, being an old
    // version that ignores `truncate: false` and has no /api/ps to tell, drops the oldest
    // messages silently.
    let server = FakeOllama::start_with(FakeConfig {
        ignore_truncate_flag: true,
        no_ps: true,
        ..FakeConfig::default()
    })
    .await;
    let (exit, updates) = twenty_questions_to_a_1k_model_asked_for_8k(&server).await;
    let outcomes = server.chat_outcomes();
    let first_cut = outcomes
        .iter()
        .position(|o| o.dropped_messages > 0)
        .expect("the server cut");
    // Detected at once, and acted on: once compressed to the server's real window, the
    // server has nothing more to cut.
    let last_cut = outcomes
        .iter()
        .rposition(|o| o.dropped_messages > 0)
        .unwrap();
    assert!(
        last_cut <= first_cut + 2,
        "cuts went on: {first_cut}..{last_cut}"
    );
    let warned = banners(&updates)
        .iter()
        .any(|(t, _)| t.contains("it cut the start of the conversation"));
    assert!(warned, "{:?}", banners(&updates));
    assert!(
        exit.engine.compressions() >= 1,
        "a compression followed the detection: {:?} {:?}",
        exit.engine.status(),
        updates
            .iter()
            .filter(|u| matches!(u, Update::Engine(_) | Update::Appended(_)))
            .collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn a_400_overflow_is_compressed_and_retried_once() {
    let server2 = FakeOllama::start().await;
    server2.set_reply_words(60);
    let s = start(&server2, "llama3.2:3b", Some(4096));
    for i in 0..20 {
        s.say(&format!("Message {i} with some words in it")).await;
    }
    // The fault must hit the 21st request, not one of the queued turns.
    assert!(
        server2
            .wait_for_chat_requests(20, Duration::from_secs(30))
            .await
    );
    let compressions_before = server2.chat_outcomes().iter().filter(|o| o.summary).count();
    assert_eq!(
        compressions_before, 0,
        "the conversation fits without compression"
    );
    server2.push_fault(Fault::ContextOverflow);
    s.say("one more").await;
    let (exit, updates) = s.finish().await;
    let recs = records(&exit);
    let last = recs.last().unwrap();
    assert!(
        matches!(
            last,
            RecordBody::Assistant {
                status: ReplyStatus::Complete,
                ..
            }
        ),
        "{last:?}"
    );
    assert!(exit.engine.compressions() >= 1);
    assert!(banners(&updates).is_empty(), "{:?}", banners(&updates));
}

#[tokio::test]
async fn a_dropped_connection_keeps_the_partial_reply_marked() {
    let server = FakeOllama::start().await;
    let s = start(&server, "llama3.2:3b", None);
    server.push_fault(Fault::DropAfter { tokens: 3 });
    s.say("hello").await;
    let (exit, updates) = s.finish().await;
    let recs = records(&exit);
    assert!(matches!(&recs[0], RecordBody::User { .. }));
    match &recs[1] {
        RecordBody::Assistant { text, status, .. } => {
            assert_eq!(*status, ReplyStatus::Interrupted);
            assert_eq!(text, "You said:");
        }
        other => panic!("{other:?}"),
    }
    let b = banners(&updates);
    assert!(
        b[0].0.contains("broke off") && b[0].0.contains("partial reply is kept"),
        "{b:?}"
    );
}

#[tokio::test]
async fn an_error_line_mid_stream_is_an_error_and_keeps_the_text() {
    let server = FakeOllama::start().await;
    let s = start(&server, "llama3.2:3b", None);
    server.push_fault(Fault::ErrorAfter {
        tokens: 2,
        message: "CUDA out of memory".into(),
    });
    s.say("hello").await;
    let (exit, updates) = s.finish().await;
    let recs = records(&exit);
    assert!(
        matches!(&recs[1], RecordBody::Assistant { status: ReplyStatus::Interrupted, text, .. } if !text.is_empty())
    );
    assert!(banners(&updates)[0].0.contains("CUDA out of memory"));
}

#[tokio::test]
async fn a_500_or_garbage_writes_no_reply_and_keeps_the_prompt() {
    for fault in [
        Fault::Http500 {
            message: "boom".into(),
        },
        Fault::Garbage,
    ] {
        let server = FakeOllama::start().await;
        let s = start(&server, "llama3.2:3b", None);
        server.push_fault(fault.clone());
        s.say("keep me").await;
        let (exit, updates) = s.finish().await;
        let recs = records(&exit);
        assert!(matches!(&recs[0], RecordBody::User { text, .. } if text == "keep me"));
        let replies = recs
            .iter()
            .filter(|r| matches!(r, RecordBody::Assistant { text, .. } if !text.is_empty()))
            .count();
        let b = banners(&updates);
        assert!(!b.is_empty(), "{fault:?}");
        if matches!(fault, Fault::Http500 { .. }) {
            assert_eq!(replies, 0);
            assert!(b[0].0.contains("500") && b[0].0.contains("boom"), "{b:?}");
        }
        assert!(b[0].1.as_deref().unwrap_or("").contains("/retry"), "{b:?}");
    }
}

#[tokio::test]
async fn split_lines_and_utf8_arrive_intact() {
    let server = FakeOllama::start().await;
    let s = start(&server, "llama3.2:3b", None);
    server.push_fault(Fault::SplitLines);
    s.say("unicode please").await;
    let (exit, _) = s.finish().await;
    let reply = &exit.engine.history().iter().nth(1).unwrap().text;
    assert!(
        reply.contains(support::fake_ollama::UNICODE_SENTENCE),
        "{reply}"
    );
}

#[tokio::test]
async fn a_stream_without_done_or_stalling_is_interrupted() {
    let server = FakeOllama::start().await;
    let opts = OllamaOptions {
        idle_timeout: Duration::from_millis(300),
        ..OllamaOptions::default()
    };
    let s = start_with(&server, engine("llama3.2:3b", None), opts);
    server.push_fault(Fault::NoDone);
    s.say("one").await;
    server.push_fault(Fault::StallAfter { tokens: 2 });
    s.say("two").await;
    let (exit, updates) = s.finish().await;
    let assistants: Vec<_> = exit
        .engine
        .history()
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .collect();
    assert_eq!(assistants.len(), 2);
    assert!(
        assistants
            .iter()
            .all(|m| m.status == ReplyStatus::Interrupted && !m.text.is_empty())
    );
    let b = banners(&updates);
    assert!(b[1].0.contains("no further tokens"), "{b:?}");
    // No automatic retry once output was shown: exactly two chat requests.
    assert_eq!(server.chat_requests().len(), 2);
}

#[tokio::test]
async fn stop_closes_the_connection_within_200ms_and_keeps_the_partial() {
    let server = FakeOllama::start().await;
    server.set_token_delay(Duration::from_millis(50));
    let mut s = start(&server, "llama3.2:3b", None);
    s.say("a long story please").await;
    // Wait until the reply is really streaming.
    loop {
        match s.spawned.updates.recv().await.unwrap() {
            Update::Delta(_) => break,
            _ => continue,
        }
    }
    let stopped_at = std::time::Instant::now();
    s.cmd(Command::Stop).await;
    let d = server
        .wait_for_disconnect(Duration::from_secs(5))
        .await
        .expect("the server saw the client leave");
    let latency = d.at.duration_since(stopped_at);
    assert!(latency < Duration::from_millis(200), "{latency:?}");
    let (exit, _) = s.finish().await;
    let m = exit.engine.history().iter().nth(1).unwrap();
    assert_eq!(m.status, ReplyStatus::Interrupted);
    // Whatever had arrived: a beginning of the full reply.
    assert!(!m.text.is_empty() && m.text.starts_with("You"), "{m:?}");
}

#[tokio::test]
async fn unreachable_server_names_the_url_and_keeps_the_message() {
    // A port nothing listens on.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let s = spawn_session(
        &url,
        engine("llama3.2:3b", None),
        OllamaOptions::default(),
        open_store,
        |_| {},
    );
    s.say("are you there?").await;
    let view = s.spawned.view.clone();
    let (exit, updates) = s.finish().await;
    let b = banners(&updates);
    assert!(
        b[0].0.contains(&url) && b[0].0.contains("Connection refused"),
        "{b:?}"
    );
    assert!(b[0].1.as_deref().unwrap().contains("ollama serve"));
    assert!(
        matches!(&records(&exit)[0], RecordBody::User { text, .. } if text == "are you there?")
    );
    assert!(matches!(
        view.borrow().connection,
        Connection::Unreachable { .. }
    ));
}

#[tokio::test]
async fn a_missing_model_suggests_pull_and_writes_no_reply() {
    let server = FakeOllama::start().await;
    let s = start(&server, "mistral:7b", None);
    s.say("hi").await;
    let (exit, updates) = s.finish().await;
    let b = banners(&updates);
    assert!(
        b.iter()
            .any(|(_, h)| h.as_deref().unwrap_or("").contains("/pull mistral:7b")),
        "{b:?}"
    );
    let recs = records(&exit);
    assert!(
        recs.iter()
            .all(|r| !matches!(r, RecordBody::Assistant { .. }))
    );
    assert!(matches!(&recs[0], RecordBody::User { .. }));
}

#[tokio::test]
async fn snapshot_restore_goal_pin_and_settings_commands() {
    let server = FakeOllama::start().await;
    let s = start(&server, "llama3.2:3b", None);
    s.say("first").await;
    s.cmd(Request::Snapshot {
        label: Some("after first".into()),
    })
    .await;
    s.say("second").await;
    s.wait_for_messages(4).await;
    let (tx, rx) = tokio::sync::oneshot::channel();
    s.cmd(Ask::ListSnapshots { reply: tx }).await;
    let snaps = rx.await.unwrap().unwrap().snapshots;
    assert_eq!(snaps.len(), 1, "{snaps:?}");
    assert_eq!(snaps[0].label.as_deref(), Some("after first"));
    // An unknown id is refused with a pointer to the picker; the start of an id will do.
    s.cmd(Command::Restore { id: "nope".into() }).await;
    s.cmd(Command::Restore {
        id: snaps[0].id[..4].to_string(),
    })
    .await;
    s.cmd(Request::Goal {
        change: ollm_tui::core::goals::GoalChange::SetGoal {
            description: "Ship it".into(),
            priority: Default::default(),
        },
    })
    .await;
    s.cmd(Request::Pin {
        id: None,
        pinned: true,
    })
    .await;
    s.cmd(Request::SetMode {
        mode: Mode::Developer,
    })
    .await;
    s.cmd(Request::SetCtx { ctx: Some(4096) }).await;
    s.say("third").await;
    let (exit, updates) = s.finish().await;
    let e = &exit.engine;
    // The conversation is first, its reply, third, its reply; "second" stays in history.
    let texts: Vec<&str> = e
        .conversation_ids()
        .iter()
        .map(|id| e.history().get(*id).unwrap().text.as_str())
        .collect();
    assert_eq!(texts.len(), 4, "{texts:?}");
    assert_eq!(texts[0], "first");
    assert_eq!(texts[2], "third");
    assert_eq!(e.history().len(), 6);
    assert_eq!(e.goals().active.as_ref().unwrap().description, "Ship it");
    assert!(e.history().iter().nth(1).unwrap().pinned);
    assert_eq!(e.mode(), Mode::Developer);
    assert_eq!(e.ctx(), 4096);
    let b = banners(&updates);
    assert!(
        b.iter().any(|(t, h)| t.contains("no snapshot \"nope\"")
            && h.as_deref().is_some_and(|h| h.contains("Ctrl+R"))),
        "{b:?}"
    );
    // The restore can be undone: the state it left ("first", "second") has a snapshot.
    let store = exit.store.as_ref().unwrap();
    let before = store
        .snapshots()
        .into_iter()
        .find(|s| s.meta.label.as_deref() == Some(&format!("before restoring {}", snaps[0].id)))
        .expect("a snapshot of the state before the restore");
    assert_eq!(
        before.meta.purpose,
        ollm_tui::core::record::SnapshotPurpose::Rollback,
        "not pruned with the automatic ones"
    );
    let kept: Vec<&str> = before.messages.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(kept.len(), 4, "{kept:?}");
    assert_eq!(kept[2], "second");
    assert!(
        server.chat_requests().last().unwrap()["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("Ship it")
    );
    assert!(
        updates
            .iter()
            .any(|u| matches!(u, Update::Transcript(items) if items.len() == 2))
    );
    // The restore is said once (#31): with the rebuilt transcript's notices, not also as
    // a line of its own.
    let restored = |n: &ollm_tui::view::Notice| {
        matches!(
            n,
            ollm_tui::view::Notice::Engine(
                ollm_tui::core::events::EngineEvent::SnapshotRestored { .. }
            )
        )
    };
    // What the screen holds after the restore: its rebuilt transcript, then what came
    // until the transcript was sent again.
    let at = updates
        .iter()
        .position(|u| matches!(u, Update::Transcript(items) if items.len() == 2))
        .unwrap();
    let said: usize = updates[at + 1..]
        .iter()
        .take_while(|u| !matches!(u, Update::Transcript(_)))
        .map(|u| match u {
            Update::Notice(n) | Update::Banner(n) => usize::from(restored(n)),
            Update::PastNotices(ns) => ns.iter().filter(|(_, _, n)| restored(n)).count(),
            _ => 0,
        })
        .sum();
    assert_eq!(said, 1, "{:?}", &updates[at..]);
    // Replaying what was written gives the same state.
    let store = exit.store.as_ref().unwrap();
    let loaded = store.loaded();
    let (re, report) = Engine::replay(
        &loaded.header,
        &loaded.records,
        EngineConfig::default(),
        TOKENIZER.clone(),
        Arc::new(Prompts::builtin()),
    );
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(re.active_state(), e.active_state());
}

#[tokio::test]
async fn compress_now_and_inspect_a_checkpoint() {
    let server = FakeOllama::start().await;
    server.set_reply_words(80);
    let s = start(&server, "llama3.2:3b", None);
    for i in 0..30 {
        s.say(&format!("Tell me about topic_{i}")).await;
    }
    s.cmd(Request::Compress {
        focus: Some("the topics".into()),
    })
    .await;
    let (exit, updates) = s.finish().await;
    assert_eq!(exit.engine.compressions(), 1);
    let summary_body = server
        .chat_requests()
        .into_iter()
        .find(|b| {
            b["messages"][0]["content"]
                .as_str()
                .unwrap()
                .contains("note-taker")
        })
        .unwrap();
    assert!(
        summary_body["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("Pay special attention to: the topics")
    );
    assert!(
        updates
            .iter()
            .any(|u| matches!(u, Update::Appended(i) if matches!(i.kind, EntryKind::Fold { .. })))
    );
}

/// A session whose store the test can make fail like a full disk (and recover).
fn with_disk(server: &FakeOllama, config: impl FnOnce(&mut ActorConfig)) -> (Session, MemoryStore) {
    let probe = Arc::new(std::sync::Mutex::new(None));
    let keep = probe.clone();
    let s = spawn_session(
        &server.url(),
        engine("llama3.2:3b", None),
        OllamaOptions::default(),
        move |header| {
            let store = MemoryStore::new(header);
            *keep.lock().unwrap() = Some(store.clone());
            StoreSlot::Open(store)
        },
        config,
    );
    let disk = probe.lock().unwrap().take().unwrap();
    (s, disk)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_keeps_every_record_in_order_and_sends_nothing_the_log_lacks() {
    let server = FakeOllama::start().await;
    let (s, disk) = with_disk(&server, |_| {});
    s.say("one").await;
    s.wait_for_messages(2).await;
    disk.fail_all_writes(true);
    s.say("two").await;
    s.say("three").await;
    // Not sent: the log does not have them. The count of what waits is published.
    wait_for_view(&s, |v| v.unwritten == 2 && v.activity == Activity::Idle).await;
    assert_eq!(server.chat_outcomes().len(), 1, "only the first went out");
    // A sync that succeeds while records wait does not say writing works again.
    disk.fail_all_writes(false);
    s.cmd(Request::Retry).await;
    s.wait_for_messages(5).await;
    wait_for_view(&s, |v| v.unwritten == 0).await;
    let (exit, updates) = s.finish().await;
    assert!(exit.rescued.is_none());
    // Every record reached the log, in order, without a gap.
    let records = exit.store.as_ref().unwrap().records();
    let seqs: Vec<u64> = records.iter().map(|r| r.seq).collect();
    let expected: Vec<u64> = (seqs[0]..seqs[0] + seqs.len() as u64).collect();
    assert_eq!(seqs, expected, "no gap in seq");
    let users: Vec<String> = records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::User { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(users, ["one", "two", "three"]);
    // The banner said how many records wait, stayed until all were written, and the
    // message that was not sent said why.
    let b = banners(&updates);
    assert!(
        b.iter()
            .any(|(t, h)| t.contains("Cannot write the session log")
                && h.as_deref().is_some_and(|h| h.contains("2 records"))),
        "{b:?}"
    );
    assert!(b.iter().any(|(t, _)| t.contains("Not sent")), "{b:?}");
    let recovered = notices(&updates)
        .iter()
        .filter(|n| n.contains("works again"))
        .count();
    assert_eq!(recovered, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_log_still_refuses_at_exit_goes_to_a_rescue_file() {
    let server = FakeOllama::start().await;
    let rescue = tempfile::tempdir().unwrap();
    let dir = rescue.path().to_path_buf();
    let (s, disk) = with_disk(&server, move |c| c.rescue_dir = dir);
    s.say("one").await;
    s.wait_for_messages(2).await;
    disk.fail_all_writes(true);
    s.say("unsaved words").await;
    wait_for_view(&s, |v| v.unwritten >= 1 && v.activity == Activity::Idle).await;
    let (exit, _) = s.finish().await;
    let rescued = exit.rescued.expect("rescued");
    let path = rescued.to.expect("written");
    assert!(path.starts_with(rescue.path()));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("unsaved words"), "{text}");
    assert_eq!(
        text.lines().count(),
        1 + rescued.records,
        "the header, then the records"
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[tokio::test]
async fn a_model_loaded_with_less_context_than_asked_is_followed() {
    // Ollama cuts num_ctx to what the model was trained on and says so only in /api/ps.
    let server = FakeOllama::start().await;
    let (exit, updates) = twenty_questions_to_a_1k_model_asked_for_8k(&server).await;
    let b = banners(&updates);
    assert!(
        b.iter()
            .any(|(t, _)| t.contains("with a 1024-token context, not the 8192")),
        "{b:?}"
    );
    assert!(b.iter().all(|(t, _)| !t.contains("not sent")), "{b:?}");
    let replies = exit
        .engine
        .history()
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .count();
    assert_eq!(replies, 20, "every turn was answered");
    // Asked when connecting (for the default context) and once after the first reply,
    // not every turn.
    let ps = server
        .requests()
        .iter()
        .filter(|r| r.path == "/api/ps")
        .count();
    assert_eq!(ps, 2);
    // From then on the budget followed the server: no 400, nothing cut by the server.
    let chats = server
        .requests()
        .iter()
        .filter(|r| r.path == "/api/chat")
        .count();
    let outcomes = server.chat_outcomes();
    assert_eq!(chats, outcomes.len(), "a request was refused as too long");
    for o in &outcomes {
        assert_eq!(o.dropped_messages, 0);
    }
    assert!(exit.engine.compressions() >= 1);
    assert_eq!(exit.engine.budget().ctx, 1024);
}

#[tokio::test]
async fn opening_and_quitting_leaves_no_session_behind() {
    // No model given: the actor picks one from /api/tags, a settings change, but nothing
    // the person said or did: no session file.
    let server = FakeOllama::start().await;
    let (s, created) = start_lazy(&server, "");
    s.cmd(Request::SetCtx { ctx: Some(4096) }).await;
    let (exit, _) = s.finish().await;
    assert!(!exit.engine.status().model.is_empty(), "a model was chosen");
    assert!(
        !created.load(Ordering::SeqCst),
        "a session file was created"
    );
    assert!(exit.store.is_none());
}

#[tokio::test]
async fn the_first_message_writes_the_settings_made_before_it() {
    let server = FakeOllama::start().await;
    let (s, created) = start_lazy(&server, "");
    s.cmd(Request::SetCtx { ctx: Some(4096) }).await;
    s.say("hello").await;
    let (exit, _) = s.finish().await;
    assert!(created.load(Ordering::SeqCst));
    let bodies = records(&exit);
    let first_user = bodies
        .iter()
        .position(|r| matches!(r, RecordBody::User { .. }))
        .unwrap();
    let settings = bodies
        .iter()
        .position(|r| matches!(r, RecordBody::Settings { .. }))
        .unwrap();
    assert!(settings < first_user, "{bodies:?}");
    // Replaying what was written gives the live state.
    let store = exit.store.as_ref().unwrap();
    let (replayed, _) = Engine::replay(
        &store.header(),
        &store.records(),
        EngineConfig::default(),
        TOKENIZER.clone(),
        Arc::new(Prompts::builtin()),
    );
    assert_eq!(replayed.ctx(), 4096);
    assert_eq!(exit.engine.ctx(), 4096);
    assert_eq!(replayed.status().model, exit.engine.status().model);
}

#[tokio::test]
async fn a_resumed_session_ending_in_an_unanswered_message_says_how_to_go_on() {
    let server = FakeOllama::start().await;
    let e = with_inputs(
        engine("llama3.2:3b", None),
        vec![
            Request::Send {
                text: "sent before the crash".into(),
                images: Vec::new(),
            }
            .into(),
        ],
    );
    let (_, updates) = start_with(&server, e, OllamaOptions::default())
        .finish()
        .await;
    assert!(
        notices(&updates).iter().any(|n| n.contains("/retry")),
        "{:?}",
        notices(&updates)
    );
    // A resumed conversation whose last message was answered gets no such notice.
    let e = with_inputs(
        engine("llama3.2:3b", None),
        vec![
            Request::Send {
                text: "asked".into(),
                images: Vec::new(),
            }
            .into(),
            Input::Reply(ReplyInput {
                text: "answered".into(),
                status: ReplyStatus::Complete,
                prompt_eval_count: None,
                prompt_eval_cached: None,
                eval_count: None,
                prompt_raw: 0,
                tool_calls: Vec::new(),
                thinking: String::new(),
                timing: None,
            }),
        ],
    );
    let (_, updates) = start_with(&server, e, OllamaOptions::default())
        .finish()
        .await;
    assert!(!notices(&updates).iter().any(|n| n.contains("/retry")));
}

/// Message ids and fold markers in the order a transcript shows them.
fn order_of(items: &[Entry]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| match (&i.kind, i.id) {
            (EntryKind::Fold { checkpoint, .. }, _) => Some(format!("fold {checkpoint}")),
            (_, Some(id)) => Some(format!("{id}")),
            _ => None,
        })
        .collect()
}

/// `turns` questions with 150-word replies at a 2,048-token context: every turn or two
/// compresses, and after ~25 turns the oldest checkpoints merge. The server stays up so
/// a test can resume against it.
async fn long_replies_at_2k(turns: usize) -> (FakeOllama, ActorExit<MemoryStore>, Vec<Update>) {
    let server = FakeOllama::start().await;
    server.set_reply_words(150);
    let s = start(&server, "llama3.2:3b", Some(2048));
    for i in 0..turns {
        s.say(&format!("Tell me about topic_{i}")).await;
    }
    let (exit, updates) = s.finish().await;
    (server, exit, updates)
}

#[tokio::test]
async fn a_resumed_transcript_shows_fold_markers_where_they_appeared_live() {
    let (server, exit, updates) = long_replies_at_2k(24).await;
    assert!(exit.engine.compressions() >= 2);
    let mut live: Vec<String> = Vec::new();
    for u in &updates {
        match u {
            Update::Appended(i) => live.extend(order_of(std::slice::from_ref(i))),
            Update::ReplyEnd { id: Some(id), .. } => live.push(format!("{id}")),
            _ => {}
        }
    }
    // Resume: a new actor on the same engine state sends the whole transcript first.
    let (_, updates) = start_with(&server, exit.engine, OllamaOptions::default())
        .finish()
        .await;
    let resumed = updates
        .iter()
        .find_map(|u| match u {
            Update::Transcript(items) => Some(order_of(items)),
            _ => None,
        })
        .unwrap();
    // Aging may merge checkpoints away; those still there sit where they were shown.
    let position = |list: &[String], what: &str| list.iter().position(|x| x == what);
    let mut compared = 0;
    for f in resumed.iter().filter(|x| x.starts_with("fold")) {
        let (Some(r), Some(l)) = (position(&resumed, f), position(&live, f)) else {
            continue;
        };
        compared += 1;
        assert_eq!(
            resumed.get(r.wrapping_sub(1)),
            live.get(l.wrapping_sub(1)),
            "{f}: live {live:?}\nresumed {resumed:?}"
        );
    }
    assert!(compared >= 1, "live {live:?}\nresumed {resumed:?}");
}

#[tokio::test]
async fn hints_name_the_keys_the_keymap_binds_and_unpin_says_unpin() {
    let server = FakeOllama::start().await;
    let s = start(&server, "llama3.2:3b", None);
    s.say("hello").await;
    s.cmd(Request::Snapshot { label: None }).await;
    s.cmd(Request::Pin {
        id: None,
        pinned: false,
    })
    .await;
    let (_, updates) = s.finish().await;
    let keys = KeyNames {
        restore: "F6".into(),
        ..KeyNames::default()
    };
    let notices = notices_with(&updates, &keys);
    assert!(
        notices.iter().any(|n| n.contains("(F6 to restore)")),
        "{notices:?}"
    );
    assert!(!notices.iter().any(|n| n.contains("Ctrl+R")), "{notices:?}");
    assert!(
        notices
            .iter()
            .any(|n| n.starts_with("Unpinned message") && n.contains("may be folded")),
        "{notices:?}"
    );
}

#[tokio::test]
async fn folded_messages_are_reported_live_and_on_resume() {
    let (server, exit, updates) = long_replies_at_2k(14).await;
    let folded = |updates: &[Update]| -> std::collections::BTreeMap<u64, u32> {
        let mut m = std::collections::BTreeMap::new();
        for u in updates {
            if let Update::Folded { checkpoint, ids } = u {
                for id in ids {
                    m.insert(id.0, *checkpoint);
                }
            }
        }
        m
    };
    // Every message a checkpoint covers was reported, with that checkpoint's number.
    let expected: std::collections::BTreeMap<u64, u32> = exit
        .engine
        .checkpoints()
        .iter()
        .flat_map(|cp| cp.covers.iter().map(move |id| (id.0, cp.number)))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(folded(&updates), expected);
    // A resumed session reports the same, after its transcript.
    let (_, resumed) = start_with(&server, exit.engine, OllamaOptions::default())
        .finish()
        .await;
    let first_folded = resumed
        .iter()
        .position(|u| matches!(u, Update::Folded { .. }))
        .unwrap();
    assert!(matches!(
        resumed
            .iter()
            .position(|u| matches!(u, Update::Transcript(_))),
        Some(t) if t < first_folded
    ));
    assert_eq!(folded(&resumed), expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reply_updates_the_token_count_as_it_goes() {
    // 300 ms between tokens: the count must follow them, not wait for a batch.
    let server = FakeOllama::start_with(FakeConfig {
        token_delay: Duration::from_millis(300),
        reply_words: 4,
        ..FakeConfig::default()
    })
    .await;
    let s = start(&server, "llama3.2:3b", None);
    let mut view = s.spawned.view.clone();
    let watcher = tokio::spawn(async move {
        let mut seen = std::collections::BTreeSet::new();
        while view.changed().await.is_ok() {
            if let Activity::Generating { chunks, .. } = view.borrow_and_update().activity {
                seen.insert(chunks);
            }
        }
        seen
    });
    s.say("hello").await;
    let _ = s.finish().await;
    let seen = watcher.await.unwrap();
    assert!(seen.iter().any(|&c| c >= 2), "counts seen: {seen:?}");
}

#[tokio::test]
async fn retry_after_a_broken_reply_asks_afresh_and_keeps_the_fragment() {
    let server = FakeOllama::start().await;
    server.set_reply_words(30);
    let s = start(&server, "llama3.2:3b", None);
    server.push_fault(Fault::DropAfter { tokens: 3 });
    s.say("tell me a story").await;
    s.cmd(Request::Retry).await;
    let (exit, updates) = s.finish().await;
    let b = banners(&updates);
    assert!(
        b.iter()
            .any(|(t, h)| t.contains("broke off")
                && h.as_deref().is_some_and(|h| h.contains("/retry"))),
        "{b:?}"
    );
    // The retry's success takes the banner about the broken reply down.
    let banner_at = updates
        .iter()
        .position(|u| {
            matches!(u, Update::Banner(n)
                if words::notice(n, &KeyNames::default()).title.contains("broke off"))
        })
        .unwrap();
    assert!(
        updates[banner_at..]
            .iter()
            .any(|u| matches!(u, Update::ClearBanner)),
        "the banner stays up after the retry succeeded"
    );
    // The retry's request ends with the question, without the fragment.
    let requests = server.chat_requests();
    let last = requests.last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(last.last().unwrap()["role"], "user");
    assert_eq!(last.last().unwrap()["content"], "tell me a story");
    assert!(!last.iter().any(|m| m["role"] == "assistant"), "{last:?}");
    // Both replies are in the history: the fragment marked, the new one complete.
    let statuses: Vec<ReplyStatus> = exit
        .engine
        .history()
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .map(|m| m.status)
        .collect();
    assert_eq!(statuses, [ReplyStatus::Interrupted, ReplyStatus::Complete]);
}

#[tokio::test]
async fn merged_checkpoints_are_announced_by_number() {
    let (_server, exit, updates) = long_replies_at_2k(48).await;
    let mut shown = std::collections::BTreeSet::new();
    let mut merges = 0;
    for u in &updates {
        match u {
            Update::Appended(i) => {
                if let EntryKind::Fold { checkpoint, .. } = i.kind {
                    shown.insert(checkpoint);
                }
            }
            Update::Merged { checkpoints, into } => {
                merges += 1;
                assert!(!checkpoints.is_empty());
                // Every merged number is one the transcript showed a divider for.
                for n in checkpoints {
                    assert!(shown.contains(n), "{n} never shown: {shown:?}");
                }
                assert!(shown.contains(into) || checkpoints.contains(into));
            }
            _ => {}
        }
    }
    assert!(
        merges >= 1,
        "no merge in {} compressions",
        exit.engine.compressions()
    );
    // Compressions alone are no loss (#37 item 4): no alarm is made of their count, and a
    // warning of measured loss would be a dated notice, never a banner that goes stale.
    assert!(
        !notices(&updates)
            .iter()
            .any(|n| n.contains("compressed this conversation")),
        "an alarm made of a count"
    );
    assert!(
        !banners(&updates)
            .iter()
            .any(|(t, _)| t.contains("facts you stated"))
    );
}

#[tokio::test]
async fn refused_marker_lines_and_finished_goals_are_said_in_words() {
    use ollm_tui::core::goals::{GoalChange, GoalStatus};
    let server = FakeOllama::start().await;
    let s = start(&server, "llama3.2:3b", None);
    s.cmd(Request::Goal {
        change: GoalChange::SetGoal {
            description: "Ship the cache".into(),
            priority: Default::default(),
        },
    })
    .await;
    server.push_reply("Sure.\n[GOAL] Rewrite everything in Go");
    s.say("what next?").await;
    s.cmd(Request::Goal {
        change: GoalChange::GoalStatus {
            status: GoalStatus::Completed,
        },
    })
    .await;
    let (exit, updates) = s.finish().await;
    let notices = notices(&updates);
    assert!(
        notices
            .iter()
            .any(|n| n.contains("[GOAL] Rewrite everything in Go")
                && n.contains("cannot replace the active goal")),
        "{notices:?}"
    );
    assert!(
        notices.iter().any(|n| n.starts_with("Goal completed")),
        "{notices:?}"
    );
    assert!(exit.engine.goals().active.is_none());
}

#[tokio::test]
async fn asking_for_more_context_than_the_model_was_trained_on_is_warned() {
    let server = FakeOllama::start().await;
    server.add_model(FakeModel::new(
        "tiny:1b",
        "llama",
        "1.2B",
        1_200_000_000,
        1024,
    ));
    let s = start(&server, "tiny:1b", None);
    s.cmd(Request::SetCtx { ctx: Some(8192) }).await;
    s.cmd(Request::SetCtx { ctx: Some(1024) }).await;
    let (_, updates) = s.finish().await;
    let notices = notices(&updates);
    let warned: Vec<&String> = notices
        .iter()
        .filter(|n| n.contains("was trained on"))
        .collect();
    assert_eq!(warned.len(), 1, "only for 8192: {warned:?}");
    assert!(warned[0].contains("trained on 1024 tokens"), "{warned:?}");
}

/// Ask for the snapshot list; how long the answer took.
async fn list_snapshots_timed(
    s: &Session,
) -> (Vec<ollm_tui::core::snapshot::SnapshotMeta>, Duration) {
    let started = std::time::Instant::now();
    let (tx, rx) = tokio::sync::oneshot::channel();
    s.cmd(Ask::ListSnapshots { reply: tx }).await;
    let list = tokio::time::timeout(Duration::from_secs(10), rx)
        .await
        .expect("no answer while busy")
        .unwrap()
        .unwrap()
        .snapshots;
    (list, started.elapsed())
}

/// Wait until the actor's activity matches.
async fn wait_for_activity(s: &Session, what: impl Fn(&Activity) -> bool) {
    let mut view = s.spawned.view.clone();
    tokio::time::timeout(
        Duration::from_secs(30),
        view.wait_for(|v| what(&v.activity)),
    )
    .await
    .expect("the activity never came")
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_commands_are_answered_while_a_reply_streams_and_a_compression_runs() {
    // While a reply streams: the server stalls after two tokens and keeps the stream open.
    let server = FakeOllama::start().await;
    let s = start(&server, "llama3.2:3b", None);
    s.cmd(Request::Snapshot {
        label: Some("mark".into()),
    })
    .await;
    server.push_fault(Fault::StallAfter { tokens: 2 });
    s.say("tell me a story").await;
    wait_for_activity(
        &s,
        |a| matches!(a, Activity::Generating { chunks, .. } if *chunks >= 1),
    )
    .await;
    let (list, took) = list_snapshots_timed(&s).await;
    assert_eq!(list.len(), 1, "{list:?}");
    assert!(took < Duration::from_millis(100), "answered after {took:?}");
    assert!(
        matches!(
            s.spawned.view.borrow().activity,
            Activity::Generating { .. }
        ),
        "the reply was still streaming"
    );
    s.cmd(Command::Stop).await;
    let (exit, _) = s.finish().await;
    assert_eq!(exit.engine.history().len(), 2, "the partial reply is kept");

    // While a fold's summary runs between turns: its request never gets an answer. (The
    // turns fit the window: nothing is folded before the compression asked for.)
    let server = FakeOllama::start().await;
    let long = "a long answer about the module layout and its tests ".repeat(20);
    let mut inputs = Vec::new();
    for i in 0..4 {
        inputs.push(Input::from(Request::Send {
            text: format!("question {i}"),
            images: Vec::new(),
        }));
        inputs.push(Input::Reply(ReplyInput {
            text: long.clone(),
            status: ReplyStatus::Complete,
            prompt_eval_count: None,
            prompt_eval_cached: None,
            eval_count: None,
            prompt_raw: 0,
            tool_calls: Vec::new(),
            thinking: String::new(),
            timing: None,
        }));
    }
    let e = with_inputs(engine("llama3.2:3b", Some(2048)), inputs);
    assert_eq!(e.compressions(), 0);
    let s = start_with(&server, e, OllamaOptions::default());
    s.wait_for_messages(8).await;
    server.push_fault(Fault::StallAfter { tokens: 0 });
    s.cmd(Request::Compress { focus: None }).await;
    wait_for_view(&s, |v| v.background.is_some()).await;
    let (list, took) = list_snapshots_timed(&s).await;
    assert!(took < Duration::from_millis(100), "answered after {took:?}");
    // The recovery snapshot taken before the fold is listed.
    assert_eq!(list.len(), 1, "{list:?}");
    // The model list is fetched apart: it cannot hold up the actor either.
    let (tx, rx) = tokio::sync::oneshot::channel();
    s.cmd(Ask::ListModels { reply: tx }).await;
    let models = tokio::time::timeout(Duration::from_secs(10), rx)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(!models.is_empty());
    assert!(s.spawned.view.borrow().background.is_some());
    s.cmd(Command::Stop).await;
    let (exit, updates) = s.finish().await;
    // The fold was made at once; the summary stopped changes nothing.
    assert_eq!(exit.engine.compressions(), 1);
    assert!(exit.engine.checkpoints()[0].summary.is_empty());
    assert!(
        notices(&updates)
            .iter()
            .any(|n| n.contains("The summary under way was stopped")),
        "{:?}",
        notices(&updates)
    );
}

async fn wait_for_view(s: &Session, what: impl Fn(&ollm_tui::view::SessionView) -> bool) {
    let mut view = s.spawned.view.clone();
    tokio::time::timeout(Duration::from_secs(30), view.wait_for(|v| what(v)))
        .await
        .expect("the state never came")
        .unwrap();
}

/// Turns with long replies, then a compression asked for (F7): the fold is made at
/// once and its summary asked of the server; the messages the session holds when that
/// summary is running.
async fn until_summary(s: &Session) -> usize {
    for i in 0..8 {
        s.say(&format!("question {i} about the module layout"))
            .await;
    }
    s.wait_for_messages(16).await;
    s.cmd(Request::Compress { focus: None }).await;
    wait_for_view(s, |v| v.background.is_some() && v.status.compressions == 1).await;
    16
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fold_is_made_at_once_and_the_next_message_stops_its_summary() {
    let server = FakeOllama::start().await;
    server.set_reply_words(120);
    server.hold_summaries(true);
    let s = start(&server, "llama3.2:3b", Some(2048));
    let n = until_summary(&s).await;
    // A message sent now stops the summary (the server serves one request at a time: it
    // would wait behind it) and is answered.
    s.say("WHILE-IT-RUNS").await;
    s.wait_for_messages(n + 2).await;
    {
        let v = s.spawned.view.borrow();
        assert!(v.background.is_none(), "the summary gave way");
        assert_eq!(v.status.compressions, 1);
    }
    // The summary was dropped, not applied later.
    server.hold_summaries(false);
    let (exit, _) = s.finish().await;
    let v = exit.engine.summary_verdicts();
    assert_eq!(v.kept + v.rejected, 0, "{v:?}");
    let prompt = exit.engine.prompt();
    assert!(prompt.messages.iter().any(|m| m.content == "WHILE-IT-RUNS"));
    // The log holds the checkpoint before the message: the fold did not wait.
    let kinds: Vec<&str> = records(&exit)
        .iter()
        .filter_map(|r| match r {
            RecordBody::User { text, .. } if text == "WHILE-IT-RUNS" => Some("while"),
            RecordBody::Checkpoint { .. } => Some("checkpoint"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["checkpoint", "while"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_between_turns_ends_the_summary_and_keeps_the_fold() {
    let server = FakeOllama::start().await;
    server.set_reply_words(120);
    server.hold_summaries(true);
    let s = start(&server, "llama3.2:3b", Some(2048));
    let n = until_summary(&s).await;
    s.cmd(Command::Stop).await;
    wait_for_view(&s, |v| v.background.is_none()).await;
    server.hold_summaries(false);
    let (exit, updates) = s.finish().await;
    assert_eq!(exit.engine.compressions(), 1);
    assert_eq!(exit.engine.history().len(), n);
    assert!(exit.engine.summary_verdicts().kept + exit.engine.summary_verdicts().rejected == 0);
    assert!(
        notices(&updates)
            .iter()
            .any(|n| n.contains("The summary under way was stopped")),
        "{:?}",
        notices(&updates)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_that_does_not_fit_folds_and_goes_at_once() {
    let server = FakeOllama::start().await;
    server.set_reply_words(120);
    server.hold_summaries(true);
    let s = start(&server, "llama3.2:3b", Some(2048));
    for i in 0..4 {
        s.say(&format!("question {i} about the module layout"))
            .await;
    }
    s.say(&format!("BIG {}", "detail ".repeat(700))).await;
    s.wait_for_messages(10).await;
    let (exit, _) = s.finish().await;
    assert!(exit.engine.compressions() >= 1);
    let last = exit.engine.history().iter().last().unwrap();
    assert_eq!(last.role, Role::Assistant);
    // Every request fit the window, and none waited on a summary.
    for o in server.chat_outcomes() {
        assert_eq!(o.dropped_messages, 0, "{o:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn summaries_go_to_the_summary_model_on_the_summary_server() {
    let chat_server = FakeOllama::start().await;
    chat_server.set_reply_words(120);
    let summary_server = FakeOllama::start().await;
    let e = engine("llama3.1:70b", Some(2048));
    let store = open_store(e.header("test"));
    let spawned = actor::spawn(Parts {
        backend: OllamaBackend::new(&chat_server.url(), OllamaOptions::default()).unwrap(),
        summary_backend: Some(
            OllamaBackend::new(&summary_server.url(), OllamaOptions::default()).unwrap(),
        ),
        engine: Box::new(move || e),
        store,
        config: ActorConfig {
            host: chat_server.url(),
            reconnect_after: Duration::from_secs(3600),
            summary_model: Some("qwen2.5-coder:0.5b".into()),
            ..ActorConfig::default()
        },
        model: None,
    });
    let s = Session { spawned };
    for i in 0..14 {
        s.say(&format!("question {i} about the module layout"))
            .await;
    }
    s.wait_for_messages(28).await;
    // A compression asked for: the fold at once, its summary between turns.
    s.cmd(Request::Compress { focus: None }).await;
    wait_for_view(&s, |v| v.status.compressions >= 1 && v.background.is_some()).await;
    wait_for_view(&s, |v| v.background.is_none()).await;
    let (exit, updates) = s.finish().await;
    assert!(exit.engine.compressions() >= 1, "{:?}", notices(&updates));
    let summaries = summary_server.chat_outcomes();
    assert!(!summaries.is_empty());
    for o in &summaries {
        assert!(o.summary, "only summaries on the summary server: {o:?}");
        assert_eq!(o.model, "qwen2.5-coder:0.5b");
    }
    for o in chat_server.chat_outcomes() {
        assert!(!o.summary, "no summary on the chat server: {o:?}");
        assert_eq!(o.model, "llama3.1:70b");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_during_a_stalled_reply_ends_it_at_once_and_keeps_what_arrived() {
    let server = FakeOllama::start().await;
    let s = start(&server, "llama3.2:3b", None);
    server.push_fault(Fault::StallAfter { tokens: 2 });
    s.say("tell me a story").await;
    wait_for_activity(
        &s,
        |a| matches!(a, Activity::Generating { chunks, .. } if *chunks >= 1),
    )
    .await;
    s.cmd(Command::Shutdown).await;
    // Only the idle timeout (60 s) would end the stream: the actor must not wait for it.
    let (exit, _) = tokio::time::timeout(Duration::from_secs(10), s.finish())
        .await
        .expect("shutdown waited for the stalled stream");
    let last = exit.engine.history().last().unwrap();
    assert_eq!(last.role, Role::Assistant);
    assert_eq!(last.status, ReplyStatus::Interrupted);
    assert!(!last.text.is_empty());
}

fn with_tools(
    dir: &std::path::Path,
    mode: ollm_tui::tools::ToolMode,
) -> impl FnOnce(&mut ActorConfig) {
    let sandbox = ollm_tui::tools::Sandbox::new(dir).unwrap();
    move |cfg: &mut ActorConfig| {
        cfg.tools = Some(actor::ToolsConfig {
            sandbox,
            approvals: ollm_tui::tools::Approvals::new(mode, Default::default()),
            limits: ollm_tui::tools::Limits::default(),
            mcp: Vec::new(),
            env: ollm_tui::tools::ToolEnv {
                umask: 0o022,
                supervisor: Some(env!("CARGO_BIN_EXE_ollm-tui").into()),
            },
        });
    }
}

/// A session whose tools work in `dir`, with the default rules (reading runs, the rest
/// asks).
fn start_with_tools(server: &FakeOllama, dir: &std::path::Path) -> Session {
    spawn_session(
        &server.url(),
        engine("llama3.2:3b", None),
        OllamaOptions::default(),
        open_store,
        with_tools(dir, ollm_tui::tools::ToolMode::Ask),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_runs_and_its_result_goes_back_as_ollama_expects() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "the port is 7040\n").unwrap();
    let server = FakeOllama::start().await;
    server.push_tool_calls(vec![(
        "read_file",
        serde_json::json!({"path": "notes.txt"}),
    )]);
    let s = start_with_tools(&server, dir.path());
    s.say("what is in notes.txt?").await;
    s.wait_for_messages(4).await;
    let (exit, updates) = s.finish().await;
    let recs = records(&exit);
    // user, assistant (the call), tool (the result), assistant (the answer)
    let RecordBody::Assistant { tool_calls, .. } = &recs[1] else {
        panic!("{recs:?}")
    };
    assert_eq!(tool_calls[0].name, "read_file");
    let RecordBody::Tool {
        result,
        is_error,
        call_id,
        ..
    } = &recs[2]
    else {
        panic!("{recs:?}")
    };
    assert!(!is_error && result.contains("the port is 7040"), "{result}");
    assert_eq!(call_id.as_deref(), Some(tool_calls[0].id.as_str()));
    assert!(matches!(&recs[3], RecordBody::Assistant { tool_calls, .. } if tool_calls.is_empty()));
    // The first request offered the tools; the second sent the call and its result back.
    let chat = server.chat_requests();
    assert!(
        chat[0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["function"]["name"] == "read_file")
    );
    let msgs = chat[1]["messages"].as_array().unwrap();
    let call = &msgs[msgs.len() - 2];
    assert_eq!(call["role"], "assistant");
    assert_eq!(call["tool_calls"][0]["function"]["name"], "read_file");
    assert_eq!(
        call["tool_calls"][0]["function"]["arguments"]["path"],
        "notes.txt"
    );
    let res = &msgs[msgs.len() - 1];
    assert_eq!(res["role"], "tool");
    assert_eq!(res["tool_name"], "read_file");
    assert_eq!(res["tool_call_id"], call["tool_calls"][0]["id"]);
    assert!(res["content"].as_str().unwrap().contains("7040"));
    assert!(updates.iter().any(|u| matches!(
        u,
        Update::Appended(Entry {
            kind: EntryKind::Tool { .. },
            ..
        })
    )));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_asks_first_and_a_denial_is_told_to_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOllama::start().await;
    server.push_tool_calls(vec![(
        "run_command",
        serde_json::json!({"command": "touch made-it"}),
    )]);
    server.push_tool_calls(vec![(
        "run_command",
        serde_json::json!({"command": "touch denied"}),
    )]);
    let s = start_with_tools(&server, dir.path());
    s.say("make a file").await;
    let mut view = s.spawned.view.clone();
    for (expected, answer) in [
        ("touch made-it", actor::Approval::Once),
        (
            "touch denied",
            actor::Approval::Deny {
                reason: Some("not now".into()),
            },
        ),
    ] {
        let ask = tokio::time::timeout(
            Duration::from_secs(10),
            view.wait_for(
                |v| matches!(&v.activity, Activity::Approval(a) if a.preview.contains(expected)),
            ),
        )
        .await
        .expect("the call did not ask")
        .unwrap();
        let Activity::Approval(a) = &ask.activity else {
            unreachable!()
        };
        let id = a.id;
        drop(ask);
        // Nothing ran before the answer.
        assert!(
            !dir.path()
                .join(expected.trim_start_matches("touch "))
                .exists()
        );
        s.cmd(Command::Approve { id, answer }).await;
    }
    s.wait_for_messages(6).await;
    let (exit, _) = s.finish().await;
    assert!(dir.path().join("made-it").exists());
    assert!(!dir.path().join("denied").exists());
    let results: Vec<(String, bool)> = records(&exit)
        .into_iter()
        .filter_map(|r| match r {
            RecordBody::Tool {
                result, is_error, ..
            } => Some((result, is_error)),
            _ => None,
        })
        .collect();
    assert!(
        results[0].0.contains("exit status 0") && !results[0].1,
        "{results:?}"
    );
    assert!(
        results[1].0.contains("denied this call: not now") && results[1].1,
        "{results:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_round_cap_ends_a_loop_and_paths_outside_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOllama::start().await;
    for _ in 0..12 {
        server.push_tool_calls(vec![(
            "read_file",
            serde_json::json!({"path": "../etc/passwd"}),
        )]);
    }
    let s = start_with_tools(&server, dir.path());
    s.say("loop").await;
    // user + 10 rounds (call + result) + the capped call and its answer
    s.wait_for_messages(1 + 2 * 11).await;
    let (exit, updates) = s.finish().await;
    let recs = records(&exit);
    let tools: Vec<&String> = recs
        .iter()
        .filter_map(|r| match r {
            RecordBody::Tool { result, .. } => Some(result),
            _ => None,
        })
        .collect();
    assert_eq!(
        tools.len(),
        11,
        "10 rounds ran, the 11th was answered without running"
    );
    assert!(
        tools[0].contains("outside the working directory"),
        "{}",
        tools[0]
    );
    assert!(tools[10].contains("the limit"), "{}", tools[10]);
    assert_eq!(server.chat_requests().len(), 11);
    assert!(updates.iter().any(|u| matches!(
        u,
        Update::Engine(ollm_tui::core::events::EngineEvent::ToolRoundsCapped { rounds: 10 })
    )));
}

/// A server with the default models and a thinking one (`qwen3:4b`).
async fn server_with_a_thinking_model() -> FakeOllama {
    let mut models = support::fake_ollama::default_models();
    models.push(support::fake_ollama::thinking_model());
    FakeOllama::start_with(FakeConfig {
        models,
        ..FakeConfig::default()
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thinking_is_shown_and_stored_but_never_sent_back() {
    let server = server_with_a_thinking_model().await;
    let s = start(&server, "qwen3:4b", None);
    s.say("why is the sky blue").await;
    s.wait_for_messages(2).await;
    s.say("and at sunset").await;
    s.wait_for_messages(4).await;
    let (exit, updates) = s.finish().await;
    // It streamed as reasoning, apart from the text.
    let thought: String = updates
        .iter()
        .filter_map(|u| match u {
            Update::Thinking(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        thought.starts_with("Thinking about \"why is the sky blue\""),
        "{thought}"
    );
    let text: String = updates
        .iter()
        .filter_map(|u| match u {
            Update::Delta(d) => Some(d.as_str()),
            _ => None,
        })
        .collect();
    assert!(!text.contains("Thinking about"), "{text}");
    // It is in the log, with its reply.
    let RecordBody::Assistant { thinking, text, .. } = &records(&exit)[1] else {
        panic!()
    };
    assert!(thinking.starts_with("Thinking about \"why is the sky blue\""));
    assert!(!text.contains("Thinking about"));
    // The second request carries the first reply, without its reasoning.
    let requests = server.chat_requests();
    let second = requests.last().unwrap();
    let raw = second.to_string();
    assert!(
        raw.contains("You said: \\\"why is the sky blue\\\""),
        "{raw}"
    );
    assert!(!raw.contains("Thinking about"), "{raw}");
    assert!(
        second["messages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m.get("thinking").is_none())
    );
    // Nothing asked: the model's default (no `think` field).
    assert!(requests.iter().all(|r| r.get("think").is_none()));
    // The history (which replay rebuilds from the same records) keeps it too.
    let reply = exit.engine.history().iter().nth(1).unwrap();
    assert!(reply.thinking.starts_with("Thinking about"));
}

/// `/think WORD` as the app sends it: a setting of the session, the engine's.
fn think(word: &str) -> Command {
    Command::Request(Request::SetParam {
        change: ollm_tui::core::params::ParamChange::Think(Some(word.to_string())),
    })
}

/// `/think` is a setting of the session: logged, so a resumed session (and `/new`, `/fork`,
/// which start from its settings) goes on thinking as it was told.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn think_is_kept_with_the_session_and_sent_again_after_resume() {
    let server = server_with_a_thinking_model().await;
    let s = start(&server, "qwen3:4b", None);
    s.cmd(think("high")).await;
    s.say("first").await;
    s.wait_for_messages(2).await;
    let (exit, _) = s.finish().await;
    assert_eq!(exit.engine.params().think.as_deref(), Some("high"));
    let engine = replayed(&exit);
    assert_eq!(engine.params().think.as_deref(), Some("high"), "replayed");
    // The config says otherwise; the session's own word wins.
    let resumed = spawn_session(
        &server.url(),
        engine,
        OllamaOptions::default(),
        open_store,
        |c| c.think = Some(ollm_tui::llm::Think::Off),
    );
    resumed.say("second").await;
    resumed.wait_for_messages(4).await;
    let (_, updates) = resumed.finish().await;
    let thinks: Vec<Option<serde_json::Value>> = server
        .chat_requests()
        .iter()
        .map(|r| r.get("think").cloned())
        .collect();
    assert_eq!(
        thinks,
        vec![
            Some(serde_json::json!("high")),
            Some(serde_json::json!("high"))
        ]
    );
    // Said once, by the actor (which knows the model can think), not again by the engine.
    assert!(
        !notices(&updates)
            .iter()
            .any(|n| n.contains("for this session")),
        "{:?}",
        notices(&updates)
    );
}

/// `/set verbose` (#37 item 3), as `ollama run --verbose`: after each reply, the figures
/// of Ollama's final chunk, right under it. A setting of the session: a resumed one (and
/// `/new`, `/fork`) goes on showing them; `/set quiet` stops them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verbose_follows_each_reply_with_its_timing_and_is_kept_with_the_session() {
    use ollm_tui::core::params::ParamChange;
    use ollm_tui::view::Notice;
    let verbose = |on| Request::SetParam {
        change: ParamChange::Verbose(on),
    };
    let server = FakeOllama::start().await;
    let s = start(&server, "llama3.2:3b", None);
    s.say("before").await;
    s.cmd(verbose(true)).await;
    s.say("after").await;
    s.wait_for_messages(4).await;
    let (exit, updates) = s.finish().await;
    let timed: Vec<(usize, ollm_tui::core::speed::CallTiming)> = updates
        .iter()
        .enumerate()
        .filter_map(|(i, u)| match u {
            Update::Notice(Notice::ReplyTimed(t)) => Some((i, *t)),
            _ => None,
        })
        .collect();
    assert_eq!(timed.len(), 1, "only the reply after /set verbose");
    let (at, t) = timed[0];
    assert!(
        matches!(updates[at - 1], Update::ReplyEnd { .. }),
        "right under its reply: {:?}",
        &updates[at - 1]
    );
    // What the fake server's final chunk said, as Ollama says it.
    let outcome = server.chat_outcomes().pop().unwrap();
    assert_eq!(t.output_tokens, Some(outcome.eval_count));
    assert_eq!(t.prompt_tokens, Some(outcome.prompt_eval_count));
    assert_eq!(t.load_time, Some(Duration::from_nanos(12_345_678)));
    assert!((t.output_rate().unwrap() - 50.0).abs() < 1e-6, "{t:?}");
    assert!((t.prompt_rate().unwrap() - 4_000.0).abs() < 1e-6, "{t:?}");
    let line = words::reply_timing(&t);
    assert!(
        line.contains("load duration 12 ms") && line.ends_with("50.0 tokens/s"),
        "{line}"
    );
    assert!(exit.engine.params().verbose);
    let engine = replayed(&exit);
    assert!(engine.params().verbose, "kept in the log");

    let resumed = start_with(&server, engine, OllamaOptions::default());
    resumed.say("resumed").await;
    resumed.cmd(verbose(false)).await;
    resumed.say("quiet now").await;
    resumed.wait_for_messages(8).await;
    let (_, updates) = resumed.finish().await;
    let timed = updates
        .iter()
        .filter(|u| matches!(u, Update::Notice(Notice::ReplyTimed(_))))
        .count();
    assert_eq!(timed, 1, "after the resumed reply, not after /set quiet");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn think_is_sent_only_to_models_that_can_think() {
    let server = server_with_a_thinking_model().await;
    let s = start(&server, "qwen3:4b", None);
    s.cmd(think("off")).await;
    s.say("first").await;
    s.wait_for_messages(2).await;
    s.cmd(think("high")).await;
    s.say("second").await;
    s.wait_for_messages(4).await;
    // The same setting for a model without the capability: not sent (Ollama would refuse
    // the request).
    s.cmd(Command::SetModel {
        name: "llama3.2:3b".into(),
    })
    .await;
    s.say("third").await;
    s.wait_for_messages(6).await;
    let (exit, updates) = s.finish().await;
    let requests = server.chat_requests();
    let thinks: Vec<Option<serde_json::Value>> =
        requests.iter().map(|r| r.get("think").cloned()).collect();
    assert_eq!(
        thinks,
        vec![
            Some(serde_json::json!(false)),
            Some(serde_json::json!("high")),
            None
        ]
    );
    // The replies' reasoning, in order (the settings `/think` logged sit between them).
    let thinking: Vec<String> = records(&exit)
        .into_iter()
        .filter_map(|r| match r {
            RecordBody::Assistant { thinking, .. } => Some(thinking),
            _ => None,
        })
        .collect();
    assert!(thinking[0].is_empty(), "think:false: {}", thinking[0]);
    assert!(!thinking[1].is_empty());
    assert!(
        notices(&updates)
            .iter()
            .any(|n| n.contains("Thinking: `think: \"high\"`")),
        "{:?}",
        notices(&updates)
    );
    assert!(!banners(&updates).iter().any(|(t, _)| t.contains("think")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thinking_model_does_not_think_while_it_summarizes() {
    let server = server_with_a_thinking_model().await;
    server.set_reply_words(80);
    let s = start(&server, "qwen3:4b", None);
    for i in 0..30 {
        s.say(&format!("Tell me about topic_{i}")).await;
    }
    s.cmd(Request::Compress { focus: None }).await;
    let (exit, _) = s.finish().await;
    let summaries = server.summary_requests();
    assert!(
        !summaries.is_empty(),
        "no summary request in {} ({} compressions)",
        server.chat_requests().len(),
        exit.engine.compressions()
    );
    assert!(
        summaries
            .iter()
            .all(|r| r["think"] == serde_json::json!(false))
    );
    assert!(exit.engine.status().compressions >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_repeated_in_the_same_turn_is_not_run_again() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "port 7040\n").unwrap();
    let server = FakeOllama::start().await;
    let same = serde_json::json!({"path": "notes.txt"});
    server.push_tool_calls(vec![("read_file", same.clone())]);
    // A small model asks again, then again with another call beside it.
    server.push_tool_calls(vec![("read_file", same.clone())]);
    server.push_tool_calls(vec![
        ("read_file", same.clone()),
        ("list_files", serde_json::json!({})),
    ]);
    let s = start_with_tools(&server, dir.path());
    s.say("what is in notes.txt?").await;
    // user, call, result, call, "already", two calls, "already", listing, answer
    s.wait_for_messages(9).await;
    let (exit, _) = s.finish().await;
    let results: Vec<(String, String)> = records(&exit)
        .into_iter()
        .filter_map(|r| match r {
            RecordBody::Tool { name, result, .. } => Some((name, result)),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 4, "{results:?}");
    assert!(results[0].1.contains("port 7040"), "{results:?}");
    assert!(results[1].1.contains("already made"), "{results:?}");
    assert!(results[2].1.contains("already made"), "{results:?}");
    assert_eq!(results[3].0, "list_files", "{results:?}");
    assert!(results[3].1.contains("notes.txt"), "{results:?}");
    // Four requests: the question, after each round, and the answer came with the last.
    assert_eq!(server.chat_requests().len(), 4);
}

/// `search_history` answers from the whole conversation, over real HTTP: the line that
/// names what was asked, with its message number and who said it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_history_finds_a_line_of_the_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOllama::start().await;
    let s = start_with_tools(&server, dir.path());
    s.say("The staging database is pg-stage-3 on port 6543.")
        .await;
    s.wait_for_messages(2).await;
    s.say("And the cache is redis-9.").await;
    s.wait_for_messages(4).await;
    server.push_tool_calls(vec![(
        "search_history",
        serde_json::json!({"query": "staging database port"}),
    )]);
    s.say("which port was staging on?").await;
    s.wait_for_messages(8).await;
    let last = server.chat_requests().last().unwrap().clone();
    let found = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(found.contains("pg-stage-3 on port 6543"), "{found}");
    assert!(found.contains("(user)"), "{found}");
    assert!(!found.contains("redis-9"), "{found}");
    s.finish().await;
}

/// A file read far larger than its share of the context reaches the model shortened,
/// saying so and naming its id; `recall` with that id and a line range brings back
/// exactly those lines; the whole result is in the store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_result_is_shortened_and_recall_brings_back_the_lines_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let big: String = (1..=3000)
        .map(|i| format!("line {i} of the big file, value {}\n", i * 7))
        .collect();
    std::fs::write(dir.path().join("big.txt"), &big).unwrap();
    let server = FakeOllama::start().await;
    server.push_tool_calls(vec![("read_file", serde_json::json!({"path": "big.txt"}))]);
    let s = start_with_tools(&server, dir.path());
    s.say("read big.txt").await;
    s.wait_for_messages(4).await;
    let tool_content = |request: &serde_json::Value| {
        request["messages"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|m| m["role"] == "tool")
            .unwrap()["content"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let shortened = tool_content(&server.chat_requests()[1]);
    assert!(shortened.starts_with("[Shortened file:"), "{shortened}");
    assert!(
        shortened.len() < big.len() / 10,
        "{} bytes",
        shortened.len()
    );
    assert!(shortened.contains("line 1 of the big file"), "the head");
    assert!(!shortened.contains("line 1500 of the big file"));
    let id: u64 = shortened
        .split("recall with id ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap();

    server.push_tool_calls(vec![(
        "recall",
        serde_json::json!({"id": id, "start_line": 1500, "end_line": 1501}),
    )]);
    s.say("what is on line 1500 of big.txt?").await;
    s.wait_for_messages(8).await;
    let requests = server.chat_requests();
    let recalled = tool_content(requests.last().unwrap());
    // A file read is recalled by the file's own line numbers, as the model saw them.
    assert_eq!(
        recalled,
        format!(
            "result {id}: big.txt lines 1500–1501 (of 3000 in the file)\n 1500  line 1500 of the big file, value 10500\n 1501  line 1501 of the big file, value 10507\n"
        )
    );
    // `/inspect #N`: what the model saw beside the whole result.
    let (tx, rx) = tokio::sync::oneshot::channel();
    s.cmd(Ask::InspectResult {
        id: ollm_tui::core::message::MessageId(id),
        reply: tx,
    })
    .await;
    let inspection = rx.await.unwrap().unwrap();
    assert_eq!(inspection.seen, shortened);
    assert_eq!(inspection.original.lines().count(), 3001);
    let (exit, updates) = s.finish().await;
    let store = exit.store.as_ref().unwrap();
    let saved = ollm_tui::store::SessionStore::load_result(store, &format!("{id}.txt")).unwrap();
    assert_eq!(saved, inspection.original);
    assert_eq!(saved.lines().count(), 3001);
    assert!(saved.ends_with("\n 3000  line 3000 of the big file, value 21000\n"));
    // The transcript line says what the model kept.
    assert!(updates.iter().any(|u| matches!(
        u,
        Update::Appended(Entry {
            kind: EntryKind::Tool { original_chars: Some(n), .. },
            ..
        }) if *n as usize == saved.chars().count()
    )));
}

/// `mid.txt`: 600 numbered lines, a few times over a tool result's share at ctx 4096 and
/// few enough parts to be read through.
fn mid_file(dir: &std::path::Path) {
    let mid: String = (1..=600)
        .map(|i| format!("line {i} of the mid file, port {}\n", 7000 + i))
        .collect();
    std::fs::write(dir.join("mid.txt"), mid).unwrap();
}

/// A file read a few times over its limit is read through by the model before it enters
/// the context (layer 1): one notes request per part, each with what the person asked
/// and the call; the context gets the notes, marked and naming the saved whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_result_is_read_through_by_the_model_in_parts() {
    let dir = tempfile::tempdir().unwrap();
    mid_file(dir.path());
    let server = FakeOllama::start().await;
    server.push_tool_calls(vec![("read_file", serde_json::json!({"path": "mid.txt"}))]);
    let s = start_with_tools(&server, dir.path());
    s.say("which port is on line 300 of mid.txt?").await;
    s.wait_for_messages(4).await;
    let notes = server.summary_requests();
    assert!(notes.len() >= 2, "{} notes requests", notes.len());
    let parts = notes
        .iter()
        .filter(|r| {
            r["messages"][1]["content"]
                .as_str()
                .unwrap()
                .contains("Part ")
        })
        .count();
    for r in &notes[..parts] {
        let user = r["messages"][1]["content"].as_str().unwrap();
        assert!(
            user.starts_with("Task: which port is on line 300 of mid.txt?"),
            "{user}"
        );
        assert!(
            user.contains("Tool call: read_file {\"path\":\"mid.txt\"}"),
            "{user}"
        );
        assert!(r["think"] == serde_json::json!(false) || r.get("think").is_none());
    }
    assert!(
        notes[0]["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains(&format!("Part 1 of {parts}"))
    );
    let chats: Vec<serde_json::Value> = server
        .chat_requests()
        .into_iter()
        .filter(|r| !server.summary_requests().contains(r))
        .collect();
    let seen = chats[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(seen.starts_with("[Summarized file:"), "{seen}");
    assert!(seen.contains(&format!("in {parts} parts")), "{seen}");
    assert!(seen.contains("recall with id 3"), "{seen}");
    let (exit, _) = s.finish().await;
    let tool = records(&exit)
        .into_iter()
        .find_map(|r| match r {
            RecordBody::Tool {
                original, result, ..
            } => Some((original, result)),
            _ => None,
        })
        .unwrap();
    let original = tool.0.expect("the whole result is saved");
    assert!(original.summarized);
    assert_eq!(tool.1, seen);
    let store = exit.store.as_ref().unwrap();
    let saved = ollm_tui::store::SessionStore::load_result(store, &original.file).unwrap();
    assert!(saved.contains("line 300 of the mid file, port 7300"));
    assert_eq!(saved.chars().count() as u64, original.chars);
}

/// Stop while the model reads a huge result through skips the reading, not the call:
/// the result goes in shortened by kind and the model answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_while_a_result_is_read_through_keeps_the_shortened_form() {
    let dir = tempfile::tempdir().unwrap();
    mid_file(dir.path());
    let server = FakeOllama::start().await;
    server.hold_summaries(true);
    server.push_tool_calls(vec![("read_file", serde_json::json!({"path": "mid.txt"}))]);
    let s = start_with_tools(&server, dir.path());
    s.say("read mid.txt").await;
    wait_for_view(&s, |v| {
        matches!(&v.activity, Activity::Tool { what, .. } if what.starts_with("reading the read_file result through"))
    })
    .await;
    s.cmd(Command::Stop).await;
    s.wait_for_messages(4).await;
    server.hold_summaries(false);
    let (exit, _) = s.finish().await;
    let result = records(&exit)
        .into_iter()
        .find_map(|r| match r {
            RecordBody::Tool {
                result, original, ..
            } => Some((result, original)),
            _ => None,
        })
        .unwrap();
    assert!(result.0.starts_with("[Shortened file:"), "{}", result.0);
    assert!(!result.1.unwrap().summarized);
    // The model was answered after the stop (the reply is the last message).
    assert_eq!(exit.engine.history().len(), 4);
}

/// Type ahead: a message sent while a reply streams is queued (the view lists it), then
/// sent as soon as the turn ends, in order; nothing is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_typed_during_a_reply_is_queued_and_sent_after_it() {
    let server = FakeOllama::start().await;
    server.set_token_delay(Duration::from_millis(30));
    let s = start(&server, "llama3.2:3b", Some(4096));
    s.say("FIRST question").await;
    wait_for_view(&s, |v| matches!(v.activity, Activity::Generating { .. })).await;
    s.say("SECOND, typed ahead").await;
    s.say("THIRD, typed ahead").await;
    wait_for_view(&s, |v| v.queued.len() == 2).await;
    assert_eq!(
        s.spawned.view.borrow().queued,
        vec!["SECOND, typed ahead", "THIRD, typed ahead"]
    );
    s.wait_for_messages(6).await;
    assert!(s.spawned.view.borrow().queued.is_empty());
    let (exit, _) = s.finish().await;
    let users: Vec<String> = exit
        .engine
        .history()
        .iter()
        .filter(|m| m.role == ollm_tui::core::message::Role::User)
        .map(|m| m.text.clone())
        .collect();
    assert_eq!(
        users,
        vec![
            "FIRST question",
            "SECOND, typed ahead",
            "THIRD, typed ahead"
        ]
    );
    // Each went out after the reply before it had ended: three requests, one per turn.
    let last_users: Vec<String> = server
        .chat_requests()
        .iter()
        .map(|r| {
            let m = r["messages"].as_array().unwrap();
            m.last().unwrap()["content"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(last_users, users);
}

/// A queued message taken back is never sent; the reply it waited for goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queued_message_taken_back_is_not_sent() {
    let server = FakeOllama::start().await;
    server.set_token_delay(Duration::from_millis(30));
    let s = start(&server, "llama3.2:3b", Some(4096));
    s.say("FIRST question").await;
    wait_for_view(&s, |v| matches!(v.activity, Activity::Generating { .. })).await;
    s.say("SECOND, on second thought").await;
    wait_for_view(&s, |v| v.queued.len() == 1).await;
    let (tx, rx) = tokio::sync::oneshot::channel();
    s.cmd(Ask::TakeBackQueued { reply: tx }).await;
    assert_eq!(rx.await.unwrap(), vec!["SECOND, on second thought"]);
    assert!(s.spawned.view.borrow().queued.is_empty());
    s.wait_for_messages(2).await;
    let (exit, _) = s.finish().await;
    assert_eq!(
        exit.engine.history().len(),
        2,
        "the reply ended; nothing else was sent"
    );
    assert_eq!(server.chat_requests().len(), 1);
}

/// Resume shows what happened: from the log alone (replayed, not the live engine), the
/// transcript has every fold divider shown live — merged ones too, naming the checkpoint
/// they ended in — where it was, and the notices the transcript showed (compressions,
/// merges, cuts) in the order they came.
#[tokio::test]
async fn a_resumed_transcript_shows_every_divider_and_notice_it_showed_live() {
    use ollm_tui::core::events::EngineEvent;
    use ollm_tui::view::Notice;
    let (server, exit, updates) = long_replies_at_2k(48).await;
    let mut live: Vec<String> = Vec::new();
    let mut live_events = Vec::new();
    for u in &updates {
        match u {
            Update::Appended(i) => live.extend(order_of(std::slice::from_ref(i))),
            Update::ReplyEnd { id: Some(id), .. } => live.push(format!("{id}")),
            Update::Notice(Notice::Engine(ev)) | Update::Banner(Notice::Engine(ev))
                if ollm_tui::view::show(ev).0 != ollm_tui::view::Place::Nowhere
                    && !matches!(ev, EngineEvent::CheckpointCreated { .. }) =>
            {
                live_events.push(ev.clone());
            }
            _ => {}
        }
    }
    let merged = updates.iter().any(|u| matches!(u, Update::Merged { .. }));
    assert!(merged, "the session is long enough to merge");
    let engine = replayed(&exit);
    let (_, updates) = start_with(&server, engine, OllamaOptions::default())
        .finish()
        .await;
    let items = updates
        .iter()
        .find_map(|u| match u {
            Update::Transcript(items) => Some(items.clone()),
            _ => None,
        })
        .unwrap();
    let resumed = order_of(&items);
    // Every divider shown live is there, after the same message as live.
    let live_folds: Vec<&String> = live.iter().filter(|x| x.starts_with("fold")).collect();
    let resumed_folds: Vec<&String> = resumed.iter().filter(|x| x.starts_with("fold")).collect();
    assert_eq!(resumed_folds, live_folds);
    let position = |list: &[String], what: &str| list.iter().position(|x| x == what);
    for f in live_folds {
        let (r, l) = (position(&resumed, f).unwrap(), position(&live, f).unwrap());
        assert_eq!(
            resumed.get(r.wrapping_sub(1)),
            live.get(l.wrapping_sub(1)),
            "{f}"
        );
    }
    // The merged ones say where they went.
    let merged_dividers = items
        .iter()
        .filter(|i| {
            matches!(
                i.kind,
                EntryKind::Fold {
                    merged_into: Some(_),
                    ..
                }
            )
        })
        .count();
    assert!(merged_dividers >= 2, "{merged_dividers}");
    // The notices, in the order they were shown live.
    let past: Vec<EngineEvent> = updates
        .iter()
        .find_map(|u| match u {
            Update::PastNotices(n) => Some(
                n.iter()
                    .filter_map(|(_, _, n)| match n {
                        Notice::Engine(ev) => Some(ev.clone()),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        })
        .unwrap();
    let kept: Vec<EngineEvent> = live_events
        .into_iter()
        .filter(ollm_tui::core::engine::kept_in_log)
        .collect();
    assert_eq!(past, kept);
    assert!(
        past.iter()
            .any(|e| matches!(e, EngineEvent::UserMessagesFolded { .. }))
    );
}

/// #31 item 5: the session's own system prompt and parameters go out with the chat: the
/// system text in the system message after the app's instructions, the parameters in
/// `options` (its temperature over the config file's; `num_predict` as set, at most the room
/// left for the reply).
#[tokio::test]
async fn the_sessions_system_prompt_and_parameters_are_in_the_request() {
    use ollm_tui::core::params::{Param, ParamChange, ParamValue};
    let server = FakeOllama::start().await;
    let s = spawn_session(
        &server.url(),
        engine("llama3.2:3b", Some(4096)),
        OllamaOptions::default(),
        open_store,
        |c| c.temperature = Some(0.9),
    );
    s.say("before").await;
    for change in [
        ParamChange::System(Some("Answer like a pirate.".into())),
        ParamChange::Set(Param::Temperature, Some(ParamValue::Float(0.2))),
        ParamChange::Set(Param::TopP, Some(ParamValue::Float(0.5))),
        ParamChange::Set(Param::Seed, Some(ParamValue::Int(42))),
        ParamChange::Set(Param::NumPredict, Some(ParamValue::Int(128))),
    ] {
        s.cmd(Request::SetParam { change }).await;
    }
    s.say("after").await;
    // A cap larger than the room left for the reply is cut to that room.
    s.cmd(Request::SetParam {
        change: ParamChange::Set(Param::NumPredict, Some(ParamValue::Int(100_000))),
    })
    .await;
    s.say("a long one please").await;
    let (exit, _) = s.finish().await;
    let chats = server.chat_requests();
    assert_eq!(chats.len(), 3, "{chats:?}");
    let capped = chats[2]["options"]["num_predict"].as_i64().unwrap();
    assert!(
        capped > 0 && capped < 4096,
        "cut to the room, not 100,000: {capped}"
    );
    // Before: the config's temperature, the engine's reply cap, no system text of ours.
    assert_eq!(
        chats[0]["options"]["temperature"].as_f64(),
        Some(0.9_f32.into())
    );
    assert!(chats[0]["options"].get("top_p").is_none());
    let system0 = chats[0]["messages"][0]["content"].as_str().unwrap();
    assert!(!system0.contains("pirate"));
    let o = &chats[1]["options"];
    assert_eq!(o["temperature"].as_f64(), Some(0.2_f32.into()));
    assert_eq!(o["top_p"], 0.5);
    assert_eq!(o["seed"], 42);
    assert_eq!(o["num_predict"], 128);
    assert_eq!(o["num_ctx"], 4096);
    let system = chats[1]["messages"][0]["content"].as_str().unwrap();
    assert_eq!(chats[1]["messages"][0]["role"], "system");
    assert!(
        system.starts_with(system0) && system.ends_with("Answer like a pirate."),
        "{system}"
    );
    assert_eq!(exit.engine.params().seed, Some(42));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_offered_over_a_long_chat_are_counted_and_the_window_is_kept() {
    // The fake counts the tool schemas in prompt_eval_count, as Ollama does. Before #35
    // the budget left them out, the calibration took the gap in as a ratio that fell as
    // the chat grew, and the engine read its own miscount as the server truncating: it
    // capped a 4K session's window near 2K and compressed for "overflow".
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOllama::start().await;
    server.set_reply_words(30);
    let s = spawn_session(
        &server.url(),
        engine("llama3.2:3b", Some(4096)),
        OllamaOptions::default(),
        open_store,
        with_tools(dir.path(), ollm_tui::tools::ToolMode::Ask),
    );
    for i in 0..40 {
        s.say(&format!(
            "Note {i} for shuttles.md: the shuttle for group {i} leaves at 9:{:02} from gate {i}.",
            i % 60
        ))
        .await;
    }
    s.wait_for_messages(80).await;
    let (exit, updates) = s.finish().await;
    let suspected = updates.iter().any(|u| {
        matches!(
            u,
            Update::Engine(ollm_tui::core::events::EngineEvent::TruncationSuspected { .. })
        )
    });
    assert!(
        !suspected,
        "the tools' cost was read as the server truncating"
    );
    let status = exit.engine.status();
    assert_eq!(status.server_limit, None);
    assert_eq!(status.budget.ctx, 4096);
    // The schemas are a fixed cost of their own, within a quarter of the window with the
    // system prompt, and every request offered the tools the engine said it would.
    assert!(status.budget.tools > 0);
    assert!(status.budget.fixed() <= 4096 / 4, "{:?}", status.budget);
    let requests = server.chat_requests();
    let offered: Vec<usize> = requests
        .iter()
        .map(|r| r["tools"].as_array().map_or(0, Vec::len))
        .collect();
    assert!(offered.iter().all(|n| *n > 0), "{offered:?}");
    // Our estimate of the last request is within a tenth of what the server counted.
    let last = exit
        .engine
        .history()
        .iter()
        .rev()
        .find_map(|m| (m.role == Role::Assistant).then_some(m.id))
        .unwrap();
    let (seen, sent) = exit
        .store
        .as_ref()
        .unwrap()
        .records()
        .into_iter()
        .find_map(|r| match r.body {
            RecordBody::Assistant {
                prompt_eval_count: Some(seen),
                prompt_estimate: Some(raw),
                ..
            } if r.seq == last.0 => Some((seen, raw)),
            _ => None,
        })
        .unwrap();
    let estimate = exit.engine.calibration().apply(sent);
    assert!(
        f64::from(estimate.abs_diff(seen)) <= f64::from(seen) * 0.1,
        "estimate {estimate}, server {seen}"
    );
}

#[tokio::test]
async fn a_check_asks_about_folded_facts_with_the_context_of_the_next_message_and_grades_what_it_carried()
 {
    // #37 item 4: an opt-in check measured against the model. The fake answers a blank
    // from the request's context as a reader would, so an answer is right exactly when
    // the request carried the fact.
    let server = FakeOllama::start().await;
    server.set_reply_words(10);
    let s = start(&server, "llama3.2:3b", Some(2048));
    for i in 0..60 {
        s.say(&format!(
            "Note {i}: the locker code for room {i} is {}.",
            ollm_tui::core::testing::locker_code(i)
        ))
        .await;
    }
    s.wait_for_messages(120).await;
    let before = server.chat_requests().len();
    let (tx, rx) = tokio::sync::oneshot::channel();
    s.spawned
        .handle
        .send(ollm_tui::actor::Ask::Check { reply: tx }.into())
        .await
        .unwrap();
    let report = rx.await.unwrap().unwrap();
    assert_eq!(report.graded.len(), ollm_tui::core::check::QUESTIONS);
    let asked: Vec<serde_json::Value> = server.chat_requests()[before..].to_vec();
    assert_eq!(asked.len(), report.graded.len(), "one request a question");
    for (g, body) in report.graded.iter().zip(&asked) {
        // No tool is offered and the answer is short.
        assert!(body["tools"].as_array().is_none_or(Vec::is_empty), "{body}");
        assert_eq!(body["options"]["num_predict"], 48);
        let messages = body["messages"].as_array().unwrap();
        let (last, context) = messages.split_last().unwrap();
        assert!(last["content"].as_str().unwrap().contains("____"));
        let carried = context
            .iter()
            .any(|m| m["content"].as_str().unwrap().contains(&g.probe.value));
        assert_eq!(g.right, carried, "{g:?}");
    }
    assert!(report.graded.iter().any(|g| g.right), "{report:?}");
    // The check wrote nothing into the conversation.
    let (exit, _) = s.finish().await;
    let users = records(&exit)
        .iter()
        .filter(|r| matches!(r, RecordBody::User { .. }))
        .count();
    assert_eq!(users, 60);
}

/// `/retry` after the request found the connection wanting (here: the model is not
/// installed) checks the link again before it sends once more: the server is asked about
/// the model between the two chat requests (#38 item 2: the engine asks for it,
/// `Effect::CheckLink`, and the actor connects).
#[tokio::test]
async fn retry_checks_the_link_before_it_sends_again() {
    let server = FakeOllama::start().await;
    let s = start(&server, "late:1b", None);
    s.say("hello").await;
    s.cmd(Request::Retry).await;
    let (exit, _) = s.finish().await;
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    let chats: Vec<usize> = paths
        .iter()
        .enumerate()
        .filter(|(_, p)| p.as_str() == "/api/chat")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(chats.len(), 2, "sent, then sent again: {paths:?}");
    assert!(
        paths[chats[0]..chats[1]].iter().any(|p| p == "/api/show"),
        "the model asked about again before the retry: {paths:?}"
    );
    assert!(exit.engine.last_message_unanswered());
}
