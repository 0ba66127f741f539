//! Key bindings: defaults as the manual lists them (`ollm-tui help keys`), overridable in
//! config.toml's `[keys]`.
//!
//! A binding is written like `ctrl+s`, `alt+enter`, `shift+enter`, `f1`, `esc`, `pageup`,
//! `?`. Several keys may share an action (`"ctrl+q, ctrl+c"`). Parsing errors name the
//! action and the key text, so a typo in the config is reported, not ignored.
//!
//! A key makes an [`Intent`], the same type slash commands parse to: a binding either
//! runs a command of the registry (`app::commands`) without an argument, or makes one
//! of the intents only keys make (send, newline, stop, scrolling).

use super::commands;
use super::intent::Intent;
use super::words::KeyNames;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::BTreeMap;
use std::fmt;

/// How a binding makes its [`Intent`].
#[derive(Debug, Clone, Copy)]
pub enum Does {
    /// Runs the slash command of this name without an argument: the key and the command
    /// are one intent with one handler, so they cannot drift apart.
    Command(&'static str),
    /// An intent only keys make (typing, stopping, scrolling): no command names it.
    Key(fn() -> Intent),
}

/// Something a key can be bound to, under the name config.toml's `[keys]` gives it.
#[derive(Debug)]
pub struct Binding {
    /// Name in config.toml.
    pub name: &'static str,
    /// What the help overlay says it does.
    pub describe: &'static str,
    default_keys: &'static str,
    pub does: Does,
}

impl Binding {
    /// The intent a press makes; a command that cannot run without an argument answers
    /// its usage, as it does when typed.
    pub fn intent(&self) -> Result<Intent, String> {
        match self.does {
            Does::Command(name) => commands::bare(name),
            Does::Key(make) => Ok(make()),
        }
    }
}

/// Every binding, in the order the help lists them (and conflicts name them).
pub static BINDINGS: &[Binding] = &[
    Binding {
        name: "send",
        describe: "send the message",
        default_keys: "enter",
        does: Does::Key(|| Intent::Send),
    },
    Binding {
        name: "newline",
        describe: "new line in the message",
        default_keys: "alt+enter, shift+enter, ctrl+j",
        does: Does::Key(|| Intent::Newline),
    },
    Binding {
        name: "stop",
        describe: "stop the reply, compression or tool call; close a dialog",
        default_keys: "esc",
        does: Does::Key(|| Intent::Stop),
    },
    Binding {
        name: "snapshot",
        describe: "snapshot the conversation",
        default_keys: "ctrl+s",
        does: Does::Command("snapshot"),
    },
    Binding {
        name: "restore",
        describe: "restore a snapshot (picker)",
        default_keys: "ctrl+r",
        does: Does::Command("restore"),
    },
    Binding {
        name: "compress",
        describe: "compress now",
        // Not Ctrl+K: in the message box that is readline's kill, which shell users type
        // without thinking (#37 item 3). F7 reaches the app in every common terminal and
        // through tmux, and no shell binds it.
        default_keys: "f7",
        does: Does::Command("compress"),
    },
    Binding {
        name: "goals",
        describe: "show/hide the goal and checkpoint panel",
        default_keys: "ctrl+g",
        does: Does::Command("goals"),
    },
    Binding {
        name: "models",
        describe: "choose a model",
        default_keys: "ctrl+l",
        does: Does::Command("model"),
    },
    Binding {
        name: "new",
        describe: "start a new session (this one is kept), as oterm's Ctrl+N",
        default_keys: "ctrl+n",
        does: Does::Command("new"),
    },
    Binding {
        name: "sessions",
        describe: "browse sessions: filter, open, rename, delete",
        default_keys: "ctrl+t",
        does: Does::Command("sessions"),
    },
    Binding {
        name: "details",
        describe: "show/hide tool arguments and results, and the model's reasoning",
        default_keys: "ctrl+o",
        does: Does::Command("details"),
    },
    Binding {
        name: "mouse",
        describe: "release the mouse for selecting text, or capture it again",
        default_keys: "f9",
        does: Does::Command("mouse"),
    },
    Binding {
        name: "help",
        describe: "this help",
        default_keys: "f1",
        does: Does::Command("help"),
    },
    Binding {
        name: "quit",
        describe: "quit (Ctrl+C stops a reply first)",
        default_keys: "ctrl+q, ctrl+c",
        does: Does::Command("quit"),
    },
    Binding {
        name: "scroll_up",
        describe: "scroll up a line",
        default_keys: "ctrl+up",
        does: Does::Key(|| Intent::ScrollUp),
    },
    Binding {
        name: "scroll_down",
        describe: "scroll down a line",
        default_keys: "ctrl+down",
        does: Does::Key(|| Intent::ScrollDown),
    },
    Binding {
        name: "page_up",
        describe: "scroll up a page",
        default_keys: "pageup",
        does: Does::Key(|| Intent::PageUp),
    },
    Binding {
        name: "page_down",
        describe: "scroll down a page",
        default_keys: "pagedown",
        does: Does::Key(|| Intent::PageDown),
    },
    Binding {
        name: "top",
        describe: "go to the start",
        default_keys: "ctrl+home",
        does: Does::Key(|| Intent::Top),
    },
    Binding {
        name: "bottom",
        describe: "go to the end (follow the reply)",
        default_keys: "ctrl+end",
        does: Does::Key(|| Intent::Bottom),
    },
];

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

/// Key → binding (and so an intent), plus the reverse for the help overlay.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    /// Each key with the index of its binding in [`BINDINGS`].
    bindings: Vec<(Key, usize)>,
}

impl Keymap {
    /// The defaults with `overrides` (binding name → "key, key") applied.
    ///
    /// A key left bound to two bindings is an error, not a silent winner: otherwise
    /// `snapshot = "ctrl+r"` would leave Ctrl+R restoring and snapshot on no key at all.
    pub fn new(overrides: &BTreeMap<String, String>) -> Result<Keymap, KeymapError> {
        let mut per_binding: Vec<String> = BINDINGS
            .iter()
            .map(|b| b.default_keys.to_string())
            .collect();
        for (name, keys) in overrides {
            let i = BINDINGS
                .iter()
                .position(|b| b.name == name)
                .ok_or_else(|| KeymapError::UnknownAction {
                    action: name.clone(),
                    known: BINDINGS
                        .iter()
                        .map(|b| b.name)
                        .collect::<Vec<_>>()
                        .join(", "),
                })?;
            per_binding[i] = keys.clone();
        }
        let mut bindings: Vec<(Key, usize)> = Vec::new();
        for (i, text) in per_binding.iter().enumerate() {
            for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let key = parse_key(part).ok_or_else(|| KeymapError::BadKey {
                    action: BINDINGS[i].name.to_string(),
                    text: text.clone(),
                    part: part.to_string(),
                })?;
                match bindings.iter().find(|(k, _)| *k == key) {
                    None => bindings.push((key, i)),
                    Some((_, j)) if *j == i => {}
                    Some((_, j)) => {
                        return Err(KeymapError::Conflict {
                            key: key.to_string(),
                            first: BINDINGS[*j].name,
                            second: BINDINGS[i].name,
                        });
                    }
                }
            }
        }
        Ok(Keymap { bindings })
    }

    /// The binding `e` presses, if any.
    pub fn binding(&self, e: &KeyEvent) -> Option<&'static Binding> {
        let key = Key::from_event(e);
        self.bindings
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, i)| &BINDINGS[*i])
    }

    /// What `e` asks for: `None` when no binding takes it (it is text, or unbound).
    pub fn intent(&self, e: &KeyEvent) -> Option<Result<Intent, String>> {
        self.binding(e).map(Binding::intent)
    }

    /// Whether `e` quits (dialogs let it through).
    pub fn quits(&self, e: &KeyEvent) -> bool {
        matches!(self.intent(e), Some(Ok(Intent::Quit)))
    }

    /// The keys bound to the binding named `name`.
    pub fn keys_for(&self, name: &str) -> Vec<Key> {
        self.bindings
            .iter()
            .filter(|(_, i)| BINDINGS[*i].name == name)
            .map(|(k, _)| *k)
            .collect()
    }

    /// The first key bound to the binding `name`, as hints should name it ("Ctrl+S");
    /// `None` if the config left it unbound.
    pub fn label(&self, name: &str) -> Option<String> {
        self.keys_for(name).first().map(Key::to_string)
    }

    /// The first key that runs the slash command `command` (its registry name).
    pub fn command_label(&self, command: &str) -> Option<String> {
        BINDINGS
            .iter()
            .find(|b| matches!(b.does, Does::Command(c) if c == command))
            .and_then(|b| self.label(b.name))
    }

    /// Lines for the help overlay: (keys, what they do).
    pub fn help(&self) -> Vec<(String, String)> {
        BINDINGS
            .iter()
            .map(|b| {
                let keys: Vec<String> = self.keys_for(b.name).iter().map(Key::to_string).collect();
                (keys.join(" / "), b.describe.to_string())
            })
            .filter(|(k, _)| !k.is_empty())
            .collect()
    }
}

impl Keymap {
    /// How hints name the keys: the ones this keymap binds, or the commands where nothing
    /// is bound. Made here so the words need not know the keymap.
    pub fn key_names(&self) -> KeyNames {
        let name = |command: &str| {
            self.command_label(command)
                .unwrap_or_else(|| format!("/{command}"))
        };
        KeyNames {
            restore: name("restore"),
            compress: name("compress"),
            models: name("model"),
            goals: name("goals"),
            quit: name("quit"),
            help: name("help"),
            snapshot: self.command_label("snapshot"),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crossterm::event::{KeyEventKind, KeyEventState};

    fn name(k: &Keymap, e: &KeyEvent) -> Option<&'static str> {
        k.binding(e).map(|b| b.name)
    }

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
            name(&k, &ev(KeyCode::Enter, KeyModifiers::NONE)),
            Some("send")
        );
        assert_eq!(
            name(&k, &ev(KeyCode::Enter, KeyModifiers::ALT)),
            Some("newline")
        );
        assert_eq!(
            name(&k, &ev(KeyCode::Enter, KeyModifiers::SHIFT)),
            Some("newline")
        );
        assert_eq!(name(&k, &ev(KeyCode::Char('s'), c)), Some("snapshot"));
        assert_eq!(name(&k, &ev(KeyCode::Char('r'), c)), Some("restore"));
        assert_eq!(
            name(&k, &ev(KeyCode::F(7), KeyModifiers::NONE)),
            Some("compress")
        );
        // Ctrl+K is readline's kill in the box, never bound by default.
        assert_eq!(name(&k, &ev(KeyCode::Char('k'), c)), None);
        assert_eq!(name(&k, &ev(KeyCode::Char('g'), c)), Some("goals"));
        assert_eq!(name(&k, &ev(KeyCode::Char('l'), c)), Some("models"));
        assert_eq!(name(&k, &ev(KeyCode::Char('q'), c)), Some("quit"));
        assert_eq!(name(&k, &ev(KeyCode::Char('n'), c)), Some("new"));
        assert_eq!(name(&k, &ev(KeyCode::Char('c'), c)), Some("quit"));
        assert_eq!(
            name(&k, &ev(KeyCode::Esc, KeyModifiers::NONE)),
            Some("stop")
        );
        assert_eq!(
            name(&k, &ev(KeyCode::PageUp, KeyModifiers::NONE)),
            Some("page_up")
        );
        // Caps lock or shift do not change control letters.
        assert_eq!(
            name(&k, &ev(KeyCode::Char('S'), c | KeyModifiers::SHIFT)),
            Some("snapshot")
        );
        // Plain letters are text, not actions.
        assert_eq!(name(&k, &ev(KeyCode::Char('s'), KeyModifiers::NONE)), None);
    }

    #[test]
    fn overrides_replace_and_free_keys() {
        let mut o = BTreeMap::new();
        o.insert("snapshot".to_string(), "f5, ctrl+b".to_string());
        o.insert("restore".to_string(), "ctrl+s".to_string());
        let k = Keymap::new(&o).unwrap();
        assert_eq!(
            name(&k, &ev(KeyCode::F(5), KeyModifiers::NONE)),
            Some("snapshot")
        );
        assert_eq!(
            name(&k, &ev(KeyCode::Char('s'), KeyModifiers::CONTROL)),
            Some("restore")
        );
        assert_eq!(
            name(&k, &ev(KeyCode::Char('r'), KeyModifiers::CONTROL)),
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
        assert_eq!(k.label("snapshot").as_deref(), Some("Ctrl+R"));
        assert_eq!(k.label("restore").as_deref(), Some("F6"));
        o.insert("restore".to_string(), String::new());
        assert_eq!(Keymap::new(&o).unwrap().label("restore"), None);
    }

    #[test]
    fn every_binding_makes_its_intent_without_an_argument() {
        let mut names = std::collections::BTreeSet::new();
        for b in BINDINGS {
            assert!(names.insert(b.name), "{} twice", b.name);
            // A command a key runs exists and needs no argument.
            assert!(b.intent().is_ok(), "{}: {:?}", b.name, b.intent());
        }
        let k = Keymap::new(&BTreeMap::new()).unwrap();
        let ctrl = |c| ev(KeyCode::Char(c), KeyModifiers::CONTROL);
        // The key and the command are one intent: Ctrl+Q is /quit, Ctrl+L is /model.
        assert!(matches!(k.intent(&ctrl('q')), Some(Ok(Intent::Quit))));
        assert!(k.quits(&ctrl('c')));
        assert!(matches!(k.intent(&ctrl('l')), Some(Ok(Intent::PickModel))));
        assert_eq!(k.command_label("model").as_deref(), Some("Ctrl+L"));
        assert_eq!(k.command_label("retry"), None);
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
        assert_eq!(help.len(), BINDINGS.len());
    }
}
