//! Checking the model server and switching models: learn the model (the newest installed
//! one when none is set; never a model that only makes embeddings) and what it can do,
//! and which model makes recall's vectors, tell the engine, and say plainly what is wrong
//! when something is. An unreachable server is retried (the delays are the
//! [`Link`](super::link::Link)'s); a missing model waits for the person (pull it, or pick
//! another). Also what a failed request says about the connection, and the check of the
//! window the model is really loaded with after a reply, and the link checked before
//! `/retry` sends again.

use super::driver::{Actor, Job};
use crate::core::engine::Input;
use crate::llm::{ChatBackend, LlmError, embedding_only};
use crate::store::SessionStore;
use crate::view::{Connection, Update};
use crate::view::{Found, Notice};

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    pub(super) async fn connect(&mut self) {
        let was = self.link.connection().clone();
        self.link.set_connection(Connection::Connecting);
        self.publish();
        let result = self.try_connect().await;
        self.link.checking();
        match result {
            Ok(version) => {
                self.link.connected(version.clone());
                if !matches!(was, Connection::Connecting | Connection::Connected { .. }) {
                    self.out.send(Update::ClearBanner);
                    self.out.notice(Notice::Connected {
                        version,
                        host: self.link.host().to_string(),
                    });
                }
            }
            Err(conn) => {
                if conn != was {
                    match &conn {
                        Connection::Unreachable { url, error } => {
                            self.out.banner(Notice::Unreachable {
                                url: url.clone(),
                                error: error.clone(),
                            })
                        }
                        Connection::ModelMissing { model } => {
                            self.out.banner(Notice::ModelMissing {
                                model: model.clone(),
                                found: Found::Connecting,
                            })
                        }
                        Connection::NoModels => self.out.banner(Notice::NoModels),
                        Connection::NotChat { model } => self.out.banner(Notice::NotChatModel {
                            model: model.clone(),
                        }),
                        _ => {}
                    }
                }
                self.link.check_failed(conn);
            }
        }
        self.publish();
    }

    async fn try_connect(&mut self) -> Result<String, Connection> {
        let host = self.link.host().to_string();
        let unreachable = |e: LlmError| Connection::Unreachable {
            url: host.clone(),
            error: match &e {
                LlmError::Unreachable { cause, .. } => cause.clone(),
                other => other.to_string(),
            },
        };
        let backend = self.link.backend().clone();
        let version = backend.version().await.map_err(unreachable)?;
        let mut installed = None;
        if self.engine.model().is_empty() {
            let models = backend.list_models().await.map_err(unreachable)?;
            // An embedding model (pulled last, for recall) is never the chat model.
            let newest = models
                .iter()
                .filter(|m| !embedding_only(&m.name, &m.capabilities))
                .max_by_key(|m| m.modified_at)
                .map(|m| m.name.clone());
            let Some(name) = newest else {
                return Err(Connection::NoModels);
            };
            self.apply(Input::SetModel { name });
            installed = Some(models);
        }
        let model = self.engine.model().to_string();
        match backend.show_model(&model).await {
            Ok(info) if embedding_only(&model, &info.capabilities) => {
                // Recall may still use it; the person picks a chat model.
                self.learn_embedder(installed).await;
                Err(Connection::NotChat { model })
            }
            Ok(info) => {
                self.link.learn_capabilities(&info.capabilities);
                let server_ctx = self.link.loaded_window(&model).await;
                self.apply(Input::ModelInfo {
                    context_length: info.context_length,
                    parameter_size: info.parameter_size,
                    server_ctx,
                    vision: self.link.vision_capable(),
                });
                // MCP servers start now, so that the first request offers their tools
                // (the app is open meanwhile); then the engine learns the whole offer.
                if !self.refresh_mcp().await {
                    self.offer_tools();
                }
                self.learn_embedder(installed).await;
                Ok(version)
            }
            Err(LlmError::ModelNotFound { model }) => Err(Connection::ModelMissing { model }),
            Err(e) => Err(Connection::Unreachable {
                url: host,
                error: e.to_string(),
            }),
        }
    }

    /// `CheckLink` (`/retry`): connect first when the server is not connected (the
    /// request that failed may have lost it); then the engine asks for the reply again.
    pub(super) async fn check_link(&mut self) -> Option<Job> {
        if !matches!(self.link.connection(), Connection::Connected { .. }) {
            self.connect().await;
        }
        let fx = self.engine.handle(Input::LinkChecked, chrono::Utc::now());
        self.execute(fx)
    }

    /// `/model NAME`: check it exists, switch, and reconnect if the old one was missing.
    pub(super) async fn set_model(&mut self, name: String) {
        let backend = self.link.backend().clone();
        match backend.show_model(&name).await {
            Ok(info) if embedding_only(&name, &info.capabilities) => {
                let model = name.clone();
                self.out.banner(Notice::ModelSwitchFailed {
                    name,
                    error: LlmError::NotChat { model },
                });
            }
            Ok(info) => {
                self.link.learn_capabilities(&info.capabilities);
                let server_ctx = self.link.loaded_window(&name).await;
                self.apply(Input::SetModel { name: name.clone() });
                self.apply(Input::ModelInfo {
                    context_length: info.context_length,
                    parameter_size: info.parameter_size,
                    server_ctx,
                    vision: self.link.vision_capable(),
                });
                if !self.refresh_mcp().await {
                    self.offer_tools();
                }
                if matches!(
                    self.link.connection(),
                    Connection::ModelMissing { .. }
                        | Connection::NoModels
                        | Connection::NotChat { .. }
                ) {
                    self.link.set_connection(Connection::Connecting);
                    self.out.send(Update::ClearBanner);
                    self.connect().await;
                }
                self.out.notice(Notice::ModelSwitched {
                    name,
                    ctx: self.engine.ctx(),
                });
            }
            Err(error) => self.out.banner(Notice::ModelSwitchFailed { name, error }),
        }
    }

    /// A request failed before any reply: what the connection now is, and what to do.
    pub(super) fn request_failed(&mut self, error: LlmError) {
        match &error {
            LlmError::Unreachable { url, cause } => {
                self.link.lost(url.clone(), cause.clone());
            }
            LlmError::ModelNotFound { model } => {
                self.link.set_connection(Connection::ModelMissing {
                    model: model.clone(),
                });
                self.out.transient_banner(Notice::ModelMissing {
                    model: model.clone(),
                    found: Found::Request,
                });
                self.publish();
                return;
            }
            _ => {}
        }
        self.out.transient_banner(Notice::RequestFailed { error });
        self.publish();
    }

    /// Ask the server what context the model is really loaded with (`/api/ps`, where the
    /// server has it). Ollama cuts num_ctx to the model's trained length, or to a server
    /// setting, without telling the client; the budget must follow.
    pub(super) async fn confirm_loaded_ctx(&mut self) {
        let model = self.engine.model().to_string();
        let sent = self.engine.ctx();
        if !self.link.first_check_of(&model, sent) {
            return;
        }
        if let Some(ctx) = self.link.loaded_window(&model).await {
            self.apply(Input::LoadedCtx { ctx: Some(ctx) });
        }
    }
}
