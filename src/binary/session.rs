//! The session a chat or a one-shot message runs in: a new one, or one on disk opened
//! (locked) and read; its settings now; and the note of which one the person last used.

use anyhow::{Result, bail};
use ollm_tui::actor::StoreSlot;
use ollm_tui::config::{Cli, Settings};
use ollm_tui::core::engine::SessionSpec;
use ollm_tui::core::record::Header;
use ollm_tui::store::{self, DataDir, FileStore, LoadedLog, StoreError};

/// What the chat starts from.
pub struct Opened {
    pub spec: SessionSpec,
    pub store: StoreSlot<FileStore>,
    pub loaded: Option<LoadedLog>,
}

/// A new session, created on disk with the first thing worth keeping.
pub fn new_session(settings: &Settings, dir: &DataDir) -> Opened {
    let dir = dir.clone();
    Opened {
        spec: ollm_tui::launch::new_spec(settings, store::new_session_id()),
        store: StoreSlot::Lazy(Box::new(move |header: &Header| {
            FileStore::create(&dir, header.clone())
        })),
        loaded: None,
    }
}

pub fn open_session(cli: &Cli, settings: &Settings, dir: &DataDir) -> Result<Opened> {
    let Some(wanted) = cli.resume.as_deref() else {
        let mut opened = new_session(settings, dir);
        if let Some(text) = cli
            .system
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            let chars = text.chars().count();
            let max = ollm_tui::core::params::MAX_SYSTEM_CHARS;
            if chars > max {
                bail!(
                    "--system is {chars} characters; at most {max} are kept (it is sent with every message)"
                );
            }
            opened.spec.params.system = Some(text.to_string());
        }
        return Ok(opened);
    };
    let id = if wanted.is_empty() {
        match store::sessions::latest(dir)? {
            Some(id) => id,
            None => bail!(
                "no session to resume in {} (start one with plain `ollm-tui`)",
                dir.root().display()
            ),
        }
    } else {
        store::sessions::resolve(dir, wanted).map_err(|e| {
            // `ollm-tui --resume "and then?"`: the flag took the prompt as its id.
            let hint = if wanted.chars().any(char::is_whitespace) {
                format!(
                    " (to go on with the last session used, put the prompt first: \
                     ollm-tui {wanted:?} --resume)"
                )
            } else {
                String::new()
            };
            anyhow::Error::new(e).context(format!("--resume {wanted:?}{hint}"))
        })?
    };
    open_existing(dir, &id)
}

/// A session on disk, opened (locked) and read.
pub fn open_existing(dir: &DataDir, id: &str) -> Result<Opened> {
    let id = id.to_string();
    let (file_store, loaded) = FileStore::open(dir, &id).map_err(|e| match e {
        StoreError::Locked { .. } => anyhow::anyhow!("{e}"),
        other => anyhow::Error::new(other).context(format!("cannot open session {id}")),
    })?;
    Ok(Opened {
        spec: SessionSpec {
            session_id: id,
            model: loaded.header.model.clone(),
            mode: loaded.header.mode,
            ctx: loaded.header.ctx,
            params: loaded.header.params.clone(),
        },
        store: StoreSlot::Open(file_store),
        loaded: Some(loaded),
    })
}

/// The settings a session opened from disk has now: its header with its `settings`
/// records applied (the header alone holds those it was created with).
pub fn settings_now(opened: &Opened) -> Option<Header> {
    let loaded = opened.loaded.as_ref()?;
    let mut h = loaded.header.clone();
    for r in &loaded.records {
        h.apply_settings(&r.body);
    }
    Some(h)
}

/// Record that the person uses session `id` (see `store::sessions::latest`). A failure
/// costs only what plain `--resume` opens next, so it is logged, not shown.
pub fn mark_used(dir: &DataDir, id: &str) {
    if let Err(e) = store::sessions::mark_used(dir, id) {
        tracing::warn!(session = %id, error = %e, "cannot note the session last used");
    }
}
