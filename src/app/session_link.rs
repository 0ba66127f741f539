//! The two ends the app holds of its session's actor: commands out, never waiting, and
//! the view the actor publishes, in. A part of the [`App`](super::App) with its ends
//! private: commands go out through `App::command` and the view is taken in the event
//! loop only.

use crate::actor::{Command, SessionHandle};
use crate::view::SessionView;
use std::sync::Arc;
use tokio::sync::watch;

pub(crate) struct SessionLink {
    handle: SessionHandle,
    view: watch::Receiver<Arc<SessionView>>,
}

impl SessionLink {
    pub fn new(handle: SessionHandle, view: watch::Receiver<Arc<SessionView>>) -> Self {
        SessionLink { handle, view }
    }

    /// Send without waiting; `false` when the actor's queue is full or the actor gone.
    pub fn try_send(&self, c: Command) -> bool {
        self.handle.try_send(c).is_ok()
    }

    /// Wait for a newer view; `false` once the actor is gone.
    pub async fn changed(&mut self) -> bool {
        self.view.changed().await.is_ok()
    }

    /// The latest view, marked as seen.
    pub fn latest(&mut self) -> Arc<SessionView> {
        self.view.borrow_and_update().clone()
    }

    /// The view as it is now (at start).
    pub fn current(&self) -> Arc<SessionView> {
        self.view.borrow().clone()
    }
}
