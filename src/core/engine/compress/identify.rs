//! Stage 1, identify: what a pass folds. The last exchange is always kept; pinned messages
//! and tool errors (with the call that made them) are never folded. A normal pass folds enough that the checkpoints and
//! the messages left come to [`BudgetConfig::fold_to`] of the room (hysteresis: the next
//! pass is then many turns away at every context size, instead of one turn away with a
//! few messages folded each time). Half of what that target leaves for messages is the
//! recent window (never more than `preserve_recent_tokens`); older replies go first,
//! then the person's own messages, oldest first, only as far as the target needs — their
//! facts are in the ledger and the log keeps them whole for recall.
//!
//! [`BudgetConfig::fold_to`]: crate::core::budget::BudgetConfig::fold_to

use super::super::Engine;
use crate::core::checkpoint::Level;
use crate::core::context::ActiveEntry;
use crate::core::events::Intensity;
use crate::core::message::{MessageId, Role};

/// Share of what the fold target leaves for messages that the recent window takes; the
/// rest keeps the person's older messages verbatim as long as they fit.
const WINDOW_SHARE: f64 = 0.5;

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
            // No reply yet: every message of the person waits for its answer.
            None => msgs
                .iter()
                .position(|e| e.role == Role::User)
                .unwrap_or(msgs.len()),
        };
        // Hysteresis: after the pass, checkpoints and messages together come to the fold
        // target. The checkpoints after it are projected from what they take now plus a
        // new summary and the ledger lines it brings, within their shares of the room.
        let projected_cp = (b.checkpoints + b.level_cap(Level::Detailed) + b.ledger_budget() / 4)
            .min(b.checkpoints_budget());
        let recent_target = b
            .fold_target(self.cfg.budget.fold_to)
            .saturating_sub(projected_cp);
        // What is never folded (pinned messages; tool errors, so the model sees what
        // failed, until an emergency: a model that repeats refused calls must not fill
        // the window with errors nothing can fold, measured at 144 % of it) takes its
        // part of the target first: the window shares what is left.
        // A kept error keeps the call that made it: a result whose call was folded reads,
        // to a small model, as a failure still to mend (the real 0.5B model called the
        // same missing file again on every later turn), and no reader can tell what failed.
        let own = |e: &ActiveEntry| e.pinned || (e.tool_error && intensity == Intensity::Normal);
        let mut keep: Vec<bool> = msgs.iter().map(own).collect();
        for i in 0..msgs.len() {
            if keep[i] && msgs[i].role == Role::Tool {
                let call = msgs[..i].iter().rposition(|e| e.role != Role::Tool);
                if let Some(c) = call.filter(|&c| msgs[c].role == Role::Assistant) {
                    keep[c] = true;
                }
            }
        }
        let kept_raw: u32 = msgs
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(e, _)| e.cost())
            .sum();
        let for_messages = recent_target.saturating_sub(self.calibration().apply(kept_raw));
        let window_raw = match intensity {
            Intensity::Normal => to_raw(
                b.recent_window(self.cfg.budget.preserve_recent_tokens)
                    .min((f64::from(for_messages) * WINDOW_SHARE) as u32),
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
            if keep[i] {
                continue;
            }
            if e.role == Role::User {
                users.push(i);
            } else {
                fold.push(i);
            }
        }
        let mut raw: u32 = fold.iter().map(|&i| msgs[i].cost()).sum();
        // The person's messages go only as far as the target needs.
        let target_raw = match intensity {
            Intensity::Normal => to_raw(recent_target),
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
