//! Layer 2 of keeping tool results small: when the context reaches the compression
//! trigger, older results go first. Before any conversation is folded, each large tool
//! result outside the newest exchange is cut to about a tenth of its original — from the
//! original (the saved file, or the message itself when it went in whole), never from
//! what the context already held — by the same kind-aware shortening a result gets when
//! it arrives. The call, the model's words and the order of steps stay as they were.
//!
//! Invariants: errors, pinned results and the newest exchange are never reduced; a
//! result is reduced once (its record names it, and it is never a candidate again); a
//! reduction that would not make a result smaller is not made. The reduction is a log
//! record and part of the active state, so replay and restore rebuild it.

use super::Engine;
use super::input::Effect;
use crate::core::events::EngineEvent;
use crate::core::message::{MessageId, Role};
use crate::core::record::RecordBody;
use crate::core::results;
use chrono::{DateTime, Utc};

/// Results whose original is longer than this are reduced at the trigger.
pub const REDUCE_ABOVE_CHARS: u64 = 5_000;

/// One older result to cut to `target` tokens, from its original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reduction {
    pub id: MessageId,
    pub tool: String,
    /// The saved original, when the context held a shortened form; else the message's
    /// own text is the original.
    pub file: Option<String>,
    pub target: u32,
}

impl Engine {
    /// The older tool results worth reducing now.
    pub(super) fn reducible_results(&self) -> Vec<Reduction> {
        let msgs = self.active.messages();
        let newest_exchange = msgs.iter().rposition(|e| e.role == Role::User).unwrap_or(0);
        msgs[..newest_exchange]
            .iter()
            .filter(|e| e.role == Role::Tool && !e.pinned && !e.tool_error && e.clip.is_none())
            .filter(|e| !self.reduced.contains_key(&e.id))
            .filter_map(|e| {
                let m = self.history.get(e.id)?;
                let tool = m.tool.as_ref()?;
                let chars = tool
                    .original
                    .as_ref()
                    .map_or(m.text.chars().count() as u64, |o| o.chars);
                // About four characters a token; a tenth of it, not below a short line.
                let target = u32::try_from(chars / 40).unwrap_or(u32::MAX).max(60);
                (chars > REDUCE_ABOVE_CHARS && target < e.tokens).then(|| Reduction {
                    id: e.id,
                    tool: tool.name.clone(),
                    file: tool.original.as_ref().map(|o| o.file.clone()),
                    target,
                })
            })
            .collect()
    }

    /// Carry out `items` (the answer to `ReduceResults`): each result cut down from its
    /// original — the saved file through `load`, or the message when it went in whole.
    /// One whose file `load` cannot give, or that needs no cut, is left out.
    pub fn reduce_with(
        &self,
        items: Vec<Reduction>,
        load: impl Fn(&str) -> Option<String>,
    ) -> Vec<(MessageId, String)> {
        items
            .into_iter()
            .filter_map(|r| {
                let original = match &r.file {
                    Some(file) => load(file)?,
                    None => self.history.get(r.id)?.text.clone(),
                };
                let short =
                    results::shorten(&r.tool, &original, r.target, r.id.0, self.tok.as_ref())?;
                Some((r.id, short.text))
            })
            .collect()
    }

    /// The reduced texts arrived: record each that is smaller, say what it freed, and
    /// go on with the compression if the context is still over its trigger.
    pub(super) fn results_reduced(
        &mut self,
        texts: Vec<(MessageId, String)>,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        let before = self.budget().total();
        let mut results = 0;
        for (id, text) in texts {
            let tokens = self.tok.count(&text);
            let smaller = self
                .active
                .messages()
                .iter()
                .any(|e| e.id == id && tokens < e.tokens);
            if !smaller || self.reduced.contains_key(&id) {
                continue;
            }
            self.commit(
                RecordBody::ResultReduced {
                    id,
                    text,
                    tokens: Some(tokens),
                },
                now,
                fx,
            );
            results += 1;
        }
        if results > 0 {
            fx.push(Effect::Event(EngineEvent::ResultsReduced {
                results,
                tokens_before: before,
                tokens_after: self.budget().total(),
            }));
        }
        // Whatever could not be reduced is not asked again: the fold comes next.
        self.reduce_tried = true;
        self.compress_in_background(now, fx);
        self.reduce_tried = false;
    }

    pub(super) fn apply_reduced(&mut self, id: MessageId, text: String, tokens: u32) {
        self.active.set_tokens(id, tokens, None);
        self.reduced.insert(id, (text, tokens));
        self.version += 1;
    }

    /// The text the model sees of message `id`, when it was reduced.
    pub(super) fn reduced_text(&self, id: MessageId) -> Option<&str> {
        self.reduced.get(&id).map(|(t, _)| t.as_str())
    }
}
