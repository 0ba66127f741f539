//! Pictures (#39): the chip of an attached picture, and why one was not attached or sent.

use crate::actor::AttachRefused;
use crate::core::image::{ImageCost, ImageRef};

/// The vision model suggested to pull when none is installed.
pub const VISION_MODEL_TO_PULL: &str = "gemma3:4b";

/// `🖼 shot.png 1280×720 · ≈ 600 tokens` above the box: what the picture will cost, as
/// learned from the server for this model (until then the conservative figure the
/// budget counts, said as a guess). One chip format for the box and the transcript.
pub fn chip(image: &ImageRef, cost: ImageCost, ascii: bool) -> String {
    crate::ui::text::image_chip(image, Some(cost), ascii)
}

/// The line above the box while pictures wait for the message: what removes them.
pub fn chips_hint() -> &'static str {
    "sent with your next message · /image clear removes them"
}

/// Why a picture was not attached.
pub fn refused(why: &AttachRefused) -> String {
    match why {
        AttachRefused::NotVision {
            model,
            vision_models,
        } => not_vision(model, vision_models),
        AttachRefused::File(e) => format!("Not attached: {e}."),
        AttachRefused::Store(e) => format!("Not attached: cannot keep it with the session: {e}."),
    }
}

/// A model that cannot see pictures, and what can: the installed ones that see, or one
/// to pull.
pub fn not_vision(model: &str, vision_models: &[String]) -> String {
    let what = format!("{model} cannot see pictures (no \"vision\" in its capabilities)");
    if vision_models.is_empty() {
        format!("{what}; /pull {VISION_MODEL_TO_PULL} gets one that can. Your text is kept.")
    } else {
        format!(
            "{what}; /model {} can (installed: {}). Your text is kept.",
            vision_models[0],
            vision_models.join(", ")
        )
    }
}

/// Pictures wait to be sent but the model in use cannot see them.
pub fn not_vision_at_send(model: &str) -> String {
    format!(
        "{model} cannot see pictures: /model picks one that can (or /pull {VISION_MODEL_TO_PULL}), /image clear sends without them. Your text is kept."
    )
}

/// A Markdown export that could only name some pictures: their stored files are gone.
pub fn export_missing(n: usize) -> String {
    let them = match n {
        1 => "1 picture of this session is".to_string(),
        n => format!("{n} pictures of this session are"),
    };
    format!("{them} missing or changed in its store: the export names them without a copy")
}

/// `/image clear` with nothing attached, or the pictures removed.
pub fn cleared(n: usize) -> String {
    match n {
        0 => "No pictures are attached.".into(),
        1 => "The picture is removed.".into(),
        n => format!("{n} pictures are removed."),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::image::ImageFormat;

    #[test]
    fn the_chip_names_the_file_its_size_and_cost() {
        let image = ImageRef {
            hash: "0".repeat(64),
            name: "shot.png".into(),
            width: 1280,
            height: 720,
            bytes: 1,
            format: ImageFormat::Png,
        };
        let learned = |n| ImageCost::from_learned(Some(n));
        assert_eq!(
            chip(&image, learned(600), false),
            "🖼 shot.png 1280×720 · ≈ 600 tokens"
        );
        // Before the server has counted one: the default the budget counts, as a guess.
        assert_eq!(
            chip(&image, ImageCost::from_learned(None), false),
            "🖼 shot.png 1280×720 · ≈ 768 tokens (guess)"
        );
        assert!(chip(&image, learned(1536), true).is_ascii());
        assert!(chip(&image, learned(1536), true).contains("~1,536 tokens"));
        assert!(!chip(&image, learned(1536), true).contains("guess"));
    }

    #[test]
    fn a_refusal_names_the_models_that_can_or_one_to_pull() {
        let none = not_vision("qwen2.5:0.5b", &[]);
        assert!(
            none.contains("/pull gemma3:4b") && none.contains("qwen2.5:0.5b"),
            "{none}"
        );
        let some = not_vision("qwen2.5:0.5b", &["llava:7b".into()]);
        assert!(some.contains("/model llava:7b"), "{some}");
    }
}
