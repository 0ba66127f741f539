//! Token counting and per-model calibration.
//!
//! Strategy: count each text once with tiktoken's `cl100k_base` (Ollama models use their
//! own tokenizers, so this is an estimate), cache the count
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
/// Smallest window we believe a server truncates to; a smaller prompt count than this is
/// a misreport, not a truncation.
pub const MIN_SERVER_WINDOW: u32 = 256;

/// Counts tokens in text. Implementations must be deterministic.
pub trait Tokenizer: Send + Sync + fmt::Debug {
    fn count(&self, text: &str) -> u32;
}

/// The real counter: tiktoken `cl100k_base`.
///
/// Why cl100k: Llama 3's tokenizer is cl100k plus 28K tokens, and measured against
/// Qwen2.5's tokenizer cl100k and o200k agree within a few percent on prose, code and
/// JSON (both 0.92–1.0 of the model's count); only CJK text differs more (cl100k 1.5×,
/// o200k 1.15×), which the per-model calibration absorbs. cl100k's tables take 24 MB of
/// memory, o200k's 46 MB.
pub struct Tiktoken {
    bpe: tiktoken_rs::CoreBPE,
}

impl fmt::Debug for Tiktoken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tiktoken(cl100k_base)")
    }
}

/// The BPE tables failed to load (they are embedded, so this means a broken build).
#[derive(Debug, thiserror::Error)]
#[error("cannot initialise the cl100k_base tokenizer: {0}")]
pub struct TokenizerError(String);

impl Tiktoken {
    /// Loads the embedded BPE tables: 60–260 ms, so call it off the UI thread.
    pub fn new() -> Result<Self, TokenizerError> {
        let bpe = tiktoken_rs::cl100k_base().map_err(|e| TokenizerError(e.to_string()))?;
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

/// What a server's `prompt_eval_count` says about the prompt we sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Plausible: learn from it.
    Normal,
    /// Clearly less than sent: the server cut the start of the prompt.
    Truncated,
    /// About the size of what was new since the last request: this server counts only
    /// tokens it did not have cached (some Ollama versions do). Not truncation.
    CachedOnly,
    /// Too small to judge, or missing.
    Ignored,
}

/// How our token counts relate to what one model's tokenizer sees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Model tokens per raw (cl100k) token.
    pub factor: f64,
    /// Readings folded in so far.
    pub samples: u32,
    /// The previous judged reading (raw sent, tokens seen), for trends.
    pub last: Option<(u32, u32)>,
}

impl Default for Calibration {
    fn default() -> Self {
        Calibration {
            factor: 1.0,
            samples: 0,
            last: None,
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
    /// Once settled, one reading moves the factor by at most this share, so readings
    /// from a server that truncates a little cannot drag the gauge down unnoticed.
    const MAX_STEP: f64 = 0.05;

    /// Calibrated tokens for a raw count (rounded up: the guard errs on the safe side).
    pub fn apply(&self, raw: u32) -> u32 {
        let v = (f64::from(raw) * self.factor).ceil();
        if v >= f64::from(u32::MAX) {
            u32::MAX
        } else {
            v as u32
        }
    }

    /// Judge a reading: the server evaluated `seen` tokens (plus `cached` reported apart,
    /// where the server says so) for a prompt we estimated at `raw`.
    ///
    /// Before the first reading the tolerance is wide (tokenizers differ by up to ~30 %),
    /// then 15 %, then 10 % once settled. A prompt that grew while the count shrank is
    /// truncation even within tolerance (the server's window is full). A count the size
    /// of the growth since the last request is a server counting only uncached tokens.
    pub fn judge(&self, raw: u32, seen: u32, cached: Option<u32>) -> Reading {
        if raw < Self::MIN_SAMPLE_TOKENS || seen == 0 {
            return Reading::Ignored;
        }
        let seen_total = f64::from(seen) + f64::from(cached.unwrap_or(0));
        let expected = f64::from(raw) * self.factor;
        let tolerance = match self.samples {
            0 => 0.60,
            1..=4 => 0.85,
            _ => 0.90,
        };
        if seen_total >= expected * tolerance {
            let shrank = self.last.is_some_and(|(r0, s0)| {
                raw > r0.saturating_add(64) && seen_total + 8.0 < f64::from(s0)
            });
            return if shrank {
                Reading::Truncated
            } else {
                Reading::Normal
            };
        }
        if let Some((r0, _)) = self.last
            && raw > r0
        {
            let growth = f64::from(raw - r0) * self.factor;
            if (f64::from(seen) - growth).abs() <= 0.25 * growth + 16.0 {
                return Reading::CachedOnly;
            }
        }
        Reading::Truncated
    }

    /// Whether the server clearly saw less than we sent.
    pub fn looks_truncated(&self, raw: u32, seen: u32, cached: Option<u32>) -> bool {
        self.judge(raw, seen, cached) == Reading::Truncated
    }

    /// Fold in a reading (judging it first); returns the verdict.
    pub fn observe(&mut self, raw: u32, seen: u32, cached: Option<u32>) -> Reading {
        let verdict = self.judge(raw, seen, cached);
        if verdict == Reading::Ignored {
            return verdict;
        }
        self.last = Some((raw, seen.saturating_add(cached.unwrap_or(0))));
        if verdict != Reading::Normal {
            return verdict;
        }
        let mut ratio = (f64::from(seen) + f64::from(cached.unwrap_or(0))) / f64::from(raw);
        if self.samples >= 3 {
            ratio = ratio.clamp(
                self.factor * (1.0 - Self::MAX_STEP / Self::SMOOTHING),
                self.factor * (1.0 + Self::MAX_STEP / Self::SMOOTHING),
            );
        }
        let ratio = ratio.clamp(Self::MIN_FACTOR, Self::MAX_FACTOR);
        self.factor = if self.samples == 0 {
            ratio
        } else {
            self.factor + Self::SMOOTHING * (ratio - self.factor)
        };
        self.samples = self.samples.saturating_add(1);
        verdict
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
        c.observe(1000, 1200, None);
        assert!((c.factor - 1.2).abs() < 1e-9);
        assert_eq!(c.apply(1000), 1200);
        c.observe(1100, 1210, None);
        assert!((c.factor - (1.2 + 0.3 * (1.1 - 1.2))).abs() < 1e-9);
        assert_eq!(c.samples, 2);
    }

    #[test]
    fn readings_are_clamped_and_tiny_prompts_ignored() {
        let mut c = Calibration::default();
        assert_eq!(c.observe(10, 1000, None), Reading::Ignored);
        assert_eq!(c.samples, 0);
        c.observe(100, 10_000, None);
        assert_eq!(c.factor, Calibration::MAX_FACTOR);
    }

    #[test]
    fn a_settled_factor_moves_at_most_five_percent_a_reading() {
        let mut c = Calibration::default();
        for i in 0..5 {
            c.observe(1000 + i * 100, 1000 + i * 100, None);
        }
        let f = c.factor;
        // Within tolerance but low: moves, slowly.
        c.observe(2000, 1850, None);
        assert!(
            c.factor < f && c.factor >= f * 0.95 - 1e-9,
            "{} vs {f}",
            c.factor
        );
    }

    #[test]
    fn truncation_detection_needs_a_clear_shortfall() {
        let mut c = Calibration::default();
        // Uncalibrated: only a big gap counts.
        assert!(!c.looks_truncated(1000, 700, None));
        assert!(c.looks_truncated(1000, 500, None));
        c.observe(1000, 1100, None);
        assert!(!c.looks_truncated(1200, 1300, None));
        assert!(c.looks_truncated(1200, 900, None));
        // Cached tokens reported apart are not truncation.
        assert!(!c.looks_truncated(1200, 300, Some(1000)));
        // No reading, no verdict.
        assert!(!c.looks_truncated(1000, 0, None));
    }

    #[test]
    fn a_prompt_that_grew_while_the_count_shrank_was_truncated() {
        let mut c = Calibration::default();
        for (raw, seen) in [(800, 800), (900, 905), (1000, 1003)] {
            assert_eq!(c.observe(raw, seen, None), Reading::Normal);
        }
        // Within 10 % of the expected count, but less than last time: the window is full.
        assert_eq!(c.judge(1100, 960, None), Reading::Truncated);
    }

    #[test]
    fn a_server_that_counts_only_uncached_tokens_is_not_truncating() {
        let mut c = Calibration::default();
        c.observe(1000, 1000, None);
        // The prompt grew by 150; the server reports ~150 evaluated (the rest cached).
        assert_eq!(c.judge(1150, 160, None), Reading::CachedOnly);
        assert_eq!(c.observe(1150, 160, None), Reading::CachedOnly);
        assert_eq!(c.samples, 1, "not learned from");
        assert!((c.factor - 1.0).abs() < 1e-9);
    }
}
