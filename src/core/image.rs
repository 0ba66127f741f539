//! Pictures a person attaches to a message (#39): the reference a message and its log
//! record carry. The bytes are kept once per session beside the log, named by their content
//! hash ([`ImageRef::file_name`]); core never sees them, it only counts and routes the
//! reference, and the actor loads the bytes when a request goes out.

use serde::{Deserialize, Serialize};

/// What an image costs in the context before the server has said: a conservative figure
/// (llava's 576 patches, gemma3's 256, qwen2.5-vl's ~1,300 at the largest size we send),
/// so a request with a picture is not sent into a window it would overflow.
pub const DEFAULT_IMAGE_TOKENS: u32 = 768;

/// What one picture costs in the context, as the chips show it: the figure the server
/// taught for this model, or the conservative default counted until it has (`learned`
/// false: the chip marks it as a guess rather than pass it off as measured).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageCost {
    pub tokens: u32,
    pub learned: bool,
}

impl ImageCost {
    /// The cost in force from what has been learned for the model (`None`: nothing yet).
    pub fn from_learned(learned: Option<u32>) -> ImageCost {
        match learned {
            Some(tokens) => ImageCost {
                tokens,
                learned: true,
            },
            None => ImageCost {
                tokens: DEFAULT_IMAGE_TOKENS,
                learned: false,
            },
        }
    }
}

/// The longest side an attached image keeps; larger ones are scaled down before they are
/// stored (vision models resize to well under this anyway, and the bytes go base64 in
/// every request that carries the message).
pub const MAX_SIDE: u32 = 1344;

/// How the stored bytes are encoded: the formats Ollama's vision models decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    Png,
    Jpeg,
}

impl ImageFormat {
    pub fn ext(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpg",
        }
    }
}

/// One attached image as the conversation knows it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ImageRef {
    /// SHA-256 of the stored bytes, lowercase hex: the file's name and its check on resume.
    pub hash: String,
    /// The file name the person gave (for the chip and exports), without its folder.
    pub name: String,
    /// Pixels of the stored image (after any scaling).
    pub width: u32,
    pub height: u32,
    /// Length of the stored bytes.
    pub bytes: u64,
    pub format: ImageFormat,
}

impl ImageRef {
    /// The stored file's name in the session's images folder.
    pub fn file_name(&self) -> String {
        format!("{}.{}", self.hash, self.format.ext())
    }

    /// Whether `hash` is one this module would have written (64 lowercase hex digits):
    /// a record's hash becomes a file name, so nothing else is ever one.
    pub fn plain_hash(hash: &str) -> bool {
        hash.len() == 64
            && hash
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    }

    /// The short form of the hash people see (the first 8 digits).
    pub fn short_hash(&self) -> &str {
        self.hash.get(..8).unwrap_or(&self.hash)
    }
}

/// The longest description of a folded picture kept (characters): the start of the
/// model's answer, where a vision model says what it sees.
pub const DESCRIPTION_CHARS: usize = 400;

/// A model's answer about a picture, as the ledger keeps it once the picture is folded:
/// its first paragraph on one line, cut at a sentence's end within
/// [`DESCRIPTION_CHARS`] when there is one.
pub fn description_of(answer: &str) -> String {
    let para = answer
        .split("\n\n")
        .map(str::trim)
        .find(|p| !p.is_empty())
        .unwrap_or("");
    let flat: String = para.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= DESCRIPTION_CHARS {
        return flat;
    }
    let cut: String = flat.chars().take(DESCRIPTION_CHARS).collect();
    match cut.rfind(". ") {
        Some(end) if end > DESCRIPTION_CHARS / 3 => cut[..=end].to_string(),
        _ => format!("{}…", cut.trim_end()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn sample() -> ImageRef {
        ImageRef {
            hash: "ab".repeat(32),
            name: "shot.png".into(),
            width: 1280,
            height: 720,
            bytes: 4096,
            format: ImageFormat::Png,
        }
    }

    #[test]
    fn the_file_is_named_by_the_hash_and_only_plain_hashes_are_names() {
        let r = sample();
        assert_eq!(r.file_name(), format!("{}.png", "ab".repeat(32)));
        assert_eq!(r.short_hash(), "abababab");
        assert!(ImageRef::plain_hash(&r.hash));
        assert!(!ImageRef::plain_hash("../../etc/passwd"));
        assert!(!ImageRef::plain_hash(&"AB".repeat(32)));
        assert!(!ImageRef::plain_hash(&"ab".repeat(31)));
    }

    #[test]
    fn a_reference_round_trips_through_json() {
        let r = sample();
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains("\"format\":\"png\""), "{json}");
        assert_eq!(serde_json::from_str::<ImageRef>(&json).unwrap(), r);
    }

    #[test]
    fn a_description_is_the_answer_s_first_paragraph_cut_at_a_sentence() {
        assert_eq!(
            description_of("A red  car\nparked outside.\n\nAnything else?"),
            "A red car parked outside."
        );
        let long = format!("{} The end is far.", "A cat sits on a mat. ".repeat(30));
        let d = description_of(&long);
        assert!(
            d.chars().count() <= DESCRIPTION_CHARS && d.ends_with('.'),
            "{d}"
        );
        assert_eq!(description_of(""), "");
    }
}
