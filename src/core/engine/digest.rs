//! Which tool results the model reads through before they enter the context (layer 1;
//! the reading itself is `core::digest`), and what it is told the call was for.

use super::Engine;
use crate::core::digest::{self, DigestPlan};
use crate::core::message::{Role, ToolCall};

/// Share of the window one part of a result may take in a summary request (the rest is
/// the instructions, the purpose, the notes and the gap between our tokenizer and the
/// model's).
const PART_SHARE: f64 = 0.6;
/// However large the window, parts stay this small: smaller reads keep their detail.
const MAX_PART_TOKENS: u32 = 8_000;

impl Engine {
    /// How to read `result` (a successful call's output) through, when it is large
    /// enough to be worth the model calls and small enough for them to finish soon;
    /// `None`: it is recorded as it is (shortened by kind when over its limit). Asked
    /// before the result is answered, so the limit is the one the record will have.
    pub fn digest_plan(&self, call: &ToolCall, result: &str) -> Option<DigestPlan> {
        if self.cfg.whole_results || !self.cfg.digest_results {
            return None;
        }
        let part_tokens = ((f64::from(self.ctx()) * PART_SHARE) as u32).min(MAX_PART_TOKENS);
        digest::plan(
            &call.name,
            format!("{} {}", call.name, call.args),
            &self.purpose(),
            result,
            self.result_limit(),
            part_tokens,
            self.next_seq,
            self.tok.as_ref(),
        )
    }

    /// What the person last asked for: what the notes on a result should serve.
    fn purpose(&self) -> String {
        self.active
            .messages()
            .iter()
            .rev()
            .find(|e| e.role == Role::User)
            .and_then(|e| self.history.get(e.id))
            .map(|m| m.text.trim().to_string())
            .unwrap_or_default()
    }
}
