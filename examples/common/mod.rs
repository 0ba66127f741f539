//! What the probe examples (`recall_probe`, `tool_rate`) share: a session through the real
//! actor with tools in read mode, and one turn sent and waited for. Kept here, not in the
//! library, because only measuring programs want timeouts this long.
//!
//! Cargo does not take `examples/common/mod.rs` for an example of its own (only a
//! directory's `main.rs`), so each probe includes it with `mod common;`.

use ollm_tui::actor::{self, ActorConfig, Command, Parts, SessionHandle, StoreSlot, ToolsConfig};
use ollm_tui::core::engine::{Engine, EngineConfig, Request, SessionSpec};
use ollm_tui::core::mode::Mode;
use ollm_tui::core::prompts::Prompts;
use ollm_tui::core::tokens::Tiktoken;
use ollm_tui::llm::{ChatBackend, OllamaOptions};
use ollm_tui::store::MemoryStore;
use ollm_tui::tools::{Approvals, Limits, Sandbox, ToolMode};
use ollm_tui::view::{Activity, SessionView};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// Timeouts for a small model on a CPU: a first token can take minutes when a long
/// prompt is read cold, and the app's defaults are set for a person watching.
pub fn patient(request: Duration) -> OllamaOptions {
    OllamaOptions {
        first_token_timeout: Duration::from_secs(600),
        idle_timeout: Duration::from_secs(120),
        request_timeout: request,
        ..OllamaOptions::default()
    }
}

/// Which session to start, against which server.
pub struct Session<'a> {
    pub id: String,
    pub host: &'a str,
    pub model: &'a str,
    pub ctx: Option<u32>,
    /// The sandbox the tools work in.
    pub dir: &'a Path,
}

/// A session through the actor, tools in read mode: reading runs unasked, anything else
/// would wait for a person (nobody answers here).
pub fn reading_session<B: ChatBackend>(
    s: Session<'_>,
    backend: B,
    tok: Arc<Tiktoken>,
) -> Result<actor::Spawned<MemoryStore>, Box<dyn std::error::Error>> {
    let engine = Engine::new(
        SessionSpec {
            session_id: s.id.clone(),
            model: s.model.to_string(),
            mode: Mode::Assistant,
            ctx: s.ctx,
            params: Default::default(),
        },
        EngineConfig::default(),
        tok,
        Arc::new(Prompts::builtin()),
        chrono::Utc::now(),
    );
    let header = engine.header(&s.id);
    Ok(actor::spawn(Parts {
        backend,
        summary_backend: None,
        engine: Box::new(move || engine),
        store: StoreSlot::Open(MemoryStore::new(header)),
        config: ActorConfig {
            host: s.host.to_string(),
            tools: Some(ToolsConfig {
                sandbox: Sandbox::new(s.dir)?,
                approvals: Approvals::new(ToolMode::Read, Default::default()),
                limits: Limits::default(),
                mcp: Vec::new(),
                env: Default::default(),
            }),
            ..ActorConfig::default()
        },
        model: None,
    }))
}

/// Send `text` and wait (at most `limit`) until its turn is over: the history grew by
/// at least the message and a reply, and the session is idle. The seconds it took.
pub async fn turn(
    handle: &SessionHandle,
    view: &mut watch::Receiver<Arc<SessionView>>,
    text: &str,
    limit: Duration,
) -> Result<f64, Box<dyn std::error::Error>> {
    let started = Instant::now();
    let want = view.borrow().status.history_messages + 2;
    handle
        .send(Command::from(Request::Send {
            text: text.into(),
            images: Vec::new(),
        }))
        .await?;
    let _ = tokio::time::timeout(
        limit,
        view.wait_for(|v| v.status.history_messages >= want && v.activity == Activity::Idle),
    )
    .await;
    Ok(started.elapsed().as_secs_f64())
}
