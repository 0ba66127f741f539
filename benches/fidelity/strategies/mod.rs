//! The strategies compared, each driven through the same script on the same backend:
//!
//! - `ours`: the product path — the session actor over real HTTP, its engine compressing
//!   into checkpoints, the locked decision on the goal board;
//! - `rolling`: Ollama's own agent's rule — when the last prompt reached 80 % of num_ctx,
//!   one call turns the previous summary plus the archived messages into a new summary;
//!   below a 16K context it keeps no turns verbatim (above, the last 3 user turns). A
//!   request the server refuses as too long makes it compact and send the turn again once;
//! - `truncate`: Ollama's default without a client that manages context — the oldest
//!   messages are dropped until the request fits. With the server's request log
//!   (`Setup::server_log`) the server does it: everything the client still holds goes,
//!   without `truncate: false`, and after each turn the messages the log says it dropped
//!   leave the context for good. Without the log it is estimated: we drop them ourselves by our
//!   tokenizer's count, and as the server counts with the model's, a refusal drops one more
//!   and sends again, and is not counted (Ollama would not have refused).
//!
//! The baselines state the locked decision in the first message, as a person without a
//! goal board would. Every strategy's replies may use what is left of the context, as
//! ours do.

mod baseline;
mod ours;

use super::recorder::Calls;
use super::scenarios::Scenario;
use futures_util::StreamExt;
use ollm_tui::core::tokens::Tokenizer;
use ollm_tui::llm::{ChatBackend, ChatRequest, ChatRole, LlmError, StreamEvent};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    Ours,
    Rolling,
    Truncate,
}

impl Strategy {
    pub const ALL: [Strategy; 3] = [Strategy::Ours, Strategy::Rolling, Strategy::Truncate];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Ours => "ours",
            Strategy::Rolling => "rolling",
            Strategy::Truncate => "truncate",
        }
    }
}

/// What the script is driven with.
#[derive(Clone)]
pub struct Setup {
    pub model: String,
    pub ctx: u32,
    /// Seconds the person pauses after a reply before the next message is sent.
    pub think: Duration,
    /// When set, the pause also grows with what there is to read and to type.
    pub pace: Option<Pace>,
    pub tok: Arc<dyn Tokenizer>,
    /// Reply sampling temperature (`None`: the model's default, as the app ships).
    pub temperature: Option<f32>,
    /// Tools offered to a tools-capable model, as the app ships (`false`: `--tools off`).
    pub tools: bool,
    /// A cap on every reply, for every strategy alike (`/set num_predict N` for ours):
    /// `None` as shipped, where a small model may write until the window is full.
    pub num_predict: Option<u32>,
    /// Longest a turn may take before the run is abandoned.
    pub turn_timeout: Duration,
    /// The model server's request log (`ollama-real --log FILE`), when it writes one: the
    /// truncation baseline lets the server truncate and reads what it kept from here, and
    /// every run counts the requests the server cut.
    pub server_log: Option<PathBuf>,
}

/// How fast the person reads and types. A fixed pause alone makes a person who answers
/// a 300-word reply in five seconds: no compression can run while nobody reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    pub read_words_per_min: f64,
    pub type_words_per_min: f64,
}

impl Pace {
    /// Common adult averages: reading on a screen ~250 words a minute, typing ~40.
    pub const TYPICAL: Pace = Pace {
        read_words_per_min: 250.0,
        type_words_per_min: 40.0,
    };

    /// Time to read `reply_words` and type `message_words`.
    pub fn time(&self, reply_words: usize, message_words: usize) -> Duration {
        let minutes = reply_words as f64 / self.read_words_per_min.max(1.0)
            + message_words as f64 / self.type_words_per_min.max(1.0);
        Duration::from_secs_f64(minutes * 60.0)
    }
}

/// The pause before `next` is sent: the fixed think time, plus reading the last reply
/// (its length as the server counted it, ~0.75 words a token) and typing `next`.
fn pause(setup: &Setup, calls: &super::recorder::Calls, next: &str) -> Duration {
    let Some(pace) = setup.pace else {
        return setup.think;
    };
    let reply_tokens = calls
        .lock()
        .ok()
        .and_then(|c| {
            c.iter()
                .rev()
                .find(|c| c.kind == super::recorder::CallKind::Reply)
                .and_then(|c| c.output_tokens)
        })
        .unwrap_or(0);
    let reply_words = (f64::from(reply_tokens) * 0.75) as usize;
    setup.think + pace.time(reply_words, next.split_whitespace().count())
}

/// One turn as the person lived it.
#[derive(Debug, Clone, Copy)]
pub struct TurnTiming {
    pub sent: Instant,
    /// When the reply was complete (or the turn failed).
    pub done: Instant,
    /// The turn got no reply (blocked, failed).
    pub failed: bool,
}

/// The compression passes of a run, as the strategy reported them: a pass is one decision
/// to compress (ours: one `Compressed` event of the engine, whatever it folded, aged or
/// merged; rolling: one compaction), so passes per turn say how often the person's chat
/// was interrupted for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Passes {
    pub total: u32,
    /// Passes made because the next request would not fit after a normal one (ours:
    /// reason `emergency`, or an intensity above normal).
    pub emergency: u32,
    /// Passes made because the server refused (or cut) a request, before sending it again.
    pub overflow: u32,
    /// Checkpoint merges (ours), counted apart from the passes that made them.
    pub merges: u32,
}

/// Where a run's final context comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeptBy {
    /// The client sent exactly this (ours, rolling).
    Sent,
    /// The server truncated, and its request log said what it dropped.
    ServerLog,
    /// Truncated by the client, by our tokenizer's count: an estimate of what the
    /// server would have kept.
    Estimated,
}

/// A finished run of one strategy over one scenario.
pub struct Run {
    pub strategy: Strategy,
    /// The messages the next request would carry: (role, text).
    pub context: Vec<(ChatRole, String)>,
    pub kept_by: KeptBy,
    /// Every model call the strategy made (quiz calls are not included).
    pub calls: Calls,
    pub turns: Vec<TurnTiming>,
    /// Checkpoints made (ours) or compactions (rolling).
    pub compressions: u32,
    pub passes: Passes,
    pub started: Instant,
    pub ended: Instant,
    /// The full conversation (for the ceiling).
    pub transcript: Vec<(ChatRole, String)>,
    /// How a question goes out after the run, when the strategy builds its requests
    /// itself: ours asks through its engine, so what the engine adds for a message
    /// (recall from the log) is part of the answer. `None`: the context, then the
    /// question.
    pub ask: Option<Asker>,
}

/// The request a strategy would send for a question: (role, text) messages.
pub type Asker = Box<dyn Fn(&str) -> Vec<(ChatRole, String)> + Send + Sync>;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("the model server failed: {0}")]
    Llm(#[from] LlmError),
    #[error("turn {turn} did not finish within {after:?}")]
    Timeout { turn: usize, after: Duration },
    #[error("the session stopped: {0}")]
    Stopped(String),
    #[error("the server's request log {path}: {error}")]
    ServerLog { path: PathBuf, error: String },
}

impl RunError {
    /// The server's request log could not be read.
    pub(crate) fn log(path: &std::path::Path, e: &std::io::Error) -> RunError {
        RunError::ServerLog {
            path: path.to_path_buf(),
            error: e.to_string(),
        }
    }
}

/// Run `strategy` over `scenario`.
pub async fn run<B: crate::fidelity::Backend>(
    strategy: Strategy,
    backend: &B,
    scenario: &Scenario,
    setup: &Setup,
) -> Result<Run, RunError> {
    match strategy {
        Strategy::Ours => ours::ours(backend.clone(), scenario, setup).await,
        Strategy::Rolling | Strategy::Truncate => {
            baseline::baseline(strategy, backend.clone(), scenario, setup).await
        }
    }
}

/// Stream a reply to its end: its text and the server's prompt count.
async fn stream<B: ChatBackend>(
    backend: &B,
    req: ChatRequest,
) -> Result<(String, Option<u32>), LlmError> {
    let mut s = backend.chat_stream(req).await?;
    let mut text = String::new();
    while let Some(ev) = s.next().await {
        match ev? {
            StreamEvent::Delta(d) => text.push_str(&d),
            StreamEvent::Thinking(_) | StreamEvent::ToolCalls(_) => {}
            StreamEvent::Done(stats) => return Ok((text, stats.prompt_eval_count)),
        }
    }
    Ok((text, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typical_person_takes_a_minute_for_a_long_reply_and_a_short_answer() {
        // 250 words to read (1 min) and 20 to type (30 s).
        let t = Pace::TYPICAL.time(250, 20);
        assert_eq!(t.as_secs(), 90);
        assert_eq!(Pace::TYPICAL.time(0, 0), Duration::ZERO);
    }
}
