//! Slash commands typed in the input box; each mirrors a key or edits the goal board.
//!
//! `//text` sends `/text` as a message. A command that cannot be read returns its usage,
//! which the app shows instead of sending anything.

use super::keymap::Action;
use crate::core::goals::{ArtifactAction, GoalChange, GoalStatus, Priority, StepStatus};
use crate::core::message::MessageId;
use crate::core::mode::Mode;

#[derive(Debug, Clone, PartialEq)]
pub enum Slash {
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
    Panel,
    Retry,
    Help,
    Quit,
}

/// The commands, what they do, and the key that does the same (named in the help as
/// the key actually bound, which the config may have changed).
pub const HELP: &[(&str, &str, Option<Action>)] = &[
    (
        "/snapshot [label]",
        "save a snapshot",
        Some(Action::Snapshot),
    ),
    (
        "/restore [id]",
        "restore a snapshot; without an id, pick one",
        Some(Action::Restore),
    ),
    (
        "/compress [focus]",
        "compress now, optionally keeping a topic in focus",
        Some(Action::Compress),
    ),
    (
        "/goal TEXT",
        "set the goal (high priority: /goal! TEXT)",
        None,
    ),
    (
        "/goal done | pause | clear",
        "complete, pause or clear the goal",
        None,
    ),
    (
        "/step TEXT [done|doing]",
        "add or update a goal checkpoint",
        None,
    ),
    (
        "/decision TEXT [--lock]",
        "record a decision, optionally locked",
        None,
    ),
    (
        "/lock N  /unlock N  /forget N",
        "lock, unlock or delete decision N",
        None,
    ),
    (
        "/artifact created|modified|deleted PATH",
        "record a file",
        None,
    ),
    ("/next TEXT", "record a next step", None),
    (
        "/pin [N]  /unpin [N]",
        "never fold message N, the #N in its header (default: the last reply)",
        None,
    ),
    (
        "/inspect [N]",
        "show checkpoint N beside the messages it covers",
        None,
    ),
    (
        "/model [NAME]",
        "switch model; without a name, pick one",
        Some(Action::Models),
    ),
    ("/ctx N | auto", "context size sent to Ollama", None),
    (
        "/mode assistant|developer|planning|debugger",
        "what summaries keep",
        None,
    ),
    ("/export [md|json]", "write the session to a file", None),
    ("/goals", "show/hide the goal panel", Some(Action::Goals)),
    ("/retry", "send the last message again after an error", None),
    ("/help  /quit", "help; quit", None),
];

fn rest(arg: &str) -> Option<String> {
    let t = arg.trim();
    (!t.is_empty()).then(|| t.to_string())
}

fn message_id(arg: &str) -> Result<Option<MessageId>, String> {
    let t = arg.trim().trim_start_matches('#');
    if t.is_empty() {
        return Ok(None);
    }
    t.parse::<u64>()
        .map(|n| Some(MessageId(n)))
        .map_err(|_| format!("{arg:?} is not a message number"))
}

fn number(arg: &str, usage: &str) -> Result<u32, String> {
    arg.trim()
        .trim_start_matches('#')
        .parse::<u32>()
        .map_err(|_| format!("usage: {usage}"))
}

/// `None` when `input` is not a command (including `//escaped` text).
pub fn parse(input: &str) -> Option<Result<Slash, String>> {
    let t = input.trim();
    let body = t.strip_prefix('/')?;
    if body.starts_with('/') || body.is_empty() {
        return None;
    }
    let (cmd, arg) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    Some(parse_command(&cmd.to_ascii_lowercase(), arg))
}

fn parse_command(cmd: &str, arg: &str) -> Result<Slash, String> {
    let goal = |c: GoalChange| Ok(Slash::Goal(c));
    match cmd {
        "snapshot" | "snap" | "save" => Ok(Slash::Snapshot(rest(arg))),
        "restore" => Ok(Slash::Restore(rest(arg))),
        "compress" => Ok(Slash::Compress(rest(arg))),
        "goal" | "goal!" => match arg.trim().to_ascii_lowercase().as_str() {
            "" => Ok(Slash::Panel),
            "done" | "complete" | "completed" => goal(GoalChange::GoalStatus {
                status: GoalStatus::Completed,
            }),
            "pause" | "paused" => goal(GoalChange::GoalStatus {
                status: GoalStatus::Paused,
            }),
            "resume" | "active" => goal(GoalChange::GoalStatus {
                status: GoalStatus::Active,
            }),
            "clear" => goal(GoalChange::Clear),
            _ => goal(GoalChange::SetGoal {
                description: arg.trim().to_string(),
                priority: if cmd == "goal!" {
                    Priority::High
                } else {
                    Priority::Medium
                },
            }),
        },
        "goals" | "panel" => Ok(Slash::Panel),
        "step" | "checkpoint" => {
            let t = arg.trim();
            let (text, status) = match t.rsplit_once(char::is_whitespace) {
                Some((head, tail)) => match tail.to_ascii_lowercase().as_str() {
                    "done" | "completed" => (head, StepStatus::Completed),
                    "doing" | "wip" | "in-progress" => (head, StepStatus::InProgress),
                    "todo" | "pending" => (head, StepStatus::Pending),
                    _ => (t, StepStatus::Pending),
                },
                None => (t, StepStatus::Pending),
            };
            if text.is_empty() {
                return Err("usage: /step TEXT [done|doing|todo]".into());
            }
            goal(GoalChange::Checkpoint {
                description: text.to_string(),
                status,
            })
        }
        "decision" | "decide" => {
            let mut text = arg.trim().to_string();
            let locked = ["--lock", "--locked"].iter().any(|flag| {
                if let Some(stripped) = text.strip_suffix(flag) {
                    text = stripped.trim().to_string();
                    true
                } else {
                    false
                }
            });
            if text.is_empty() {
                return Err("usage: /decision TEXT [--lock]".into());
            }
            goal(GoalChange::Decision { text, locked })
        }
        "lock" => goal(GoalChange::Lock {
            id: number(arg, "/lock N")?,
        }),
        "unlock" => goal(GoalChange::Unlock {
            id: number(arg, "/unlock N")?,
        }),
        "forget" | "undecide" => goal(GoalChange::DeleteDecision {
            id: number(arg, "/forget N")?,
        }),
        "artifact" => {
            let usage = "usage: /artifact created|modified|deleted PATH";
            let (verb, path) = arg.trim().split_once(char::is_whitespace).ok_or(usage)?;
            let action = match verb.to_ascii_lowercase().as_str() {
                "created" | "create" | "new" => ArtifactAction::Created,
                "modified" | "modify" | "changed" => ArtifactAction::Modified,
                "deleted" | "delete" | "removed" => ArtifactAction::Deleted,
                _ => return Err(usage.into()),
            };
            goal(GoalChange::Artifact {
                action,
                path: path.trim().to_string(),
            })
        }
        "next" => match rest(arg) {
            Some(text) => goal(GoalChange::Next { text }),
            None => Err("usage: /next TEXT".into()),
        },
        "pin" => Ok(Slash::Pin(message_id(arg)?)),
        "unpin" => Ok(Slash::Unpin(message_id(arg)?)),
        "inspect" => Ok(Slash::Inspect(match rest(arg) {
            Some(_) => Some(number(arg, "/inspect [N]")?),
            None => None,
        })),
        "model" | "models" => Ok(Slash::Model(rest(arg))),
        "ctx" | "context" => match arg.trim().to_ascii_lowercase().as_str() {
            "auto" | "default" | "0" => Ok(Slash::Ctx(None)),
            n => {
                let v: u32 = n
                    .replace(['_', ','], "")
                    .trim_end_matches('k')
                    .parse::<u32>()
                    .map(|v| if n.ends_with('k') { v * 1024 } else { v })
                    .map_err(|_| "usage: /ctx N (e.g. 8192 or 16k) or /ctx auto".to_string())?;
                if !(512..=1_048_576).contains(&v) {
                    return Err("the context size must be between 512 and 1048576".into());
                }
                Ok(Slash::Ctx(Some(v)))
            }
        },
        "mode" => arg
            .trim()
            .parse::<Mode>()
            .map(Slash::Mode)
            .map_err(|e| e.to_string()),
        "export" => match arg.trim().to_ascii_lowercase().as_str() {
            "" | "md" | "markdown" => Ok(Slash::Export { json: false }),
            "json" => Ok(Slash::Export { json: true }),
            _ => Err("usage: /export [md|json]".into()),
        },
        "retry" => Ok(Slash::Retry),
        "help" | "?" => Ok(Slash::Help),
        "quit" | "exit" | "q" => Ok(Slash::Quit),
        other => Err(match suggestion(other) {
            Some(name) => format!(
                "unknown command /{other}: did you mean /{name}? (type //{other} to send it as text)"
            ),
            None => format!(
                "unknown command /{other}; /help lists them (type //{other} to send it as text)"
            ),
        }),
    }
}

/// Every command name `parse` accepts, for suggestions.
const NAMES: &[&str] = &[
    "snapshot", "restore", "compress", "goal", "goals", "step", "decision", "lock", "unlock",
    "forget", "artifact", "next", "pin", "unpin", "inspect", "model", "ctx", "mode", "export",
    "retry", "help", "quit",
];

/// The closest command name to a mistyped one: at most two edits away (one for short
/// names, so "/q" or "/x" are not taken for something else).
fn suggestion(typed: &str) -> Option<&'static str> {
    let limit = if typed.chars().count() <= 3 { 1 } else { 2 };
    NAMES
        .iter()
        .map(|n| (strsim::damerau_levenshtein(typed, n), *n))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_mistyped_command_gets_the_closest_name() {
        let err = |s: &str| parse(s).unwrap().unwrap_err();
        assert!(err("/snapshto").contains("did you mean /snapshot?"));
        assert!(err("/resotre x").contains("did you mean /restore?"));
        assert!(err("/unpni 3").contains("did you mean /unpin?"));
        // Nothing close: the general pointer.
        let far = err("/frobnicate");
        assert!(far.contains("/help lists them") && !far.contains("did you mean"));
        // Every suggested name is one `parse` accepts.
        for name in NAMES {
            assert!(
                !parse(&format!("/{name} 1"))
                    .unwrap()
                    .is_err_and(|e| e.contains("unknown command")),
                "/{name}"
            );
        }
    }

    fn ok(s: &str) -> Slash {
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
    fn goal_board_commands() {
        assert_eq!(
            ok("/goal Ship the parser"),
            Slash::Goal(GoalChange::SetGoal {
                description: "Ship the parser".into(),
                priority: Priority::Medium
            })
        );
        assert!(matches!(
            ok("/goal! Urgent"),
            Slash::Goal(GoalChange::SetGoal {
                priority: Priority::High,
                ..
            })
        ));
        assert_eq!(
            ok("/goal done"),
            Slash::Goal(GoalChange::GoalStatus {
                status: GoalStatus::Completed
            })
        );
        assert_eq!(
            ok("/decision Use Postgres 16 --lock"),
            Slash::Goal(GoalChange::Decision {
                text: "Use Postgres 16".into(),
                locked: true
            })
        );
        assert_eq!(ok("/unlock 2"), Slash::Goal(GoalChange::Unlock { id: 2 }));
        assert_eq!(
            ok("/step Write tests doing"),
            Slash::Goal(GoalChange::Checkpoint {
                description: "Write tests".into(),
                status: StepStatus::InProgress
            })
        );
        assert_eq!(
            ok("/artifact created src/a.rs"),
            Slash::Goal(GoalChange::Artifact {
                action: ArtifactAction::Created,
                path: "src/a.rs".into()
            })
        );
        assert!(parse("/unlock x").unwrap().is_err());
        assert!(parse("/decision --lock").unwrap().is_err());
    }

    #[test]
    fn settings_and_actions() {
        assert_eq!(ok("/ctx 16k"), Slash::Ctx(Some(16384)));
        assert_eq!(ok("/ctx 8,192"), Slash::Ctx(Some(8192)));
        assert_eq!(ok("/ctx auto"), Slash::Ctx(None));
        assert!(parse("/ctx 12").unwrap().is_err());
        assert_eq!(ok("/mode developer"), Slash::Mode(Mode::Developer));
        assert!(parse("/mode poet").unwrap().is_err());
        assert_eq!(
            ok("/model qwen2.5:0.5b"),
            Slash::Model(Some("qwen2.5:0.5b".into()))
        );
        assert_eq!(ok("/model"), Slash::Model(None));
        assert_eq!(
            ok("/compress the schema"),
            Slash::Compress(Some("the schema".into()))
        );
        assert_eq!(ok("/pin #12"), Slash::Pin(Some(MessageId(12))));
        assert_eq!(ok("/pin"), Slash::Pin(None));
        assert_eq!(ok("/export json"), Slash::Export { json: true });
        assert_eq!(ok("/RETRY"), Slash::Retry);
        let e = parse("/frobnicate").unwrap().unwrap_err();
        assert!(e.contains("/help") && e.contains("//frobnicate"), "{e}");
    }
}
