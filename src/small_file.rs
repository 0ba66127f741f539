//! Opening a file the app keeps in its data folder (`last-used`, a lock, a title, the
//! config, a theme, the prompts, a session log, a snapshot) so that what stands there
//! cannot hang or flood the app.
//!
//! A FIFO named `sessions/last-used` hung `ollm-tui sessions` and `--resume` (an open for
//! reading waits for a writer), and a link from it to `/dev/zero` took them to 4.3 GB in
//! 10 s. So every such file is opened non-blocking and without following a link at its
//! last component; a link is followed only when it stays inside the folder given as the
//! root; what was opened must be a regular file; a small file is read with a size cap.
//!
//! The lowest layer that does I/O for everyone who reads these files (`store`, `config`,
//! `ui`'s themes, the binary), so it knows nothing of ours.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The cap on a file of a line or so: `last-used`, a lock's holder, a title.
pub const ONE_LINE: usize = 64 << 10;
/// The cap on a file the person writes: the config, the prompts, a theme.
pub const SETTINGS: usize = 1 << 20;

/// Open `path` for reading: non-blocking, a regular file, and — when `root` is given — a
/// link at its end followed only to a file inside `root`. Without a root (a file the
/// person named on the command line) a link is followed, the other checks hold.
pub fn open(path: &Path, root: Option<&Path>) -> io::Result<File> {
    // What is plainly not a file is not even opened (opening some devices acts).
    let here = std::fs::symlink_metadata(path)?.file_type();
    if !here.is_file() && !here.is_symlink() {
        return Err(refused(path, here));
    }
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW;
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path);
    let file = match opened {
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            follow(path, root)?
        }
        other => other?,
    };
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        Ok(file)
    } else {
        Err(refused(path, kind))
    }
}

/// Why `path`, of this kind, is not read.
fn refused(path: &Path, kind: std::fs::FileType) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is {}, not a file", path.display(), kind_name(&kind)),
    )
}

/// What a file that is not a regular one is, in words ("a FIFO", "a device").
pub fn kind_name(kind: &std::fs::FileType) -> &'static str {
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

/// `path` is a link: open where it leads when that is inside `root`.
fn follow(path: &Path, root: Option<&Path>) -> io::Result<File> {
    let target = path.canonicalize()?;
    if let Some(root) = root {
        let root = root.canonicalize()?;
        if !target.starts_with(&root) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is a link out of {} (to {}); it is not read",
                    path.display(),
                    root.display(),
                    target.display()
                ),
            ));
        }
    }
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW;
    OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(target)
}

/// The whole of a small file opened as [`open`] opens it, refused when over `limit` bytes
/// (only `limit` + 1 are ever read).
pub fn read(path: &Path, root: Option<&Path>, limit: usize) -> io::Result<Vec<u8>> {
    let file = open(path, root)?;
    let mut bytes = Vec::new();
    file.take((limit as u64).saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is larger than {limit} bytes", path.display()),
        ));
    }
    Ok(bytes)
}

/// The whole of a file that is as large as it is (a session log, a snapshot, a saved
/// result), opened as [`open`] opens it.
pub fn read_whole(path: &Path, root: Option<&Path>) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open(path, root)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read`] as UTF-8 text.
pub fn read_to_string(path: &Path, root: Option<&Path>, limit: usize) -> io::Result<String> {
    String::from_utf8(read(path, root, limit)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not UTF-8 text", path.display()),
        )
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn mkfifo(path: &Path) {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
    }

    #[test]
    fn a_plain_file_is_read_whole_within_its_limit() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("last-used");
        std::fs::write(&p, "abc\n").unwrap();
        assert_eq!(read_to_string(&p, Some(d.path()), 4).unwrap(), "abc\n");
        let e = read(&p, Some(d.path()), 3).unwrap_err();
        assert!(e.to_string().contains("larger than 3 bytes"), "{e}");
        let missing = read(&d.path().join("none"), Some(d.path()), 3).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }

    /// The files (#36): a FIFO is refused at once, not waited on; a link to a
    /// device or out of the folder is refused, not read.
    #[test]
    fn fifos_devices_and_links_out_are_refused_at_once() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("fifo");
        mkfifo(&fifo);
        let e = read(&fifo, Some(d.path()), 100).unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
        let zero = d.path().join("zero");
        symlink("/dev/zero", &zero).unwrap();
        let e = read(&zero, Some(d.path()), 100).unwrap_err();
        assert!(e.to_string().contains("a link out of"), "{e}");
        // Named by the person (no root), the link is followed: still no device.
        let e = read(&zero, None, 100).unwrap_err();
        assert!(e.to_string().contains("a device"), "{e}");
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("t"), "x").unwrap();
        let out = d.path().join("out");
        symlink(outside.path().join("t"), &out).unwrap();
        assert!(read(&out, Some(d.path()), 100).is_err());
        // A link that stays inside is followed.
        std::fs::write(d.path().join("real"), "ok").unwrap();
        let inside = d.path().join("inside");
        symlink("real", &inside).unwrap();
        assert_eq!(read(&inside, Some(d.path()), 100).unwrap(), b"ok");
        let dir = read(d.path(), Some(d.path()), 100).unwrap_err();
        assert!(dir.to_string().contains("a directory"), "{dir}");
    }
}
