//! Token counting and per-model calibration.
//!
//! Strategy: count each text once with tiktoken's `o200k_base` (a fast, widely shared
//! BPE; Ollama models use their own tokenizers, so this is an estimate), cache the count
//! on the message, and correct the sum with a per-model factor learned from the
//! `prompt_eval_count` the server reports after each reply. A request's raw estimate is
//! the sum of its message counts plus a fixed template overhead per message; the
//! calibrated estimate is `ceil(raw × factor)`. Nothing here re-counts history.
//!
//! Invariant: the calibration factor stays within [`Calibration::MIN_FACTOR`,
//! `Calibration::MAX_FACTOR`], so one odd reading cannot make the gauge absurd.

use std::fmt;

/// Tokens a chat template adds around each message (role header, separators).
pub const MESSAGE_OVERHEAD_TOKENS: u32 = 4;
/// Tokens a chat template adds once per request (BOS, the assistant header that primes
/// the reply).
pub const REQUEST_OVERHEAD_TOKENS: u32 = 3;

/// Counts tokens in text. Implementations must be deterministic.
pub trait Tokenizer: Send + Sync + fmt::Debug {
    fn count(&self, text: &str) -> u32;
}

/// The real counter: tiktoken `o200k_base`.
pub struct Tiktoken {
    bpe: tiktoken_rs::CoreBPE,
}

impl fmt::Debug for Tiktoken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tiktoken(o200k_base)")
    }
}

/// The BPE tables failed to load (they are embedded, so this means a broken build).
#[derive(Debug, thiserror::Error)]
#[error("cannot initialise the o200k_base tokenizer: {0}")]
pub struct TokenizerError(String);

impl Tiktoken {
    /// Loads the embedded BPE tables: 60–260 ms, so call it off the UI thread.
    pub fn new() -> Result<Self, TokenizerError> {
        let bpe = tiktoken_rs::o200k_base().map_err(|e| TokenizerError(e.to_string()))?;
        Ok(Tiktoken { bpe })
    }
}

impl Tokenizer for Tiktoken {
    fn count(&self, text: &str) -> u32 {
        u32::try_from(self.bpe.encode_ordinary(text).len()).unwrap_or(u32::MAX)
    }
}

/// A cheap deterministic stand-in (≈ 4 bytes a token) for tests and tools that need
/// speed more than accuracy.
#[derive(Debug, Default, Clone, Copy)]
pub struct ByteEstimate;

impl Tokenizer for ByteEstimate {
    fn count(&self, text: &str) -> u32 {
        u32::try_from(text.len().div_ceil(4)).unwrap_or(u32::MAX)
    }
}

/// Raw token estimate of a request made of messages with these raw counts.
pub fn request_raw_estimate(message_tokens: impl IntoIterator<Item = u32>) -> u32 {
    message_tokens
        .into_iter()
        .fold(REQUEST_OVERHEAD_TOKENS, |acc, t| {
            acc.saturating_add(t.saturating_add(MESSAGE_OVERHEAD_TOKENS))
        })
}

/// How our token counts relate to what one model's tokenizer sees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Model tokens per raw (o200k) token.
    pub factor: f64,
    /// Readings folded in so far.
    pub samples: u32,
}

impl Default for Calibration {
    fn default() -> Self {
        Calibration {
            factor: 1.0,
            samples: 0,
        }
    }
}

impl Calibration {
    pub const MIN_FACTOR: f64 = 0.5;
    pub const MAX_FACTOR: f64 = 2.5;
    /// Weight of a new reading once the factor has settled.
    const SMOOTHING: f64 = 0.3;
    /// Ignore readings on tiny prompts: the fixed overheads dominate them.
    const MIN_SAMPLE_TOKENS: u32 = 32;

    /// Calibrated tokens for a raw count (rounded up: the guard errs on the safe side).
    pub fn apply(&self, raw: u32) -> u32 {
        let v = (f64::from(raw) * self.factor).ceil();
        if v >= f64::from(u32::MAX) {
            u32::MAX
        } else {
            v as u32
        }
    }

    /// Fold in a reading: the server evaluated `seen` tokens for a prompt we estimated at
    /// `raw`. Call only for prompts the server did not truncate.
    pub fn observe(&mut self, raw: u32, seen: u32) {
        if raw < Self::MIN_SAMPLE_TOKENS || seen == 0 {
            return;
        }
        let ratio = (f64::from(seen) / f64::from(raw)).clamp(Self::MIN_FACTOR, Self::MAX_FACTOR);
        self.factor = if self.samples == 0 {
            ratio
        } else {
            self.factor + Self::SMOOTHING * (ratio - self.factor)
        };
        self.samples = self.samples.saturating_add(1);
    }

    /// Whether the server clearly saw less than we sent: it truncated the prompt.
    /// Before the first reading the tolerance is wide (tokenizers differ by up to ~30 %);
    /// after it, 15 %. `cached` is Ollama's `prompt_eval_cached_count` where given: some
    /// versions leave cached tokens out of `prompt_eval_count`.
    pub fn looks_truncated(&self, raw: u32, seen: u32, cached: Option<u32>) -> bool {
        if raw < Self::MIN_SAMPLE_TOKENS || seen == 0 {
            return false;
        }
        let expected = f64::from(raw) * self.factor;
        let tolerance = if self.samples == 0 { 0.60 } else { 0.85 };
        let threshold = expected * tolerance;
        let seen_total = f64::from(seen) + f64::from(cached.unwrap_or(0));
        f64::from(seen) < threshold && seen_total < threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiktoken_counts_plausibly() {
        let t = Tiktoken::new().expect("embedded tables load");
        assert_eq!(t.count(""), 0);
        let n = t.count("The quick brown fox jumps over the lazy dog.");
        assert!((8..=12).contains(&n), "{n}");
        // Counting is deterministic.
        assert_eq!(t.count("fn main() {}"), t.count("fn main() {}"));
    }

    #[test]
    fn request_estimate_adds_template_overhead() {
        assert_eq!(request_raw_estimate([]), REQUEST_OVERHEAD_TOKENS);
        assert_eq!(
            request_raw_estimate([10, 20]),
            REQUEST_OVERHEAD_TOKENS + 30 + 2 * MESSAGE_OVERHEAD_TOKENS
        );
    }

    #[test]
    fn first_reading_sets_the_factor_then_smooths() {
        let mut c = Calibration::default();
        assert_eq!(c.apply(1000), 1000);
        c.observe(1000, 1200);
        assert!((c.factor - 1.2).abs() < 1e-9);
        assert_eq!(c.apply(1000), 1200);
        c.observe(1000, 1000);
        assert!((c.factor - (1.2 + 0.3 * (1.0 - 1.2))).abs() < 1e-9);
        assert_eq!(c.samples, 2);
    }

    #[test]
    fn readings_are_clamped_and_tiny_prompts_ignored() {
        let mut c = Calibration::default();
        c.observe(10, 1000);
        assert_eq!(c.samples, 0);
        c.observe(100, 10_000);
        assert_eq!(c.factor, Calibration::MAX_FACTOR);
    }

    #[test]
    fn truncation_detection_needs_a_clear_shortfall() {
        let mut c = Calibration::default();
        // Uncalibrated: only a big gap counts.
        assert!(!c.looks_truncated(1000, 700, None));
        assert!(c.looks_truncated(1000, 500, None));
        c.observe(1000, 1100);
        assert!(!c.looks_truncated(1000, 1000, None));
        assert!(c.looks_truncated(1000, 800, None));
        // Cached tokens reported apart are not truncation.
        assert!(!c.looks_truncated(1000, 300, Some(800)));
        // No reading, no verdict.
        assert!(!c.looks_truncated(1000, 0, None));
    }
}
