//! The words a person reads about what happened: typed notices from the actor (and the
//! engine events inside them) become a title and, for banners, the fix.
//!
//! This is the one place those sentences are written, so wording changes here and only
//! here. Hints name the keys the person's keymap binds ([`KeyNames`]), or the command
//! where a key is unbound, so a hint never names a key that was moved.

use crate::core::checkpoint::Checkpoint;
use crate::core::engine::EngineError;
use crate::core::events::{Blocked, EngineEvent, FailedPart, Intensity, SkipReason};
use crate::core::goals::{Author, GoalChange, GoalStatus};
use crate::core::message::MessageId;
use crate::core::mode::Mode;
use crate::core::params::{Param, ParamChange, ParamValue, SessionParams};
use crate::core::record::SnapshotPurpose;
use crate::llm::LlmError;
use crate::store::LoadReport;
use crate::store::export::{BoardWords, HeadWords, MarkdownWords, RecordWords};
use crate::view::{Found, Notice, RestoreLookup};

/// How hints name the keys: the one the keymap binds, else the command that does the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyNames {
    pub restore: String,
    pub compress: String,
    pub models: String,
    pub goals: String,
    pub quit: String,
    pub help: String,
    /// `None` when no key takes a snapshot (the hint then names only `/snapshot`).
    pub snapshot: Option<String>,
}

impl Default for KeyNames {
    fn default() -> Self {
        KeyNames {
            restore: "Ctrl+R".into(),
            compress: "Ctrl+K".into(),
            models: "Ctrl+L".into(),
            goals: "Ctrl+G".into(),
            quit: "Ctrl+Q".into(),
            help: "F1".into(),
            snapshot: Some("Ctrl+S".into()),
        }
    }
}

/// A notice in words: what happened, and (for banners) what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words {
    pub title: String,
    pub hint: Option<String>,
}

impl Words {
    fn line(title: impl Into<String>) -> Words {
        Words {
            title: title.into(),
            hint: None,
        }
    }

    fn with_hint(title: impl Into<String>, hint: impl Into<String>) -> Words {
        Words {
            title: title.into(),
            hint: Some(hint.into()),
        }
    }

    /// As one transcript line: the title, then the hint if there is one.
    pub fn text(self) -> String {
        match self.hint {
            Some(h) => format!("{} {h}", self.title),
            None => self.title,
        }
    }
}

// ----- the app's own words -----

/// The model picker before the list arrives.
pub const LOADING: &str = "loading…";
pub const NO_MODELS: &str = "No models installed: /pull llama3.2 downloads one.";
// ----- pulling a model (`/pull`) -----

/// `/pull` without a name when the session's model is installed.
pub const PULL_USAGE: &str = "usage: /pull NAME (e.g. /pull llama3.2:3b); without a name it pulls this session's model when it is missing";

/// The picker's row that pulls the session's missing model.
pub fn pull_row(name: &str) -> String {
    format!("Pull {name}…")
}

/// The picker's note when the session's model is missing.
pub fn picker_missing(name: &str) -> String {
    format!("{name} is not installed: Enter on its row pulls it (/pull {name}).")
}

/// The pull dialog's title.
pub fn pull_title(name: &str) -> String {
    format!("Pulling {name}")
}

/// The dialog's footer: what its keys do.
pub const PULL_FOOTER: &str = "Esc cancel · q hide (it goes on)";

/// The status line while a pull goes on with its dialog hidden.
pub fn pull_status(name: &str, percent: Option<u8>) -> String {
    match percent {
        Some(p) => format!("pulling {name} {p} % (/pull shows it)"),
        None => format!("pulling {name} (/pull shows it)"),
    }
}

/// The dialog's figures: "1.2 GB of 2.0 GB · 61 % · 12.3 MB/s".
pub fn pull_figures(completed: u64, total: u64, percent: Option<u8>, speed: Option<f64>) -> String {
    if total == 0 {
        return "waiting for the size…".to_string();
    }
    let mut out = format!(
        "{} of {}",
        crate::ui::text::bytes(completed),
        crate::ui::text::bytes(total)
    );
    if let Some(p) = percent {
        out.push_str(&format!(" · {p} %"));
    }
    if let Some(bps) = speed {
        out.push_str(&format!(" · {}/s", crate::ui::text::bytes(bps as u64)));
    }
    out
}

pub fn pull_started(name: &str) -> String {
    format!("Pulling {name}: Esc in its dialog cancels, q hides it (/pull shows it again).")
}

pub fn pull_busy(running: &str) -> String {
    format!("{running} is being pulled; one pull at a time (/pull shows it, Esc there cancels).")
}

pub fn pull_cancelled(name: &str, completed: u64) -> String {
    format!(
        "Pull of {name} cancelled after {}; the server keeps what it downloaded, so /pull {name} resumes.",
        crate::ui::text::bytes(completed)
    )
}

pub fn pulled(name: &str, total: u64, secs: u64, switching: bool) -> String {
    let size = if total > 0 {
        format!(" ({})", crate::ui::text::bytes(total))
    } else {
        String::new()
    };
    if switching {
        format!("Pulled {name}{size} in {secs} s; switching to it.")
    } else {
        format!("Pulled {name}{size} in {secs} s; /model {name} switches to it.")
    }
}

pub fn pull_failed(name: &str, error: &str) -> Words {
    Words::with_hint(
        format!("Cannot pull {name}: {error}"),
        "Check the name (ollama.com/library lists them, with tags like :3b), or try again.",
    )
}

// ----- copying (`/copy`) and the mouse -----

/// `/copy` done: "Copied the last reply (1,234 characters) to the clipboard."
pub fn copied(what: &str, chars: usize) -> String {
    format!(
        "Copied {what} ({} characters) to the clipboard.",
        crate::ui::text::thousands(chars as u64)
    )
}

pub fn copy_too_long(what: &str, bytes: usize, limit: usize) -> String {
    format!(
        "Not copied: {what} is {} and terminals take about {} through OSC 52. /export writes the whole session to a file.",
        crate::ui::text::bytes(bytes as u64),
        crate::ui::text::bytes(limit as u64)
    )
}

pub fn copy_failed(error: &str) -> String {
    format!("Cannot copy: {error}.")
}

/// The mouse given to the terminal, or taken back; `key` toggles it.
/// After the mode in the status line while the mouse is left to the terminal.
pub fn mouse_status(key: &str) -> String {
    format!("mouse: terminal ({key})")
}

pub fn mouse_note(captured: bool, key: &str) -> String {
    if captured {
        format!(
            "Mouse captured: the wheel scrolls the transcript; {key} releases it for selecting text."
        )
    } else {
        format!(
            "Mouse released: select with the mouse and copy as your terminal does; {key} captures it again (the wheel scrolls then)."
        )
    }
}

/// Enter on a checkpoint the panel no longer has.
pub const CHECKPOINT_GONE: &str = "That checkpoint no longer exists.";

/// "1 record" / "3 records".
fn records(n: usize) -> String {
    format!("{n} record{}", if n == 1 { "" } else { "s" })
}

/// On the input when quitting would lose records the session log could not take.
pub fn quit_unwritten_note(keys: &KeyNames, waiting: usize) -> String {
    format!(
        "{} not on disk: {} again saves {} to a rescue file and quits",
        records(waiting),
        keys.quit,
        if waiting == 1 { "it" } else { "them" }
    )
}

/// On the input when quitting would discard a draft.
pub fn quit_note(keys: &KeyNames) -> String {
    format!("unsent text: {} again quits and discards it", keys.quit)
}

/// On the input when `/new` would discard messages typed ahead.
pub fn new_session_note() -> String {
    "unsent text: /new again discards it and starts the new session".to_string()
}

/// On the input when `/new` would leave records the session log could not take.
pub fn new_session_unwritten_note(waiting: usize) -> String {
    format!(
        "{} not on disk: /new again saves {} to a rescue file and starts the new session",
        records(waiting),
        if waiting == 1 { "it" } else { "them" }
    )
}

/// On the input when quitting would stop a pull under way.
pub fn quit_pull_note(keys: &KeyNames, name: &str) -> String {
    format!(
        "pulling {name}: {} again stops the pull and quits (/pull {name} later resumes it)",
        keys.quit
    )
}

/// On the input when `/new` would stop a pull under way.
pub fn new_session_pull_note(name: &str) -> String {
    format!(
        "pulling {name}: /new again stops the pull and starts the new session (/pull {name} resumes it)"
    )
}

/// On the input when a paste was larger than the limit.
pub fn paste_cut(kept_bytes: usize, pasted_bytes: usize) -> String {
    format!(
        "paste cut at {} KiB of {} KiB (paste_limit_kib)",
        kept_bytes / 1024,
        pasted_bytes / 1024
    )
}

/// Beside the mode in the status line when the model cannot call tools.
pub const TOOLS_UNSUPPORTED: &str = "no tools: model";

/// The help's first rows: the status line, part by part, as a newcomer meets it (#31).
/// How the help itself scrolls and closes follows ([`help_close_row`]).
pub const STATUS_LINE_HELP: &[(&str, &str)] = &[
    ("The status line", "the bottom row, left to right:"),
    (
        "Context: 560/8,192",
        "tokens the next request holds, of the model's context size. A word after it says where the size came from when you did not set it: (server) as the server loaded the model, (model) the model's own length, (default) 8,192 until the model is loaded, (guessed) nothing known. /ctx N sets it",
    ),
    (
        "▮▮▮▯┃▯▯ 55%",
        "the same as a bar; ┃ marks where compression starts: older messages are then folded into a summary (a checkpoint) to make room",
    ),
    (
        "3 compressions",
        "how many times that happened (a wide window shows it)",
    ),
    (
        "🟢 🟡 🟠 🔴 92%",
        "how far to trust what compression kept: shown once something is compressed; it falls a little with each compression (more for small models) and more with what was lost (facts that left the ledger, summaries redone or cut). A ! says the model has compressed many times: /new starts afresh if the answers drift (this session is kept)",
    ),
    (
        "mouse: terminal (F9)",
        "shown while the mouse is left to the terminal's own select-and-copy; the wheel then scrolls the terminal, and F9 (or /mouse on) takes the mouse back",
    ),
    (
        "model · mode",
        "the model answering, and how it is prompted (/mode)",
    ),
    (
        "You #12",
        "a message's number in the session (for /inspect, /pin, /fork): numbers count every record, so they skip those between messages (summaries, notes)",
    ),
];

/// Under "No messages yet." in an empty transcript.
pub fn empty_hint(keys: &KeyNames) -> String {
    format!(
        "Type below and press Enter to send; ? or {} opens the help.",
        keys.help
    )
}

/// The help's row on itself, after the status line's: the key that opens it closes it too.
pub fn help_close_row(keys: &KeyNames) -> (String, String) {
    (
        format!("Esc, q or {} (help)", keys.help),
        "close this help; Up, Down, PgUp, PgDn, Home and the mouse wheel scroll it".into(),
    )
}

/// A title typed to its limit: the next character is not taken, and the browser says why.
pub fn title_limit(max: usize) -> String {
    format!("Titles are at most {max} characters: the rest is not taken.")
}

/// On the input when a large paste was folded to a marker.
pub fn paste_folded(marker: &str) -> String {
    format!("{marker} is sent in full with the message; delete it to drop the paste")
}

/// The actor did not take a command (its queue is full).
pub fn not_responding(keys: &KeyNames) -> Words {
    Words::with_hint(
        "The session is not responding",
        format!(
            "Your input is kept; try again in a moment, or quit with {} (everything sent so far is saved).",
            keys.quit
        ),
    )
}

/// Snapshot files that exist but could not be read (listed apart, never hidden).
pub fn snapshots_damaged(n: usize, reason: &str, path: &str) -> Words {
    Words::with_hint(
        format!(
            "{n} snapshot file{} could not be read: {reason}",
            if n == 1 { "" } else { "s" }
        ),
        format!("It stays on disk untouched ({path}); the others can be restored."),
    )
}

pub fn no_snapshots(keys: &KeyNames) -> String {
    match &keys.snapshot {
        Some(k) => format!("No snapshots yet: {k} or /snapshot takes one."),
        None => "No snapshots yet: /snapshot takes one.".to_string(),
    }
}

pub fn snapshots_unreadable(error: &str) -> Words {
    Words::with_hint(
        format!("Cannot list snapshots: {error}"),
        "Check the data directory's permissions (OLLM_HOME/snapshots).",
    )
}

/// `/inspect N` found checkpoint N inside the one it was merged into.
pub fn inspect_merged(asked: u32, into: u32) -> String {
    format!("Checkpoint {asked} was merged into checkpoint {into}; showing that.")
}

/// `/inspect` found no such checkpoint.
pub fn no_such_checkpoint(keys: &KeyNames) -> String {
    format!(
        "No such checkpoint now: older ones merge as they age; the panel ({}) lists the current ones.",
        keys.goals
    )
}

// ----- notices -----

const SNAPSHOT_FIX: &str = "Check disk space and permissions of the data directory.";

/// The words for `notice`.
pub fn notice(notice: &Notice, keys: &KeyNames) -> Words {
    match notice {
        Notice::Engine(ev) => event(ev, keys),
        Notice::Mcp(crate::view::McpEvent::Started { server, tools }) => Words::line(format!(
            "MCP server {server}: {tools} tool{} offered as {server}.…",
            if *tools == 1 { "" } else { "s" }
        )),
        Notice::Mcp(crate::view::McpEvent::Failed { server, error }) => Words::line(format!(
            "MCP server {server} is not available: {error}. Its tools are not offered."
        )),
        Notice::ResultNotSaved(error) => Words::line(format!(
            "A tool result could not be kept whole ({error}); the model saw it shortened \
             and cannot recall the rest. {SNAPSHOT_FIX}"
        )),
        Notice::ThinkSet {
            think,
            model,
            capable,
        } => {
            let what = match think {
                None => "the model's default".to_string(),
                Some(t) => format!("`think: {}`", t.wire()),
            };
            if *capable {
                Words::line(format!("Thinking: {what} from the next message on."))
            } else {
                Words::line(format!(
                    "Thinking: {what} is kept, but {model} has no thinking capability: nothing is sent to it."
                ))
            }
        }
        Notice::Unanswered => {
            Words::line("Your last message has no complete reply: /retry asks for it again.")
        }
        Notice::Connected { version, host } => {
            Words::line(format!("Connected to Ollama {version} at {host}."))
        }
        Notice::Unreachable { url, error } => Words::with_hint(
            format!("Cannot reach Ollama at {url}: {error}"),
            "Start it with `ollama serve` (or set OLLAMA_HOST / --host). Retrying every few seconds; your messages are kept.",
        ),
        Notice::ModelMissing { model, found } => Words::with_hint(
            format!("Model \"{model}\" is not installed on the Ollama server."),
            match found {
                Found::Connecting => format!(
                    "Download it with /pull {model}, or pick an installed one with {}.",
                    keys.models
                ),
                Found::Request => format!(
                    "Download it with /pull {model} (or pick another with {}), then /retry. Your message is saved.",
                    keys.models
                ),
            },
        ),
        Notice::NoModels => Words::with_hint(
            "The Ollama server has no models installed.",
            format!(
                "Download one, e.g. /pull llama3.2 (it switches to it), or `ollama pull` and {}.",
                keys.models
            ),
        ),
        Notice::RequestFailed {
            error: LlmError::Unreachable { url, cause },
        } => Words::with_hint(
            format!("Cannot reach Ollama at {url}: {cause}"),
            "Start it with `ollama serve`. Your message is saved; /retry sends it once Ollama is up.",
        ),
        Notice::RequestFailed { error } => Words::with_hint(
            format!("The request failed: {error}"),
            match error.hint() {
                Some(h) => format!("{h} Your message is saved; /retry sends it again."),
                None => "Your message is saved; /retry sends it again.".into(),
            },
        ),
        Notice::ReplyBrokeOff { error } => Words::with_hint(
            format!("The reply broke off: {error}. The partial reply is kept and marked."),
            match error.hint() {
                Some(h) if h.contains("/retry") => h,
                Some(h) => format!("{h} /retry asks for a complete reply."),
                None => "/retry asks for a complete reply.".to_string(),
            },
        ),
        Notice::StoppedBeforeReply => {
            Words::line("Stopped before the reply began; your message is saved (/retry).")
        }
        Notice::ReplyCutAtLimit => {
            Words::line("The reply reached the context limit and was cut off by Ollama.")
        }
        Notice::ReadingTooSlow { tool, secs, limit } => Words::with_hint(
            format!(
                "The {tool} result is large: reading it through would take about {secs} s at this server's speed, so the model gets it shortened (the whole is kept; the model can recall any part)."
            ),
            format!("Raise [tools] digest_max_secs (now {limit}) to wait for readings this long."),
        ),
        Notice::ReplyLooped {
            lines,
            times,
            thinking,
        } => Words::with_hint(
            format!(
                "Stopped the reply: the model repeated the same {} {times} times in a row{}. What arrived is kept, marked interrupted.",
                if *lines == 1 {
                    "line".to_string()
                } else {
                    format!("{lines} lines")
                },
                if *thinking { " while thinking" } else { "" }
            ),
            "repeat_limit in config.toml sets how many repeats stop a reply (0: never); /retry asks again.",
        ),
        Notice::StoreCreateFailed { error, waiting } => Words::with_hint(
            format!("Cannot create the session file: {error}"),
            format!(
                "{} kept in memory, in order; creating the file is tried again every few seconds. Free disk space or fix permissions of the data directory (OLLM_HOME); quitting now offers to save {} elsewhere.",
                records(*waiting),
                if *waiting == 1 { "it" } else { "them" }
            ),
        ),
        Notice::WriteFailed { error, waiting } => Words::with_hint(
            format!("Cannot write the session log: {error}"),
            format!(
                "{} kept in memory, in order, and written first with every message or /retry. Free disk space or fix permissions; quitting now offers to save {} elsewhere.",
                records(*waiting),
                if *waiting == 1 { "it" } else { "them" }
            ),
        ),
        Notice::NotSentUnwritten { waiting } => Words::with_hint(
            "Not sent: your message is not on disk yet.".to_string(),
            format!(
                "{} wait to be written (disk full?). Free space, then /retry: the log is written first, then the message goes out.",
                records(*waiting)
            ),
        ),
        Notice::WriteRecovered => Words::line("Writing the session log works again."),
        Notice::ModelSwitched { name, ctx } => {
            Words::line(format!("Model: {name} (context {ctx} tokens)."))
        }
        Notice::ModelSwitchFailed { name, error } => Words {
            title: format!("Cannot switch to {name}: {error}"),
            hint: match error {
                LlmError::ModelNotFound { .. } => {
                    Some(format!("/pull {name} downloads it and switches to it."))
                }
                _ => error.hint(),
            },
        },
        Notice::CtxAboveTrained {
            model,
            trained,
            ctx,
        } => Words::line(format!(
            "{model} was trained on {trained} tokens: Ollama may load it with less than {ctx}. The budget follows what the server reports after the next reply."
        )),
        Notice::RestoreNotFound { lookup } => Words::with_hint(
            format!(
                "Cannot restore: {}.",
                match lookup {
                    RestoreLookup::NoSnapshots => "this session has no snapshots yet".to_string(),
                    RestoreLookup::NoSuch { wanted } =>
                        format!("no snapshot \"{wanted}\" in this session"),
                    RestoreLookup::Ambiguous { wanted, matches } =>
                        format!("\"{wanted}\" matches {matches} snapshots; give more of the id"),
                    RestoreLookup::Unreadable { error } => error.clone(),
                }
            ),
            format!(
                "{} lists this session's snapshots (time, purpose, size); /restore takes an id or the start of one.",
                keys.restore
            ),
        ),
        Notice::RestoreLoadFailed { id, error } => Words::with_hint(
            format!("Snapshot failed: cannot restore {id}: {error}"),
            SNAPSHOT_FIX,
        ),
        Notice::SnapshotDeleted { id } => Words::line(format!("Deleted snapshot {id}.")),
        Notice::SnapshotDeleteFailed { id, error } => {
            Words::line(format!("Cannot delete snapshot {id}: {error}"))
        }
        Notice::Exported { path } => Words::line(format!("Exported to {}", path.display())),
        Notice::ExportFailed { error } => Words::with_hint(
            format!("Export failed: {error}"),
            "Check the permissions and free space of the data directory.",
        ),
        Notice::NothingToExport => {
            Words::line("Nothing to export yet: the session has no messages.")
        }
    }
}

/// "message #4", "3 messages, #4–#9".
fn range(messages: usize, first: MessageId, last: MessageId) -> String {
    if messages <= 1 {
        format!("message {first}")
    } else {
        format!("{messages} messages, {first}–{last}")
    }
}

/// Why a compression did not run, as the end of a sentence.
pub fn skip_reason(reason: &SkipReason) -> String {
    match reason {
        SkipReason::NothingYet => "nothing to compress yet".into(),
        SkipReason::RecentKept { recent } => {
            format!("nothing worth folding yet: the {recent} most recent messages are always kept")
        }
        SkipReason::RecentAndProtected { recent, protected } => format!(
            "nothing worth folding yet: the {recent} most recent messages are always kept, and the {protected} before them are protected (your own, pinned, or tool errors)"
        ),
        SkipReason::NothingLeft => "nothing left to fold".into(),
        SkipReason::ConversationChanged => {
            "the conversation changed while compressing; nothing was folded".into()
        }
        SkipReason::BackedOff { freed, percent } => format!(
            "the last compression freed only {freed} tokens ({percent}% of the budget); automatic compression waits until the conversation grows"
        ),
        SkipReason::MergeFreesNothing => {
            "merging the checkpoints would not free any room; they stay apart".into()
        }
        SkipReason::FoldFreesNothing {
            messages,
            first,
            last,
        } => format!(
            "folding {} would not free any room (the summary costs as much as the messages); they stay as they are",
            range(*messages, *first, *last)
        ),
    }
}

fn blocked(b: &Blocked) -> String {
    format!(
        "this request needs about {} tokens but the context holds {} ({} kept free for the reply); what is left is protected: system prompt {}, goal board {}, summaries {}, pinned messages {}. Unpin messages, shorten the goal board, or raise the context with /ctx N. Your message is saved.",
        b.needed, b.ctx, b.reserve, b.system, b.goals, b.summaries, b.pinned
    )
}

/// A refused marker line, as the model wrote it.
fn marker_line(change: &GoalChange) -> String {
    match change {
        GoalChange::SetGoal { description, .. } => format!("[GOAL] {description}"),
        GoalChange::Checkpoint { description, .. } => format!("[CHECKPOINT] {description}"),
        GoalChange::Decision { text, .. } => format!("[DECISION] {text}"),
        GoalChange::Artifact { path, .. } => format!("[ARTIFACT] {path}"),
        GoalChange::Next { text } => format!("[NEXT] {text}"),
        GoalChange::GoalStatus { .. }
        | GoalChange::Lock { .. }
        | GoalChange::Unlock { .. }
        | GoalChange::DeleteDecision { .. }
        | GoalChange::Clear => "a goal-board change".to_string(),
    }
}

fn refused(error: &EngineError) -> Words {
    match error {
        EngineError::NoReplyToPin { pin: true } => Words::line("No reply to pin yet."),
        EngineError::NoReplyToPin { pin: false } => Words::line("No reply to unpin yet."),
        EngineError::NoSuchMessage { pin, .. } | EngineError::AlreadyFolded { pin, .. } => {
            Words::line(format!(
                "Cannot {}: {error}.",
                if *pin { "pin" } else { "unpin" }
            ))
        }
        EngineError::WrongSession { snapshot, .. } => Words::with_hint(
            format!("Snapshot failed: cannot restore {snapshot}: {error}"),
            SNAPSHOT_FIX,
        ),
        EngineError::Goal(e) => Words::line(format!("Goal board: {e}.")),
        EngineError::NothingToClear => Words::line(format!("Nothing to mark done: {error}.")),
    }
}

fn event(ev: &EngineEvent, keys: &KeyNames) -> Words {
    match ev {
        EngineEvent::ResultsReduced {
            results,
            tokens_before,
            tokens_after,
        } => Words::line(format!(
            "Older tool results cut down first: {results} result{}, context {tokens_before} → {tokens_after} tokens (the originals stay; the model can recall them).",
            if *results == 1 { "" } else { "s" }
        )),
        EngineEvent::TaskDone { messages, tokens } => Words::with_hint(
            format!(
                "Task done: {messages} tool call{} and result{} left the context ({tokens} tokens freed); what was said stays.",
                if *messages == 1 { "" } else { "s" },
                if *messages == 1 { "" } else { "s" },
            ),
            format!(
                "A snapshot of the state before was taken: {} undoes it.",
                keys.restore
            ),
        ),
        EngineEvent::CompressionSkipped { reason } => {
            Words::line(format!("Compression skipped: {}.", skip_reason(reason)))
        }
        EngineEvent::NotCompressed { reason } => {
            Words::line(format!("Not compressed: {}.", skip_reason(reason)))
        }
        EngineEvent::CompressionFailed { part, error } => Words::with_hint(
            format!(
                "Compression failed: {}",
                match part {
                    FailedPart::Fold => format!("{error}; nothing was folded and nothing is lost"),
                    FailedPart::Aging { id, to } => format!(
                        "checkpoint {id} aged to {} by shortening its summary without the model: {error}",
                        to.name()
                    ),
                    FailedPart::Merge => format!(
                        "ancient checkpoints merged by shortening their summaries without the model: {error}"
                    ),
                }
            ),
            format!(
                "The conversation continues; ollm-tui retries when the context fills up, or press {}.",
                keys.compress
            ),
        ),
        EngineEvent::CompressionStopped { unsent: true } => Words::line(
            "Compression stopped. Your message is saved but was not sent: /retry sends it.",
        ),
        EngineEvent::CompressionStopped { unsent: false } => {
            Words::line("Compression stopped; nothing was changed.")
        }
        EngineEvent::RolloverComplete {
            intensity,
            tokens_after,
        } => Words::line(format!(
            "Emergency rollover ({}): the context now holds {tokens_after} tokens. An emergency snapshot was saved first ({}).",
            match intensity {
                Intensity::Truncate => "marked truncation, the model was unavailable",
                Intensity::Normal | Intensity::Hard => "everything older folded hard",
            },
            keys.restore
        )),
        EngineEvent::SnapshotCreated { id, purpose } => Words::line(format!(
            "{} {id} saved ({} to restore).",
            if *purpose == SnapshotPurpose::Emergency {
                "Emergency snapshot"
            } else {
                "Snapshot"
            },
            keys.restore
        )),
        EngineEvent::SnapshotRestored { id, before } => Words::line(format!(
            "Restored snapshot {id}. The state before it is snapshot {before} ({} to go back); later messages also stay in the session history (export shows them).",
            keys.restore
        )),
        EngineEvent::SnapshotError { error } => {
            Words::with_hint(format!("Snapshot failed: {error}"), SNAPSHOT_FIX)
        }
        EngineEvent::RestoreNotSaved { id } => Words::with_hint(
            format!(
                "Snapshot failed: cannot restore {id}: the current state could not be saved first"
            ),
            SNAPSHOT_FIX,
        ),
        EngineEvent::TruncationSuspected { sent, seen } => Words::with_hint(
            format!(
                "Ollama evaluated only {seen} of about {sent} prompt tokens: it cut the start of the conversation."
            ),
            "ollm-tui compresses before the next request. If this repeats, the server may ignore num_ctx (check OLLAMA_CONTEXT_LENGTH) — or set a smaller /ctx.",
        ),
        EngineEvent::UserMessagesFolded { count, checkpoint } => Words::line(if *count == 1 {
            format!(
                "Your oldest message was folded into checkpoint {checkpoint} too, to leave room for the next turns. It is kept in full in the session history."
            )
        } else {
            format!(
                "{count} of your oldest messages were folded into checkpoint {checkpoint} too, to leave room for the next turns. They are kept in full in the session history."
            )
        }),
        EngineEvent::Recalled { lines } => Words::line(format!(
            "↺ {} earlier line{} recalled from the log for this reply ({}).",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" },
            lines
                .iter()
                .map(|l| format!("#{}", l.id))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        EngineEvent::LedgerFull {
            dropped_user,
            dropped_model,
            kept,
        } => Words::line(format!(
            "The fact ledger is full: it shows {kept} facts, and {} left it ({dropped_user} of yours, {dropped_model} of the model's). They stay in the log, and are recalled when you ask about them.",
            dropped_user + dropped_model
        )),
        EngineEvent::Compressed {
            messages: 0,
            tokens_before,
            tokens_after,
            ..
        } => Words::line(format!(
            "No messages were folded: a summary of what is left would not be smaller than the messages. Condensing older checkpoints took the context from {tokens_before} to {tokens_after} tokens."
        )),
        EngineEvent::MessageClipped { id, omitted_tokens } => Words::with_hint(
            format!(
                "Message {id} is too large for the context: the model sees its beginning and end ({omitted_tokens} tokens cut)."
            ),
            "The full text is saved in the session. Raise the context with /ctx N to send it whole.",
        ),
        EngineEvent::Blocked(b) => Words::with_hint("Message not sent", blocked(b)),
        EngineEvent::OverflowPersists { message } => Words::with_hint(
            format!("Ollama still refuses the conversation as too long: {message}"),
            format!(
                "Your message is saved. Lower the context size (/ctx) or compress ({}), then /retry.",
                keys.compress
            ),
        ),
        EngineEvent::GoalRejected { change, reason } => Words::line(format!(
            "Not applied from the reply: {} — {reason}.",
            marker_line(change)
        )),
        EngineEvent::GoalUpdated {
            change: GoalChange::GoalStatus { status },
            author: Author::User,
        } => Words::line(match status {
            GoalStatus::Completed => {
                "Goal completed. It stays in the session's history (export shows past goals)."
            }
            GoalStatus::Paused => "Goal paused: /goal resume takes it up again.",
            GoalStatus::Active => "Goal active again.",
        }),
        EngineEvent::GoalUpdated {
            change: GoalChange::Clear,
            author: Author::User,
        } => Words::line("Goal board cleared. Its history stays in the session (export shows it)."),
        EngineEvent::ReliabilityWarning {
            compressions,
            percent,
            model,
        } => Words::line(format!(
            "{model} has compressed this conversation {compressions} times (reliability {percent}%): each compression loses some detail, and small models lose more. Continue while the answers stay on track; if they drift, start a new session with /new (this one is kept)."
        )),
        EngineEvent::Pinned { id, pinned: true } => Words::line(format!(
            "Pinned message {id}: it is never folded into a summary."
        )),
        EngineEvent::Pinned { id, pinned: false } => Words::line(format!(
            "Unpinned message {id}: it may be folded into a summary like any other."
        )),
        EngineEvent::NothingToRetry => {
            Words::line("Nothing to retry: the last message has its complete reply.")
        }
        EngineEvent::ModeChanged { mode } => Words::line(format!("Mode: {mode}.")),
        EngineEvent::ParamsChanged { change } => Words::line(param_change(change)),
        EngineEvent::CtxChanged { ctx, .. } => Words::line(format!(
            "Context size {ctx} tokens (the model reloads once with it)."
        )),
        EngineEvent::LoadedCtxSmaller {
            model,
            loaded,
            asked,
        } => Words::with_hint(
            format!(
                "Ollama loaded {model} with a {loaded}-token context, not the {asked} asked for."
            ),
            "The budget now follows what the server uses, so nothing is cut silently. A model's trained length, or OLLAMA_CONTEXT_LENGTH on the server, sets this limit; /ctx changes what is asked for.",
        ),
        EngineEvent::Refused { error } => refused(error),
        // These show on screen in other ways (dividers, the panel, the status line); in
        // words they are the event's name. Named one by one, so a new event does not
        // compile until it has its words.
        EngineEvent::Compressed { .. }
        | EngineEvent::ToolRoundsCapped { .. }
        | EngineEvent::CheckpointCreated { .. }
        | EngineEvent::CheckpointAged { .. }
        | EngineEvent::CheckpointsMerged { .. }
        | EngineEvent::AutoSnapshotCreated { .. }
        | EngineEvent::GoalUpdated { .. } => Words::line(ev.name().replace('-', " ")),
    }
}

/// The words of a Markdown export: `store::export` lays out the records and takes every
/// label, heading and sentence from here.
pub const MARKDOWN: MarkdownWords = MarkdownWords {
    head: &HeadWords {
        untitled: |id| format!("Session {id}"),
        session: "Session",
        model: "Model",
        settings: md_settings_head,
        started: "Started",
        last_activity: "Last activity",
        messages: "Messages",
        compressions: "Compressions",
        losses_label: "Loaded with losses",
        losses: load_report,
    },
    board: &BoardWords {
        heading: "Goal board",
        active: "Active goal",
        goal: |description, priority, status| {
            format!("{description} ({priority:?} priority, {status:?})")
        },
        artifacts: "Artifacts",
        next_steps: "Next steps",
        decisions: "Decisions",
        earlier: "Earlier goals",
        past_goal: |description, status| format!("{description} ({status:?})"),
    },
    records: &RecordWords {
        heading: "Conversation",
        user: "User",
        pinned: "pinned",
        assistant: "Assistant",
        thinking: |words| format!("Thinking ({words} words)"),
        calls: |name, from_text| {
            let how = if from_text {
                " (written as text, read as a call)"
            } else {
                ""
            };
            format!("Calls `{name}`{how}")
        },
        interrupted: "Interrupted",
        interrupted_note: "the reply stopped here; the partial text above was kept.",
        tool: "Tool",
        took: |ms| format!("{:.1}s", ms as f64 / 1000.0),
        error: "error",
        arguments: "Arguments",
        result: "Result",
        shortened: |chars, file| {
            format!(
                "The model saw this shortened form; the whole result ({chars} characters) \
                 is saved as `results/<session>/{file}` in the data directory."
            )
        },
        checkpoint: md_checkpoint,
        checkpoint_aged: |c| {
            format!(
                "Checkpoint {} aged to {} ({} tokens)",
                c.number,
                c.level.name(),
                c.tokens
            )
        },
        checkpoints_merged: |names, c| {
            format!(
                "Checkpoints {} merged into checkpoint {} ({}, {} tokens)",
                names.join(", "),
                c.number,
                c.level.name(),
                c.tokens
            )
        },
        goal: |change, author| {
            let by = match author {
                Author::User => "user",
                Author::Model => "model",
            };
            format!("{} (by {by})", goal_change(change))
        },
        pin: |id, pinned| {
            let verb = if pinned { "pinned" } else { "unpinned" };
            format!("Message {id} {verb}")
        },
        clip: |clip| {
            format!(
                "Message {} was shown to the model cut down ({} tokens omitted; kept whole here)",
                clip.id, clip.omitted_tokens
            )
        },
        snapshot: |id, purpose| format!("Snapshot `{id}` saved ({})", purpose.as_str()),
        reduced: |id, tokens| {
            format!(
                "Tool result #{} is shown to the model cut down from its original ({} tokens)",
                id.0,
                tokens.map_or_else(|| "?".to_string(), |t| t.to_string())
            )
        },
        task_done: |at| {
            format!(
                "Task done at #{}: the tool calls and results before it left the model's context",
                at.0
            )
        },
        restored: |id| format!("Restored snapshot `{id}`"),
        settings: md_settings_record,
    },
};

/// The settings at the head of a Markdown export: "llama3.2 · mode developer · ctx 8192".
fn md_settings_head(model: &str, mode: Mode, ctx: Option<u32>) -> String {
    match ctx {
        Some(ctx) => format!("{model} · mode {mode} · ctx {ctx}"),
        None => format!("{model} · mode {mode}"),
    }
}

/// A compression's checkpoint in a Markdown export: what it folded and how far.
fn md_checkpoint(c: &Checkpoint) -> String {
    let range = c
        .range()
        .map(|(a, b)| format!("messages {a}–{b}"))
        .unwrap_or_else(|| "no messages".to_string());
    format!(
        "Checkpoint {}: {range} folded ({} → {} tokens, {})",
        c.number,
        c.original_tokens,
        c.tokens,
        c.level.name()
    )
}

/// A settings record in a Markdown export: each thing it changed, in the log's order.
fn md_settings_record(
    model: Option<&str>,
    ctx: Option<u32>,
    mode: Option<Mode>,
    params: Option<&SessionParams>,
) -> String {
    use crate::store::export::one_line;
    let mut parts = Vec::new();
    if let Some(m) = model {
        parts.push(format!("model → {}", one_line(m)));
    }
    match ctx {
        Some(0) => parts.push("ctx → the model's own".to_string()),
        Some(c) => parts.push(format!("ctx → {c}")),
        None => {}
    }
    if let Some(m) = mode {
        parts.push(format!("mode → {m}"));
    }
    if let Some(p) = params {
        match &p.system {
            Some(text) => parts.push(format!("system prompt → {}", one_line(text))),
            None => parts.push("no system prompt".to_string()),
        }
        for param in Param::ALL {
            if let Some(v) = p.get(param) {
                parts.push(format!("{} → {v}", param.name()));
            }
        }
        if let Some(word) = &p.think {
            parts.push(format!("think → {}", one_line(word)));
        }
    }
    format!("Settings: {}", parts.join(", "))
}

/// What loading a session's log skipped or set aside (`store::LoadReport`): said at start,
/// by `export`, and at the head of a Markdown export.
pub fn load_report(r: &LoadReport) -> String {
    let mut parts = Vec::new();
    if !r.skipped.is_empty() {
        let n = r.skipped.len();
        let lines: Vec<String> = r
            .skipped
            .iter()
            .take(5)
            .map(|s| s.line.to_string())
            .collect();
        let more = if n > 5 { ", …" } else { "" };
        parts.push(format!(
            "{n} record{} skipped (line{} {}{more})",
            if n == 1 { "" } else { "s" },
            if n == 1 { "" } else { "s" },
            lines.join(", ")
        ));
    }
    if !r.gaps.is_empty() {
        let missing: u64 = r.gaps.iter().map(|g| g.end() - g.start() + 1).sum();
        let ranges: Vec<String> = r
            .gaps
            .iter()
            .take(5)
            .map(|g| {
                if g.start() == g.end() {
                    g.start().to_string()
                } else {
                    format!("{}–{}", g.start(), g.end())
                }
            })
            .collect();
        let more = if r.gaps.len() > 5 { ", …" } else { "" };
        parts.push(format!(
            "{missing} record{} never written (seq {}{more})",
            if missing == 1 { "" } else { "s" },
            ranges.join(", ")
        ));
    }
    if let Some(t) = &r.torn_tail {
        match &t.set_aside {
            Some(p) => parts.push(format!(
                "an incomplete last line ({} bytes) was set aside to {}",
                t.len,
                p.display()
            )),
            None => parts.push(format!("an incomplete last line ({} bytes)", t.len)),
        }
    }
    if parts.is_empty() {
        "clean".to_owned()
    } else {
        parts.join("; ")
    }
}

/// A change to the goal board, as a Markdown export's line says it.
pub fn goal_change(change: &GoalChange) -> String {
    use crate::store::export::one_line;
    match change {
        GoalChange::SetGoal {
            description,
            priority,
        } => format!(
            "Goal set: {} ({priority:?} priority)",
            one_line(description)
        ),
        GoalChange::GoalStatus { status } => format!("Goal marked {status:?}"),
        GoalChange::Checkpoint {
            description,
            status,
        } => format!(
            "Goal checkpoint {} — {}",
            one_line(description),
            status.marker()
        ),
        GoalChange::Decision { text, locked } => {
            let lock = if *locked { " (locked)" } else { "" };
            format!("Decision{lock}: {}", one_line(text))
        }
        GoalChange::Lock { id } => format!("Decision #{id} locked"),
        GoalChange::Unlock { id } => format!("Decision #{id} unlocked"),
        GoalChange::DeleteDecision { id } => format!("Decision #{id} deleted"),
        GoalChange::Artifact { action, path } => {
            format!(
                "Artifact {} `{}`",
                action.as_str(),
                one_line(path).replace('`', "'")
            )
        }
        GoalChange::Next { text } => format!("Next step: {}", one_line(text)),
        GoalChange::Clear => "Goal board cleared".to_string(),
    }
}

/// A change of the session's system prompt or a parameter, as the transcript says it.
pub fn param_change(change: &ParamChange) -> String {
    match change {
        ParamChange::System(Some(text)) => format!(
            "System prompt set ({} characters): sent with every message of this session, after the app's own instructions.",
            text.chars().count()
        ),
        ParamChange::System(None) => "System prompt cleared.".to_string(),
        // The actor says it (`Notice::ThinkSet`, with whether the model can think).
        ParamChange::Think(Some(word)) => format!("Thinking: {word} for this session."),
        ParamChange::Think(None) => "Thinking: back to the default.".to_string(),
        ParamChange::Set(param, Some(v)) => {
            format!("{} set to {v} for this session.", param.name())
        }
        ParamChange::Set(Param::NumPredict, None) => {
            "num_predict back to the default (the room left for the reply).".to_string()
        }
        ParamChange::Set(Param::Temperature, None) => {
            "temperature back to the default (the config file's, else the model's).".to_string()
        }
        ParamChange::Set(param, None) => {
            format!("{} back to the default (the model's).", param.name())
        }
    }
}

/// `/set` or `/system` alone: what this session sends, one line each.
pub fn params_listing(p: &SessionParams, config_temperature: Option<f32>) -> String {
    let mut lines = vec![match &p.system {
        Some(text) => format!("system: {}", text.trim()),
        None => "system: none (/system TEXT sets one)".to_string(),
    }];
    for param in Param::ALL {
        let value = match (p.get(param), param, config_temperature) {
            (Some(v), _, _) => v.to_string(),
            (None, Param::Temperature, Some(t)) => {
                format!(
                    "default (the config file's {})",
                    ParamValue::Float(f64::from(t))
                )
            }
            (None, Param::NumPredict, _) => "default (the room left for the reply)".to_string(),
            (None, _, _) => "default (the model's)".to_string(),
        };
        lines.push(format!("{}: {value}", param.name()));
    }
    if let Some(word) = &p.think {
        lines.push(format!("think: {word} (/think default resets it)"));
    }
    lines.push(
        "Change one with /set NAME VALUE, reset it with /set NAME default; /system clear drops the system prompt."
            .to_string(),
    );
    lines.join("\n")
}

/// Said in a new session started with `/new`: that the one left is kept, and how to get
/// back to it. `previous` names it (id and title), `None` when it had nothing to keep.
pub fn new_session(previous: Option<(&str, &str)>) -> Words {
    match previous {
        Some((name, short)) => Words::with_hint(
            format!("New session. The previous one ({name}) is saved."),
            format!("Go back to it with /sessions, or later: ollm-tui --resume {short}"),
        ),
        None => Words::with_hint(
            "New session.",
            "The previous one had no messages, so there was nothing to save.",
        ),
    }
}

/// Said in a fork once it is open: where it came from and what it kept.
pub fn forked(at: MessageId, id: &str, model: &str, ctx: Option<u32>, mode: &str) -> Words {
    let ctx = match ctx {
        Some(c) => format!("context {}", crate::ui::text::thousands(u64::from(c))),
        None => "the model's own context".to_string(),
    };
    Words::with_hint(
        format!("Forked at #{} into session {id}.", at.0),
        format!(
            "Model ({model}), {ctx}, mode ({mode}), system prompt and parameters kept; the session you forked from is unchanged."
        ),
    )
}
