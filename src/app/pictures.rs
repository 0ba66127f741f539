//! Pictures waiting for the person's next message (#39): the chips above the box, the
//! attaches asked of the actor (`/image PATH`), and the paths to pictures written in a
//! message (typed, pasted, or a file dragged into the terminal, which arrives as its
//! pasted path), attached before the message goes and kept in its text.
//!
//! Nothing here reads a file: a candidate path is only looked up (`symlink_metadata`)
//! to tell a path from a word that ends in `.png`; the actor checks, reads and stores it.

use super::App;
use super::overlays::Reply;
use super::words;
use crate::actor::{Ask, AttachRefused};
use crate::core::image::{ImageCost, ImageRef};
use crate::store::attach::{expand_home, has_image_extension};

/// The pictures attached so far, and a message waiting for its own paths' attaches.
#[derive(Debug, Default)]
pub(crate) struct Attached {
    images: Vec<ImageRef>,
    /// A message whose paths are being attached: sent when all are answered, unless
    /// one was refused (then it stays in the box, as typed).
    pending: Option<String>,
    waiting: usize,
    refused: bool,
}

impl Attached {
    /// The pictures, emptied: they go with the message being sent.
    pub fn take(&mut self) -> Vec<ImageRef> {
        std::mem::take(&mut self.images)
    }

    pub fn images(&self) -> &[ImageRef] {
        &self.images
    }

    /// A message waits for its pictures' attaches.
    pub fn waiting(&self) -> bool {
        self.pending.is_some()
    }
}

/// The paths in `text` that name pictures: words ending in an image extension, quoted
/// ones whole (`"my shot.png"`, `'x.jpg'`), a backslash-escaped space kept (as a dragged
/// file arrives in some terminals), `file://` dropped, trailing punctuation dropped.
pub fn image_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut word = String::new();
        if c == '"' || c == '\'' {
            chars.next();
            for d in chars.by_ref() {
                if d == c {
                    break;
                }
                word.push(d);
            }
        } else {
            while let Some(&d) = chars.peek() {
                if d.is_whitespace() {
                    break;
                }
                chars.next();
                if d == '\\' && chars.peek() == Some(&' ') {
                    chars.next();
                    word.push(' ');
                } else {
                    word.push(d);
                }
            }
            while word.ends_with([',', ';', ':', ')', '!', '?']) {
                word.pop();
            }
        }
        let word = word.strip_prefix("file://").unwrap_or(&word).to_string();
        if has_image_extension(&word) && !out.contains(&word) {
            out.push(word);
        }
    }
    out
}

impl App {
    /// `/image PATH`: asked of the actor; its chip shows when it answers.
    pub(super) fn attach_image(&mut self, typed: String) {
        self.ask_attach(typed, false);
    }

    fn ask_attach(&mut self, typed: String, for_message: bool) {
        let path = expand_home(&typed);
        self.ask(
            move |reply| Ask::AttachImage { path, reply },
            move |result| Reply::Attached {
                result,
                for_message,
            },
        );
    }

    /// The chips above the box, the first with how to remove them.
    pub(super) fn chips(&self) -> Vec<String> {
        let ascii = self.opts.ascii;
        let cost = self.image_cost();
        let mut chips: Vec<String> = self
            .pictures
            .images()
            .iter()
            .map(|i| words::pictures::chip(i, cost, ascii))
            .collect();
        if let Some(first) = chips.first_mut() {
            first.push_str("  · ");
            first.push_str(words::pictures::chips_hint());
        }
        chips
    }

    /// What a picture costs with the session's model, for every chip: learned, or the
    /// default the budget counts meanwhile.
    pub(super) fn image_cost(&self) -> ImageCost {
        ImageCost::from_learned(self.session.status.image_tokens)
    }

    /// `/image clear`: every chip removed.
    pub(super) fn clear_images(&mut self) {
        let n = self.pictures.take().len();
        self.input_note = Some(words::pictures::cleared(n));
    }

    /// Enter on `text`: the paths to pictures in it that exist are attached first, and
    /// the message goes when they are (`true`: it waits, the box keeps it). For a model
    /// that cannot see pictures a path is only text (a message about `assets/logo.png`
    /// must still go); `/image` says why it is refused.
    pub(super) fn wait_for_pictures(&mut self, text: &str) -> bool {
        if self.pictures.waiting() {
            return true;
        }
        if !self.session.sees_images {
            return false;
        }
        let found: Vec<String> = image_paths(text)
            .into_iter()
            .filter(|p| std::fs::symlink_metadata(expand_home(p)).is_ok())
            .collect();
        if found.is_empty() {
            return false;
        }
        self.pictures.pending = Some(text.to_string());
        self.pictures.waiting = found.len();
        self.pictures.refused = false;
        for p in found {
            self.ask_attach(p, true);
        }
        true
    }

    /// Pictures wait but the model cannot see them: the message stays (`false`).
    pub(super) fn pictures_can_go(&mut self) -> bool {
        if self.pictures.images().is_empty() || self.session.sees_images {
            return true;
        }
        // In the transcript, where the whole sentence fits; the box keeps the text.
        let said = words::pictures::not_vision_at_send(&self.session.status.model);
        self.warn(said);
        false
    }

    /// The actor's answer to an attach.
    pub(super) fn on_attached(
        &mut self,
        result: Result<ImageRef, AttachRefused>,
        for_message: bool,
    ) {
        match result {
            Ok(image) => {
                if !self.pictures.images.iter().any(|i| i.hash == image.hash) {
                    self.pictures.images.push(image);
                }
            }
            Err(why) => {
                self.warn(words::pictures::refused(&why));
                if for_message {
                    self.pictures.refused = true;
                }
            }
        }
        if !for_message || self.pictures.pending.is_none() {
            return;
        }
        self.pictures.waiting = self.pictures.waiting.saturating_sub(1);
        if self.pictures.waiting == 0
            && let Some(text) = self.pictures.pending.take()
            && !self.pictures.refused
        {
            self.send_with_pictures(text);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::image_paths;

    #[test]
    fn paths_are_found_as_typed_quoted_escaped_or_dragged() {
        assert_eq!(
            image_paths("what is in ./shot.png, and ~/x.JPG?"),
            vec!["./shot.png", "~/x.JPG"]
        );
        assert_eq!(
            image_paths("look at \"my shot.png\" and 'b c.webp'"),
            vec!["my shot.png", "b c.webp"]
        );
        assert_eq!(
            image_paths("file:///tmp/a.gif /tmp/my\\ pic.jpeg"),
            vec!["/tmp/a.gif", "/tmp/my pic.jpeg"]
        );
        assert!(image_paths("no pictures here, just notes.txt").is_empty());
    }
}
