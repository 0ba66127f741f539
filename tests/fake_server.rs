//! The fake Ollama server over real HTTP: every endpoint, what it records, context
//! handling, summaries, and every scripted fault.
#![allow(clippy::unwrap_used)]

mod support;

use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{Value, json};
use support::fake_ollama::{
    CONTEXT_OVERFLOW_ERROR, DEFAULT_NUM_CTX, EmbedFault, FakeConfig, FakeModel, FakeOllama, Fault,
    NOT_EMBEDDING_ERROR, UNICODE_SENTENCE, count_tokens, embedding_model, extract_facts,
    fake_embedding, prompt_tokens,
};

/// Safety net only: every wait below ends as soon as its event happens.
const PATIENCE: Duration = Duration::from_secs(10);

fn client() -> reqwest::Client {
    reqwest::Client::new()
}

async fn post_chat(server: &FakeOllama, body: Value) -> reqwest::Response {
    client()
        .post(format!("{}/api/chat", server.url()))
        .json(&body)
        .send()
        .await
        .unwrap()
}

/// `/api/tags`, as JSON.
async fn tags(server: &FakeOllama) -> Value {
    client()
        .get(format!("{}/api/tags", server.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Everything a streamed response delivered: raw body chunks, the parsed lines, and the
/// transport error that ended it, if any.
struct Streamed {
    chunks: Vec<Vec<u8>>,
    lines: Vec<Value>,
    error: Option<reqwest::Error>,
}

impl Streamed {
    fn content(&self) -> String {
        self.lines
            .iter()
            .filter_map(|l| l["message"]["content"].as_str())
            .collect()
    }

    fn last(&self) -> &Value {
        self.lines.last().unwrap()
    }
}

async fn read_stream(resp: reqwest::Response) -> Streamed {
    let mut chunks = Vec::new();
    let mut error = None;
    let mut body = resp.bytes_stream();
    while let Some(item) = tokio::time::timeout(PATIENCE, body.next()).await.unwrap() {
        match item {
            Ok(bytes) => chunks.push(bytes.to_vec()),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let all: Vec<u8> = chunks.concat();
    let lines = all
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    Streamed {
        chunks,
        lines,
        error,
    }
}

fn user(content: &str) -> Value {
    json!({ "role": "user", "content": content })
}

fn chat_body(messages: Vec<Value>) -> Value {
    json!({ "model": "llama3.2:3b", "messages": messages })
}

/// A long message of `words` distinct-ish words.
fn long_text(tag: &str, words: usize) -> String {
    (0..words)
        .map(|i| format!("{tag}{}", i % 97))
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test]
async fn root_version_and_tags_speak_ollama() {
    let server = FakeOllama::start().await;
    let c = client();
    let root = c.get(server.url()).send().await.unwrap();
    assert_eq!(root.status(), 200);
    assert_eq!(root.text().await.unwrap(), "Ollama is running");

    let version: Value = c
        .get(format!("{}/api/version", server.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(version["version"].as_str().unwrap().starts_with("0.12."));

    let tags = tags(&server).await;
    let models = tags["models"].as_array().unwrap();
    let names: Vec<&str> = models.iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["llama3.2:3b", "qwen2.5-coder:0.5b", "llama3.1:70b"]);
    let llama = &models[0];
    assert_eq!(llama["model"], "llama3.2:3b");
    assert!(llama["size"].as_u64().unwrap() > 1_000_000_000);
    assert_eq!(llama["digest"].as_str().unwrap().len(), 64);
    assert!(chrono::DateTime::parse_from_rfc3339(llama["modified_at"].as_str().unwrap()).is_ok());
    let d = &llama["details"];
    assert_eq!(d["format"], "gguf");
    assert_eq!(d["family"], "llama");
    assert_eq!(d["families"], json!(["llama"]));
    assert_eq!(d["parameter_size"], "3.2B");
    assert_eq!(d["quantization_level"], "Q4_K_M");
    assert_eq!(models[1]["details"]["parameter_size"], "494.03M");
    assert_eq!(models[2]["details"]["parameter_size"], "70.6B");
}

#[tokio::test]
async fn show_reports_architecture_context_length_and_capabilities() {
    let server = FakeOllama::start().await;
    let show = |model: &'static str| {
        let url = format!("{}/api/show", server.url());
        async move {
            client()
                .post(url)
                .json(&json!({ "model": model }))
                .send()
                .await
                .unwrap()
        }
    };
    let info: Value = show("qwen2.5-coder:0.5b").await.json().await.unwrap();
    assert_eq!(info["details"]["parameter_size"], "494.03M");
    assert_eq!(info["model_info"]["general.architecture"], "qwen2");
    assert_eq!(info["model_info"]["qwen2.context_length"], 32768);
    assert!(info["template"].as_str().unwrap().contains(".Messages"));
    assert!(
        info["capabilities"]
            .as_array()
            .unwrap()
            .contains(&json!("completion"))
    );

    let llama: Value = show("llama3.2:3b").await.json().await.unwrap();
    assert_eq!(llama["model_info"]["llama.context_length"], 131072);

    let missing = show("mistral:7b").await;
    assert_eq!(missing.status(), 404);
    let err: Value = missing.json().await.unwrap();
    assert!(err["error"].as_str().unwrap().contains("mistral:7b"));
}

#[tokio::test]
async fn models_can_be_added_and_replaced() {
    let server = FakeOllama::start_with(FakeConfig {
        models: vec![FakeModel::new(
            "tiny:1b",
            "llama",
            "1.2B",
            1_200_000_000,
            8192,
        )],
        ..FakeConfig::default()
    })
    .await;
    server.add_model(FakeModel::new(
        "other:7b",
        "qwen2",
        "7.6B",
        7_600_000_000,
        32768,
    ));
    server.add_model(FakeModel::new(
        "tiny:1b",
        "llama",
        "1.3B",
        1_300_000_000,
        8192,
    ));
    let tags = tags(&server).await;
    let got: Vec<(String, String)> = tags["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap().to_string(),
                m["details"]["parameter_size"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("other:7b".to_string(), "7.6B".to_string()),
            ("tiny:1b".to_string(), "1.3B".to_string())
        ]
    );

    server.set_models(vec![]);
    let resp = post_chat(
        &server,
        json!({"model": "tiny:1b", "messages": [user("hi")]}),
    )
    .await;
    assert_eq!(resp.status(), 404);
}

#[tokio::test]
async fn ps_lists_models_loaded_by_chat_with_their_context_length() {
    let server = FakeOllama::start().await;
    let ps = || {
        let url = format!("{}/api/ps", server.url());
        async move {
            client()
                .get(url)
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        }
    };
    assert_eq!(ps().await["models"], json!([]));

    let body = json!({
        "model": "llama3.2:3b",
        "messages": [user("hello")],
        "stream": false,
        "options": { "num_ctx": 16384 }
    });
    assert_eq!(post_chat(&server, body).await.status(), 200);
    let loaded = ps().await;
    let m = &loaded["models"][0];
    assert_eq!(m["name"], "llama3.2:3b");
    assert_eq!(m["context_length"], 16384);
    assert_eq!(m["size_vram"], m["size"]);
    assert_eq!(m["details"]["parameter_size"], "3.2B");
    let expires = chrono::DateTime::parse_from_rfc3339(m["expires_at"].as_str().unwrap()).unwrap();
    assert!(expires > chrono::Utc::now());

    // keep_alive 0 unloads, as in Ollama.
    let unload = json!({"model": "llama3.2:3b", "messages": [], "keep_alive": 0});
    let resp: Value = post_chat(&server, unload).await.json().await.unwrap();
    assert_eq!(resp["done_reason"], "load");
    assert_eq!(ps().await["models"], json!([]));
}

#[tokio::test]
async fn chat_streams_ndjson_ending_with_stats() {
    let server = FakeOllama::start().await;
    let question = "What is the capital of France and why is it so famous today?";
    let resp = post_chat(&server, chat_body(vec![user(question)])).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(
        resp.headers()["content-type"].to_str().unwrap(),
        "application/x-ndjson"
    );
    let s = read_stream(resp).await;
    assert!(s.error.is_none());
    let (last, content_lines) = s.lines.split_last().unwrap();
    assert!(content_lines.len() > 10, "one line per token-ish chunk");
    for line in content_lines {
        assert_eq!(line["done"], false);
        assert_eq!(line["model"], "llama3.2:3b");
        assert_eq!(line["message"]["role"], "assistant");
        assert!(chrono::DateTime::parse_from_rfc3339(line["created_at"].as_str().unwrap()).is_ok());
    }
    let text = s.content();
    assert!(
        text.starts_with("You said: \"What is the capital of France and why…\". "),
        "{text}"
    );
    assert_eq!(last["done"], true);
    assert_eq!(last["done_reason"], "stop");
    assert_eq!(
        last["prompt_eval_count"],
        prompt_tokens([question]),
        "o200k tokens + 4 per message + 1 BOS"
    );
    assert_eq!(last["eval_count"], count_tokens(&text));
    for key in [
        "total_duration",
        "load_duration",
        "prompt_eval_duration",
        "eval_duration",
    ] {
        assert!(last[key].as_u64().unwrap() > 0, "{key}");
    }
}

#[tokio::test]
async fn chat_without_streaming_returns_one_object() {
    let server = FakeOllama::start().await;
    let mut body = chat_body(vec![user("Tell me a story about a small crab")]);
    body["stream"] = json!(false);
    let resp = post_chat(&server, body).await;
    assert_eq!(resp.status(), 200);
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v["done"], true);
    assert_eq!(v["done_reason"], "stop");
    let content = v["message"]["content"].as_str().unwrap();
    assert!(content.starts_with("You said: \"Tell me a story about a small crab\"."));
    assert_eq!(v["eval_count"], count_tokens(content));
}

#[tokio::test]
async fn chat_with_unknown_model_is_404_like_ollama() {
    let server = FakeOllama::start().await;
    let resp = post_chat(
        &server,
        json!({"model": "llama9:1t", "messages": [user("hi")]}),
    )
    .await;
    assert_eq!(resp.status(), 404);
    let v: Value = resp.json().await.unwrap();
    assert_eq!(
        v["error"],
        "model \"llama9:1t\" not found, try pulling it first"
    );
}

#[tokio::test]
async fn replies_are_deterministic_and_follow_reply_words() {
    let server = FakeOllama::start_with(FakeConfig {
        reply_words: 12,
        ..FakeConfig::default()
    })
    .await;
    let ask = |q: &'static str| {
        let url = format!("{}/api/chat", server.url());
        async move {
            let body = json!({"model": "llama3.2:3b", "stream": false, "messages": [user(q)]});
            let v: Value = client()
                .post(url)
                .json(&body)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            v["message"]["content"].as_str().unwrap().to_string()
        }
    };
    let a1 = ask("first question").await;
    let a2 = ask("first question").await;
    let b = ask("second question").await;
    assert_eq!(a1, a2);
    assert_ne!(a1, b);
    let filler = a1.split_once("\". ").unwrap().1;
    assert_eq!(filler.split_whitespace().count(), 12, "{a1}");

    server.set_reply_words(40);
    let longer = ask("first question").await;
    let filler = longer.split_once("\". ").unwrap().1;
    assert_eq!(filler.split_whitespace().count(), 40);
}

#[tokio::test]
async fn scripted_replies_override_in_order() {
    let server = FakeOllama::start().await;
    server.push_reply("\u{1b}[31mred\u{1b}[0m and [GOAL] ship it");
    server.push_reply("second 🦀");
    let s1 = read_stream(post_chat(&server, chat_body(vec![user("a")])).await).await;
    let s2 = read_stream(post_chat(&server, chat_body(vec![user("b")])).await).await;
    let s3 = read_stream(post_chat(&server, chat_body(vec![user("c")])).await).await;
    assert_eq!(s1.content(), "\u{1b}[31mred\u{1b}[0m and [GOAL] ship it");
    assert_eq!(s2.content(), "second 🦀");
    assert!(s3.content().starts_with("You said: \"c\"."));
}

#[tokio::test]
async fn records_every_request_with_body_and_time() {
    let server = FakeOllama::start().await;
    let before = Instant::now();
    let c = client();
    c.get(format!("{}/api/tags", server.url()))
        .send()
        .await
        .unwrap();
    let body = json!({
        "model": "llama3.2:3b",
        "messages": [user("hi")],
        "options": {"num_ctx": 2048, "num_predict": 5},
        "truncate": false,
        "shift": false,
        "stream": false
    });
    post_chat(&server, body.clone()).await;
    let v1 = c
        .post(format!("{}/v1/chat/completions", server.url()))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(v1.status(), 404, "the fake has no OpenAI-compatible API");

    let reqs = server.requests();
    let seen: Vec<(&str, &str)> = reqs
        .iter()
        .map(|r| (r.method.as_str(), r.path.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            ("GET", "/api/tags"),
            ("POST", "/api/chat"),
            ("POST", "/v1/chat/completions")
        ]
    );
    assert_eq!(reqs[1].body.as_ref().unwrap(), &body);
    assert!(reqs[1].raw_body.contains("\"truncate\":false"));
    assert!(reqs.iter().all(|r| r.at >= before));
    assert!(reqs.windows(2).all(|w| w[0].at <= w[1].at));
    assert_eq!(server.chat_requests(), vec![body]);
    assert!(server.wait_for_chat_requests(1, PATIENCE).await);
}

/// A system prompt, then `n` user/assistant pairs of ~`words` words each, then a question.
fn long_history(n: usize, words: usize) -> Vec<Value> {
    let mut messages = vec![json!({"role": "system", "content": "You are terse."})];
    for i in 0..n {
        messages.push(user(&long_text(&format!("q{i}w"), words)));
        messages.push(json!({"role": "assistant", "content": long_text(&format!("a{i}w"), words)}));
    }
    messages.push(user("And the final question about everything?"));
    messages
}

fn contents(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn default_num_ctx_drops_oldest_messages_silently() {
    let server = FakeOllama::start().await;
    let messages = long_history(6, 400);
    let sent = prompt_tokens(contents(&messages));
    assert!(
        sent > DEFAULT_NUM_CTX,
        "the history must overflow 4096: {sent}"
    );

    let s = read_stream(post_chat(&server, chat_body(messages.clone())).await).await;
    assert!(s.error.is_none());
    let reported = s.last()["prompt_eval_count"].as_u64().unwrap();
    assert!(reported <= u64::from(DEFAULT_NUM_CTX));
    assert!(reported < u64::from(sent));
    assert!(
        s.content()
            .starts_with("You said: \"And the final question about everything?\".")
    );

    let outcome = &server.chat_outcomes()[0];
    assert_eq!(outcome.num_ctx, DEFAULT_NUM_CTX);
    assert_eq!(outcome.prompt_tokens_sent, sent);
    assert!(outcome.dropped_messages > 0);
    // The oldest non-system messages went first: what is left is system + the newest tail.
    let kept = &messages[outcome.dropped_messages + 1..];
    let mut expected: Vec<&str> = vec!["You are terse."];
    expected.extend(contents(kept));
    assert_eq!(u64::from(prompt_tokens(expected)), reported);
}

#[tokio::test]
async fn truncate_false_over_context_is_a_400() {
    let server = FakeOllama::start().await;
    let body = json!({
        "model": "llama3.2:3b",
        "messages": long_history(3, 400),
        "options": {"num_ctx": 2048},
        "truncate": false
    });
    let resp = post_chat(&server, body).await;
    assert_eq!(resp.status(), 400);
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v["error"], CONTEXT_OVERFLOW_ERROR);

    // The same request within a larger num_ctx succeeds with the full prompt.
    let messages = long_history(3, 400);
    let sent = prompt_tokens(contents(&messages));
    let body = json!({
        "model": "llama3.2:3b",
        "messages": messages,
        "options": {"num_ctx": 16384},
        "truncate": false,
        "stream": false
    });
    let v: Value = post_chat(&server, body).await.json().await.unwrap();
    assert_eq!(v["prompt_eval_count"], sent);
}

#[tokio::test]
async fn ignore_truncate_flag_truncates_even_when_told_not_to() {
    let server = FakeOllama::start_with(FakeConfig {
        ignore_truncate_flag: true,
        ..FakeConfig::default()
    })
    .await;
    let messages = long_history(3, 400);
    let sent = prompt_tokens(contents(&messages));
    let body = json!({
        "model": "llama3.2:3b",
        "messages": messages,
        "options": {"num_ctx": 2048},
        "truncate": false,
        "stream": false
    });
    let resp = post_chat(&server, body).await;
    assert_eq!(resp.status(), 200);
    let v: Value = resp.json().await.unwrap();
    let reported = v["prompt_eval_count"].as_u64().unwrap();
    assert!(reported <= 2048 && reported < u64::from(sent));

    server.set_ignore_truncate_flag(false);
    let body = json!({
        "model": "llama3.2:3b",
        "messages": long_history(3, 400),
        "options": {"num_ctx": 2048},
        "truncate": false
    });
    assert_eq!(post_chat(&server, body).await.status(), 400);
}

#[tokio::test]
async fn num_predict_caps_the_reply_with_done_reason_length() {
    let server = FakeOllama::start_with(FakeConfig {
        reply_words: 200,
        ..FakeConfig::default()
    })
    .await;
    let mut body = chat_body(vec![user("Write a long essay")]);
    body["options"] = json!({"num_predict": 7});
    let s = read_stream(post_chat(&server, body).await).await;
    assert_eq!(s.last()["done_reason"], "length");
    assert_eq!(s.last()["eval_count"], 7);
    assert_eq!(count_tokens(&s.content()), 7);
    assert!(s.content().starts_with("You said"));
}

#[tokio::test]
async fn shift_false_stops_generation_when_the_context_is_full() {
    let server = FakeOllama::start_with(FakeConfig {
        reply_words: 200,
        ..FakeConfig::default()
    })
    .await;
    let question = long_text("w", 90);
    let prompt = prompt_tokens([question.as_str()]);
    let body = json!({
        "model": "llama3.2:3b",
        "messages": [user(&question)],
        "options": {"num_ctx": prompt + 10},
        "shift": false,
        "stream": false
    });
    let v: Value = post_chat(&server, body).await.json().await.unwrap();
    assert_eq!(v["done_reason"], "length");
    assert_eq!(v["eval_count"], 10);
}

const SUMMARY_SYSTEM: &str = "You compress conversations. Summarize the messages below.";

fn fact_rich_transcript() -> Vec<Value> {
    let mut messages = vec![json!({"role": "system", "content": SUMMARY_SYSTEM})];
    let filler = "This part of the discussion wandered through many general remarks about style, \
                  naming, patience, and the weather, none of which matter much later on. ";
    messages.push(user(&format!(
        "We need to fix the parser in src/llm/ndjson.rs before the release.\n\n{}\
         The upstream docs are at https://github.com/ollama/ollama/blob/main/docs/api.md and \
         the limit is 8192 tokens.\n[DECISION] Use reqwest for streaming - LOCKED\n[GOAL] Ship v0.3",
        filler.repeat(6)
    )));
    messages.push(json!({"role": "assistant", "content": format!(
        "I changed parse_line() and the LineDecoder type; see Cargo.toml too.\n\n{}\
         It now calls decoder.push_bytes() for every chunk and retries 3 times.",
        filler.repeat(6)
    )}));
    messages
}

#[tokio::test]
async fn summaries_keep_facts_and_markers_and_are_much_shorter() {
    let server = FakeOllama::start().await;
    let messages = fact_rich_transcript();
    let input: String = contents(&messages[1..]).join("\n");
    let body = json!({
        "model": "llama3.2:3b",
        "messages": messages,
        "options": {"num_predict": 400},
        "stream": false
    });
    let v: Value = post_chat(&server, body.clone()).await.json().await.unwrap();
    let summary = v["message"]["content"].as_str().unwrap().to_string();

    for fact in [
        "src/llm/ndjson.rs",
        "https://github.com/ollama/ollama/blob/main/docs/api.md",
        "8192",
        "parse_line()",
        "LineDecoder",
        "Cargo.toml",
        "decoder.push_bytes()",
        "3",
        "[DECISION] Use reqwest for streaming - LOCKED",
        "[GOAL] Ship v0.3",
    ] {
        assert!(summary.contains(fact), "missing {fact:?} in:\n{summary}");
    }
    assert!(summary.contains("- user: We need to fix the parser"));
    let (s_tokens, in_tokens) = (count_tokens(&summary), count_tokens(&input));
    assert!(s_tokens * 2 < in_tokens, "{s_tokens} vs {in_tokens}");
    assert_eq!(v["eval_count"], s_tokens);
    assert_eq!(v["done_reason"], "stop");
    assert!(server.chat_outcomes()[0].summary);

    let again: Value = post_chat(&server, body).await.json().await.unwrap();
    assert_eq!(
        again["message"]["content"],
        summary.as_str(),
        "deterministic"
    );
}

#[tokio::test]
async fn summaries_stay_within_num_predict() {
    let server = FakeOllama::start().await;
    let mut messages = fact_rich_transcript();
    messages[0]["content"] = json!("Please COMPRESS this history.");
    let body = json!({
        "model": "llama3.2:3b",
        "messages": messages,
        "options": {"num_predict": 30},
        "stream": false
    });
    let v: Value = post_chat(&server, body).await.json().await.unwrap();
    let summary = v["message"]["content"].as_str().unwrap();
    assert!(count_tokens(summary) <= 30, "{summary}");
    assert_eq!(v["done_reason"], "length");
    // Markers come first, so a tight cap still keeps the decision.
    assert!(summary.contains("[DECISION] Use reqwest for streaming - LOCKED"));
}

#[test]
fn fact_extraction_finds_paths_urls_identifiers_and_numbers() {
    let facts = extract_facts(
        "See ./src/main.rs and http://x.io/a?b=1, call Foo::bar() or obj.method(); \
         snake_case_name, CamelCase, MAX_LEN, lib.rs, 42 items at 3.5% on 12:30.",
    );
    for f in [
        "./src/main.rs",
        "http://x.io/a?b=1",
        "Foo::bar()",
        "obj.method()",
        "snake_case_name",
        "CamelCase",
        "MAX_LEN",
        "lib.rs",
        "42",
        "3.5%",
        "12:30",
    ] {
        assert!(facts.contains(&f.to_string()), "missing {f} in {facts:?}");
    }
    assert!(!facts.contains(&"See".to_string()));
}

// ---------------------------------------------------------------------------------------
// Faults

#[tokio::test]
async fn drop_after_aborts_the_connection_without_a_done_line() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::DropAfter { tokens: 3 });
    let s = read_stream(post_chat(&server, chat_body(vec![user("hello")])).await).await;
    assert!(s.error.is_some(), "the body must end in a transport error");
    assert_eq!(s.lines.len(), 3);
    assert!(s.lines.iter().all(|l| l["done"] == false));
    assert_eq!(s.content(), "You said:");
    assert!(
        server.disconnects().is_empty(),
        "a server abort is not a client disconnect"
    );

    // The fault was used up: the next request is normal.
    let next = read_stream(post_chat(&server, chat_body(vec![user("hello")])).await).await;
    assert!(next.error.is_none());
    assert_eq!(next.last()["done"], true);
}

#[tokio::test]
async fn error_line_inside_a_200_stream() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::ErrorAfter {
        tokens: 2,
        message: "llama runner process has terminated".into(),
    });
    let resp = post_chat(&server, chat_body(vec![user("hello")])).await;
    assert_eq!(resp.status(), 200);
    let s = read_stream(resp).await;
    assert!(s.error.is_none(), "the stream itself ends cleanly");
    assert_eq!(s.lines.len(), 3);
    assert_eq!(
        s.last(),
        &json!({"error": "llama runner process has terminated"})
    );
}

#[tokio::test]
async fn http_500_with_error_body() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::Http500 {
        message: "out of memory".into(),
    });
    let resp = post_chat(&server, chat_body(vec![user("hello")])).await;
    assert_eq!(resp.status(), 500);
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v, json!({"error": "out of memory"}));
}

#[tokio::test]
async fn garbage_body_with_status_200() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::Garbage);
    let resp = post_chat(&server, chat_body(vec![user("hello")])).await;
    assert_eq!(resp.status(), 200);
    let bytes = resp.bytes().await.unwrap();
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "contains invalid UTF-8"
    );
    assert!(
        bytes
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .all(|l| serde_json::from_slice::<Value>(l).is_err())
    );
}

#[tokio::test]
async fn split_lines_cut_inside_multibyte_characters() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::SplitLines);
    let s = read_stream(post_chat(&server, chat_body(vec![user("hello")])).await).await;
    assert!(s.error.is_none());
    assert!(
        s.chunks.len() >= 2 * s.lines.len(),
        "{} chunks for {} lines",
        s.chunks.len(),
        s.lines.len()
    );
    assert!(
        s.chunks.iter().any(|c| std::str::from_utf8(c).is_err()),
        "at least one chunk must end or start inside a multi-byte character"
    );
    assert!(
        s.chunks
            .iter()
            .all(|c| c.last() != Some(&b'\n') || c.len() == 1),
        "the newline travels alone"
    );
    let text = s.content();
    assert!(text.contains(UNICODE_SENTENCE), "{text}");
    for word in ["café", "naïve", "日本語", "🦀"] {
        assert!(text.contains(word));
    }
    assert_eq!(s.last()["done"], true);
}

#[tokio::test]
async fn no_done_ends_cleanly_without_the_final_line() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::NoDone);
    let s = read_stream(post_chat(&server, chat_body(vec![user("hello")])).await).await;
    assert!(s.error.is_none());
    assert!(!s.lines.is_empty());
    assert!(s.lines.iter().all(|l| l["done"] == false));
    assert!(s.content().starts_with("You said: \"hello\"."));
}

#[tokio::test]
async fn context_overflow_fault_is_a_400() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::ContextOverflow);
    let resp = post_chat(&server, chat_body(vec![user("short")])).await;
    assert_eq!(resp.status(), 400);
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v["error"], CONTEXT_OVERFLOW_ERROR);
}

#[tokio::test]
async fn token_delay_applies_globally_and_per_request() {
    let server = FakeOllama::start_with(FakeConfig {
        reply_words: 3,
        ..FakeConfig::default()
    })
    .await;
    let delay = Duration::from_millis(15);
    server.push_fault(Fault::TokenDelay(delay));
    let started = Instant::now();
    let s = read_stream(post_chat(&server, chat_body(vec![user("x")])).await).await;
    let chunks = u32::try_from(s.lines.len() - 1).unwrap();
    assert!(started.elapsed() >= delay * chunks);

    server.set_token_delay(delay);
    let started = Instant::now();
    let s = read_stream(post_chat(&server, chat_body(vec![user("y")])).await).await;
    let chunks = u32::try_from(s.lines.len() - 1).unwrap();
    assert!(started.elapsed() >= delay * chunks);
}

#[tokio::test]
async fn stall_keeps_the_connection_open_and_a_client_leaving_is_recorded() {
    let server = FakeOllama::start().await;
    server.push_fault(Fault::StallAfter { tokens: 2 });
    let resp = post_chat(&server, chat_body(vec![user("hello")])).await;
    let mut body = resp.bytes_stream();
    let mut received = Vec::new();
    while received.iter().filter(|b| **b == b'\n').count() < 2 {
        let chunk = tokio::time::timeout(PATIENCE, body.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        received.extend_from_slice(&chunk);
    }
    // Nothing more comes, and the connection stays open (no end, no error).
    let more = tokio::time::timeout(Duration::from_millis(300), body.next()).await;
    assert!(more.is_err(), "expected silence, got {more:?}");
    assert!(server.disconnects().is_empty());

    let stop = Instant::now();
    drop(body);
    let d = server.wait_for_disconnect(PATIENCE).await.unwrap();
    assert_eq!(d.chunks_sent, 2);
    assert_eq!(d.request_index, 0);
    assert!(d.at.duration_since(stop) < Duration::from_millis(200));
}

#[tokio::test]
async fn client_closing_a_slow_stream_is_seen_within_200ms() {
    let server = FakeOllama::start_with(FakeConfig {
        token_delay: Duration::from_millis(40),
        reply_words: 100,
        ..FakeConfig::default()
    })
    .await;
    let resp = post_chat(&server, chat_body(vec![user("hello")])).await;
    let mut body = resp.bytes_stream();
    let mut received = Vec::new();
    while received.iter().filter(|b| **b == b'\n').count() < 3 {
        let chunk = tokio::time::timeout(PATIENCE, body.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        received.extend_from_slice(&chunk);
    }
    let stop = Instant::now();
    drop(body);
    let d = server.wait_for_disconnect(PATIENCE).await.unwrap();
    let seen_after = d.at.duration_since(stop);
    assert!(seen_after < Duration::from_millis(200), "{seen_after:?}");
    assert!(d.chunks_sent >= 3);
    assert!(d.chunks_sent < 100, "the server stopped writing");
}

#[tokio::test]
async fn non_streaming_faults_have_their_equivalents() {
    let server = FakeOllama::start().await;
    let mut body = chat_body(vec![user("hello")]);
    body["stream"] = json!(false);

    server.push_fault(Fault::ErrorAfter {
        tokens: 0,
        message: "boom".into(),
    });
    let resp = post_chat(&server, body.clone()).await;
    assert_eq!(resp.status(), 500);

    // Headers go out with the first body bytes, so the client sees the drop as a failed
    // request (or, if it already had the headers, a failed body).
    server.push_fault(Fault::DropAfter { tokens: 0 });
    let sent = client()
        .post(format!("{}/api/chat", server.url()))
        .json(&body)
        .send()
        .await;
    match sent {
        Ok(resp) => assert!(resp.bytes().await.is_err()),
        Err(e) => assert!(e.is_request(), "{e:?}"),
    }

    server.push_fault(Fault::SplitLines);
    let resp = post_chat(&server, body.clone()).await;
    let v: Value = resp.json().await.unwrap();
    assert!(
        v["message"]["content"]
            .as_str()
            .unwrap()
            .contains(UNICODE_SENTENCE)
    );

    server.push_fault(Fault::NoDone);
    let v: Value = post_chat(&server, body).await.json().await.unwrap();
    assert_eq!(v["done"], false);
}

#[tokio::test]
async fn an_old_server_has_no_ps() {
    let server = FakeOllama::start_with(FakeConfig {
        no_ps: true,
        ..FakeConfig::default()
    })
    .await;
    let r = reqwest::get(format!("{}/api/ps", server.url()))
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn pull_streams_ollamas_lines_then_lists_the_model() {
    let server = FakeOllama::start().await;
    server.set_pull_pace(4, Duration::ZERO);
    let resp = client()
        .post(format!("{}/api/pull", server.url()))
        .json(&json!({"model": "smollm2:135m"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let statuses: Vec<&str> = lines
        .iter()
        .map(|l| l["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses[0], "pulling manifest");
    assert_eq!(
        &statuses[statuses.len() - 3..],
        ["verifying sha256 digest", "writing manifest", "success"]
    );
    let layer: Vec<&Value> = lines
        .iter()
        .filter(|l| l.get("completed").is_some())
        .collect();
    // The main layer in 4 steps and the small one in 1, each counting up to its total.
    assert_eq!(layer.len(), 5);
    assert!(
        layer
            .iter()
            .all(|l| l["digest"].as_str().unwrap().starts_with("sha256:"))
    );
    assert!(statuses[1].starts_with("pulling ") && lines[1].get("total").is_some());
    let tags = tags(&server).await;
    assert!(
        tags["models"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["name"] == "smollm2:135m")
    );
    // An unknown name: the error Ollama streams, and nothing installed.
    let text = client()
        .post(format!("{}/api/pull", server.url()))
        .json(&json!({"model": "nope:1b"}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(
        text,
        "{\"status\":\"pulling manifest\"}\n{\"error\":\"pull model manifest: file does not exist\"}\n"
    );
}

// ---------------------------------------------------------------------------------------
// Embeddings

async fn post_embed(server: &FakeOllama, body: Value) -> reqwest::Response {
    client()
        .post(format!("{}/api/embed", server.url()))
        .json(&body)
        .send()
        .await
        .unwrap()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (norm(a) * norm(b))
}

fn vectors(answer: &Value) -> Vec<Vec<f32>> {
    answer["embeddings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn the_embedding_model_is_off_by_default_and_listed_like_ollamas_once_added() {
    let server = FakeOllama::start().await;
    let names = |t: &Value| -> Vec<String> {
        t["models"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(!names(&tags(&server).await).contains(&"all-minilm:latest".to_string()));
    server.add_model(embedding_model());
    let listed = tags(&server).await;
    let minilm = listed["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "all-minilm:latest")
        .unwrap()
        .clone();
    assert_eq!(minilm["details"]["family"], "bert");
    assert_eq!(minilm["details"]["parameter_size"], "23M");
    assert_eq!(minilm["details"]["quantization_level"], "F16");
    let show: Value = client()
        .post(format!("{}/api/show", server.url()))
        .json(&json!({ "model": "all-minilm" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(show["capabilities"], json!(["embedding"]));
    assert_eq!(show["model_info"]["bert.embedding_length"], 384);
    assert_eq!(show["model_info"]["bert.context_length"], 512);
    // Like Ollama, it does not chat.
    let chat = post_chat(
        &server,
        json!({ "model": "all-minilm", "messages": [{ "role": "user", "content": "hi" }] }),
    )
    .await;
    assert_eq!(chat.status(), 400);
    let err: Value = chat.json().await.unwrap();
    assert_eq!(err["error"], "\"all-minilm:latest\" does not support chat");
}

#[tokio::test]
async fn embed_answers_one_unit_vector_per_input_like_ollama() {
    let server = FakeOllama::start().await;
    server.add_model(embedding_model());
    let inputs = [
        "Where is the team dinner?",
        "The dinner is at Cervejaria Ramiro.",
    ];
    let resp = post_embed(&server, json!({ "model": "all-minilm", "input": inputs })).await;
    assert_eq!(resp.status(), 200);
    let answer: Value = resp.json().await.unwrap();
    assert_eq!(answer["model"], "all-minilm:latest");
    let got = vectors(&answer);
    assert_eq!(got.len(), 2);
    for (v, text) in got.iter().zip(inputs) {
        assert_eq!(v.len(), 384);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4);
        // Deterministic: what a test can compute itself.
        assert!(cosine(v, &fake_embedding(text, 384)) > 0.9999);
    }
    let tokens: u32 = inputs.iter().map(|s| count_tokens(s) + 2).sum();
    assert_eq!(answer["prompt_eval_count"], tokens);
    assert!(
        answer["total_duration"].as_u64().unwrap() >= answer["load_duration"].as_u64().unwrap()
    );
    // A string is one input; "" and [] are none.
    let one: Value = post_embed(
        &server,
        json!({ "model": "all-minilm", "input": "hello world" }),
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(vectors(&one).len(), 1);
    for none in [json!(""), json!([])] {
        let empty: Value = post_embed(&server, json!({ "model": "all-minilm", "input": none }))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(empty["embeddings"], json!([]));
    }
    // `dimensions` cuts them shorter, still of length one.
    let short: Value = post_embed(
        &server,
        json!({ "model": "all-minilm", "input": ["hello world"], "dimensions": 64 }),
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(vectors(&short)[0].len(), 64);
    // Loaded like a chat model: /api/ps lists it.
    let ps: Value = client()
        .get(format!("{}/api/ps", server.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(ps["models"][0]["name"], "all-minilm:latest");
    assert_eq!(server.embed_requests().len(), 5);
}

#[test]
fn the_fakes_vectors_find_a_paraphrase_and_not_small_talk() {
    let v = |t: &str| fake_embedding(t, 384);
    let receipt = v("I kept the receipt for the taxi, 42 euros.");
    let hotel = v("The hotel is the Miramar, next to the beach.");
    let bus = v("The bus leaves at 8:45.");
    let claim = v("How much was my expense claim?");
    assert!(
        cosine(&claim, &receipt) >= 0.4,
        "{}",
        cosine(&claim, &receipt)
    );
    assert!(cosine(&claim, &hotel) < 0.1 && cosine(&claim, &bus) < 0.1);
    let sleeping = v("Where are we sleeping?");
    assert!(cosine(&sleeping, &hotel) > cosine(&sleeping, &bus));
    assert!(cosine(&sleeping, &hotel) >= 0.4);
    let thanks = v("thanks!");
    for fact in [&receipt, &hotel, &bus] {
        assert!(cosine(&thanks, fact) < 0.2);
    }
    // Accents fold, as a real model's tokenizer mostly does.
    assert!(cosine(&v("Zoë in Málaga"), &v("Zoe in Malaga")) > 0.999);
}

#[tokio::test]
async fn embed_refuses_like_ollama() {
    let server = FakeOllama::start().await;
    server.add_model(embedding_model());
    let missing = post_embed(
        &server,
        json!({ "model": "mxbai-embed-large", "input": ["x"] }),
    )
    .await;
    assert_eq!(missing.status(), 404);
    let err: Value = missing.json().await.unwrap();
    assert_eq!(
        err["error"],
        "model \"mxbai-embed-large\" not found, try pulling it first"
    );
    let chat_model = post_embed(&server, json!({ "model": "llama3.2:3b", "input": ["x"] })).await;
    assert_eq!(chat_model.status(), 501);
    let err: Value = chat_model.json().await.unwrap();
    assert_eq!(err["error"], NOT_EMBEDDING_ERROR);
    let nameless = post_embed(&server, json!({ "input": ["x"] })).await;
    assert_eq!(nameless.status(), 400);
    let wrong = post_embed(&server, json!({ "model": "all-minilm", "input": [1, 2] })).await;
    assert_eq!(wrong.status(), 400);
}

#[tokio::test]
async fn embed_faults_fail_stall_and_answer_wrong_on_request() {
    let server = FakeOllama::start().await;
    server.add_model(embedding_model());
    let body = json!({ "model": "all-minilm", "input": ["a b", "c d"] });
    server.push_embed_fault(EmbedFault::Http500 {
        message: "runner crashed".into(),
    });
    let resp = post_embed(&server, body.clone()).await;
    assert_eq!(resp.status(), 500);
    server.push_embed_fault(EmbedFault::Garbage);
    let resp = post_embed(&server, body.clone()).await;
    assert!(serde_json::from_slice::<Value>(&resp.bytes().await.unwrap()).is_err());
    server.push_embed_fault(EmbedFault::MissingVector);
    let answer: Value = post_embed(&server, body.clone())
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(vectors(&answer).len(), 1);
    server.push_embed_fault(EmbedFault::RaggedDimensions);
    let answer: Value = post_embed(&server, body.clone())
        .await
        .json()
        .await
        .unwrap();
    let got = vectors(&answer);
    assert_eq!((got[0].len(), got[1].len()), (384, 383));
    server.push_embed_fault(EmbedFault::Oversized { bytes: 100_000 });
    let resp = post_embed(&server, body.clone()).await;
    assert_eq!(resp.bytes().await.unwrap().len(), 100_000);
    server.push_embed_fault(EmbedFault::Delay(Duration::from_millis(150)));
    let start = Instant::now();
    assert_eq!(post_embed(&server, body.clone()).await.status(), 200);
    assert!(start.elapsed() >= Duration::from_millis(150));
    // A stall answers nothing until the server shuts down.
    server.push_embed_fault(EmbedFault::Stall);
    let stalled = tokio::time::timeout(Duration::from_millis(300), post_embed(&server, body)).await;
    assert!(stalled.is_err(), "a stalled embed answered");
}
