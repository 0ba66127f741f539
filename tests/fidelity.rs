//! The fidelity benchmark's deterministic mode: every strategy plays short scenarios
//! against the fake Ollama server over real HTTP. It guards the plumbing — runs finish,
//! figures are consistent, the invariants hold — not the quality of summaries, which
//! only a real model can show (`cargo run --release --example fidelity`).
#![allow(clippy::unwrap_used)]

mod support;

use ollm_tui::core::tokens::Tiktoken;
use ollm_tui::fidelity::{self, Pace, Setup, Strategy, scenarios};
use ollm_tui::llm::{OllamaBackend, OllamaOptions};
use std::sync::Arc;
use std::time::Duration;
use support::fake_ollama::{FakeOllama, Fault};

/// The deterministic runs' setup: ctx 2048, no pause unless a `pace` is given.
fn setup(pace: Option<Pace>) -> Setup {
    Setup {
        model: "llama3.2:3b".into(),
        ctx: 2048,
        think: Duration::ZERO,
        pace,
        tok: Arc::new(Tiktoken::new().unwrap()),
        temperature: None,
        turn_timeout: Duration::from_secs(60),
    }
}

/// The fake server, replying with `words` filler words, and a client for it.
async fn fake_server(words: usize) -> (FakeOllama, OllamaBackend) {
    let server = FakeOllama::start().await;
    server.set_reply_words(words);
    let backend = OllamaBackend::new(&server.url(), OllamaOptions::default()).unwrap();
    (server, backend)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_strategy_plays_every_scenario_within_budget() {
    let (_server, backend) = fake_server(90).await;
    let setup = setup(None);
    for scenario in scenarios::all() {
        let scenario = scenario.truncated(8);
        let mut rows = Vec::new();
        let mut transcript = None;
        for strategy in Strategy::ALL {
            let (m, run) = fidelity::measure(strategy, &backend, &scenario, &setup)
                .await
                .unwrap_or_else(|e| panic!("{} {}: {e}", scenario.name, strategy.name()));
            let label = format!("{} {}", scenario.name, strategy.name());
            assert_eq!(m.turns, scenario.turns.len(), "{label}");
            assert_eq!(m.failed_turns, 0, "{label}");
            assert_eq!(m.over_budget, 0, "{label}: a request over budget");
            assert_eq!(m.reply_calls, scenario.turns.len(), "{label}");
            assert!(m.facts_kept <= m.facts && m.quiz.asked == scenario.quiz.len());
            assert!(m.secs_replying >= 0.0 && m.secs_compressing >= 0.0);
            assert!(
                m.waited_on_compression_secs <= m.session_secs + 1e-6,
                "{label}"
            );
            assert!(
                m.summary_calls >= m.compressions as usize,
                "{label}: {} calls for {} compressions",
                m.summary_calls,
                m.compressions
            );
            if strategy == Strategy::Ours {
                assert_eq!(
                    m.locked_in_requests_pct, 100.0,
                    "{label}: the locked decision left a request"
                );
                transcript = Some(run.transcript.clone());
            }
            rows.push(m);
        }
        let (ceiling, floor) = fidelity::bounds(&backend, &scenario, &setup, &transcript.unwrap())
            .await
            .unwrap();
        assert_eq!(floor.asked, scenario.quiz.len());
        let refs: Vec<_> = rows.iter().collect();
        let table = fidelity::report::table(&refs, Some(&ceiling), Some(&floor));
        for s in Strategy::ALL {
            assert!(table.contains(s.name()), "{table}");
        }
        assert!(table.contains("facts kept with subject"), "{table}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_scenarios_compress_and_the_figures_follow() {
    let (_server, backend) = fake_server(150).await;
    // A fast person, so the run stays short; the pauses still add up to seconds.
    let setup = setup(Some(Pace {
        read_words_per_min: 60_000.0,
        type_words_per_min: 6_000.0,
    }));
    let scenario = &scenarios::all()[0];
    let typing: f64 = scenario.turns[1..]
        .iter()
        .map(|t| t.split_whitespace().count() as f64 / 6_000.0 * 60.0)
        .sum();
    for strategy in [Strategy::Ours, Strategy::Rolling] {
        let (m, _) = fidelity::measure(strategy, &backend, scenario, &setup)
            .await
            .unwrap();
        assert!(m.compressions >= 1, "{}: no compression", strategy.name());
        assert!(m.tokens_in_summaries > 0 && m.secs_compressing > 0.0);
        // The person typed every message after the first at the pace set.
        assert!(
            m.session_secs >= typing,
            "{}: session {:.2} s, typing alone {typing:.2} s",
            strategy.name(),
            m.session_secs
        );
    }
}

/// Six turns of the coding scenario by `strategy`, against a server that answers `ok`
/// requests and then refuses `refused` as too long.
async fn refused_run(
    strategy: Strategy,
    ok: usize,
    refused: usize,
) -> (
    fidelity::Measured,
    fidelity::Run,
    fidelity::Scenario,
    FakeOllama,
) {
    let (server, backend) = fake_server(20).await;
    for _ in 0..ok {
        server.push_fault(Fault::TokenDelay(Duration::ZERO));
    }
    for _ in 0..refused {
        server.push_fault(Fault::ContextOverflow);
    }
    let scenario = scenarios::all()[1].truncated(6);
    let (m, run) = fidelity::measure(strategy, &backend, &scenario, &setup(None))
        .await
        .unwrap();
    (m, run, scenario, server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rolling_baseline_compacts_and_resends_a_refused_turn() {
    // Found on the real model: a reply that looped into a run of digits (one token each
    // to the model, a third of that to our tokenizer) put the next request over the
    // context although our count said it fitted. Here the fourth request is refused.
    let (m, _, scenario, _server) = refused_run(Strategy::Rolling, 3, 1).await;
    // A short chat never reaches the threshold by itself: the refusal made it compact,
    // and the refused turn was sent again and answered.
    assert_eq!(m.over_budget, 1, "{m:?}");
    assert!(
        m.compressions >= 1,
        "never compacted after the refusal: {m:?}"
    );
    assert_eq!(m.failed_turns, 0, "{m:?}");
    assert_eq!(m.reply_calls, scenario.turns.len() + 1, "{m:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_truncating_baseline_drops_the_oldest_until_the_server_accepts() {
    // Ollama truncates by its own count and never refuses; the baseline stands in for
    // it with our tokenizer, so a refusal means: drop the oldest, send again.
    let (m, run, scenario, server) = refused_run(Strategy::Truncate, 3, 2).await;
    assert_eq!(m.over_budget, 0, "{m:?}");
    assert_eq!(m.failed_turns, 0, "{m:?}");
    assert_eq!(m.reply_calls, scenario.turns.len(), "{m:?}");
    // The two oldest messages (the first message, with the locked decision, and its
    // reply) were dropped for good.
    assert!(
        run.context
            .iter()
            .all(|(_, text)| !text.contains(scenario.locked)),
        "{:?}",
        run.context
    );
    assert_eq!(
        server.chat_requests().len(),
        scenario.turns.len() + 2 + scenario.quiz.len()
    );
}

/// The scripts the engine's ledger is held to in CI: those of #11. The chats of #28 phrase
/// facts as people do ("billing-api? that one's on 8081"), which the ledger does not keep
/// yet; `the_ledger_alone_keeps_the_facts_of_the_chats_of_28` holds it to them once it does.
const LEDGER_SCRIPTS: [&str; 5] = ["facts", "coding", "planning", "distractors", "ops"];

/// What the ledger alone keeps of `names`' scripts: the facts lost, with the ledger's text.
fn ledger_losses(names: &[&str]) -> Vec<String> {
    use ollm_tui::core::ledger;
    use ollm_tui::fidelity::score;
    let mut lost = Vec::new();
    for s in scenarios::all()
        .into_iter()
        .filter(|s| names.contains(&s.name))
    {
        let lines: Vec<_> = s
            .turns
            .iter()
            .flat_map(|t| ledger::extract(t, true))
            .collect();
        let merged = ledger::merge(&lines);
        let text = ledger::render("Facts:", &merged);
        for f in &s.facts {
            if !score::kept_with_subject(&text, f) {
                lost.push(format!("{}: {} lost from\n{text}", s.name, f.value));
            }
            if let Some(stale) = f.stale
                && !merged
                    .iter()
                    .all(|l| !l.text.contains(stale) || l.text.contains(f.value))
            {
                lost.push(format!(
                    "{}: {stale} still stands beside {}\n{text}",
                    s.name, f.value
                ));
            }
        }
    }
    lost
}

#[test]
fn the_ledger_alone_keeps_every_scripted_fact_with_its_subject_and_the_latest_value() {
    // What the person states must survive any fold by the ledger alone, whatever the
    // model writes in its summaries: every fact of every scenario, with its subject, and
    // no line still giving a replaced value as current.
    let lost = ledger_losses(&LEDGER_SCRIPTS);
    assert!(lost.is_empty(), "{}", lost.join("\n\n"));
}

#[test]
#[ignore = "until the ledger keeps facts as people phrase them (#28, item 2)"]
fn the_ledger_alone_keeps_the_facts_of_the_chats_of_28() {
    let lost = ledger_losses(&["services", "coding24", "varied"]);
    assert!(
        lost.is_empty(),
        "{} lost:\n{}",
        lost.len(),
        lost.join("\n\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_run_is_judged_again_from_its_answers_and_context() {
    let (_server, backend) = fake_server(40).await;
    let setup = setup(None);
    let scenario = scenarios::all()[0].truncated(5);
    let (m, _) = fidelity::measure(Strategy::Truncate, &backend, &scenario, &setup)
        .await
        .unwrap();
    // Through JSON, as --rescore reads it.
    let mut saved: fidelity::Measured =
        serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
    assert_eq!(saved.facts_kept, m.facts_kept);
    saved.final_context = "Nothing here.".into();
    let q = &scenario.quiz[0];
    saved.quiz.answers[0].1 = format!("It is {}.", scenario.facts[q.fact].value);
    saved.quiz.answers[0].2 = false;
    saved.rescore(&scenario);
    assert_eq!(saved.facts_kept, 0);
    assert_eq!(saved.lost.len(), scenario.facts.len());
    assert!(saved.quiz.answers[0].2, "{:?}", saved.quiz.answers[0]);
    assert_eq!(
        saved.quiz.right,
        saved.quiz.answers.iter().filter(|a| a.2).count()
    );
}
