//! What the actor tells the person, typed: what happened, with its data — never English.
//! The app turns a [`Notice`] into words (naming the keys the person's keymap binds) in
//! one place. Where an engine event shows (a transcript line or a banner) and how urgent
//! it is, is one table: [`show`].

use super::entry::Severity;
use crate::core::engine::EngineError;
use crate::core::events::EngineEvent;
use crate::core::goals::{Author, GoalChange};
use crate::core::params::ParamChange;
use crate::llm::LlmError;
use std::path::PathBuf;

/// What happened to an MCP server, for the person. The view's own copy of the tool
/// layer's report (`tools::mcp::Event`), so that `view` imports nothing above `core` and
/// `llm`; the actor, which may import both, translates one into the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpEvent {
    Started { server: String, tools: usize },
    Failed { server: String, error: String },
}

/// When a missing model was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// While connecting: pick another model or pull it.
    Connecting,
    /// When a request failed: the message is saved for `/retry`.
    Request,
}

/// Why `/restore ID` found no snapshot to restore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreLookup {
    /// The session has no file (nothing was said yet), so no snapshots.
    NoSnapshots,
    NoSuch {
        wanted: String,
    },
    Ambiguous {
        wanted: String,
        matches: usize,
    },
    /// Listing the snapshots failed.
    Unreadable {
        error: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// The engine's own events (compression, snapshots, goals, settings, refusals).
    Engine(EngineEvent),
    /// A resumed session whose last message has no complete reply.
    Unanswered,
    Connected {
        version: String,
        host: String,
    },
    Unreachable {
        url: String,
        error: String,
    },
    ModelMissing {
        model: String,
        found: Found,
    },
    NoModels,
    /// The session's model makes embeddings only: nothing is sent to it.
    NotChatModel {
        model: String,
    },
    /// Recall finds folded lines by meaning too from now on, with this embedding model
    /// (one was pulled).
    RecallByMeaning {
        model: String,
    },
    /// A request failed before any reply; the message is saved.
    RequestFailed {
        error: LlmError,
    },
    /// The reply broke off after some text arrived; the partial reply is kept.
    ReplyBrokeOff {
        error: LlmError,
    },
    /// Pictures of the resumed session that are missing or were altered since they were
    /// attached (their file names): their messages go without them.
    ImagesMissing {
        names: Vec<String>,
    },
    /// Stop before the first token: nothing to keep, the message is saved.
    StoppedBeforeReply,
    /// Ollama ended the reply at the context limit (`done_reason: length`).
    ReplyCutAtLimit,
    /// What the server reported about the reply that just ended (`/set verbose`, as
    /// `ollama run --verbose`): the figures the engine learns its speed from, as they came.
    ReplyTimed(crate::core::speed::CallTiming),
    /// A huge tool result was not read through by the model: at the server's measured
    /// speed it would take about `secs`, over the person's `limit`. It is shortened.
    ReadingTooSlow {
        tool: String,
        secs: u32,
        limit: u32,
    },
    /// What became of a message too long for the context: read through in parts, or
    /// clipped and why (`core::read_through`).
    LongInput(crate::core::read_through::InputOutcome),
    /// The app stopped reading a reply that went past its own ceiling
    /// (`llm::ReplyCeiling`); what arrived is kept, marked. `error` holds the figures.
    ReplyTooLong {
        error: LlmError,
    },
    /// The repetition guard stopped a reply that repeated a block of `lines` lines
    /// `times` times in a row (`repeat_limit`); what arrived is kept, marked.
    ReplyLooped {
        lines: usize,
        times: usize,
        /// In the model's reasoning rather than its answer.
        thinking: bool,
    },
    /// The session file could not be created (a full disk): the records wait in memory
    /// and creating it is tried again.
    StoreCreateFailed {
        error: String,
        /// Records kept in memory, written once the file can be created.
        waiting: usize,
    },
    WriteFailed {
        error: String,
        /// Records kept in memory, retried before anything newer.
        waiting: usize,
    },
    /// A message was not sent because its record is not on disk yet.
    NotSentUnwritten {
        waiting: usize,
    },
    WriteRecovered,
    ModelSwitched {
        name: String,
        ctx: u32,
    },
    ModelSwitchFailed {
        name: String,
        error: LlmError,
    },
    /// `/ctx` above the model's trained length: the server may load less.
    CtxAboveTrained {
        model: String,
        trained: u32,
        ctx: u32,
    },
    RestoreNotFound {
        lookup: RestoreLookup,
    },
    RestoreLoadFailed {
        id: String,
        error: String,
    },
    SnapshotDeleted {
        id: String,
    },
    SnapshotDeleteFailed {
        id: String,
        error: String,
    },
    Exported {
        path: PathBuf,
    },
    ExportFailed {
        error: String,
    },
    /// `/export` before the first message: there is no session file yet.
    NothingToExport,
    /// An MCP server started (its tools are offered) or is not available.
    Mcp(McpEvent),
    /// A large tool result could not be kept whole on disk: the model saw its shortened
    /// form, and `recall` cannot read the rest.
    ResultNotSaved(String),
    /// `/think`: what is sent from now on (`None`: the model's default), and whether the
    /// model thinks at all.
    ThinkSet {
        think: Option<crate::llm::Think>,
        model: String,
        capable: bool,
    },
}

/// Where an engine event shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A line in the transcript, where it happened.
    Line,
    Banner,
    /// A banner about one failed attempt, taken down by the next success of its kind.
    TransientBanner,
    /// Only in the log (or shown another way: dividers, the panel, the status line).
    Nowhere,
}

/// Where an engine event shows and how urgent it is: one table for both, with no
/// catch-all, so a new event does not compile until it is placed here (and worded in
/// `app::words`, and kept or not in `core::engine::kept_in_log`).
pub fn show(ev: &EngineEvent) -> (Place, Severity) {
    use Place::{Banner, Line, Nowhere, TransientBanner};
    use Severity::{Error, Info, Warn};
    match ev {
        // `/think` is said by the actor as `Notice::ThinkSet`, with what the link knows:
        // the `think` in force and whether the model can think.
        EngineEvent::ParamsChanged {
            change: ParamChange::Think(_),
        } => (Nowhere, Info),
        EngineEvent::CompressionSkipped { .. }
        | EngineEvent::NotCompressed { .. }
        | EngineEvent::CompressionStopped { .. }
        | EngineEvent::SnapshotCreated { .. }
        | EngineEvent::SnapshotRestored { .. }
        | EngineEvent::UserMessagesFolded { .. }
        // A pass that folded messages shows as a checkpoint divider; one that only
        // condensed older checkpoints would otherwise leave no trace on screen.
        | EngineEvent::Compressed { messages: 0, .. }
        // The model's marker lines can be refused (only the person replaces the goal or
        // unlocks a decision): said rather than dropped silently.
        | EngineEvent::GoalRejected { .. }
        // The board changes visibly for most commands; finishing or clearing the goal
        // empties it, so that is confirmed in words.
        | EngineEvent::GoalUpdated {
            change: GoalChange::GoalStatus { .. } | GoalChange::Clear,
            author: Author::User,
        }
        | EngineEvent::Pinned { .. }
        | EngineEvent::FactEdited { .. }
        | EngineEvent::Recalled { .. }
        | EngineEvent::PicturesRecalled { .. }
        | EngineEvent::LedgerFull { .. }
        | EngineEvent::SummariesOff { .. }
        | EngineEvent::TaskDone { .. }
        | EngineEvent::ResultsReduced { .. }
        | EngineEvent::NothingToRetry
        | EngineEvent::ModeChanged { .. }
        | EngineEvent::CtxChanged { .. }
        | EngineEvent::ParamsChanged { .. }
        | EngineEvent::Refused {
            error: EngineError::NoReplyToPin { .. },
        } => (Line, Info),
        // In the transcript, where it happened: a banner would stay up with a figure the
        // status line's badge has long moved on from.
        EngineEvent::ReliabilityWarning { .. } | EngineEvent::RolloverComplete { .. } => {
            (Line, Warn)
        }
        EngineEvent::Refused {
            error: EngineError::WrongSession { .. },
        } => (Banner, Warn),
        EngineEvent::Refused { .. } => (Line, Warn),
        EngineEvent::CompressionFailed { .. }
        | EngineEvent::SnapshotError { .. }
        | EngineEvent::RestoreNotSaved { .. }
        | EngineEvent::TruncationSuspected { .. }
        | EngineEvent::MessageClipped { .. }
        | EngineEvent::LoadedCtxSmaller { .. } => (Banner, Warn),
        EngineEvent::Blocked(_) => (Banner, Error),
        EngineEvent::OverflowPersists { .. } => (TransientBanner, Error),
        // Shown another way: a fold divider (a pass that folded messages), the panel
        // (checkpoints, the goal board), the status line; or only kept in the log.
        EngineEvent::Compressed { .. }
        | EngineEvent::ToolRoundsCapped { .. }
        | EngineEvent::CheckpointCreated { .. }
        | EngineEvent::CheckpointAged { .. }
        | EngineEvent::CheckpointsMerged { .. }
        | EngineEvent::AutoSnapshotCreated { .. }
        | EngineEvent::GoalUpdated { .. } => (Nowhere, Info),
        // Only in the log: one summary left out changes nothing the person sees (the
        // fold keeps its facts); when summaries stop for good, that is said.
        EngineEvent::SummaryRejected { .. } => (Nowhere, Info),
    }
}

impl Notice {
    /// How urgent it is (the colour and icon it gets, and what the log records).
    pub fn severity(&self) -> Severity {
        use Severity::{Error, Info, Warn};
        match self {
            Notice::Engine(ev) => show(ev).1,
            Notice::ReplyTimed(_) => Severity::Quiet,
            Notice::Unreachable { .. }
            | Notice::ModelMissing { .. }
            | Notice::NoModels
            | Notice::NotChatModel { .. }
            | Notice::RequestFailed { .. }
            | Notice::ReplyBrokeOff { .. }
            | Notice::StoreCreateFailed { .. }
            | Notice::WriteFailed { .. }
            | Notice::NotSentUnwritten { .. } => Error,
            Notice::ModelSwitchFailed { .. }
            | Notice::CtxAboveTrained { .. }
            | Notice::RestoreNotFound { .. }
            | Notice::RestoreLoadFailed { .. }
            | Notice::SnapshotDeleteFailed { .. }
            | Notice::ExportFailed { .. }
            | Notice::ReplyLooped { .. }
            | Notice::ReplyTooLong { .. }
            | Notice::ResultNotSaved(_)
            | Notice::ImagesMissing { .. } => Warn,
            Notice::LongInput(crate::core::read_through::InputOutcome::Read { .. }) => Info,
            Notice::LongInput(_) => Warn,
            Notice::ThinkSet { capable: false, .. } | Notice::Mcp(McpEvent::Failed { .. }) => Warn,
            Notice::Unanswered
            | Notice::ThinkSet { .. }
            | Notice::Mcp(_)
            | Notice::Connected { .. }
            | Notice::RecallByMeaning { .. }
            | Notice::StoppedBeforeReply
            | Notice::ReplyCutAtLimit
            | Notice::ReadingTooSlow { .. }
            | Notice::WriteRecovered
            | Notice::ModelSwitched { .. }
            | Notice::SnapshotDeleted { .. }
            | Notice::Exported { .. }
            | Notice::NothingToExport => Info,
        }
    }
}
