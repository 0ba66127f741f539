//! The session's records on their way to disk, as the actor runs it: append (a message
//! also joins the transcript), sync, the retry of what the log refused, saving snapshots
//! and pruning the automatic ones, a tool result kept whole, a fork, and the rescue file
//! at exit.
//!
//! The part [`Persistence`] owns the session's [`LazyStore`] (`store.rs`: created on
//! first use, records kept in order while writing fails) and the settings of keeping. The
//! outcome of every write is shown at once: while records wait, the banner says how many
//! (through the [`Publisher`]), and the view carries the count the app asks about before
//! quitting.

use super::publish::Publisher;
use super::store::LazyStore;
use super::{ActorConfig, Rescued};
use crate::core::engine::{Engine, Input};
use crate::core::message::MessageId;
use crate::core::record::{Record, RecordBody, SnapshotPurpose};
use crate::core::snapshot::Snapshot;
use crate::store::{SessionStore, StoreError};
use crate::view::{Entry, Notice, Update};
use chrono::Utc;
use std::path::PathBuf;
use std::time::Duration;

/// How often records the log refused are tried again while nothing else happens.
const WRITE_RETRY: Duration = Duration::from_secs(5);

/// The session's store and how it is kept.
pub(super) struct Persistence<S> {
    store: LazyStore<S>,
    /// When records that wait to be written are tried again (see `WRITE_RETRY`).
    retry_at: tokio::time::Instant,
    /// Automatic (recovery) snapshots kept.
    keep_auto_snapshots: usize,
    /// Where records the log could not take are written at exit.
    rescue_dir: PathBuf,
    /// For the rescue file's header.
    app_version: String,
    /// The data folder, whose other sessions the browser and `/search` read (`folder.rs`).
    folder: Option<crate::store::DataDir>,
}

impl<S: SessionStore> Persistence<S> {
    pub fn new(store: LazyStore<S>, config: &ActorConfig) -> Self {
        Persistence {
            store,
            retry_at: tokio::time::Instant::now(),
            keep_auto_snapshots: config.keep_auto_snapshots,
            rescue_dir: config.rescue_dir.clone(),
            app_version: config.app_version.clone(),
            folder: config.data_dir.clone(),
        }
    }

    /// Whether a title the model writes is still wanted by the files beside the log: the
    /// session is kept on disk and has not been renamed meanwhile (a rename wins). The
    /// title itself is a record, written like every other (`Input::Titled`).
    pub fn wants_title(&self) -> bool {
        self.store.wants_title()
    }

    /// The data folder, when sessions are kept on disk.
    pub fn folder(&self) -> Option<crate::store::DataDir> {
        self.folder.clone()
    }

    /// The store, for reading (snapshots, saved results, export).
    pub fn store(&self) -> &LazyStore<S> {
        &self.store
    }

    /// The store, for deleting a snapshot.
    pub fn store_mut(&mut self) -> &mut LazyStore<S> {
        &mut self.store
    }

    pub fn unwritten(&self) -> usize {
        self.store.unwritten()
    }

    pub fn is_open(&self) -> bool {
        self.store.is_open()
    }

    /// When waiting records are next tried.
    pub fn retry_at(&self) -> tokio::time::Instant {
        self.retry_at
    }

    /// Waiting records were tried: again in a while.
    pub fn retried(&mut self) {
        self.retry_at = tokio::time::Instant::now() + WRITE_RETRY;
    }

    /// The store, at exit.
    pub fn into_store(self) -> Option<S> {
        self.store.into_inner()
    }

    /// Append a record; a message also joins the transcript.
    pub fn persist(&mut self, record: Record, engine: &Engine, out: &mut Publisher) {
        let r = self.store.append(&record);
        self.write_result(r, out);
        if matches!(
            record.body,
            RecordBody::User { .. } | RecordBody::Tool { .. }
        ) && let Some(m) = engine.history().get(MessageId(record.seq))
        {
            out.send(Update::Appended(Entry::from_message(m)));
        }
    }

    /// Keep a tool result whole before its shortened form is recorded. If it cannot be
    /// written, the person is told now; `recall` of it will say the same.
    pub fn save_result(&mut self, file: &str, text: &str, out: &Publisher) {
        if let Err(e) = self.store.save_result(file, text) {
            tracing::error!(%file, error = %e, "cannot save a tool result");
            out.notice(Notice::ResultNotSaved(e.to_string()));
        }
    }

    pub fn sync(&mut self, out: &mut Publisher) {
        let r = self.store.sync();
        self.write_result(r, out);
    }

    /// Write what waits, if anything does (before a message is sent again).
    pub fn flush(&mut self, out: &mut Publisher) {
        if self.store.unwritten() > 0 {
            let r = self.store.flush();
            self.write_result(r, out);
        }
    }

    /// The outcome of a write: the banner stays up, with the number of records waiting,
    /// until everything is on disk.
    fn write_result(&mut self, r: Result<(), StoreError>, out: &mut Publisher) {
        let waiting = self.store.unwritten();
        match r {
            Ok(()) if out.writing() && waiting == 0 => out.write_recovered(),
            Ok(()) => {}
            Err(e) if self.store.failed() => {
                out.write_failed(Notice::StoreCreateFailed {
                    error: e.to_string(),
                    waiting,
                });
            }
            Err(e) => {
                if out.writing() {
                    tracing::error!(%e, waiting, "session log write failed again");
                }
                out.write_failed(Notice::WriteFailed {
                    error: e.to_string(),
                    waiting,
                });
            }
        }
        out.publish_unwritten(waiting);
    }

    /// Write a snapshot the engine made and keep only the newest automatic ones; the
    /// answer for the engine.
    pub fn save_snapshot(&mut self, snap: &Snapshot) -> Input {
        match self.store.save_snapshot(snap) {
            Ok(meta) => {
                if meta.purpose == SnapshotPurpose::Recovery
                    && let Err(e) = self.store.prune_automatic(self.keep_auto_snapshots)
                {
                    tracing::warn!(%e, "pruning automatic snapshots failed");
                }
                Input::SnapshotSaved { meta }
            }
            Err(e) => Input::SnapshotFailed {
                id: snap.meta.id.clone(),
                error: e.to_string(),
            },
        }
    }

    /// A new session from this one up to message `at` (the newest message by default):
    /// what waits to be written goes first, then the store copies the log's records.
    pub fn fork(
        &mut self,
        at: Option<MessageId>,
        engine: &Engine,
        out: &mut Publisher,
    ) -> Result<super::Forked, String> {
        let last = engine
            .history()
            .iter()
            .last()
            .map(|m| m.id)
            .ok_or("there are no messages to fork from yet")?;
        let at = at.unwrap_or(last);
        if engine.history().get(at).is_none() {
            return Err(format!(
                "there is no message {at} in this session (the last is {last})"
            ));
        }
        if self.store.unwritten() > 0 {
            let r = self.store.flush();
            self.write_result(r, out);
            if self.store.unwritten() > 0 {
                return Err("records still wait to be written to the log (the disk is full or the data folder cannot be written)".into());
            }
        }
        let id = self.store.fork(at.0).map_err(|e| e.to_string())?;
        tracing::info!(fork = %id, at = at.0, "forked");
        Ok(super::Forked { id, at })
    }

    /// At exit: what the log still could not take goes to a rescue file, a session log
    /// of its own (the header, then the records), so nothing is lost silently.
    pub fn rescue(&mut self, engine: &Engine) -> Option<Rescued> {
        let records = self.store.take_unwritten();
        if records.is_empty() {
            return None;
        }
        let path = self.rescue_dir.join(format!(
            "ollm-unsaved-{}-{}.jsonl",
            engine.session_id(),
            Utc::now().format("%Y%m%d-%H%M%S")
        ));
        let header = engine.header(&self.app_version);
        let write = || -> Result<(), String> {
            use std::io::Write as _;
            let mut text = serde_json::to_string(&header).map_err(|e| e.to_string())?;
            text.push('\n');
            for r in &records {
                text.push_str(&serde_json::to_string(r).map_err(|e| e.to_string())?);
                text.push('\n');
            }
            let mut opts = std::fs::OpenOptions::new();
            opts.write(true).create_new(true);
            let mut file = crate::store::fsutil::open_private(&path, &mut opts, "write")
                .map_err(|e| e.to_string())?;
            file.write_all(text.as_bytes())
                .and_then(|()| file.sync_all())
                .map_err(|e| e.to_string())
        };
        let to = write().map(|()| path.clone());
        tracing::warn!(
            records = records.len(),
            ?to,
            "records the log refused, rescued at exit"
        );
        Some(Rescued {
            records: records.len(),
            to,
        })
    }
}
