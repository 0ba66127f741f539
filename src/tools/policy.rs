//! Who decides whether a call runs: the mode (`--tools`, `[tools] mode`), a per-tool
//! policy from the config, and what the person allowed for this session.
//!
//! Invariant: with the defaults nothing that writes or executes runs without asking.

use super::Access;
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};

/// How much the model may do (`--tools off|read|ask|auto`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ToolMode {
    /// No tools are offered.
    Off,
    /// Only tools that read are offered.
    Read,
    /// Reading runs; writing and executing ask first.
    #[default]
    Ask,
    /// Everything runs without asking (per-tool policies still apply).
    Auto,
}

/// What to do with one tool's calls (`[tools.policy] run_command = "ask"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    Allow,
    Ask,
    Deny,
}

/// The decision for one call before the person is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Run,
    Ask,
    Refuse,
}

/// The rules of this session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Approvals {
    pub mode: ToolMode,
    pub policy: BTreeMap<String, Policy>,
    /// Allowed for this session by the person: tool names, or `run_command:PREFIX`.
    session: HashSet<String>,
}

impl Approvals {
    pub fn new(mode: ToolMode, policy: BTreeMap<String, Policy>) -> Approvals {
        Approvals {
            mode,
            policy,
            session: HashSet::new(),
        }
    }

    /// Whether a tool is offered to the model at all.
    pub fn offered(&self, tool: &str, access: Access) -> bool {
        match self.mode {
            ToolMode::Off => false,
            ToolMode::Read if access != Access::Read => false,
            _ => self.policy.get(tool) != Some(&Policy::Deny),
        }
    }

    /// What happens to a call of `tool` (`key`: what a session allowance would cover).
    pub fn verdict(&self, tool: &str, access: Access, key: &str) -> Verdict {
        if !self.offered(tool, access) {
            return Verdict::Refuse;
        }
        match self.policy.get(tool) {
            Some(Policy::Allow) => return Verdict::Run,
            Some(Policy::Deny) => return Verdict::Refuse,
            Some(Policy::Ask) => {}
            None if self.mode == ToolMode::Auto || access == Access::Read => return Verdict::Run,
            None => {}
        }
        if self.session.contains(key) || self.session.contains(tool) {
            Verdict::Run
        } else {
            Verdict::Ask
        }
    }

    /// The person allowed `key` for the rest of the session.
    pub fn allow_for_session(&mut self, key: String) {
        self.session.insert(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_default_reading_runs_and_everything_else_asks() {
        let a = Approvals::new(ToolMode::Ask, BTreeMap::new());
        assert_eq!(
            a.verdict("read_file", Access::Read, "read_file"),
            Verdict::Run
        );
        assert_eq!(
            a.verdict("write_file", Access::Write, "write_file"),
            Verdict::Ask
        );
        assert_eq!(
            a.verdict("run_command", Access::Execute, "run_command:ls"),
            Verdict::Ask
        );
    }

    #[test]
    fn modes_and_policies() {
        let read = Approvals::new(ToolMode::Read, BTreeMap::new());
        assert!(!read.offered("run_command", Access::Execute));
        assert_eq!(
            read.verdict("run_command", Access::Execute, "x"),
            Verdict::Refuse
        );
        let off = Approvals::new(ToolMode::Off, BTreeMap::new());
        assert!(!off.offered("read_file", Access::Read));
        let auto = Approvals::new(
            ToolMode::Auto,
            BTreeMap::from([("run_command".to_string(), Policy::Ask)]),
        );
        assert_eq!(
            auto.verdict("write_file", Access::Write, "write_file"),
            Verdict::Run
        );
        assert_eq!(
            auto.verdict("run_command", Access::Execute, "run_command:rm"),
            Verdict::Ask
        );
        let deny = Approvals::new(
            ToolMode::Ask,
            BTreeMap::from([("read_file".to_string(), Policy::Deny)]),
        );
        assert!(!deny.offered("read_file", Access::Read));
    }

    #[test]
    fn a_session_allowance_covers_its_prefix_only() {
        let mut a = Approvals::new(ToolMode::Ask, BTreeMap::new());
        a.allow_for_session("run_command:cargo".into());
        assert_eq!(
            a.verdict("run_command", Access::Execute, "run_command:cargo"),
            Verdict::Run
        );
        assert_eq!(
            a.verdict("run_command", Access::Execute, "run_command:rm"),
            Verdict::Ask
        );
        a.allow_for_session("edit_file".into());
        assert_eq!(
            a.verdict("edit_file", Access::Write, "edit_file"),
            Verdict::Run
        );
    }
}
