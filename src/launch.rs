//! What a session is made of, decided in one place from the resolved [`Settings`]: the new
//! session's spec, its engine (new or replayed), the actor's settings and the tools it
//! offers. The chat, the one-shot run and the fidelity benchmark all build their sessions
//! here, so the benchmark measures the product as it ships — the default config's tools
//! offered to a tools-capable model, its system prompt, mode and reply room — and not a
//! default struct that no person ever runs.

use crate::actor::{ActorConfig, ToolsConfig};
use crate::config::Settings;
use crate::core::engine::{Engine, SessionSpec};
use crate::core::prompts::Prompts;
use crate::core::record::{Header, Record};
use crate::core::tokens::Tokenizer;
use std::sync::Arc;

/// A new session's spec: the settings' model, mode and context; no system prompt or
/// parameters of its own yet.
pub fn new_spec(settings: &Settings, session_id: String) -> SessionSpec {
    SessionSpec {
        session_id,
        model: settings.model.clone().unwrap_or_default(),
        mode: settings.mode.unwrap_or_default(),
        ctx: settings.ctx,
        params: Default::default(),
    }
}

/// The session's engine: `log` replayed when the session is on disk, else a new one for
/// `spec`. Replay problems are logged (the app reports damage from the store's own
/// report).
pub fn engine(
    spec: SessionSpec,
    log: Option<(Header, Vec<Record>)>,
    settings: &Settings,
    tok: Arc<dyn Tokenizer>,
    prompts: Arc<Prompts>,
) -> Engine {
    let cfg = settings.engine.clone();
    match log {
        Some((header, records)) => {
            let (engine, report) = Engine::replay_owned(&header, records, cfg, tok, prompts);
            for issue in &report.issues {
                tracing::warn!(%issue, "replay");
            }
            engine
        }
        None => Engine::new(spec, cfg, tok, prompts, chrono::Utc::now()),
    }
}

/// The actor's settings from the run's.
pub fn actor_config(settings: &Settings, tools: Option<ToolsConfig>) -> ActorConfig {
    ActorConfig {
        host: settings.host.clone(),
        temperature: settings.temperature,
        think: settings.think,
        summary_model: settings.summary_model.clone(),
        keep_auto_snapshots: settings.keep_auto_snapshots,
        repeat_limit: settings.repeat_limit,
        embedding: settings.embedding.clone(),
        tools,
        ..ActorConfig::default()
    }
}

/// The tools a session offers, as the settings have them (`None` when they are off),
/// working in the settings' directory. A working directory that cannot be opened is an
/// error now, not at the first call.
pub fn tools(
    settings: &Settings,
    env: crate::tools::ToolEnv,
) -> std::io::Result<Option<ToolsConfig>> {
    let tools = &settings.tools;
    if tools.mode == crate::tools::ToolMode::Off {
        return Ok(None);
    }
    Ok(Some(ToolsConfig {
        sandbox: crate::tools::Sandbox::new(&tools.workdir)?,
        approvals: crate::tools::Approvals::new(tools.mode, tools.policy.clone()),
        limits: tools.limits,
        mcp: tools.mcp.clone(),
        env,
    }))
}

#[cfg(test)]
mod tests {
    /// The config's default for `repeat_limit` is the guard's own (config cannot name the
    /// actor: the two are held equal here, where both are known).
    #[test]
    fn the_repeat_limit_has_one_default() {
        assert_eq!(
            crate::config::DEFAULT_REPEAT_LIMIT,
            crate::actor::repetition::DEFAULT_REPEAT_LIMIT
        );
    }
}
