//! What the engine tells the outside world: [`EngineEvent`]s, typed — what happened,
//! with its data, never English. The words a person reads are made from them at the
//! edge (the app's presentation), so wording changes in one place and tests can assert
//! on facts rather than sentences. Refused inputs are [`EngineError`]s.

use crate::core::checkpoint::{CheckpointId, Level};
use crate::core::goals::{Author, GoalChange, GoalError};
use crate::core::message::MessageId;
use crate::core::mode::Mode;
use crate::core::purpose::SnapshotPurpose;
use serde::{Deserialize, Serialize};

/// Why a compression runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum CompressReason {
    /// The recent messages reached the trigger.
    Auto,
    /// The user asked (F7, /compress), optionally with a focus.
    Manual { focus: Option<String> },
    /// The server rejected a request as too long, or truncated one.
    Overflow,
    /// The next request would not fit even after normal compression.
    Emergency,
}

/// How hard a compression folds: stage 4's budget check (validate) escalates when a request still does
/// not fit after a normal pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Intensity {
    /// Fold what is outside the recent window; age checkpoints one level.
    Normal,
    /// Emergency: keep only the last exchange, fold user text too, age every checkpoint
    /// to ancient and merge them.
    Hard,
    /// Last resort before clipping: marked truncation without the model.
    Truncate,
}

impl Intensity {
    /// The next, harder step after `current`.
    pub fn after(current: Option<Intensity>) -> Option<Intensity> {
        match current {
            None => Some(Intensity::Normal),
            Some(Intensity::Normal) => Some(Intensity::Hard),
            Some(Intensity::Hard) => Some(Intensity::Truncate),
            Some(Intensity::Truncate) => None,
        }
    }
}

/// Why a compression did not run, or ran without folding anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum SkipReason {
    /// The conversation is empty.
    NothingYet,
    /// Everything is inside the recent window, which is always kept.
    RecentKept { recent: usize },
    /// The rest is the recent window plus protected messages (the person's own, pinned,
    /// tool errors).
    RecentAndProtected { recent: usize, protected: usize },
    /// No messages to fold and no checkpoints to age or merge.
    NothingLeft,
    /// A message arrived (or a restore happened) while the summary was being written.
    ConversationChanged,
    /// The last pass freed under the minimum share of the budget; automatic compression
    /// waits until the conversation grows.
    BackedOff { freed: u32, percent: u32 },
    /// A merged checkpoint would cost as much as its parts.
    MergeFreesNothing,
    /// The summary of these messages would cost as much as the messages.
    FoldFreesNothing {
        messages: usize,
        first: MessageId,
        last: MessageId,
    },
}

/// The part of a compression that failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "part")]
pub enum FailedPart {
    /// The new checkpoint: nothing was folded and nothing is lost.
    Fold,
    /// Aging a checkpoint: it was shortened without the model instead.
    Aging { id: CheckpointId, to: Level },
    /// Merging ancient checkpoints: they were shortened without the model instead.
    Merge,
}

/// A request that cannot fit even after every measure: what takes the room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blocked {
    /// Tokens the request needs.
    pub needed: u32,
    pub ctx: u32,
    /// Kept free for the reply.
    pub reserve: u32,
    pub system: u32,
    pub goals: u32,
    pub summaries: u32,
    pub pinned: u32,
}

/// Refused inputs. State is unchanged when one is reported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// `pin`: the command was a pin (else an unpin).
    #[error("message {id} does not exist")]
    NoSuchMessage { id: MessageId, pin: bool },
    #[error("message {id} is already folded into a checkpoint; restore a snapshot to get it back")]
    AlreadyFolded { id: MessageId, pin: bool },
    #[error("no fact reads \"{fact}\"")]
    NoSuchFact { fact: String },
    /// Only a folded fact can be changed: one in view is said by its message.
    #[error(
        "\"{fact}\" is in a message the model still sees: say the change in the chat (a pin holds once it is folded)"
    )]
    FactInView { fact: String },
    #[error("a fact cannot be empty: /facts forget N leaves it out")]
    EmptyFact,
    /// A pin or unpin of "the latest reply" before there is one.
    #[error("no reply to {} yet", if *.pin { "pin" } else { "unpin" })]
    NoReplyToPin { pin: bool },
    #[error("snapshot {snapshot} belongs to session {other}, not this one")]
    WrongSession { snapshot: String, other: String },
    #[error(transparent)]
    Goal(#[from] GoalError),
    #[error("there are no tool calls or results in the context to clear")]
    NothingToClear,
}

/// Events for the UI and the log: the seed's compression and snapshot events, and what
/// else the engine has to say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "event")]
pub enum EngineEvent {
    Compressed {
        number: u32,
        reason: CompressReason,
        intensity: Intensity,
        messages: usize,
        tokens_before: u32,
        tokens_after: u32,
        calls: u32,
    },
    /// An automatic compression was due but did not run (said once per situation).
    CompressionSkipped {
        reason: SkipReason,
    },
    /// A compression the person asked for did not run.
    NotCompressed {
        reason: SkipReason,
    },
    CompressionFailed {
        part: FailedPart,
        /// The summarizer's error, as the server or client reported it.
        error: String,
    },
    /// The person stopped a compression; nothing changed. `unsent`: it ran for a turn,
    /// whose message is saved but was not sent.
    CompressionStopped {
        unsent: bool,
    },
    /// Older tool results were cut down from their originals before any fold.
    ResultsReduced {
        results: usize,
        tokens_before: u32,
        tokens_after: u32,
    },
    /// A task was marked done: this many tool messages left the context, freeing this
    /// many tokens.
    TaskDone {
        messages: usize,
        tokens: u32,
    },
    /// A message led to this many rounds of tool calls, the limit: the last calls were
    /// not run and the turn ended.
    ToolRoundsCapped {
        rounds: u32,
    },
    RolloverComplete {
        intensity: Intensity,
        tokens_after: u32,
    },
    CheckpointCreated {
        id: CheckpointId,
        number: u32,
        level: Level,
        tokens: u32,
        original_tokens: u32,
        messages: usize,
    },
    CheckpointAged {
        id: CheckpointId,
        from: Level,
        to: Level,
        tokens_before: u32,
        tokens_after: u32,
    },
    CheckpointsMerged {
        merged: Vec<CheckpointId>,
        /// The merged checkpoints' numbers, in the order of `merged` (the UI names them;
        /// one made in the same step as the merge was never published).
        #[serde(default)]
        numbers: Vec<u32>,
        into: CheckpointId,
        tokens: u32,
    },
    SnapshotCreated {
        id: String,
        purpose: SnapshotPurpose,
    },
    AutoSnapshotCreated {
        id: String,
    },
    /// `before` is the snapshot of the state the restore left.
    SnapshotRestored {
        id: String,
        before: String,
    },
    SnapshotError {
        error: String,
    },
    /// A restore was not made: the state it would leave could not be saved first.
    RestoreNotSaved {
        id: String,
    },
    /// The server evaluated clearly fewer prompt tokens than we sent: it truncated.
    TruncationSuspected {
        sent: u32,
        seen: u32,
    },
    /// User text alone overflowed, so the oldest user messages were folded too.
    UserMessagesFolded {
        count: usize,
        checkpoint: u32,
    },
    /// Emergency: a message is shown to the model cut down (history keeps it whole).
    MessageClipped {
        id: MessageId,
        omitted_tokens: u32,
        /// The whole message's tokens (0 in logs written before it was kept).
        #[serde(default)]
        total_tokens: u32,
        /// A context size (a power of two) that would send the message whole.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fits_ctx: Option<u32>,
    },
    /// Nothing can make the request fit; the message stays saved, unsent.
    Blocked(Blocked),
    /// Lines of folded messages were quoted into the request, found by what the person
    /// just said (recall from the log).
    Recalled {
        lines: Vec<crate::core::log_recall::RecalledLine>,
    },
    /// Folded pictures the person asked about were brought back on their message for
    /// this reply (their file names).
    PicturesRecalled {
        names: Vec<String>,
    },
    /// The fact ledger is full even compacted: this many of the person's lines (and of
    /// the model's) are not shown any more. The log keeps them; recall finds them.
    LedgerFull {
        dropped_user: usize,
        dropped_model: usize,
        kept: usize,
    },
    /// The model's summary of fold `number` carried `carried` of the span's `facts`
    /// facts: it was left out, and the fold keeps its facts only.
    SummaryRejected {
        number: u32,
        carried: u32,
        facts: u32,
    },
    /// The model's summaries failed the fact check `rejected` times: none is asked again
    /// in this session, and folding keeps the facts only.
    SummariesOff {
        model: String,
        rejected: u32,
    },
    /// The server refused the request as too long again after a compression.
    OverflowPersists {
        message: String,
    },
    /// Fewer than 60 % of the person's facts from folded messages are in the request.
    ReliabilityWarning {
        carried: usize,
        stated: usize,
        model: String,
    },
    GoalUpdated {
        change: GoalChange,
        author: Author,
    },
    /// A marker line from the model was not applied.
    // Never in a log (its reason is not serialised), so never read back.
    #[serde(skip_deserializing)]
    GoalRejected {
        change: GoalChange,
        #[serde(skip)]
        reason: GoalError,
    },
    Pinned {
        id: MessageId,
        pinned: bool,
    },
    /// The person changed a fact of the ledger (`/facts`).
    FactEdited {
        fact: String,
        edit: crate::core::ledger::FactEdit,
    },
    /// `Retry` with nothing to retry: the last message has its complete reply.
    NothingToRetry,
    ModeChanged {
        mode: Mode,
    },
    /// The context size changed; `trained` is the model's trained length when `ctx`
    /// exceeds it (the server may load less).
    CtxChanged {
        ctx: u32,
        trained: Option<u32>,
    },
    /// The person's system prompt or a parameter changed (`/system`, `/set`).
    ParamsChanged {
        change: crate::core::params::ParamChange,
    },
    /// The server loaded the model with a smaller context than asked for; the budget
    /// follows it now.
    LoadedCtxSmaller {
        model: String,
        loaded: u32,
        asked: u32,
    },
    /// An input was refused; nothing changed.
    #[serde(skip_deserializing)]
    Refused {
        #[serde(skip)]
        error: EngineError,
    },
}

impl EngineEvent {
    /// The seed's event name.
    pub fn name(&self) -> &'static str {
        match self {
            EngineEvent::Compressed { .. } => "compressed",
            EngineEvent::CompressionSkipped { .. } => "compression-skipped",
            EngineEvent::NotCompressed { .. } => "not-compressed",
            EngineEvent::CompressionFailed { .. } => "compression-error",
            EngineEvent::CompressionStopped { .. } => "compression-stopped",
            EngineEvent::ToolRoundsCapped { .. } => "tool-rounds-capped",
            EngineEvent::TaskDone { .. } => "task-done",
            EngineEvent::ResultsReduced { .. } => "results-reduced",
            EngineEvent::RolloverComplete { .. } => "rollover-complete",
            EngineEvent::CheckpointCreated { .. } => "checkpoint-created",
            EngineEvent::CheckpointAged { .. } => "checkpoint-aged",
            EngineEvent::CheckpointsMerged { .. } => "checkpoints-merged",
            EngineEvent::SnapshotCreated { .. } => "snapshot-created",
            EngineEvent::AutoSnapshotCreated { .. } => "auto-snapshot-created",
            EngineEvent::SnapshotRestored { .. } => "snapshot-restored",
            EngineEvent::SnapshotError { .. } => "snapshot-error",
            EngineEvent::RestoreNotSaved { .. } => "restore-not-saved",
            EngineEvent::TruncationSuspected { .. } => "truncation-suspected",
            EngineEvent::UserMessagesFolded { .. } => "user-messages-folded",
            EngineEvent::MessageClipped { .. } => "message-clipped",
            EngineEvent::Blocked(_) => "blocked",
            EngineEvent::Recalled { .. } => "recalled",
            EngineEvent::PicturesRecalled { .. } => "pictures-recalled",
            EngineEvent::LedgerFull { .. } => "ledger-full",
            EngineEvent::SummaryRejected { .. } => "summary-rejected",
            EngineEvent::SummariesOff { .. } => "summaries-off",
            EngineEvent::OverflowPersists { .. } => "overflow-persists",
            EngineEvent::ReliabilityWarning { .. } => "reliability-warning",
            EngineEvent::GoalUpdated { .. } => "goal-updated",
            EngineEvent::GoalRejected { .. } => "goal-rejected",
            EngineEvent::Pinned { .. } => "pinned",
            EngineEvent::FactEdited { .. } => "fact_edited",
            EngineEvent::NothingToRetry => "nothing-to-retry",
            EngineEvent::ModeChanged { .. } => "mode-changed",
            EngineEvent::CtxChanged { .. } => "ctx-changed",
            EngineEvent::ParamsChanged { .. } => "params-changed",
            EngineEvent::LoadedCtxSmaller { .. } => "loaded-ctx-smaller",
            EngineEvent::Refused { .. } => "refused",
        }
    }
}
