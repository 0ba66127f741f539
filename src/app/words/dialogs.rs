//! What the dialogs say of themselves: the snapshot list (none yet, unreadable, damaged
//! files), the checkpoint inspector (merged, gone, no such one), and the session browser's
//! title limit. Apart because each is said inside its dialog, not as a notice.

use super::{KeyNames, Words};

/// `/facts pin N` (or edit, forget, keep) with no row N.
pub fn no_such_fact(row: usize, rows: usize) -> String {
    match rows {
        0 => "No facts yet: /facts lists the names, numbers, dates and codes you state.".into(),
        _ => format!("There is no fact {row}: /facts lists {rows}, numbered from 1."),
    }
}

/// `/check` asked.
pub const CHECK_STARTED: &str = "Checking: the model is asked a few questions about facts you stated earlier, with what it is sent now. Your next message goes first and ends the check.";

/// A message sent during a check.
pub const CHECK_STOPPED: &str = "Check stopped: your message goes first.";

/// What a check found: the count, the time, then each question's fact and answer.
pub fn check_report(report: &crate::actor::CheckReport) -> String {
    let right = report.graded.iter().filter(|g| g.right).count();
    let mut out = format!(
        "Check: {} answered {right} of {} questions about your earlier facts right ({:.0} s).",
        report.model,
        report.graded.len(),
        report.seconds
    );
    for g in &report.graded {
        let answer: String = g.answer.split_whitespace().collect::<Vec<_>>().join(" ");
        let answer: String = answer.chars().take(80).collect();
        out.push_str(&format!(
            "\n{} {} — asked for \"{}\", answered \"{answer}\"",
            if g.right { "right:" } else { "wrong:" },
            g.probe.fact,
            g.probe.value,
        ));
    }
    out
}

/// Rewording a fact whose message the model still sees.
pub const FACT_IN_VIEW: &str = "That fact is in a message the model still sees: say the change in the chat. Pin it (p) to keep it once its message is folded.";

/// Rewording a fact with a draft in the box: the draft is not put aside.
pub const FACT_EDIT_BUSY: &str =
    "The message box holds a draft: send or clear it, then /facts edit N TEXT.";

/// Enter on a checkpoint the panel no longer has.
pub const CHECKPOINT_GONE: &str = "That checkpoint no longer exists.";

/// A title typed to its limit: the next character is not taken, and the browser says why.
pub fn title_limit(max: usize) -> String {
    format!("Titles are at most {max} characters: the rest is not taken.")
}

/// Snapshot files that exist but could not be read (listed apart, never hidden).
pub fn snapshots_damaged(n: usize, reason: &str, path: &str) -> Words {
    Words::with_hint(
        format!(
            "{n} snapshot file{} could not be read: {reason}",
            if n == 1 { "" } else { "s" }
        ),
        format!("It stays on disk untouched ({path}); the others can be restored."),
    )
}

pub fn no_snapshots(keys: &KeyNames) -> String {
    match &keys.snapshot {
        Some(k) => format!("No snapshots yet: {k} or /snapshot takes one."),
        None => "No snapshots yet: /snapshot takes one.".to_string(),
    }
}

pub fn snapshots_unreadable(error: &str) -> Words {
    Words::with_hint(
        format!("Cannot list snapshots: {error}"),
        "Check the data directory's permissions (OLLM_HOME/snapshots).",
    )
}

/// `/inspect N` found checkpoint N inside the one it was merged into.
pub fn inspect_merged(asked: u32, into: u32) -> String {
    format!("Checkpoint {asked} was merged into checkpoint {into}; showing that.")
}

/// `/inspect` found no such checkpoint.
pub fn no_such_checkpoint(keys: &KeyNames) -> String {
    format!(
        "No such checkpoint now: older ones merge as they age; the panel ({}) lists the current ones.",
        keys.goals
    )
}
