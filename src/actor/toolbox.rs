//! The session's tools as the actor holds them: where they work and who decides
//! ([`ToolsConfig`], with the allowances given for the session), the MCP servers and the
//! tools of those running, what a request offers, and the number of each question asked.
//!
//! The part [`Toolbox`] keeps the offer current: the tools the settings allow (mode and
//! per-tool policy, which do not change while the session runs), worked out once and
//! again when MCP servers start or stop — not per request or per published view — and
//! offered only to a model that has the `tools` capability. Running a reply's calls feeds
//! the engine and asks the person, so it is `tools.rs`.

use super::ToolsConfig;
use crate::core::engine::ToolOffer;
use crate::core::message::ToolCall;
use crate::tools::mcp::{Event as McpEvent, Hub, McpTool};
use crate::tools::{self, ToolError, ToolSpec};
use crate::view::ToolsState;

/// The tools of the session.
pub(super) struct Toolbox {
    /// `None`: tools are off.
    config: Option<ToolsConfig>,
    /// What the settings offer of the tools.
    offered: Vec<ToolSpec>,
    /// The MCP servers of the session, and the tools of those running.
    mcp: Hub,
    mcp_tools: Vec<McpTool>,
    /// Approval questions asked so far (each has its number).
    asked: u64,
}

/// The tools the settings offer, built-in and from running MCP servers.
fn offered_specs(config: Option<&ToolsConfig>, mcp: &[McpTool]) -> Vec<ToolSpec> {
    let Some(t) = config else {
        return Vec::new();
    };
    tools::builtin_specs()
        .into_iter()
        .chain(mcp.iter().map(|m| m.spec.clone()))
        .filter(|s| t.approvals.offered(&s.name, s.access))
        .collect()
}

impl Toolbox {
    pub fn new(config: Option<ToolsConfig>) -> Self {
        let offered = offered_specs(config.as_ref(), &[]);
        let mcp = Hub::new(config.as_ref().map(|t| t.mcp.clone()).unwrap_or_default());
        Toolbox {
            config,
            offered,
            mcp,
            mcp_tools: Vec::new(),
            asked: 0,
        }
    }

    /// Where the tools work and who decides; `None`: tools are off.
    pub fn config(&self) -> Option<&ToolsConfig> {
        self.config.as_ref()
    }

    /// The tools of the running MCP servers.
    pub fn mcp_tools(&self) -> &[McpTool] {
        &self.mcp_tools
    }

    /// What the engine may offer of the tools (empty: none, or a model without the
    /// `tools` capability); it decides each request's offer and counts the schemas.
    pub fn offers(&self, capable: bool) -> Vec<ToolOffer> {
        if !capable {
            return Vec::new();
        }
        self.offered
            .iter()
            .map(|s| ToolOffer {
                name: s.name.clone(),
                schema: s.schema.to_string(),
                need: s.need,
            })
            .collect()
    }

    /// The JSON schemas of the tools a request offers, by name, in its order.
    pub fn schemas(&self, names: &[String]) -> Vec<serde_json::Value> {
        names
            .iter()
            .filter_map(|n| self.offered.iter().find(|s| s.name == *n))
            .map(|s| s.schema.clone())
            .collect()
    }

    /// What the status line says of the tools.
    pub fn state(&self, capable: bool) -> ToolsState {
        match &self.config {
            None => ToolsState::Off,
            Some(t) if t.approvals.mode == tools::ToolMode::Off => ToolsState::Off,
            Some(_) if !capable => ToolsState::Unsupported,
            Some(_) => ToolsState::On(self.offered.len()),
        }
    }

    /// Some MCP server has not been started yet.
    pub fn mcp_unstarted(&self) -> bool {
        self.mcp.has_unstarted()
    }

    /// Start the MCP servers not started yet; what happened to each.
    pub async fn start_mcp(&mut self) -> Vec<McpEvent> {
        self.mcp.start().await
    }

    /// The MCP servers that stopped, said once each.
    pub async fn reap_mcp(&mut self) -> Vec<McpEvent> {
        self.mcp.reap().await
    }

    /// Servers started or stopped: the offer follows the tools of those running.
    pub fn mcp_changed(&mut self) {
        self.mcp_tools = self.mcp.tools();
        self.offered = offered_specs(self.config.as_ref(), &self.mcp_tools);
    }

    /// Why a call to `name` cannot be made now (its server is gone), if it cannot.
    pub fn unavailable(&self, name: &str) -> Option<ToolError> {
        self.mcp.unavailable(name)
    }

    /// A program or tool the person allowed for the rest of the session.
    pub fn allow_for_session(&mut self, keys: Vec<String>) {
        if let Some(t) = self.config.as_mut() {
            t.approvals.allow_for_session(keys);
        }
    }

    /// The number of the next approval question.
    pub fn next_question(&mut self) -> u64 {
        self.asked += 1;
        self.asked
    }

    /// A reply with no tool calls whose whole text is calls: those calls, if each names an
    /// offered tool and its arguments fit (see `tools::recover`).
    pub fn recover_calls(&self, text: &str, capable: bool) -> Vec<ToolCall> {
        let Some(t) = self.config.as_ref().filter(|_| capable) else {
            return Vec::new();
        };
        tools::recover::recover(text, |call| {
            // A call whose arguments fit is a call, even when what it names cannot be
            // used (a FIFO): it is answered with why, like the same call made properly.
            self.offered.iter().any(|s| s.name == call.name)
                && !matches!(
                    tools::prepare(call, &t.sandbox, &self.mcp_tools),
                    Err(ToolError::BadArgs(_) | ToolError::Unknown(..) | ToolError::Outside { .. })
                )
        })
    }
}
