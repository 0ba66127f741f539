//! What a picture costs in the context (#39), learned: only the server knows how many
//! tokens a vision model makes of a picture (llava 576, gemma3 256, qwen2.5-vl by size),
//! so a message's pictures count a conservative figure until a reply's
//! `prompt_eval_count` says more. Then, per model, the picture's share is what the server
//! counted beyond the calibrated estimate of the text, divided among the pictures the
//! request carried; the active messages are counted again with it.
//!
//! All of it is read from the log in order (the user records and the replies), so replay
//! learns the same figures; the request that a reply answers is the active context as it
//! stood when the reply's record is applied.

use super::Engine;
use crate::core::image::DEFAULT_IMAGE_TOKENS;
use crate::core::message::{MessageId, Role};

/// The least and most a picture is taken to cost, whatever one reply says (a server
/// that reports cached tokens apart, or a garbled count, must not make it free or huge).
const MIN_IMAGE_TOKENS: u32 = 16;
const MAX_IMAGE_TOKENS: u32 = 8192;

impl Engine {
    /// What one picture costs with the session's model: learned, else the default.
    pub(super) fn image_cost(&self) -> u32 {
        self.learned_image_tokens().unwrap_or(DEFAULT_IMAGE_TOKENS)
    }

    /// What one picture costs with the session's model, once a reply has said.
    pub fn learned_image_tokens(&self) -> Option<u32> {
        self.image_costs.get(&self.settings.model).copied()
    }

    /// A user message's pictures enter the count: `n` of them at the cost in force.
    pub(super) fn count_images(&mut self, id: MessageId, n: usize) -> u32 {
        if n == 0 {
            return 0;
        }
        let per = self.image_cost();
        self.image_counted.insert(id, per);
        per.saturating_mul(n as u32)
    }

    /// What the `n` pictures of message `id` are counted at.
    pub(super) fn images_counted(&self, id: MessageId, n: usize) -> u32 {
        if n == 0 {
            return 0;
        }
        self.image_counted
            .get(&id)
            .copied()
            .unwrap_or(DEFAULT_IMAGE_TOKENS)
            .saturating_mul(n as u32)
    }

    /// The pictures the active context holds, and the raw tokens they were counted at.
    pub(super) fn images_in_context(&self) -> (u32, u32) {
        let mut n = 0u32;
        let mut raw = 0u32;
        for e in self.active.messages() {
            if e.role != Role::User {
                continue;
            }
            let Some(m) = self.history.get(e.id) else {
                continue;
            };
            let k = m.images.len() as u32;
            if k > 0 {
                let per = self
                    .image_counted
                    .get(&e.id)
                    .copied()
                    .unwrap_or(DEFAULT_IMAGE_TOKENS);
                n += k;
                raw = raw.saturating_add(per.saturating_mul(k));
            }
        }
        (n, raw)
    }

    /// A reply of `model` to a request estimated at `raw` that the server counted as
    /// `seen`: when the request held pictures, their cost is learned from it and `true`
    /// says so (the text's calibration is then left alone: the pictures' share is not
    /// text). `false`: no pictures, calibrate as usual.
    pub(super) fn learn_image_cost(&mut self, model: &str, raw: u32, seen: u32) -> bool {
        let (n, share) = self.images_in_context();
        if n == 0 {
            return false;
        }
        let cal = self.calibrations.get(model).copied().unwrap_or_default();
        let text = cal.apply(raw.saturating_sub(share));
        let per = (seen.saturating_sub(text) / n).clamp(MIN_IMAGE_TOKENS, MAX_IMAGE_TOKENS);
        self.image_costs.insert(model.to_string(), per);
        if model == self.settings.model {
            self.recount_images();
        }
        true
    }

    /// The active messages with pictures counted again at the cost in force.
    pub(super) fn recount_images(&mut self) {
        let per = self.image_cost();
        let ids: Vec<MessageId> = self
            .active
            .messages()
            .iter()
            .filter(|e| e.role == Role::User)
            .map(|e| e.id)
            .collect();
        for id in ids {
            let Some(k) = self.history.get(id).map(|m| m.images.len() as u32) else {
                continue;
            };
            let old = self
                .image_counted
                .get(&id)
                .copied()
                .unwrap_or(DEFAULT_IMAGE_TOKENS);
            if k == 0 || old == per {
                continue;
            }
            let Some(entry) = self.active.messages().iter().find(|e| e.id == id) else {
                continue;
            };
            let (tokens, clip) = (entry.tokens, entry.clip);
            let tokens = tokens
                .saturating_sub(old.saturating_mul(k))
                .saturating_add(per.saturating_mul(k));
            self.active.set_tokens(id, tokens, clip);
            if let Some(m) = self.history.get_mut(id) {
                m.tokens = tokens;
            }
            self.image_counted.insert(id, per);
        }
    }
}
