//! Executor of the engine's background compression (`CompressInBackground`) and of a
//! turn's wait for it (`AwaitCompression`).
//!
//! Strategy: the plan runs as its own tokio task, so the actor goes on answering commands
//! and sending messages while it does; the outcome is handed to the engine when the actor
//! is between turns (the loop's `select!`), or when a turn waits for it. At most one runs
//! (the engine asks for no second). Its progress is published in
//! [`SessionView::background`](crate::view::SessionView), and in the activity while a turn
//! waits. Stop while a turn waits, or while nothing else runs, aborts it: nothing is
//! applied, nothing is lost. A restore aborts it too (what it would fold is gone).

use super::driver::{Actor, Job};
use crate::core::compress::{CompressionOutcome, CompressionPlan, Progress};
use crate::core::engine::Input;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use crate::view::{Activity, BackgroundWork};
use chrono::Utc;
use std::sync::Arc;
use std::time::Instant;
use tokio::task::{JoinError, JoinHandle};

/// The compression running in the background.
pub(crate) struct Background {
    pub task: JoinHandle<CompressionOutcome>,
    pub since: Instant,
}

/// Wait for the background compression, or forever when there is none (for `select!`).
pub(super) async fn background_done(
    bg: &mut Option<Background>,
) -> Result<CompressionOutcome, JoinError> {
    match bg {
        Some(b) => (&mut b.task).await,
        None => std::future::pending().await,
    }
}

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    pub(super) fn start_background(&mut self, plan: CompressionPlan) {
        if let Some(old) = self.bg.take() {
            // The engine asks for one at a time; a second would fold the same messages.
            tracing::error!("a second background compression was asked for; the first is dropped");
            old.task.abort();
        }
        let since = Instant::now();
        let what = plan.describe();
        tracing::info!(reason = ?plan.reason, %what, tokens_before = plan.tokens_before, "compressing in the background");
        let view = self.view.clone();
        set_background(&view, Some(BackgroundWork { since, what }));
        let progress = move |p: Progress| {
            let what = format!("{} ({}/{})", p.what, p.step, p.of);
            set_background(
                &view,
                Some(BackgroundWork {
                    since,
                    what: what.clone(),
                }),
            );
        };
        let summarizer = self.summarizer();
        let task = tokio::spawn(async move {
            let started = std::time::Instant::now();
            let mut outcome = plan.run_with_progress(&summarizer, progress).await;
            outcome.elapsed_ms = Some(started.elapsed().as_millis() as u64);
            outcome
        });
        self.bg = Some(Background { task, since });
    }

    /// The background compression ended while the actor was between turns.
    pub(super) async fn background_ended(&mut self, out: Result<CompressionOutcome, JoinError>) {
        let since = self.bg.take().map(|b| b.since);
        set_background(&self.view, None);
        let input = answer(out);
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
                let what = self
                    .view
                    .borrow()
                    .background
                    .as_ref()
                    .map(|b| b.what.clone())
                    .unwrap_or_default();
                self.activity = Activity::Compressing {
                    since: bg.since,
                    what,
                };
                self.publish();
                let out = self.listen(&mut bg.task).await;
                tracing::info!(
                    waited_ms = bg.since.elapsed().as_millis() as u64,
                    stopped = out.is_none(),
                    "a turn waited for the background compression"
                );
                match out {
                    Some(out) => answer(out),
                    None => {
                        bg.task.abort();
                        Input::CompressionStopped
                    }
                }
            }
        };
        set_background(&self.view, None);
        self.activity = Activity::Idle;
        let fx = self.engine.handle(input, Utc::now());
        self.execute(fx)
    }

    /// Abort the background compression, if one runs, and tell the engine.
    pub(super) async fn stop_background(&mut self) {
        if let Some(bg) = self.bg.take() {
            bg.task.abort();
            set_background(&self.view, None);
            tracing::info!("background compression stopped");
            self.feed(Input::CompressionStopped).await;
        }
    }
}

fn answer(out: Result<CompressionOutcome, JoinError>) -> Input {
    match out {
        Ok(outcome) => Input::Compressed(Box::new(outcome)),
        Err(e) => {
            tracing::error!(%e, "the background compression failed to finish");
            Input::CompressionStopped
        }
    }
}

/// Publish the background work (and, while a turn waits for it, the activity's text).
fn set_background(
    view: &tokio::sync::watch::Sender<Arc<crate::view::SessionView>>,
    work: Option<BackgroundWork>,
) {
    view.send_modify(|v| {
        let mut next = (**v).clone();
        if let (Some(w), Activity::Compressing { what, .. }) = (&work, &mut next.activity) {
            what.clone_from(&w.what);
        }
        next.background = work;
        *v = Arc::new(next);
    });
}
