//! The notes shown on the input: what a second quit or `/new` would lose (a draft, records
//! not on disk, a pull under way), and a paste that was cut or folded. Apart because they
//! all answer a key the person just pressed, on the line they are typing in.

use super::{KeyNames, records};

/// On the input when quitting would lose records the session log could not take.
pub fn quit_unwritten_note(keys: &KeyNames, waiting: usize) -> String {
    format!(
        "{} not on disk: {} again saves {} to a rescue file and quits",
        records(waiting),
        keys.quit,
        if waiting == 1 { "it" } else { "them" }
    )
}

/// On the input when quitting would discard a draft.
pub fn quit_note(keys: &KeyNames) -> String {
    format!("unsent text: {} again quits and discards it", keys.quit)
}

/// On the input when `/new` would discard messages typed ahead.
pub fn new_session_note() -> String {
    "unsent text: /new again discards it and starts the new session".to_string()
}

/// On the input when `/new` would leave records the session log could not take.
pub fn new_session_unwritten_note(waiting: usize) -> String {
    format!(
        "{} not on disk: /new again saves {} to a rescue file and starts the new session",
        records(waiting),
        if waiting == 1 { "it" } else { "them" }
    )
}

/// On the input when quitting would stop a pull under way.
pub fn quit_pull_note(keys: &KeyNames, name: &str) -> String {
    format!(
        "pulling {name}: {} again stops the pull and quits (/pull {name} later resumes it)",
        keys.quit
    )
}

/// On the input when `/new` would stop a pull under way.
pub fn new_session_pull_note(name: &str) -> String {
    format!(
        "pulling {name}: /new again stops the pull and starts the new session (/pull {name} resumes it)"
    )
}

/// On the input when a paste was larger than the limit.
pub fn paste_cut(kept_bytes: usize, pasted_bytes: usize) -> String {
    format!(
        "paste cut at {} KiB of {} KiB (paste_limit_kib)",
        kept_bytes / 1024,
        pasted_bytes / 1024
    )
}

/// On the input when a large paste was folded to a marker.
pub fn paste_folded(marker: &str) -> String {
    format!("{marker} is sent in full with the message; delete it to drop the paste")
}

/// On the input while a message of several lines is open (`"""`, as in `ollama run`).
pub const MULTILINE_OPEN: &str =
    "several lines: Enter is a new line; a closing \"\"\" and Enter send";
