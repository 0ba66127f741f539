//! The session actor (Alice Ryhl's "Actors with Tokio"): a cheap, cloneable
//! [`SessionHandle`] sends [`Command`]s over a bounded channel to one task that owns all
//! conversation state — the engine, the store, the connection to the model server.
//!
//! The actor is the engine's driver: commands become engine inputs, and it carries out
//! the effects that come back (append, sync, save a snapshot, stream a reply, run a
//! compression), owning all the I/O. Read-only commands (snapshot and model lists, the
//! inspector, export) are answered at once, also while a reply streams or a compression
//! runs; other commands wait until the turn is over. Stop ends a reply or compression at
//! once. A compression between turns runs as its own task (`background`), so the person
//! can send meanwhile.
//!
//! The UI never touches that state. It renders what the actor publishes: a
//! `watch<Arc<SessionView>>` with the latest status and a stream of [`Update`]s
//! (transcript changes, reply deltas, typed notices — the app words them). Publishing
//! never blocks the actor. Dropping every handle lets the actor finish what is queued,
//! sync, and return its state (which is how tests observe it, deterministically).
//!
//! The state is in parts, each a struct whose fields are private to the file that runs
//! it; the driver holds them and hands each step the parts it needs:
//! `link` (the model server: backends, connection, capabilities, how chats are asked),
//! `publish` (what the UI gets: updates, the view, the banner in force), `inbox` (commands,
//! and those that wait their turn), `persist` (the records on their way to disk, over
//! `store`'s session file created on first use), `toolbox` (the tools, MCP servers, the
//! offer), `background` (the compression between turns), `title` (the title asked once),
//! `vectors` (recall by meaning: the embedding model, the folded sentences embedded
//! between turns).
//! `transcript` is the transcript sent from the engine's state.
//!
//! Files that run the actor: `driver` (the loop, effects, listening while busy), and the
//! executors it calls, which listen while they run and import nothing the driver imports
//! back: `reply`, `compress`, `tools` and `digest` (the long-running effects), `recall`
//! (the person's message embedded before a request, the embedding model picked), `connect`
//! (the server), `answers` (read-only commands, snapshot lookups), `pictures` (a
//! picture attached: checked, stored, refused for a model that cannot see; on resume,
//! the stored ones checked). Beside them: `command`,
//! `summarizer`, `repetition` (the guard that stops a reply repeating itself). What the UI
//! gets is in `crate::view`.

mod answers;
mod background;
mod check;
pub mod command;
mod compress;
mod connect;
mod describe;
mod digest;
mod driver;
mod folder;
mod inbox;
mod link;
mod persist;
mod pictures;
mod publish;
mod read_through;
mod recall;
pub mod repetition;
mod reply;
pub mod store;
pub mod summarizer;
mod title;
mod toolbox;
mod tools;
mod transcript;
mod vectors;

pub use crate::llm::EmbeddingChoice;
pub use check::CheckReport;
pub use command::{
    Approval, Ask, AttachRefused, Command, Forked, Inspection, PullEvent, ResultInspection,
    SessionChange, SessionChanged, SessionListing,
};
pub use store::{LazyStore, StoreFactory, StoreSlot};

use crate::core::engine::Engine;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use crate::view::{Activity, Connection, SessionView, Update};
use std::sync::Arc;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

/// Commands queued before senders wait: enough for bursts of keys, small enough to push
/// back on a stuck actor.
const COMMAND_QUEUE: usize = 64;

/// Sends commands to a session actor. Clone freely.
#[derive(Debug, Clone)]
pub struct SessionHandle {
    tx: mpsc::Sender<Command>,
}

/// The actor has stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the session has stopped")]
pub struct Closed;

impl SessionHandle {
    pub async fn send(&self, cmd: Command) -> Result<(), Closed> {
        self.tx.send(cmd).await.map_err(|_| Closed)
    }

    /// For the UI thread: never waits. A full queue means the actor is stuck; the command
    /// is refused rather than freezing the screen.
    pub fn try_send(&self, cmd: Command) -> Result<(), Closed> {
        self.tx.try_send(cmd).map_err(|_| Closed)
    }
}

/// Settings of the actor that are not the engine's.
#[derive(Debug, Clone)]
pub struct ActorConfig {
    /// Server address, for messages.
    pub host: String,
    /// Sampling temperature for chat (the config file's); `None` = the model's default.
    /// A session's own (`/set temperature`, in the engine's `params`) wins over it.
    pub temperature: Option<f32>,
    /// The model that writes summaries (`summary_model`); `None`: the chat model.
    pub summary_model: Option<String>,
    /// Automatic (recovery) snapshots kept per session.
    pub keep_auto_snapshots: usize,
    /// First retry after the server was unreachable; doubles up to 30 s.
    pub reconnect_after: std::time::Duration,
    pub app_version: String,
    /// Where records the session log could not take are written at exit.
    pub rescue_dir: std::path::PathBuf,
    /// The data folder whose sessions the browser lists and `/search` searches; `None`:
    /// not kept on disk.
    pub data_dir: Option<crate::store::DataDir>,
    /// Tools the model may call; `None`: none.
    pub tools: Option<ToolsConfig>,
    /// `think` for thinking models; `None`: the model's default.
    pub think: Option<crate::llm::Think>,
    /// A reply repeating the same lines this many times in a row is stopped
    /// (`repetition.rs`); 0: never.
    pub repeat_limit: usize,
    /// Which model makes the vectors of recall by meaning (`[recall] embedding_model`).
    pub embedding: EmbeddingChoice,
}

/// The tools of a session: where they work and who decides.
#[derive(Debug, Clone)]
pub struct ToolsConfig {
    pub sandbox: crate::tools::Sandbox,
    pub approvals: crate::tools::Approvals,
    pub limits: crate::tools::Limits,
    /// MCP servers, started when tools are first offered.
    pub mcp: Vec<crate::tools::mcp::ServerConfig>,
    /// The person's umask and the command supervisor.
    pub env: crate::tools::ToolEnv,
}

impl Default for ActorConfig {
    fn default() -> Self {
        ActorConfig {
            host: crate::llm::DEFAULT_HOST.to_string(),
            temperature: None,
            summary_model: None,
            keep_auto_snapshots: 5,
            reconnect_after: std::time::Duration::from_secs(2),
            app_version: env!("CARGO_PKG_VERSION").to_string(),
            rescue_dir: std::env::temp_dir(),
            data_dir: None,
            tools: None,
            think: None,
            repeat_limit: repetition::DEFAULT_REPEAT_LIMIT,
            embedding: EmbeddingChoice::Auto,
        }
    }
}

/// What the actor hands back when it stops (tests inspect it).
pub struct ActorExit<S> {
    pub engine: Engine,
    /// The session's store, if it was created.
    pub store: Option<S>,
    /// Records the session log could not take, if any: where they went instead.
    pub rescued: Option<Rescued>,
}

/// Records written to a rescue file at exit because the session log refused them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rescued {
    pub records: usize,
    /// The rescue file (a session log: the header, then the records), or why it could
    /// not be written.
    pub to: Result<std::path::PathBuf, String>,
}

/// Everything the UI side gets from [`spawn`].
pub struct Spawned<S> {
    pub handle: SessionHandle,
    pub updates: mpsc::UnboundedReceiver<Update>,
    pub view: watch::Receiver<Arc<SessionView>>,
    pub task: JoinHandle<ActorExit<S>>,
}

/// What a session starts from. `engine` is built by a closure that runs on a blocking
/// thread (tokenizer tables load in 60–260 ms; replay of a long log takes a while), so
/// the first frame does not wait for it.
pub struct Parts<B, S> {
    pub backend: B,
    /// A separate server for summaries (`summary_host`); `None`: the chat server.
    pub summary_backend: Option<B>,
    pub engine: Box<dyn FnOnce() -> Engine + Send>,
    pub store: StoreSlot<S>,
    pub config: ActorConfig,
    /// A model to switch to once loaded (when it differs from the session's).
    pub model: Option<String>,
}

/// Start a session actor on the current tokio runtime.
pub fn spawn<B: ChatBackend, S: SessionStore>(parts: Parts<B, S>) -> Spawned<S> {
    let (tx, rx) = mpsc::channel(COMMAND_QUEUE);
    let (updates_tx, updates) = mpsc::unbounded_channel();
    let (view_tx, view) = watch::channel(Arc::new(SessionView {
        session_id: String::new(),
        host: parts.config.host.clone(),
        status: placeholder_status(),
        connection: Connection::Connecting,
        activity: Activity::Loading,
        background: None,
        unwritten: 0,
        checkpoints: Arc::default(),
        goals: Arc::default(),
        persisted: false,
        tools: crate::view::ToolsState::Off,
        queued: Vec::new(),
        sees_images: false,
    }));
    let task = tokio::spawn(async move {
        let Parts {
            backend,
            summary_backend,
            engine,
            store,
            config,
            model,
        } = parts;
        let engine = match tokio::task::spawn_blocking(engine).await {
            Ok(e) => e,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        };
        let store = LazyStore::new(store, engine.header(&config.app_version));
        let backend = Arc::new(backend);
        let summary_backend = summary_backend.map_or_else(|| backend.clone(), Arc::new);
        // Each part takes what it needs of the one settings value.
        let actor = driver::Actor {
            engine,
            link: link::Link::new(backend, summary_backend, &config, config.think),
            out: publish::Publisher::new(updates_tx, view_tx),
            inbox: inbox::Inbox::new(rx),
            disk: persist::Persistence::new(store, &config),
            tools: toolbox::Toolbox::new(config.tools),
            bg: background::Background::default(),
            title: title::Titler::default(),
            describer: Default::default(),
            checker: check::Checker::default(),
            vectors: vectors::Vectors::new(config.embedding),
        };
        actor.run(model).await
    });
    Spawned {
        handle: SessionHandle { tx },
        updates,
        view,
        task,
    }
}

fn placeholder_status() -> crate::core::engine::EngineStatus {
    use crate::core::budget::Budget;
    use crate::core::mode::{Mode, Tier};
    use crate::core::reliability::Reliability;
    use crate::core::tokens::Calibration;
    crate::core::engine::EngineStatus {
        model: String::new(),
        budget: Budget::default(),
        ctx_source: crate::core::budget::CtxSource::Fallback,
        tier: Tier::T1,
        mode: Mode::default(),
        compressions: 0,
        reliability: Reliability::measure(0, 0, 0),
        calibration: Calibration::default(),
        backoff: None,
        server_limit: None,
        checkpoints: 0,
        active_messages: 0,
        history_messages: 0,
        params: Default::default(),
        tools: Default::default(),
        summaries_off: false,
        recall: Default::default(),
        facts_missing: Vec::new(),
        image_tokens: None,
    }
}
