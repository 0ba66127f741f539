//! The next step of a turn (see the module docs of `turn`): send when the request fits;
//! else wait for the background compression, then escalate — fold, emergency snapshot,
//! clip, hard fold, marked truncation, clip unpinned — until it fits or is blocked; and a
//! server's overflow, answered by compressing before one retry.

use super::Step;
use crate::core::engine::Engine;
use crate::core::engine::input::Effect;
use crate::core::events::{CompressReason, EngineEvent, Intensity};
use chrono::{DateTime, Utc};

impl Engine {
    /// The server refused a request as longer than its context (HTTP 400): compress
    /// before one retry, even if our estimate says it fits.
    pub(in crate::core::engine) fn overflow(
        &mut self,
        message: String,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
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

    pub(in crate::core::engine) fn reset_escalation(&mut self) {
        self.escalation = None;
        self.emergency_snapshot_taken = false;
    }

    /// The next thing to do in a turn. See the module docs.
    pub(super) fn next_step(&mut self, now: DateTime<Utc>, fx: &mut Vec<Effect>) -> Step {
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
                if !prompt.pictures_back.is_empty() {
                    if let Some(t) = self.turn.as_mut() {
                        t.pictures_back = true;
                    }
                    fx.push(Effect::Event(EngineEvent::PicturesRecalled {
                        names: prompt
                            .pictures_back
                            .iter()
                            .map(|i| i.name.clone())
                            .collect(),
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
