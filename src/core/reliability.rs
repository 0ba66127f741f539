//! How far to trust what compression kept of the conversation.
//!
//! It measures what is known: before anything is compressed nothing has been lost, so
//! the score is 100 % (and the status line shows no badge). Each compression then costs
//! a little by the model's size (the prior: a small model's summaries lose more), and
//! the engine's own evidence of loss costs more: facts that left the fact ledger for lack
//! of room, summaries summarized again (aged or merged), and summaries that failed and
//! were cut without the model. Smaller models get warned sooner.

use serde::{Deserialize, Serialize};

/// Reliability band as shown by the badge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Band {
    Critical,
    Low,
    Medium,
    High,
}

impl Band {
    /// High ≥ 85%, Medium ≥ 60%, Low ≥ 40%, Critical below.
    pub fn of(score: f64) -> Band {
        match score {
            s if s >= 0.85 => Band::High,
            s if s >= 0.60 => Band::Medium,
            s if s >= 0.40 => Band::Low,
            _ => Band::Critical,
        }
    }

    pub fn emoji(self) -> &'static str {
        match self {
            Band::High => "🟢",
            Band::Medium => "🟡",
            Band::Low => "🟠",
            Band::Critical => "🔴",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Band::High => "high",
            Band::Medium => "medium",
            Band::Low => "low",
            Band::Critical => "critical",
        }
    }
}

/// The lowest score: a long conversation never reads as worthless.
const FLOOR: f64 = 0.05;
/// Kept per fact of the person's that left the ledger, and per one of the model's.
const PER_USER_FACT_DROPPED: f64 = 0.95;
const PER_MODEL_FACT_DROPPED: f64 = 0.98;
/// Kept per time a summary was summarized again (aged or merged).
const PER_RECOMPRESSION: f64 = 0.97;
/// Kept per summary that failed and was cut without the model (a marked truncation).
const PER_TRUNCATION: f64 = 0.80;

/// Parse Ollama's `details.parameter_size` ("3.2B", "500M", "70B", "1.5b") or a model
/// name tag ("llama3.2:3b", "qwen2.5-coder:0.5b") into billions of parameters.
pub fn parse_parameter_billions(text: &str) -> Option<f64> {
    let lower = text.trim().to_ascii_lowercase();
    // Prefer the tag after ':' for model names, else the whole text.
    let candidates = lower
        .rsplit_once(':')
        .map(|(_, tag)| vec![tag.to_string(), lower.clone()])
        .unwrap_or_else(|| vec![lower.clone()]);
    for cand in candidates {
        for token in cand.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.')) {
            let (num, unit) = token.split_at(
                token
                    .find(|c: char| c.is_ascii_alphabetic())
                    .unwrap_or(token.len()),
            );
            let Ok(value) = num.parse::<f64>() else {
                continue;
            };
            let scale = match unit {
                "b" => 1.0,
                "m" => 0.001,
                "t" => 1000.0,
                _ => continue,
            };
            return Some(value * scale);
        }
    }
    None
}

/// What one compression keeps, by model size: the prior. Larger models summarize and
/// follow summaries better.
pub fn per_compression(billions: Option<f64>) -> f64 {
    match billions.unwrap_or(0.0) {
        b if b >= 70.0 => 0.99,
        b if b >= 30.0 => 0.98,
        b if b >= 13.0 => 0.97,
        b if b >= 7.0 => 0.95,
        _ => 0.92,
    }
}

/// What compression is known to have lost so far: the engine's own evidence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Losses {
    pub compressions: u32,
    /// Facts that left the fact ledger for lack of room: the person's, the model's.
    pub facts_dropped_user: usize,
    pub facts_dropped_model: usize,
    /// Times the live summaries were summarized again (aged or merged).
    pub recompressed: u32,
    /// Live summaries that failed and were cut without the model.
    pub truncated: u32,
}

/// Compressions after which to warn, by model size: ≤3B 3, ≤7B 5, ≤13B 7, else 10.
pub fn warning_threshold(billions: Option<f64>) -> u32 {
    match billions {
        Some(b) if b <= 3.0 => 3,
        Some(b) if b <= 7.0 => 5,
        Some(b) if b <= 13.0 => 7,
        Some(_) => 10,
        None => 3,
    }
}

/// A reliability reading.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Reliability {
    /// 0.0..=1.0
    pub score: f64,
    pub band: Band,
    pub compressions: u32,
    /// True once compressions reach the model's warning threshold.
    pub warn: bool,
}

impl Reliability {
    /// After `compressions` with no other evidence of loss.
    pub fn compute(billions: Option<f64>, compressions: u32) -> Reliability {
        Reliability::measure(
            billions,
            &Losses {
                compressions,
                ..Losses::default()
            },
        )
    }

    /// The score from what was lost: 1.0 before any compression; then the model's
    /// per-compression prior and every loss the engine saw, multiplied, never below
    /// [`FLOOR`].
    pub fn measure(billions: Option<f64>, l: &Losses) -> Reliability {
        let pow = |base: f64, n: u64| base.powi(i32::try_from(n).unwrap_or(i32::MAX));
        let score = if l.compressions == 0 {
            1.0
        } else {
            (pow(per_compression(billions), u64::from(l.compressions))
                * pow(PER_USER_FACT_DROPPED, l.facts_dropped_user as u64)
                * pow(PER_MODEL_FACT_DROPPED, l.facts_dropped_model as u64)
                * pow(PER_RECOMPRESSION, u64::from(l.recompressed))
                * pow(PER_TRUNCATION, u64::from(l.truncated)))
            .max(FLOOR)
        };
        Reliability {
            score,
            band: Band::of(score),
            compressions: l.compressions,
            warn: l.compressions >= warning_threshold(billions),
        }
    }

    /// Whether anything was compressed yet: before that there is nothing to measure (the
    /// status line shows no badge).
    pub fn measured(&self) -> bool {
        self.compressions > 0
    }

    /// Whole percent for display.
    pub fn percent(&self) -> u32 {
        (self.score * 100.0).round() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_parameter_sizes() {
        assert_eq!(parse_parameter_billions("3.2B"), Some(3.2));
        assert_eq!(parse_parameter_billions("70B"), Some(70.0));
        assert!((parse_parameter_billions("494.03M").unwrap_or(0.0) - 0.49403).abs() < 1e-12);
        assert_eq!(parse_parameter_billions("llama3.2:3b"), Some(3.0));
        assert_eq!(parse_parameter_billions("qwen2.5-coder:0.5b"), Some(0.5));
        assert_eq!(
            parse_parameter_billions("mistral:7b-instruct-q4"),
            Some(7.0)
        );
        assert_eq!(parse_parameter_billions("llama3.2:latest"), None);
        assert_eq!(parse_parameter_billions(""), None);
    }

    /// A fresh chat has lost nothing, whatever the model (#31: a 0.5B model read 🔴 30 %
    /// before anything was compressed).
    #[test]
    fn a_fresh_session_is_not_alarming() {
        for b in [Some(0.5), Some(3.0), None, Some(70.0)] {
            let r = Reliability::compute(b, 0);
            assert_eq!(r.score, 1.0);
            assert_eq!(r.band, Band::High);
            assert!(!r.warn);
            assert!(!r.measured());
        }
    }

    /// The model's size weighs once there is compression: a small model's summaries cost
    /// more than a large one's.
    #[test]
    fn the_model_size_is_a_prior_once_compressed() {
        let small = Reliability::compute(Some(0.5), 3);
        let large = Reliability::compute(Some(70.0), 3);
        assert!(small.measured());
        assert!(small.score < large.score);
        assert_eq!(large.band, Band::High);
        // One clean compression of a small model is no alarm.
        assert_eq!(Reliability::compute(Some(0.5), 1).band, Band::High);
        assert!((small.score - 0.92f64.powi(3)).abs() < 1e-9);
    }

    /// The badge turns with what compression lost: facts out of the ledger, summaries
    /// summarized again, summaries cut without the model.
    #[test]
    fn losses_turn_the_badge() {
        let clean = Losses {
            compressions: 2,
            ..Losses::default()
        };
        let base = Reliability::measure(Some(8.0), &clean);
        assert_eq!(base.band, Band::High);
        let lost = |l: Losses| Reliability::measure(Some(8.0), &l).score;
        let user = Losses {
            facts_dropped_user: 1,
            ..clean
        };
        let model = Losses {
            facts_dropped_model: 1,
            ..clean
        };
        assert!(lost(user) < base.score);
        assert!(lost(user) < lost(model), "the person's facts weigh more");
        assert!(
            lost(Losses {
                recompressed: 1,
                ..clean
            }) < base.score
        );
        assert!(
            lost(Losses {
                truncated: 1,
                ..clean
            }) < base.score
        );
        let bad = Reliability::measure(
            Some(8.0),
            &Losses {
                facts_dropped_user: 10,
                truncated: 3,
                ..clean
            },
        );
        assert_eq!(bad.band, Band::Critical, "{}", bad.score);
        let worst = Reliability::measure(
            Some(0.5),
            &Losses {
                compressions: 1000,
                facts_dropped_user: 1000,
                ..clean
            },
        );
        assert!((worst.score - FLOOR).abs() < 1e-9);
    }

    #[test]
    fn bands_have_the_documented_edges() {
        assert_eq!(Band::of(0.85), Band::High);
        assert_eq!(Band::of(0.8499), Band::Medium);
        assert_eq!(Band::of(0.60), Band::Medium);
        assert_eq!(Band::of(0.5999), Band::Low);
        assert_eq!(Band::of(0.40), Band::Low);
        assert_eq!(Band::of(0.3999), Band::Critical);
    }

    #[test]
    fn warnings_come_sooner_for_small_models() {
        assert_eq!(warning_threshold(Some(3.0)), 3);
        assert_eq!(warning_threshold(Some(7.0)), 5);
        assert_eq!(warning_threshold(Some(13.0)), 7);
        assert_eq!(warning_threshold(Some(70.0)), 10);
        assert!(!Reliability::compute(Some(3.0), 2).warn);
        assert!(Reliability::compute(Some(3.0), 3).warn);
        assert!(!Reliability::compute(Some(7.0), 4).warn);
        assert!(Reliability::compute(Some(7.0), 5).warn);
        assert!(!Reliability::compute(Some(8.0), 6).warn);
        assert!(Reliability::compute(Some(8.0), 7).warn);
    }
}
