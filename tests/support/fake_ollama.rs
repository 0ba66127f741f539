//! A fake Ollama server speaking the real wire format on 127.0.0.1, for tests and manual runs.
//!
//! Strategy: one axum fallback handler records every request (method, path, JSON body,
//! arrival time) and routes by hand, so even paths Ollama lacks (`/v1/...`) are recorded
//! and can be asserted absent. Prompts are counted with tiktoken `o200k_base` (a different
//! tokenizer from the client's cl100k, as a real model's would be) plus a per-message
//! template overhead and a BOS token; context handling follows Ollama (`num_ctx` default
//! 4096, silent truncation of the oldest non-system messages unless `truncate: false`).
//! Replies are deterministic: seeded from the request, quoting the last user message, or a
//! fact-keeping summary when the system message asks to summarize/compress.
//!
//! Every chat response body is a planned list of steps (frames, sleeps, abort, stall)
//! played by [`PlannedBody`]. FIFOs of [`Fault`]s and scripted replies shape the next chat
//! requests. Invariant: `PlannedBody`'s `Drop` records a [`Disconnect`] exactly when the
//! client went away before the planned lines were all written (a server-side abort or a
//! normal end is not a disconnect).
//!
//! `POST /api/embed` answers as Ollama does for an embedding model ([`embedding_model`],
//! not installed by default so the model lists tests assert on stay as they were), with
//! vectors from [`fake_embedding`]: a test stand-in for a real model's, a hashed bag of
//! words with a few synonyms, so a paraphrase can be found and "thanks" cannot.
//! [`EmbedFault`]s make the next embed requests fail, stall or answer wrong.

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::Response;
use axum::serve::ListenerExt;
use futures::Stream;
use regex::Regex;
use serde_json::{Value, json};
use tokio::sync::watch;

/// `num_ctx` Ollama uses when a request names none.
pub const DEFAULT_NUM_CTX: u32 = 4096;
/// Chat-template tokens the fake adds per message (role header, separators).
pub const TEMPLATE_OVERHEAD_TOKENS: u32 = 4;
/// Beginning-of-sequence token added once per prompt.
pub const BOS_TOKENS: u32 = 1;
/// What a chat template adds around offered tools before their definitions (Qwen2.5's
/// lists them in the system prompt under a paragraph on how to call them): counted, like
/// the definitions, in `prompt_eval_count` and truncation, as Ollama renders them.
pub const TOOLS_PREAMBLE_TOKENS: u32 = 80;
/// What `GET /api/version` reports.
pub const FAKE_VERSION: &str = "0.12.6";
/// Ollama's error text when a prompt exceeds the context and truncation is off.
pub const CONTEXT_OVERFLOW_ERROR: &str = "the input length exceeds the context length";
/// Text the reply carries in [`Fault::SplitLines`] mode, so splits land inside characters.
pub const UNICODE_SENTENCE: &str = "Unicode check: café, naïve, 日本語, 🦀.";
/// Pause between the pieces of a split line; long enough for each to be its own write.
const SPLIT_PAUSE: Duration = Duration::from_millis(1);
/// Words of the last user message quoted at the start of a normal reply.
const QUOTE_WORDS: usize = 8;
/// Leading words kept per paragraph in a summary.
const SUMMARY_LEAD_WORDS: usize = 6;

/// A model the fake serves.
#[derive(Debug, Clone, PartialEq)]
pub struct FakeModel {
    pub name: String,
    pub family: String,
    /// As Ollama prints it: "3.2B", "494.03M".
    pub parameter_size: String,
    pub parameter_count: u64,
    pub quantization: String,
    /// The model's trained window (`<arch>.context_length` in /api/show).
    pub context_length: u32,
    pub size: u64,
    pub digest: String,
    pub modified_at: String,
    pub capabilities: Vec<String>,
    /// `<arch>.embedding_length` in /api/show; the length of its vectors for an
    /// embedding model.
    pub embedding_length: u32,
}

impl FakeModel {
    /// A Q4_K_M gguf model; size and digest are derived deterministically.
    pub fn new(
        name: &str,
        family: &str,
        parameter_size: &str,
        parameter_count: u64,
        context_length: u32,
    ) -> Self {
        let h = fnv1a(name.as_bytes());
        let digest: String = (0..4u64)
            .map(|i| format!("{:016x}", splitmix(h.wrapping_add(i))))
            .collect();
        Self {
            name: name.to_string(),
            family: family.to_string(),
            parameter_size: parameter_size.to_string(),
            parameter_count,
            quantization: "Q4_K_M".to_string(),
            context_length,
            // ~4.5 bits per parameter, like Q4_K_M.
            size: parameter_count / 16 * 9,
            digest,
            modified_at: "2025-10-01T12:00:00.123456789Z".to_string(),
            capabilities: vec!["completion".to_string(), "tools".to_string()],
            embedding_length: 3072,
        }
    }
}

/// `all-minilm:latest` as Ollama lists it: a 23M `bert` model in F16 (46 MB) that only
/// embeds (`"capabilities":["embedding"]`), 384 dimensions, trained on 512 tokens. Not
/// installed by default (`FakeOllama::add_model`), and in the registry for `/api/pull`.
pub fn embedding_model() -> FakeModel {
    let mut m = FakeModel::new("all-minilm:latest", "bert", "23M", 22_713_216, 512);
    m.quantization = "F16".to_string();
    m.size = 45_960_996;
    m.capabilities = vec!["embedding".to_string()];
    m.embedding_length = 384;
    m
}

/// `nomic-embed-text:latest`: a `nomic-bert` embedding model of 768 dimensions (another
/// dimension than [`embedding_model`]'s).
pub fn nomic_embedding_model() -> FakeModel {
    let mut m = FakeModel::new(
        "nomic-embed-text:latest",
        "nomic-bert",
        "137M",
        136_727_040,
        2048,
    );
    m.quantization = "F16".to_string();
    m.size = 274_302_450;
    m.capabilities = vec!["embedding".to_string()];
    m.embedding_length = 768;
    m
}

/// A model with the `thinking` capability (like qwen3): it reasons before it answers
/// unless a request says `"think": false`.
pub fn thinking_model() -> FakeModel {
    let mut m = FakeModel::new("qwen3:4b", "qwen3", "4.0B", 4_022_468_096, 40_960);
    m.capabilities.push("thinking".to_string());
    m
}

/// A model that sees pictures (`"capabilities"` with `vision`), like llava: it answers a
/// message with pictures from their bytes (`I see an image of N bytes, sha256 …`). Not
/// installed by default (`FakeOllama::add_model`; the example's `--vision`).
pub fn vision_model() -> FakeModel {
    let mut m = FakeModel::new("llava:7b", "llama", "7.2B", 7_241_732_096, 32_768);
    m.capabilities.push("vision".to_string());
    m
}

/// What the fake thinks before its reply: `Thinking about "<first words>"` and a fixed
/// sentence, one chunk per word.
fn thinking_chunks(messages: &[Msg]) -> Vec<String> {
    let text = format!(
        "Thinking about \"{}\": the person wants a short answer, so I answer plainly.",
        quote_last_user(messages)
    );
    let mut out = Vec::new();
    for (i, w) in text.split(' ').enumerate() {
        out.push(if i == 0 {
            w.to_string()
        } else {
            format!(" {w}")
        });
    }
    out
}

/// `llama3.2:3b` (ctx 131072), `qwen2.5-coder:0.5b` (ctx 32768), `llama3.1:70b` (ctx 131072).
pub fn default_models() -> Vec<FakeModel> {
    vec![
        FakeModel::new("llama3.2:3b", "llama", "3.2B", 3_212_749_888, 131_072),
        FakeModel::new(
            "qwen2.5-coder:0.5b",
            "qwen2",
            "494.03M",
            494_032_768,
            32_768,
        ),
        FakeModel::new("llama3.1:70b", "llama", "70.6B", 70_553_706_560, 131_072),
    ]
}

/// Start-up settings; the mutable ones also have setters on [`FakeOllama`].
#[derive(Debug, Clone)]
pub struct FakeConfig {
    /// 0 picks a free port.
    pub port: u16,
    /// Pause before each streamed content chunk.
    pub token_delay: Duration,
    /// Filler words in a normal reply (after the quote).
    pub reply_words: usize,
    /// Behave like an older Ollama that does not know `truncate`: truncate silently even
    /// when `"truncate": false` is sent.
    pub ignore_truncate_flag: bool,
    /// Behave like an Ollama older than 0.1.38: no `/api/ps` (404).
    pub no_ps: bool,
    pub models: Vec<FakeModel>,
    /// Models `/api/pull` can fetch (a name not here fails as Ollama's does).
    pub registry: Vec<FakeModel>,
    /// How a pull streams: its main layer in this many steps, this long apart.
    pub pull_steps: usize,
    pub pull_delay: Duration,
}

impl Default for FakeConfig {
    fn default() -> Self {
        Self {
            port: 0,
            token_delay: Duration::ZERO,
            reply_words: 30,
            ignore_truncate_flag: false,
            no_ps: false,
            models: default_models(),
            registry: registry_models(),
            pull_steps: 20,
            pull_delay: Duration::from_millis(5),
        }
    }
}

/// What the fake's "registry" offers to `/api/pull`: `smollm2:135m` (ctx 8192),
/// `tinyllama:1.1b` (ctx 2048) and the embedding model `all-minilm:latest`, not installed
/// at start.
pub fn registry_models() -> Vec<FakeModel> {
    vec![
        FakeModel::new("smollm2:135m", "llama", "134.52M", 134_515_008, 8192),
        FakeModel::new("tinyllama:1.1b", "llama", "1.1B", 1_100_048_384, 2048),
        embedding_model(),
    ]
}

/// Ollama's words when the registry has no such model.
pub const PULL_UNKNOWN_ERROR: &str = "pull model manifest: file does not exist";

/// A scripted fault for the next chat request (FIFO, one per request).
///
/// `tokens` counts streamed content chunks (each one or more model tokens that form whole
/// UTF-8 characters, like Ollama's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Abort the TCP connection after `tokens` chunks: no `done` line, no chunked terminator.
    /// With `tokens: 0` (and without streaming) the headers never leave, so the client sees
    /// the request itself fail.
    DropAfter { tokens: usize },
    /// An `{"error": message}` line inside the 200 stream after `tokens` chunks, then the end.
    ErrorAfter { tokens: usize, message: String },
    /// HTTP 500 with `{"error": message}`.
    Http500 { message: String },
    /// HTTP 200 whose body is not NDJSON (HTML, NUL, invalid UTF-8).
    Garbage,
    /// Every line written in several pieces, one split inside a multi-byte character; the
    /// reply contains [`UNICODE_SENTENCE`].
    SplitLines,
    /// Content chunks, then a clean end of the body without a `done: true` line.
    NoDone,
    /// Stop writing after `tokens` chunks but keep the connection open.
    StallAfter { tokens: usize },
    /// HTTP 400 context overflow, whatever the prompt size.
    ContextOverflow,
    /// Token delay for this request only.
    TokenDelay(Duration),
    /// A reply that never ends and never repeats (#36): content lines of words made
    /// from a counter, a newline every few, each line padded with `pad` bytes of an
    /// unknown field (what Ollama's parser skips), written as fast as the socket takes
    /// them, or at `bytes_per_sec`. It ignores `num_predict` and ends only when the
    /// client goes away (a disconnect is recorded). A summary request leaves it queued.
    Endless {
        bytes_per_sec: Option<u64>,
        pad: usize,
    },
}

/// A scripted fault for the next `POST /api/embed` (FIFO, one per request).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedFault {
    /// HTTP 500 with `{"error": message}`.
    Http500 { message: String },
    /// No answer at all until the server shuts down (a hung runner).
    Stall,
    /// The answer, this late.
    Delay(Duration),
    /// HTTP 200 whose body is not JSON.
    Garbage,
    /// One vector fewer than inputs.
    MissingVector,
    /// The last vector one component short.
    RaggedDimensions,
    /// Every vector of this many dimensions (another model behind the same name).
    Dimensions(usize),
    /// HTTP 200 with a body of this many bytes (a JSON number that never ends).
    Oversized { bytes: usize },
}

/// Ollama's words when a model that does not embed is asked to.
pub const NOT_EMBEDDING_ERROR: &str = "this model does not support embeddings";

/// One request as the fake received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// The body parsed as JSON, if it was JSON.
    pub body: Option<Value>,
    pub raw_body: String,
    pub at: Instant,
}

/// A client that closed a response before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Disconnect {
    /// Index into [`FakeOllama::requests`].
    pub request_index: usize,
    pub at: Instant,
    /// Complete lines written before the client left.
    pub chunks_sent: usize,
}

/// What the fake did with a chat request (what the "model" saw and produced).
#[derive(Debug, Clone, PartialEq)]
pub struct ChatOutcome {
    pub request_index: usize,
    pub model: String,
    pub num_ctx: u32,
    /// Prompt tokens as sent, before any truncation.
    pub prompt_tokens_sent: u32,
    /// `prompt_eval_count` reported (after truncation).
    pub prompt_eval_count: u32,
    /// Oldest non-system messages dropped silently to fit `num_ctx`.
    pub dropped_messages: usize,
    pub eval_count: u32,
    pub done_reason: String,
    pub summary: bool,
    pub reply: String,
}

#[derive(Debug)]
struct Settings {
    token_delay: Duration,
    reply_words: usize,
    ignore_truncate_flag: bool,
    no_ps: bool,
    models: Vec<FakeModel>,
    registry: Vec<FakeModel>,
    pull_steps: usize,
    pull_delay: Duration,
}

#[derive(Debug, Clone)]
struct Loaded {
    name: String,
    context_length: u32,
    expires_at: String,
}

struct Shared {
    settings: Mutex<Settings>,
    faults: Mutex<VecDeque<Fault>>,
    embed_faults: Mutex<VecDeque<EmbedFault>>,
    replies: Mutex<VecDeque<String>>,
    /// Scripted tool calls: the next chat request (not a summary) answers with these.
    tool_calls: Mutex<VecDeque<Vec<(String, Value)>>>,
    requests: Mutex<Vec<RecordedRequest>>,
    outcomes: Mutex<Vec<ChatOutcome>>,
    disconnects: Mutex<Vec<Disconnect>>,
    /// What each endless reply wrote before the client left: bytes, and for how long.
    endless: Mutex<Vec<(u64, Duration)>>,
    loaded: Mutex<Vec<Loaded>>,
    chat_count: watch::Sender<usize>,
    /// Summary requests wait while this is true (a slow summarizer, on demand).
    hold_summaries: watch::Sender<bool>,
    disconnect_count: watch::Sender<usize>,
    shutdown: watch::Sender<bool>,
    /// Where to append one JSON line per chat request, as ollama-real's `--log` does.
    request_log: Mutex<Option<std::path::PathBuf>>,
}

/// Poisoning only means another test thread panicked; the data is still what we want.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The running fake server. Shuts down when dropped.
pub struct FakeOllama {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl FakeOllama {
    /// Default models and settings on a random port.
    pub async fn start() -> Self {
        Self::start_with(FakeConfig::default()).await
    }

    pub async fn start_with(config: FakeConfig) -> Self {
        match Self::try_start_with(config).await {
            Ok(server) => server,
            Err(e) => panic!("fake ollama: cannot listen on 127.0.0.1: {e}"),
        }
    }

    pub async fn try_start_with(config: FakeConfig) -> io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", config.port)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            settings: Mutex::new(Settings {
                token_delay: config.token_delay,
                reply_words: config.reply_words,
                ignore_truncate_flag: config.ignore_truncate_flag,
                no_ps: config.no_ps,
                models: config.models,
                registry: config.registry,
                pull_steps: config.pull_steps,
                pull_delay: config.pull_delay,
            }),
            faults: Mutex::default(),
            embed_faults: Mutex::default(),
            replies: Mutex::default(),
            tool_calls: Mutex::default(),
            requests: Mutex::default(),
            outcomes: Mutex::default(),
            disconnects: Mutex::default(),
            endless: Mutex::default(),
            loaded: Mutex::default(),
            chat_count: watch::Sender::new(0),
            hold_summaries: watch::Sender::new(false),
            disconnect_count: watch::Sender::new(0),
            shutdown: watch::Sender::new(false),
            request_log: Mutex::default(),
        });
        let app = Router::new()
            .fallback(dispatch)
            .layer(DefaultBodyLimit::disable())
            .with_state(Arc::clone(&shared));
        let listener = listener.tap_io(|tcp| {
            // Small writes must leave at once, or split lines would be coalesced.
            let _ = tcp.set_nodelay(true);
        });
        let mut stop = shared.shutdown.subscribe();
        tokio::spawn(async move {
            let signal = async move {
                let _ = stop.wait_for(|s| *s).await;
            };
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(signal)
                .await;
        });
        Ok(Self { addr, shared })
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// JSON bodies of the `POST /api/chat` requests received so far.
    pub fn chat_requests(&self) -> Vec<Value> {
        lock(&self.shared.requests)
            .iter()
            .filter(|r| r.method == "POST" && r.path == "/api/chat")
            .map(|r| r.body.clone().unwrap_or(Value::Null))
            .collect()
    }

    /// The chat requests that asked for a summary (by the summarizer's prompt).
    pub fn summary_requests(&self) -> Vec<Value> {
        self.chat_requests()
            .into_iter()
            .filter(asks_for_summary)
            .collect()
    }

    /// What the fake made of each chat request that reached generation.
    pub fn chat_outcomes(&self) -> Vec<ChatOutcome> {
        lock(&self.shared.outcomes).clone()
    }

    /// Queue a fault for the next chat request that has none yet.
    pub fn push_fault(&self, fault: Fault) {
        lock(&self.shared.faults).push_back(fault);
    }

    /// Queue a fault for the next embed request that has none yet.
    pub fn push_embed_fault(&self, fault: EmbedFault) {
        lock(&self.shared.embed_faults).push_back(fault);
    }

    /// JSON bodies of the `POST /api/embed` requests received so far.
    pub fn embed_requests(&self) -> Vec<Value> {
        lock(&self.shared.requests)
            .iter()
            .filter(|r| r.method == "POST" && r.path == "/api/embed")
            .map(|r| r.body.clone().unwrap_or(Value::Null))
            .collect()
    }

    /// Queue a verbatim reply for the next chat request (overrides normal and summary text).
    pub fn push_reply(&self, reply: impl Into<String>) {
        lock(&self.shared.replies).push_back(reply.into());
    }

    /// The next chat reply (not a summary) calls these tools, as Ollama streams a parsed
    /// call: one `done:false` chunk with empty content and `tool_calls` (each with an id
    /// and its arguments as an object), then the final line.
    pub fn push_tool_calls(&self, calls: Vec<(&str, Value)>) {
        lock(&self.shared.tool_calls)
            .push_back(calls.into_iter().map(|(n, a)| (n.to_string(), a)).collect());
    }

    /// Hold every summary request (no answer) until released: a summarizer that takes
    /// as long as a test needs. Chats are not held.
    pub fn hold_summaries(&self, hold: bool) {
        self.shared.hold_summaries.send_replace(hold);
    }

    pub fn set_token_delay(&self, delay: Duration) {
        lock(&self.shared.settings).token_delay = delay;
    }

    /// Load `name` with a window of `num_ctx`, as `ollama run` would at the server's
    /// own default (it shows in `/api/ps`).
    pub fn preload(&self, name: &str, num_ctx: u32) {
        mark_loaded(&self.shared, name, num_ctx, &Value::Null);
    }

    pub fn set_reply_words(&self, words: usize) {
        lock(&self.shared.settings).reply_words = words;
    }

    /// Append one JSON line per chat request to `path`, in ollama-real's `--log` format:
    /// the body, `prompt_tokens` (as sent) and `num_ctx`, with `dropped_messages` (how
    /// many of the oldest its truncation dropped) or `rejected` (refused as too long).
    pub fn set_request_log(&self, path: &std::path::Path) {
        *lock(&self.shared.request_log) = Some(path.to_path_buf());
    }

    pub fn set_ignore_truncate_flag(&self, ignore: bool) {
        lock(&self.shared.settings).ignore_truncate_flag = ignore;
    }

    /// Replace the whole model list.
    pub fn set_models(&self, models: Vec<FakeModel>) {
        lock(&self.shared.settings).models = models;
    }

    /// Add a model, replacing one of the same name.
    pub fn add_model(&self, model: FakeModel) {
        let mut s = lock(&self.shared.settings);
        s.models.retain(|m| m.name != model.name);
        s.models.push(model);
    }

    /// How the next pulls stream: the main layer in `steps` steps, `delay` apart.
    pub fn set_pull_pace(&self, steps: usize, delay: Duration) {
        let mut s = lock(&self.shared.settings);
        s.pull_steps = steps.max(1);
        s.pull_delay = delay;
    }

    /// Offer `model` to `/api/pull` (replacing one of the same name).
    pub fn add_to_registry(&self, model: FakeModel) {
        let mut s = lock(&self.shared.settings);
        s.registry.retain(|m| m.name != model.name);
        s.registry.push(model);
    }

    /// The model names asked of `POST /api/pull`, in order.
    pub fn pull_requests(&self) -> Vec<String> {
        lock(&self.shared.requests)
            .iter()
            .filter(|r| r.method == "POST" && r.path == "/api/pull")
            .map(|r| {
                let b = r.body.clone().unwrap_or(Value::Null);
                b["model"]
                    .as_str()
                    .or_else(|| b["name"].as_str())
                    .unwrap_or("")
                    .to_string()
            })
            .collect()
    }

    /// What each [`Fault::Endless`] reply wrote before the client closed it: bytes, and
    /// over how long (the rate the client read at).
    pub fn endless_written(&self) -> Vec<(u64, Duration)> {
        lock(&self.shared.endless).clone()
    }

    /// Responses the client closed before their end.
    pub fn disconnects(&self) -> Vec<Disconnect> {
        lock(&self.shared.disconnects).clone()
    }

    /// The first disconnect, waiting up to `timeout` for it.
    pub async fn wait_for_disconnect(&self, timeout: Duration) -> Option<Disconnect> {
        let mut rx = self.shared.disconnect_count.subscribe();
        let _ = tokio::time::timeout(timeout, rx.wait_for(|n| *n > 0)).await;
        self.disconnects().first().copied()
    }

    /// Wait until at least `n` chat requests have arrived; false on timeout.
    pub async fn wait_for_chat_requests(&self, n: usize, timeout: Duration) -> bool {
        let mut rx = self.shared.chat_count.subscribe();
        matches!(
            tokio::time::timeout(timeout, rx.wait_for(|c| *c >= n)).await,
            Ok(Ok(_))
        )
    }

    /// Stop accepting connections and end stalled responses.
    pub fn shutdown(&self) {
        self.shared.shutdown.send_replace(true);
    }
}

impl Drop for FakeOllama {
    fn drop(&mut self) {
        self.shutdown();
    }
}

// ---------------------------------------------------------------------------------------
// Routing

async fn dispatch(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    body: Bytes,
) -> Response {
    let path = uri.path().to_string();
    let parsed: Option<Value> = serde_json::from_slice(&body).ok();
    let index = {
        let mut requests = lock(&shared.requests);
        requests.push(RecordedRequest {
            method: method.to_string(),
            path: path.clone(),
            body: parsed.clone(),
            raw_body: String::from_utf8_lossy(&body).into_owned(),
            at: Instant::now(),
        });
        requests.len() - 1
    };
    match (method, path.as_str()) {
        (Method::GET | Method::HEAD, "/") => plain(StatusCode::OK, "Ollama is running"),
        (Method::GET, "/api/version") => {
            json_response(StatusCode::OK, &json!({ "version": FAKE_VERSION }))
        }
        (Method::GET, "/api/tags") => tags(&shared),
        (Method::GET, "/api/ps") if lock(&shared.settings).no_ps => {
            plain(StatusCode::NOT_FOUND, "404 page not found")
        }
        (Method::GET, "/api/ps") => ps(&shared),
        (Method::POST, "/api/show") => show(&shared, parsed.as_ref()),
        (Method::POST, "/api/pull") => pull(&shared, index, parsed.as_ref()),
        (Method::POST, "/api/embed") => embed(&shared, parsed.as_ref()).await,
        (Method::POST, "/api/chat") => {
            shared.chat_count.send_modify(|c| *c += 1);
            if parsed.as_ref().is_some_and(asks_for_summary) {
                let mut held = shared.hold_summaries.subscribe();
                let _ = held.wait_for(|h| !*h).await;
            }
            chat(&shared, index, parsed.as_ref())
        }
        _ => plain(StatusCode::NOT_FOUND, "404 page not found"),
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    let mut r = Response::new(Body::from(text));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

fn json_response(status: StatusCode, value: &Value) -> Response {
    let mut r = Response::new(Body::from(value.to_string()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json; charset=utf-8"),
    );
    r
}

/// A JSON body already written.
fn json_body(status: StatusCode, text: String) -> Response {
    let mut r = Response::new(Body::from(text));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json; charset=utf-8"),
    );
    r
}

fn error_response(status: StatusCode, message: &str) -> Response {
    json_response(status, &json!({ "error": message }))
}

fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Nanos, true)
}

fn find_model(models: &[FakeModel], name: &str) -> Option<FakeModel> {
    models
        .iter()
        .find(|m| m.name == name || (!name.contains(':') && m.name == format!("{name}:latest")))
        .cloned()
}

fn details(m: &FakeModel) -> Value {
    json!({
        "parent_model": "",
        "format": "gguf",
        "family": m.family,
        "families": [m.family],
        "parameter_size": m.parameter_size,
        "quantization_level": m.quantization,
    })
}

fn tags(shared: &Shared) -> Response {
    let models: Vec<Value> = lock(&shared.settings)
        .models
        .iter()
        .map(|m| {
            json!({
                "name": m.name,
                "model": m.name,
                "modified_at": m.modified_at,
                "size": m.size,
                "digest": m.digest,
                "details": details(m),
            })
        })
        .collect();
    json_response(StatusCode::OK, &json!({ "models": models }))
}

fn ps(shared: &Shared) -> Response {
    let models = lock(&shared.settings).models.clone();
    let loaded = lock(&shared.loaded).clone();
    let entries: Vec<Value> = loaded
        .iter()
        .filter_map(|l| {
            let m = find_model(&models, &l.name)?;
            Some(json!({
                "name": m.name,
                "model": m.name,
                "size": m.size,
                "digest": m.digest,
                "details": details(&m),
                "expires_at": l.expires_at,
                "size_vram": m.size,
                "context_length": l.context_length,
            }))
        })
        .collect();
    json_response(StatusCode::OK, &json!({ "models": entries }))
}

fn show(shared: &Shared, body: Option<&Value>) -> Response {
    let Some(body) = body else {
        return error_response(StatusCode::BAD_REQUEST, "invalid JSON request body");
    };
    // `name` is the deprecated spelling some clients (ollama-rs) still send.
    let name = body["model"]
        .as_str()
        .or_else(|| body["name"].as_str())
        .unwrap_or("");
    if name.is_empty() {
        return error_response(StatusCode::BAD_REQUEST, "model is required");
    }
    let models = lock(&shared.settings).models.clone();
    let Some(m) = find_model(&models, name) else {
        return error_response(StatusCode::NOT_FOUND, &format!("model '{name}' not found"));
    };
    let arch = m.family.clone();
    let mut info = serde_json::Map::new();
    info.insert("general.architecture".into(), json!(arch));
    info.insert("general.file_type".into(), json!(15));
    info.insert("general.parameter_count".into(), json!(m.parameter_count));
    info.insert("general.quantization_version".into(), json!(2));
    info.insert(format!("{arch}.context_length"), json!(m.context_length));
    info.insert(
        format!("{arch}.embedding_length"),
        json!(m.embedding_length),
    );
    info.insert(format!("{arch}.block_count"), json!(28));
    info.insert("tokenizer.ggml.model".into(), json!("gpt2"));
    let template = "{{ if .System }}<|start_header_id|>system<|end_header_id|>\n\n{{ .System }}<|eot_id|>{{ end }}{{ range .Messages }}<|start_header_id|>{{ .Role }}<|end_header_id|>\n\n{{ .Content }}<|eot_id|>{{ end }}<|start_header_id|>assistant<|end_header_id|>\n\n";
    json_response(
        StatusCode::OK,
        &json!({
            "license": "",
            "modelfile": format!("# Modelfile generated by \"ollama show\"\nFROM {}\n", m.name),
            "parameters": "stop                           \"<|eot_id|>\"",
            "template": template,
            "details": details(&m),
            "model_info": Value::Object(info),
            "capabilities": m.capabilities,
            "modified_at": m.modified_at,
        }),
    )
}

// ---------------------------------------------------------------------------------------
// Pull

/// `POST /api/pull` as Ollama streams it: `pulling manifest`, each layer's bytes
/// (`pulling <digest>` with `digest`, `total`, `completed`), `verifying sha256 digest`,
/// `writing manifest`, `success` — and the model is then in `/api/tags`. A name the
/// registry lacks: `pulling manifest`, then Ollama's error line, in the 200 stream.
fn pull(shared: &Arc<Shared>, index: usize, body: Option<&Value>) -> Response {
    let Some(body) = body else {
        return error_response(StatusCode::BAD_REQUEST, "invalid JSON request body");
    };
    let name = body["model"]
        .as_str()
        .or_else(|| body["name"].as_str())
        .unwrap_or("");
    if name.is_empty() {
        return error_response(StatusCode::BAD_REQUEST, "model is required");
    }
    let (registry, steps, delay) = {
        let s = lock(&shared.settings);
        (s.registry.clone(), s.pull_steps.max(1), s.pull_delay)
    };
    let mut plan = Plan::new(false);
    plan.line(&json!({ "status": "pulling manifest" }), true);
    let Some(model) = find_model(&registry, name) else {
        plan.line(&json!({ "error": PULL_UNKNOWN_ERROR }), true);
        return planned_response(plan, shared, index, "application/x-ndjson");
    };
    // The weights, then a small layer (the template), as a real manifest has.
    let template = 1_234u64.min(model.size / 2);
    let layers = [
        (model.digest.clone(), model.size - template, steps),
        (format!("{:0>64}", "7e"), template, 1),
    ];
    let line = |digest: &str, total: u64, completed: Option<u64>| {
        let mut v = json!({
            "status": format!("pulling {}", &digest[..12]),
            "digest": format!("sha256:{digest}"),
            "total": total,
        });
        if let Some(c) = completed {
            v["completed"] = json!(c);
        }
        v
    };
    // Every layer is announced first (Ollama fetches them at once), then counts up.
    for (digest, total, _) in &layers {
        plan.line(&line(digest, *total, None), true);
    }
    for (digest, total, parts) in &layers {
        for i in 1..=*parts {
            if !delay.is_zero() {
                plan.push(Step::Sleep(delay));
            }
            let done = total * u64::try_from(i).unwrap_or(1) / u64::try_from(*parts).unwrap_or(1);
            plan.line(&line(digest, *total, Some(done)), true);
        }
    }
    plan.line(&json!({ "status": "verifying sha256 digest" }), true);
    plan.line(&json!({ "status": "writing manifest" }), true);
    plan.push(Step::Install(model));
    plan.line(&json!({ "status": "success" }), true);
    planned_response(plan, shared, index, "application/x-ndjson")
}

// ---------------------------------------------------------------------------------------
// Embeddings

/// Words the fake's embedding treats as one meaning: (word, the meaning's word). A test
/// stand-in for what a real model learned, enough for a paraphrase to be found.
const SYNONYMS: &[(&str, &str)] = &[
    ("expense", "receipt"),
    ("claim", "receipt"),
    ("reimbursement", "receipt"),
    ("invoice", "receipt"),
    ("sleep", "hotel"),
    ("sleeping", "hotel"),
    ("stay", "hotel"),
    ("staying", "hotel"),
    ("accommodation", "hotel"),
    ("eat", "dinner"),
    ("eating", "dinner"),
    ("meal", "dinner"),
    ("restaurant", "dinner"),
    ("fly", "flight"),
    ("flying", "flight"),
    ("plane", "flight"),
    ("cost", "price"),
    ("costs", "price"),
    ("pay", "price"),
];

/// Words that carry no meaning for the fake's embedding.
const EMBED_STOP: &[&str] = &[
    "a", "an", "the", "is", "are", "was", "were", "be", "to", "of", "in", "on", "at", "for", "and",
    "or", "it", "its", "i", "we", "you", "my", "our", "your", "me", "us", "what", "where", "when",
    "which", "who", "how", "do", "does", "did", "much", "many", "that", "this", "thanks", "thank",
    "ok", "okay", "please", "with", "from", "by", "so", "all",
];

/// The fake's vector for `text`: each word (lower case, accents off, a plural `s` off,
/// through [`SYNONYMS`]) adds ±1 at a hashed place, then the whole is scaled to length
/// one. A text without a word that means something points everywhere a little, so it is
/// near nothing. Deterministic, so tests can compute what the server will answer.
pub fn fake_embedding(text: &str, dim: usize) -> Vec<f32> {
    use unicode_normalization::UnicodeNormalization;
    let dim = dim.max(1);
    let folded: String = text
        .to_lowercase()
        .nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .collect();
    let mut v = vec![0f32; dim];
    let mut any = false;
    for word in folded.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() || EMBED_STOP.contains(&word) {
            continue;
        }
        let word = SYNONYMS
            .iter()
            .find(|(w, _)| *w == word)
            .map_or(word, |(_, m)| m);
        let word = match word.strip_suffix('s') {
            Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem,
            _ => word,
        };
        let h = fnv1a(word.as_bytes());
        let at = usize::try_from(h % dim as u64).unwrap_or(0);
        v[at] += if h >> 63 == 0 { 1.0 } else { -1.0 };
        any = true;
    }
    if !any {
        // A direction spread over every place, its signs from the text: far from any
        // sentence's few words.
        let h = fnv1a(folded.trim().as_bytes());
        for (i, x) in v.iter_mut().enumerate() {
            *x = if splitmix(h.wrapping_add(i as u64)) & 1 == 0 {
                1.0
            } else {
                -1.0
            };
        }
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in &mut v {
            *x /= norm;
        }
    }
    v
}

/// `POST /api/embed` as Ollama answers it: one vector per input, in order (`input` a
/// string or a list; `""` or `[]` give none), `dimensions` cutting them shorter, the
/// model then listed in `/api/ps`. An unknown model is a 404, one that does not embed a
/// 501, as Ollama's.
async fn embed(shared: &Arc<Shared>, body: Option<&Value>) -> Response {
    let Some(body) = body else {
        return error_response(StatusCode::BAD_REQUEST, "invalid JSON request body");
    };
    let name = body["model"].as_str().unwrap_or("");
    if name.is_empty() {
        return error_response(StatusCode::BAD_REQUEST, "model is required");
    }
    let models = lock(&shared.settings).models.clone();
    let Some(model) = find_model(&models, name) else {
        return error_response(
            StatusCode::NOT_FOUND,
            &format!("model \"{name}\" not found, try pulling it first"),
        );
    };
    if !model.capabilities.iter().any(|c| c == "embedding") {
        return error_response(StatusCode::NOT_IMPLEMENTED, NOT_EMBEDDING_ERROR);
    }
    let inputs: Vec<String> = match &body["input"] {
        Value::Null => Vec::new(),
        Value::String(s) if s.is_empty() => Vec::new(),
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => {
            let mut out = Vec::new();
            for item in items {
                let Some(s) = item.as_str() else {
                    return error_response(StatusCode::BAD_REQUEST, "invalid input type");
                };
                out.push(s.to_string());
            }
            out
        }
        _ => return error_response(StatusCode::BAD_REQUEST, "invalid input type"),
    };
    let fault = lock(&shared.embed_faults).pop_front();
    match &fault {
        Some(EmbedFault::Http500 { message }) => {
            return error_response(StatusCode::INTERNAL_SERVER_ERROR, message);
        }
        Some(EmbedFault::Stall) => {
            let mut stop = shared.shutdown.subscribe();
            let _ = stop.wait_for(|s| *s).await;
            return error_response(StatusCode::SERVICE_UNAVAILABLE, "server shutting down");
        }
        Some(EmbedFault::Delay(d)) => tokio::time::sleep(*d).await,
        Some(EmbedFault::Garbage) => {
            return plain(StatusCode::OK, "<html><body>502 Bad Gateway</body></html>");
        }
        Some(EmbedFault::Oversized { bytes }) => {
            let mut text = String::from("{\"embeddings\":[[0.");
            text.push_str(&"1".repeat(bytes.saturating_sub(text.len())));
            return json_body(StatusCode::OK, text);
        }
        _ => {}
    }
    let full = usize::try_from(model.embedding_length).unwrap_or(384);
    let dim = body["dimensions"]
        .as_u64()
        .and_then(|d| usize::try_from(d).ok())
        .filter(|d| *d > 0 && *d < full)
        .unwrap_or(full);
    let (full, dim) = match fault {
        Some(EmbedFault::Dimensions(d)) => (d.max(1), d.max(1)),
        _ => (full, dim),
    };
    let mut vectors: Vec<Vec<f32>> = inputs
        .iter()
        .map(|s| {
            let mut v = fake_embedding(s, full);
            v.truncate(dim);
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 0.0 {
                v.iter_mut().for_each(|x| *x /= norm);
            }
            v
        })
        .collect();
    match fault {
        Some(EmbedFault::MissingVector) => {
            vectors.pop();
        }
        Some(EmbedFault::RaggedDimensions) => {
            if let Some(last) = vectors.last_mut() {
                last.pop();
            }
        }
        _ => {}
    }
    // [CLS] and [SEP] around each input, as a BERT model counts.
    let tokens: u32 = inputs.iter().map(|s| count_tokens(s) + 2).sum();
    mark_loaded(
        shared,
        &model.name,
        model.context_length,
        &body["keep_alive"],
    );
    let load = 1_234_567u64;
    json_response(
        StatusCode::OK,
        &json!({
            "model": model.name,
            "embeddings": vectors,
            "total_duration": load + u64::from(tokens) * 50_000 + 100_000,
            "load_duration": load,
            "prompt_eval_count": tokens,
        }),
    )
}

// ---------------------------------------------------------------------------------------
// Chat

#[derive(Debug, Clone)]
struct Msg {
    role: String,
    content: String,
    /// An assistant message's tool calls as the template writes them (name and
    /// arguments): they take room in the prompt like text does.
    calls: String,
    /// Pictures the message carries (`images`): each takes [`IMAGE_TOKENS`] of the
    /// prompt, as a vision model's image embedding does.
    images: usize,
}

/// What one picture costs in the prompt, as llava's 576 image patches do.
pub const IMAGE_TOKENS: u32 = 576;

/// A chat request that asks for a summary (see [`is_summary_request`]).
fn asks_for_summary(body: &Value) -> bool {
    let messages: Vec<Msg> = body["messages"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|m| Msg {
                    role: m["role"].as_str().unwrap_or("user").to_string(),
                    content: m["content"].as_str().unwrap_or("").to_string(),
                    calls: String::new(),
                    images: 0,
                })
                .collect()
        })
        .unwrap_or_default();
    is_summary_request(&messages)
}

fn chat(shared: &Arc<Shared>, index: usize, body: Option<&Value>) -> Response {
    let Some(body) = body else {
        return error_response(StatusCode::BAD_REQUEST, "invalid JSON request body");
    };
    let name = body["model"].as_str().unwrap_or("");
    if name.is_empty() {
        return error_response(StatusCode::BAD_REQUEST, "model is required");
    }
    let (token_delay, reply_words, ignore_truncate, models) = {
        let s = lock(&shared.settings);
        (
            s.token_delay,
            s.reply_words,
            s.ignore_truncate_flag,
            s.models.clone(),
        )
    };
    let Some(model) = find_model(&models, name) else {
        return error_response(
            StatusCode::NOT_FOUND,
            &format!("model \"{name}\" not found, try pulling it first"),
        );
    };
    if !model.capabilities.iter().any(|c| c == "completion") {
        return error_response(
            StatusCode::BAD_REQUEST,
            &format!("\"{}\" does not support chat", model.name),
        );
    }
    let messages: Vec<Msg> = match &body["messages"] {
        Value::Array(items) => items
            .iter()
            .map(|m| Msg {
                role: m["role"].as_str().unwrap_or("user").to_string(),
                content: m["content"].as_str().unwrap_or("").to_string(),
                calls: m["tool_calls"]
                    .as_array()
                    .map(|calls| {
                        calls
                            .iter()
                            .map(|c| {
                                format!("{}{}", c["function"]["name"], c["function"]["arguments"])
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                images: m["images"].as_array().map_or(0, Vec::len),
            })
            .collect(),
        Value::Null => Vec::new(),
        _ => return error_response(StatusCode::BAD_REQUEST, "messages must be an array"),
    };
    let streaming = body["stream"].as_bool().unwrap_or(true);
    let options = &body["options"];
    // Like Ollama, a num_ctx above what the model was trained on is cut to the trained
    // length (the runner logs a warning; the client is not told).
    let num_ctx = options["num_ctx"]
        .as_u64()
        .filter(|n| *n > 0)
        .map_or(DEFAULT_NUM_CTX, |n| u32::try_from(n).unwrap_or(u32::MAX))
        .min(model.context_length);
    // Ollama: -1 means no limit (-2 fill the context); only positive values cap.
    let num_predict = options["num_predict"]
        .as_i64()
        .filter(|n| *n > 0)
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    let truncate = ignore_truncate || body["truncate"].as_bool().unwrap_or(true);
    let shift = body["shift"].as_bool().unwrap_or(true);
    // `think`: a boolean or a level. Like Ollama, asking a model that cannot think to
    // think is a 400; a thinking model thinks unless told `false`.
    let think = match &body["think"] {
        Value::Bool(b) => Some(*b),
        Value::String(_) => Some(true),
        _ => None,
    };
    let can_think = model.capabilities.iter().any(|c| c == "thinking");
    if think == Some(true) && !can_think {
        return error_response(
            StatusCode::BAD_REQUEST,
            &format!("\"{}\" does not support thinking", model.name),
        );
    }
    let thinks = can_think && think != Some(false);

    mark_loaded(shared, &model.name, num_ctx, &body["keep_alive"]);

    if messages.is_empty() {
        // Ollama loads the model and answers with a single done object.
        return json_response(
            StatusCode::OK,
            &json!({
                "model": model.name,
                "created_at": now_rfc3339(),
                "message": { "role": "assistant", "content": "" },
                "done_reason": "load",
                "done": true,
            }),
        );
    }

    let mut fault = lock(&shared.faults).pop_front();
    // An endless reply is for the conversation: a summary asked meanwhile (the compression
    // after a huge reply) leaves it for the next chat.
    if matches!(fault, Some(Fault::Endless { .. }))
        && is_summary_request(&messages)
        && let Some(f) = fault.take()
    {
        lock(&shared.faults).push_front(f);
    }
    match &fault {
        Some(Fault::Http500 { message }) => {
            return error_response(StatusCode::INTERNAL_SERVER_ERROR, message);
        }
        Some(Fault::ContextOverflow) => {
            return error_response(StatusCode::BAD_REQUEST, CONTEXT_OVERFLOW_ERROR);
        }
        Some(Fault::Garbage) => {
            let mut r = Response::new(Body::from(
                &b"<html><body>502 Bad Gateway</body></html>\n\x00\xff\xfe}{ not json\n"[..],
            ));
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                header::HeaderValue::from_static("application/x-ndjson"),
            );
            return r;
        }
        _ => {}
    }

    if let Some(Fault::Endless { bytes_per_sec, pad }) = &fault {
        return endless_response(shared, index, &model.name, *bytes_per_sec, *pad);
    }

    let fit = fit_prompt(&messages, tools_tokens(&body["tools"]), num_ctx);
    let refused = fit.dropped > 0 && !truncate;
    log_request(shared, body, &fit, num_ctx, refused);
    if refused {
        return error_response(StatusCode::BAD_REQUEST, CONTEXT_OVERFLOW_ERROR);
    }
    let seen = &fit.kept;
    let unicode = fault == Some(Fault::SplitLines);
    let summary = is_summary_request(seen);
    if !summary && let Some(calls) = lock(&shared.tool_calls).pop_front() {
        return tool_call_response(&model.name, index, &calls, fit.prompt_eval_count, shared);
    }
    let pictures = last_user_images(body);
    if !pictures.is_empty() && !model.capabilities.iter().any(|c| c == "vision") {
        return error_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            "this model is missing data required for image input",
        );
    }
    let scripted = lock(&shared.replies).pop_front();
    let (text, summary_cut) = match scripted {
        Some(text) => (text, false),
        None if summary => summarize(seen, num_predict),
        None if !pictures.is_empty() => (describe_images(&pictures), false),
        None => match fill_blank(seen) {
            Some(answer) => (answer, false),
            None => (normal_reply(seen, &model.name, reply_words, unicode), false),
        },
    };

    // Generation stops at num_predict, and (with shift off) when the context is full.
    let mut cap = num_predict.unwrap_or(u32::MAX);
    if !shift {
        cap = cap.min(num_ctx.saturating_sub(fit.prompt_eval_count));
    }
    let generated = generate(&text, cap);
    let thinking = if thinks {
        thinking_chunks(seen)
    } else {
        Vec::new()
    };
    let done_reason = if generated.cut || summary_cut {
        "length"
    } else {
        "stop"
    };
    let delay = match &fault {
        Some(Fault::TokenDelay(d)) => *d,
        _ => token_delay,
    };

    lock(&shared.outcomes).push(ChatOutcome {
        request_index: index,
        model: model.name.clone(),
        num_ctx,
        prompt_tokens_sent: fit.prompt_tokens_sent,
        prompt_eval_count: fit.prompt_eval_count,
        dropped_messages: fit.dropped,
        eval_count: generated.eval_count,
        done_reason: done_reason.to_string(),
        summary,
        reply: generated.chunks.concat(),
    });

    let stats = Stats {
        model: model.name.clone(),
        done_reason,
        prompt_eval_count: fit.prompt_eval_count,
        eval_count: generated.eval_count,
        token_delay: delay,
    };
    let plan = if streaming {
        stream_plan(&thinking, &generated.chunks, &stats, fault.as_ref())
    } else {
        match single_plan(&thinking, &generated.chunks, &stats, fault.as_ref()) {
            Ok(plan) => plan,
            Err(response) => return *response,
        }
    };
    let content_type = if streaming {
        "application/x-ndjson"
    } else {
        "application/json; charset=utf-8"
    };
    planned_response(plan, shared, index, content_type)
}

/// A response whose body plays `plan`.
fn planned_response(
    plan: Plan,
    shared: &Arc<Shared>,
    index: usize,
    content_type: &'static str,
) -> Response {
    let body = PlannedBody::new(plan, Arc::clone(shared), index);
    let mut r = Response::new(Body::from_stream(body));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    r
}

/// [`Fault::Endless`]: a body that never ends.
fn endless_response(
    shared: &Arc<Shared>,
    index: usize,
    model: &str,
    bytes_per_sec: Option<u64>,
    pad: usize,
) -> Response {
    let body = EndlessBody {
        model: model.to_string(),
        pad: "x".repeat(pad),
        next_word: 0,
        sent: 0,
        lines_sent: 0,
        started: Instant::now(),
        bytes_per_sec,
        sleep: None,
        shared: Arc::clone(shared),
        request_index: index,
    };
    let mut r = Response::new(Body::from_stream(body));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/x-ndjson"),
    );
    r
}

/// Writes [`Fault::Endless`]: 64 KiB of lines a frame.
struct EndlessBody {
    model: String,
    pad: String,
    next_word: u64,
    sent: u64,
    lines_sent: usize,
    started: Instant,
    bytes_per_sec: Option<u64>,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    shared: Arc<Shared>,
    request_index: usize,
}

impl Stream for EndlessBody {
    type Item = Result<Bytes, io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(sleep) = this.sleep.as_mut() {
            ready!(sleep.as_mut().poll(cx));
            this.sleep = None;
        }
        // Paced: wait until the bytes sent so far are due.
        if let Some(rate) = this.bytes_per_sec.filter(|r| *r > 0) {
            let due = this.started + Duration::from_secs_f64(this.sent as f64 / rate as f64);
            if due > Instant::now() {
                let mut sleep = Box::pin(tokio::time::sleep_until(due.into()));
                if sleep.as_mut().poll(cx).is_pending() {
                    this.sleep = Some(sleep);
                    return Poll::Pending;
                }
            }
        }
        // Lines from a template, not through serde: the server must outrun the client.
        let head = format!(
            "{{\"model\":{},\"created_at\":\"{}\",\"message\":{{\"role\":\"assistant\",\"content\":\"",
            Value::String(this.model.clone()),
            now_rfc3339()
        );
        let tail = if this.pad.is_empty() {
            "\"},\"done\":false}\n".to_string()
        } else {
            format!("\"}},\"done\":false,\"pad\":\"{}\"}}\n", this.pad)
        };
        let mut frame = Vec::with_capacity(72 << 10);
        while frame.len() < 64 << 10 {
            let n = this.next_word;
            this.next_word += 1;
            frame.extend_from_slice(head.as_bytes());
            frame.extend_from_slice(format!("w{n}").as_bytes());
            frame.extend_from_slice(if n % 12 == 11 { &b"\\n"[..] } else { &b" "[..] });
            frame.extend_from_slice(tail.as_bytes());
            this.lines_sent += 1;
        }
        this.sent += frame.len() as u64;
        Poll::Ready(Some(Ok(Bytes::from(frame))))
    }
}

impl Drop for EndlessBody {
    fn drop(&mut self) {
        lock(&self.shared.endless).push((self.sent, self.started.elapsed()));
        lock(&self.shared.disconnects).push(Disconnect {
            request_index: self.request_index,
            at: Instant::now(),
            chunks_sent: self.lines_sent,
        });
        self.shared.disconnect_count.send_modify(|n| *n += 1);
    }
}

/// A reply that is only tool calls, streamed as Ollama streams them.
fn tool_call_response(
    model: &str,
    index: usize,
    calls: &[(String, Value)],
    prompt_eval_count: u32,
    shared: &Arc<Shared>,
) -> Response {
    let wire: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| {
            json!({
                "id": format!("call_{:08x}", fnv1a(format!("{index}:{i}:{name}").as_bytes()) as u32),
                "function": { "index": i, "name": name, "arguments": args }
            })
        })
        .collect();
    let stats = Stats {
        model: model.to_string(),
        done_reason: "stop",
        prompt_eval_count,
        eval_count: 12,
        token_delay: Duration::ZERO,
    };
    let mut plan = Plan::new(false);
    plan.line(
        &json!({
            "model": model,
            "created_at": now_rfc3339(),
            "message": { "role": "assistant", "content": "", "tool_calls": wire },
            "done": false,
        }),
        true,
    );
    plan.line(&stats.final_object(""), true);
    lock(&shared.outcomes).push(ChatOutcome {
        request_index: index,
        model: model.to_string(),
        num_ctx: 0,
        prompt_tokens_sent: prompt_eval_count,
        prompt_eval_count,
        dropped_messages: 0,
        eval_count: 12,
        done_reason: "stop".to_string(),
        summary: false,
        reply: String::new(),
    });
    planned_response(plan, shared, index, "application/x-ndjson")
}

/// One line of the request log, if one is kept (see [`FakeOllama::set_request_log`]).
fn log_request(shared: &Shared, body: &Value, fit: &Fit, num_ctx: u32, refused: bool) {
    let Some(path) = lock(&shared.request_log).clone() else {
        return;
    };
    let mut line = json!({
        "path": "/api/chat",
        "body": body,
        "prompt_tokens": fit.prompt_tokens_sent,
        "num_ctx": num_ctx,
    });
    if refused {
        line["rejected"] = json!("input exceeds context");
    } else {
        line["dropped_messages"] = json!(fit.dropped);
    }
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| io::Write::write_all(&mut f, format!("{line}\n").as_bytes()));
    if let Err(e) = written {
        // The reader then finds no line and says so.
        eprintln!(
            "fake ollama: cannot write the request log {}: {e}",
            path.display()
        );
    }
}

fn mark_loaded(shared: &Shared, name: &str, num_ctx: u32, keep_alive: &Value) {
    let mut loaded = lock(&shared.loaded);
    loaded.retain(|l| l.name != name);
    let unload = matches!(keep_alive.as_i64(), Some(0))
        || matches!(keep_alive.as_str(), Some("0" | "0s" | "0m"));
    if !unload {
        let expires = chrono::Utc::now() + chrono::Duration::minutes(5);
        loaded.push(Loaded {
            name: name.to_string(),
            context_length: num_ctx,
            expires_at: expires.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true),
        });
    }
}

fn model_tokenizer() -> &'static tiktoken_rs::CoreBPE {
    tiktoken_rs::o200k_base_singleton()
}

/// Tokens the fake "model" sees for a text.
pub fn count_tokens(text: &str) -> u32 {
    u32::try_from(model_tokenizer().encode_ordinary(text).len()).unwrap_or(u32::MAX)
}

/// Prompt tokens for a list of (role, content) messages, as the fake counts them.
pub fn prompt_tokens<'a>(contents: impl IntoIterator<Item = &'a str>) -> u32 {
    contents
        .into_iter()
        .map(|c| count_tokens(c) + TEMPLATE_OVERHEAD_TOKENS)
        .sum::<u32>()
        + BOS_TOKENS
}

struct Fit {
    kept: Vec<Msg>,
    dropped: usize,
    prompt_tokens_sent: u32,
    prompt_eval_count: u32,
}

/// The prompt tokens offered tools take, as a template renders them: a preamble, then
/// each definition as JSON.
pub fn tools_tokens(tools: &Value) -> u32 {
    match tools.as_array() {
        Some(list) if !list.is_empty() => {
            TOOLS_PREAMBLE_TOKENS
                + list
                    .iter()
                    .map(|t| count_tokens(&t.to_string()) + 1)
                    .sum::<u32>()
        }
        _ => 0,
    }
}

/// Ollama's history truncation: drop the oldest non-system messages (never the last one)
/// until the prompt, with the offered tools (`fixed` tokens), fits; if it still does not,
/// the runner cuts the input to `num_ctx`.
fn fit_prompt(messages: &[Msg], fixed: u32, num_ctx: u32) -> Fit {
    let costs: Vec<u32> = messages
        .iter()
        .map(|m| {
            count_tokens(&m.content)
                + count_tokens(&m.calls)
                + TEMPLATE_OVERHEAD_TOKENS
                + IMAGE_TOKENS * m.images as u32
        })
        .collect();
    let sent: u32 = costs.iter().sum::<u32>() + BOS_TOKENS + fixed;
    let mut keep = vec![true; messages.len()];
    let mut total = sent;
    let last = messages.len().saturating_sub(1);
    for (i, m) in messages.iter().enumerate() {
        if total <= num_ctx {
            break;
        }
        if i == last || m.role == "system" {
            continue;
        }
        keep[i] = false;
        total -= costs[i];
    }
    let kept: Vec<Msg> = messages
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(m, _)| m.clone())
        .collect();
    Fit {
        dropped: messages.len() - kept.len(),
        kept,
        prompt_tokens_sent: sent,
        prompt_eval_count: total.min(num_ctx),
    }
}

/// A client asking for a summary states the job up front: the first sentence of the
/// first system message is about summarizing, compressing or taking notes. (A chat system prompt may
/// mention summaries further on — "earlier parts may appear as summaries" — without being
/// one, and a chat may carry earlier summaries in a later system message.)
fn is_summary_request(messages: &[Msg]) -> bool {
    let Some(first) = messages.iter().find(|m| m.role == "system") else {
        return false;
    };
    let lower = first.content.trim_start().to_lowercase();
    let sentence = lower.split(['.', '\n']).next().unwrap_or("");
    ["summar", "compress", "note-tak", "notes"]
        .iter()
        .any(|k| sentence.contains(k))
}

struct Generated {
    /// Content chunks, each whole UTF-8 characters of one or more tokens.
    chunks: Vec<String>,
    eval_count: u32,
    cut: bool,
}

/// Tokenize the reply, stop at `cap` tokens, and group token bytes into valid UTF-8 chunks
/// (a character split across tokens waits for its last byte, as Ollama does).
fn generate(text: &str, cap: u32) -> Generated {
    let bpe = model_tokenizer();
    let ids = bpe.encode_ordinary(text);
    let cap = usize::try_from(cap).unwrap_or(usize::MAX);
    let cut = ids.len() > cap;
    let ids = &ids[..ids.len().min(cap)];
    let mut chunks = Vec::new();
    let mut pending: Vec<u8> = Vec::new();
    for id in ids {
        pending.extend(bpe.decode_bytes(&[*id]).unwrap_or_default());
        if let Ok(s) = std::str::from_utf8(&pending) {
            chunks.push(s.to_string());
            pending.clear();
        }
    }
    Generated {
        chunks,
        eval_count: u32::try_from(ids.len()).unwrap_or(u32::MAX),
        cut,
    }
}

const FILLER: &[&str] = &[
    "the",
    "model",
    "context",
    "window",
    "keeps",
    "every",
    "token",
    "budget",
    "summary",
    "checkpoint",
    "stream",
    "reply",
    "local",
    "server",
    "careful",
    "quick",
    "steady",
    "clear",
    "plan",
    "note",
    "tracks",
    "builds",
    "reads",
    "writes",
    "small",
    "large",
    "each",
    "turn",
    "fits",
    "within",
    "limit",
    "memory",
    "goal",
    "decision",
    "detail",
    "simple",
    "useful",
    "signal",
    "value",
    "record",
    "history",
    "session",
    "answer",
    "question",
    "idea",
    "measure",
    "result",
    "check",
    "again",
    "later",
    "first",
    "next",
    "then",
    "also",
    "often",
    "always",
    "quiet",
    "bright",
    "gentle",
    "solid",
    "honest",
    "exact",
    "river",
    "garden",
];

/// A fill-in-the-blank question (`/check`: a quoted line with `____` in it) is answered as
/// a reader of the request would: from the line of the context that shares the most
/// words with the question, the words the question lacks. A fact the request does not
/// carry gets a neighbour's value or nothing — wrong, as a model would be.
fn fill_blank(messages: &[Msg]) -> Option<String> {
    let (last, context) = messages.split_last()?;
    if last.role != "user" {
        return None;
    }
    let cloze = last.content.lines().find(|l| l.contains("____"))?;
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric() && c != '-' && c != ',' && c != ':')
            .map(|w| {
                w.trim_matches(|c: char| c == ',' || c == ':')
                    .to_lowercase()
            })
            .filter(|w| !w.is_empty() && w != "____")
            .collect()
    };
    let asked = words(cloze);
    let best = context
        .iter()
        .flat_map(|m| m.content.lines())
        .flat_map(|l| l.split(". "))
        .map(|line| {
            let ws = words(line);
            let shared = ws.iter().filter(|w| asked.contains(w)).count();
            (shared, ws)
        })
        .filter(|(shared, _)| *shared >= 2)
        .max_by_key(|(shared, _)| *shared)?;
    let rest: Vec<String> = best.1.into_iter().filter(|w| !asked.contains(w)).collect();
    Some(if rest.is_empty() {
        "I don't remember.".to_string()
    } else {
        rest.join(" ")
    })
}

/// The pictures of the request's last user message (Ollama's `images`, base64), decoded;
/// one that is not base64 stands as its text.
fn last_user_images(body: &Value) -> Vec<Vec<u8>> {
    use base64::Engine as _;
    let Some(last) = body["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
    else {
        return Vec::new();
    };
    last["images"]
        .as_array()
        .map(|images| {
            images
                .iter()
                .filter_map(Value::as_str)
                .map(|b64| {
                    base64::engine::general_purpose::STANDARD
                        .decode(b64)
                        .unwrap_or_else(|_| b64.as_bytes().to_vec())
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What a vision model "sees": each picture's length and the start of its SHA-256, so a
/// test can tell which bytes reached the server.
fn describe_images(images: &[Vec<u8>]) -> String {
    use sha2::Digest as _;
    images
        .iter()
        .map(|bytes| {
            let digest = sha2::Sha256::digest(bytes);
            let hex: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
            format!("I see an image of {} bytes, sha256 {hex}.", bytes.len())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `You said: "<first words of the last user message>". ` then seeded filler sentences.
/// The first words of the last user message (`…` when there are more): how the fake's
/// replies and reasoning show which message they answer.
fn quote_last_user(messages: &[Msg]) -> String {
    let last_user = messages
        .iter()
        .rev()
        .find(|m| m.role == "user")
        .map_or("", |m| m.content.as_str());
    let words: Vec<&str> = last_user.split_whitespace().collect();
    let mut quote = words[..words.len().min(QUOTE_WORDS)].join(" ");
    if words.len() > QUOTE_WORDS {
        quote.push('…');
    }
    quote
}

fn normal_reply(messages: &[Msg], model: &str, reply_words: usize, unicode: bool) -> String {
    let mut seed = fnv1a(model.as_bytes());
    for m in messages {
        seed = fnv1a_continue(seed, m.role.as_bytes());
        seed = fnv1a_continue(seed, m.content.as_bytes());
    }
    let mut out = format!("You said: \"{}\".", quote_last_user(messages));
    if unicode {
        out.push(' ');
        out.push_str(UNICODE_SENTENCE);
    }
    let mut state = seed;
    let mut remaining = reply_words;
    while remaining > 0 {
        state = splitmix(state);
        let len = remaining.min(5 + usize::try_from(state % 8).unwrap_or(0));
        let mut sentence = String::new();
        for i in 0..len {
            state = splitmix(state);
            let word = FILLER[usize::try_from(state % FILLER.len() as u64).unwrap_or(0)];
            if i == 0 {
                let mut cs = word.chars();
                if let Some(c) = cs.next() {
                    sentence.extend(c.to_uppercase());
                    sentence.push_str(cs.as_str());
                }
            } else {
                sentence.push(' ');
                sentence.push_str(word);
            }
        }
        out.push(' ');
        out.push_str(&sentence);
        out.push('.');
        remaining -= len;
    }
    out
}

static MARKER: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*\[[A-Z][A-Z_-]*\]"));
static FACT_PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // URLs first, so their pieces are not taken for paths or numbers.
        r#"https?://[^\s<>"'`)\]]+"#,
        // paths with at least one slash
        r"(?:~|\.{1,2})?/?(?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]+",
        // calls: foo(), foo.bar(), Foo::bar()
        r"\b[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*\(\)",
        // bare file names
        r"\b[A-Za-z0-9_-]+\.(?:rs|toml|md|json|jsonl|py|ts|tsx|js|go|c|h|cpp|hpp|java|kt|sh|txt|yaml|yml|lock|html|css|sql)\b",
        // snake_case / SCREAMING_SNAKE
        r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b",
        // CamelCase / camelCase
        r"\b[A-Za-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b",
        // numbers, versions, times, percentages
        r"\b\d+(?:[.,:]\d+)*%?",
    ]
    .iter()
    .map(|p| re(p))
    .collect()
});

fn re(pattern: &str) -> Regex {
    match Regex::new(pattern) {
        Ok(r) => r,
        Err(e) => panic!("fake ollama: bad regex {pattern}: {e}"),
    }
}

/// Paths, URLs, calls, identifiers and numbers of a text, in pattern order, deduplicated.
pub fn extract_facts(text: &str) -> Vec<String> {
    let mut rest = text.to_string();
    let mut facts: Vec<String> = Vec::new();
    for pattern in FACT_PATTERNS.iter() {
        for m in pattern.find_iter(&rest) {
            let fact = m.as_str().trim_end_matches(['.', ',', ';', ':']);
            if !fact.is_empty() && !facts.iter().any(|f| f == fact) {
                facts.push(fact.to_string());
            }
        }
        rest = pattern.replace_all(&rest, " ").into_owned();
    }
    facts
}

/// Marker lines (`[DECISION] …`) of a text, verbatim (trimmed).
pub fn marker_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| MARKER.is_match(l))
        .map(|l| l.trim().to_string())
        .collect()
}

/// A shorter text built from the input: marker lines, then facts, then a few leading words
/// of each paragraph, in that priority, within 60% of the input and within `num_predict`.
/// Returns the text and whether `num_predict` (not the size rule) cut something.
fn summarize(messages: &[Msg], num_predict: Option<u32>) -> (String, bool) {
    let sources: Vec<&Msg> = messages.iter().filter(|m| m.role != "system").collect();
    let input_tokens: u32 = sources.iter().map(|m| count_tokens(&m.content)).sum();
    let size_cap = (input_tokens * 3 / 5).max(16);
    let cap = num_predict.map_or(size_cap, |n| n.min(size_cap));

    let mut markers = Vec::new();
    let mut facts = Vec::new();
    let mut leads = Vec::new();
    for m in &sources {
        for line in marker_lines(&m.content) {
            if !markers.contains(&line) {
                markers.push(line);
            }
        }
        let plain: String = m
            .content
            .lines()
            .filter(|l| !MARKER.is_match(l))
            .collect::<Vec<_>>()
            .join("\n");
        for f in extract_facts(&plain) {
            if !facts.contains(&f) {
                facts.push(f);
            }
        }
        for para in plain.split("\n\n") {
            let words: Vec<&str> = para.split_whitespace().collect();
            if words.is_empty() {
                continue;
            }
            let mut lead = words[..words.len().min(SUMMARY_LEAD_WORDS)].join(" ");
            if words.len() > SUMMARY_LEAD_WORDS {
                lead.push('…');
            }
            leads.push(format!("- {}: {lead}", m.role));
        }
    }

    let header = format!("Summary of {} messages.", sources.len());
    let mut used = count_tokens(&header);
    let mut skipped = false;
    let mut lines = vec![header];
    for line in markers {
        let cost = count_tokens(&line) + 1;
        if used + cost <= cap {
            used += cost;
            lines.push(line);
        } else {
            skipped = true;
        }
    }
    let mut kept_facts: Vec<String> = Vec::new();
    used += 3; // "Facts: " and the newline
    for f in facts {
        let cost = count_tokens(&f) + 1;
        if used + cost <= cap {
            used += cost;
            kept_facts.push(f);
        } else {
            skipped = true;
        }
    }
    if !kept_facts.is_empty() {
        lines.push(format!("Facts: {}", kept_facts.join(", ")));
    }
    for lead in leads {
        let cost = count_tokens(&lead) + 1;
        if used + cost <= cap {
            used += cost;
            lines.push(lead);
        } else {
            skipped = true;
        }
    }
    let cut_by_predict = skipped && num_predict.is_some_and(|n| n < size_cap);
    (lines.join("\n"), cut_by_predict)
}

// ---------------------------------------------------------------------------------------
// Response bodies

struct Stats {
    model: String,
    done_reason: &'static str,
    prompt_eval_count: u32,
    eval_count: u32,
    token_delay: Duration,
}

impl Stats {
    fn final_object(&self, content: &str) -> Value {
        let load = 12_345_678u64;
        let prompt_eval = u64::from(self.prompt_eval_count) * 250_000;
        let per_token = u64::try_from(self.token_delay.as_nanos())
            .unwrap_or(u64::MAX)
            .max(20_000_000);
        let eval = u64::from(self.eval_count).saturating_mul(per_token);
        json!({
            "model": self.model,
            "created_at": now_rfc3339(),
            "message": { "role": "assistant", "content": content },
            "done_reason": self.done_reason,
            "done": true,
            "total_duration": load + prompt_eval + eval + 1_000_000,
            "load_duration": load,
            "prompt_eval_count": self.prompt_eval_count,
            "prompt_eval_duration": prompt_eval,
            "eval_count": self.eval_count,
            "eval_duration": eval,
        })
    }
}

fn content_object(model: &str, content: &str) -> Value {
    json!({
        "model": model,
        "created_at": now_rfc3339(),
        "message": { "role": "assistant", "content": content },
        "done": false,
    })
}

enum Step {
    Frame {
        bytes: Bytes,
        ends_line: bool,
    },
    Sleep(Duration),
    /// Return Pending once so the server flushes what it has.
    Yield,
    /// Abort the connection (the body errors; hyper drops the socket without a terminator).
    Abort,
    /// Write nothing more until the server shuts down.
    Stall,
    /// A pull's model is installed: it is in `/api/tags` from now on.
    Install(FakeModel),
}

struct Plan {
    steps: VecDeque<Step>,
    split: bool,
    lines: usize,
}

impl Plan {
    fn new(split: bool) -> Self {
        Self {
            steps: VecDeque::new(),
            split,
            lines: 0,
        }
    }

    fn line(&mut self, value: &Value, newline: bool) {
        let mut bytes = value.to_string().into_bytes();
        if newline {
            bytes.push(b'\n');
        }
        self.lines += 1;
        if !self.split {
            self.steps.push_back(Step::Frame {
                bytes: Bytes::from(bytes),
                ends_line: true,
            });
            self.steps.push_back(Step::Yield);
            return;
        }
        let mut start = 0;
        for end in split_points(&bytes).into_iter().chain([bytes.len()]) {
            self.steps.push_back(Step::Frame {
                bytes: Bytes::copy_from_slice(&bytes[start..end]),
                ends_line: end == bytes.len(),
            });
            self.steps.push_back(Step::Sleep(SPLIT_PAUSE));
            start = end;
        }
    }

    fn push(&mut self, step: Step) {
        self.steps.push_back(step);
    }
}

/// Where to cut a line: inside its first multi-byte character (if any), in the middle, and
/// just before the trailing newline.
fn split_points(bytes: &[u8]) -> Vec<usize> {
    let len = bytes.len();
    let mut points = Vec::new();
    if let Some(i) = bytes.iter().position(|b| *b >= 0xC0) {
        points.push(i + 1);
    }
    points.push(len / 2);
    points.push(len.saturating_sub(1));
    points.retain(|p| *p > 0 && *p < len);
    points.sort_unstable();
    points.dedup();
    points
}

fn stream_plan(
    thinking: &[String],
    chunks: &[String],
    stats: &Stats,
    fault: Option<&Fault>,
) -> Plan {
    let mut plan = Plan::new(fault == Some(&Fault::SplitLines));
    // A thinking model streams its reasoning first, in chunks of their own with empty
    // content.
    for t in thinking {
        if !stats.token_delay.is_zero() {
            plan.push(Step::Sleep(stats.token_delay));
        }
        plan.line(
            &json!({
                "model": stats.model,
                "created_at": now_rfc3339(),
                "message": { "role": "assistant", "content": "", "thinking": t },
                "done": false,
            }),
            true,
        );
    }
    let fault_at = |tokens: usize| tokens.min(chunks.len());
    for i in 0..=chunks.len() {
        match fault {
            Some(Fault::DropAfter { tokens }) if fault_at(*tokens) == i => {
                plan.push(Step::Abort);
                return plan;
            }
            Some(Fault::ErrorAfter { tokens, message }) if fault_at(*tokens) == i => {
                plan.line(&json!({ "error": message }), true);
                return plan;
            }
            Some(Fault::StallAfter { tokens }) if fault_at(*tokens) == i => {
                plan.push(Step::Stall);
                // Counted so a client leaving during the stall is recorded as a disconnect.
                plan.lines += 1;
                return plan;
            }
            _ => {}
        }
        let Some(chunk) = chunks.get(i) else { break };
        if !stats.token_delay.is_zero() {
            plan.push(Step::Sleep(stats.token_delay));
        }
        plan.line(&content_object(&stats.model, chunk), true);
    }
    if fault != Some(&Fault::NoDone) {
        plan.line(&stats.final_object(""), true);
    }
    plan
}

/// A non-streaming reply: one JSON object, or the fault's equivalent.
fn single_plan(
    thinking: &[String],
    chunks: &[String],
    stats: &Stats,
    fault: Option<&Fault>,
) -> Result<Plan, Box<Response>> {
    let mut plan = Plan::new(fault == Some(&Fault::SplitLines));
    let content = chunks.concat();
    match fault {
        Some(Fault::ErrorAfter { message, .. }) => {
            return Err(Box::new(error_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                message,
            )));
        }
        Some(Fault::DropAfter { .. }) => {
            plan.push(Step::Abort);
            return Ok(plan);
        }
        Some(Fault::StallAfter { .. }) => {
            plan.push(Step::Stall);
            plan.lines += 1;
            return Ok(plan);
        }
        Some(Fault::NoDone) => {
            let cut = chunks[..chunks.len() / 2].concat();
            plan.line(&content_object(&stats.model, &cut), false);
            return Ok(plan);
        }
        _ => {}
    }
    if !stats.token_delay.is_zero() {
        let n = u32::try_from(chunks.len()).unwrap_or(u32::MAX);
        plan.push(Step::Sleep(stats.token_delay.saturating_mul(n)));
    }
    let mut last = stats.final_object(&content);
    if !thinking.is_empty() {
        last["message"]["thinking"] = Value::String(thinking.concat());
    }
    plan.line(&last, false);
    Ok(plan)
}

/// Plays a [`Plan`] as a response body and notices a client that leaves early.
struct PlannedBody {
    steps: VecDeque<Step>,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    stall: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    lines_total: usize,
    lines_sent: usize,
    ended: bool,
    shared: Arc<Shared>,
    request_index: usize,
}

impl PlannedBody {
    fn new(plan: Plan, shared: Arc<Shared>, request_index: usize) -> Self {
        Self {
            steps: plan.steps,
            sleep: None,
            stall: None,
            lines_total: plan.lines,
            lines_sent: 0,
            ended: false,
            shared,
            request_index,
        }
    }
}

impl Stream for PlannedBody {
    type Item = Result<Bytes, io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if let Some(sleep) = this.sleep.as_mut() {
                ready!(sleep.as_mut().poll(cx));
                this.sleep = None;
            }
            if let Some(stall) = this.stall.as_mut() {
                ready!(stall.as_mut().poll(cx));
                this.stall = None;
                this.ended = true;
                return Poll::Ready(Some(Err(io::Error::other("fake ollama shut down"))));
            }
            match this.steps.pop_front() {
                None => {
                    this.ended = true;
                    return Poll::Ready(None);
                }
                Some(Step::Frame { bytes, ends_line }) => {
                    if ends_line {
                        this.lines_sent += 1;
                    }
                    return Poll::Ready(Some(Ok(bytes)));
                }
                Some(Step::Sleep(d)) => this.sleep = Some(Box::pin(tokio::time::sleep(d))),
                Some(Step::Yield) => {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Some(Step::Abort) => {
                    this.ended = true;
                    return Poll::Ready(Some(Err(io::Error::new(
                        io::ErrorKind::ConnectionAborted,
                        "fake ollama: scripted connection drop",
                    ))));
                }
                Some(Step::Install(model)) => {
                    let mut s = lock(&this.shared.settings);
                    s.models.retain(|m| m.name != model.name);
                    s.models.push(model);
                }
                Some(Step::Stall) => {
                    let mut stop = this.shared.shutdown.subscribe();
                    this.stall = Some(Box::pin(async move {
                        let _ = stop.wait_for(|s| *s).await;
                    }));
                }
            }
        }
    }
}

impl Drop for PlannedBody {
    fn drop(&mut self) {
        if self.ended || self.lines_sent >= self.lines_total {
            return;
        }
        lock(&self.shared.disconnects).push(Disconnect {
            request_index: self.request_index,
            at: Instant::now(),
            chunks_sent: self.lines_sent,
        });
        self.shared.disconnect_count.send_modify(|n| *n += 1);
    }
}

// ---------------------------------------------------------------------------------------
// Deterministic hashing

fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_continue(0xcbf2_9ce4_8422_2325, bytes)
}

fn fnv1a_continue(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
