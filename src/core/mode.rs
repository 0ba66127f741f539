//! Operational modes and context tiers: the two knobs that shape prompts and budgets.
//!
//! Modes change what a summary keeps. Tiers are derived from the context size and fix the
//! system-prompt budget.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// What the conversation is about; steers the summary prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Assistant,
    Developer,
    Planning,
    Debugger,
}

impl Mode {
    pub const ALL: [Mode; 4] = [
        Mode::Assistant,
        Mode::Developer,
        Mode::Planning,
        Mode::Debugger,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Assistant => "assistant",
            Mode::Developer => "developer",
            Mode::Planning => "planning",
            Mode::Debugger => "debugger",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for an unknown mode name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode {0:?} (expected assistant, developer, planning or debugger)")]
pub struct UnknownMode(pub String);

impl FromStr for Mode {
    type Err = UnknownMode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Mode::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownMode(s.to_string()))
    }
}

/// Context tier, T1..T5, chosen from the context size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Tier {
    T1,
    T2,
    T3,
    T4,
    T5,
}

impl Tier {
    /// ≤4K T1, ≤8K T2, ≤16K T3, ≤32K T4, above T5.
    pub fn for_ctx(ctx_tokens: u32) -> Tier {
        match ctx_tokens {
            0..=4096 => Tier::T1,
            4097..=8192 => Tier::T2,
            8193..=16384 => Tier::T3,
            16385..=32768 => Tier::T4,
            _ => Tier::T5,
        }
    }

    /// Token budget for the system prompt: 200/500/1000/1500/1500 for T1–T5.
    pub fn system_prompt_budget(self) -> u32 {
        match self {
            Tier::T1 => 200,
            Tier::T2 => 500,
            Tier::T3 => 1000,
            Tier::T4 | Tier::T5 => 1500,
        }
    }

    pub fn number(self) -> u8 {
        self as u8 + 1
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "T{}", self.number())
    }
}
