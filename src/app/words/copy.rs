//! Copying (`/copy`) and the mouse: what is said when text goes to the clipboard or
//! cannot, and when the mouse is given to the terminal or taken back. Apart because both
//! are about getting text out of the transcript.

/// `/copy` done: "Sent the last reply (1,234 characters) to the terminal's clipboard.",
/// what the scrub left out, as the screen does, and inside tmux what it takes for the text
/// to arrive (OSC 52 gives no answer, so the app cannot know whether it did).
pub fn copied(what: &str, chars: usize, removed: usize, tmux: bool) -> String {
    let n = |k: usize| crate::ui::text::thousands(k as u64);
    let mut said = format!(
        "Sent {what} ({} characters) to the terminal's clipboard.",
        n(chars)
    );

    if removed > 0 {
        said.push_str(&format!(
            " {} control or direction character{} left out, as on screen.",
            n(removed),
            if removed == 1 { " was" } else { "s were" }
        ));
    }
    if tmux {
        said.push_str(
            " Inside tmux it arrives only with `set -g set-clipboard on` (tmux's default keeps it out).",
        );
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_copy_says_it_was_sent_and_inside_tmux_what_tmux_needs() {
        let plain = super::copied("the last reply", 1234, 0, false);
        assert_eq!(
            plain,
            "Sent the last reply (1,234 characters) to the terminal's clipboard."
        );
        let tmux = super::copied("the last reply", 12, 2, true);
        assert!(tmux.contains("2 control or direction characters were left out"));
        assert!(tmux.ends_with("(tmux's default keeps it out)."), "{tmux}");
    }
}
