//! The answers the actor sends back on oneshots (and a pull's lines), on their way into
//! the loop: one channel, whose sending end every asking task clones and whose receiving
//! end only the event loop reads. A part of the [`App`](super::App) with its ends private,
//! so nothing else takes answers out of turn.

use super::overlays::Reply;
use tokio::sync::mpsc;

/// The channel the answers come back on.
pub(crate) struct Replies {
    tx: mpsc::UnboundedSender<Reply>,
    rx: mpsc::UnboundedReceiver<Reply>,
}

impl Default for Replies {
    fn default() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        Replies { tx, rx }
    }
}

impl Replies {
    /// A sending end, for a task that waits for an answer.
    pub fn sender(&self) -> mpsc::UnboundedSender<Reply> {
        self.tx.clone()
    }

    /// The next answer (never `None` while the app holds a sending end).
    pub async fn next(&mut self) -> Option<Reply> {
        self.rx.recv().await
    }
}
