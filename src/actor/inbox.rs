//! The commands coming in: the channel from the handles, and the commands that arrived
//! while something ran and wait their turn (`deferred`). The messages among those are the
//! type-ahead queue the view shows and `TakeBackQueued` empties.

use super::command::Command;
use crate::core::engine::Request;
use std::collections::VecDeque;
use tokio::sync::mpsc;

/// The session's incoming commands.
pub(super) struct Inbox {
    rx: mpsc::Receiver<Command>,
    /// Every handle is gone.
    closed: bool,
    deferred: VecDeque<Command>,
    /// A Stop the person gave that also holds for the next step (`stop_next`).
    stop_next: bool,
}

impl Inbox {
    pub fn new(rx: mpsc::Receiver<Command>) -> Self {
        Inbox {
            rx,
            closed: false,
            deferred: VecDeque::new(),
            stop_next: false,
        }
    }

    /// The next command, or never once the channel is closed (so `select!` does not spin).
    pub async fn next(&mut self) -> Option<Command> {
        if std::mem::take(&mut self.stop_next) {
            return Some(Command::Stop);
        }
        if self.closed {
            return std::future::pending().await;
        }
        let c = self.rx.recv().await;
        if c.is_none() {
            self.closed = true;
        }
        c
    }

    /// A Stop that came while one step ran holds for the step the engine asked for after
    /// it: the next listen hears it first.
    pub fn stop_next(&mut self) {
        self.stop_next = true;
    }

    /// The step it was meant for is over (it may not have listened at all).
    pub fn forget_stop(&mut self) {
        self.stop_next = false;
    }

    /// Every handle is gone: nothing more will come.
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// The oldest command that waits.
    pub fn pop(&mut self) -> Option<Command> {
        self.deferred.pop_front()
    }

    /// A command that goes before all that wait (quitting).
    pub fn push_front(&mut self, c: Command) {
        self.deferred.push_front(c);
    }

    /// A command that arrived while something ran waits its turn; true when it is a
    /// message typed ahead (the view shows it as queued).
    pub fn defer(&mut self, c: Command) -> bool {
        let typed_ahead = matches!(c, Command::Request(Request::Send { .. }));
        self.deferred.push_back(c);
        typed_ahead
    }

    /// Quitting waits among the commands.
    pub fn quitting(&self) -> bool {
        self.deferred.iter().any(|c| matches!(c, Command::Shutdown))
    }

    /// The messages waiting to be sent, in order.
    pub fn queued(&self) -> Vec<String> {
        self.deferred
            .iter()
            .filter_map(|c| match c {
                Command::Request(Request::Send { text, .. }) => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    /// Take the queued messages back out (for the input box); the rest still waits.
    pub fn take_back_queued(&mut self) -> Vec<String> {
        let texts = self.queued();
        self.deferred
            .retain(|c| !matches!(c, Command::Request(Request::Send { .. })));
        texts
    }
}
