//! The transcript: displayed entries, their render cache, and the scroll position.
//!
//! Strategy: nothing here ever needs the height of the whole transcript. The view is
//! positioned by an anchor — the entry and line at the top of the viewport — or follows
//! the bottom. A frame walks from the anchor (or up from the last entry) over just the
//! entries it shows, rendering each on first sight and caching its lines for the width.
//! So a frame costs O(visible lines), a resize re-renders only what becomes visible, and
//! scrolling renders only the entries scrolled over. Scroll requests are queued as line
//! deltas and resolved at the next frame, when the width is known.
//!
//! Invariants:
//! - An entry's cached lines are valid for (width, style key) and for its current text:
//!   every mutation through this type drops that entry's cache.
//! - Following the bottom stays on until the user scrolls up, and comes back when they
//!   scroll down to the end (or call [`Transcript::to_bottom`]). New content while not
//!   following raises the "↓ new" hint.
//! - At most [`MAX_CACHED_ENTRIES`] entries hold cached lines; the least recently shown
//!   are dropped first, never one shown in the current frame.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use std::collections::VecDeque;

use super::entry::{EntryCtx, StreamCache, render_entry, render_streaming, thumbnail_rows};
use super::highlight::CodeCache;
use crate::view::{Entry, EntryKind, ReplyState};

/// Cached entries kept at most; beyond this the least recently shown are dropped.
pub const MAX_CACHED_ENTRIES: usize = 512;

#[derive(Debug)]
struct Rendered {
    width: u16,
    lines: Vec<Line<'static>>,
    /// Frame in which the entry was last shown or measured.
    used: u64,
}

/// A position in the transcript: line `line` of entry `entry`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pos {
    entry: usize,
    line: usize,
}

/// Entries plus their caches and the scroll state. See the module docs.
#[derive(Debug, Default)]
pub struct Transcript {
    entries: Vec<Entry>,
    slots: Vec<Option<Rendered>>,
    /// Indices with a filled slot, in the order they were filled.
    queue: VecDeque<usize>,
    queued: Vec<bool>,
    streaming: Option<usize>,
    stream_cache: StreamCache,
    code: CodeCache,
    style_key: u64,
    follow_off: bool,
    anchor: Option<Pos>,
    pending: i64,
    unseen: bool,
    last_height: u16,
    frame: u64,
    renders: u64,
    /// The second line of an empty transcript, in the app's words (it names the keys the
    /// keymap binds); `None`: a plain default.
    empty_hint: Option<String>,
}

impl Transcript {
    pub fn new() -> Transcript {
        Transcript::default()
    }

    /// What an empty transcript says under "No messages yet." (how to send, how to get help).
    pub fn set_empty_hint(&mut self, hint: String) {
        self.empty_hint = Some(hint);
    }

    pub fn empty_hint(&self) -> Option<&str> {
        self.empty_hint.as_deref()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn get(&self, index: usize) -> Option<&Entry> {
        self.entries.get(index)
    }

    /// Index of the reply being streamed, if any.
    pub fn streaming_index(&self) -> Option<usize> {
        self.streaming
    }

    /// Append an entry. A streaming assistant entry becomes the target of
    /// [`Transcript::append_delta`].
    pub fn push(&mut self, entry: Entry) {
        if entry.is_streaming() {
            self.streaming = Some(self.entries.len());
            self.stream_cache = StreamCache::default();
        }
        self.entries.push(entry);
        self.slots.push(None);
        self.queued.push(false);
        self.mark_new();
    }

    /// Add text to the streaming reply. Returns false (and does nothing) when no reply
    /// is streaming.
    pub fn append_delta(&mut self, delta: &str) -> bool {
        let Some(i) = self.streaming else {
            return false;
        };
        if delta.is_empty() {
            return true;
        }
        self.entries[i].text.push_str(delta);
        // The lines go back to the stream cache, which redoes only their unstable end.
        if let Some(r) = self.slots[i].take() {
            self.stream_cache.lines = r.lines;
        }
        self.mark_new();
        true
    }

    /// Append reasoning to the streaming reply. Its block sits above the text, inside
    /// the part the stream cache treats as the head, so the cache starts over (cheap:
    /// reasoning comes before the answer, while the body is still empty).
    pub fn append_thinking(&mut self, delta: &str) {
        let Some(i) = self.streaming else {
            return;
        };
        if delta.is_empty() {
            return;
        }
        self.entries[i].thinking.push_str(delta);
        self.slots[i] = None;
        self.stream_cache = StreamCache::default();
        self.mark_new();
    }

    /// End the streaming reply with `state` (`Complete` or `Interrupted`).
    pub fn finish_streaming(&mut self, state: ReplyState) {
        if let Some(i) = self.streaming.take() {
            self.entries[i].kind = EntryKind::Assistant { state };
            self.slots[i] = None;
            self.stream_cache = StreamCache::default();
        }
    }

    /// Take the streaming entry's text off the screen (it turned out to be a tool call,
    /// shown as such next); the entry goes too unless it holds reasoning.
    pub fn drop_streaming(&mut self) {
        if let Some(i) = self.streaming
            && i + 1 == self.entries.len()
        {
            self.entries[i].text.clear();
            self.slots[i] = None;
            self.stream_cache = StreamCache::default();
            self.discard_empty_streaming();
        }
    }

    /// Drop the streaming reply if it is the newest entry and nothing arrived: a request
    /// that failed before any text should leave no empty "interrupted" reply behind.
    /// Returns whether it was dropped (otherwise it is finished as interrupted).
    pub fn discard_empty_streaming(&mut self) -> bool {
        if self.drop_if_empty() {
            return true;
        }
        if self.streaming.is_some() {
            self.finish_streaming(ReplyState::Interrupted);
        }
        false
    }

    /// Drop the streaming reply if it is the newest entry and holds neither text nor
    /// reasoning (a reply that only called tools: its tool lines say what it did).
    pub fn drop_if_empty(&mut self) -> bool {
        let Some(i) = self.streaming else {
            return false;
        };
        let e = &self.entries[i];
        if i + 1 != self.entries.len() || !e.text.is_empty() || !e.thinking.is_empty() {
            return false;
        }
        self.streaming = None;
        self.stream_cache = StreamCache::default();
        self.entries.pop();
        self.slots.pop();
        self.queued.pop();
        self.queue.retain(|&q| q != i);
        true
    }

    /// Replace everything (session load, restore). Scrolls to the bottom.
    pub fn replace_all(&mut self, entries: Vec<Entry>) {
        let n = entries.len();
        self.streaming = entries.iter().rposition(Entry::is_streaming);
        self.entries = entries;
        self.slots = (0..n).map(|_| None).collect();
        self.queued = vec![false; n];
        self.queue.clear();
        self.stream_cache = StreamCache::default();
        self.to_bottom();
    }

    /// Change an entry in place (e.g. pin it, set its id); its cache is dropped.
    pub fn update(&mut self, index: usize, f: impl FnOnce(&mut Entry)) {
        if let Some(e) = self.entries.get_mut(index) {
            f(e);
            self.slots[index] = None;
            if self.streaming == Some(index) {
                self.stream_cache = StreamCache::default();
                if !self.entries[index].is_streaming() {
                    self.streaming = None;
                }
            }
        }
    }

    fn mark_new(&mut self) {
        if self.follow_off {
            self.unseen = true;
        }
    }

    pub fn scroll_up(&mut self, lines: u16) {
        if lines == 0 {
            return;
        }
        self.follow_off = true;
        self.pending -= i64::from(lines);
    }

    pub fn scroll_down(&mut self, lines: u16) {
        self.pending += i64::from(lines);
    }

    /// Up by a screenful (less one line of context).
    pub fn page_up(&mut self) {
        self.scroll_up(self.page());
    }

    pub fn page_down(&mut self) {
        self.scroll_down(self.page());
    }

    fn page(&self) -> u16 {
        self.last_height.saturating_sub(1).max(1)
    }

    /// Follow the bottom again.
    pub fn to_bottom(&mut self) {
        self.follow_off = false;
        self.anchor = None;
        self.pending = 0;
        self.unseen = false;
    }

    /// Put message `id` at the top of the view (a search hit opened); false when the
    /// transcript has no such message.
    pub fn show_message(&mut self, id: crate::core::message::MessageId) -> bool {
        let Some(entry) = self.entries.iter().position(|e| e.id == Some(id)) else {
            return false;
        };
        self.follow_off = true;
        self.anchor = Some(Pos { entry, line: 0 });
        self.pending = 0;
        true
    }

    pub fn to_top(&mut self) {
        self.follow_off = true;
        self.anchor = Some(Pos { entry: 0, line: 0 });
        self.pending = 0;
    }

    /// True when the view sticks to the newest content.
    pub fn is_following(&self) -> bool {
        !self.follow_off
    }

    /// True when content arrived below the view since the user scrolled up.
    pub fn has_unseen(&self) -> bool {
        self.unseen
    }

    /// How many times an entry was rendered (parsed, highlighted, wrapped) so far. A
    /// diagnostic for tests and benches: a cached frame adds nothing.
    pub fn render_count(&self) -> u64 {
        self.renders
    }

    /// Code lines run through the syntax highlighter so far (diagnostic, like
    /// [`Transcript::render_count`]).
    pub fn highlighted_lines(&self) -> u64 {
        self.code.highlighted_lines()
    }

    /// Bytes of the streaming reply a frame renders again (diagnostic, like
    /// [`Transcript::render_count`]): bounded however the reply goes on.
    pub fn streaming_tail_bytes(&self) -> usize {
        self.streaming.map_or(0, |i| {
            self.entries[i].text.len() - self.stream_cache.stable_bytes
        })
    }

    /// How many entries hold cached lines right now.
    pub fn cached_entries(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    /// Height in lines of entry `i` at `width`, rendering it if needed.
    fn height(&mut self, i: usize, width: u16, ctx: &EntryCtx<'_>) -> usize {
        self.ensure(i, width, ctx);
        self.slots[i].as_ref().map_or(0, |r| r.lines.len())
    }

    fn ensure(&mut self, i: usize, width: u16, ctx: &EntryCtx<'_>) {
        let frame = self.frame;
        if let Some(r) = &mut self.slots[i]
            && r.width == width
        {
            r.used = frame;
            return;
        }
        self.renders += 1;
        // A separator above every entry but the first: the bottom row stays content.
        let lines = if self.streaming == Some(i) {
            render_streaming(
                &self.entries[i],
                width,
                i > 0,
                ctx,
                &mut self.stream_cache,
                &mut self.code,
            )
        } else {
            let mut lines = render_entry(&self.entries[i], width, ctx, &mut self.code);
            if i > 0 {
                lines.insert(0, Line::default());
            }
            lines
        };
        self.slots[i] = Some(Rendered {
            width,
            lines,
            used: frame,
        });
        if !self.queued[i] {
            self.queued[i] = true;
            self.queue.push_back(i);
        }
    }

    fn evict(&mut self) {
        let mut budget = self.queue.len();
        while self.queue.len() > MAX_CACHED_ENTRIES && budget > 0 {
            budget -= 1;
            let Some(i) = self.queue.pop_front() else {
                break;
            };
            match &self.slots[i] {
                Some(r) if r.used == self.frame => self.queue.push_back(i),
                _ => {
                    self.slots[i] = None;
                    self.queued[i] = false;
                }
            }
        }
    }

    /// Top position that puts the last line at the bottom of `height` rows.
    fn bottom_top(&mut self, height: usize, width: u16, ctx: &EntryCtx<'_>) -> Pos {
        let mut remaining = height;
        let mut i = self.entries.len();
        while i > 0 {
            i -= 1;
            let h = self.height(i, width, ctx);
            if h >= remaining {
                return Pos {
                    entry: i,
                    line: h - remaining,
                };
            }
            remaining -= h;
        }
        Pos { entry: 0, line: 0 }
    }

    fn move_up(&mut self, pos: Pos, mut n: usize, width: u16, ctx: &EntryCtx<'_>) -> Pos {
        if pos.line >= n {
            return Pos {
                entry: pos.entry,
                line: pos.line - n,
            };
        }
        n -= pos.line;
        let mut i = pos.entry;
        while i > 0 {
            i -= 1;
            let h = self.height(i, width, ctx);
            if h >= n {
                return Pos {
                    entry: i,
                    line: h - n,
                };
            }
            n -= h;
        }
        Pos { entry: 0, line: 0 }
    }

    fn move_down(&mut self, pos: Pos, mut n: usize, width: u16, ctx: &EntryCtx<'_>) -> Pos {
        let mut i = pos.entry;
        let mut line = pos.line;
        while i < self.entries.len() {
            let h = self.height(i, width, ctx);
            if line + n < h {
                return Pos {
                    entry: i,
                    line: line + n,
                };
            }
            n -= h - line.min(h);
            line = 0;
            i += 1;
        }
        Pos {
            entry: self.entries.len(),
            line: 0,
        }
    }

    /// Lines from `pos` to the end, counting no further than `limit`.
    fn lines_below(&mut self, pos: Pos, limit: usize, width: u16, ctx: &EntryCtx<'_>) -> usize {
        let mut count = 0;
        let mut i = pos.entry;
        let mut skip = pos.line;
        while i < self.entries.len() && count <= limit {
            count += self.height(i, width, ctx).saturating_sub(skip);
            skip = 0;
            i += 1;
        }
        count
    }

    /// Draw into `area`. `style_key` identifies theme/ascii/offset: when it changes,
    /// every cache is dropped.
    pub(crate) fn render(
        &mut self,
        area: Rect,
        buf: &mut Buffer,
        ctx: &EntryCtx<'_>,
        style_key: u64,
    ) {
        if style_key != self.style_key {
            self.style_key = style_key;
            for s in &mut self.slots {
                *s = None;
            }
            self.queued.iter_mut().for_each(|q| *q = false);
            self.queue.clear();
            self.stream_cache = StreamCache::default();
            self.code.clear();
        }
        self.frame += 1;
        self.last_height = area.height;
        if area.width == 0 || area.height == 0 {
            return;
        }
        if self.entries.is_empty() {
            self.pending = 0;
            self.draw_empty(area, buf, ctx);
            return;
        }
        let (w, h) = (area.width, usize::from(area.height));

        let mut top = match self.anchor {
            Some(mut p) if self.follow_off => {
                if p.entry >= self.entries.len() {
                    p = Pos {
                        entry: self.entries.len() - 1,
                        line: 0,
                    };
                }
                let eh = self.height(p.entry, w, ctx);
                p.line = p.line.min(eh.saturating_sub(1));
                p
            }
            _ => self.bottom_top(h, w, ctx),
        };
        let pending = std::mem::take(&mut self.pending);
        let delta = usize::try_from(pending.unsigned_abs()).unwrap_or(usize::MAX);
        if pending < 0 {
            top = self.move_up(top, delta, w, ctx);
        } else if pending > 0 {
            top = self.move_down(top, delta, w, ctx);
        }
        if self.lines_below(top, h, w, ctx) <= h {
            // At (or past) the end: follow the bottom again.
            self.to_bottom();
            top = self.bottom_top(h, w, ctx);
        } else {
            self.follow_off = true;
            self.anchor = Some(top);
        }

        let mut y = 0usize;
        let mut pos = top;
        while y < h && pos.entry < self.entries.len() {
            self.ensure(pos.entry, w, ctx);
            if let Some(r) = &self.slots[pos.entry] {
                let start = y;
                for line in r.lines.iter().skip(pos.line) {
                    if y >= h {
                        break;
                    }
                    let row = area.y + u16::try_from(y).unwrap_or(u16::MAX);
                    buf.set_line(area.x, row, line, w);
                    y += 1;
                }
                if let Some(thumbnails) = ctx.thumbnails {
                    let entry = &self.entries[pos.entry];
                    for (from_end, col, hash) in thumbnail_rows(entry, w, ctx) {
                        // The entry's line the thumbnail starts on, then its screen row.
                        let Some(line) = r.lines.len().checked_sub(from_end) else {
                            continue;
                        };
                        let Some(on_screen) = (start + line).checked_sub(pos.line) else {
                            continue;
                        };
                        if line >= pos.line {
                            let row = area.y + u16::try_from(on_screen).unwrap_or(u16::MAX);
                            thumbnails.draw(hash, area.x + col, row, area, buf);
                        }
                    }
                }
            }
            pos = Pos {
                entry: pos.entry + 1,
                line: 0,
            };
        }

        if self.follow_off {
            self.draw_hint(area, buf, ctx);
        }
        self.evict();
    }

    fn draw_hint(&self, area: Rect, buf: &mut Buffer, ctx: &EntryCtx<'_>) {
        let text = if self.unseen {
            format!(" {} new ", ctx.g.arrow_down)
        } else {
            format!(" {} more ", ctx.g.arrow_down)
        };
        let w = u16::try_from(super::text::width(&text)).unwrap_or(u16::MAX);
        if area.width < w {
            return;
        }
        let x = area.x + area.width - w;
        let y = area.y + area.height - 1;
        buf.set_line(
            x,
            y,
            &Line::from(Span::styled(text, ctx.theme.styles.hint)),
            w,
        );
    }

    fn draw_empty(&self, area: Rect, buf: &mut Buffer, ctx: &EntryCtx<'_>) {
        let lines = [
            "No messages yet.",
            self.empty_hint
                .as_deref()
                .unwrap_or("Type below and press Enter to send."),
        ];
        let top = area.height.saturating_sub(2) / 2;
        for (k, text) in lines.iter().enumerate() {
            let row = top + u16::try_from(k).unwrap_or(0);
            if row >= area.height {
                break;
            }
            let tw = u16::try_from(super::text::width(text)).unwrap_or(u16::MAX);
            let x = area.x + area.width.saturating_sub(tw) / 2;
            buf.set_line(
                x,
                area.y + row,
                &Line::from(Span::styled(text.to_string(), ctx.theme.styles.dim)),
                area.width - (x - area.x),
            );
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::image::{ImageFormat, ImageRef};
    use crate::ui::theme::Theme;
    use crate::ui::thumbnail::{ROWS, Thumbnails};
    use chrono::{FixedOffset, Utc};
    use ratatui_image::picker::Picker;

    fn sent_picture() -> Entry {
        let mut entry = Entry::user("look", Utc::now());
        entry.images.push(ImageRef {
            hash: "ab".repeat(32),
            name: "shot.png".into(),
            width: 64,
            height: 64,
            bytes: 100,
            format: ImageFormat::Png,
        });
        entry
    }

    fn ready() -> Thumbnails {
        // A white square as half blocks: drawn as cells, so the buffer shows it.
        let image = image::DynamicImage::ImageRgb8(image::RgbImage::from_pixel(
            64,
            64,
            image::Rgb([255, 255, 255]),
        ));
        let picker = Picker::halfblocks();
        let protocol = picker
            .new_protocol(
                image,
                Rect::new(0, 0, 8, ROWS),
                ratatui_image::Resize::Fit(None),
            )
            .unwrap();
        let mut t = Thumbnails::default();
        t.insert("ab".repeat(32), protocol);
        t
    }

    fn ctx<'a>(theme: &'a Theme, thumbnails: Option<&'a Thumbnails>) -> EntryCtx<'a> {
        EntryCtx {
            theme,
            g: crate::ui::text::glyphs(false),
            ascii: false,
            offset: FixedOffset::east_opt(0).unwrap(),
            details: false,
            image_cost: None,
            thumbnails,
        }
    }

    /// The transcript of one sent picture drawn in `height` rows: its rows as text, the
    /// buffer, and the entry's height in lines.
    fn draw(height: u16, thumbnails: Option<&Thumbnails>) -> (Vec<String>, Buffer, usize) {
        let theme = Theme::default();
        let ctx = ctx(&theme, thumbnails);
        let mut t = Transcript::new();
        t.push(sent_picture());
        let area = Rect::new(0, 0, 40, height);
        let mut buf = Buffer::empty(area);
        t.render(area, &mut buf, &ctx, 1);
        let rows = (0..height)
            .map(|y| (0..40).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect();
        (rows, buf, t.height(0, 40, &ctx))
    }

    fn chip_row(rows: &[String]) -> usize {
        rows.iter().position(|r| r.contains("shot.png")).unwrap()
    }

    /// Whether row `y` holds a drawn picture: cells with the picture's white.
    fn painted(buf: &Buffer, y: usize) -> bool {
        let y = u16::try_from(y).unwrap();
        let white = ratatui::style::Color::Rgb(255, 255, 255);
        (0..40).any(|x| buf[(x, y)].fg == white || buf[(x, y)].bg == white)
    }

    #[test]
    fn a_ready_picture_is_drawn_under_its_chip() {
        let shown = ready();
        let (rows, buf, height) = draw(20, Some(&shown));
        let (_, _, without) = draw(20, None);
        assert_eq!(height, without + usize::from(ROWS));
        let chip = chip_row(&rows);
        assert_eq!(chip + 1 + usize::from(ROWS), height, "{rows:#?}");
        assert!(!painted(&buf, chip));
        assert!(painted(&buf, chip + 1), "{rows:#?}");
        assert!(!painted(&buf, chip + 1 + usize::from(ROWS)));
    }

    #[test]
    fn rows_are_kept_but_empty_until_the_picture_is_ready() {
        let none = Thumbnails::default();
        let (rows, buf, height) = draw(20, Some(&none));
        assert_eq!(chip_row(&rows) + 1 + usize::from(ROWS), height);
        assert!((0..20).all(|y| !painted(&buf, y)));
    }

    #[test]
    fn without_thumbnails_the_chip_is_the_last_line() {
        let (rows, buf, height) = draw(20, None);
        assert_eq!(chip_row(&rows) + 1, height, "{rows:#?}");
        assert!((0..20).all(|y| !painted(&buf, y)));
    }

    #[test]
    fn a_thumbnail_cut_by_the_edge_is_not_drawn() {
        let shown = ready();
        // The transcript follows the bottom: in fewer rows than the thumbnail takes, its
        // top is scrolled off, and a graphics protocol cannot draw half a picture.
        let (rows, buf, _) = draw(ROWS - 2, Some(&shown));
        assert!(
            (0..usize::from(ROWS - 2)).all(|y| !painted(&buf, y)),
            "{rows:#?}"
        );
    }
}
