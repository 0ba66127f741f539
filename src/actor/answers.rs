//! Commands that read the session without changing it — answered at once, even while a
//! reply streams or a compression runs — and the snapshot commands that work on the store
//! before the engine sees them (finding the snapshot to restore, deleting one).

use super::command::{Ask, Inspection};
use super::driver::Actor;
use crate::core::engine::Input;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use crate::view::{Notice, RestoreLookup};

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    /// Answer `ask` at once — even while a reply streams or a compression runs. Nothing
    /// here waits on the network: listing models and pulling run as tasks of their own, so
    /// a slow server cannot hold up a streaming reply or Stop; the data folder's sessions
    /// are read on the blocking pool.
    pub(super) fn answer(&mut self, ask: Ask) {
        match ask {
            Ask::ListSnapshots { reply } => {
                let _ = reply.send(
                    self.disk
                        .store()
                        .scan_snapshots()
                        .map_err(|e| e.to_string()),
                );
            }
            Ask::ListModels { reply } => {
                let backend = self.link.backend().clone();
                tokio::spawn(async move {
                    let models = backend
                        .list_models()
                        .await
                        .map(|mut models| {
                            // Embedding models cannot chat: recall uses them by itself.
                            models
                                .retain(|m| !crate::llm::embedding_only(&m.name, &m.capabilities));
                            models
                        })
                        .map_err(|e| match e.hint() {
                            Some(h) => format!("{e}. {h}"),
                            None => e.to_string(),
                        });
                    let _ = reply.send(models);
                });
            }
            Ask::Inspect { number, reply } => {
                let _ = reply.send(self.inspect(number));
            }
            Ask::Check { reply } => self.check(reply),
            Ask::ListFacts { reply } => {
                let _ = reply.send(self.engine.fact_rows());
            }
            Ask::InspectResult { id, reply } => {
                let _ = reply.send(self.inspect_result(id));
            }
            Ask::Export { format } => self.export(&format),
            // On a task of the link's own: a pull takes minutes, chatting goes on.
            Ask::Pull { name, lines } => self.link.pull(name, lines),
            Ask::ListSessions { change, reply } => {
                super::folder::list(self.disk.folder(), change, reply);
            }
            Ask::SearchSessions {
                query,
                limit,
                reply,
            } => super::folder::search(self.disk.folder(), query, limit, reply),
            Ask::AttachImage { path, reply } => self.attach_image(path, reply),
            Ask::PictureBytes { image, reply } => {
                let _ = reply.send(self.disk.store().load_image(&image).ok());
            }
            Ask::TakeBackQueued { reply } => {
                let _ = reply.send(self.take_back_queued());
            }
        }
    }

    fn inspect(&self, number: Option<u32>) -> Option<Inspection> {
        let checkpoint = match number {
            Some(n) => self.engine.checkpoint_numbered(n)?,
            None => self.engine.checkpoints().last()?,
        }
        .clone();
        let originals = checkpoint
            .covers
            .iter()
            .filter_map(|m| self.engine.history().get(*m).cloned())
            .collect();
        Some(Inspection {
            asked: number,
            checkpoint,
            originals,
        })
    }

    /// A tool result beside its original: from the saved file when it was shortened.
    fn inspect_result(
        &self,
        id: crate::core::message::MessageId,
    ) -> Result<super::command::ResultInspection, String> {
        let (m, original) = self.whole_result(id)?;
        Ok(super::command::ResultInspection {
            id,
            tool: m.tool.as_ref().map(|t| t.name.clone()).unwrap_or_default(),
            seen: m.text.clone(),
            original,
        })
    }

    /// Tool result `id` and the whole of it: the saved file when the context held a
    /// shortened form (or notes), else the message itself. `/inspect #N` and `recall`
    /// both read it here.
    pub(super) fn whole_result(
        &self,
        id: crate::core::message::MessageId,
    ) -> Result<(&crate::core::message::Message, String), String> {
        let m = self
            .engine
            .history()
            .get(id)
            .ok_or_else(|| format!("there is no result with id {}", id.0))?;
        let tool = m
            .tool
            .as_ref()
            .ok_or_else(|| format!("{} is not a tool result", id.0))?;
        let whole = match &tool.original {
            Some(o) => self
                .disk
                .store()
                .load_result(&o.file)
                .map_err(|e| format!("the whole result {} cannot be read: {e}", id.0))?,
            None => m.text.clone(),
        };
        Ok((m, whole))
    }

    fn export(&mut self, format: &crate::store::export::Format) {
        if !self.disk.is_open() {
            self.out.notice(Notice::NothingToExport);
            return;
        }
        match self.disk.store().export(format) {
            Ok(path) => self.out.notice(Notice::Exported { path }),
            Err(e) => self.out.banner(Notice::ExportFailed {
                error: e.to_string(),
            }),
        }
    }

    /// The snapshot named by `wanted`: its id, or the one id that starts with it.
    fn resolve_snapshot(&self, wanted: &str) -> Result<String, RestoreLookup> {
        if !self.disk.is_open() {
            return Err(RestoreLookup::NoSnapshots);
        }
        let ids: Vec<String> = self
            .disk
            .store()
            .list_snapshots()
            .map_err(|e| RestoreLookup::Unreadable {
                error: e.to_string(),
            })?
            .into_iter()
            .map(|m| m.id)
            .collect();
        if ids.iter().any(|i| i == wanted) {
            return Ok(wanted.to_string());
        }
        let matching: Vec<&String> = ids.iter().filter(|i| i.starts_with(wanted)).collect();
        match matching.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(RestoreLookup::NoSuch {
                wanted: wanted.to_string(),
            }),
            many => Err(RestoreLookup::Ambiguous {
                wanted: wanted.to_string(),
                matches: many.len(),
            }),
        }
    }

    /// Find and load the snapshot, then let the engine restore it (it first saves the
    /// state being left, so a restore can be undone by another).
    pub(super) async fn restore(&mut self, wanted: &str) {
        let id = match self.resolve_snapshot(wanted) {
            Ok(id) => id,
            Err(lookup) => {
                self.out
                    .transient_banner(Notice::RestoreNotFound { lookup });
                return;
            }
        };
        match self.disk.store().load_snapshot(&id) {
            Ok(snapshot) => {
                self.feed(Input::Restore {
                    snapshot: Box::new(snapshot),
                })
                .await
            }
            Err(e) => self.out.banner(Notice::RestoreLoadFailed {
                id,
                error: e.to_string(),
            }),
        }
    }

    pub(super) fn delete_snapshot(&mut self, id: String) {
        match self.disk.store_mut().delete_snapshot(&id) {
            Ok(()) => self.out.notice(Notice::SnapshotDeleted { id }),
            Err(e) => self.out.notice(Notice::SnapshotDeleteFailed {
                id,
                error: e.to_string(),
            }),
        }
    }
}

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    /// `/check`: the questions made with the next message's context, asked by the
    /// [`Checker`](super::check::Checker); refused with why between turns only.
    pub(super) fn check(
        &mut self,
        reply: tokio::sync::oneshot::Sender<Result<super::CheckReport, String>>,
    ) {
        let probes = crate::core::check::probes(&self.engine.fact_rows());
        let refused = if *self.out.activity() != crate::view::Activity::Idle {
            Some("a check runs between replies: ask again when this one has ended")
        } else if !matches!(
            self.link.connection(),
            crate::view::Connection::Connected { .. }
        ) {
            Some("the Ollama server is not connected")
        } else if self.checker.is_running() {
            Some("a check is already running")
        } else if probes.is_empty() {
            Some(
                "nothing you stated is folded yet: every fact is in the conversation the model sees",
            )
        } else {
            None
        };
        if let Some(why) = refused {
            let _ = reply.send(Err(why.to_string()));
            return;
        }
        let asks: Vec<_> = probes
            .into_iter()
            .map(|p| {
                let mut request = self.chat_request(&self.engine.prompt_for(&p.question));
                // An answer in words is asked for: no tool, no long reasoning.
                request.tools.clear();
                request.think = None;
                request.options.num_predict = Some(crate::core::check::ANSWER_TOKENS);
                (p, request)
            })
            .collect();
        let backend = self.link.backend().clone();
        let model = self.engine.model().to_string();
        self.checker.start(asks, backend, model, reply);
    }
}
