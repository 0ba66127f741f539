//! How the file tools open, create and replace files in the person's project.
//!
//! A model chooses the paths, so a path may name a FIFO (opening it blocks until someone
//! writes), a device (`/dev/zero` never ends) or a socket. Such a file is refused before
//! anything reads it: [`check`] judges the path (a `stat`, which never blocks), and every
//! open is non-blocking and checks the opened file again, so a FIFO planted between the
//! check and the open is refused too instead of hanging the call.
//!
//! Files and folders the tools create get the person's usual permissions (their umask,
//! which the app's own private umask must not replace); a file is replaced by writing a
//! temporary file beside it and renaming it over, keeping the old one's permissions, so a
//! full disk never leaves the person's file half written.

use super::ToolError;
use std::fs::{File, OpenOptions, Permissions};
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// What a path is, if it exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Missing,
    File { len: u64 },
    Dir,
}

/// Words for a file type the tools refuse, or `None` for a regular file or a directory.
fn refused_kind(t: std::fs::FileType) -> Option<&'static str> {
    if t.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_socket() {
        Some("a socket")
    } else if t.is_file() || t.is_dir() {
        None
    } else {
        Some("not a regular file")
    }
}

/// A path as an error names it: whole up to [`BRIEF_CHARS`], else its start and end. A
/// small model that passes an error back as the next path (the real 0.5B did, four times
/// in one turn) would otherwise grow every error by the one before.
fn brief(shown: &str) -> String {
    let chars: Vec<char> = shown.chars().collect();
    if chars.len() <= BRIEF_CHARS {
        return shown.to_string();
    }
    let head: String = chars[..BRIEF_CHARS * 2 / 3].iter().collect();
    let tail: String = chars[chars.len() - BRIEF_CHARS / 3..].iter().collect();
    format!("{head}…{tail}")
}

/// The longest path an error names whole.
const BRIEF_CHARS: usize = 96;

fn refusal(shown: &str, what: &str) -> ToolError {
    let shown = &brief(shown);
    ToolError::Failed(format!(
        "{shown} is {what}; only regular files can be read or written"
    ))
}

/// What `path` is, without opening it; a FIFO, device or socket is an error.
pub(crate) fn check(path: &Path, shown: &str) -> Result<Kind, ToolError> {
    let shown = &brief(shown);
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Kind::Missing),
        Err(e) => Err(ToolError::Failed(format!("cannot inspect {shown}: {e}"))),
        Ok(m) => match refused_kind(m.file_type()) {
            Some(what) => Err(refusal(shown, what)),
            None if m.is_dir() => Ok(Kind::Dir),
            None => Ok(Kind::File { len: m.len() }),
        },
    }
}

/// Flags every open gets: never block (a FIFO), never become our terminal (a tty), never
/// follow a link at the last step (the sandbox resolved the path through links already).
fn safe_flags() -> i32 {
    use rustix::fs::OFlags;
    (OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::NOFOLLOW).bits() as i32
}

/// Open a regular file for reading; anything else is refused, without blocking.
pub(crate) fn open_regular(path: &Path, shown: &str) -> Result<File, ToolError> {
    let shown = &brief(shown);
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(safe_flags())
        .open(path)
        .map_err(|e| ToolError::Failed(format!("cannot open {shown}: {e}")))?;
    let meta = file
        .metadata()
        .map_err(|e| ToolError::Failed(format!("cannot inspect {shown}: {e}")))?;
    if meta.is_dir() {
        return Err(ToolError::Failed(format!(
            "{shown} is a directory; use list_files"
        )));
    }
    if let Some(what) = refused_kind(meta.file_type()) {
        return Err(refusal(shown, what));
    }
    Ok(file)
}

/// Read a regular file as text, at most `limit` bytes (a larger one is an error: memory
/// stays bounded whatever the file).
pub(crate) fn read_text(path: &Path, shown: &str, limit: u64) -> Result<String, ToolError> {
    let shown = &brief(shown);
    use std::io::Read;
    let file = open_regular(path, shown)?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::Failed(format!("cannot read {shown}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(ToolError::Failed(format!(
            "{shown} is larger than {} KiB, too large to edit here",
            limit / 1024
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| ToolError::Failed(format!("{shown} is not UTF-8 text; it cannot be edited")))
}

/// Permissions for what the tools create: the person's umask applied to `base`.
fn mode_for(base: u32, umask: u32) -> Permissions {
    Permissions::from_mode(base & !umask & 0o7777)
}

/// Create the missing folders above `path`, each with the person's permissions.
pub(crate) fn create_parents(path: &Path, shown: &str, umask: u32) -> Result<(), ToolError> {
    let shown = &brief(shown);
    let Some(parent) = path.parent() else {
        return Ok(());
    };
    let mut missing = Vec::new();
    let mut at = parent;
    while std::fs::symlink_metadata(at).is_err() {
        missing.push(at);
        match at.parent() {
            Some(p) => at = p,
            None => break,
        }
    }
    for dir in missing.into_iter().rev() {
        let made = std::fs::create_dir(dir).and_then(|()| {
            // Set explicitly: the app's own umask (077) applied at creation.
            std::fs::set_permissions(dir, mode_for(0o777, umask))
        });
        if let Err(e) = made
            && e.kind() != std::io::ErrorKind::AlreadyExists
        {
            return Err(ToolError::Failed(format!(
                "cannot create the folder of {shown}: {e}"
            )));
        }
    }
    Ok(())
}

/// Write `content` to `path` whole: into a temporary file beside it, then renamed over
/// it. A new file gets the person's permissions, a replaced one keeps its own.
pub(crate) fn replace(
    path: &Path,
    shown: &str,
    content: &[u8],
    umask: u32,
) -> Result<(), ToolError> {
    let shown = &brief(shown);
    let failed = |e: std::io::Error| ToolError::Failed(format!("cannot write {shown}: {e}"));
    let perms = match check(path, shown)? {
        Kind::Dir => return Err(ToolError::Failed(format!("{shown} is a directory"))),
        Kind::File { .. } => std::fs::metadata(path)
            .map(|m| Permissions::from_mode(m.permissions().mode() & 0o7777))
            .map_err(failed)?,
        Kind::Missing => mode_for(0o666, umask),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.ollm-{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(safe_flags())
        .open(&tmp)
        .map_err(failed)?;
    let written = file
        .set_permissions(perms)
        .and_then(|()| file.write_all(content))
        .and_then(|()| file.sync_data())
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(failed(e));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn mode_of(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn an_error_names_a_long_path_by_its_start_and_end_so_errors_fed_back_do_not_grow() {
        let d = tempfile::tempdir().unwrap();
        let mut path = "steamer worked under the wallpaper there was more wallpaper".to_string();
        let mut lengths = Vec::new();
        for _ in 0..4 {
            let Err(ToolError::Failed(e)) = open_regular(&d.path().join(&path), &path) else {
                panic!("a missing file opens");
            };
            lengths.push(e.chars().count());
            // What a looping model does: the error back as the next path.
            path = e;
        }
        assert!(lengths.windows(2).all(|w| w[1] <= w[0] + 40), "{lengths:?}");
        assert!(lengths.iter().all(|n| *n < 200), "{lengths:?}");
        let short = open_regular(&d.path().join("notes.md"), "notes.md");
        assert!(
            matches!(short, Err(ToolError::Failed(e)) if e.starts_with("cannot open notes.md:"))
        );
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("pipe");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let e = check(&fifo, "pipe").unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        // Opening for reading would block until a writer came; it is refused instead.
        let e = open_regular(&fifo, "pipe").unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        let e = read_text(&fifo, "pipe", 1024).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        assert!(replace(&fifo, "pipe", b"x", 0o022).is_err());
    }

    #[test]
    fn new_files_and_folders_get_the_persons_umask_and_replaced_ones_keep_theirs() {
        let d = tempfile::tempdir().unwrap();
        let deep = d.path().join("a/b/new.txt");
        create_parents(&deep, "a/b/new.txt", 0o022).unwrap();
        replace(&deep, "a/b/new.txt", b"hello\n", 0o022).unwrap();
        assert_eq!(mode_of(&deep), 0o644);
        assert_eq!(mode_of(&d.path().join("a")), 0o755);
        assert_eq!(mode_of(&d.path().join("a/b")), 0o755);
        let own = d.path().join("script.sh");
        std::fs::write(&own, "old").unwrap();
        std::fs::set_permissions(&own, Permissions::from_mode(0o750)).unwrap();
        replace(&own, "script.sh", b"new", 0o077).unwrap();
        assert_eq!(mode_of(&own), 0o750);
        assert_eq!(std::fs::read_to_string(&own).unwrap(), "new");
        // No temporary file is left beside them.
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 2);
    }

    #[test]
    fn reading_for_an_edit_is_bounded() {
        let d = tempfile::tempdir().unwrap();
        let big = d.path().join("big.txt");
        std::fs::write(&big, "x".repeat(5000)).unwrap();
        assert!(read_text(&big, "big.txt", 4096).is_err());
        assert_eq!(read_text(&big, "big.txt", 5000).unwrap().len(), 5000);
    }
}
