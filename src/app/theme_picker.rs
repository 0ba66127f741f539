//! The `/theme` picker's state, apart from what it does (`themes.rs`), so the overlay
//! that holds it need not know the app's theme handling.

use crate::ui::Theme;

/// The picker's state: every theme loaded when it opened (switching between them is a
/// redraw, never a file read), a file that did not load kept with why.
pub struct ThemePicker {
    pub(crate) items: Vec<(String, Result<Theme, String>)>,
    pub(crate) selected: usize,
}

impl ThemePicker {
    /// What the screen is drawn in while the picker is open: the selected theme, when it
    /// loaded.
    pub(crate) fn preview(&self) -> Option<&Theme> {
        self.items.get(self.selected)?.1.as_ref().ok()
    }

    /// Why the selected theme cannot be shown, if it cannot.
    pub(crate) fn error(&self) -> Option<&str> {
        self.items
            .get(self.selected)?
            .1
            .as_ref()
            .err()
            .map(String::as_str)
    }
}
