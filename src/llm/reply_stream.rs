//! A chat reply's body read as it streams: bytes into NDJSON lines ([`LineDecoder`]),
//! lines into [`StreamEvent`]s, with the first-token and idle timeouts, the app's own
//! [`ReplyCeiling`], and an error always the last item.

use std::collections::VecDeque;
use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use tokio::time::Instant;

use super::backend::{ChatOptions, StreamEvent};
use super::error::{LlmError, Waiting, cause_chain};
use super::ndjson::{ChatLine, Chunk, LineDecoder, parse_chat_line};
use super::status::is_context_overflow;

/// A line longer than this is not Ollama talking (its lines are a token each).
const MAX_LINE_BYTES: usize = 4 << 20;

/// The app's own ceiling on one reply, whatever the server does with `num_predict`: a
/// reply that neither ended nor repeated itself took memory from 98 MB to 2.9 GB in 30 s.
/// Past it the stream ends (the connection is closed), what came is kept, and the error
/// says why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyCeiling {
    /// NDJSON lines: Ollama writes one a token, empty ones included.
    pub lines: u64,
    /// Text, reasoning and tool calls together.
    pub bytes: usize,
}

impl ReplyCeiling {
    /// Text allowed a token: tokens average about 4 bytes; 16 leaves room for long ones.
    const BYTES_PER_TOKEN: usize = 16;
    const MIN_BYTES: usize = 256 << 10;
    const MAX_BYTES: usize = 16 << 20;

    /// For a request: `num_predict` tokens (without one, or with -1 or -2, the context:
    /// the server cannot honestly go past it, as `shift` is off) and a quarter more, at
    /// least 256; bytes at 16 a token, within 256 KiB and 16 MiB.
    pub fn for_request(options: &ChatOptions) -> ReplyCeiling {
        let tokens = match options.num_predict {
            Some(n) if n > 0 => u64::from(n.unsigned_abs()),
            _ => u64::from(options.num_ctx),
        };
        let lines = tokens + (tokens / 4).max(256);
        let bytes = usize::try_from(lines)
            .unwrap_or(usize::MAX)
            .saturating_mul(Self::BYTES_PER_TOKEN)
            .clamp(Self::MIN_BYTES, Self::MAX_BYTES);
        ReplyCeiling { lines, bytes }
    }
}

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// Turns a reply body into [`StreamEvent`]s. After `Done` or an error it yields nothing
/// more, so an error is always the last item and every delta before it stands.
pub(super) struct ReplyReader {
    pub(super) body: ByteStream,
    pub(super) decoder: LineDecoder,
    /// Events decoded but not yet handed out (one chunk can complete several lines).
    pub(super) pending: VecDeque<Result<StreamEvent, LlmError>>,
    pub(super) ceiling: ReplyCeiling,
    /// Lines and bytes read so far, against the ceiling.
    pub(super) lines: u64,
    pub(super) bytes: usize,
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
            if let Some(event) = self.pending.pop_front() {
                return Some(event);
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
                        if self.finished {
                            break;
                        }
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
        self.lines += 1;
        if self.lines > self.ceiling.lines {
            return self.over_ceiling();
        }
        match parse_chat_line(line) {
            Ok(ChatLine::Delta(chunk)) => self.push_chunk(chunk),
            Ok(ChatLine::Done { delta, stats }) => {
                self.push_chunk(delta);
                self.pending.push_back(Ok(StreamEvent::Done(stats)));
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
        let calls: usize = chunk
            .tool_calls
            .iter()
            .map(|c| c.name.len() + c.args.len() + c.id.len())
            .sum();
        self.bytes += chunk.thinking.len() + chunk.content.len() + calls;
        if self.bytes > self.ceiling.bytes {
            return self.over_ceiling();
        }
        if !chunk.thinking.is_empty() {
            self.pending
                .push_back(Ok(StreamEvent::Thinking(chunk.thinking)));
        }
        if !chunk.content.is_empty() {
            self.pending
                .push_back(Ok(StreamEvent::Delta(chunk.content)));
        }
        if !chunk.tool_calls.is_empty() {
            self.pending
                .push_back(Ok(StreamEvent::ToolCalls(chunk.tool_calls)));
        }
    }

    /// Past the ceiling: the line that crossed it is not kept, the rest is not read.
    fn over_ceiling(&mut self) {
        self.fail(LlmError::ReplyTooLong {
            lines: self.lines,
            bytes: self.bytes,
            max_lines: self.ceiling.lines,
            max_bytes: self.ceiling.bytes,
        });
    }

    fn fail(&mut self, err: LlmError) {
        tracing::warn!(%err, "chat stream failed");
        self.pending.push_back(Err(err));
        self.finished = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ceiling(num_ctx: u32, num_predict: Option<i32>) -> ReplyCeiling {
        ReplyCeiling::for_request(&ChatOptions {
            num_ctx,
            num_predict,
            temperature: None,
            top_p: None,
            seed: None,
        })
    }

    #[test]
    fn the_ceiling_is_num_predict_or_the_context_and_a_quarter_more() {
        assert_eq!(ceiling(8192, Some(1024)).lines, 1024 + 256);
        assert_eq!(ceiling(8192, Some(4000)).lines, 5000);
        // No cap, or "none" and "fill the context": the context is the most an honest
        // server writes with shift off.
        for none in [None, Some(-1), Some(-2), Some(0)] {
            assert_eq!(ceiling(8192, none).lines, 8192 + 2048);
        }
        assert_eq!(ceiling(8192, Some(1024)).bytes, 256 << 10);
        assert_eq!(ceiling(1 << 20, None).bytes, 16 << 20);
        assert_eq!(ceiling(131_072, None).bytes, 163_840 * 16);
    }
}
