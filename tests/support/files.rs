//! Files a hostile workdir or data folder holds.

use std::path::{Path, PathBuf};

/// A FIFO at `path`: opening it for reading waits for a writer.
pub fn mkfifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .expect("a FIFO can be made here");
}

/// A PNG of `w`×`h` made here (no binary fixtures), written to `dir/name`: its path and
/// bytes. Pictures of different sizes differ in every byte that names them.
pub fn png(dir: &Path, name: &str, w: u32, h: u32) -> (PathBuf, Vec<u8>) {
    let img = image::RgbImage::from_fn(w, h, |x, y| image::Rgb([x as u8, y as u8, w as u8]));
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut out, image::ImageFormat::Png)
        .expect("a PNG encodes");
    let path = dir.join(name);
    std::fs::write(&path, out.get_ref()).expect("the test folder is writable");
    (path, out.into_inner())
}
