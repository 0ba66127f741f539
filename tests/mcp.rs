//! MCP servers through the model loop: a real stdio MCP server (this test binary itself,
//! re-run as a child with `OLLM_MCP_TEST_SERVER` set, serving with rmcp), configured from
//! `config.toml` text, its tools offered to the fake Ollama, called, its death and its
//! hangs reported.
//!
//! `harness = false`: the same binary is the server, and a libtest harness would print on
//! the stdout the protocol uses.
#![allow(clippy::unwrap_used)]

mod support;

use clap::Parser;
use ollm_tui::actor::{self, ActorConfig, ActorExit, Parts, StoreSlot, ToolsConfig};
use ollm_tui::app::words::{self, KeyNames};
use ollm_tui::core::record::RecordBody;
use ollm_tui::llm::{OllamaBackend, OllamaOptions};
use ollm_tui::store::MemoryStore;
use ollm_tui::view::Update;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, ServiceExt};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use support::fake_ollama::FakeOllama;
use support::session::{Session, engine};

const SERVER_ENV: &str = "OLLM_MCP_TEST_SERVER";

// ----- the server -----

/// Three tools: `shout` answers, `crash` kills the server, `hang` never answers.
struct TestServer;

fn tool(name: &'static str, description: &'static str, schema: Value) -> Tool {
    let Value::Object(schema) = schema else {
        unreachable!()
    };
    Tool::new(name, description, Arc::new(schema))
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![
            tool(
                "shout",
                "Say the text in capitals.",
                json!({"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}),
            ),
            tool("crash", "Stop the server.", json!({"type": "object"})),
            tool("hang", "Never answer.", json!({"type": "object"})),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        match request.name.as_ref() {
            "shout" => {
                let text = args["text"].as_str().unwrap_or_default().to_uppercase();
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
            }
            "crash" => {
                eprintln!("test server: crashing on purpose");
                std::process::exit(3)
            }
            "hang" => std::future::pending().await,
            other => Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        }
    }
}

fn serve() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let running = TestServer.serve(rmcp::transport::stdio()).await.unwrap();
        let _ = running.waiting().await;
    });
}

// ----- the tests -----

/// `[mcp.t]` pointing at this binary, resolved as the app resolves its config.
fn tools_from_config(workdir: &std::path::Path, extra: &str) -> ToolsConfig {
    let exe = std::env::current_exe().unwrap();
    let text = format!(
        "[tools]\nmode = \"auto\"\ncommand_timeout_secs = 2\n{extra}\n\
         [mcp.t]\ncommand = {exe:?}\nenv = {{ {SERVER_ENV} = \"1\" }}\n",
        exe = exe.display().to_string()
    );
    let path = workdir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    let settings = ollm_tui::config::resolve(
        &ollm_tui::config::Cli::try_parse_from([
            "ollm-tui",
            "--config",
            path.to_str().unwrap(),
            "--workdir",
            workdir.to_str().unwrap(),
        ])
        .unwrap(),
        &ollm_tui::config::Env {
            ollm_home: Some(workdir.join("home").display().to_string()),
            ..ollm_tui::config::Env::default()
        },
    )
    .unwrap();
    ollm_tui::launch::tools(&settings, ollm_tui::tools::ToolEnv::default())
        .unwrap()
        .unwrap()
}

fn start(server: &FakeOllama, tools: ToolsConfig) -> Session {
    let engine = engine("llama3.2:3b", None);
    let store = StoreSlot::Open(MemoryStore::new(engine.header("test")));
    let spawned = actor::spawn(Parts {
        backend: OllamaBackend::new(&server.url(), OllamaOptions::default()).unwrap(),
        summary_backend: None,
        engine: Box::new(move || engine),
        store,
        config: ActorConfig {
            host: server.url(),
            reconnect_after: Duration::from_secs(3600),
            tools: Some(tools),
            ..ActorConfig::default()
        },
        model: None,
    });
    Session { spawned }
}

fn tool_results(exit: &ActorExit<MemoryStore>) -> Vec<(String, String, bool)> {
    exit.store
        .as_ref()
        .unwrap()
        .records()
        .into_iter()
        .filter_map(|r| match r.body {
            RecordBody::Tool {
                name,
                result,
                is_error,
                ..
            } => Some((name, result, is_error)),
            _ => None,
        })
        .collect()
}

fn notices(updates: &[Update]) -> Vec<String> {
    updates
        .iter()
        .filter_map(|u| match u {
            Update::Notice(n) => Some(words::notice(n, &KeyNames::default()).text()),
            _ => None,
        })
        .collect()
}

fn offered_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

async fn a_server_from_the_config_is_called_through_the_model_loop() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOllama::start().await;
    server.push_tool_calls(vec![("t.shout", json!({"text": "quiet please"}))]);
    let s = start(&server, tools_from_config(dir.path(), ""));
    s.say("shout it").await;
    s.wait_for_messages(4).await;
    let (exit, updates) = s.finish().await;
    let results = tool_results(&exit);
    assert_eq!(
        results,
        vec![("t.shout".to_string(), "QUIET PLEASE".to_string(), false)]
    );
    // Offered from the first message, with the server's schema (the built-in file tools
    // wait until the chat turns to files: `engine/offer.rs`).
    let requests = server.chat_requests();
    let names = offered_names(&requests[0]);
    assert!(!names.contains(&"read_file".to_string()), "{names:?}");
    assert!(names.contains(&"t.shout".to_string()), "{names:?}");
    let shout = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "t.shout")
        .unwrap();
    assert_eq!(shout["function"]["parameters"]["required"], json!(["text"]));
    // The result went back to the model.
    let last = requests.last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .clone();
    let tool_msg = last.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool_msg["tool_name"], "t.shout");
    assert_eq!(tool_msg["content"], "QUIET PLEASE");
    assert!(
        notices(&updates)
            .iter()
            .any(|n| n.contains("MCP server t: 3 tools")),
        "{:?}",
        notices(&updates)
    );
}

async fn a_server_that_dies_is_reported_and_its_tools_withdrawn() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOllama::start().await;
    server.push_tool_calls(vec![("t.crash", json!({}))]);
    let s = start(&server, tools_from_config(dir.path(), ""));
    s.say("crash it").await;
    s.wait_for_messages(4).await;
    // Afterwards the model still calls it (say, from memory): a clear error.
    server.push_tool_calls(vec![("t.shout", json!({"text": "hello"}))]);
    s.say("now shout").await;
    s.wait_for_messages(8).await;
    let (exit, updates) = s.finish().await;
    let results = tool_results(&exit);
    assert!(results[0].2, "{results:?}");
    assert!(results[0].1.contains("stopped"), "{results:?}");
    assert!(results[1].2, "{results:?}");
    assert!(results[1].1.contains("not running"), "{results:?}");
    let notes = notices(&updates);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("MCP server t is not available")
                && n.contains("crashing on purpose")),
        "{notes:?}"
    );
    // The next request offers the built-in tools only.
    let requests = server.chat_requests();
    let names = offered_names(requests.last().unwrap());
    assert!(names.contains(&"read_file".to_string()));
    assert!(!names.iter().any(|n| n.starts_with("t.")), "{names:?}");
}

async fn a_server_that_hangs_costs_a_timeout_not_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOllama::start().await;
    server.push_tool_calls(vec![("t.hang", json!({}))]);
    let s = start(&server, tools_from_config(dir.path(), ""));
    s.say("hang").await;
    s.wait_for_messages(4).await;
    // It is still up for the next call.
    server.push_tool_calls(vec![("t.shout", json!({"text": "still here"}))]);
    s.say("again").await;
    s.wait_for_messages(8).await;
    let (exit, _) = s.finish().await;
    let results = tool_results(&exit);
    assert!(
        results[0].2 && results[0].1.contains("did not answer within 2 s"),
        "{results:?}"
    );
    assert_eq!(results[1].1, "STILL HERE");
}

async fn a_server_that_cannot_start_is_said_and_the_chat_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeOllama::start().await;
    let mut tools = tools_from_config(dir.path(), "");
    tools.mcp[0].command = "/nonexistent/mcp-server".into();
    let s = start(&server, tools);
    s.say("hello, what is in notes.md?").await;
    s.wait_for_messages(2).await;
    let (_, updates) = s.finish().await;
    let notes = notices(&updates);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("MCP server t is not available")
                && n.contains("cannot start `/nonexistent/mcp-server`")),
        "{notes:?}"
    );
    let names = offered_names(&server.chat_requests()[0]);
    assert!(names.contains(&"read_file".to_string()), "{names:?}");
}

async fn mcp_calls_follow_the_approval_rules() {
    let dir = tempfile::tempdir().unwrap();
    // `read`: nothing that executes is offered, MCP tools included.
    let server = FakeOllama::start().await;
    let mut tools = tools_from_config(dir.path(), "");
    tools.approvals =
        ollm_tui::tools::Approvals::new(ollm_tui::tools::ToolMode::Read, Default::default());
    let s = start(&server, tools);
    s.say("hello").await;
    s.wait_for_messages(2).await;
    drop(s.finish().await);
    let names = offered_names(&server.chat_requests()[0]);
    assert!(!names.iter().any(|n| n.starts_with("t.")), "{names:?}");
    // A policy can turn one tool off: it is not offered, and a call is refused.
    let server = FakeOllama::start().await;
    server.push_tool_calls(vec![("t.shout", json!({"text": "x"}))]);
    let tools = tools_from_config(dir.path(), "[tools.policy]\n\"t.shout\" = \"deny\"\n");
    let s = start(&server, tools);
    s.say("shout").await;
    s.wait_for_messages(4).await;
    let (exit, _) = s.finish().await;
    let names = offered_names(&server.chat_requests()[0]);
    assert!(names.contains(&"t.crash".to_string()), "{names:?}");
    assert!(!names.contains(&"t.shout".to_string()), "{names:?}");
    let results = tool_results(&exit);
    assert!(results[0].2, "{results:?}");
}

type Test = fn() -> Pin<Box<dyn Future<Output = ()>>>;

fn main() {
    if std::env::var_os(SERVER_ENV).is_some() {
        return serve();
    }
    let tests: Vec<(&str, Test)> = vec![
        (
            "a_server_from_the_config_is_called_through_the_model_loop",
            || Box::pin(a_server_from_the_config_is_called_through_the_model_loop()),
        ),
        (
            "a_server_that_dies_is_reported_and_its_tools_withdrawn",
            || Box::pin(a_server_that_dies_is_reported_and_its_tools_withdrawn()),
        ),
        (
            "a_server_that_hangs_costs_a_timeout_not_the_session",
            || Box::pin(a_server_that_hangs_costs_a_timeout_not_the_session()),
        ),
        (
            "a_server_that_cannot_start_is_said_and_the_chat_goes_on",
            || Box::pin(a_server_that_cannot_start_is_said_and_the_chat_goes_on()),
        ),
        ("mcp_calls_follow_the_approval_rules", || {
            Box::pin(mcp_calls_follow_the_approval_rules())
        }),
    ];
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, test) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        let outcome = std::panic::catch_unwind(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap()
                .block_on(test());
        });
        println!(
            "test {name} ... {}",
            if outcome.is_ok() { "ok" } else { "FAILED" }
        );
        if outcome.is_err() {
            failed.push(name);
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed",
        if failed.is_empty() { "ok" } else { "FAILED" },
        ran - failed.len(),
        failed.len()
    );
    if !failed.is_empty() {
        std::process::exit(1);
    }
}
