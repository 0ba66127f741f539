//! Slash commands typed in the input box: one registry, [`COMMANDS`], that the help
//! overlay, the suggestions ("did you mean /snapshot?"), parsing and dispatch all read.
//!
//! Adding a command is one entry here (name, aliases, usage, what it does, the key that
//! does the same, its parser) and, for a new [`Intent`], one arm in `dispatch.rs`.
//! `//text` sends `/text` as a message. A command that cannot be read returns its usage,
//! which the app shows instead of sending anything.

mod args;
mod dispatch;

use super::keymap::Action;
use crate::core::goals::{GoalChange, GoalStatus, Priority};
use crate::core::message::MessageId;
use crate::core::mode::Mode;
use args::{artifact, ctx, decision, message_id, number, rest, step};

/// What a slash command asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    Snapshot(Option<String>),
    /// Without an id: the picker.
    Restore(Option<String>),
    Compress(Option<String>),
    Goal(GoalChange),
    Pin(Option<MessageId>),
    Unpin(Option<MessageId>),
    /// Without a name: the picker.
    Model(Option<String>),
    /// `None` = the model's own size.
    Ctx(Option<u32>),
    Mode(Mode),
    Export {
        json: bool,
    },
    Inspect(Option<u32>),
    /// `/inspect #N`: tool result N beside its whole original.
    InspectResult(MessageId),
    Panel,
    /// Unfold (or fold again) tool calls and reasoning.
    Details,
    /// `None`: the model's default.
    Think(Option<crate::llm::Think>),
    Retry,
    /// The task is finished: its tool calls and results leave the context.
    Done,
    /// The session browser.
    Sessions,
    /// Search every session for the text.
    Search(String),
    /// A new session from this one's messages up to N (the last by default).
    Fork(Option<MessageId>),
    Help,
    Quit,
}

/// One slash command.
pub struct SlashCommand {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    /// As the help shows it: "/snapshot \[label\]".
    pub usage: &'static str,
    pub help: &'static str,
    /// The key that does the same, named in the help as the keymap binds it.
    pub key: Option<Action>,
    /// Reads the argument; `typed` is the name as typed (an alias may mean something).
    pub parse: fn(typed: &str, arg: &str) -> Result<Intent, String>,
}

/// Every command, in the order the help lists them.
pub static COMMANDS: &[SlashCommand] = &[
    SlashCommand {
        name: "snapshot",
        aliases: &["snap", "save"],
        usage: "/snapshot [label]",
        help: "save a snapshot",
        key: Some(Action::Snapshot),
        parse: |_, arg| Ok(Intent::Snapshot(rest(arg))),
    },
    SlashCommand {
        name: "restore",
        aliases: &[],
        usage: "/restore [id]",
        help: "restore a snapshot; without an id, pick one",
        key: Some(Action::Restore),
        parse: |_, arg| Ok(Intent::Restore(rest(arg))),
    },
    SlashCommand {
        name: "compress",
        aliases: &[],
        usage: "/compress [focus]",
        help: "compress now, optionally keeping a topic in focus",
        key: Some(Action::Compress),
        parse: |_, arg| Ok(Intent::Compress(rest(arg))),
    },
    SlashCommand {
        name: "goal",
        aliases: &["goal!"],
        usage: "/goal TEXT | done | pause | resume | clear",
        help: "set the goal (/goal! TEXT: high priority), or complete, pause, resume or clear it",
        key: None,
        parse: goal,
    },
    SlashCommand {
        name: "step",
        aliases: &["checkpoint"],
        usage: "/step TEXT [done|doing]",
        help: "add or update a goal checkpoint",
        key: None,
        parse: |_, arg| step(arg).map(Intent::Goal),
    },
    SlashCommand {
        name: "decision",
        aliases: &["decide"],
        usage: "/decision TEXT [--lock]",
        help: "record a decision, optionally locked",
        key: None,
        parse: |_, arg| decision(arg).map(Intent::Goal),
    },
    SlashCommand {
        name: "lock",
        aliases: &[],
        usage: "/lock N",
        help: "lock decision N",
        key: None,
        parse: |_, arg| {
            let id = number(arg, "/lock N")?;
            Ok(Intent::Goal(GoalChange::Lock { id }))
        },
    },
    SlashCommand {
        name: "unlock",
        aliases: &[],
        usage: "/unlock N",
        help: "unlock decision N (only you can)",
        key: None,
        parse: |_, arg| {
            let id = number(arg, "/unlock N")?;
            Ok(Intent::Goal(GoalChange::Unlock { id }))
        },
    },
    SlashCommand {
        name: "forget",
        aliases: &["undecide"],
        usage: "/forget N",
        help: "delete decision N",
        key: None,
        parse: |_, arg| {
            let id = number(arg, "/forget N")?;
            Ok(Intent::Goal(GoalChange::DeleteDecision { id }))
        },
    },
    SlashCommand {
        name: "artifact",
        aliases: &[],
        usage: "/artifact created|modified|deleted PATH",
        help: "record a file",
        key: None,
        parse: |_, arg| artifact(arg).map(Intent::Goal),
    },
    SlashCommand {
        name: "next",
        aliases: &[],
        usage: "/next TEXT",
        help: "record a next step",
        key: None,
        parse: |_, arg| match rest(arg) {
            Some(text) => Ok(Intent::Goal(GoalChange::Next { text })),
            None => Err("usage: /next TEXT".into()),
        },
    },
    SlashCommand {
        name: "pin",
        aliases: &[],
        usage: "/pin [N]",
        help: "never fold message N, the #N in its header (default: the last reply)",
        key: None,
        parse: |_, arg| message_id(arg).map(Intent::Pin),
    },
    SlashCommand {
        name: "unpin",
        aliases: &[],
        usage: "/unpin [N]",
        help: "let message N be folded again (default: the last reply)",
        key: None,
        parse: |_, arg| message_id(arg).map(Intent::Unpin),
    },
    SlashCommand {
        name: "inspect",
        aliases: &[],
        usage: "/inspect [N|#N]",
        help: "show checkpoint N beside the messages it covers; #N: tool result N beside its whole original",
        key: None,
        parse: |_, arg| match rest(arg) {
            Some(a) if a.starts_with('#') => number(&a[1..], "/inspect #N")
                .map(|n| Intent::InspectResult(MessageId(u64::from(n)))),
            Some(_) => number(arg, "/inspect [N|#N]").map(|n| Intent::Inspect(Some(n))),
            None => Ok(Intent::Inspect(None)),
        },
    },
    SlashCommand {
        name: "model",
        aliases: &["models"],
        usage: "/model [NAME]",
        help: "switch model; without a name, pick one",
        key: Some(Action::Models),
        parse: |_, arg| Ok(Intent::Model(rest(arg))),
    },
    SlashCommand {
        name: "ctx",
        aliases: &["context"],
        usage: "/ctx N | auto",
        help: "context size sent to Ollama",
        key: None,
        parse: |_, arg| ctx(arg).map(Intent::Ctx),
    },
    SlashCommand {
        name: "mode",
        aliases: &[],
        usage: "/mode assistant|developer|planning|debugger",
        help: "what summaries keep",
        key: None,
        parse: |_, arg| {
            arg.trim()
                .parse::<Mode>()
                .map(Intent::Mode)
                .map_err(|e| e.to_string())
        },
    },
    SlashCommand {
        name: "export",
        aliases: &[],
        usage: "/export [md|json]",
        help: "write the session to a file",
        key: None,
        parse: |_, arg| match arg.trim().to_ascii_lowercase().as_str() {
            "" | "md" | "markdown" => Ok(Intent::Export { json: false }),
            "json" => Ok(Intent::Export { json: true }),
            _ => Err("usage: /export [md|json]".into()),
        },
    },
    SlashCommand {
        name: "goals",
        aliases: &["panel"],
        usage: "/goals",
        help: "show/hide the goal panel",
        key: Some(Action::Goals),
        parse: |_, _| Ok(Intent::Panel),
    },
    SlashCommand {
        name: "details",
        aliases: &["expand"],
        usage: "/details",
        help: "show/hide tool arguments and results, and the model's reasoning",
        key: Some(Action::Details),
        parse: |_, _| Ok(Intent::Details),
    },
    SlashCommand {
        name: "think",
        aliases: &[],
        usage: "/think [on|off|low|medium|high|default]",
        help: "how much a thinking model reasons before it answers",
        key: None,
        parse: |_, arg| match arg.trim() {
            "" | "default" => Ok(Intent::Think(None)),
            a => crate::llm::Think::parse(a)
                .map(|t| Intent::Think(Some(t)))
                .ok_or_else(|| "usage: /think [on|off|low|medium|high|default]".into()),
        },
    },
    SlashCommand {
        name: "retry",
        aliases: &[],
        usage: "/retry",
        help: "send the last message again after an error",
        key: None,
        parse: |_, _| Ok(Intent::Retry),
    },
    SlashCommand {
        name: "done",
        aliases: &[],
        usage: "/done",
        help: "the task is finished: its tool calls and results leave the context",
        key: None,
        parse: |_, _| Ok(Intent::Done),
    },
    SlashCommand {
        name: "sessions",
        aliases: &["browse", "open"],
        usage: "/sessions",
        help: "browse sessions: filter, open, rename, delete",
        key: Some(Action::Sessions),
        parse: |_, _| Ok(Intent::Sessions),
    },
    SlashCommand {
        name: "search",
        aliases: &["find"],
        usage: "/search TEXT",
        help: "find a text in every session (folded messages too); Enter opens it there",
        key: None,
        parse: |_, arg| {
            rest(arg)
                .map(Intent::Search)
                .ok_or_else(|| "usage: /search TEXT".to_string())
        },
    },
    SlashCommand {
        name: "fork",
        aliases: &["branch"],
        usage: "/fork [N]",
        help: "a new session from this one's messages up to #N (default: all); this one stays as it is",
        key: None,
        parse: |_, arg| message_id(arg).map(Intent::Fork),
    },
    SlashCommand {
        name: "help",
        aliases: &["?"],
        usage: "/help",
        help: "this help",
        key: None,
        parse: |_, _| Ok(Intent::Help),
    },
    SlashCommand {
        name: "quit",
        aliases: &["exit", "q"],
        usage: "/quit",
        help: "quit",
        key: None,
        parse: |_, _| Ok(Intent::Quit),
    },
];

/// `/goal TEXT`, `/goal! TEXT` (high priority), `/goal done|pause|resume|clear`, and a
/// bare `/goal` (the panel).
fn goal(typed: &str, arg: &str) -> Result<Intent, String> {
    let status = |status| Ok(Intent::Goal(GoalChange::GoalStatus { status }));
    match arg.trim().to_ascii_lowercase().as_str() {
        "" => Ok(Intent::Panel),
        "done" | "complete" | "completed" => status(GoalStatus::Completed),
        "pause" | "paused" => status(GoalStatus::Paused),
        "resume" | "active" => status(GoalStatus::Active),
        "clear" => Ok(Intent::Goal(GoalChange::Clear)),
        _ => Ok(Intent::Goal(GoalChange::SetGoal {
            description: arg.trim().to_string(),
            priority: if typed == "goal!" {
                Priority::High
            } else {
                Priority::Medium
            },
        })),
    }
}

/// The command named `typed` (its name or an alias).
fn find(typed: &str) -> Option<&'static SlashCommand> {
    COMMANDS
        .iter()
        .find(|c| c.name == typed || c.aliases.contains(&typed))
}

/// `None` when `input` is not a command (including `//escaped` text).
pub fn parse(input: &str) -> Option<Result<Intent, String>> {
    let t = input.trim();
    let body = t.strip_prefix('/')?;
    if body.starts_with('/') || body.is_empty() {
        return None;
    }
    let (typed, arg) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    let typed = typed.to_ascii_lowercase();
    Some(match find(&typed) {
        Some(c) => (c.parse)(&typed, arg),
        None => Err(match suggestion(&typed) {
            Some(name) => format!(
                "unknown command /{typed}: did you mean /{name}? (type //{typed} to send it as text)"
            ),
            None => format!(
                "unknown command /{typed}; /help lists them (type //{typed} to send it as text)"
            ),
        }),
    })
}

/// The closest command name to a mistyped one: at most two edits away (one for short
/// names, so "/x" is not taken for something else).
fn suggestion(typed: &str) -> Option<&'static str> {
    let limit = if typed.chars().count() <= 3 { 1 } else { 2 };
    COMMANDS
        .iter()
        .map(|c| (strsim::damerau_levenshtein(typed, c.name), c.name))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// The help overlay's rows for the commands: (usage, what it does, the key if bound).
pub fn help_rows(label: impl Fn(Action) -> Option<String>) -> Vec<(String, String)> {
    COMMANDS
        .iter()
        .map(|c| {
            let what = match c.key.and_then(&label) {
                Some(k) => format!("{} ({k})", c.help),
                None => c.help.to_string(),
            };
            (c.usage.to_string(), what)
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::goals::{ArtifactAction, StepStatus};

    #[test]
    fn a_mistyped_command_gets_the_closest_name() {
        let err = |s: &str| parse(s).unwrap().unwrap_err();
        assert!(err("/snapshto").contains("did you mean /snapshot?"));
        assert!(err("/resotre x").contains("did you mean /restore?"));
        assert!(err("/unpni 3").contains("did you mean /unpin?"));
        // Nothing close: the general pointer.
        let far = err("/frobnicate");
        assert!(far.contains("/help lists them") && !far.contains("did you mean"));
        // Every name and alias in the registry is one `parse` accepts.
        for c in COMMANDS {
            for name in std::iter::once(&c.name).chain(c.aliases) {
                assert!(
                    !parse(&format!("/{name} 1"))
                        .unwrap()
                        .is_err_and(|e| e.contains("unknown command")),
                    "/{name}"
                );
            }
        }
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for c in COMMANDS {
            for name in std::iter::once(&c.name).chain(c.aliases) {
                assert!(seen.insert(*name), "/{name} twice");
            }
        }
    }

    fn ok(s: &str) -> Intent {
        parse(s).unwrap().unwrap()
    }

    #[test]
    fn plain_text_and_escapes_are_not_commands() {
        assert!(parse("hello").is_none());
        assert!(parse("//not a command").is_none());
        assert!(parse("/").is_none());
        assert!(parse("a /goal in the middle").is_none());
    }

    #[test]
    fn think_takes_a_level_or_the_default() {
        use crate::llm::Think;
        assert_eq!(ok("/think"), Intent::Think(None));
        assert_eq!(ok("/think default"), Intent::Think(None));
        assert_eq!(ok("/think off"), Intent::Think(Some(Think::Off)));
        assert_eq!(ok("/think HIGH"), Intent::Think(Some(Think::High)));
        assert!(parse("/think lots").unwrap().unwrap_err().contains("usage"));
        assert_eq!(ok("/details"), Intent::Details);
    }

    #[test]
    fn goal_board_commands() {
        assert_eq!(
            ok("/goal Ship the parser"),
            Intent::Goal(GoalChange::SetGoal {
                description: "Ship the parser".into(),
                priority: Priority::Medium
            })
        );
        assert!(matches!(
            ok("/goal! Urgent"),
            Intent::Goal(GoalChange::SetGoal {
                priority: Priority::High,
                ..
            })
        ));
        assert_eq!(
            ok("/goal done"),
            Intent::Goal(GoalChange::GoalStatus {
                status: GoalStatus::Completed
            })
        );
        assert_eq!(ok("/goal"), Intent::Panel);
        assert_eq!(
            ok("/decision Use Postgres 16 --lock"),
            Intent::Goal(GoalChange::Decision {
                text: "Use Postgres 16".into(),
                locked: true
            })
        );
        assert_eq!(ok("/unlock 2"), Intent::Goal(GoalChange::Unlock { id: 2 }));
        assert_eq!(
            ok("/step Write tests doing"),
            Intent::Goal(GoalChange::Checkpoint {
                description: "Write tests".into(),
                status: StepStatus::InProgress
            })
        );
        assert_eq!(
            ok("/artifact created src/a.rs"),
            Intent::Goal(GoalChange::Artifact {
                action: ArtifactAction::Created,
                path: "src/a.rs".into()
            })
        );
        assert!(parse("/unlock x").unwrap().is_err());
        assert!(parse("/decision --lock").unwrap().is_err());
    }

    #[test]
    fn settings_and_actions() {
        assert_eq!(ok("/ctx 16k"), Intent::Ctx(Some(16384)));
        assert_eq!(ok("/ctx 8,192"), Intent::Ctx(Some(8192)));
        assert_eq!(ok("/ctx auto"), Intent::Ctx(None));
        assert!(parse("/ctx 12").unwrap().is_err());
        assert_eq!(ok("/mode developer"), Intent::Mode(Mode::Developer));
        assert!(parse("/mode poet").unwrap().is_err());
        assert_eq!(
            ok("/model qwen2.5:0.5b"),
            Intent::Model(Some("qwen2.5:0.5b".into()))
        );
        assert_eq!(ok("/model"), Intent::Model(None));
        assert_eq!(
            ok("/compress the schema"),
            Intent::Compress(Some("the schema".into()))
        );
        assert_eq!(ok("/pin #12"), Intent::Pin(Some(MessageId(12))));
        assert_eq!(ok("/pin"), Intent::Pin(None));
        assert_eq!(ok("/export json"), Intent::Export { json: true });
        assert_eq!(ok("/RETRY"), Intent::Retry);
        assert_eq!(ok("/inspect #42"), Intent::InspectResult(MessageId(42)));
        assert_eq!(ok("/inspect 3"), Intent::Inspect(Some(3)));
        assert!(parse("/inspect #x").unwrap().is_err());
        assert_eq!(ok("/done"), Intent::Done);
        let e = parse("/frobnicate").unwrap().unwrap_err();
        assert!(e.contains("/help") && e.contains("//frobnicate"), "{e}");
    }

    #[test]
    fn help_rows_name_the_bound_key() {
        let rows = help_rows(|a| (a == Action::Snapshot).then(|| "F5".to_string()));
        let row = |usage: &str| rows.iter().find(|(u, _)| u == usage).unwrap().1.clone();
        assert_eq!(row("/snapshot [label]"), "save a snapshot (F5)");
        assert_eq!(
            row("/restore [id]"),
            "restore a snapshot; without an id, pick one"
        );
        assert_eq!(rows.len(), COMMANDS.len());
    }
}
