//! `ours`: the session actor over real HTTP, built as the binary builds it (`launch`, from
//! the settings of a run with no config file), driven turn by turn.

use super::{KeptBy, Passes, Run, RunError, Setup, Strategy, TurnTiming, pause};
use crate::fidelity::recorder::Recording;
use crate::fidelity::scenarios::Scenario;
use ollm_tui::actor::{self, ActorConfig, Command, Parts, StoreSlot};
use ollm_tui::core::engine::Request;
use ollm_tui::core::events::{CompressReason, EngineEvent, Intensity};
use ollm_tui::core::goals::GoalChange;
use ollm_tui::core::prompts::Prompts;
use ollm_tui::launch;
use ollm_tui::llm::{ChatBackend, ChatRole};
use ollm_tui::store::MemoryStore;
use ollm_tui::view::{Connection, Notice, Update};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(super) async fn ours<B: ChatBackend>(
    backend: B,
    scenario: &Scenario,
    setup: &Setup,
) -> Result<Run, RunError> {
    let backend = Recording::new(backend);
    let calls = backend.calls.clone();
    let stopped = |e: &dyn std::fmt::Display| RunError::Stopped(e.to_string());
    // The session as the binary makes it for `ollm-tui --model M --ctx N` with no config
    // file: the same settings, engine, actor settings and tools (in an empty folder of
    // their own, so a call a model makes reads nothing of ours).
    let workdir = tempfile::tempdir().map_err(|e| stopped(&e))?;
    let settings = shipped_settings(setup, workdir.path()).map_err(|e| stopped(&e))?;
    let tools = launch::tools(
        &settings,
        ollm_tui::tools::ToolEnv {
            umask: 0o022,
            supervisor: None,
        },
    )
    .map_err(|e| stopped(&e))?;
    let spec = launch::new_spec(&settings, format!("fidelity-{}", scenario.name));
    let engine = launch::engine(
        spec,
        None,
        &settings,
        setup.tok.clone(),
        Arc::new(Prompts::builtin()),
    );
    let header = engine.header("fidelity");
    let spawned = actor::spawn(Parts {
        backend,
        summary_backend: None,
        engine: Box::new(move || engine),
        store: StoreSlot::Open(MemoryStore::new(header)),
        config: ActorConfig {
            reconnect_after: Duration::from_secs(3600),
            ..launch::actor_config(&settings, tools)
        },
        model: None,
    });
    let actor::Spawned {
        handle,
        mut updates,
        mut view,
        task,
    } = spawned;
    tokio::time::timeout(
        setup.turn_timeout,
        view.wait_for(|v| matches!(v.connection, Connection::Connected { .. })),
    )
    .await
    .map_err(|_| RunError::Stopped("could not connect".into()))?
    .map_err(|e| stopped(&e))?;
    if let Some(n) = setup.num_predict {
        use ollm_tui::core::params::{Param, ParamChange, ParamValue};
        let value = ParamValue::Int(i32::try_from(n).unwrap_or(i32::MAX));
        handle
            .send(Command::Request(Request::SetParam {
                change: ParamChange::Set(Param::NumPredict, Some(value)),
            }))
            .await
            .map_err(|e| stopped(&e))?;
    }
    if !scenario.locked.is_empty() {
        handle
            .send(Command::Request(Request::Goal {
                change: GoalChange::Decision {
                    text: scenario.locked.to_string(),
                    locked: true,
                },
            }))
            .await
            .map_err(|e| stopped(&e))?;
    }
    let started = Instant::now();
    let mut turns = Vec::new();
    let mut passes = Passes::default();
    for (i, text) in scenario.turns.iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(pause(setup, &calls, text)).await;
        }
        let sent = Instant::now();
        handle
            .send(Command::Request(Request::Send {
                text: text.clone(),
                images: Vec::new(),
            }))
            .await
            .map_err(|e| stopped(&e))?;
        let failed = tokio::time::timeout(
            setup.turn_timeout,
            reply_ended(&mut updates, &mut view, &handle, &mut passes),
        )
        .await
        .map_err(|_| RunError::Timeout {
            turn: i,
            after: setup.turn_timeout,
        })?;
        turns.push(TurnTiming {
            sent,
            done: Instant::now(),
            failed,
        });
    }
    // What runs after the last reply (a compression) finishes before the end.
    drop(handle);
    let exit = task.await.map_err(|e| stopped(&e))?;
    let ended = Instant::now();
    while let Ok(u) = updates.try_recv() {
        count(&u, &mut passes);
    }
    let prompt = exit.engine.prompt();
    let transcript = exit
        .engine
        .history()
        .iter()
        .map(|m| {
            let r = match m.role {
                ollm_tui::core::message::Role::User => ChatRole::User,
                ollm_tui::core::message::Role::Assistant => ChatRole::Assistant,
                ollm_tui::core::message::Role::Tool => ChatRole::Tool,
            };
            (r, m.text.clone())
        })
        .collect();
    let engine = exit.engine;
    let compressions = engine.compressions();
    let ask: super::Asker = Box::new(move |question: &str| messages(engine.prompt_for(question)));
    Ok(Run {
        strategy: Strategy::Ours,
        context: messages(prompt),
        kept_by: KeptBy::Sent,
        calls,
        turns,
        compressions,
        passes,
        started,
        ended,
        transcript,
        ask: Some(ask),
    })
}

/// A request's messages as (role, text).
fn messages(prompt: ollm_tui::core::engine::ChatPrompt) -> Vec<(ChatRole, String)> {
    let role = |r: ollm_tui::core::engine::PromptRole| match r {
        ollm_tui::core::engine::PromptRole::System => ChatRole::System,
        ollm_tui::core::engine::PromptRole::User => ChatRole::User,
        ollm_tui::core::engine::PromptRole::Assistant => ChatRole::Assistant,
        ollm_tui::core::engine::PromptRole::Tool => ChatRole::Tool,
    };
    prompt
        .messages
        .into_iter()
        .map(|m| (role(m.role), m.content))
        .collect()
}

/// The settings the binary resolves for `ollm-tui --model M --ctx N` with no config file
/// (tools as shipped, or `--tools off` when the setup says so; the temperature, when the
/// setup fixes one, as a config file would); tools work in `workdir`.
pub fn shipped_settings(
    setup: &Setup,
    workdir: &std::path::Path,
) -> Result<ollm_tui::config::Settings, Box<dyn std::error::Error + Send + Sync>> {
    use ollm_tui::config::{Cli, Env, FileConfig, resolve_with};
    let ctx = setup.ctx.to_string();
    let mut args = vec![
        "ollm-tui",
        "--model",
        setup.model.as_str(),
        "--ctx",
        ctx.as_str(),
        "--workdir",
    ];
    let dir = workdir.to_string_lossy().into_owned();
    args.push(&dir);
    if !setup.tools {
        args.extend(["--tools", "off"]);
    }
    let cli = <Cli as clap::Parser>::try_parse_from(args)?;
    let file = FileConfig {
        temperature: setup.temperature,
        ..FileConfig::default()
    };
    let path = std::path::Path::new("(no config file)");
    Ok(resolve_with(
        &cli,
        &Env::default(),
        file,
        workdir.to_path_buf(),
        path,
    )?)
}

/// Wait for the turn's reply to end, counting the compression passes reported on the
/// way; true when the turn ended without a reply. A tool call that asks is refused, as a
/// person who asked for no tool would.
async fn reply_ended(
    updates: &mut tokio::sync::mpsc::UnboundedReceiver<Update>,
    view: &mut tokio::sync::watch::Receiver<Arc<ollm_tui::view::SessionView>>,
    handle: &ollm_tui::actor::SessionHandle,
    passes: &mut Passes,
) -> bool {
    loop {
        let u = tokio::select! {
            u = updates.recv() => u,
            changed = view.changed() => {
                if changed.is_err() {
                    return true;
                }
                let ask = match &view.borrow_and_update().activity {
                    ollm_tui::view::Activity::Approval(ask) => Some(ask.id),
                    _ => None,
                };
                if let Some(id) = ask {
                    let deny = ollm_tui::actor::Approval::Deny {
                        reason: Some("no tools now, please just answer".into()),
                    };
                    let _ = handle.send(Command::Approve { id, answer: deny }).await;
                }
                continue;
            }
        };
        let Some(u) = u else {
            return true;
        };
        count(&u, passes);
        match u {
            Update::ReplyEnd { id: Some(_), .. } => return false,
            Update::ReplyEnd { id: None, .. } => {}
            Update::Banner(
                n @ (Notice::Engine(ollm_tui::core::events::EngineEvent::Blocked(_))
                | Notice::RequestFailed { .. }
                | Notice::ReplyBrokeOff { .. }),
            ) => {
                // Why a turn failed is what a reader of the run needs first.
                eprintln!("[ours] turn failed: {n:?}");
                return true;
            }
            _ => {}
        }
    }
}

/// Count a compression pass, or a merge, that the actor reported.
fn count(update: &Update, passes: &mut Passes) {
    match update {
        Update::Engine(EngineEvent::Compressed {
            reason, intensity, ..
        }) => {
            passes.total += 1;
            if *reason == CompressReason::Emergency || *intensity > Intensity::Normal {
                passes.emergency += 1;
            }
            if *reason == CompressReason::Overflow {
                passes.overflow += 1;
            }
        }
        Update::Engine(EngineEvent::CheckpointsMerged { .. }) => passes.merges += 1,
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compressed(reason: CompressReason, intensity: Intensity) -> Update {
        Update::Engine(EngineEvent::Compressed {
            number: 1,
            reason,
            intensity,
            messages: 4,
            tokens_before: 1800,
            tokens_after: 900,
            calls: 1,
        })
    }

    #[test]
    fn passes_are_counted_from_the_engine_events_the_actor_sends() {
        let mut p = Passes::default();
        for u in [
            compressed(CompressReason::Auto, Intensity::Normal),
            compressed(CompressReason::Emergency, Intensity::Hard),
            compressed(CompressReason::Overflow, Intensity::Normal),
            // The banner that shows an event is not a second pass.
            Update::Banner(ollm_tui::view::Notice::Engine(EngineEvent::Compressed {
                number: 2,
                reason: CompressReason::Auto,
                intensity: Intensity::Normal,
                messages: 1,
                tokens_before: 1,
                tokens_after: 1,
                calls: 1,
            })),
            Update::Engine(EngineEvent::CheckpointsMerged {
                merged: Vec::new(),
                numbers: Vec::new(),
                into: ollm_tui::core::checkpoint::CheckpointId(1),
                tokens: 10,
            }),
        ] {
            count(&u, &mut p);
        }
        assert_eq!(
            p,
            Passes {
                total: 3,
                emergency: 1,
                overflow: 1,
                merges: 1
            }
        );
    }
}
