//! Engine work on a 10,000-message session (per-turn overhead; the goal is under 1 ms).
//!
//! Setup, not measured: a session of 10,000 messages at ctx 8192 is built by driving the
//! real engine (tiktoken counts, `Extractive` summaries, so it holds aged and merged
//! checkpoints), then saved in three states: its log (for replay), the state just before
//! a turn that needs a compression, and the state right after that compression.
//!
//! Measured:
//! - `turn`: the `UserMessage` input (record it, then the Send path: budget, trigger,
//!   prompt building) + the `Reply` input, on the post-compression state. A turn appends to the
//!   engine, so each run of turns starts from a fresh clone (cloned outside the timer)
//!   and stays well below the next compression: steady state, never a compression.
//! - `replay`: `Engine::replay` of the whole log (session load).
//! - `compression`: one pass's engine overhead — the user message that triggers it, plan
//!   (identify, prepare, the recovery snapshot), the pipeline's checks, apply — with a
//!   summarizer that answers at once.
//! - `budget`: the figures the status line reads after every change.
#![allow(clippy::unwrap_used)]

use chrono::{TimeZone, Utc};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ollm_tui::core::engine::{ChatPrompt, Effect, Engine, Input, ReplyInput, Request};
use ollm_tui::core::message::ReplyStatus;
use ollm_tui::core::summarizer::doubles::Extractive;
use ollm_tui::core::summarizer::{Summarizer, SummaryError, SummaryRequest};
use ollm_tui::core::testing::{Harness, futures_lite_block_on};
use ollm_tui::core::tokens::Tiktoken;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

const CTX: u32 = 8192;
const MESSAGES: usize = 10_000;

/// A summarizer that costs nothing: what is left is the engine's own work.
struct Immediate;

impl Summarizer for Immediate {
    async fn summarize(&self, _request: SummaryRequest) -> Result<String, SummaryError> {
        Ok("The user and the assistant discussed the module layout and agreed on it.".into())
    }
}

const WORDS: &[&str] = &[
    "the",
    "engine",
    "keeps",
    "context",
    "small",
    "and",
    "we",
    "decided",
    "to",
    "use",
    "a",
    "cache",
    "for",
    "token",
    "counts",
    "because",
    "recounting",
    "history",
    "is",
    "slow.",
    "See",
    "src/core/engine.rs",
    "line",
    "412;",
    "the",
    "timeout",
    "is",
    "4500",
    "ms.",
    "Next",
    "we",
    "refactor",
    "handle_request",
    "and",
    "add",
    "tests.",
];
const CODE: &str = "```rust\nfn handle_request(req: &Request) -> Result<Response, Error> {\n    let value = cache.get(&req.key).ok_or(Error::Missing)?;\n    Ok(Response::new(value.clone()))\n}\n```\n";

/// Deterministic text of about `words` words; every third reply carries a code block.
fn text(seed: u64, words: usize, code: bool) -> String {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = String::new();
    for i in 0..words {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        out.push_str(WORDS[(s % WORDS.len() as u64) as usize]);
        out.push(if i % 14 == 13 { '\n' } else { ' ' });
    }
    if code {
        out.push_str(CODE);
    }
    out
}

fn question(i: u64) -> String {
    text(i, 12 + (i % 30) as usize, false)
}

fn answer(i: u64) -> String {
    text(i + 1_000_000, 40 + (i % 120) as usize, i.is_multiple_of(3))
}

struct Prepared {
    header: ollm_tui::core::record::Header,
    records: Vec<ollm_tui::core::record::Record>,
    /// The reply to the next user message makes a compression due.
    ready_to_compress: Engine,
    /// That message and its reply.
    compress_turn: (String, String),
    /// Right after that compression and its turn.
    steady: Engine,
    next_turn: u64,
}

fn prepare() -> Prepared {
    let started = Instant::now();
    let tok = Arc::new(Tiktoken::new().unwrap());
    let mut h = Harness::new(CTX, tok, Extractive::new());
    let mut i = 0u64;
    while h.engine.history().len() < MESSAGES {
        let a = answer(i);
        let r = h.turn(&question(i), move |_| a.clone());
        assert!(r.blocked.is_none(), "turn {i} blocked");
        i += 1;
    }
    // Go on until a turn compresses: keep the state just before it, and the one after.
    let (ready_to_compress, compress_turn, steady) = loop {
        let before = h.engine.clone();
        let a = answer(i);
        let q = question(i);
        let reply = a.clone();
        let r = h.turn(&q, move |_| reply.clone());
        i += 1;
        if r.compressions > 0 {
            break (before, (q, a), h.engine.clone());
        }
    };
    eprintln!(
        "prepared in {:.1} s: {} messages, {} records, {} compressions, {} checkpoints, {} active messages, budget {:?}",
        started.elapsed().as_secs_f64(),
        steady.history().len(),
        h.records.len(),
        steady.compressions(),
        steady.checkpoints().len(),
        steady.active().messages().len(),
        steady.budget()
    );
    Prepared {
        header: h.header(),
        records: h.records.clone(),
        ready_to_compress,
        compress_turn,
        steady,
        next_turn: i,
    }
}

fn benches(c: &mut Criterion) {
    let p = prepare();
    let now = Utc.timestamp_opt(1_800_000_000, 0).single().unwrap();

    // Inputs made outside the timer.
    let inputs: Vec<(String, String)> = (0..64)
        .map(|k| (question(p.next_turn + k), answer(p.next_turn + k)))
        .collect();
    // How many turns fit before the next compression is due: each clone serves fewer.
    let mut probe = p.steady.clone();
    let mut headroom = 0u64;
    for (q, a) in inputs.iter().cycle() {
        probe.handle(
            Request::Send {
                text: q.clone(),
                images: Vec::new(),
            },
            now,
        );
        if probe.budget().over_trigger() || !probe.budget().fits() {
            break;
        }
        probe.handle(
            Input::Reply(ReplyInput {
                text: a.clone(),
                status: ReplyStatus::Complete,
                prompt_eval_count: None,
                prompt_eval_cached: None,
                eval_count: None,
                prompt_raw: 0,
                tool_calls: Vec::new(),
                thinking: String::new(),
                timing: None,
            }),
            now,
        );
        headroom += 1;
    }
    let turns_per_clone = headroom.saturating_sub(1).max(1);
    eprintln!(
        "turns before the next compression is due: {headroom}; each clone serves {turns_per_clone}"
    );
    let mut group = c.benchmark_group("engine");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(3));
    group.bench_function("turn (10k messages, ctx 8192)", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut e = p.steady.clone();
            for n in 0..iters {
                if n > 0 && n % turns_per_clone == 0 {
                    e = p.steady.clone();
                }
                let (q, a) = inputs[(n % inputs.len() as u64) as usize].clone();
                let start = Instant::now();
                let mut fx = e.handle(
                    Request::Send {
                        text: q,
                        images: Vec::new(),
                    },
                    now,
                );
                let Some(Effect::Chat(prompt)) = fx.pop() else {
                    panic!("the turn bench left steady state (a compression was due)")
                };
                black_box(fx);
                let fx = e.handle(
                    Input::Reply(ReplyInput {
                        text: a,
                        status: ReplyStatus::Complete,
                        prompt_eval_count: Some(prompt.estimate),
                        prompt_eval_cached: None,
                        eval_count: Some(120),
                        prompt_raw: prompt.raw_estimate,
                        tool_calls: Vec::new(),
                        thinking: String::new(),
                        timing: None,
                    }),
                    now,
                );
                black_box::<(Vec<Effect>, ChatPrompt)>((fx, prompt));
                total += start.elapsed();
            }
            total
        })
    });

    group.finish();

    c.bench_function("engine/budget", |b| {
        b.iter(|| black_box(&p.steady).budget())
    });

    let cfg = p.steady.config().clone();
    let tok = p.steady.tokenizer().clone();
    let prompts = p.steady.prompts().clone();
    let mut group = c.benchmark_group("engine/replay");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(15));
    group.bench_function("10k-message log", |b| {
        b.iter(|| {
            let (e, report) = Engine::replay(
                &p.header,
                &p.records,
                cfg.clone(),
                tok.clone(),
                prompts.clone(),
            );
            assert!(report.issues.is_empty());
            black_box(e)
        })
    });
    group.finish();

    c.bench_function("engine/compression pass (immediate summarizer)", |b| {
        b.iter_batched(
            || p.ready_to_compress.clone(),
            |mut e| {
                // The turn whose reply reaches the trigger, then the pass that follows.
                let (text, reply) = p.compress_turn.clone();
                let Some(Effect::Chat(prompt)) = e
                    .handle(
                        Request::Send {
                            text,
                            images: Vec::new(),
                        },
                        now,
                    )
                    .pop()
                else {
                    panic!("expected the request")
                };
                let fx = e.handle(
                    Input::Reply(ReplyInput {
                        text: reply,
                        status: ReplyStatus::Complete,
                        prompt_eval_count: Some(prompt.estimate),
                        prompt_eval_cached: None,
                        eval_count: Some(10),
                        prompt_raw: prompt.raw_estimate,
                        tool_calls: Vec::new(),
                        thinking: String::new(),
                        timing: None,
                    }),
                    now,
                );
                // The fold is made in the reply's own step; its summary between turns
                // follows when one is asked.
                assert!(
                    fx.iter().any(|e| matches!(
                        e,
                        Effect::Event(ollm_tui::core::events::EngineEvent::Compressed { .. })
                    )),
                    "expected a compression"
                );
                if let Some(plan) = fx.into_iter().find_map(|e| match e {
                    Effect::CompressInBackground(plan) => Some(plan),
                    _ => None,
                }) {
                    let outcome = futures_lite_block_on(plan.run(&Immediate));
                    black_box(e.handle(Input::Compressed(Box::new(outcome)), now));
                }
                e
            },
            BatchSize::PerIteration,
        )
    });
}

criterion_group!(engine, benches);
criterion_main!(engine);
