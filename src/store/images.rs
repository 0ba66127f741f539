//! The pictures of a session kept beside its log (#39): one file per content hash under
//! `images/<session-id>/` (`DataDir::images_dir`), 0600 and written atomically, so a
//! picture attached twice is stored once and a record names it by its hash. Read back, a
//! file is checked against that hash: one missing or altered since is reported to the
//! caller (resume says so), never taken for the picture.

use crate::core::image::ImageRef;
use crate::store::error::StoreError;
use crate::store::fsutil;
use crate::store::paths::DataDir;
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// The most a stored picture may be when read back: the attach cap, with room to spare
/// for a re-encoding that grew.
const READ_CAP: usize = 32 << 20;

/// SHA-256 of `bytes` as lowercase hex: the name an image is stored under.
pub fn hash_of(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Where `image` of session `id` is stored; refused when the record's hash is not one
/// we would have written (a log edited by hand must not name a path).
pub fn path_of(dir: &DataDir, id: &str, image: &ImageRef) -> Result<PathBuf, StoreError> {
    if !ImageRef::plain_hash(&image.hash) {
        return Err(StoreError::Corrupt {
            path: dir.images_dir(id),
            detail: format!("an image named {:?} is not a content hash", image.hash),
        });
    }
    Ok(dir.images_dir(id).join(image.file_name()))
}

/// Keep `bytes` as `image` of session `id`. A file already there under the hash is the
/// same picture and is left as it is.
pub fn save(dir: &DataDir, id: &str, image: &ImageRef, bytes: &[u8]) -> Result<(), StoreError> {
    let path = path_of(dir, id, image)?;
    if hash_of(bytes) != image.hash {
        return Err(StoreError::Corrupt {
            path,
            detail: "the image's bytes do not match its hash".into(),
        });
    }
    let folder = dir.images_dir(id);
    fsutil::ensure_private_dir(folder.parent().unwrap_or(&folder))?;
    fsutil::ensure_private_dir(&folder)?;
    if load_checked(&path, &folder, image).is_ok() {
        return Ok(());
    }
    fsutil::write_atomic(&folder, &image.file_name(), bytes)
}

/// The bytes of `image` of session `id`, checked against its hash.
pub fn load(dir: &DataDir, id: &str, image: &ImageRef) -> Result<Vec<u8>, StoreError> {
    let path = path_of(dir, id, image)?;
    load_checked(&path, &dir.images_dir(id), image)
}

fn load_checked(
    path: &std::path::Path,
    folder: &std::path::Path,
    image: &ImageRef,
) -> Result<Vec<u8>, StoreError> {
    let bytes =
        crate::small_file::read(path, Some(folder), READ_CAP).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => StoreError::NotFound {
                what: "image",
                id: image.name.clone(),
                path: path.to_path_buf(),
            },
            _ => StoreError::io(path, "read", e),
        })?;
    if hash_of(&bytes) != image.hash {
        return Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("{} was altered since it was attached", image.name),
        });
    }
    Ok(bytes)
}

/// The bytes of the files in a session's images folder (none: 0), for the session's size.
/// Only what stands there is measured (`symlink_metadata`): nothing is followed or read.
pub fn folder_bytes(folder: &std::path::Path) -> u64 {
    std::fs::read_dir(folder).map_or(0, |entries| {
        entries
            .flatten()
            .filter_map(|e| std::fs::symlink_metadata(e.path()).ok())
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len())
            .sum()
    })
}

/// Copy the images `images` of session `from` to session `to` (a fork); a picture missing
/// in the parent is missing in the fork too, and said there as it is here.
pub fn copy(dir: &DataDir, from: &str, to: &str, images: &[ImageRef]) -> Result<(), StoreError> {
    for image in images {
        match load(dir, from, image) {
            Ok(bytes) => save(dir, to, image, &bytes)?,
            Err(StoreError::NotFound { .. } | StoreError::Corrupt { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::image::ImageFormat;
    use std::os::unix::fs::PermissionsExt;

    fn image_of(bytes: &[u8]) -> ImageRef {
        ImageRef {
            hash: hash_of(bytes),
            name: "shot.png".into(),
            width: 2,
            height: 2,
            bytes: bytes.len() as u64,
            format: ImageFormat::Png,
        }
    }

    #[test]
    fn the_hash_is_sha256_hex() {
        assert_eq!(
            hash_of(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn an_image_is_stored_private_once_and_read_back_checked() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path()).unwrap();
        let image = image_of(b"picture bytes");
        assert_eq!(folder_bytes(&dir.images_dir("s1")), 0);
        save(&dir, "s1", &image, b"picture bytes").unwrap();
        save(&dir, "s1", &image, b"picture bytes").unwrap();
        assert_eq!(folder_bytes(&dir.images_dir("s1")), 13);
        let path = path_of(&dir, "s1", &image).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let files: Vec<_> = std::fs::read_dir(dir.images_dir("s1")).unwrap().collect();
        assert_eq!(files.len(), 1, "one file, no temp left");
        assert_eq!(load(&dir, "s1", &image).unwrap(), b"picture bytes");

        std::fs::write(&path, b"something else").unwrap();
        let altered = load(&dir, "s1", &image).unwrap_err();
        assert!(matches!(altered, StoreError::Corrupt { .. }), "{altered}");
        std::fs::remove_file(&path).unwrap();
        let missing = load(&dir, "s1", &image).unwrap_err();
        assert!(matches!(missing, StoreError::NotFound { .. }), "{missing}");
    }

    #[test]
    fn bytes_that_are_not_the_hash_and_hashes_that_are_paths_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path()).unwrap();
        let image = image_of(b"one");
        assert!(save(&dir, "s1", &image, b"two").is_err());
        let mut evil = image.clone();
        evil.hash = "../../../etc/passwd".into();
        assert!(path_of(&dir, "s1", &evil).is_err());
    }

    #[test]
    fn a_fork_gets_a_copy_and_a_missing_one_stays_missing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path()).unwrap();
        let kept = image_of(b"kept");
        let lost = image_of(b"lost");
        save(&dir, "parent", &kept, b"kept").unwrap();
        copy(&dir, "parent", "child", &[kept.clone(), lost.clone()]).unwrap();
        assert_eq!(load(&dir, "child", &kept).unwrap(), b"kept");
        assert!(load(&dir, "child", &lost).is_err());
    }
}
