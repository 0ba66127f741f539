//! The session actor (Alice Ryhl's "Actors with Tokio"): a cheap, cloneable
//! [`SessionHandle`] sends [`Command`]s over a bounded channel to one task that owns all
//! conversation state — the engine, the store, the connection to the model server.
//!
//! The UI never touches that state. It renders what the actor publishes: a
//! `watch<Arc<SessionView>>` with the latest status and a stream of [`Update`]s
//! (transcript changes, reply deltas, notices). Publishing never blocks the actor.
//! Dropping every handle lets the actor finish what is queued, sync, and return its state
//! (which is how tests observe it, deterministically).

pub mod command;
pub mod session;
pub mod summarizer;
pub mod view;

pub use command::Command;
pub use session::{ActorConfig, ActorExit, KeyHints, StoreFactory, StoreSlot, item_of};
pub use view::{Activity, Connection, Item, ItemKind, NoticeLevel, SessionView, Update};

use crate::core::engine::Engine;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use std::collections::VecDeque;
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
        checkpoints: Arc::default(),
        goals: Arc::default(),
        persisted: false,
    }));
    let task = tokio::spawn(async move {
        let Parts {
            backend,
            engine,
            store,
            config,
            model,
        } = parts;
        let engine = match tokio::task::spawn_blocking(engine).await {
            Ok(e) => e,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        };
        let reconnect = config.reconnect_after;
        let actor = session::Actor {
            backend,
            engine,
            store,
            cfg: config,
            rx,
            updates: updates_tx,
            view: view_tx,
            connection: Connection::Connecting,
            activity: Activity::Loading,
            deferred: VecDeque::new(),
            rx_closed: false,
            write_failing: false,
            transient_banner: false,
            unwritten: Vec::new(),
            reconnect_at: None,
            reconnect_delay: reconnect,
            checkpoints: Arc::default(),
            goals: Arc::default(),
            loaded_checked: None,
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
        tier: Tier::T1,
        mode: Mode::default(),
        compressions: 0,
        reliability: Reliability::compute(None, 0),
        calibration: Calibration::default(),
        backoff: None,
        server_limit: None,
        checkpoints: 0,
        active_messages: 0,
        history_messages: 0,
    }
}
