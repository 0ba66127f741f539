//! What is sent: the request built from the active context, and the budget it is measured
//! against. The system prompt, goal board and checkpoint list are rendered and counted
//! once when they change (cached [`Part`]s), so building a request or reading the budget
//! never re-counts history.

use super::{Engine, Part};
use crate::core::budget::{Budget, MIN_RESERVE_TOKENS, RESERVE_SAMPLES, reserve_for};
use crate::core::checkpoint::{Checkpoint, CheckpointId};
use crate::core::context::clipped_text;
use crate::core::ledger::{self, LedgerLine};
use crate::core::log_recall::RecalledLine;
use crate::core::message::{MessageId, ReplyStatus, Role, ToolCall};
use crate::core::mode::Tier;
use crate::core::prompts::fill;
use crate::core::tokens::{MESSAGE_OVERHEAD_TOKENS, REQUEST_OVERHEAD_TOKENS};
use serde::Serialize;

/// Models smaller than this (billions of parameters) are not taught the goal-marker
/// lines: they echo the instructions instead of following them.
const MARKERS_MIN_BILLIONS: f64 = 1.0;

/// A message role as the chat API knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptRole {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptMessage {
    pub role: PromptRole,
    pub content: String,
    /// An assistant message's tool calls, sent back so the model sees what it asked.
    pub tool_calls: Vec<ToolCall>,
    /// A tool result's tool and the call it answers (Ollama's `tool_name`, `tool_call_id`).
    pub tool_name: Option<String>,
    pub tool_call_id: Option<String>,
    /// The pictures of a person's message still active: the actor sends their bytes
    /// (Ollama's `images`); a folded message's pictures are gone with it.
    pub images: Vec<crate::core::image::ImageRef>,
}

impl PromptMessage {
    pub fn new(role: PromptRole, content: String) -> Self {
        PromptMessage {
            role,
            content,
            tool_calls: Vec::new(),
            tool_name: None,
            tool_call_id: None,
            images: Vec::new(),
        }
    }
}

/// A request ready to send: built only from the active context.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatPrompt {
    pub model: String,
    pub num_ctx: u32,
    pub messages: Vec<PromptMessage>,
    /// Our uncalibrated estimate (kept with the reply for calibration).
    pub raw_estimate: u32,
    /// Calibrated estimate; never above `num_ctx − reserve`.
    pub estimate: u32,
    /// What is left of the context for the reply, less `ESTIMATE_SLACK` of the prompt
    /// (see [`max_reply`]). Sent as `num_predict`: a model stuck in a loop stops there
    /// even on a server that would otherwise go on past the window.
    pub max_reply: u32,
    /// Lines of folded messages quoted into the request (recall from the log), for the
    /// transcript and the inspector.
    pub recalled: Vec<RecalledLine>,
    /// The tools offered, by name, in order (their schemas are in `raw_estimate`).
    pub tools: Vec<String>,
    /// Folded pictures the person's message asks about, brought back on it for this
    /// turn (`picture_recall`; counted in `raw_estimate`).
    pub pictures_back: Vec<crate::core::image::ImageRef>,
}

/// The least the budget expects the person's next message to take, in tokens.
const MIN_NEXT_MESSAGE: u32 = 32;

/// Share of a prompt's estimate kept out of the reply cap. The calibrated estimate runs
/// a few percent short of the model's own count for some kinds of text; with the cap at
/// exactly what is left, the real prompt plus the cap passed the window by that much, and
/// a server that keeps room for the reply dropped the oldest message (seen on the real
/// 0.5B model: 3,139 tokens sent against an estimate of 3,113 at ctx 4096). Ollama itself
/// would shift the context mid-reply instead.
pub const ESTIMATE_SLACK: f64 = 0.05;

/// The reply cap for a prompt of `estimate` tokens in a window of `ctx`: what is left less
/// the slack, but never below the reserve's floor when that much is left (a short answer
/// must always fit; the slack gives way first).
pub fn max_reply(ctx: u32, estimate: u32) -> u32 {
    let left = ctx.saturating_sub(estimate);
    let slack = (f64::from(estimate) * ESTIMATE_SLACK).ceil() as u32;
    left.saturating_sub(slack).max(left.min(MIN_RESERVE_TOKENS))
}

impl Engine {
    /// The budget. When the server was seen truncating, it is measured against the window
    /// the server really used, not the num_ctx it was sent (which is still sent).
    pub fn budget(&self) -> Budget {
        // The window the server loaded (when it said it is smaller than asked) sets the
        // reserve too; a window learned from truncation is what prompts may fill.
        let window = self.window();
        let reserve = reserve_for(window, self.cfg.budget.reserve_tokens, &self.reply_lengths);
        let budget_ctx = self
            .server_limit
            .map_or(window, |limit| window.min(limit.saturating_add(reserve)));
        let cal = self.calibration();
        let b = Budget::compute(
            budget_ctx,
            reserve,
            cal.apply(self.system.raw),
            cal.apply(self.offer.raw),
            cal.apply(self.goal_part.raw),
            cal.apply(self.checkpoint_part.raw),
            cal.apply(self.active.messages_raw()),
            self.cfg.budget.compress_at,
        );
        // Recall has room whenever something is folded (it is the only way a question
        // about a folded fact the ledger lost finds its answer).
        let recall = self.recall_room(&b);
        b.with_room_for(
            recall,
            cal.apply(self.next_message_estimate()),
            self.cfg.budget.compress_at,
        )
    }

    /// What the person's next message will likely take: the longest of their last few,
    /// short ones excepted (at least [`MIN_NEXT_MESSAGE`] tokens with its overhead).
    fn next_message_estimate(&self) -> u32 {
        let mut lengths: Vec<u32> = self
            .history
            .iter()
            .rev()
            .filter(|m| m.role == Role::User)
            .take(RESERVE_SAMPLES)
            .map(|m| m.tokens + MESSAGE_OVERHEAD_TOKENS)
            .collect();
        lengths.sort_unstable();
        let p90 = lengths
            .get((lengths.len() * 9 / 10).min(lengths.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0);
        p90.max(MIN_NEXT_MESSAGE)
    }

    /// The request for the current state (what the next `Chat` would carry).
    pub fn prompt(&self) -> ChatPrompt {
        self.prompt_with(None)
    }

    /// The request the person's `text` would go out in if they sent it now, recall
    /// included — nothing is recorded (the benchmark asks its quiz this way, and a view
    /// of "what the model would see" can). It may be over budget when the state is.
    pub fn prompt_for(&self, text: &str) -> ChatPrompt {
        self.prompt_with(Some((text, None)))
    }

    /// [`Self::prompt_for`] with the vector of `text` from the embedding model whose
    /// vectors the session holds: recall finds folded lines by meaning too.
    pub fn prompt_for_with(&self, text: &str, vector: Option<&[f32]>) -> ChatPrompt {
        self.prompt_with(Some((text, vector)))
    }

    fn prompt_with(&self, next: Option<(&str, Option<&[f32]>)>) -> ChatPrompt {
        let mut messages = Vec::with_capacity(self.active.messages().len() + 2);
        let system = if self.goal_part.text.is_empty() {
            self.system.text.clone()
        } else {
            format!("{}\n\n{}", self.system.text, self.goal_part.text)
        };
        messages.push(PromptMessage::new(PromptRole::System, system));
        if !self.checkpoint_part.text.is_empty() {
            messages.push(PromptMessage::new(
                PromptRole::System,
                self.checkpoint_part.text.clone(),
            ));
        }
        let active = self.active.messages();
        let mut skipped_raw = 0u32;
        // The person's message this request answers: recall searches for it.
        let mut answering: Option<(usize, &str, Option<MessageId>)> = None;
        for (i, e) in active.iter().enumerate() {
            let Some(m) = self.history.get(e.id) else {
                continue;
            };
            // A reply that broke off is context for what the person says next, but not
            // when it is being retried (it is last) or was retried (a reply follows it):
            // then the model answers afresh rather than continuing the fragment. Pinned
            // messages are always sent.
            if m.role == Role::Assistant
                && m.status == ReplyStatus::Interrupted
                && !e.pinned
                && active
                    .get(i + 1)
                    .is_none_or(|next| next.role == Role::Assistant)
            {
                skipped_raw = skipped_raw.saturating_add(e.cost());
                continue;
            }
            match m.role {
                Role::User => answering = Some((messages.len(), m.text.as_str(), Some(m.id))),
                // A complete answer: nothing is being answered (until tool calls follow).
                Role::Assistant if m.calls.is_empty() => answering = None,
                _ => {}
            }
            messages.push(PromptMessage {
                role: match m.role {
                    Role::User => PromptRole::User,
                    Role::Assistant => PromptRole::Assistant,
                    Role::Tool => PromptRole::Tool,
                },
                content: match self.reduced_text(m.id) {
                    Some(reduced) => reduced.to_string(),
                    None => clipped_text(&m.text, e.clip.as_ref()),
                },
                // Before a finished task's watermark the results are gone: so are the calls.
                tool_calls: if self.watermark.is_some_and(|w| m.id <= w) {
                    Vec::new()
                } else {
                    m.calls.clone()
                },
                tool_name: m.tool.as_ref().map(|t| t.name.clone()),
                tool_call_id: m.tool.as_ref().and_then(|t| t.call_id.clone()),
                images: m.images.clone(),
            });
        }
        let mut raw_estimate = self
            .system
            .raw
            .saturating_add(self.offer.raw)
            .saturating_add(self.goal_part.raw)
            .saturating_add(self.checkpoint_part.raw)
            .saturating_add(self.active.messages_raw())
            .saturating_sub(skipped_raw);
        let mut next_vector = None;
        if let Some((text, vector)) = next {
            answering = Some((messages.len(), text, None));
            next_vector = vector;
            messages.push(PromptMessage::new(PromptRole::User, text.to_string()));
            raw_estimate = raw_estimate
                .saturating_add(self.tok.count(text))
                .saturating_add(MESSAGE_OVERHEAD_TOKENS);
        }
        let mut recalled = Vec::new();
        if let Some((at, query, id)) = answering
            && let Some((text, raw, lines)) = self.recall_slot(
                query,
                next_vector.or_else(|| self.query_vector(id)),
                raw_estimate,
            )
        {
            messages.insert(at, PromptMessage::new(PromptRole::System, text));
            raw_estimate = raw_estimate.saturating_add(raw);
            recalled = lines;
        }
        // The folded picture asked about comes back on the message asking, if it fits.
        let mut pictures_back = Vec::new();
        if let Some((at, query, _)) = answering
            && let Some((pictures, raw)) = self.pictures_back(query, raw_estimate)
        {
            let at = at + usize::from(!recalled.is_empty());
            if let Some(m) = messages.get_mut(at) {
                m.images.extend(pictures.iter().cloned());
                raw_estimate = raw_estimate.saturating_add(raw);
                pictures_back = pictures;
            }
        }
        let estimate = self.calibration().apply(raw_estimate);
        ChatPrompt {
            model: self.settings.model.clone(),
            num_ctx: self.ctx(),
            messages,
            raw_estimate,
            estimate,
            max_reply: max_reply(self.budget().ctx, estimate),
            recalled,
            tools: self.offer.offered.clone(),
            pictures_back,
        }
    }

    // ----- cached prompt parts -----

    pub(super) fn rebuild_system(&mut self) {
        if self.replaying {
            return;
        }
        let chat = &self.prompts.chat;
        // Measured on Qwen2.5-Coder 0.5B with tools offered: taught the marker lines, it
        // wrote the template back ("[GOAL] Read a text file…") instead of answering or
        // calling the tool (read_file ran in 2 of 10 tries; without them, 8 of 10).
        let too_small = self
            .model_billions
            .is_some_and(|b| b < MARKERS_MIN_BILLIONS);
        let text = if self.tier() == Tier::T1 {
            format!(
                "{}\n{}",
                chat.base_short.trim(),
                chat.modes.get(self.settings.mode)
            )
        } else if too_small {
            format!(
                "{}\n{}",
                chat.base.trim(),
                chat.modes.get(self.settings.mode)
            )
        } else {
            format!(
                "{}\n{}\n\n{}",
                chat.base.trim(),
                chat.modes.get(self.settings.mode),
                chat.markers.trim()
            )
        };
        // The person's own system prompt goes beside the app's instructions, never in
        // their place (they keep the context manageable), and is counted like them.
        let text = match self.settings.params.system.as_deref().map(str::trim) {
            Some(own) if !own.is_empty() => format!("{text}\n\n{own}"),
            _ => text,
        };
        let raw = self.tok.count(&text) + MESSAGE_OVERHEAD_TOKENS + REQUEST_OVERHEAD_TOKENS;
        self.system = Part { text, raw };
        self.refresh_offer();
    }

    pub(super) fn rebuild_goals(&mut self) {
        if self.replaying {
            return;
        }
        self.goal_part = if self.goals.is_empty() {
            Part::default()
        } else {
            let text = format!(
                "{}\n{}",
                self.prompts.chat.goal_header,
                self.goals.render_for_prompt().trim_end()
            );
            let raw = self.tok.count(&text) + 2;
            Part { text, raw }
        };
        self.refresh_offer();
    }

    pub(super) fn rebuild_checkpoints(&mut self) {
        if self.replaying {
            return;
        }
        self.ledger_fitted_for = self.ledger_budget();
        let cps: Vec<&Checkpoint> = self.active.checkpoints().iter().collect();
        // Merging the ledger costs a comparison of every line with every other: done once
        // per change of the checkpoints, not on every rendering (the budget moves often).
        let ids: Vec<CheckpointId> = cps.iter().map(|c| c.id).collect();
        if self.merged_ledger.0 != ids {
            let merged = ledger::merge(cps.iter().flat_map(|c| &c.facts));
            let edited = self.fact_edits.apply(merged.clone());
            self.folded_facts = merged;
            self.merged_ledger = (ids, ledger::prepare(edited, self.tok.as_ref()));
        }
        let (part, dropped, facts) = if cps.is_empty() {
            (Part::default(), (0, 0), FactsCarried::default())
        } else {
            let (text, dropped, facts) = self.render_with_ledger(&cps, &self.merged_ledger.1);
            let raw = if text.is_empty() {
                0
            } else {
                self.tok.count(&text) + MESSAGE_OVERHEAD_TOKENS
            };
            (Part { text, raw }, dropped, facts)
        };
        self.checkpoint_part = part;
        self.ledger_dropped = dropped;
        self.facts_carried = facts;
        self.refresh_recall();
    }

    /// Re-fit the ledger when its budget moved since the checkpoints' message was built
    /// (a new reply changed the reserve, a goal or the window changed): the request then
    /// depends only on the state, as replay rebuilds it. Cheap when nothing moved.
    pub(super) fn sync_ledger(&mut self) {
        if !self.active.checkpoints().is_empty() && self.ledger_budget() != self.ledger_fitted_for {
            self.rebuild_checkpoints();
        }
    }

    /// Lines the fact ledger shows in the request now.
    pub(super) fn ledger_shown(&self) -> usize {
        self.checkpoint_part
            .text
            .split_once(&self.prompts.chat.ledger_header)
            .map_or(0, |(_, lines)| {
                lines.lines().filter(|l| l.starts_with("- ")).count()
            })
    }

    /// Tokens the fact ledger may take.
    pub(super) fn ledger_budget(&self) -> u32 {
        self.budget().ledger_budget()
    }

    /// The checkpoints' message: the header, each summary without the sentences a
    /// later correction replaced, then the fact ledger of them all (superseded lines
    /// out, fitted to its share of the room).
    pub(super) fn render_checkpoints(&self, cps: &[&Checkpoint]) -> String {
        self.render_checkpoints_counted(cps).0
    }

    /// [`Self::render_checkpoints`], with how many of the person's and the model's
    /// ledger lines did not fit.
    fn render_checkpoints_counted(&self, cps: &[&Checkpoint]) -> (String, (usize, usize)) {
        let folded = ledger::merge(cps.iter().flat_map(|c| &c.facts));
        let (text, dropped, _) =
            self.render_with_ledger(cps, &ledger::prepare(folded, self.tok.as_ref()));
        (text, dropped)
    }

    /// The checkpoints' message with the folded ledger `folded` (their lines, merged and
    /// prepared for fitting).
    fn render_with_ledger(
        &self,
        cps: &[&Checkpoint],
        folded: &[ledger::Prepared],
    ) -> (String, (usize, usize), FactsCarried) {
        let said = self.corrections_said();
        // Without corrections said since the fold, the folded ledger stands as it is.
        let (standing, corrections): (Vec<ledger::Prepared>, Vec<LedgerLine>) = if said.is_empty() {
            let corrections = folded
                .iter()
                .filter(|p| p.line.corrects)
                .map(|p| p.line.clone())
                .collect();
            (Vec::new(), corrections)
        } else {
            let lines: Vec<LedgerLine> = folded.iter().map(|p| p.line.clone()).collect();
            let (shown, all) = ledger::settle(lines, &said);
            let keep: std::collections::HashSet<&str> =
                shown.iter().map(|l| l.text.as_str()).collect();
            let mut standing: Vec<ledger::Prepared> = folded
                .iter()
                .filter(|p| keep.contains(p.line.text.as_str()))
                .cloned()
                .collect();
            // Lines a correction rewrote are new: prepared here, once per render.
            let had: std::collections::HashSet<&str> =
                folded.iter().map(|p| p.line.text.as_str()).collect();
            let rewritten: Vec<LedgerLine> = shown
                .iter()
                .filter(|l| !had.contains(l.text.as_str()))
                .cloned()
                .collect();
            standing.extend(ledger::prepare(rewritten, self.tok.as_ref()));
            (standing, all.into_iter().filter(|l| l.corrects).collect())
        };
        let prepared = if said.is_empty() {
            folded
        } else {
            standing.as_slice()
        };
        let all = corrections;
        // Folds without a summary (the facts are in the ledger) take no room of their own.
        let mut text = String::new();
        for cp in cps.iter().filter(|c| !c.summary.trim().is_empty()) {
            if text.is_empty() {
                text = self.prompts.chat.checkpoints_header.clone();
            }
            let summary = ledger::drop_replaced(&cp.summary, &all);
            text.push_str(&self.entry_with(cp, &summary));
        }
        let summaries = if text.is_empty() {
            0
        } else {
            self.tok.count(&text)
        };
        let fitted = ledger::fit_prepared(prepared, self.budget().ledger_budget_beside(summaries));
        if !fitted.lines.is_empty() {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&ledger::render(&self.prompts.chat.ledger_header, &fitted));
        }
        let shown: std::collections::HashSet<&str> =
            fitted.lines.iter().map(|(l, _)| l.text.as_str()).collect();
        let facts = FactsCarried {
            shown: shown.iter().map(|s| s.to_string()).collect(),
            stated: prepared.iter().filter(|p| p.line.user).count(),
            missing: prepared
                .iter()
                .filter(|p| p.line.user && !shown.contains(p.line.text.as_str()))
                .map(|p| p.line.text.clone())
                .collect(),
        };
        (text, (fitted.dropped_user, fitted.dropped_model), facts)
    }

    /// The ledger's corrections standing now — folded, and said since but not folded yet:
    /// what summaries and recalled quotes are sent without.
    pub(super) fn corrections(&self) -> Vec<LedgerLine> {
        let folded: Vec<LedgerLine> = self
            .merged_ledger
            .1
            .iter()
            .map(|p| p.line.clone())
            .collect();
        let said = self.corrections_said();
        let all = if said.is_empty() {
            folded
        } else {
            ledger::settle(folded, &said).1
        };
        all.into_iter().filter(|l| l.corrects).collect()
    }

    /// The lines of the person's messages not folded yet that may correct an earlier
    /// value ([`ledger::corrections_said`]).
    fn corrections_said(&self) -> Vec<LedgerLine> {
        self.active
            .messages()
            .iter()
            .filter(|e| e.role == Role::User)
            .filter_map(|e| self.history.get(e.id))
            .flat_map(|m| ledger::corrections_said(&m.text))
            .collect()
    }

    /// One checkpoint as it appears in the request, after the header.
    pub(super) fn checkpoint_entry(&self, cp: &Checkpoint) -> String {
        self.entry_with(cp, &cp.summary)
    }

    /// A checkpoint's label, then `summary` in place of its own.
    fn entry_with(&self, cp: &Checkpoint, summary: &str) -> String {
        let range = match cp.range() {
            Some((a, b)) if a == b => format!("{a}"),
            Some((a, b)) => format!("{a}–{b}"),
            None => String::new(),
        };
        let label = fill(
            &self.prompts.chat.checkpoint_label,
            &[
                ("number", &cp.number.to_string()),
                ("level", cp.level.name()),
                ("range", &range),
            ],
        );
        format!("\n\n{label}\n{summary}")
    }
}

/// The person's facts from folded messages (the ledger's lines, corrections settled) and
/// those the next request does not carry: what the badge counts and the panel lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FactsCarried {
    pub stated: usize,
    pub missing: Vec<String>,
    /// Every line the ledger shows (the person's and the model's), for `/facts`.
    pub shown: std::collections::HashSet<String>,
}

impl FactsCarried {
    pub fn carried(&self) -> usize {
        self.stated.saturating_sub(self.missing.len())
    }
}
