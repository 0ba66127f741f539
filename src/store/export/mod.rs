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
    BoardWords, HeadWords, MarkdownWords, PictureLinks, RecordWords, SettingsSentence,
    images_folder, one_line, to_markdown, to_markdown_linked, to_markdown_titled,
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
/// symlink planted at the export's name is replaced, never followed. A Markdown export's
/// pictures are copied beside it ([`markdown_beside`]).
pub fn write_export(
    dir: &crate::store::DataDir,
    session_id: &str,
    format: &Format,
) -> Result<std::path::PathBuf, crate::store::StoreError> {
    use crate::store::SessionLog;
    use crate::store::fsutil::ensure_private_dir;
    let log = SessionLog::read(dir, session_id)?;
    let exports = dir.exports_dir();
    ensure_private_dir(&exports)?;
    let ext = match format {
        Format::Json => "json",
        Format::Markdown(_) => "md",
    };
    let path = exports.join(format!("{session_id}.{ext}"));
    let text = match format {
        Format::Json => to_json_text(&log).map_err(|e| StoreError::Encode {
            what: "export",
            source: e,
        })?,
        Format::Markdown(words) => markdown_beside(dir, &log, words, &path)?.text,
    };
    write_replacing(&path, text.as_bytes())?;
    Ok(path)
}

/// A Markdown export and how many of its pictures it could only name (their stored file
/// is missing or changed): said to the person, never fatal.
#[derive(Debug, Clone)]
pub struct MarkdownExport {
    pub text: String,
    pub missing: usize,
}

/// The folder beside an export at `path` that holds its pictures: the export's name
/// without its extension, then `.images` (`chat.md` → `chat.images`), so
/// `exports/<id>.md` keeps `<id>.images` ([`images_folder`]).
pub fn images_folder_beside(path: &std::path::Path) -> std::path::PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export".into());
    path.with_file_name(format!("{stem}.images"))
}

/// The Markdown export of `log` to be written at `path`: its pictures copied into
/// [`images_folder_beside`] it (the folder made once, 0700, each file 0600 and written
/// atomically) and linked relative to the export, so the file and its folder travel
/// together. A picture whose stored file is missing or changed is named, not linked.
pub fn markdown_beside(
    dir: &crate::store::DataDir,
    log: &LoadedLog,
    words: &MarkdownWords,
    path: &std::path::Path,
) -> Result<MarkdownExport, StoreError> {
    let folder = images_folder_beside(path);
    let missing = copy_images(dir, log, &folder)?;
    let links = PictureLinks {
        folder: folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        missing,
    };
    Ok(linked(dir, log, words, &links))
}

/// The Markdown export of `log` printed (no file to put copies beside): its pictures
/// link to their files in the session's store, where they are.
pub fn markdown_printed(
    dir: &crate::store::DataDir,
    log: &LoadedLog,
    words: &MarkdownWords,
) -> MarkdownExport {
    let id = &log.header.session_id;
    let missing = pictures(log)
        .filter(|image| crate::store::images::load(dir, id, image).is_err())
        .map(|image| image.hash.clone())
        .collect();
    let links = PictureLinks {
        folder: dir.images_dir(id).display().to_string(),
        missing,
    };
    linked(dir, log, words, &links)
}

fn linked(
    dir: &crate::store::DataDir,
    log: &LoadedLog,
    words: &MarkdownWords,
    links: &PictureLinks,
) -> MarkdownExport {
    let title = title(dir, log);
    MarkdownExport {
        text: to_markdown_linked(log, words, title.as_deref(), links),
        missing: links.missing.len(),
    }
}

/// Every picture the session's messages carry, in order (a picture sent twice, twice).
fn pictures(log: &LoadedLog) -> impl Iterator<Item = &crate::core::image::ImageRef> {
    log.records.iter().flat_map(|r| match &r.body {
        crate::core::record::RecordBody::User { images, .. } => images.as_slice(),
        _ => &[],
    })
}

/// The pictures the session's messages carry, copied to `to` (made on the first one);
/// the hashes of those whose stored file is missing or altered, which are not copied
/// (resume says the same of them).
fn copy_images(
    dir: &crate::store::DataDir,
    log: &LoadedLog,
    to: &std::path::Path,
) -> Result<std::collections::BTreeSet<String>, StoreError> {
    let id = &log.header.session_id;
    let mut missing = std::collections::BTreeSet::new();
    let mut copied = std::collections::BTreeSet::new();
    for image in pictures(log) {
        if copied.contains(&image.hash) || missing.contains(&image.hash) {
            continue;
        }
        let Ok(bytes) = crate::store::images::load(dir, id, image) else {
            missing.insert(image.hash.clone());
            continue;
        };
        if copied.is_empty() {
            crate::store::fsutil::ensure_private_dir(to)?;
        }
        crate::store::fsutil::write_atomic(to, &image.file_name(), &bytes)?;
        copied.insert(image.hash.clone());
    }
    Ok(missing)
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
