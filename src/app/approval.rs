//! A tool call that asks first: its dialog's keys and state. The part [`Approving`] holds
//! which question was answered last (its dialog is not shown again while the actor has
//! not published what follows) and how far a long preview is scrolled; its fields are
//! this file's.

use super::App;
use crate::actor::Command;
use crate::view::{Activity, ApprovalAsk};
use crossterm::event::{KeyCode, KeyEvent};

/// The approval dialog's state.
#[derive(Default)]
pub(crate) struct Approving {
    /// Scroll of the preview (a long diff).
    scroll: u16,
    /// The question last answered.
    answered: u64,
}

impl Approving {
    /// The question to show: a call that asks and was not answered yet. It comes before
    /// any other popup.
    pub fn asking<'a>(&self, activity: &'a Activity) -> Option<&'a ApprovalAsk> {
        match activity {
            Activity::Approval(ask) if ask.id != self.answered => Some(ask),
            _ => None,
        }
    }

    pub fn scroll(&self) -> u16 {
        self.scroll
    }
}

impl App {
    /// A tool call asks: y or Enter allows it once, a for the session (when offered), n or
    /// Esc denies; arrows scroll a long preview. Quitting still works; other keys wait.
    pub(super) fn approval_key(&mut self, id: u64, session_offered: bool, k: &KeyEvent) -> bool {
        use crate::actor::Approval;
        if self.opts.keymap.quits(k) {
            return false;
        }
        let answer = match k.code {
            KeyCode::Char('y' | 'Y') | KeyCode::Enter => Some(Approval::Once),
            KeyCode::Char('a' | 'A') if session_offered => Some(Approval::Session),
            KeyCode::Char('n' | 'N') | KeyCode::Esc => Some(Approval::Deny { reason: None }),
            KeyCode::Down => {
                self.approving.scroll = self.approving.scroll.saturating_add(1);
                None
            }
            KeyCode::Up => {
                self.approving.scroll = self.approving.scroll.saturating_sub(1);
                None
            }
            KeyCode::PageDown => {
                self.approving.scroll = self.approving.scroll.saturating_add(10);
                None
            }
            KeyCode::PageUp => {
                self.approving.scroll = self.approving.scroll.saturating_sub(10);
                None
            }
            _ => None,
        };
        if let Some(answer) = answer {
            self.approving.scroll = 0;
            // Answered once: the dialog goes until the actor publishes what follows.
            self.approving.answered = id;
            self.intend(Command::Approve { id, answer }.into());
        }
        true
    }
}
