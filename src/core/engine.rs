//! The engine: one session's conversation state and every rule that changes it.
//!
//! Strategy: the engine is a state machine driven by plain method calls that return
//! [`Effect`]s for the actor to carry out (append a record, sync, show an event). Every
//! change of state is expressed as a [`Record`] and goes through one function,
//! [`Engine::apply_record`] — live operation commits a record and applies it, replay just
//! applies the stored ones — so replaying a session log rebuilds exactly the state that
//! produced it. The engine never does I/O and never reads the clock: `now` is an input.
//!
//! A turn: `add_user_message` → `next_step` until it says `Send` (it may first return
//! `Compress` plans: the actor runs them through a `Summarizer` and hands the outcome to
//! `apply_compression`) → the actor streams the reply → `record_reply`.
//!
//! Invariants (tested by property tests):
//! - `next_step` never returns a request above the hard limit (ctx − reserve);
//! - every message id of the conversation is either in the active context or covered by
//!   exactly one checkpoint;
//! - protected content (system prompt, goal board, pinned messages, tool errors, the recent
//!   window) reaches the model verbatim, except for the documented, reported emergency
//!   clip of a message too large for the context.

use crate::core::budget::{Budget, BudgetConfig, effective_ctx, reserve_for};
use crate::core::checkpoint::{Checkpoint, CheckpointId};
use crate::core::context::{ActiveContext, ActiveEntry, History, clipped_text};
use crate::core::events::{CompressReason, Effect, EngineEvent, Intensity};
use crate::core::goals::{Author, GoalBoard, GoalChange, GoalError};
use crate::core::markers;
use crate::core::message::{Message, MessageId, ReplyStatus, Role, ToolInfo};
use crate::core::mode::{Mode, Tier};
use crate::core::prompts::{Prompts, fill};
use crate::core::record::{
    ActiveState, Clip, FORMAT_VERSION, Header, LOG_FORMAT, Record, RecordBody, SnapshotPurpose,
};
use crate::core::reliability::{Reliability, parse_parameter_billions};
use crate::core::snapshot::{Snapshot, SnapshotMeta};
use crate::core::tokens::{
    Calibration, MESSAGE_OVERHEAD_TOKENS, REQUEST_OVERHEAD_TOKENS, Reading, Tokenizer,
};

/// Smallest window we believe a server truncates to; a smaller count is a misreport.
const MIN_SERVER_WINDOW: u32 = 256;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;

pub use crate::core::compress::{CompressionOutcome, CompressionPlan};

/// Engine settings that are not part of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EngineConfig {
    pub budget: BudgetConfig,
    /// Take a `recovery` snapshot before each compression.
    pub auto_snapshots: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            budget: BudgetConfig::default(),
            auto_snapshots: true,
        }
    }
}

/// Who a new session is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSpec {
    pub session_id: String,
    pub model: String,
    pub mode: Mode,
    /// Explicit context size (config, `--ctx`); `None` = the model's own, capped.
    pub ctx: Option<u32>,
}

/// A message role as the chat API knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptRole {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptMessage {
    pub role: PromptRole,
    pub content: String,
}

/// A request ready to send: built only from the active context.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatPrompt {
    pub model: String,
    pub num_ctx: u32,
    pub messages: Vec<PromptMessage>,
    /// Our uncalibrated estimate (kept with the reply for calibration).
    pub raw_estimate: u32,
    /// Calibrated estimate; never above `num_ctx − reserve`.
    pub estimate: u32,
    /// What is left of the context for the reply (at least the reserve). Sent as
    /// `num_predict`: a model stuck in a loop stops there even on a server that would
    /// otherwise go on past the window.
    pub max_reply: u32,
}

/// What the actor should do next in a turn.
#[derive(Debug)]
pub enum Step {
    Send(ChatPrompt),
    Compress(Box<CompressionPlan>),
    /// The request cannot fit even after a normal pass: save this emergency snapshot (then
    /// report it with `snapshot_saved`) before harder measures, and ask again.
    Snapshot(Box<Snapshot>),
    /// Nothing can make the request fit; the message stays saved, unsent.
    Blocked(String),
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
}

/// Refused commands. State is unchanged when one is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    #[error("message {0} does not exist")]
    NoSuchMessage(MessageId),
    #[error("message {0} is already folded into a checkpoint; restore a snapshot to get it back")]
    AlreadyFolded(MessageId),
    #[error("snapshot {snapshot} belongs to session {other}, not this one")]
    WrongSession { snapshot: String, other: String },
    #[error(transparent)]
    Goal(#[from] GoalError),
    #[error("{0}")]
    Invalid(String),
}

/// What replay could not apply (the rest was applied).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplayReport {
    pub applied: usize,
    pub issues: Vec<String>,
}

/// Everything the status line and panels need, computed in O(1).
#[derive(Debug, Clone, PartialEq)]
pub struct EngineStatus {
    pub model: String,
    pub budget: Budget,
    pub tier: Tier,
    pub mode: Mode,
    pub compressions: u32,
    pub reliability: Reliability,
    pub calibration: Calibration,
    pub backoff: Option<String>,
    /// The window the server really uses, when it was seen truncating.
    pub server_limit: Option<u32>,
    pub checkpoints: usize,
    pub active_messages: usize,
    pub history_messages: usize,
}

/// Automatic compression is paused after a pass that freed too little.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Backoff {
    /// Raw tokens of the active messages right after that pass.
    pub messages_raw: u32,
    pub reason: String,
}

/// A piece of the request with its cached raw token count.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Part {
    pub text: String,
    pub raw: u32,
}

/// One session's conversation state. See the module docs.
#[derive(Debug, Clone)]
pub struct Engine {
    pub(crate) cfg: EngineConfig,
    pub(crate) tok: Arc<dyn Tokenizer>,
    pub(crate) prompts: Arc<Prompts>,
    pub(crate) session_id: String,
    pub(crate) created: DateTime<Utc>,
    pub(crate) history: History,
    pub(crate) active: ActiveContext,
    pub(crate) goals: GoalBoard,
    pub(crate) model: String,
    pub(crate) explicit_ctx: Option<u32>,
    pub(crate) model_ctx: Option<u32>,
    pub(crate) model_billions: Option<f64>,
    /// The window the server really used, learned when it truncated a prompt (it
    /// evaluated only this many tokens). Reset when the model or ctx changes.
    pub(crate) server_limit: Option<u32>,
    /// The context the server says the model is loaded with (`/api/ps`), when smaller
    /// than num_ctx. Runtime information, not persisted; reset with the model or ctx.
    pub(crate) loaded_ctx: Option<u32>,
    pub(crate) mode: Mode,
    pub(crate) compressions: u32,
    pub(crate) calibrations: HashMap<String, Calibration>,
    pub(crate) next_seq: u64,
    pub(crate) next_checkpoint_id: u64,
    pub(crate) snapshot_counter: u32,
    /// Bumped whenever active messages or checkpoints change; a compression planned
    /// against an older version is discarded.
    pub(crate) version: u64,
    pub(crate) backoff: Option<Backoff>,
    pub(crate) escalation: Option<Intensity>,
    pub(crate) force: Option<CompressReason>,
    /// A "compression skipped" notice was already given for the current situation.
    pub(crate) skip_noted: bool,
    /// Replaying a log: prompt parts are rebuilt once at the end.
    pub(crate) replaying: bool,
    /// This turn's emergency snapshot was asked for already.
    pub(crate) emergency_snapshot_taken: bool,
    pub(crate) system: Part,
    pub(crate) goal_part: Part,
    pub(crate) checkpoint_part: Part,
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
            ctx: explicit_ctx,
        } = spec;
        let mut e = Engine {
            cfg,
            tok,
            prompts,
            session_id,
            created: now,
            history: History::default(),
            active: ActiveContext::default(),
            goals: GoalBoard::default(),
            model,
            explicit_ctx,
            model_ctx: None,
            model_billions: None,
            server_limit: None,
            loaded_ctx: None,
            mode,
            compressions: 0,
            calibrations: HashMap::new(),
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
            system: Part::default(),
            goal_part: Part::default(),
            checkpoint_part: Part::default(),
        };
        e.model_billions = parse_parameter_billions(&e.model);
        e.rebuild_system();
        e.rebuild_goals();
        e.rebuild_checkpoints();
        e
    }

    /// Rebuild a session from its log. Records that cannot be applied are reported and
    /// skipped; the rest still apply.
    pub fn replay(
        header: &Header,
        records: &[Record],
        cfg: EngineConfig,
        tok: Arc<dyn Tokenizer>,
        prompts: Arc<Prompts>,
    ) -> (Engine, ReplayReport) {
        Self::replay_with(header, records.iter(), cfg, tok, prompts, |e, r| {
            e.apply_record(r)
        })
    }

    /// [`Self::replay`] consuming the records, so message text is moved, not copied.
    pub fn replay_owned(
        header: &Header,
        records: Vec<Record>,
        cfg: EngineConfig,
        tok: Arc<dyn Tokenizer>,
        prompts: Arc<Prompts>,
    ) -> (Engine, ReplayReport) {
        Self::replay_with(
            header,
            records,
            cfg,
            tok,
            prompts,
            Engine::apply_record_owned,
        )
    }

    fn replay_with<R: std::borrow::Borrow<Record>>(
        header: &Header,
        records: impl IntoIterator<Item = R>,
        cfg: EngineConfig,
        tok: Arc<dyn Tokenizer>,
        prompts: Arc<Prompts>,
        mut apply: impl FnMut(&mut Engine, R) -> Result<(), String>,
    ) -> (Engine, ReplayReport) {
        let mut e = Engine::new(
            SessionSpec {
                session_id: header.session_id.clone(),
                model: header.model.clone(),
                mode: header.mode,
                ctx: header.ctx,
            },
            cfg,
            tok,
            prompts,
            header.created,
        );
        let mut report = ReplayReport::default();
        // The prompt parts are rendered and counted once at the end, not after every
        // checkpoint and goal record (that made loading a long session ~100x slower).
        e.replaying = true;
        for r in records {
            let seq = r.borrow().seq;
            match apply(&mut e, r) {
                Ok(()) => report.applied += 1,
                Err(issue) => report.issues.push(format!("record {seq}: {issue}")),
            }
        }
        e.replaying = false;
        e.rebuild_system();
        e.rebuild_goals();
        e.rebuild_checkpoints();
        (e, report)
    }

    /// The header line for this session's log.
    pub fn header(&self, app_version: &str) -> Header {
        Header {
            format: LOG_FORMAT.to_string(),
            format_version: FORMAT_VERSION,
            session_id: self.session_id.clone(),
            app_version: app_version.to_string(),
            model: self.model.clone(),
            created: self.created,
            ctx: self.explicit_ctx,
            mode: self.mode,
        }
    }

    // ----- reading -----

    pub fn session_id(&self) -> &str {
        &self.session_id
    }
    pub fn model(&self) -> &str {
        &self.model
    }
    pub fn mode(&self) -> Mode {
        self.mode
    }
    pub fn history(&self) -> &History {
        &self.history
    }
    pub fn active(&self) -> &ActiveContext {
        &self.active
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

    /// The context size sent as `num_ctx` on every request.
    /// The context length the model was trained on (from `/api/show`), once known.
    pub fn model_ctx(&self) -> Option<u32> {
        self.model_ctx
    }

    pub fn ctx(&self) -> u32 {
        effective_ctx(self.explicit_ctx, self.model_ctx)
    }

    pub fn tier(&self) -> Tier {
        Tier::for_ctx(self.ctx())
    }

    pub fn calibration(&self) -> Calibration {
        self.calibrations
            .get(&self.model)
            .copied()
            .unwrap_or_default()
    }

    /// The budget. When the server was seen truncating, it is measured against the window
    /// the server really used, not the num_ctx it was sent (which is still sent).
    pub fn budget(&self) -> Budget {
        // The window the server loaded (when it said it is smaller than asked) sets the
        // reserve too; a window learned from truncation is what prompts may fill.
        let window = self.ctx().min(self.loaded_ctx.unwrap_or(u32::MAX));
        let reserve = reserve_for(window, self.cfg.budget.reserve_tokens);
        let budget_ctx = self
            .server_limit
            .map_or(window, |limit| window.min(limit.saturating_add(reserve)));
        let cal = self.calibration();
        Budget::compute(
            budget_ctx,
            reserve,
            cal.apply(self.system.raw),
            cal.apply(self.goal_part.raw),
            cal.apply(self.checkpoint_part.raw),
            cal.apply(self.active.messages_raw()),
            self.cfg.budget.compress_at,
        )
    }

    pub fn reliability(&self) -> Reliability {
        Reliability::compute(self.model_billions, self.compressions)
    }

    pub fn status(&self) -> EngineStatus {
        EngineStatus {
            model: self.model.clone(),
            budget: self.budget(),
            tier: self.tier(),
            mode: self.mode,
            compressions: self.compressions,
            reliability: self.reliability(),
            calibration: self.calibration(),
            backoff: self.backoff.as_ref().map(|b| b.reason.clone()),
            server_limit: self.server_limit,
            checkpoints: self.active.checkpoints().len(),
            active_messages: self.active.messages().len(),
            history_messages: self.history.len(),
        }
    }

    /// The state of the active context, by reference to history.
    pub fn active_state(&self) -> ActiveState {
        ActiveState {
            checkpoints: self.active.checkpoints().to_vec(),
            messages: self.active.messages().iter().map(|e| e.id).collect(),
            goals: self.goals.clone(),
            model: self.model.clone(),
            ctx: self.explicit_ctx,
            mode: self.mode,
            compressions: self.compressions,
            clips: self
                .active
                .messages()
                .iter()
                .filter_map(|e| e.clip)
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

    /// The request for the current state.
    pub fn prompt(&self) -> ChatPrompt {
        let mut messages = Vec::with_capacity(self.active.messages().len() + 2);
        let system = if self.goal_part.text.is_empty() {
            self.system.text.clone()
        } else {
            format!("{}\n\n{}", self.system.text, self.goal_part.text)
        };
        messages.push(PromptMessage {
            role: PromptRole::System,
            content: system,
        });
        if !self.checkpoint_part.text.is_empty() {
            messages.push(PromptMessage {
                role: PromptRole::System,
                content: self.checkpoint_part.text.clone(),
            });
        }
        let active = self.active.messages();
        let mut skipped_raw = 0u32;
        for (i, e) in active.iter().enumerate() {
            let Some(m) = self.history.get(e.id) else {
                continue;
            };
            // A reply that broke off is context for what the person says next, but not
            // when it is being retried (it is last) or was retried (a reply follows it):
            // then the model answers afresh rather than continuing the fragment. Pinned
            // messages are always sent.
            if m.role == Role::Assistant
                && m.status == ReplyStatus::Interrupted
                && !e.pinned
                && active
                    .get(i + 1)
                    .is_none_or(|next| next.role == Role::Assistant)
            {
                skipped_raw = skipped_raw.saturating_add(e.cost());
                continue;
            }
            messages.push(PromptMessage {
                role: match m.role {
                    Role::User => PromptRole::User,
                    Role::Assistant => PromptRole::Assistant,
                    Role::Tool => PromptRole::Tool,
                },
                content: clipped_text(&m.text, e.clip.as_ref()),
            });
        }
        let raw_estimate = self
            .system
            .raw
            .saturating_add(self.goal_part.raw)
            .saturating_add(self.checkpoint_part.raw)
            .saturating_add(self.active.messages_raw())
            .saturating_sub(skipped_raw);
        let estimate = self.calibration().apply(raw_estimate);
        ChatPrompt {
            model: self.model.clone(),
            num_ctx: self.ctx(),
            messages,
            raw_estimate,
            estimate,
            max_reply: self.budget().ctx.saturating_sub(estimate),
        }
    }

    // ----- commands -----

    /// Record a user message (written before the request goes out).
    pub fn add_user_message(
        &mut self,
        text: String,
        now: DateTime<Utc>,
    ) -> (MessageId, Vec<Effect>) {
        let tokens = self.tok.count(&text);
        let mut fx = Vec::new();
        let id = self.commit(
            RecordBody::User {
                text,
                pinned: false,
                tokens: Some(tokens),
            },
            now,
            &mut fx,
        );
        fx.push(Effect::Sync);
        self.reset_escalation();
        (MessageId(id), fx)
    }

    /// Record a tool call and its result.
    pub fn add_tool_result(
        &mut self,
        name: String,
        args: String,
        result: String,
        is_error: bool,
        now: DateTime<Utc>,
    ) -> (MessageId, Vec<Effect>) {
        let tokens = self.tok.count(&result);
        let mut fx = Vec::new();
        let id = self.commit(
            RecordBody::Tool {
                name,
                args,
                result,
                is_error,
                tokens: Some(tokens),
            },
            now,
            &mut fx,
        );
        (MessageId(id), fx)
    }

    /// Record a reply (complete or interrupted), learn from the server's token count, and
    /// pick up goal markers. An interrupted reply with no text leaves no record.
    pub fn record_reply(&mut self, reply: ReplyInput, now: DateTime<Utc>) -> Vec<Effect> {
        let mut fx = Vec::new();
        if reply.status == ReplyStatus::Interrupted && reply.text.trim().is_empty() {
            fx.push(Effect::Sync);
            return fx;
        }
        let cal = self.calibration();
        if let Some(seen) = reply.prompt_eval_count
            && cal.looks_truncated(reply.prompt_raw, seen, reply.prompt_eval_cached)
            && seen >= MIN_SERVER_WINDOW
        {
            fx.push(Effect::Event(EngineEvent::TruncationSuspected {
                sent: cal.apply(reply.prompt_raw),
                seen,
            }));
            self.force = Some(CompressReason::Overflow);
        }
        let tokens = self.tok.count(&reply.text);
        let text = reply.text.clone();
        self.commit(
            RecordBody::Assistant {
                text: reply.text,
                status: reply.status,
                model: self.model.clone(),
                prompt_eval_count: reply.prompt_eval_count,
                prompt_eval_cached: reply.prompt_eval_cached,
                prompt_estimate: Some(reply.prompt_raw),
                eval_count: reply.eval_count,
                tokens: Some(tokens),
            },
            now,
            &mut fx,
        );
        self.apply_markers(&text, now, &mut fx);
        fx.push(Effect::Sync);
        fx
    }

    /// The server refused a request as longer than its context (HTTP 400): compress
    /// before the retry, even if our estimate says it fits.
    pub fn overflowed(&mut self) {
        self.force = Some(CompressReason::Overflow);
    }

    /// Forget the escalation state of a turn that was abandoned (cancelled, failed).
    pub fn abort_turn(&mut self) {
        self.reset_escalation();
        self.force = None;
    }

    pub(crate) fn reset_escalation(&mut self) {
        self.escalation = None;
        self.emergency_snapshot_taken = false;
    }

    pub(crate) fn apply_markers(&mut self, text: &str, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        for change in markers::parse(text) {
            match self.goals.clone().apply(&change, Author::Model, now) {
                Ok(()) => {
                    self.commit(
                        RecordBody::Goal {
                            change: change.clone(),
                            author: Author::Model,
                        },
                        now,
                        fx,
                    );
                    fx.push(Effect::Event(EngineEvent::GoalUpdated {
                        change,
                        author: Author::Model,
                    }));
                }
                Err(GoalError::Duplicate) => {}
                Err(e) => fx.push(Effect::Event(EngineEvent::GoalRejected {
                    change,
                    reason: e.to_string(),
                })),
            }
        }
    }

    /// A goal-board change from the user (slash commands) or the model.
    pub fn apply_goal(
        &mut self,
        change: GoalChange,
        author: Author,
        now: DateTime<Utc>,
    ) -> Result<Vec<Effect>, EngineError> {
        self.goals.clone().apply(&change, author, now)?;
        let mut fx = Vec::new();
        self.commit(
            RecordBody::Goal {
                change: change.clone(),
                author,
            },
            now,
            &mut fx,
        );
        fx.push(Effect::Event(EngineEvent::GoalUpdated { change, author }));
        Ok(fx)
    }

    /// Pin or unpin an active message: pinned messages are never folded.
    pub fn set_pinned(
        &mut self,
        id: MessageId,
        pinned: bool,
        now: DateTime<Utc>,
    ) -> Result<Vec<Effect>, EngineError> {
        if self.history.get(id).is_none() {
            return Err(EngineError::NoSuchMessage(id));
        }
        if !self.active.messages().iter().any(|e| e.id == id) {
            return Err(EngineError::AlreadyFolded(id));
        }
        let mut fx = Vec::new();
        self.commit(RecordBody::Pin { id, pinned }, now, &mut fx);
        Ok(fx)
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

    pub fn set_mode(&mut self, mode: Mode, now: DateTime<Utc>) -> Vec<Effect> {
        let mut fx = Vec::new();
        self.commit(
            RecordBody::Settings {
                model: None,
                ctx: None,
                mode: Some(mode),
            },
            now,
            &mut fx,
        );
        fx
    }

    /// Set the context size; `None` returns to the model's own (capped) size.
    pub fn set_ctx(&mut self, ctx: Option<u32>, now: DateTime<Utc>) -> Vec<Effect> {
        let mut fx = Vec::new();
        self.commit(
            RecordBody::Settings {
                model: None,
                ctx: Some(ctx.unwrap_or(0)),
                mode: None,
            },
            now,
            &mut fx,
        );
        fx
    }

    pub fn set_model(&mut self, model: String, now: DateTime<Utc>) -> Vec<Effect> {
        let mut fx = Vec::new();
        self.commit(
            RecordBody::Settings {
                model: Some(model),
                ctx: None,
                mode: None,
            },
            now,
            &mut fx,
        );
        fx
    }

    /// The context the server reports the model loaded with (`/api/ps`). When it is
    /// smaller than num_ctx the server will cut prompts to it, so the budget follows it.
    /// Returns true when that changed the budget.
    pub fn set_loaded_ctx(&mut self, loaded: Option<u32>) -> bool {
        let limit = loaded.filter(|c| *c < self.ctx());
        let changed = limit != self.loaded_ctx;
        self.loaded_ctx = limit;
        changed
    }

    /// What the server told us about the model (from `/api/show`); not persisted.
    pub fn set_model_info(&mut self, context_length: Option<u32>, parameter_size: Option<&str>) {
        self.model_ctx = context_length;
        self.model_billions = parameter_size
            .and_then(parse_parameter_billions)
            .or_else(|| parse_parameter_billions(&self.model));
        self.rebuild_system();
    }

    /// A snapshot of the current state, for the actor to save. Call [`Self::snapshot_saved`]
    /// once it is on disk.
    pub fn make_snapshot(
        &mut self,
        purpose: SnapshotPurpose,
        label: Option<String>,
        now: DateTime<Utc>,
    ) -> Snapshot {
        self.snapshot_counter += 1;
        let id = format!(
            "{}-{:03}{}",
            now.format("%Y%m%d-%H%M%S"),
            now.timestamp_subsec_millis(),
            if self.snapshot_counter > 1 {
                format!("-{}", self.snapshot_counter)
            } else {
                String::new()
            }
        );
        let state = self.active_state();
        let messages: Vec<Message> = state
            .messages
            .iter()
            .filter_map(|id| self.history.get(*id).cloned())
            .collect();
        Snapshot {
            format_version: FORMAT_VERSION,
            meta: SnapshotMeta {
                id,
                session_id: self.session_id.clone(),
                created: now,
                purpose,
                label,
                model: self.model.clone(),
                tier: self.tier(),
                mode: self.mode,
                tokens: self.budget().total(),
                message_count: state.messages.len(),
                checkpoint_count: state.checkpoints.len(),
            },
            state,
            messages,
        }
    }

    /// A snapshot was written: log it.
    pub fn snapshot_saved(&mut self, meta: &SnapshotMeta, now: DateTime<Utc>) -> Vec<Effect> {
        let mut fx = Vec::new();
        self.commit(
            RecordBody::Snapshot {
                snapshot_id: meta.id.clone(),
                purpose: meta.purpose,
            },
            now,
            &mut fx,
        );
        fx.push(Effect::Event(
            if meta.purpose == SnapshotPurpose::Recovery {
                EngineEvent::AutoSnapshotCreated {
                    id: meta.id.clone(),
                }
            } else {
                EngineEvent::SnapshotCreated {
                    id: meta.id.clone(),
                    purpose: meta.purpose,
                }
            },
        ));
        fx
    }

    /// Make a snapshot's state the active state (model and ctx stay as they are now).
    pub fn restore(
        &mut self,
        snapshot: &Snapshot,
        now: DateTime<Utc>,
    ) -> Result<Vec<Effect>, EngineError> {
        if snapshot.meta.session_id != self.session_id {
            return Err(EngineError::WrongSession {
                snapshot: snapshot.meta.id.clone(),
                other: snapshot.meta.session_id.clone(),
            });
        }
        let mut fx = Vec::new();
        self.commit(
            RecordBody::Restore {
                snapshot_id: snapshot.meta.id.clone(),
                state: snapshot.state.clone(),
            },
            now,
            &mut fx,
        );
        fx.push(Effect::Event(EngineEvent::SnapshotRestored {
            id: snapshot.meta.id.clone(),
        }));
        fx.push(Effect::Sync);
        Ok(fx)
    }

    // ----- records -----

    /// Assign the next seq, apply, and ask for it to be persisted. Returns the seq.
    pub(crate) fn commit(
        &mut self,
        body: RecordBody,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) -> u64 {
        let record = Record {
            seq: self.next_seq,
            ts: now,
            body,
        };
        if let Err(issue) = self.apply_record(&record) {
            // Commands validate before committing, so this is a bug; keep going, loudly.
            tracing::error!(seq = record.seq, %issue, "engine rejected its own record");
        }
        let seq = record.seq;
        fx.push(Effect::Persist(record));
        seq
    }

    /// Apply one record to the state. The only place state changes.
    pub fn apply_record(&mut self, r: &Record) -> Result<(), String> {
        let text = match &r.body {
            RecordBody::User { text, .. } | RecordBody::Assistant { text, .. } => {
                Some(text.clone())
            }
            RecordBody::Tool { result, .. } => Some(result.clone()),
            _ => None,
        };
        self.apply(r, text)
    }

    /// [`Self::apply_record`] that moves the message text out of the record instead of
    /// copying it (replay of a long log would otherwise hold it twice).
    pub fn apply_record_owned(&mut self, mut r: Record) -> Result<(), String> {
        let text = match &mut r.body {
            RecordBody::User { text, .. } | RecordBody::Assistant { text, .. } => {
                Some(std::mem::take(text))
            }
            RecordBody::Tool { result, .. } => Some(std::mem::take(result)),
            _ => None,
        };
        self.apply(&r, text)
    }

    /// The one place state changes. `text` is the message text of a message record (which
    /// the record itself may no longer hold).
    fn apply(&mut self, r: &Record, text: Option<String>) -> Result<(), String> {
        let text = text.unwrap_or_default();
        if r.seq < self.next_seq {
            return Err(format!("out of order (expected ≥ {})", self.next_seq));
        }
        self.next_seq = r.seq + 1;
        match &r.body {
            RecordBody::User { pinned, tokens, .. } => {
                self.push_message(
                    r,
                    Role::User,
                    text,
                    ReplyStatus::Complete,
                    *pinned,
                    None,
                    *tokens,
                );
            }
            RecordBody::Assistant {
                status,
                model,
                prompt_eval_count,
                prompt_eval_cached,
                prompt_estimate,
                tokens,
                ..
            } => {
                if let (Some(seen), Some(raw)) = (prompt_eval_count, prompt_estimate) {
                    let cal = self.calibrations.entry(model.clone()).or_default();
                    let verdict = cal.observe(*raw, *seen, *prompt_eval_cached);
                    // A window below MIN_SERVER_WINDOW is not a real server's: distrust it.
                    if verdict == Reading::Truncated
                        && *model == self.model
                        && *seen >= MIN_SERVER_WINDOW
                    {
                        self.server_limit = Some(self.server_limit.map_or(*seen, |l| l.min(*seen)));
                    }
                }
                self.push_message(r, Role::Assistant, text, *status, false, None, *tokens);
            }
            RecordBody::Tool {
                name,
                args,
                is_error,
                tokens,
                ..
            } => {
                let tool = ToolInfo {
                    name: name.clone(),
                    args: args.clone(),
                    is_error: *is_error,
                };
                self.push_message(
                    r,
                    Role::Tool,
                    text,
                    ReplyStatus::Complete,
                    false,
                    Some(tool),
                    *tokens,
                );
            }
            RecordBody::Checkpoint { checkpoint } => {
                self.active.remove_sorted(&checkpoint.covers);
                self.active.push_checkpoint(checkpoint.clone());
                self.compressions += 1;
                self.note_checkpoint_id(checkpoint.id);
                self.checkpoints_changed();
            }
            RecordBody::CheckpointAged { checkpoint } => {
                let i = self
                    .active
                    .checkpoint_index(checkpoint.id)
                    .ok_or_else(|| format!("aged checkpoint {} does not exist", checkpoint.id))?;
                let cps = self.active.checkpoints_mut();
                let mut aged = checkpoint.clone();
                if aged.covers.is_empty() {
                    // Aging re-summarizes the same messages.
                    aged.covers = std::mem::take(&mut cps[i].covers);
                }
                cps[i] = aged;
                self.checkpoints_changed();
            }
            RecordBody::CheckpointsMerged { merged, checkpoint } => {
                let first = merged
                    .iter()
                    .filter_map(|id| self.active.checkpoint_index(*id))
                    .min()
                    .ok_or_else(|| "merged checkpoints do not exist".to_string())?;
                let mut joined = checkpoint.clone();
                if joined.covers.is_empty() {
                    // A merge covers what its parts covered. Each part's list is sorted, so
                    // they are merged in linear time (sorting the union on every merge
                    // record was a third of the time to load a long session).
                    joined.covers = self
                        .active
                        .checkpoints()
                        .iter()
                        .filter(|c| merged.contains(&c.id))
                        .fold(Vec::new(), |acc, c| merge_sorted(&acc, &c.covers));
                }
                self.active.remove_sorted(&joined.covers);
                let cps = self.active.checkpoints_mut();
                cps.retain(|c| !merged.contains(&c.id));
                cps.insert(first.min(cps.len()), joined);
                self.note_checkpoint_id(checkpoint.id);
                self.checkpoints_changed();
            }
            RecordBody::Goal { change, author } => {
                self.goals
                    .apply(change, *author, r.ts)
                    .map_err(|e| format!("goal change refused: {e}"))?;
                self.rebuild_goals();
            }
            RecordBody::Pin { id, pinned } => {
                let m = self
                    .history
                    .get_mut(*id)
                    .ok_or_else(|| format!("pin of unknown message {id}"))?;
                m.pinned = *pinned;
                let full = m.tokens;
                let clipped = self.active.entry_mut(*id).is_some_and(|e| {
                    e.pinned = *pinned;
                    e.clip.is_some()
                });
                // A pinned message reaches the model whole: pinning lifts an emergency clip
                // (if it then cannot fit, the request is blocked with a reason).
                if *pinned && clipped {
                    self.active.set_tokens(*id, full, None);
                    self.version += 1;
                }
            }
            RecordBody::Clip { clip } => self.apply_clip(*clip)?,
            RecordBody::Snapshot { .. } => {}
            RecordBody::Restore { state, .. } => self.apply_restore(state)?,
            RecordBody::Settings { model, ctx, mode } => {
                if let Some(m) = model
                    && *m != self.model
                {
                    self.model = m.clone();
                    self.model_ctx = None;
                    self.server_limit = None;
                    self.loaded_ctx = None;
                    self.model_billions = parse_parameter_billions(m);
                }
                if let Some(c) = ctx {
                    self.explicit_ctx = (*c > 0).then_some(*c);
                    self.server_limit = None;
                    self.loaded_ctx = None;
                }
                if let Some(m) = mode {
                    self.mode = *m;
                }
                self.rebuild_system();
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn push_message(
        &mut self,
        r: &Record,
        role: Role,
        text: String,
        status: ReplyStatus,
        pinned: bool,
        tool: Option<ToolInfo>,
        tokens: Option<u32>,
    ) {
        let tokens = tokens.unwrap_or_else(|| self.tok.count(&text));
        let message = Message {
            id: MessageId(r.seq),
            role,
            text,
            ts: r.ts,
            status,
            pinned,
            tool,
            tokens,
        };
        let entry = ActiveEntry::from_message(&message);
        if self.history.push(message) {
            self.active.push(entry);
            self.version += 1;
        }
    }

    fn apply_clip(&mut self, clip: Clip) -> Result<(), String> {
        let text = self
            .history
            .get(clip.id)
            .map(|m| m.text.clone())
            .ok_or_else(|| format!("clip of unknown message {}", clip.id))?;
        let tokens = self.tok.count(&clipped_text(&text, Some(&clip)));
        if !self.active.set_tokens(clip.id, tokens, Some(clip)) {
            return Err(format!("clip of inactive message {}", clip.id));
        }
        self.version += 1;
        Ok(())
    }

    fn apply_restore(&mut self, state: &ActiveState) -> Result<(), String> {
        let mut missing = 0usize;
        let entries: Vec<ActiveEntry> = state
            .messages
            .iter()
            .filter_map(|id| {
                let e = self.history.get(*id).map(ActiveEntry::from_message);
                missing += usize::from(e.is_none());
                e
            })
            .collect();
        self.active.reset(state.checkpoints.clone(), entries);
        for cp in &state.checkpoints {
            self.note_checkpoint_id(cp.id);
            // Pinned messages are never folded, so one folded in that state was not pinned
            // then: a pin added since (on another branch) goes with the state it was on.
            for id in &cp.covers {
                if let Some(m) = self.history.get_mut(*id) {
                    m.pinned = false;
                }
            }
        }
        for clip in &state.clips {
            // A message pinned since the snapshot is shown whole, like any pinned one.
            if self.history.get(clip.id).is_some_and(|m| m.pinned) {
                continue;
            }
            // A clip of a message that no longer exists is dropped with the message.
            let _ = self.apply_clip(*clip);
        }
        self.goals = state.goals.clone();
        self.mode = state.mode;
        self.compressions = state.compressions;
        self.backoff = None;
        self.version += 1;
        self.rebuild_system();
        self.rebuild_goals();
        self.rebuild_checkpoints();
        if missing > 0 {
            return Err(format!(
                "{missing} message(s) of the snapshot are missing from history"
            ));
        }
        Ok(())
    }

    fn note_checkpoint_id(&mut self, id: CheckpointId) {
        self.next_checkpoint_id = self.next_checkpoint_id.max(id.0 + 1);
    }

    fn checkpoints_changed(&mut self) {
        self.version += 1;
        self.rebuild_checkpoints();
    }

    // ----- cached prompt parts -----

    fn rebuild_system(&mut self) {
        if self.replaying {
            return;
        }
        let chat = &self.prompts.chat;
        let text = if self.tier() == Tier::T1 {
            format!("{}\n{}", chat.base_short.trim(), chat.modes.get(self.mode))
        } else {
            format!(
                "{}\n{}\n\n{}",
                chat.base.trim(),
                chat.modes.get(self.mode),
                chat.markers.trim()
            )
        };
        let raw = self.tok.count(&text) + MESSAGE_OVERHEAD_TOKENS + REQUEST_OVERHEAD_TOKENS;
        self.system = Part { text, raw };
    }

    fn rebuild_goals(&mut self) {
        if self.replaying {
            return;
        }
        self.goal_part = if self.goals.is_empty() {
            Part::default()
        } else {
            let text = format!(
                "{}\n{}",
                self.prompts.chat.goal_header,
                self.goals.render_for_prompt().trim_end()
            );
            let raw = self.tok.count(&text) + 2;
            Part { text, raw }
        };
    }

    fn rebuild_checkpoints(&mut self) {
        if self.replaying {
            return;
        }
        let cps = self.active.checkpoints();
        self.checkpoint_part = if cps.is_empty() {
            Part::default()
        } else {
            let mut text = self.prompts.chat.checkpoints_header.clone();
            for cp in cps {
                text.push_str(&self.checkpoint_entry(cp));
            }
            let raw = self.tok.count(&text) + MESSAGE_OVERHEAD_TOKENS;
            Part { text, raw }
        };
    }

    /// One checkpoint as it appears in the request, after the header.
    pub(crate) fn checkpoint_entry(&self, cp: &Checkpoint) -> String {
        let range = match cp.range() {
            Some((a, b)) if a == b => format!("{a}"),
            Some((a, b)) => format!("{a}–{b}"),
            None => String::new(),
        };
        let label = fill(
            &self.prompts.chat.checkpoint_label,
            &[
                ("number", &cp.number.to_string()),
                ("level", cp.level.name()),
                ("range", &range),
            ],
        );
        format!("\n\n{label}\n{}", cp.summary)
    }
}
/// The union of two sorted id lists, sorted and without duplicates.
fn merge_sorted(a: &[MessageId], b: &[MessageId]) -> Vec<MessageId> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_sorted_is_the_sorted_union() {
        let ids = |v: &[u64]| v.iter().copied().map(MessageId).collect::<Vec<_>>();
        assert_eq!(
            merge_sorted(&ids(&[1, 3, 5, 9]), &ids(&[2, 3, 4, 10, 11])),
            ids(&[1, 2, 3, 4, 5, 9, 10, 11])
        );
        assert_eq!(merge_sorted(&[], &ids(&[7])), ids(&[7]));
        assert_eq!(merge_sorted(&ids(&[7]), &[]), ids(&[7]));
    }
}
