//! The words of a Markdown export (`MARKDOWN`): every label, heading and sentence
//! `store::export` lays out, with the functions that word a record's settings, a
//! checkpoint and a goal-board change. Apart because the export's wording is a document of
//! its own, changed without touching what the app shows.

use super::load_report::load_report;
use crate::core::checkpoint::Checkpoint;
use crate::core::goals::{Author, GoalChange};
use crate::core::mode::Mode;
use crate::core::params::{Param, SessionParams};
use crate::store::export::{BoardWords, HeadWords, MarkdownWords, RecordWords};

/// The words of a Markdown export: `store::export` lays out the records and takes every
/// label, heading and sentence from here.
pub const MARKDOWN: MarkdownWords = MarkdownWords {
    head: &HeadWords {
        untitled: |id| format!("Session {id}"),
        session: "Session",
        model: "Model",
        settings: md_settings_head,
        started: "Started",
        last_activity: "Last activity",
        messages: "Messages",
        compressions: "Compressions",
        losses_label: "Loaded with losses",
        losses: load_report,
    },
    board: &BoardWords {
        heading: "Goal board",
        active: "Active goal",
        goal: |description, priority, status| {
            format!("{description} ({priority:?} priority, {status:?})")
        },
        artifacts: "Artifacts",
        next_steps: "Next steps",
        decisions: "Decisions",
        earlier: "Earlier goals",
        past_goal: |description, status| format!("{description} ({status:?})"),
    },
    records: &RecordWords {
        heading: "Conversation",
        user: "User",
        pinned: "pinned",
        assistant: "Assistant",
        thinking: |words| format!("Thinking ({words} words)"),
        calls: |name, from_text| {
            let how = if from_text {
                " (written as text, read as a call)"
            } else {
                ""
            };
            format!("Calls `{name}`{how}")
        },
        interrupted: "Interrupted",
        picture_described: |id, line| {
            format!("The model described the picture of message {id}, folded unanswered: {line}")
        },
        picture_missing: |name, w, h| {
            format!(
                "🖼 {name} ({w}×{h}): its file is missing or changed in the session's store, \
                 so this export has no copy of it"
            )
        },
        interrupted_note: "the reply stopped here; the partial text above was kept.",
        tool: "Tool",
        took: |ms| format!("{:.1}s", ms as f64 / 1000.0),
        error: "error",
        arguments: "Arguments",
        result: "Result",
        shortened: |chars, file| {
            format!(
                "The model saw this shortened form; the whole result ({chars} characters) \
                 is saved as `results/<session>/{file}` in the data directory."
            )
        },
        checkpoint: md_checkpoint,
        checkpoint_aged: |c| {
            format!(
                "Checkpoint {} aged to {} ({} tokens)",
                c.number,
                c.level.name(),
                c.tokens
            )
        },
        checkpoint_summarized: |number, kept, carried, facts| {
            if kept {
                format!("Checkpoint {number} summarized (it carries {carried} of {facts} facts)")
            } else {
                format!(
                    "Checkpoint {number}: the model's summary carried {carried} of {facts} facts, \
                     so the fold keeps its facts only"
                )
            }
        },
        checkpoints_merged: |names, c| {
            format!(
                "Checkpoints {} merged into checkpoint {} ({}, {} tokens)",
                names.join(", "),
                c.number,
                c.level.name(),
                c.tokens
            )
        },
        goal: |change, author| {
            let by = match author {
                Author::User => "user",
                Author::Model => "model",
            };
            format!("{} (by {by})", goal_change(change))
        },
        fact: |fact, edit| super::events::fact_edited(fact, edit),
        pin: |id, pinned| {
            let verb = if pinned { "pinned" } else { "unpinned" };
            format!("Message {id} {verb}")
        },
        clip: |clip| {
            format!(
                "Message {} was shown to the model cut down ({} tokens omitted; kept whole here)",
                clip.id, clip.omitted_tokens
            )
        },
        snapshot: |id, purpose| format!("Snapshot `{id}` saved ({})", purpose.as_str()),
        reduced: |id, tokens| {
            format!(
                "Tool result #{} is shown to the model cut down from its original ({} tokens)",
                id.0,
                tokens.map_or_else(|| "?".to_string(), |t| t.to_string())
            )
        },
        task_done: |at| {
            format!(
                "Task done at #{}: the tool calls and results before it left the model's context",
                at.0
            )
        },
        restored: |id| format!("Restored snapshot `{id}`"),
        settings: md_settings_record,
    },
};

/// The settings at the head of a Markdown export: "llama3.2 · mode developer · ctx 8192".
fn md_settings_head(model: &str, mode: Mode, ctx: Option<u32>) -> String {
    match ctx {
        Some(ctx) => format!("{model} · mode {mode} · ctx {ctx}"),
        None => format!("{model} · mode {mode}"),
    }
}

/// A compression's checkpoint in a Markdown export: what it folded and how far.
fn md_checkpoint(c: &Checkpoint) -> String {
    let range = c
        .range()
        .map(|(a, b)| format!("messages {a}–{b}"))
        .unwrap_or_else(|| "no messages".to_string());
    format!(
        "Checkpoint {}: {range} folded ({} → {} tokens, {})",
        c.number,
        c.original_tokens,
        c.tokens,
        c.level.name()
    )
}

/// A settings record in a Markdown export: each thing it changed, in the log's order.
fn md_settings_record(
    model: Option<&str>,
    ctx: Option<u32>,
    mode: Option<Mode>,
    params: Option<&SessionParams>,
) -> String {
    use crate::store::export::one_line;
    let mut parts = Vec::new();
    if let Some(m) = model {
        parts.push(format!("model → {}", one_line(m)));
    }
    match ctx {
        Some(0) => parts.push("ctx → the model's own".to_string()),
        Some(c) => parts.push(format!("ctx → {c}")),
        None => {}
    }
    if let Some(m) = mode {
        parts.push(format!("mode → {m}"));
    }
    if let Some(p) = params {
        match &p.system {
            Some(text) => parts.push(format!("system prompt → {}", one_line(text))),
            None => parts.push("no system prompt".to_string()),
        }
        for param in Param::ALL {
            if let Some(v) = p.get(param) {
                parts.push(format!("{} → {v}", param.name()));
            }
        }
        if let Some(word) = &p.think {
            parts.push(format!("think → {}", one_line(word)));
        }
        if p.verbose {
            parts.push("verbose".to_string());
        }
    }
    format!("Settings: {}", parts.join(", "))
}

/// A change to the goal board, as a Markdown export's line says it.
pub fn goal_change(change: &GoalChange) -> String {
    use crate::store::export::one_line;
    match change {
        GoalChange::SetGoal {
            description,
            priority,
        } => format!(
            "Goal set: {} ({priority:?} priority)",
            one_line(description)
        ),
        GoalChange::GoalStatus { status } => format!("Goal marked {status:?}"),
        GoalChange::Checkpoint {
            description,
            status,
        } => format!(
            "Goal checkpoint {} — {}",
            one_line(description),
            status.marker()
        ),
        GoalChange::Decision { text, locked } => {
            let lock = if *locked { " (locked)" } else { "" };
            format!("Decision{lock}: {}", one_line(text))
        }
        GoalChange::Lock { id } => format!("Decision #{id} locked"),
        GoalChange::Unlock { id } => format!("Decision #{id} unlocked"),
        GoalChange::DeleteDecision { id } => format!("Decision #{id} deleted"),
        GoalChange::Artifact { action, path } => {
            format!(
                "Artifact {} `{}`",
                action.as_str(),
                one_line(path).replace('`', "'")
            )
        }
        GoalChange::Next { text } => format!("Next step: {}", one_line(text)),
        GoalChange::Clear => "Goal board cleared".to_string(),
    }
}
