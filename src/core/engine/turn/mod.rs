//! A turn: the person's message, the steps until its request fits, the reply.
//!
//! Strategy: after each answer the turn takes its next step ([`Engine::next_step`]):
//! send when the request fits — even past the trigger: nobody waits for a compression
//! the request does not need — and when it does not fit, first wait for the background
//! compression if one runs, then escalate: normal pass → emergency snapshot → clip a
//! message larger than half the room → hard (everything to ancient, only the last
//! exchange kept) → marked truncation without the model → clipping unpinned messages,
//! largest first → blocked with a reason. A message larger than the whole room is clipped
//! before the normal pass, which could not make it fit. Each step makes progress or
//! escalates, and a turn takes at most [`MAX_TURN_STEPS`], so a turn always ends.
//! Invariant: a `Chat` effect never carries a request above the hard limit.
//!
//! Compression at the trigger happens between turns: when a reply is in and the recent
//! messages reached the trigger, the engine asks for a compression in the background
//! (`CompressInBackground`) while the person reads and types. At most one runs; its
//! outcome applies when it ends unless the conversation changed other than by appends
//! (a pin, a restore: then it is dropped).
//!
//! This file holds the turn's state and its steps from the person's message to the reply;
//! `escalate.rs` the next step (and a server's overflow), `tools.rs` a reply's tool results,
//! `background.rs` the compression between turns.

use super::input::Effect;
use super::input::{NotRun, ToolAnswer};
use super::{Engine, ReplyInput};
use crate::core::compress::CompressionPlan;
use crate::core::engine::prompt::ChatPrompt;
use crate::core::events::{Blocked, CompressReason, EngineEvent};
use crate::core::goals::{Author, GoalError};
use crate::core::markers;
use crate::core::message::{ReplyStatus, Role, ToolCall};
use crate::core::record::RecordBody;
use crate::core::snapshot::Snapshot;
use crate::core::tokens::MIN_SERVER_WINDOW;
use chrono::{DateTime, Utc};

mod background;
mod escalate;
mod tools;

/// Steps (compressions, snapshots, the request) one turn may take. Each makes progress
/// or escalates, so a handful always settles; the cap guards against a bug looping.
const MAX_TURN_STEPS: u32 = 12;

/// What a turn does next.
#[derive(Debug)]
pub(super) enum Step {
    Send(ChatPrompt),
    /// Save this emergency snapshot before harder measures, then ask again.
    Snapshot(Box<Snapshot>),
    Blocked(Blocked),
}

/// The turn in progress.
#[derive(Debug, Clone, Default)]
pub(super) struct Turn {
    steps: u32,
    overflow_retried: bool,
    awaiting: Awaiting,
    /// Rounds of tool calls so far (a reply that called tools, answered by their results).
    tool_rounds: u32,
    /// Calls of the last reply still waiting for their result, in order.
    pending_calls: Vec<ToolCall>,
    /// Calls answered in this turn (tool, arguments as sent): the same again is not run.
    answered_calls: Vec<(String, String)>,
    /// The model called `task_done`: the watermark goes after its answer.
    task_done: bool,
    /// A request of this turn carried a folded picture brought back: the server's count
    /// holds what the active context does not, so the reply teaches no cost.
    pub(super) pictures_back: bool,
}

/// What the turn waits for.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) enum Awaiting {
    #[default]
    Nothing,
    Reply,
    /// The emergency snapshot with this id.
    Snapshot(String),
    /// The results of the reply's tool calls.
    Tools,
    /// The vector of the person's message (recall by meaning).
    Query,
}

impl Engine {
    pub(super) fn user_message(
        &mut self,
        text: String,
        images: Vec<crate::core::image::ImageRef>,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        if text.trim().is_empty() && images.is_empty() {
            return;
        }
        let tokens = self.tok.count(&text);
        if let Some(last) = self.history.last().filter(|m| m.role == Role::Assistant) {
            self.note_pause((now - last.ts).num_milliseconds() as f64 / 1000.0);
        }
        self.commit(
            RecordBody::User {
                text,
                pinned: false,
                tokens: Some(tokens),
                images,
            },
            now,
            fx,
        );
        fx.push(Effect::Sync);
        self.reset_escalation();
        self.start_turn(now, fx);
    }

    /// `/retry`: what waits to be written goes first (a message is sent only once it is on
    /// disk); then, when there is a message to answer, the link is checked before the
    /// request is built — the connection may have dropped with the request that failed,
    /// and connecting teaches the engine the model's window — and the turn starts when
    /// that is answered (`LinkChecked`).
    pub(super) fn retry(&mut self, fx: &mut Vec<Effect>) {
        fx.push(Effect::WriteWaiting);
        if self.last_message_unanswered() {
            fx.push(Effect::CheckLink);
        } else {
            fx.push(Effect::Event(EngineEvent::NothingToRetry));
        }
    }

    /// Answer to `CheckLink`: the reply is asked again, if the message is still unanswered.
    pub(super) fn link_checked(&mut self, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        if self.last_message_unanswered() {
            self.start_turn(now, fx);
        } else {
            fx.push(Effect::Event(EngineEvent::NothingToRetry));
        }
    }

    fn start_turn(&mut self, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        // A summary running between turns gives way: the server serves one request at a
        // time, and the person does not wait on a summary (the fold it is for is made).
        if self.background {
            self.background = false;
            fx.push(Effect::CancelBackground);
        }
        self.turn = Some(Turn::default());
        // Recall by meaning needs the message's vector before the request is built.
        if let Some(embed) = self.query_to_embed() {
            fx.push(embed);
            if let Some(turn) = &mut self.turn {
                turn.awaiting = Awaiting::Query;
            }
            return;
        }
        self.advance(now, fx);
    }

    /// The vector of the person's message came (or not): the turn goes on.
    pub(super) fn query_answered(
        &mut self,
        vector: Option<Vec<f32>>,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        if self
            .turn
            .as_ref()
            .is_some_and(|t| t.awaiting == Awaiting::Query)
        {
            self.query_embedded(vector);
            self.advance(now, fx);
        }
    }

    /// The turn's next step, as effects.
    fn advance(&mut self, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        let Some(turn) = &mut self.turn else {
            return;
        };
        if turn.steps >= MAX_TURN_STEPS {
            tracing::warn!("a turn did not settle in {MAX_TURN_STEPS} steps");
            self.end_turn();
            return;
        }
        turn.steps += 1;
        let step = self.next_step(now, fx);
        let awaiting = match step {
            Step::Send(prompt) => {
                fx.push(Effect::Chat(prompt));
                Awaiting::Reply
            }
            Step::Snapshot(snap) => {
                let id = snap.meta.id.clone();
                fx.push(Effect::SaveSnapshot(snap));
                Awaiting::Snapshot(id)
            }
            Step::Blocked(blocked) => {
                fx.push(Effect::Event(EngineEvent::Blocked(blocked)));
                self.end_turn();
                return;
            }
        };
        if let Some(turn) = &mut self.turn {
            turn.awaiting = awaiting;
        }
    }

    /// Fold now: the plan's recovery snapshot first, then the plan applied at once (a
    /// fold keeps the facts and asks no model; upkeep cuts). False when nothing was
    /// applied.
    pub(super) fn fold_now(
        &mut self,
        mut plan: Box<CompressionPlan>,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) -> bool {
        if let Some(snap) = plan.snapshot.take() {
            fx.push(Effect::SaveSnapshot(Box::new(snap)));
        }
        match plan.run_offline() {
            Ok(outcome) => {
                self.apply_compression(outcome, now, fx);
                true
            }
            Err(plan) => {
                // Every fold the engine plans is made without the model; a plan that needs
                // it here is a bug, and is not run in the turn.
                tracing::error!(what = %plan.describe(), "a fold needed the model");
                false
            }
        }
    }

    /// The turn waits for `what`: take the next step.
    pub(super) fn resume_turn_after(
        &mut self,
        what: &Awaiting,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        if self.turn.as_ref().is_some_and(|t| t.awaiting == *what) {
            self.advance(now, fx);
        }
    }

    pub(super) fn end_turn(&mut self) {
        self.turn = None;
    }

    /// Record a reply (complete or interrupted), learn from the server's token count, and
    /// pick up goal markers. An interrupted reply with no text leaves no record.
    pub(super) fn reply(&mut self, reply: ReplyInput, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        let turn = self.turn.take();
        let calls = if reply.status == ReplyStatus::Complete {
            reply.tool_calls.clone()
        } else {
            Vec::new()
        };
        // Reasoning alone is no reply: without an answer nothing is recorded.
        if reply.status == ReplyStatus::Interrupted && reply.text.trim().is_empty() {
            fx.push(Effect::Sync);
            return;
        }
        let cal = self.calibration();
        // A request with pictures is not judged by its text's calibration: what the
        // pictures cost is being learned from this very count (`pictures.rs`).
        if let Some(seen) = reply.prompt_eval_count
            && self.images_in_context().0 == 0
            && !turn.as_ref().is_some_and(|t| t.pictures_back)
            && cal.looks_truncated(reply.prompt_raw, seen, reply.prompt_eval_cached)
            && seen >= MIN_SERVER_WINDOW
        {
            fx.push(Effect::Event(EngineEvent::TruncationSuspected {
                sent: cal.apply(reply.prompt_raw),
                seen,
            }));
            self.force = Some(CompressReason::Overflow);
        }
        // The calls are part of what the model sees of its own message.
        let tokens = calls.iter().fold(self.tok.count(&reply.text), |n, c| {
            n.saturating_add(self.tok.count(&c.name))
                .saturating_add(self.tok.count(&c.args))
        });
        let text = reply.text.clone();
        let reply_id = self.commit(
            RecordBody::Assistant {
                text: reply.text,
                status: reply.status,
                model: self.settings.model.clone(),
                prompt_eval_count: reply.prompt_eval_count,
                prompt_eval_cached: reply.prompt_eval_cached,
                // A count that holds a picture brought back teaches nothing (replay sees
                // only the active context).
                prompt_estimate: (!turn.as_ref().is_some_and(|t| t.pictures_back))
                    .then_some(reply.prompt_raw),
                eval_count: reply.eval_count,
                tokens: Some(tokens),
                tool_calls: calls.clone(),
                thinking: reply.thinking,
            },
            now,
            fx,
        );
        self.apply_markers(&text, now, fx);
        fx.push(Effect::Sync);
        if !calls.is_empty() {
            let mut turn = turn.unwrap_or_default();
            if turn.tool_rounds >= self.cfg.tool_rounds {
                // Every call gets an answer, so the history the model sees stays whole.
                let rounds = turn.tool_rounds;
                for call in calls {
                    self.record_tool_result(
                        ToolAnswer::not_run(call, NotRun::RoundLimit(rounds)),
                        now,
                        fx,
                    );
                }
                fx.push(Effect::Sync);
                fx.push(Effect::Event(EngineEvent::ToolRoundsCapped { rounds }));
                return;
            }
            turn.tool_rounds += 1;
            let (repeated, fresh): (Vec<ToolCall>, Vec<ToolCall>) =
                calls.into_iter().partition(|c| {
                    turn.answered_calls
                        .iter()
                        .any(|(name, args)| *name == c.name && *args == c.args)
                });
            for call in repeated {
                self.record_tool_result(ToolAnswer::not_run(call, NotRun::Repeated), now, fx);
            }
            turn.awaiting = Awaiting::Tools;
            turn.pending_calls = fresh.clone();
            self.turn = Some(turn);
            if fresh.is_empty() {
                // Only repeats: the model is told so and asked again at once.
                fx.push(Effect::Sync);
                self.advance(now, fx);
            } else {
                fx.push(Effect::RunTools(fresh));
            }
            return;
        }
        if turn.as_ref().is_some_and(|t| t.task_done) && reply.status == ReplyStatus::Complete {
            self.watermark_at(crate::core::message::MessageId(reply_id), now, fx);
        }
        self.compress_in_background(now, fx);
    }

    /// Goal-board markers in a reply or summary: applied as the model's changes; refused
    /// ones are reported, duplicates ignored.
    pub(super) fn apply_markers(&mut self, text: &str, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
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
                Err(reason) => fx.push(Effect::Event(EngineEvent::GoalRejected { change, reason })),
            }
        }
    }
}
