//! What changed, in order: transcript changes, reply deltas, notices. Sent by the actor on
//! an unbounded channel (never blocking it), applied by the app.

use super::entry::Entry;
use super::notice::Notice;
use crate::core::events::EngineEvent;
use crate::core::message::{MessageId, ReplyStatus};

/// Something changed.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// Replace the whole transcript (start, resume, restore).
    Transcript(Vec<Entry>),
    Appended(Entry),
    /// Sent right after `Transcript` on start, resume and restore: the notices the
    /// transcript showed as things happened, each with the index among the entries just
    /// sent that it goes before (ascending).
    PastNotices(Vec<(usize, chrono::DateTime<chrono::Utc>, Notice)>),
    /// A reply starts streaming.
    ReplyStart,
    Delta(String),
    /// More of the streaming reply's reasoning (thinking models), shown above its text.
    Thinking(String),
    /// The streamed reply was a tool call written as text: it is shown as the call (the
    /// tool line that follows), not as text.
    ReplyIsToolCall,
    /// The streamed reply ended; `id` is its message id when it was recorded.
    ReplyEnd {
        status: ReplyStatus,
        id: Option<MessageId>,
    },
    /// These messages are now covered by checkpoint `checkpoint` (folded live, merged, or
    /// already folded when the transcript was sent): the model sees its summary instead.
    Folded {
        checkpoint: u32,
        ids: Vec<MessageId>,
    },
    /// Checkpoints `checkpoints` (by number) were merged into checkpoint `into`.
    Merged {
        checkpoints: Vec<u32>,
        into: u32,
    },
    /// A message was pinned or unpinned.
    Pinned {
        id: MessageId,
        pinned: bool,
    },
    /// A line in the transcript: something happened.
    Notice(Notice),
    /// Something the person must see until it is dealt with (or the next success of the
    /// same kind takes it down).
    Banner(Notice),
    /// A banner's problem is gone (e.g. the server is reachable again).
    ClearBanner,
    /// The engine's own event, for the log and for panels that care.
    Engine(EngineEvent),
    /// The actor has stopped.
    Closed,
}
