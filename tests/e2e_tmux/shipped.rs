//! The benchmark measures the app as it ships (#35): the first request the fidelity
//! benchmark's `ours` sends is the one the binary sends for the same first message — same
//! system prompt, tools offered to a tools-capable model, options and reply room — with
//! no config file. A default struct in the benchmark (as before #35: no tools, another
//! reply room) fails this.

use super::fidelity;
use super::harness::Rig;
use super::support::fake_ollama::FakeOllama;
use ollm_tui::core::tokens::Tiktoken;
use ollm_tui::llm::{OllamaBackend, OllamaOptions};
use std::sync::Arc;
use std::time::Duration;

/// A request body without what may differ between two runs of the same product.
fn comparable(mut body: serde_json::Value) -> serde_json::Value {
    if let Some(o) = body.as_object_mut() {
        o.remove("session_id");
    }
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_benchmark_sends_the_first_request_the_binary_sends() {
    let model = "qwen2.5-coder:0.5b";
    // Names a file: the file tools are offered (a chat about nothing in the workspace
    // offers none, `engine/offer.rs`).
    let message = "June trip to Málaga, see trip.md?";
    // The binary as a person starts it: no config file, a model with the tools capability.
    let rig = Rig::new().await;
    let t = rig
        .connect(&["--model", model, "--ctx", "2048"], 100, 30)
        .await;
    t.ask(message).await;
    t.quit().await;
    let binary = rig.server.chat_requests()[0].clone();
    assert!(
        binary["tools"].as_array().is_some_and(|t| !t.is_empty()),
        "the binary offers tools to a tools-capable model: {binary}"
    );
    // The benchmark's `ours`, same model, window and message.
    let server = FakeOllama::start().await;
    let backend = OllamaBackend::new(&server.url(), OllamaOptions::default()).unwrap();
    let scenario = fidelity::Scenario {
        name: "shipped",
        locked: "",
        turns: vec![message.to_string()],
        facts: Vec::new(),
        quiz: Vec::new(),
    };
    let setup = fidelity::Setup {
        model: model.into(),
        ctx: 2048,
        think: Duration::ZERO,
        pace: None,
        tok: Arc::new(Tiktoken::new().unwrap()),
        temperature: None,
        tools: true,
        num_predict: None,
        turn_timeout: Duration::from_secs(60),
        server_log: None,
    };
    fidelity::strategies::run(fidelity::Strategy::Ours, &backend, &scenario, &setup)
        .await
        .unwrap();
    let bench = server.chat_requests()[0].clone();
    assert_eq!(comparable(bench), comparable(binary));
}
