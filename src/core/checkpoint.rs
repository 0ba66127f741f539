//! Checkpoints: LLM-written summaries that stand in for folded messages, and their aging.
//!
//! Strategy: a new checkpoint is detailed (level 3, ≈1200 tokens). On every
//! later compression older checkpoints move one level down — L3→L2 (≈60% of its size),
//! L2→L1 (≈50%), L1→ancient (≈40%) — and ancient checkpoints beyond a small count merge
//! into one. Each level's size is capped, so the sum over all checkpoints is bounded by a
//! short geometric series no matter how many compressions happen.
//!
//! Invariant: `covers` lists, sorted and without duplicates, the ids of every message the
//! checkpoint replaces. A message id is covered by at most one live checkpoint.

use crate::core::ledger::LedgerLine;
use crate::core::message::MessageId;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Identity of a checkpoint, unique within a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CheckpointId(pub u64);

impl std::fmt::Display for CheckpointId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cp{}", self.0)
    }
}

/// How detailed a checkpoint is. Higher is more detailed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub enum Level {
    /// Merged ancient history: essential context only (≈150 tokens).
    Ancient = 0,
    /// Brief: critical information only (≈300 tokens).
    Compact = 1,
    /// Main points, code references only (≈600 tokens).
    Moderate = 2,
    /// Fresh: decisions, code snippets, details (≈1200 tokens).
    Detailed = 3,
}

impl Level {
    /// The level a checkpoint moves to when it ages one step; `None` at the bottom.
    pub fn aged(self) -> Option<Level> {
        match self {
            Level::Detailed => Some(Level::Moderate),
            Level::Moderate => Some(Level::Compact),
            Level::Compact => Some(Level::Ancient),
            Level::Ancient => None,
        }
    }

    /// Fraction of the current size kept when aging *into* this level.
    pub fn aging_ratio(self) -> f64 {
        match self {
            Level::Detailed => 1.0,
            Level::Moderate => 0.60,
            Level::Compact => 0.50,
            Level::Ancient => 0.40,
        }
    }

    /// Default token cap for a summary at this level.
    pub fn default_cap_tokens(self) -> u32 {
        match self {
            Level::Detailed => 1200,
            Level::Moderate => 600,
            Level::Compact => 300,
            Level::Ancient => 150,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Level::Detailed => "detailed",
            Level::Moderate => "moderate",
            Level::Compact => "compact",
            Level::Ancient => "ancient",
        }
    }
}

impl From<Level> for u8 {
    fn from(l: Level) -> u8 {
        l as u8
    }
}

impl TryFrom<u8> for Level {
    type Error = String;
    fn try_from(v: u8) -> Result<Self, Self::Error> {
        match v {
            0 => Ok(Level::Ancient),
            1 => Ok(Level::Compact),
            2 => Ok(Level::Moderate),
            3 => Ok(Level::Detailed),
            _ => Err(format!("checkpoint level {v} out of range 0..=3")),
        }
    }
}

/// A summary standing in for a set of folded messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub id: CheckpointId,
    /// Compression sequence number that created it (1-based).
    pub number: u32,
    pub level: Level,
    pub summary: String,
    /// Raw token count of `summary`.
    pub tokens: u32,
    /// Sorted ids of the messages this checkpoint replaces. Aged and merged checkpoint
    /// records leave it out (it is derived on apply), so a record's size never grows with
    /// the conversation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub covers: Vec<MessageId>,
    /// Raw token count of the covered originals.
    pub original_tokens: u32,
    pub created_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aged_at: Option<DateTime<Utc>>,
    /// How many times this checkpoint was re-compressed (aged or merged).
    #[serde(default)]
    pub times_compressed: u32,
    /// True when the text is a marked truncation rather than a model summary (emergency).
    #[serde(default)]
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key_decisions: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub next_steps: Vec<String>,
    /// Ledger lines from the covered messages: the facts, whole and with their subject,
    /// that the summary may drop but the context keeps. Aging leaves them as they are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<LedgerLine>,
    /// A summary of a fold made without one was asked of the model (kept or not): it is
    /// not asked again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub summary_asked: bool,
}

impl Checkpoint {
    /// First and last covered message ids, for display ("messages #4–#31").
    pub fn range(&self) -> Option<(MessageId, MessageId)> {
        Some((*self.covers.first()?, *self.covers.last()?))
    }

    /// Compression ratio achieved: summary tokens / original tokens.
    pub fn ratio(&self) -> f64 {
        if self.original_tokens == 0 {
            1.0
        } else {
            f64::from(self.tokens) / f64::from(self.original_tokens)
        }
    }
}
