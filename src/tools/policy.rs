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
    /// Allowed for this session by the person: tool names, or `run_command:PROGRAM`.
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

    /// What happens to a call of `tool`. `keys`: the session allowances that would let it
    /// run — all of them must have been given (a command: one per program it runs);
    /// `None` when none can (a command line that cannot be read through).
    pub fn verdict(&self, tool: &str, access: Access, keys: Option<&[String]>) -> Verdict {
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
        let allowed =
            keys.is_some_and(|k| !k.is_empty() && k.iter().all(|k| self.session.contains(k)));
        if allowed { Verdict::Run } else { Verdict::Ask }
    }

    /// The person allowed `keys` for the rest of the session.
    pub fn allow_for_session(&mut self, keys: impl IntoIterator<Item = String>) {
        self.session.extend(keys);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_default_reading_runs_and_everything_else_asks() {
        let a = Approvals::new(ToolMode::Ask, BTreeMap::new());
        assert_eq!(
            a.verdict("read_file", Access::Read, Some(&keys(&["read_file"]))),
            Verdict::Run
        );
        assert_eq!(
            a.verdict("write_file", Access::Write, Some(&keys(&["write_file"]))),
            Verdict::Ask
        );
        assert_eq!(
            a.verdict(
                "run_command",
                Access::Execute,
                Some(&keys(&["run_command:ls"]))
            ),
            Verdict::Ask
        );
    }

    #[test]
    fn modes_and_policies() {
        let read = Approvals::new(ToolMode::Read, BTreeMap::new());
        assert!(!read.offered("run_command", Access::Execute));
        assert_eq!(
            read.verdict("run_command", Access::Execute, None),
            Verdict::Refuse
        );
        let off = Approvals::new(ToolMode::Off, BTreeMap::new());
        assert!(!off.offered("read_file", Access::Read));
        let auto = Approvals::new(
            ToolMode::Auto,
            BTreeMap::from([("run_command".to_string(), Policy::Ask)]),
        );
        assert_eq!(
            auto.verdict("write_file", Access::Write, Some(&keys(&["write_file"]))),
            Verdict::Run
        );
        assert_eq!(
            auto.verdict(
                "run_command",
                Access::Execute,
                Some(&keys(&["run_command:rm"]))
            ),
            Verdict::Ask
        );
        let deny = Approvals::new(
            ToolMode::Ask,
            BTreeMap::from([("read_file".to_string(), Policy::Deny)]),
        );
        assert!(!deny.offered("read_file", Access::Read));
    }

    fn keys(k: &[&str]) -> Vec<String> {
        k.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_session_allowance_covers_a_command_only_when_it_covers_every_program() {
        let mut a = Approvals::new(ToolMode::Ask, BTreeMap::new());
        a.allow_for_session(keys(&["run_command:cargo", "run_command:tail"]));
        let run =
            |a: &Approvals, k: &[&str]| a.verdict("run_command", Access::Execute, Some(&keys(k)));
        assert_eq!(run(&a, &["run_command:cargo"]), Verdict::Run);
        assert_eq!(
            run(&a, &["run_command:cargo", "run_command:tail"]),
            Verdict::Run
        );
        assert_eq!(run(&a, &["run_command:rm"]), Verdict::Ask);
        assert_eq!(
            run(&a, &["run_command:cargo", "run_command:rm"]),
            Verdict::Ask,
            "one program not allowed: the whole line asks"
        );
        // A line that cannot be read through always asks.
        assert_eq!(
            a.verdict("run_command", Access::Execute, None),
            Verdict::Ask
        );
        assert_eq!(run(&a, &[]), Verdict::Ask);
        a.allow_for_session(keys(&["edit_file"]));
        assert_eq!(
            a.verdict("edit_file", Access::Write, Some(&keys(&["edit_file"]))),
            Verdict::Run
        );
    }
}
