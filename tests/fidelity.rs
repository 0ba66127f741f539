//! The fidelity benchmark's deterministic mode: every strategy plays short scenarios
//! against the fake Ollama server over real HTTP. It guards the plumbing — runs finish,
//! figures are consistent, the invariants hold — not the quality of summaries, which
//! only a real model can show (`cargo run --release --example fidelity`).
#![allow(clippy::unwrap_used)]

/// The benchmark is not part of the product, so it lives outside the library, in
/// `benches/fidelity/`; this target and `examples/fidelity.rs` include it. Each uses only
/// part of it, hence the allow.
#[allow(dead_code, unused_imports)]
#[path = "../benches/fidelity/mod.rs"]
mod fidelity;

mod support;

use fidelity::{KeptBy, Pace, Passes, RunError, Setup, Strategy, scenarios};
use ollm_tui::core::tokens::Tiktoken;
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
        tools: true,
        num_predict: None,
        turn_timeout: Duration::from_secs(60),
        server_log: None,
    }
}

/// The chats of #28 and #35, played whole in CI (`marathon` to `LONG_TURNS`); the others'
/// first eight turns are enough to guard the plumbing.
const WHOLE: [&str; 7] = [
    "services", "coding24", "varied", "trip", "offsite", "fits", "marathon",
];

/// The 62-turn chat of #35 is played to this turn here: its first third and as much
/// again, which leaves truncation nothing of the first third at 2048 as the whole chat
/// does. Played whole, it more than doubled this test's time for the same plumbing.
const LONG_TURNS: usize = 36;

/// The figures of #28 agree with the counts they come from.
fn assert_figures_add_up(m: &fidelity::Measured, label: &str) {
    let passes = m.passes.unwrap_or_else(|| panic!("{label}: no passes"));
    let per_turn = m.passes_per_turn.unwrap_or(-1.0);
    assert!(
        (per_turn - f64::from(passes.total) / m.turns as f64).abs() < 1e-9,
        "{label}: {per_turn} passes per turn for {} in {} turns",
        passes.total,
        m.turns
    );
    assert!(passes.emergency <= passes.total && passes.overflow <= passes.total);
    assert!(
        (m.compression_calls_per_turn - m.summary_calls as f64 / m.turns as f64).abs() < 1e-9,
        "{label}"
    );
    assert!(
        (0.0..=1.0).contains(&m.busy_share_compressing),
        "{label}: busy share {}",
        m.busy_share_compressing
    );
    if m.summary_calls == 0 {
        assert_eq!(m.busy_share_compressing, 0.0, "{label}");
    }
    // The server's busy time is within the calls' own seconds, and so is its part.
    let eps = 1e-6;
    assert!(
        m.busy_secs <= m.secs_replying + m.secs_compressing + eps,
        "{label}"
    );
    assert!(
        m.busy_secs_compressing <= m.secs_compressing + eps,
        "{label}"
    );
    assert!(m.busy_secs_compressing <= m.busy_secs + eps, "{label}");
    if m.busy_secs > 0.0 {
        assert!(
            (m.busy_share_compressing - m.busy_secs_compressing / m.busy_secs).abs() < 1e-9,
            "{label}"
        );
    }
    assert!(m.facts_early_kept <= m.facts_early && m.facts_early <= m.facts);
    assert!(m.facts_early_kept <= m.facts_kept);
    assert!(m.facts_kept - m.facts_early_kept <= m.facts - m.facts_early);
    assert!(m.quiz_early_right <= m.quiz_early_asked && m.quiz_early_asked <= m.quiz.asked);
    assert!(m.quiz_early_right <= m.quiz.right);
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
        let scenario = if scenario.name == "marathon" {
            scenario.truncated(LONG_TURNS)
        } else if WHOLE.contains(&scenario.name) {
            scenario
        } else {
            scenario.truncated(8)
        };
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
            // Rolling summarizes on every compaction; ours folds without the model (its
            // summaries are asked between turns, and may be none).
            if strategy == Strategy::Rolling {
                assert!(
                    m.summary_calls >= m.compressions as usize,
                    "{label}: {} calls for {} compressions",
                    m.summary_calls,
                    m.compressions
                );
            }
            assert_figures_add_up(&m, &label);
            // The quiz of the chats of #28 and #35 is mostly about their first third.
            if WHOLE.contains(&scenario.name) {
                assert!(m.quiz_early_asked * 2 > m.quiz.asked, "{label}");
                assert!(m.facts_early > 0, "{label}");
            }
            // The long chat of #35 leaves plain truncation nothing of its first third.
            if scenario.name == "marathon" && strategy == Strategy::Truncate {
                assert_eq!(m.facts_early_kept, 0, "{label}: {m:?}");
            }
            // Without the server's log, truncation is the client's estimate.
            let kept_by = if strategy == Strategy::Truncate {
                fidelity::KeptBy::Estimated
            } else {
                fidelity::KeptBy::Sent
            };
            assert_eq!(m.kept_by(), kept_by, "{label}");
            assert_eq!(m.server_cut_requests, None, "{label}");
            if strategy == Strategy::Ours {
                assert_eq!(
                    m.locked_in_requests_pct, 100.0,
                    "{label}: the locked decision left a request"
                );
                transcript = Some(run.transcript.clone());
            }
            rows.push(m);
        }
        // Never lose to doing nothing (#35): ours carries at least the facts plain
        // truncation keeps, on every chat.
        let kept = |s: Strategy| {
            rows.iter()
                .find(|m| m.strategy == s)
                .map(|m| m.facts_kept)
                .unwrap()
        };
        assert!(
            kept(Strategy::Ours) >= kept(Strategy::Truncate),
            "{}: ours keeps {} facts, truncation {}",
            scenario.name,
            kept(Strategy::Ours),
            kept(Strategy::Truncate)
        );
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
        assert!(table.contains("truncate (estimated)"), "{table}");
        assert!(table.contains("passes per turn"), "{table}");
        assert!(table.contains("quiz: first third"), "{table}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_that_fits_the_window_keeps_every_fact_in_ours_as_in_truncation() {
    // #35: where the whole chat fits, doing nothing keeps everything, and ours must not
    // keep less. Replies of a few sentences, as the chat asks for.
    let (_server, backend) = fake_server(20).await;
    let setup = setup(None);
    for name in ["fits", "short_fit"] {
        let scenario = scenarios::all()
            .into_iter()
            .find(|s| s.name == name)
            .unwrap();
        for strategy in [Strategy::Truncate, Strategy::Ours] {
            let (m, _) = fidelity::measure(strategy, &backend, &scenario, &setup)
                .await
                .unwrap();
            let label = format!("{name}, {}", strategy.name());
            assert_eq!(m.facts_kept, m.facts, "{label}: lost {:?}", m.lost);
            assert_eq!(m.compressions, 0, "{label}: folded a chat that fits");
        }
    }
}

/// #35's targets on the longest chat, written by someone who had not read the ledger's
/// rules (66 turns; truncation keeps 4 of its 16 facts at 2048): as shipped, tools
/// offered, replies of a few sentences, nine facts in ten with their subject in the
/// last request, and at most one pass every four turns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_unseen_chat_keeps_nine_facts_in_ten_at_one_pass_in_four_turns_and_finds_every_asked_fact()
 {
    let (_server, backend) = fake_server(20).await;
    let setup = setup(None);
    let scenario = scenarios::all()
        .into_iter()
        .find(|s| s.name == "lab_notebook")
        .unwrap();
    let (m, _) = fidelity::measure(Strategy::Ours, &backend, &scenario, &setup)
        .await
        .unwrap();
    assert!(
        m.facts_kept * 10 >= m.facts * 9,
        "{}/{} kept, lost {:?}",
        m.facts_kept,
        m.facts,
        m.lost
    );
    let passes = m.passes.unwrap();
    assert!(
        passes.total as usize * 4 <= scenario.turns.len(),
        "{passes:?} in {} turns",
        scenario.turns.len()
    );
    // Every question about an early fact finds it in its own request (ledger or recall),
    // where a request with no history finds none.
    let missing: Vec<&String> = m
        .quiz
        .answers
        .iter()
        .zip(&m.quiz.found)
        .filter(|(_, found)| !**found)
        .map(|((ask, _, _), _)| ask)
        .collect();
    assert_eq!(m.quiz.in_request(), Some(m.quiz.asked), "{missing:?}");
    let floor = fidelity::quiz(&backend, &setup, &scenario, &[], setup.ctx, None)
        .await
        .unwrap();
    assert_eq!(floor.in_request(), Some(0));
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
        if strategy == Strategy::Rolling {
            assert!(m.tokens_in_summaries > 0 && m.secs_compressing > 0.0);
        }
        // Every checkpoint (ours) or compaction (rolling) was made by a pass the strategy
        // reported, and compression took some of the server's time.
        let passes = m.passes.unwrap();
        assert!(
            passes.total >= m.compressions,
            "{}: {passes:?} for {} compressions",
            strategy.name(),
            m.compressions
        );
        assert!(m.busy_share_compressing >= 0.0 && m.busy_share_compressing < 1.0);
        assert_figures_add_up(&m, strategy.name());
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

/// The scripts of #11 the engine's ledger is held to; the chats of #28, which phrase facts
/// as people do ("billing-api? that one's on 8081"), have their own test.
const LEDGER_SCRIPTS: [&str; 5] = ["facts", "coding", "planning", "distractors", "ops"];

/// What the ledger alone keeps of `names`' scripts: the facts lost, with the ledger's text.
fn ledger_losses(names: &[&str]) -> Vec<String> {
    use crate::fidelity::score;
    use ollm_tui::core::{answer, ledger};
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
        // As the request shows it: compacted, with room for every line.
        let tok = Tiktoken::new().unwrap();
        let text = ledger::render("Facts:", &ledger::fit(merged.clone(), u32::MAX, &tok));
        for f in &s.facts {
            if !score::kept_with_subject(&text, f) {
                lost.push(format!("{}: {} lost from\n{text}", s.name, f.value));
            }
            for stale in &f.stale {
                // As a value, not inside another ("5" of "250 gold").
                let says = |text: &str, v: &str| {
                    answer::holds(&answer::normalize(text), &answer::normalize(v))
                };
                if !merged
                    .iter()
                    .all(|l| !says(&l.text, stale) || says(&l.text, f.value))
                {
                    lost.push(format!(
                        "{}: {stale} still stands beside {}\n{text}",
                        s.name, f.value
                    ));
                }
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
fn the_ledger_alone_keeps_the_facts_of_the_chats_of_28() {
    let lost = ledger_losses(&["services", "coding24", "varied"]);
    assert!(
        lost.is_empty(),
        "{} lost:\n{}",
        lost.len(),
        lost.join("\n\n")
    );
}

/// The chats written for #35: names in any script beside what they do, codes, tag
/// questions, abbreviations inside sentences, corrections said in two sentences. Before
/// this rule the ledger alone lost 20 of their 46 facts and kept three replaced values
/// beside their corrections ("the 12th", "9:30", "Haus Ahorn").
#[test]
fn the_ledger_alone_keeps_the_facts_of_the_chats_of_35() {
    let lost = ledger_losses(&[
        "trip",
        "offsite",
        "fits",
        "marathon",
        "night_shift",
        "standup",
        "lab_notebook",
        "short_fit",
        "car_hunt",
    ]);
    assert!(
        lost.is_empty(),
        "{} lost:\n{}",
        lost.len(),
        lost.join("\n\n")
    );
}

/// Three chats written in shapes the rules had not seen (several people's values in one
/// sentence, facts as labels, lower-case run-ons): each showed a line replaced whole by a
/// change said of something else. A name said in lower case beside no value ("gráinne
/// from plot 9 is in charge of the cakes") is no fact the ledger can find.
#[test]
fn the_ledger_alone_keeps_the_facts_of_the_unseen_chats() {
    let lost = ledger_losses(&["school_run", "moving_north", "allotment"]);
    assert!(
        lost.len() == 1 && lost[0].starts_with("allotment: gráinne"),
        "{} lost:\n{}",
        lost.len(),
        lost.join("\n\n")
    );
}

/// Chats typed as people text and talk (all lower case, "2 grand", "45p a mile"), a
/// medicine list, a tax return, kitchen measures: a viewing moved to "fri 5.30" had
/// written the time over the rent ("1850 pcm"), a doubtful "she wants 6 months
/// upfront??" was read as a question, a dose "put … up to 10 mg", a price "she'll do it
/// for £300" and a feed moved to "9 pm" from "every morning at 8." left the old value
/// standing, an allergy with no figure was no fact; "the admin account is called
/// bartek" and "jamie's filling in on drums" were prose, "presales are at 64 which seems
/// good?" a question, and "grabbed .40, so the NAS is on 192.168.1.50 now" left the old
/// address standing; a pasted offer's "Base salary: NOK 812,000" stood beside "she came
/// back with 860k, so that's the new number", and its "Start date: 4 January 2027"
/// beside "it's not the 4th it's the 11th of January"; "delivered on 28/11" beside
/// "delivery moved to 27/11"; a pasted budget's "| Broadband | £45 |" beside "the
/// broadband line is wrong … down to £38", a trip's Tokyo hotel replaced by "the
/// Nozomi 215 from Tokyo to Kyoto", and "12 kids x £14.50 each" beside "14 kids now not
/// 12".
#[test]
fn the_ledger_alone_keeps_the_facts_of_the_chats_people_text() {
    let lost = ledger_losses(&[
        "flat_texts",
        "dads_meds",
        "freelance_tax",
        "leaving_do",
        "sourdough",
        "homelab",
        "visa_run",
        "car_claim",
        "dnd_campaign",
        "job_offer",
        "conf_talk",
        "bathroom",
        "budget_sheet",
        "japan_trip",
        "kids_party",
    ]);
    assert!(
        lost.is_empty(),
        "{} lost:\n{}",
        lost.len(),
        lost.join("\n\n")
    );
    // A person replaced in one role is still named in others ("Lunch tip from Rafe",
    // "me, Bronagh and Cathal are throwing her a party", "| Thu | Ben |"), which this
    // check, reading text alone, counts as the old value standing; and "the dashboards
    // are all in looker" has no figure and no capital. "we're second on the bill, on at
    // 9.15 for 40 minutes", then "… moved us up, we're on at 10.30 now" and "she wants a
    // 50 minute set now": the slot and the set share no word of three letters with the
    // line they change, so the later lines stand beside it (later, as the header says).
    let lost = ledger_losses(&["first_week", "mums_seventy", "rota", "band_gig"]);
    let heads: Vec<&str> = lost
        .iter()
        .map(|l| l.split('\n').next().unwrap_or_default())
        .collect();
    assert_eq!(
        heads,
        [
            "first_week: looker lost from",
            "first_week: Rafe still stands beside Chiamaka",
            "mums_seventy: Bronagh still stands beside Betty's",
            "rota: Ben still stands beside Kasia",
            "band_gig: 9.15 still stands beside 10.30",
            "band_gig: 40 still stands beside 50",
        ],
        "{}",
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
    assert!(saved.quiz_early_right >= 1, "{saved:?}");
    assert_eq!(saved.facts_early_kept, 0);
    // A file written before #28 has none of its figures: they default, and --rescore
    // derives them from the rest.
    let mut old = serde_json::to_value(&m).unwrap();
    for key in [
        "kept_by",
        "passes",
        "passes_per_turn",
        "compression_calls_per_turn",
        "busy_secs",
        "busy_secs_compressing",
        "busy_share_compressing",
        "facts_early",
        "facts_early_kept",
        "quiz_early_asked",
        "quiz_early_right",
        "server_cut_requests",
    ] {
        assert!(old.as_object_mut().unwrap().remove(key).is_some(), "{key}");
    }
    let mut old: fidelity::Measured = serde_json::from_value(old).unwrap();
    assert_eq!((old.passes, old.kept_by), (None, None));
    assert_eq!(
        old.kept_by(),
        KeptBy::Estimated,
        "truncation was estimated then"
    );
    old.rescore(&scenario);
    assert_eq!(old.passes, Some(Passes::default()));
    assert_eq!(old.passes_per_turn, Some(0.0));
    assert_eq!(
        (old.facts_early, old.facts_early_kept, old.quiz_early_asked),
        (m.facts_early, m.facts_early_kept, m.quiz_early_asked)
    );
    assert!(old.facts_early > 0 && old.quiz_early_asked > 0);
}

/// The fake server keeping a request log in `dir`, and a setup that reads it.
async fn logged_server(words: usize, dir: &std::path::Path) -> (FakeOllama, OllamaBackend, Setup) {
    let (server, backend) = fake_server(words).await;
    let path = dir.join("requests.jsonl");
    server.set_request_log(&path);
    let setup = Setup {
        server_log: Some(path),
        ..setup(None)
    };
    (server, backend, setup)
}

/// The contents of a logged request's messages.
fn contents(body: &serde_json::Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

/// `messages` less the `n` oldest that are not the system prompt (the first).
fn less_oldest(messages: &[String], n: usize) -> Vec<String> {
    let mut out = vec![messages[0].clone()];
    out.extend(messages[1 + n..].iter().cloned());
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncation_is_measured_from_what_the_server_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (server, backend, setup) = logged_server(150, dir.path()).await;
    let scenario = scenarios::all()
        .into_iter()
        .find(|s| s.name == "varied")
        .unwrap();
    let (m, run) = fidelity::measure(Strategy::Truncate, &backend, &scenario, &setup)
        .await
        .unwrap();
    assert_eq!(m.kept_by(), KeptBy::ServerLog);
    assert_eq!((m.failed_turns, m.over_budget), (0, 0), "{m:?}");
    let n = scenario.turns.len();
    let requests = server.chat_requests();
    let dropped: Vec<usize> = server
        .chat_outcomes()
        .iter()
        .map(|o| o.dropped_messages)
        .collect();
    assert_eq!(requests.len(), n + scenario.quiz.len());
    // Every request, the quiz's too, left truncation to the server.
    for r in &requests {
        assert!(
            r.get("truncate").is_none() && r.get("shift").is_none(),
            "{r}"
        );
    }
    assert!(
        dropped[..n].iter().sum::<usize>() > 0,
        "nothing to truncate"
    );
    // Each turn sends what the server kept of the one before, its reply and the next
    // message: what the server dropped stays dropped, and nothing else goes.
    for k in 0..n - 1 {
        let kept = less_oldest(&contents(&requests[k]), dropped[k]);
        let next = contents(&requests[k + 1]);
        assert_eq!(next[..next.len() - 2], kept[..], "turn {}", k + 1);
        assert_eq!(next[next.len() - 1], scenario.turns[k + 1]);
    }
    // The final context is what the server kept of the last request, and the reply.
    let last = less_oldest(&contents(&requests[n - 1]), dropped[n - 1]);
    let context: Vec<String> = run.context.iter().map(|(_, t)| t.clone()).collect();
    assert_eq!(context[..context.len() - 1], last[..]);
    assert_eq!(
        m.server_cut_requests,
        Some(dropped[..n].iter().filter(|d| **d > 0).count())
    );
    // The first third is gone by the end, as plain truncation goes.
    assert!(m.facts_early_kept < m.facts_early, "{m:?}");
    let table = fidelity::report::table(&[&m], None, None);
    assert!(table.contains("as the server kept it") && !table.contains("(estimated)"));
    // Ours, measured beside it, sends what fits: the server cuts none of its requests.
    let (ours, _) = fidelity::measure(Strategy::Ours, &backend, &scenario, &setup)
        .await
        .unwrap();
    assert_eq!(ours.kept_by(), KeptBy::Sent);
    assert_eq!(ours.server_cut_requests, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_log_nobody_writes_stops_the_truncation_run() {
    // A wrong path (or a server started without --log) must not pass for "nothing dropped".
    let dir = tempfile::tempdir().unwrap();
    let (_server, backend) = fake_server(20).await;
    let setup = Setup {
        server_log: Some(dir.path().join("not-written.jsonl")),
        ..setup(None)
    };
    let scenario = scenarios::all()[0].truncated(3);
    match fidelity::measure(Strategy::Truncate, &backend, &scenario, &setup).await {
        Err(RunError::ServerLog { path, .. }) => assert!(path.ends_with("not-written.jsonl")),
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("measured without the server's log"),
    }
}
