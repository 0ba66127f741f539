//! Messages of the conversation as the session history holds them.
//!
//! A message's id is the sequence number of the log record that created it, so ids are
//! unique, strictly increasing, and stable across restarts and restores. The token count
//! is computed once when the message enters the engine and cached here; nothing re-counts
//! history per turn.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Identity of a message: the `seq` of the log record that introduced it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MessageId(pub u64);

impl std::fmt::Display for MessageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Who produced a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    /// The result of a tool call, fed back to the model.
    Tool,
}

/// Whether an assistant reply arrived in full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplyStatus {
    #[default]
    Complete,
    /// The stream died or the user stopped it; the partial text is kept and marked.
    Interrupted,
}

/// Tool call details carried by a `Role::Tool` message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    /// Arguments as the model sent them (JSON text).
    pub args: String,
    /// Tool errors are never summarized (they are what debugging needs).
    pub is_error: bool,
    /// The call this result answers (Ollama's `tool_call_id`), when the model gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// How long the tool ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// Set when the context holds a shortened form: where the whole result is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original: Option<Original>,
}

/// A tool result kept whole on disk while the context holds a shorter form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Original {
    /// The file's name in the session's results directory.
    pub file: String,
    /// Its length in characters.
    pub chars: u64,
    /// The context got the model's notes on it (layer 1), not a shortened form.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub summarized: bool,
}

/// A tool call the model asked for, kept with the assistant message that made it so the
/// next request can show the model its own call beside the result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The server's id for the call (`call_…`); empty when it gave none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    pub name: String,
    /// The arguments as JSON text (an object, as Ollama sends them), kept as the model
    /// wrote them: core does not parse JSON, the tool that runs the call does.
    pub args: String,
    /// Recovered from a reply that wrote the call as plain JSON text instead of the
    /// model's tool-call syntax (small models do).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_text: bool,
}

/// One message of the session history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub id: MessageId,
    pub role: Role,
    pub text: String,
    pub ts: DateTime<Utc>,
    #[serde(default)]
    pub status: ReplyStatus,
    /// Pinned messages are never folded into a checkpoint.
    #[serde(default)]
    pub pinned: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolInfo>,
    /// The tool calls an assistant message made (answered by the tool messages after it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<ToolCall>,
    /// An assistant message's reasoning (thinking models): shown and stored, never part
    /// of a prompt.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub thinking: String,
    /// Cached raw token count (tiktoken, before calibration), with what its images cost.
    #[serde(default)]
    pub tokens: u32,
    /// Pictures the person attached (a user message): sent while the message is active,
    /// gone from the request once it is folded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<crate::core::image::ImageRef>,
}

impl Message {
    pub fn is_tool_error(&self) -> bool {
        self.tool.as_ref().is_some_and(|t| t.is_error)
    }
}
