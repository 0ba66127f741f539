//! The model server behind a trait.
//!
//! [`ChatBackend`] is what the session actor talks to; [`OllamaBackend`] implements it over
//! Ollama's native HTTP API, and tests run it against a fake server speaking the same wire
//! format. Strategy: chat replies are streams of [`StreamEvent`]s decoded from NDJSON by
//! our own byte-level line reader ([`ndjson`]), so split lines and split UTF-8 characters
//! arrive intact, mid-stream errors surface as errors, and dropping the stream closes the
//! connection (Stop). Invariants: every chat request carries the caller's `num_ctx` with
//! `truncate: false` and `shift: false`; an error is always the last item of a stream; the
//! module never writes to the terminal (tracing only).

pub mod backend;
mod chat_body;
pub mod embed;
pub mod error;
pub mod host;
mod http;
pub mod ndjson;
pub mod ollama;
pub mod pull;
mod reply_stream;
mod status;

pub use backend::{
    ChatBackend, ChatMessage, ChatOptions, ChatReply, ChatRequest, ChatRole, ChatStats, ChatStream,
    LoadedModel, ModelInfo, ModelSummary, StreamEvent, Think, ToolCall,
};
pub use embed::{
    EMBED_BATCH, EmbeddingChoice, embedding_only, is_embedding_model, pick_embedding_model,
};
pub use error::{LlmError, SUGGESTED_EMBEDDING_MODEL, Waiting};
pub use host::{DEFAULT_HOST, DEFAULT_PORT, HostError, parse_host};
pub use ollama::{OllamaBackend, OllamaOptions};
pub use pull::{PullLine, PullProgress, PullStream};
pub use reply_stream::ReplyCeiling;
