//! The prompts of the engine, kept as data in `assets/prompts/prompts.toml`.
//!
//! Strategy: the built-in file is embedded and parsed once; a user file with the same
//! layout may override any key (partial files are fine). Templates use `{name}`
//! placeholders filled in one pass, so text substituted in (a transcript that happens to
//! contain `{cap_words}`) is never expanded again.

use crate::core::checkpoint::Level;
use crate::core::mode::Mode;
use serde::Deserialize;
use std::collections::HashMap;

const BUILTIN: &str = include_str!("../../assets/prompts/prompts.toml");

#[derive(Debug, Clone, Deserialize)]
pub struct ChatPrompts {
    pub base_short: String,
    pub base: String,
    pub markers: String,
    pub goal_header: String,
    pub checkpoints_header: String,
    pub checkpoint_label: String,
    /// Heads the fact ledger under the summaries.
    pub ledger_header: String,
    /// Heads the lines recalled from the log for the message being answered.
    pub recall_header: String,
    /// Stands in the ledger for a folded picture: `{name}`, `{size}`, `{description}`
    /// (the model's answer to the message that carried it).
    pub picture_described: String,
    /// The same for a picture folded before the model answered about it.
    pub picture_undescribed: String,
    /// The line of a picture folded unanswered, once the model has described it when
    /// asked (`describe_picture`): `{name}`, `{size}`, `{description}`.
    pub picture_described_later: String,
    /// What the model is asked, with the picture, when it folded unanswered.
    pub describe_picture: String,
    /// Words that ask about a picture ("the screenshot"), comma-separated: a message that
    /// says one brings the last folded picture back for its turn (`picture_recall`).
    pub picture_words: String,
    pub modes: ModeTexts,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ModeTexts {
    pub assistant: String,
    pub developer: String,
    pub planning: String,
    pub debugger: String,
}

impl ModeTexts {
    pub fn get(&self, mode: Mode) -> &str {
        match mode {
            Mode::Assistant => &self.assistant,
            Mode::Developer => &self.developer,
            Mode::Planning => &self.planning,
            Mode::Debugger => &self.debugger,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct LevelTexts {
    pub detailed: String,
    pub moderate: String,
    pub compact: String,
    pub ancient: String,
}

impl LevelTexts {
    pub fn get(&self, level: Level) -> &str {
        match level {
            Level::Detailed => &self.detailed,
            Level::Moderate => &self.moderate,
            Level::Compact => &self.compact,
            Level::Ancient => &self.ancient,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct SummaryPrompts {
    pub system: String,
    pub user: String,
    pub goal: String,
    pub focus: String,
    pub retry_too_long: String,
    pub reduce: String,
    pub merge: String,
    /// The session's title (`actor/title.rs`).
    pub title: String,
    pub levels: LevelTexts,
    pub modes: ModeTexts,
}

/// All prompts.
#[derive(Debug, Clone, Deserialize)]
pub struct Prompts {
    pub chat: ChatPrompts,
    pub summary: SummaryPrompts,
}

/// A prompt file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("prompt file is not valid TOML: {0}")]
    Syntax(String),
    #[error("prompt file does not have the expected layout: {0}")]
    Layout(String),
}

impl Prompts {
    /// The built-in prompts.
    pub fn builtin() -> Prompts {
        // The embedded file is covered by tests; a parse failure is a build bug.
        Self::parse_merged(None).unwrap_or_else(|e| panic!("built-in prompts: {e}"))
    }

    /// The built-in prompts with the keys of `user_toml` laid over them.
    pub fn with_overrides(user_toml: &str) -> Result<Prompts, PromptError> {
        Self::parse_merged(Some(user_toml))
    }

    fn parse_merged(user_toml: Option<&str>) -> Result<Prompts, PromptError> {
        let mut base: toml::Table =
            toml::from_str(BUILTIN).map_err(|e| PromptError::Syntax(e.to_string()))?;
        if let Some(text) = user_toml {
            let over: toml::Table =
                toml::from_str(text).map_err(|e| PromptError::Syntax(e.to_string()))?;
            merge(&mut base, over);
        }
        toml::Value::Table(base)
            .try_into()
            .map_err(|e: toml::de::Error| PromptError::Layout(e.to_string()))
    }
}

fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// Fill `{name}` placeholders in one pass. Unknown names are left as written.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let map: HashMap<&str, &str> = values.iter().copied().collect();
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close)
                if after[..close]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && close > 0 =>
            {
                let name = &after[..close];
                match map.get(name) {
                    Some(v) => out.push_str(v),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.trim().to_string()
}

/// Words to ask for, given a token cap: models count words better than tokens.
pub fn cap_words(cap_tokens: u32) -> u32 {
    (cap_tokens * 7 / 10).max(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_parses_and_has_every_mode_and_level() {
        let p = Prompts::builtin();
        for m in Mode::ALL {
            assert!(!p.chat.modes.get(m).is_empty());
            assert!(!p.summary.modes.get(m).is_empty());
        }
        for l in [
            Level::Detailed,
            Level::Moderate,
            Level::Compact,
            Level::Ancient,
        ] {
            assert!(!p.summary.levels.get(l).is_empty());
        }
        // The summary job is stated in the system message (small models refuse otherwise).
        assert!(p.summary.system.contains("never refuse"));
    }

    #[test]
    fn fill_substitutes_once() {
        let t = "a {x} b {y} c {unknown} d {}";
        assert_eq!(
            fill(t, &[("x", "{y}"), ("y", "Y")]),
            "a {y} b Y c {unknown} d {}"
        );
        assert_eq!(fill("{ not a name }", &[]), "{ not a name }");
    }

    #[test]
    fn user_overrides_merge_over_builtin() {
        let p = Prompts::with_overrides("[summary.modes]\ndeveloper = \"CODE!\"\n").expect("ok");
        assert_eq!(p.summary.modes.developer, "CODE!");
        assert_eq!(
            p.summary.modes.planning,
            Prompts::builtin().summary.modes.planning
        );
        assert!(Prompts::with_overrides("[summary\n").is_err());
        assert!(matches!(
            Prompts::with_overrides("summary = 3"),
            Err(PromptError::Layout(_))
        ));
    }
}
