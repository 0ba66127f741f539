//! A message too long for the context read through by the model before it is sent (a
//! pipe's stdin; the rule is `core::read_through`, the plan `Engine::input_reading`):
//! the parts to notes with the person's request as the task, then the request sent with
//! the notes in place of the input. When the reading is refused, fails or is stopped, the
//! message goes as it is and the turn clips it; either way a notice says what happened.

use super::driver::Actor;
use crate::core::engine::{InputReading, Request};
use crate::core::read_through::{self, Decision, InputOutcome, LongInput};
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use crate::view::{Activity, Notice};
use std::time::Instant;

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    /// Send `message` (the person's `request` with `input` attached), read through first
    /// when it does not fit.
    pub(super) async fn send_input(
        &mut self,
        request: String,
        input: String,
        message: String,
        choice: LongInput,
    ) {
        let text = match self.read_input(&request, &input, &message, choice).await {
            Some(notes) => read_through::notes_message(&request, &notes),
            None => message,
        };
        self.feed(
            Request::Send {
                text,
                images: Vec::new(),
            }
            .into(),
        )
        .await;
    }

    /// The notes that stand in for `input`, when it is read through.
    async fn read_input(
        &mut self,
        request: &str,
        input: &str,
        message: &str,
        choice: LongInput,
    ) -> Option<String> {
        let (plan, probe, limit) = match self.engine.input_reading(request, input, message, choice)
        {
            InputReading::Fits => return None,
            InputReading::Clip(Decision::TooSlow {
                secs,
                limit,
                measured,
            }) => {
                self.out.notice(Notice::LongInput(InputOutcome::TooSlow {
                    secs,
                    limit,
                    measured,
                    after: 0,
                }));
                return None;
            }
            InputReading::Clip(_) => return None,
            InputReading::Read { plan, probe, limit } => (plan, probe, limit),
        };
        let since = Instant::now();
        let of = plan.parts.len();
        self.out.set_activity(Activity::Tool {
            since,
            what: format!("reading the input through (0/{of})"),
        });
        self.publish();
        let line = self.out.line();
        let summarizer = self.summarizer();
        // A cold start is not the server's speed: the model's loading is left out.
        let loading = summarizer.loading.clone();
        let timed = move || {
            let load = loading.load(std::sync::atomic::Ordering::Relaxed);
            since
                .elapsed()
                .saturating_sub(std::time::Duration::from_nanos(load))
                .as_secs_f64()
        };
        let measure = timed.clone();
        let calls = plan.calls();
        let first = calls.clone();
        let go_on = move |done: usize, of: usize| {
            line.set_activity(Activity::Tool {
                since,
                what: format!("reading the input through ({done}/{of})"),
            });
            // Not measured before: the first part's time decides the rest.
            if probe && done == 1 {
                return read_through::go_on(&first, done, measure(), limit);
            }
            true
        };
        let tok = self.engine.tokenizer().clone();
        let tokens = plan.tokens();
        let run = async move { plan.run_while(&summarizer, tok.as_ref(), go_on).await };
        let outcome = self.listen(run).await;
        let secs = since.elapsed().as_secs_f64().round() as u32;
        let (notes, said) = match outcome {
            Some(Ok(d)) => {
                tracing::info!(
                    parts = of,
                    calls = d.calls,
                    secs,
                    "the input was read through"
                );
                let said = InputOutcome::Read {
                    parts: of,
                    tokens,
                    secs,
                };
                (Some(d.text), said)
            }
            Some(Err(crate::core::digest::DigestError::Stopped { after })) => {
                // The reading stopped as soon as it was measured: the time so far is the
                // time of those parts.
                let secs = read_through::projected_secs(&calls, after, timed()).ceil() as u32;
                tracing::info!(
                    after,
                    secs,
                    limit,
                    "the input is clipped: reading it through would take too long"
                );
                let said = InputOutcome::TooSlow {
                    secs,
                    limit,
                    measured: true,
                    after,
                };
                (None, said)
            }
            Some(Err(e)) => {
                tracing::warn!(error = %e, "the input was not read through; it is clipped");
                let said = InputOutcome::Failed {
                    error: e.to_string(),
                };
                (None, said)
            }
            None => (None, InputOutcome::Stopped),
        };
        self.out.notice(Notice::LongInput(said));
        notes
    }
}
