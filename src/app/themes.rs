//! `/theme`: the colours changed while the app runs. The picker lists the built-in themes
//! and the person's own files (`$OLLM_HOME/themes`), and the whole screen is drawn in the
//! selected one as the selection moves; Enter keeps it, anything else that closes the
//! picker goes back (the preview lives in the picker's state, so no way of closing can
//! leave it behind). `/theme NAME` switches at once. Either lasts for this run; the
//! config's `theme` key is what lasts longer, and the notice says so.

use super::App;
use super::closest::closest;
use super::overlays::OverlayState;
use super::theme_picker::ThemePicker;
use super::words;
use crate::ui::{self, Theme};
use crossterm::event::{KeyCode, KeyEvent};

/// The theme a frame is drawn in: the picker's preview while it is open, else the one in
/// use. (Of the two fields rather than the `App`, so that drawing can borrow the
/// transcript mutably beside it.)
pub(crate) fn drawn<'a>(overlay: &'a Option<OverlayState>, in_use: &'a Theme) -> &'a Theme {
    match overlay {
        Some(OverlayState::Themes(p)) => p.preview(),
        _ => None,
    }
    .unwrap_or(in_use)
}

impl App {
    /// The theme in use: the one the app started with, or the one `/theme` chose. The next
    /// session of the run (`/new`, another opened) starts with it.
    pub fn theme(&self) -> &Theme {
        &self.opts.theme
    }

    fn themes_dir(&self) -> Option<std::path::PathBuf> {
        self.opts.data_dir.as_ref().map(|d| d.themes_dir())
    }

    fn load_theme(&self, name: &str) -> Result<Theme, String> {
        Theme::load(name, self.themes_dir().as_deref(), self.opts.no_color)
            .map_err(|e| e.to_string())
    }

    /// `/theme`: the picker, on the theme in use.
    pub(super) fn open_themes(&mut self) {
        let items: Vec<(String, Result<Theme, String>)> =
            ui::theme::available(self.themes_dir().as_deref())
                .into_iter()
                .map(|name| {
                    let theme = self.load_theme(&name);
                    (name, theme)
                })
                .collect();
        let selected = items
            .iter()
            .position(|(name, _)| *name == self.opts.theme.name)
            .unwrap_or(0);
        self.overlay = Some(OverlayState::Themes(ThemePicker { items, selected }));
    }

    /// `/theme NAME`: that theme now; a name no theme has gets the closest one.
    pub(super) fn switch_theme(&mut self, name: &str) {
        let names = ui::theme::available(self.themes_dir().as_deref());
        let Some(name) = names.iter().find(|n| n.eq_ignore_ascii_case(name)).cloned() else {
            let near = closest(&name.to_ascii_lowercase(), names.iter().map(String::as_str));
            self.input_note = Some(words::no_such_theme(name, near, &names));
            return;
        };
        match self.load_theme(&name) {
            Ok(theme) => self.keep_theme(theme),
            Err(e) => self.warn(words::theme_unreadable(&e)),
        }
    }

    /// Keys in the picker (Esc, `q` and quitting close it as every dialog's do, and so go
    /// back to the theme in use).
    pub(super) fn themes_key(&mut self, k: KeyEvent) {
        let Some(OverlayState::Themes(picker)) = &mut self.overlay else {
            return;
        };
        let last = picker.items.len().saturating_sub(1);
        match k.code {
            KeyCode::Up => picker.selected = picker.selected.saturating_sub(1),
            KeyCode::Down => picker.selected = (picker.selected + 1).min(last),
            KeyCode::Home => picker.selected = 0,
            KeyCode::End => picker.selected = last,
            KeyCode::Enter => {
                if let Some(theme) = picker.preview().cloned() {
                    self.overlay = None;
                    self.keep_theme(theme);
                }
            }
            _ => {}
        }
    }

    /// The screen in `theme` from now on, for this run; the notice says how to keep it.
    fn keep_theme(&mut self, theme: Theme) {
        let said = words::theme_kept(&theme.name);
        self.opts.theme = theme;
        self.style_input();
        self.info(said);
    }

    /// The message box in the theme in use (the textarea holds its own styles).
    pub(super) fn style_input(&mut self) {
        ui::style_textarea(&mut self.input, &self.opts.theme);
        self.input_theme = self.opts.theme.fingerprint();
    }
}
