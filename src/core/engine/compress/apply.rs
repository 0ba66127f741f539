//! Stage 4, apply: checkpoint, update, validate. The results of a pass become records —
//! aged checkpoints, a merge, the new checkpoint — applied like every record; a failed
//! aging or merge shortens the existing summaries without the model (marked), so the
//! number of checkpoints stays bounded whatever the summarizer does. Then the budget is
//! checked: a pass that freed too little pauses automatic compression (the back-off).

use super::super::{Backoff, Engine};
use super::pipeline::{self, Task, TaskResult, TaskTarget};
use super::{CompressionOutcome, parse_details};
use crate::core::checkpoint::{Checkpoint, CheckpointId, Level};
use crate::core::engine::input::Effect;
use crate::core::events::{EngineEvent, FailedPart, Intensity, SkipReason};
use crate::core::ledger::{self, LedgerLine};
use crate::core::message::{MessageId, Role};
use crate::core::record::RecordBody;
use crate::core::tokens::MESSAGE_OVERHEAD_TOKENS;
use chrono::{DateTime, Utc};

impl Engine {
    /// Stage 4, its first step: the checkpoint for a new fold.
    fn make_checkpoint(
        &self,
        task: &Task,
        result: &TaskResult,
        now: DateTime<Utc>,
    ) -> Option<Checkpoint> {
        let TaskTarget::New { covers, .. } = &task.target else {
            return None;
        };
        let original_tokens = covers
            .iter()
            .filter_map(|id| self.history.get(*id))
            .map(|m| m.tokens)
            .sum();
        let (key_decisions, files, next_steps) = parse_details(&result.text);
        let mut facts = self.ledger_of(covers);
        facts.extend(self.pictures_described(covers));
        Some(Checkpoint {
            id: CheckpointId(self.next_checkpoint_id),
            number: self.compressions + 1,
            level: task.level,
            summary: result.text.clone(),
            tokens: result.tokens,
            covers: covers.clone(),
            original_tokens,
            created_at: now,
            aged_at: None,
            times_compressed: 0,
            // A fold that keeps the facts only is no truncation: nothing was cut.
            truncated: result.mechanical && task.cut_from.is_none(),
            key_decisions,
            files,
            next_steps,
            facts,
            summary_asked: false,
        })
    }

    /// A folded picture leaves the request (it went with its message); what the model
    /// said about it stays, as a line of the model's (the ledger marks it so): the start
    /// of its answer to the message that carried the picture, or that it had none.
    fn pictures_described(&self, ids: &[MessageId]) -> Vec<LedgerLine> {
        let chat = &self.prompts.chat;
        let mut out = Vec::new();
        for m in ids.iter().filter_map(|id| self.history.get(*id)) {
            if m.role != Role::User || m.images.is_empty() {
                continue;
            }
            let answer = self
                .history
                .next_by(m.id, Role::Assistant)
                .filter(|a| {
                    self.history
                        .next_by(m.id, Role::User)
                        .is_none_or(|u| u.id > a.id)
                })
                .map(|a| crate::core::image::description_of(&a.text))
                .filter(|d| !d.is_empty());
            for image in &m.images {
                let text = match &answer {
                    Some(d) => self.picture_line(&chat.picture_described, image, d),
                    None => self.picture_line(&chat.picture_undescribed, image, ""),
                };
                out.push(LedgerLine {
                    text,
                    from: Some(m.id),
                    ..LedgerLine::default()
                });
            }
        }
        out
    }

    /// The ledger lines of the messages `ids`, in order, merged: the person's facts. A
    /// model's message adds its lines only when the person's next message confirms it
    /// ("yes, exactly"): its echoes add nothing and its inventions are not facts. Tool
    /// results are not what was said: a file read would fill the ledger with its
    /// identifiers and crowd out the person's facts (`recall` has them whole).
    pub(in crate::core::engine) fn ledger_of(&self, ids: &[MessageId]) -> Vec<LedgerLine> {
        let lines: Vec<LedgerLine> = ids
            .iter()
            .filter_map(|id| self.history.get(*id))
            .filter(|m| match m.role {
                Role::User => true,
                Role::Assistant => self
                    .history
                    .next_by(m.id, Role::User)
                    .is_some_and(|next| ledger::confirms(&next.text)),
                Role::Tool => false,
            })
            .flat_map(|m| {
                let lines = match m.role {
                    // A confirmed line is the person's now.
                    Role::Assistant => ledger::extract_confirmed(&m.text),
                    _ => ledger::extract(&m.text, true),
                };
                lines.into_iter().map(|l| l.said_in(m.id))
            })
            .collect();
        ledger::stored(
            ledger::merge(&lines),
            self.budget().checkpoints_budget(),
            self.tok.as_ref(),
        )
    }

    /// The outcome was planned against the conversation as it is (appends aside).
    pub(in crate::core::engine) fn outcome_current(&self, outcome: &CompressionOutcome) -> bool {
        outcome.version == self.version
    }

    /// Stage 4 whole: apply a finished compression (update) and check the budget
    /// (validate).
    pub(in crate::core::engine) fn apply_compression(
        &mut self,
        outcome: CompressionOutcome,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        self.escalation = self.escalation.max(Some(outcome.intensity));
        if let Some(ms) = outcome.elapsed_ms {
            self.speed.compression(ms);
        }
        if !self.outcome_current(&outcome) {
            fx.push(Effect::Event(EngineEvent::CompressionSkipped {
                reason: SkipReason::ConversationChanged,
            }));
            return;
        }
        if outcome.summary_only() {
            // A fold's summary between turns: no pass, nothing folded, no back-off.
            for (task, result) in &outcome.aging {
                if let TaskTarget::Summarize { id } = task.target {
                    self.apply_summary(id, result, now, fx);
                }
            }
            fx.push(Effect::Sync);
            return;
        }
        let before = self.budget();
        let dropped_before = self.ledger_dropped;
        let warned_before = self.reliability().warn;
        let mut calls = 0u32;
        self.skip_noted = false;
        if let Some((_, Err(e))) = &outcome.new {
            fx.push(Effect::Event(EngineEvent::CompressionFailed {
                part: FailedPart::Fold,
                error: e.clone(),
            }));
            return;
        }

        // A failed aging or merge shortens the existing summaries without the model:
        // leaving them as they are would let checkpoints pile up with every failure and
        // break the bound on checkpoint tokens. Nothing is lost: aging re-summarizes from the
        // originals in history next time, and the flag marks the text as a cut.
        for (task, result) in &outcome.aging {
            let TaskTarget::Age { id, from } = task.target else {
                continue;
            };
            let Some(old) = self.active.checkpoint(id).cloned() else {
                continue;
            };
            let (text, tokens, mechanical) = self.result_or_shortened(
                result,
                &[&old.summary],
                task.cap,
                FailedPart::Aging { id, to: task.level },
                &mut calls,
                fx,
            );
            // Aging never makes a checkpoint larger (a re-summary from the originals with
            // its kept facts can be): then the old text stays, cut to the level's cap if
            // it is above it.
            let (text, tokens, mechanical) = if tokens < old.tokens {
                (text, tokens, mechanical)
            } else if old.tokens <= task.cap {
                (old.summary.clone(), old.tokens, old.truncated)
            } else {
                let cut = pipeline::shorten(&[&old.summary], task.cap, self.tok.as_ref());
                let n = self.tok.count(&cut);
                (cut, n, true)
            };
            let (key_decisions, files, next_steps) = parse_details(&text);
            let aged = Checkpoint {
                // Derived on apply: the same messages as before.
                covers: Vec::new(),
                level: task.level,
                summary: text,
                tokens,
                aged_at: Some(now),
                times_compressed: old.times_compressed + 1,
                truncated: mechanical,
                key_decisions,
                files,
                next_steps,
                ..old.clone()
            };
            self.commit(RecordBody::CheckpointAged { checkpoint: aged }, now, fx);
            fx.push(Effect::Event(EngineEvent::CheckpointAged {
                id,
                from,
                to: task.level,
                tokens_before: old.tokens,
                tokens_after: tokens,
            }));
        }

        if let Some((task, result)) = &outcome.merge
            && let TaskTarget::Merge { ids } = &task.target
        {
            let parts: Vec<&Checkpoint> = self
                .active
                .checkpoints()
                .iter()
                .filter(|c| ids.contains(&c.id))
                .collect();
            if parts.len() == ids.len()
                && let Some(first) = parts.first()
            {
                let numbers: Vec<u32> = parts.iter().map(|c| c.number).collect();
                let summaries: Vec<&str> = parts.iter().map(|c| c.summary.as_str()).collect();
                let (text, tokens, mechanical) = self.result_or_shortened(
                    result,
                    &summaries,
                    task.cap,
                    FailedPart::Merge,
                    &mut calls,
                    fx,
                );
                let (key_decisions, files, next_steps) = parse_details(&text);
                let merged = Checkpoint {
                    id: CheckpointId(self.next_checkpoint_id),
                    number: first.number,
                    level: Level::Ancient,
                    summary: text,
                    tokens,
                    // Derived on apply: the union of the parts.
                    covers: Vec::new(),
                    original_tokens: parts.iter().map(|c| c.original_tokens).sum(),
                    created_at: first.created_at,
                    aged_at: Some(now),
                    times_compressed: parts.iter().map(|c| c.times_compressed).max().unwrap_or(0)
                        + 1,
                    truncated: mechanical,
                    key_decisions,
                    files,
                    next_steps,
                    // What the ledger could never show is not carried on (history keeps
                    // it, and recall finds it there).
                    facts: ledger::stored(
                        ledger::merge(parts.iter().flat_map(|c| &c.facts)),
                        self.budget().checkpoints_budget(),
                        self.tok.as_ref(),
                    ),
                    summary_asked: parts.iter().all(|c| c.summary_asked),
                };
                let into = merged.id;
                // An emergency merge is there to make room: one that would not (small
                // parts, a long truncation marker) is not applied. Normal merges always
                // apply: they keep the number of ancient checkpoints bounded.
                let parts_raw: u32 = parts
                    .iter()
                    .map(|c| self.tok.count(&self.checkpoint_entry(c)))
                    .sum();
                if outcome.intensity > Intensity::Normal
                    && self.tok.count(&self.checkpoint_entry(&merged)) >= parts_raw
                {
                    fx.push(Effect::Event(EngineEvent::CompressionSkipped {
                        reason: SkipReason::MergeFreesNothing,
                    }));
                } else {
                    self.commit(
                        RecordBody::CheckpointsMerged {
                            merged: ids.clone(),
                            checkpoint: merged,
                        },
                        now,
                        fx,
                    );
                    fx.push(Effect::Event(EngineEvent::CheckpointsMerged {
                        merged: ids.clone(),
                        numbers,
                        into,
                        tokens,
                    }));
                }
            }
        }

        let mut folded = 0;
        let mut new = match &outcome.new {
            Some((task, Ok(r))) => self.make_checkpoint(task, r, now).map(|cp| (task, r, cp)),
            _ => None,
        };
        // Validate: a checkpoint that costs as much as the messages it replaces (a tiny
        // fold, the header of a first checkpoint) would grow the request and hide their
        // text for nothing. A normal pass then backs off below, which says so once.
        if let Some((_, _, cp)) = &new
            && !self.fold_frees_room(cp)
        {
            if outcome.intensity > Intensity::Normal
                && let (Some(first), Some(last)) = (cp.covers.first(), cp.covers.last())
            {
                fx.push(Effect::Event(EngineEvent::CompressionSkipped {
                    reason: SkipReason::FoldFreesNothing {
                        messages: cp.covers.len(),
                        first: *first,
                        last: *last,
                    },
                }));
            }
            new = None;
        }
        if let Some((task, r, cp)) = new {
            calls += r.calls;
            folded = cp.covers.len();
            let number = cp.number;
            let summary = cp.summary.clone();
            fx.push(Effect::Event(EngineEvent::CheckpointCreated {
                id: cp.id,
                number,
                level: cp.level,
                tokens: cp.tokens,
                original_tokens: cp.original_tokens,
                messages: cp.covers.len(),
            }));
            self.commit(RecordBody::Checkpoint { checkpoint: cp }, now, fx);
            if let TaskTarget::New { folded_users, .. } = task.target
                && folded_users > 0
            {
                fx.push(Effect::Event(EngineEvent::UserMessagesFolded {
                    count: folded_users,
                    checkpoint: number,
                }));
            }
            self.apply_markers(&summary, now, fx);
        }

        // Validate: did it help enough?
        let after = self.budget();
        let freed = before.total().saturating_sub(after.total());
        let min_free =
            (f64::from(before.available.max(1)) * self.cfg.budget.min_free_fraction) as u32;
        self.backoff = if outcome.intensity == Intensity::Normal && freed < min_free {
            let pct = f64::from(freed) * 100.0 / f64::from(before.available.max(1));
            Some(Backoff {
                messages_raw: self.active.messages_raw(),
                freed,
                percent: pct.round() as u32,
            })
        } else {
            None
        };
        fx.push(Effect::Event(EngineEvent::Compressed {
            number: outcome.number,
            reason: outcome.reason.clone(),
            intensity: outcome.intensity,
            messages: folded,
            tokens_before: before.total(),
            tokens_after: after.total(),
            calls,
        }));
        let (dropped_user, dropped_model) = self.ledger_dropped;
        if dropped_user > dropped_before.0 || dropped_model > dropped_before.1 {
            fx.push(Effect::Event(EngineEvent::LedgerFull {
                dropped_user,
                dropped_model,
                kept: self.ledger_shown(),
            }));
        }
        // Said once, when what the request carries of the person's facts falls below the
        // mark: a measured loss, not a count of compressions.
        let rel = self.reliability();
        if rel.warn && !warned_before {
            fx.push(Effect::Event(EngineEvent::ReliabilityWarning {
                carried: rel.carried,
                stated: rel.stated,
                model: self.settings.model.clone(),
            }));
        }
        if outcome.intensity > Intensity::Normal {
            fx.push(Effect::Event(EngineEvent::RolloverComplete {
                intensity: outcome.intensity,
                tokens_after: after.total(),
            }));
        }
        fx.push(Effect::Sync);
    }

    /// Whether replacing the messages `cp` covers by `cp` makes the request smaller.
    fn fold_frees_room(&self, cp: &Checkpoint) -> bool {
        let freed: u32 = self
            .active
            .messages()
            .iter()
            .filter(|e| cp.covers.binary_search(&e.id).is_ok())
            .map(|e| e.cost())
            .sum();
        let mut cps: Vec<&Checkpoint> = self.active.checkpoints().iter().collect();
        let before = if cps.is_empty() {
            0
        } else {
            self.tok.count(&self.render_checkpoints(&cps))
        };
        cps.push(cp);
        let rendered = self.render_checkpoints(&cps);
        let mut after = self.tok.count(&rendered);
        if before == 0 && !rendered.is_empty() {
            after += MESSAGE_OVERHEAD_TOKENS;
        }
        after.saturating_sub(before) < freed
    }

    /// The text of an aging or merge: the model's result, or — when the model failed — the
    /// existing summaries shortened mechanically (marked), so checkpoints never pile up.
    fn result_or_shortened(
        &self,
        result: &Result<TaskResult, String>,
        summaries: &[&str],
        cap: u32,
        failure: FailedPart,
        calls: &mut u32,
        fx: &mut Vec<Effect>,
    ) -> (String, u32, bool) {
        match result {
            Ok(r) => {
                *calls += r.calls;
                (r.text.clone(), r.tokens, r.mechanical)
            }
            Err(e) => {
                fx.push(Effect::Event(EngineEvent::CompressionFailed {
                    part: failure,
                    error: e.clone(),
                }));
                let text = pipeline::shorten(summaries, cap, self.tok.as_ref());
                let tokens = self.tok.count(&text);
                (text, tokens, true)
            }
        }
    }

    /// Why automatic compression is paused right now, if it is.
    pub(in crate::core::engine) fn backoff_reason(&mut self) -> Option<SkipReason> {
        let b = self.budget();
        let backoff = self.backoff.as_ref()?;
        let grown = self
            .active
            .messages_raw()
            .saturating_sub(backoff.messages_raw);
        let needed = (f64::from(b.available.max(1)) * self.cfg.budget.min_free_fraction
            / self.calibration().factor) as u32;
        if grown >= needed {
            self.backoff = None;
            return None;
        }
        Some(backoff.reason())
    }
}
