//! How far to trust the conversation after compressions.
//!
//! score = model_factor(parameter size) × max(0.9^compressions, 0.30). Bigger models
//! summarize better, and every compression loses a little; the floor keeps a long
//! conversation from reading as worthless. Smaller models get warned sooner.

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

/// Floor of the compression penalty.
const MIN_PENALTY: f64 = 0.30;
/// Fraction kept per compression.
const PENALTY_PER_COMPRESSION: f64 = 0.9;

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

/// Quality factor of a model by size: larger models summarize and follow summaries better.
pub fn model_factor(billions: Option<f64>) -> f64 {
    match billions.unwrap_or(0.0) {
        b if b >= 70.0 => 0.95,
        b if b >= 30.0 => 0.85,
        b if b >= 13.0 => 0.70,
        b if b >= 7.0 => 0.50,
        _ => 0.30,
    }
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
    pub fn compute(billions: Option<f64>, compressions: u32) -> Reliability {
        let exponent = i32::try_from(compressions).unwrap_or(i32::MAX);
        let penalty = PENALTY_PER_COMPRESSION.powi(exponent).max(MIN_PENALTY);
        let score = model_factor(billions) * penalty;
        Reliability {
            score,
            band: Band::of(score),
            compressions,
            warn: compressions >= warning_threshold(billions),
        }
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

    #[test]
    fn model_factor_steps_match_the_seed() {
        assert_eq!(model_factor(Some(70.0)), 0.95);
        assert_eq!(model_factor(Some(34.0)), 0.85);
        assert_eq!(model_factor(Some(13.0)), 0.70);
        assert_eq!(model_factor(Some(8.0)), 0.50);
        assert_eq!(model_factor(Some(3.2)), 0.30);
        assert_eq!(model_factor(None), 0.30);
    }

    #[test]
    fn score_decays_by_ten_percent_per_compression_with_a_floor() {
        let r0 = Reliability::compute(Some(70.0), 0);
        assert!((r0.score - 0.95).abs() < 1e-9);
        assert_eq!(r0.band, Band::High);
        let r2 = Reliability::compute(Some(70.0), 2);
        assert!((r2.score - 0.95 * 0.81).abs() < 1e-9);
        assert_eq!(r2.band, Band::Medium);
        // 0.9^12 ≈ 0.28 < 0.30: the floor holds.
        let r12 = Reliability::compute(Some(70.0), 12);
        assert!((r12.score - 0.95 * 0.30).abs() < 1e-9);
        assert_eq!(r12.band, Band::Critical);
        assert_eq!(Reliability::compute(Some(70.0), 1000).score, r12.score);
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
