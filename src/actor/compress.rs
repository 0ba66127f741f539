//! The actor's side of the compression between turns — a fold's summary, asked of the
//! model (the task itself is `background.rs`; folds are made inside the engine at once):
//! its outcome handed to the engine when it ends, and the task aborted when the engine
//! says so (`CancelBackground`: the person's next message goes first, since the server
//! serves one request at a time and the fold it was for is made; or Stop, or a restore,
//! which the engine hears as `StopBackground`).

use super::background;
use super::driver::Actor;
use crate::core::compress::CompressionOutcome;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use tokio::task::JoinError;

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    /// The background compression ended while the actor was between turns.
    pub(super) async fn background_ended(&mut self, out: Result<CompressionOutcome, JoinError>) {
        if let Some(ran) = self.bg.ended() {
            tracing::info!(
                elapsed_ms = ran.as_millis() as u64,
                "background compression ended"
            );
        }
        self.feed(background::answer(out)).await;
    }

    /// The engine stopped the compression: the task is aborted, and the engine, which
    /// asked for that, is not told.
    pub(super) fn cancel_background(&mut self) {
        if let Some(ran) = self.bg.abort() {
            tracing::info!(
                ran_ms = ran.as_millis() as u64,
                "the compression between turns stopped"
            );
        }
    }
}
