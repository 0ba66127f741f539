//! The session actor: owns the engine, the store and the connection; runs turns.
//!
//! One task, one `select!` loop over commands and the reconnect timer. A turn runs inside
//! the actor (record the user message → `next_step` until Send → stream the reply →
//! record it), and while it streams or compresses the actor still listens: Stop ends it
//! at once (dropping the HTTP stream closes the connection), read-only commands are
//! answered, other commands wait their turn. State changes only through the engine; every
//! effect it returns is executed here (append, sync, notice) before the next step.

use super::command::Command;
use super::summarizer::BackendSummarizer;
use super::view::{Activity, Connection, Item, ItemKind, NoticeLevel, SessionView, Update};
use crate::core::checkpoint::{Checkpoint, CheckpointId};
use crate::core::compress::CompressionPlan;
use crate::core::engine::{ChatPrompt, Engine, PromptRole, ReplyInput, Step};
use crate::core::events::{Effect, EngineEvent, Intensity};
use crate::core::goals::{Author, GoalChange, GoalStatus};
use crate::core::message::{Message, MessageId, ReplyStatus, Role};
use crate::core::record::{Header, Record, RecordBody, SnapshotPurpose};
use crate::core::snapshot::Snapshot;
use crate::llm::{
    ChatBackend, ChatMessage, ChatOptions, ChatRequest, ChatRole, LlmError, StreamEvent,
};
use crate::store::{SessionStore, StoreError};
use chrono::Utc;
use futures_util::StreamExt;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};

/// Settings of the actor that are not the engine's.
#[derive(Debug, Clone)]
pub struct ActorConfig {
    /// Server address, for messages.
    pub host: String,
    /// Sampling temperature for chat; `None` = the model's default.
    pub temperature: Option<f32>,
    /// Automatic (recovery) snapshots kept per session.
    pub keep_auto_snapshots: usize,
    /// First retry after the server was unreachable; doubles up to 30 s.
    pub reconnect_after: Duration,
    pub app_version: String,
    /// How the person reaches restore, compress and the model picker, for hints.
    pub keys: KeyHints,
}

/// The keys (or commands, where a key is unbound) named in messages, so a hint never
/// names a key the person's keymap has moved.
#[derive(Debug, Clone)]
pub struct KeyHints {
    pub restore: String,
    pub compress: String,
    pub models: String,
}

impl Default for KeyHints {
    fn default() -> Self {
        KeyHints {
            restore: "Ctrl+R".into(),
            compress: "Ctrl+K".into(),
            models: "Ctrl+L".into(),
        }
    }
}

impl Default for ActorConfig {
    fn default() -> Self {
        ActorConfig {
            host: crate::llm::DEFAULT_HOST.to_string(),
            temperature: None,
            keep_auto_snapshots: 5,
            reconnect_after: Duration::from_secs(2),
            app_version: env!("CARGO_PKG_VERSION").to_string(),
            keys: KeyHints::default(),
        }
    }
}

/// Creates the session's store when the first record is written, so that opening the
/// app and quitting leaves no empty session behind.
pub type StoreFactory<S> = Box<dyn FnOnce(&Header) -> Result<S, StoreError> + Send>;

pub enum StoreSlot<S> {
    Open(S),
    Lazy(StoreFactory<S>),
    /// Creating it failed; the reason was shown. Records stay in memory.
    Failed,
}

/// What the actor hands back when it stops (tests inspect it).
pub struct ActorExit<S> {
    pub engine: Engine,
    pub store: Option<S>,
}

/// How a streamed reply ended.
enum ReplyEnd {
    Done,
    /// The server refused the prompt as too long: compress and retry (once).
    Overflow(String),
    Failed,
    Stopped,
}

/// How often the generated-token count is republished while a reply streams.
const COUNT_EVERY: Duration = Duration::from_millis(100);

pub(crate) struct Actor<B, S> {
    pub backend: B,
    pub engine: Engine,
    pub store: StoreSlot<S>,
    pub cfg: ActorConfig,
    pub rx: mpsc::Receiver<Command>,
    pub updates: mpsc::UnboundedSender<Update>,
    pub view: watch::Sender<Arc<SessionView>>,
    pub connection: Connection,
    pub activity: Activity,
    pub deferred: VecDeque<Command>,
    pub rx_closed: bool,
    pub write_failing: bool,
    /// The banner up is about a failed attempt (see `transient_banner`).
    pub transient_banner: bool,
    /// Settings records written before the session file exists: they alone do not make
    /// a session worth keeping (opening the app and quitting leaves nothing behind), and
    /// are written first once something that does arrives.
    pub unwritten: Vec<Record>,
    pub reconnect_at: Option<tokio::time::Instant>,
    pub reconnect_delay: Duration,
    pub checkpoints: Arc<Vec<Checkpoint>>,
    pub goals: Arc<crate::core::goals::GoalBoard>,
    /// The (model, num_ctx) whose loaded context was already confirmed via `/api/ps`.
    pub loaded_checked: Option<(String, u32)>,
}

/// The next command, or never once the channel is closed (so `select!` does not spin).
async fn next_command(rx: &mut mpsc::Receiver<Command>, closed: &mut bool) -> Option<Command> {
    if *closed {
        return std::future::pending().await;
    }
    let c = rx.recv().await;
    if c.is_none() {
        *closed = true;
    }
    c
}

fn chat_role(r: PromptRole) -> ChatRole {
    match r {
        PromptRole::System => ChatRole::System,
        PromptRole::User => ChatRole::User,
        PromptRole::Assistant => ChatRole::Assistant,
        PromptRole::Tool => ChatRole::Tool,
    }
}

/// A message as a transcript item.
pub fn item_of(m: &Message) -> Item {
    Item {
        id: Some(m.id),
        kind: match m.role {
            Role::User => ItemKind::User,
            Role::Assistant => ItemKind::Assistant { status: m.status },
            Role::Tool => ItemKind::Tool {
                name: m.tool.as_ref().map(|t| t.name.clone()).unwrap_or_default(),
                is_error: m.is_tool_error(),
            },
        },
        text: m.text.clone(),
        ts: m.ts,
        pinned: m.pinned,
    }
}

fn notice(level: NoticeLevel, text: impl Into<String>) -> Item {
    Item {
        id: None,
        kind: ItemKind::Notice(level),
        text: text.into(),
        ts: Utc::now(),
        pinned: false,
    }
}

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    pub async fn run(mut self, model: Option<String>) -> ActorExit<S> {
        if let Some(m) = model.filter(|m| !m.is_empty() && m != self.engine.model()) {
            // A resumed session continues with another model: recorded like /model.
            let fx = self.engine.set_model(m, Utc::now());
            self.execute(fx);
        }
        self.activity = Activity::Idle;
        self.send_transcript();
        if self.last_message_unanswered() {
            // Resumed after a failed send or a crash before the reply: say how to go on.
            self.inline(
                NoticeLevel::Info,
                "Your last message has no complete reply: /retry asks for it again.",
            );
        }
        self.publish();
        self.connect().await;
        loop {
            let cmd = match self.deferred.pop_front() {
                Some(c) => c,
                None if self.rx_closed => break,
                None => {
                    let reconnect_at = self.reconnect_at;
                    tokio::select! {
                        c = next_command(&mut self.rx, &mut self.rx_closed) => match c {
                            Some(c) => c,
                            None => continue,
                        },
                        _ = async {
                            match reconnect_at {
                                Some(t) => tokio::time::sleep_until(t).await,
                                None => std::future::pending().await,
                            }
                        } => {
                            self.connect().await;
                            continue;
                        }
                    }
                }
            };
            if matches!(cmd, Command::Shutdown) {
                break;
            }
            self.handle(cmd).await;
        }
        self.sync();
        self.send(Update::Closed);
        ActorExit {
            engine: self.engine,
            store: match self.store {
                StoreSlot::Open(s) => Some(s),
                _ => None,
            },
        }
    }

    // ----- plumbing -----

    fn send(&self, u: Update) {
        // The UI may be gone (shutting down); nothing to do then.
        let _ = self.updates.send(u);
    }

    fn banner(&mut self, level: NoticeLevel, title: impl Into<String>, hint: Option<String>) {
        // A new banner replaces whatever was up, transient or not.
        self.transient_banner = false;
        let title = title.into();
        match level {
            NoticeLevel::Error => tracing::error!(%title, ?hint, "banner"),
            NoticeLevel::Warn => tracing::warn!(%title, ?hint, "banner"),
            NoticeLevel::Info => tracing::info!(%title, ?hint, "banner"),
        }
        self.send(Update::Banner { level, title, hint });
    }

    /// A banner about one failed attempt (a request, a restore): the next success of
    /// that kind takes it down, rather than leaving it up for the rest of the session.
    fn transient_banner(
        &mut self,
        level: NoticeLevel,
        title: impl Into<String>,
        hint: Option<String>,
    ) {
        self.banner(level, title, hint);
        self.transient_banner = true;
    }

    /// A success: take down a banner about an earlier failed attempt.
    fn clear_transient_banner(&mut self) {
        if std::mem::take(&mut self.transient_banner) {
            self.send(Update::ClearBanner);
        }
    }

    fn inline(&self, level: NoticeLevel, text: impl Into<String>) {
        let text = text.into();
        tracing::info!(%text, "notice");
        self.send(Update::Appended(notice(level, text)));
    }

    /// The conversation as items: every message of the current branch, with fold markers.
    fn transcript(&self) -> Vec<Item> {
        let ids = self.engine.conversation_ids();
        let mut items: Vec<Item> = ids
            .iter()
            .filter_map(|id| self.engine.history().get(*id))
            .map(item_of)
            .collect();
        // A fold marker where the compression happened, as it appeared live (after the
        // messages that existed then), and never before the messages it covers.
        for cp in self.engine.checkpoints().iter().rev() {
            let Some(last) = cp.covers.last() else {
                continue;
            };
            let after_covered = items
                .iter()
                .position(|i| i.id.is_some_and(|id| id > *last))
                .unwrap_or(items.len());
            let when_made = items
                .iter()
                .position(|i| i.id.is_some() && i.ts > cp.created_at)
                .unwrap_or(items.len());
            let pos = after_covered.max(when_made);
            items.insert(
                pos,
                Item {
                    id: None,
                    kind: ItemKind::Fold {
                        checkpoint: cp.number,
                        messages: cp.covers.len(),
                        tokens_before: cp.original_tokens,
                        tokens_after: cp.tokens,
                    },
                    text: String::new(),
                    ts: cp.created_at,
                    pinned: false,
                },
            );
        }
        items
    }

    fn publish(&mut self) {
        let cps = self.engine.checkpoints();
        if *self.checkpoints != cps {
            self.checkpoints = Arc::new(cps.to_vec());
        }
        if *self.goals != *self.engine.goals() {
            self.goals = Arc::new(self.engine.goals().clone());
        }
        let view = SessionView {
            session_id: self.engine.session_id().to_string(),
            host: self.cfg.host.clone(),
            status: self.engine.status(),
            connection: self.connection.clone(),
            activity: self.activity.clone(),
            checkpoints: self.checkpoints.clone(),
            goals: self.goals.clone(),
            persisted: matches!(self.store, StoreSlot::Open(_)),
        };
        self.view.send_replace(Arc::new(view));
    }

    /// Tell the UI which messages checkpoint `id` stands for.
    fn send_folded(&self, id: CheckpointId) {
        if let Some(cp) = self.engine.checkpoints().iter().find(|c| c.id == id) {
            self.send(Update::Folded {
                checkpoint: cp.number,
                ids: cp.covers.clone(),
            });
        }
    }

    /// The whole transcript, then which messages each checkpoint covers.
    fn send_transcript(&self) {
        self.send(Update::Transcript(self.transcript()));
        for cp in self.engine.checkpoints() {
            self.send_folded(cp.id);
        }
    }

    /// The newest message in context is the person's (it has had no reply), or a reply
    /// that broke off: `/retry` asks for the reply again.
    fn last_message_unanswered(&self) -> bool {
        self.engine.active().messages().last().is_some_and(|e| {
            e.role == Role::User
                || (e.role == Role::Assistant
                    && self
                        .engine
                        .history()
                        .get(e.id)
                        .is_some_and(|m| m.status == ReplyStatus::Interrupted))
        })
    }

    /// The store, created on first use.
    fn store(&mut self) -> Option<&mut S> {
        if let StoreSlot::Lazy(_) = self.store {
            let StoreSlot::Lazy(factory) = std::mem::replace(&mut self.store, StoreSlot::Failed)
            else {
                return None;
            };
            match factory(&self.engine.header(&self.cfg.app_version)) {
                Ok(s) => {
                    self.store = StoreSlot::Open(s);
                    for record in std::mem::take(&mut self.unwritten) {
                        let r = match &mut self.store {
                            StoreSlot::Open(s) => s.append(&record),
                            _ => Ok(()),
                        };
                        self.write_result(r);
                    }
                }
                Err(e) => self.banner(
                    NoticeLevel::Error,
                    format!("Cannot create the session file: {e}"),
                    Some("The conversation continues in memory only; check permissions and disk space of the data directory (OLLM_HOME).".into()),
                ),
            }
        }
        match &mut self.store {
            StoreSlot::Open(s) => Some(s),
            _ => None,
        }
    }

    fn write_result(&mut self, r: Result<(), StoreError>) {
        match r {
            Ok(()) if self.write_failing => {
                self.write_failing = false;
                self.inline(NoticeLevel::Info, "Writing the session log works again.");
            }
            Ok(()) => {}
            Err(e) if !self.write_failing => {
                self.write_failing = true;
                self.banner(
                    NoticeLevel::Error,
                    format!("Cannot write the session log: {e}"),
                    Some("Nothing is lost from this screen, but it is not on disk: free disk space or fix permissions; writing is retried with every message.".into()),
                );
            }
            Err(e) => tracing::error!(%e, "session log write failed again"),
        }
    }

    fn sync(&mut self) {
        if let StoreSlot::Open(s) = &mut self.store {
            let r = s.sync();
            self.write_result(r);
        }
    }

    /// Carry out the engine's effects, in order.
    fn execute(&mut self, fx: Vec<Effect>) {
        for e in fx {
            match e {
                Effect::Persist(record) => {
                    if matches!(self.store, StoreSlot::Lazy(_))
                        && matches!(record.body, RecordBody::Settings { .. })
                    {
                        self.unwritten.push(record);
                        continue;
                    }
                    let r = match self.store() {
                        Some(s) => s.append(&record),
                        None => Ok(()),
                    };
                    self.write_result(r);
                }
                Effect::Sync => self.sync(),
                Effect::Event(ev) => self.on_event(ev),
            }
        }
        self.publish();
    }

    fn on_event(&mut self, ev: EngineEvent) {
        tracing::info!(event = ev.name(), detail = ?ev, "engine");
        match &ev {
            EngineEvent::CompressionSkipped { reason } => {
                self.inline(NoticeLevel::Info, format!("Compression skipped: {reason}."));
            }
            EngineEvent::CompressionError { error } => self.banner(
                NoticeLevel::Warn,
                format!("Compression failed: {error}"),
                Some(format!("The conversation continues; ollm-tui retries when the context fills up, or press {}.", self.cfg.keys.compress)),
            ),
            EngineEvent::RolloverComplete { intensity, tokens_after } => self.inline(
                NoticeLevel::Warn,
                format!(
                    "Emergency rollover ({}): the context now holds {tokens_after} tokens. An emergency snapshot was saved first ({}).",
                    match intensity {
                        Intensity::Truncate => "marked truncation, the model was unavailable",
                        _ => "everything older folded hard",
                    },
                    self.cfg.keys.restore
                ),
            ),
            EngineEvent::CheckpointsMerged { merged, into, .. } => {
                // The merged ones are gone from the engine; the list last published
                // still names them.
                let checkpoints: Vec<u32> = self
                    .checkpoints
                    .iter()
                    .filter(|c| merged.contains(&c.id))
                    .map(|c| c.number)
                    .collect();
                if let Some(cp) = self.engine.checkpoints().iter().find(|c| c.id == *into) {
                    self.send(Update::Merged {
                        checkpoints,
                        into: cp.number,
                    });
                }
                self.send_folded(*into);
            }
            EngineEvent::CheckpointCreated { id, number, tokens, original_tokens, messages, .. } => {
                self.send(Update::Appended(Item {
                    id: None,
                    kind: ItemKind::Fold {
                        checkpoint: *number,
                        messages: *messages,
                        tokens_before: *original_tokens,
                        tokens_after: *tokens,
                    },
                    text: String::new(),
                    ts: Utc::now(),
                    pinned: false,
                }));
                self.send_folded(*id);
            }
            EngineEvent::SnapshotCreated { id, purpose } => {
                let what = if *purpose == SnapshotPurpose::Emergency { "Emergency snapshot" } else { "Snapshot" };
                self.inline(NoticeLevel::Info, format!("{what} {id} saved ({} to restore).", self.cfg.keys.restore));
            }
            // Announced by `restore` after the transcript is replaced.
            EngineEvent::SnapshotRestored { .. } => {}
            EngineEvent::SnapshotError { error } => self.banner(
                NoticeLevel::Warn,
                format!("Snapshot failed: {error}"),
                Some("Check disk space and permissions of the data directory.".into()),
            ),
            EngineEvent::TruncationSuspected { sent, seen } => self.banner(
                NoticeLevel::Warn,
                format!("Ollama evaluated only {seen} of about {sent} prompt tokens: it cut the start of the conversation."),
                Some("ollm-tui compresses before the next request. If this repeats, the server may ignore num_ctx (check OLLAMA_CONTEXT_LENGTH) — or set a smaller /ctx.".into()),
            ),
            EngineEvent::UserMessagesFolded { count, checkpoint } => self.inline(
                NoticeLevel::Info,
                if *count == 1 {
                    format!("Your oldest message was folded into checkpoint {checkpoint} too, to leave room for the next turns. It is kept in full in the session history.")
                } else {
                    format!("{count} of your oldest messages were folded into checkpoint {checkpoint} too, to leave room for the next turns. They are kept in full in the session history.")
                },
            ),
            // A pass that folded messages shows as a checkpoint divider; one that only
            // condensed older checkpoints would otherwise leave no trace on screen.
            EngineEvent::Compressed { messages: 0, tokens_before, tokens_after, .. } => self.inline(
                NoticeLevel::Info,
                format!("No messages were folded: a summary of what is left would not be smaller than the messages. Condensing older checkpoints took the context from {tokens_before} to {tokens_after} tokens."),
            ),
            EngineEvent::MessageClipped { id, omitted_tokens } => self.banner(
                NoticeLevel::Warn,
                format!("Message {id} is too large for the context: the model sees its beginning and end ({omitted_tokens} tokens cut)."),
                Some("The full text is saved in the session. Raise the context with /ctx N to send it whole.".into()),
            ),
            // The model's marker lines can be refused (only the person replaces the goal or
            // unlocks a decision): say so rather than drop them silently.
            EngineEvent::GoalRejected { change, reason } => {
                let line = match change {
                    GoalChange::SetGoal { description, .. } => format!("[GOAL] {description}"),
                    GoalChange::Checkpoint { description, .. } => {
                        format!("[CHECKPOINT] {description}")
                    }
                    GoalChange::Decision { text, .. } => format!("[DECISION] {text}"),
                    GoalChange::Artifact { path, .. } => format!("[ARTIFACT] {path}"),
                    GoalChange::Next { text } => format!("[NEXT] {text}"),
                    _ => "a goal-board change".to_string(),
                };
                self.inline(
                    NoticeLevel::Info,
                    format!("Not applied from the reply: {line} — {reason}."),
                );
            }
            // The board changes visibly for most commands; finishing or clearing the goal
            // empties it, so that is confirmed in words.
            EngineEvent::GoalUpdated { change: GoalChange::GoalStatus { status }, author: Author::User } => {
                let text = match status {
                    GoalStatus::Completed => "Goal completed. It stays in the session's history (export shows past goals).",
                    GoalStatus::Paused => "Goal paused: /goal resume takes it up again.",
                    GoalStatus::Active => "Goal active again.",
                };
                self.inline(NoticeLevel::Info, text);
            }
            EngineEvent::GoalUpdated { change: GoalChange::Clear, author: Author::User } => {
                self.inline(NoticeLevel::Info, "Goal board cleared. Its history stays in the session (export shows it).");
            }
            // In the transcript, where it happened: a banner would stay up with a figure
            // the status line's badge has long moved on from.
            EngineEvent::ReliabilityWarning { compressions, percent, model } => self.inline(
                NoticeLevel::Warn,
                format!("{model} has compressed this conversation {compressions} times (reliability {percent}%): each compression loses some detail, and small models lose more. Continue while the answers stay on track; if they drift, start a new session."),
            ),
            _ => {}
        }
        self.send(Update::Engine(ev));
    }

    // ----- connection -----

    async fn connect(&mut self) {
        let was = self.connection.clone();
        self.connection = Connection::Connecting;
        self.publish();
        let result = self.try_connect().await;
        self.reconnect_at = None;
        match result {
            Ok(version) => {
                self.connection = Connection::Connected {
                    version: version.clone(),
                };
                self.reconnect_delay = self.cfg.reconnect_after;
                if !matches!(was, Connection::Connecting | Connection::Connected { .. }) {
                    self.send(Update::ClearBanner);
                    self.inline(
                        NoticeLevel::Info,
                        format!("Connected to Ollama {version} at {}.", self.cfg.host),
                    );
                }
            }
            Err(conn) => {
                if conn != was {
                    match &conn {
                        Connection::Unreachable { url, error } => self.banner(
                            NoticeLevel::Error,
                            format!("Cannot reach Ollama at {url}: {error}"),
                            Some("Start it with `ollama serve` (or set OLLAMA_HOST / --host). Retrying every few seconds; your messages are kept.".into()),
                        ),
                        Connection::ModelMissing { model } => self.banner(
                            NoticeLevel::Error,
                            format!("Model \"{model}\" is not installed on the Ollama server."),
                            Some(format!("Download it with `ollama pull {model}`, or pick an installed one with {}.", self.cfg.keys.models)),
                        ),
                        Connection::NoModels => self.banner(
                            NoticeLevel::Error,
                            "The Ollama server has no models installed.",
                            Some(format!("Download one, e.g. `ollama pull llama3.2`, then press {}.", self.cfg.keys.models)),
                        ),
                        _ => {}
                    }
                }
                if matches!(conn, Connection::Unreachable { .. }) {
                    self.reconnect_at = Some(tokio::time::Instant::now() + self.reconnect_delay);
                    self.reconnect_delay = (self.reconnect_delay * 2).min(Duration::from_secs(30));
                }
                self.connection = conn;
            }
        }
        self.publish();
    }

    async fn try_connect(&mut self) -> Result<String, Connection> {
        let unreachable = |e: LlmError| Connection::Unreachable {
            url: self.cfg.host.clone(),
            error: match &e {
                LlmError::Unreachable { cause, .. } => cause.clone(),
                other => other.to_string(),
            },
        };
        let version = self.backend.version().await.map_err(unreachable)?;
        if self.engine.model().is_empty() {
            let models = self.backend.list_models().await.map_err(unreachable)?;
            let newest = models
                .iter()
                .max_by_key(|m| m.modified_at)
                .map(|m| m.name.clone());
            let Some(name) = newest else {
                return Err(Connection::NoModels);
            };
            let fx = self.engine.set_model(name, Utc::now());
            self.execute(fx);
        }
        let model = self.engine.model().to_string();
        match self.backend.show_model(&model).await {
            Ok(info) => {
                self.engine
                    .set_model_info(info.context_length, info.parameter_size.as_deref());
                Ok(version)
            }
            Err(LlmError::ModelNotFound { model }) => Err(Connection::ModelMissing { model }),
            Err(e) => Err(Connection::Unreachable {
                url: self.cfg.host.clone(),
                error: e.to_string(),
            }),
        }
    }

    // ----- commands -----

    async fn handle(&mut self, cmd: Command) {
        let now = Utc::now();
        match cmd {
            Command::Send { text } => {
                if text.trim().is_empty() {
                    return;
                }
                let (id, fx) = self.engine.add_user_message(text, now);
                self.execute(fx);
                if let Some(m) = self.engine.history().get(id) {
                    self.send(Update::Appended(item_of(m)));
                }
                self.turn().await;
            }
            Command::Retry => {
                if self.last_message_unanswered() {
                    if !matches!(self.connection, Connection::Connected { .. }) {
                        self.connect().await;
                    }
                    self.turn().await;
                } else {
                    self.inline(
                        NoticeLevel::Info,
                        "Nothing to retry: the last message has its complete reply.",
                    );
                }
            }
            Command::Stop | Command::Shutdown => {}
            Command::Compress { focus } => match self.engine.plan_compression(focus, now) {
                Ok(plan) => {
                    if !self.compress(*plan).await {
                        self.inline(
                            NoticeLevel::Info,
                            "Compression stopped; nothing was changed.",
                        );
                    }
                }
                Err(why) => self.inline(NoticeLevel::Info, format!("Not compressed: {why}.")),
            },
            Command::Snapshot { label } => {
                self.snapshot(SnapshotPurpose::Rollback, label);
            }
            Command::ListSnapshots { .. }
            | Command::ListModels { .. }
            | Command::Inspect { .. } => {
                self.read_only(cmd).await;
            }
            Command::Restore { id } => self.restore(&id),
            Command::DeleteSnapshot { id } => {
                let r = match self.store() {
                    Some(s) => s.delete_snapshot(&id).map_err(|e| e.to_string()),
                    None => Err("no session file".into()),
                };
                match r {
                    Ok(()) => self.inline(NoticeLevel::Info, format!("Deleted snapshot {id}.")),
                    Err(e) => self.inline(
                        NoticeLevel::Warn,
                        format!("Cannot delete snapshot {id}: {e}"),
                    ),
                }
            }
            Command::Goal { change } => match self.engine.apply_goal(change, Author::User, now) {
                Ok(fx) => self.execute(fx),
                Err(e) => self.inline(NoticeLevel::Warn, format!("Goal board: {e}.")),
            },
            Command::Pin { id, pinned } => {
                let target = id.or_else(|| self.engine.last_active(Role::Assistant));
                match target {
                    Some(id) => match self.engine.set_pinned(id, pinned, now) {
                        Ok(fx) => {
                            self.execute(fx);
                            self.send(Update::Pinned { id, pinned });
                            let text = if pinned {
                                format!("Pinned message {id}: it is never folded into a summary.")
                            } else {
                                format!(
                                    "Unpinned message {id}: it may be folded into a summary like any other."
                                )
                            };
                            self.inline(NoticeLevel::Info, text);
                        }
                        Err(e) => self.inline(
                            NoticeLevel::Warn,
                            format!("Cannot {}: {e}.", if pinned { "pin" } else { "unpin" }),
                        ),
                    },
                    None => self.inline(
                        NoticeLevel::Info,
                        if pinned {
                            "No reply to pin yet."
                        } else {
                            "No reply to unpin yet."
                        },
                    ),
                }
            }
            Command::SetModel { name } => match self.backend.show_model(&name).await {
                Ok(info) => {
                    let fx = self.engine.set_model(name.clone(), now);
                    self.execute(fx);
                    self.engine
                        .set_model_info(info.context_length, info.parameter_size.as_deref());
                    if matches!(
                        self.connection,
                        Connection::ModelMissing { .. } | Connection::NoModels
                    ) {
                        self.connection = Connection::Connecting;
                        self.send(Update::ClearBanner);
                        self.connect().await;
                    }
                    self.inline(
                        NoticeLevel::Info,
                        format!("Model: {name} (context {} tokens).", self.engine.ctx()),
                    );
                }
                Err(e) => self.banner(
                    NoticeLevel::Warn,
                    format!("Cannot switch to {name}: {e}"),
                    e.hint(),
                ),
            },
            Command::SetCtx { ctx } => {
                let fx = self.engine.set_ctx(ctx, now);
                self.execute(fx);
                self.inline(
                    NoticeLevel::Info,
                    format!(
                        "Context size {} tokens (the model reloads once with it).",
                        self.engine.ctx()
                    ),
                );
                if let Some(trained) = self.engine.model_ctx()
                    && self.engine.ctx() > trained
                {
                    self.inline(
                        NoticeLevel::Warn,
                        format!(
                            "{} was trained on {trained} tokens: Ollama may load it with less than {}. The budget follows what the server reports after the next reply.",
                            self.engine.model(),
                            self.engine.ctx()
                        ),
                    );
                }
            }
            Command::SetMode { mode } => {
                let fx = self.engine.set_mode(mode, now);
                self.execute(fx);
                self.inline(NoticeLevel::Info, format!("Mode: {mode}."));
            }
            Command::Reconnect => self.connect().await,
        }
        self.publish();
    }

    /// Commands answered without changing state (also while a reply streams).
    async fn read_only(&mut self, cmd: Command) {
        match cmd {
            Command::ListSnapshots { reply } => {
                let r = match &self.store {
                    StoreSlot::Open(s) => s.list_snapshots().map_err(|e| e.to_string()),
                    _ => Ok(Vec::new()),
                };
                let _ = reply.send(r);
            }
            Command::ListModels { reply } => {
                let r = self
                    .backend
                    .list_models()
                    .await
                    .map_err(|e| match e.hint() {
                        Some(h) => format!("{e}. {h}"),
                        None => e.to_string(),
                    });
                let _ = reply.send(r);
            }
            Command::Inspect { id, reply } => {
                let _ = reply.send(self.inspect(id));
            }
            _ => {}
        }
    }

    fn inspect(&self, id: CheckpointId) -> Option<(Checkpoint, Vec<Message>)> {
        let cp = self
            .engine
            .checkpoints()
            .iter()
            .find(|c| c.id == id)?
            .clone();
        let originals = cp
            .covers
            .iter()
            .filter_map(|m| self.engine.history().get(*m).cloned())
            .collect();
        Some((cp, originals))
    }

    fn snapshot(&mut self, purpose: SnapshotPurpose, label: Option<String>) -> bool {
        let snap = self.engine.make_snapshot(purpose, label, Utc::now());
        self.save_snapshot(&snap)
    }

    /// Write a snapshot the engine made, log it, and keep only the newest automatic ones;
    /// a failure is reported, never fatal (history on disk is intact either way).
    fn save_snapshot(&mut self, snap: &Snapshot) -> bool {
        let saved = match self.store() {
            Some(s) => s.save_snapshot(snap).map_err(|e| e.to_string()),
            None => Err("the session has no file to attach it to".into()),
        };
        match saved {
            Ok(meta) => {
                let fx = self.engine.snapshot_saved(&meta, Utc::now());
                self.execute(fx);
                let keep = self.cfg.keep_auto_snapshots;
                if meta.purpose == SnapshotPurpose::Recovery
                    && let Some(s) = self.store()
                    && let Err(e) = s.prune_automatic(keep)
                {
                    tracing::warn!(%e, "pruning automatic snapshots failed");
                }
                true
            }
            Err(error) => {
                self.on_event(EngineEvent::SnapshotError { error });
                false
            }
        }
    }

    /// The snapshot named by `wanted`: its id, or the one id that starts with it.
    fn resolve_snapshot(&mut self, wanted: &str) -> Result<String, String> {
        let Some(store) = self.store() else {
            return Err("this session has no snapshots yet".into());
        };
        let ids: Vec<String> = store
            .list_snapshots()
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|m| m.id)
            .collect();
        if ids.iter().any(|i| i == wanted) {
            return Ok(wanted.to_string());
        }
        let matching: Vec<&String> = ids.iter().filter(|i| i.starts_with(wanted)).collect();
        match matching.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(format!("no snapshot \"{wanted}\" in this session")),
            many => Err(format!(
                "\"{wanted}\" matches {} snapshots; give more of the id",
                many.len()
            )),
        }
    }

    fn restore(&mut self, wanted: &str) {
        let id = match self.resolve_snapshot(wanted) {
            Ok(id) => id,
            Err(why) => {
                self.transient_banner(
                    NoticeLevel::Warn,
                    format!("Cannot restore: {why}."),
                    Some(format!("{} lists this session's snapshots (time, purpose, size); /restore takes an id or the start of one.", self.cfg.keys.restore)),
                );
                return;
            }
        };
        let id = id.as_str();
        let loaded = match self.store() {
            Some(s) => s.load_snapshot(id).map_err(|e| e.to_string()),
            None => Err("no session file".into()),
        };
        // The state being left gets a snapshot of its own, so a restore can be undone
        // with another restore. Without it (it could not be saved) nothing is restored.
        // It is a rollback point like Ctrl+S's, so pruning automatic snapshots keeps it.
        let result = loaded.and_then(|snap| {
            let before = self.engine.make_snapshot(
                SnapshotPurpose::Rollback,
                Some(format!("before restoring {id}")),
                Utc::now(),
            );
            if !self.save_snapshot(&before) {
                return Err("the current state could not be saved first".to_string());
            }
            self.engine
                .restore(&snap, Utc::now())
                .map(|fx| (fx, before.meta.id))
                .map_err(|e| e.to_string())
        });
        match result {
            Ok((fx, before)) => {
                self.clear_transient_banner();
                self.execute(fx);
                self.send_transcript();
                self.inline(
                    NoticeLevel::Info,
                    format!(
                        "Restored snapshot {id}. The state before it is snapshot {before} ({} to go back); later messages also stay in the session history (export shows them).",
                        self.cfg.keys.restore
                    ),
                );
            }
            Err(error) => self.on_event(EngineEvent::SnapshotError {
                error: format!("cannot restore {id}: {error}"),
            }),
        }
    }

    // ----- turns -----

    async fn turn(&mut self) {
        let mut overflow_retried = false;
        // Each compression makes progress or escalates; a handful of steps always settles.
        for _ in 0..12 {
            let (step, fx) = self.engine.next_step(Utc::now());
            self.execute(fx);
            match step {
                Step::Send(prompt) => match self.stream_reply(prompt).await {
                    ReplyEnd::Overflow(message) if !overflow_retried => {
                        overflow_retried = true;
                        tracing::warn!(%message, "context overflow; compressing and retrying once");
                        self.engine.overflowed();
                    }
                    ReplyEnd::Overflow(message) => {
                        self.transient_banner(
                            NoticeLevel::Error,
                            format!("Ollama still refuses the conversation as too long: {message}"),
                            Some(format!("Your message is saved. Lower the context size (/ctx) or compress ({}), then /retry.", self.cfg.keys.compress)),
                        );
                        break;
                    }
                    ReplyEnd::Done | ReplyEnd::Failed | ReplyEnd::Stopped => break,
                },
                Step::Compress(plan) => {
                    if !self.compress(*plan).await {
                        self.engine.abort_turn();
                        self.inline(
                            NoticeLevel::Info,
                            "Compression stopped. Your message is saved but was not sent: /retry sends it.",
                        );
                        break;
                    }
                }
                Step::Snapshot(snap) => {
                    self.save_snapshot(&snap);
                }
                Step::Blocked(why) => {
                    self.banner(NoticeLevel::Error, "Message not sent", Some(why));
                    break;
                }
            }
        }
        self.activity = Activity::Idle;
        self.publish();
    }

    /// Run a compression plan; false if it was stopped.
    async fn compress(&mut self, mut plan: CompressionPlan) -> bool {
        if let Some(snap) = plan.snapshot.take() {
            self.save_snapshot(&snap);
        }
        let started = Instant::now();
        let what = plan.describe();
        tracing::info!(reason = ?plan.reason, intensity = ?plan.intensity, %what, tokens_before = plan.tokens_before, "compressing");
        self.activity = Activity::Compressing {
            since: started,
            what: what.clone(),
        };
        self.publish();
        let view = self.view.clone();
        let progress = move |p: crate::core::compress::Progress| {
            view.send_modify(|v| {
                let mut next = (**v).clone();
                next.activity = Activity::Compressing {
                    since: started,
                    what: format!("{} ({}/{})", p.what, p.step, p.of),
                };
                *v = Arc::new(next);
            });
        };
        let outcome = {
            let summarizer = BackendSummarizer {
                backend: &self.backend,
                model: self.engine.model().to_string(),
                num_ctx: self.engine.ctx(),
            };
            let run = plan.run_with_progress(&summarizer, progress);
            tokio::pin!(run);
            loop {
                tokio::select! {
                    outcome = &mut run => break Some(outcome),
                    cmd = next_command(&mut self.rx, &mut self.rx_closed) => match cmd {
                        Some(Command::Stop) => break None,
                        Some(c) => self.deferred.push_back(c),
                        None => {}
                    },
                }
            }
        };
        let Some(outcome) = outcome else {
            tracing::info!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                "compression stopped by the user"
            );
            self.activity = Activity::Idle;
            self.publish();
            return false;
        };
        let fx = self.engine.apply_compression(outcome, Utc::now());
        self.execute(fx);
        let after = self.engine.budget().total();
        tracing::info!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            tokens_after = after,
            compressions = self.engine.compressions(),
            "compression done"
        );
        self.activity = Activity::Idle;
        self.publish();
        true
    }

    /// Ask the server what context the model is really loaded with (`/api/ps`, where the
    /// server has it). Ollama cuts num_ctx to the model's trained length, or to a server
    /// setting, without telling the client; the budget must follow.
    async fn confirm_loaded_ctx(&mut self) {
        let model = self.engine.model().to_string();
        let sent = self.engine.ctx();
        if self.loaded_checked.as_ref() == Some(&(model.clone(), sent)) {
            return;
        }
        self.loaded_checked = Some((model.clone(), sent));
        let Ok(loaded) = self.backend.loaded_models().await else {
            return; // Older servers have no /api/ps: nothing to learn.
        };
        let Some(ctx) = loaded
            .iter()
            .find(|m| m.name == model)
            .and_then(|m| m.context_length)
        else {
            return;
        };
        if self.engine.set_loaded_ctx(Some(ctx)) && ctx < sent {
            self.banner(
                NoticeLevel::Warn,
                format!("Ollama loaded {model} with a {ctx}-token context, not the {sent} asked for."),
                Some("The budget now follows what the server uses, so nothing is cut silently. A model's trained length, or OLLAMA_CONTEXT_LENGTH on the server, sets this limit; /ctx changes what is asked for.".into()),
            );
            self.publish();
        }
    }

    fn chat_request(&self, prompt: &ChatPrompt) -> ChatRequest {
        ChatRequest {
            model: prompt.model.clone(),
            messages: prompt
                .messages
                .iter()
                .map(|m| ChatMessage::new(chat_role(m.role), m.content.clone()))
                .collect(),
            options: ChatOptions {
                num_ctx: prompt.num_ctx,
                num_predict: Some(prompt.max_reply.max(1)),
                temperature: self.cfg.temperature,
                seed: None,
            },
            keep_alive: None,
        }
    }

    /// Record what arrived of a reply that did not finish.
    fn keep_partial(&mut self, text: String, prompt_raw: u32) -> Option<MessageId> {
        let fx = self.engine.record_reply(
            ReplyInput {
                text,
                status: ReplyStatus::Interrupted,
                prompt_eval_count: None,
                prompt_eval_cached: None,
                eval_count: None,
                prompt_raw,
            },
            Utc::now(),
        );
        let recorded = fx.iter().any(|e| matches!(e, Effect::Persist(_)));
        self.execute(fx);
        recorded
            .then(|| self.engine.history().last().map(|m| m.id))
            .flatten()
    }

    fn request_failed(&mut self, e: LlmError) {
        match &e {
            LlmError::Unreachable { url, cause } => {
                self.connection = Connection::Unreachable {
                    url: url.clone(),
                    error: cause.clone(),
                };
                self.reconnect_at = Some(tokio::time::Instant::now() + self.reconnect_delay);
                self.transient_banner(
                    NoticeLevel::Error,
                    format!("Cannot reach Ollama at {url}: {cause}"),
                    Some("Start it with `ollama serve`. Your message is saved; /retry sends it once Ollama is up.".into()),
                );
            }
            LlmError::ModelNotFound { model } => {
                self.connection = Connection::ModelMissing {
                    model: model.clone(),
                };
                self.transient_banner(
                    NoticeLevel::Error,
                    format!("Model \"{model}\" is not installed on the Ollama server."),
                    Some(format!("Download it with `ollama pull {model}` (or pick another with {}), then /retry. Your message is saved.", self.cfg.keys.models)),
                );
            }
            _ => self.transient_banner(
                NoticeLevel::Error,
                format!("The request failed: {e}"),
                Some(match e.hint() {
                    Some(h) => format!("{h} Your message is saved; /retry sends it again."),
                    None => "Your message is saved; /retry sends it again.".into(),
                }),
            ),
        }
        self.publish();
    }

    async fn stream_reply(&mut self, prompt: ChatPrompt) -> ReplyEnd {
        let req = self.chat_request(&prompt);
        let raw = prompt.raw_estimate;
        let since = Instant::now();
        self.activity = Activity::Generating { since, chunks: 0 };
        self.publish();
        self.send(Update::ReplyStart);
        let opened = {
            let open = self.backend.chat_stream(req);
            tokio::pin!(open);
            loop {
                tokio::select! {
                    r = &mut open => break Some(r),
                    cmd = next_command(&mut self.rx, &mut self.rx_closed) => match cmd {
                        Some(Command::Stop) => break None,
                        Some(c) => self.deferred.push_back(c),
                        None => {}
                    },
                }
            }
        };
        let mut stream = match opened {
            None => {
                self.send(Update::ReplyEnd {
                    status: ReplyStatus::Interrupted,
                    id: None,
                });
                self.inline(
                    NoticeLevel::Info,
                    "Stopped before the reply began; your message is saved (/retry).",
                );
                return ReplyEnd::Stopped;
            }
            Some(Err(LlmError::ContextOverflow { message })) => {
                self.send(Update::ReplyEnd {
                    status: ReplyStatus::Interrupted,
                    id: None,
                });
                return ReplyEnd::Overflow(message);
            }
            Some(Err(e)) => {
                self.send(Update::ReplyEnd {
                    status: ReplyStatus::Interrupted,
                    id: None,
                });
                self.request_failed(e);
                return ReplyEnd::Failed;
            }
            Some(Ok(s)) => s,
        };
        let mut text = String::new();
        let mut chunks = 0u32;
        let mut last_count = Instant::now();
        loop {
            tokio::select! {
                biased;
                cmd = next_command(&mut self.rx, &mut self.rx_closed) => match cmd {
                    Some(Command::Stop) => {
                        // Dropping the stream closes the HTTP connection now.
                        drop(stream);
                        let id = self.keep_partial(text, raw);
                        self.send(Update::ReplyEnd { status: ReplyStatus::Interrupted, id });
                        return ReplyEnd::Stopped;
                    }
                    Some(c) if c.is_read_only() => self.read_only(c).await,
                    Some(c) => self.deferred.push_back(c),
                    None => {}
                },
                item = stream.next() => match item {
                    Some(Ok(StreamEvent::Delta(d))) => {
                        text.push_str(&d);
                        chunks += 1;
                        self.send(Update::Delta(d));
                        // The status line's count follows at up to 10 updates a second,
                        // however fast or slow the tokens come.
                        if chunks == 1 || last_count.elapsed() >= COUNT_EVERY {
                            last_count = Instant::now();
                            self.activity = Activity::Generating { since, chunks };
                            self.publish();
                        }
                    }
                    Some(Ok(StreamEvent::Done(stats))) => {
                        let fx = self.engine.record_reply(
                            ReplyInput {
                                text,
                                status: ReplyStatus::Complete,
                                prompt_eval_count: stats.prompt_eval_count,
                                prompt_eval_cached: stats.prompt_eval_cached_count,
                                eval_count: stats.eval_count,
                                prompt_raw: raw,
                            },
                            Utc::now(),
                        );
                        self.execute(fx);
                        let id = self.engine.history().last().map(|m| m.id);
                        self.send(Update::ReplyEnd { status: ReplyStatus::Complete, id });
                        self.clear_transient_banner();
                        tracing::info!(
                            elapsed_ms = since.elapsed().as_millis() as u64,
                            prompt_eval_count = stats.prompt_eval_count,
                            estimate = prompt.estimate,
                            eval_count = stats.eval_count,
                            done_reason = stats.done_reason.as_deref().unwrap_or(""),
                            "reply"
                        );
                        self.confirm_loaded_ctx().await;
                        if stats.done_reason.as_deref() == Some("length") {
                            self.inline(NoticeLevel::Info, "The reply reached the context limit and was cut off by Ollama.");
                        }
                        return ReplyEnd::Done;
                    }
                    Some(Err(e)) => {
                        let id = self.keep_partial(text, raw);
                        self.send(Update::ReplyEnd { status: ReplyStatus::Interrupted, id });
                        if id.is_some() {
                            // Output was shown: no automatic retry.
                            self.transient_banner(
                                NoticeLevel::Error,
                                format!("The reply broke off: {e}. The partial reply is kept and marked."),
                                Some(match e.hint() {
                                    Some(h) if h.contains("/retry") => h,
                                    Some(h) => format!("{h} /retry asks for a complete reply."),
                                    None => "/retry asks for a complete reply.".to_string(),
                                }),
                            );
                        } else {
                            self.request_failed(e);
                        }
                        return ReplyEnd::Failed;
                    }
                    None => {
                        let id = self.keep_partial(text, raw);
                        self.send(Update::ReplyEnd { status: ReplyStatus::Interrupted, id });
                        return ReplyEnd::Failed;
                    }
                }
            }
        }
    }
}
