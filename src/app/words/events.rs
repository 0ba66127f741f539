//! The engine's events in words (`event`, reached through `notice`): compressions,
//! snapshots, the goal board, pins, refusals, and why a compression did not run
//! (`skip_reason`). Apart because the compiler sends every new `EngineEvent` here for its
//! sentence.

use super::session::param_change;
use super::{KeyNames, SNAPSHOT_FIX, Words};
use crate::core::engine::EngineError;
use crate::core::events::{Blocked, EngineEvent, FailedPart, Intensity, SkipReason};
use crate::core::goals::{Author, GoalChange, GoalStatus};
use crate::core::message::MessageId;
use crate::core::record::SnapshotPurpose;

/// "message #4", "3 messages, #4–#9".
fn range(messages: usize, first: MessageId, last: MessageId) -> String {
    if messages <= 1 {
        format!("message {first}")
    } else {
        format!("{messages} messages, {first}–{last}")
    }
}

/// Why a compression did not run, as the end of a sentence.
pub fn skip_reason(reason: &SkipReason) -> String {
    match reason {
        SkipReason::NothingYet => "nothing to compress yet".into(),
        SkipReason::RecentKept { recent } => {
            format!("nothing worth folding yet: the {recent} most recent messages are always kept")
        }
        SkipReason::RecentAndProtected { recent, protected } => format!(
            "nothing worth folding yet: the {recent} most recent messages are always kept, and the {protected} before them are protected (your own, pinned, or tool errors)"
        ),
        SkipReason::NothingLeft => "nothing left to fold".into(),
        SkipReason::ConversationChanged => {
            "the conversation changed while compressing; nothing was folded".into()
        }
        SkipReason::BackedOff { freed, percent } => format!(
            "the last compression freed only {freed} tokens ({percent}% of the budget); automatic compression waits until the conversation grows"
        ),
        SkipReason::MergeFreesNothing => {
            "merging the checkpoints would not free any room; they stay apart".into()
        }
        SkipReason::FoldFreesNothing {
            messages,
            first,
            last,
        } => format!(
            "folding {} would not free any room (the summary costs as much as the messages); they stay as they are",
            range(*messages, *first, *last)
        ),
    }
}

fn blocked(b: &Blocked) -> String {
    format!(
        "this request needs about {} tokens but the context holds {} ({} kept free for the reply); what is left is protected: system prompt {}, goal board {}, summaries {}, pinned messages {}. Unpin messages, shorten the goal board, or raise the context with /ctx N. Your message is saved.",
        b.needed, b.ctx, b.reserve, b.system, b.goals, b.summaries, b.pinned
    )
}

/// A refused marker line, as the model wrote it.
fn marker_line(change: &GoalChange) -> String {
    match change {
        GoalChange::SetGoal { description, .. } => format!("[GOAL] {description}"),
        GoalChange::Checkpoint { description, .. } => format!("[CHECKPOINT] {description}"),
        GoalChange::Decision { text, .. } => format!("[DECISION] {text}"),
        GoalChange::Artifact { path, .. } => format!("[ARTIFACT] {path}"),
        GoalChange::Next { text } => format!("[NEXT] {text}"),
        GoalChange::GoalStatus { .. }
        | GoalChange::Lock { .. }
        | GoalChange::Unlock { .. }
        | GoalChange::DeleteDecision { .. }
        | GoalChange::Clear => "a goal-board change".to_string(),
    }
}

fn refused(error: &EngineError) -> Words {
    match error {
        EngineError::NoReplyToPin { pin: true } => Words::line("No reply to pin yet."),
        EngineError::NoReplyToPin { pin: false } => Words::line("No reply to unpin yet."),
        EngineError::NoSuchMessage { pin, .. } | EngineError::AlreadyFolded { pin, .. } => {
            Words::line(format!(
                "Cannot {}: {error}.",
                if *pin { "pin" } else { "unpin" }
            ))
        }
        EngineError::WrongSession { snapshot, .. } => Words::with_hint(
            format!("Snapshot failed: cannot restore {snapshot}: {error}"),
            SNAPSHOT_FIX,
        ),
        EngineError::Goal(e) => Words::line(format!("Goal board: {e}.")),
        EngineError::NothingToClear => Words::line(format!("Nothing to mark done: {error}.")),
        EngineError::NoSuchFact { .. } => Words::with_hint(
            format!("Facts: {error}."),
            "/facts lists them; the number is the row's",
        ),
        EngineError::FactInView { .. } | EngineError::EmptyFact => {
            Words::line(format!("Facts: {error}."))
        }
    }
}

/// A fact edit, said as done (the transcript and the export).
pub(crate) fn fact_edited(fact: &str, edit: &crate::core::ledger::FactEdit) -> String {
    use crate::core::ledger::FactEdit;
    match edit {
        FactEdit::Pin => format!("Pinned the fact \"{fact}\": it goes with every request."),
        FactEdit::Unpin => {
            format!("Unpinned the fact \"{fact}\": it may leave the ledger when it is full.")
        }
        FactEdit::Forget => format!(
            "Forgot the fact \"{fact}\": it is no longer sent (its message stays in the session)."
        ),
        FactEdit::Keep => format!("The fact \"{fact}\" is sent again."),
        FactEdit::Replace { text } => {
            format!("The fact \"{fact}\" is now sent as \"{text}\".")
        }
    }
}

pub(super) fn event(ev: &EngineEvent, keys: &KeyNames) -> Words {
    match ev {
        EngineEvent::ResultsReduced {
            results,
            tokens_before,
            tokens_after,
        } => Words::line(format!(
            "Older tool results cut down first: {results} result{}, context {tokens_before} → {tokens_after} tokens (the originals stay; the model can recall them).",
            if *results == 1 { "" } else { "s" }
        )),
        EngineEvent::TaskDone { messages, tokens } => Words::with_hint(
            format!(
                "Task done: {messages} tool call{} and result{} left the context ({tokens} tokens freed); what was said stays.",
                if *messages == 1 { "" } else { "s" },
                if *messages == 1 { "" } else { "s" },
            ),
            format!(
                "A snapshot of the state before was taken: {} undoes it.",
                keys.restore
            ),
        ),
        EngineEvent::CompressionSkipped { reason } => {
            Words::line(format!("Compression skipped: {}.", skip_reason(reason)))
        }
        EngineEvent::NotCompressed { reason } => {
            Words::line(format!("Not compressed: {}.", skip_reason(reason)))
        }
        EngineEvent::CompressionFailed { part, error } => Words::with_hint(
            format!(
                "Compression failed: {}",
                match part {
                    FailedPart::Fold => format!("{error}; nothing was folded and nothing is lost"),
                    FailedPart::Aging { id, to } => format!(
                        "checkpoint {id} aged to {} by shortening its summary without the model: {error}",
                        to.name()
                    ),
                    FailedPart::Merge => format!(
                        "ancient checkpoints merged by shortening their summaries without the model: {error}"
                    ),
                }
            ),
            format!(
                "The conversation continues; ollm-tui retries when the context fills up, or press {}.",
                keys.compress
            ),
        ),
        EngineEvent::CompressionStopped { unsent: true } => Words::line(
            "Compression stopped. Your message is saved but was not sent: /retry sends it.",
        ),
        EngineEvent::CompressionStopped { unsent: false } => Words::line(
            "The summary under way was stopped; nothing else changed (the fold it was for keeps your facts).",
        ),
        EngineEvent::RolloverComplete {
            intensity,
            tokens_after,
        } => Words::line(format!(
            "Emergency rollover ({}): the context now holds {tokens_after} tokens. An emergency snapshot was saved first ({}).",
            match intensity {
                Intensity::Truncate => "marked truncation, the model was unavailable",
                Intensity::Normal | Intensity::Hard => "everything older folded hard",
            },
            keys.restore
        )),
        EngineEvent::SnapshotCreated { id, purpose } => Words::line(format!(
            "{} {id} saved ({} to restore).",
            if *purpose == SnapshotPurpose::Emergency {
                "Emergency snapshot"
            } else {
                "Snapshot"
            },
            keys.restore
        )),
        EngineEvent::SnapshotRestored { id, before } => Words::line(format!(
            "Restored snapshot {id}. The state before it is snapshot {before} ({} to go back); later messages also stay in the session history (export shows them).",
            keys.restore
        )),
        EngineEvent::SnapshotError { error } => {
            Words::with_hint(format!("Snapshot failed: {error}"), SNAPSHOT_FIX)
        }
        EngineEvent::RestoreNotSaved { id } => Words::with_hint(
            format!(
                "Snapshot failed: cannot restore {id}: the current state could not be saved first"
            ),
            SNAPSHOT_FIX,
        ),
        EngineEvent::TruncationSuspected { sent, seen } => Words::with_hint(
            format!(
                "Ollama evaluated only {seen} of about {sent} prompt tokens: it cut the start of the conversation."
            ),
            "ollm-tui compresses before the next request. If this repeats, the server may ignore num_ctx (check OLLAMA_CONTEXT_LENGTH) — or set a smaller /ctx.",
        ),
        // Said after the divider that counts every folded message: a part of that count,
        // not a second fold (#37: the two read as contradicting counts).
        EngineEvent::UserMessagesFolded { count, checkpoint } => Words::line(if *count == 1 {
            format!(
                "Of the messages in checkpoint {checkpoint}, one is yours (your oldest), folded to leave room for the next turns; it is kept in full in the session history."
            )
        } else {
            format!(
                "Of the messages in checkpoint {checkpoint}, {count} are yours (your oldest), folded to leave room for the next turns; they are kept in full in the session history."
            )
        }),
        EngineEvent::Recalled { lines } => Words::line(format!(
            "{} earlier line{} recalled from the log for this reply ({}).",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" },
            lines
                .iter()
                .map(|l| l.id.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        EngineEvent::PicturesRecalled { names } => Words::line(format!(
            "🖼 {} brought back for this reply: you asked about {}.",
            names.join(", "),
            if names.len() == 1 { "it" } else { "them" }
        )),
        EngineEvent::LedgerFull {
            dropped_user,
            dropped_model,
            kept,
        } => Words::line(format!(
            "Not every fact from folded messages fits in each request now: {kept} do, {} do not ({dropped_user} of yours, {dropped_model} of the model's). Those stay on disk and come back when you ask about them.",
            dropped_user + dropped_model
        )),
        EngineEvent::SummaryRejected {
            number,
            carried,
            facts,
        } => Words::line(format!(
            "The model's summary of checkpoint {number} kept {carried} of its {facts} facts, so it was left out: the checkpoint keeps the facts themselves."
        )),
        EngineEvent::SummariesOff { model, rejected } => Words::line(format!(
            "{model}'s summaries dropped facts {rejected} times, so it is not asked for them again in this session: folding keeps your facts word for word, and everything stays on disk for recall."
        )),
        EngineEvent::Compressed {
            messages: 0,
            tokens_before,
            tokens_after,
            ..
        } => Words::line(format!(
            "No messages were folded: a summary of what is left would not be smaller than the messages. Condensing older checkpoints took the context from {tokens_before} to {tokens_after} tokens."
        )),
        EngineEvent::MessageClipped {
            id,
            omitted_tokens,
            fits_ctx,
            ..
        } => Words::with_hint(
            format!(
                "Message {id} is too large for the context: the model sees its beginning and end ({omitted_tokens} tokens cut)."
            ),
            match fits_ctx {
                Some(n) => format!(
                    "The full text is saved in the session. /ctx {n} would send it whole."
                ),
                None => "The full text is saved in the session. Raise the context with /ctx N to send it whole.".into(),
            },
        ),
        EngineEvent::Blocked(b) => Words::with_hint("Message not sent", blocked(b)),
        EngineEvent::OverflowPersists { message } => Words::with_hint(
            format!("Ollama still refuses the conversation as too long: {message}"),
            format!(
                "Your message is saved. Lower the context size (/ctx) or compress ({}), then /retry.",
                keys.compress
            ),
        ),
        EngineEvent::GoalRejected { change, reason } => Words::line(format!(
            "Not applied from the reply: {} — {reason}.",
            marker_line(change)
        )),
        EngineEvent::GoalUpdated {
            change: GoalChange::GoalStatus { status },
            author: Author::User,
        } => Words::line(match status {
            GoalStatus::Completed => {
                "Goal completed. It stays in the session's history (export shows past goals)."
            }
            GoalStatus::Paused => "Goal paused: /goal resume takes it up again.",
            GoalStatus::Active => "Goal active again.",
        }),
        EngineEvent::GoalUpdated {
            change: GoalChange::Clear,
            author: Author::User,
        } => Words::line("Goal board cleared. Its history stays in the session (export shows it)."),
        EngineEvent::ReliabilityWarning {
            carried,
            stated,
            model,
        } => Words::line(format!(
            "Only {carried} of the {stated} facts you stated in folded messages still fit in what {model} is sent with each message; the rest stay on disk and come back when you ask about them. If answers drift, a larger context (/ctx) keeps more, or /new starts afresh (this session is kept)."
        )),
        EngineEvent::FactEdited { fact, edit } => Words::line(fact_edited(fact, edit)),
        EngineEvent::Pinned { id, pinned: true } => Words::line(format!(
            "Pinned message {id}: it is never folded into a summary."
        )),
        EngineEvent::Pinned { id, pinned: false } => Words::line(format!(
            "Unpinned message {id}: it may be folded into a summary like any other."
        )),
        EngineEvent::NothingToRetry => {
            Words::line("Nothing to retry: the last message has its complete reply.")
        }
        EngineEvent::ModeChanged { mode } => Words::line(format!("Mode: {mode}.")),
        EngineEvent::ParamsChanged { change } => Words::line(param_change(change)),
        EngineEvent::CtxChanged { ctx, .. } => Words::line(format!(
            "Context size {ctx} tokens (the model reloads once with it)."
        )),
        EngineEvent::LoadedCtxSmaller {
            model,
            loaded,
            asked,
        } => Words::with_hint(
            format!(
                "Ollama loaded {model} with a {loaded}-token context, not the {asked} asked for."
            ),
            "The budget now follows what the server uses, so nothing is cut silently. A model's trained length, or OLLAMA_CONTEXT_LENGTH on the server, sets this limit; /ctx changes what is asked for.",
        ),
        EngineEvent::Refused { error } => refused(error),
        // These show on screen in other ways (dividers, the panel, the status line); in
        // words they are the event's name. Named one by one, so a new event does not
        // compile until it has its words.
        EngineEvent::Compressed { .. }
        | EngineEvent::ToolRoundsCapped { .. }
        | EngineEvent::CheckpointCreated { .. }
        | EngineEvent::CheckpointAged { .. }
        | EngineEvent::CheckpointsMerged { .. }
        | EngineEvent::AutoSnapshotCreated { .. }
        | EngineEvent::GoalUpdated { .. } => Words::line(ev.name().replace('-', " ")),
    }
}
