//! The actor's loop and the driver of the engine: commands in, engine inputs out, the
//! engine's effects carried out.
//!
//! Strategy: one task, one `select!` over commands, the background compression, the
//! reconnect timer and the retry of unwritten records. A command becomes an engine
//! [`Input`]; the effects that come back are executed in order ([`Actor::execute`]):
//! records appended, the log synced, events shown, snapshots saved — each answered at once
//! — and the long-running requests (stream a reply, run a compression) run last, under
//! [`Actor::listen`], whose answers go back in as inputs until the turn is over. State
//! changes only through the engine.
//!
//! The [`Actor`] holds the engine and the parts of the session's state, each owned by the
//! file that runs it, its fields private there: `link` (the model server, `link.rs`), `out`
//! (what the UI gets, `publish.rs`), `inbox` (commands and those that wait, `inbox.rs`),
//! `disk` (the store, `persist.rs`), `tools` (`toolbox.rs`), `bg` (the compression between
//! turns, `background.rs`), `title` (`title.rs`) and `vectors` (recall by meaning's model
//! and the folded sentences embedded between turns, `vectors.rs`). This file hands each step the parts
//! it needs. The executors of the long-running effects are methods of the actor beside
//! this file, since they listen while they run: `reply.rs` (a chat request), `compress.rs`
//! (the background compression's outcome handed to the engine), `tools.rs` (a reply's tool
//! calls), `digest.rs` (a huge result read through), `recall.rs` (the person's message
//! embedded before its request), `connect.rs` (the server; the link checked before
//! `/retry` sends again),
//! `answers.rs` (what is answered without changing the session). A new kind of effect gets
//! its executor there and one arm in `execute`; none of those files is imported here.

use super::ActorExit;
use super::background::Background;
use super::command::Command;
use super::inbox::Inbox;
use super::link::Link;
use super::persist::Persistence;
use super::publish::{Publisher, Shown};
use super::summarizer::BackendSummarizer;
use super::title::Titler;
use super::toolbox::Toolbox;
use super::transcript;
use super::vectors::Vectors;
use crate::core::engine::{ChatPrompt, Effect, Engine, Input, Request};
use crate::core::events::EngineEvent;
use crate::core::params::ParamChange;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use crate::view::{Activity, Update};
use crate::view::{Notice, Place, show};
use chrono::Utc;
use std::future::Future;

/// A long-running request of the engine, run after the effects before it.
pub(super) enum Job {
    Chat(ChatPrompt),
    /// Run the reply's tool calls.
    Tools(Vec<crate::core::message::ToolCall>),
    /// Embed the person's message before its request (recall by meaning).
    Query {
        model: String,
        text: String,
    },
    /// Connect if the server is not connected, before a message is sent again (`/retry`).
    CheckLink,
}

/// The session: the engine and the parts of the state around it (see the module docs).
pub(crate) struct Actor<B, S> {
    pub(super) engine: Engine,
    pub(super) link: Link<B>,
    pub(super) out: Publisher,
    pub(super) inbox: Inbox,
    pub(super) disk: Persistence<S>,
    pub(super) tools: Toolbox,
    pub(super) bg: Background,
    pub(super) title: Titler,
    pub(super) describer: super::describe::Describer,
    pub(super) checker: super::check::Checker,
    pub(super) vectors: Vectors,
}

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    pub async fn run(mut self, model: Option<String>) -> ActorExit<S> {
        if let Some(name) = model.filter(|m| !m.is_empty() && m != self.engine.model()) {
            // A resumed session continues with another model: recorded like /model.
            self.apply(Input::SetModel { name });
        }
        self.out.set_activity(Activity::Idle);
        transcript::send_transcript(&self.engine, &self.out);
        if self.engine.last_message_unanswered() {
            // Resumed after a failed send or a crash before the reply: say how to go on.
            self.out.notice(Notice::Unanswered);
        }
        self.check_images();
        self.publish();
        self.connect().await;
        loop {
            let cmd = match self.inbox.pop() {
                Some(c) => c,
                None if self.inbox.closed()
                    && !self.bg.is_running()
                    && !self.vectors.is_running()
                    && !self.title.is_running()
                    && !self.describer.is_running() =>
                {
                    break;
                }
                None => {
                    let reconnect_at = self.link.reconnect_at();
                    let retry_writes = self.disk.unwritten() > 0;
                    let retry_at = self.disk.retry_at();
                    tokio::select! {
                        c = self.inbox.next() => match c {
                            Some(c) => c,
                            None => continue,
                        },
                        out = self.bg.done() => {
                            self.background_ended(out).await;
                            self.publish();
                            continue;
                        }
                        title = self.title.done() => {
                            // A rename meanwhile wins.
                            if let Some(title) = title
                                && self.disk.wants_title()
                            {
                                self.apply(Input::Titled { title });
                            }
                            continue;
                        }
                        answer = self.describer.done() => {
                            self.apply(answer);
                            continue;
                        }
                        answer = self.vectors.done() => {
                            self.vectors_ended(answer).await;
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
                        _ = tokio::time::sleep_until(retry_at), if retry_writes => {
                            self.disk.retried();
                            self.disk.sync(&mut self.out);
                            self.publish();
                            continue;
                        }
                    }
                }
            };
            if matches!(cmd, Command::Shutdown) {
                // Quitting does not wait for a compression nobody waits for; the next
                // session compresses again.
                self.bg.abort();
                self.vectors.abort();
                self.title.abort();
                self.describer.abort();
                break;
            }
            self.handle(cmd).await;
        }
        self.disk.sync(&mut self.out);
        let rescued = self.disk.rescue(&self.engine);
        self.out.send(Update::Closed);
        ActorExit {
            engine: self.engine,
            store: self.disk.into_store(),
            rescued,
        }
    }

    async fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Ask(ask) => self.answer(ask),
            Command::Request(r) => {
                if matches!(r, Request::Send { .. }) {
                    self.checker.stop();
                }
                self.feed(r.into()).await;
            }
            Command::SendInput {
                request,
                input,
                message,
                choice,
            } => {
                self.checker.stop();
                self.send_input(request, input, message, choice).await;
            }
            // Between turns, Stop can only mean the compression in the background; the
            // engine knows whether one runs.
            Command::Stop => self.feed(Input::StopBackground).await,
            Command::Shutdown => {}
            Command::Restore { id } => {
                // The state it would fold is about to be replaced.
                self.feed(Input::StopBackground).await;
                self.restore(&id).await;
            }
            Command::DeleteSnapshot { id } => self.delete_snapshot(id),
            Command::SetModel { name } => self.set_model(name).await,
            Command::Reconnect => self.connect().await,
            Command::ModelsChanged => self.models_changed().await,
            // Only meaningful while a call asks (answered in `tools.rs`).
            Command::Approve { .. } => {}
            Command::Fork { at, reply } => {
                let _ = reply.send(self.disk.fork(at, &self.engine, &mut self.out));
            }
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
                Job::Tools(calls) => self.run_tools(calls).await,
                Job::Query { model, text } => self.embed_query(model, text).await,
                Job::CheckLink => self.check_link().await,
            };
        }
        // A Stop meant for one of these steps does not reach past them.
        self.inbox.forget_stop();
        if *self.out.activity() != Activity::Idle {
            self.out.set_activity(Activity::Idle);
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
                Effect::Persist(record) => self.disk.persist(record, &self.engine, &mut self.out),
                Effect::Sync => self.disk.sync(&mut self.out),
                Effect::Event(ev) => self.on_event(ev),
                Effect::SaveSnapshot(snap) => {
                    let answer = self.disk.save_snapshot(&snap);
                    let more = self.engine.handle(answer, Utc::now());
                    if let Some(j) = self.execute(more) {
                        job = Some(j);
                    }
                }
                Effect::Chat(prompt) => job = Some(Job::Chat(prompt)),
                Effect::WriteWaiting => self.disk.flush(&mut self.out),
                Effect::CheckLink => job = Some(Job::CheckLink),
                Effect::CompressInBackground(plan) => {
                    let summarizer = self.summarizer();
                    self.bg.start(*plan, summarizer, &self.out);
                }
                Effect::CancelBackground => self.cancel_background(),
                Effect::RunTools(calls) => job = Some(Job::Tools(calls)),
                Effect::EmbedSentences(embed) => {
                    self.vectors.start(embed, self.link.backend().clone());
                }
                Effect::EmbedQuery { model, text } => job = Some(Job::Query { model, text }),
                Effect::DescribePicture {
                    from,
                    image,
                    prompt,
                    cap,
                } => {
                    let vision = self.link.vision_capable();
                    let ask = super::describe::Ask {
                        from,
                        base64: vision.then(|| self.image_base64(&image)).flatten(),
                        image,
                        model: self.engine.model().to_string(),
                        num_ctx: self.engine.ctx(),
                        // A thinking model would spend the few tokens reasoning.
                        think: self
                            .link
                            .thinking_capable()
                            .then_some(crate::llm::Think::Off),
                        prompt,
                        cap,
                    };
                    if let Some(answer) = self.describer.start(ask, vision, self.link.backend()) {
                        let more = self.engine.handle(answer, Utc::now());
                        if let Some(j) = self.execute(more) {
                            job = Some(j);
                        }
                    }
                }
                Effect::SaveResult { file, text } => self.disk.save_result(&file, &text, &self.out),
                Effect::ReduceResults(items) => {
                    let store = self.disk.store();
                    let texts = self.engine.reduce_with(items, |file| {
                        store
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
                cmd = self.inbox.next() => match cmd {
                    Some(Command::Stop) => return None,
                    // Quitting does not wait for a reply (a stalled one could take
                    // minutes): stop it, keep what arrived, then shut down.
                    Some(Command::Shutdown) => {
                        self.inbox.push_front(Command::Shutdown);
                        return None;
                    }
                    Some(c) => self.while_busy(c),
                    None => {}
                },
                out = &mut fut => return Some(out),
            }
        }
    }

    /// A command that arrived while something ran: an [`Ask`](super::command::Ask) is
    /// answered at once, any other waits its turn (a message typed ahead shows as queued
    /// at once).
    pub(super) fn while_busy(&mut self, c: Command) {
        match c {
            Command::Ask(ask) => self.answer(ask),
            c => {
                if self.inbox.defer(c) {
                    self.publish();
                }
            }
        }
    }

    /// Take the queued messages back out (for the input box); the rest still waits.
    pub(super) fn take_back_queued(&mut self) -> Vec<String> {
        let texts = self.inbox.take_back_queued();
        if !texts.is_empty() {
            self.publish();
        }
        texts
    }

    /// The summarizer of this session (see `Link::summarizer`).
    pub(super) fn summarizer(&self) -> BackendSummarizer<B> {
        self.link.summarizer(self.engine.model(), self.engine.ctx())
    }

    /// The latest state for the view, from every part that has a say.
    pub(super) fn publish(&mut self) {
        let capable = self.link.tools_capable();
        let shown = Shown {
            host: self.link.host().to_string(),
            connection: self.link.connection().clone(),
            unwritten: self.disk.unwritten(),
            persisted: self.disk.is_open(),
            tools: self.tools.state(capable),
            queued: self.inbox.queued(),
            sees_images: self.link.vision_capable(),
        };
        self.out.publish(&self.engine, shown);
    }

    /// An engine event: what it changes on screen, then where it shows (one table,
    /// `notice::show`).
    fn on_event(&mut self, ev: EngineEvent) {
        tracing::info!(event = ev.name(), detail = ?ev, "engine");
        match &ev {
            EngineEvent::CheckpointsMerged {
                merged,
                numbers,
                into,
                ..
            } => transcript::merged(&self.engine, &self.out, merged, numbers, *into),
            EngineEvent::CheckpointCreated { .. } => {
                transcript::checkpoint_created(&self.engine, &self.out, &ev)
            }
            EngineEvent::SnapshotRestored { .. } => {
                self.out.clear_transient_banner();
                transcript::send_transcript(&self.engine, &self.out);
                // The rebuilt transcript already says it (the event is kept in the log,
                // and its past notices come with the transcript): once is enough (#31).
                if self.engine.past_events().iter().any(|(_, _, e)| *e == ev) {
                    return;
                }
            }
            EngineEvent::Pinned { id, pinned } => self.out.send(Update::Pinned {
                id: *id,
                pinned: *pinned,
            }),
            // `/think`, the engine's setting, is said with what only the link knows: the
            // `think` sent from now on, and whether the model thinks at all.
            EngineEvent::ParamsChanged {
                change: ParamChange::Think(word),
            } => self.out.notice(Notice::ThinkSet {
                think: self.link.think(word.as_deref()),
                model: self.engine.model().to_string(),
                capable: self.link.thinking_capable(),
            }),
            _ => {}
        }
        match show(&ev).0 {
            Place::Line => self.out.notice(Notice::Engine(ev.clone())),
            Place::Banner => self.out.banner(Notice::Engine(ev.clone())),
            Place::TransientBanner => self.out.transient_banner(Notice::Engine(ev.clone())),
            Place::Nowhere => {}
        }
        if let EngineEvent::CtxChanged {
            ctx,
            trained: Some(trained),
        } = &ev
        {
            self.out.notice(Notice::CtxAboveTrained {
                model: self.engine.model().to_string(),
                trained: *trained,
                ctx: *ctx,
            });
        }
        self.out.send(Update::Engine(ev));
    }
}
