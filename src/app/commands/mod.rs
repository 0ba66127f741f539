//! Slash commands typed in the input box: one registry, [`COMMANDS`], that the help
//! overlay, the suggestions ("did you mean /snapshot?"), parsing and the keys bound to
//! commands (`keymap::Does::Command`) all read. Each command parses to an [`Intent`].
//!
//! Adding a command is one entry here (name, aliases, usage, what it does, its parser)
//! plus its handler in the layer that owns it: a parser that makes `Intent::Engine` (the
//! engine's `Request`) or `Intent::Actor` (the actor's `Command`) needs nothing more in
//! the app; one the app handles itself adds an `Intent` variant and its arm in
//! `app::intent`. `//text` sends `/text` as a message. A command that cannot be read
//! returns its usage, which the app shows instead of sending anything.

mod args;
mod image;

use super::closest::closest;
use super::intent::Intent;
use crate::actor::{Ask, Command};
use crate::core::engine::Request;
use crate::core::goals::{GoalChange, GoalStatus, Priority};
use crate::core::message::MessageId;
use crate::core::mode::Mode;
use crate::store::export::Format;
use args::{artifact, ctx, decision, facts, message_id, num_ctx, number, rest, set, step, system};

/// One slash command.
pub struct SlashCommand {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    /// As the help shows it: "/snapshot \[label\]".
    pub usage: &'static str,
    pub help: &'static str,
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
        parse: |_, arg| Ok(Intent::Engine(Request::Snapshot { label: rest(arg) })),
    },
    SlashCommand {
        name: "restore",
        aliases: &[],
        usage: "/restore [id]",
        help: "restore a snapshot; without an id, pick one",
        parse: |_, arg| {
            Ok(match rest(arg) {
                Some(id) => Intent::Actor(Command::Restore { id }),
                None => Intent::PickSnapshot,
            })
        },
    },
    SlashCommand {
        name: "compress",
        aliases: &[],
        usage: "/compress [focus]",
        help: "compress now, optionally keeping a topic in focus",
        parse: |_, arg| Ok(Intent::Engine(Request::Compress { focus: rest(arg) })),
    },
    SlashCommand {
        name: "goal",
        aliases: &["goal!"],
        usage: "/goal TEXT | done | pause | resume | clear",
        help: "set the goal (/goal! TEXT: high priority), or complete, pause, resume or clear it",
        parse: goal,
    },
    SlashCommand {
        name: "step",
        aliases: &["checkpoint"],
        usage: "/step TEXT [done|doing]",
        help: "add or update a goal checkpoint",
        parse: |_, arg| step(arg).map(board),
    },
    SlashCommand {
        name: "decision",
        aliases: &["decide"],
        usage: "/decision TEXT [--lock]",
        help: "record a decision, optionally locked",
        parse: |_, arg| decision(arg).map(board),
    },
    SlashCommand {
        name: "lock",
        aliases: &[],
        usage: "/lock N",
        help: "lock decision N",
        parse: |_, arg| {
            let id = number(arg, "/lock N")?;
            Ok(board(GoalChange::Lock { id }))
        },
    },
    SlashCommand {
        name: "unlock",
        aliases: &[],
        usage: "/unlock N",
        help: "unlock decision N (only you can)",
        parse: |_, arg| {
            let id = number(arg, "/unlock N")?;
            Ok(board(GoalChange::Unlock { id }))
        },
    },
    SlashCommand {
        name: "forget",
        aliases: &["undecide"],
        usage: "/forget N",
        help: "delete decision N",
        parse: |_, arg| {
            let id = number(arg, "/forget N")?;
            Ok(board(GoalChange::DeleteDecision { id }))
        },
    },
    SlashCommand {
        name: "artifact",
        aliases: &[],
        usage: "/artifact created|modified|deleted PATH",
        help: "record a file",
        parse: |_, arg| artifact(arg).map(board),
    },
    SlashCommand {
        name: "next",
        aliases: &[],
        usage: "/next TEXT",
        help: "record a next step",
        parse: |_, arg| match rest(arg) {
            Some(text) => Ok(board(GoalChange::Next { text })),
            None => Err("usage: /next TEXT".into()),
        },
    },
    SlashCommand {
        name: "pin",
        aliases: &[],
        usage: "/pin [N]",
        help: "never fold message N, the #N in its header (default: the last reply)",
        parse: |_, arg| message_id(arg).map(|id| Intent::Engine(Request::Pin { id, pinned: true })),
    },
    SlashCommand {
        name: "unpin",
        aliases: &[],
        usage: "/unpin [N]",
        help: "let message N be folded again (default: the last reply)",
        parse: |_, arg| {
            message_id(arg).map(|id| Intent::Engine(Request::Pin { id, pinned: false }))
        },
    },
    SlashCommand {
        name: "facts",
        aliases: &["ledger"],
        usage: "/facts [pin|unpin|forget|keep|edit N [TEXT]]",
        help: "list the facts you stated and whether the model is sent them; pin, forget or reword fact N",
        parse: |_, arg| facts(arg).map(Intent::Facts),
    },
    SlashCommand {
        name: "check",
        aliases: &[],
        usage: "/check",
        help: "ask the model a few questions about facts you stated earlier, with what it is sent now, and grade them",
        parse: |_, _| Ok(Intent::Check),
    },
    SlashCommand {
        name: "inspect",
        aliases: &[],
        usage: "/inspect [N|#N]",
        help: "show checkpoint N beside the messages it covers; #N: tool result N beside its whole original",
        parse: |_, arg| match rest(arg) {
            Some(a) if a.starts_with('#') => number(&a[1..], "/inspect #N")
                .map(|n| Intent::InspectResult(MessageId(u64::from(n)))),
            Some(_) => number(arg, "/inspect [N|#N]").map(|n| Intent::Inspect(Some(n))),
            None => Ok(Intent::Inspect(None)),
        },
    },
    SlashCommand {
        name: "model",
        aliases: &["models", "load"],
        usage: "/model [NAME]",
        help: "switch model; without a name, pick one",
        parse: |_, arg| {
            Ok(match rest(arg) {
                Some(name) => Intent::Actor(Command::SetModel { name }),
                None => Intent::PickModel,
            })
        },
    },
    SlashCommand {
        name: "copy",
        aliases: &["yank"],
        usage: "/copy [code|N]",
        help: "copy the last reply (code: its last code block; N: message #N) to the clipboard, by OSC 52",
        parse: |_, arg| crate::app::copy::parse(arg).map(Intent::Copy),
    },
    SlashCommand {
        name: "theme",
        aliases: &["themes"],
        usage: "/theme [NAME]",
        help: "the colours: alone, a picker that shows the whole screen in each theme as you move (Enter keeps it, Esc goes back); with a NAME, that theme; for this run (theme = \"NAME\" in config.toml keeps it)",
        parse: |_, arg| {
            Ok(match rest(arg) {
                Some(name) => Intent::Theme(name),
                None => Intent::PickTheme,
            })
        },
    },
    SlashCommand {
        name: "mouse",
        aliases: &[],
        usage: "/mouse [on|off]",
        help: "release the mouse to the terminal (select and copy as usual) or capture it again (wheel scrolling)",
        parse: |_, arg| match arg.trim().to_ascii_lowercase().as_str() {
            "" => Ok(Intent::Mouse(None)),
            "on" => Ok(Intent::Mouse(Some(true))),
            "off" => Ok(Intent::Mouse(Some(false))),
            _ => Err("usage: /mouse [on|off]".into()),
        },
    },
    SlashCommand {
        name: "image",
        aliases: &["img"],
        usage: image::USAGE,
        help: "attach a picture to your next message (PNG, JPEG, WebP, GIF; a vision model sees it); clear removes the attached ones. A picture's path in a message attaches it too",
        parse: image::parse,
    },
    SlashCommand {
        name: "pull",
        aliases: &[],
        usage: "/pull [NAME]",
        help: "download a model to the server, with its progress (Esc cancels); without a name, this session's missing model",
        parse: |_, arg| Ok(Intent::Pull(rest(arg))),
    },
    SlashCommand {
        name: "ctx",
        aliases: &["context"],
        usage: "/ctx N | auto",
        help: "context size sent to Ollama",
        parse: |_, arg| ctx(arg).map(|ctx| Intent::Engine(Request::SetCtx { ctx })),
    },
    SlashCommand {
        name: "mode",
        aliases: &[],
        usage: "/mode assistant|developer|planning|debugger",
        help: "what summaries keep",
        parse: |_, arg| {
            arg.trim()
                .parse::<Mode>()
                .map(|mode| Intent::Engine(Request::SetMode { mode }))
                .map_err(|e| e.to_string())
        },
    },
    SlashCommand {
        name: "system",
        aliases: &[],
        usage: "/system [TEXT|clear]",
        help: "this session's system prompt, sent after the app's own instructions; alone: show it",
        parse: |_, arg| Ok(param_intent(system(arg)?)),
    },
    SlashCommand {
        name: "show",
        aliases: &[],
        usage: "/show [info|parameters|system]",
        help: "as in ollama run: info (the model, its context, the mode, what every request carries), parameters and system (as /set alone)",
        parse: |_, arg| match arg.trim().to_ascii_lowercase().as_str() {
            "" | "info" => Ok(Intent::ShowInfo),
            "parameters" | "params" | "system" => Ok(Intent::ShowParams),
            "modelfile" | "template" | "license" => Err(format!(
                "/show {0}: ollm-tui does not fetch it; `ollama show MODEL --{0}` prints it",
                arg.trim().to_ascii_lowercase()
            )),
            _ => Err("usage: /show [info|parameters|system]".to_string()),
        },
    },
    SlashCommand {
        name: "set",
        aliases: &[],
        usage: "/set [NAME VALUE]",
        help: "this session's temperature (0-2), top_p (0-1), seed or num_predict, over the config's; VALUE default resets it; /set system TEXT, /set parameter NAME VALUE, /set verbose (each reply's timing and speed) and /set quiet as in ollama run; alone: list them",
        parse: |_, arg| match num_ctx(arg) {
            // `/set parameter num_ctx 4096` is `ollama run`'s way to say /ctx 4096.
            Some(value) => ctx(value).map(|ctx| Intent::Engine(Request::SetCtx { ctx })),
            None => Ok(param_intent(set(arg)?)),
        },
    },
    SlashCommand {
        name: "export",
        aliases: &[],
        usage: "/export [md|json]",
        help: "write the session to a file",
        parse: |_, arg| match arg.trim().to_ascii_lowercase().as_str() {
            "" | "md" | "markdown" => Ok(Intent::Actor(Command::Ask(Ask::Export {
                format: Format::Markdown(crate::app::words::MARKDOWN),
            }))),
            "json" => Ok(Intent::Actor(Command::Ask(Ask::Export {
                format: Format::Json,
            }))),
            _ => Err("usage: /export [md|json]".into()),
        },
    },
    SlashCommand {
        name: "goals",
        aliases: &["panel"],
        usage: "/goals",
        help: "show/hide the goal panel",
        parse: |_, _| Ok(Intent::Panel),
    },
    SlashCommand {
        name: "details",
        aliases: &["expand"],
        usage: "/details",
        help: "show/hide tool arguments and results, and the model's reasoning",
        parse: |_, _| Ok(Intent::Details),
    },
    SlashCommand {
        name: "think",
        aliases: &[],
        usage: "/think [on|off|low|medium|high|default]",
        help: "how much a thinking model reasons before it answers",
        parse: |_, arg| match arg.trim() {
            "" | "default" => Ok(think(None)),
            a => crate::llm::Think::parse(a)
                .map(|t| think(Some(t)))
                .ok_or_else(|| "usage: /think [on|off|low|medium|high|default]".into()),
        },
    },
    SlashCommand {
        name: "retry",
        aliases: &[],
        usage: "/retry",
        help: "send the last message again after an error",
        parse: |_, _| Ok(Intent::Engine(Request::Retry)),
    },
    SlashCommand {
        name: "done",
        aliases: &[],
        usage: "/done",
        help: "the task is finished: its tool calls and results leave the context",
        parse: |_, _| Ok(Intent::Engine(Request::Done)),
    },
    SlashCommand {
        name: "sessions",
        aliases: &["browse", "open"],
        usage: "/sessions",
        help: "browse sessions: filter, open, rename, delete",
        parse: |_, _| Ok(Intent::Sessions),
    },
    SlashCommand {
        name: "search",
        aliases: &["find"],
        usage: "/search TEXT",
        help: "find a text in every session (folded messages too); Enter opens it there",
        parse: |_, arg| {
            rest(arg)
                .map(Intent::Search)
                .ok_or_else(|| "usage: /search TEXT".to_string())
        },
    },
    SlashCommand {
        name: "new",
        aliases: &[],
        usage: "/new [MODEL]",
        help: "start a new session with the same model, context, mode and settings (or MODEL); this one is saved (/sessions)",
        parse: |_, arg| Ok(Intent::NewSession { model: rest(arg) }),
    },
    SlashCommand {
        name: "clear",
        aliases: &[],
        usage: "/clear",
        help: "as /new: an empty conversation; unlike in ollama run, the old one is kept (/sessions)",
        parse: |_, _| Ok(Intent::NewSession { model: None }),
    },
    SlashCommand {
        name: "fork",
        aliases: &["branch"],
        usage: "/fork [N]",
        help: "a new session from this one's messages up to #N (default: all), with its model, context, mode and settings; this one stays as it is",
        parse: |_, arg| message_id(arg).map(Intent::Fork),
    },
    SlashCommand {
        name: "help",
        aliases: &["?"],
        usage: "/help [TOPIC]",
        help: "this help; with a TOPIC, that part of the manual (the topics follow)",
        parse: |_, arg| match arg.trim() {
            "" => Ok(Intent::Help(None)),
            topic => crate::manual::find(topic)
                .map(|t| Intent::Help(Some(t)))
                .map_err(|e| crate::app::words::no_topic(&e)),
        },
    },
    SlashCommand {
        name: "quit",
        aliases: &["exit", "q", "bye"],
        usage: "/quit",
        help: "quit (also /bye, as in ollama run); asks first if unsent text would be lost",
        parse: |_, _| Ok(Intent::Quit),
    },
];

/// A change for the engine, or the listing when there is nothing to change.
fn param_intent(change: Option<crate::core::params::ParamChange>) -> Intent {
    match change {
        Some(change) => Intent::Engine(Request::SetParam { change }),
        None => Intent::ShowParams,
    }
}

/// `/think`: a setting of the session, the engine's (`None`: back to the default).
fn think(level: Option<crate::llm::Think>) -> Intent {
    let word = level.map(|t| t.name().to_string());
    param_intent(Some(crate::core::params::ParamChange::Think(word)))
}

/// A goal-board change: the engine's (the app opens the panel to show it).
fn board(change: GoalChange) -> Intent {
    Intent::Engine(Request::Goal { change })
}

/// `/goal TEXT`, `/goal! TEXT` (high priority), `/goal done|pause|resume|clear`, and a
/// bare `/goal` (the panel).
fn goal(typed: &str, arg: &str) -> Result<Intent, String> {
    let status = |status| Ok(board(GoalChange::GoalStatus { status }));
    match arg.trim().to_ascii_lowercase().as_str() {
        "" => Ok(Intent::Panel),
        "done" | "complete" | "completed" => status(GoalStatus::Completed),
        "pause" | "paused" => status(GoalStatus::Paused),
        "resume" | "active" => status(GoalStatus::Active),
        "clear" => Ok(board(GoalChange::Clear)),
        _ => Ok(board(GoalChange::SetGoal {
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

/// The closest command name to a mistyped one.
fn suggestion(typed: &str) -> Option<&'static str> {
    closest(typed, COMMANDS.iter().map(|c| c.name))
}

/// What the command `name` (a registry name) asks for without an argument: what a key
/// bound to it does (`keymap::Does::Command`).
pub fn bare(name: &str) -> Result<Intent, String> {
    match find(name) {
        Some(c) => (c.parse)(name, ""),
        None => Err(format!("unknown command /{name}")),
    }
}

/// The help overlay's rows for the commands: (usage, what it does, the key if bound).
/// `label` names the key that runs a command (by its registry name).
pub fn help_rows(label: impl Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    COMMANDS
        .iter()
        .map(|c| {
            let mut what = c.help.to_string();
            // Other names people type by habit (`/load` from `ollama run`) are found here.
            if !c.aliases.is_empty() {
                let names: Vec<String> = c.aliases.iter().map(|a| format!("/{a}")).collect();
                what = format!("{what}; also {}", names.join(", "));
            }
            if let Some(k) = label(c.name) {
                what = format!("{what} ({k})");
            }
            (c.usage.to_string(), what)
        })
        .collect()
}

#[cfg(test)]
mod tests;
