//! [`ChatBackend`] for Ollama's native HTTP API (never `/v1`).
//!
//! ollama-rs provides the client for the plain calls (`/api/tags`, `/api/show`) and the
//! request types of a chat (`ChatMessageRequest`, `ModelOptions`, `ChatMessage`). Where it
//! falls short we extend it rather than drop features:
//! - its chat body has no `truncate`/`shift`: we serialise its request and add them (and
//!   `stream`, which it only sets inside its own send methods);
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
//! one exception, `ChatRequest::server_truncates`, is the benchmark's truncation baseline).

use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use futures_util::{Stream, StreamExt};
use ollama_rs::Ollama;
use ollama_rs::error::OllamaError;
use ollama_rs::generation::chat::request::ChatMessageRequest;
use ollama_rs::models::ModelOptions;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::backend::{
    ChatBackend, ChatMessage, ChatReply, ChatRequest, ChatRole, ChatStream, LoadedModel, ModelInfo,
    ModelSummary, StreamEvent,
};
use super::error::{LlmError, Waiting, cause_chain};
use super::host::{HostError, parse_host};
use super::ndjson::{ChatLine, Chunk, LineDecoder, parse_chat_line, preview};

/// A line longer than this is not Ollama talking (its lines are a token each).
const MAX_LINE_BYTES: usize = 4 << 20;

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

/// An Ollama server at one address. Cheap to clone (the HTTP client is shared).
#[derive(Debug, Clone)]
pub struct OllamaBackend {
    base_url: String,
    http: reqwest::Client,
    /// ollama-rs's client on the same connection pool, for the plain calls.
    ollama: Ollama,
    options: OllamaOptions,
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
        })
    }

    /// The normalised address, e.g. `http://127.0.0.1:11434`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    pub fn options(&self) -> &OllamaOptions {
        &self.options
    }

    /// The HTTP client (for the calls of other files: `pull`).
    pub(super) fn http(&self) -> &reqwest::Client {
        &self.http
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    pub(super) fn send_error(&self, err: &reqwest::Error) -> LlmError {
        if err.is_connect() {
            LlmError::Unreachable {
                url: self.base_url.clone(),
                cause: cause_chain(err),
            }
        } else {
            LlmError::Connection {
                url: self.base_url.clone(),
                cause: cause_chain(err),
            }
        }
    }

    /// Classify an ollama-rs error: typed, with the URL and the real cause.
    fn rs_error(&self, err: OllamaError, path: &str, model: Option<&str>) -> LlmError {
        let url = self.url(path);
        match err {
            OllamaError::ReqwestError(e) if e.is_decode() => LlmError::Malformed {
                url,
                detail: cause_chain(&e),
            },
            OllamaError::ReqwestError(e) => self.send_error(&e),
            OllamaError::JsonError(e) => LlmError::Malformed {
                url,
                detail: format!("not Ollama's JSON: {e}"),
            },
            OllamaError::InternalError(e) => status_error(0, &url, e.message.as_bytes(), model),
            OllamaError::Other(body) => status_error(0, &url, body.as_bytes(), model),
            other => LlmError::Malformed {
                url,
                detail: other.to_string(),
            },
        }
    }

    /// Bound an ollama-rs call by the plain-call timeout.
    async fn timed<T>(
        &self,
        fut: impl std::future::Future<Output = Result<T, OllamaError>>,
        path: &str,
        model: Option<&str>,
    ) -> Result<T, LlmError> {
        tokio::time::timeout(self.options.request_timeout, fut)
            .await
            .map_err(|_| LlmError::Timeout {
                waiting: Waiting::Response,
                after: self.options.request_timeout,
            })?
            .map_err(|e| self.rs_error(e, path, model))
    }

    /// A plain call: the JSON answer of GET (no body) or POST (with `body`).
    async fn call(
        &self,
        path: &str,
        body: Option<&Value>,
        model: Option<&str>,
    ) -> Result<Value, LlmError> {
        let url = self.url(path);
        let request = match body {
            Some(b) => self.http.post(&url).json(b),
            None => self.http.get(&url),
        };
        let exchange = async {
            let resp = request.send().await.map_err(|e| self.send_error(&e))?;
            let status = resp.status();
            let bytes = resp.bytes().await.map_err(|e| LlmError::Connection {
                url: url.clone(),
                cause: cause_chain(&e),
            })?;
            Ok::<_, LlmError>((status, bytes))
        };
        let (status, bytes) = tokio::time::timeout(self.options.request_timeout, exchange)
            .await
            .map_err(|_| LlmError::Timeout {
                waiting: Waiting::Response,
                after: self.options.request_timeout,
            })??;
        if !status.is_success() {
            return Err(status_error(status.as_u16(), &url, &bytes, model));
        }
        serde_json::from_slice(&bytes).map_err(|e| LlmError::Malformed {
            url,
            detail: format!("not JSON ({e}): {}", preview(&bytes)),
        })
    }
}

/// The chat body: ollama-rs's request, plus what it cannot express.
fn wire_chat(req: &ChatRequest) -> Value {
    let mut options = ModelOptions::default().num_ctx(u64::from(req.options.num_ctx));
    if let Some(n) = req.options.num_predict {
        options = options.num_predict(n);
    }
    if let Some(t) = req.options.temperature {
        options = options.temperature(t);
    }
    if let Some(p) = req.options.top_p {
        options = options.top_p(p);
    }
    if let Some(seed) = req.options.seed {
        options = options.seed(seed);
    }
    let request = ChatMessageRequest::new(req.model.clone(), Vec::new()).options(options);
    let mut body = serde_json::to_value(&request).unwrap_or_else(|_| json!({}));
    if let Value::Object(map) = &mut body {
        // Messages as Ollama reads them, written here: ollama-rs's message type has no
        // `tool_name` / `tool_call_id`, and serialises empty tool lists and null thinking.
        map.insert(
            "messages".into(),
            Value::Array(req.messages.iter().map(wire_message).collect()),
        );
        if !req.tools.is_empty() {
            map.insert("tools".into(), Value::Array(req.tools.clone()));
        }
        if let Some(think) = &req.think {
            map.insert("think".into(), think.wire());
        }
        map.insert("stream".into(), json!(true));
        if !req.server_truncates {
            // Overflow is an error, not silently dropped history.
            map.insert("truncate".into(), json!(false));
            // A full context ends the reply ("length") instead of discarding its start.
            map.insert("shift".into(), json!(false));
        }
        // Ollama reads a number as seconds and a string as a Go duration ("-1" alone is
        // not one), so plain integers go out as numbers.
        if let Some(k) = req.keep_alive.as_deref() {
            let v = match k.trim().parse::<i64>() {
                Ok(secs) => json!(secs),
                Err(_) => json!(k),
            };
            map.insert("keep_alive".into(), v);
        }
    }
    body
}

/// One message on the wire. Tool calls go back with their arguments as an object (as
/// Ollama sent them); arguments that are not a JSON object (a model's malformed call, kept
/// as it came) go as a string.
fn wire_message(m: &ChatMessage) -> Value {
    let role = match m.role {
        ChatRole::System => "system",
        ChatRole::User => "user",
        ChatRole::Assistant => "assistant",
        ChatRole::Tool => "tool",
    };
    let mut out = serde_json::Map::new();
    out.insert("role".into(), json!(role));
    out.insert("content".into(), json!(m.content));
    if !m.tool_calls.is_empty() {
        let calls: Vec<Value> = m
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let args = match serde_json::from_str::<Value>(&c.args) {
                    Ok(v @ Value::Object(_)) => v,
                    _ => json!(c.args),
                };
                let mut call = json!({
                    "function": { "index": i, "name": c.name, "arguments": args }
                });
                if !c.id.is_empty() {
                    call["id"] = json!(c.id);
                }
                call
            })
            .collect();
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    if let Some(name) = &m.tool_name {
        out.insert("tool_name".into(), json!(name));
    }
    if let Some(id) = &m.tool_call_id {
        out.insert("tool_call_id".into(), json!(id));
    }
    Value::Object(out)
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

/// The `error` text of an error body, or the body itself.
fn error_message(body: &[u8]) -> String {
    serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| {
            let text = String::from_utf8_lossy(body);
            text.trim().chars().take(300).collect()
        })
}

fn is_context_overflow(message: &str) -> bool {
    let m = message.to_lowercase();
    [
        "context length",
        "context window",
        "input length",
        "exceeds the context",
    ]
    .iter()
    .any(|k| m.contains(k))
}

pub(super) fn status_error(status: u16, url: &str, body: &[u8], model: Option<&str>) -> LlmError {
    let message = error_message(body);
    if is_context_overflow(&message) {
        return LlmError::ContextOverflow { message };
    }
    if let Some(model) = model {
        // A 404 naming the model; a proxy's bare 404 is not about a model. Through
        // ollama-rs the status is lost (0): then the message must say "not found".
        let names_model = message.contains("model") || message.contains(model);
        if names_model && (status == 404 || (status == 0 && message.contains("not found"))) {
            return LlmError::ModelNotFound {
                model: model.to_string(),
            };
        }
    }
    if status == 0 {
        return LlmError::Refused {
            url: url.to_string(),
            message,
        };
    }
    LlmError::Http {
        status,
        url: url.to_string(),
        message,
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
        let send = self.http.post(&url).json(&wire_chat(&req)).send();
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
            pending: Vec::new(),
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
}

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// Turns a reply body into [`StreamEvent`]s. After `Done` or an error it yields nothing
/// more, so an error is always the last item and every delta before it stands.
struct ReplyReader {
    body: ByteStream,
    decoder: LineDecoder,
    /// Events decoded but not yet handed out (one chunk can complete several lines).
    pending: Vec<Result<StreamEvent, LlmError>>,
    /// Until the first bytes arrive, the first-token deadline applies; then `idle`.
    first_deadline: Option<Instant>,
    first_token: Duration,
    idle: Duration,
    url: String,
    finished: bool,
}

impl ReplyReader {
    fn into_stream(self) -> impl Stream<Item = Result<StreamEvent, LlmError>> + Send {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::llm::backend::{ChatMessage, ChatOptions};

    fn request(keep_alive: Option<&str>) -> ChatRequest {
        ChatRequest {
            model: "m".into(),
            messages: vec![ChatMessage::user("hi")],
            options: ChatOptions {
                num_ctx: 8192,
                ..ChatOptions::default()
            },
            keep_alive: keep_alive.map(str::to_string),
            tools: Vec::new(),
            think: None,
            server_truncates: false,
        }
    }

    #[test]
    fn wire_body_always_carries_num_ctx_truncate_and_shift() {
        let body = wire_chat(&request(None));
        assert_eq!(
            body,
            json!({
                "model": "m",
                "messages": [{"role": "user", "content": "hi"}],
                "stream": true,
                "options": {"num_ctx": 8192},
                "truncate": false,
                "shift": false
            })
        );
    }

    #[test]
    fn only_the_benchmark_opt_out_leaves_truncation_to_the_server() {
        let body = wire_chat(&ChatRequest {
            server_truncates: true,
            ..request(None)
        });
        let map = body.as_object().unwrap();
        assert!(!map.contains_key("truncate") && !map.contains_key("shift"));
        assert_eq!(body["options"]["num_ctx"], json!(8192));
    }

    #[test]
    fn keep_alive_numbers_go_out_as_numbers() {
        let body = wire_chat(&request(Some("-1")));
        assert_eq!(body["keep_alive"], json!(-1));
        let body = wire_chat(&request(Some("10m")));
        assert_eq!(body["keep_alive"], json!("10m"));
    }

    #[test]
    fn parameter_counts_print_like_ollama() {
        assert_eq!(human_parameters(3_212_749_888), "3.2B");
        assert_eq!(human_parameters(70_553_706_496), "70.6B");
        assert_eq!(human_parameters(494_032_768), "494.03M");
    }

    #[test]
    fn status_errors_are_classified() {
        let overflow = status_error(
            400,
            "u",
            br#"{"error":"the input length exceeds the context length"}"#,
            Some("m"),
        );
        assert!(matches!(overflow, LlmError::ContextOverflow { .. }));
        let missing = status_error(
            404,
            "u",
            br#"{"error":"model \"m\" not found, try pulling it first"}"#,
            Some("m"),
        );
        assert!(matches!(missing, LlmError::ModelNotFound { model } if model == "m"));
        let proxy = status_error(404, "u", b"404 page not found", Some("llama"));
        assert!(matches!(proxy, LlmError::Http { status: 404, .. }));
        let crash = status_error(500, "u", br#"{"error":"out of memory"}"#, None);
        assert!(
            matches!(crash, LlmError::Http { status: 500, message, .. } if message == "out of memory")
        );
    }
}
