//! Leaving the session: quitting, `/new`, or opening another — decided once, asked first
//! when something would be lost. The part [`Leaving`] holds where the app goes and what
//! the person was last asked about; its fields are this file's.

use super::words;
use super::{App, AppExit};

/// Where the app goes when it ends, once decided, and the question last asked.
#[derive(Default)]
pub(crate) struct Leaving {
    /// Decided: the loop ends and the caller goes here.
    exit: Option<AppExit>,
    /// What quitting would have lost when the person was last asked, and how many
    /// questions about it were asked.
    asked: Option<(QuitStake, usize)>,
}

impl Leaving {
    /// The app ends now, for `exit`.
    pub fn leave(&mut self, exit: AppExit) {
        self.exit = Some(exit);
    }

    /// The actor stopped: the app ends, where it was going if that was decided.
    pub fn closed(&mut self) {
        self.exit.get_or_insert(AppExit::Quit);
    }

    /// Whether the app ends (the loop stops).
    pub fn decided(&self) -> bool {
        self.exit.is_some()
    }

    /// Where the app goes (quitting unless decided otherwise).
    #[cfg(test)]
    pub fn exit(&self) -> AppExit {
        self.exit.clone().unwrap_or_default()
    }

    /// Where the app goes, taken for the caller when the loop has ended.
    pub fn take_exit(&mut self) -> AppExit {
        self.exit.take().unwrap_or_default()
    }
}

impl App {
    /// Quit (or leave for a new session: `exit`), unless something would be lost that the
    /// person was not asked about yet: unsent text (the box, messages typed ahead), then
    /// records the log could not take (the actor writes those to a rescue file when it
    /// stops), then a pull under way (its task ends with the app). Each question is asked once about the
    /// same stake; a change to the draft or the queue asks again.
    pub(super) fn leave_or_ask(&mut self, exit: AppExit) {
        let stake = QuitStake {
            draft: self.draft(),
            queued: self.session.queued.len(),
            unwritten: self.session.unwritten,
            pulling: self.pull.job().map(|job| job.name.clone()),
        };
        let mut questions = Vec::new();
        let new = matches!(exit, AppExit::New { .. });
        if !stake.draft.trim().is_empty() || stake.queued > 0 {
            questions.push(if new {
                words::new_session_note()
            } else {
                words::quit_note(&self.keys)
            });
        }
        if stake.unwritten > 0 {
            questions.push(if new {
                words::new_session_unwritten_note(stake.unwritten)
            } else {
                words::quit_unwritten_note(&self.keys, stake.unwritten)
            });
        }
        if let Some(name) = &stake.pulling {
            questions.push(if new {
                words::new_session_pull_note(name)
            } else {
                words::quit_pull_note(&self.keys, name)
            });
        }
        let asked = match &self.leaving.asked {
            Some((same, n)) if *same == stake => *n,
            _ => 0,
        };
        match questions.into_iter().nth(asked) {
            Some(question) => {
                self.input_note = Some(question);
                self.leaving.asked = Some((stake, asked + 1));
            }
            None => {
                self.leaving.leave(exit);
            }
        }
    }
}

/// What quitting now would lose, as it was when the person was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QuitStake {
    draft: String,
    queued: usize,
    unwritten: usize,
    /// The model a pull is fetching: leaving stops it.
    pulling: Option<String>,
}
