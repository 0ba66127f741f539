//! `/fork`: a new session from a session's messages up to #N. Its replay rebuilds the
//! state the parent had at N — the same as replaying the parent's log up to N, and, where
//! N was the last record of a turn, the state the parent had live then — and it keeps the
//! saved tool results it names; the parent is untouched.
#![allow(clippy::unwrap_used)]

use ollm_tui::core::engine::{Engine, Request};
use ollm_tui::core::goals::{GoalChange, Priority};
use ollm_tui::core::message::ToolCall;
use ollm_tui::core::record::{ActiveState, Record, RecordBody};
use ollm_tui::core::summarizer::doubles::Extractive;
use ollm_tui::core::testing::Harness;
use ollm_tui::core::tokens::ByteEstimate;
use ollm_tui::store::{DataDir, SessionLog, StoreError, manage};
use proptest::prelude::*;
use std::sync::Arc;

fn replay(
    header: &ollm_tui::core::record::Header,
    records: Vec<Record>,
    h: &Harness<Extractive>,
) -> Engine {
    let (e, report) = Engine::replay_owned(
        header,
        records,
        h.engine.config().clone(),
        h.engine.tokenizer().clone(),
        h.engine.prompts().clone(),
    );
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    e
}

/// A conversation of `turns` turns at a small window (so it compresses), with a goal,
/// and a large tool result every `tool_every` turns; the live state after each turn
/// whose last record is a message.
fn conversation(
    turns: usize,
    words: usize,
    tool_every: usize,
) -> (Harness<Extractive>, Vec<(u64, ActiveState)>) {
    let mut h = Harness::new(2048, Arc::new(ByteEstimate), Extractive::new());
    h.tool_output = |call| {
        let text: String = (1..=400)
            .map(|i| format!("line {i} of {} with value {}\n", call.args, i * 3))
            .collect();
        (text, false)
    };
    h.apply(Request::Goal {
        change: GoalChange::SetGoal {
            description: "Ship the cart fix".into(),
            priority: Priority::High,
        },
    });
    let mut live = Vec::new();
    for i in 0..turns {
        if tool_every > 0 && i % tool_every == 0 {
            h.scripted_calls.push_back(vec![ToolCall {
                id: String::new(),
                name: "read_file".into(),
                args: format!("{{\"path\":\"src/f{i}.rs\"}}"),
                from_text: false,
            }]);
            h.scripted_calls.push_back(Vec::new());
        }
        h.turn(&format!("Turn {i}: what about port {}?", 7000 + i), |_| {
            format!("Reply {i}: {}", "a few words on it ".repeat(words))
        });
        let last = h.records.last().unwrap();
        if last.body.is_message() {
            live.push((last.seq, h.engine.active_state()));
        }
    }
    (h, live)
}

fn write_parent(dir: &DataDir, h: &Harness<Extractive>) -> String {
    let mut log = SessionLog::create(dir, h.header()).unwrap();
    for r in &h.records {
        log.append(r).unwrap();
    }
    log.sync().unwrap();
    let id = h.engine.session_id().to_string();
    let results = dir.results_dir(&id);
    std::fs::create_dir_all(&results).unwrap();
    for (file, text) in &h.saved {
        std::fs::write(results.join(file), text).unwrap();
    }
    id
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn a_fork_replays_to_the_state_the_parent_had_at_n(
        turns in 4usize..16,
        words in 5usize..40,
        tool_every in 0usize..4,
        pick in 0usize..1000,
    ) {
        let (h, live) = conversation(turns, words, tool_every);
        let home = tempfile::tempdir().unwrap();
        let dir = DataDir::new(home.path()).unwrap();
        let parent = write_parent(&dir, &h);
        let parent_bytes = std::fs::read(dir.session_log_path(&parent)).unwrap();
        let messages: Vec<u64> = h.records.iter().filter(|r| r.body.is_message()).map(|r| r.seq).collect();
        let at = messages[pick % messages.len()];

        let fork = manage::fork(&dir, &parent, at).unwrap();
        let loaded = SessionLog::read(&dir, &fork).unwrap();
        prop_assert!(loaded.report.is_clean());
        let origin = loaded.header.fork_of.clone().unwrap();
        prop_assert_eq!((origin.session_id.as_str(), origin.at), (parent.as_str(), at));
        // Its records are the parent's up to N, nothing after.
        let prefix: Vec<Record> = h.records.iter().filter(|r| r.seq <= at).cloned().collect();
        prop_assert_eq!(&loaded.records, &prefix);
        let forked = replay(&loaded.header, loaded.records.clone(), &h);
        let parent_at_n = replay(&h.header(), prefix, &h);
        prop_assert_eq!(forked.active_state(), parent_at_n.active_state());
        prop_assert_eq!(forked.history(), parent_at_n.history());
        prop_assert_eq!(forked.prompt(), parent_at_n.prompt());
        prop_assert_eq!(forked.goals(), parent_at_n.goals());
        // Where N ended a turn, that is the state the parent had live.
        if let Some((_, state)) = live.iter().find(|(seq, _)| *seq == at) {
            prop_assert_eq!(&forked.active_state(), state);
        }
        // The saved results it names came along; none from after N.
        for r in &loaded.records {
            if let RecordBody::Tool { original: Some(o), .. } = &r.body {
                let copied = std::fs::read_to_string(dir.results_dir(&fork).join(&o.file)).unwrap();
                prop_assert_eq!(&copied, &h.saved[&o.file]);
            }
        }
        let later = h.records.iter().filter(|r| r.seq > at).filter_map(|r| match &r.body {
            RecordBody::Tool { original: Some(o), .. } => Some(o.file.clone()),
            _ => None,
        });
        for file in later {
            prop_assert!(!dir.results_dir(&fork).join(file).exists());
        }
        // The parent is untouched.
        prop_assert_eq!(std::fs::read(dir.session_log_path(&parent)).unwrap(), parent_bytes);
    }
}

#[test]
fn a_fork_of_a_message_that_does_not_exist_is_refused_and_writes_nothing() {
    let (h, _) = conversation(3, 5, 0);
    let home = tempfile::tempdir().unwrap();
    let dir = DataDir::new(home.path()).unwrap();
    let parent = write_parent(&dir, &h);
    let before = std::fs::read_dir(dir.sessions_dir()).unwrap().count();
    let past = h.records.last().unwrap().seq + 5;
    let e = manage::fork(&dir, &parent, past).unwrap_err();
    assert!(
        matches!(
            e,
            StoreError::NotFound {
                what: "message",
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains(&format!("#{past}")), "{e}");
    // A record that is not a message (the goal) is not a place to fork either.
    let goal = h.records.iter().find(|r| !r.body.is_message()).unwrap().seq;
    assert!(manage::fork(&dir, &parent, goal).is_err());
    assert_eq!(
        std::fs::read_dir(dir.sessions_dir()).unwrap().count(),
        before
    );
    assert!(matches!(
        manage::fork(&dir, "no-such-session", 1),
        Err(StoreError::NotFound { .. })
    ));
}

/// #31 item 9: a fork keeps the model, context, mode, system prompt and parameters the
/// parent has now — also those set after the message it is made at, which its copied
/// records alone would undo — and replaying it restores them.
#[test]
fn a_fork_keeps_the_settings_the_parent_has_now() {
    use ollm_tui::core::engine::Input;
    use ollm_tui::core::mode::Mode;
    use ollm_tui::core::params::{Param, ParamChange, ParamValue};
    let (mut h, _) = conversation(3, 5, 0);
    let at = h
        .records
        .iter()
        .rev()
        .find(|r| r.body.is_message())
        .unwrap()
        .seq;
    // Changed after the last message: a fork at it holds none of these records.
    h.apply(Input::SetModel {
        name: "qwen2.5-coder:0.5b".into(),
    });
    h.apply(Request::SetCtx { ctx: Some(1024) });
    h.apply(Request::SetMode {
        mode: Mode::Developer,
    });
    h.apply(Request::SetParam {
        change: ParamChange::System(Some("Answer in French.".into())),
    });
    h.apply(Request::SetParam {
        change: ParamChange::Set(Param::Temperature, Some(ParamValue::Float(0.2))),
    });
    let home = tempfile::tempdir().unwrap();
    let dir = DataDir::new(home.path()).unwrap();
    let parent = write_parent(&dir, &h);
    let id = manage::fork(&dir, &parent, at).unwrap();
    let loaded = SessionLog::read(&dir, &id).unwrap();
    let fork = replay(&loaded.header, loaded.records.clone(), &h);
    assert_eq!(fork.model(), "qwen2.5-coder:0.5b");
    assert_eq!(fork.ctx(), 1024);
    assert_eq!(fork.mode(), Mode::Developer);
    assert_eq!(fork.params(), h.engine.params());
    assert_eq!(fork.params().temperature, Some(0.2));
    // The messages are still those up to `at`, and the next record follows in order.
    assert_eq!(fork.history().iter().last().unwrap().id.0, at);
    let seqs: Vec<u64> = loaded.records.iter().map(|r| r.seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    // A fork of a parent whose settings did not change since adds nothing.
    let again = manage::fork(&dir, &id, at).unwrap();
    let twice = SessionLog::read(&dir, &again).unwrap();
    assert_eq!(twice.records.len(), loaded.records.len());
}
