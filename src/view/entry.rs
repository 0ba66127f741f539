//! One transcript entry: what the actor publishes and the ui draws. Messages, notices
//! (already in words: the app writes them) and fold dividers share this one type.

use crate::core::message::{Message, MessageId, ReplyStatus, Role};
use chrono::{DateTime, Utc};
use serde_json::Value;

/// How urgent a notice is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// Not news: figures the person asked to see (`/set verbose`'s timing), drawn dim and
    /// without an icon so they stay out of the way of the conversation.
    Quiet,
    Info,
    Warn,
    Error,
}

/// Where an assistant reply is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplyState {
    Streaming,
    Complete,
    /// The stream died or the user stopped it; the partial text is kept.
    Interrupted,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    User,
    Assistant {
        state: ReplyState,
    },
    Tool {
        name: String,
        is_error: bool,
        /// The call's key argument (the path, the command), for the one-line summary.
        detail: String,
        /// All its arguments (JSON), for the expanded view.
        args: String,
        /// How long it ran.
        ms: Option<u64>,
        /// The length in characters of the whole result, when the model saw it
        /// shortened (the entry's text is the shortened form).
        original_chars: Option<u64>,
        /// What the model saw are its own notes on the result (layer 1), not a shortening.
        summarized: bool,
    },
    /// A note from the app itself (not part of the conversation).
    Notice(Severity),
    /// Where earlier messages were folded into a checkpoint.
    Fold {
        checkpoint: u32,
        messages: usize,
        tokens: u32,
        /// Set once the checkpoint was merged into an older one (aging).
        merged_into: Option<u32>,
    },
}

/// One displayed item.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: Option<MessageId>,
    pub kind: EntryKind,
    pub text: String,
    pub ts: DateTime<Utc>,
    pub pinned: bool,
    /// The checkpoint that now stands for this message in the model's context.
    pub folded: Option<u32>,
    /// A reply's reasoning (thinking models), shown collapsed above its text.
    pub thinking: String,
    /// The pictures a person's message carried, shown as a chip a line under it.
    pub images: Vec<crate::core::image::ImageRef>,
}

impl Entry {
    pub fn new(kind: EntryKind, text: impl Into<String>, ts: DateTime<Utc>) -> Entry {
        Entry {
            id: None,
            kind,
            text: text.into(),
            ts,
            pinned: false,
            folded: None,
            thinking: String::new(),
            images: Vec::new(),
        }
    }

    pub fn user(text: impl Into<String>, ts: DateTime<Utc>) -> Entry {
        Entry::new(EntryKind::User, text, ts)
    }

    pub fn assistant(text: impl Into<String>, state: ReplyState, ts: DateTime<Utc>) -> Entry {
        Entry::new(EntryKind::Assistant { state }, text, ts)
    }

    pub fn notice(level: Severity, text: impl Into<String>, ts: DateTime<Utc>) -> Entry {
        Entry::new(EntryKind::Notice(level), text, ts)
    }

    /// The entry showing a history message.
    pub fn from_message(m: &Message) -> Entry {
        let kind = match m.role {
            Role::User => EntryKind::User,
            Role::Assistant => EntryKind::Assistant {
                state: match m.status {
                    ReplyStatus::Complete => ReplyState::Complete,
                    ReplyStatus::Interrupted => ReplyState::Interrupted,
                },
            },
            Role::Tool => EntryKind::Tool {
                name: m.tool.as_ref().map(|t| t.name.clone()).unwrap_or_default(),
                is_error: m.is_tool_error(),
                detail: m
                    .tool
                    .as_ref()
                    .map(|t| key_argument(&t.args))
                    .unwrap_or_default(),
                args: m.tool.as_ref().map(|t| t.args.clone()).unwrap_or_default(),
                ms: m.tool.as_ref().and_then(|t| t.ms),
                original_chars: m
                    .tool
                    .as_ref()
                    .and_then(|t| t.original.as_ref())
                    .map(|o| o.chars),
                summarized: m
                    .tool
                    .as_ref()
                    .and_then(|t| t.original.as_ref())
                    .is_some_and(|o| o.summarized),
            },
        };
        Entry {
            id: Some(m.id),
            kind,
            text: m.text.clone(),
            ts: m.ts,
            pinned: m.pinned,
            folded: None,
            thinking: m.thinking.clone(),
            images: m.images.clone(),
        }
    }

    /// A reply still arriving.
    pub fn is_streaming(&self) -> bool {
        matches!(
            self.kind,
            EntryKind::Assistant {
                state: ReplyState::Streaming
            }
        )
    }
}

/// A short form of a call's key argument, for the transcript's one-line summary.
pub fn key_argument(args: &str) -> String {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(args) else {
        return String::new();
    };
    for key in [
        "command", "path", "pattern", "glob", "dir", "file", "query", "url",
    ] {
        if let Some(Value::String(s)) = map.get(key) {
            return s.clone();
        }
    }
    map.values()
        .find_map(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_argument_picks_what_says_most() {
        assert_eq!(key_argument(r#"{"command":"ls -l"}"#), "ls -l");
        assert_eq!(key_argument(r#"{"start_line":1,"path":"a.rs"}"#), "a.rs");
        assert_eq!(key_argument("not json"), "");
    }
}
