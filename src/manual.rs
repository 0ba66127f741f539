//! The manual: the README's long sections, kept as Markdown in `assets/manual/` and built
//! into the binary, so the whole text is one command away and offline — `ollm-tui help
//! TOPIC` prints a topic, `/help TOPIC` shows it in the app. This module only holds the
//! topics and finds one by what the person typed; printing and showing are the callers'.

/// One part of the manual.
#[derive(Debug, PartialEq, Eq)]
pub struct Topic {
    /// What `help NAME` takes; also the file's name in `assets/manual/`.
    pub name: &'static str,
    /// Other words people reach for (`config`, `approval`), found as the name is.
    pub aliases: &'static [&'static str],
    /// One line for the list of topics.
    pub summary: &'static str,
    /// The Markdown text; its first line is the title (`# …`).
    pub text: &'static str,
}

impl Topic {
    /// The title: the text's first heading without its `#`.
    pub fn title(&self) -> &'static str {
        let first = self.text.lines().next().unwrap_or_default();
        first.trim_start_matches('#').trim()
    }

    /// The text under the title, for a popup whose frame already says it.
    pub fn body(&self) -> &'static str {
        self.text
            .split_once('\n')
            .map_or("", |(_, rest)| rest.trim_start_matches('\n'))
    }
}

/// Every topic, in the order the list shows them: the first hour first. A tidy test keeps
/// this list and the files in `assets/manual/` one to one.
pub const TOPICS: &[Topic] = &[
    Topic {
        name: "keys",
        aliases: &["commands", "bindings", "copy", "paste", "goals"],
        summary: "every key and every /command; typing ahead, pasting, copying; the goal board",
        text: include_str!("../assets/manual/keys.md"),
    },
    Topic {
        name: "screen",
        aliases: &["status", "badge", "gauge", "transcript"],
        summary: "the status line part by part (the gauge, the facts badge), message numbers",
        text: include_str!("../assets/manual/screen.md"),
    },
    Topic {
        name: "cli",
        aliases: &["usage", "command-line", "pipe", "prompt", "resume"],
        summary: "ollm-tui's flags and subcommands: one message without the TUI, --resume, search",
        text: include_str!("../assets/manual/cli.md"),
    },
    Topic {
        name: "sessions",
        aliases: &["data", "files", "trash", "fork", "disk"],
        summary: "the session browser, /new and /fork; the data files, the trash, a full disk",
        text: include_str!("../assets/manual/sessions.md"),
    },
    Topic {
        name: "tools",
        aliases: &["approval", "mcp", "results"],
        summary: "what the model may run, the approval dialog, large results, MCP servers",
        text: include_str!("../assets/manual/tools.md"),
    },
    Topic {
        name: "compression",
        aliases: &["context", "fold", "ledger", "recall", "budget"],
        summary: "how the context is managed: folds, the fact ledger, summaries, recall",
        text: include_str!("../assets/manual/compression.md"),
    },
    Topic {
        name: "models",
        aliases: &["server", "ollama", "pull", "thinking", "think"],
        summary: "a missing server or model, /pull, thinking models, replies that never end",
        text: include_str!("../assets/manual/models.md"),
    },
    Topic {
        name: "configuration",
        aliases: &["config", "settings", "themes", "prompts"],
        summary: "config.toml key by key, themes, prompts",
        text: include_str!("../assets/manual/configuration.md"),
    },
    Topic {
        name: "development",
        aliases: &["dev", "tests", "build", "measurements"],
        summary: "building and testing, the code's layout, dependencies, measurements",
        text: include_str!("../assets/manual/development.md"),
    },
];

/// Why nothing was found for what the person typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotFound {
    /// No topic by that name; `near` is one a typo away, if any.
    Unknown {
        asked: String,
        near: Option<&'static str>,
    },
    /// The start of several topics' names.
    Ambiguous {
        asked: String,
        candidates: Vec<&'static str>,
    },
}

impl std::fmt::Display for NotFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotFound::Unknown { asked, near } => {
                write!(f, "no manual topic {asked:?}")?;
                if let Some(near) = near {
                    write!(f, " (did you mean {near}?)")?;
                }
                write!(f, "; the topics: {}", names().join(", "))
            }
            NotFound::Ambiguous { asked, candidates } => write!(
                f,
                "{asked:?} could be {}: type more of it",
                or_list(candidates)
            ),
        }
    }
}

impl std::error::Error for NotFound {}

/// The topics' names, in order.
pub fn names() -> Vec<&'static str> {
    TOPICS.iter().map(|t| t.name).collect()
}

/// `a, b or c`.
fn or_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The topic `asked` names, forgivingly: any case, a name or an alias, or the unique
/// start of one (`comp` is compression). A name or alias typed whole wins over being the
/// start of another (`prompt` is cli, though it starts `prompts`, configuration), and the
/// start of names over the start of aliases (`c` could be cli, compression or
/// configuration, not also keys for its alias `commands`).
pub fn find(asked: &str) -> Result<&'static Topic, NotFound> {
    let lower = asked.trim().to_lowercase();
    let word = lower.as_str();
    let words = |t: &'static Topic| std::iter::once(t.name).chain(t.aliases.iter().copied());
    if let Some(t) = TOPICS.iter().find(|t| words(t).any(|w| w == word)) {
        return Ok(t);
    }
    let starting = |of: &dyn Fn(&'static Topic) -> bool| -> Vec<&'static Topic> {
        TOPICS
            .iter()
            .filter(|t| !word.is_empty() && of(t))
            .collect()
    };
    let mut started = starting(&|t| t.name.starts_with(word));
    if started.is_empty() {
        started = starting(&|t| t.aliases.iter().any(|a| a.starts_with(word)));
    }
    match started.as_slice() {
        [one] => Ok(one),
        [] => Err(NotFound::Unknown {
            asked: asked.trim().to_string(),
            near: near(word),
        }),
        several => Err(NotFound::Ambiguous {
            asked: asked.trim().to_string(),
            candidates: several.iter().map(|t| t.name).collect(),
        }),
    }
}

/// The topic `word` is a typo of: one edit from a short name or alias (`nope` is two from
/// `copy`, and no typo of it), two from a longer one.
fn near(word: &str) -> Option<&'static str> {
    TOPICS
        .iter()
        .flat_map(|t| {
            std::iter::once(t.name)
                .chain(t.aliases.iter().copied())
                .map(move |w| (w, t.name))
        })
        .map(|(w, name)| (strsim::damerau_levenshtein(word, w), w, name))
        .filter(|(d, w, _)| *d <= if w.len().min(word.len()) <= 4 { 1 } else { 2 })
        .min_by_key(|(d, _, _)| *d)
        .map(|(_, _, name)| name)
}

/// The list `ollm-tui help` prints: each topic's name and summary, aligned.
pub fn listing() -> String {
    let width = TOPICS.iter().map(|t| t.name.len()).max().unwrap_or(0);
    TOPICS
        .iter()
        .map(|t| format!("  {:width$}  {}\n", t.name, t.summary))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn name(asked: &str) -> &'static str {
        find(asked).unwrap().name
    }

    #[test]
    fn a_topic_is_found_by_name_alias_or_unique_start_in_any_case() {
        assert_eq!(name("tools"), "tools");
        assert_eq!(name("Compression"), "compression");
        assert_eq!(name("comp"), "compression");
        assert_eq!(name("conf"), "configuration");
        assert_eq!(name("config"), "configuration");
        assert_eq!(name("approval"), "tools");
        assert_eq!(name("data"), "sessions");
        assert_eq!(name("thinking"), "models");
        assert_eq!(name("  DEV "), "development");
        assert_eq!(name("prompt"), "cli");
        assert_eq!(name("prompts"), "configuration");
    }

    #[test]
    fn the_start_of_several_names_asks_for_more() {
        let candidates = |asked| match find(asked) {
            Err(NotFound::Ambiguous { candidates, .. }) => candidates,
            other => panic!("{asked} is ambiguous: {other:?}"),
        };
        assert_eq!(candidates("co"), ["compression", "configuration"]);
        // No name starts so: the aliases are looked at (commands, command-line).
        assert_eq!(candidates("comm"), ["keys", "cli"]);
        let said = find("c").unwrap_err().to_string();
        assert_eq!(
            said,
            "\"c\" could be cli, compression or configuration: type more of it"
        );
    }

    #[test]
    fn an_unknown_topic_names_every_topic_and_a_near_one() {
        let said = find("nope").unwrap_err().to_string();
        assert!(said.contains("no manual topic \"nope\""), "{said}");
        for topic in TOPICS {
            assert!(said.contains(topic.name), "{said}");
        }
        let said = find("tols").unwrap_err().to_string();
        assert!(said.contains("did you mean tools?"), "{said}");
        assert_eq!(
            find("nope"),
            Err(NotFound::Unknown {
                asked: "nope".into(),
                near: None
            }),
            "two edits from copy is no typo of it"
        );
        assert!(matches!(
            find(""),
            Err(NotFound::Unknown { near: None, .. })
        ));
    }

    #[test]
    fn every_topic_has_a_title_and_no_word_names_two_topics() {
        let mut seen = std::collections::BTreeSet::new();
        for topic in TOPICS {
            assert!(topic.text.starts_with("# "), "{} has no title", topic.name);
            assert!(!topic.title().is_empty());
            for word in std::iter::once(topic.name).chain(topic.aliases.iter().copied()) {
                assert_eq!(word, word.to_lowercase());
                assert!(seen.insert(word), "{word} names two topics");
            }
        }
        let listed = listing();
        assert_eq!(listed.lines().count(), TOPICS.len());
    }
}
