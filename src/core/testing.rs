//! A synchronous driver for the engine, for tests, property tests and benchmarks.
//!
//! It plays the actor's part without I/O: runs turns, executes compression plans with a
//! given summarizer (blocking on the future), and keeps every persisted record so tests
//! can replay them. It checks the hard guard on every request it "sends".

use crate::core::engine::{ChatPrompt, Engine, EngineConfig, ReplyInput, SessionSpec, Step};
use crate::core::events::{Effect, EngineEvent};
use crate::core::message::ReplyStatus;
use crate::core::mode::Mode;
use crate::core::prompts::Prompts;
use crate::core::record::{Header, Record};
use crate::core::summarizer::Summarizer;
use crate::core::tokens::Tokenizer;
use chrono::{DateTime, TimeZone, Utc};
use std::sync::Arc;

/// A fixed clock that advances one second per call.
#[derive(Debug, Clone)]
pub struct Clock(pub i64);

impl Clock {
    pub fn tick(&mut self) -> DateTime<Utc> {
        self.0 += 1;
        Utc.timestamp_opt(1_790_000_000 + self.0, 0)
            .single()
            .unwrap_or_default()
    }
}

/// What one turn did.
#[derive(Debug, Default, Clone)]
pub struct TurnReport {
    pub sent: Vec<ChatPrompt>,
    pub compressions: usize,
    pub blocked: Option<String>,
    pub events: Vec<EngineEvent>,
}

/// Engine + summarizer + the records written so far.
pub struct Harness<S> {
    pub engine: Engine,
    pub summarizer: S,
    pub records: Vec<Record>,
    pub events: Vec<EngineEvent>,
    pub clock: Clock,
    pub app_version: String,
}

impl<S: Summarizer> Harness<S> {
    pub fn new(ctx: u32, tok: Arc<dyn Tokenizer>, summarizer: S) -> Self {
        Self::with_config(ctx, EngineConfig::default(), tok, summarizer)
    }

    pub fn with_config(
        ctx: u32,
        cfg: EngineConfig,
        tok: Arc<dyn Tokenizer>,
        summarizer: S,
    ) -> Self {
        let mut clock = Clock(0);
        let engine = Engine::new(
            SessionSpec {
                session_id: "test-session".into(),
                model: "test:3b".into(),
                mode: Mode::Assistant,
                ctx: Some(ctx),
            },
            cfg,
            tok,
            Arc::new(Prompts::builtin()),
            clock.tick(),
        );
        Harness {
            engine,
            summarizer,
            records: Vec::new(),
            events: Vec::new(),
            clock,
            app_version: "test".into(),
        }
    }

    pub fn header(&self) -> Header {
        self.engine.header(&self.app_version)
    }

    /// Carry out effects: keep records and events.
    pub fn absorb(&mut self, fx: Vec<Effect>) -> Vec<EngineEvent> {
        let mut events = Vec::new();
        for e in fx {
            match e {
                Effect::Persist(r) => self.records.push(r),
                Effect::Sync => {}
                Effect::Event(ev) => events.push(ev),
            }
        }
        self.events.extend(events.iter().cloned());
        events
    }

    /// Drive `next_step` until it sends or blocks. `reply` makes the reply text from the
    /// prompt; the server is assumed to see exactly our calibrated estimate.
    pub fn turn(&mut self, user: &str, reply: impl Fn(&ChatPrompt) -> String) -> TurnReport {
        let now = self.clock.tick();
        let (_, fx) = self.engine.add_user_message(user.to_string(), now);
        let mut report = TurnReport::default();
        report.events.extend(self.absorb(fx));
        self.finish_turn(&mut report, |p| (reply(p), Some(p.estimate)));
        report
    }

    /// Like [`Self::turn`] with control over what the server reports seeing.
    pub fn finish_turn(
        &mut self,
        report: &mut TurnReport,
        server: impl Fn(&ChatPrompt) -> (String, Option<u32>),
    ) {
        for _ in 0..16 {
            let now = self.clock.tick();
            let (step, fx) = self.engine.next_step(now);
            report.events.extend(self.absorb(fx));
            match step {
                Step::Send(prompt) => {
                    let b = self.engine.budget();
                    assert!(
                        prompt.estimate <= b.hard_limit(),
                        "over-budget request: {} > {}",
                        prompt.estimate,
                        b.hard_limit()
                    );
                    let (text, seen) = server(&prompt);
                    let fx = self.engine.record_reply(
                        ReplyInput {
                            text,
                            status: ReplyStatus::Complete,
                            prompt_eval_count: seen,
                            prompt_eval_cached: None,
                            eval_count: Some(10),
                            prompt_raw: prompt.raw_estimate,
                        },
                        self.clock.tick(),
                    );
                    report.events.extend(self.absorb(fx));
                    report.sent.push(prompt);
                    return;
                }
                Step::Compress(plan) => {
                    report.compressions += 1;
                    self.run_plan(*plan, report);
                }
                Step::Snapshot(snap) => {
                    let fx = self.engine.snapshot_saved(&snap.meta, self.clock.tick());
                    report.events.extend(self.absorb(fx));
                }
                Step::Blocked(why) => {
                    report.blocked = Some(why);
                    return;
                }
            }
        }
        panic!("next_step did not settle in 16 steps");
    }

    /// Run a plan to completion (snapshot "saved" first) and apply it.
    pub fn run_plan(
        &mut self,
        plan: crate::core::compress::CompressionPlan,
        report: &mut TurnReport,
    ) {
        let mut plan = plan;
        if let Some(snap) = plan.snapshot.take() {
            let fx = self.engine.snapshot_saved(&snap.meta, self.clock.tick());
            report.events.extend(self.absorb(fx));
        }
        let outcome = futures_lite_block_on(plan.run(&self.summarizer));
        let fx = self.engine.apply_compression(outcome, self.clock.tick());
        report.events.extend(self.absorb(fx));
    }

    /// Rebuild an engine from the records written so far.
    pub fn replayed(&self) -> (Engine, crate::core::engine::ReplayReport) {
        Engine::replay(
            &self.header(),
            &self.records,
            self.engine.config().clone(),
            self.engine.tokenizer().clone(),
            self.engine.prompts().clone(),
        )
    }
}

/// Poll a future to completion on this thread. The engine's futures only await the
/// summarizer, which in tests never waits on anything external.
pub fn futures_lite_block_on<F: std::future::Future>(fut: F) -> F::Output {
    use std::pin::pin;
    use std::task::{Context, Poll, Wake, Waker};
    struct ThreadWaker(std::thread::Thread);
    impl Wake for ThreadWaker {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut fut = pin!(fut);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(v) => return v,
            Poll::Pending => std::thread::park(),
        }
    }
}
