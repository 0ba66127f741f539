//! The binary's side of one message without the TUI: stdin read, the session opened and
//! its actor started, what happened said on stderr. The library's `oneshot` composes and
//! sends the message.

use super::engine::{SharedTokenizer, make_engine};
use super::session::{mark_used, open_session};
use super::setup::{backends, check_model_word, data_dir, init_logging, load_prompts};
use anyhow::{Context, Result};
use ollm_tui::actor::{self, ActorConfig, Parts, StoreSlot};
use ollm_tui::config::{Cli, Settings};
use ollm_tui::launch::actor_config;
use ollm_tui::store;
use std::sync::Arc;

/// `ollm-tui [MODEL] PROMPT`, `… | ollm-tui [PROMPT]`: one message through a session like
/// any other, the reply on stdout (see `oneshot`). Tools are off: nobody is there to
/// approve a call, and a reply meant for a pipe should not wait on one.
pub fn one_shot(cli: &Cli, settings: Settings, piped: bool) -> Result<()> {
    use std::io::Read;
    let input = if piped {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .context("cannot read stdin")?;
        Some(String::from_utf8(bytes).map_err(|e| {
            anyhow::anyhow!(
                "stdin is not UTF-8 text (byte {} is not); nothing was sent",
                e.utf8_error().valid_up_to()
            )
        })?)
    } else {
        None
    };
    let message = ollm_tui::oneshot::outgoing(
        cli.prompt().as_deref(),
        input.as_deref(),
        cli.long_input.map(Into::into).unwrap_or_default(),
    )?;
    let (backend, summary_backend) = backends(&settings)?;
    if let Some(word) = cli.model_word() {
        check_model_word(&backend, word)?;
    }
    let dir = data_dir(&settings.data_dir)?;
    let _log_guard = init_logging(&dir, &settings.log_level);
    let prompts = Arc::new(load_prompts(&dir)?);
    let opened = open_session(cli, &settings, &dir)?;
    let session_id = opened.spec.session_id.clone();
    let tokenizer = Arc::new(SharedTokenizer::loading());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let engine = make_engine(opened.spec, opened.loaded, &settings, &tokenizer, &prompts);
    let config = ActorConfig {
        // Not retried: an unreachable server is an error here, said at once.
        reconnect_after: std::time::Duration::from_secs(3600),
        ..actor_config(&settings, None)
    };
    let (sent, persisted, rescued) = if cli.no_save {
        // Kept in memory for the one exchange and dropped with it: nothing on disk.
        let (sent, _, rescued) = runtime.block_on(send_one(
            Parts {
                backend,
                summary_backend,
                engine,
                store: StoreSlot::Lazy(Box::new(|header: &ollm_tui::core::record::Header| {
                    Ok(store::MemoryStore::new(header.clone()))
                })),
                config,
                model: None,
            },
            message,
        ));
        (sent, false, rescued)
    } else {
        runtime.block_on(send_one(
            Parts {
                backend,
                summary_backend,
                engine,
                store: opened.store,
                config,
                model: None,
            },
            message,
        ))
    };
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    if let Some(r) = rescued {
        eprintln!(
            "ollm-tui: {} record(s) could not be written to the session log: {}",
            r.records,
            match &r.to {
                Ok(path) => format!("they are saved in {}", path.display()),
                Err(e) => format!("nor to a rescue file ({e}); they are lost"),
            }
        );
    }
    if persisted {
        mark_used(&dir, &session_id);
        // The whole id: a prefix unique now is shared by the next session of the same
        // minute (UUID v7), and this line is read later.
        eprintln!(
            "ollm-tui: kept as session {session_id} (go on with: ollm-tui --resume {session_id})"
        );
    }
    match sent {
        Ok(()) | Err(ollm_tui::oneshot::Stopped::ReaderGone) => Ok(()),
        Err(ollm_tui::oneshot::Stopped::Failed(why)) => Err(why.into()),
    }
}

/// Send the message through a session actor, the reply to stdout; then end the actor.
/// What came of it: sent or why not, whether the session is on disk, what a failing log
/// could not take.
async fn send_one<S: ollm_tui::store::SessionStore + Send + 'static>(
    parts: Parts<ollm_tui::llm::OllamaBackend, S>,
    message: ollm_tui::oneshot::Outgoing,
) -> (
    Result<(), ollm_tui::oneshot::Stopped>,
    bool,
    Option<ollm_tui::actor::Rescued>,
) {
    let mut spawned = actor::spawn(parts);
    let mut stdout = std::io::stdout().lock();
    let sent = ollm_tui::oneshot::send(&mut spawned, message, &mut stdout).await;
    if sent.is_err() {
        // A reply still coming (the reader went away) ends here, kept as it is.
        let _ = spawned.handle.send(ollm_tui::actor::Command::Stop).await;
    }
    let _ = spawned
        .handle
        .send(ollm_tui::actor::Command::Shutdown)
        .await;
    drop(spawned.handle);
    let (persisted, rescued) = spawned
        .task
        .await
        .ok()
        .map(|e| (e.store.is_some(), e.rescued))
        .unwrap_or((false, None));
    (sent, persisted, rescued)
}
