//! The tools a request offers, and what their schemas cost.
//!
//! A tool's schema rides on every request that offers it: the nine built-in ones came to
//! about 950 tokens, nearly half of a 2K window, on every request of a chat that never
//! used a tool. So they are a fixed cost of their own in the budget, counted from the JSON
//! the request carries (never left for the calibration ratio to absorb, which then read
//! our own miscount as the server truncating), and the offer is kept small:
//!
//! - a tool whose use depends on the conversation is offered only while the conversation
//!   has what it works on: reading back a shortened result (`recall`) while one is in
//!   view, searching folded history (`search_history`) once something is folded, closing
//!   a task (`task_done`) while tool results are in view;
//! - the rest are offered in the order given while what every request carries before the
//!   conversation — system prompt, goal board, tool schemas — stays within
//!   [`FIXED_SHARE`] of the window; what does not fit is left out and said (the panel
//!   names it).
//!
//! The offer is runtime state (what the server's model can do, which MCP servers run),
//! not part of the log: the actor hands it in after connecting and whenever it changes.

use super::Engine;
use crate::core::message::Role;

/// Share of the window the fixed costs (system prompt, goal board, tool schemas) may take
/// together: the rest is the conversation's, its memory's and the reply's.
pub const FIXED_SHARE: f64 = 0.25;
/// Tokens a chat template spends introducing the tools (how to call them) beside their
/// definitions; the calibration takes in what a model's template adds beyond it.
pub const TOOLS_PREAMBLE_TOKENS: u32 = 64;

/// When a tool is worth its schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Whenever tools are offered.
    Always,
    /// While a shortened tool result is in view (it names the id to read back).
    ShortenedResult,
    /// Once part of the conversation is folded.
    Folded,
    /// While tool calls and results are in view (a task under way).
    ToolsInUse,
}

/// A tool the actor can offer: its name, its schema as the request carries it (JSON),
/// and when it is worth offering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOffer {
    pub name: String,
    pub schema: String,
    pub need: Need,
}

/// An offer with its schema's count.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Counted {
    offer: ToolOffer,
    raw: u32,
}

/// What the next request offers, and what it leaves out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolsOffered {
    /// Names, in the order offered.
    pub offered: Vec<String>,
    /// Raw tokens of their schemas and the template's preamble (0 when none is offered).
    pub raw: u32,
    /// Tools the window has no room for now (not those waiting for their need).
    pub left_out: Vec<String>,
}

impl Engine {
    /// The tools the actor can offer (empty: none, e.g. a model without the `tools`
    /// capability), each counted once.
    pub(super) fn set_tools(&mut self, offers: Vec<ToolOffer>) {
        self.tools = offers
            .into_iter()
            .map(|offer| Counted {
                raw: self.tok.count(&offer.schema),
                offer,
            })
            .collect();
        self.refresh_offer();
    }

    /// What the next request offers (see the module docs).
    pub fn tools_offered(&self) -> &ToolsOffered {
        &self.offer
    }

    /// Decide the offer again: the state it depends on changed (a record, the window, the
    /// system prompt or the goal board).
    pub(super) fn refresh_offer(&mut self) {
        if self.replaying {
            return;
        }
        let mut out = ToolsOffered::default();
        if self.tools.is_empty() {
            self.offer = out;
            return;
        }
        let shortened = !self.reduced.is_empty()
            || self.active.messages().iter().any(|e| {
                e.role == Role::Tool
                    && self
                        .history
                        .get(e.id)
                        .and_then(|m| m.tool.as_ref())
                        .is_some_and(|t| t.original.is_some())
            });
        let in_use = self
            .active
            .messages()
            .iter()
            .any(|e| e.role == Role::Tool && self.watermark.is_none_or(|w| e.id > w));
        let folded = !self.active.checkpoints().is_empty();
        let cal = self.calibration();
        let cap = (f64::from(self.window()) * FIXED_SHARE) as u32;
        let fixed = cal.apply(self.system.raw.saturating_add(self.goal_part.raw));
        let mut raw = TOOLS_PREAMBLE_TOKENS;
        for t in &self.tools {
            let needed = match t.offer.need {
                Need::Always => true,
                Need::ShortenedResult => shortened,
                Need::Folded => folded,
                Need::ToolsInUse => in_use,
            };
            if !needed {
                continue;
            }
            if fixed.saturating_add(cal.apply(raw + t.raw)) <= cap {
                raw += t.raw;
                out.offered.push(t.offer.name.clone());
            } else {
                out.left_out.push(t.offer.name.clone());
            }
        }
        if !out.offered.is_empty() {
            out.raw = raw;
        }
        self.offer = out;
    }
}
