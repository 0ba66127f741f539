//! The goal panel beside the transcript (F3, `/panel`): shown or not, focused (Tab) or
//! not, the checkpoint selected in it, and its keys. The part [`GoalPanel`] holds that
//! state, its fields this file's.

use super::App;
use crossterm::event::{KeyCode, KeyEvent};

/// The goal panel's state.
#[derive(Default)]
pub(crate) struct GoalPanel {
    shown: bool,
    /// Its keys go to it (navigation only: editing hands them back to the message box).
    focus: bool,
    /// The checkpoint selected, once focused.
    selected: Option<usize>,
}

impl GoalPanel {
    pub fn shown(&self) -> bool {
        self.shown
    }

    pub fn focused(&self) -> bool {
        self.focus
    }

    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    /// Shown (a goal changed: the panel shows it).
    pub fn show(&mut self) {
        self.shown = true;
    }

    /// The keys go back to the message box.
    pub fn unfocus(&mut self) {
        self.focus = false;
    }

    /// Tab: focus the panel when it is shown (its first checkpoint selected at first);
    /// false when it is not shown.
    pub fn focus(&mut self) -> bool {
        if !self.shown {
            return false;
        }
        self.focus = true;
        self.selected.get_or_insert(0);
        true
    }
}

impl App {
    pub(super) fn toggle_panel(&mut self) {
        self.panel.shown = !self.panel.shown;
        self.panel.focus = false;
    }

    /// Keys while the panel has focus; true if used.
    pub(super) fn panel_key(&mut self, k: KeyEvent) -> bool {
        let n = self.session.checkpoints.len();
        match k.code {
            KeyCode::Up => {
                self.panel.selected = Some(self.panel.selected.unwrap_or(0).saturating_sub(1));
            }
            KeyCode::Down => {
                self.panel.selected =
                    Some((self.panel.selected.unwrap_or(0) + 1).min(n.saturating_sub(1)));
            }
            KeyCode::Enter => {
                if let Some(i) = self.panel.selected {
                    self.inspect_selected(i);
                }
            }
            KeyCode::Tab | KeyCode::Esc => self.panel.focus = false,
            _ => return false,
        }
        true
    }
}
