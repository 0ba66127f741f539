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
//!   ("now Porto, not Lisbon"), or says the thing changed ("moved", "raised", "final", …)
//!   with a new value of a kind the earlier one holds (a port for a port) about the same
//!   thing — a value both name, or a shared subject word; lines about different named
//!   things ("service-13", "service-14") never touch each other;
//! - the same fact said twice is kept once (the person's saying of it); the model's
//!   lines whose every value the person stated are dropped, and the rest are marked as
//!   the model's when shown;
//! - a line is shown compacted — its subject and values, without labels and filler
//!   (`compact.rs`); a full ledger compacts harder before anything leaves it, then the
//!   model's lines leave, then the person's oldest (counted, so the transcript can say
//!   so; recall still finds them in the log);
//! - a person's line that replaced another is a correction (marked, and the mark kept
//!   through merges); summaries are sent without the sentences a correction replaces.
//!
//! One file per concern: `change.rs` holds the words that say a value changed,
//! `values.rs` finds the values of a sentence and says what kind each is, `extract.rs`
//! takes the lines out of a message, `parsed.rs` reads a line once for the rules that compare lines, `supersede.rs` decides
//! which later line replaces which, `mend.rs` what
//! is left of the line it replaces, `corrections.rs` what
//! a correction removes from lines not folded yet, summaries and recall, `compact.rs` shortens a line to its subject and values, `edits.rs`
//! holds what the person pinned, edited or forgot (`/facts`), `fit.rs` keeps what fits the ledger's token budget and renders it, `weight.rs`
//! says which lines it lets go of first.

mod becomes;
mod captures;
mod change;
mod compact;
mod corrections;
mod courtesy;
mod edits;
mod extract;
mod fit;
mod mend;
mod merge;
mod parsed;
mod patterns;
mod replaced;
mod supersede;
mod values;
mod weight;

pub use compact::{Form, compact};
pub use corrections::{corrections_said, drop_replaced, replaced, settle};
pub use courtesy::confirms;
pub use edits::{FactEdit, FactEdits, FactMark};
pub use extract::{extract, extract_confirmed};
pub use fit::{Fitted, Prepared, fit, fit_prepared, prepare, render};
pub use merge::merge;
pub use values::values;

use crate::core::tokens::Tokenizer;

/// How many ledger budgets of lines a checkpoint keeps: the ledger shows what fits its
/// budget when it is rendered (compacting first), so a checkpoint keeps more than that —
/// budgets move with the room — but not without bound, or merged checkpoints would carry
/// every line ever said.
const STORED_BUDGETS: u32 = 2;

/// The lines a checkpoint keeps of `lines`: what [`fit`] keeps of a few budgets.
pub fn stored(lines: Vec<LedgerLine>, budget: u32, tok: &dyn Tokenizer) -> Vec<LedgerLine> {
    fit(lines, budget.saturating_mul(STORED_BUDGETS), tok)
        .lines
        .into_iter()
        .map(|(l, _)| l)
        .collect()
}

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
    /// Taken from a message that stated many things at once (a pasted plan, a spec, a
    /// list): when the ledger is full such a line leaves before anything the person said
    /// on its own, which is what a person asks about later ("what was the plumber's
    /// name?"); the material itself stays whole in the log for recall.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub listed: bool,
    /// The message it was taken from, so `/facts` can say where a fact was said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<crate::core::message::MessageId>,
    /// Pinned by the person (`/facts`): never dropped when the ledger is full. Set from
    /// the person's edits each time the ledger is rendered, never stored.
    #[serde(skip)]
    pub pinned: bool,
}

impl LedgerLine {
    /// The line, noted as said in message `id`.
    pub fn said_in(mut self, id: crate::core::message::MessageId) -> Self {
        self.from = Some(id);
        self
    }
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
            ..LedgerLine::default()
        }
    }
}
