//! The interactive chat: the terminal entered once, one session's actor and app at a time;
//! when the app leaves a session for another (`AppExit::Open`, `New`, `Forked`), its actor
//! is closed (it syncs and stops) and the other's started in the same terminal.

use super::engine::{SharedTokenizer, make_engine};
use super::errors::error_text;
use super::session::{mark_used, new_session, open_existing, open_session, settings_now};
use super::setup::{
    backends, check_model_word, data_dir, init_logging, load_prompts, refuse_without_terminal,
};
use super::words::{Ended, damage_banner, resumed_banner, say_ended, session_name};
use anyhow::{Context, Result};
use ollm_tui::actor::{self, Parts};
use ollm_tui::app::{App, AppExit, AppOptions, keymap::Keymap, words};
use ollm_tui::config::{Cli, Settings};
use ollm_tui::launch::actor_config;
use ollm_tui::store;
use ollm_tui::ui::{Banner, Theme};
use ollm_tui::view::Severity;
use std::sync::Arc;

pub fn chat(cli: &Cli, settings: Settings, usual_umask: u32) -> Result<()> {
    // A refusal creates nothing: with no data directory yet there is nothing to resume
    // or read in it, so the missing terminal is said before one is made.
    if !settings.data_dir.exists() {
        refuse_without_terminal()?;
    }
    let dir = data_dir(&settings.data_dir)?;
    let _log_guard = init_logging(&dir, &settings.log_level);
    // Everything that can refuse to start does so here, before the terminal changes.
    let keymap = Keymap::new(&settings.keys).context("in config.toml")?;
    // `/theme` changes it for the rest of the run: every session opened after gets it.
    let mut theme = Theme::load(&settings.theme, Some(&dir.themes_dir()), settings.no_color)?;
    let prompts = load_prompts(&dir)?;
    let (backend, summary_backend) = backends(&settings)?;
    if let Some(word) = cli.model_word() {
        check_model_word(&backend, word)?;
    }
    let opened = open_session(cli, &settings, &dir)?;
    // The tokenizer's tables take 60–260 ms to load: do it while the terminal starts,
    // once for every session opened in this run.
    let tokenizer = Arc::new(SharedTokenizer::loading());

    // Last of the refusals, so that the others (a bad flag, no session) are said first.
    refuse_without_terminal()?;
    // Tools work inside one directory; one that cannot be opened is said now, not at the
    // first call.
    let tool_env = ollm_tui::tools::ToolEnv {
        umask: usual_umask,
        supervisor: std::env::current_exe().ok(),
    };
    let tools = ollm_tui::launch::tools(&settings, tool_env).with_context(|| {
        format!(
            "the tools' working directory {} cannot be used",
            settings.tools.workdir.display()
        )
    })?;
    let prompts = Arc::new(prompts);
    // What a command starts comes to this process if the command kills its supervisor,
    // and is swept then (`tools::orphans`), instead of going to init.
    ollm_tui::tools::orphans::adopt();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    // Asked before the TUI takes the screen: the terminal answers on stdin, which the
    // event loop reads from then on.
    let thumbnails = ollm_tui::app::thumbnails::detect(ollm_tui::app::thumbnails::Wanted {
        enabled: settings.thumbnails,
        no_color: settings.no_color,
        ascii: settings.ascii,
        tmux: ollm_tui::app::thumbnails::inside_tmux(),
    });
    let result: Result<Vec<Ended>> = runtime.block_on(async {
        let mut terminal = ollm_tui::app::terminal::enter()?;
        let mut ended = Vec::new();
        let mut opened = opened;
        let mut banner = damage_banner(&opened).or_else(|| resumed_banner(cli, &dir, &opened));
        let mut start_at = None;
        // The --model flag applies to the session ollm-tui was started with.
        let mut model = settings.model.clone();
        loop {
            let session_id = opened.spec.session_id.clone();
            tracing::info!(
                session = %session_id,
                host = %settings.host,
                summary_model = ?settings.summary_model,
                summary_host = ?settings.summary_host,
                resumed = opened.loaded.is_some(),
                "starting"
            );
            // The person is in this session now: `--resume` alone comes back to it. A new
            // one is named once it has a log (it is created with the first message), so a
            // crash after that still comes back to it.
            let opened_new = opened.loaded.is_none();
            if !opened_new {
                mark_used(&dir, &session_id);
            }
            let spawned = actor::spawn(Parts {
                backend: backend.clone(),
                summary_backend: summary_backend.clone(),
                engine: make_engine(opened.spec, opened.loaded, &settings, &tokenizer, &prompts),
                store: opened.store,
                config: ollm_tui::actor::ActorConfig {
                    data_dir: Some(dir.clone()),
                    ..actor_config(&settings, tools.clone())
                },
                model: model.take(),
            });
            if opened_new {
                let mut view = spawned.view.clone();
                let (dir, id) = (dir.clone(), session_id.clone());
                tokio::spawn(async move {
                    if view.wait_for(|v| v.persisted).await.is_ok() {
                        mark_used(&dir, &id);
                    }
                });
            }
            let mut app = App::new(
                spawned.handle.clone(),
                spawned.view.clone(),
                AppOptions {
                    keymap: keymap.clone(),
                    theme: theme.clone(),
                    no_color: settings.no_color,
                    ascii: settings.ascii,
                    paste_limit_bytes: settings.paste_limit_bytes,
                    startup_banner: banner.take(),
                    data_dir: Some(dir.clone()),
                    start_at: start_at.take(),
                    config_temperature: settings.temperature,
                    mouse: settings.mouse,
                    thumbnails: thumbnails.clone(),
                },
            );
            let ran = app.run(&mut terminal, spawned.updates).await;
            theme = app.theme().clone();
            drop(app);
            // Let the actor finish writing, then stop it.
            let _ = spawned
                .handle
                .send(ollm_tui::actor::Command::Shutdown)
                .await;
            drop(spawned.handle);
            // What the session was set to when it closed: `/new` starts from it.
            let (persisted, rescued, left) = match spawned.task.await {
                Ok(e) => (e.store.is_some(), e.rescued, Some(e.engine.header(""))),
                Err(_) => (false, None, None),
            };
            if persisted {
                mark_used(&dir, &session_id);
            }
            ended.push(Ended {
                session_id: session_id.clone(),
                persisted,
                rescued,
            });
            match ran {
                Err(e) => {
                    ollm_tui::app::terminal::leave();
                    return Err(e.into());
                }
                Ok(AppExit::Quit) => break,
                Ok(AppExit::New { model: asked }) => {
                    opened = new_session(&settings, &dir);
                    if let Some(left) = left {
                        opened.spec.model = left.model;
                        opened.spec.ctx = left.ctx;
                        opened.spec.mode = left.mode;
                        opened.spec.params = left.params;
                    }
                    // A model named with `/new MODEL` is checked with the server and
                    // switched to once the session is loaded, as `--model` is.
                    model = asked;
                    let previous = persisted.then(|| {
                        (
                            session_name(&dir, &session_id),
                            store::sessions::short_id(&dir, &session_id),
                        )
                    });
                    let said = words::new_session(
                        previous.as_ref().map(|(n, s)| (n.as_str(), s.as_str())),
                    );
                    banner = Some(Banner::new(
                        Severity::Info,
                        said.title,
                        said.hint.unwrap_or_default(),
                    ));
                }
                Ok(AppExit::Forked { id, at }) => {
                    opened = match open_existing(&dir, &id) {
                        Ok(o) => {
                            banner = settings_now(&o).map(|now| {
                                let said = words::forked(
                                    at,
                                    &store::sessions::short_id(&dir, &id),
                                    &now.model,
                                    now.ctx,
                                    &now.mode.to_string(),
                                );
                                Banner::new(
                                    Severity::Info,
                                    said.title,
                                    said.hint.unwrap_or_default(),
                                )
                            });
                            o
                        }
                        Err(e) => {
                            banner = Some(Banner::new(
                                Severity::Error,
                                format!("Could not open the fork {id}: {}", error_text(&e)),
                                "You are back in the session you forked from.",
                            ));
                            open_existing(&dir, &session_id)
                                .unwrap_or_else(|_| new_session(&settings, &dir))
                        }
                    };
                }
                Ok(AppExit::Open { id, at }) => {
                    // This session is closed; open the other, or, if it cannot be opened
                    // after all, come back here and say why.
                    opened = match open_existing(&dir, &id) {
                        Ok(o) => {
                            banner = damage_banner(&o);
                            start_at = at;
                            o
                        }
                        Err(e) => {
                            banner = Some(Banner::new(
                                Severity::Error,
                                format!("Could not open session {id}: {}", error_text(&e)),
                                "You are back in the session you left.",
                            ));
                            if persisted {
                                open_existing(&dir, &session_id)
                                    .unwrap_or_else(|_| new_session(&settings, &dir))
                            } else {
                                new_session(&settings, &dir)
                            }
                        }
                    };
                }
            }
        }
        ollm_tui::app::terminal::leave();
        Ok(ended)
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    let ended = result?;
    say_ended(&dir, &ended);
    Ok(())
}
