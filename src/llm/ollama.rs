//! [`ChatBackend`] for Ollama's native HTTP API (never `/v1`).
//!
//! ollama-rs provides the client for the plain calls (`/api/tags`, `/api/show`). Where it
//! falls short we extend it rather than drop features:
//! - its chat request has no `truncate`/`shift`, no `tool_name` or `tool_call_id` on a
//!   message, and serialises empty tool lists and null thinking: the chat body is written
//!   from our [`ChatRequest`] in one step (`chat_body.rs`);
//! - its chat stream cannot be used: it drops text when a UTF-8 character is split across
//!   HTTP chunks, swallows mid-stream `{"error"}` lines, prints to stderr (the TUI owns the
//!   terminal) and gives no statistics unless every metric is present. We read the stream
//!   with our own NDJSON decoder over reqwest;
//! - it has no `/api/version` or `/api/ps`: reqwest directly;
//! - its `/api/tags` and `/api/show` results lack `details`, so parameter size and family
//!   come from `model_info` (`general.parameter_count`, `general.architecture`), and the
//!   listing is completed with one `show` per model;
//! - its errors are strings (a 404 is not typed) and its reqwest errors display only
//!   "Reqwest error": we classify the message and walk `source()` for the real cause.
//!
//! Chat always streams, even for [`ChatBackend::chat`]: a stream lets the first-token
//! timeout (model loads are slow) and the idle timeout (between chunks) tell a slow model
//! from a dead one, which one long blind wait for a non-streamed body cannot. Every chat
//! body carries `options.num_ctx`, `"truncate": false` and `"shift": false`, so an
//! overflow is an HTTP 400 the caller handles rather than silently dropped history (the
//! one exception, a backend made by [`OllamaBackend::server_truncating`], is the
//! benchmark's truncation baseline).
//!
//! The parts: `chat_body.rs` (the chat body), `reply_stream.rs` (a reply read as it
//! streams), `http.rs` (the plain calls, transport errors), `status.rs` (error answers),
//! `embed.rs` (embeddings, and which installed model makes them).

use std::time::Duration;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use ollama_rs::Ollama;
use serde_json::Value;
use tokio::time::Instant;

use super::backend::{
    ChatBackend, ChatReply, ChatRequest, ChatStream, LoadedModel, ModelInfo, ModelSummary,
    StreamEvent,
};
use super::chat_body::wire_chat;
use super::error::{LlmError, Waiting, cause_chain};
use super::host::{HostError, parse_host};
use super::ndjson::LineDecoder;
use super::reply_stream::{ReplyCeiling, ReplyReader};
use super::status::status_error;

/// Timeouts for the Ollama connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OllamaOptions {
    /// To open a TCP connection (loopback answers at once; this bounds a dead remote host).
    pub connect_timeout: Duration,
    /// From sending a chat until its first bytes: covers loading the model into memory.
    pub first_token_timeout: Duration,
    /// Between two chunks of a reply under way.
    pub idle_timeout: Duration,
    /// For the plain calls (version, tags, show, ps).
    pub request_timeout: Duration,
}

impl Default for OllamaOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            first_token_timeout: Duration::from_secs(300),
            idle_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(30),
        }
    }
}

/// An Ollama server at one address. Cheap to clone (the HTTP client is shared). Its fields
/// are `llm`'s own: its HTTP plumbing is in `http.rs`.
#[derive(Debug, Clone)]
pub struct OllamaBackend {
    pub(super) base_url: String,
    pub(super) http: reqwest::Client,
    /// ollama-rs's client on the same connection pool, for the plain calls.
    pub(super) ollama: Ollama,
    pub(super) options: OllamaOptions,
    /// Chats leave out `"truncate": false` and `"shift": false` (see
    /// [`OllamaBackend::server_truncating`]).
    server_truncates: bool,
}

/// Models whose details are fetched at once when listing.
const SHOW_CONCURRENCY: usize = 4;

impl OllamaBackend {
    /// `base_url` may be written any way `OLLAMA_HOST` can (see [`parse_host`]).
    pub fn new(base_url: &str, options: OllamaOptions) -> Result<Self, LlmError> {
        let base_url = parse_host(base_url)?;
        if base_url.starts_with("https://") {
            return Err(HostError::HttpsUnsupported { url: base_url }.into());
        }
        let http = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .build()
            .map_err(|e| LlmError::Connection {
                url: base_url.clone(),
                cause: cause_chain(&e),
            })?;
        // parse_host produced it, so it parses and has a host (ollama-rs panics otherwise).
        let url = reqwest::Url::parse(&base_url)
            .ok()
            .filter(reqwest::Url::has_host)
            .ok_or(HostError::Invalid {
                input: base_url.clone(),
                reason: "not a URL with a host",
            })?;
        let ollama = Ollama::builder()
            .url(url)
            .reqwest_client(http.clone())
            .build();
        Ok(Self {
            base_url,
            http,
            ollama,
            options,
            server_truncates: false,
        })
    }

    /// The same server, its chats sent without `"truncate": false` and `"shift": false`, so
    /// the server drops the oldest messages itself, as Ollama does for a client that
    /// manages no context: for the fidelity benchmark's truncation baseline only. The app
    /// never makes one: an overflow must be an error the engine handles, never history
    /// silently dropped.
    pub fn server_truncating(&self) -> Self {
        Self {
            server_truncates: true,
            ..self.clone()
        }
    }

    /// The normalised address, e.g. `http://127.0.0.1:11434`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    pub fn options(&self) -> &OllamaOptions {
        &self.options
    }
}

/// Ollama's way of printing a parameter count ("3.2B", "494.03M").
fn human_parameters(count: u64) -> String {
    let n = count as f64;
    if n >= 1e9 {
        format!("{:.1}B", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.2}M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.2}K", n / 1e3)
    } else {
        count.to_string()
    }
}

/// What `/api/show`'s `model_info` says, as ollama-rs returns it.
fn read_model_info(name: &str, info: &ollama_rs::models::ModelInfo) -> ModelInfo {
    let mi = &info.model_info;
    let arch = mi
        .get("general.architecture")
        .and_then(Value::as_str)
        .map(str::to_string);
    let context_length = arch
        .as_ref()
        .and_then(|a| mi.get(&format!("{a}.context_length")))
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok());
    let parameter_count = mi.get("general.parameter_count").and_then(Value::as_u64);
    ModelInfo {
        name: name.to_string(),
        context_length,
        parameter_size: parameter_count.map(human_parameters),
        parameter_count,
        family: arch,
        capabilities: info.capabilities.clone(),
    }
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn time(v: &Value, key: &str) -> Option<DateTime<Utc>> {
    let s = v.get(key)?.as_str()?;
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

fn models_array<'a>(v: &'a Value, url: &str) -> Result<&'a Vec<Value>, LlmError> {
    match v.get("models") {
        Some(Value::Array(models)) => Ok(models),
        // Ollama sends `null` for an empty list on some versions.
        Some(Value::Null) => Ok(const { &Vec::new() }),
        _ => Err(LlmError::Malformed {
            url: url.to_string(),
            detail: "no \"models\" list in the answer".to_string(),
        }),
    }
}

fn model_name(m: &Value) -> String {
    text(m, "name")
        .or_else(|| text(m, "model"))
        .unwrap_or_default()
}

impl ChatBackend for OllamaBackend {
    async fn version(&self) -> Result<String, LlmError> {
        let v = self.call("/api/version", None, None).await?;
        text(&v, "version").ok_or_else(|| LlmError::Malformed {
            url: self.url("/api/version"),
            detail: "no \"version\" in the answer".to_string(),
        })
    }

    async fn list_models(&self) -> Result<Vec<ModelSummary>, LlmError> {
        let local = self
            .timed(self.ollama.list_local_models(), "/api/tags", None)
            .await?;
        // Complete each entry with its details; a model whose show fails still lists.
        let names: Vec<String> = local.iter().map(|m| m.name.clone()).collect();
        let details: Vec<Option<ModelInfo>> = futures_util::stream::iter(names)
            .map(|name| async move { self.show_model(&name).await.ok() })
            .buffered(SHOW_CONCURRENCY)
            .collect()
            .await;
        Ok(local
            .into_iter()
            .zip(details)
            .map(|(m, info)| ModelSummary {
                modified_at: DateTime::parse_from_rfc3339(&m.modified_at)
                    .ok()
                    .map(|t| t.with_timezone(&Utc)),
                size_bytes: m.size,
                name: m.name,
                parameter_size: info.as_ref().and_then(|i| i.parameter_size.clone()),
                family: info.as_ref().and_then(|i| i.family.clone()),
                context_length: info.as_ref().and_then(|i| i.context_length),
                capabilities: info.map(|i| i.capabilities).unwrap_or_default(),
            })
            .collect())
    }

    async fn show_model(&self, model: &str) -> Result<ModelInfo, LlmError> {
        let info = self
            .timed(
                self.ollama.show_model_info(model.to_string()),
                "/api/show",
                Some(model),
            )
            .await?;
        Ok(read_model_info(model, &info))
    }

    async fn loaded_models(&self) -> Result<Vec<LoadedModel>, LlmError> {
        let v = self.call("/api/ps", None, None).await?;
        let models = models_array(&v, &self.url("/api/ps"))?;
        Ok(models
            .iter()
            .map(|m| LoadedModel {
                name: model_name(m),
                context_length: m
                    .get("context_length")
                    .and_then(Value::as_u64)
                    .and_then(|n| u32::try_from(n).ok()),
                size_vram: m.get("size_vram").and_then(Value::as_u64).unwrap_or(0),
                expires_at: time(m, "expires_at"),
            })
            .collect())
    }

    async fn chat_stream(&self, req: ChatRequest) -> Result<ChatStream, LlmError> {
        let url = self.url("/api/chat");
        let first_token = self.options.first_token_timeout;
        let deadline = Instant::now() + first_token;
        let first_token_timeout = LlmError::Timeout {
            waiting: Waiting::FirstToken,
            after: first_token,
        };
        tracing::debug!(
            model = %req.model,
            num_ctx = req.options.num_ctx,
            messages = req.messages.len(),
            "chat request"
        );
        let send = self
            .http
            .post(&url)
            .json(&wire_chat(&req, self.server_truncates))
            .send();
        let resp = match tokio::time::timeout_at(deadline, send).await {
            Err(_) => return Err(first_token_timeout),
            Ok(Err(e)) => return Err(self.send_error(&e)),
            Ok(Ok(resp)) => resp,
        };
        let status = resp.status();
        if !status.is_success() {
            let body = match tokio::time::timeout_at(deadline, resp.bytes()).await {
                Ok(Ok(bytes)) => bytes,
                _ => Bytes::new(),
            };
            let err = status_error(status.as_u16(), &url, &body, Some(&req.model));
            tracing::warn!(%err, "chat refused");
            return Err(err);
        }
        let reader = ReplyReader {
            body: Box::pin(resp.bytes_stream()),
            decoder: LineDecoder::new(),
            pending: Default::default(),
            ceiling: ReplyCeiling::for_request(&req.options),
            lines: 0,
            bytes: 0,
            first_deadline: Some(deadline),
            first_token,
            idle: self.options.idle_timeout,
            url,
            finished: false,
        };
        Ok(Box::pin(reader.into_stream()))
    }

    async fn chat(&self, req: ChatRequest) -> Result<ChatReply, LlmError> {
        let mut stream = self.chat_stream(req).await?;
        let mut text = String::new();
        let mut tool_calls = Vec::new();
        while let Some(event) = stream.next().await {
            match event? {
                StreamEvent::Delta(d) => text.push_str(&d),
                // Summaries do not show the model's reasoning.
                StreamEvent::Thinking(_) => {}
                StreamEvent::ToolCalls(calls) => tool_calls.extend(calls),
                StreamEvent::Done(stats) => {
                    return Ok(ChatReply {
                        text,
                        stats,
                        tool_calls,
                    });
                }
            }
        }
        Err(LlmError::Incomplete {
            detail: "the stream ended without a final line".to_string(),
        })
    }

    async fn embed(&self, model: &str, inputs: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        self.embed_all(model, inputs).await
    }

    async fn pull(&self, model: &str) -> Result<super::PullStream, LlmError> {
        OllamaBackend::pull(self, model).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_counts_print_like_ollama() {
        assert_eq!(human_parameters(3_212_749_888), "3.2B");
        assert_eq!(human_parameters(70_553_706_496), "70.6B");
        assert_eq!(human_parameters(494_032_768), "494.03M");
    }
}
