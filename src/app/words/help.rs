//! The status line's words and the help: the help's rows on the status line and on itself,
//! the hint in an empty transcript, the note when the model cannot call tools. Apart
//! because they explain the screen rather than say what happened.

use super::KeyNames;

/// Beside the mode in the status line when the model cannot call tools.
pub const TOOLS_UNSUPPORTED: &str = "no tools: model";

/// The help's first rows: the status line, part by part, as a newcomer meets it (#31).
/// How the help itself scrolls and closes follows ([`help_close_row`]).
pub const STATUS_LINE_HELP: &[(&str, &str)] = &[
    ("The status line", "the bottom row, left to right:"),
    (
        "Context: 560/8,192",
        "tokens the next request holds, of the model's context size. A word after it says where the size came from when you did not set it: (server) as the server loaded the model, (model) the model's own length, (default) 8,192 until the model is loaded, (guessed) nothing known. /ctx N sets it",
    ),
    (
        "▮▮▮▯┃▯▯ 55%",
        "the same as a bar; ┃ marks where compression starts: older messages are then folded into a summary (a checkpoint) to make room",
    ),
    (
        "3 compressions",
        "how many times that happened (a wide window shows it)",
    ),
    (
        "🟢 19/19 facts",
        "of the facts you stated in messages that were folded, how many every request still carries (🟢 from 85 %, 🟡 60 %, 🟠 40 %, 🔴 below): shown once something is folded. The others stay on disk and come back when you ask about them; a larger context (/ctx) keeps more in every request",
    ),
    (
        "mouse: terminal (F9)",
        "shown while the mouse is left to the terminal's own select-and-copy; the wheel then scrolls the terminal, and F9 (or /mouse on) takes the mouse back",
    ),
    (
        "model · mode",
        "the model answering, and how it is prompted (/mode)",
    ),
    (
        "You #12",
        "a message's number in the session (for /inspect, /pin, /fork): numbers count every record, so they skip those between messages (summaries, notes)",
    ),
];

/// The help's last rows: the manual's topics, each as the command that opens it.
pub fn topic_rows() -> Vec<(String, String)> {
    crate::manual::TOPICS
        .iter()
        .map(|t| (format!("/help {}", t.name), t.summary.to_string()))
        .collect()
}

/// Under the message box when `/help TOPIC` names no topic: what is wrong, and the
/// topics (the error lists them).
pub fn no_topic(e: &crate::manual::NotFound) -> String {
    format!("/help: {e}")
}

/// Under "No messages yet." in an empty transcript.
pub fn empty_hint(keys: &KeyNames) -> String {
    format!(
        "Type below and press Enter to send; ? or {} opens the help.",
        keys.help
    )
}

/// The help's row on itself, after the status line's: the key that opens it closes it too.
pub fn help_close_row(keys: &KeyNames) -> (String, String) {
    (
        format!("Esc, q or {} (help)", keys.help),
        "close this help; Up, Down, PgUp, PgDn, Home and the mouse wheel scroll it".into(),
    )
}
