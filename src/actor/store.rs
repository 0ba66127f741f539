//! The session's store as the actor holds it: created on first use, behind the
//! [`SessionStore`] trait like any other store.
//!
//! Policy: opening the app and quitting leaves no empty session behind, so a new session
//! has no file until a record worth keeping arrives. Settings records (the model chosen
//! at connect, `/ctx`, `/mode`) alone are not: they are held, folded into the header the
//! file is created with, and written right after it. If the file cannot be created (a full
//! disk), the record waits like any record the log refused, and creating the file is tried
//! again with the next write (the actor retries every few seconds while records wait):
//! a session started on a full disk is saved once there is room, or rescued at exit.
//!
//! A record that could not be appended (disk full, an I/O error) is kept, in order, and
//! written before anything newer: every append and sync first retries what waits, and a
//! record is queued behind the ones waiting rather than written past them, so the log
//! never has a gap in `seq`. A sync succeeds only when nothing waits.

use crate::core::record::{Header, Record, RecordBody};
use crate::core::snapshot::{Snapshot, SnapshotMeta};
use crate::store::{SessionStore, StoreError};
use std::collections::VecDeque;
use std::path::PathBuf;

/// Creates the session's store from its header when the first record is written (and
/// again, if that failed, until it succeeds).
pub type StoreFactory<S> = Box<dyn FnMut(&Header) -> Result<S, StoreError> + Send>;

/// How a session's store starts: open already (resumed, tests), or made on first use.
pub enum StoreSlot<S> {
    Open(S),
    Lazy(StoreFactory<S>),
}

enum State<S> {
    Open(S),
    Waiting(StoreFactory<S>),
}

/// A store created when the first record worth keeping is appended. See the module docs.
pub struct LazyStore<S> {
    state: State<S>,
    /// The header the file will be created with, kept current with held settings.
    header: Header,
    held: Vec<Record>,
    /// Records whose append failed, oldest first (see the module docs).
    unwritten: VecDeque<Record>,
    /// The last attempt to create the file failed.
    create_failed: bool,
}

impl<S: SessionStore> LazyStore<S> {
    pub fn new(slot: StoreSlot<S>, header: Header) -> Self {
        LazyStore {
            state: match slot {
                StoreSlot::Open(s) => State::Open(s),
                StoreSlot::Lazy(f) => State::Waiting(f),
            },
            header,
            held: Vec::new(),
            unwritten: VecDeque::new(),
            create_failed: false,
        }
    }

    /// Records kept in memory because writing them failed; they are retried first.
    pub fn unwritten(&self) -> usize {
        self.unwritten.len()
    }

    /// Write what waits, oldest first (creating the file first if that failed before);
    /// stops at the first failure (nothing is reordered).
    pub fn flush(&mut self) -> Result<(), StoreError> {
        if self.unwritten.is_empty() {
            return Ok(());
        }
        self.open()?;
        while let Some(record) = self.unwritten.front() {
            let State::Open(store) = &mut self.state else {
                return Ok(());
            };
            store.append(record)?;
            self.unwritten.pop_front();
        }
        Ok(())
    }

    /// Create the store if needed, write what waits, then `record`.
    fn write_in_order(&mut self, record: &Record) -> Result<(), StoreError> {
        self.open()?;
        self.flush()?;
        match &mut self.state {
            State::Open(s) => s.append(record),
            _ => Ok(()),
        }
    }

    /// What could not be written, for a rescue file at exit.
    pub fn take_unwritten(&mut self) -> Vec<Record> {
        self.unwritten.drain(..).collect()
    }

    /// The session has a file (it is created with the first message).
    pub fn is_open(&self) -> bool {
        matches!(self.state, State::Open(_))
    }

    /// Creating the file failed the last time it was tried; what waits is kept in
    /// memory and it is tried again.
    pub fn failed(&self) -> bool {
        self.create_failed && !self.is_open()
    }

    /// The store, if it was created.
    pub fn into_inner(self) -> Option<S> {
        match self.state {
            State::Open(s) => Some(s),
            _ => None,
        }
    }

    /// The open store, creating it if it is still waiting.
    fn open(&mut self) -> Result<Option<&mut S>, StoreError> {
        if let State::Waiting(factory) = &mut self.state {
            let created = factory(&self.header);
            self.create_failed = created.is_err();
            self.state = State::Open(created?);
            // The held settings follow the header; a failure is reported like any write.
            let mut first_error = None;
            if let State::Open(store) = &mut self.state {
                for record in std::mem::take(&mut self.held) {
                    if let Err(e) = store.append(&record) {
                        first_error.get_or_insert(e);
                    }
                }
            }
            if let Some(e) = first_error {
                return Err(e);
            }
        }
        Ok(match &mut self.state {
            State::Open(s) => Some(s),
            _ => None,
        })
    }

    fn open_existing(&self) -> Option<&S> {
        match &self.state {
            State::Open(s) => Some(s),
            _ => None,
        }
    }
}

impl<S: SessionStore> SessionStore for LazyStore<S> {
    fn append(&mut self, record: &Record) -> Result<(), StoreError> {
        match (&self.state, &record.body) {
            (State::Waiting(_), RecordBody::Settings { .. }) => {
                self.header.apply_settings(&record.body);
                self.held.push(record.clone());
                Ok(())
            }
            _ => {
                let written = self.write_in_order(record);
                if written.is_err() {
                    self.unwritten.push_back(record.clone());
                }
                written
            }
        }
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        self.flush()?;
        match &mut self.state {
            State::Open(s) => s.sync(),
            _ => Ok(()),
        }
    }

    /// A snapshot is worth keeping: it creates the file if there is none yet.
    fn save_snapshot(&mut self, snapshot: &Snapshot) -> Result<SnapshotMeta, StoreError> {
        match self.open()? {
            Some(s) => s.save_snapshot(snapshot),
            None => Err(StoreError::NoSessionFile),
        }
    }

    fn list_snapshots(&self) -> Result<Vec<SnapshotMeta>, StoreError> {
        self.open_existing()
            .map_or(Ok(Vec::new()), |s| s.list_snapshots())
    }

    fn scan_snapshots(&self) -> Result<crate::store::snapshot::SnapshotListing, StoreError> {
        self.open_existing()
            .map_or(Ok(Default::default()), |s| s.scan_snapshots())
    }

    fn load_snapshot(&self, id: &str) -> Result<Snapshot, StoreError> {
        self.open_existing()
            .ok_or(StoreError::NoSessionFile)
            .and_then(|s| s.load_snapshot(id))
    }

    fn delete_snapshot(&mut self, id: &str) -> Result<(), StoreError> {
        match &mut self.state {
            State::Open(s) => s.delete_snapshot(id),
            _ => Err(StoreError::NoSessionFile),
        }
    }

    fn prune_automatic(&mut self, keep: usize) -> Result<Vec<String>, StoreError> {
        match &mut self.state {
            State::Open(s) => s.prune_automatic(keep),
            _ => Ok(Vec::new()),
        }
    }

    fn export(&self, format: &crate::store::export::Format) -> Result<PathBuf, StoreError> {
        self.open_existing()
            .ok_or(StoreError::NoSessionFile)
            .and_then(|s| s.export(format))
    }

    /// A tool result comes after the person's message, so the file exists by then.
    fn save_result(&mut self, file: &str, text: &str) -> Result<(), StoreError> {
        match self.open()? {
            Some(s) => s.save_result(file, text),
            None => Err(StoreError::NoSessionFile),
        }
    }

    fn load_result(&self, file: &str) -> Result<String, StoreError> {
        self.open_existing()
            .ok_or(StoreError::NoSessionFile)
            .and_then(|s| s.load_result(file))
    }

    /// A picture attached before the first message creates the session file: it is
    /// kept beside the log, which must exist to name it.
    fn save_image(
        &mut self,
        image: &crate::core::image::ImageRef,
        bytes: &[u8],
    ) -> Result<(), StoreError> {
        match self.open()? {
            Some(s) => s.save_image(image, bytes),
            None => Err(StoreError::NoSessionFile),
        }
    }

    fn load_image(&self, image: &crate::core::image::ImageRef) -> Result<Vec<u8>, StoreError> {
        self.open_existing()
            .ok_or(StoreError::NoSessionFile)
            .and_then(|s| s.load_image(image))
    }

    fn fork(&mut self, at: u64) -> Result<String, StoreError> {
        match &mut self.state {
            State::Open(s) => s.fork(at),
            _ => Err(StoreError::NoSessionFile),
        }
    }

    fn wants_title(&self) -> bool {
        self.open_existing().is_some_and(|s| s.wants_title())
    }
}
