//! The session log's record types: what the engine asks to persist, and what replay reads.
//!
//! The log is append-only. Every state change of the engine is one [`Record`]; replaying
//! the records of a session in order rebuilds exactly the same state (active context,
//! checkpoints, goals, settings). Raw messages are never rewritten: compression appends a
//! checkpoint record naming the message ids it covers, so history stays complete.

use crate::core::checkpoint::{Checkpoint, CheckpointId};
use crate::core::goals::{Author, GoalBoard, GoalChange};
use crate::core::message::{MessageId, ReplyStatus, ToolCall};
use crate::core::mode::Mode;
use crate::core::params::SessionParams;
/// Kept here too: a snapshot record names it, and most readers of records look here.
pub use crate::core::purpose::SnapshotPurpose;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Format name written in every header, so a stray file is recognised as ours.
pub const LOG_FORMAT: &str = "ollm-session";
/// Version of the session log and snapshot formats. Newer versions are refused, never
/// overwritten.
pub const FORMAT_VERSION: u32 = 1;

/// First line of a session log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub format: String,
    pub format_version: u32,
    pub session_id: String,
    pub app_version: String,
    pub model: String,
    pub created: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ctx: Option<u32>,
    #[serde(default)]
    pub mode: Mode,
    /// The session this one was forked from (`/fork`), and at which message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_of: Option<ForkOrigin>,
    /// The person's system prompt and sampling parameters for this session (`/system`,
    /// `/set`).
    #[serde(default, skip_serializing_if = "SessionParams::is_empty")]
    pub params: SessionParams,
}

/// Where a fork came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkOrigin {
    pub session_id: String,
    /// The last message of the parent the fork holds.
    pub at: u64,
}

/// What a `settings` record changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SettingsChanged {
    pub model: bool,
    pub ctx: bool,
    pub params: bool,
}

impl Header {
    /// Apply a `settings` record to the session's settings (the header holds them: model,
    /// ctx — 0 meaning the model's own —, mode, and the person's system prompt and
    /// parameters). The one fold of settings that replay, the session file and the session
    /// list share. Other records change nothing here.
    pub fn apply_settings(&mut self, body: &RecordBody) -> SettingsChanged {
        let mut changed = SettingsChanged::default();
        if let RecordBody::Settings {
            model,
            ctx,
            mode,
            params,
        } = body
        {
            if let Some(m) = model
                && *m != self.model
            {
                self.model = m.clone();
                changed.model = true;
            }
            if let Some(c) = ctx {
                self.ctx = (*c > 0).then_some(*c);
                changed.ctx = true;
            }
            if let Some(m) = mode {
                self.mode = *m;
            }
            if let Some(p) = params {
                changed.params = *p != self.params;
                self.params = p.clone();
            }
        }
        changed
    }
}

/// One line of the session log after the header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Strictly increasing from 1. A message's id is the seq of its record.
    pub seq: u64,
    pub ts: DateTime<Utc>,
    #[serde(flatten)]
    pub body: RecordBody,
}

/// The state of the active context at a point in time, by reference to history.
/// Messages are named by id; their text lives in the session history.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ActiveState {
    /// Live checkpoints, oldest first.
    pub checkpoints: Vec<Checkpoint>,
    /// Ids of the messages in the active context (not folded), in order.
    pub messages: Vec<MessageId>,
    pub goals: GoalBoard,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ctx: Option<u32>,
    pub mode: Mode,
    /// Compressions performed so far (drives reliability).
    pub compressions: u32,
    /// Messages shown to the model cut down (emergency only), by id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clips: Vec<Clip>,
    /// The last task-done watermark: tool calls and results up to it left the context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watermark: Option<MessageId>,
    /// Older tool results the model sees cut down from their originals.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reduced: Vec<ReducedResult>,
}

/// A tool result as the model sees it after layer 2 cut it down.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReducedResult {
    pub id: MessageId,
    pub text: String,
    pub tokens: u32,
}

/// One message's sentence vectors in a `sentence_vectors` record: `vectors` is what
/// `semantic::encode_vectors` writes (half floats, base64).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageVectors {
    pub id: MessageId,
    pub vectors: String,
}

/// An emergency cut of one message in the active context: the model sees its first
/// `head_chars` and last `tail_chars` characters around a marker. History keeps it whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clip {
    pub id: MessageId,
    pub head_chars: usize,
    pub tail_chars: usize,
    pub omitted_tokens: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RecordBody {
    /// Written before the request goes out.
    User {
        text: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        pinned: bool,
        /// Cached token count, so loading does not re-tokenize history.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tokens: Option<u32>,
        /// Pictures attached to the message; their bytes are stored beside the log by
        /// hash. Absent in logs written before pictures (#39).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<crate::core::image::ImageRef>,
    },
    /// Written when the reply completes, or as `interrupted` with its partial text.
    Assistant {
        text: String,
        status: ReplyStatus,
        model: String,
        /// What Ollama reported it evaluated for the prompt.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt_eval_count: Option<u32>,
        /// Prompt tokens the server reported as cached (apart from the count above).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt_eval_cached: Option<u32>,
        /// Our raw (uncalibrated) estimate of the same prompt, for calibration on replay.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt_estimate: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        eval_count: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tokens: Option<u32>,
        /// The tools the reply asked to run; each is answered by a `tool` record.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// What a thinking model reasoned before it answered: kept for the person (the
        /// transcript, exports), never sent back to the model.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        thinking: String,
    },
    /// A tool call with its result.
    Tool {
        name: String,
        args: String,
        result: String,
        #[serde(default)]
        is_error: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tokens: Option<u32>,
        /// The call this answers (its id in the assistant record's `tool_calls`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
        /// How long the tool ran, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ms: Option<u64>,
        /// `result` is a shortened form; the whole result is this saved file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        original: Option<crate::core::message::Original>,
    },
    /// A compression created this checkpoint.
    Checkpoint {
        checkpoint: Checkpoint,
    },
    /// An existing checkpoint was aged (re-summarized at a lower level); replaces it.
    CheckpointAged {
        checkpoint: Checkpoint,
    },
    /// These checkpoints were merged into one; the new one takes the first one's place.
    CheckpointsMerged {
        merged: Vec<CheckpointId>,
        checkpoint: Checkpoint,
    },
    /// The model summarized a fold made without a summary (`Summarize`), and the summary
    /// was checked against the span's facts: it carried `carried` of `facts`. `summary` is
    /// empty when it did not earn its place (the fold keeps its facts only).
    CheckpointSummarized {
        id: CheckpointId,
        summary: String,
        tokens: u32,
        carried: u32,
        facts: u32,
    },
    Goal {
        change: GoalChange,
        author: Author,
    },
    Pin {
        id: MessageId,
        pinned: bool,
    },
    /// The person pinned, reworded, forgot or took back a fact of the ledger (`/facts`),
    /// named by its line as extracted.
    Fact {
        fact: String,
        edit: crate::core::ledger::FactEdit,
    },
    /// Emergency: a message in the active context is shown cut down (see [`Clip`]).
    Clip {
        clip: Clip,
    },
    /// An older tool result is shown to the model cut down from its original (the
    /// context's second layer of keeping results small; `core::engine::reduce`).
    ResultReduced {
        id: MessageId,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tokens: Option<u32>,
    },
    /// A task was finished (`/done`, or the model's `task_done`): the tool calls and
    /// results up to `at` leave the active context; the conversation's text stays.
    Watermark {
        at: MessageId,
    },
    /// A picture of message `from` folded before the model answered about it, and the
    /// model, asked then, described it: the fold's line `old` (naming the picture) is
    /// `new` now (its description, marked as the model's).
    PictureDescribed {
        from: MessageId,
        old: String,
        new: String,
    },
    /// Something the transcript said when it happened (a compression, a merge, an
    /// emergency cut, a suspected truncation, a restore), kept so that a resumed session
    /// shows it where it was. Replay changes no state with it.
    Event {
        event: crate::core::events::EngineEvent,
    },
    /// The embedding vectors of folded messages' sentences (recall by meaning), all from
    /// `model`: for each message, one vector per sentence `RecallIndex::sentences` gives
    /// for its text, in order. Kept so that replay restores them without asking the model
    /// again; a later record of another model replaces the vectors held.
    SentenceVectors {
        model: String,
        messages: Vec<MessageVectors>,
    },
    /// The session's title, written by the model after its first answer (`Input::Titled`):
    /// about the session, not the conversation, but kept by the writer like every other
    /// record so it has the log's durability and order. Empty: the session has no title of
    /// the model's (a fork, whose parent's title is not its own, keeps the seq this way).
    /// A title the person gives (rename) is a file beside the log instead
    /// (`store::manage`), and wins.
    Title {
        title: String,
    },
    /// A snapshot file was written.
    Snapshot {
        snapshot_id: String,
        purpose: SnapshotPurpose,
    },
    /// The active state was replaced by a snapshot's.
    Restore {
        snapshot_id: String,
        state: ActiveState,
    },
    Settings {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ctx: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<Mode>,
        /// The whole set of the person's system prompt and parameters after the change
        /// (`/system`, `/set`): a record carries them all, so each one restores exactly.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        params: Option<SessionParams>,
    },
}

impl RecordBody {
    /// The record's `type` tag, for counting and display.
    pub fn kind(&self) -> &'static str {
        match self {
            RecordBody::User { .. } => "user",
            RecordBody::Assistant { .. } => "assistant",
            RecordBody::Tool { .. } => "tool",
            RecordBody::Checkpoint { .. } => "checkpoint",
            RecordBody::CheckpointAged { .. } => "checkpoint_aged",
            RecordBody::CheckpointsMerged { .. } => "checkpoints_merged",
            RecordBody::CheckpointSummarized { .. } => "checkpoint_summarized",
            RecordBody::Goal { .. } => "goal",
            RecordBody::Pin { .. } => "pin",
            RecordBody::Fact { .. } => "fact",
            RecordBody::Clip { .. } => "clip",
            RecordBody::Snapshot { .. } => "snapshot",
            RecordBody::Restore { .. } => "restore",
            RecordBody::Watermark { .. } => "watermark",
            RecordBody::PictureDescribed { .. } => "picture_described",
            RecordBody::Event { .. } => "event",
            RecordBody::SentenceVectors { .. } => "sentence_vectors",
            RecordBody::ResultReduced { .. } => "result_reduced",
            RecordBody::Settings { .. } => "settings",
            RecordBody::Title { .. } => "title",
        }
    }

    /// Whether this record introduces a message (and so its seq is a message id).
    pub fn is_message(&self) -> bool {
        matches!(
            self,
            RecordBody::User { .. } | RecordBody::Assistant { .. } | RecordBody::Tool { .. }
        )
    }
}
