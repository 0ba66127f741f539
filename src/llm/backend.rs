//! The model server as the rest of the program sees it: plain request/reply types and the
//! [`ChatBackend`] trait. Nothing here knows HTTP; [`super::OllamaBackend`] does.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures_util::Stream;
use serde::{Deserialize, Serialize};

use super::error::LlmError;
pub use crate::core::message::ToolCall;

/// Who a chat message is from, in Ollama's vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    System,
    #[default]
    User,
    Assistant,
    Tool,
}

/// One message as sent to the model.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChatMessage {
    pub role: ChatRole,
    pub content: String,
    /// An assistant message's tool calls (sent back with the results that answer them).
    pub tool_calls: Vec<ToolCall>,
    /// A tool result's tool (`tool_name`) and the call it answers (`tool_call_id`).
    pub tool_name: Option<String>,
    pub tool_call_id: Option<String>,
    /// Pictures for a vision model, each its file's bytes base64-encoded (Ollama's
    /// `images`).
    pub images: Vec<String>,
}

impl ChatMessage {
    pub fn new(role: ChatRole, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            ..Self::default()
        }
    }

    pub fn system(content: impl Into<String>) -> Self {
        Self::new(ChatRole::System, content)
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::new(ChatRole::User, content)
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(ChatRole::Assistant, content)
    }
}

/// Model options sent with every chat.
///
/// `num_ctx` is not optional: without it Ollama falls back to its default (often 4096) and
/// silently drops the oldest messages; a value that changes between calls reloads the model.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ChatOptions {
    pub num_ctx: u32,
    /// Reply cap in tokens (Ollama ignores `max_tokens`); -1: none, -2: until the
    /// context is full.
    pub num_predict: Option<i32>,
    pub temperature: Option<f32>,
    pub top_p: Option<f32>,
    pub seed: Option<i32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<ChatMessage>,
    pub options: ChatOptions,
    /// How long Ollama keeps the model loaded afterwards: a Go duration ("5m", "-1m" for
    /// ever, "0" to unload) or a number of seconds.
    pub keep_alive: Option<String>,
    /// Tools the model may call, as Ollama's JSON schema objects
    /// (`{"type":"function","function":{"name","description","parameters"}}`); sent only
    /// to models whose capabilities include `tools`.
    pub tools: Vec<serde_json::Value>,
    /// Ollama's `think`; `None` leaves the model's default (and is not sent).
    pub think: Option<Think>,
}

impl ChatRequest {
    /// The one way a request is made: the model, the messages and the options every chat
    /// sends; no tools, the model's own `think` and the server's own `keep_alive` until
    /// the `with_` methods say otherwise (the fields stay readable, for recorders).
    pub fn new(model: impl Into<String>, messages: Vec<ChatMessage>, options: ChatOptions) -> Self {
        ChatRequest {
            model: model.into(),
            messages,
            options,
            keep_alive: None,
            tools: Vec::new(),
            think: None,
        }
    }

    /// The tools the model may call (Ollama's schema objects).
    pub fn with_tools(mut self, tools: Vec<serde_json::Value>) -> Self {
        self.tools = tools;
        self
    }

    /// Ollama's `think`; `None`: the model's default.
    pub fn with_think(mut self, think: Option<Think>) -> Self {
        self.think = think;
        self
    }

    /// How long the server keeps the model loaded afterwards.
    pub fn with_keep_alive(mut self, keep_alive: Option<String>) -> Self {
        self.keep_alive = keep_alive;
        self
    }
}

/// How much a thinking model reasons before it answers (Ollama's `think`: a boolean, or a
/// level that gpt-oss style models take).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Think {
    On,
    Off,
    Low,
    Medium,
    High,
}

impl Think {
    /// The value of the request's `think` field.
    pub fn wire(self) -> serde_json::Value {
        match self {
            Think::On => serde_json::Value::Bool(true),
            Think::Off => serde_json::Value::Bool(false),
            Think::Low => "low".into(),
            Think::Medium => "medium".into(),
            Think::High => "high".into(),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Think::On => "on",
            Think::Off => "off",
            Think::Low => "low",
            Think::Medium => "medium",
            Think::High => "high",
        }
    }

    pub fn parse(s: &str) -> Option<Think> {
        <Think as clap::ValueEnum>::from_str(s.trim(), true).ok()
    }
}

/// What a streaming chat yields: text and thinking as they come, tool calls as the server
/// parsed them, then the final statistics once.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    Delta(String),
    /// The model's reasoning (`message.thinking`), streamed before the answer.
    Thinking(String),
    /// Calls the server parsed from the model's output (`message.tool_calls`); they may come
    /// in a chunk of their own with empty content.
    ToolCalls(Vec<ToolCall>),
    Done(ChatStats),
}

/// Ollama's numbers for one reply. Each may be missing (older servers, errors), so each is
/// an `Option`; nothing is inferred.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChatStats {
    /// Prompt tokens the model really evaluated; less than sent means it truncated.
    pub prompt_eval_count: Option<u32>,
    /// Prompt tokens served from the KV cache, where the server reports them apart
    /// (newer Ollama); some versions leave them out of `prompt_eval_count`.
    pub prompt_eval_cached_count: Option<u32>,
    pub eval_count: Option<u32>,
    /// "stop", "length" (num_predict or a full context), "load", ...
    pub done_reason: Option<String>,
    pub total_duration: Option<Duration>,
    pub load_duration: Option<Duration>,
    pub prompt_eval_duration: Option<Duration>,
    pub eval_duration: Option<Duration>,
}

/// A whole reply, for non-interactive calls (summaries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatReply {
    pub text: String,
    pub stats: ChatStats,
    pub tool_calls: Vec<ToolCall>,
}

/// An installed model (`/api/tags`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSummary {
    pub name: String,
    pub size_bytes: u64,
    /// As Ollama prints it: "3.2B", "494.03M".
    pub parameter_size: Option<String>,
    pub family: Option<String>,
    pub modified_at: Option<DateTime<Utc>>,
    /// The trained window (from `/api/show`), when known.
    pub context_length: Option<u32>,
    /// What it can do (from `/api/show`): "tools", "thinking", "vision", …
    pub capabilities: Vec<String>,
}

/// Details of one model (`/api/show`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    pub name: String,
    /// The trained window (`<architecture>.context_length`), the upper bound for num_ctx.
    pub context_length: Option<u32>,
    pub parameter_size: Option<String>,
    /// `general.parameter_count`, exact where `parameter_size` is rounded.
    pub parameter_count: Option<u64>,
    pub family: Option<String>,
    /// "completion", "tools", "vision", "thinking", ...
    pub capabilities: Vec<String>,
}

/// A model currently in memory (`/api/ps`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedModel {
    pub name: String,
    /// The num_ctx it was loaded with (newer servers only).
    pub context_length: Option<u32>,
    pub size_vram: u64,
    pub expires_at: Option<DateTime<Utc>>,
}

/// A reply in progress. Dropping it closes the HTTP connection at once.
pub type ChatStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, LlmError>> + Send>>;

/// The model server. `Send + Sync + 'static` so an actor generic over it can be spawned.
pub trait ChatBackend: Send + Sync + 'static {
    fn version(&self) -> impl Future<Output = Result<String, LlmError>> + Send;
    fn list_models(&self) -> impl Future<Output = Result<Vec<ModelSummary>, LlmError>> + Send;
    fn show_model(&self, model: &str) -> impl Future<Output = Result<ModelInfo, LlmError>> + Send;
    fn loaded_models(&self) -> impl Future<Output = Result<Vec<LoadedModel>, LlmError>> + Send;
    /// Deltas, then one `Done`; an error ends the stream (deltas already yielded stand).
    /// Dropping the stream closes the HTTP connection at once (that is how Stop works).
    fn chat_stream(
        &self,
        req: ChatRequest,
    ) -> impl Future<Output = Result<ChatStream, LlmError>> + Send;
    /// The whole reply at once, used for summaries.
    fn chat(&self, req: ChatRequest) -> impl Future<Output = Result<ChatReply, LlmError>> + Send;
    /// One vector per input, in order, from an embedding model (`/api/embed`), for recall
    /// by meaning; the backend batches the inputs. `NotEmbedding` when the model makes no
    /// embeddings, `ModelNotFound` when it is not installed. No default: a wrapper that
    /// forgot to forward it would make recall silently lexical.
    fn embed(
        &self,
        model: &str,
        inputs: &[String],
    ) -> impl Future<Output = Result<Vec<Vec<f32>>, LlmError>> + Send;
    /// Download `model` to the server (`/api/pull`, `/pull`): its progress lines.
    /// Dropping the stream cancels the pull on the server's side too.
    fn pull(&self, model: &str)
    -> impl Future<Output = Result<super::PullStream, LlmError>> + Send;
}
