//! A chat reply's body read as it streams: bytes into NDJSON lines ([`LineDecoder`]),
//! lines into [`StreamEvent`]s, with the first-token and idle timeouts, and an error always
//! the last item.

use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use tokio::time::Instant;

use super::backend::StreamEvent;
use super::error::{LlmError, Waiting, cause_chain};
use super::ndjson::{ChatLine, Chunk, LineDecoder, parse_chat_line};
use super::status::is_context_overflow;

/// A line longer than this is not Ollama talking (its lines are a token each).
const MAX_LINE_BYTES: usize = 4 << 20;

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// Turns a reply body into [`StreamEvent`]s. After `Done` or an error it yields nothing
/// more, so an error is always the last item and every delta before it stands.
pub(super) struct ReplyReader {
    pub(super) body: ByteStream,
    pub(super) decoder: LineDecoder,
    /// Events decoded but not yet handed out (one chunk can complete several lines).
    pub(super) pending: Vec<Result<StreamEvent, LlmError>>,
    /// Until the first bytes arrive, the first-token deadline applies; then `idle`.
    pub(super) first_deadline: Option<Instant>,
    pub(super) first_token: Duration,
    pub(super) idle: Duration,
    pub(super) url: String,
    pub(super) finished: bool,
}

impl ReplyReader {
    pub(super) fn into_stream(self) -> impl Stream<Item = Result<StreamEvent, LlmError>> + Send {
        futures_util::stream::unfold(self, |mut r| async move {
            r.next_event().await.map(|event| (event, r))
        })
    }

    async fn next_event(&mut self) -> Option<Result<StreamEvent, LlmError>> {
        loop {
            if !self.pending.is_empty() {
                return Some(self.pending.remove(0));
            }
            if self.finished {
                return None;
            }
            let (deadline, waiting, after) = match self.first_deadline {
                Some(d) => (d, Waiting::FirstToken, self.first_token),
                None => (Instant::now() + self.idle, Waiting::NextToken, self.idle),
            };
            match tokio::time::timeout_at(deadline, self.body.next()).await {
                Err(_) => self.fail(LlmError::Timeout { waiting, after }),
                Ok(Some(Ok(bytes))) => {
                    self.first_deadline = None;
                    for line in self.decoder.push(&bytes) {
                        self.handle_line(&line);
                    }
                    if !self.finished && self.decoder.buffered() > MAX_LINE_BYTES {
                        self.fail(LlmError::Malformed {
                            url: self.url.clone(),
                            detail: format!("a line longer than {MAX_LINE_BYTES} bytes"),
                        });
                    }
                }
                Ok(Some(Err(e))) => self.fail(LlmError::Incomplete {
                    detail: format!("the connection broke: {}", cause_chain(&e)),
                }),
                Ok(None) => {
                    if let Some(line) = self.decoder.finish() {
                        self.handle_line(&line);
                    }
                    if !self.finished {
                        self.fail(LlmError::Incomplete {
                            detail: "the stream ended without a final \"done\" line".to_string(),
                        });
                    }
                }
            }
        }
    }

    fn handle_line(&mut self, line: &[u8]) {
        if self.finished {
            return;
        }
        match parse_chat_line(line) {
            Ok(ChatLine::Delta(chunk)) => self.push_chunk(chunk),
            Ok(ChatLine::Done { delta, stats }) => {
                self.push_chunk(delta);
                self.pending.push(Ok(StreamEvent::Done(stats)));
                self.finished = true;
            }
            Ok(ChatLine::Error(message)) => {
                let err = if is_context_overflow(&message) {
                    LlmError::ContextOverflow { message }
                } else {
                    LlmError::Server { message }
                };
                self.fail(err);
            }
            Err(detail) => self.fail(LlmError::Malformed {
                url: self.url.clone(),
                detail,
            }),
        }
    }

    fn push_chunk(&mut self, chunk: Chunk) {
        if !chunk.thinking.is_empty() {
            self.pending.push(Ok(StreamEvent::Thinking(chunk.thinking)));
        }
        if !chunk.content.is_empty() {
            self.pending.push(Ok(StreamEvent::Delta(chunk.content)));
        }
        if !chunk.tool_calls.is_empty() {
            self.pending
                .push(Ok(StreamEvent::ToolCalls(chunk.tool_calls)));
        }
    }

    fn fail(&mut self, err: LlmError) {
        tracing::warn!(%err, "chat stream failed");
        self.pending.push(Err(err));
        self.finished = true;
    }
}
