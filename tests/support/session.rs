//! A session actor driven from a test: the engine it starts from, and the handle's
//! commands with waits on the published view (never on time).

use ollm_tui::actor::{self, ActorExit, Command};
use ollm_tui::core::engine::{Engine, EngineConfig, Request, SessionSpec};
use ollm_tui::core::mode::Mode;
use ollm_tui::core::prompts::Prompts;
use ollm_tui::core::tokens::Tiktoken;
use ollm_tui::store::MemoryStore;
use ollm_tui::view::{Activity, Update};
use std::sync::{Arc, LazyLock};
use std::time::Duration;
use tokio::sync::mpsc;

pub static TOKENIZER: LazyLock<Arc<Tiktoken>> =
    LazyLock::new(|| Arc::new(Tiktoken::new().unwrap()));

pub fn engine(model: &str, ctx: Option<u32>) -> Engine {
    Engine::new(
        SessionSpec {
            session_id: "actor-test".into(),
            model: model.into(),
            mode: Mode::Assistant,
            ctx,
            params: Default::default(),
        },
        EngineConfig::default(),
        TOKENIZER.clone(),
        Arc::new(Prompts::builtin()),
        chrono::Utc::now(),
    )
}

pub struct Session {
    pub spawned: actor::Spawned<MemoryStore>,
}

impl Session {
    pub async fn cmd(&self, c: impl Into<Command>) {
        self.spawned.handle.send(c.into()).await.unwrap();
    }
    /// Wait until the session holds `n` messages and is idle (read-only commands are
    /// answered at once, ahead of queued ones: a test that asks about the state after
    /// some turns waits for them first). The timeout is a failsafe, not a measure: an
    /// endless reply read to its ceiling took over 30 s of a debug build beside CPU hogs.
    pub async fn wait_for_messages(&self, n: usize) {
        let mut view = self.spawned.view.clone();
        tokio::time::timeout(
            Duration::from_secs(180),
            view.wait_for(|v| v.status.history_messages >= n && v.activity == Activity::Idle),
        )
        .await
        .expect("the turns did not finish")
        .unwrap();
    }
    pub async fn say(&self, text: &str) {
        self.cmd(Request::Send {
            text: text.into(),
            images: Vec::new(),
        })
        .await;
    }
    /// Drop the handle and wait for the actor to finish everything queued.
    pub async fn finish(self) -> (ActorExit<MemoryStore>, Vec<Update>) {
        let Session { spawned } = self;
        let actor::Spawned {
            handle,
            mut updates,
            task,
            ..
        } = spawned;
        drop(handle);
        let exit = task.await.unwrap();
        (exit, drain(&mut updates))
    }
}

pub fn drain(rx: &mut mpsc::UnboundedReceiver<Update>) -> Vec<Update> {
    let mut out = Vec::new();
    while let Ok(u) = rx.try_recv() {
        out.push(u);
    }
    out
}
