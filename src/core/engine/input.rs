//! The engine's one door: [`Input`]s in, [`Effect`]s out.
//!
//! Requests to the outside world (`SaveSnapshot`, `Chat`, `Compress`) are answered with
//! inputs. Order matters, and the driver keeps it:
//! - `SaveSnapshot` is answered (`SnapshotSaved` / `SnapshotFailed`) and the effects of
//!   that answer carried out before the effects after it;
//! - `Chat` is long-running and always the last effect of a batch: the driver runs it and
//!   answers when it ends;
//! - a fold is applied inside the engine at once (it asks no model); `CompressInBackground`
//!   — a fold's summary — is started where it stands and answered whenever it ends, while
//!   the person reads and types (at most one runs; `CancelBackground` stops it unanswered
//!   when the person's next message goes first, or the person stops it: `StopBackground`);
//! - `CheckLink` (before `/retry` sends again) is answered like `Chat`, with `LinkChecked`:
//!   the turn starts then;
//! - `EmbedQuery` (the vector of the message a turn answers) is answered like `Chat`: it
//!   is the last effect of its batch and the turn waits for `QueryEmbedded`;
//!   `EmbedSentences` (folded sentences' vectors) is started where it stands and answered
//!   with `SentencesEmbedded` whenever it ends, between turns.

use super::{CompressionOutcome, CompressionPlan, Engine, ReplyInput};
use crate::core::engine::prompt::ChatPrompt;
use crate::core::events::EngineEvent;
use crate::core::goals::GoalChange;
use crate::core::message::{MessageId, ToolCall};
use crate::core::mode::Mode;
use crate::core::record::{Record, RecordBody, SnapshotPurpose};
use crate::core::snapshot::{Snapshot, SnapshotMeta};
use chrono::{DateTime, Utc};

/// What the person asks of the conversation. The UI sends these to the actor as they are
/// ([`Input::Request`]); everything else an engine hears comes from the actor itself.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// The person's message: recorded before anything is sent; starts a turn.
    Send {
        text: String,
        /// Pictures attached to it, already stored by the actor (empty for most).
        images: Vec<crate::core::image::ImageRef>,
    },
    /// Ask again for the reply to the last message (after an error, or a reply that broke
    /// off); starts a turn.
    Retry,
    /// Compress now (F7, `/compress [focus]`): ignores the trigger and the back-off.
    Compress {
        focus: Option<String>,
    },
    /// A goal-board change by the person.
    Goal {
        change: GoalChange,
    },
    /// Pin or unpin a message; `None` means the latest reply.
    Pin {
        id: Option<MessageId>,
        pinned: bool,
    },
    /// `None` returns to the model's own (capped) context size.
    SetCtx {
        ctx: Option<u32>,
    },
    SetMode {
        mode: Mode,
    },
    /// The person's system prompt or a sampling parameter for this session (`/system`,
    /// `/set`).
    SetParam {
        change: crate::core::params::ParamChange,
    },
    /// Take a snapshot for the person (Ctrl+S, `/snapshot`).
    Snapshot {
        label: Option<String>,
    },
    /// The task is finished (`/done`): its tool calls and results leave the context.
    Done,
    /// Pin, reword or forget a fact of the ledger (`/facts`), by its row's key.
    Fact {
        fact: String,
        edit: crate::core::ledger::FactEdit,
    },
}

/// Something that happened: the person's requests, what the server said, and the answers
/// to the engine's requests.
#[derive(Debug)]
pub enum Input {
    Request(Request),
    /// Switch models (the actor checks with the server first).
    SetModel {
        name: String,
    },
    /// Make a snapshot's state the active state (after saving the state it leaves).
    Restore {
        snapshot: Box<Snapshot>,
    },
    /// What the server says about the model (`/api/show`, and `/api/ps` when it is
    /// loaded); not persisted.
    ModelInfo {
        context_length: Option<u32>,
        parameter_size: Option<String>,
        /// The window the model is loaded with now, if it is loaded.
        server_ctx: Option<u32>,
        /// Its capabilities include `vision`: a folded picture may be brought back.
        vision: bool,
    },
    /// The context the server loaded the model with (`/api/ps`); not persisted.
    LoadedCtx {
        ctx: Option<u32>,
    },
    /// The tools the actor can offer the model now (empty: none); not persisted. The
    /// engine decides what each request offers of them and counts their schemas.
    ToolsAvailable(Vec<super::ToolOffer>),
    /// Answer to `RunTools`, one per call, in order: a call's result or why it did not run.
    ToolResult(ToolAnswer),
    /// Answer to `RunTools`: the person stopped the calls; those not answered did not run.
    ToolsStopped,
    /// Answer to `Chat`: the reply ended (complete, or interrupted with what arrived).
    Reply(ReplyInput),
    /// Answer to `Chat`: the server refused the request as longer than its context.
    Overflow {
        message: String,
    },
    /// Answer to `Chat`: no reply (the request failed, or was stopped before it began).
    NoReply,
    /// Answer to `Compress` or `CompressInBackground`.
    Compressed(Box<CompressionOutcome>),
    /// Answer to `Compress` or `CompressInBackground`: it was stopped (by the person, or
    /// because what it would change is gone).
    CompressionStopped,
    /// The person's Stop between turns, or a restore about to replace what a compression
    /// would fold: the compression running in the background, if one does, stops
    /// (`CancelBackground`, and said). The engine alone knows whether one runs.
    StopBackground,
    /// Answer to `SaveSnapshot`.
    SnapshotSaved {
        meta: SnapshotMeta,
    },
    /// Answer to `SaveSnapshot`: it could not be written.
    SnapshotFailed {
        id: String,
        error: String,
    },
    /// Answer to `ReduceResults`: the cut-down texts (a result whose original could not
    /// be read, or that needed no cut, is left out).
    ResultsReduced(Vec<(MessageId, String)>),
    /// What makes the vectors for recall by meaning, as the driver found it (its setting
    /// and the installed models); not persisted.
    Embedder(super::Embedder),
    /// Answer to `EmbedSentences` (made by `EmbedJob::answer`): each message's sentence
    /// vectors from `model`, or why there are none.
    SentencesEmbedded {
        model: String,
        vectors: Result<super::MessageVectorList, String>,
    },
    /// The title the model wrote for the session (the actor asked for it after the first
    /// answer, and only while the session had none): kept as a `title` record.
    Titled {
        title: String,
    },
    /// Answer to `DescribePicture`: what the model said of the picture, or nothing (it
    /// cannot see pictures, the picture's file is gone, or the request failed).
    PictureDescribed {
        from: MessageId,
        hash: String,
        description: Option<String>,
    },
    /// Answer to `CheckLink`: the actor reconnected if it had to (or could not); the
    /// retried reply is asked now.
    LinkChecked,
    /// Answer to `EmbedQuery`: the vector of the person's message, or nothing (no answer
    /// in time, or an error): recall is by words alone then. (Stop answers `NoReply`.)
    QueryEmbedded(Option<Vec<f32>>),
}

/// Something the driver must carry out, in order. See the module docs. (Short-lived and
/// moved, not copied, so the record is not boxed.)
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Effect {
    /// Append this record to the session log.
    Persist(Record),
    /// A turn boundary: make the log durable (fdatasync).
    Sync,
    /// Tell the person (and the log).
    Event(EngineEvent),
    /// Write this snapshot; answer `SnapshotSaved` or `SnapshotFailed`.
    SaveSnapshot(Box<Snapshot>),
    /// Stream a reply to this request; answer `Reply`, `Overflow` or `NoReply`.
    Chat(ChatPrompt),
    /// Write the records that wait for the disk now, if any do (they are tried again now
    /// and then anyway): before a message is sent again, it must be on disk.
    WriteWaiting,
    /// Before a message is sent again (`/retry`): connect to the server if it is not
    /// connected (the link's state is the driver's); answer `LinkChecked`. Always the last
    /// effect of a batch, like `Chat`.
    CheckLink,
    /// Start this compression (a fold's summary, asked of the model between turns) and go
    /// on without waiting for it; answer `Compressed` or `CompressionStopped` when it ends.
    CompressInBackground(Box<CompressionPlan>),
    /// Stop the compression running between turns without an answer: the person's
    /// message goes first (the fold it was for is made; nothing is lost).
    CancelBackground,
    /// Run these tool calls of the last reply, in order (asking the person where the
    /// policy says so); answer `ToolResult` for each, or `ToolsStopped`.
    RunTools(Vec<ToolCall>),
    /// Save a tool result whole, under this name in the session's results directory,
    /// before the record that holds its shortened form is appended.
    SaveResult { file: String, text: String },
    /// Cut these older tool results down from their originals (`results::shorten` to
    /// each target); answer `ResultsReduced` at once.
    ReduceResults(Vec<super::Reduction>),
    /// Embed these folded sentences with the job's model, off the person's way (between
    /// turns, like a summary); answer `SentencesEmbedded` whenever it ends.
    EmbedSentences(super::EmbedJob),
    /// Embed the person's message the turn answers (`text`, its start) with `model`, for
    /// recall by meaning; answer `QueryEmbedded` within a short time limit — the request
    /// waits for it. Always the last effect of a batch, like `Chat`.
    EmbedQuery { model: String, text: String },
    /// Ask the model, with this picture, for a short description (`prompt`; at most
    /// `cap` tokens), off the person's way; answer `PictureDescribed` whenever it ends,
    /// at once when the model cannot see pictures or the picture's file is gone.
    DescribePicture {
        from: MessageId,
        image: crate::core::image::ImageRef,
        prompt: String,
        cap: u32,
    },
}

/// A tool call's outcome as the model will see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolAnswer {
    pub call: ToolCall,
    /// What the model is told: the output, or the error in words it can act on.
    pub result: String,
    pub is_error: bool,
    /// How long it ran (none when it did not run).
    pub ms: Option<u64>,
    /// The model's notes on a huge result (layer 1, see `Engine::digest_plan`): what the
    /// context gets instead of the shortened form; the result is still saved whole.
    pub digest: Option<String>,
}

/// Why a call was answered without running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotRun {
    /// The turn reached its limit of tool rounds.
    RoundLimit(u32),
    /// The person stopped the calls.
    Stopped,
    /// The same call (tool and arguments) was already answered for this message: small
    /// models repeat a call round after round instead of answering.
    Repeated,
}

impl ToolAnswer {
    pub fn not_run(call: ToolCall, why: NotRun) -> Self {
        let result = match why {
            NotRun::RoundLimit(n) => format!(
                "Not run: this message already led to {n} rounds of tool calls, the limit. \
                 Answer with what you have, or say what you would do next."
            ),
            NotRun::Stopped => "Not run: the user stopped the tool calls.".to_string(),
            NotRun::Repeated => "Not run: this exact call was already made for this message; \
                 its result is above. Answer the user with it, or call with other arguments."
                .to_string(),
        };
        ToolAnswer {
            call,
            result,
            is_error: true,
            ms: None,
            digest: None,
        }
    }
}

impl Effect {
    /// This effect asks for an answer, or starts work whose answer makes records: the
    /// records of one input go before it, so the log's seqs stay in order.
    fn asks(&self) -> bool {
        !matches!(
            self,
            Effect::Persist(_)
                | Effect::Sync
                | Effect::Event(_)
                | Effect::SaveResult { .. }
                | Effect::CancelBackground
                | Effect::WriteWaiting
        )
    }

    /// The record this effect persists, if it does.
    pub fn record(&self) -> Option<&Record> {
        match self {
            Effect::Persist(r) => Some(r),
            _ => None,
        }
    }
}

impl From<Request> for Input {
    fn from(r: Request) -> Input {
        Input::Request(r)
    }
}

impl Engine {
    /// The one way to change the engine. See the module docs for what answers what.
    pub fn handle(&mut self, input: impl Into<Input>, now: DateTime<Utc>) -> Vec<Effect> {
        let mut fx = Vec::new();
        match input.into() {
            Input::Request(r) => self.request(r, now, &mut fx),
            Input::SetModel { name } => self.set_model(name, now, &mut fx),
            Input::Restore { snapshot } => self.restore(snapshot, now, &mut fx),
            Input::ModelInfo {
                context_length,
                parameter_size,
                server_ctx,
                vision,
            } => {
                self.sees_images = vision;
                self.model_info(context_length, parameter_size.as_deref(), server_ctx)
            }
            Input::LoadedCtx { ctx } => self.loaded_ctx(ctx, &mut fx),
            Input::ToolsAvailable(offers) => self.set_tools(offers),
            Input::ToolResult(answer) => self.tool_result(answer, now, &mut fx),
            Input::ToolsStopped => self.tools_stopped(now, &mut fx),
            Input::Reply(reply) => {
                if let Some(t) = reply.timing {
                    self.speed.reply(t);
                }
                self.reply(reply, now, &mut fx)
            }
            Input::Overflow { message } => self.overflow(message, now, &mut fx),
            Input::NoReply => self.end_turn(),
            Input::Compressed(outcome) => self.compressed(*outcome, now, &mut fx),
            Input::CompressionStopped => self.compression_stopped(&mut fx),
            Input::StopBackground => self.stop_background(&mut fx),
            Input::SnapshotSaved { meta } => self.snapshot_saved(&meta, now, &mut fx),
            Input::ResultsReduced(texts) => self.results_reduced(texts, now, &mut fx),
            Input::SnapshotFailed { id, error } => self.snapshot_failed(&id, error, now, &mut fx),
            Input::Embedder(embedder) => self.set_embedder(embedder),
            Input::SentencesEmbedded { model, vectors } => {
                self.sentences_embedded(model, vectors, now, &mut fx)
            }
            Input::QueryEmbedded(vector) => self.query_answered(vector, now, &mut fx),
            Input::Titled { title } => self.titled(&title, now, &mut fx),
            Input::PictureDescribed {
                from,
                hash,
                description,
            } => self.picture_described(from, &hash, description, now, &mut fx),
            Input::LinkChecked => self.link_checked(now, &mut fx),
        }
        self.sync_ledger();
        self.refresh_offer();
        self.ask_vectors(&mut fx);
        self.ask_picture_description(&mut fx);
        defer_recovery_snapshots(&mut fx);
        self.keep_events(now, &mut fx);
        fx
    }

    /// Events the transcript shows go into the log too, so a resumed transcript can show
    /// them where they were. Their records are made last (their seqs follow every record
    /// of this input) and written before the first effect that asks for something (a
    /// snapshot, a request, a compression): the records its answer makes come after them,
    /// so the log's seqs stay in order.
    fn keep_events(&mut self, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        let kept: Vec<EngineEvent> = fx
            .iter()
            .filter_map(|e| match e {
                Effect::Event(ev) if kept_in_log(ev) => Some(ev.clone()),
                _ => None,
            })
            .collect();
        if kept.is_empty() {
            return;
        }
        // Before the first effect that asks for something: its answer (now, or after the
        // effects) makes records of its own, with later seqs.
        let at = fx.iter().position(Effect::asks).unwrap_or(fx.len());
        let mut records = Vec::new();
        for event in kept {
            self.commit(RecordBody::Event { event }, now, &mut records);
        }
        fx.splice(at..at, records);
    }
}

/// A fold is applied at once, after the recovery snapshot of the state it leaves is asked
/// for; the snapshot's answer makes records of its own. So that the log's seqs stay in
/// order, the recovery snapshots are saved after the records of this input (the snapshot
/// holds the state from before the fold, whenever it is written), just before anything
/// else that asks for an answer.
fn defer_recovery_snapshots(fx: &mut Vec<Effect>) {
    let recovery = |e: &Effect| matches!(e, Effect::SaveSnapshot(s) if s.meta.purpose == SnapshotPurpose::Recovery);
    if !fx.iter().any(recovery) {
        return;
    }
    let (snaps, rest): (Vec<Effect>, Vec<Effect>) =
        std::mem::take(fx).into_iter().partition(recovery);
    let at = rest.iter().position(Effect::asks).unwrap_or(rest.len());
    *fx = rest;
    fx.splice(at..at, snaps);
}

impl Engine {
    fn request(&mut self, request: Request, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        match request {
            Request::Send { text, images } => self.user_message(text, images, now, fx),
            Request::Retry => self.retry(fx),
            Request::Compress { focus } => self.compress_now(focus, now, fx),
            Request::Goal { change } => self.user_goal(change, now, fx),
            Request::Pin { id, pinned } => self.pin(id, pinned, now, fx),
            Request::SetCtx { ctx } => self.set_ctx(ctx, now, fx),
            Request::SetMode { mode } => self.set_mode(mode, now, fx),
            Request::SetParam { change } => self.set_param(change, now, fx),
            Request::Done => self.done(now, fx),
            Request::Fact { fact, edit } => self.edit_fact(fact, edit, now, fx),
            Request::Snapshot { label } => {
                let snap = self.make_snapshot(SnapshotPurpose::Rollback, label, now);
                fx.push(Effect::SaveSnapshot(Box::new(snap)));
            }
        }
    }
}

/// The events a resumed transcript shows: what changed the conversation or warned about
/// it. Passing states (progress, a refused input, a goal line) are not kept. Every event
/// is named here (no catch-all), so a new one does not compile until it is decided.
pub fn kept_in_log(ev: &EngineEvent) -> bool {
    match ev {
        EngineEvent::Compressed { .. }
        | EngineEvent::CheckpointCreated { .. }
        | EngineEvent::CheckpointsMerged { .. }
        | EngineEvent::CompressionFailed { .. }
        | EngineEvent::ResultsReduced { .. }
        | EngineEvent::TaskDone { .. }
        | EngineEvent::SnapshotRestored { .. }
        | EngineEvent::TruncationSuspected { .. }
        | EngineEvent::UserMessagesFolded { .. }
        | EngineEvent::MessageClipped { .. }
        | EngineEvent::OverflowPersists { .. }
        | EngineEvent::ReliabilityWarning { .. }
        | EngineEvent::Recalled { .. }
        | EngineEvent::PicturesRecalled { .. }
        | EngineEvent::LedgerFull { .. }
        | EngineEvent::SummariesOff { .. } => true,
        EngineEvent::CompressionSkipped { .. }
        | EngineEvent::FactEdited { .. }
        | EngineEvent::NotCompressed { .. }
        | EngineEvent::CompressionStopped { .. }
        | EngineEvent::ToolRoundsCapped { .. }
        | EngineEvent::RolloverComplete { .. }
        | EngineEvent::CheckpointAged { .. }
        | EngineEvent::SnapshotCreated { .. }
        | EngineEvent::AutoSnapshotCreated { .. }
        | EngineEvent::SnapshotError { .. }
        | EngineEvent::RestoreNotSaved { .. }
        | EngineEvent::Blocked(_)
        | EngineEvent::GoalUpdated { .. }
        | EngineEvent::GoalRejected { .. }
        | EngineEvent::Pinned { .. }
        | EngineEvent::NothingToRetry
        | EngineEvent::ModeChanged { .. }
        | EngineEvent::CtxChanged { .. }
        | EngineEvent::ParamsChanged { .. }
        | EngineEvent::LoadedCtxSmaller { .. }
        | EngineEvent::Refused { .. }
        | EngineEvent::SummaryRejected { .. } => false,
    }
}
