//! Property tests of the context engine: its invariants over random conversations.
//!
//! Strategy: proptest generates whole conversations — user messages of 1..20,000 chars
//! (prose, code, unicode, marker-laden lines), replies of random length with goal markers,
//! pins, tool results and errors, goal changes, manual compressions with and without a
//! focus, snapshots and restores, mode and ctx changes, a server that truncates, fails,
//! answers HTTP 400 or is interrupted — at a random ctx, with a well-behaved (`Extractive`)
//! or misbehaving (`Erratic`) summarizer and a random server-side token ratio
//! (calibration). A small reference model, kept by the test from what it asked for (not
//! from engine internals), says what the conversation is, which messages are pinned or
//! tool errors, and which were clipped (from `MessageClipped` events).
//!
//! Checked on every request sent: the hard guard, `num_ctx`, an honest estimate, and that
//! protected content reaches the model verbatim. Checked on every blocked turn: nothing
//! allowed could have made it fit. Checked after every step: history is complete and
//! unchanged, every conversation id is active or covered by exactly one checkpoint, the
//! checkpoint count is bounded, and replaying the log rebuilds the same state. A separate
//! property drives 200+ compressions and checks checkpoint tokens against a fixed bound.
//!
//! `PROPTEST_CASES=2000 cargo test --test engine_props` runs a deeper search (proptest lets
//! the variable override every property's count; the 200-compression one takes ~1.5 s a
//! case in debug).
#![allow(clippy::unwrap_used)]

use ollm_tui::core::budget::{Budget, MAX_CHECKPOINTS, RESERVE_SAMPLES, reserve_for};
use ollm_tui::core::checkpoint::Level;
use ollm_tui::core::compress::pipeline::limit_for;
use ollm_tui::core::engine::ToolAnswer;
use ollm_tui::core::engine::{
    ChatPrompt, Effect, EngineError, Input, PromptRole, ReplyInput, Request,
};
use ollm_tui::core::events::{CompressReason, EngineEvent};
use ollm_tui::core::goals::{ArtifactAction, GoalChange, GoalStatus, Priority, StepStatus};
use ollm_tui::core::message::{MessageId, ReplyStatus, Role, ToolCall};
use ollm_tui::core::mode::{Mode, Tier};
use ollm_tui::core::record::{RecordBody, SnapshotPurpose};
use ollm_tui::core::snapshot::Snapshot;
use ollm_tui::core::summarizer::doubles::{Erratic, Extractive};
use ollm_tui::core::summarizer::{Summarizer, SummaryError, SummaryRequest};
use ollm_tui::core::testing::{Harness, futures_lite_block_on};
use ollm_tui::core::tokens::{
    ByteEstimate, MESSAGE_OVERHEAD_TOKENS, REQUEST_OVERHEAD_TOKENS, Tiktoken, Tokenizer,
};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

// ----- generated input -----

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    Prose,
    Code,
    Unicode,
    Lines,
}

/// A text described by its shape: generated deterministically, so shrinking the length or
/// the seed shrinks the text without proptest handling 20,000-char strings.
#[derive(Clone)]
struct TextSpec {
    flavor: Flavor,
    len: usize,
    seed: u64,
}

impl std::fmt::Debug for TextSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}x{}#{}", self.flavor, self.len, self.seed)
    }
}

const PROSE: &[&str] = &[
    "the ",
    "model ",
    "should ",
    "keep ",
    "the context ",
    "small; ",
    "we ",
    "decided ",
    "to ",
    "use ",
    "Postgres ",
    "because ",
    "port 8080 ",
    "was ",
    "taken. ",
    "See ",
    "src/main.rs ",
    "and ",
    "https://example.org/docs?id=42 ",
    "for ",
    "details. ",
    "The timeout ",
    "is ",
    "4500 ms. ",
    "It ",
    "works, ",
    "mostly. ",
    "Next, ",
    "handle_request ",
    "returns ",
    "an error. ",
    "1,234,567 ",
    "rows ",
    "v2.3.1 ",
    "\n",
    "\n\n",
];
const CODE: &[&str] = &[
    "fn handle_request(req: &Request) -> Result<Response, Error> {\n",
    "    let value = cache.get(&key).ok_or(Error::Missing)?;\n",
    "    if value.len() > MAX_LEN { return Err(Error::TooLong); }\n",
    "}\n",
    "```rust\n",
    "```\n",
    "\t// TODO: retry on EAGAIN (errno 11)\n",
    "import os, sys  # config at ./conf/app.toml\n",
    "SELECT id, name FROM users WHERE id = 42;\n",
    "{\"key\": [1, 2, 3], \"nested\": {\"a\": null}}\n",
    "    println!(\"{}\", x);\r\n",
];
const UNICODE: &[&str] = &[
    "日本語の文章です。",
    "中文文本，",
    "한국어 문장 ",
    "🦀",
    "👩‍💻 ",
    "e\u{301}",
    "مرحبا بالعالم ",
    "Ünïcödé ",
    "\u{200b}",
    "\u{202e}txet\u{202c} ",
    "Ελληνικά ",
    "\n",
];
const LINES: &[&str] = &[
    "- item one\n",
    "[DECISION] Use tabs - LOCKED\n",
    "[NEXT] write more tests\n",
    "> quoted line\n",
    "1. first\n",
    "## Heading\n",
    "[GOAL] not a goal, said by the user\n",
    "plain line with /usr/local/bin/tool\n",
    "\n",
];

fn render(spec: &TextSpec) -> String {
    let words = match spec.flavor {
        Flavor::Prose => PROSE,
        Flavor::Code => CODE,
        Flavor::Unicode => UNICODE,
        Flavor::Lines => LINES,
    };
    let mut state = spec.seed | 1;
    let mut out = String::with_capacity(spec.len + 64);
    let mut chars = 0;
    while chars < spec.len {
        // xorshift64
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let w = words[(state % words.len() as u64) as usize];
        out.push_str(w);
        chars += w.chars().count();
    }
    out.chars().take(spec.len).collect()
}

fn flavor() -> impl Strategy<Value = Flavor> {
    prop_oneof![
        Just(Flavor::Prose),
        Just(Flavor::Code),
        Just(Flavor::Unicode),
        Just(Flavor::Lines)
    ]
}

fn user_text() -> impl Strategy<Value = TextSpec> {
    let len = prop_oneof![8 => 1usize..200, 3 => 200usize..2_000, 1 => 2_000usize..=20_000];
    (flavor(), len, any::<u64>()).prop_map(|(flavor, len, seed)| TextSpec { flavor, len, seed })
}

fn reply_text() -> impl Strategy<Value = TextSpec> {
    let len = prop_oneof![6 => 1usize..400, 3 => 400usize..4_000, 1 => 4_000usize..12_000];
    (flavor(), len, any::<u64>()).prop_map(|(flavor, len, seed)| TextSpec { flavor, len, seed })
}

/// Marker lines a reply ends with: (kind, topic).
fn markers() -> impl Strategy<Value = Vec<(u8, u8)>> {
    prop::collection::vec((0u8..6, 0u8..8), 0..3)
}

fn marker_line(kind: u8, n: u8) -> String {
    match kind {
        0 => format!("[GOAL] Goal number {n}"),
        1 => format!("[CHECKPOINT] Step {n} - COMPLETED"),
        2 => format!("[DECISION] Decision {n} - LOCKED"),
        3 => format!("[ARTIFACT] Created src/gen_{n}.rs"),
        4 => format!("[NEXT] Do thing {n}"),
        _ => format!("[DECISION] Open question {n}"),
    }
}

#[derive(Debug, Clone)]
enum GoalOp {
    Set(u8),
    Decision(u8, bool),
    Unlock(u8),
    Step(u8),
    Next(u8),
    Artifact(u8),
    Complete,
    Clear,
}

fn goal_op() -> impl Strategy<Value = GoalOp> {
    prop_oneof![
        3 => (0u8..4).prop_map(GoalOp::Set),
        3 => (0u8..6, any::<bool>()).prop_map(|(n, l)| GoalOp::Decision(n, l)),
        1 => (1u8..5).prop_map(GoalOp::Unlock),
        1 => (0u8..6).prop_map(GoalOp::Step),
        1 => (0u8..6).prop_map(GoalOp::Next),
        1 => (0u8..6).prop_map(GoalOp::Artifact),
        1 => Just(GoalOp::Complete),
        1 => Just(GoalOp::Clear),
    ]
}

impl GoalOp {
    fn change(&self) -> GoalChange {
        match *self {
            GoalOp::Set(n) => GoalChange::SetGoal {
                description: format!("User goal {n}: ship feature {n} with src/feature_{n}.rs"),
                priority: Priority::High,
            },
            GoalOp::Decision(n, locked) => GoalChange::Decision {
                text: format!("User decision {n}"),
                locked,
            },
            GoalOp::Unlock(id) => GoalChange::Unlock { id: u32::from(id) },
            GoalOp::Step(n) => GoalChange::Checkpoint {
                description: format!("Milestone {n}"),
                status: StepStatus::InProgress,
            },
            GoalOp::Next(n) => GoalChange::Next {
                text: format!("User next step {n}"),
            },
            GoalOp::Artifact(n) => GoalChange::Artifact {
                action: ArtifactAction::Modified,
                path: format!("docs/notes_{n}.md"),
            },
            GoalOp::Complete => GoalChange::GoalStatus {
                status: GoalStatus::Completed,
            },
            GoalOp::Clear => GoalChange::Clear,
        }
    }
}

/// How the server handles a turn's request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Server {
    Answers,
    /// Answers, but reports seeing a third of the prompt (it truncated).
    Truncates,
    /// The stream dies or the user stops it: a partial reply.
    Interrupted,
    /// The request fails (connection refused): no reply, the turn is abandoned.
    Fails,
    /// HTTP 400 "too long" on the first try; the retry is answered.
    Overflows,
}

fn server() -> impl Strategy<Value = Server> {
    prop_oneof![
        16 => Just(Server::Answers),
        1 => Just(Server::Truncates),
        1 => Just(Server::Interrupted),
        1 => Just(Server::Fails),
        1 => Just(Server::Overflows),
    ]
}

#[derive(Debug, Clone)]
enum Op {
    Turn {
        user: TextSpec,
        reply: TextSpec,
        markers: Vec<(u8, u8)>,
        server: Server,
    },
    Tool {
        result: TextSpec,
        is_error: bool,
    },
    Pin {
        /// Which active message (modulo their number).
        pick: usize,
        pinned: bool,
    },
    Goal(GoalOp),
    Compress {
        focus: Option<u8>,
    },
    Snapshot,
    /// Which saved snapshot (modulo their number).
    Restore(usize),
    Mode(Mode),
    Ctx(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (user_text(), reply_text(), markers(), server()).prop_map(
            |(user, reply, markers, server)| Op::Turn { user, reply, markers, server }
        ),
        2 => (reply_text(), prop::bool::weighted(0.4))
            .prop_map(|(result, is_error)| Op::Tool { result, is_error }),
        2 => (any::<usize>(), prop::bool::weighted(0.85))
            .prop_map(|(pick, pinned)| Op::Pin { pick, pinned }),
        2 => goal_op().prop_map(Op::Goal),
        2 => prop::option::of(0u8..4).prop_map(|focus| Op::Compress { focus }),
        1 => Just(Op::Snapshot),
        1 => any::<usize>().prop_map(Op::Restore),
        1 => prop::sample::select(Mode::ALL.to_vec()).prop_map(Op::Mode),
        1 => (1024u32..=16384).prop_map(Op::Ctx),
    ]
}

// ----- the summarizer under test -----

/// Either double, chosen per case.
enum Summ {
    Erratic(Erratic),
    Extractive(Extractive),
}

impl Summarizer for Summ {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummaryError> {
        match self {
            Summ::Erratic(s) => s.summarize(request).await,
            Summ::Extractive(s) => s.summarize(request).await,
        }
    }
}

fn summarizer(erratic: bool, seed: u64) -> Summ {
    if erratic {
        Summ::Erratic(Erratic::new(seed))
    } else {
        Summ::Extractive(Extractive::new())
    }
}

fn tiktoken() -> Arc<dyn Tokenizer> {
    static TOK: OnceLock<Arc<Tiktoken>> = OnceLock::new();
    TOK.get_or_init(|| Arc::new(Tiktoken::new().unwrap()))
        .clone()
}

// ----- the reference model and the checks -----

/// What the test knows about the conversation from what it asked for.
#[derive(Debug, Clone, Default)]
struct Model {
    /// Every message ever recorded: role and text.
    history: BTreeMap<MessageId, (Role, String)>,
    /// The conversation as it stands (history minus abandoned branches).
    conversation: BTreeSet<MessageId>,
    pinned: BTreeSet<MessageId>,
    tool_errors: BTreeSet<MessageId>,
    /// An emergency fold ran (`Compressed` with reason `Emergency`): from then on a tool
    /// error may have been folded like any message.
    emergency: bool,
    /// Messages the engine reported clipping (`MessageClipped`).
    clipped: BTreeSet<MessageId>,
    /// Older tool results the model sees cut down (`result_reduced` records), until a pin
    /// or a clip lifts it.
    reduced: BTreeMap<MessageId, String>,
    ctx: u32,
    mode: Mode,
    /// eval_count of every complete reply, in order (the reply reserve follows them).
    reply_lengths: Vec<u32>,
}

struct SavedSnapshot {
    snapshot: Snapshot,
    conversation: BTreeSet<MessageId>,
}

struct Sim {
    h: Harness<Summ>,
    model: Model,
    snapshots: Vec<SavedSnapshot>,
    /// Model tokens the server sees per raw token of ours.
    server_ratio: f64,
    sent: usize,
    blocked: usize,
    /// Background compressions outlive the next operation (else they end at once).
    defer: bool,
    /// The background compression under way, if one is deferred.
    pending: Option<Box<ollm_tui::core::compress::CompressionPlan>>,
}

/// How the simulated server answers the turn in progress.
struct Answer {
    reply: String,
    server: Server,
    /// Refuse the next request as too long (once).
    overflow: bool,
}

/// The refusal among effects, if an input was refused.
fn refusal(fx: &[Effect]) -> Option<&EngineError> {
    fx.iter().find_map(|e| match e {
        Effect::Event(EngineEvent::Refused { error }) => Some(error),
        _ => None,
    })
}

impl Sim {
    fn new(ctx: u32, tok: Arc<dyn Tokenizer>, summ: Summ, server_ratio: f64) -> Sim {
        let h = Harness::new(ctx, tok, summ);
        let mode = h.engine.mode();
        Sim {
            h,
            model: Model {
                ctx,
                mode,
                ..Model::default()
            },
            snapshots: Vec::new(),
            server_ratio,
            sent: 0,
            blocked: 0,
            defer: false,
            pending: None,
        }
    }

    /// Carry out effects; messages and clips go into the model.
    fn absorb(&mut self, fx: Vec<Effect>) {
        for e in &fx {
            match e {
                Effect::Persist(r) => {
                    let id = MessageId(r.seq);
                    match &r.body {
                        RecordBody::ResultReduced { id, text, .. } => {
                            assert!(!self.model.tool_errors.contains(id), "an error was reduced");
                            assert!(
                                !self.model.pinned.contains(id),
                                "a pinned result was reduced"
                            );
                            self.model.reduced.insert(*id, text.clone());
                        }
                        RecordBody::Pin { id, pinned: true } => {
                            self.model.reduced.remove(id);
                        }
                        _ => {}
                    }
                    let entry = match &r.body {
                        RecordBody::User { text, .. } => Some((Role::User, text.clone())),
                        RecordBody::Assistant { text, .. } => Some((Role::Assistant, text.clone())),
                        RecordBody::Tool {
                            result, is_error, ..
                        } => {
                            if *is_error {
                                self.model.tool_errors.insert(id);
                            }
                            Some((Role::Tool, result.clone()))
                        }
                        _ => None,
                    };
                    if let Some(entry) = entry {
                        assert!(
                            self.model.history.insert(id, entry).is_none(),
                            "message id {id} reused"
                        );
                        self.model.conversation.insert(id);
                    }
                }
                Effect::Event(EngineEvent::Compressed {
                    reason: CompressReason::Emergency,
                    ..
                }) => {
                    self.model.emergency = true;
                }
                Effect::Event(EngineEvent::MessageClipped { id, .. }) => {
                    self.model.clipped.insert(*id);
                    self.model.reduced.remove(id);
                }
                _ => {}
            }
        }
        self.h.absorb(fx);
    }

    fn text_of(&self, id: MessageId) -> &str {
        &self.model.history[&id].1
    }

    fn role_of(&self, id: MessageId) -> Role {
        self.model.history[&id].0
    }

    /// The most recent exchange: from the user message answered by the last reply of the
    /// conversation to its end (with the pending message and any tool results).
    fn recent_exchange(&self) -> Vec<MessageId> {
        let conv: Vec<MessageId> = self.model.conversation.iter().copied().collect();
        let last_reply = conv
            .iter()
            .rposition(|id| self.role_of(*id) == Role::Assistant);
        let start = match last_reply {
            Some(a) => conv[..a]
                .iter()
                .rposition(|id| self.role_of(*id) == Role::User)
                .unwrap_or(a),
            None => conv
                .iter()
                .rposition(|id| self.role_of(*id) == Role::User)
                .unwrap_or(conv.len()),
        };
        conv[start..].to_vec()
    }

    /// Property 1 and 2, on a request as it is sent (engine state = the one that built it).
    fn check_request(&self, p: &ChatPrompt) {
        let e = &self.h.engine;
        let ctx = self.model.ctx;
        // 1. The hard guard, against figures the test derives itself.
        assert_eq!(p.num_ctx, ctx, "num_ctx must be the configured ctx");
        let recent = &self.model.reply_lengths;
        let recent = &recent[recent.len().saturating_sub(RESERVE_SAMPLES)..];
        let hard = ctx - reserve_for(ctx, None, recent);
        assert!(
            p.estimate <= hard,
            "over-budget request: {} > {hard}",
            p.estimate
        );
        assert_eq!(p.estimate, e.calibration().apply(p.raw_estimate));
        // The estimate is honest: recounting the request as sent gives no more (up to
        // BPE effects of joining system prompt and goal board).
        let tok = e.tokenizer();
        let recount: u32 = p
            .messages
            .iter()
            .map(|m| tok.count(&m.content) + MESSAGE_OVERHEAD_TOKENS)
            .sum::<u32>()
            + REQUEST_OVERHEAD_TOKENS;
        assert!(
            recount <= p.raw_estimate + 2,
            "estimate {} undercounts the request ({recount})",
            p.raw_estimate
        );

        // 2. Protected content, verbatim.
        let prompts = e.prompts();
        let system = &p.messages[0];
        assert_eq!(system.role, PromptRole::System);
        let base = if Tier::for_ctx(ctx) == Tier::T1 {
            prompts.chat.base_short.trim()
        } else {
            prompts.chat.base.trim()
        };
        assert!(system.content.starts_with(base), "system prompt altered");
        let mode_text = prompts.chat.modes.get(self.model.mode);
        assert!(
            system.content.contains(mode_text),
            "system prompt lacks the mode {:?}",
            self.model.mode
        );
        let board = e.goals().render_for_prompt();
        assert!(
            system.content.contains(board.trim_end()),
            "goal board not verbatim in the system prompt"
        );

        // Every non-system message is a conversation message, verbatim unless clipped.
        let bodies: Vec<&str> = p
            .messages
            .iter()
            .filter(|m| m.role != PromptRole::System)
            .map(|m| m.content.as_str())
            .collect();
        // Except a broken-off reply being retried (last) or retried (a reply follows it),
        // unless pinned: the model answers afresh instead of continuing the fragment.
        let all = e.active().messages();
        let superseded = |i: usize| {
            let entry = &all[i];
            entry.role == Role::Assistant
                && !entry.pinned
                && e.history().get(entry.id).unwrap().status == ReplyStatus::Interrupted
                && all.get(i + 1).is_none_or(|n| n.role == Role::Assistant)
        };
        let skipped: Vec<MessageId> = (0..all.len())
            .filter(|&i| superseded(i))
            .map(|i| all[i].id)
            .collect();
        let active: Vec<_> = (0..all.len())
            .filter(|&i| !superseded(i))
            .map(|i| &all[i])
            .collect();
        assert_eq!(
            bodies.len(),
            active.len(),
            "one request message per active one"
        );
        for (entry, body) in active.iter().zip(&bodies) {
            assert!(
                self.model.conversation.contains(&entry.id),
                "{} sent but not in the conversation",
                entry.id
            );
            let original = self.text_of(entry.id);
            if self.model.reduced.get(&entry.id).is_some_and(|r| r == body) {
                continue;
            }
            if *body != original {
                assert!(
                    self.model.clipped.contains(&entry.id),
                    "{} altered without a MessageClipped event",
                    entry.id
                );
                check_clip(original, body, entry.id);
            }
        }
        let verbatim = |id: MessageId, what: &str| {
            let original = self.text_of(id);
            assert!(
                bodies.contains(&original),
                "{what} {id} not verbatim in the request ({} chars)",
                original.chars().count()
            );
        };
        for id in self.model.pinned.intersection(&self.model.conversation) {
            verbatim(*id, "pinned message");
        }
        for id in self
            .model
            .tool_errors
            .intersection(&self.model.conversation)
        {
            // Errors stay in view until an emergency; then they fold like any message.
            let folded = self
                .h
                .engine
                .checkpoints()
                .iter()
                .any(|cp| cp.covers.contains(id));
            if folded {
                assert!(
                    self.model.emergency,
                    "tool error {id} folded outside an emergency"
                );
                continue;
            }
            verbatim(*id, "tool error");
        }
        for id in self.recent_exchange() {
            if skipped.contains(&id) {
                continue;
            }
            if self.model.clipped.contains(&id) && !bodies.contains(&self.text_of(id)) {
                // The documented emergency exception; check_clip saw it above.
                assert!(
                    active.iter().any(|a| a.id == id),
                    "clipped recent message {id} missing"
                );
                continue;
            }
            verbatim(id, "recent message");
        }
    }

    /// Property 3 and 4, after every step.
    fn check_state(&self) {
        let e = &self.h.engine;
        // History: every message ever recorded, unchanged.
        assert_eq!(e.history().len(), self.model.history.len(), "history size");
        for m in e.history().iter() {
            let (role, text) = &self.model.history[&m.id];
            assert_eq!(m.role, *role);
            assert_eq!(&m.text, text, "history text of {} changed", m.id);
            assert_eq!(
                m.pinned,
                self.model.pinned.contains(&m.id),
                "pin of {}",
                m.id
            );
        }
        // Each conversation id is active or covered once, never both; nothing dropped.
        let mut seen = BTreeSet::new();
        for cp in e.checkpoints() {
            assert!(!cp.covers.is_empty(), "checkpoint {} covers nothing", cp.id);
            assert!(
                cp.covers.windows(2).all(|w| w[0] < w[1]),
                "covers of {} unsorted",
                cp.id
            );
            for id in &cp.covers {
                assert!(seen.insert(*id), "{id} covered twice");
            }
        }
        for a in e.active().messages() {
            assert!(seen.insert(a.id), "{} both active and covered", a.id);
        }
        assert_eq!(seen, self.model.conversation, "conversation ids changed");
        // Merging keeps the checkpoint count bounded.
        assert!(
            e.checkpoints().len() <= MAX_CHECKPOINTS,
            "checkpoints pile up: {:?}",
            e.checkpoints().iter().map(|c| c.level).collect::<Vec<_>>()
        );
        let conv = e.conversation_ids();
        assert!(conv.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(conv.len(), seen.len());
        // Replay rebuilds the same state.
        let (re, report) = self.h.replayed();
        assert!(
            report.issues.is_empty(),
            "replay issues: {:?}",
            report.issues
        );
        assert_eq!(re.active_state(), e.active_state(), "replayed active state");
        assert_eq!(re.budget(), e.budget(), "replayed budget");
        assert_eq!(re.prompt(), e.prompt(), "replayed prompt");
        assert_eq!(re.history(), e.history(), "replayed history");
    }

    /// Feed an input and carry out everything it leads to; `answer` says how the
    /// server answers a chat request (there is none outside a turn).
    fn feed(&mut self, input: impl Into<Input>, answer: &mut Option<Answer>) {
        let fx = self.h.engine.handle(input, self.h.clock.tick());
        self.drive(fx, answer);
    }

    /// Carry out effects as the actor does, answering every request.
    fn drive(&mut self, fx: Vec<Effect>, answer: &mut Option<Answer>) {
        for e in fx {
            match e {
                Effect::SaveSnapshot(snap) => {
                    let meta = snap.meta.clone();
                    if meta.purpose != SnapshotPurpose::Emergency {
                        self.save_snapshot(*snap);
                    }
                    self.feed(Input::SnapshotSaved { meta }, answer);
                }
                Effect::ReduceResults(items) => {
                    let texts = self.h.reduce_results(items);
                    self.feed(Input::ResultsReduced(texts), answer);
                }
                Effect::CompressInBackground(plan) => {
                    assert!(self.pending.is_none(), "a second background compression");
                    if self.defer {
                        self.pending = Some(plan);
                    } else {
                        let outcome = futures_lite_block_on(plan.run(&self.h.summarizer));
                        self.feed(Input::Compressed(Box::new(outcome)), answer);
                    }
                }
                // The person's message goes first: a deferred summary is dropped unanswered.
                Effect::CancelBackground => {
                    self.pending = None;
                }
                Effect::Chat(p) => {
                    let a = answer.as_mut().expect("a chat request outside a turn");
                    self.check_request(&p);
                    self.sent += 1;
                    if a.overflow {
                        // The server refuses once; the engine compresses and retries.
                        a.overflow = false;
                        let message = "the input length exceeds the context length".into();
                        self.feed(Input::Overflow { message }, answer);
                        continue;
                    }
                    if a.server == Server::Fails {
                        self.feed(Input::NoReply, answer);
                        continue;
                    }
                    let seen = if a.server == Server::Truncates {
                        p.raw_estimate / 3
                    } else {
                        (f64::from(p.raw_estimate) * self.server_ratio).round() as u32
                    };
                    let status = if a.server == Server::Interrupted {
                        ReplyStatus::Interrupted
                    } else {
                        ReplyStatus::Complete
                    };
                    let reply = a.reply.clone();
                    let before = self.h.engine.history().len();
                    let input = Input::Reply(ReplyInput {
                        text: reply.clone(),
                        status,
                        prompt_eval_count: Some(seen),
                        prompt_eval_cached: None,
                        eval_count: Some(7),
                        prompt_raw: p.raw_estimate,
                        tool_calls: Vec::new(),
                        thinking: String::new(),
                        timing: None,
                    });
                    self.feed(input, answer);
                    if status == ReplyStatus::Complete {
                        self.model.reply_lengths.push(7);
                    }
                    if status == ReplyStatus::Interrupted && reply.trim().is_empty() {
                        // Nothing was said: nothing to keep.
                        assert_eq!(self.h.engine.history().len(), before);
                    } else {
                        let last = self.h.engine.history().last().unwrap();
                        assert_eq!(last.role, Role::Assistant);
                        assert_eq!(last.status, status);
                        assert_eq!(last.text, reply);
                    }
                }
                Effect::Event(EngineEvent::Blocked(_)) => {
                    self.check_blocked();
                    self.blocked += 1;
                    self.absorb(vec![e]);
                }
                other => self.absorb(vec![other]),
            }
        }
    }

    fn save_snapshot(&mut self, snapshot: Snapshot) {
        let state = &snapshot.state;
        let conversation: BTreeSet<MessageId> = state
            .checkpoints
            .iter()
            .flat_map(|c| c.covers.iter().copied())
            .chain(state.messages.iter().copied())
            .collect();
        assert_eq!(
            conversation, self.model.conversation,
            "snapshot does not hold the conversation"
        );
        assert_eq!(snapshot.messages.len(), state.messages.len());
        for m in &snapshot.messages {
            assert_eq!(&m.text, self.text_of(m.id), "snapshot text of {}", m.id);
        }
        self.snapshots.push(SavedSnapshot {
            snapshot,
            conversation,
        });
    }

    fn turn(&mut self, user: String, reply: String, server: Server) {
        let fx = self.h.engine.handle(
            Request::Send {
                text: user.clone(),
                images: Vec::new(),
            },
            self.h.clock.tick(),
        );
        let id = fx
            .iter()
            .filter_map(|e| e.record())
            .find(|r| matches!(r.body, RecordBody::User { .. }))
            .map(|r| MessageId(r.seq));
        let mut answer = Some(Answer {
            reply,
            server,
            overflow: server == Server::Overflows,
        });
        self.drive(fx, &mut answer);
        match id {
            Some(id) => assert_eq!(self.text_of(id), user),
            None => assert!(user.trim().is_empty(), "a message was not recorded"),
        }
        assert!(!self.h.engine.in_turn(), "the turn did not settle");
    }

    /// Blocked only if nothing allowed could make the request fit: everything left is
    /// protected, or clipping every other message down to a short head and tail (about
    /// `CLIP_FLOOR` tokens with its marker) would still not be enough.
    fn check_blocked(&self) {
        const CLIP_FLOOR: u32 = 128;
        let e = &self.h.engine;
        let b = e.budget();
        let messages_min: u32 = e
            .active()
            .messages()
            .iter()
            .map(|a| {
                if a.pinned || a.tool_error {
                    a.cost()
                } else {
                    a.cost().min(CLIP_FLOOR)
                }
            })
            .sum();
        let least = b.system + b.goals + b.checkpoints + e.calibration().apply(messages_min);
        assert!(
            least > b.hard_limit(),
            "blocked, yet clipping unprotected messages would fit it: {least} <= {} ({b:?})",
            b.hard_limit()
        );
    }

    /// One operation; a summary that was under way between turns when it began ends after
    /// it (as one that outlives a pin or a goal change would), unless the operation
    /// cancelled it (a message, a manual compression).
    fn apply(&mut self, op: &Op) {
        let running = self.pending.is_some();
        match op {
            // The actor stops it before a restore; a message or a manual compression
            // cancels it in the engine (`CancelBackground`).
            Op::Restore(_) if running => {
                self.pending = None;
                self.feed(Input::CompressionStopped, &mut None);
            }
            _ => {}
        }
        self.apply_op(op);
        if running {
            self.finish_background();
        }
    }

    fn finish_background(&mut self) {
        if let Some(plan) = self.pending.take() {
            let outcome = futures_lite_block_on(plan.run(&self.h.summarizer));
            self.feed(Input::Compressed(Box::new(outcome)), &mut None);
        }
    }

    fn apply_op(&mut self, op: &Op) {
        match op {
            Op::Turn {
                user,
                reply,
                markers,
                server,
            } => {
                let mut reply = render(reply);
                for (k, n) in markers {
                    reply.push('\n');
                    reply.push_str(&marker_line(*k, *n));
                }
                self.turn(render(user), reply, *server);
            }
            Op::Tool { result, is_error } => {
                let text = render(result);
                let fx = self.h.engine.handle(
                    Input::ToolResult(ToolAnswer {
                        call: ToolCall {
                            id: String::new(),
                            name: "run_command".into(),
                            args: "{\"cmd\":\"cargo test\"}".into(),
                            from_text: false,
                        },
                        result: text.clone(),
                        is_error: *is_error,
                        digest: None,
                        ms: Some(5),
                    }),
                    self.h.clock.tick(),
                );
                let id = MessageId(fx.iter().find_map(|e| e.record()).unwrap().seq);
                self.absorb(fx);
                let original = self
                    .h
                    .engine
                    .history()
                    .get(id)
                    .and_then(|m| m.tool.as_ref()?.original.clone());
                match original {
                    // Shortened for the context: the whole result is kept byte for byte.
                    Some(o) => {
                        assert!(!*is_error, "an error was shortened");
                        assert_eq!(self.h.saved[&o.file], text);
                        assert!(self.text_of(id).starts_with("[Shortened "));
                    }
                    None => assert_eq!(self.text_of(id), text),
                }
            }
            Op::Pin { pick, pinned } => {
                let active = self.h.engine.active().messages();
                if active.is_empty() {
                    return;
                }
                let id = active[pick % active.len()].id;
                let input = Request::Pin {
                    id: Some(id),
                    pinned: *pinned,
                };
                let fx = self.h.engine.handle(input, self.h.clock.tick());
                assert!(refusal(&fx).is_none(), "pin of an active message refused");
                self.absorb(fx);
                if *pinned {
                    self.model.pinned.insert(id);
                } else {
                    self.model.pinned.remove(&id);
                }
            }
            Op::Goal(g) => {
                let board = self.h.engine.goals().clone();
                let input = Request::Goal { change: g.change() };
                let fx = self.h.engine.handle(input, self.h.clock.tick());
                if refusal(&fx).is_some() {
                    assert_eq!(self.h.engine.goals(), &board, "refused but changed");
                }
                self.absorb(fx);
            }
            Op::Compress { focus } => {
                let focus = focus.map(|n| format!("topic {n} and src/feature_{n}.rs"));
                self.feed(Request::Compress { focus }, &mut None);
            }
            Op::Snapshot => {
                let label = Some("prop".into());
                self.feed(Request::Snapshot { label }, &mut None);
            }
            Op::Restore(pick) => {
                if self.snapshots.is_empty() {
                    return;
                }
                let i = pick % self.snapshots.len();
                let snap = self.snapshots[i].snapshot.clone();
                let conversation = self.snapshots[i].conversation.clone();
                let snapshot = Box::new(snap.clone());
                self.feed(Input::Restore { snapshot }, &mut None);
                self.model.conversation = conversation;
                self.model.mode = snap.state.mode;
                // Reductions go with the state, except of a message pinned since.
                self.model.reduced = snap
                    .state
                    .reduced
                    .iter()
                    .filter(|r| !self.model.pinned.contains(&r.id))
                    .map(|r| (r.id, r.text.clone()))
                    .collect();
                // Messages folded in that state were not pinned then; pins go with the state.
                for cp in &snap.state.checkpoints {
                    for id in &cp.covers {
                        self.model.pinned.remove(id);
                    }
                }
                assert_eq!(self.h.engine.active_state().messages, snap.state.messages);
                assert_eq!(self.h.engine.checkpoints(), &snap.state.checkpoints[..]);
            }
            Op::Mode(m) => {
                let fx = self
                    .h
                    .engine
                    .handle(Request::SetMode { mode: *m }, self.h.clock.tick());
                self.absorb(fx);
                self.model.mode = *m;
            }
            Op::Ctx(c) => {
                let input = Request::SetCtx { ctx: Some(*c) };
                let fx = self.h.engine.handle(input, self.h.clock.tick());
                self.absorb(fx);
                self.model.ctx = *c;
            }
        }
    }
}

/// A clipped message shows a head and a tail of the original around a marker.
fn check_clip(original: &str, body: &str, id: MessageId) {
    // The clip's own marker: a shortened tool result carries markers of its own ("[… 9
    // lines left out …]") that may come first.
    let cut = body
        .find(" tokens cut here")
        .unwrap_or_else(|| panic!("{id} altered but carries no clip marker"));
    let start = body[..cut]
        .rfind("\n[… ")
        .unwrap_or_else(|| panic!("{id}: clip marker not opened"));
    let (head, rest) = (&body[..start], &body[start + "\n[… ".len()..]);
    let (marker, tail) = rest
        .split_once(" …]\n")
        .unwrap_or_else(|| panic!("{id}: clip marker not closed"));
    assert!(marker.contains("tokens cut here"), "{id}: {marker}");
    assert!(!head.is_empty(), "{id}: clip keeps no head");
    assert!(
        original.starts_with(head),
        "{id}: head is not the original's"
    );
    assert!(original.ends_with(tail), "{id}: tail is not the original's");
    assert!(
        head.len() + tail.len() < original.len(),
        "{id}: a clip that omits nothing"
    );
}

fn run_conversation(
    ctx: u32,
    tok: Arc<dyn Tokenizer>,
    erratic: bool,
    seed: u64,
    server_ratio: f64,
    ops: &[Op],
) -> Sim {
    let mut sim = Sim::new(ctx, tok, summarizer(erratic, seed), server_ratio);
    // Half the conversations let background compressions run across the next operation.
    sim.defer = seed.is_multiple_of(2);
    for op in ops {
        sim.apply(op);
        sim.check_state();
    }
    sim
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, max_shrink_iters: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Properties 1–4 over random conversations, with the fast byte-based counter.
    #[test]
    fn random_conversations_keep_the_invariants(
        ctx in 1024u32..=16384,
        erratic in any::<bool>(),
        seed in any::<u64>(),
        server_ratio in 0.7f64..1.5,
        ops in prop::collection::vec(op(), 1..40),
    ) {
        run_conversation(ctx, Arc::new(ByteEstimate), erratic, seed, server_ratio, &ops);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, max_shrink_iters: 500, failure_persistence: None, ..ProptestConfig::default() })]

    /// The same with the real tokenizer (slower, so fewer cases).
    #[test]
    fn random_conversations_keep_the_invariants_with_tiktoken(
        ctx in 1024u32..=16384,
        erratic in any::<bool>(),
        seed in any::<u64>(),
        server_ratio in 0.7f64..1.5,
        ops in prop::collection::vec(op(), 1..30),
    ) {
        run_conversation(ctx, tiktoken(), erratic, seed, server_ratio, &ops);
    }
}

// ----- property 5: checkpoint tokens stay bounded -----

/// The most summary tokens there can ever be at this budget, independent of how many
/// compressions ran. A pass leaves at most [`MAX_CHECKPOINTS`] checkpoints (beyond, the
/// two oldest are merged; a failed merge is done mechanically, so it still happens), and
/// every text is accepted only within `limit_for(cap)` tokens (`pipeline::run_task`;
/// mechanical texts stay within `cap`), where no cap is above the detailed level's
/// (`Budget::level_cap`; new, aging and merge caps are all at most that).
fn checkpoint_bound(b: &Budget) -> u32 {
    MAX_CHECKPOINTS as u32 * limit_for(b.level_cap(Level::Detailed))
}

/// Summarizer calls the test's double has answered so far.
fn summary_calls(s: &Summ) -> u32 {
    match s {
        Summ::Erratic(e) => e.calls(),
        Summ::Extractive(e) => e.calls(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, max_shrink_iters: 50, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn checkpoint_tokens_stay_bounded_over_200_compressions(
        ctx in 1024u32..=16384,
        erratic in any::<bool>(),
        seed in any::<u64>(),
        reply_len in 600usize..3_000,
    ) {
        let mut sim = Sim::new(ctx, Arc::new(ByteEstimate), summarizer(erratic, seed), 1.0);
        // The reply reserve settles with the first reply (every reply here is as long),
        // then the room stays fixed; checkpoints made before had a smaller room.
        let mut fixed: Option<(u32, u32)> = None;
        let mut n = 0u64;
        let mut max_seen = 0;
        while sim.h.engine.compressions() < 200 {
            n += 1;
            prop_assert!(n < 5_000, "no progress: {} compressions", sim.h.engine.compressions());
            let reply = render(&TextSpec { flavor: Flavor::Prose, len: reply_len, seed: n });
            sim.turn(format!("Question {n}: what about case {n}?"), reply, Server::Answers);
            if n.is_multiple_of(2) {
                sim.feed(Request::Compress { focus: None }, &mut None);
            }
            let b = sim.h.engine.budget();
            let (bound, room) = *fixed.get_or_insert_with(|| (checkpoint_bound(&b), b.room()));
            prop_assert_eq!(b.room(), room, "the room changed; the bound would not hold");
            let cps = sim.h.engine.checkpoints();
            prop_assert!(
                cps.len() <= MAX_CHECKPOINTS,
                "{} checkpoints: {:?}",
                cps.len(),
                cps.iter().map(|c| c.level).collect::<Vec<_>>()
            );
            let total: u32 = cps.iter().map(|c| c.tokens).sum();
            max_seen = max_seen.max(total);
            prop_assert!(
                total <= bound,
                "checkpoint tokens {} > bound {} after {} compressions: {:?}",
                total,
                bound,
                sim.h.engine.compressions(),
                sim.h.engine.checkpoints().iter().map(|c| (c.level, c.tokens)).collect::<Vec<_>>()
            );
        }
        prop_assert!(sim.sent > 0 && max_seen > 0);
        // Passes do not re-summarize every older checkpoint: the new checkpoint and at
        // most one merge or aging — two calls a pass, a little more where a long input is
        // summarized in parts or a bad draft is retried, whatever the number of checkpoints.
        let calls = summary_calls(&sim.h.summarizer);
        let per_pass = f64::from(calls) / f64::from(sim.h.engine.compressions());
        let most = if erratic { 2.6 } else { 2.2 };
        prop_assert!(per_pass <= most, "{} calls for {} passes", calls, sim.h.engine.compressions());
        sim.check_state();
    }
}
