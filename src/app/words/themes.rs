//! What `/theme` says: the theme kept and how to make it last, a name that is no theme,
//! a theme file that does not load, and the picker's note without colour. Apart because
//! they are one subject and change together.

/// A theme kept (Enter in the picker, or `/theme NAME`): for this run only, and the
/// config key that makes it last.
pub fn theme_kept(name: &str) -> String {
    format!(
        "Theme: {name}, for this run. To keep it, put theme = \"{name}\" in config.toml \
         (ollm-tui help configuration)."
    )
}

/// `/theme NAME` for a name no theme has: the closest one, and all of them.
pub fn no_such_theme(name: &str, near: Option<&str>, names: &[String]) -> String {
    let all = names.join(", ");
    match near {
        Some(near) => format!("no theme {name:?}: did you mean {near}? (themes: {all})"),
        None => format!("no theme {name:?}; the themes are {all} (/theme picks one)"),
    }
}

/// A theme whose file does not load: the screen keeps the theme it had.
pub fn theme_unreadable(error: &str) -> String {
    format!("Theme not changed: {error}.")
}

/// The picker's note when `NO_COLOR` is set: the themes lose their colours, so the
/// preview shows only bold, dim and reversed text.
pub const THEMES_NO_COLOR: &str =
    "NO_COLOR is set: every theme is drawn without colour, so they differ only in bold and dim.";
