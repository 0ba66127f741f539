//! How much of what the person said the next request carries: a measurement, not a
//! formula.
//!
//! Every folded message stays whole on disk and comes back by recall when asked about,
//! so a count of compressions says nothing about what the model sees. What can be
//! counted is this: of the facts the person stated in folded messages (the ledger's
//! extraction, one line a fact, corrections replacing what they correct), how many the
//! next request still carries. Before anything is folded that is all of them, and the
//! status line shows no badge. A fact that left the ledger for lack of room is not lost
//! (recall brings it back when a message asks about it), but it is no longer in every
//! request: that is what the badge counts, and what a warning is made of.

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

/// A reading: of the person's facts in folded messages, how many the next request carries.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Reliability {
    /// `carried / stated`, 1.0 when nothing is stated in folded messages.
    pub score: f64,
    pub band: Band,
    pub compressions: u32,
    /// The person's facts from folded messages in the next request (the ledger shows them).
    pub carried: usize,
    /// The person's facts in folded messages (corrected values counted once).
    pub stated: usize,
    /// Measured loss worth a word: under 60 % carried.
    pub warn: bool,
}

impl Reliability {
    /// After `compressions`, `carried` of `stated` facts in the request.
    pub fn measure(compressions: u32, carried: usize, stated: usize) -> Reliability {
        let carried = carried.min(stated);
        let score = if stated == 0 {
            1.0
        } else {
            carried as f64 / stated as f64
        };
        let band = Band::of(score);
        Reliability {
            score,
            band,
            compressions,
            carried,
            stated,
            warn: band <= Band::Low,
        }
    }

    /// Whether there is anything to show: facts of the person's were folded.
    pub fn measured(&self) -> bool {
        self.compressions > 0 && self.stated > 0
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
    /// before anything was compressed), and a count of compressions is no loss (#37: three
    /// compressions read 🟠 56 % with every fact still in the request).
    #[test]
    fn compressions_alone_are_no_loss() {
        let fresh = Reliability::measure(0, 0, 0);
        assert!(!fresh.measured() && !fresh.warn);
        let folded = Reliability::measure(30, 19, 19);
        assert!(folded.measured());
        assert_eq!(
            (folded.score, folded.band, folded.warn),
            (1.0, Band::High, false)
        );
        // Folds of small talk only: nothing stated, nothing to show.
        assert!(!Reliability::measure(5, 0, 0).measured());
    }

    #[test]
    fn the_badge_counts_the_facts_the_request_no_longer_carries() {
        let r = Reliability::measure(4, 17, 19);
        assert_eq!(r.percent(), 89);
        assert_eq!(r.band, Band::High);
        let r = Reliability::measure(4, 10, 19);
        assert_eq!((r.band, r.warn), (Band::Low, true));
        assert_eq!(Reliability::measure(4, 2, 19).band, Band::Critical);
        // More carried than stated cannot be: it reads as all.
        assert_eq!(Reliability::measure(1, 5, 3).score, 1.0);
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
}
