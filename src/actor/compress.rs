//! The actor's side of the compression between turns — a fold's summary, asked of the
//! model (the task itself is `background.rs`; folds are made inside the engine at once):
//! its outcome handed to the engine when it ends, the person's next message stopping it
//! (`CancelBackground`: the server serves one request at a time, and the fold it was for
//! is made), and Stop or a restore aborting it.

use super::background;
use super::driver::Actor;
use crate::core::compress::CompressionOutcome;
use crate::core::engine::Input;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use tokio::task::JoinError;

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
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

    /// The person's message goes first: the summary running between turns stops, and
    /// the engine, which asked for that, is not told.
    pub(super) fn cancel_background(&mut self) {
        if let Some(bg) = self.bg.take() {
            bg.abort();
            self.out.line().set_background(None);
            tracing::info!(
                ran_ms = bg.since().elapsed().as_millis() as u64,
                "the summary between turns gave way to the person's message"
            );
        }
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
