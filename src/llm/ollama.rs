//! [`ChatBackend`] for Ollama's native HTTP API (never `/v1`).
//!
//! All calls use reqwest directly rather than ollama-rs 0.3.6, because what ollama-rs
//! returns loses what we need: its `/api/tags` model has no `details` (parameter size,
//! family), its `/api/show` result has no `details` either (parameter size, quantization),
//! it reports any non-2xx status as a bare string (no 404 → "not installed"), it has no
//! `/api/version` or `/api/ps`, and its chat stream drops text when a UTF-8 character is
//! split across HTTP chunks, swallows mid-stream `{"error"}` lines, prints to stderr (the
//! TUI owns the terminal) and gives no statistics unless every metric is present.
//!
//! Chat always streams, even for [`ChatBackend::chat`]: a stream lets the first-token
//! timeout (model loads are slow) and the idle timeout (between chunks) tell a slow model
//! from a dead one, which one long blind wait for a non-streamed body cannot. Every chat
//! body carries `options.num_ctx`, `"truncate": false` and `"shift": false`, so an
//! overflow is an HTTP 400 the caller handles rather than silently dropped history.

use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use futures_util::{Stream, StreamExt};
use serde::Serialize;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::backend::{
    ChatBackend, ChatMessage, ChatReply, ChatRequest, ChatStream, LoadedModel, ModelInfo,
    ModelSummary, StreamEvent,
};
use super::error::{LlmError, Waiting, cause_chain};
use super::host::{HostError, parse_host};
use super::ndjson::{ChatLine, LineDecoder, parse_chat_line, preview};

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
    options: OllamaOptions,
}

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
        Ok(Self {
            base_url,
            http,
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

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    fn send_error(&self, err: &reqwest::Error) -> LlmError {
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

/// The chat body Ollama's `/api/chat` takes.
#[derive(Serialize)]
struct WireChat<'a> {
    model: &'a str,
    messages: &'a [ChatMessage],
    stream: bool,
    options: WireOptions,
    /// Overflow is an error, not silently dropped history.
    truncate: bool,
    /// A full context ends the reply ("length") instead of discarding its start.
    shift: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    keep_alive: Option<Value>,
}

#[derive(Serialize)]
struct WireOptions {
    num_ctx: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    num_predict: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
}

fn wire_chat(req: &ChatRequest) -> WireChat<'_> {
    WireChat {
        model: &req.model,
        messages: &req.messages,
        stream: true,
        options: WireOptions {
            num_ctx: req.options.num_ctx,
            num_predict: req.options.num_predict,
            temperature: req.options.temperature,
            seed: req.options.seed,
        },
        truncate: false,
        shift: false,
        // Ollama reads a number as seconds and a string as a Go duration ("-1" alone is
        // not one), so plain integers go out as numbers.
        keep_alive: req
            .keep_alive
            .as_deref()
            .map(|k| match k.trim().parse::<i64>() {
                Ok(secs) => json!(secs),
                Err(_) => json!(k),
            }),
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

fn status_error(status: u16, url: &str, body: &[u8], model: Option<&str>) -> LlmError {
    let message = error_message(body);
    if is_context_overflow(&message) {
        return LlmError::ContextOverflow { message };
    }
    if let Some(model) = model {
        // A 404 naming the model; a proxy's bare 404 is not about a model.
        if status == 404 && (message.contains("model") || message.contains(model)) {
            return LlmError::ModelNotFound {
                model: model.to_string(),
            };
        }
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
        let v = self.call("/api/tags", None, None).await?;
        let models = models_array(&v, &self.url("/api/tags"))?;
        Ok(models
            .iter()
            .map(|m| ModelSummary {
                name: model_name(m),
                size_bytes: m.get("size").and_then(Value::as_u64).unwrap_or(0),
                parameter_size: text(&m["details"], "parameter_size"),
                family: text(&m["details"], "family"),
                modified_at: time(m, "modified_at"),
            })
            .collect())
    }

    async fn show_model(&self, model: &str) -> Result<ModelInfo, LlmError> {
        let body = json!({ "model": model });
        let v = self.call("/api/show", Some(&body), Some(model)).await?;
        let info = &v["model_info"];
        let arch = text(info, "general.architecture");
        let context_length = arch
            .as_ref()
            .and_then(|a| info.get(format!("{a}.context_length")))
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok());
        Ok(ModelInfo {
            name: model.to_string(),
            context_length,
            parameter_size: text(&v["details"], "parameter_size"),
            parameter_count: info.get("general.parameter_count").and_then(Value::as_u64),
            family: text(&v["details"], "family").or(arch),
            quantization: text(&v["details"], "quantization_level"),
            capabilities: v["capabilities"]
                .as_array()
                .map(|caps| {
                    caps.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        })
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
        while let Some(event) = stream.next().await {
            match event? {
                StreamEvent::Delta(d) => text.push_str(&d),
                StreamEvent::Done(stats) => return Ok(ChatReply { text, stats }),
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
            Ok(ChatLine::Delta(d)) => {
                if !d.is_empty() {
                    self.pending.push(Ok(StreamEvent::Delta(d)));
                }
            }
            Ok(ChatLine::Done { delta, stats }) => {
                if !delta.is_empty() {
                    self.pending.push(Ok(StreamEvent::Delta(delta)));
                }
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
    use crate::llm::backend::ChatOptions;

    fn request(keep_alive: Option<&str>) -> ChatRequest {
        ChatRequest {
            model: "m".into(),
            messages: vec![ChatMessage::user("hi")],
            options: ChatOptions {
                num_ctx: 8192,
                ..ChatOptions::default()
            },
            keep_alive: keep_alive.map(str::to_string),
        }
    }

    #[test]
    fn wire_body_always_carries_num_ctx_truncate_and_shift() {
        let body = serde_json::to_value(wire_chat(&request(None))).unwrap();
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
    fn keep_alive_numbers_go_out_as_numbers() {
        let body = serde_json::to_value(wire_chat(&request(Some("-1")))).unwrap();
        assert_eq!(body["keep_alive"], json!(-1));
        let body = serde_json::to_value(wire_chat(&request(Some("10m")))).unwrap();
        assert_eq!(body["keep_alive"], json!("10m"));
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
