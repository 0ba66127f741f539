//! Recall brings a picture back (#39): a folded picture left the request with its
//! message, and the ledger keeps what the model said of it. When the person's message
//! asks about it — a word for a picture ("the screenshot", "the diagram": the prompts'
//! `picture_words`) or the picture's file name — the picture itself goes again on the
//! message being answered, for that turn only, if the model sees pictures and the window
//! has room for its cost (learned, else the conservative default). Ollama takes pictures
//! only on messages, so the person's own message carries it.
//!
//! A name picks the pictures it names; a word picks the newest folded message's pictures.
//! Nothing is recorded: the reply's count, which holds the picture, teaches no cost
//! (`Turn::pictures_back`), so replay learns what the live session learned.

use super::Engine;
use crate::core::image::ImageRef;
use crate::core::message::Role;

impl Engine {
    /// The folded pictures `query` asks about and their raw cost, when the model sees
    /// pictures and a request of `raw_estimate` has room for them; `None` otherwise.
    pub(super) fn pictures_back(
        &self,
        query: &str,
        raw_estimate: u32,
    ) -> Option<(Vec<ImageRef>, u32)> {
        if !self.sees_images {
            return None;
        }
        let pictures = self.pictures_asked_about(query);
        if pictures.is_empty() {
            return None;
        }
        let raw = self
            .image_cost()
            .saturating_mul(u32::try_from(pictures.len()).unwrap_or(u32::MAX));
        // As the request's estimate is made: calibrated, under the hard limit.
        let fits = self.calibration().apply(raw_estimate.saturating_add(raw))
            <= self.budget().hard_limit();
        if !fits {
            tracing::info!(
                pictures = pictures.len(),
                raw,
                "a picture asked about does not fit the window"
            );
            return None;
        }
        Some((pictures, raw))
    }

    /// The folded pictures `query` names by file name, else those of the newest folded
    /// message with pictures when `query` says a word for a picture.
    fn pictures_asked_about(&self, query: &str) -> Vec<ImageRef> {
        let mut folded: Vec<_> = self
            .active
            .checkpoints()
            .iter()
            .flat_map(|c| c.covers.iter())
            .filter_map(|id| self.history.get(*id))
            .filter(|m| m.role == Role::User && !m.images.is_empty())
            .collect();
        if folded.is_empty() {
            return Vec::new();
        }
        folded.sort_by_key(|m| m.id);
        let lower = query.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let mut named: Vec<ImageRef> = Vec::new();
        for image in folded.iter().flat_map(|m| m.images.iter()) {
            let name = image.name.to_lowercase();
            let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
            let says =
                lower.contains(&name) || (stem.chars().count() >= 3 && words.contains(&stem));
            if says && !named.iter().any(|n| n.hash == image.hash) {
                named.push(image.clone());
            }
        }
        if !named.is_empty() {
            return named;
        }
        let phrase = format!(" {} ", words.join(" "));
        let asks = self
            .prompts
            .chat
            .picture_words
            .split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .any(|w| {
                let w = w.to_lowercase();
                phrase.contains(&format!(" {w} ")) || phrase.contains(&format!(" {w}s "))
            });
        match (asks, folded.last()) {
            (true, Some(m)) => m.images.clone(),
            _ => Vec::new(),
        }
    }
}
