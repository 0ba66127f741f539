//! `/check` run between replies (`core::check` draws and grades the questions; the
//! questions are made in `answers.rs`, with the context the next message would get): each
//! is asked in a task of its own, and the person's next message stops it — their reply
//! never waits behind a check.

use crate::core::check::{self, Graded, Probe};
use crate::llm::{ChatBackend, ChatRequest};
use std::time::Instant;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// What a check found, and how long it took.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub graded: Vec<Graded>,
    pub seconds: f64,
    pub model: String,
}

/// The check under way, if one is.
#[derive(Default)]
pub(super) struct Checker {
    running: Option<JoinHandle<()>>,
}

impl Checker {
    pub fn is_running(&self) -> bool {
        self.running.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Ask each question in turn on a task of its own; the report (or the first
    /// failure) goes to `reply`.
    pub fn start<B: ChatBackend>(
        &mut self,
        asks: Vec<(Probe, ChatRequest)>,
        backend: std::sync::Arc<B>,
        model: String,
        reply: oneshot::Sender<Result<CheckReport, String>>,
    ) {
        self.running = Some(tokio::spawn(async move {
            let start = Instant::now();
            let mut graded = Vec::new();
            for (probe, request) in asks {
                match backend.chat(request).await {
                    Ok(answer) => graded.push(check::grade(probe, answer.text)),
                    Err(e) => {
                        let _ = reply.send(Err(e.to_string()));
                        return;
                    }
                }
            }
            let _ = reply.send(Ok(CheckReport {
                graded,
                seconds: start.elapsed().as_secs_f64(),
                model,
            }));
        }));
    }

    /// The person sent a message: it goes first, the check ends unanswered.
    pub fn stop(&mut self) {
        if let Some(task) = self.running.take() {
            task.abort();
        }
    }
}
