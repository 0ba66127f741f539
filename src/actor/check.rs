//! `/check` run between replies (`core::check` draws and grades the questions): each is
//! sent with the context the next message would get, in a task of its own, and the
//! person's next message stops it — their reply never waits behind a check.

use super::driver::Actor;
use crate::core::check::{self, Graded};
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use crate::view::{Activity, Connection};
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
    /// The person sent a message: it goes first, the check ends unanswered.
    pub fn stop(&mut self) {
        if let Some(task) = self.running.take() {
            task.abort();
        }
    }
}

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    pub(super) fn check(&mut self, reply: oneshot::Sender<Result<CheckReport, String>>) {
        let probes = check::probes(&self.engine.fact_rows());
        let refused = if *self.out.activity() != Activity::Idle {
            Some("a check runs between replies: ask again when this one has ended")
        } else if !matches!(self.link.connection(), Connection::Connected { .. }) {
            Some("the Ollama server is not connected")
        } else if self
            .checker
            .running
            .as_ref()
            .is_some_and(|t| !t.is_finished())
        {
            Some("a check is already running")
        } else if probes.is_empty() {
            Some(
                "nothing you stated is folded yet: every fact is in the conversation the model sees",
            )
        } else {
            None
        };
        if let Some(why) = refused {
            let _ = reply.send(Err(why.to_string()));
            return;
        }
        let asks: Vec<_> = probes
            .into_iter()
            .map(|p| {
                let mut request = self.chat_request(&self.engine.prompt_for(&p.question));
                // An answer in words is asked for: no tool, no long reasoning.
                request.tools.clear();
                request.think = None;
                request.options.num_predict = Some(check::ANSWER_TOKENS);
                (p, request)
            })
            .collect();
        let backend = self.link.backend().clone();
        let model = self.engine.model().to_string();
        self.checker.running = Some(tokio::spawn(async move {
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
}
