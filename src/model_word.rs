//! `ollm-tui WORD`: the first word on the command line taken as the model, the way
//! `ollama run MODEL` takes it. A subcommand's name wins (clap sees to that); any other
//! word might be a model or a mistyped subcommand, so it is checked before the terminal
//! is touched, and a word that is neither is refused with what the person may have meant.

use crate::llm::{ChatBackend, LlmError};
use std::time::Duration;

/// The subcommands, for "did you mean": kept beside the check that uses them; the CLI
/// test that runs `--help` fails if one is renamed without this list.
pub const SUBCOMMANDS: [&str; 5] = ["sessions", "search", "export", "default-config", "help"];

/// How long the server may take to say whether it has the model. A server that does not
/// answer in time is not a reason to refuse: the chat says what is wrong with it.
const CHECK_TIMEOUT: Duration = Duration::from_secs(5);

/// What the server said about the word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The server has this model.
    Installed,
    /// The server has it, but it only makes embeddings: it cannot chat.
    EmbeddingOnly,
    /// The server answered and has no such model; these are the ones it has.
    Missing { installed: Vec<String> },
    /// The server could not be asked (not running, too slow): nothing is known.
    Unknown,
}

/// Ask the server whether `word` is a model it has.
pub async fn check<B: ChatBackend>(backend: &B, word: &str) -> Verdict {
    let asked = async {
        match backend.show_model(word).await {
            Ok(info) if crate::llm::embedding_only(word, &info.capabilities) => {
                Verdict::EmbeddingOnly
            }
            Ok(_) => Verdict::Installed,
            Err(LlmError::ModelNotFound { .. }) => {
                let mut installed: Vec<String> = backend
                    .list_models()
                    .await
                    .map(|models| models.into_iter().map(|m| m.name).collect())
                    .unwrap_or_default();
                installed.sort();
                Verdict::Missing { installed }
            }
            Err(_) => Verdict::Unknown,
        }
    };
    tokio::time::timeout(CHECK_TIMEOUT, asked)
        .await
        .unwrap_or(Verdict::Unknown)
}

/// The refusal for a word that is not a model the server has, or `None` to go on. A word
/// one or two letters away from a subcommand is refused even when the server cannot be
/// asked: `ollm-tui sesions` is a typo far more often than a model's name.
pub fn refusal(word: &str, verdict: &Verdict) -> Option<String> {
    let near = nearest_subcommand(word);
    let did_you_mean = near
        .map(|s| format!(" Did you mean `ollm-tui {s}`?"))
        .unwrap_or_default();
    match verdict {
        Verdict::Installed => None,
        Verdict::EmbeddingOnly => Some(format!(
            "{word:?} makes embeddings only: it cannot chat. ollm-tui uses such a model for \
             recall by itself ([recall] embedding_model in config.toml); to chat, name a chat \
             model: ollm-tui MODEL"
        )),
        Verdict::Unknown if near.is_none() => None,
        Verdict::Unknown => Some(format!(
            "{word:?} is not a subcommand.{did_you_mean} (To chat with a model of that name: \
             ollm-tui -m {word})"
        )),
        Verdict::Missing { installed } => {
            let models = if installed.is_empty() {
                "the server has no model installed".to_string()
            } else {
                format!("installed: {}", installed.join(", "))
            };
            Some(format!(
                "{word:?} is neither a subcommand ({}) nor an installed model ({models}).\
                 {did_you_mean} To chat with a model: ollm-tui MODEL or ollm-tui -m MODEL; \
                 to install this one: ollama pull {word}",
                SUBCOMMANDS.join(", ")
            ))
        }
    }
}

/// Whether `word`, which the server has no model by, is the first word of the message
/// rather than a model: `cat notes | ollm-tui summarize`, `ollm-tui --resume ID continue`.
/// A model's name has a digit, a tag, a namespace, a dot or an underscore (`llama3.2`,
/// `qwen:7b`, `me/x`), or is a near miss of an installed one (a typo, said as one); a near
/// miss of a subcommand is a typo too. A plain word is language.
pub fn reads_as_prompt(word: &str, installed: &[String]) -> bool {
    let plain = word
        .chars()
        .all(|c| c.is_alphabetic() || c == '\'' || c == '-');
    let near_model = installed.iter().any(|m| {
        let base = m.split([':', '/']).find(|p| !p.is_empty()).unwrap_or(m);
        let letters: String = base.chars().take_while(|c| c.is_alphabetic()).collect();
        let word = word.to_lowercase();
        edits(&word, &base.to_lowercase()) <= 2 || edits(&word, &letters.to_lowercase()) <= 1
    });
    plain && !near_model && nearest_subcommand(word).is_none()
}

/// The subcommand `word` is a near miss of: at most two edits away (one for a name of
/// four letters: two from `help` are `hello` and `self`), or the start of one.
fn nearest_subcommand(word: &str) -> Option<&'static str> {
    let word = word.to_lowercase();
    SUBCOMMANDS
        .iter()
        .map(|s| (edits(&word, s), *s))
        .filter(|(d, s)| {
            *d <= if s.len() <= 4 { 1 } else { 2 }
                || (word.len() >= 3 && s.starts_with(word.as_str()))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, s)| s)
}

/// Levenshtein distance, by characters.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_of_a_subcommand_is_named() {
        assert_eq!(nearest_subcommand("sesions"), Some("sessions"));
        assert_eq!(nearest_subcommand("serch"), Some("search"));
        assert_eq!(nearest_subcommand("exp"), Some("export"));
        assert_eq!(nearest_subcommand("halp"), Some("help"));
        assert_eq!(nearest_subcommand("hello"), None);
        assert_eq!(nearest_subcommand("llama3.2"), None);
        assert_eq!(nearest_subcommand("qwen2.5-coder:0.5b"), None);
    }

    #[test]
    fn a_plain_word_no_model_is_called_by_starts_the_message() {
        let installed = vec!["llama3.2:3b".to_string(), "mistral:7b".to_string()];
        for word in [
            "summarize",
            "continue",
            "explain",
            "résume",
            "don't",
            "hello",
            "self",
        ] {
            assert!(reads_as_prompt(word, &installed), "{word}");
        }
        // Names of models, typos of installed ones or of subcommands stay what they were.
        for word in [
            "llama3", "qwen:7b", "me/model", "lama", "mistrl", "sesions", "phi_3",
        ] {
            assert!(!reads_as_prompt(word, &installed), "{word}");
        }
    }

    #[test]
    fn an_installed_model_or_an_unknown_server_goes_on() {
        assert_eq!(refusal("llama3.2", &Verdict::Installed), None);
        assert_eq!(refusal("llama3.2", &Verdict::Unknown), None);
        let said = refusal("all-minilm", &Verdict::EmbeddingOnly).unwrap_or_default();
        assert!(said.contains("embeddings only"), "{said}");
        let said = refusal("sesions", &Verdict::Unknown).unwrap_or_default();
        assert!(
            said.contains("ollm-tui sessions") && said.contains("-m"),
            "{said}"
        );
        let said = refusal(
            "lama3",
            &Verdict::Missing {
                installed: vec!["llama3.2:3b".into()],
            },
        )
        .unwrap_or_default();
        assert!(
            said.contains("llama3.2:3b") && said.contains("-m MODEL"),
            "{said}"
        );
    }
}
