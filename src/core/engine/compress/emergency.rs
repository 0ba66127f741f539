//! The emergency measures a turn escalates to when its request does not fit: the
//! emergency snapshot (once per turn), clipping a message the model is shown cut down
//! (history keeps it whole; always reported), and — when nothing helps — the report of
//! what takes the room.

use super::super::Engine;
use super::super::turn::Step;
use crate::core::engine::input::Effect;
use crate::core::events::{Blocked, EngineEvent};
use crate::core::message::MessageId;
use crate::core::record::{Clip, RecordBody, SnapshotPurpose};
use chrono::{DateTime, Utc};

/// Tokens of head and tail an emergency clip keeps at least (enough to see what it was).
const CLIP_KEEP_MIN_TOKENS: u32 = 48;
/// Tokens a clip must save to be worth a record (and so that clipping always progresses).
const CLIP_GAIN: u32 = 16;

impl Engine {
    /// Last resort: show the largest unpinned, non-error message cut down — by enough to
    /// fit if it can absorb the whole overage, else to a short head and tail, so that the
    /// caller clips the next largest (a clipped message may be clipped further). Returns
    /// false, clipping nothing, when even clipping every candidate could not make it fit.
    pub(in crate::core::engine) fn clip_largest(
        &mut self,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) -> bool {
        let b = self.budget();
        let factor = self.calibration().factor;
        let over_raw =
            (f64::from(b.total().saturating_sub(b.hard_limit())) / factor).ceil() as u32 + 16;
        let marker = self.tok.count(&crate::core::context::clipped_text(
            "ab",
            Some(&Clip {
                id: MessageId(0),
                head_chars: 1,
                tail_chars: 0,
                omitted_tokens: 99_999,
            }),
        ));
        // What a clip down to the minimum still shows; a clip must gain at least CLIP_GAIN.
        let floor = CLIP_KEEP_MIN_TOKENS + marker;
        let candidates = || {
            self.active
                .messages()
                .iter()
                .filter(move |e| !e.pinned && !e.tool_error && e.tokens > floor + CLIP_GAIN)
        };
        let gain: u32 = candidates().map(|e| e.tokens - floor).sum();
        if gain < over_raw {
            return false;
        }
        let Some(entry) = candidates().max_by_key(|e| e.tokens).cloned() else {
            return false;
        };
        let Some(full) = self.history.get(entry.id).map(|m| m.tokens.max(1)) else {
            return false;
        };
        let mut keep_tokens = entry
            .tokens
            .saturating_sub(over_raw + marker)
            .clamp(CLIP_KEEP_MIN_TOKENS, full);
        loop {
            let Some((clip, shown)) = self.clip_of(entry.id, keep_tokens) else {
                return false;
            };
            let at_floor = keep_tokens <= CLIP_KEEP_MIN_TOKENS;
            if shown + CLIP_GAIN <= entry.tokens && (shown + over_raw <= entry.tokens || at_floor) {
                self.commit(RecordBody::Clip { clip }, now, fx);
                fx.push(Effect::Event(self.clipped(
                    entry.id,
                    clip.omitted_tokens,
                    full,
                )));
                return true;
            }
            if at_floor {
                return false;
            }
            keep_tokens = (keep_tokens * 3 / 4).max(CLIP_KEEP_MIN_TOKENS);
        }
    }

    /// A clip of message `id` keeping about `keep_tokens`, two thirds from the start and
    /// one third from the end; with the tokens it then shows.
    ///
    /// A message's pictures are counted in what it shows, since a clip cuts only text: a
    /// picture that alone outweighed the room was clipped again and again, each clip
    /// "saving" the picture's tokens, until memory ran out.
    fn clip_of(&self, id: MessageId, keep_tokens: u32) -> Option<(Clip, u32)> {
        let m = self.history.get(id)?;
        let pictures = self.images_counted(id, m.images.len());
        let text = m.text.as_str();
        let full = m.tokens.saturating_sub(pictures).max(1);
        let keep_text = keep_tokens.saturating_sub(pictures).min(full);
        let chars = text.chars().count();
        let keep_chars = (chars as u64 * u64::from(keep_text) / u64::from(full)) as usize;
        let clip = Clip {
            id,
            head_chars: keep_chars * 2 / 3,
            tail_chars: keep_chars / 3,
            omitted_tokens: full.saturating_sub(keep_text),
        };
        let shown = self
            .tok
            .count(&crate::core::context::clipped_text(text, Some(&clip)))
            .saturating_add(pictures);
        Some((clip, shown))
    }

    /// The emergency snapshot of this turn, unless it was taken already.
    pub(in crate::core::engine) fn emergency_snapshot(
        &mut self,
        now: DateTime<Utc>,
    ) -> Option<Step> {
        if self.emergency_snapshot_taken {
            return None;
        }
        self.emergency_snapshot_taken = true;
        let snapshot = self.make_snapshot(SnapshotPurpose::Emergency, None, now);
        Some(Step::Snapshot(Box::new(snapshot)))
    }

    /// Whether an unpinned, non-error message alone takes more than the room for
    /// checkpoints and messages together (a giant paste).
    pub(in crate::core::engine) fn unfittable_message(&self) -> bool {
        let b = self.budget();
        let room = (f64::from(b.room()) / self.calibration().factor) as u32;
        self.active
            .messages()
            .iter()
            .any(|e| !e.pinned && !e.tool_error && e.tokens > room)
    }

    /// Clip one unpinned, non-error message that alone takes more than half the room (a
    /// runaway reply, a giant paste) down to a quarter of the room. Returns whether it did.
    pub(in crate::core::engine) fn clip_oversized(
        &mut self,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) -> bool {
        let b = self.budget();
        let factor = self.calibration().factor;
        let half_room = (f64::from(b.room() / 2) / factor) as u32;
        let Some(entry) = self
            .active
            .messages()
            .iter()
            .filter(|e| !e.pinned && !e.tool_error && e.tokens > half_room)
            .max_by_key(|e| e.tokens)
            .cloned()
        else {
            return false;
        };
        let Some(full) = self.history.get(entry.id).map(|m| m.tokens.max(1)) else {
            return false;
        };
        let keep = (half_room / 2).max(CLIP_KEEP_MIN_TOKENS).min(full);
        let Some((clip, shown)) = self.clip_of(entry.id, keep) else {
            return false;
        };
        if shown + CLIP_GAIN > entry.tokens {
            return false;
        }
        self.commit(RecordBody::Clip { clip }, now, fx);
        fx.push(Effect::Event(self.clipped(
            entry.id,
            clip.omitted_tokens,
            full,
        )));
        true
    }

    /// A clip said with what the model saw of the whole, and the window that would send
    /// it whole: the window plus what was cut (as the server counts), doubled up to a
    /// size servers use — what a person piping a file needs to run it again.
    fn clipped(&self, id: MessageId, omitted_tokens: u32, total_tokens: u32) -> EngineEvent {
        let omitted = (f64::from(omitted_tokens) * self.calibration().factor).ceil() as u32;
        let fits_ctx = self
            .ctx()
            .checked_add(omitted)
            .and_then(u32::checked_next_power_of_two);
        EngineEvent::MessageClipped {
            id,
            omitted_tokens,
            total_tokens,
            fits_ctx,
        }
    }

    /// What takes the room when nothing can make the request fit.
    pub(in crate::core::engine) fn blocked(&self) -> Blocked {
        let b = self.budget();
        let pinned: u32 = self
            .active
            .messages()
            .iter()
            .filter(|e| e.pinned)
            .map(|e| e.cost())
            .sum();
        Blocked {
            needed: b.total(),
            ctx: b.ctx,
            reserve: b.reserve,
            system: b.system,
            goals: b.goals,
            summaries: b.checkpoints,
            pinned: self.calibration().apply(pinned),
        }
    }
}
