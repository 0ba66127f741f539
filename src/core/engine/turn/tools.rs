//! A reply's tool calls in a turn: each result recorded (shortened to its share of the
//! room when large, the whole saved first), and the turn going on once the last is in, or
//! ending when the person stops them.

use super::Awaiting;
use crate::core::engine::Engine;
use crate::core::engine::input::Effect;
use crate::core::engine::input::{NotRun, ToolAnswer};
use crate::core::message::Original;
use crate::core::record::RecordBody;
use crate::core::results;
use chrono::{DateTime, Utc};

impl Engine {
    /// A tool call's result (or why it did not run): recorded; when it was the last call
    /// of the reply, the turn goes on (the model sees the results).
    pub(in crate::core::engine) fn tool_result(
        &mut self,
        answer: ToolAnswer,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        let id = answer.call.id.clone();
        let name = answer.call.name.clone();
        let args = answer.call.args.clone();
        let done = name == crate::core::engine::TASK_DONE_TOOL && !answer.is_error;
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
    pub(in crate::core::engine) fn tools_stopped(
        &mut self,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
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
    pub(in crate::core::engine) fn result_limit(&self) -> u32 {
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
    pub(super) fn record_tool_result(
        &mut self,
        answer: ToolAnswer,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
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
}
