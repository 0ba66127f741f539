//! The model server as the session holds it: the backends (the chat server, and the one
//! that writes summaries), what the connection is now and when it is tried again, what the
//! model can do, and how chats are asked (temperature, `think`, the repetition limit).
//!
//! The part [`Link`] keeps those facts and the rules over them: an unreachable server is
//! retried with a doubling delay (up to 30 s), `think` is sent only to a model that can
//! think, the loaded window is asked of the server once per model and size. Checking the
//! server and switching models feed the engine, so they run in `connect.rs`.

use super::ActorConfig;
use super::command::PullEvent;
use super::summarizer::BackendSummarizer;
use crate::llm::{ChatBackend, Think};
use crate::view::Connection;
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Longest wait between reconnect attempts.
const RECONNECT_MAX: Duration = Duration::from_secs(30);

/// The connection to the model server and what the session knows of it.
pub(super) struct Link<B> {
    backend: Arc<B>,
    /// Where summaries are made: the chat server, or a separate one (`summary_host`).
    summary_backend: Arc<B>,
    /// Server address, for messages.
    host: String,
    connection: Connection,
    reconnect_at: Option<tokio::time::Instant>,
    reconnect_delay: Duration,
    /// The first delay, again once connected.
    reconnect_after: Duration,
    /// The (model, num_ctx) whose loaded context was already confirmed via `/api/ps`.
    loaded_checked: Option<(String, u32)>,
    /// The model has the `tools` capability (`/api/show`).
    tools_capable: bool,
    /// The model has the `thinking` capability: `think` is sent only then.
    thinking_capable: bool,
    /// The model sees pictures (`vision` in `/api/show`): only then are they attached.
    vision_capable: bool,
    /// `think` from the settings (`--think`, the config), for a session that set none of
    /// its own (`/think` is the engine's: `SessionParams::think`); `None`: the model's.
    think: Option<Think>,
    temperature: Option<f32>,
    /// The model that writes summaries; `None`: the chat model.
    summary_model: Option<String>,
    /// Repeats of the same lines that stop a reply; 0: never.
    repeat_limit: usize,
}

impl<B: ChatBackend> Link<B> {
    /// The link as the actor's settings make it; `think` is the settings' (a session's own
    /// `/think` is read from the engine each time a request is built: [`Link::think`]).
    pub fn new(
        backend: Arc<B>,
        summary_backend: Arc<B>,
        config: &ActorConfig,
        think: Option<Think>,
    ) -> Self {
        Link {
            backend,
            summary_backend,
            host: config.host.clone(),
            connection: Connection::Connecting,
            reconnect_at: None,
            reconnect_delay: config.reconnect_after,
            reconnect_after: config.reconnect_after,
            loaded_checked: None,
            tools_capable: false,
            thinking_capable: false,
            vision_capable: false,
            think,
            temperature: config.temperature,
            summary_model: config.summary_model.clone(),
            repeat_limit: config.repeat_limit,
        }
    }

    pub fn backend(&self) -> &Arc<B> {
        &self.backend
    }

    pub fn host(&self) -> &str {
        &self.host
    }

    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    pub fn set_connection(&mut self, c: Connection) {
        self.connection = c;
    }

    /// When the server is tried again, if it is to be.
    pub fn reconnect_at(&self) -> Option<tokio::time::Instant> {
        self.reconnect_at
    }

    /// A check of the server begins: the retry it replaces is off.
    pub fn checking(&mut self) {
        self.reconnect_at = None;
    }

    /// Connected: the next loss is retried soon again.
    pub fn connected(&mut self, version: String) {
        self.connection = Connection::Connected { version };
        self.reconnect_delay = self.reconnect_after;
    }

    /// The check failed: an unreachable server is tried again later, each time later.
    pub fn check_failed(&mut self, conn: Connection) {
        if matches!(conn, Connection::Unreachable { .. }) {
            self.reconnect_at = Some(tokio::time::Instant::now() + self.reconnect_delay);
            self.reconnect_delay = (self.reconnect_delay * 2).min(RECONNECT_MAX);
        }
        self.connection = conn;
    }

    /// A request found the server gone: tried again after the current delay.
    pub fn lost(&mut self, url: String, error: String) {
        self.connection = Connection::Unreachable { url, error };
        self.reconnect_at = Some(tokio::time::Instant::now() + self.reconnect_delay);
    }

    /// What the model can do, from `/api/show`: tools are offered and `think` is sent only
    /// to models that have them.
    pub fn learn_capabilities(&mut self, capabilities: &[String]) {
        self.tools_capable = capabilities.iter().any(|c| c == "tools");
        self.thinking_capable = capabilities.iter().any(|c| c == "thinking");
        self.vision_capable = capabilities.iter().any(|c| c == "vision");
    }

    pub fn vision_capable(&self) -> bool {
        self.vision_capable
    }

    pub fn tools_capable(&self) -> bool {
        self.tools_capable
    }

    pub fn thinking_capable(&self) -> bool {
        self.thinking_capable
    }

    /// The `think` in force: the session's own word (`/think`, the engine's setting), else
    /// the settings'; `None`: the model's default.
    pub fn think(&self, session: Option<&str>) -> Option<Think> {
        session.and_then(Think::parse).or(self.think)
    }

    /// `think` as a chat request sends it: only to a model that can think.
    pub fn think_for_chat(&self, session: Option<&str>) -> Option<Think> {
        self.think(session).filter(|_| self.thinking_capable)
    }

    pub fn temperature(&self) -> Option<f32> {
        self.temperature
    }

    pub fn repeat_limit(&self) -> usize {
        self.repeat_limit
    }

    /// Whether the window `model` is loaded with still needs confirming at `num_ctx`
    /// (asked once per model and size); marks it asked.
    pub fn first_check_of(&mut self, model: &str, num_ctx: u32) -> bool {
        let key = (model.to_string(), num_ctx);
        if self.loaded_checked.as_ref() == Some(&key) {
            return false;
        }
        self.loaded_checked = Some(key);
        true
    }

    /// The window `model` is loaded with on the server now (`/api/ps`), if it is loaded
    /// and the server says. Older servers have no `/api/ps`: nothing to learn then.
    pub async fn loaded_window(&self, model: &str) -> Option<u32> {
        let loaded = self.backend.loaded_models().await.ok()?;
        loaded
            .iter()
            .find(|m| same_model(&m.name, model))
            .and_then(|m| m.context_length)
    }

    /// `/pull NAME` on the chat server, on a task of its own: each line goes to `lines`
    /// until the pull ends or nobody listens any more (the stream is dropped at once then,
    /// so the server sees the client leave).
    pub fn pull(&self, name: String, lines: mpsc::UnboundedSender<PullEvent>) {
        let backend = self.backend.clone();
        tokio::spawn(async move {
            let mut stream = tokio::select! {
                s = backend.pull(&name) => match s {
                    Ok(s) => s,
                    Err(e) => {
                        let _ = lines.send(PullEvent::Failed(e.to_string()));
                        return;
                    }
                },
                () = lines.closed() => return,
            };
            loop {
                let item = tokio::select! {
                    item = stream.next() => item,
                    () = lines.closed() => return,
                };
                let Some(item) = item else { return };
                let event = match item {
                    Ok(line) => PullEvent::Line(line),
                    Err(e) => PullEvent::Failed(e.to_string()),
                };
                if lines.send(event).is_err() {
                    return;
                }
            }
        });
    }

    /// The summarizer of this session: the summary model on the summary server, with the
    /// chat's window (the same `num_ctx` keeps a shared model from reloading; a plan's
    /// inputs are made to fit it).
    pub fn summarizer(&self, chat_model: &str, num_ctx: u32) -> BackendSummarizer<B> {
        let own = self.summary_model.is_none();
        BackendSummarizer {
            backend: self.summary_backend.clone(),
            model: self
                .summary_model
                .clone()
                .unwrap_or_else(|| chat_model.to_string()),
            num_ctx,
            // A thinking model would spend the summary's token cap reasoning. Only the
            // chat model's capabilities are known; `think` for another model is left out
            // (Ollama refuses it for models that cannot think).
            think: (own && self.thinking_capable).then_some(Think::Off),
            loading: Default::default(),
        }
    }
}

/// Whether two model names mean the same model (`llama3.2` is `llama3.2:latest`): for the
/// chat model here and the embedding model in `vectors.rs`.
pub(super) fn same_model(a: &str, b: &str) -> bool {
    let full = |n: &str| {
        if n.contains(':') {
            n.to_string()
        } else {
            format!("{n}:latest")
        }
    };
    full(a) == full(b)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_name_without_a_tag_is_latest() {
        assert!(super::same_model("llama3.2", "llama3.2:latest"));
        assert!(super::same_model("qwen2.5:7b", "qwen2.5:7b"));
        assert!(!super::same_model("qwen2.5:7b", "qwen2.5:latest"));
    }
}
