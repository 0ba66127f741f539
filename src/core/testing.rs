//! A synchronous driver for the engine, for tests, property tests and benchmarks.
//!
//! It plays the actor's part without I/O: feeds inputs, carries out the effects (running
//! compression plans with a given summarizer, blocking on the future; answering chat
//! requests with a closure), and keeps every persisted record so tests can replay them.
//! It checks the hard guard on every request it "sends".

use crate::core::engine::{
    ChatPrompt, Effect, Engine, EngineConfig, Input, ReplyInput, Request, SessionSpec, ToolAnswer,
};
use crate::core::events::{Blocked, EngineEvent};
use crate::core::message::{ReplyStatus, ToolCall};
use crate::core::mode::Mode;
use crate::core::prompts::Prompts;
use crate::core::record::{Header, Record};
use crate::core::snapshot::Snapshot;
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
    /// Compression passes (folds, at once in the turn or between turns).
    pub compressions: usize,
    /// Summaries of folds asked of the summarizer between turns.
    pub summaries: usize,
    /// Huge tool results the summarizer read through (layer 1).
    pub digests: usize,
    pub blocked: Option<Blocked>,
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
    /// Tool calls the next replies make, one entry per reply (none when empty).
    pub scripted_calls: std::collections::VecDeque<Vec<ToolCall>>,
    /// Every tool call the engine asked to run; each is answered by `tool_output`.
    pub tools_run: Vec<ToolCall>,
    /// What a tool call returns, and whether it is an error (default: `ran NAME`).
    pub tool_output: fn(&ToolCall) -> (String, bool),
    /// Tool results saved whole (`SaveResult`), by file name.
    pub saved: std::collections::BTreeMap<String, String>,
    /// The embedding model's vector for a text (recall by meaning); `None`: every embed
    /// request fails. The engine asks only once told of a model (`Input::Embedder`).
    pub embed: Option<fn(&str) -> Vec<f32>>,
    /// Every folded sentence sent to be embedded, and every message embedded as a query.
    pub embedded_sentences: Vec<String>,
    pub embedded_queries: Vec<String>,
    /// What the "vision model" says of a folded picture it is asked to describe (by its
    /// file name); `None`: it cannot see pictures, or the request fails.
    pub describe: Option<fn(&str) -> String>,
    /// Every folded picture the engine asked to be described: its message and file name.
    pub described: Vec<(crate::core::message::MessageId, String)>,
}

/// How the harness's "server" answers a request: the reply text, and the prompt tokens
/// it reports having evaluated.
pub type Server<'a> = &'a dyn Fn(&ChatPrompt) -> (String, Option<u32>);

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
                params: Default::default(),
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
            tool_output: |call| (format!("ran {}", call.name), false),
            saved: std::collections::BTreeMap::new(),
            events: Vec::new(),
            clock,
            app_version: "test".into(),
            scripted_calls: Default::default(),
            tools_run: Vec::new(),
            embed: None,
            embedded_sentences: Vec::new(),
            embedded_queries: Vec::new(),
            describe: None,
            described: Vec::new(),
        }
    }

    pub fn header(&self) -> Header {
        self.engine.header(&self.app_version)
    }

    /// A record as the store takes it: its seq must exceed the last one's.
    fn keep(&mut self, r: Record) {
        if let Some(last) = self.records.last() {
            assert!(
                r.seq > last.seq,
                "record {} ({}) after {} ({}): the log would refuse it",
                r.seq,
                r.body.kind(),
                last.seq,
                last.body.kind()
            );
        }
        self.records.push(r);
    }

    /// Keep the records and events of effects that ask for nothing back. Panics on a
    /// request (snapshot, chat, compression): use [`Self::execute`] for those.
    pub fn absorb(&mut self, fx: Vec<Effect>) -> Vec<EngineEvent> {
        let mut events = Vec::new();
        for e in fx {
            match e {
                Effect::Persist(r) => self.keep(r),
                Effect::Sync | Effect::WriteWaiting => {}
                Effect::Event(ev) => events.push(ev),
                Effect::SaveResult { file, text } => {
                    self.saved.insert(file, text);
                }
                other => panic!("absorb cannot answer {other:?}"),
            }
        }
        self.events.extend(events.iter().cloned());
        events
    }

    /// Keep the records and events of `fx`; the requests among them are returned,
    /// unanswered (a test answers them by hand).
    pub fn take(&mut self, fx: Vec<Effect>) -> Vec<Effect> {
        let (requests, rest): (Vec<Effect>, Vec<Effect>) = fx.into_iter().partition(|e| {
            matches!(
                e,
                Effect::SaveSnapshot(_)
                    | Effect::Chat(_)
                    | Effect::CompressInBackground(_)
                    | Effect::CancelBackground
                    | Effect::EmbedSentences(_)
                    | Effect::EmbedQuery { .. }
                    | Effect::CheckLink
            )
        });
        self.absorb(rest);
        requests
    }

    /// Feed an input that asks for nothing back; its events.
    pub fn apply(&mut self, input: impl Into<Input>) -> Vec<EngineEvent> {
        let fx = self.engine.handle(input, self.clock.tick());
        self.absorb(fx)
    }

    /// The engine learns the server's speed: `prompt_tps` and `output_tps` tokens a second,
    /// from the timing of a reply that brought no text (so it records nothing else).
    pub fn measure(&mut self, prompt_tps: u64, output_tps: u64) {
        let ms = std::time::Duration::from_millis;
        self.apply(Input::Reply(ReplyInput {
            text: String::new(),
            status: ReplyStatus::Interrupted,
            prompt_eval_count: None,
            prompt_eval_cached: None,
            eval_count: None,
            prompt_raw: 0,
            tool_calls: Vec::new(),
            thinking: String::new(),
            timing: Some(crate::core::speed::CallTiming {
                prompt_tokens: Some(2000),
                prompt_time: Some(ms(2000 * 1000 / prompt_tps)),
                output_tokens: Some(400),
                output_time: Some(ms(400 * 1000 / output_tps)),
                total_time: None,
                load_time: None,
            }),
        }));
    }

    /// A snapshot for the person (Ctrl+S), "saved".
    pub fn snapshot(&mut self) -> Snapshot {
        let fx = self
            .engine
            .handle(Request::Snapshot { label: None }, self.clock.tick());
        let mut snap = None;
        for e in self.take(fx) {
            if let Effect::SaveSnapshot(s) = e {
                snap = Some(*s);
            }
        }
        let snap = snap.expect("a snapshot was asked to be saved");
        self.apply(Input::SnapshotSaved {
            meta: snap.meta.clone(),
        });
        snap
    }

    /// Restore `snapshot` (the state it leaves is "saved" first); the events.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Vec<EngineEvent> {
        let mut report = TurnReport::default();
        let input = Input::Restore {
            snapshot: Box::new(snapshot.clone()),
        };
        self.run(input, &mut report, &|_| {
            panic!("a restore sends no chat request")
        });
        report.events
    }

    /// One turn: the person says `user`; `reply` makes the answer from the request, and
    /// the server is assumed to see exactly our calibrated estimate.
    /// `n` turns, each stating one fact — `Note i: the locker code for room i is`
    /// [`locker_code`]`(i)` — answered "Noted.": at a small window, more than the ledger
    /// can carry.
    pub fn state_locker_codes(&mut self, n: usize) {
        for i in 0..n {
            self.turn(
                &format!(
                    "Note {i}: the locker code for room {i} is {}.",
                    locker_code(i)
                ),
                |_| "Noted.".into(),
            );
        }
    }

    pub fn turn(&mut self, user: &str, reply: impl Fn(&ChatPrompt) -> String) -> TurnReport {
        self.turn_with(user, &|p| (reply(p), Some(p.estimate)))
    }

    /// Like [`Self::turn`] with control over what the server reports seeing.
    pub fn turn_with(&mut self, user: &str, server: Server<'_>) -> TurnReport {
        let mut report = TurnReport::default();
        self.run(
            Request::Send {
                text: user.to_string(),
                images: Vec::new(),
            },
            &mut report,
            server,
        );
        assert!(
            !report.sent.is_empty() || report.blocked.is_some(),
            "the turn ended neither sent nor blocked: {report:?}"
        );
        report
    }

    /// Feed `input` and carry out everything it leads to.
    pub fn run(&mut self, input: impl Into<Input>, report: &mut TurnReport, server: Server<'_>) {
        let fx = self.engine.handle(input, self.clock.tick());
        self.execute(fx, report, server);
    }

    /// Carry out effects as the actor does, answering every request: snapshots are
    /// "saved", compressions (background ones too, at once) run with the summarizer, chat requests are answered by
    /// `server`. Checks the hard guard on every request.
    pub fn execute(&mut self, fx: Vec<Effect>, report: &mut TurnReport, server: Server<'_>) {
        for e in fx {
            match e {
                Effect::Persist(r) => self.keep(r),
                // Everything is written at once here; the "server" is always there.
                Effect::Sync | Effect::WriteWaiting => {}
                Effect::CheckLink => self.run(Input::LinkChecked, report, server),
                Effect::Event(ev) => {
                    if let EngineEvent::Blocked(b) = &ev {
                        report.blocked = Some(*b);
                    }
                    if matches!(ev, EngineEvent::Compressed { .. }) {
                        report.compressions += 1;
                    }
                    report.events.push(ev.clone());
                    self.events.push(ev);
                }
                Effect::SaveSnapshot(snap) => {
                    self.run(Input::SnapshotSaved { meta: snap.meta }, report, server)
                }
                Effect::Chat(prompt) => {
                    let b = self.engine.budget();
                    assert!(
                        prompt.estimate <= b.hard_limit(),
                        "over-budget request: {} > {}",
                        prompt.estimate,
                        b.hard_limit()
                    );
                    let (text, seen) = server(&prompt);
                    let reply = ReplyInput {
                        thinking: String::new(),
                        text,
                        status: ReplyStatus::Complete,
                        prompt_eval_count: seen,
                        prompt_eval_cached: None,
                        eval_count: Some(10),
                        prompt_raw: prompt.raw_estimate,
                        tool_calls: self.scripted_calls.pop_front().unwrap_or_default(),
                        timing: None,
                    };
                    report.sent.push(prompt);
                    self.run(Input::Reply(reply), report, server);
                }
                // A fold's summary, run at once: the person "reads" the reply while it runs.
                Effect::CompressInBackground(plan) => {
                    report.summaries += 1;
                    let outcome = futures_lite_block_on(plan.run(&self.summarizer));
                    self.run(Input::Compressed(Box::new(outcome)), report, server);
                }
                // Nothing runs in the background here long enough to be cancelled.
                Effect::CancelBackground => {}
                Effect::SaveResult { file, text } => {
                    self.saved.insert(file, text);
                }
                Effect::ReduceResults(items) => {
                    let texts = self.reduce_results(items);
                    self.run(Input::ResultsReduced(texts), report, server);
                }
                // Between turns, answered at once: the person "reads" meanwhile.
                Effect::EmbedSentences(job) => {
                    let inputs = job.inputs();
                    self.embedded_sentences.extend(inputs.iter().cloned());
                    let answer = match self.embed {
                        Some(f) => job.answer(Ok(inputs.iter().map(|s| f(s)).collect())),
                        None => job.answer(Err("no embedding model".into())),
                    };
                    self.run(answer, report, server);
                }
                // Between turns, answered at once, as the actor answers when it ends.
                Effect::DescribePicture { from, image, .. } => {
                    self.described.push((from, image.name.clone()));
                    let description = self.describe.map(|f| f(&image.name));
                    let answer = Input::PictureDescribed {
                        from,
                        hash: image.hash,
                        description,
                    };
                    self.run(answer, report, server);
                }
                Effect::EmbedQuery { text, .. } => {
                    self.embedded_queries.push(text.clone());
                    let vector = self.embed.map(|f| f(&text));
                    self.run(Input::QueryEmbedded(vector), report, server);
                }
                Effect::RunTools(calls) => {
                    for call in calls {
                        self.tools_run.push(call.clone());
                        let (result, is_error) = (self.tool_output)(&call);
                        // A huge result is read through by the summarizer, as the actor does.
                        let digest = (!is_error)
                            .then(|| match self.engine.digest_plan(&call, &result) {
                                crate::core::engine::Digestion::Read { plan, .. } => Some(plan),
                                _ => None,
                            })
                            .flatten()
                            .and_then(|plan| {
                                let tok = self.engine.tokenizer().clone();
                                let d = futures_lite_block_on(plan.run(
                                    &self.summarizer,
                                    tok.as_ref(),
                                    |_, _| {},
                                ));
                                report.digests += usize::from(d.is_ok());
                                d.ok()
                            })
                            .map(|d| d.text);
                        let answer = ToolAnswer {
                            result,
                            call,
                            is_error,
                            ms: Some(1),
                            digest,
                        };
                        self.run(Input::ToolResult(answer), report, server);
                    }
                }
            }
        }
    }

    /// Layer 2 as the actor does it, from the originals the harness keeps.
    pub fn reduce_results(
        &self,
        items: Vec<crate::core::engine::Reduction>,
    ) -> Vec<(crate::core::message::MessageId, String)> {
        self.engine
            .reduce_with(items, |file| self.saved.get(file).cloned())
    }

    /// A manual compression (F7) carried out to the end.
    pub fn compress_now(&mut self, focus: Option<String>) -> TurnReport {
        let mut report = TurnReport::default();
        self.run(Request::Compress { focus }, &mut report, &|_| {
            panic!("a compression sends no chat request")
        });
        report
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

/// The code [`Harness::state_locker_codes`] states for room `i`.
pub fn locker_code(i: usize) -> usize {
    4000 + i * 7
}
