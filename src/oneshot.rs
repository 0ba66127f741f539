//! One message without the TUI: `ollm-tui -m MODEL "explain this" < file.rs`, `git diff |
//! ollm-tui "write a commit message"`. The prompt (with what came on stdin attached) is
//! sent through the same session actor and engine as the chat, so it is kept as a session
//! like any other; the reply streams to stdout as it arrives, and anything that keeps it
//! from coming (no server, no such model, a refused or broken request) is an error with
//! the reason, never a reply that is silently missing.

use crate::actor::{Command, Spawned};
use crate::core::engine::Request;
use crate::core::message::ReplyStatus;
use crate::core::read_through::{InputOutcome, LongInput};
use crate::core::sanitize::Scrubber;
use crate::view::{Connection, Notice, Update};
use std::io::Write;

/// Why the message got no (whole) reply. The words are the ones the person reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Failure(pub String);

/// Why [`send`] stopped early.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Stopped {
    #[error(transparent)]
    Failed(#[from] Failure),
    /// Whoever read stdout has gone (`| head`): they had enough; not an error.
    #[error("the reader of stdout has gone")]
    ReaderGone,
}

/// The message to send: the prompt, then stdin's text in a fence of its own, so the model
/// (and whoever reads the session later) sees exactly where the input starts and ends. A
/// fence is longer than any run of backticks in the text, so the text cannot close it.
pub fn compose(prompt: Option<&str>, input: Option<&str>) -> Result<String, Failure> {
    let prompt = prompt.map(str::trim).filter(|p| !p.is_empty());
    let input = input.filter(|i| !i.trim().is_empty());
    match (prompt, input) {
        (None, None) => Err(Failure(
            "nothing to send: the prompt is empty and so is stdin".into(),
        )),
        (Some(p), None) => Ok(p.to_string()),
        (None, Some(i)) => Ok(i.to_string()),
        (Some(p), Some(i)) => {
            let longest = i.split(|c| c != '`').map(str::len).max().unwrap_or(0);
            let fence = "`".repeat((longest + 1).max(3));
            let body = i.strip_suffix('\n').unwrap_or(i);
            Ok(format!(
                "{p}\n\nInput (from stdin):\n{fence}\n{body}\n{fence}"
            ))
        }
    }
}

/// What is sent: the composed message, and its parts for when it is too long for the
/// context and is read through (`core::read_through`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    pub message: String,
    prompt: String,
    input: Option<String>,
    choice: LongInput,
}

/// [`compose`], keeping the prompt and stdin apart for a read-through; `choice`: what the
/// person chose for input too long for the context (`--long-input`).
pub fn outgoing(
    prompt: Option<&str>,
    input: Option<&str>,
    choice: LongInput,
) -> Result<Outgoing, Failure> {
    let message = compose(prompt, input)?;
    Ok(Outgoing {
        message,
        prompt: prompt.map(str::trim).unwrap_or_default().to_string(),
        input: input.filter(|i| !i.trim().is_empty()).map(str::to_string),
        choice,
    })
}

/// Send `message` to the session `spawned` runs and write the reply to `out` as it
/// streams. Returns once the reply is whole; the caller shuts the actor down.
pub async fn send<S>(
    spawned: &mut Spawned<S>,
    message: Outgoing,
    out: &mut impl Write,
) -> Result<(), Stopped> {
    // The actor checks the server first; what it finds decides whether to send at all.
    let mut view = spawned.view.clone();
    let connection = view
        .wait_for(|v| !matches!(v.connection, Connection::Connecting))
        .await
        .map_err(|_| Failure("the session stopped before it connected".into()))?
        .connection
        .clone();
    match connection {
        Connection::Connected { .. } | Connection::Connecting => {}
        Connection::Unreachable { url, error } => {
            return Err(Failure(format!(
                "cannot reach Ollama at {url}: {error} (is `ollama serve` running? --host or \
                 OLLAMA_HOST name another server)"
            ))
            .into());
        }
        Connection::ModelMissing { model } => {
            return Err(Failure(format!(
                "model {model:?} is not installed on the server (`ollama pull {model}`, or \
                 name another with -m; `ollama list` shows what is installed)"
            ))
            .into());
        }
        Connection::NotChat { model } => {
            return Err(Failure(format!(
                "model {model:?} makes embeddings only and cannot chat (name a chat model with \
                 -m; `ollama list` shows what is installed)"
            ))
            .into());
        }
        Connection::NoModels => {
            return Err(Failure(
                "the Ollama server has no model installed (`ollama pull llama3.2`, for one)".into(),
            )
            .into());
        }
    }
    let command = match message.input {
        // With stdin attached it may not fit: the actor reads it through or clips it.
        Some(input) => Command::SendInput {
            request: message.prompt,
            input,
            message: message.message,
            choice: message.choice,
        },
        None => Command::Request(Request::Send {
            text: message.message,
            images: Vec::new(),
        }),
    };
    spawned
        .handle
        .send(command)
        .await
        .map_err(|_| Failure("the session stopped before the message was sent".into()))?;
    let mut printer = Printer {
        out,
        at_line_start: true,
        scrub: Scrubber::default(),
    };
    while let Some(update) = spawned.updates.recv().await {
        match update {
            Update::Delta(d) => printer.print(&d)?,
            Update::ReplyEnd { status, .. } => {
                printer.end_line()?;
                if status == ReplyStatus::Complete {
                    return Ok(());
                }
                // Why it ended is said right after: once the actor is idle again, its
                // notice is in the queue.
                let _ = view
                    .wait_for(|v| v.activity == crate::view::Activity::Idle)
                    .await;
                while let Ok(update) = spawned.updates.try_recv() {
                    if let Update::Notice(n) | Update::Banner(n) = update
                        && let Some(why) = failure(&n)
                    {
                        return Err(Failure(why).into());
                    }
                }
                return Err(Stopped::Failed(Failure(format!(
                    "the reply did not finish ({status:?}); what arrived is printed above and \
                     kept in the session"
                ))));
            }
            Update::Notice(n) | Update::Banner(n) => {
                if let Some(why) = failure(&n) {
                    printer.end_line()?;
                    return Err(Failure(why).into());
                }
                // Read through or clipped, and why: said on stderr (stdout stays the reply).
                if let Notice::LongInput(outcome) = &n {
                    eprintln!("{}", long_input_line(outcome));
                }
                // The TUI shows this as a banner; a pipe must not cut the input silently
                // (stdout stays the reply alone).
                if let Notice::Engine(crate::core::events::EngineEvent::MessageClipped {
                    omitted_tokens,
                    total_tokens,
                    fits_ctx,
                    ..
                }) = n
                {
                    eprintln!(
                        "{}",
                        clipped_warning(omitted_tokens, total_tokens, fits_ctx)
                    );
                }
            }
            Update::Closed => break,
            _ => {}
        }
    }
    Err(Failure("the session stopped before the reply ended".into()).into())
}

/// The reply as it streams: each piece written and flushed at once, and the last line
/// ended, so the shell's prompt starts on a line of its own. What it carries that a
/// terminal would act on is scrubbed as the TUI scrubs (`core::sanitize`), to a terminal
/// or a pipe alike: escape sequences with their payload (`ESC ] 52 ; c ; …` leaves nothing,
/// even split between two pieces), other controls but newline and tab, bidi controls.
struct Printer<'a, W: Write> {
    out: &'a mut W,
    at_line_start: bool,
    scrub: Scrubber,
}

impl<W: Write> Printer<'_, W> {
    fn print(&mut self, text: &str) -> Result<(), Stopped> {
        let text = self.scrub.push(text);
        if text.is_empty() {
            return Ok(());
        }
        self.at_line_start = text.ends_with('\n');
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::BrokenPipe => Stopped::ReaderGone,
                _ => Failure(format!("cannot write the reply to stdout: {e}")).into(),
            })
    }

    fn end_line(&mut self) -> Result<(), Stopped> {
        if self.at_line_start {
            Ok(())
        } else {
            self.print("\n")
        }
    }
}

/// What a person piping a file longer than the window is told on stderr: what the model
/// saw of it, and the `--ctx` that would send it whole.
fn clipped_warning(omitted_tokens: u32, total_tokens: u32, fits_ctx: Option<u32>) -> String {
    use crate::view::thousands;
    let saw = if total_tokens > omitted_tokens {
        format!(
            "the model saw {} of its {} tokens: the start and the end ({} of the middle left out)",
            thousands(u64::from(total_tokens - omitted_tokens)),
            thousands(u64::from(total_tokens)),
            thousands(u64::from(omitted_tokens)),
        )
    } else {
        format!(
            "the model saw its start and end ({} tokens of the middle left out)",
            thousands(u64::from(omitted_tokens))
        )
    };
    let again = match fits_ctx {
        Some(n) => format!("--ctx {n} would send it whole"),
        None => "a larger --ctx N would send it whole".into(),
    };
    format!("ollm-tui: warning: the input is longer than the model's context: {saw}. {again}.")
}

/// What became of input too long for the context, for stderr.
fn long_input_line(outcome: &InputOutcome) -> String {
    use crate::view::thousands;
    match outcome {
        InputOutcome::Read {
            parts,
            tokens,
            secs,
        } => format!(
            "ollm-tui: the input is longer than the model's context: read through in {parts} \
             parts ({secs} s): the model read all {} tokens and answers from its notes on \
             each part. --long-input clip sends its start and end instead.",
            thousands(u64::from(*tokens))
        ),
        InputOutcome::TooSlow {
            secs,
            limit,
            measured,
            after,
        } => {
            let how = match (measured, after) {
                (true, 0) => "at this server's measured speed".to_string(),
                (true, n) => format!("as measured on its first {n} part(s)"),
                (false, _) => "even at a fast GPU's speed".to_string(),
            };
            format!(
                "ollm-tui: not read through: reading the input in parts would take about \
                 {secs} s {how}, over the {limit} s limit ([tools] digest_max_secs; \
                 --long-input read reads it anyway)."
            )
        }
        InputOutcome::Failed { error } => {
            format!("ollm-tui: warning: the input could not be read through ({error}).")
        }
        InputOutcome::Stopped => "ollm-tui: reading the input through was stopped.".into(),
    }
}

/// The notices that mean no reply is coming.
fn failure(n: &Notice) -> Option<String> {
    match n {
        Notice::Unreachable { url, error } => {
            Some(format!("cannot reach Ollama at {url}: {error}"))
        }
        Notice::ModelMissing { model, .. } => Some(format!(
            "model {model:?} is not installed on the server (`ollama pull {model}`)"
        )),
        Notice::NoModels => Some("the Ollama server has no model installed".into()),
        Notice::NotChatModel { model } => Some(format!(
            "model {model:?} makes embeddings only and cannot chat"
        )),
        Notice::RequestFailed { error } => Some(format!(
            "the request failed: {error} (the message is kept in the session)"
        )),
        Notice::ReplyBrokeOff { error } => Some(format!(
            "the reply broke off: {error} (what arrived is kept in the session)"
        )),
        Notice::ReplyTooLong { error } => Some(format!(
            "{error}: the rest was not read (what arrived is printed above and kept in the \
             session)"
        )),
        Notice::Engine(crate::core::events::EngineEvent::Refused { error }) => {
            Some(format!("the message was refused: {error}"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdin_is_attached_in_a_fence_it_cannot_close() {
        let m = compose(Some("explain this"), Some("fn main() {}\n")).unwrap_or_default();
        assert_eq!(
            m,
            "explain this\n\nInput (from stdin):\n```\nfn main() {}\n```"
        );
        let m = compose(Some("review"), Some("a ```` b")).unwrap_or_default();
        assert!(m.contains("\n`````\na ```` b\n`````"), "{m}");
        assert_eq!(
            compose(None, Some("just this")).unwrap_or_default(),
            "just this"
        );
        assert_eq!(
            compose(Some(" hi "), Some("  \n")).unwrap_or_default(),
            "hi"
        );
        assert!(compose(Some("  "), Some("")).is_err());
        assert!(compose(None, None).is_err());
    }

    /// The issue's output (#36): U+202E kept, and an OSC 52's payload printed once its
    /// ESC was dropped; here split between pieces as a stream splits it.
    #[test]
    fn escape_sequences_and_their_payload_never_reach_the_output() {
        let mut out = Vec::new();
        let mut p = Printer {
            out: &mut out,
            at_line_start: true,
            scrub: Scrubber::default(),
        };
        for piece in [
            "a\u{1b}[3",
            "1mb\u{7}\tc \u{1b}]5",
            "2;c;ZXZpbA==",
            "\u{7}d\u{202E}e\n",
        ] {
            assert!(p.print(piece).is_ok());
        }
        assert_eq!(String::from_utf8_lossy(&out), "ab\tc de\n");
    }
}
