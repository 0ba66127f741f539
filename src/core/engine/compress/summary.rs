//! A fold's summary, asked between turns and kept only if it earns its place.
//!
//! A fold is made at once and keeps the folded messages' facts in the ledger; it asks no
//! model. A summary of the span may follow, between turns, from the originals — the
//! narrative around the facts, which a capable model writes well — when:
//! - summaries are on for this session: the model's have not failed the check twice
//!   (then folding keeps the facts only, and the transcript says so once);
//! - the server can afford it: compression stays within its share of the server's busy
//!   time (`core::speed`), and the call would end within the person's usual pause between
//!   a reply and their next message, so they never wait on it (a message sent while it
//!   runs stops it: the server serves one request at a time).
//!
//! The summary is cleaned of lines that repeat the goal board or ask questions, then
//! checked against the span's facts (`core::summary_check`): one that carries fewer than
//! the facts would is left out, and the fold keeps its facts only.

use super::super::Engine;
use super::pipeline::{self, Piece, Task, TaskResult, TaskTarget};
use super::{CompressionPlan, format_message, range_label};
use crate::core::checkpoint::{Checkpoint, CheckpointId, Level};
use crate::core::engine::input::Effect;
use crate::core::events::{CompressReason, EngineEvent, Intensity};
use crate::core::record::RecordBody;
use crate::core::summary_check;
use chrono::{DateTime, Utc};

/// Summaries that failed the check after which none is asked again in the session (when
/// none passed as often).
const REJECTIONS_BEFORE_OFF: u32 = 2;
/// A fold smaller than this (raw tokens) is not worth a summary of its own.
const MIN_SUMMARY_INPUT: u32 = 96;
/// A summary may take this share of what it stands for.
const SUMMARY_SHARE: f64 = 0.3;
/// Pauses of the person's remembered (seconds between a reply and their next message).
const PAUSES: usize = 8;

/// How the model's summaries fared in this session (from the log).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SummaryVerdicts {
    pub kept: u32,
    pub rejected: u32,
}

/// The engine's part for summaries between turns: how the model's summaries fared (from
/// the log) and the person's last pauses between a reply and their next message, in
/// seconds (runtime only), which a summary must fit in.
#[derive(Debug, Clone, Default)]
pub(in crate::core::engine) struct Summaries {
    verdicts: SummaryVerdicts,
    pauses: Vec<f64>,
}

impl Summaries {
    /// A summary was checked: kept, or rejected (recorded empty).
    pub fn judged(&mut self, kept: bool) {
        if kept {
            self.verdicts.kept += 1;
        } else {
            self.verdicts.rejected += 1;
        }
    }
}

impl Engine {
    /// The model is still asked for summaries of folds in this session.
    pub fn summaries_on(&self) -> bool {
        let v = self.summaries.verdicts;
        !(v.rejected >= REJECTIONS_BEFORE_OFF && v.rejected > v.kept)
    }

    /// How the model's summaries fared so far.
    pub fn summary_verdicts(&self) -> SummaryVerdicts {
        self.summaries.verdicts
    }

    /// The person sent a message `secs` after the last reply: their pause, which a
    /// summary between turns must fit in.
    pub(in crate::core::engine) fn note_pause(&mut self, secs: f64) {
        let pauses = &mut self.summaries.pauses;
        if secs.is_finite() && secs >= 0.0 {
            if pauses.len() >= PAUSES {
                pauses.remove(0);
            }
            pauses.push(secs);
        }
    }

    /// The person's usual pause (the median of the last few), once one is known.
    fn usual_pause(&self) -> Option<f64> {
        let mut p = self.summaries.pauses.clone();
        if p.is_empty() {
            return None;
        }
        p.sort_by(f64::total_cmp);
        Some(p[p.len() / 2])
    }

    /// Between turns: ask for the summary of the newest fold without one, when the rules of
    /// the module docs allow it (`manual`: the person asked to compress, so their pause is
    /// not in question).
    pub(in crate::core::engine) fn summarize_in_background(
        &mut self,
        manual: bool,
        focus: &str,
        fx: &mut Vec<Effect>,
    ) {
        if self.background || self.turn.is_some() || !self.summaries_on() {
            return;
        }
        let Some(cp) = self
            .active
            .checkpoints()
            .iter()
            .rev()
            .find(|c| c.summary.is_empty() && !c.summary_asked && !c.covers.is_empty())
        else {
            return;
        };
        if cp.original_tokens < MIN_SUMMARY_INPUT {
            return;
        }
        let task = self.summary_task(&cp.clone(), focus);
        let secs = self
            .speed
            .seconds_for(self.calibration().apply(task.input_raw), task.cap);
        let in_pause = match (secs, self.usual_pause()) {
            (Some(s), Some(p)) => manual || s <= p,
            // Unknown: one try teaches the speed.
            _ => true,
        };
        if !in_pause || !self.speed.affords(secs.unwrap_or(0.0)) {
            tracing::debug!(?secs, pause = ?self.usual_pause(), "no summary: the server cannot afford it now");
            return;
        }
        let b = self.budget();
        self.background = true;
        fx.push(Effect::CompressInBackground(Box::new(CompressionPlan {
            reason: CompressReason::Auto,
            intensity: Intensity::Normal,
            snapshot: None,
            number: self.compressions,
            tokens_before: b.total(),
            version: self.version,
            new: None,
            aging: vec![task],
            merge: None,
            tok: self.tok.clone(),
            prompts: self.prompts.clone(),
        })));
    }

    /// The summary of checkpoint `cp` from its originals, capped at a share of them.
    fn summary_task(&self, cp: &Checkpoint, focus: &str) -> Task {
        let b = self.budget();
        let level = Level::Detailed;
        let cap = ((f64::from(cp.original_tokens) * SUMMARY_SHARE) as u32)
            .clamp(32, b.level_cap(level).max(32));
        let window = self.summary_window(&self.summary_system(level, cap), &self.goal_block(), cap);
        let pieces: Vec<Piece> = cp
            .covers
            .iter()
            .filter_map(|id| self.history.get(*id))
            .flat_map(|m| pipeline::split_piece(&format_message(m), window, self.tok.as_ref()))
            .collect();
        self.task(
            TaskTarget::Summarize { id: cp.id },
            level,
            cap,
            pieces,
            None,
            range_label(&cp.covers),
            false,
            focus,
        )
    }

    /// A summary came back for checkpoint `id`: cleaned, checked against the span's facts,
    /// recorded (empty when it did not earn its place).
    pub(in crate::core::engine) fn apply_summary(
        &mut self,
        id: CheckpointId,
        result: &Result<TaskResult, String>,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        let Some(cp) = self.active.checkpoint(id).cloned() else {
            return;
        };
        let text = match result {
            Ok(r) => r.text.clone(),
            Err(e) => {
                tracing::info!(error = %e, "the summary of a fold failed; it keeps its facts");
                return;
            }
        };
        let protected = self.goals.protected_texts();
        let protected: Vec<&str> = protected.iter().map(String::as_str).collect();
        let cleaned = summary_check::clean(&text, &protected);
        let facts = self.ledger_of(&cp.covers);
        let verdict = summary_check::check(&cleaned, &facts);
        let keep = verdict.earns_its_place() && !cleaned.is_empty();
        let was_on = self.summaries_on();
        let summary = if keep { cleaned } else { String::new() };
        let tokens = self.tok.count(&summary);
        let (carried, total) = (
            u32::try_from(verdict.carried).unwrap_or(u32::MAX),
            u32::try_from(verdict.facts).unwrap_or(u32::MAX),
        );
        self.commit(
            RecordBody::CheckpointSummarized {
                id,
                summary,
                tokens,
                carried,
                facts: total,
            },
            now,
            fx,
        );
        if !keep {
            fx.push(Effect::Event(EngineEvent::SummaryRejected {
                number: cp.number,
                carried,
                facts: total,
            }));
        }
        if was_on && !self.summaries_on() {
            fx.push(Effect::Event(EngineEvent::SummariesOff {
                model: self.settings.model.clone(),
                rejected: self.summaries.verdicts.rejected,
            }));
        }
    }
}
