//! Which tool results the model reads through before they enter the context (layer 1;
//! the reading itself is `core::digest`), what it is told the call was for, and whether
//! the server is fast enough for the person to wait for it (`core::speed`).

use super::Engine;
use crate::core::digest::{self, DigestPlan};
use crate::core::message::{Role, ToolCall};

/// What to do with a large tool result before it enters the context.
#[derive(Debug)]
pub enum Digestion {
    /// Recorded as it is (shortened by kind when over its limit).
    No,
    /// Read through by the model; `secs`: how long that should take, once the server's
    /// speed is known.
    Read {
        plan: Box<DigestPlan>,
        secs: Option<u32>,
    },
    /// Worth reading through, but it would take about `secs` seconds, over the person's
    /// `limit`: shortened instead.
    TooSlow { secs: u32, limit: u32 },
}

/// Share of the window one part of a result may take in a summary request (the rest is
/// the instructions, the purpose, the notes and the gap between our tokenizer and the
/// model's).
pub(super) const PART_SHARE: f64 = 0.6;
/// However large the window, parts stay this small: smaller reads keep their detail.
pub(super) const MAX_PART_TOKENS: u32 = 8_000;

impl Engine {
    /// Whether to read `result` (a successful call's output) through, and how: when it is
    /// large enough to be worth the model calls, small enough for a few of them, and —
    /// by the server's measured speed — done within [`EngineConfig::digest_max_secs`];
    /// else it is recorded as it is (shortened by kind when over its limit). Asked before
    /// the result is answered, so the limit is the one the record will have.
    ///
    /// [`EngineConfig::digest_max_secs`]: super::EngineConfig::digest_max_secs
    pub fn digest_plan(&self, call: &ToolCall, result: &str) -> Digestion {
        if self.cfg.whole_results || !self.cfg.digest_results {
            return Digestion::No;
        }
        let part_tokens = ((f64::from(self.ctx()) * PART_SHARE) as u32).min(MAX_PART_TOKENS);
        let Some(plan) = digest::plan(
            &call.name,
            format!("{} {}", call.name, call.args),
            &self.purpose(),
            result,
            self.result_limit(),
            part_tokens,
            self.next_seq,
            self.tok.as_ref(),
        ) else {
            return Digestion::No;
        };
        let cal = self.calibration();
        let secs = plan
            .calls()
            .iter()
            .map(|&(prompt, out)| self.speed.seconds_for(cal.apply(prompt), out))
            .sum::<Option<f64>>();
        match secs {
            Some(s) if s > f64::from(self.cfg.digest_max_secs) => Digestion::TooSlow {
                secs: s.round() as u32,
                limit: self.cfg.digest_max_secs,
            },
            _ => Digestion::Read {
                plan: Box::new(plan),
                secs: secs.map(|s| s.round() as u32),
            },
        }
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
