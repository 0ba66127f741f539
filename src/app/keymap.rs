//! Key bindings: defaults as the README lists them, overridable in config.toml's `[keys]`.
//!
//! A binding is written like `ctrl+s`, `alt+enter`, `shift+enter`, `f1`, `esc`, `pageup`,
//! `?`. Several keys may share an action (`"ctrl+q, ctrl+c"`). Parsing errors name the
//! action and the key text, so a typo in the config is reported, not ignored.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::BTreeMap;
use std::fmt;

/// What a key asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    Send,
    Newline,
    Stop,
    Snapshot,
    Restore,
    Compress,
    Goals,
    Models,
    Sessions,
    Details,
    Help,
    Quit,
    ScrollUp,
    ScrollDown,
    PageUp,
    PageDown,
    Top,
    Bottom,
}

impl Action {
    pub const ALL: [Action; 18] = [
        Action::Send,
        Action::Newline,
        Action::Stop,
        Action::Snapshot,
        Action::Restore,
        Action::Compress,
        Action::Goals,
        Action::Models,
        Action::Sessions,
        Action::Details,
        Action::Help,
        Action::Quit,
        Action::ScrollUp,
        Action::ScrollDown,
        Action::PageUp,
        Action::PageDown,
        Action::Top,
        Action::Bottom,
    ];

    /// Name in config.toml.
    pub fn name(self) -> &'static str {
        match self {
            Action::Send => "send",
            Action::Newline => "newline",
            Action::Stop => "stop",
            Action::Snapshot => "snapshot",
            Action::Restore => "restore",
            Action::Compress => "compress",
            Action::Goals => "goals",
            Action::Models => "models",
            Action::Sessions => "sessions",
            Action::Details => "details",
            Action::Help => "help",
            Action::Quit => "quit",
            Action::ScrollUp => "scroll_up",
            Action::ScrollDown => "scroll_down",
            Action::PageUp => "page_up",
            Action::PageDown => "page_down",
            Action::Top => "top",
            Action::Bottom => "bottom",
        }
    }

    /// What the help overlay says it does.
    pub fn describe(self) -> &'static str {
        match self {
            Action::Send => "send the message",
            Action::Newline => "new line in the message",
            Action::Stop => "stop the reply, compression or tool call; close a dialog",
            Action::Snapshot => "snapshot the conversation",
            Action::Restore => "restore a snapshot (picker)",
            Action::Compress => "compress now",
            Action::Goals => "show/hide the goal and checkpoint panel",
            Action::Models => "choose a model",
            Action::Sessions => "browse sessions: filter, open, rename, delete",
            Action::Details => "show/hide tool arguments and results, and the model's reasoning",
            Action::Help => "this help",
            Action::Quit => "quit (Ctrl+C stops a reply first)",
            Action::ScrollUp => "scroll up a line",
            Action::ScrollDown => "scroll down a line",
            Action::PageUp => "scroll up a page",
            Action::PageDown => "scroll down a page",
            Action::Top => "go to the start",
            Action::Bottom => "go to the end (follow the reply)",
        }
    }

    fn default_keys(self) -> &'static str {
        match self {
            Action::Send => "enter",
            Action::Newline => "alt+enter, shift+enter, ctrl+j",
            Action::Stop => "esc",
            Action::Snapshot => "ctrl+s",
            Action::Restore => "ctrl+r",
            Action::Compress => "ctrl+k",
            Action::Goals => "ctrl+g",
            Action::Models => "ctrl+l",
            Action::Sessions => "ctrl+t",
            Action::Details => "ctrl+o",
            Action::Help => "f1",
            Action::Quit => "ctrl+q, ctrl+c",
            Action::ScrollUp => "ctrl+up",
            Action::ScrollDown => "ctrl+down",
            Action::PageUp => "pageup",
            Action::PageDown => "pagedown",
            Action::Top => "ctrl+home",
            Action::Bottom => "ctrl+end",
        }
    }

    fn from_name(name: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// One key with modifiers, comparable with crossterm's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Key {
    pub fn from_event(e: &KeyEvent) -> Key {
        // Shift is part of a character (`?` is shift+/), so it only counts for keys that
        // are not characters.
        let mut mods =
            e.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let mut code = e.code;
        if let KeyCode::Char(c) = code {
            mods.remove(KeyModifiers::SHIFT);
            if mods.contains(KeyModifiers::CONTROL) {
                code = KeyCode::Char(c.to_ascii_lowercase());
            }
        }
        Key { code, mods }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mods.contains(KeyModifiers::CONTROL) {
            f.write_str("Ctrl+")?;
        }
        if self.mods.contains(KeyModifiers::ALT) {
            f.write_str("Alt+")?;
        }
        if self.mods.contains(KeyModifiers::SHIFT) {
            f.write_str("Shift+")?;
        }
        match self.code {
            KeyCode::Char(c) if self.mods.is_empty() => write!(f, "{c}"),
            KeyCode::Char(c) => write!(f, "{}", c.to_ascii_uppercase()),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::Up => f.write_str("Up"),
            KeyCode::Down => f.write_str("Down"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeymapError {
    #[error("[keys] {action:?} is not an action (known: {known})")]
    UnknownAction { action: String, known: String },
    #[error("[keys] {action} = {text:?}: cannot read key {part:?}")]
    BadKey {
        action: String,
        text: String,
        part: String,
    },
    #[error(
        "[keys] {key} is bound to both {first} and {second} (defaults count too); \
         give one of them another key, e.g. {second} = \"f6\""
    )]
    Conflict {
        key: String,
        first: &'static str,
        second: &'static str,
    },
}

/// Parse `ctrl+s`, `alt+enter`, `f1`, `?`.
pub fn parse_key(text: &str) -> Option<Key> {
    let mut mods = KeyModifiers::NONE;
    let text = text.trim().to_ascii_lowercase();
    let mut parts: Vec<&str> = text.split('+').collect();
    // "ctrl++" means ctrl and '+'.
    if text.ends_with("++") {
        parts.pop();
        parts.pop();
        parts.push("+");
    }
    let last = parts.pop()?;
    for m in parts {
        match m {
            "ctrl" | "control" => mods |= KeyModifiers::CONTROL,
            "alt" | "meta" => mods |= KeyModifiers::ALT,
            "shift" => mods |= KeyModifiers::SHIFT,
            _ => return None,
        }
    }
    let code = match last {
        "enter" | "return" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backspace" => KeyCode::Backspace,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "pageup" | "pgup" => KeyCode::PageUp,
        "pagedown" | "pgdn" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "space" => KeyCode::Char(' '),
        f if f.len() >= 2 && f.starts_with('f') && f[1..].chars().all(|c| c.is_ascii_digit()) => {
            KeyCode::F(f[1..].parse().ok()?)
        }
        c if c.chars().count() == 1 => KeyCode::Char(c.chars().next()?),
        _ => return None,
    };
    let mut key = Key { code, mods };
    if let KeyCode::Char(_) = code {
        key.mods.remove(KeyModifiers::SHIFT);
    }
    Some(key)
}

/// Key → action, plus the reverse for the help overlay.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    bindings: Vec<(Key, Action)>,
}

impl Keymap {
    /// The defaults with `overrides` (action name → "key, key") applied.
    ///
    /// A key left bound to two actions is an error, not a silent winner: otherwise
    /// `snapshot = "ctrl+r"` would leave Ctrl+R restoring and snapshot on no key at all.
    pub fn new(overrides: &BTreeMap<String, String>) -> Result<Keymap, KeymapError> {
        let mut per_action: BTreeMap<Action, String> = Action::ALL
            .into_iter()
            .map(|a| (a, a.default_keys().to_string()))
            .collect();
        for (name, keys) in overrides {
            let action = Action::from_name(name).ok_or_else(|| KeymapError::UnknownAction {
                action: name.clone(),
                known: Action::ALL.map(Action::name).join(", "),
            })?;
            per_action.insert(action, keys.clone());
        }
        let mut bindings = Vec::new();
        for (action, text) in &per_action {
            for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let key = parse_key(part).ok_or_else(|| KeymapError::BadKey {
                    action: action.name().to_string(),
                    text: text.clone(),
                    part: part.to_string(),
                })?;
                match bindings.iter().find(|(k, _)| *k == key) {
                    None => bindings.push((key, *action)),
                    Some((_, a)) if a == action => {}
                    Some((_, other)) => {
                        return Err(KeymapError::Conflict {
                            key: key.to_string(),
                            first: other.name(),
                            second: action.name(),
                        });
                    }
                }
            }
        }
        Ok(Keymap { bindings })
    }

    pub fn action(&self, e: &KeyEvent) -> Option<Action> {
        let key = Key::from_event(e);
        self.bindings
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, a)| *a)
    }

    pub fn keys_for(&self, action: Action) -> Vec<Key> {
        self.bindings
            .iter()
            .filter(|(_, a)| *a == action)
            .map(|(k, _)| *k)
            .collect()
    }

    /// The first key bound to `action`, as hints should name it ("Ctrl+S"); `None` if
    /// the config left it unbound.
    pub fn label(&self, action: Action) -> Option<String> {
        self.keys_for(action).first().map(Key::to_string)
    }

    /// Lines for the help overlay: (keys, what they do).
    pub fn help(&self) -> Vec<(String, String)> {
        Action::ALL
            .into_iter()
            .map(|a| {
                let keys: Vec<String> = self.keys_for(a).iter().map(Key::to_string).collect();
                (keys.join(" / "), a.describe().to_string())
            })
            .filter(|(k, _)| !k.is_empty())
            .collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crossterm::event::{KeyEventKind, KeyEventState};

    fn ev(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent {
            code,
            modifiers: mods,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }
    }

    #[test]
    fn defaults_follow_the_design() {
        let k = Keymap::new(&BTreeMap::new()).unwrap();
        let c = KeyModifiers::CONTROL;
        assert_eq!(
            k.action(&ev(KeyCode::Enter, KeyModifiers::NONE)),
            Some(Action::Send)
        );
        assert_eq!(
            k.action(&ev(KeyCode::Enter, KeyModifiers::ALT)),
            Some(Action::Newline)
        );
        assert_eq!(
            k.action(&ev(KeyCode::Enter, KeyModifiers::SHIFT)),
            Some(Action::Newline)
        );
        assert_eq!(k.action(&ev(KeyCode::Char('s'), c)), Some(Action::Snapshot));
        assert_eq!(k.action(&ev(KeyCode::Char('r'), c)), Some(Action::Restore));
        assert_eq!(k.action(&ev(KeyCode::Char('k'), c)), Some(Action::Compress));
        assert_eq!(k.action(&ev(KeyCode::Char('g'), c)), Some(Action::Goals));
        assert_eq!(k.action(&ev(KeyCode::Char('l'), c)), Some(Action::Models));
        assert_eq!(k.action(&ev(KeyCode::Char('q'), c)), Some(Action::Quit));
        assert_eq!(k.action(&ev(KeyCode::Char('c'), c)), Some(Action::Quit));
        assert_eq!(
            k.action(&ev(KeyCode::Esc, KeyModifiers::NONE)),
            Some(Action::Stop)
        );
        assert_eq!(
            k.action(&ev(KeyCode::PageUp, KeyModifiers::NONE)),
            Some(Action::PageUp)
        );
        // Caps lock or shift do not change control letters.
        assert_eq!(
            k.action(&ev(KeyCode::Char('S'), c | KeyModifiers::SHIFT)),
            Some(Action::Snapshot)
        );
        // Plain letters are text, not actions.
        assert_eq!(k.action(&ev(KeyCode::Char('s'), KeyModifiers::NONE)), None);
    }

    #[test]
    fn overrides_replace_and_free_keys() {
        let mut o = BTreeMap::new();
        o.insert("snapshot".to_string(), "f5, ctrl+b".to_string());
        o.insert("restore".to_string(), "ctrl+s".to_string());
        let k = Keymap::new(&o).unwrap();
        assert_eq!(
            k.action(&ev(KeyCode::F(5), KeyModifiers::NONE)),
            Some(Action::Snapshot)
        );
        assert_eq!(
            k.action(&ev(KeyCode::Char('s'), KeyModifiers::CONTROL)),
            Some(Action::Restore)
        );
        assert_eq!(
            k.action(&ev(KeyCode::Char('r'), KeyModifiers::CONTROL)),
            None
        );
    }

    #[test]
    fn bad_overrides_are_named() {
        let mut o = BTreeMap::new();
        o.insert("snapshott".to_string(), "f5".to_string());
        let e = Keymap::new(&o).unwrap_err().to_string();
        assert!(e.contains("snapshott") && e.contains("snapshot"), "{e}");
        let mut o = BTreeMap::new();
        o.insert("help".to_string(), "hyper+x".to_string());
        let e = Keymap::new(&o).unwrap_err().to_string();
        assert!(e.contains("hyper+x"), "{e}");
    }

    #[test]
    fn a_key_bound_to_two_actions_is_refused_naming_both() {
        let mut o = BTreeMap::new();
        o.insert("snapshot".to_string(), "ctrl+r".to_string());
        let e = Keymap::new(&o).unwrap_err().to_string();
        assert!(
            e.contains("Ctrl+R") && e.contains("snapshot") && e.contains("restore"),
            "{e}"
        );
        // Moving the other action off the key resolves it; a key repeated within one
        // action is no conflict.
        o.insert("restore".to_string(), "f6, f6".to_string());
        let k = Keymap::new(&o).unwrap();
        assert_eq!(k.label(Action::Snapshot).as_deref(), Some("Ctrl+R"));
        assert_eq!(k.label(Action::Restore).as_deref(), Some("F6"));
        o.insert("restore".to_string(), String::new());
        assert_eq!(Keymap::new(&o).unwrap().label(Action::Restore), None);
    }

    #[test]
    fn parse_and_display_keys() {
        assert_eq!(parse_key("ctrl+s").unwrap().to_string(), "Ctrl+S");
        assert_eq!(parse_key("alt+enter").unwrap().to_string(), "Alt+Enter");
        assert_eq!(parse_key("F1").unwrap().to_string(), "F1");
        assert_eq!(parse_key("?").unwrap().to_string(), "?");
        assert_eq!(parse_key("ctrl++").unwrap().code, KeyCode::Char('+'));
        assert!(parse_key("").is_none());
        let help = Keymap::new(&BTreeMap::new()).unwrap().help();
        assert!(
            help.iter()
                .any(|(k, d)| k.contains("Ctrl+S") && d.contains("snapshot"))
        );
        assert_eq!(help.len(), Action::ALL.len());
    }
}
