//! The typed notices from the actor in words (`notice`), banners with their fix among
//! them; an engine event inside one is worded by `events.rs`. Also the notice the app
//! raises itself when the actor does not take a command. Apart because it is the one long
//! match every new `Notice` variant extends.

use super::events::event;
use super::{KeyNames, SNAPSHOT_FIX, Words, records};
use crate::llm::LlmError;
use crate::view::{Found, Notice, RestoreLookup};

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
        Notice::ReplyTimed(t) => Words::line(reply_timing(t)),
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
        Notice::NotChatModel { model } => Words::with_hint(
            format!("Model \"{model}\" makes embeddings only: it cannot chat."),
            format!(
                "Pick a chat model with {}; an embedding model serves recall by meaning by itself. Your messages are saved.",
                keys.models
            ),
        ),
        Notice::ImagesMissing { names } => Words::with_hint(
            format!(
                "{} of this session's pictures {} missing or changed since {} attached: {}.",
                names.len(),
                if names.len() == 1 { "is" } else { "are" },
                if names.len() == 1 {
                    "it was"
                } else {
                    "they were"
                },
                names.join(", ")
            ),
            "Their messages are kept and go to the model without them.",
        ),
        Notice::RecallByMeaning { model } => Words::line(format!(
            "Recall finds earlier lines by meaning too from now on, with {model}."
        )),
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
        Notice::LongInput(outcome) => long_input(outcome),
        Notice::ReplyTooLong { error } => {
            let figures = match error {
                crate::llm::LlmError::ReplyTooLong {
                    lines,
                    bytes,
                    max_lines,
                    max_bytes,
                } => format!(
                    " ({} tokens and {} so far; a reply may hold {} tokens or {} here)",
                    crate::ui::text::thousands(*lines),
                    crate::ui::text::bytes(*bytes as u64),
                    crate::ui::text::thousands(*max_lines),
                    crate::ui::text::bytes(*max_bytes as u64)
                ),
                _ => String::new(),
            };
            Words::with_hint(
                format!(
                    "Stopped reading the reply: the server kept sending past its cap{figures}. What arrived is kept, marked interrupted."
                ),
                "The app stops reading a quarter past num_predict (/set num_predict), or past the context, whatever the server does. /retry asks again.",
            )
        }
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
                "{} wait to be written: the disk is full or the data folder cannot be written (see the error above). Free space or fix its permissions, then /retry: the log is written first, then the message goes out.",
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

/// `/set verbose`'s line after a reply, in `ollama run --verbose`'s terms on one line:
/// `total duration 6.1 s · load duration 12 ms · prompt eval 26 tokens, 4,000 tokens/s ·
/// eval 290 tokens, 50.0 tokens/s`. What the server left out is left out.
pub fn reply_timing(t: &crate::core::speed::CallTiming) -> String {
    use crate::ui::text::thousands;
    let mut parts = Vec::new();
    if let Some(d) = t.total_time {
        parts.push(format!("total duration {}", duration(d)));
    }
    // A few milliseconds for a model already in memory, as `ollama run` shows it too;
    // seconds when it had to be loaded. A server that reports none gets no segment.
    if let Some(d) = t.load_time.filter(|d| !d.is_zero()) {
        parts.push(format!("load duration {}", duration(d)));
    }
    let count = |label: &str, tokens: Option<u32>, rate: Option<f64>| {
        let tokens = tokens?;
        let n = thousands(u64::from(tokens));
        let unit = if tokens == 1 { "token" } else { "tokens" };
        Some(match rate {
            Some(r) => format!("{label} {n} {unit}, {} tokens/s", speed(r)),
            None => format!("{label} {n} {unit}"),
        })
    };
    parts.extend(count("prompt eval", t.prompt_tokens, t.prompt_rate()));
    parts.extend(count("eval", t.output_tokens, t.output_rate()));
    if parts.is_empty() {
        return "The server reported no timing for this reply.".to_string();
    }
    parts.join(" · ")
}

/// A duration as a person reads it: milliseconds below a second, else seconds.
fn duration(d: std::time::Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 1.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else if ms < 60_000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else {
        let secs = d.as_secs();
        format!("{}m{:02}s", secs / 60, secs % 60)
    }
}

/// Tokens a second: one decimal while small, whole (with separators) once large.
fn speed(rate: f64) -> String {
    if rate < 100.0 {
        format!("{rate:.1}")
    } else {
        crate::ui::text::thousands(rate.round() as u64)
    }
}

/// What became of a message too long for the context.
fn long_input(outcome: &crate::core::read_through::InputOutcome) -> Words {
    use crate::core::read_through::InputOutcome as O;
    let limit_hint = |limit: u32| {
        format!("Raise [tools] digest_max_secs (now {limit}) to wait for readings this long.")
    };
    match outcome {
        O::Read {
            parts,
            tokens,
            secs,
        } => Words::line(format!(
            "The message was too long for the context: the model read all {} tokens of it in {parts} parts ({secs} s) and answers from its notes.",
            crate::view::thousands(u64::from(*tokens))
        )),
        O::TooSlow { secs, limit, .. } => Words::with_hint(
            format!(
                "The message is too long for the context, and reading it through would take about {secs} s: the model gets its start and end."
            ),
            limit_hint(*limit),
        ),
        O::Failed { error } => Words::line(format!(
            "The message could not be read through ({error}): the model gets its start and end."
        )),
        O::Stopped => Words::line(
            "Reading the message through was stopped: the model gets its start and end.",
        ),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::speed::CallTiming;
    use std::time::Duration;

    #[test]
    fn the_timing_line_says_what_ollama_run_verbose_says() {
        let t = CallTiming {
            prompt_tokens: Some(26),
            prompt_time: Some(Duration::from_micros(6_500)),
            output_tokens: Some(290),
            output_time: Some(Duration::from_millis(5_800)),
            total_time: Some(Duration::from_millis(5_820)),
            load_time: Some(Duration::from_micros(12_345)),
        };
        assert_eq!(
            reply_timing(&t),
            "total duration 5.82 s · load duration 12 ms · prompt eval 26 tokens, 4,000 tokens/s · eval 290 tokens, 50.0 tokens/s"
        );
        let bare = CallTiming {
            output_tokens: Some(1),
            total_time: Some(Duration::from_secs(75)),
            load_time: Some(Duration::ZERO),
            ..CallTiming::default()
        };
        assert_eq!(reply_timing(&bare), "total duration 1m15s · eval 1 token");
        assert!(reply_timing(&CallTiming::default()).contains("no timing"));
    }
}
