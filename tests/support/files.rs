//! Files a hostile workdir or data folder holds.

use std::path::Path;

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
