//! A [`ChatBackend`] that forwards to another and records every call: whether it was a
//! reply or a summary, when it started and ended, the server's token counts, and the
//! texts of the request (so the benchmark can check what each request carried).

use futures_util::StreamExt;
use ollm_tui::llm::{
    ChatBackend, ChatReply, ChatRequest, ChatStream, LlmError, LoadedModel, ModelInfo,
    ModelSummary, StreamEvent,
};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What a call was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// A streamed chat reply the person waits for.
    Reply,
    /// A non-streamed call: a summary (compression) or a quiz answer.
    Summary,
}

/// One recorded call.
#[derive(Debug, Clone)]
pub struct Call {
    pub kind: CallKind,
    pub started: Instant,
    /// When the reply or summary was complete (or failed).
    pub ended: Option<Instant>,
    pub num_ctx: u32,
    pub prompt_tokens: Option<u32>,
    pub output_tokens: Option<u32>,
    /// The request's message texts, joined.
    pub request_text: String,
    /// The server refused it as longer than its context.
    pub overflow: bool,
}

/// The calls so far, shared between the backend and the benchmark.
pub type Calls = Arc<Mutex<Vec<Call>>>;

/// Forwards to `inner`, recording into `calls`.
pub struct Recording<B> {
    pub inner: B,
    pub calls: Calls,
}

impl<B> Recording<B> {
    pub fn new(inner: B) -> Self {
        Recording {
            inner,
            calls: Arc::default(),
        }
    }

    fn begin(&self, kind: CallKind, req: &ChatRequest) -> usize {
        let text = req
            .messages
            .iter()
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let mut calls = lock(&self.calls);
        calls.push(Call {
            kind,
            started: Instant::now(),
            ended: None,
            num_ctx: req.options.num_ctx,
            prompt_tokens: None,
            output_tokens: None,
            request_text: text,
            overflow: false,
        });
        calls.len() - 1
    }
}

fn lock(calls: &Calls) -> std::sync::MutexGuard<'_, Vec<Call>> {
    calls.lock().unwrap_or_else(|p| p.into_inner())
}

/// Drop the last call if the server refused it as too long: for a strategy standing in
/// for the server's own truncation, which Ollama does without refusing anything.
pub fn forget_refused(calls: &Calls) {
    let mut calls = lock(calls);
    if calls.last().is_some_and(|c| c.overflow) {
        calls.pop();
    }
}

fn end(calls: &Calls, i: usize, prompt: Option<u32>, output: Option<u32>, overflow: bool) {
    if let Some(c) = lock(calls).get_mut(i) {
        c.ended = Some(Instant::now());
        c.prompt_tokens = prompt;
        c.output_tokens = output;
        c.overflow = overflow;
    }
}

impl<B: ChatBackend> ChatBackend for Recording<B> {
    async fn version(&self) -> Result<String, LlmError> {
        self.inner.version().await
    }

    async fn list_models(&self) -> Result<Vec<ModelSummary>, LlmError> {
        self.inner.list_models().await
    }

    async fn show_model(&self, model: &str) -> Result<ModelInfo, LlmError> {
        self.inner.show_model(model).await
    }

    async fn loaded_models(&self) -> Result<Vec<LoadedModel>, LlmError> {
        self.inner.loaded_models().await
    }

    async fn chat_stream(&self, req: ChatRequest) -> Result<ChatStream, LlmError> {
        let i = self.begin(CallKind::Reply, &req);
        let calls = self.calls.clone();
        match self.inner.chat_stream(req).await {
            Ok(stream) => Ok(Box::pin(stream.inspect(move |item| match item {
                Ok(StreamEvent::Done(stats)) => {
                    end(&calls, i, stats.prompt_eval_count, stats.eval_count, false)
                }
                Err(_) => end(&calls, i, None, None, false),
                Ok(
                    StreamEvent::Delta(_) | StreamEvent::Thinking(_) | StreamEvent::ToolCalls(_),
                ) => {}
            }))),
            Err(e) => {
                end(
                    &self.calls,
                    i,
                    None,
                    None,
                    matches!(e, LlmError::ContextOverflow { .. }),
                );
                Err(e)
            }
        }
    }

    async fn chat(&self, req: ChatRequest) -> Result<ChatReply, LlmError> {
        let i = self.begin(CallKind::Summary, &req);
        let r = self.inner.chat(req).await;
        match &r {
            Ok(reply) => end(
                &self.calls,
                i,
                reply.stats.prompt_eval_count,
                reply.stats.eval_count,
                false,
            ),
            Err(e) => end(
                &self.calls,
                i,
                None,
                None,
                matches!(e, LlmError::ContextOverflow { .. }),
            ),
        }
        r
    }

    /// Forwarded unrecorded: the calls recorded are the chat model's.
    async fn embed(&self, model: &str, inputs: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        self.inner.embed(model, inputs).await
    }

    async fn pull(&self, model: &str) -> Result<ollm_tui::llm::PullStream, LlmError> {
        self.inner.pull(model).await
    }
}
