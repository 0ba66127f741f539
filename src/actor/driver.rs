//! The actor's loop and the driver of the engine: commands in, engine inputs out, the
//! engine's effects carried out.
//!
//! Strategy: one task, one `select!` over commands and the reconnect timer. A command
//! becomes an engine [`Input`]; the effects that come back are executed in order
//! ([`Actor::execute`]): records appended, the log synced, events shown, snapshots saved —
//! each answered at once — and the long-running requests (stream a reply, run a
//! compression) run last, under [`Actor::listen`], whose answers go back in as inputs until
//! the turn is over. State changes only through the engine.
//!
//! Executors of effects live beside this file: `reply.rs` (a chat request), `compress.rs`
//! (a compression), `background.rs` (a compression between turns, and a turn's wait for
//! it), `answers.rs` (what is answered without changing the session),
//! `connect.rs` (the server). A new kind of effect gets its executor there and one arm in
//! `execute`.

use super::background::{Background, background_done};
use super::command::Command;
use super::store::LazyStore;
use super::{ActorConfig, ActorExit};
use crate::core::checkpoint::Checkpoint;
use crate::core::compress::CompressionPlan;
use crate::core::engine::{ChatPrompt, Effect, Engine, Input, Request};
use crate::core::events::EngineEvent;
use crate::core::goals::GoalBoard;
use crate::core::message::MessageId;
use crate::core::record::{Record, RecordBody, SnapshotPurpose};
use crate::core::snapshot::Snapshot;
use crate::llm::ChatBackend;
use crate::store::{SessionStore, StoreError};
use crate::view::{Activity, Connection, Entry, SessionView, Update};
use crate::view::{Notice, Place, show};
use chrono::Utc;
use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// How often records the log refused are tried again while nothing else happens.
const WRITE_RETRY: Duration = Duration::from_secs(5);

/// A long-running request of the engine, run after the effects before it.
pub(super) enum Job {
    Chat(ChatPrompt),
    Compress(Box<CompressionPlan>),
    /// Wait for the background compression.
    AwaitBackground,
    /// Run the reply's tool calls.
    Tools(Vec<crate::core::message::ToolCall>),
}

pub(crate) struct Actor<B, S> {
    pub backend: Arc<B>,
    /// Where summaries are made: the chat server, or a separate one (`summary_host`).
    pub summary_backend: Arc<B>,
    pub engine: Engine,
    pub store: LazyStore<S>,
    pub cfg: ActorConfig,
    pub rx: mpsc::Receiver<Command>,
    pub updates: mpsc::UnboundedSender<Update>,
    pub view: watch::Sender<Arc<SessionView>>,
    pub connection: Connection,
    pub activity: Activity,
    pub deferred: VecDeque<Command>,
    /// A title was asked of the model in this run (see `title.rs`).
    pub titled: bool,
    pub rx_closed: bool,
    pub write_failing: bool,
    /// The banner up is about a failed attempt (see `transient_banner`).
    pub transient_banner: bool,
    pub reconnect_at: Option<tokio::time::Instant>,
    pub reconnect_delay: Duration,
    pub checkpoints: Arc<Vec<Checkpoint>>,
    pub goals: Arc<GoalBoard>,
    /// The (model, num_ctx) whose loaded context was already confirmed via `/api/ps`.
    pub loaded_checked: Option<(String, u32)>,
    /// The compression running between turns, if any (`background.rs`).
    pub bg: Option<Background>,
    /// The model has the `tools` capability (`/api/show`).
    pub tools_capable: bool,
    /// The model has the `thinking` capability: `think` is sent only then.
    pub thinking_capable: bool,
    /// `think` for chat requests (`/think`, `--think`); `None`: the model's default.
    pub think: Option<crate::llm::Think>,
    /// What the settings offer of the tools (`tools::offered_specs`).
    pub offered: Vec<crate::tools::ToolSpec>,
    /// The MCP servers of the session, and the tools of those running.
    pub mcp: crate::tools::mcp::Hub,
    pub mcp_tools: Vec<crate::tools::mcp::McpTool>,
    /// Approval questions asked so far (each has its number).
    pub asked: u64,
    /// When records that wait to be written are tried again (see `WRITE_RETRY`).
    pub write_retry_at: tokio::time::Instant,
}

/// The next command, or never once the channel is closed (so `select!` does not spin).
pub(super) async fn next_command(
    rx: &mut mpsc::Receiver<Command>,
    closed: &mut bool,
) -> Option<Command> {
    if *closed {
        return std::future::pending().await;
    }
    let c = rx.recv().await;
    if c.is_none() {
        *closed = true;
    }
    c
}

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    pub async fn run(mut self, model: Option<String>) -> ActorExit<S> {
        if let Some(name) = model.filter(|m| !m.is_empty() && m != self.engine.model()) {
            // A resumed session continues with another model: recorded like /model.
            self.apply(Input::SetModel { name });
        }
        self.activity = Activity::Idle;
        self.send_transcript();
        if self.engine.last_message_unanswered() {
            // Resumed after a failed send or a crash before the reply: say how to go on.
            self.notice(Notice::Unanswered);
        }
        self.publish();
        self.connect().await;
        loop {
            let cmd = match self.deferred.pop_front() {
                Some(c) => c,
                None if self.rx_closed && self.bg.is_none() => break,
                None => {
                    let reconnect_at = self.reconnect_at;
                    let retry_writes = self.store.unwritten() > 0;
                    tokio::select! {
                        c = next_command(&mut self.rx, &mut self.rx_closed) => match c {
                            Some(c) => c,
                            None => continue,
                        },
                        out = background_done(&mut self.bg) => {
                            self.background_ended(out).await;
                            self.publish();
                            continue;
                        }
                        _ = async {
                            match reconnect_at {
                                Some(t) => tokio::time::sleep_until(t).await,
                                None => std::future::pending().await,
                            }
                        } => {
                            self.connect().await;
                            continue;
                        }
                        // Records wait (a full disk): try again now and then, so they are
                        // written once there is room, without waiting for the next message.
                        _ = tokio::time::sleep_until(self.write_retry_at), if retry_writes => {
                            self.write_retry_at = tokio::time::Instant::now() + WRITE_RETRY;
                            self.sync();
                            self.publish();
                            continue;
                        }
                    }
                }
            };
            if matches!(cmd, Command::Shutdown) {
                // Quitting does not wait for a compression nobody waits for; the next
                // session compresses again.
                if let Some(bg) = self.bg.take() {
                    bg.task.abort();
                }
                break;
            }
            self.handle(cmd).await;
        }
        self.sync();
        let rescued = self.rescue();
        self.send(Update::Closed);
        ActorExit {
            engine: self.engine,
            store: self.store.into_inner(),
            rescued,
        }
    }

    async fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Request(Request::Retry) => {
                // What waits to be written goes first: a message is sent only once it is
                // on disk.
                if self.store.unwritten() > 0 {
                    let r = self.store.flush();
                    self.write_result(r);
                }
                if self.engine.last_message_unanswered()
                    && !matches!(self.connection, Connection::Connected { .. })
                {
                    self.connect().await;
                }
                self.feed(Request::Retry.into()).await;
            }
            Command::Request(r @ Request::Compress { .. }) => {
                // One compression at a time: the one under way first.
                if self.bg.is_some() {
                    self.feed_job(Job::AwaitBackground).await;
                }
                self.feed(r.into()).await;
            }
            Command::Request(r) => self.feed(r.into()).await,
            // Between turns, Stop can only mean the compression in the background.
            Command::Stop => self.stop_background().await,
            Command::Shutdown => {}
            c if c.is_read_only() => self.answer(c),
            Command::Restore { id } => {
                // The state it would fold is about to be replaced.
                self.stop_background().await;
                self.restore(&id).await;
            }
            Command::DeleteSnapshot { id } => self.delete_snapshot(id),
            Command::SetModel { name } => self.set_model(name).await,
            Command::Reconnect => self.connect().await,
            Command::SetThink(think) => {
                self.think = think;
                self.notice(Notice::ThinkSet {
                    think,
                    model: self.engine.model().to_string(),
                    capable: self.thinking_capable,
                });
            }
            // Only meaningful while a call asks (answered in `tools.rs`).
            Command::Approve { .. } => {}
            Command::Fork { at, reply } => {
                let _ = reply.send(self.fork(at));
            }
            // Matched above; the compiler cannot see through the guard.
            Command::ListSnapshots { .. }
            | Command::ListModels { .. }
            | Command::Inspect { .. }
            | Command::InspectResult { .. }
            | Command::TakeBackQueued { .. }
            | Command::Export { .. } => {}
        }
        self.publish();
    }

    // ----- driving the engine -----

    /// Give the engine an input and carry out everything that follows, long-running
    /// requests included, until the engine asks for nothing more.
    pub(super) async fn feed(&mut self, input: Input) {
        let fx = self.engine.handle(input, Utc::now());
        let job = self.execute(fx);
        if let Some(job) = job {
            self.feed_job(job).await;
        }
    }

    /// Run a long request and everything the engine asks for after it.
    async fn feed_job(&mut self, job: Job) {
        let mut job = Some(job);
        while let Some(next) = job.take() {
            job = match next {
                Job::Chat(prompt) => self.chat(prompt).await,
                Job::Compress(plan) => self.compress(*plan).await,
                Job::AwaitBackground => self.await_background().await,
                Job::Tools(calls) => self.run_tools(calls).await,
            };
        }
        if self.activity != Activity::Idle {
            self.activity = Activity::Idle;
            self.publish();
        }
    }

    /// An input that never leads to a long-running request (settings, what the server
    /// says): handled and its effects carried out at once.
    pub(super) fn apply(&mut self, input: Input) {
        let fx = self.engine.handle(input, Utc::now());
        if self.execute(fx).is_some() {
            tracing::error!("an input expected to finish at once asked for a long request");
        }
    }

    /// Carry out the engine's effects, in order. A snapshot is saved and its answer handled
    /// before the effects after it; a long-running request (always last) is returned.
    pub(super) fn execute(&mut self, fx: Vec<Effect>) -> Option<Job> {
        let mut job = None;
        for e in fx {
            match e {
                Effect::Persist(record) => self.persist(record),
                Effect::Sync => self.sync(),
                Effect::Event(ev) => self.on_event(ev),
                Effect::SaveSnapshot(snap) => {
                    let answer = self.save_snapshot(&snap);
                    let more = self.engine.handle(answer, Utc::now());
                    if let Some(j) = self.execute(more) {
                        job = Some(j);
                    }
                }
                Effect::Chat(prompt) => job = Some(Job::Chat(prompt)),
                Effect::Compress(plan) => job = Some(Job::Compress(plan)),
                Effect::CompressInBackground(plan) => self.start_background(*plan),
                Effect::AwaitCompression => job = Some(Job::AwaitBackground),
                Effect::RunTools(calls) => job = Some(Job::Tools(calls)),
                Effect::SaveResult { file, text } => self.save_result(&file, &text),
                Effect::ReduceResults(items) => {
                    let texts = self.engine.reduce_with(items, |file| {
                        self.store
                            .load_result(file)
                            .inspect_err(|e| {
                                tracing::warn!(%file, error = %e, "cannot read a saved result to reduce it");
                            })
                            .ok()
                    });
                    let more = self.engine.handle(Input::ResultsReduced(texts), Utc::now());
                    if let Some(j) = self.execute(more) {
                        job = Some(j);
                    }
                }
            }
        }
        self.publish();
        job
    }

    /// Run `fut` while listening to the person: Stop ends it (dropping the future cancels
    /// what it was doing: an HTTP stream closes at once), read-only commands are answered
    /// at once, other commands wait their turn. `None` when stopped. The future must not
    /// borrow the actor, so that answering can.
    pub(super) async fn listen<T>(&mut self, fut: impl Future<Output = T>) -> Option<T> {
        tokio::pin!(fut);
        loop {
            tokio::select! {
                biased;
                cmd = next_command(&mut self.rx, &mut self.rx_closed) => match cmd {
                    Some(Command::Stop) => return None,
                    // Quitting does not wait for a reply (a stalled one could take
                    // minutes): stop it, keep what arrived, then shut down.
                    Some(Command::Shutdown) => {
                        self.deferred.push_front(Command::Shutdown);
                        return None;
                    }
                    Some(c) if c.is_read_only() => self.answer(c),
                    Some(c) => self.defer(c),
                    None => {}
                },
                out = &mut fut => return Some(out),
            }
        }
    }

    // ----- the store -----

    /// Append a record; a message also joins the transcript.
    fn persist(&mut self, record: Record) {
        let r = self.store.append(&record);
        self.write_result(r);
        if matches!(
            record.body,
            RecordBody::User { .. } | RecordBody::Tool { .. }
        ) && let Some(m) = self.engine.history().get(MessageId(record.seq))
        {
            self.send(Update::Appended(Entry::from_message(m)));
        }
    }

    /// Keep a tool result whole before its shortened form is recorded. If it cannot be
    /// written, the person is told now; `recall` of it will say the same.
    fn save_result(&mut self, file: &str, text: &str) {
        if let Err(e) = self.store.save_result(file, text) {
            tracing::error!(%file, error = %e, "cannot save a tool result");
            self.notice(Notice::ResultNotSaved(e.to_string()));
        }
    }

    /// The count the app needs before quitting (it asks when records would be lost).
    fn publish_unwritten(&mut self, waiting: usize) {
        if self.view.borrow().unwritten != waiting {
            self.view.send_modify(|v| {
                let mut next = (**v).clone();
                next.unwritten = waiting;
                *v = Arc::new(next);
            });
        }
    }

    /// At exit: what the log still could not take goes to a rescue file, a session log
    /// of its own (the header, then the records), so nothing is lost silently.
    fn rescue(&mut self) -> Option<super::Rescued> {
        let records = self.store.take_unwritten();
        if records.is_empty() {
            return None;
        }
        let path = self.cfg.rescue_dir.join(format!(
            "ollm-unsaved-{}-{}.jsonl",
            self.engine.session_id(),
            Utc::now().format("%Y%m%d-%H%M%S")
        ));
        let header = self.engine.header(&self.cfg.app_version);
        let write = || -> Result<(), String> {
            use std::io::Write as _;
            let mut text = serde_json::to_string(&header).map_err(|e| e.to_string())?;
            text.push('\n');
            for r in &records {
                text.push_str(&serde_json::to_string(r).map_err(|e| e.to_string())?);
                text.push('\n');
            }
            let mut opts = std::fs::OpenOptions::new();
            opts.write(true).create_new(true);
            let mut file = crate::store::fsutil::open_private(&path, &mut opts, "write")
                .map_err(|e| e.to_string())?;
            file.write_all(text.as_bytes())
                .and_then(|()| file.sync_all())
                .map_err(|e| e.to_string())
        };
        let to = write().map(|()| path.clone());
        tracing::warn!(
            records = records.len(),
            ?to,
            "records the log refused, rescued at exit"
        );
        Some(super::Rescued {
            records: records.len(),
            to,
        })
    }

    pub(super) fn sync(&mut self) {
        let r = self.store.sync();
        self.write_result(r);
    }

    /// The outcome of a write: the banner stays up, with the number of records waiting,
    /// until everything is on disk.
    fn write_result(&mut self, r: Result<(), StoreError>) {
        let waiting = self.store.unwritten();
        match r {
            Ok(()) if self.write_failing && waiting == 0 => {
                self.write_failing = false;
                self.send(Update::ClearBanner);
                self.notice(Notice::WriteRecovered);
            }
            Ok(()) => {}
            Err(e) if self.store.failed() => {
                self.write_failing = true;
                self.banner(Notice::StoreCreateFailed {
                    error: e.to_string(),
                    waiting,
                });
            }
            Err(e) => {
                if self.write_failing {
                    tracing::error!(%e, waiting, "session log write failed again");
                }
                self.write_failing = true;
                self.banner(Notice::WriteFailed {
                    error: e.to_string(),
                    waiting,
                });
            }
        }
        self.publish_unwritten(waiting);
    }

    /// Write a snapshot the engine made and keep only the newest automatic ones; the
    /// answer for the engine.
    fn save_snapshot(&mut self, snap: &Snapshot) -> Input {
        match self.store.save_snapshot(snap) {
            Ok(meta) => {
                if meta.purpose == SnapshotPurpose::Recovery
                    && let Err(e) = self.store.prune_automatic(self.cfg.keep_auto_snapshots)
                {
                    tracing::warn!(%e, "pruning automatic snapshots failed");
                }
                Input::SnapshotSaved { meta }
            }
            Err(e) => Input::SnapshotFailed {
                id: snap.meta.id.clone(),
                error: e.to_string(),
            },
        }
    }

    // ----- telling the UI -----

    pub(super) fn send(&self, u: Update) {
        // The UI may be gone (shutting down); nothing to do then.
        let _ = self.updates.send(u);
    }

    /// Something the person must see until it is dealt with.
    pub(super) fn banner(&mut self, notice: Notice) {
        self.raise(notice);
    }

    /// Show `notice` as the banner; false when it went to the transcript instead: while
    /// records wait to be written, the banner saying so stays up (a failed snapshot on
    /// the same full disk must not hide it).
    fn raise(&mut self, notice: Notice) -> bool {
        let about_writing = matches!(
            notice,
            Notice::WriteFailed { .. }
                | Notice::NotSentUnwritten { .. }
                | Notice::StoreCreateFailed { .. }
        );
        if self.write_failing && !about_writing {
            self.notice(notice);
            return false;
        }
        // A new banner replaces whatever was up, transient or not.
        self.transient_banner = false;
        tracing::info!(?notice, "banner");
        self.send(Update::Banner(notice));
        true
    }

    /// A banner about one failed attempt (a request, a restore): the next success of
    /// that kind takes it down, rather than leaving it up for the rest of the session.
    pub(super) fn transient_banner(&mut self, notice: Notice) {
        if self.raise(notice) {
            self.transient_banner = true;
        }
    }

    /// A success: take down a banner about an earlier failed attempt.
    pub(super) fn clear_transient_banner(&mut self) {
        if std::mem::take(&mut self.transient_banner) {
            self.send(Update::ClearBanner);
        }
    }

    /// A line in the transcript.
    pub(super) fn notice(&self, notice: Notice) {
        tracing::info!(?notice, "notice");
        self.send(Update::Notice(notice));
    }

    /// A new session from this one up to message `at` (the newest message by default):
    /// what waits to be written goes first, then the store copies the log's records.
    fn fork(&mut self, at: Option<MessageId>) -> Result<String, String> {
        let last = self
            .engine
            .history()
            .iter()
            .last()
            .map(|m| m.id)
            .ok_or("there are no messages to fork from yet")?;
        let at = at.unwrap_or(last);
        if self.engine.history().get(at).is_none() {
            return Err(format!(
                "there is no message {at} in this session (the last is {last})"
            ));
        }
        if self.store.unwritten() > 0 {
            let r = self.store.flush();
            self.write_result(r);
            if self.store.unwritten() > 0 {
                return Err("records still wait to be written to the log (disk full?)".into());
            }
        }
        let id = self.store.fork(at.0).map_err(|e| e.to_string())?;
        tracing::info!(fork = %id, at = at.0, "forked");
        Ok(id)
    }

    /// A command that arrived while something ran waits its turn; a message typed ahead
    /// shows as queued at once.
    pub(super) fn defer(&mut self, c: Command) {
        let typed_ahead = matches!(c, Command::Request(Request::Send { .. }));
        self.deferred.push_back(c);
        if typed_ahead {
            self.publish();
        }
    }

    /// The messages waiting to be sent, in order.
    fn queued(&self) -> Vec<String> {
        self.deferred
            .iter()
            .filter_map(|c| match c {
                Command::Request(Request::Send { text }) => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    /// Take the queued messages back out (for the input box); the rest still waits.
    pub(super) fn take_back_queued(&mut self) -> Vec<String> {
        let texts = self.queued();
        self.deferred
            .retain(|c| !matches!(c, Command::Request(Request::Send { .. })));
        if !texts.is_empty() {
            self.publish();
        }
        texts
    }

    pub(super) fn publish(&mut self) {
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
            // Kept as the background task last published it.
            background: self.view.borrow().background.clone(),
            unwritten: self.store.unwritten(),
            checkpoints: self.checkpoints.clone(),
            goals: self.goals.clone(),
            persisted: self.store.is_open(),
            tools: self.tools_state(),
            queued: self.queued(),
        };
        self.view.send_replace(Arc::new(view));
    }

    /// An engine event: what it changes on screen, then where it shows (one table,
    /// `notice::show`).
    fn on_event(&mut self, ev: EngineEvent) {
        tracing::info!(event = ev.name(), detail = ?ev, "engine");
        match &ev {
            EngineEvent::CheckpointsMerged { merged, into, .. } => self.merged(merged, *into),
            EngineEvent::CheckpointCreated { .. } => self.checkpoint_created(&ev),
            EngineEvent::SnapshotRestored { .. } => {
                self.clear_transient_banner();
                self.send_transcript();
            }
            EngineEvent::Pinned { id, pinned } => self.send(Update::Pinned {
                id: *id,
                pinned: *pinned,
            }),
            _ => {}
        }
        match show(&ev).0 {
            Place::Line => self.notice(Notice::Engine(ev.clone())),
            Place::Banner => self.banner(Notice::Engine(ev.clone())),
            Place::TransientBanner => self.transient_banner(Notice::Engine(ev.clone())),
            Place::Nowhere => {}
        }
        if let EngineEvent::CtxChanged {
            ctx,
            trained: Some(trained),
        } = &ev
        {
            self.notice(Notice::CtxAboveTrained {
                model: self.engine.model().to_string(),
                trained: *trained,
                ctx: *ctx,
            });
        }
        self.send(Update::Engine(ev));
    }
}
