//! `/check`: asked of the actor, said when it is graded; the person's next message stops
//! it (the actor drops it), and the transcript says so.

use super::App;
use super::overlays::Reply;
use crate::actor::{Ask, CheckReport};

impl App {
    pub(super) fn check(&mut self) {
        self.checking = true;
        self.info(super::words::CHECK_STARTED);
        self.ask(|reply| Ask::Check { reply }, Reply::Checked);
    }

    pub(super) fn on_checked(&mut self, result: Result<CheckReport, String>) {
        if !std::mem::take(&mut self.checking) {
            // Stopped by a message sent since: its answer no longer means anything.
            return;
        }
        match result {
            Ok(report) => self.info(super::words::check_report(&report)),
            Err(why) => self.info(format!("No check: {why}.")),
        }
    }

    /// A message is on its way: a check under way is dropped by the actor.
    pub(super) fn check_yields(&mut self) {
        if std::mem::take(&mut self.checking) {
            self.info(super::words::CHECK_STOPPED);
        }
    }
}
