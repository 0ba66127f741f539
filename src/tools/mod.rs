//! Tools the model may call: the built-in ones (files and a shell command, all inside the
//! working directory), their JSON schemas as Ollama takes them, and how a call is checked
//! and run.
//!
//! Strategy: a call is first *prepared* — its arguments parsed into a typed request and
//! its paths resolved inside the sandbox — which is where a bad call (unknown tool, missing
//! or ill-typed argument, a path that leads out) becomes a [`ToolError`] the model is told
//! about. A prepared call knows whether it reads, writes or executes and can say exactly
//! what it will do (the command line, the diff) for the approval dialog; only then is it
//! run. Every result is capped (`limit` bytes, a memory guard); what keeps a large one
//! from flooding the context is the engine's shortening (`core::results`), with the whole
//! result saved for `recall` (answered by the session, not here).
//!
//! Preparing opens nothing (a `stat` at most: a FIFO or a device is refused before any
//! dialog); what reads or writes files — [`Prepared::load`] (what an edit replaces, its
//! diff) and [`Prepared::run`] — runs on the blocking pool with a time limit, never on
//! the actor. Commands run under a supervisor that leaves nothing they started behind.
//!
//! This layer knows `core` (the call type) and nothing above it; the actor decides when
//! to ask the person and runs [`Prepared::run`] under its Stop handling.

mod command;
pub mod diff;
mod edit;
mod files;
mod fsio;
pub mod mcp;
pub mod orphans;
pub mod policy;
pub mod recover;
pub mod sandbox;
pub mod shell;
pub mod supervise;

use crate::core::message::ToolCall;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

pub use policy::{Approvals, Policy, ToolMode};
pub use sandbox::Sandbox;

/// What a tool does to the machine; decides whether it asks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
    Execute,
}

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub access: Access,
    /// Ollama's `{"type":"function","function":{…}}` object.
    pub schema: Value,
    /// When the tool is worth offering (the engine decides the offer, `engine/offer.rs`).
    pub need: crate::core::engine::Need,
}

/// Why a call did not run, in words the model can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    #[error("there is no tool named {0:?}; the tools are: {1}")]
    Unknown(String, String),
    #[error("the arguments are not valid: {0}")]
    BadArgs(String),
    #[error("{path:?} is outside the working directory {root}; only paths inside it can be used")]
    Outside { path: String, root: String },
    #[error("{0}")]
    Failed(String),
    #[error("the user denied this call{}", reason.as_ref().map(|r| format!(": {r}")).unwrap_or_default())]
    Denied { reason: Option<String> },
    #[error("this tool is turned off by the user's settings")]
    Disabled,
    /// The person stopped it while it ran: it did run, and this is what it did.
    #[error("stopped after {:.1} s; {so_far}", after.as_secs_f64())]
    Stopped {
        after: Duration,
        /// What it had done by then ("output so far: …"), or why that is not known.
        so_far: String,
    },
}

/// Asks a call that runs to stop and say what it did so far (a command: its output).
/// Dropping the sender without sending asks nothing.
pub type StopSignal = tokio::sync::oneshot::Receiver<()>;

/// Limits every tool runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// A result longer than this is cut, and says so. Below it, a result is kept whole
    /// on disk; the context holds a shortened form of a large one (`core::results`).
    pub output_bytes: usize,
    /// `run_command` is killed after this long.
    pub command_timeout: Duration,
    /// A file tool (reading, what an edit replaces, writing) is given up after this long:
    /// a slow or hung file system does not hold the session.
    pub file_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            output_bytes: 1024 * 1024,
            command_timeout: Duration::from_secs(60),
            file_timeout: Duration::from_secs(30),
        }
    }
}

/// What the tools act with on the person's behalf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolEnv {
    /// The person's usual umask: what the tools create in their project gets the
    /// permissions their own tools would give it (the app's own files stay 0600).
    pub umask: u32,
    /// This binary, which supervises each command ([`supervise`]); `None`: commands run
    /// in a process group of their own, without a subreaper.
    pub supervisor: Option<PathBuf>,
}

impl Default for ToolEnv {
    fn default() -> Self {
        ToolEnv {
            umask: 0o022,
            supervisor: None,
        }
    }
}

/// A call checked and ready to run.
#[derive(Debug, Clone)]
pub enum Prepared {
    ReadFile(files::ReadFile),
    ListFiles(files::ListFiles),
    SearchFiles(files::SearchFiles),
    WriteFile(edit::WriteFile),
    EditFile(edit::EditFile),
    RunCommand(command::RunCommand),
    Mcp(Box<mcp::McpCall>),
    /// Answered by the session, which holds the saved results.
    Recall(Recall),
    /// Answered by the session, which holds every message.
    SearchHistory(SearchHistory),
    /// Answered by the session: the engine sets the watermark after the model's answer.
    TaskDone,
}

/// A `recall` call: which saved result, which lines.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct Recall {
    #[serde(deserialize_with = "required_number")]
    pub id: u64,
    #[serde(default, deserialize_with = "lenient_number")]
    pub start_line: Option<u64>,
    #[serde(default, deserialize_with = "lenient_number")]
    pub end_line: Option<u64>,
}

/// The tool that searches the whole conversation (as Letta's `conversation_search`).
pub const SEARCH_HISTORY: &str = "search_history";

/// A `search_history` call: what to look for in the whole conversation, and how many
/// lines at most.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct SearchHistory {
    pub query: String,
    #[serde(default, deserialize_with = "lenient_number")]
    pub limit: Option<u64>,
}

fn required_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    lenient_number(d)?.ok_or_else(|| serde::de::Error::custom("id is required"))
}

/// A finished call: what the model is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub text: String,
    pub is_error: bool,
}

impl Outcome {
    pub fn ok(text: String) -> Outcome {
        Outcome {
            text,
            is_error: false,
        }
    }

    pub fn error(err: &ToolError) -> Outcome {
        Outcome {
            text: format!("Error: {err}"),
            is_error: true,
        }
    }
}

/// The built-in tools, in the order they are offered while the window has room for their
/// schemas. The schemas are short on purpose: each rides on every request that offers it
/// (`engine/offer.rs`), so a word in a description costs a token in every request. The
/// first five come to about 300 tokens, all nine to about 470 (cl100k; measured by
/// `builtin_schemas_stay_small`).
pub fn builtin_specs() -> Vec<ToolSpec> {
    use crate::core::engine::Need;
    fn spec(name: &str, access: Access, need: Need, description: &str, params: Value) -> ToolSpec {
        ToolSpec {
            name: name.to_string(),
            access,
            schema: json!({
                "type": "function",
                "function": { "name": name, "description": description, "parameters": params }
            }),
            need,
        }
    }
    vec![
        spec(
            "read_file",
            Access::Read,
            Need::Workspace,
            "Read a text file in the working directory; lines come numbered.",
            json!({"type": "object", "required": ["path"], "properties": {
                "path": {"type": "string"},
                "start_line": {"type": "integer"},
                "end_line": {"type": "integer"}
            }}),
        ),
        spec(
            "run_command",
            Access::Execute,
            Need::Workspace,
            "Run a shell command (sh -c) in the working directory; returns output and exit status.",
            json!({"type": "object", "required": ["command"], "properties": {
                "command": {"type": "string"}
            }}),
        ),
        spec(
            "list_files",
            Access::Read,
            Need::Workspace,
            "List files under a directory (respects .gitignore).",
            json!({"type": "object", "properties": {
                "path": {"type": "string"},
                "glob": {"type": "string", "description": "e.g. *.rs"},
                "depth": {"type": "integer"}
            }}),
        ),
        spec(
            "search_files",
            Access::Read,
            Need::Workspace,
            "Search file contents for a regex; returns path:line: text.",
            json!({"type": "object", "required": ["pattern"], "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string"},
                "glob": {"type": "string"}
            }}),
        ),
        spec(
            "edit_file",
            Access::Write,
            Need::Workspace,
            "Replace text that occurs exactly once in a file.",
            json!({"type": "object", "required": ["path", "old_text", "new_text"], "properties": {
                "path": {"type": "string"},
                "old_text": {"type": "string"},
                "new_text": {"type": "string"}
            }}),
        ),
        spec(
            "write_file",
            Access::Write,
            Need::Workspace,
            "Create or overwrite a file with the given content.",
            json!({"type": "object", "required": ["path", "content"], "properties": {
                "path": {"type": "string"},
                "content": {"type": "string"}
            }}),
        ),
        spec(
            "recall",
            Access::Read,
            Need::ShortenedResult,
            "Read back lines of a shortened tool result by the id it names.",
            json!({"type": "object", "required": ["id"], "properties": {
                "id": {"type": "integer"},
                "start_line": {"type": "integer"},
                "end_line": {"type": "integer"}
            }}),
        ),
        spec(
            SEARCH_HISTORY,
            Access::Read,
            Need::Folded,
            "Search everything said earlier in this conversation, parts no longer shown included; returns matching lines with message numbers.",
            json!({"type": "object", "required": ["query"], "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer"}
            }}),
        ),
        spec(
            crate::core::engine::TASK_DONE_TOOL,
            Access::Read,
            Need::ToolsInUse,
            "Call once the user's task is finished, then answer: its tool calls and results leave the conversation.",
            json!({"type": "object", "properties": {}}),
        ),
    ]
}

/// A whole number, or a string holding one: small models write `"start_line": "1"`
/// (measured on Qwen2.5-Coder 0.5B), and refusing that would throw away a good call.
pub(crate) fn lenient_number<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: std::str::FromStr + serde::Deserialize<'de>,
{
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum NumberOrText<T> {
        Number(T),
        Text(String),
    }
    match <Option<NumberOrText<T>> as serde::Deserialize>::deserialize(d)? {
        None => Ok(None),
        Some(NumberOrText::Number(n)) => Ok(Some(n)),
        Some(NumberOrText::Text(s)) => {
            s.trim().parse().map(Some).map_err(|_| {
                serde::de::Error::custom(format!("expected a whole number, got {s:?}"))
            })
        }
    }
}

fn args<T: DeserializeOwned>(raw: &str) -> Result<T, ToolError> {
    let value: Value = serde_json::from_str(raw.trim())
        .map_err(|e| ToolError::BadArgs(format!("not JSON ({e})")))?;
    if !value.is_object() {
        return Err(ToolError::BadArgs("expected a JSON object".into()));
    }
    serde_json::from_value(value).map_err(|e| ToolError::BadArgs(e.to_string()))
}

/// Check a call: the tool exists (built in, or one of `mcp`'s), its arguments fit, its
/// paths stay inside.
pub fn prepare(
    call: &ToolCall,
    sandbox: &Sandbox,
    mcp: &[mcp::McpTool],
) -> Result<Prepared, ToolError> {
    if let Some(t) = mcp.iter().find(|t| t.spec.name == call.name) {
        return Ok(Prepared::Mcp(Box::new(t.prepare(&call.args)?)));
    }
    Ok(match call.name.as_str() {
        "read_file" => Prepared::ReadFile(files::ReadFile::prepare(args(&call.args)?, sandbox)?),
        "list_files" => Prepared::ListFiles(files::ListFiles::prepare(args(&call.args)?, sandbox)?),
        "search_files" => {
            Prepared::SearchFiles(files::SearchFiles::prepare(args(&call.args)?, sandbox)?)
        }
        "write_file" => Prepared::WriteFile(edit::WriteFile::prepare(args(&call.args)?, sandbox)?),
        "edit_file" => Prepared::EditFile(edit::EditFile::prepare(args(&call.args)?, sandbox)?),
        "run_command" => {
            Prepared::RunCommand(command::RunCommand::prepare(args(&call.args)?, sandbox)?)
        }
        "recall" => Prepared::Recall(args(&call.args)?),
        SEARCH_HISTORY => Prepared::SearchHistory(args(&call.args)?),
        crate::core::engine::TASK_DONE_TOOL => Prepared::TaskDone,
        other => {
            let names: Vec<String> = builtin_specs()
                .into_iter()
                .map(|s| s.name)
                .chain(mcp.iter().map(|t| t.spec.name.clone()))
                .collect();
            return Err(ToolError::Unknown(other.to_string(), names.join(", ")));
        }
    })
}

impl Prepared {
    pub fn access(&self) -> Access {
        match self {
            Prepared::ReadFile(_)
            | Prepared::ListFiles(_)
            | Prepared::SearchFiles(_)
            | Prepared::Recall(_)
            | Prepared::SearchHistory(_)
            | Prepared::TaskDone => Access::Read,
            Prepared::WriteFile(_) | Prepared::EditFile(_) => Access::Write,
            Prepared::RunCommand(_) | Prepared::Mcp(_) => Access::Execute,
        }
    }

    /// Exactly what will happen, for the approval dialog: the command line, the diff (an
    /// edit's once [`Prepared::load`]ed).
    pub fn preview(&self, sandbox: &Sandbox) -> String {
        match self {
            Prepared::ReadFile(r) => format!("read {}", sandbox.show(&r.path)),
            Prepared::ListFiles(l) => format!("list {}", sandbox.show(&l.path)),
            Prepared::SearchFiles(s) => {
                format!("search {:?} in {}", s.pattern, sandbox.show(&s.path))
            }
            Prepared::WriteFile(w) => w.preview(sandbox),
            Prepared::EditFile(e) => e.preview(sandbox),
            Prepared::RunCommand(c) => command_preview(&c.command),
            Prepared::Mcp(c) => c.preview(),
            Prepared::Recall(r) => format!("recall result {}", r.id),
            Prepared::SearchHistory(q) => format!("search the conversation for {:?}", q.query),
            Prepared::TaskDone => "mark the task done".to_string(),
        }
    }

    /// For a command: the programs it runs, or why that cannot be told ([`shell`]).
    pub fn programs(&self) -> Option<Result<Vec<String>, shell::Opaque>> {
        match self {
            Prepared::RunCommand(c) => Some(shell::programs(&c.command)),
            _ => None,
        }
    }

    /// The session allowances that would let this call run unasked
    /// ([`Approvals::verdict`]): the tool, or one per program a command runs; `None` for
    /// a command line that cannot be read through.
    pub fn session_keys(&self, tool: &str) -> Option<Vec<String>> {
        match self.programs() {
            Some(Ok(programs)) => Some(
                programs
                    .into_iter()
                    .map(|p| format!("run_command:{p}"))
                    .collect(),
            ),
            Some(Err(_)) => None,
            None => Some(vec![tool.to_string()]),
        }
    }

    /// Read what it needs before it can be shown and asked about — what a write or an
    /// edit replaces, and its diff — off the actor, within the file time limit.
    pub async fn load(self, sandbox: &Sandbox, limits: Limits) -> Result<Prepared, ToolError> {
        if !matches!(self, Prepared::WriteFile(_) | Prepared::EditFile(_)) {
            return Ok(self);
        }
        let sb = sandbox.clone();
        off_the_actor(limits.file_timeout, move || match self {
            Prepared::WriteFile(mut w) => w.load(&sb).map(|()| Prepared::WriteFile(w)),
            Prepared::EditFile(mut e) => e.load(&sb).map(|()| Prepared::EditFile(e)),
            other => Ok(other),
        })
        .await
    }

    /// Run it. File work goes to a blocking thread, within the file time limit; a command
    /// stops (with everything it started) on `stop`, saying what it printed so far, or
    /// when this future is dropped.
    pub async fn run(
        self,
        sandbox: &Sandbox,
        limits: Limits,
        env: &ToolEnv,
        stop: StopSignal,
    ) -> Outcome {
        let sb = sandbox.clone();
        let umask = env.umask;
        let result = match self {
            Prepared::RunCommand(c) => c.run(sandbox.root(), limits, env, stop).await,
            Prepared::Mcp(c) => return c.run(limits.command_timeout, limits.output_bytes).await,
            other => {
                off_the_actor(limits.file_timeout, move || {
                    other.run_blocking(&sb, limits, umask)
                })
                .await
            }
        };
        match result {
            Ok(text) => Outcome::ok(text),
            Err(e) => Outcome::error(&e),
        }
    }

    fn run_blocking(
        self,
        sandbox: &Sandbox,
        limits: Limits,
        umask: u32,
    ) -> Result<String, ToolError> {
        match self {
            Prepared::ReadFile(r) => r.run(sandbox, limits),
            Prepared::ListFiles(l) => l.run(sandbox, limits),
            Prepared::SearchFiles(s) => s.run(sandbox, limits),
            Prepared::WriteFile(w) => w.run(sandbox, umask),
            Prepared::EditFile(e) => e.run(sandbox, umask),
            Prepared::RunCommand(_)
            | Prepared::Mcp(_)
            | Prepared::Recall(_)
            | Prepared::SearchHistory(_)
            | Prepared::TaskDone => Err(ToolError::Failed("not a blocking tool".into())),
        }
    }
}

/// Blocking file work on the blocking pool, given up after `limit` (the thread finishes
/// on its own; every read it does is bounded).
async fn off_the_actor<T: Send + 'static>(
    limit: Duration,
    work: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    match tokio::time::timeout(limit, tokio::task::spawn_blocking(work)).await {
        Ok(Ok(result)) => result,
        Ok(Err(e)) => Err(ToolError::Failed(format!("the tool crashed: {e}"))),
        Err(_) => Err(ToolError::Failed(format!(
            "the file did not answer within {} s (a slow or hung file system?); it was given up",
            limit.as_secs()
        ))),
    }
}

/// A command as the dialog shows it: every line, with runs of blank lines said as such
/// so that nothing after them is pushed out of sight.
fn command_preview(command: &str) -> String {
    let lines: Vec<&str> = command.split('\n').collect();
    let mut out = format!("$ {}", lines[0]);
    let blank = |l: &str| l.chars().all(|c| c == ' ' || c == '\t');
    let mut i = 1;
    while i < lines.len() {
        let run = lines[i..].iter().take_while(|l| blank(l)).count();
        if run >= 2 {
            out.push_str(&format!("\n  [{run} blank lines]"));
            i += run;
        } else {
            out.push_str("\n  ");
            out.push_str(lines[i]);
            i += 1;
        }
    }
    if lines.len() > 1 {
        out = format!("({} lines)\n{out}", lines.len());
    }
    out
}

/// Cut `text` to `limit` bytes on a character boundary, saying what was left out.
pub(crate) fn cap(mut text: String, limit: usize, hint: &str) -> String {
    if text.len() <= limit {
        return text;
    }
    let total = text.len();
    let mut end = crate::core::sanitize::byte_prefix(&text, limit).len();
    if let Some(nl) = text[..end].rfind('\n') {
        end = nl + 1;
    }
    text.truncate(end);
    text.push_str(&format!("[… cut: {} of {total} bytes shown; {hint}]", end));
    text
}

/// Whether `path` looks like text (no NUL in its first 8 KiB).
pub(crate) fn looks_binary(head: &[u8]) -> bool {
    head.contains(&0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn call(name: &str, args: &str) -> ToolCall {
        ToolCall {
            id: String::new(),
            name: name.into(),
            args: args.into(),
            from_text: false,
        }
    }

    #[test]
    fn bad_calls_are_errors_the_model_can_read() {
        let dir = tempfile::tempdir().unwrap();
        let sb = Sandbox::new(dir.path()).unwrap();
        let e = prepare(&call("rm_rf", "{}"), &sb, &[]).unwrap_err();
        assert!(e.to_string().contains("read_file"), "{e}");
        let e = prepare(&call("read_file", "{}"), &sb, &[]).unwrap_err();
        assert!(e.to_string().contains("path"), "{e}");
        let e = prepare(&call("read_file", r#"{"path": 3}"#), &sb, &[]).unwrap_err();
        assert!(matches!(e, ToolError::BadArgs(_)), "{e}");
        let e = prepare(
            &call("read_file", r#"{"path": "x", "start_line": "one"}"#),
            &sb,
            &[],
        )
        .unwrap_err();
        assert!(e.to_string().contains("whole number"), "{e}");
        assert!(matches!(e, ToolError::BadArgs(_)), "{e}");
        let e = prepare(&call("read_file", r#"{"path": "x""#), &sb, &[]).unwrap_err();
        assert!(e.to_string().contains("not JSON"), "{e}");
        let e = prepare(&call("read_file", r#"["x"]"#), &sb, &[]).unwrap_err();
        assert!(e.to_string().contains("object"), "{e}");
        let e = prepare(&call("read_file", r#"{"path": "../x"}"#), &sb, &[]).unwrap_err();
        assert!(matches!(e, ToolError::Outside { .. }), "{e}");
    }

    #[test]
    fn numbers_written_as_text_are_read_as_numbers() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("n.txt"), "a\nb\nc\nd\n").unwrap();
        let sb = Sandbox::new(dir.path()).unwrap();
        let as_text = r#"{"path": "n.txt", "start_line": "2", "end_line": " 3 "}"#;
        let as_numbers = r#"{"path": "n.txt", "start_line": 2, "end_line": 3}"#;
        assert_eq!(
            format!(
                "{:?}",
                prepare(&call("read_file", as_text), &sb, &[]).unwrap()
            ),
            format!(
                "{:?}",
                prepare(&call("read_file", as_numbers), &sb, &[]).unwrap()
            )
        );
        let listed = prepare(&call("list_files", r#"{"depth": "1"}"#), &sb, &[]);
        assert!(listed.is_ok(), "{listed:?}");
    }

    #[test]
    fn a_multi_line_command_is_shown_whole_with_blank_runs_said() {
        let cmd = format!("echo harmless{}touch pwned", "\n".repeat(301));
        let p = command_preview(&cmd);
        assert_eq!(
            p,
            "(302 lines)\n$ echo harmless\n  [300 blank lines]\n  touch pwned"
        );
        assert_eq!(command_preview("cargo test"), "$ cargo test");
    }

    #[test]
    fn cap_cuts_on_a_line_and_says_so() {
        let text = "line one\nline two\nline three\n".to_string();
        let cut = cap(text.clone(), 14, "ask for less");
        assert!(cut.starts_with("line one\n"));
        assert!(!cut.contains("line two"));
        assert!(cut.contains("9 of 29 bytes shown; ask for less"), "{cut}");
        assert_eq!(cap(text.clone(), 100, "x"), text);
        let wide = "日本語".repeat(10);
        let cut = cap(wide, 10, "x");
        assert!(cut.starts_with("日本語"));
    }
}
