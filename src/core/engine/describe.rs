//! A folded picture the model never answered about (#39): its reply failed or was
//! stopped, so the fold kept a line only naming the picture. Between turns the model is
//! asked once, with the picture, for a short description (`DescribePicture`, carried out
//! by the actor, which loads the bytes), and the line becomes that description, marked as
//! the model's. A model that cannot see pictures, a picture whose file is gone, or a
//! failed request leave the line naming it (file name and size), so nothing vanishes
//! unsaid.
//!
//! What is asked is runtime state (one at a time, each picture once a run); what comes
//! back is a `picture_described` record carrying the line before and after, so replay
//! rebuilds the same ledger whatever the prompts say by then.

use super::Engine;
use super::input::Effect;
use crate::core::image::{ImageRef, description_of};
use crate::core::message::MessageId;
use crate::core::record::RecordBody;
use chrono::{DateTime, Utc};
use std::collections::HashSet;

/// A description is a few sentences (`core::image::DESCRIPTION_CHARS` are kept).
const DESCRIPTION_TOKENS: u32 = 160;

/// Which folded pictures were asked to be described in this run.
#[derive(Debug, Clone, Default)]
pub(super) struct Describing {
    /// A request is under way (`DescribePicture` not answered yet).
    asking: bool,
    /// Each picture asked about once a run: its message and hash.
    asked: HashSet<(MessageId, String)>,
}

impl Engine {
    /// `template` filled for `image` (`{name}`, `{size}`, `{description}`): the ledger line
    /// of a folded picture.
    pub(super) fn picture_line(
        &self,
        template: &str,
        image: &ImageRef,
        description: &str,
    ) -> String {
        let size = format!("{}×{}", image.width, image.height);
        crate::core::prompts::fill(
            template,
            &[
                ("name", image.name.as_str()),
                ("size", size.as_str()),
                ("description", description),
            ],
        )
    }

    /// The folded pictures whose line only names them, oldest first: the message that
    /// carried each, and the picture.
    fn undescribed_pictures(&self) -> Vec<(MessageId, ImageRef)> {
        let template = &self.prompts.chat.picture_undescribed;
        let mut out = Vec::new();
        for cp in self.active.checkpoints() {
            for fact in &cp.facts {
                let Some(m) = fact.from.and_then(|id| self.history.get(id)) else {
                    continue;
                };
                for image in &m.images {
                    if fact.text == self.picture_line(template, image, "") {
                        out.push((m.id, image.clone()));
                    }
                }
            }
        }
        out
    }

    /// Between turns, with nothing else asked of the server: ask for the description of
    /// the next folded picture the model never answered about.
    pub(super) fn ask_picture_description(&mut self, fx: &mut Vec<Effect>) {
        if self.turn.is_some() || self.background || self.replaying || self.describing.asking {
            return;
        }
        let Some((from, image)) = self
            .undescribed_pictures()
            .into_iter()
            .find(|(id, image)| !self.describing.asked.contains(&(*id, image.hash.clone())))
        else {
            return;
        };
        self.describing.asking = true;
        self.describing.asked.insert((from, image.hash.clone()));
        fx.push(Effect::DescribePicture {
            from,
            image,
            prompt: self.prompts.chat.describe_picture.clone(),
            cap: DESCRIPTION_TOKENS,
        });
    }

    /// The answer to `DescribePicture`: a description replaces the line naming the
    /// picture (recorded); none leaves it.
    pub(super) fn picture_described(
        &mut self,
        from: MessageId,
        hash: &str,
        description: Option<String>,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        self.describing.asking = false;
        let Some(description) = description
            .map(|d| description_of(&d))
            .filter(|d| !d.is_empty())
        else {
            tracing::info!(%from, "a folded picture keeps the line naming it: no description came");
            return;
        };
        let Some(image) = self
            .history
            .get(from)
            .and_then(|m| m.images.iter().find(|i| i.hash == hash))
            .cloned()
        else {
            return;
        };
        let chat = &self.prompts.chat;
        let old = self.picture_line(&chat.picture_undescribed, &image, "");
        let new = self.picture_line(&chat.picture_described_later, &image, &description);
        // Still there (not restored away meanwhile).
        let held = self.active.checkpoints().iter().any(|c| {
            c.facts
                .iter()
                .any(|f| f.from == Some(from) && f.text == old)
        });
        if held {
            self.commit(RecordBody::PictureDescribed { from, old, new }, now, fx);
        }
    }

    /// A `picture_described` record: the fold's line naming the picture becomes its
    /// description.
    pub(super) fn describe_line(&mut self, from: MessageId, old: &str, new: &str) {
        let mut changed = false;
        for cp in self.active.checkpoints_mut() {
            for fact in &mut cp.facts {
                if fact.from == Some(from) && fact.text == old {
                    fact.text = new.to_string();
                    changed = true;
                }
            }
        }
        if changed {
            // The merged ledger is kept per set of checkpoints: these changed within.
            // The version stays: a compression planned meanwhile (the answer may land
            // during a turn) folds the same messages and is still good.
            self.merged_ledger.0.clear();
            self.rebuild_checkpoints();
        }
    }
}
