//! What the UI asks of the session actor.

use crate::core::checkpoint::Checkpoint;
use crate::core::engine::Request;
use crate::core::message::Message;
use crate::llm::{ModelSummary, PullLine};
use tokio::sync::{mpsc, oneshot};

/// A request to the actor. Replies, where there are any, come back on a oneshot; every
/// other outcome arrives as [`crate::view::Update`]s and in the published view.
///
/// Sorted once, by its type: an [`Ask`] is answered at once (`answers.rs`), even while a
/// reply streams or a compression runs; every other command runs in its turn
/// (`driver.rs`).
#[derive(Debug)]
pub enum Command {
    /// What the person asks of the conversation, passed to the engine as it is (a message,
    /// retry, compress, the goal board, pins, ctx, mode, a snapshot).
    Request(Request),
    /// Send `message`, the person's `request` with a long `input` attached (a pipe's
    /// stdin): read through in parts first when it does not fit (`choice` and the
    /// clock permitting), else sent as it is, clipped by the turn.
    SendInput {
        request: String,
        input: String,
        message: String,
        choice: crate::core::read_through::LongInput,
    },
    /// Answered at once, without waiting for the turn (see [`Ask`]).
    Ask(Ask),
    /// Stop the reply being generated, or the compression under way.
    Stop,
    /// Switch models: checked with the server first.
    SetModel {
        name: String,
    },
    /// Restore a snapshot by id or the start of one.
    Restore {
        id: String,
    },
    DeleteSnapshot {
        id: String,
    },
    /// Check the server again now.
    Reconnect,
    /// A model was installed (a pull ended): recall's embedding model is picked again.
    ModelsChanged,
    /// The person's answer to the tool call that asks ([`crate::view::Activity::Approval`]
    /// with this `id`).
    Approve {
        id: u64,
        answer: Approval,
    },
    /// Start a new session from this one's messages up to `at` (the last when `None`);
    /// answers the new session's id and the message it was made at (`/fork`).
    Fork {
        at: Option<crate::core::message::MessageId>,
        reply: oneshot::Sender<Result<Forked, String>>,
    },
    /// Finish what is under way, sync, and stop.
    Shutdown,
}

/// What the actor answers at once — between turns, while a reply streams, while a
/// compression runs or a tool call waits — because it does not change the conversation:
/// lists, the inspector, export, `/check` and `/pull` on tasks of their own, the
/// type-ahead queue taken back, the data folder's other sessions.
#[derive(Debug)]
pub enum Ask {
    ListSnapshots {
        reply: oneshot::Sender<Result<crate::store::snapshot::SnapshotListing, String>>,
    },
    ListModels {
        reply: oneshot::Sender<Result<Vec<ModelSummary>, String>>,
    },
    /// Checkpoint `number` (the newest when `None`) with the original messages it covers,
    /// for the inspector. A checkpoint merged away is found in the one it was merged into.
    Inspect {
        number: Option<u32>,
        reply: oneshot::Sender<Option<Inspection>>,
    },
    /// Ask the model a few questions about the person's folded facts (`/check`); the
    /// answer arrives when all are graded, or why not.
    Check {
        reply: oneshot::Sender<Result<super::CheckReport, String>>,
    },
    /// Every fact of the conversation and where it stands for the next request (`/facts`).
    ListFacts {
        reply: oneshot::Sender<Vec<crate::core::engine::FactRow>>,
    },
    /// Tool result `id`: what the model saw beside the whole result (`/inspect #N`).
    InspectResult {
        id: crate::core::message::MessageId,
        reply: oneshot::Sender<Result<ResultInspection, String>>,
    },
    /// Write the session to a file under the data directory (`/export`); the outcome
    /// arrives as a notice. Markdown carries the app's words for its sentences.
    Export {
        format: crate::store::export::Format,
    },
    /// Return the messages typed ahead (not sent yet) and drop them from the queue.
    TakeBackQueued { reply: oneshot::Sender<Vec<String>> },
    /// Download a model to the server (`/pull`): its lines go to `lines` as they come,
    /// from a task of the link's own, so chatting goes on. Dropping the receiver cancels
    /// the pull (the HTTP stream is dropped: the server sees the client leave).
    Pull {
        name: String,
        lines: mpsc::UnboundedSender<PullEvent>,
    },
    /// The sessions of the data folder (the browser), listed after `change` when one is
    /// asked: what the change did, and the list.
    ListSessions {
        change: Option<SessionChange>,
        reply: oneshot::Sender<SessionListing>,
    },
    /// Attach the picture at `path` to the person's next message (`/image PATH`): refused
    /// when the model cannot see pictures, else checked, made ready and stored by its
    /// hash; answers its reference for the chip.
    AttachImage {
        path: std::path::PathBuf,
        reply: oneshot::Sender<Result<crate::core::image::ImageRef, AttachRefused>>,
    },
    /// The stored bytes of a sent picture, for its thumbnail in the transcript; `None`
    /// when its file is missing or changed (the chip stays alone).
    PictureBytes {
        image: crate::core::image::ImageRef,
        reply: oneshot::Sender<Option<Vec<u8>>>,
    },
    /// Search every session of the data folder (`/search`), `limit` hits at most.
    SearchSessions {
        query: String,
        limit: usize,
        reply: oneshot::Sender<Result<crate::store::search::SearchReport, String>>,
    },
}

impl From<Ask> for Command {
    fn from(a: Ask) -> Command {
        Command::Ask(a)
    }
}

/// Why a picture was not attached (`Ask::AttachImage`). The app words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttachRefused {
    /// The model does not see pictures; `vision_models` are the installed ones that do
    /// (empty: none, or the server could not list them).
    NotVision {
        model: String,
        vision_models: Vec<String>,
    },
    /// The file is not one that is attached (not a file, too large, not an image, …).
    File(crate::store::attach::AttachError),
    /// It could not be stored beside the session.
    Store(String),
}

/// A line of a pull under way (`Ask::Pull`), or why it ended early.
#[derive(Debug)]
pub enum PullEvent {
    Line(PullLine),
    /// The connection failed, or the server's answer was not a pull's.
    Failed(String),
}

/// A change to a session of the data folder, made from the browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChange {
    /// A new title (empty: titled by its first message again).
    Rename { id: String, title: String },
    /// Moved to the trash folder.
    Trash { id: String },
}

/// What a [`SessionChange`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChanged {
    /// The title kept (`None`: the first message's again), or why not.
    Renamed(Result<Option<String>, String>),
    /// The trash folder it went to, or why not.
    Trashed(Result<std::path::PathBuf, String>),
}

/// The answer to `Ask::ListSessions`.
#[derive(Debug)]
pub struct SessionListing {
    pub changed: Option<SessionChanged>,
    /// Every session, newest first, or why they cannot be listed.
    pub list: Result<Vec<crate::store::SessionSummary>, String>,
}

/// A fork just made (`Command::Fork`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forked {
    /// The new session's id.
    pub id: String,
    /// The last message of this session it holds.
    pub at: crate::core::message::MessageId,
}

/// An answer to a tool call that asks first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    Once,
    /// This tool (or, for a command, its first word) for the rest of the session.
    Session,
    Deny {
        reason: Option<String>,
    },
}

/// A tool result as the model saw it beside the whole of it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultInspection {
    pub id: crate::core::message::MessageId,
    pub tool: String,
    pub seen: String,
    pub original: String,
}

/// A checkpoint beside the messages it stands for.
#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    /// The number asked for; differs from `checkpoint.number` when it was merged.
    pub asked: Option<u32>,
    pub checkpoint: Checkpoint,
    pub originals: Vec<Message>,
}

impl From<Request> for Command {
    fn from(r: Request) -> Command {
        Command::Request(r)
    }
}
