//! `ollm-tui export ID --format md|json`: a session's full history for people and tools.
//!
//! Strategy: both renderers walk the records once, in order; the session's settings, counts
//! and goal board come from the same fold as the session list (`core::overview`), exactly
//! as they stood at the end of the session. JSON follows a common session-file shape
//! (`sessionId`, `messages[].parts`, `toolCalls[].result.llmContent`, `metadata`) and keeps
//! texts byte for byte; it adds `status` on interrupted replies, and `checkpoints` and
//! `goals`. Markdown is for reading, in the app's words ([`MarkdownWords`]: this module
//! only lays it out); every piece of text from the log goes through
//! `core::sanitize`, because exports get pasted into terminals, and code fences are made
//! longer than any backtick run inside them so content cannot break out.
//!
//! `json.rs` writes the session-file JSON, `markdown.rs` the readable transcript; this
//! file picks one and writes it to disk.

mod json;
mod markdown;

pub use json::{to_json, to_json_text};
pub use markdown::{
    BoardWords, HeadWords, MarkdownWords, RecordWords, SettingsSentence, images_folder, one_line,
    to_markdown, to_markdown_titled,
};

use crate::core::overview::SessionOverview;
use crate::store::StoreError;
use crate::store::log::LoadedLog;

/// The session as the session list folds it: settings, counts and goal board at its end.
fn overview(log: &LoadedLog) -> SessionOverview {
    SessionOverview::of(&log.header, &log.records)
}

/// The title a Markdown export is headed by, as the session list names it: given with
/// rename, else the model's (`manage::custom_title`).
pub fn title(dir: &crate::store::DataDir, log: &LoadedLog) -> Option<String> {
    crate::store::manage::custom_title(
        &dir.session_log_path(&log.header.session_id),
        overview(log).titled.as_deref(),
    )
}

/// What an export is written as.
#[derive(Debug, Clone, Copy)]
pub enum Format {
    /// The session-file JSON: data only.
    Json,
    /// A readable transcript, with the words it is given.
    Markdown(MarkdownWords),
}

/// Render a session and write it to `$OLLM_HOME/exports/<id>.md` or `.json` (directory
/// 0700, file 0600, replaced if it exists). Reads the log without taking the session lock,
/// so the running session can export itself. Written beside and renamed into place: a
/// symlink planted at the export's name is replaced, never followed.
pub fn write_export(
    dir: &crate::store::DataDir,
    session_id: &str,
    format: &Format,
) -> Result<std::path::PathBuf, crate::store::StoreError> {
    use crate::store::SessionLog;
    use crate::store::fsutil::ensure_private_dir;
    let log = SessionLog::read(dir, session_id)?;
    let text = match format {
        Format::Json => to_json_text(&log).map_err(|e| StoreError::Encode {
            what: "export",
            source: e,
        })?,
        Format::Markdown(words) => {
            let title = title(dir, &log);
            to_markdown_titled(&log, words, title.as_deref())
        }
    };
    let exports = dir.exports_dir();
    ensure_private_dir(&exports)?;
    let ext = match format {
        Format::Json => "json",
        Format::Markdown(_) => "md",
    };
    let path = exports.join(format!("{session_id}.{ext}"));
    if matches!(format, Format::Markdown(_)) {
        copy_images(
            dir,
            session_id,
            &log,
            &exports.join(images_folder(session_id)),
        )?;
    }
    write_replacing(&path, text.as_bytes())?;
    Ok(path)
}

/// The pictures the session's messages carry, copied to `to` for the Markdown export's
/// links; one missing or altered in the session is left out (its link then shows its
/// name only), as resume says of it.
fn copy_images(
    dir: &crate::store::DataDir,
    session_id: &str,
    log: &LoadedLog,
    to: &std::path::Path,
) -> Result<(), StoreError> {
    let mut made = false;
    for r in &log.records {
        let crate::core::record::RecordBody::User { images, .. } = &r.body else {
            continue;
        };
        for image in images {
            let Ok(bytes) = crate::store::images::load(dir, session_id, image) else {
                continue;
            };
            if !made {
                crate::store::fsutil::ensure_private_dir(to)?;
                made = true;
            }
            crate::store::fsutil::write_atomic(to, &image.file_name(), &bytes)?;
        }
    }
    Ok(())
}

/// Write `bytes` to `path` as a new private file (0600): written beside it and renamed
/// into place, so a symlink there is replaced, never followed, and an existing looser file
/// is replaced by a private one. `export -o FILE` and `/export` write this way.
pub fn write_replacing(path: &std::path::Path, bytes: &[u8]) -> Result<(), StoreError> {
    use crate::store::fsutil::open_private;
    use std::io::Write as _;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = parent.join(format!(".{name}.{}.tmp", std::process::id()));
    // A stale temporary file (a crash mid-write) or anything planted there goes first;
    // `create_new` then refuses to follow a link created in between.
    let _ = std::fs::remove_file(&tmp);
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    let mut file = open_private(&tmp, &mut opts, "write the export")?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_data())
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(StoreError::io(path, "write the export", e));
    }
    crate::store::fsutil::sync_dir(&parent)
}
