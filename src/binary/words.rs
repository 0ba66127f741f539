//! The binary's own lines: the banner a chat starts with (damage in the log, which
//! session plain `--resume` opened), how a session is named, and what is said after the
//! terminal is handed back.

use super::session::Opened;
use ollm_tui::app::words;
use ollm_tui::config::Cli;
use ollm_tui::store::{self, DataDir};
use ollm_tui::ui::Banner;
use ollm_tui::view::Severity;
use std::io::Write;

/// How a session is named to the person: its shortest unique id and its title.
pub fn session_name(dir: &DataDir, id: &str) -> String {
    let short = store::sessions::short_id(dir, id);
    match store::sessions::summary(dir, id).ok().and_then(|s| s.title) {
        Some(title) => format!(
            "{short} \u{201c}{}\u{201d}",
            ollm_tui::core::sanitize::sanitize(&title)
        ),
        None => short,
    }
}

/// What is said when the person leaves a session that was saved: which one, and how to
/// come back (plain `--resume` opens it: it is the one last used).
pub fn saved_line(dir: &DataDir, id: &str) -> String {
    let short = store::sessions::short_id(dir, id);
    format!(
        "Session saved: {}\nResume it with: ollm-tui --resume (the last one used) or ollm-tui --resume {short}",
        session_name(dir, id)
    )
}

/// `--resume` with no id: say which session that was, since the person did not name it.
pub fn resumed_banner(cli: &Cli, dir: &DataDir, opened: &Opened) -> Option<Banner> {
    if cli.resume.as_deref() != Some("") {
        return None;
    }
    let id = &opened.spec.session_id;
    let when = store::sessions::summary(dir, id)
        .map(|s| {
            format!(
                " (last active {})",
                s.last_activity
                    .with_timezone(&chrono::Local)
                    .format("%Y-%m-%d %H:%M")
            )
        })
        .unwrap_or_default();
    Some(Banner::new(
        Severity::Info,
        format!(
            "Resumed the session you last used: {}{when}",
            session_name(dir, id)
        ),
        "`ollm-tui --resume ID` opens another (`ollm-tui sessions` lists them). Esc closes this.",
    ))
}

/// A session the app left: what to tell the person after the terminal is handed back.
pub struct Ended {
    pub session_id: String,
    pub persisted: bool,
    pub rescued: Option<ollm_tui::actor::Rescued>,
}

/// What loading the session's log skipped or set aside, said once at start.
pub fn damage_banner(opened: &Opened) -> Option<Banner> {
    opened
        .loaded
        .as_ref()
        .filter(|l| !l.report.is_clean())
        .map(|l| {
            // Only a torn last line goes to a .corrupt file; skipped lines stay in the log.
            let hint = if l
                .report
                .torn_tail
                .as_ref()
                .is_some_and(|t| t.set_aside.is_some())
            {
                "Everything readable was loaded; the incomplete line was set aside (see the .corrupt file next to the session)."
            } else {
                "Everything readable was loaded; what could not be read stays in the file untouched."
            };
            Banner::new(
                Severity::Warn,
                format!("The session file was damaged: {}", words::load_report(&l.report)),
                hint,
            )
        })
}

/// What is said about the sessions the app left, once the terminal is handed back: a
/// record that could not be written, and the session the person quit from.
pub fn say_ended(dir: &DataDir, ended: &[Ended]) {
    // After a hangup there is no stderr; nothing to do then.
    let mut err = std::io::stderr();
    for (i, e) in ended.iter().enumerate() {
        let session_id = &e.session_id;
        match &e.rescued {
            Some(ollm_tui::actor::Rescued {
                records,
                to: Ok(path),
            }) => {
                let _ = writeln!(
                    err,
                    "ollm-tui: {records} record(s) could not be written to the session log (the disk is full or the data folder cannot be written); \
                     they are saved in {}.\nThe session {session_id} ends before them.",
                    path.display()
                );
            }
            Some(ollm_tui::actor::Rescued {
                records,
                to: Err(e),
            }) => {
                let _ = writeln!(
                    err,
                    "ollm-tui: {records} record(s) could not be written to the session log, nor to \
                     a rescue file ({e}); they are lost.\nThe session {session_id} ends before them."
                );
            }
            // Only the session the person quit from is named; the ones left for another
            // are in `ollm-tui sessions`.
            None if e.persisted && i + 1 == ended.len() => {
                let _ = writeln!(err, "{}", saved_line(dir, session_id));
            }
            None => {}
        }
    }
}
