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
