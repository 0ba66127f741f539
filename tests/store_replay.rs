//! A long session through a real session file: written by the engine's records, read back
//! by the store, replayed by the engine — the same state, in a file that grows linearly.
#![allow(clippy::unwrap_used)]

use ollm_tui::core::engine::Engine;
use ollm_tui::core::summarizer::doubles::Extractive;
use ollm_tui::core::testing::Harness;
use ollm_tui::core::tokens::ByteEstimate;
use ollm_tui::store::{DataDir, FileStore, SessionStore};
use std::sync::Arc;

#[test]
fn a_hundred_checkpoints_replay_exactly_from_a_file_that_grows_linearly() {
    let home = tempfile::tempdir().unwrap();
    let dir = DataDir::new(home.path()).unwrap();
    let mut h = Harness::new(2048, Arc::new(ByteEstimate), Extractive::new());
    let mut store = FileStore::create(&dir, h.header()).unwrap();
    let mut written = 0;
    let mut sizes = Vec::new();
    for i in 0..2000 {
        h.turn(
            &format!(
                "Question {i}: what about src/module_{i}.rs and port {}?",
                8000 + i
            ),
            |_| {
                format!(
                    "Answer {i}: {}",
                    "we discussed the details at some length. ".repeat(6)
                )
            },
        );
        for r in &h.records[written..] {
            store.append(r).unwrap();
        }
        written = h.records.len();
        store.sync().unwrap();
        sizes.push((
            written,
            std::fs::metadata(store.log().path()).unwrap().len(),
        ));
    }
    assert!(
        h.engine.compressions() >= 100,
        "{}",
        h.engine.compressions()
    );
    drop(store);

    let (_store, loaded) = FileStore::open(&dir, h.engine.session_id()).unwrap();
    assert!(loaded.report.is_clean());
    assert_eq!(loaded.records, h.records);
    let (re, report) = Engine::replay_owned(
        &loaded.header,
        loaded.records,
        h.engine.config().clone(),
        h.engine.tokenizer().clone(),
        h.engine.prompts().clone(),
    );
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(re.active_state(), h.engine.active_state());
    assert_eq!(re.history(), h.engine.history());
    assert_eq!(re.budget(), h.engine.budget());
    assert_eq!(re.prompt(), h.engine.prompt());
    assert_eq!(re.checkpoints().len(), h.engine.checkpoints().len());

    // Linear: each record adds its own line, nothing is rewritten, and no record grows with
    // the conversation (merged checkpoints do not list every message they cover), so bytes
    // per record stay flat from the first quarter of the session to the last.
    let per_record =
        |(n0, s0): (usize, u64), (n1, s1): (usize, u64)| (s1 - s0) as f64 / (n1 - n0) as f64;
    let q = sizes.len() / 4;
    let early = per_record(sizes[0], sizes[q]);
    let late = per_record(sizes[3 * q], *sizes.last().unwrap());
    assert!(
        late < early * 1.25 && late > early / 1.25,
        "bytes per record {early:.0} then {late:.0}"
    );
}

/// A crafted log whose 200 KB message says `"tokens": 3` (the count a record caches so
/// that replay need not count again): the request after it still fits the context,
/// counted by the tokenizer from the text actually sent.
#[test]
fn a_crafted_token_count_in_the_log_never_makes_an_over_budget_request() {
    use ollm_tui::core::engine::EngineConfig;
    use ollm_tui::core::message::ReplyStatus;
    use ollm_tui::core::prompts::Prompts;
    use ollm_tui::core::record::{Record, RecordBody};
    use ollm_tui::core::tokens::{Tiktoken, Tokenizer};
    let tok = Arc::new(Tiktoken::new().unwrap());
    let mut h = Harness::new(4096, tok.clone(), Extractive::new());
    let header = h.header();
    let ts = chrono::DateTime::from_timestamp(1_790_000_000, 0).unwrap();
    let big = "the crafted log says this whole text is three tokens. ".repeat(4_000);
    let records = vec![
        Record {
            seq: 1,
            ts,
            body: RecordBody::User {
                text: big.clone(),
                pinned: false,
                tokens: Some(3),
                images: Vec::new(),
            },
        },
        Record {
            seq: 2,
            ts,
            body: RecordBody::Assistant {
                text: "Noted.".into(),
                status: ReplyStatus::Complete,
                model: header.model.clone(),
                prompt_eval_count: None,
                prompt_eval_cached: None,
                prompt_estimate: None,
                eval_count: None,
                tokens: Some(1),
                tool_calls: Vec::new(),
                thinking: String::new(),
            },
        },
    ];
    let (engine, report) = Engine::replay(
        &header,
        &records,
        EngineConfig::default(),
        tok.clone(),
        Arc::new(Prompts::builtin()),
    );
    assert!(report.issues.is_empty(), "{report:?}");
    assert!(
        engine.budget().recent > 4096,
        "the gauge shows what the text really costs: {:?}",
        engine.budget()
    );
    h.engine = engine;
    let sent = std::cell::RefCell::new(Vec::new());
    h.turn("what did I paste?", |p| {
        let tokens: u32 = p.messages.iter().map(|m| tok.count(&m.content)).sum();
        sent.borrow_mut().push(tokens);
        "It was long.".into()
    });
    let sent = sent.into_inner();
    assert!(!sent.is_empty(), "nothing was sent");
    for tokens in sent {
        assert!(tokens < 4096, "a request of {tokens} tokens at ctx 4096");
    }
}
