//! `ollm-tui export ID --format md|json`: a session's full history for people and tools.
//!
//! Strategy: both renderers walk the records once, in order; the session's settings, counts
//! and goal board come from the same fold as the session list (`core::overview`), exactly
//! as they stood at the end of the session. JSON follows a common session-file shape
//! (`sessionId`, `messages[].parts`, `toolCalls[].result.llmContent`, `metadata`) and keeps
//! texts byte for byte; it adds `status` on interrupted replies, and `checkpoints` and
//! `goals`. Markdown is for reading, in the app's words ([`MarkdownWords`]: this module
//! only lays it out); every piece of text from the log goes through
//! [`sanitize`], because exports get pasted into terminals, and code fences are made
//! longer than any backtick run inside them so content cannot break out.

use crate::core::checkpoint::{Checkpoint, CheckpointId};
use crate::core::goals::{Author, GoalBoard, GoalChange, GoalStatus, Priority, StepStatus};
use crate::core::message::{MessageId, ReplyStatus};
use crate::core::mode::Mode;
use crate::core::overview::SessionOverview;
use crate::core::params::SessionParams;
use crate::core::record::{Clip, Record, RecordBody, SnapshotPurpose};
use crate::core::sanitize::sanitize;
use crate::store::StoreError;
use crate::store::log::{LoadReport, LoadedLog};
use serde_json::{Value, json};
use std::fmt::Write as _;

const TIME_FORMAT: &str = "%Y-%m-%d %H:%M:%S UTC";

fn overview(log: &LoadedLog) -> SessionOverview {
    SessionOverview::of(&log.header, &log.records)
}

/// The session-file JSON (pretty-print it at the call site).
pub fn to_json(log: &LoadedLog) -> Value {
    let o = overview(log);
    let mut messages = Vec::new();
    let mut tool_calls = Vec::new();
    let mut checkpoints = Vec::new();
    for r in &log.records {
        let ts = r.ts.to_rfc3339();
        match &r.body {
            RecordBody::User { text, pinned, .. } => {
                let mut m = json!({
                    "id": r.seq,
                    "role": "user",
                    "parts": [{"type": "text", "text": text}],
                    "timestamp": ts,
                });
                if *pinned {
                    m["pinned"] = Value::Bool(true);
                }
                messages.push(m);
            }
            RecordBody::Assistant {
                text,
                status,
                model,
                eval_count,
                tool_calls: calls,
                thinking,
                ..
            } => {
                let mut parts = Vec::new();
                if !thinking.is_empty() {
                    parts.push(json!({"type": "thinking", "text": thinking}));
                }
                parts.push(json!({"type": "text", "text": text}));
                let mut m = json!({
                    "id": r.seq,
                    "role": "assistant",
                    "parts": parts,
                    "timestamp": ts,
                    "model": model,
                    "status": status,
                });
                if let Some(n) = eval_count {
                    m["tokens"] = json!(n);
                }
                if !calls.is_empty() {
                    m["toolCalls"] = calls
                        .iter()
                        .map(|c| {
                            let mut call =
                                json!({"id": c.id, "name": c.name, "args": json_or_text(&c.args)});
                            if c.from_text {
                                call["fromText"] = Value::Bool(true);
                            }
                            call
                        })
                        .collect();
                }
                messages.push(m);
            }
            RecordBody::Tool {
                name,
                args,
                result,
                is_error,
                call_id,
                ms,
                original,
                ..
            } => {
                let mut call = json!({
                    // The server's id for the call where it gave one (the assistant
                    // message's `toolCalls` names it too).
                    "id": call_id.clone().filter(|id| !id.is_empty()).unwrap_or_else(|| format!("call_{}", r.seq)),
                    "name": name,
                    "args": json_or_text(args),
                    "result": {"llmContent": result, "isError": is_error},
                    "timestamp": ts,
                });
                if let Some(ms) = ms {
                    call["durationMs"] = json!(ms);
                }
                if let Some(o) = original {
                    call["original"] = json!({"file": o.file, "chars": o.chars});
                }
                tool_calls.push(call);
            }
            RecordBody::Checkpoint { checkpoint } => {
                checkpoints.push(checkpoint_json("created", checkpoint, &ts, &[]));
            }
            RecordBody::CheckpointAged { checkpoint } => {
                checkpoints.push(checkpoint_json("aged", checkpoint, &ts, &[]));
            }
            RecordBody::CheckpointsMerged { merged, checkpoint } => {
                let merged: Vec<u64> = merged.iter().map(|c| c.0).collect();
                checkpoints.push(checkpoint_json("merged", checkpoint, &ts, &merged));
            }
            _ => {}
        }
    }
    json!({
        "sessionId": log.header.session_id,
        "startTime": log.header.created.to_rfc3339(),
        "lastActivity": o.last_activity.to_rfc3339(),
        "model": o.settings.model,
        "provider": "ollama",
        "messages": messages,
        "toolCalls": tool_calls,
        "checkpoints": checkpoints,
        "goals": camel_keys(serde_json::to_value(&o.board).unwrap_or(Value::Null)),
        "metadata": {
            "tokenCount": o.token_count,
            "compressionCount": o.compressions,
            "messageCount": o.messages,
            "mode": o.settings.mode,
            "ctx": o.settings.ctx,
            "appVersion": log.header.app_version,
            "formatVersion": log.header.format_version,
            "skippedRecords": log.report.skipped.len(),
        },
    })
}

fn checkpoint_json(event: &str, c: &Checkpoint, ts: &str, merged: &[u64]) -> Value {
    let range = c.range().map(|(a, b)| json!([a.0, b.0]));
    let mut v = json!({
        "event": event,
        "id": c.id.0,
        "number": c.number,
        "level": c.level.name(),
        "summary": c.summary,
        "messageRange": range,
        "covers": c.covers,
        "originalTokens": c.original_tokens,
        "compressedTokens": c.tokens,
        "truncated": c.truncated,
        "timestamp": ts,
    });
    if !merged.is_empty() {
        v["merged"] = json!(merged);
    }
    v
}

/// Every word a Markdown export says, given by the app (`app::words::MARKDOWN`), where
/// sentences are made: this module lays out the records (Markdown syntax, marks, order,
/// the log's data) and never words them, so wording changes in one place and `store`
/// imports nothing from `app`. Labels and headings are plain text (the layout adds the
/// `**…:**` and `#`); sentences are functions of the record's data, which the layout has
/// already folded with [`one_line`] where it is a name from the log. The parts are held by
/// reference so that a [`Format`], which travels in the actor's commands, stays small.
#[derive(Debug, Clone, Copy)]
pub struct MarkdownWords {
    pub head: &'static HeadWords,
    pub board: &'static BoardWords,
    pub records: &'static RecordWords,
}

/// The session's facts at the top of the export.
#[derive(Debug, Clone, Copy)]
pub struct HeadWords {
    /// The title of a session with no user message yet (its id given).
    pub untitled: fn(&str) -> String,
    pub session: &'static str,
    pub model: &'static str,
    /// The settings the session ends with: model (folded), mode and context size.
    pub settings: fn(&str, Mode, Option<u32>) -> String,
    pub started: &'static str,
    pub last_activity: &'static str,
    pub messages: &'static str,
    pub compressions: &'static str,
    /// The label of the warning that the log is not clean.
    pub losses_label: &'static str,
    /// What loading skipped or set aside.
    pub losses: fn(&LoadReport) -> String,
}

/// The goal board as it stands at the end.
#[derive(Debug, Clone, Copy)]
pub struct BoardWords {
    pub heading: &'static str,
    pub active: &'static str,
    /// The active goal: description (folded), priority, status.
    pub goal: fn(&str, Priority, GoalStatus) -> String,
    pub artifacts: &'static str,
    pub next_steps: &'static str,
    pub decisions: &'static str,
    pub earlier: &'static str,
    /// An earlier goal: description (folded) and how it ended.
    pub past_goal: fn(&str, GoalStatus) -> String,
}

/// The conversation: message headings, and a sentence for each other kind of record.
#[derive(Debug, Clone, Copy)]
pub struct RecordWords {
    pub heading: &'static str,
    pub user: &'static str,
    pub pinned: &'static str,
    pub assistant: &'static str,
    /// The fold of a reply's reasoning, given its word count.
    pub thinking: fn(usize) -> String,
    /// A tool the reply asked for (name folded); `true` when read from the reply's text.
    pub calls: fn(&str, bool) -> String,
    pub interrupted: &'static str,
    pub interrupted_note: &'static str,
    pub tool: &'static str,
    /// How long a tool ran, from milliseconds.
    pub took: fn(u64) -> String,
    pub error: &'static str,
    pub arguments: &'static str,
    pub result: &'static str,
    /// The result the model saw is shortened: the whole one's length and file (folded).
    pub shortened: fn(u64, &str) -> String,
    pub checkpoint: fn(&Checkpoint) -> String,
    pub checkpoint_aged: fn(&Checkpoint) -> String,
    /// Checkpoints merged (named by number where known) into the one given.
    pub checkpoints_merged: fn(&[String], &Checkpoint) -> String,
    /// A fold's summary checked against its facts: the checkpoint's number, whether it
    /// was kept, the facts it carried and the span's.
    pub checkpoint_summarized: fn(u32, bool, u32, u32) -> String,
    /// A change to the goal board and who made it.
    pub goal: fn(&GoalChange, Author) -> String,
    pub pin: fn(MessageId, bool) -> String,
    /// A fact of the ledger pinned, reworded, forgotten or taken back.
    pub fact: fn(&str, &crate::core::ledger::FactEdit) -> String,
    pub clip: fn(&Clip) -> String,
    /// A snapshot written: its id (folded) and why.
    pub snapshot: fn(&str, SnapshotPurpose) -> String,
    pub reduced: fn(MessageId, Option<u32>) -> String,
    pub task_done: fn(MessageId) -> String,
    /// A snapshot restored: its id (folded).
    pub restored: fn(&str) -> String,
    /// A settings record: what changed (the log's texts in it are not yet folded).
    pub settings: SettingsSentence,
}

/// A settings record's sentence, from its model, ctx, mode and parameters.
pub type SettingsSentence =
    fn(Option<&str>, Option<u32>, Option<Mode>, Option<&SessionParams>) -> String;

/// What an export is written as.
#[derive(Debug, Clone, Copy)]
pub enum Format {
    /// The session-file JSON: data only.
    Json,
    /// A readable transcript, with the words it is given.
    Markdown(MarkdownWords),
}

/// A readable Markdown transcript, headed by its first message.
pub fn to_markdown(log: &LoadedLog, words: &MarkdownWords) -> String {
    to_markdown_titled(log, words, None)
}

/// A readable Markdown transcript headed by the session's title (given with rename or
/// written by the model: `manage::custom_title`), else by its first message, as the
/// session list names it.
pub fn to_markdown_titled(log: &LoadedLog, words: &MarkdownWords, title: Option<&str>) -> String {
    let o = overview(log);
    let h = &log.header;
    let w = words.head;
    let mut md = String::new();
    let title = title
        .map(str::to_string)
        .or_else(|| o.title.clone())
        .unwrap_or_else(|| (w.untitled)(&h.session_id));
    let _ = writeln!(md, "# {}\n", one_line(&title));
    let _ = writeln!(md, "- **{}:** `{}`", w.session, h.session_id);
    let settings = (w.settings)(
        &one_line(&o.settings.model),
        o.settings.mode,
        o.settings.ctx,
    );
    let _ = writeln!(md, "- **{}:** {settings}", w.model);
    let _ = writeln!(md, "- **{}:** {}", w.started, h.created.format(TIME_FORMAT));
    let _ = writeln!(
        md,
        "- **{}:** {}",
        w.last_activity,
        o.last_activity.format(TIME_FORMAT)
    );
    let _ = writeln!(
        md,
        "- **{}:** {} · **{}:** {}",
        w.messages, o.messages, w.compressions, o.compressions
    );
    if !log.report.is_clean() {
        let _ = writeln!(md, "\n> ⚠ {}: {}", w.losses_label, (w.losses)(&log.report));
    }
    md.push('\n');

    if !o.board.is_empty() || !o.board.past.is_empty() {
        render_board(&mut md, &o.board, words.board);
    }

    let _ = writeln!(md, "## {}\n", words.records.heading);
    // Checkpoints are named by their number, as on screen; merge records name the
    // merged ones by id, so remember each id's number.
    let mut numbers = std::collections::HashMap::new();
    for r in &log.records {
        if let RecordBody::Checkpoint { checkpoint: c }
        | RecordBody::CheckpointsMerged { checkpoint: c, .. } = &r.body
        {
            numbers.insert(c.id, c.number);
        }
        render_record(&mut md, r, &numbers, words.records);
    }
    md
}

fn render_record(
    md: &mut String,
    r: &Record,
    numbers: &std::collections::HashMap<CheckpointId, u32>,
    w: &RecordWords,
) {
    let time = r.ts.format(TIME_FORMAT);
    // Messages carry the number `/pin N` and the screen use (the record's seq).
    let n = r.seq;
    match &r.body {
        RecordBody::User { text, pinned, .. } => {
            let pin = if *pinned {
                format!(" · 📌 {}", w.pinned)
            } else {
                String::new()
            };
            let _ = writeln!(md, "### {} #{n} · {time}{pin}\n", w.user);
            let _ = writeln!(md, "{}\n", sanitize(text).trim_end());
        }
        RecordBody::Assistant {
            text,
            status,
            model,
            tool_calls,
            thinking,
            ..
        } => {
            let _ = writeln!(
                md,
                "### {} #{n} · {time} · {}\n",
                w.assistant,
                one_line(model)
            );
            if !thinking.trim().is_empty() {
                let count = thinking.split_whitespace().count();
                folded(md, &(w.thinking)(count), thinking);
            }
            let body = sanitize(text);
            if !body.trim().is_empty() {
                let _ = writeln!(md, "{}\n", body.trim_end());
            }
            for c in tool_calls {
                let _ = writeln!(md, "{}\n", (w.calls)(&one_line(&c.name), c.from_text));
            }
            if *status == ReplyStatus::Interrupted {
                let _ = writeln!(md, "> ⚠ **{}** — {}\n", w.interrupted, w.interrupted_note);
            }
        }
        RecordBody::Tool {
            name,
            args,
            result,
            is_error,
            ms,
            original,
            ..
        } => {
            let err = if *is_error {
                format!(" · ❌ {}", w.error)
            } else {
                String::new()
            };
            let took = ms.map_or(String::new(), |ms| format!(" · {}", (w.took)(ms)));
            let _ = writeln!(
                md,
                "### {} `{}` #{n} · {time}{took}{err}\n",
                w.tool,
                one_line(name)
            );
            let _ = writeln!(md, "**{}**\n", w.arguments);
            fenced(md, "json", &sanitize(args));
            let _ = writeln!(md, "**{}**\n", w.result);
            if let Some(o) = original {
                let _ = writeln!(md, "> {}\n", (w.shortened)(o.chars, &one_line(&o.file)));
            }
            fenced(md, "", &sanitize(result));
        }
        RecordBody::Checkpoint { checkpoint: c } => {
            let summary = format!("📝 {} · {time}", (w.checkpoint)(c));
            folded(md, &summary, &c.summary);
        }
        RecordBody::CheckpointAged { checkpoint: c } => {
            let summary = format!("📝 {} · {time}", (w.checkpoint_aged)(c));
            folded(md, &summary, &c.summary);
        }
        RecordBody::CheckpointSummarized {
            id,
            summary,
            carried,
            facts,
            ..
        } => {
            let number = numbers.get(id).copied().unwrap_or_default();
            let line = (w.checkpoint_summarized)(number, !summary.is_empty(), *carried, *facts);
            if summary.is_empty() {
                let _ = writeln!(md, "> 📝 {line} · {time}\n");
            } else {
                folded(md, &format!("📝 {line} · {time}"), summary);
            }
        }
        RecordBody::CheckpointsMerged {
            merged,
            checkpoint: c,
        } => {
            let names: Vec<String> = merged
                .iter()
                .map(|m| numbers.get(m).map_or_else(|| m.to_string(), u32::to_string))
                .collect();
            let summary = format!("📝 {} · {time}", (w.checkpoints_merged)(&names, c));
            folded(md, &summary, &c.summary);
        }
        RecordBody::Goal { change, author } => {
            let _ = writeln!(md, "> 🎯 {} · {time}\n", (w.goal)(change, *author));
        }
        RecordBody::Pin { id, pinned } => {
            let _ = writeln!(md, "> 📌 {} · {time}\n", (w.pin)(*id, *pinned));
        }
        RecordBody::Fact { fact, edit } => {
            let _ = writeln!(md, "> ✎ {} · {time}\n", sanitize(&(w.fact)(fact, edit)));
        }
        RecordBody::Clip { clip } => {
            let _ = writeln!(md, "> ✂ {} · {time}\n", (w.clip)(clip));
        }
        RecordBody::Snapshot {
            snapshot_id,
            purpose,
        } => {
            let said = (w.snapshot)(&one_line(snapshot_id), *purpose);
            let _ = writeln!(md, "> 💾 {said} · {time}\n");
        }
        RecordBody::ResultReduced { id, tokens, .. } => {
            let _ = writeln!(md, "> ✂ {} · {time}\n", (w.reduced)(*id, *tokens));
        }
        // Warnings the transcript showed; the rest (compressions, merges, restores) have
        // records of their own above.
        RecordBody::Event { event } => {
            use crate::core::events::EngineEvent as E;
            if matches!(
                event,
                E::TruncationSuspected { .. }
                    | E::MessageClipped { .. }
                    | E::OverflowPersists { .. }
                    | E::CompressionFailed { .. }
            ) {
                let _ = writeln!(md, "> ⚠ {} · {time}\n", event.name());
            }
        }
        RecordBody::Watermark { at } => {
            let _ = writeln!(md, "> ✔ {} · {time}\n", (w.task_done)(*at));
        }
        // Recall's vectors are numbers for the model, not something to read.
        RecordBody::SentenceVectors { .. } => {}
        RecordBody::Restore { snapshot_id, .. } => {
            let _ = writeln!(
                md,
                "> ⏪ {} · {time}\n",
                (w.restored)(&one_line(snapshot_id))
            );
        }
        RecordBody::Settings {
            model,
            ctx,
            mode,
            params,
        } => {
            let said = (w.settings)(model.as_deref(), *ctx, *mode, params.as_ref());
            let _ = writeln!(md, "> ⚙ {said} · {time}\n");
        }
    }
}

fn render_board(md: &mut String, board: &GoalBoard, w: &BoardWords) {
    let _ = writeln!(md, "## {}\n", w.heading);
    if let Some(g) = &board.active {
        let goal = (w.goal)(&one_line(&g.description), g.priority, g.status);
        let _ = writeln!(md, "**{}:** {goal}\n", w.active);
        for c in &g.checkpoints {
            let mark = match c.status {
                StepStatus::Completed => "[x]",
                StepStatus::InProgress => "[~]",
                StepStatus::Pending => "[ ]",
            };
            let _ = writeln!(md, "- {mark} {}", one_line(&c.description));
        }
        if !g.checkpoints.is_empty() {
            md.push('\n');
        }
        if !g.artifacts.is_empty() {
            let _ = writeln!(md, "**{}:**\n", w.artifacts);
            for a in &g.artifacts {
                let _ = writeln!(md, "- {} `{}`", a.action.as_str(), one_line(&a.path));
            }
            md.push('\n');
        }
        if !g.next_steps.is_empty() {
            let _ = writeln!(md, "**{}:**\n", w.next_steps);
            for n in &g.next_steps {
                let _ = writeln!(md, "- {}", one_line(n));
            }
            md.push('\n');
        }
    }
    if !board.decisions.is_empty() {
        let _ = writeln!(md, "**{}:**\n", w.decisions);
        for d in &board.decisions {
            let lock = if d.locked { "🔒 " } else { "" };
            let _ = writeln!(md, "- {lock}{} (#{})", one_line(&d.text), d.id);
        }
        md.push('\n');
    }
    if !board.past.is_empty() {
        let _ = writeln!(md, "**{}:**\n", w.earlier);
        for g in &board.past {
            let _ = writeln!(
                md,
                "- {}",
                (w.past_goal)(&one_line(&g.description), g.status)
            );
        }
        md.push('\n');
    }
}

/// The session file's keys are camelCase; the goal board serializes its own fields in
/// snake_case (its log-record form), so they are renamed on the way out.
fn camel_keys(v: Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    let mut out = String::with_capacity(k.len());
                    let mut upper = false;
                    for c in k.chars() {
                        if c == '_' {
                            upper = true;
                        } else if upper {
                            out.extend(c.to_uppercase());
                            upper = false;
                        } else {
                            out.push(c);
                        }
                    }
                    (out, camel_keys(v))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(camel_keys).collect()),
        other => other,
    }
}

/// Arguments are JSON text from the model; the text itself where it is not JSON.
fn json_or_text(args: &str) -> Value {
    serde_json::from_str::<Value>(args).unwrap_or_else(|_| Value::from(args))
}

/// A collapsible note (`<details>`), as GitHub and most Markdown viewers render it.
fn folded(md: &mut String, summary: &str, body: &str) {
    let body = sanitize(body);
    let _ = writeln!(
        md,
        "<details>\n<summary>{}</summary>\n\n{}\n\n</details>\n",
        escape_html(summary),
        body.trim_end()
    );
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Sanitised and folded onto one line (for headings and list items). Public so that the
/// words a Markdown export is given fold the log's texts they receive whole (a goal change,
/// a settings record) alike.
pub fn one_line(text: &str) -> String {
    sanitize(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A code block whose fence is longer than any backtick run in `body`.
fn fenced(md: &mut String, lang: &str, body: &str) {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat((longest + 1).max(3));
    let _ = writeln!(
        md,
        "{fence}{lang}\n{}\n{fence}\n",
        body.trim_end_matches('\n')
    );
}

/// The JSON export as text. Characters that act on a terminal without being control
/// characters to JSON (C1 controls such as U+009B, a CSI; bidi overrides such as U+202E)
/// are written as `\u` escapes: the text means the same to a JSON reader and cannot act
/// on a terminal that shows the file.
pub fn to_json_text(log: &LoadedLog) -> Result<String, serde_json::Error> {
    let text = serde_json::to_string_pretty(&to_json(log))?;
    if !text.chars().any(acts_on_terminal) {
        return Ok(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if acts_on_terminal(c) {
            // Outside JSON strings there are only ASCII punctuation and whitespace, so
            // every such character is inside a string, where an escape is equivalent.
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

fn acts_on_terminal(c: char) -> bool {
    matches!(c, '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Render a session and write it to `$OLLM_HOME/exports/<id>.md` or `.json` (directory
/// 0700, file 0600, replaced if it exists). Reads the log without taking the session lock,
/// so the running session can export itself. Written beside and renamed into place: a
/// symlink planted at the export's name is replaced, never followed.
pub fn write_export(
    dir: &crate::store::DataDir,
    session_id: &str,
    format: &Format,
) -> Result<std::path::PathBuf, crate::store::StoreError> {
    use crate::store::SessionLog;
    use crate::store::fsutil::ensure_private_dir;
    let log = SessionLog::read(dir, session_id)?;
    let text = match format {
        Format::Json => to_json_text(&log).map_err(|e| StoreError::Encode {
            what: "export",
            source: e,
        })?,
        Format::Markdown(words) => {
            let title = crate::store::manage::custom_title(&dir.session_log_path(session_id));
            to_markdown_titled(&log, words, title.as_deref())
        }
    };
    let exports = dir.exports_dir();
    ensure_private_dir(&exports)?;
    let ext = match format {
        Format::Json => "json",
        Format::Markdown(_) => "md",
    };
    let path = exports.join(format!("{session_id}.{ext}"));
    write_replacing(&path, text.as_bytes())?;
    Ok(path)
}

/// Write `bytes` to `path` as a new private file (0600): written beside it and renamed
/// into place, so a symlink there is replaced, never followed, and an existing looser file
/// is replaced by a private one. `export -o FILE` and `/export` write this way.
pub fn write_replacing(path: &std::path::Path, bytes: &[u8]) -> Result<(), StoreError> {
    use crate::store::fsutil::open_private;
    use std::io::Write as _;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = parent.join(format!(".{name}.{}.tmp", std::process::id()));
    // A stale temporary file (a crash mid-write) or anything planted there goes first;
    // `create_new` then refuses to follow a link created in between.
    let _ = std::fs::remove_file(&tmp);
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    let mut file = open_private(&tmp, &mut opts, "write the export")?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_data())
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(StoreError::io(path, "write the export", e));
    }
    crate::store::fsutil::sync_dir(&parent)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_backtick_runs_in_the_body() {
        let mut md = String::new();
        fenced(&mut md, "", "a ```` b");
        assert!(md.starts_with("`````\n"), "{md}");
        assert!(md.trim_end().ends_with("`````"), "{md}");
        let mut md = String::new();
        fenced(&mut md, "json", "{}");
        assert_eq!(md, "```json\n{}\n```\n\n");
    }

    #[test]
    fn one_line_folds_and_strips_controls() {
        assert_eq!(one_line("a\n b\u{1b}]0;x\u{7}\tc"), "a b c");
    }
}
