//! Stage 1, identify: what a pass folds. The last exchange is always kept; the recent
//! window is kept at a normal pass; pinned messages and tool errors are never folded; the
//! person's own messages only when keeping them would leave the context too close to the
//! trigger right after the pass.

use super::super::Engine;
use crate::core::checkpoint::Level;
use crate::core::events::Intensity;
use crate::core::message::{MessageId, Role};

/// Share of the post-compression trigger the recent window may take.
const WINDOW_SHARE: f64 = 0.5;
/// Share of the post-compression trigger that recent messages (window, kept user text,
/// pinned) may fill before user text is folded too: the rest is headroom for new turns.
const RECENT_TARGET: f64 = 0.65;

/// What identify chose to fold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    /// Sorted ids to fold into the new checkpoint.
    pub covers: Vec<MessageId>,
    pub folded_users: usize,
    /// Raw tokens (with per-message overhead) the fold removes from the active context.
    pub raw: u32,
    /// Index in the active messages where the protected recent part begins.
    pub boundary: usize,
}

impl Engine {
    /// Stage 1: what to fold at this intensity.
    pub fn identify(&self, intensity: Intensity) -> Selection {
        let msgs = self.active.messages();
        let b = self.budget();
        let factor = self.calibration().factor;
        let to_raw = |cal: u32| (f64::from(cal) / factor) as u32;

        // The last exchange is always kept, at every intensity: from the last user message
        // that has a reply (and the pending one after it). When it alone does not fit, the
        // reported clip of its largest message is the only alteration allowed.
        // Unanswered user messages after the last reply (a failed request, a restore) are
        // part of it: the exchange is found from the last reply, not the last user message.
        let last_reply = msgs.iter().rposition(|e| e.role == Role::Assistant);
        let exchange_start = match last_reply {
            Some(a) => msgs[..a]
                .iter()
                .rposition(|e| e.role == Role::User)
                .unwrap_or(a),
            None => msgs
                .iter()
                .rposition(|e| e.role == Role::User)
                .unwrap_or(msgs.len()),
        };
        // Headroom: after a pass the recent part should leave room for several turns before
        // the next compression. The trigger after this pass is projected from the sizes
        // the checkpoints will have once aged; the recent window takes at most half of it,
        // and user text is folded only down to RECENT_TARGET of it.
        let trigger_after = {
            // The checkpoints after this pass: what they take now plus a new summary, no
            // more than their budget (passes merge and age to stay within it) plus the
            // ledger's share.
            let projected_cp = (b.checkpoints + b.level_cap(Level::Detailed))
                .min(b.summaries_budget() + b.room() / 5 + b.level_cap(Level::Detailed));
            f64::from(b.room().saturating_sub(projected_cp)) * self.cfg.budget.compress_at
        };
        let window_raw = match intensity {
            Intensity::Normal => to_raw(
                b.recent_window(self.cfg.budget.preserve_recent_tokens)
                    .min((trigger_after * WINDOW_SHARE) as u32),
            ),
            _ => 0,
        };
        let mut start = msgs.len();
        let mut acc = 0u32;
        while start > 0 && acc < window_raw {
            start -= 1;
            acc = acc.saturating_add(msgs[start].cost());
        }
        let boundary = start.min(exchange_start);

        let mut fold: Vec<usize> = Vec::new();
        let mut users: Vec<usize> = Vec::new();
        for (i, e) in msgs[..boundary].iter().enumerate() {
            if e.pinned || e.tool_error {
                continue;
            }
            if e.role == Role::User {
                users.push(i);
            } else {
                fold.push(i);
            }
        }
        let mut raw: u32 = fold.iter().map(|&i| msgs[i].cost()).sum();
        // User text is folded only if keeping it would leave the context too close to the
        // trigger right after this pass.
        let target_raw = match intensity {
            Intensity::Normal => to_raw((trigger_after * RECENT_TARGET) as u32),
            _ => 0,
        };
        let mut folded_users = 0;
        for i in users {
            if self.active.messages_raw().saturating_sub(raw) <= target_raw {
                break;
            }
            raw = raw.saturating_add(msgs[i].cost());
            fold.push(i);
            folded_users += 1;
        }
        fold.sort_unstable();
        Selection {
            covers: fold.iter().map(|&i| msgs[i].id).collect(),
            folded_users,
            raw,
            boundary,
        }
    }
}
