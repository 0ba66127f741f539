//! The compression running between turns (`CompressInBackground`): its task, when it
//! started, and its progress on the view, from start to end.
//!
//! Strategy: the plan runs as its own tokio task, so the actor goes on answering commands
//! and sending messages while it does. At most one runs (the engine asks for no second,
//! and it alone decides when one stops: `CancelBackground`). Its progress is published in
//! [`SessionView::background`](crate::view::SessionView) while it runs and taken off when
//! it ends or is aborted, here only. The part [`Background`] only holds the task; handing
//! its outcome to the engine is `compress.rs`'s.

use super::publish::{ActivityLine, Publisher};
use super::summarizer::BackendSummarizer;
use crate::core::compress::{CompressionOutcome, CompressionPlan, Progress};
use crate::core::engine::Input;
use crate::llm::ChatBackend;
use crate::view::BackgroundWork;
use std::time::{Duration, Instant};
use tokio::task::{JoinError, JoinHandle};

/// The background compression, if one runs.
#[derive(Default)]
pub(super) struct Background {
    running: Option<Running>,
}

/// A compression running in its own task, and the line its progress shows on.
struct Running {
    task: JoinHandle<CompressionOutcome>,
    since: Instant,
    line: ActivityLine,
}

impl Running {
    /// Its progress leaves the view; how long it ran.
    fn over(self) -> Duration {
        self.line.set_background(None);
        self.since.elapsed()
    }
}

impl Background {
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Start `plan` in its own task, its progress on `out`'s view.
    pub fn start<B: ChatBackend>(
        &mut self,
        plan: CompressionPlan,
        summarizer: BackendSummarizer<B>,
        out: &Publisher,
    ) {
        if self.running.is_some() {
            // The engine asks for one at a time; a second would fold the same messages.
            tracing::error!("a second background compression was asked for; the first is dropped");
            self.abort();
        }
        let since = Instant::now();
        let what = plan.describe();
        tracing::info!(reason = ?plan.reason, %what, tokens_before = plan.tokens_before, "compressing in the background");
        let line = out.line();
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
        self.running = Some(Running {
            task,
            since,
            line: out.line(),
        });
    }

    /// Wait for the background compression, or forever when there is none (for `select!`).
    pub async fn done(&mut self) -> Result<CompressionOutcome, JoinError> {
        match &mut self.running {
            Some(r) => (&mut r.task).await,
            None => std::future::pending().await,
        }
    }

    /// The compression `done` returned is over: how long it ran.
    pub fn ended(&mut self) -> Option<Duration> {
        self.running.take().map(Running::over)
    }

    /// Abort the compression, if one runs (nothing it did is applied): how long it ran.
    pub fn abort(&mut self) -> Option<Duration> {
        let running = self.running.take()?;
        running.task.abort();
        Some(running.over())
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
