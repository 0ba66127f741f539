//! Thumbnails of a message's pictures in the transcript (#39), where the terminal draws
//! images (kitty, iTerm2, sixel). The app makes each picture ready once, off the render
//! path, as a fixed-size protocol ([`Thumbnails::insert`]); the transcript only reserves
//! [`ROWS`] rows under a picture's chip and draws the ready one there when those rows
//! are wholly on screen (a graphics protocol cannot draw half a picture). Elsewhere, and
//! until a picture is ready, the rows stay blank and the chip says what it is.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;
use ratatui_image::Image;
use ratatui_image::protocol::Protocol;
use std::collections::HashMap;

/// Rows a thumbnail takes under its chip: enough to recognise a screenshot, few enough
/// to keep the conversation readable.
pub const ROWS: u16 = 6;
/// Columns a thumbnail takes at most (a wide picture is scaled to fit them).
pub const MAX_COLS: u16 = 32;

/// One picture made ready to draw, at its size.
pub struct Thumbnail(pub Protocol);

impl std::fmt::Debug for Thumbnail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Thumbnail").field(&self.0.area()).finish()
    }
}

/// The pictures made ready to draw, by content hash.
#[derive(Default)]
pub struct Thumbnails {
    ready: HashMap<String, Protocol>,
}

impl std::fmt::Debug for Thumbnails {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Thumbnails")
            .field("ready", &self.ready.len())
            .finish()
    }
}

impl Thumbnails {
    pub fn insert(&mut self, hash: String, protocol: Protocol) {
        self.ready.insert(hash, protocol);
    }

    pub fn is_ready(&self, hash: &str) -> bool {
        self.ready.contains_key(hash)
    }

    /// Draw the picture `hash` at `(x, y)` when it is ready and its rows fit in `area`.
    pub(crate) fn draw(&self, hash: &str, x: u16, y: u16, area: Rect, buf: &mut Buffer) {
        let Some(protocol) = self.ready.get(hash) else {
            return;
        };
        let size = protocol.area();
        let fits = y >= area.y
            && y.saturating_add(size.height) <= area.bottom()
            && x.saturating_add(size.width) <= area.right();
        if fits {
            Image::new(protocol).render(Rect::new(x, y, size.width, size.height), buf);
        }
    }
}
