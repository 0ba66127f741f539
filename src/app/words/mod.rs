//! The words a person reads about what happened: typed notices from the actor (and the
//! engine events inside them) become a title and, for banners, the fix.
//!
//! This is the one place those sentences are written, so wording changes here and only
//! here. Hints name the keys the person's keymap binds ([`KeyNames`]), or the command
//! where a key is unbound, so a hint never names a key that was moved.
//!
//! The sentences are kept apart by what they are about, one file each, so a wording is
//! found by its subject: `notices.rs` (typed notices from the actor, banners among them),
//! `events.rs` (the engine's events, as the transcript says them), `help.rs` (the status
//! line's words and the help), `models.rs` (the model picker and `/pull`), `copy.rs`
//! (`/copy` and the mouse), `input_notes.rs` (the notes on the input: what a second quit
//! or `/new` would lose, a paste cut or folded), `dialogs.rs` (what the snapshot list,
//! the checkpoint inspector and the session browser say of themselves), `session.rs` (a
//! session's parameters, a new session, a fork), `themes.rs` (`/theme`), `load_report.rs`
//! (what loading a log set aside) and `markdown.rs` (the Markdown export's words). This file holds what they share:
//! [`KeyNames`], [`Words`], and the few phrases more than one of them says. Every path
//! stays `app::words::X`: the files are private and re-exported here.
//!
//! Like the file it was, this folder imports nothing of the rest of `app`.

mod copy;
mod dialogs;
mod events;
mod help;
mod input_notes;
mod load_report;
mod markdown;
mod models;
mod notices;
pub mod pictures;
mod session;
mod themes;

pub use copy::{copied, copy_failed, copy_too_long, mouse_note, mouse_status};
pub use dialogs::{
    CHECK_STARTED, CHECK_STOPPED, CHECKPOINT_GONE, FACT_EDIT_BUSY, FACT_IN_VIEW, check_report,
    inspect_merged, no_snapshots, no_such_checkpoint, no_such_fact, snapshots_damaged,
    snapshots_unreadable, title_limit,
};
pub use events::skip_reason;
pub use help::{
    STATUS_LINE_HELP, TOOLS_UNSUPPORTED, empty_hint, help_close_row, no_topic, topic_rows,
};
pub use input_notes::{
    MULTILINE_OPEN, new_session_note, new_session_pull_note, new_session_unwritten_note, paste_cut,
    paste_folded, quit_note, quit_pull_note, quit_unwritten_note,
};
pub use load_report::load_report;
pub use markdown::{MARKDOWN, goal_change};
pub use models::{
    LOADING, NO_MODELS, PULL_FOOTER, PULL_USAGE, picker_missing, pull_busy, pull_cancelled,
    pull_failed, pull_figures, pull_row, pull_started, pull_status, pull_title, pulled,
};
pub use notices::{not_responding, notice, reply_timing};
pub use session::{forked, new_session, param_change, params_listing, session_info};
pub use themes::{THEMES_NO_COLOR, no_such_theme, theme_kept, theme_unreadable};

/// How hints name the keys: the one the keymap binds, else the command that does the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyNames {
    pub restore: String,
    pub compress: String,
    pub models: String,
    pub goals: String,
    pub quit: String,
    pub help: String,
    /// `None` when no key takes a snapshot (the hint then names only `/snapshot`).
    pub snapshot: Option<String>,
}

impl Default for KeyNames {
    fn default() -> Self {
        KeyNames {
            restore: "Ctrl+R".into(),
            compress: "F7".into(),
            models: "Ctrl+L".into(),
            goals: "Ctrl+G".into(),
            quit: "Ctrl+Q".into(),
            help: "F1".into(),
            snapshot: Some("Ctrl+S".into()),
        }
    }
}

/// A notice in words: what happened, and (for banners) what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words {
    pub title: String,
    pub hint: Option<String>,
}

impl Words {
    fn line(title: impl Into<String>) -> Words {
        Words {
            title: title.into(),
            hint: None,
        }
    }

    fn with_hint(title: impl Into<String>, hint: impl Into<String>) -> Words {
        Words {
            title: title.into(),
            hint: Some(hint.into()),
        }
    }

    /// As one transcript line: the title, then the hint if there is one.
    pub fn text(self) -> String {
        match self.hint {
            Some(h) => format!("{} {h}", self.title),
            None => self.title,
        }
    }
}

/// The fix said under a snapshot or a saved result that failed (notices and events alike).
const SNAPSHOT_FIX: &str = "Check disk space and permissions of the data directory.";

/// "1 record" / "3 records".
fn records(n: usize) -> String {
    format!("{n} record{}", if n == 1 { "" } else { "s" })
}
