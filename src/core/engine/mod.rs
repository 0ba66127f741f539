//! The engine: one session's conversation state and every rule that changes it.
//!
//! **One door.** Everything that changes the state comes in as an [`Input`] through
//! [`Engine::handle`]; everything the outside world must do comes back as [`Effect`]s, in
//! order: append a record, sync the log, show a typed event, save a snapshot, stream a
//! chat reply, run a compression. The actor carries them out and answers the requests
//! with further inputs (`Reply`, `Compressed`, `SnapshotSaved`, …). Reading is free: the
//! accessors never change anything. The engine does no I/O and never reads the clock:
//! `now` comes with every input.
//!
//! **One function for state.** Every change of the conversation is a [`Record`](crate::core::record::Record) applied by
//! `apply_record` (in `apply.rs`): live operation commits a record and applies it, replay
//! applies the stored ones, so replaying a log rebuilds exactly the state that produced
//! it. Runtime facts that are not part of the conversation (what the server says about
//! the model, the turn in progress) are not logged.
//!
//! A turn: `Request::Send` → the record is persisted and synced, then the next step: `Chat`
//! when the request fits — possibly after compressions (`Compress` → `Compressed`) and an
//! emergency snapshot (`SaveSnapshot` → `SnapshotSaved`) — and `Reply` records the answer
//! and ends the turn. `Overflow` (the server refused the request as too long) compresses
//! and retries once.
//!
//! Invariants (tested by property tests):
//! - a `Chat` request never exceeds the hard limit (ctx − reserve);
//! - every message id of the conversation is either in the active context or covered by
//!   exactly one checkpoint;
//! - protected content (system prompt, goal board, pinned messages, tool errors, the recent
//!   window) reaches the model verbatim, except for the documented, reported emergency
//!   clip of a message too large for the context.
//!
//! Files: `input` (the door), `turn` (a turn's steps), `commands` (goal board, pins,
//! settings), `facts` (the ledger as `/facts` lists and edits it), `snapshots` (save and restore), `apply` (records → state), `replay`,
//! `prompt` (what is sent, and the budget), `recall` (recall from the log: the index, the
//! slot in a request, `search_history`), `semantic` (recall by meaning: the vectors
//! asked for, kept and used), `compress/` (identify, plan, summarize, apply, and the
//! emergency measures).

mod apply;
mod commands;
pub mod compress;
mod describe;
mod digest;
mod facts;
mod input;
mod offer;
mod picture_recall;
mod pictures;
mod prompt;
mod read_through;
mod recall;
mod reduce;
mod replay;
mod semantic;
mod snapshots;
mod turn;
mod watermark;

pub use crate::core::events::EngineError;
pub use compress::{CompressionOutcome, CompressionPlan};
pub use digest::Digestion;
pub use facts::{FactPlace, FactRow};
pub use input::{Effect, Input, NotRun, Request, ToolAnswer, kept_in_log};
pub use offer::{FIXED_SHARE, Need, ToolOffer, ToolsOffered};
pub use prompt::{ChatPrompt, PromptMessage, PromptRole, max_reply};
pub use read_through::InputReading;
pub use reduce::{REDUCE_ABOVE_CHARS, Reduction};
pub use replay::ReplayReport;
pub use semantic::{
    EmbedJob, Embedder, JOB_SENTENCES, MessageVectorList, QUERY_CHARS, RecallStatus,
};
pub use watermark::TASK_DONE_TOOL;

use crate::core::budget::{BudgetConfig, CtxSource, resolve_ctx};
use crate::core::checkpoint::Checkpoint;
use crate::core::context::{ActiveContext, History};
use crate::core::events::{CompressReason, Intensity};
use crate::core::goals::GoalBoard;
use crate::core::message::{MessageId, ReplyStatus, Role, ToolCall};
use crate::core::mode::{Mode, Tier};
use crate::core::prompts::Prompts;
use crate::core::record::{ActiveState, FORMAT_VERSION, Header, LOG_FORMAT};
use crate::core::reliability::{Reliability, parse_parameter_billions};
use crate::core::tokens::{Calibration, Tokenizer};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;

/// Engine settings that are not part of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EngineConfig {
    pub budget: BudgetConfig,
    /// Take a `recovery` snapshot before each compression.
    pub auto_snapshots: bool,
    /// Rounds of tool calls one message may lead to before the turn stops and asks the
    /// person (a model that calls tools in a loop must not run forever).
    pub tool_rounds: u32,
    /// Tool results enter the context whole, however large (`[tools] results = "whole"`,
    /// for debugging a tool); by default a large one is shortened by kind.
    pub whole_results: bool,
    /// A huge result is read through by the model (layer 1) before it enters the
    /// context (`[tools] results = "summarize"`, the default); off, it is only shortened.
    pub digest_results: bool,
    /// Longest the person should wait for a result to be read through, by the server's
    /// measured speed; a longer reading is not started (the result is shortened).
    pub digest_max_secs: u32,
}

/// Seconds a reading-through may be expected to take, unless configured.
pub const DEFAULT_DIGEST_MAX_SECS: u32 = 30;

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            budget: BudgetConfig::default(),
            auto_snapshots: true,
            tool_rounds: DEFAULT_TOOL_ROUNDS,
            whole_results: false,
            digest_results: true,
            digest_max_secs: DEFAULT_DIGEST_MAX_SECS,
        }
    }
}

/// Tool-call rounds per message, unless configured.
pub const DEFAULT_TOOL_ROUNDS: u32 = 10;

/// Who a new session is for.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSpec {
    pub session_id: String,
    pub model: String,
    pub mode: Mode,
    /// Explicit context size (config, `--ctx`); `None` = the model's own, capped.
    pub ctx: Option<u32>,
    /// The person's system prompt and parameters (kept from the session before, `/new`).
    pub params: crate::core::params::SessionParams,
}

/// A reply as the actor received it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplyInput {
    pub text: String,
    pub status: ReplyStatus,
    pub prompt_eval_count: Option<u32>,
    /// Ollama's `prompt_eval_cached_count`, where reported.
    pub prompt_eval_cached: Option<u32>,
    pub eval_count: Option<u32>,
    /// `ChatPrompt::raw_estimate` of the request that produced it.
    pub prompt_raw: u32,
    /// Tools the reply asks to run (a complete reply only); the turn goes on with their
    /// results.
    pub tool_calls: Vec<ToolCall>,
    /// The reasoning that streamed before the answer (thinking models).
    pub thinking: String,
    /// What the server said about the time the call took (a complete reply): it teaches
    /// the engine the server's speed (`core::speed`) before the reply is weighed, so what
    /// the engine plans after it counts this call too.
    pub timing: Option<crate::core::speed::CallTiming>,
}

/// Everything the status line and panels need, computed in O(1).
#[derive(Debug, Clone, PartialEq)]
pub struct EngineStatus {
    pub model: String,
    pub budget: crate::core::budget::Budget,
    pub ctx_source: CtxSource,
    pub tier: Tier,
    pub mode: Mode,
    pub compressions: u32,
    pub reliability: Reliability,
    pub calibration: Calibration,
    /// Why automatic compression is paused, when it is.
    pub backoff: Option<crate::core::events::SkipReason>,
    /// The window the server really uses, when it was seen truncating.
    pub server_limit: Option<u32>,
    pub checkpoints: usize,
    pub active_messages: usize,
    pub history_messages: usize,
    /// The person's system prompt and parameters (the goal panel shows them).
    pub params: crate::core::params::SessionParams,
    /// The tools the next request offers, what their schemas cost, and those left out.
    pub tools: ToolsOffered,
    /// Folds keep the facts only from now on: the model's summaries failed the check.
    pub summaries_off: bool,
    /// How recall finds folded lines: by words, and by meaning with which model.
    pub recall: RecallStatus,
    /// The person's facts from folded messages the next request does not carry.
    pub facts_missing: Vec<String>,
    /// What a picture costs with this model, once the server has said (`None`: a
    /// conservative figure is counted meanwhile).
    pub image_tokens: Option<u32>,
}

/// Automatic compression is paused after a pass that freed too little.
#[derive(Debug, Clone, PartialEq)]
struct Backoff {
    /// Raw tokens of the active messages right after that pass.
    messages_raw: u32,
    freed: u32,
    percent: u32,
}

/// A piece of the request with its cached raw token count.
#[derive(Debug, Clone, Default, PartialEq)]
struct Part {
    text: String,
    raw: u32,
}

/// One session's conversation state. See the module docs.
#[derive(Debug, Clone)]
pub struct Engine {
    cfg: EngineConfig,
    tok: Arc<dyn Tokenizer>,
    prompts: Arc<Prompts>,
    /// Session id, creation time, model, explicit ctx (`None`: the model's own) and mode:
    /// the log's header with its settings records applied (`Header::apply_settings`).
    settings: Header,
    history: History,
    active: ActiveContext,
    goals: GoalBoard,
    model_ctx: Option<u32>,
    /// The window the server has this model loaded with (`/api/ps`), if it is loaded.
    server_ctx: Option<u32>,
    model_billions: Option<f64>,
    /// The window the server really used, learned when it truncated a prompt (it
    /// evaluated only this many tokens). Reset when the model or ctx changes.
    server_limit: Option<u32>,
    /// The context the server says the model is loaded with (`/api/ps`), when smaller
    /// than num_ctx. Runtime information, not persisted; reset with the model or ctx.
    loaded_ctx: Option<u32>,
    compressions: u32,
    /// Tool calls and results up to here left the context (a finished task).
    watermark: Option<MessageId>,
    /// Older tool results the model sees cut down from their originals: text, tokens.
    reduced: std::collections::BTreeMap<MessageId, (String, u32)>,
    /// A reduction pass just ran: the compression it leads to folds (runtime only).
    reduce_tried: bool,
    /// What the transcript said as it happened, by the seq of its record (from the log,
    /// so a resumed transcript shows it where it was). Not part of the active state: a
    /// restore does not undo history.
    past_events: Vec<(u64, DateTime<Utc>, crate::core::events::EngineEvent)>,
    /// The title the model wrote for the session (a `title` record), if it has one. About
    /// the session, not the conversation: a restore does not change it.
    title: Option<String>,
    calibrations: HashMap<String, Calibration>,
    /// What one picture costs, per model, learned from the server (`pictures.rs`).
    image_costs: HashMap<String, u32>,
    /// The per-picture cost each message with pictures was counted at.
    image_counted: HashMap<MessageId, u32>,
    /// Lengths (eval_count) of the last complete replies, oldest first: the reply reserve
    /// follows them. From the log, so replay rebuilds the same budget.
    reply_lengths: Vec<u32>,
    next_seq: u64,
    next_checkpoint_id: u64,
    snapshot_counter: u32,
    /// Bumped whenever active messages or checkpoints change other than by an append
    /// (folds, clips, pins, restores); a compression planned against an older version is
    /// discarded.
    version: u64,
    backoff: Option<Backoff>,
    escalation: Option<Intensity>,
    force: Option<CompressReason>,
    /// A "compression skipped" notice was already given for the current situation.
    skip_noted: bool,
    /// Replaying a log: prompt parts are rebuilt once at the end.
    replaying: bool,
    /// This turn's emergency snapshot was asked for already.
    emergency_snapshot_taken: bool,
    /// The turn in progress, if any (runtime only).
    turn: Option<turn::Turn>,
    /// A compression runs in the background (`CompressInBackground` not answered yet;
    /// runtime only).
    background: bool,
    /// Folded pictures the model never answered about: which were asked to be described
    /// (runtime only; what came back is logged).
    describing: describe::Describing,
    /// The model sees pictures (`vision` in its capabilities, from `ModelInfo`; runtime
    /// only): only then is a folded picture brought back for a turn.
    sees_images: bool,
    /// Checkpoint numbers merged away → the number they were merged into (derived from
    /// merge records, so replay rebuilds it). Lets "checkpoint 3" be found after aging.
    merged_numbers: HashMap<u32, u32>,
    /// A restore waiting for the snapshot of the state it leaves.
    pending_restore: Option<snapshots::PendingRestore>,
    system: Part,
    goal_part: Part,
    checkpoint_part: Part,
    /// The ledger budget `checkpoint_part` was fitted to: the room moves with the reply
    /// reserve, the goals and the window, and the ledger follows it (see `sync_ledger`).
    ledger_fitted_for: u32,
    /// The checkpoints' ledger lines merged, for the checkpoints they came from (merging
    /// is the costly part of rendering the ledger; the budget it is fitted to moves often).
    merged_ledger: (
        Vec<crate::core::checkpoint::CheckpointId>,
        Vec<crate::core::ledger::Prepared>,
    ),
    /// How many of the person's and the model's ledger lines the last rendering left
    /// out (the transcript is told when that grows).
    ledger_dropped: (usize, usize),
    /// What the badge counts (`prompt::FactsCarried`), kept with the ledger's rendering.
    facts_carried: prompt::FactsCarried,
    /// The checkpoints' ledger lines merged, before the person's edits: what `/facts`
    /// lists (`facts.rs`).
    folded_facts: Vec<crate::core::ledger::LedgerLine>,
    /// What the person pinned, reworded or forgot in the ledger (from the log).
    fact_edits: crate::core::ledger::FactEdits,
    /// The folded messages' sentences, for recall (`recall.rs`).
    recall: recall::Recall,
    /// Recall by meaning: the folded sentences' vectors (from the log), the embedding
    /// model the driver has, the vector of the message a turn answers (`semantic.rs`).
    semantic: semantic::Semantic,
    /// How fast the server is and how much of its time compression took (runtime only).
    speed: crate::core::speed::ServerSpeed,
    /// The tools the actor can offer, counted (runtime only: the model's capability and
    /// the MCP servers running decide it).
    tools: Vec<offer::Counted>,
    /// What the next request offers of them (`offer.rs`), kept current as the state moves.
    offer: ToolsOffered,
    /// The conversation has turned to the workspace (files, code, commands) or used a
    /// tool: the workspace tools are offered from then on (`offer.rs`). From the log.
    workspace_talk: bool,
    /// How the model's summaries of folds fared (from the log), and the person's last
    /// pauses, which a summary between turns must fit in (`compress/summary.rs`).
    summaries: compress::Summaries,
}

impl Engine {
    /// A new, empty session.
    pub fn new(
        spec: SessionSpec,
        cfg: EngineConfig,
        tok: Arc<dyn Tokenizer>,
        prompts: Arc<Prompts>,
        now: DateTime<Utc>,
    ) -> Engine {
        let SessionSpec {
            session_id,
            model,
            mode,
            ctx,
            params,
        } = spec;
        let mut e = Engine {
            cfg,
            tok,
            prompts,
            model_billions: parse_parameter_billions(&model),
            settings: Header {
                format: LOG_FORMAT.to_string(),
                format_version: FORMAT_VERSION,
                session_id,
                app_version: String::new(),
                model,
                created: now,
                ctx,
                mode,
                fork_of: None,
                params,
            },
            history: History::default(),
            active: ActiveContext::default(),
            goals: GoalBoard::default(),
            model_ctx: None,
            server_ctx: None,
            server_limit: None,
            loaded_ctx: None,
            compressions: 0,
            watermark: None,
            reduced: Default::default(),
            reduce_tried: false,
            past_events: Vec::new(),
            title: None,
            calibrations: HashMap::new(),
            image_costs: HashMap::new(),
            image_counted: HashMap::new(),
            reply_lengths: Vec::new(),
            next_seq: 1,
            next_checkpoint_id: 1,
            snapshot_counter: 0,
            version: 0,
            backoff: None,
            escalation: None,
            force: None,
            skip_noted: false,
            replaying: false,
            emergency_snapshot_taken: false,
            turn: None,
            background: false,
            describing: Default::default(),
            sees_images: false,
            merged_numbers: HashMap::new(),
            pending_restore: None,
            system: Part::default(),
            goal_part: Part::default(),
            checkpoint_part: Part::default(),
            ledger_fitted_for: 0,
            merged_ledger: Default::default(),
            ledger_dropped: (0, 0),
            facts_carried: Default::default(),
            folded_facts: Vec::new(),
            fact_edits: Default::default(),
            recall: Default::default(),
            semantic: Default::default(),
            speed: Default::default(),
            tools: Vec::new(),
            offer: ToolsOffered::default(),
            workspace_talk: false,
            summaries: Default::default(),
        };
        e.rebuild_system();
        e.rebuild_goals();
        e.rebuild_checkpoints();
        e
    }

    // ----- reading -----

    pub fn session_id(&self) -> &str {
        &self.settings.session_id
    }
    pub fn model(&self) -> &str {
        &self.settings.model
    }
    /// The person's system prompt and parameters for this session.
    pub fn params(&self) -> &crate::core::params::SessionParams {
        &self.settings.params
    }
    pub fn mode(&self) -> Mode {
        self.settings.mode
    }
    pub fn history(&self) -> &History {
        &self.history
    }
    pub fn active(&self) -> &ActiveContext {
        &self.active
    }
    /// What the transcript said as it happened, by record seq (see `RecordBody::Event`).
    pub fn past_events(&self) -> &[(u64, DateTime<Utc>, crate::core::events::EngineEvent)] {
        &self.past_events
    }

    /// The title the model wrote for the session, once it has one.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    pub fn checkpoints(&self) -> &[Checkpoint] {
        self.active.checkpoints()
    }
    pub fn goals(&self) -> &GoalBoard {
        &self.goals
    }
    pub fn compressions(&self) -> u32 {
        self.compressions
    }
    /// The server's speed as seen so far, and compression's share of its time.
    pub fn speed(&self) -> &crate::core::speed::ServerSpeed {
        &self.speed
    }
    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }
    pub fn tokenizer(&self) -> &Arc<dyn Tokenizer> {
        &self.tok
    }
    pub fn prompts(&self) -> &Arc<Prompts> {
        &self.prompts
    }
    /// Sequence number the next record will get.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The context length the model was trained on (from `/api/show`), once known.
    pub fn model_ctx(&self) -> Option<u32> {
        self.model_ctx
    }

    /// The context size sent as `num_ctx` on every request.
    pub fn ctx(&self) -> u32 {
        self.ctx_and_source().0
    }

    /// The window prompts are measured against: num_ctx, or the smaller window the server
    /// says it loaded the model with.
    pub fn window(&self) -> u32 {
        self.ctx().min(self.loaded_ctx.unwrap_or(u32::MAX))
    }

    /// Where [`Engine::ctx`] came from.
    pub fn ctx_source(&self) -> CtxSource {
        self.ctx_and_source().1
    }

    fn ctx_and_source(&self) -> (u32, CtxSource) {
        resolve_ctx(self.settings.ctx, self.server_ctx, self.model_ctx)
    }

    pub fn tier(&self) -> Tier {
        Tier::for_ctx(self.ctx())
    }

    pub fn calibration(&self) -> Calibration {
        self.calibrations
            .get(&self.settings.model)
            .copied()
            .unwrap_or_default()
    }

    /// Of the person's facts in folded messages, how many the next request carries (the
    /// ledger's lines; those that left it are recalled when asked about).
    pub fn reliability(&self) -> Reliability {
        let f = &self.facts_carried;
        Reliability::measure(self.compressions, f.carried(), f.stated)
    }

    /// The person's facts from folded messages the next request does not carry (recall
    /// brings them back when a message asks about them): the panel lists them.
    pub fn facts_missing(&self) -> &[String] {
        &self.facts_carried.missing
    }

    /// Whether a turn is in progress (a reply, compression or snapshot is awaited).
    pub fn in_turn(&self) -> bool {
        self.turn.is_some()
    }

    pub fn status(&self) -> EngineStatus {
        EngineStatus {
            model: self.settings.model.clone(),
            budget: self.budget(),
            ctx_source: self.ctx_source(),
            tier: self.tier(),
            mode: self.settings.mode,
            compressions: self.compressions,
            reliability: self.reliability(),
            calibration: self.calibration(),
            backoff: self.backoff.as_ref().map(Backoff::reason),
            server_limit: self.server_limit,
            checkpoints: self.active.checkpoints().len(),
            active_messages: self.active.messages().len(),
            history_messages: self.history.len(),
            params: self.settings.params.clone(),
            tools: self.offer.clone(),
            summaries_off: !self.summaries_on(),
            recall: self.recall_status(),
            facts_missing: self.facts_carried.missing.clone(),
            image_tokens: self.learned_image_tokens(),
        }
    }

    /// The state of the active context, by reference to history.
    pub fn active_state(&self) -> ActiveState {
        ActiveState {
            checkpoints: self.active.checkpoints().to_vec(),
            messages: self.active.messages().iter().map(|e| e.id).collect(),
            goals: self.goals.clone(),
            model: self.settings.model.clone(),
            ctx: self.settings.ctx,
            mode: self.settings.mode,
            compressions: self.compressions,
            clips: self
                .active
                .messages()
                .iter()
                .filter_map(|e| e.clip)
                .collect(),
            watermark: self.watermark,
            reduced: self
                .active
                .messages()
                .iter()
                .filter_map(|e| {
                    let (text, tokens) = self.reduced.get(&e.id)?;
                    Some(crate::core::record::ReducedResult {
                        id: e.id,
                        text: text.clone(),
                        tokens: *tokens,
                    })
                })
                .collect(),
        }
    }

    /// Ids of the conversation as it stands: folded (covered) and active, in order. After
    /// a restore, messages of the abandoned branch are in history but not here.
    pub fn conversation_ids(&self) -> Vec<MessageId> {
        let mut ids: Vec<MessageId> = self
            .active
            .checkpoints()
            .iter()
            .flat_map(|c| c.covers.iter().copied())
            .chain(self.active.messages().iter().map(|e| e.id))
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The live checkpoint numbered `number`, or the one it was merged into as it aged.
    pub fn checkpoint_numbered(&self, number: u32) -> Option<&Checkpoint> {
        let live = |n: u32| self.checkpoints().iter().find(|c| c.number == n);
        let mut n = number;
        // Each step goes to an older number, so this ends; the bound guards bad data.
        for _ in 0..=self.merged_numbers.len() {
            if let Some(cp) = live(n) {
                return Some(cp);
            }
            n = *self.merged_numbers.get(&n)?;
        }
        None
    }

    /// The newest message of a role in the active context (for `/pin` without an id).
    pub fn last_active(&self, role: Role) -> Option<MessageId> {
        self.active
            .messages()
            .iter()
            .rev()
            .find(|e| e.role == role)
            .map(|e| e.id)
    }

    /// The newest message in context is the person's (it has had no reply), or a reply
    /// that broke off: `Retry` asks for the reply again.
    pub fn last_message_unanswered(&self) -> bool {
        self.active.messages().last().is_some_and(|e| {
            e.role == Role::User
                || e.role == Role::Tool
                || (e.role == Role::Assistant
                    && self
                        .history
                        .get(e.id)
                        .is_some_and(|m| m.status == ReplyStatus::Interrupted))
        })
    }
}

impl Backoff {
    fn reason(&self) -> crate::core::events::SkipReason {
        crate::core::events::SkipReason::BackedOff {
            freed: self.freed,
            percent: self.percent,
        }
    }
}
