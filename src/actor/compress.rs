//! Executor of the engine's `Compress` effect: run the plan's summaries through the model
//! server, show progress, and hand the engine the outcome. While it runs the actor still
//! listens: Stop drops the run (nothing is applied, nothing changes) and read-only
//! commands are answered.

use super::driver::{Actor, Job};
use super::summarizer::BackendSummarizer;
use crate::core::compress::{CompressionPlan, Progress};
use crate::core::engine::Input;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use crate::view::Activity;
use chrono::Utc;
use std::sync::Arc;
use std::time::Instant;

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    /// The summarizer of this session: the summary model on the summary server, with the
    /// chat's window (the same `num_ctx` keeps a shared model from reloading; a plan's
    /// inputs are made to fit it).
    pub(super) fn summarizer(&self) -> BackendSummarizer<B> {
        let own = self.cfg.summary_model.is_none();
        BackendSummarizer {
            backend: self.summary_backend.clone(),
            model: self
                .cfg
                .summary_model
                .clone()
                .unwrap_or_else(|| self.engine.model().to_string()),
            num_ctx: self.engine.ctx(),
            // A thinking model would spend the summary's token cap reasoning. Only the
            // chat model's capabilities are known; `think` for another model is left out
            // (Ollama refuses it for models that cannot think).
            think: (own && self.thinking_capable).then_some(crate::llm::Think::Off),
        }
    }

    /// Run a compression to its end (or the person's Stop) and give the engine the
    /// outcome; returns what the engine asks for next.
    pub(super) async fn compress(&mut self, plan: CompressionPlan) -> Option<Job> {
        let started = Instant::now();
        let what = plan.describe();
        tracing::info!(reason = ?plan.reason, intensity = ?plan.intensity, %what, tokens_before = plan.tokens_before, "compressing");
        self.activity = Activity::Compressing {
            since: started,
            what,
        };
        self.publish();
        let view = self.view.clone();
        let progress = move |p: Progress| {
            view.send_modify(|v| {
                let mut next = (**v).clone();
                next.activity = Activity::Compressing {
                    since: started,
                    what: format!("{} ({}/{})", p.what, p.step, p.of),
                };
                *v = Arc::new(next);
            });
        };
        let summarizer = self.summarizer();
        let outcome = self
            .listen(plan.run_with_progress(&summarizer, progress))
            .await;
        let elapsed_ms = started.elapsed().as_millis() as u64;
        let answer = match outcome {
            Some(mut outcome) => {
                outcome.elapsed_ms = Some(elapsed_ms);
                Input::Compressed(Box::new(outcome))
            }
            None => {
                tracing::info!(elapsed_ms, "compression stopped by the user");
                Input::CompressionStopped
            }
        };
        let stopped = matches!(answer, Input::CompressionStopped);
        self.activity = Activity::Idle;
        let fx = self.engine.handle(answer, Utc::now());
        let job = self.execute(fx);
        if !stopped {
            tracing::info!(
                elapsed_ms,
                tokens_after = self.engine.budget().total(),
                compressions = self.engine.compressions(),
                "compression done"
            );
        }
        job
    }
}
