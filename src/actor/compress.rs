//! Executor of the engine's `Compress` effect: run the plan's summaries through the model
//! server, show progress, and hand the engine the outcome. While it runs the actor still
//! listens: Stop drops the run (nothing is applied, nothing changes) and read-only
//! commands are answered.
//!
//! Also the actor's side of the compression between turns (the task itself is
//! `background.rs`): its outcome handed to the engine when it ends between turns, a turn's
//! wait for it (`AwaitCompression`: Stop aborts it, nothing is applied, nothing is lost),
//! and Stop or a restore aborting it (what it would fold is gone).

use super::background;
use super::driver::{Actor, Job};
use crate::core::compress::{CompressionOutcome, CompressionPlan, Progress};
use crate::core::engine::Input;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use crate::view::Activity;
use chrono::Utc;
use std::time::Instant;
use tokio::task::JoinError;

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    /// Run a compression to its end (or the person's Stop) and give the engine the
    /// outcome; returns what the engine asks for next.
    pub(super) async fn compress(&mut self, plan: CompressionPlan) -> Option<Job> {
        let started = Instant::now();
        let what = plan.describe();
        tracing::info!(reason = ?plan.reason, intensity = ?plan.intensity, %what, tokens_before = plan.tokens_before, "compressing");
        self.out.set_activity(Activity::Compressing {
            since: started,
            what,
        });
        self.publish();
        let line = self.out.line();
        let progress = move |p: Progress| {
            line.set_activity(Activity::Compressing {
                since: started,
                what: format!("{} ({}/{})", p.what, p.step, p.of),
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
        self.out.set_activity(Activity::Idle);
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

    /// The background compression ended while the actor was between turns.
    pub(super) async fn background_ended(&mut self, out: Result<CompressionOutcome, JoinError>) {
        let since = self.bg.take().map(|b| b.since());
        self.out.line().set_background(None);
        let input = background::answer(out);
        if let Some(since) = since {
            tracing::info!(
                elapsed_ms = since.elapsed().as_millis() as u64,
                "background compression ended"
            );
        }
        self.feed(input).await;
    }

    /// A turn cannot go on without the background compression: wait for it, listening
    /// (Stop aborts it), with the spinner on.
    pub(super) async fn await_background(&mut self) -> Option<Job> {
        let input = match self.bg.take() {
            None => {
                tracing::error!("asked to wait for a background compression that is not running");
                Input::CompressionStopped
            }
            Some(mut bg) => {
                let what = self.out.background_what().unwrap_or_default();
                self.out.set_activity(Activity::Compressing {
                    since: bg.since(),
                    what,
                });
                self.publish();
                let out = self.listen(bg.task()).await;
                tracing::info!(
                    waited_ms = bg.since().elapsed().as_millis() as u64,
                    stopped = out.is_none(),
                    "a turn waited for the background compression"
                );
                match out {
                    Some(out) => background::answer(out),
                    None => {
                        bg.abort();
                        Input::CompressionStopped
                    }
                }
            }
        };
        self.out.line().set_background(None);
        self.out.set_activity(Activity::Idle);
        let fx = self.engine.handle(input, Utc::now());
        self.execute(fx)
    }

    /// Abort the background compression, if one runs, and tell the engine.
    pub(super) async fn stop_background(&mut self) {
        if let Some(bg) = self.bg.take() {
            bg.abort();
            self.out.line().set_background(None);
            tracing::info!("background compression stopped");
            self.feed(Input::CompressionStopped).await;
        }
    }
}
