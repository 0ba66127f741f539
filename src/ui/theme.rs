//! Themes: named styles for every role the UI draws, loaded from TOML.
//!
//! Strategy: three built-in themes are embedded (`themes/*.toml`). `dark` defines every
//! role; the others, and any user theme, are *layers* merged over a base: a key a layer
//! leaves out inherits, and inside a style `fg`, `bg` and `modifiers` inherit one by one.
//! A user file `NAME.toml` in the themes directory overrides the built-in of that name
//! (merging over it) or adds a new theme (merging over `extends`, default `dark`).
//! `NO_COLOR` turns any theme monochrome: colours dropped, modifiers kept, and the roles
//! that relied on colour (selection, hot gauge, critical badge) get bold/reversed.
//!
//! Loading happens once at startup; rendering only reads the [`Theme`]. Unknown keys are
//! errors, so a typo is reported (with file and key) instead of silently ignored.

use ratatui::style::{Color, Modifier, Style};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::str::FromStr;

const DARK: &str = include_str!("../../themes/dark.toml");
const LIGHT: &str = include_str!("../../themes/light.toml");
const HIGH_CONTRAST: &str = include_str!("../../themes/high-contrast.toml");

/// Names of the embedded themes, default first.
pub const BUILTIN_THEMES: [&str; 3] = ["dark", "light", "high-contrast"];

/// The theme used when none is configured.
pub const DEFAULT_THEME: &str = "dark";

/// How deep `extends` may chain before we call it a loop.
const MAX_EXTENDS_DEPTH: usize = 8;

fn builtin_source(name: &str) -> Option<&'static str> {
    match name {
        "dark" => Some(DARK),
        "light" => Some(LIGHT),
        "high-contrast" => Some(HIGH_CONTRAST),
        _ => None,
    }
}

macro_rules! roles {
    ($( $(#[$doc:meta])* $name:ident ),* $(,)?) => {
        /// One style per role the UI draws.
        #[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
        pub struct Styles {
            $( $(#[$doc])* pub $name: Style, )*
        }

        impl Styles {
            /// Every role key as written in theme files.
            pub const KEYS: &'static [&'static str] = &[$(stringify!($name)),*];

            fn get_mut(&mut self, key: &str) -> Option<&mut Style> {
                match key {
                    $( stringify!($name) => Some(&mut self.$name), )*
                    _ => None,
                }
            }

            fn for_each_mut(&mut self, mut f: impl FnMut(&'static str, &mut Style)) {
                $( f(stringify!($name), &mut self.$name); )*
            }
        }
    };
}

roles! {
    /// Body text.
    text,
    /// Secondary text: timestamps, hints, counts.
    dim,
    /// Highlights: titles, list markers, keys in help.
    accent,
    border,
    /// Border of the focused pane or overlay.
    border_focus,
    title,
    /// The selected row in lists and pickers.
    selection,
    /// The "you" header of user messages.
    user,
    /// The header of assistant messages.
    assistant,
    tool,
    tool_error,
    pinned,
    info,
    warn,
    error,
    heading,
    link,
    /// URLs shown after link text.
    url,
    /// The bar in front of block quotes.
    quote,
    /// Plain text inside code blocks (used when there is no highlighting).
    code,
    /// Background of code blocks.
    code_bg,
    inline_code,
    rule,
    table_border,
    /// Gauge below 60% of the compression trigger.
    gauge_calm,
    /// Gauge between 60% of the trigger and the trigger.
    gauge_filling,
    /// Gauge at or past the trigger: compression is due.
    gauge_hot,
    /// Gauge eating into the reply reserve.
    gauge_critical,
    gauge_empty,
    gauge_marker,
    rel_high,
    rel_medium,
    rel_low,
    rel_critical,
    /// The status line as a whole (usually a background).
    status,
    spinner,
    /// Locked decisions.
    locked,
    step_done,
    step_doing,
    step_todo,
    /// The "↓ new" hint when not following the bottom.
    hint,
}

/// A complete set of styles plus the syntect theme for code blocks.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Theme {
    pub name: String,
    pub styles: Styles,
    /// syntect theme name for code blocks; `None` disables highlighting.
    pub syntax_theme: Option<String>,
}

/// Why a theme could not be loaded. Each names the file (or built-in) and key at fault.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error(
        "theme {name:?} not found: no {searched} and no built-in theme of that name (built-in: dark, light, high-contrast)"
    )]
    NotFound { name: String, searched: String },
    #[error("invalid theme name {name:?}: use letters, digits, '-' and '_'")]
    BadName { name: String },
    #[error("cannot read theme file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{file}: invalid TOML: {source}")]
    Parse {
        file: String,
        source: toml::de::Error,
    },
    #[error("{file}: key `{key}`: {reason}")]
    Invalid {
        file: String,
        key: String,
        reason: String,
    },
    #[error("{file}: `extends` chain is circular or deeper than {MAX_EXTENDS_DEPTH} at {name:?}")]
    ExtendsLoop { file: String, name: String },
}

impl Default for Theme {
    /// The built-in dark theme (falls back to plain terminal styles if it were broken,
    /// which a test rules out).
    fn default() -> Self {
        builtin(DEFAULT_THEME, 0).unwrap_or_else(|_| Theme::plain())
    }
}

impl Theme {
    /// Terminal defaults everywhere: the base the `dark` file is laid over.
    pub fn plain() -> Theme {
        Theme {
            name: "plain".to_string(),
            styles: Styles::default(),
            syntax_theme: None,
        }
    }

    /// Load theme `name`: `user_dir/NAME.toml` if it exists (merged over the built-in of
    /// the same name, or over its `extends`, default `dark`), else the built-in.
    /// `user_dir` is the themes directory (`$OLLM_HOME/themes`). `no_color` (the caller
    /// reads `NO_COLOR`) makes the result monochrome.
    pub fn load(name: &str, user_dir: Option<&Path>, no_color: bool) -> Result<Theme, ThemeError> {
        let theme = resolve(name, user_dir, 0)?;
        Ok(if no_color { theme.monochrome() } else { theme })
    }

    /// Parse a theme layer from TOML text and merge it over `base`. `origin` names the
    /// source in errors.
    pub fn merge_toml(base: &Theme, text: &str, origin: &str) -> Result<Theme, ThemeError> {
        let table = parse(text, origin)?;
        apply(base.clone(), &table, origin)
    }

    /// The same theme without colour: modifiers only, no syntax highlighting.
    pub fn monochrome(&self) -> Theme {
        let mut styles = self.styles.clone();
        styles.for_each_mut(|key, style| {
            let mut mono = Style::new().add_modifier(style.add_modifier);
            mono = mono.add_modifier(match key {
                "selection" => Modifier::REVERSED,
                "gauge_hot" | "rel_low" | "warn" | "locked" | "border_focus" => Modifier::BOLD,
                "gauge_critical" | "rel_critical" => Modifier::BOLD | Modifier::REVERSED,
                "error" | "user" | "assistant" | "heading" => Modifier::BOLD,
                "gauge_empty" | "dim" | "url" => Modifier::DIM,
                "hint" => Modifier::REVERSED,
                _ => Modifier::empty(),
            });
            *style = mono;
        });
        Theme {
            name: self.name.clone(),
            styles,
            syntax_theme: None,
        }
    }

    /// Identity of the rendering-relevant content, so caches notice a theme change.
    pub fn fingerprint(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.hash(&mut h);
        h.finish()
    }
}

/// The themes there are to choose (`/theme`): the built-ins, then the person's own files
/// in `user_dir` by name (a file named after a built-in overrides it, listed once).
/// A directory that cannot be read adds nothing: the built-ins are still there.
pub fn available(user_dir: Option<&Path>) -> Vec<String> {
    let mut names: Vec<String> = BUILTIN_THEMES.iter().map(|n| n.to_string()).collect();
    let mut own: Vec<String> = user_dir
        .and_then(|d| std::fs::read_dir(d).ok())
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".toml")?;
            (valid_name(stem) && !BUILTIN_THEMES.contains(&stem)).then(|| stem.to_string())
        })
        .collect();
    own.sort();
    names.extend(own);
    names
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn builtin(name: &str, depth: usize) -> Result<Theme, ThemeError> {
    let origin = format!("built-in theme {name}.toml");
    let Some(src) = builtin_source(name) else {
        return Err(ThemeError::NotFound {
            name: name.to_string(),
            searched: "user theme file".to_string(),
        });
    };
    let table = parse(src, &origin)?;
    let base = match table.get("extends").and_then(toml::Value::as_str) {
        Some(parent) if parent != name && depth < MAX_EXTENDS_DEPTH => builtin(parent, depth + 1)?,
        Some(_) => {
            return Err(ThemeError::ExtendsLoop {
                file: origin,
                name: name.to_string(),
            });
        }
        None if name == "dark" => Theme::plain(),
        None => builtin("dark", depth + 1)?,
    };
    apply(base, &table, &origin)
}

fn resolve(name: &str, user_dir: Option<&Path>, depth: usize) -> Result<Theme, ThemeError> {
    if !valid_name(name) {
        return Err(ThemeError::BadName {
            name: name.to_string(),
        });
    }
    let user_file = user_dir.map(|d| d.join(format!("{name}.toml")));
    let Some(path) = user_file.filter(|p| p.is_file()) else {
        return builtin(name, depth).map_err(|e| match e {
            ThemeError::NotFound { .. } => ThemeError::NotFound {
                name: name.to_string(),
                searched: match user_dir {
                    Some(d) => d.join(format!("{name}.toml")).display().to_string(),
                    None => "user themes directory".to_string(),
                },
            },
            other => other,
        });
    };
    let origin = path.display().to_string();
    let text = crate::small_file::read_to_string(&path, user_dir, crate::small_file::SETTINGS)
        .map_err(|source| ThemeError::Io {
            path: path.clone(),
            source,
        })?;
    let table = parse(&text, &origin)?;
    let base = match table.get("extends") {
        Some(v) => {
            let parent = v.as_str().ok_or_else(|| ThemeError::Invalid {
                file: origin.clone(),
                key: "extends".to_string(),
                reason: "expected a theme name (string)".to_string(),
            })?;
            if depth >= MAX_EXTENDS_DEPTH {
                return Err(ThemeError::ExtendsLoop {
                    file: origin,
                    name: parent.to_string(),
                });
            }
            if parent == name {
                // Extending yourself means the built-in of that name.
                builtin(name, depth + 1)?
            } else {
                resolve(parent, user_dir, depth + 1)?
            }
        }
        None if builtin_source(name).is_some() => builtin(name, depth + 1)?,
        None => builtin(DEFAULT_THEME, depth + 1)?,
    };
    let mut theme = apply(base, &table, &origin)?;
    theme.name = name.to_string();
    Ok(theme)
}

fn parse(text: &str, origin: &str) -> Result<toml::Table, ThemeError> {
    toml::from_str::<toml::Table>(text).map_err(|source| ThemeError::Parse {
        file: origin.to_string(),
        source,
    })
}

fn invalid(file: &str, key: &str, reason: impl Into<String>) -> ThemeError {
    ThemeError::Invalid {
        file: file.to_string(),
        key: key.to_string(),
        reason: reason.into(),
    }
}

fn apply(mut theme: Theme, table: &toml::Table, origin: &str) -> Result<Theme, ThemeError> {
    for (key, value) in table {
        match key.as_str() {
            "name" => {
                let name = value
                    .as_str()
                    .ok_or_else(|| invalid(origin, key, "expected a string"))?;
                theme.name = name.to_string();
            }
            "extends" => {
                value
                    .as_str()
                    .ok_or_else(|| invalid(origin, key, "expected a theme name (string)"))?;
            }
            "syntax_theme" => {
                let s = value
                    .as_str()
                    .ok_or_else(|| invalid(origin, key, "expected a syntect theme name"))?;
                theme.syntax_theme = match s {
                    "" | "none" => None,
                    s => Some(s.to_string()),
                };
            }
            "styles" => {
                let styles = value
                    .as_table()
                    .ok_or_else(|| invalid(origin, key, "expected a table of role = style"))?;
                for (role, v) in styles {
                    let full = format!("styles.{role}");
                    let slot = theme.styles.get_mut(role).ok_or_else(|| {
                        invalid(
                            origin,
                            &full,
                            format!("unknown role (known: {})", Styles::KEYS.join(", ")),
                        )
                    })?;
                    *slot = merge_style(*slot, v, origin, &full)?;
                }
            }
            _ => {
                return Err(invalid(
                    origin,
                    key,
                    "unknown key (expected name, extends, syntax_theme, styles)",
                ));
            }
        }
    }
    Ok(theme)
}

fn parse_color(value: &toml::Value, origin: &str, key: &str) -> Result<Color, ThemeError> {
    let reason =
        "expected a colour: a name (red, dark_gray, light_blue, reset), #rrggbb, or an index 0-255";
    match value {
        toml::Value::String(s) => Color::from_str(s.trim())
            .map_err(|_| invalid(origin, key, format!("{reason}, got {s:?}"))),
        toml::Value::Integer(i) => u8::try_from(*i)
            .map(Color::Indexed)
            .map_err(|_| invalid(origin, key, format!("{reason}, got {i}"))),
        other => Err(invalid(origin, key, format!("{reason}, got {other}"))),
    }
}

fn parse_modifier(name: &str) -> Option<Modifier> {
    Some(match name.to_ascii_lowercase().replace('-', "_").as_str() {
        "bold" => Modifier::BOLD,
        "dim" => Modifier::DIM,
        "italic" => Modifier::ITALIC,
        "underlined" | "underline" => Modifier::UNDERLINED,
        "reversed" | "reverse" => Modifier::REVERSED,
        "crossed_out" | "strikethrough" => Modifier::CROSSED_OUT,
        "slow_blink" | "blink" => Modifier::SLOW_BLINK,
        "hidden" => Modifier::HIDDEN,
        _ => return None,
    })
}

/// A style value is a colour (the foreground) or a table `{ fg, bg, modifiers }`;
/// fields left out keep the base's value, `modifiers = []` clears them.
fn merge_style(
    base: Style,
    value: &toml::Value,
    origin: &str,
    key: &str,
) -> Result<Style, ThemeError> {
    match value {
        toml::Value::String(_) | toml::Value::Integer(_) => {
            Ok(base.fg(parse_color(value, origin, key)?))
        }
        toml::Value::Table(t) => {
            let mut style = base;
            for (field, v) in t {
                let full = format!("{key}.{field}");
                match field.as_str() {
                    "fg" => style = style.fg(parse_color(v, origin, &full)?),
                    "bg" => style = style.bg(parse_color(v, origin, &full)?),
                    "modifiers" => {
                        let list = v.as_array().ok_or_else(|| {
                            invalid(origin, &full, "expected a list like [\"bold\", \"italic\"]")
                        })?;
                        let mut mods = Modifier::empty();
                        for m in list {
                            let name = m.as_str().unwrap_or_default();
                            mods |= parse_modifier(name).ok_or_else(|| {
                                invalid(
                                    origin,
                                    &full,
                                    format!(
                                        "unknown modifier {m} (bold, dim, italic, underlined, reversed, crossed_out)"
                                    ),
                                )
                            })?;
                        }
                        style.add_modifier = mods;
                        style.sub_modifier = Modifier::empty();
                    }
                    _ => {
                        return Err(invalid(
                            origin,
                            &full,
                            "unknown field (expected fg, bg, modifiers)",
                        ));
                    }
                }
            }
            Ok(style)
        }
        other => Err(invalid(
            origin,
            key,
            format!("expected a colour or a table {{ fg, bg, modifiers }}, got {other}"),
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn builtins_parse_and_dark_defines_every_role() {
        for name in BUILTIN_THEMES {
            let t = Theme::load(name, None, false).unwrap();
            assert_eq!(t.name, name);
            assert!(t.syntax_theme.is_some());
        }
        let table = parse(DARK, "dark").unwrap();
        let styles = table["styles"].as_table().unwrap();
        for key in Styles::KEYS {
            assert!(styles.contains_key(*key), "dark.toml lacks styles.{key}");
        }
        assert_eq!(Theme::default(), Theme::load("dark", None, false).unwrap());
    }

    #[test]
    fn the_themes_to_choose_are_the_builtins_then_the_persons_own() {
        assert_eq!(available(None), BUILTIN_THEMES);
        let dir = tempfile::tempdir().unwrap();
        for file in [
            "solar.toml",
            "light.toml",
            "notes.txt",
            "bad name.toml",
            "aqua.toml",
        ] {
            std::fs::write(dir.path().join(file), "").unwrap();
        }
        assert_eq!(
            available(Some(dir.path())),
            ["dark", "light", "high-contrast", "aqua", "solar"]
        );
        assert_eq!(available(Some(&dir.path().join("missing"))), BUILTIN_THEMES);
    }

    #[test]
    fn a_layer_changes_only_what_it_names() {
        let dark = Theme::load("dark", None, false).unwrap();
        let light = Theme::load("light", None, false).unwrap();
        assert_ne!(dark.styles.text, light.styles.text);
        let layer = "syntax_theme = \"none\"\n[styles]\nuser = { bg = \"blue\" }\n";
        let merged = Theme::merge_toml(&light, layer, "layer").unwrap();
        assert_eq!(merged.syntax_theme, None);
        // bg set, fg and modifiers inherited from light.
        assert_eq!(merged.styles.user.bg, Some(Color::Blue));
        assert_eq!(merged.styles.user.fg, light.styles.user.fg);
        assert_eq!(
            merged.styles.user.add_modifier,
            light.styles.user.add_modifier
        );
        let mut rest = merged.styles.clone();
        rest.user = light.styles.user;
        assert_eq!(rest, light.styles);
    }

    #[test]
    fn user_file_overrides_a_builtin_and_merges_fields() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("dark.toml"),
            "[styles]\nuser = { fg = \"#ff0000\" }\nerror = \"42\"\n",
        )
        .unwrap();
        let builtin = Theme::load("dark", None, false).unwrap();
        let t = Theme::load("dark", Some(dir.path()), false).unwrap();
        assert_eq!(t.styles.user.fg, Some(Color::Rgb(255, 0, 0)));
        // Modifiers were not named, so they are inherited.
        assert_eq!(t.styles.user.add_modifier, builtin.styles.user.add_modifier);
        assert_eq!(t.styles.error.fg, Some(Color::Indexed(42)));
        assert_eq!(t.styles.text, builtin.styles.text);
    }

    #[test]
    fn new_user_theme_extends_a_builtin() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("mine.toml"),
            "extends = \"light\"\n[styles]\naccent = { fg = \"dark_gray\", modifiers = [] }\n",
        )
        .unwrap();
        let light = Theme::load("light", None, false).unwrap();
        let t = Theme::load("mine", Some(dir.path()), false).unwrap();
        assert_eq!(t.name, "mine");
        assert_eq!(t.styles.accent, Style::new().fg(Color::DarkGray));
        assert_eq!(t.styles.user, light.styles.user);
        // Without `extends`, a new theme merges over the default.
        std::fs::write(dir.path().join("bare.toml"), "[styles]\ntext = \"red\"\n").unwrap();
        let bare = Theme::load("bare", Some(dir.path()), false).unwrap();
        assert_eq!(bare.styles.user, Theme::default().styles.user);
    }

    #[test]
    fn errors_name_the_file_and_key() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            (
                "[styles]\nuser = { fg = \"chartreuse-ish\" }\n",
                "styles.user.fg",
            ),
            ("[styles]\nusr = \"red\"\n", "styles.usr"),
            ("[styles]\nuser = { fgg = \"red\" }\n", "styles.user.fgg"),
            (
                "[styles]\nuser = { modifiers = [\"blinky\"] }\n",
                "styles.user.modifiers",
            ),
            ("colour = 1\n", "colour"),
            ("[styles]\nerror = 300\n", "styles.error"),
        ];
        for (i, (text, key)) in cases.iter().enumerate() {
            let name = format!("bad{i}");
            std::fs::write(dir.path().join(format!("{name}.toml")), text).unwrap();
            let err = Theme::load(&name, Some(dir.path()), false).unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains(&format!("{name}.toml")), "{msg}");
            assert!(msg.contains(&format!("`{key}`")), "{msg}");
        }
        std::fs::write(dir.path().join("broken.toml"), "[styles\n").unwrap();
        let err = Theme::load("broken", Some(dir.path()), false).unwrap_err();
        assert!(matches!(err, ThemeError::Parse { .. }));
        assert!(err.to_string().contains("broken.toml"));
    }

    #[test]
    fn missing_and_bad_names() {
        let dir = tempfile::tempdir().unwrap();
        let err = Theme::load("nope", Some(dir.path()), false).unwrap_err();
        assert!(matches!(err, ThemeError::NotFound { .. }));
        assert!(err.to_string().contains("nope.toml"));
        assert!(matches!(
            Theme::load("../etc/passwd", Some(dir.path()), false),
            Err(ThemeError::BadName { .. })
        ));
    }

    #[test]
    fn extends_loops_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.toml"), "extends = \"b\"\n").unwrap();
        std::fs::write(dir.path().join("b.toml"), "extends = \"a\"\n").unwrap();
        assert!(matches!(
            Theme::load("a", Some(dir.path()), false),
            Err(ThemeError::ExtendsLoop { .. })
        ));
    }

    #[test]
    fn no_color_keeps_only_modifiers() {
        for name in BUILTIN_THEMES {
            let t = Theme::load(name, None, true).unwrap();
            let mut styles = t.styles.clone();
            styles.for_each_mut(|key, s| {
                assert_eq!(s.fg, None, "{key}");
                assert_eq!(s.bg, None, "{key}");
            });
            assert!(t.syntax_theme.is_none());
            assert!(t.styles.selection.add_modifier.contains(Modifier::REVERSED));
            assert!(
                t.styles
                    .gauge_critical
                    .add_modifier
                    .contains(Modifier::REVERSED)
            );
        }
    }

    #[test]
    fn fingerprint_tracks_content() {
        let a = Theme::default();
        let mut b = a.clone();
        assert_eq!(a.fingerprint(), b.fingerprint());
        b.styles.user = Style::new().fg(Color::Red);
        assert_ne!(a.fingerprint(), b.fingerprint());
    }
}
