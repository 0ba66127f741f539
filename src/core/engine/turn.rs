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

use super::input::Effect;
use super::input::{NotRun, ToolAnswer};
use super::{Engine, ReplyInput};
use crate::core::compress::CompressionPlan;
use crate::core::engine::prompt::ChatPrompt;
use crate::core::events::{Blocked, CompressReason, EngineEvent, Intensity};
use crate::core::goals::{Author, GoalError};
use crate::core::markers;
use crate::core::message::{Original, ReplyStatus, Role, ToolCall};
use crate::core::record::RecordBody;
use crate::core::results;
use crate::core::snapshot::Snapshot;
use crate::core::tokens::MIN_SERVER_WINDOW;
use chrono::{DateTime, Utc};

/// Steps (compressions, snapshots, the request) one turn may take. Each makes progress
/// or escalates, so a handful always settles; the cap guards against a bug looping.
const MAX_TURN_STEPS: u32 = 12;

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

/// What a turn does next.
#[derive(Debug)]
pub(super) enum Step {
    Send(ChatPrompt),
    /// Save this emergency snapshot before harder measures, then ask again.
    Snapshot(Box<Snapshot>),
    Blocked(Blocked),
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

    pub(super) fn retry(&mut self, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
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
                prompt_estimate: Some(reply.prompt_raw),
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

    /// A tool call's result (or why it did not run): recorded; when it was the last call
    /// of the reply, the turn goes on (the model sees the results).
    pub(super) fn tool_result(
        &mut self,
        answer: ToolAnswer,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        let id = answer.call.id.clone();
        let name = answer.call.name.clone();
        let args = answer.call.args.clone();
        let done = name == super::TASK_DONE_TOOL && !answer.is_error;
        self.record_tool_result(answer, now, fx);
        let Some(turn) = &mut self.turn else {
            return;
        };
        turn.task_done |= done;
        turn.answered_calls.push((name.clone(), args));
        if let Some(i) = turn
            .pending_calls
            .iter()
            .position(|c| c.id == id && c.name == name)
        {
            turn.pending_calls.remove(i);
        }
        if turn.pending_calls.is_empty() && turn.awaiting == Awaiting::Tools {
            fx.push(Effect::Sync);
            self.advance(now, fx);
        }
    }

    /// The person stopped the tool calls: the ones not yet answered are recorded as not
    /// run, and the turn ends (nothing is sent until the person speaks or retries).
    pub(super) fn tools_stopped(&mut self, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        let Some(turn) = self.turn.take() else {
            return;
        };
        for call in turn.pending_calls {
            self.record_tool_result(ToolAnswer::not_run(call, NotRun::Stopped), now, fx);
        }
        fx.push(Effect::Sync);
    }

    /// The tokens the next tool result may take: its share of the room (a quarter), or,
    /// when less, an equal part of what is left for the results still to come in this
    /// reply. The running exchange cannot be folded, nor the summaries and the ledger
    /// removed: only the older messages can make room (folding them adds a summary), so
    /// the results must fit beside the rest.
    pub(super) fn result_limit(&self) -> u32 {
        let b = self.budget();
        let cal = self.calibration();
        let msgs = self.active.messages();
        let start = msgs
            .iter()
            .rposition(|e| e.role == crate::core::message::Role::User)
            .unwrap_or(0);
        let foldable_raw: u32 = msgs[..start].iter().map(|e| e.cost()).sum();
        let foldable = cal.apply(foldable_raw).min(b.total());
        let new_summary = if foldable > 0 {
            b.level_cap(crate::core::checkpoint::Level::Detailed)
        } else {
            0
        };
        let fixed = b.total() - foldable + new_summary;
        let left = b.hard_limit().saturating_sub(fixed);
        let calls = self
            .turn
            .as_ref()
            .map_or(1, |t| t.pending_calls.len().max(1));
        let overhead = crate::core::tokens::MESSAGE_OVERHEAD_TOKENS;
        // A tenth spare: the estimate is calibrated, not exact.
        let share = (left - left / 10) / calls as u32;
        results::limit_for(b.room(), share.saturating_sub(overhead))
    }

    /// Record a result: whole when it fits its share of the context (or is an error, or
    /// the person keeps results whole); else saved whole first, then recorded as its
    /// shortened form, which names the record's own id for `recall`.
    fn record_tool_result(&mut self, answer: ToolAnswer, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        let id = self.next_seq;
        let usable = !answer.is_error && !self.cfg.whole_results;
        let limit = self.result_limit();
        // The model's notes when they came and fit (they were planned for this limit);
        // else the kind-aware shortening.
        let digest = answer
            .digest
            .filter(|d| usable && self.tok.count(d) <= limit);
        let short = match digest {
            Some(text) => Some((text, true)),
            None => usable
                .then(|| {
                    results::shorten(
                        &answer.call.name,
                        &answer.result,
                        limit,
                        id,
                        self.tok.as_ref(),
                    )
                })
                .flatten()
                .map(|s| (s.text, false)),
        };
        let (result, original) = match short {
            Some((text, summarized)) => {
                let file = format!("{id}.txt");
                let original = Original {
                    file: file.clone(),
                    chars: answer.result.chars().count() as u64,
                    summarized,
                };
                fx.push(Effect::SaveResult {
                    file,
                    text: answer.result,
                });
                (text, Some(original))
            }
            None => (answer.result, None),
        };
        let tokens = self.tok.count(&result);
        self.commit(
            RecordBody::Tool {
                name: answer.call.name,
                args: answer.call.args,
                result,
                is_error: answer.is_error,
                tokens: Some(tokens),
                call_id: (!answer.call.id.is_empty()).then_some(answer.call.id),
                ms: answer.ms,
                original,
            },
            now,
            fx,
        );
    }

    /// Between turns: when the recent messages reached the trigger, start a compression
    /// that runs while the person reads and types (one at a time; not while automatic
    /// compression backs off).
    pub(super) fn compress_in_background(&mut self, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        if self.background || self.turn.is_some() {
            return;
        }
        // Older tool results go first, from their originals; the fold only after.
        if !self.reduce_tried && (self.force.is_some() || self.budget().over_trigger()) {
            let items = self.reducible_results();
            if !items.is_empty() {
                fx.push(Effect::ReduceResults(items));
                return;
            }
        }
        // A pass the next request must have (the server cut the last one) goes first.
        let reason = match self.force.take() {
            Some(forced) => forced,
            None if !self.budget().over_trigger() => return,
            None => {
                if let Some(why) = self.backoff_reason() {
                    tracing::debug!(?why, "no background compression");
                    return;
                }
                CompressReason::Auto
            }
        };
        match self.plan(reason, Intensity::Normal, now) {
            Ok(plan) => {
                if self.fold_now(plan, now, fx) {
                    self.summarize_in_background(false, "", fx);
                }
            }
            Err(why) => {
                if !self.skip_noted {
                    self.skip_noted = true;
                    fx.push(Effect::Event(EngineEvent::CompressionSkipped {
                        reason: why,
                    }));
                }
            }
        }
    }

    /// The server refused a request as longer than its context (HTTP 400): compress
    /// before one retry, even if our estimate says it fits.
    pub(super) fn overflow(&mut self, message: String, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        let Some(turn) = &mut self.turn else {
            return;
        };
        if turn.overflow_retried {
            fx.push(Effect::Event(EngineEvent::OverflowPersists { message }));
            self.end_turn();
            return;
        }
        tracing::warn!(%message, "context overflow; compressing and retrying once");
        turn.overflow_retried = true;
        self.force = Some(CompressReason::Overflow);
        self.advance(now, fx);
    }

    pub(super) fn compressed(
        &mut self,
        outcome: crate::core::compress::CompressionOutcome,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        let background = std::mem::take(&mut self.background);
        if background && !self.outcome_current(&outcome) {
            // Planned before a pin or a restore: what it would fold is no longer what the
            // conversation holds. Nobody asked for it, so nobody is told.
            tracing::info!("background compression dropped: the conversation changed");
        } else {
            self.apply_compression(outcome, now, fx);
        }
    }

    /// Stop (or a restore) between turns: the compression in the background, if one runs,
    /// is cancelled and ends as a stopped one.
    pub(super) fn stop_background(&mut self, fx: &mut Vec<Effect>) {
        if self.background {
            fx.push(Effect::CancelBackground);
            self.compression_stopped(fx);
        }
    }

    pub(super) fn compression_stopped(&mut self, fx: &mut Vec<Effect>) {
        self.background = false;
        let unsent = self.turn.is_some();
        if unsent {
            // Forget the escalation state of the abandoned turn.
            self.reset_escalation();
            self.force = None;
            self.end_turn();
        }
        fx.push(Effect::Event(EngineEvent::CompressionStopped { unsent }));
    }

    pub(super) fn reset_escalation(&mut self) {
        self.escalation = None;
        self.emergency_snapshot_taken = false;
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

    /// The next thing to do in a turn. See the module docs.
    fn next_step(&mut self, now: DateTime<Utc>, fx: &mut Vec<Effect>) -> Step {
        self.refresh_offer();
        self.sync_ledger();
        if let Some(reason) = self.force.take()
            && self.escalation.is_none()
        {
            match self.plan(reason, Intensity::Normal, now) {
                Ok(plan) => {
                    self.fold_now(plan, now, fx);
                }
                Err(reason) => fx.push(Effect::Event(EngineEvent::CompressionSkipped { reason })),
            }
        }
        loop {
            self.sync_ledger();
            let b = self.budget();
            // Room for recall is made by a normal fold when one can be made; it never
            // blocks a request that fits without it.
            if b.fits() && !b.fits_with_recall() && self.escalation.is_none() {
                if let Ok(plan) = self.plan(CompressReason::Auto, Intensity::Normal, now) {
                    self.fold_now(plan, now, fx);
                }
                self.escalation = Some(Intensity::Normal);
                continue;
            }
            if b.fits() {
                // Past the trigger the request still goes now: the compression follows
                // the reply, in the background.
                if b.over_trigger() && self.escalation.is_none() && !self.background {
                    if let Some(why) = self.backoff_reason()
                        && !self.skip_noted
                    {
                        // Say it once, not every turn, until something changes.
                        self.skip_noted = true;
                        fx.push(Effect::Event(EngineEvent::CompressionSkipped {
                            reason: why,
                        }));
                    }
                } else if !b.over_trigger() {
                    self.skip_noted = false;
                }
                self.reset_escalation();
                let prompt = self.prompt();
                debug_assert!(prompt.estimate <= b.hard_limit());
                if !prompt.recalled.is_empty() {
                    fx.push(Effect::Event(EngineEvent::Recalled {
                        lines: prompt.recalled.clone(),
                    }));
                }
                return Step::Send(prompt);
            }
            // Over the hard limit. If one message alone is larger than the whole room, no
            // folding can make it fit: snapshot and clip it first, then go on as usual.
            if self.escalation.is_none() && self.unfittable_message() {
                if let Some(step) = self.emergency_snapshot(now) {
                    return step;
                }
                if self.clip_oversized(now, fx) {
                    continue;
                }
            }
            // Then the normal pass, as at the trigger.
            if self.escalation.is_none() {
                let applied = match self.plan(CompressReason::Auto, Intensity::Normal, now) {
                    Ok(plan) => self.fold_now(plan, now, fx),
                    Err(_) => false,
                };
                self.escalation = self.escalation.max(Some(Intensity::Normal));
                if applied {
                    continue;
                }
            }
            // From here on it is an emergency: snapshot the state first, once.
            if let Some(step) = self.emergency_snapshot(now) {
                return step;
            }
            // A message larger than half the room can never be sent whole: showing it cut
            // down loses less than folding all history harder.
            if self.clip_oversized(now, fx) {
                continue;
            }
            // Go harder until it fits.
            let mut next = Intensity::after(self.escalation);
            let mut folded = false;
            while let Some(intensity) = next {
                let applied = match self.plan(CompressReason::Emergency, intensity, now) {
                    Ok(plan) => self.fold_now(plan, now, fx),
                    Err(_) => false,
                };
                self.escalation = self.escalation.max(Some(intensity));
                if applied {
                    folded = true;
                    break;
                }
                next = Intensity::after(Some(intensity));
            }
            if folded {
                continue;
            }
            if !self.clip_largest(now, fx) {
                self.reset_escalation();
                return Step::Blocked(self.blocked());
            }
        }
    }
}
