//! Rebuilding a session from its log: a new engine, every stored record applied in order
//! through the same function live operation uses. A record that cannot be applied is
//! reported and skipped; the rest still apply. Prompt parts are rendered and counted once
//! at the end, not after every record (that made loading a long session ~100x slower).

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
        e.rebuild_system();
        e.rebuild_goals();
        e.rebuild_checkpoints();
        (e, report)
    }

    /// The header line for this session's log.
    pub fn header(&self, app_version: &str) -> Header {
        Header {
            app_version: app_version.to_string(),
            ..self.settings.clone()
        }
    }
}
