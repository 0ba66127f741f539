//! The connection to the model server: check it, learn the model (the newest installed
//! one when none is set), and say plainly what is wrong when something is. An unreachable
//! server is retried with a doubling delay (up to 30 s); a missing model waits for the
//! person (pull it, or pick another).

use super::driver::Actor;
use crate::core::engine::Input;
use crate::llm::{ChatBackend, LlmError};
use crate::store::SessionStore;
use crate::view::{Connection, Update};
use crate::view::{Found, Notice};
use std::time::Duration;

/// Longest wait between reconnect attempts.
const RECONNECT_MAX: Duration = Duration::from_secs(30);

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    pub(super) async fn connect(&mut self) {
        let was = self.connection.clone();
        self.connection = Connection::Connecting;
        self.publish();
        let result = self.try_connect().await;
        self.reconnect_at = None;
        match result {
            Ok(version) => {
                self.connection = Connection::Connected {
                    version: version.clone(),
                };
                self.reconnect_delay = self.cfg.reconnect_after;
                if !matches!(was, Connection::Connecting | Connection::Connected { .. }) {
                    self.send(Update::ClearBanner);
                    self.notice(Notice::Connected {
                        version,
                        host: self.cfg.host.clone(),
                    });
                }
            }
            Err(conn) => {
                if conn != was {
                    match &conn {
                        Connection::Unreachable { url, error } => {
                            self.banner(Notice::Unreachable {
                                url: url.clone(),
                                error: error.clone(),
                            })
                        }
                        Connection::ModelMissing { model } => self.banner(Notice::ModelMissing {
                            model: model.clone(),
                            found: Found::Connecting,
                        }),
                        Connection::NoModels => self.banner(Notice::NoModels),
                        _ => {}
                    }
                }
                if matches!(conn, Connection::Unreachable { .. }) {
                    self.reconnect_at = Some(tokio::time::Instant::now() + self.reconnect_delay);
                    self.reconnect_delay = (self.reconnect_delay * 2).min(RECONNECT_MAX);
                }
                self.connection = conn;
            }
        }
        self.publish();
    }

    async fn try_connect(&mut self) -> Result<String, Connection> {
        let unreachable = |e: LlmError| Connection::Unreachable {
            url: self.cfg.host.clone(),
            error: match &e {
                LlmError::Unreachable { cause, .. } => cause.clone(),
                other => other.to_string(),
            },
        };
        let version = self.backend.version().await.map_err(unreachable)?;
        if self.engine.model().is_empty() {
            let models = self.backend.list_models().await.map_err(unreachable)?;
            let newest = models
                .iter()
                .max_by_key(|m| m.modified_at)
                .map(|m| m.name.clone());
            let Some(name) = newest else {
                return Err(Connection::NoModels);
            };
            self.apply(Input::SetModel { name });
        }
        let model = self.engine.model().to_string();
        match self.backend.show_model(&model).await {
            Ok(info) => {
                self.learn_capabilities(&info.capabilities);
                let server_ctx = self.loaded_window(&model).await;
                self.apply(Input::ModelInfo {
                    context_length: info.context_length,
                    parameter_size: info.parameter_size,
                    server_ctx,
                });
                Ok(version)
            }
            Err(LlmError::ModelNotFound { model }) => Err(Connection::ModelMissing { model }),
            Err(e) => Err(Connection::Unreachable {
                url: self.cfg.host.clone(),
                error: e.to_string(),
            }),
        }
    }

    /// What the model can do, from `/api/show`: tools are offered and `think` is sent only
    /// to models that have them.
    fn learn_capabilities(&mut self, capabilities: &[String]) {
        self.tools_capable = capabilities.iter().any(|c| c == "tools");
        self.thinking_capable = capabilities.iter().any(|c| c == "thinking");
    }

    /// `/model NAME`: check it exists, switch, and reconnect if the old one was missing.
    pub(super) async fn set_model(&mut self, name: String) {
        match self.backend.show_model(&name).await {
            Ok(info) => {
                self.learn_capabilities(&info.capabilities);
                let server_ctx = self.loaded_window(&name).await;
                self.apply(Input::SetModel { name: name.clone() });
                self.apply(Input::ModelInfo {
                    context_length: info.context_length,
                    parameter_size: info.parameter_size,
                    server_ctx,
                });
                if matches!(
                    self.connection,
                    Connection::ModelMissing { .. } | Connection::NoModels
                ) {
                    self.connection = Connection::Connecting;
                    self.send(Update::ClearBanner);
                    self.connect().await;
                }
                self.notice(Notice::ModelSwitched {
                    name,
                    ctx: self.engine.ctx(),
                });
            }
            Err(error) => self.banner(Notice::ModelSwitchFailed { name, error }),
        }
    }

    /// The window `model` is loaded with on the server now (`/api/ps`), if it is loaded
    /// and the server says. Older servers have no `/api/ps`: nothing to learn then.
    pub(super) async fn loaded_window(&mut self, model: &str) -> Option<u32> {
        let loaded = self.backend.loaded_models().await.ok()?;
        loaded
            .iter()
            .find(|m| same_model(&m.name, model))
            .and_then(|m| m.context_length)
    }
}

/// Whether two model names mean the same model (`llama3.2` is `llama3.2:latest`).
fn same_model(a: &str, b: &str) -> bool {
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
