//! The fact ledger: what must survive compression, kept whole and with its subject, in a
//! compact place of its own beside the prose summaries.
//!
//! Small models paraphrase well and drop specifics; appending the specifics they dropped
//! ("Kept facts: 14; 00; 7010") keeps numbers without what they belong to. So when
//! messages are folded, the sentences that state a hard value — a number, time, version,
//! path, URL, identifier, address, name — are taken from the originals mechanically (no
//! model call), cut to a short window around their values, and kept as ledger lines: "our
//! cache service (Redis) listens on port 6379". Aging never touches them.
//!
//! Rules, all pure and deterministic (so replay rebuilds the same ledger):
//! - questions state nothing; a line the ledger already holds is not added twice;
//! - a later line supersedes an earlier one when it names the earlier value as replaced
//!   ("now Porto, not Lisbon") or when it says the thing changed ("moved", "raised",
//!   "final", …) and shares a subject word with it while not repeating its value;
//! - under a token budget the person's own lines come first, the assistant's lines
//!   whose values the person's lines already hold go first, then the oldest.
//! - a person's line that replaced another is a correction (marked, and the mark kept
//!   through merges); summaries are sent without the sentences a correction replaces.
//!
//! One file per concern: `extract.rs` takes the lines out of a message, `supersede.rs`
//! decides which later line replaces which (and what that removes from summaries),
//! `fit.rs` keeps what fits the ledger's token budget and renders it.

mod extract;
mod fit;
mod supersede;

pub use extract::{extract, values};
pub use fit::{fit, render};
pub use supersede::{corrections_said, drop_replaced, merge, settle};

use serde::{Deserialize, Serialize};

/// One ledger line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerLine {
    pub text: String,
    /// Stated by the person (else by the assistant or a tool).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub user: bool,
    /// A line of the person's that replaced an earlier value, here or in a merge since:
    /// summaries are sent without what it replaced ([`drop_replaced`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub corrects: bool,
}

/// Lines for the tests of each concern.
#[cfg(test)]
mod lines {
    use super::LedgerLine;

    pub fn texts(lines: &[LedgerLine]) -> Vec<&str> {
        lines.iter().map(|l| l.text.as_str()).collect()
    }

    pub fn user(text: &str) -> LedgerLine {
        LedgerLine {
            text: text.into(),
            user: true,
            corrects: false,
        }
    }
}
