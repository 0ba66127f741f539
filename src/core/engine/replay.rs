//! Rebuilding a session from its log: a new engine, every stored record applied in order
//! through the same function live operation uses. A record that cannot be applied is
//! reported and skipped; the rest still apply. Prompt parts are rendered and counted once
//! at the end, not after every record (that made loading a long session ~100x slower),
//! and the active messages are counted from their text then, whatever the log says.

use super::{Engine, EngineConfig, SessionSpec};
use crate::core::prompts::Prompts;
use crate::core::record::{Header, Record};
use crate::core::tokens::Tokenizer;
use std::sync::Arc;

/// What replay could not apply (the rest was applied).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplayReport {
    pub applied: usize,
    pub issues: Vec<String>,
}

impl Engine {
    /// Rebuild a session from its log. Records that cannot be applied are reported and
    /// skipped; the rest still apply.
    pub fn replay(
        header: &Header,
        records: &[Record],
        cfg: EngineConfig,
        tok: Arc<dyn Tokenizer>,
        prompts: Arc<Prompts>,
    ) -> (Engine, ReplayReport) {
        Self::replay_with(header, records.iter(), cfg, tok, prompts, |e, r| {
            e.apply_stored(r)
        })
    }

    /// [`Self::replay`] consuming the records, so message text is moved, not copied.
    pub fn replay_owned(
        header: &Header,
        records: Vec<Record>,
        cfg: EngineConfig,
        tok: Arc<dyn Tokenizer>,
        prompts: Arc<Prompts>,
    ) -> (Engine, ReplayReport) {
        Self::replay_with(
            header,
            records,
            cfg,
            tok,
            prompts,
            Engine::apply_stored_owned,
        )
    }

    fn replay_with<R: std::borrow::Borrow<Record>>(
        header: &Header,
        records: impl IntoIterator<Item = R>,
        cfg: EngineConfig,
        tok: Arc<dyn Tokenizer>,
        prompts: Arc<Prompts>,
        mut apply: impl FnMut(&mut Engine, R) -> Result<(), String>,
    ) -> (Engine, ReplayReport) {
        let mut e = Engine::new(
            SessionSpec {
                session_id: header.session_id.clone(),
                model: header.model.clone(),
                mode: header.mode,
                ctx: header.ctx,
                params: header.params.clone(),
            },
            cfg,
            tok,
            prompts,
            header.created,
        );
        let mut report = ReplayReport::default();
        // The prompt parts are rendered and counted once at the end, not after every
        // checkpoint and goal record (that made loading a long session ~100x slower).
        e.replaying = true;
        for r in records {
            let seq = r.borrow().seq;
            match apply(&mut e, r) {
                Ok(()) => report.applied += 1,
                Err(issue) => report.issues.push(format!("record {seq}: {issue}")),
            }
        }
        e.replaying = false;
        e.recount_active();
        e.rebuild_system();
        e.rebuild_goals();
        e.rebuild_checkpoints();
        e.refresh_offer();
        (e, report)
    }

    /// Count again, from their text, the messages the next request carries. A record's
    /// cached `tokens` saves counting on replay, but it is only what the file says: a
    /// crafted log (a 100 MB message with `"tokens": 3`) must not make the engine send an
    /// over-budget request. Only the active messages are counted (their total is about a
    /// context's worth), so a long session still opens fast.
    pub(super) fn recount_active(&mut self) {
        use crate::core::context::clipped_text;
        let counted: Vec<_> = self
            .active
            .messages()
            .iter()
            .filter_map(|e| {
                let m = self.history.get(e.id)?;
                let tokens = match (self.reduced.get(&e.id), &e.clip) {
                    (Some((text, _)), _) => self.tok.count(text),
                    (None, Some(clip)) => self.tok.count(&clipped_text(&m.text, Some(clip))),
                    // A reply's calls are part of what the model sees of it.
                    (None, None) => m.calls.iter().fold(self.tok.count(&m.text), |n, c| {
                        n.saturating_add(self.tok.count(&c.name))
                            .saturating_add(self.tok.count(&c.args))
                    }),
                };
                // Its pictures cost what they were counted at (`pictures.rs`).
                let tokens = tokens.saturating_add(self.images_counted(e.id, m.images.len()));
                (tokens != e.tokens).then_some((e.id, tokens, e.clip))
            })
            .collect();
        for (id, tokens, clip) in counted {
            self.active.set_tokens(id, tokens, clip);
            if let Some(r) = self.reduced.get_mut(&id) {
                r.1 = tokens;
            } else if clip.is_none()
                && let Some(m) = self.history.get_mut(id)
            {
                m.tokens = tokens;
            }
        }
    }

    /// The header line for this session's log.
    pub fn header(&self, app_version: &str) -> Header {
        Header {
            app_version: app_version.to_string(),
            ..self.settings.clone()
        }
    }
}
