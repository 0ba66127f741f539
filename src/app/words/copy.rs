//! Copying (`/copy`) and the mouse: what is said when text goes to the clipboard or
//! cannot, and when the mouse is given to the terminal or taken back. Apart because both
//! are about getting text out of the transcript.

/// `/copy` done: "Copied the last reply (1,234 characters) to the clipboard.", and what the
/// scrub left out, as the screen does.
pub fn copied(what: &str, chars: usize, removed: usize) -> String {
    let n = |k: usize| crate::ui::text::thousands(k as u64);
    let mut said = format!("Copied {what} ({} characters) to the clipboard.", n(chars));
    if removed > 0 {
        said.push_str(&format!(
            " {} control or direction character{} left out, as on screen.",
            n(removed),
            if removed == 1 { " was" } else { "s were" }
        ));
    }
    said
}

pub fn copy_too_long(what: &str, bytes: usize, limit: usize) -> String {
    format!(
        "Not copied: {what} is {} and terminals take about {} through OSC 52. /export writes the whole session to a file.",
        crate::ui::text::bytes(bytes as u64),
        crate::ui::text::bytes(limit as u64)
    )
}

pub fn copy_failed(error: &str) -> String {
    format!("Cannot copy: {error}.")
}

/// The mouse given to the terminal, or taken back; `key` toggles it.
/// After the mode in the status line while the mouse is left to the terminal.
pub fn mouse_status(key: &str) -> String {
    format!("mouse: terminal ({key})")
}

pub fn mouse_note(captured: bool, key: &str) -> String {
    if captured {
        format!(
            "Mouse captured: the wheel scrolls the transcript; {key} releases it for selecting text."
        )
    } else {
        format!(
            "Mouse released: select with the mouse and copy as your terminal does; {key} captures it again (the wheel scrolls then)."
        )
    }
}
