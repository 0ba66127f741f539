//! Private-by-default file system helpers: every directory the store creates is 0700 and
//! every file 0600, whatever the umask, and an existing looser mode is tightened when we
//! open it (group/other bits removed, owner bits kept). Also the fsync of a directory that
//! makes a create or rename durable.

use crate::store::error::StoreError;
use std::fs::{self, DirBuilder, File, OpenOptions, Permissions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

pub(crate) const DIR_MODE: u32 = 0o700;
pub(crate) const FILE_MODE: u32 = 0o600;
const GROUP_OTHER: u32 = 0o077;

/// Create `path` (and missing parents) as 0700, or tighten it if it exists with
/// group/other access.
pub(crate) fn ensure_private_dir(path: &Path) -> Result<(), StoreError> {
    DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(path)
        .map_err(|e| StoreError::io(path, "create directory", e))?;
    let meta = fs::metadata(path).map_err(|e| StoreError::io(path, "inspect directory", e))?;
    let mode = meta.permissions().mode();
    if mode & GROUP_OTHER != 0 {
        fs::set_permissions(path, Permissions::from_mode(mode & 0o7700))
            .map_err(|e| StoreError::io(path, "restrict permissions of", e))?;
    }
    Ok(())
}

/// Remove group/other access from an open file, if it has any.
pub(crate) fn tighten(file: &File, path: &Path) -> Result<(), StoreError> {
    let mode = file
        .metadata()
        .map_err(|e| StoreError::io(path, "inspect", e))?
        .permissions()
        .mode();
    if mode & GROUP_OTHER != 0 {
        file.set_permissions(Permissions::from_mode(mode & 0o7700))
            .map_err(|e| StoreError::io(path, "restrict permissions of", e))?;
    }
    Ok(())
}

/// Open with `opts` plus mode 0600 for a file being created, then tighten an existing one.
/// As everything in the data folder is opened (`small_file`): never through a link at its
/// end, never waiting (a FIFO), and only a regular file is kept.
pub(crate) fn open_private(
    path: &Path,
    opts: &mut OpenOptions,
    op: &'static str,
) -> Result<File, StoreError> {
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    let file = opts
        .mode(FILE_MODE)
        .custom_flags(flags.bits() as i32)
        .open(path)
        .map_err(|e| StoreError::io(path, op, e))?;
    let regular = file
        .metadata()
        .map_err(|e| StoreError::io(path, op, e))?
        .is_file();
    if !regular {
        let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file");
        return Err(StoreError::io(path, op, e));
    }
    tighten(&file, path)?;
    Ok(file)
}

/// Write `bytes` as `dir/name` so that the name only ever holds a whole file: a private
/// temp file beside it, written and fsynced, renamed over the name, the folder fsynced.
pub(crate) fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
    use std::io::Write;
    let temp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let target = dir.join(name);
    let mut file = open_private(
        &temp,
        OpenOptions::new().write(true).create(true).truncate(true),
        "create temp file",
    )?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| StoreError::io(&temp, "write", e))
        .and_then(|()| {
            fs::rename(&temp, &target)
                .map_err(|e| StoreError::io(&target, "rename temp file to", e))
        });
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(e);
    }
    sync_dir(dir)
}

/// Make a directory entry change (create, rename, unlink) durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| StoreError::io(dir, "fsync directory", e))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn mode_of(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn new_dirs_are_0700_including_parents() {
        let tmp = tempfile::tempdir().unwrap();
        let deep = tmp.path().join("a/b/c");
        ensure_private_dir(&deep).unwrap();
        assert_eq!(mode_of(&deep), 0o700);
        assert_eq!(mode_of(&tmp.path().join("a")), 0o700);
    }

    #[test]
    fn loose_dir_is_tightened_but_keeps_owner_bits() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, Permissions::from_mode(0o755)).unwrap();
        ensure_private_dir(&dir).unwrap();
        assert_eq!(mode_of(&dir), 0o700);
    }

    #[test]
    fn open_private_creates_0600_and_fixes_0644() {
        let tmp = tempfile::tempdir().unwrap();
        let fresh = tmp.path().join("fresh");
        open_private(
            &fresh,
            OpenOptions::new().write(true).create_new(true),
            "create",
        )
        .unwrap();
        assert_eq!(mode_of(&fresh), 0o600);

        let loose = tmp.path().join("loose");
        fs::write(&loose, b"x").unwrap();
        fs::set_permissions(&loose, Permissions::from_mode(0o644)).unwrap();
        open_private(&loose, OpenOptions::new().read(true), "open").unwrap();
        assert_eq!(mode_of(&loose), 0o600);
    }
}
