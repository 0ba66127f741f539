//! A picture the person attaches (`/image PATH`, or a path in their message), made ready
//! to keep and send (#39): its file checked before a byte is read, decoded, scaled down,
//! re-encoded when it must be, and hashed.
//!
//! The checks come first because the path is the person's (typed, pasted or dragged in):
//! what is plainly not a file (a FIFO would hang the open, a device may act or never
//! end, a directory) is refused from its `symlink_metadata`; a link is followed only to
//! a file in the link's own folder (a link out is refused, as the data folder's own files
//! are, `small_file`); the size cap is checked on the metadata before the open, and the
//! read itself is capped too (the file may grow between the two). Only PNG, JPEG, WebP and
//! GIF (its first frame) are decoded, under dimension and allocation limits; what is kept
//! is PNG or JPEG, the formats every Ollama vision model decodes.

use crate::core::image::{ImageFormat, ImageRef, MAX_SIDE};
use std::io::Cursor;
use std::path::{Path, PathBuf};

/// The largest file attached (20 MB), checked before reading.
pub const MAX_FILE_BYTES: u64 = 20 * 1000 * 1000;
/// The largest side a file may have to be decoded at all.
const MAX_DECODE_SIDE: u32 = 16_384;
/// The most pixels a file may have to be decoded at all (a 20 MB PNG can claim a
/// gigapixel canvas).
const MAX_DECODE_PIXELS: u64 = 60_000_000;
/// What the decoder may allocate.
const MAX_DECODE_ALLOC: u64 = 512 << 20;

/// Why a file was not attached. The app words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttachError {
    NotFound(PathBuf),
    /// A FIFO, device, socket or directory (`what`), refused unopened.
    NotAFile {
        path: PathBuf,
        what: &'static str,
    },
    /// A link that leads out of its own folder.
    LinkOut {
        path: PathBuf,
        target: PathBuf,
    },
    TooLarge {
        path: PathBuf,
        bytes: u64,
    },
    /// Not a PNG, JPEG, WebP or GIF, or one that does not decode.
    NotAnImage {
        path: PathBuf,
        detail: String,
    },
    /// Sides of zero or beyond what is decoded.
    BadSize {
        path: PathBuf,
        width: u32,
        height: u32,
    },
    Unreadable {
        path: PathBuf,
        detail: String,
    },
}

impl std::fmt::Display for AttachError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttachError::NotFound(p) => write!(f, "{} does not exist", p.display()),
            AttachError::NotAFile { path, what } => {
                write!(
                    f,
                    "{} is {what}, not a file; it is not read",
                    path.display()
                )
            }
            AttachError::LinkOut { path, target } => write!(
                f,
                "{} is a link out of its folder (to {}); it is not read",
                path.display(),
                target.display()
            ),
            AttachError::TooLarge { path, bytes } => write!(
                f,
                "{} is {:.1} MB, over the {} MB an image may be; it is not read",
                path.display(),
                *bytes as f64 / 1e6,
                MAX_FILE_BYTES / 1_000_000
            ),
            AttachError::NotAnImage { path, detail } => write!(
                f,
                "{} is not a PNG, JPEG, WebP or GIF image ({detail})",
                path.display()
            ),
            AttachError::BadSize {
                path,
                width,
                height,
            } => write!(
                f,
                "{} is {width}×{height} pixels, not a size that is decoded",
                path.display()
            ),
            AttachError::Unreadable { path, detail } => {
                write!(f, "cannot read {}: {detail}", path.display())
            }
        }
    }
}

/// A picture ready to store and send: its reference and the bytes kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    pub image: ImageRef,
    pub bytes: Vec<u8>,
}

/// `~/x.png` as the shell reads it: the home folder; anything else as typed.
pub fn expand_home(typed: &str) -> PathBuf {
    match (typed.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(typed),
    }
}

/// Whether `name` ends as a picture this reads (`.png`, `.jpg`, `.jpeg`, `.webp`,
/// `.gif`, any case).
pub fn has_image_extension(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".png", ".jpg", ".jpeg", ".webp", ".gif"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// Check, read, decode and make ready the picture at `path`.
pub fn prepare(path: &Path) -> Result<Prepared, AttachError> {
    let bytes = read_checked(path)?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let not_image = |detail: String| AttachError::NotAnImage {
        path: path.to_path_buf(),
        detail,
    };
    let format = image::guess_format(&bytes).map_err(|e| not_image(e.to_string()))?;
    let kept_as = match format {
        image::ImageFormat::Png => ImageFormat::Png,
        image::ImageFormat::Jpeg => ImageFormat::Jpeg,
        image::ImageFormat::WebP | image::ImageFormat::Gif => ImageFormat::Png,
        other => return Err(not_image(format!("{other:?}"))),
    };
    let reader = || {
        let mut r = image::ImageReader::with_format(Cursor::new(&bytes[..]), format);
        let mut limits = image::Limits::default();
        limits.max_image_width = Some(MAX_DECODE_SIDE);
        limits.max_image_height = Some(MAX_DECODE_SIDE);
        limits.max_alloc = Some(MAX_DECODE_ALLOC);
        r.limits(limits);
        r
    };
    // The header's size first: a claimed giant is refused before any pixel is decoded.
    let (width, height) = reader()
        .into_dimensions()
        .map_err(|e| not_image(e.to_string()))?;
    if width == 0
        || height == 0
        || width > MAX_DECODE_SIDE
        || height > MAX_DECODE_SIDE
        || u64::from(width) * u64::from(height) > MAX_DECODE_PIXELS
    {
        return Err(AttachError::BadSize {
            path: path.to_path_buf(),
            width,
            height,
        });
    }
    let fits = width.max(height) <= MAX_SIDE;
    let decoded = reader().decode().map_err(|e| not_image(e.to_string()))?;
    let (kept, width, height) =
        if fits && format != image::ImageFormat::WebP && format != image::ImageFormat::Gif {
            // Already a size and format the model takes: the file's own bytes are sent.
            (bytes, width, height)
        } else {
            let img = if fits {
                decoded
            } else {
                decoded.resize(MAX_SIDE, MAX_SIDE, image::imageops::FilterType::Triangle)
            };
            let (w, h) = (img.width(), img.height());
            (encode(&img, kept_as).map_err(not_image)?, w, h)
        };
    let image = ImageRef {
        hash: crate::store::images::hash_of(&kept),
        name,
        width,
        height,
        bytes: kept.len() as u64,
        format: kept_as,
    };
    Ok(Prepared { image, bytes: kept })
}

fn encode(img: &image::DynamicImage, as_: ImageFormat) -> Result<Vec<u8>, String> {
    let mut out = Cursor::new(Vec::new());
    match as_ {
        ImageFormat::Png => img
            .write_to(&mut out, image::ImageFormat::Png)
            .map_err(|e| e.to_string())?,
        ImageFormat::Jpeg => {
            let rgb = image::DynamicImage::ImageRgb8(img.to_rgb8());
            rgb.write_with_encoder(image::codecs::jpeg::JpegEncoder::new_with_quality(
                &mut out, 90,
            ))
            .map_err(|e| e.to_string())?;
        }
    }
    Ok(out.into_inner())
}

/// The file's bytes, after the checks the module header gives.
fn read_checked(path: &Path) -> Result<Vec<u8>, AttachError> {
    let unreadable = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => AttachError::NotFound(path.to_path_buf()),
        _ => AttachError::Unreadable {
            path: path.to_path_buf(),
            detail: e.to_string(),
        },
    };
    let here = std::fs::symlink_metadata(path).map_err(unreadable)?;
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let meta = if here.file_type().is_symlink() {
        let target = path.canonicalize().map_err(unreadable)?;
        let root = folder.canonicalize().map_err(unreadable)?;
        if !target.starts_with(&root) {
            return Err(AttachError::LinkOut {
                path: path.to_path_buf(),
                target,
            });
        }
        std::fs::metadata(path).map_err(unreadable)?
    } else {
        here
    };
    if !meta.is_file() {
        return Err(AttachError::NotAFile {
            path: path.to_path_buf(),
            what: crate::small_file::kind_name(&meta.file_type()),
        });
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(AttachError::TooLarge {
            path: path.to_path_buf(),
            bytes: meta.len(),
        });
    }
    crate::small_file::read(path, Some(&folder), MAX_FILE_BYTES as usize).map_err(|e| {
        if e.kind() == std::io::ErrorKind::InvalidData {
            AttachError::TooLarge {
                path: path.to_path_buf(),
                bytes: MAX_FILE_BYTES + 1,
            }
        } else {
            unreadable(e)
        }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(w, h, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 7])
        });
        let mut out = Cursor::new(Vec::new());
        image::DynamicImage::ImageRgb8(img)
            .write_to(&mut out, image::ImageFormat::Png)
            .unwrap();
        out.into_inner()
    }

    #[test]
    fn a_small_png_is_kept_as_it_is_with_its_size_and_hash() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("shot.png");
        let bytes = png(40, 30);
        std::fs::write(&p, &bytes).unwrap();
        let got = prepare(&p).unwrap();
        assert_eq!(got.bytes, bytes);
        assert_eq!((got.image.width, got.image.height), (40, 30));
        assert_eq!(got.image.name, "shot.png");
        assert_eq!(got.image.format, ImageFormat::Png);
        assert_eq!(got.image.hash, crate::store::images::hash_of(&bytes));
        assert_eq!(got.image.bytes, bytes.len() as u64);
    }

    #[test]
    fn a_large_image_is_scaled_to_the_longest_side() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("big.png");
        std::fs::write(&p, png(2688, 1000)).unwrap();
        let got = prepare(&p).unwrap();
        assert_eq!((got.image.width, got.image.height), (MAX_SIDE, 500));
        let back = image::load_from_memory(&got.bytes).unwrap();
        assert_eq!((back.width(), back.height()), (MAX_SIDE, 500));
    }

    #[test]
    fn a_gif_is_kept_as_png_of_its_first_frame() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("anim.gif");
        let img = image::DynamicImage::ImageRgba8(image::RgbaImage::new(8, 6));
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Gif).unwrap();
        std::fs::write(&p, out.into_inner()).unwrap();
        let got = prepare(&p).unwrap();
        assert_eq!(got.image.format, ImageFormat::Png);
        assert_eq!(
            image::guess_format(&got.bytes).unwrap(),
            image::ImageFormat::Png
        );
        assert_eq!((got.image.width, got.image.height), (8, 6));
    }

    #[test]
    fn text_is_not_an_image() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("notes.png");
        std::fs::write(&p, "just words").unwrap();
        assert!(matches!(prepare(&p), Err(AttachError::NotAnImage { .. })));
    }

    #[test]
    fn a_huge_sparse_file_is_refused_before_it_is_read() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("huge.png");
        std::fs::File::create(&p)
            .unwrap()
            .set_len(200 * 1000 * 1000)
            .unwrap();
        match prepare(&p) {
            Err(AttachError::TooLarge { bytes, .. }) => assert_eq!(bytes, 200_000_000),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_fifo_a_directory_and_a_link_out_are_refused_unopened() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("pipe.png");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        // Opening a FIFO for reading would wait for a writer: this returning at all
        // shows it was not opened.
        match prepare(&fifo) {
            Err(AttachError::NotAFile { what, .. }) => assert_eq!(what, "a FIFO"),
            other => panic!("{other:?}"),
        }
        match prepare(d.path()) {
            Err(AttachError::NotAFile { what, .. }) => assert_eq!(what, "a directory"),
            other => panic!("{other:?}"),
        }
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.png");
        std::fs::write(&secret, png(4, 4)).unwrap();
        let inner = d.path().join("pics");
        std::fs::create_dir(&inner).unwrap();
        let link = inner.join("shot.png");
        symlink(&secret, &link).unwrap();
        assert!(matches!(prepare(&link), Err(AttachError::LinkOut { .. })));
        // A link to /dev/zero is a link out too.
        let zero = inner.join("zero.png");
        symlink("/dev/zero", &zero).unwrap();
        assert!(matches!(prepare(&zero), Err(AttachError::LinkOut { .. })));
        // A link to a picture beside it is followed.
        std::fs::write(inner.join("real.png"), png(4, 4)).unwrap();
        let near = inner.join("near.png");
        symlink(inner.join("real.png"), &near).unwrap();
        assert_eq!(prepare(&near).unwrap().image.width, 4);
    }

    #[test]
    fn paths_are_read_as_the_shell_reads_them() {
        assert!(has_image_extension("Shot.PNG") && has_image_extension("x.jpeg"));
        assert!(!has_image_extension("notes.txt"));
        if let Some(home) = std::env::var_os("HOME") {
            assert_eq!(expand_home("~/x.jpg"), Path::new(&home).join("x.jpg"));
        }
        assert_eq!(expand_home("./shot.png"), PathBuf::from("./shot.png"));
    }
}
