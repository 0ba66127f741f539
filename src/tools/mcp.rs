//! MCP servers as a second source of tools: stdio servers declared in the config
//! (`[mcp.NAME]`), started when tools are first offered, their tools offered beside the
//! built-in ones as `NAME.tool`.
//!
//! Strategy: a server is a child process speaking MCP on its stdin/stdout (the official
//! SDK, `rmcp`, does the protocol). Its stderr never reaches the terminal (the screen is
//! the TUI's): the last lines are kept to explain a failure and everything goes to the
//! log. Starting and every call have a time limit, so a server that hangs costs a clear
//! error, not the session; one that dies is reported once and its tools answer "not
//! running" from then on. Nothing here touches the approval rules: an MCP call is a call
//! like any other, prepared and decided by the actor (MCP tools count as executing, since
//! what they do is the server's business).

use super::{Access, Outcome, ToolError, ToolSpec};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, ContentBlock};
use rmcp::service::{Peer, RunningService, ServiceExt};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Separates a server's name from its tool's in the name the model sees.
pub const SEPARATOR: char = '.';

/// Lines of a server's stderr kept to explain why it failed.
const STDERR_LINES: usize = 8;

/// One `[mcp.NAME]` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// How long it may take to start and list its tools.
    pub startup_timeout: Duration,
}

/// A tool of a running server, as offered (`server.tool`) and as called.
#[derive(Clone)]
pub struct McpTool {
    pub server: String,
    /// The tool's own name on its server.
    pub tool: String,
    pub spec: ToolSpec,
    required: Vec<String>,
    peer: Peer<RoleClient>,
    stderr: Arc<Tail>,
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool")
            .field("server", &self.server)
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

/// A checked call of an MCP tool.
#[derive(Debug, Clone)]
pub struct McpCall {
    tool: McpTool,
    args: Map<String, Value>,
}

enum State {
    NotStarted,
    Running(Running),
    Failed(String),
}

/// A started server. Dropping it ends the service and the child process.
struct Running {
    service: RunningService<RoleClient, ()>,
    tools: Vec<McpTool>,
    /// The last lines it wrote to stderr, to explain a failure.
    stderr: Arc<Tail>,
}

struct Server {
    cfg: ServerConfig,
    state: State,
}

/// What happened when servers were started or checked, for the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Started { server: String, tools: usize },
    Failed { server: String, error: String },
}

/// The configured servers and their state. Owned by the session actor.
#[derive(Default)]
pub struct Hub {
    servers: Vec<Server>,
}

impl Hub {
    pub fn new(configs: Vec<ServerConfig>) -> Hub {
        Hub {
            servers: configs
                .into_iter()
                .map(|cfg| Server {
                    cfg,
                    state: State::NotStarted,
                })
                .collect(),
        }
    }

    /// Some server has not been started yet.
    pub fn has_unstarted(&self) -> bool {
        self.servers
            .iter()
            .any(|s| matches!(s.state, State::NotStarted))
    }

    /// Start every server not started yet, side by side, each within its time limit.
    pub async fn start(&mut self) -> Vec<Event> {
        let pending: Vec<(usize, ServerConfig)> = self
            .servers
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s.state, State::NotStarted))
            .map(|(i, s)| (i, s.cfg.clone()))
            .collect();
        let started =
            futures_util::future::join_all(pending.into_iter().map(|(i, cfg)| async move {
                let name = cfg.name.clone();
                (i, name, start_one(cfg).await)
            }))
            .await;
        let mut events = Vec::new();
        for (i, server, result) in started {
            self.servers[i].state = match result {
                Ok(running) => {
                    tracing::info!(%server, tools = running.tools.len(), "MCP server started");
                    events.push(Event::Started {
                        server,
                        tools: running.tools.len(),
                    });
                    State::Running(running)
                }
                Err(error) => {
                    tracing::warn!(%server, %error, "MCP server failed to start");
                    events.push(Event::Failed {
                        server,
                        error: error.clone(),
                    });
                    State::Failed(error)
                }
            };
        }
        events
    }

    /// Servers that stopped since the last look: reported once, their tools withdrawn.
    pub async fn reap(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        for s in &mut self.servers {
            // Asked of the service itself: a server that offers no tools is reaped too.
            if let State::Running(r) = &s.state
                && r.service.peer().is_transport_closed()
            {
                let error = stopped(&r.stderr).await;
                tracing::warn!(server = %s.cfg.name, %error, "MCP server stopped");
                events.push(Event::Failed {
                    server: s.cfg.name.clone(),
                    error: error.clone(),
                });
                s.state = State::Failed(error);
            }
        }
        events
    }

    /// The tools of the running servers, in the order the config lists them.
    pub fn tools(&self) -> Vec<McpTool> {
        self.servers
            .iter()
            .flat_map(|s| match &s.state {
                State::Running(r) => r.tools.clone(),
                _ => Vec::new(),
            })
            .collect()
    }

    /// Why a call naming `server.tool` cannot run, when the server is not up.
    pub fn unavailable(&self, name: &str) -> Option<ToolError> {
        let (server, _) = name.split_once(SEPARATOR)?;
        let s = self.servers.iter().find(|s| s.cfg.name == server)?;
        match &s.state {
            State::Running(_) => None,
            State::NotStarted => Some(ToolError::Failed(format!(
                "the MCP server {server:?} has not been started"
            ))),
            State::Failed(e) => Some(ToolError::Failed(format!(
                "the MCP server {server:?} is not running ({e})"
            ))),
        }
    }
}

/// Spawn the server, shake hands, list its tools.
async fn start_one(cfg: ServerConfig) -> Result<Running, String> {
    let mut cmd = tokio::process::Command::new(cmd_path(&cfg.command));
    cmd.args(&cfg.args).envs(&cfg.env);
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", cfg.command))?;
    // The app's own child: what a killed supervisor leaves is swept, this never is.
    if let Some(pid) = transport.id() {
        super::orphans::own(pid);
    }
    let tail = Arc::new(Tail::default());
    match stderr {
        Some(stderr) => drop(tokio::spawn(keep_stderr(
            cfg.name.clone(),
            stderr,
            tail.clone(),
        ))),
        None => tail.close(),
    }
    let handshake = async {
        let service = ().serve(transport).await.map_err(|e| e.to_string())?;
        let listed = service
            .peer()
            .list_all_tools()
            .await
            .map_err(|e| format!("listing its tools failed: {e}"))?;
        Ok::<_, String>((service, listed))
    };
    let (service, listed) = match tokio::time::timeout(cfg.startup_timeout, handshake).await {
        Ok(Ok(done)) => done,
        Ok(Err(e)) => return Err(with_stderr(e, tail.last_words().await)),
        Err(_) => {
            return Err(with_stderr(
                format!(
                    "it did not answer within {} s",
                    cfg.startup_timeout.as_secs_f64()
                ),
                tail.last(),
            ));
        }
    };
    let peer = service.peer().clone();
    let tools = listed
        .into_iter()
        .map(|t| {
            let name = format!("{}{SEPARATOR}{}", cfg.name, t.name);
            let schema = Value::Object((*t.input_schema).clone());
            let required = schema["required"]
                .as_array()
                .map(|r| {
                    r.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            McpTool {
                server: cfg.name.clone(),
                tool: t.name.to_string(),
                spec: ToolSpec {
                    name: name.clone(),
                    access: Access::Execute,
                    schema: json!({
                        "type": "function",
                        "function": {
                            "name": name,
                            "description": t.description.as_deref().unwrap_or(""),
                            "parameters": schema,
                        }
                    }),
                    need: crate::core::engine::Need::Always,
                },
                required,
                peer: peer.clone(),
                stderr: tail.clone(),
            }
        })
        .collect();
    Ok(Running {
        service,
        tools,
        stderr: tail,
    })
}

/// A bare program name as written; `~/` expanded (config files are written by hand).
fn cmd_path(command: &str) -> std::path::PathBuf {
    match (command.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => std::path::Path::new(&home).join(rest),
        _ => std::path::PathBuf::from(command),
    }
}

/// The last lines a server wrote to stderr, and whether that stream has ended.
struct Tail {
    lines: Mutex<VecDeque<String>>,
    closed: tokio::sync::watch::Sender<bool>,
}

impl Default for Tail {
    fn default() -> Tail {
        Tail {
            lines: Mutex::new(VecDeque::new()),
            closed: tokio::sync::watch::Sender::new(false),
        }
    }
}

impl Tail {
    fn push(&self, line: String) {
        let mut t = self
            .lines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if t.len() == STDERR_LINES {
            t.pop_front();
        }
        t.push_back(line);
    }

    fn close(&self) {
        self.closed.send_replace(true);
    }

    /// The last line, once the stream has ended (or after a second): a server that
    /// just died may still have its last words in the pipe when its death is noticed.
    async fn last_words(&self) -> Option<String> {
        let mut closed = self.closed.subscribe();
        let _ = tokio::time::timeout(Duration::from_secs(1), closed.wait_for(|c| *c)).await;
        self.last()
    }

    fn last(&self) -> Option<String> {
        let t = self
            .lines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        t.back()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
    }
}

async fn keep_stderr(server: String, stderr: tokio::process::ChildStderr, tail: Arc<Tail>) {
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(%server, stderr = %line, "MCP server");
        tail.push(line);
    }
    tail.close();
}

fn with_stderr(error: String, last: Option<String>) -> String {
    match last {
        Some(last) => format!("{error}; it said: {last}"),
        None => error,
    }
}

/// Why a server is gone, with the last thing it said.
async fn stopped(tail: &Tail) -> String {
    with_stderr("it stopped".to_string(), tail.last_words().await)
}

impl McpTool {
    /// Check a call's arguments: a JSON object holding what the tool requires (the
    /// server checks the rest).
    pub fn prepare(&self, args: &str) -> Result<McpCall, ToolError> {
        let value: Value = if args.trim().is_empty() {
            Value::Object(Map::new())
        } else {
            serde_json::from_str(args.trim())
                .map_err(|e| ToolError::BadArgs(format!("not JSON ({e})")))?
        };
        let Value::Object(args) = value else {
            return Err(ToolError::BadArgs("expected a JSON object".into()));
        };
        let missing: Vec<&str> = self
            .required
            .iter()
            .filter(|r| !args.contains_key(r.as_str()))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(ToolError::BadArgs(format!(
                "missing {}",
                missing.join(", ")
            )));
        }
        Ok(McpCall {
            tool: self.clone(),
            args,
        })
    }
}

impl McpCall {
    /// For the approval dialog: which server, which tool, with what.
    pub fn preview(&self) -> String {
        let args =
            serde_json::to_string_pretty(&Value::Object(self.args.clone())).unwrap_or_default();
        format!(
            "MCP server {:?}, tool {:?}\n{args}",
            self.tool.server, self.tool.tool
        )
    }

    /// Call it; a server that does not answer within `timeout` is an error (the call is
    /// abandoned, the server left running).
    pub async fn run(self, timeout: Duration, limit: usize) -> Outcome {
        let params =
            CallToolRequestParams::new(self.tool.tool.clone()).with_arguments(self.args.clone());
        let server = &self.tool.server;
        match tokio::time::timeout(timeout, self.tool.peer.call_tool(params)).await {
            Err(_) => Outcome::error(&ToolError::Failed(format!(
                "the MCP server {server:?} did not answer within {} s",
                timeout.as_secs_f64()
            ))),
            Ok(Err(e)) if self.tool.peer.is_transport_closed() => {
                Outcome::error(&ToolError::Failed(format!(
                    "the MCP server {server:?} stopped ({}; {e})",
                    stopped(&self.tool.stderr).await
                )))
            }
            Ok(Err(e)) => Outcome::error(&ToolError::Failed(format!(
                "the MCP server {server:?} refused the call: {e}"
            ))),
            Ok(Ok(result)) => {
                let mut text = result
                    .content
                    .iter()
                    .map(content_text)
                    .collect::<Vec<_>>()
                    .join("\n");
                if text.is_empty()
                    && let Some(v) = &result.structured_content
                {
                    text = v.to_string();
                }
                let text = super::cap(text, limit, "the server's answer was longer");
                if result.is_error == Some(true) {
                    Outcome {
                        text: format!("Error: {text}"),
                        is_error: true,
                    }
                } else {
                    Outcome::ok(text)
                }
            }
        }
    }
}

/// A content block as text: text as it is, anything else named by its kind.
fn content_text(block: &ContentBlock) -> String {
    match block.as_text() {
        Some(t) => t.text.clone(),
        None => match serde_json::to_value(block) {
            Ok(v) => format!(
                "[{} content not shown]",
                v["type"].as_str().unwrap_or("other")
            ),
            Err(_) => "[content not shown]".to_string(),
        },
    }
}
