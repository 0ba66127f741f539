//! Executor of layer 1: a huge tool result read through by the summary model before it
//! enters the context (the plan and its checks are the engine's, `Engine::digest_plan`).
//! Progress shows on the activity line; Stop skips the reading — the result then goes in
//! shortened by kind, and the calls go on (a second Stop ends them).

use super::driver::Actor;
use crate::core::engine::Digestion;
use crate::core::message::ToolCall;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use crate::view::{Activity, Notice};
use std::time::Instant;

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    /// The model's notes on `result`, when the engine wants them and the model made
    /// usable ones; `None`: the engine shortens the result instead.
    pub(super) async fn digest(&mut self, call: &ToolCall, result: &str) -> Option<String> {
        let (plan, secs) = match self.engine.digest_plan(call, result) {
            Digestion::No => return None,
            Digestion::TooSlow { secs, limit } => {
                tracing::info!(tool = %call.name, secs, limit, "a large result is shortened: reading it through would take too long");
                self.out.notice(Notice::ReadingTooSlow {
                    tool: call.name.clone(),
                    secs,
                    limit,
                });
                return None;
            }
            Digestion::Read { plan, secs } => (plan, secs),
        };
        let since = Instant::now();
        // "about 40 s", once the server's speed is known.
        let about = secs.map_or(String::new(), |s| format!(", about {s} s"));
        self.out.set_activity(Activity::Tool {
            since,
            what: format!(
                "reading the {} result through (0/{}{about})",
                call.name,
                plan.parts.len()
            ),
        });
        self.publish();
        let line = self.out.line();
        let name = call.name.clone();
        let progress = move |done: usize, of: usize| {
            line.set_activity(Activity::Tool {
                since,
                what: format!("reading the {name} result through ({done}/{of}{about})"),
            });
        };
        let summarizer = self.summarizer();
        let tok = self.engine.tokenizer().clone();
        let parts = plan.parts.len();
        let run = async move { plan.run(&summarizer, tok.as_ref(), progress).await };
        match self.listen(run).await {
            Some(Ok(d)) => {
                tracing::info!(tool = %call.name, parts, calls = d.calls, ms = since.elapsed().as_millis() as u64, "result read through");
                Some(d.text)
            }
            Some(Err(e)) => {
                tracing::warn!(tool = %call.name, error = %e, "no digest of a large result; it is shortened instead");
                None
            }
            None => {
                tracing::info!(tool = %call.name, "reading a large result through was skipped");
                None
            }
        }
    }
}
