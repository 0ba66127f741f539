//! The strategies compared, each driven through the same script on the same backend:
//!
//! - `ours`: the product path — the session actor over real HTTP, its engine compressing
//!   into checkpoints, the locked decision on the goal board;
//! - `rolling`: Ollama's own agent's rule — when the last prompt reached 80 % of num_ctx,
//!   one call turns the previous summary plus the archived messages into a new summary;
//!   below a 16K context it keeps no turns verbatim (above, the last 3 user turns). A
//!   request the server refuses as too long makes it compact and send the turn again once;
//! - `truncate`: Ollama's default without a client that manages context — the oldest
//!   messages are dropped until the request fits. We count with our tokenizer, the server
//!   with the model's, so a refusal drops one more and sends again, and is not counted
//!   (Ollama, counting with the model's tokenizer, would not have refused).
//!
//! The baselines state the locked decision in the first message, as a person without a
//! goal board would. Every strategy's replies may use what is left of the context, as
//! ours do.

use super::recorder::{Calls, Recording};
use super::scenarios::Scenario;
use crate::actor::{self, ActorConfig, Command, Parts, StoreSlot};
use crate::core::engine::{Engine, EngineConfig, Request, SessionSpec};
use crate::core::goals::GoalChange;
use crate::core::mode::Mode;
use crate::core::prompts::Prompts;
use crate::core::tokens::Tokenizer;
use crate::llm::{
    ChatBackend, ChatMessage, ChatOptions, ChatRequest, ChatRole, LlmError, StreamEvent,
};
use crate::store::MemoryStore;
use crate::view::{Connection, Notice, Update};
use futures_util::StreamExt;
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
    /// Reply sampling temperature (`None`: the model's default).
    pub temperature: Option<f32>,
    /// Longest a turn may take before the run is abandoned.
    pub turn_timeout: Duration,
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

/// A finished run of one strategy over one scenario.
pub struct Run {
    pub strategy: Strategy,
    /// The messages the next request would carry: (role, text).
    pub context: Vec<(ChatRole, String)>,
    /// Every model call the strategy made (quiz calls are not included).
    pub calls: Calls,
    pub turns: Vec<TurnTiming>,
    pub compressions: u32,
    pub started: Instant,
    pub ended: Instant,
    /// The full conversation (for the ceiling).
    pub transcript: Vec<(ChatRole, String)>,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("the model server failed: {0}")]
    Llm(#[from] LlmError),
    #[error("turn {turn} did not finish within {after:?}")]
    Timeout { turn: usize, after: Duration },
    #[error("the session stopped: {0}")]
    Stopped(String),
}

/// Run `strategy` over `scenario`.
pub async fn run<B: ChatBackend + Clone>(
    strategy: Strategy,
    backend: &B,
    scenario: &Scenario,
    setup: &Setup,
) -> Result<Run, RunError> {
    match strategy {
        Strategy::Ours => ours(backend.clone(), scenario, setup).await,
        Strategy::Rolling | Strategy::Truncate => {
            baseline(strategy, backend.clone(), scenario, setup).await
        }
    }
}

async fn ours<B: ChatBackend>(
    backend: B,
    scenario: &Scenario,
    setup: &Setup,
) -> Result<Run, RunError> {
    let backend = Recording::new(backend);
    let calls = backend.calls.clone();
    let engine = Engine::new(
        SessionSpec {
            session_id: format!("fidelity-{}", scenario.name),
            model: setup.model.clone(),
            mode: Mode::Assistant,
            ctx: Some(setup.ctx),
        },
        EngineConfig::default(),
        setup.tok.clone(),
        Arc::new(Prompts::builtin()),
        chrono::Utc::now(),
    );
    let header = engine.header("fidelity");
    let spawned = actor::spawn(Parts {
        backend,
        summary_backend: None,
        engine: Box::new(move || engine),
        store: StoreSlot::Open(MemoryStore::new(header)),
        config: ActorConfig {
            temperature: setup.temperature,
            reconnect_after: Duration::from_secs(3600),
            ..ActorConfig::default()
        },
        model: None,
    });
    let actor::Spawned {
        handle,
        mut updates,
        mut view,
        task,
    } = spawned;
    let stopped = |e: &dyn std::fmt::Display| RunError::Stopped(e.to_string());
    tokio::time::timeout(
        setup.turn_timeout,
        view.wait_for(|v| matches!(v.connection, Connection::Connected { .. })),
    )
    .await
    .map_err(|_| RunError::Stopped("could not connect".into()))?
    .map_err(|e| stopped(&e))?;
    handle
        .send(Command::Request(Request::Goal {
            change: GoalChange::Decision {
                text: scenario.locked.to_string(),
                locked: true,
            },
        }))
        .await
        .map_err(|e| stopped(&e))?;
    let started = Instant::now();
    let mut turns = Vec::new();
    for (i, text) in scenario.turns.iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(pause(setup, &calls, text)).await;
        }
        let sent = Instant::now();
        handle
            .send(Command::Request(Request::Send { text: text.clone() }))
            .await
            .map_err(|e| stopped(&e))?;
        let failed = tokio::time::timeout(setup.turn_timeout, reply_ended(&mut updates))
            .await
            .map_err(|_| RunError::Timeout {
                turn: i,
                after: setup.turn_timeout,
            })?;
        turns.push(TurnTiming {
            sent,
            done: Instant::now(),
            failed,
        });
    }
    // What runs after the last reply (a compression) finishes before the end.
    drop(handle);
    let exit = task.await.map_err(|e| stopped(&e))?;
    let ended = Instant::now();
    let prompt = exit.engine.prompt();
    let role = |r: crate::core::engine::PromptRole| match r {
        crate::core::engine::PromptRole::System => ChatRole::System,
        crate::core::engine::PromptRole::User => ChatRole::User,
        crate::core::engine::PromptRole::Assistant => ChatRole::Assistant,
        crate::core::engine::PromptRole::Tool => ChatRole::Tool,
    };
    let transcript = exit
        .engine
        .history()
        .iter()
        .map(|m| {
            let r = match m.role {
                crate::core::message::Role::User => ChatRole::User,
                crate::core::message::Role::Assistant => ChatRole::Assistant,
                crate::core::message::Role::Tool => ChatRole::Tool,
            };
            (r, m.text.clone())
        })
        .collect();
    Ok(Run {
        strategy: Strategy::Ours,
        context: prompt
            .messages
            .into_iter()
            .map(|m| (role(m.role), m.content))
            .collect(),
        calls,
        turns,
        compressions: exit.engine.compressions(),
        started,
        ended,
        transcript,
    })
}

/// Wait for the turn's reply to end; true when the turn ended without one.
async fn reply_ended(updates: &mut tokio::sync::mpsc::UnboundedReceiver<Update>) -> bool {
    while let Some(u) = updates.recv().await {
        match u {
            Update::ReplyEnd { id: Some(_), .. } => return false,
            Update::ReplyEnd { id: None, .. } => {}
            Update::Banner(Notice::Engine(crate::core::events::EngineEvent::Blocked(_)))
            | Update::Banner(Notice::RequestFailed { .. })
            | Update::Banner(Notice::ReplyBrokeOff { .. }) => return true,
            _ => {}
        }
    }
    true
}

/// Ollama's agent keeps no turns verbatim below this context.
const KEEP_TURNS_FROM_CTX: u32 = 16_000;
const KEEP_USER_TURNS: usize = 3;
const COMPACT_AT: f64 = 0.8;
/// Room a truncating client leaves for the reply.
const TRUNCATE_REPLY_ROOM: u32 = 256;
const SUMMARY_SYSTEM: &str = "Summarize the archived part of a conversation. Preserve user goals, decisions, files, commands, results, and unresolved tasks needed to continue. Return only the summary.";
const SUMMARY_PREFIX: &str = "Conversation summary:\n";
const SYSTEM: &str = "You are a helpful assistant.";

fn message(role: ChatRole, content: &str) -> ChatMessage {
    ChatMessage::new(role, content)
}

/// Tokens of `messages` by our tokenizer, with a little per-message overhead.
fn estimate(tok: &dyn Tokenizer, messages: &[ChatMessage]) -> u32 {
    messages
        .iter()
        .map(|m| tok.count(&m.content) + 4)
        .sum::<u32>()
        + 3
}

async fn baseline<B: ChatBackend>(
    strategy: Strategy,
    backend: B,
    scenario: &Scenario,
    setup: &Setup,
) -> Result<Run, RunError> {
    let backend = Recording::new(backend);
    let calls = backend.calls.clone();
    let tok = setup.tok.as_ref();
    let mut messages = vec![message(ChatRole::System, SYSTEM)];
    let mut transcript = Vec::new();
    let mut turns = Vec::new();
    let mut compressions = 0;
    let mut last_prompt = 0u32;
    let started = Instant::now();
    for (i, text) in scenario.turns.iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(pause(setup, &calls, text)).await;
        }
        let sent = Instant::now();
        let text = if i == 0 {
            format!("Decision (binding): {}.\n\n{text}", scenario.locked)
        } else {
            text.clone()
        };
        if strategy == Strategy::Rolling
            && f64::from(last_prompt.max(estimate(tok, &messages)))
                >= COMPACT_AT * f64::from(setup.ctx)
            && compact(&backend, &mut messages, setup).await?
        {
            compressions += 1;
        }
        messages.push(message(ChatRole::User, &text));
        transcript.push((ChatRole::User, text.clone()));
        let mut resent = false;
        let reply = loop {
            let request: Vec<ChatMessage> = match strategy {
                Strategy::Truncate => truncated(tok, &messages, setup.ctx),
                _ => messages.clone(),
            };
            let used = estimate(tok, &request);
            let req = ChatRequest {
                model: setup.model.clone(),
                messages: request,
                options: ChatOptions {
                    num_ctx: setup.ctx,
                    num_predict: Some(setup.ctx.saturating_sub(used).max(64)),
                    temperature: setup.temperature,
                    seed: None,
                },
                keep_alive: None,
                tools: Vec::new(),
                think: None,
                server_truncates: false,
            };
            let reply = tokio::time::timeout(setup.turn_timeout, stream(&backend, req))
                .await
                .map_err(|_| RunError::Timeout {
                    turn: i,
                    after: setup.turn_timeout,
                })?;
            if !matches!(reply, Err(LlmError::ContextOverflow { .. })) {
                break reply;
            }
            // Our tokenizer is not the model's (a run of digits is one token per digit
            // to the model, a third of that to ours), so a request can be refused as too
            // long. Ollama truncates by its own count and never refuses: drop the oldest
            // message and send again, and forget the refusal, which Ollama would not
            // have made.
            if strategy == Strategy::Truncate && messages.len() > 2 {
                super::recorder::forget_refused(&calls);
                messages.remove(1);
                continue;
            }
            // A rolling client that sees its request refused compacts and sends the
            // turn again, once (the refusal stays counted: this client sent it).
            if strategy == Strategy::Rolling && !resent {
                resent = true;
                let user = messages.pop();
                if compact(&backend, &mut messages, setup).await? {
                    compressions += 1;
                }
                messages.extend(user);
                continue;
            }
            break reply;
        };
        // A failed reply counts as a failed turn; the conversation goes on.
        let (reply, prompt) = reply.unwrap_or_default();
        // A refused request (over the context: no prompt count, no text) means the
        // history is over the threshold whatever our tokenizer says, as a client that
        // reads the server's count would know: compact before the next turn.
        last_prompt = prompt.unwrap_or(if reply.is_empty() { setup.ctx } else { 0 });
        turns.push(TurnTiming {
            sent,
            done: Instant::now(),
            failed: reply.is_empty(),
        });
        if strategy == Strategy::Truncate {
            // What the server saw is all it keeps: the dropped messages stay dropped.
            messages = truncated(tok, &messages, setup.ctx);
        }
        messages.push(message(ChatRole::Assistant, &reply));
        transcript.push((ChatRole::Assistant, reply));
    }
    if strategy == Strategy::Truncate {
        messages = truncated(tok, &messages, setup.ctx);
    }
    Ok(Run {
        strategy,
        context: messages.into_iter().map(|m| (m.role, m.content)).collect(),
        calls,
        turns,
        compressions,
        started,
        ended: Instant::now(),
        transcript,
    })
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

/// The newest messages that fit `ctx` (minus room for the reply), the system prompt kept.
fn truncated(tok: &dyn Tokenizer, messages: &[ChatMessage], ctx: u32) -> Vec<ChatMessage> {
    let budget = ctx.saturating_sub(TRUNCATE_REPLY_ROOM);
    let mut out: Vec<ChatMessage> = messages.to_vec();
    while out.len() > 2 && estimate(tok, &out) > budget {
        out.remove(1);
    }
    out
}

/// The agent's compaction prompt: the previous summary, then the archive as JSON.
fn archive_prompt(previous: Option<&str>, archive: &[(ChatRole, String)]) -> String {
    let json: Vec<serde_json::Value> = archive
        .iter()
        .map(|(role, content)| serde_json::json!({"role": role, "content": content}))
        .collect();
    let mut prompt = String::new();
    if let Some(p) = previous {
        prompt.push_str("Previous summary:\n");
        prompt.push_str(p.trim());
        prompt.push_str("\n\n");
    }
    prompt.push_str("Messages to archive as JSON:\n");
    prompt.push_str(&serde_json::to_string_pretty(&json).unwrap_or_default());
    prompt
}

/// Cut the largest text — an archived message, or the previous summary — until the
/// summary prompt fits `budget` tokens. (Cutting only messages, as the agent does, never
/// fits once the previous summary alone is over the budget: a small model sometimes
/// "summarises" by echoing its whole input, and every later pass would be refused.)
fn shrink_archive(
    tok: &dyn Tokenizer,
    previous: &mut Option<String>,
    archive: &mut [(ChatRole, String)],
    budget: u32,
) -> String {
    let mut prompt = archive_prompt(previous.as_deref(), archive);
    for _ in 0..16 {
        let over = (tok.count(&prompt) + tok.count(SUMMARY_SYSTEM)).saturating_sub(budget);
        if over == 0 {
            break;
        }
        let Some(largest) = archive
            .iter_mut()
            .map(|(_, c)| c)
            .chain(previous.as_mut())
            .max_by_key(|c| c.len())
        else {
            break;
        };
        let keep = largest
            .chars()
            .count()
            .saturating_sub(over as usize * 4 + 256);
        *largest = largest.chars().take(keep).collect();
        prompt = archive_prompt(previous.as_deref(), archive);
    }
    prompt
}

/// One rolling compaction: previous summary + archived messages → a new summary.
/// Returns whether it compacted.
async fn compact<B: ChatBackend>(
    backend: &B,
    messages: &mut Vec<ChatMessage>,
    setup: &Setup,
) -> Result<bool, RunError> {
    let keep = if setup.ctx < KEEP_TURNS_FROM_CTX {
        0
    } else {
        KEEP_USER_TURNS
    };
    let body = &messages[1..];
    let mut previous = body
        .iter()
        .find(|m| m.role == ChatRole::System && m.content.starts_with(SUMMARY_PREFIX))
        .map(|m| m.content[SUMMARY_PREFIX.len()..].to_string());
    let candidates: Vec<&ChatMessage> = body
        .iter()
        .filter(|m| !(m.role == ChatRole::System && m.content.starts_with(SUMMARY_PREFIX)))
        .collect();
    let users: Vec<usize> = candidates
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, m)| m.role == ChatRole::User)
        .map(|(i, _)| i)
        .take(keep)
        .collect();
    let split = users.last().copied().unwrap_or(candidates.len());
    if split == 0 {
        return Ok(false);
    }
    let mut archive: Vec<(ChatRole, String)> = candidates[..split]
        .iter()
        .map(|m| (m.role, m.content.clone()))
        .collect();
    // Like the agent, shrink the largest archived message until the prompt fits the
    // threshold (a summary request must not overflow itself). Our tokenizer is not the
    // model's: when the server still refuses the request as too long, shrink to two
    // thirds and ask again, rather than fail every later turn the same way.
    let mut budget = (COMPACT_AT * f64::from(setup.ctx)) as u32;
    let mut summary = None;
    for _attempt in 0..3 {
        let prompt = shrink_archive(setup.tok.as_ref(), &mut previous, &mut archive, budget);
        let req = ChatRequest {
            model: setup.model.clone(),
            messages: vec![
                message(ChatRole::System, SUMMARY_SYSTEM),
                message(ChatRole::User, &prompt),
            ],
            options: ChatOptions {
                num_ctx: setup.ctx,
                num_predict: None,
                temperature: setup.temperature,
                seed: None,
            },
            keep_alive: None,
            tools: Vec::new(),
            think: None,
            server_truncates: false,
        };
        match tokio::time::timeout(setup.turn_timeout, backend.chat(req)).await {
            Ok(Ok(r)) => {
                summary = Some(r.text.trim().to_string());
                break;
            }
            Ok(Err(_)) => budget = budget * 2 / 3,
            Err(_) => break,
        }
    }
    let Some(summary) = summary else {
        return Ok(false);
    };
    if summary.is_empty() {
        return Ok(false);
    }
    let kept: Vec<ChatMessage> = candidates[split..].iter().map(|m| (*m).clone()).collect();
    messages.truncate(1);
    messages.push(message(
        ChatRole::System,
        &format!("{SUMMARY_PREFIX}{summary}"),
    ));
    messages.extend(kept);
    Ok(true)
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

    #[test]
    fn a_previous_summary_over_the_budget_is_cut_until_the_prompt_fits() {
        // A small model "summarised" by echoing its input: the previous summary alone is
        // several times the budget, the new archive small.
        let tok = crate::core::tokens::Tiktoken::new().unwrap_or_else(|e| panic!("{e}"));
        let mut previous = Some("The cart total is computed in compute_total(). ".repeat(400));
        let mut archive = vec![(ChatRole::User, "Retries are capped at 5.".to_string())];
        let budget = 1_000;
        let prompt = shrink_archive(&tok, &mut previous, &mut archive, budget);
        assert!(tok.count(&prompt) + tok.count(SUMMARY_SYSTEM) <= budget);
        // The largest text was the one cut; the short message is whole.
        assert!(prompt.contains("Retries are capped at 5."));
        assert!(previous.is_some_and(|p| p.starts_with("The cart total")));
    }
}
