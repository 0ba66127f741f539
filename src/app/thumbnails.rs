//! Whether the transcript draws pictures as thumbnails (#39), and making one ready.
//!
//! Thumbnails are drawn only where the terminal has a graphics protocol (kitty, iTerm2,
//! sixel) and nothing asks for plain text: `thumbnails = false` in config.toml,
//! `NO_COLOR`, ASCII mode, or tmux (which passes images through only when configured to,
//! and then draws them where it should not) leave the one-line chip. The protocol is asked
//! of the terminal once, before the TUI takes the screen (the answer comes on stdin, which
//! the event loop reads afterwards); a terminal that does not answer, or answers with no
//! protocol, gets chips, and nothing is said. A picture is decoded and scaled once, off
//! the render path, into a fixed-size protocol the ui draws as it is.

use super::App;
use super::overlays::Reply;
use crate::actor::Ask;
use crate::ui::thumbnail::{MAX_COLS, ROWS, Thumbnail, Thumbnails};
use ratatui::layout::Rect;
use ratatui_image::Resize;
use ratatui_image::picker::{Picker, ProtocolType};
use ratatui_image::protocol::Protocol;
use std::collections::HashSet;

/// What decides, besides the terminal's protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wanted {
    /// `thumbnails` in config.toml (default true).
    pub enabled: bool,
    pub no_color: bool,
    pub ascii: bool,
    /// `TMUX` is set.
    pub tmux: bool,
}

impl Wanted {
    /// Whether the terminal is worth asking: every setting allows thumbnails.
    pub fn allows(self) -> bool {
        self.enabled && !self.no_color && !self.ascii && !self.tmux
    }
}

/// Whether a protocol draws pictures: half blocks (every terminal's fallback) are a
/// blur at thumbnail size, so the chip says more.
pub fn draws(protocol: ProtocolType) -> bool {
    !matches!(protocol, ProtocolType::Halfblocks)
}

/// The terminal's picture maker, asked once before the TUI starts; `None`: chips only.
pub fn detect(wanted: Wanted) -> Option<Picker> {
    if !wanted.allows() {
        return None;
    }
    let picker = Picker::from_query_stdio().ok()?;
    draws(picker.protocol_type()).then_some(picker)
}

/// `TMUX` is set in the environment.
pub fn inside_tmux() -> bool {
    std::env::var_os("TMUX").is_some()
}

/// The picture in `bytes` decoded and scaled into at most [`MAX_COLS`]×[`ROWS`] cells;
/// `None` when it does not decode (the chip stays alone).
pub fn make(picker: &Picker, bytes: &[u8]) -> Option<Protocol> {
    let image = image::load_from_memory(bytes).ok()?;
    let size = Rect::new(0, 0, MAX_COLS, ROWS);
    picker.new_protocol(image, size, Resize::Fit(None)).ok()
}

/// The thumbnails of this session: the terminal's maker, the pictures asked of the actor
/// (each once), and those made ready.
#[derive(Debug)]
pub(crate) struct Shown {
    picker: Picker,
    asked: HashSet<String>,
    pub ready: Thumbnails,
}

impl Shown {
    pub fn new(picker: Picker) -> Shown {
        Shown {
            picker,
            asked: HashSet::new(),
            ready: Thumbnails::default(),
        }
    }
}

impl App {
    /// Ask the actor for the bytes of the transcript's pictures not asked yet; each is
    /// made ready on the answer's task, off the render path.
    pub(super) fn ask_thumbnails(&mut self) {
        let Some(shown) = &mut self.thumbnails else {
            return;
        };
        let mut wanted = Vec::new();
        for entry in self.transcript.entries() {
            for image in &entry.images {
                if shown.asked.insert(image.hash.clone()) {
                    wanted.push(image.clone());
                }
            }
        }
        let picker = shown.picker.clone();
        for image in wanted {
            let hash = image.hash.clone();
            let picker = picker.clone();
            self.ask(
                move |reply| Ask::PictureBytes { image, reply },
                move |bytes| Reply::Thumbnail {
                    hash,
                    made: bytes.and_then(|b| make(&picker, &b)).map(Thumbnail),
                },
            );
        }
    }

    /// A picture made ready (or not: its chip stays alone).
    pub(super) fn on_thumbnail(&mut self, hash: String, made: Option<Thumbnail>) {
        if let (Some(shown), Some(Thumbnail(protocol))) = (&mut self.thumbnails, made) {
            shown.ready.insert(hash, protocol);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Wanted = Wanted {
        enabled: true,
        no_color: false,
        ascii: false,
        tmux: false,
    };

    #[test]
    fn shown_when_nothing_asks_for_text() {
        assert!(ALL.allows());
    }

    #[test]
    fn the_config_key_turns_them_off() {
        assert!(
            !Wanted {
                enabled: false,
                ..ALL
            }
            .allows()
        );
    }

    #[test]
    fn no_color_ascii_and_tmux_leave_the_chip() {
        assert!(
            !Wanted {
                no_color: true,
                ..ALL
            }
            .allows()
        );
        assert!(!Wanted { ascii: true, ..ALL }.allows());
        assert!(!Wanted { tmux: true, ..ALL }.allows());
    }

    #[test]
    fn only_a_graphics_protocol_draws() {
        assert!(draws(ProtocolType::Kitty));
        assert!(draws(ProtocolType::Iterm2));
        assert!(draws(ProtocolType::Sixel));
        assert!(!draws(ProtocolType::Halfblocks));
    }

    #[test]
    fn detect_asks_nothing_when_a_setting_says_no() {
        // Would block on stdin if it asked; returns at once.
        assert!(detect(Wanted { tmux: true, ..ALL }).is_none());
    }

    #[test]
    fn a_picture_is_made_to_fit_the_thumbnail() {
        let mut png = Vec::new();
        image::DynamicImage::new_rgb8(640, 480)
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap_or_else(|e| panic!("{e}"));
        let picker = Picker::halfblocks();
        let made = make(&picker, &png).unwrap_or_else(|| panic!("not made"));
        let area = made.area();
        assert!(area.height <= ROWS && area.width <= MAX_COLS, "{area:?}");
        assert!(area.height > 0 && area.width > 0);
        assert!(make(&picker, b"not a picture").is_none());
    }
}
