//! The baselines: `rolling` (Ollama's agent's summary rule) and `truncate` (the oldest
//! messages dropped until the request fits — by the server, read from its request log, or
//! estimated by our tokenizer), driven by hand over the same backend.

use super::{KeptBy, Passes, Run, RunError, Setup, Strategy, TurnTiming, pause, stream};
use crate::fidelity::recorder::Recording;
use crate::fidelity::scenarios::Scenario;
use crate::fidelity::server_log::{self, Cursor};
use ollm_tui::core::tokens::Tokenizer;
use ollm_tui::llm::{ChatBackend, ChatMessage, ChatOptions, ChatRequest, ChatRole, LlmError};
use std::time::Instant;

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

pub(super) async fn baseline<B: crate::fidelity::Backend>(
    strategy: Strategy,
    backend: B,
    scenario: &Scenario,
    setup: &Setup,
) -> Result<Run, RunError> {
    // Truncation by the server itself, read back from its log, when it writes one: its
    // requests let the server truncate.
    let mut log = match (strategy, &setup.server_log) {
        (Strategy::Truncate, Some(path)) => {
            Some(Cursor::at_end(path).map_err(|e| RunError::log(path, &e))?)
        }
        _ => None,
    };
    let backend = Recording::new(if log.is_some() {
        backend.server_truncating()
    } else {
        backend
    });
    let calls = backend.calls.clone();
    let tok = setup.tok.as_ref();
    let mut messages = vec![message(ChatRole::System, SYSTEM)];
    let mut transcript = Vec::new();
    let mut turns = Vec::new();
    let mut compressions = 0;
    let mut passes = Passes::default();
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
            passes.total += 1;
        }
        messages.push(message(ChatRole::User, &text));
        transcript.push((ChatRole::User, text.clone()));
        let mut resent = false;
        let mut last_request = Vec::new();
        let reply = loop {
            // The reply may use what the estimate leaves of the context, whoever truncates.
            let estimated = match strategy {
                Strategy::Truncate => truncated(tok, &messages, setup.ctx),
                _ => messages.clone(),
            };
            let used = estimate(tok, &estimated);
            let request = if log.is_some() {
                messages.clone()
            } else {
                estimated
            };
            last_request.clone_from(&request);
            let options = ChatOptions {
                num_ctx: setup.ctx,
                num_predict: Some(
                    i32::try_from(
                        setup
                            .ctx
                            .saturating_sub(used)
                            .max(64)
                            .min(setup.num_predict.unwrap_or(u32::MAX)),
                    )
                    .unwrap_or(i32::MAX),
                ),
                top_p: None,
                temperature: setup.temperature,
                seed: None,
            };
            let req = ChatRequest::new(setup.model.clone(), request, options);
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
                crate::fidelity::recorder::forget_refused(&calls);
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
                    passes.total += 1;
                    passes.overflow += 1;
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
        // What the server saw is all it keeps: the dropped messages stay dropped.
        match (&mut log, strategy) {
            (Some(log), _) => {
                let entries = log.read().map_err(|e| RunError::log(log.path(), &e))?;
                match server_log::dropped_for(&entries, &last_request) {
                    Some(n) => server_log::drop_oldest(&mut messages, n),
                    // A request that failed on the way may never have reached the log.
                    None if reply.is_empty() => {}
                    None => {
                        return Err(RunError::ServerLog {
                            path: log.path().to_path_buf(),
                            error: format!(
                                "no line for the request of turn {i}: is the server writing \
                                 its request log there (ollama-real: run.sh --log FILE)?"
                            ),
                        });
                    }
                }
            }
            (None, Strategy::Truncate) => messages = truncated(tok, &messages, setup.ctx),
            (None, _) => {}
        }
        messages.push(message(ChatRole::Assistant, &reply));
        transcript.push((ChatRole::Assistant, reply));
    }
    // Estimated, the next request is what our count would send; from the server's log, it
    // is what the server kept of the last one and the reply (the quiz's requests are
    // truncated by the server again if they must be).
    let kept_by = match (strategy, &log) {
        (Strategy::Truncate, Some(_)) => KeptBy::ServerLog,
        (Strategy::Truncate, None) => {
            messages = truncated(tok, &messages, setup.ctx);
            KeptBy::Estimated
        }
        _ => KeptBy::Sent,
    };
    Ok(Run {
        strategy,
        context: messages.into_iter().map(|m| (m.role, m.content)).collect(),
        kept_by,
        calls,
        turns,
        compressions,
        passes,
        started,
        ended: Instant::now(),
        transcript,
        ask: None,
    })
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
        let messages = vec![
            message(ChatRole::System, SUMMARY_SYSTEM),
            message(ChatRole::User, &prompt),
        ];
        let options = ChatOptions {
            num_ctx: setup.ctx,
            num_predict: None,
            top_p: None,
            temperature: setup.temperature,
            seed: None,
        };
        let req = ChatRequest::new(setup.model.clone(), messages, options);
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
    fn a_previous_summary_over_the_budget_is_cut_until_the_prompt_fits() {
        // A small model "summarised" by echoing its input: the previous summary alone is
        // several times the budget, the new archive small.
        let tok = ollm_tui::core::tokens::Tiktoken::new().unwrap_or_else(|e| panic!("{e}"));
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
