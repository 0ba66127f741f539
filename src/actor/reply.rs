//! Executor of the engine's `Chat` effect: stream the reply, show it as it comes, and
//! hand the engine what arrived (a complete reply, the part before a break or a Stop, or
//! no reply). While it streams, the actor still listens: Stop ends it at once (dropping
//! the stream closes the HTTP connection) and read-only commands are answered. Text goes
//! to the UI in one update per 16 ms however fast it comes, and a reply past the app's
//! own ceiling (`llm::ReplyCeiling`) ends there, kept and said: a server that floods
//! holds neither the UI nor memory.

use super::driver::{Actor, Job};
use super::repetition::RepetitionGuard;
use crate::core::engine::{ChatPrompt, Input, PromptRole, ReplyInput};
use crate::core::message::{MessageId, ReplyStatus};
use crate::core::record::RecordBody;
use crate::llm::{
    ChatBackend, ChatMessage, ChatOptions, ChatRequest, ChatRole, ChatStats, LlmError, StreamEvent,
};
use crate::store::SessionStore;
use crate::view::{Activity, Notice, Update};
use chrono::Utc;
use futures_util::StreamExt;
use std::time::{Duration, Instant};

/// How often the generated-token count is republished while a reply streams.
const COUNT_EVERY: Duration = Duration::from_millis(100);
/// Text that streams in is handed to the UI at most this often, in one update: a server
/// flooding the socket sent the UI a million deltas a second, and it never got to a key.
const SHOW_EVERY: Duration = Duration::from_millis(16);

/// How a streamed reply ended, beyond what the engine is told.
enum Ended {
    Done(ChatStats, Instant),
    /// Stop before the first token: nothing arrived.
    StoppedBeforeReply,
    /// Stop mid-reply: the part that arrived is kept.
    Stopped,
    /// The server refused the prompt as too long: the engine compresses and retries once.
    Overflow,
    Failed(LlmError),
    /// The stream ended without `done` (and without an error).
    Cut,
    /// The repetition guard stopped it (in the reasoning when the flag is set).
    Looped(super::repetition::Loop, bool),
    /// It went past the app's own ceiling on a reply (`llm::ReplyCeiling`).
    TooLong(LlmError),
}

/// Text that arrived and is not shown yet: handed to the UI in one update per
/// [`SHOW_EVERY`] (reasoning first, as it came first), whatever the rate of the stream.
#[derive(Default)]
struct Unshown {
    text: String,
    thinking: String,
    since: Option<Instant>,
}

impl Unshown {
    fn add_text(&mut self, piece: &str) {
        self.text.push_str(piece);
        self.since.get_or_insert_with(Instant::now);
    }

    fn add_thinking(&mut self, piece: &str) {
        self.thinking.push_str(piece);
        self.since.get_or_insert_with(Instant::now);
    }

    /// When what waits must be shown at the latest.
    fn due(&self) -> Option<tokio::time::Instant> {
        self.since
            .map(|t| tokio::time::Instant::from_std(t + SHOW_EVERY))
    }

    fn show(&mut self, out: &super::publish::Publisher) {
        if !self.thinking.is_empty() {
            out.send(Update::Thinking(std::mem::take(&mut self.thinking)));
        }
        if !self.text.is_empty() {
            out.send(Update::Delta(std::mem::take(&mut self.text)));
        }
        self.since = None;
    }
}

/// An effect of a fold (its recovery snapshot, its records, its events): shown after the
/// reply that led to it.
fn folds(e: &crate::core::engine::Effect) -> bool {
    use crate::core::engine::Effect;
    use crate::core::events::EngineEvent;
    match e {
        Effect::SaveSnapshot(_) | Effect::ReduceResults(_) => true,
        Effect::Persist(r) => matches!(
            r.body,
            RecordBody::Checkpoint { .. }
                | RecordBody::CheckpointAged { .. }
                | RecordBody::CheckpointsMerged { .. }
                | RecordBody::ResultReduced { .. }
        ),
        Effect::Event(ev) => matches!(
            ev,
            EngineEvent::Compressed { .. }
                | EngineEvent::CheckpointCreated { .. }
                | EngineEvent::CheckpointsMerged { .. }
                | EngineEvent::CheckpointAged { .. }
        ),
        _ => false,
    }
}

fn chat_role(r: PromptRole) -> ChatRole {
    match r {
        PromptRole::System => ChatRole::System,
        PromptRole::User => ChatRole::User,
        PromptRole::Assistant => ChatRole::Assistant,
        PromptRole::Tool => ChatRole::Tool,
    }
}

/// What arrived of a reply that did not finish.
fn partial(text: String, thinking: String, prompt_raw: u32) -> Input {
    Input::Reply(ReplyInput {
        text,
        thinking,
        status: ReplyStatus::Interrupted,
        prompt_eval_count: None,
        prompt_eval_cached: None,
        eval_count: None,
        prompt_raw,
        tool_calls: Vec::new(),
        timing: None,
    })
}

/// What the server said about the time a complete reply took.
fn call_timing(stats: &ChatStats, since: Instant) -> crate::core::speed::CallTiming {
    crate::core::speed::CallTiming {
        prompt_tokens: stats.prompt_eval_count,
        prompt_time: stats.prompt_eval_duration,
        output_tokens: stats.eval_count,
        output_time: stats.eval_duration,
        total_time: stats.total_duration.or(Some(since.elapsed())),
        load_time: stats.load_duration,
    }
}

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    /// Run a `Chat` request to its end and give the engine the answer; returns what the
    /// engine asks for next.
    pub(super) async fn chat(&mut self, prompt: ChatPrompt) -> Option<Job> {
        if self.disk.unwritten() > 0 {
            // The message is not on disk: the model does not get it before the log does
            // (a reply to a message the log lacks could not be replayed). /retry writes
            // first, then sends.
            self.out.banner(Notice::NotSentUnwritten {
                waiting: self.disk.unwritten(),
            });
            let fx = self.engine.handle(Input::NoReply, Utc::now());
            return self.execute(fx);
        }
        if let crate::view::Connection::NotChat { model } = self.link.connection() {
            // An embedding model answers no chat: the person picks another, then /retry.
            self.out.banner(Notice::NotChatModel {
                model: model.clone(),
            });
            let fx = self.engine.handle(Input::NoReply, Utc::now());
            return self.execute(fx);
        }
        // A server that stopped is withdrawn (one not started yet starts) before the
        // request goes: when that changed the offer, the request is built again if it
        // fits, so it offers what can be called.
        let mut prompt = prompt;
        if self.refresh_mcp().await {
            let fresh = self.engine.prompt();
            if fresh.estimate <= self.engine.budget().hard_limit() {
                prompt = fresh;
            }
        }
        let (answer, ended) = self.stream_reply(&prompt).await;
        // A complete reply carries its timing: the engine learns the speed from it first.
        let timing = match &answer {
            Input::Reply(r) => r.timing,
            _ => None,
        };
        let status = match ended {
            Ended::Done(..) => ReplyStatus::Complete,
            _ => ReplyStatus::Interrupted,
        };
        let fx = self.engine.handle(answer, Utc::now());
        let id = fx
            .iter()
            .filter_map(|e| e.record())
            .find(|r| matches!(r.body, RecordBody::Assistant { .. }))
            .map(|r| MessageId(r.seq));
        // A recorded reply ends its streaming entry once its effects are shown, before a
        // fold made after it (its divider goes after the reply, where a resumed
        // transcript puts it); one that left nothing is taken off the screen before
        // whatever comes next.
        let job = if id.is_some() {
            let mut fx = fx;
            let fold = fx.iter().position(folds).unwrap_or(fx.len());
            let after = fx.split_off(fold);
            let mut job = self.execute(fx);
            self.out.send(Update::ReplyEnd { status, id });
            self.say_timing(timing);
            if let Some(j) = self.execute(after) {
                job = Some(j);
            }
            job
        } else {
            self.out.send(Update::ReplyEnd { status, id });
            self.say_timing(timing);
            self.execute(fx)
        };
        match ended {
            Ended::Done(stats, since) => {
                self.out.clear_transient_banner();
                if id.is_some() {
                    let summarizer = self.summarizer();
                    self.title
                        .ask_once(self.disk.store(), &self.engine, summarizer);
                }
                tracing::info!(
                    elapsed_ms = since.elapsed().as_millis() as u64,
                    prompt_eval_count = stats.prompt_eval_count,
                    estimate = prompt.estimate,
                    eval_count = stats.eval_count,
                    done_reason = stats.done_reason.as_deref().unwrap_or(""),
                    "reply"
                );
                self.confirm_loaded_ctx().await;
                if stats.done_reason.as_deref() == Some("length") {
                    self.out.notice(Notice::ReplyCutAtLimit);
                }
            }
            Ended::StoppedBeforeReply => self.out.notice(Notice::StoppedBeforeReply),
            // Output was shown: no automatic retry.
            Ended::Failed(error) if id.is_some() => {
                self.out.transient_banner(Notice::ReplyBrokeOff { error })
            }
            Ended::Failed(error) => self.request_failed(error),
            Ended::Looped(l, thinking) => self.out.notice(Notice::ReplyLooped {
                lines: l.lines,
                times: l.times,
                thinking,
            }),
            Ended::TooLong(error) => {
                tracing::warn!(%error, "reply over the ceiling");
                self.out.notice(Notice::ReplyTooLong { error });
            }
            Ended::Stopped | Ended::Overflow | Ended::Cut => {}
        }
        job
    }

    /// `/set verbose`: the figures of the reply that just ended, under it (before a fold's
    /// divider or a tool call that follows).
    fn say_timing(&self, timing: Option<crate::core::speed::CallTiming>) {
        if let Some(t) = timing
            && self.engine.params().verbose
        {
            self.out.notice(Notice::ReplyTimed(t));
        }
    }

    async fn stream_reply(&mut self, prompt: &ChatPrompt) -> (Input, Ended) {
        let req = self.chat_request(prompt);
        let raw = prompt.raw_estimate;
        let since = Instant::now();
        self.out
            .set_activity(Activity::Generating { since, chunks: 0 });
        self.publish();
        self.out.send(Update::ReplyStart);
        let backend = self.link.backend().clone();
        let opened = self
            .listen(async move { backend.chat_stream(req).await })
            .await;
        let mut stream = match opened {
            None => return (Input::NoReply, Ended::StoppedBeforeReply),
            Some(Err(LlmError::ContextOverflow { message })) => {
                return (Input::Overflow { message }, Ended::Overflow);
            }
            Some(Err(e)) => return (Input::NoReply, Ended::Failed(e)),
            Some(Ok(s)) => s,
        };
        let mut text = String::new();
        let mut thinking = String::new();
        let mut calls = Vec::new();
        let mut chunks = 0u32;
        let mut last_count = Instant::now();
        let mut guard = RepetitionGuard::new(self.link.repeat_limit());
        let mut thinking_guard = RepetitionGuard::new(self.link.repeat_limit());
        let mut unshown = Unshown::default();
        loop {
            // What waits to be shown goes out when it is due, whether or not more comes.
            let next = match unshown.due() {
                Some(due) => {
                    self.listen(tokio::time::timeout_at(due, stream.next()))
                        .await
                }
                None => self.listen(async { Ok(stream.next().await) }).await,
            };
            let item = match next {
                // Stop: dropping the stream closes the HTTP connection now.
                None => {
                    unshown.show(&self.out);
                    return (partial(text, thinking, raw), Ended::Stopped);
                }
                Some(Err(_due)) => {
                    unshown.show(&self.out);
                    // A flood must not keep the runtime's other tasks (the UI) waiting.
                    tokio::task::yield_now().await;
                    continue;
                }
                Some(Ok(item)) => item,
            };
            match item {
                Some(Ok(StreamEvent::ToolCalls(more))) => calls.extend(more),
                Some(Ok(ev @ (StreamEvent::Delta(_) | StreamEvent::Thinking(_)))) => {
                    let (first_text, looped) = match ev {
                        StreamEvent::Delta(d) => {
                            let first = text.is_empty();
                            let looped = guard.feed(&d).map(|l| (l, false));
                            text.push_str(&d);
                            unshown.add_text(&d);
                            (first, looped)
                        }
                        StreamEvent::Thinking(t) => {
                            let looped = thinking_guard.feed(&t).map(|l| (l, true));
                            thinking.push_str(&t);
                            unshown.add_thinking(&t);
                            (false, looped)
                        }
                        _ => (false, None),
                    };
                    if let Some((l, in_thinking)) = looped {
                        // Dropping the stream closes the HTTP connection: the server stops.
                        tracing::info!(lines = l.lines, times = l.times, "repetition guard");
                        unshown.show(&self.out);
                        return (partial(text, thinking, raw), Ended::Looped(l, in_thinking));
                    }
                    chunks += 1;
                    // The status line's count follows at up to 10 updates a second,
                    // however fast or slow the tokens come; it says "thinking" until
                    // the answer starts.
                    if chunks == 1 || first_text || last_count.elapsed() >= COUNT_EVERY {
                        last_count = Instant::now();
                        unshown.show(&self.out);
                        self.out
                            .set_activity(if text.is_empty() && !thinking.is_empty() {
                                Activity::Thinking { since, chunks }
                            } else {
                                Activity::Generating { since, chunks }
                            });
                        self.publish();
                    }
                }
                Some(Ok(StreamEvent::Done(stats))) => {
                    unshown.show(&self.out);
                    if calls.is_empty() {
                        let recovered = self.tools.recover_calls(&text, self.link.tools_capable());
                        if !recovered.is_empty() {
                            // The reply was calls written as text: shown as the calls.
                            tracing::info!(
                                calls = recovered.len(),
                                "tool calls recovered from text"
                            );
                            self.out.send(Update::ReplyIsToolCall);
                            text.clear();
                            calls = recovered;
                        }
                    }
                    let reply = ReplyInput {
                        text,
                        status: ReplyStatus::Complete,
                        prompt_eval_count: stats.prompt_eval_count,
                        prompt_eval_cached: stats.prompt_eval_cached_count,
                        eval_count: stats.eval_count,
                        prompt_raw: raw,
                        tool_calls: calls,
                        thinking,
                        timing: Some(call_timing(&stats, since)),
                    };
                    return (Input::Reply(reply), Ended::Done(stats, since));
                }
                Some(Err(e)) => {
                    unshown.show(&self.out);
                    let ended = match e {
                        LlmError::ReplyTooLong { .. } => Ended::TooLong(e),
                        e => Ended::Failed(e),
                    };
                    return (partial(text, thinking, raw), ended);
                }
                None => {
                    unshown.show(&self.out);
                    return (partial(text, thinking, raw), Ended::Cut);
                }
            }
        }
    }

    /// A picture's bytes as the chat body carries them (base64). One that is gone or was
    /// altered since is left out of the request (resume said so), not sent as garbage.
    pub(super) fn image_base64(&self, image: &crate::core::image::ImageRef) -> Option<String> {
        use base64::Engine as _;
        match self.disk.store().load_image(image) {
            Ok(bytes) => Some(base64::engine::general_purpose::STANDARD.encode(bytes)),
            Err(e) => {
                tracing::warn!(image = %image.name, "picture left out of the request: {e}");
                None
            }
        }
    }

    /// The engine's request as the server gets it: the messages, the session's own
    /// parameters (`/set`) over the config file's, the tools offered, `think`.
    pub(super) fn chat_request(&self, prompt: &ChatPrompt) -> ChatRequest {
        let messages = prompt
            .messages
            .iter()
            .map(|m| ChatMessage {
                role: chat_role(m.role),
                content: m.content.clone(),
                tool_calls: m.tool_calls.clone(),
                tool_name: m.tool_name.clone(),
                tool_call_id: m.tool_call_id.clone(),
                // A model without `vision` refuses a request with pictures (Ollama: "missing
                // data required for image input"): after a switch to one, the messages
                // go without theirs.
                images: if self.link.vision_capable() {
                    m.images
                        .iter()
                        .filter_map(|i| self.image_base64(i))
                        .collect()
                } else {
                    Vec::new()
                },
            })
            .collect();
        let own = self.engine.params();
        let options = ChatOptions {
            num_ctx: prompt.num_ctx,
            num_predict: Some(own.reply_cap(prompt.max_reply)),
            temperature: own.temperature.or(self.link.temperature()),
            top_p: own.top_p,
            seed: own.seed,
        };
        ChatRequest::new(prompt.model.clone(), messages, options)
            .with_tools(self.tools.schemas(&prompt.tools))
            .with_think(self.link.think_for_chat(own.think.as_deref()))
    }
}
