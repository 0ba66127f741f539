//! `[tools]`, `[tools.policy]` and `[mcp.NAME]`: what the model may call, resolved with
//! the command line into [`ToolSettings`].

use super::{Cli, ConfigError};
use crate::tools::{Limits, Policy, ToolMode};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One `[mcp.NAME]` section: a stdio MCP server.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpFileConfig {
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// How long it may take to start and list its tools (default 20 s).
    pub startup_timeout_secs: Option<u64>,
}

/// `[tools]` in `config.toml`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolsFile {
    pub mode: Option<ToolMode>,
    /// Rounds of tool calls one message may lead to.
    pub rounds: Option<u32>,
    pub command_timeout_secs: Option<u64>,
    pub output_limit_kib: Option<usize>,
    /// "summarize" (default): a huge result is read through by the model, a large one
    /// shortened by kind, both kept whole on disk; "shorten": never the model, only the
    /// shortening; "whole": every result enters whole (for debugging a tool).
    pub results: Option<ResultsMode>,
    /// Longest a huge result may take to be read through, at the server's measured
    /// speed, in seconds; a longer one is shortened instead.
    pub digest_max_secs: Option<u32>,
    /// Per tool: "allow", "ask" or "deny".
    #[serde(default)]
    pub policy: BTreeMap<String, Policy>,
}

/// How tool results enter the context.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResultsMode {
    #[default]
    Summarize,
    Shorten,
    Whole,
}

/// Tools, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSettings {
    pub mode: ToolMode,
    pub rounds: u32,
    pub results: ResultsMode,
    pub digest_max_secs: u32,
    pub policy: BTreeMap<String, Policy>,
    pub limits: Limits,
    /// Where tools work: `--workdir`, else the directory ollm-tui was started in.
    pub workdir: PathBuf,
    pub mcp: Vec<crate::tools::mcp::ServerConfig>,
}

pub(super) fn resolve(
    cli: &Cli,
    file: &ToolsFile,
    mcp: &BTreeMap<String, McpFileConfig>,
    path: &Path,
) -> Result<ToolSettings, ConfigError> {
    use crate::tools::mcp::SEPARATOR;
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let names: Vec<String> = crate::tools::builtin_specs()
        .into_iter()
        .map(|s| s.name)
        .collect();
    for tool in file.policy.keys() {
        // MCP tools are named `server.tool`; built-in names are checked for typos.
        if !tool.contains(SEPARATOR) && !names.contains(tool) {
            return Err(invalid(format!(
                "[tools.policy] {tool}: no such tool; the built-in tools are {}",
                names.join(", ")
            )));
        }
    }
    if file.rounds == Some(0) {
        return Err(invalid(
            "[tools] rounds = 0: use at least 1 (or mode = \"off\")".into(),
        ));
    }
    if file.command_timeout_secs == Some(0) {
        return Err(invalid(
            "[tools] command_timeout_secs = 0: use at least 1".into(),
        ));
    }
    let mut servers = Vec::new();
    for (name, s) in mcp {
        if name.is_empty() || name.contains(SEPARATOR) || name.chars().any(char::is_whitespace) {
            return Err(invalid(format!(
                "[mcp.{name:?}]: a server's name is one word without {SEPARATOR:?} (it prefixes its tools' names: NAME{SEPARATOR}tool)"
            )));
        }
        if s.command.trim().is_empty() {
            return Err(invalid(format!(
                "[mcp.{name}] command is empty: the program that runs the server, e.g. command = \"npx\""
            )));
        }
        if s.startup_timeout_secs == Some(0) {
            return Err(invalid(format!(
                "[mcp.{name}] startup_timeout_secs = 0: use at least 1"
            )));
        }
        servers.push(crate::tools::mcp::ServerConfig {
            name: name.clone(),
            command: s.command.clone(),
            args: s.args.clone(),
            env: s.env.clone(),
            startup_timeout: Duration::from_secs(s.startup_timeout_secs.unwrap_or(20)),
        });
    }
    let defaults = Limits::default();
    let workdir = match &cli.workdir {
        Some(d) => d.clone(),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    Ok(ToolSettings {
        mode: cli.tools.or(file.mode).unwrap_or_default(),
        rounds: file
            .rounds
            .unwrap_or(crate::core::engine::DEFAULT_TOOL_ROUNDS),
        results: file.results.unwrap_or_default(),
        digest_max_secs: file
            .digest_max_secs
            .unwrap_or(crate::core::engine::DEFAULT_DIGEST_MAX_SECS),
        policy: file.policy.clone(),
        limits: Limits {
            output_bytes: file
                .output_limit_kib
                .map_or(defaults.output_bytes, |k| k.max(1) * 1024),
            command_timeout: file
                .command_timeout_secs
                .map_or(defaults.command_timeout, Duration::from_secs),
            ..defaults
        },
        workdir,
        mcp: servers,
    })
}
