//! `OllamaBackend` against the fake Ollama server over real HTTP: every call, what goes on
//! the wire, and how each fault reaches the caller.
#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use ollm_tui::llm::{
    ChatBackend, ChatMessage, ChatOptions, ChatReply, ChatRequest, ChatStats, ChatStream,
    HostError, LlmError, OllamaBackend, OllamaOptions, StreamEvent, Waiting,
};
use serde_json::json;
use support::fake_ollama::{
    CONTEXT_OVERFLOW_ERROR, EmbedFault, FakeConfig, FakeOllama, Fault, UNICODE_SENTENCE,
    embedding_model, fake_embedding, nomic_embedding_model, prompt_tokens,
};

/// Safety net only: waits end as soon as their event happens.
const PATIENCE: Duration = Duration::from_secs(10);

fn backend(server: &FakeOllama) -> OllamaBackend {
    OllamaBackend::new(&server.url(), OllamaOptions::default()).unwrap()
}

fn backend_with(server: &FakeOllama, options: OllamaOptions) -> OllamaBackend {
    OllamaBackend::new(&server.url(), options).unwrap()
}

fn request(messages: Vec<ChatMessage>) -> ChatRequest {
    ChatRequest::new(
        "llama3.2:3b",
        messages,
        ChatOptions {
            num_ctx: 8192,
            ..ChatOptions::default()
        },
    )
}

fn hello() -> ChatRequest {
    request(vec![ChatMessage::user("hello there")])
}

/// What a stream delivered: the text of its deltas, the final stats, and the error that
/// ended it. Asserts that nothing follows an error or `Done`.
struct Collected {
    text: String,
    done: Option<ChatStats>,
    error: Option<LlmError>,
    calls: Vec<ollm_tui::llm::ToolCall>,
    thinking: String,
}

async fn collect(mut stream: ChatStream) -> Collected {
    let mut c = Collected {
        calls: Vec::new(),
        thinking: String::new(),
        text: String::new(),
        done: None,
        error: None,
    };
    while let Some(event) = tokio::time::timeout(PATIENCE, stream.next()).await.unwrap() {
        assert!(
            c.done.is_none() && c.error.is_none(),
            "nothing may follow Done or an error"
        );
        match event {
            Ok(StreamEvent::Delta(d)) => {
                assert!(!d.is_empty(), "empty deltas are not passed on");
                c.text.push_str(&d);
            }
            Ok(StreamEvent::Done(stats)) => c.done = Some(stats),
            Ok(StreamEvent::ToolCalls(calls)) => c.calls.extend(calls),
            Ok(StreamEvent::Thinking(t)) => c.thinking.push_str(&t),
            Err(e) => c.error = Some(e),
        }
    }
    c
}

async fn stream_of(backend: &OllamaBackend, req: ChatRequest) -> Collected {
    collect(backend.chat_stream(req).await.unwrap()).await
}

/// What the session actor does: own a backend of any type on another task.
fn spawn_chat<B: ChatBackend>(
    backend: Arc<B>,
    req: ChatRequest,
) -> tokio::task::JoinHandle<Result<ChatReply, LlmError>> {
    tokio::spawn(async move { backend.chat(req).await })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_can_live_on_another_task() {
    let server = FakeOllama::start().await;
    let reply = spawn_chat(Arc::new(backend(&server)), hello())
        .await
        .unwrap()
        .unwrap();
    assert!(reply.text.starts_with("You said: \"hello there\"."));
}

#[tokio::test]
async fn version_and_model_listing() {
    let server = FakeOllama::start().await;
    let b = backend(&server);
    assert_eq!(b.version().await.unwrap(), "0.12.6");

    let models = b.list_models().await.unwrap();
    let names: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["llama3.2:3b", "qwen2.5-coder:0.5b", "llama3.1:70b"]);
    let llama = &models[0];
    assert_eq!(llama.parameter_size.as_deref(), Some("3.2B"));
    assert_eq!(llama.family.as_deref(), Some("llama"));
    assert!(llama.size_bytes > 1_000_000_000);
    assert!(llama.modified_at.is_some());
    assert_eq!(models[1].parameter_size.as_deref(), Some("494.03M"));
}

#[tokio::test]
async fn show_model_reads_context_length_and_details() {
    let server = FakeOllama::start().await;
    let b = backend(&server);
    let qwen = b.show_model("qwen2.5-coder:0.5b").await.unwrap();
    assert_eq!(qwen.name, "qwen2.5-coder:0.5b");
    assert_eq!(qwen.context_length, Some(32768));
    assert_eq!(qwen.parameter_size.as_deref(), Some("494.03M"));
    assert_eq!(qwen.parameter_count, Some(494_032_768));
    assert_eq!(qwen.family.as_deref(), Some("qwen2"));
    assert!(qwen.capabilities.contains(&"completion".to_string()));
    let big = b.show_model("llama3.1:70b").await.unwrap();
    assert_eq!(big.context_length, Some(131_072));
    assert_eq!(big.parameter_size.as_deref(), Some("70.6B"));

    let show = &server.requests()[0];
    assert_eq!(show.path, "/api/show");
    // ollama-rs sends the older `name` field; Ollama accepts `name` and `model`.
    let body = show.body.as_ref().unwrap();
    let named = body.get("model").or_else(|| body.get("name")).unwrap();
    assert_eq!(named, "qwen2.5-coder:0.5b");
}

#[tokio::test]
async fn show_model_of_a_missing_model_says_which() {
    let server = FakeOllama::start().await;
    let err = backend(&server).show_model("mistral:7b").await.unwrap_err();
    assert!(
        matches!(&err, LlmError::ModelNotFound { model } if model == "mistral:7b"),
        "{err:?}"
    );
    assert!(err.hint().unwrap().contains("ollama pull mistral:7b"));
}

#[tokio::test]
async fn loaded_models_report_the_context_they_were_loaded_with() {
    let server = FakeOllama::start().await;
    let b = backend(&server);
    assert!(b.loaded_models().await.unwrap().is_empty());
    b.chat(hello()).await.unwrap();
    let loaded = b.loaded_models().await.unwrap();
    assert_eq!(loaded.len(), 1);
    assert_eq!(loaded[0].name, "llama3.2:3b");
    assert_eq!(loaded[0].context_length, Some(8192));
    assert!(loaded[0].size_vram > 0);
    assert!(loaded[0].expires_at.unwrap() > chrono::Utc::now());
}

#[tokio::test]
async fn chat_stream_delivers_the_reply_and_its_stats() {
    let server = FakeOllama::start().await;
    let c = stream_of(&backend(&server), hello()).await;
    assert!(c.error.is_none(), "{:?}", c.error);
    let outcome = &server.chat_outcomes()[0];
    assert_eq!(c.text, outcome.reply);
    assert!(c.text.starts_with("You said: \"hello there\"."));
    let stats = c.done.unwrap();
    assert_eq!(stats.prompt_eval_count, Some(outcome.prompt_eval_count));
    assert_eq!(
        stats.prompt_eval_count,
        Some(prompt_tokens(["hello there"]))
    );
    assert_eq!(stats.eval_count, Some(outcome.eval_count));
    assert_eq!(stats.done_reason.as_deref(), Some("stop"));
    assert!(stats.total_duration.unwrap() > Duration::ZERO);
    assert!(stats.load_duration.is_some());
    assert!(stats.prompt_eval_duration.is_some());
    assert!(stats.eval_duration.is_some());
}

#[tokio::test]
async fn chat_returns_the_whole_reply() {
    let server = FakeOllama::start().await;
    let mut req = hello();
    req.options.num_predict = Some(5);
    let reply = backend(&server).chat(req).await.unwrap();
    assert_eq!(reply.text, server.chat_outcomes()[0].reply);
    assert_eq!(reply.stats.eval_count, Some(5));
    assert_eq!(reply.stats.done_reason.as_deref(), Some("length"));
}

#[tokio::test]
async fn request_bodies_carry_num_ctx_truncate_shift_and_options() {
    let server = FakeOllama::start().await;
    let b = backend(&server);
    let mut req = request(vec![
        ChatMessage::system("Be brief."),
        ChatMessage::user("hi"),
        ChatMessage::assistant("hello"),
        ChatMessage::user("again"),
    ]);
    req.options = ChatOptions {
        num_ctx: 12288,
        num_predict: Some(300),
        temperature: Some(0.25),
        top_p: Some(0.5),
        seed: Some(-7),
    };
    req.keep_alive = Some("10m".into());
    b.chat(req).await.unwrap();
    collect(b.chat_stream(hello()).await.unwrap()).await;
    assert!(server.wait_for_chat_requests(2, PATIENCE).await);

    let bodies = server.chat_requests();
    assert_eq!(
        bodies[0],
        json!({
            "model": "llama3.2:3b",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "hello"},
                {"role": "user", "content": "again"}
            ],
            "stream": true,
            "options": {"num_ctx": 12288, "num_predict": 300, "temperature": 0.25, "top_p": 0.5, "seed": -7},
            "truncate": false,
            "shift": false,
            "keep_alive": "10m"
        })
    );
    let plain = &bodies[1];
    assert_eq!(
        plain["options"],
        json!({"num_ctx": 8192}),
        "no num_predict when not given"
    );
    assert_eq!(plain["truncate"], false);
    assert_eq!(plain["shift"], false);
    assert!(plain.get("keep_alive").is_none());

    b.version().await.unwrap();
    b.list_models().await.unwrap();
    b.show_model("llama3.2:3b").await.unwrap();
    b.loaded_models().await.unwrap();
    for r in server.requests() {
        assert!(r.path.starts_with("/api/"), "{} {}", r.method, r.path);
        assert!(!r.path.starts_with("/v1"));
    }
}

#[tokio::test]
async fn a_dropped_connection_is_incomplete_and_keeps_the_deltas() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::DropAfter { tokens: 3 });
    let c = stream_of(&backend(&server), hello()).await;
    assert_eq!(c.text, "You said:");
    assert!(c.done.is_none());
    let err = c.error.unwrap();
    assert!(matches!(err, LlmError::Incomplete { .. }), "{err:?}");
    assert!(err.hint().unwrap().contains("/retry"));
}

#[tokio::test]
async fn an_error_line_in_the_stream_is_a_server_error() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::ErrorAfter {
        tokens: 4,
        message: "llama runner process has terminated: signal: killed".into(),
    });
    let c = stream_of(&backend(&server), hello()).await;
    assert!(server.chat_outcomes()[0].reply.starts_with(&c.text));
    assert_eq!(c.text, "You said: \"");
    assert!(matches!(
        c.error.unwrap(),
        LlmError::Server { message } if message == "llama runner process has terminated: signal: killed"
    ));
}

#[tokio::test]
async fn an_overflow_error_line_is_a_context_overflow() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::ErrorAfter {
        tokens: 0,
        message: CONTEXT_OVERFLOW_ERROR.into(),
    });
    let c = stream_of(&backend(&server), hello()).await;
    assert!(matches!(c.error.unwrap(), LlmError::ContextOverflow { .. }));
}

#[tokio::test]
async fn http_500_is_an_http_error_with_the_servers_message() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::Http500 {
        message: "out of memory".into(),
    });
    let err = backend(&server).chat_stream(hello()).await.err().unwrap();
    match &err {
        LlmError::Http {
            status,
            url,
            message,
        } => {
            assert_eq!(*status, 500);
            assert_eq!(url, &format!("{}/api/chat", server.url()));
            assert_eq!(message, "out of memory");
        }
        other => panic!("{other:?}"),
    }
    assert!(err.hint().unwrap().contains("log"));
}

#[tokio::test]
async fn garbage_is_malformed() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::Garbage);
    let c = stream_of(&backend(&server), hello()).await;
    assert!(c.text.is_empty());
    let err = c.error.unwrap();
    match &err {
        LlmError::Malformed { url, detail } => {
            assert!(url.ends_with("/api/chat"));
            assert!(detail.contains("<html>"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn lines_split_inside_characters_arrive_intact() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::SplitLines);
    let c = stream_of(&backend(&server), hello()).await;
    assert!(c.error.is_none(), "{:?}", c.error);
    assert_eq!(c.text, server.chat_outcomes()[0].reply);
    assert!(c.text.contains(UNICODE_SENTENCE));
    for word in ["café", "naïve", "日本語", "🦀"] {
        assert!(c.text.contains(word), "{word}");
    }
    assert!(!c.text.contains('\u{fffd}'), "no replacement characters");
    assert!(c.done.is_some());
}

#[tokio::test]
async fn a_stream_without_done_is_incomplete_after_all_its_text() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::NoDone);
    let c = stream_of(&backend(&server), hello()).await;
    assert_eq!(c.text, server.chat_outcomes()[0].reply);
    assert!(c.done.is_none());
    match c.error.unwrap() {
        LlmError::Incomplete { detail } => assert!(detail.contains("done"), "{detail}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_stall_mid_reply_times_out_as_idle() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::StallAfter { tokens: 3 });
    let options = OllamaOptions {
        idle_timeout: Duration::from_millis(300),
        ..OllamaOptions::default()
    };
    let c = stream_of(&backend_with(&server, options), hello()).await;
    assert_eq!(c.text, "You said:");
    match c.error.unwrap() {
        LlmError::Timeout { waiting, after } => {
            assert_eq!(waiting, Waiting::NextToken);
            assert_eq!(after, Duration::from_millis(300));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn no_first_token_times_out_as_first_token() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::StallAfter { tokens: 0 });
    let options = OllamaOptions {
        first_token_timeout: Duration::from_millis(300),
        ..OllamaOptions::default()
    };
    let b = backend_with(&server, options);
    let result = match b.chat_stream(hello()).await {
        Ok(stream) => collect(stream).await.error.unwrap(),
        Err(e) => e,
    };
    let LlmError::Timeout { waiting, .. } = &result else {
        panic!("{result:?}");
    };
    assert_eq!(*waiting, Waiting::FirstToken);
    assert!(result.hint().unwrap().contains("loading"));
}

#[tokio::test]
async fn slow_tokens_within_the_idle_timeout_are_fine() {
    let server = FakeOllama::start_with(FakeConfig {
        reply_words: 6,
        ..FakeConfig::default()
    })
    .await;
    server.push_fault(Fault::TokenDelay(Duration::from_millis(40)));
    let options = OllamaOptions {
        idle_timeout: Duration::from_millis(400),
        ..OllamaOptions::default()
    };
    let started = Instant::now();
    let c = stream_of(&backend_with(&server, options), hello()).await;
    assert!(c.error.is_none(), "{:?}", c.error);
    assert!(c.done.is_some());
    assert!(
        started.elapsed() > Duration::from_millis(400),
        "the whole reply took longer than the idle timeout, yet no chunk gap did"
    );
}

fn long_history() -> Vec<ChatMessage> {
    let mut messages = vec![ChatMessage::system("You are terse.")];
    for i in 0..4 {
        let text: Vec<String> = (0..400).map(|w| format!("m{i}w{}", w % 53)).collect();
        messages.push(ChatMessage::user(text.join(" ")));
        messages.push(ChatMessage::assistant(text.join(" ")));
    }
    messages.push(ChatMessage::user("so?"));
    messages
}

#[tokio::test]
async fn an_overflowing_prompt_is_a_context_overflow_not_silent_loss() {
    let server = FakeOllama::start().await;
    let mut req = request(long_history());
    req.options.num_ctx = 2048;
    let err = backend(&server).chat_stream(req).await.err().unwrap();
    match &err {
        LlmError::ContextOverflow { message } => assert_eq!(message, CONTEXT_OVERFLOW_ERROR),
        other => panic!("{other:?}"),
    }
    assert!(server.chat_outcomes().is_empty(), "nothing was generated");

    server.push_fault(Fault::ContextOverflow);
    let err = backend(&server).chat(hello()).await.unwrap_err();
    assert!(matches!(err, LlmError::ContextOverflow { .. }));
}

#[tokio::test]
async fn a_server_that_ignores_truncate_shows_it_in_prompt_eval_count() {
    let server = FakeOllama::start_with(FakeConfig {
        ignore_truncate_flag: true,
        ..FakeConfig::default()
    })
    .await;
    let messages = long_history();
    let sent = prompt_tokens(messages.iter().map(|m| m.content.as_str()));
    let mut req = request(messages);
    req.options.num_ctx = 2048;
    let reply = backend(&server).chat(req).await.unwrap();
    let seen = reply.stats.prompt_eval_count.unwrap();
    assert!(seen <= 2048);
    assert!(
        seen < sent / 2,
        "the client can tell: the server saw {seen} of {sent} tokens"
    );
}

#[tokio::test]
async fn chat_with_a_missing_model_is_model_not_found() {
    let server = FakeOllama::start().await;
    let mut req = hello();
    req.model = "llama9:1t".into();
    let err = backend(&server).chat_stream(req).await.err().unwrap();
    assert!(matches!(&err, LlmError::ModelNotFound { model } if model == "llama9:1t"));
    assert_eq!(
        err.to_string(),
        "model \"llama9:1t\" is not installed on the Ollama server"
    );
}

#[tokio::test]
async fn dropping_the_stream_closes_the_connection_promptly() {
    let server = FakeOllama::start_with(FakeConfig {
        token_delay: Duration::from_millis(30),
        reply_words: 200,
        ..FakeConfig::default()
    })
    .await;
    let mut stream = backend(&server).chat_stream(hello()).await.unwrap();
    let mut deltas = 0;
    while deltas < 3 {
        match stream.next().await.unwrap().unwrap() {
            StreamEvent::Delta(_) => deltas += 1,
            StreamEvent::Done(_) => panic!("the reply is far longer"),
            StreamEvent::Thinking(_) | StreamEvent::ToolCalls(_) => panic!("a plain reply"),
        }
    }
    let stop = Instant::now();
    drop(stream);
    let d = server.wait_for_disconnect(PATIENCE).await.unwrap();
    let after = d.at.duration_since(stop);
    assert!(
        after < Duration::from_millis(200),
        "server saw EOF {after:?} after Stop"
    );
    assert!(d.chunks_sent >= 3);
}

#[tokio::test]
async fn an_unreachable_server_names_the_url_and_the_real_cause() {
    // A port that was free a moment ago: nothing listens there now.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}");
    let b = OllamaBackend::new(&format!(":{port}"), OllamaOptions::default()).unwrap();
    assert_eq!(b.base_url(), url);

    let err = b.version().await.unwrap_err();
    match &err {
        LlmError::Unreachable { url: tried, cause } => {
            assert_eq!(tried, &url);
            assert!(cause.contains("Connection refused"), "{cause}");
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains(&url));
    let hint = err.hint().unwrap();
    assert!(
        hint.contains("ollama serve") && hint.contains(&url),
        "{hint}"
    );

    let err = b.chat_stream(hello()).await.err().unwrap();
    assert!(matches!(err, LlmError::Unreachable { .. }), "{err:?}");
}

#[test]
fn https_addresses_are_refused_up_front() {
    let err = OllamaBackend::new("https://ollama.example.com", OllamaOptions::default())
        .err()
        .unwrap();
    assert!(matches!(
        err,
        LlmError::InvalidHost(HostError::HttpsUnsupported { .. })
    ));
    assert!(err.to_string().contains("https://ollama.example.com:443"));
}

/// A server that is not Ollama: HTML where JSON belongs, JSON of the wrong shape.
async fn not_ollama() -> String {
    use axum::routing::get;
    let app = axum::Router::new()
        .route("/api/version", get(|| async { "<html>hello</html>" }))
        .route(
            "/api/tags",
            get(|| async { axum::Json(json!({"items": []})) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

#[tokio::test]
async fn answers_that_are_not_ollamas_json_are_malformed() {
    let url = not_ollama().await;
    let b = OllamaBackend::new(&url, OllamaOptions::default()).unwrap();
    match b.version().await.unwrap_err() {
        LlmError::Malformed { url: at, detail } => {
            assert_eq!(at, format!("{url}/api/version"));
            assert!(detail.contains("<html>"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    let err = b.list_models().await.unwrap_err();
    assert!(matches!(err, LlmError::Malformed { .. }), "{err:?}");
    assert!(err.hint().unwrap().contains(&url));
}

// ---------------------------------------------------------------------------------------
// Pulling a model

#[tokio::test]
async fn a_pull_streams_progress_to_success_and_the_model_is_then_installed() {
    use ollm_tui::llm::{PullLine, PullProgress};
    let server = FakeOllama::start().await;
    server.set_pull_pace(10, Duration::from_millis(2));
    let b = backend(&server);
    assert!(
        b.show_model("smollm2:135m").await.is_err(),
        "not installed yet"
    );
    let mut stream = b.pull("smollm2:135m").await.unwrap();
    let mut progress = PullProgress::default();
    let mut percents = Vec::new();
    let mut statuses = Vec::new();
    while let Some(line) = stream.next().await {
        let line = line.unwrap();
        progress.apply(&line, tokio::time::Instant::now());
        percents.extend(progress.percent());
        statuses.push(progress.status.clone());
        assert!(!matches!(line, PullLine::Error(_)), "{line:?}");
    }
    assert!(progress.done, "ended with success: {statuses:?}");
    assert_eq!(statuses.first().unwrap(), "pulling manifest");
    assert!(statuses.iter().any(|s| s == "verifying sha256 digest"));
    assert!(statuses.iter().any(|s| s == "writing manifest"));
    // The bar advanced through the steps, never backwards, to the whole model.
    assert!(percents.windows(2).all(|w| w[0] <= w[1]), "{percents:?}");
    let distinct: std::collections::BTreeSet<_> = percents.iter().collect();
    assert!(distinct.len() >= 5, "{percents:?}");
    assert_eq!(progress.percent(), Some(100));
    let installed = b.list_models().await.unwrap();
    let m = installed.iter().find(|m| m.name == "smollm2:135m").unwrap();
    assert_eq!(
        progress.total(),
        m.size_bytes,
        "the bytes pulled are the model's"
    );
    assert_eq!(server.pull_requests(), ["smollm2:135m"]);
    let body = server
        .requests()
        .into_iter()
        .find(|r| r.path == "/api/pull")
        .unwrap()
        .body
        .unwrap();
    assert_eq!(body, json!({"model": "smollm2:135m", "stream": true}));
}

#[tokio::test]
async fn an_unknown_model_fails_with_ollamas_words() {
    let server = FakeOllama::start().await;
    let mut stream = backend(&server).pull("no-such-model:7b").await.unwrap();
    let mut lines = Vec::new();
    while let Some(line) = stream.next().await {
        lines.push(line.unwrap());
    }
    assert_eq!(
        lines.last().unwrap(),
        &ollm_tui::llm::PullLine::Error("pull model manifest: file does not exist".into())
    );
    assert_eq!(
        lines.len(),
        2,
        "pulling manifest, then the error: {lines:?}"
    );
}

#[tokio::test]
async fn dropping_a_pull_disconnects_and_installs_nothing() {
    let server = FakeOllama::start().await;
    server.set_pull_pace(200, Duration::from_millis(20));
    let b = backend(&server);
    let mut stream = b.pull("tinyllama:1.1b").await.unwrap();
    // Some progress first, so the drop is mid-layer.
    let mut seen = 0;
    while seen < 3 {
        let line = stream.next().await.unwrap().unwrap();
        if matches!(
            line,
            ollm_tui::llm::PullLine::Status {
                completed: Some(_),
                ..
            }
        ) {
            seen += 1;
        }
    }
    drop(stream);
    let gone = server.wait_for_disconnect(PATIENCE).await;
    assert!(gone.is_some(), "the server saw the client leave");
    assert!(gone.unwrap().chunks_sent < 200);
    let names: Vec<String> = b
        .list_models()
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.name)
        .collect();
    assert!(!names.contains(&"tinyllama:1.1b".to_string()), "{names:?}");
}

// ---------------------------------------------------------------------------------------
// Embeddings

fn sentences(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("Sentence {i} says the room is number {}.", i * 7))
        .collect()
}

#[tokio::test]
async fn embed_sends_batches_of_32_and_keeps_the_order() {
    let server = FakeOllama::start().await;
    server.add_model(embedding_model());
    let b = backend(&server);
    let inputs = sentences(70);
    let got = b.embed("all-minilm", &inputs).await.unwrap();
    assert_eq!(got.len(), 70);
    for (v, text) in got.iter().zip(&inputs) {
        assert_eq!(v.len(), 384);
        let want = fake_embedding(text, 384);
        let diff: f32 = v.iter().zip(&want).map(|(a, b)| (a - b).abs()).sum();
        assert!(diff < 1e-4, "{text}");
    }
    let sizes: Vec<usize> = server
        .embed_requests()
        .iter()
        .map(|r| {
            assert_eq!(r["model"], "all-minilm");
            r["input"].as_array().unwrap().len()
        })
        .collect();
    assert_eq!(sizes, [32, 32, 6]);
    // Nothing to embed: no request.
    assert!(b.embed("all-minilm", &[]).await.unwrap().is_empty());
    assert_eq!(server.embed_requests().len(), 3);
}

#[tokio::test]
async fn embed_errors_say_what_to_do() {
    let server = FakeOllama::start().await;
    server.add_model(embedding_model());
    let b = backend(&server);
    let one = vec!["The hotel is the Miramar.".to_string()];
    let err = b.embed("nomic-embed-text", &one).await.unwrap_err();
    assert!(
        matches!(&err, LlmError::ModelNotFound { model } if model == "nomic-embed-text"),
        "{err:?}"
    );
    let err = b.embed("llama3.2:3b", &one).await.unwrap_err();
    assert!(
        matches!(&err, LlmError::NotEmbedding { model } if model == "llama3.2:3b"),
        "{err:?}"
    );
    assert!(err.hint().unwrap().contains("/pull all-minilm"), "{err:?}");
    server.push_embed_fault(EmbedFault::Http500 {
        message: "runner crashed".into(),
    });
    let err = b.embed("all-minilm", &one).await.unwrap_err();
    assert!(
        matches!(&err, LlmError::Http { status: 500, message, .. } if message == "runner crashed"),
        "{err:?}"
    );
    for fault in [
        EmbedFault::Garbage,
        EmbedFault::MissingVector,
        EmbedFault::RaggedDimensions,
        EmbedFault::Oversized {
            bytes: ollm_tui::llm::embed::MAX_EMBED_RESPONSE + 1,
        },
    ] {
        server.push_embed_fault(fault.clone());
        let inputs = vec!["a b".to_string(), "c d".to_string()];
        let err = b.embed("all-minilm", &inputs).await.unwrap_err();
        assert!(
            matches!(err, LlmError::Malformed { .. }),
            "{fault:?}: {err:?}"
        );
    }
    // A later batch of another dimension is refused too (another model behind the name).
    server.push_embed_fault(EmbedFault::Delay(Duration::ZERO));
    server.push_embed_fault(EmbedFault::Dimensions(100));
    let err = b.embed("all-minilm", &sentences(40)).await.unwrap_err();
    match err {
        LlmError::Malformed { detail, .. } => {
            assert!(detail.contains("384 and of 100"), "{detail}")
        }
        other => panic!("{other:?}"),
    }
    // Faults spent, it answers again.
    assert!(b.embed("all-minilm", &one).await.is_ok());
}

#[tokio::test]
async fn a_stalled_embed_times_out_and_a_dead_server_is_unreachable() {
    let server = FakeOllama::start().await;
    server.add_model(embedding_model());
    let options = OllamaOptions {
        request_timeout: Duration::from_millis(300),
        ..OllamaOptions::default()
    };
    let b = backend_with(&server, options);
    server.push_embed_fault(EmbedFault::Stall);
    let start = Instant::now();
    let err = b.embed("all-minilm", &sentences(1)).await.unwrap_err();
    assert!(
        matches!(
            err,
            LlmError::Timeout {
                waiting: Waiting::Response,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(start.elapsed() < PATIENCE);
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let dead = OllamaBackend::new(&format!(":{port}"), OllamaOptions::default()).unwrap();
    let err = dead.embed("all-minilm", &sentences(1)).await.unwrap_err();
    assert!(matches!(err, LlmError::Unreachable { .. }), "{err:?}");
}

#[tokio::test]
async fn the_embedding_model_is_picked_from_what_the_server_has() {
    use ollm_tui::llm::pick_embedding_model;
    let server = FakeOllama::start().await;
    let b = backend(&server);
    // Chat models only: recall stays by words.
    assert_eq!(pick_embedding_model(&b.list_models().await.unwrap()), None);
    server.add_model(nomic_embedding_model());
    let models = b.list_models().await.unwrap();
    let picked = pick_embedding_model(&models).unwrap();
    assert_eq!(picked.name, "nomic-embed-text:latest");
    assert_eq!(picked.capabilities, ["embedding"]);
    assert_eq!(
        b.embed(&picked.name, &sentences(2)).await.unwrap()[0].len(),
        768
    );
    server.add_model(embedding_model());
    let models = b.list_models().await.unwrap();
    assert_eq!(
        pick_embedding_model(&models).map(|m| m.name.as_str()),
        Some("all-minilm:latest")
    );
    assert_eq!(
        models
            .iter()
            .find(|m| m.name == "all-minilm:latest")
            .unwrap()
            .family
            .as_deref(),
        Some("bert")
    );
}
