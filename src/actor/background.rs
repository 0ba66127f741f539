//! The compression running between turns (`CompressInBackground`): its task, when it
//! started, and its progress on the view.
//!
//! Strategy: the plan runs as its own tokio task, so the actor goes on answering commands
//! and sending messages while it does. At most one runs (the engine asks for no second).
//! Its progress is published in [`SessionView::background`](crate::view::SessionView).
//! The part [`Background`] only holds the task; handing its outcome to the engine (between
//! turns, when a turn waits for it, or stopped) is the driver's and `compress.rs`'s.

use super::publish::ActivityLine;
use super::summarizer::BackendSummarizer;
use crate::core::compress::{CompressionOutcome, CompressionPlan, Progress};
use crate::core::engine::Input;
use crate::llm::ChatBackend;
use crate::view::BackgroundWork;
use std::time::Instant;
use tokio::task::{JoinError, JoinHandle};

/// The background compression, if one runs.
#[derive(Default)]
pub(super) struct Background {
    running: Option<Running>,
}

/// A compression running in its own task.
pub(super) struct Running {
    task: JoinHandle<CompressionOutcome>,
    since: Instant,
}

impl Running {
    pub fn since(&self) -> Instant {
        self.since
    }

    /// Nothing it did is applied.
    pub fn abort(&self) {
        self.task.abort();
    }
}

impl Background {
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// The running compression, taken out (to wait for it, or abort it).
    pub fn take(&mut self) -> Option<Running> {
        self.running.take()
    }

    /// Start `plan` in its own task, its progress on `line`.
    pub fn start<B: ChatBackend>(
        &mut self,
        plan: CompressionPlan,
        summarizer: BackendSummarizer<B>,
        line: ActivityLine,
    ) {
        if let Some(old) = self.running.take() {
            // The engine asks for one at a time; a second would fold the same messages.
            tracing::error!("a second background compression was asked for; the first is dropped");
            old.abort();
        }
        let since = Instant::now();
        let what = plan.describe();
        tracing::info!(reason = ?plan.reason, %what, tokens_before = plan.tokens_before, "compressing in the background");
        line.set_background(Some(BackgroundWork { since, what }));
        let progress = move |p: Progress| {
            let what = format!("{} ({}/{})", p.what, p.step, p.of);
            line.set_background(Some(BackgroundWork {
                since,
                what: what.clone(),
            }));
        };
        let task = tokio::spawn(async move {
            let started = std::time::Instant::now();
            let mut outcome = plan.run_with_progress(&summarizer, progress).await;
            outcome.elapsed_ms = Some(started.elapsed().as_millis() as u64);
            outcome
        });
        self.running = Some(Running { task, since });
    }

    /// Wait for the background compression, or forever when there is none (for `select!`).
    pub async fn done(&mut self) -> Result<CompressionOutcome, JoinError> {
        match &mut self.running {
            Some(r) => (&mut r.task).await,
            None => std::future::pending().await,
        }
    }
}

/// What the engine is told of a compression's end.
pub(super) fn answer(out: Result<CompressionOutcome, JoinError>) -> Input {
    match out {
        Ok(outcome) => Input::Compressed(Box::new(outcome)),
        Err(e) => {
            tracing::error!(%e, "the background compression failed to finish");
            Input::CompressionStopped
        }
    }
}
