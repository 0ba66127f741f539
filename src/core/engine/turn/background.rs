//! The compression between turns: started when a reply leaves the recent messages at the
//! trigger (older tool results cut down first), its outcome applied unless the
//! conversation changed meanwhile, and stopped by Stop, a restore or the person's next
//! message. The engine alone knows whether one runs.

use crate::core::engine::Engine;
use crate::core::engine::input::Effect;
use crate::core::events::{CompressReason, EngineEvent, Intensity};
use chrono::{DateTime, Utc};

impl Engine {
    /// Between turns: when the recent messages reached the trigger, start a compression
    /// that runs while the person reads and types (one at a time; not while automatic
    /// compression backs off).
    pub(in crate::core::engine) fn compress_in_background(
        &mut self,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
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

    pub(in crate::core::engine) fn compressed(
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
    pub(in crate::core::engine) fn stop_background(&mut self, fx: &mut Vec<Effect>) {
        if self.background {
            fx.push(Effect::CancelBackground);
            self.compression_stopped(fx);
        }
    }

    pub(in crate::core::engine) fn compression_stopped(&mut self, fx: &mut Vec<Effect>) {
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
}
