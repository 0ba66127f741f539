//! The engine's [`Summarizer`] on top of a [`ChatBackend`]: one non-interactive chat with the
//! summary prompt as system message, the same `num_ctx` as every chat (a different value
//! would reload the model), and the cap as `num_predict`.

use crate::core::summarizer::{Summarizer, SummaryError, SummaryRequest};
use crate::llm::{ChatBackend, ChatMessage, ChatOptions, ChatRequest};
use std::sync::Arc;

/// Low temperature: a summary should be faithful, not creative.
const SUMMARY_TEMPERATURE: f32 = 0.2;

/// Owns a handle on the backend, so a running compression borrows nothing from the actor
/// (which keeps answering commands meanwhile).
pub struct BackendSummarizer<B> {
    pub backend: Arc<B>,
    pub model: String,
    pub num_ctx: u32,
    pub think: Option<crate::llm::Think>,
    /// Nanoseconds the server spent loading the model for these calls (Ollama's
    /// `load_duration`), so a reading timed to learn the server's speed can leave a cold
    /// start out.
    pub loading: Arc<std::sync::atomic::AtomicU64>,
}

impl<B> BackendSummarizer<B> {
    /// A short chat asked in the background (a summary, the session's title): the
    /// instruction as system message, the text as the person's, `cap` tokens at most, at a
    /// low temperature.
    pub fn request(&self, system: String, user: String, cap: u32) -> ChatRequest {
        let options = ChatOptions {
            num_ctx: self.num_ctx,
            num_predict: Some(i32::try_from(cap).unwrap_or(i32::MAX)),
            temperature: Some(SUMMARY_TEMPERATURE),
            top_p: None,
            seed: None,
        };
        let messages = vec![ChatMessage::system(system), ChatMessage::user(user)];
        ChatRequest::new(self.model.clone(), messages, options).with_think(self.think)
    }
}

impl<B: ChatBackend> Summarizer for BackendSummarizer<B> {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummaryError> {
        let chat = self.request(request.system, request.user, request.num_predict);
        let started = std::time::Instant::now();
        let reply = self
            .backend
            .chat(chat)
            .await
            .map_err(|e| SummaryError::Failed(e.to_string()))?;
        if let Some(load) = reply.stats.load_duration {
            let ns = u64::try_from(load.as_nanos()).unwrap_or(u64::MAX);
            self.loading
                .fetch_add(ns, std::sync::atomic::Ordering::Relaxed);
        }
        tracing::info!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            prompt_tokens = reply.stats.prompt_eval_count,
            summary_tokens = reply.stats.eval_count,
            cap = request.num_predict,
            "summary call"
        );
        Ok(reply.text)
    }
}
