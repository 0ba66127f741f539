//! `ollm-tui export ID --format md|json`: a session's full history for people and tools.
//!
//! Strategy: both renderers walk the records once, in order; the session's settings, counts
//! and goal board come from the same fold as the session list (`core::overview`), exactly
//! as they stood at the end of the session. JSON follows a common session-file shape
//! (`sessionId`, `messages[].parts`, `toolCalls[].result.llmContent`, `metadata`) and keeps
//! texts byte for byte; it adds `status` on interrupted replies, and `checkpoints` and
//! `goals`. Markdown is for reading: every piece of text from the log goes through
//! [`sanitize`], because exports get pasted into terminals, and code fences are made
//! longer than any backtick run inside them so content cannot break out.

use crate::core::checkpoint::{Checkpoint, CheckpointId};
use crate::core::goals::{Author, GoalBoard, GoalChange, StepStatus};
use crate::core::message::ReplyStatus;
use crate::core::overview::SessionOverview;
use crate::core::record::{Record, RecordBody};
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

/// The sentences a Markdown export says about the log's data, given by the app's words
/// (`app::words::MARKDOWN`), where sentences are made (the losses in the words the app
/// says at start and `export` on stderr). The layout's headings and labels are still here.
#[derive(Debug, Clone, Copy)]
pub struct MarkdownWords {
    /// What loading skipped or set aside (the log is not clean).
    pub losses: fn(&LoadReport) -> String,
    /// A change to the goal board.
    pub goal_change: fn(&GoalChange) -> String,
}

/// What an export is written as.
#[derive(Debug, Clone, Copy)]
pub enum Format {
    /// The session-file JSON: data only.
    Json,
    /// A readable transcript, with the words it is given.
    Markdown(MarkdownWords),
}

/// A readable Markdown transcript.
pub fn to_markdown(log: &LoadedLog, words: &MarkdownWords) -> String {
    let o = overview(log);
    let h = &log.header;
    let mut md = String::new();
    let title = o
        .title
        .clone()
        .unwrap_or_else(|| format!("Session {}", h.session_id));
    let _ = writeln!(md, "# {}\n", one_line(&title));
    let _ = writeln!(md, "- **Session:** `{}`", h.session_id);
    let _ = write!(
        md,
        "- **Model:** {} · mode {}",
        one_line(&o.settings.model),
        o.settings.mode
    );
    if let Some(ctx) = o.settings.ctx {
        let _ = write!(md, " · ctx {ctx}");
    }
    md.push('\n');
    let _ = writeln!(md, "- **Started:** {}", h.created.format(TIME_FORMAT));
    let _ = writeln!(
        md,
        "- **Last activity:** {}",
        o.last_activity.format(TIME_FORMAT)
    );
    let _ = writeln!(
        md,
        "- **Messages:** {} · **Compressions:** {}",
        o.messages, o.compressions
    );
    if !log.report.is_clean() {
        let _ = writeln!(
            md,
            "\n> ⚠ Loaded with losses: {}",
            (words.losses)(&log.report)
        );
    }
    md.push('\n');

    if !o.board.is_empty() || !o.board.past.is_empty() {
        render_board(&mut md, &o.board);
    }

    md.push_str("## Conversation\n\n");
    // Checkpoints are named by their number, as on screen; merge records name the
    // merged ones by id, so remember each id's number.
    let mut numbers = std::collections::HashMap::new();
    for r in &log.records {
        if let RecordBody::Checkpoint { checkpoint: c }
        | RecordBody::CheckpointsMerged { checkpoint: c, .. } = &r.body
        {
            numbers.insert(c.id, c.number);
        }
        render_record(&mut md, r, &numbers, words);
    }
    md
}

fn render_record(
    md: &mut String,
    r: &Record,
    numbers: &std::collections::HashMap<CheckpointId, u32>,
    words: &MarkdownWords,
) {
    let time = r.ts.format(TIME_FORMAT);
    // Messages carry the number `/pin N` and the screen use (the record's seq).
    let n = r.seq;
    match &r.body {
        RecordBody::User { text, pinned, .. } => {
            let pin = if *pinned { " · 📌 pinned" } else { "" };
            let _ = writeln!(md, "### User #{n} · {time}{pin}\n");
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
            let _ = writeln!(md, "### Assistant #{n} · {time} · {}\n", one_line(model));
            if !thinking.trim().is_empty() {
                let words = thinking.split_whitespace().count();
                folded(md, &format!("Thinking ({words} words)"), thinking);
            }
            let body = sanitize(text);
            if !body.trim().is_empty() {
                let _ = writeln!(md, "{}\n", body.trim_end());
            }
            for c in tool_calls {
                let how = if c.from_text {
                    " (written as text, read as a call)"
                } else {
                    ""
                };
                let _ = writeln!(md, "Calls `{}`{how}\n", one_line(&c.name));
            }
            if *status == ReplyStatus::Interrupted {
                md.push_str(
                    "> ⚠ **Interrupted** — the reply stopped here; \
                     the partial text above was kept.\n\n",
                );
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
            let err = if *is_error { " · ❌ error" } else { "" };
            let took = ms.map_or(String::new(), |ms| format!(" · {:.1}s", ms as f64 / 1000.0));
            let _ = writeln!(
                md,
                "### Tool `{}` #{n} · {time}{took}{err}\n",
                one_line(name)
            );
            md.push_str("**Arguments**\n\n");
            fenced(md, "json", &sanitize(args));
            md.push_str("**Result**\n\n");
            if let Some(o) = original {
                let _ = writeln!(
                    md,
                    "> The model saw this shortened form; the whole result ({} characters) \
                     is saved as `results/<session>/{}` in the data directory.\n",
                    o.chars,
                    one_line(&o.file)
                );
            }
            fenced(md, "", &sanitize(result));
        }
        RecordBody::Checkpoint { checkpoint: c } => {
            let range = c
                .range()
                .map(|(a, b)| format!("messages {a}–{b}"))
                .unwrap_or_else(|| "no messages".to_string());
            let summary = format!(
                "📝 Checkpoint {}: {range} folded ({} → {} tokens, {}) · {time}",
                c.number,
                c.original_tokens,
                c.tokens,
                c.level.name()
            );
            folded(md, &summary, &c.summary);
        }
        RecordBody::CheckpointAged { checkpoint: c } => {
            let summary = format!(
                "📝 Checkpoint {} aged to {} ({} tokens) · {time}",
                c.number,
                c.level.name(),
                c.tokens
            );
            folded(md, &summary, &c.summary);
        }
        RecordBody::CheckpointsMerged {
            merged,
            checkpoint: c,
        } => {
            let names: Vec<String> = merged
                .iter()
                .map(|m| numbers.get(m).map_or_else(|| m.to_string(), u32::to_string))
                .collect();
            let summary = format!(
                "📝 Checkpoints {} merged into checkpoint {} ({}, {} tokens) · {time}",
                names.join(", "),
                c.number,
                c.level.name(),
                c.tokens
            );
            folded(md, &summary, &c.summary);
        }
        RecordBody::Goal { change, author } => {
            let by = match author {
                Author::User => "user",
                Author::Model => "model",
            };
            let _ = writeln!(
                md,
                "> 🎯 {} (by {by}) · {time}\n",
                (words.goal_change)(change)
            );
        }
        RecordBody::Pin { id, pinned } => {
            let verb = if *pinned { "pinned" } else { "unpinned" };
            let _ = writeln!(md, "> 📌 Message {id} {verb} · {time}\n");
        }
        RecordBody::Clip { clip } => {
            let _ = writeln!(
                md,
                "> ✂ Message {} was shown to the model cut down ({} tokens omitted; kept whole here) · {time}\n",
                clip.id, clip.omitted_tokens
            );
        }
        RecordBody::Snapshot {
            snapshot_id,
            purpose,
        } => {
            let _ = writeln!(
                md,
                "> 💾 Snapshot `{}` saved ({}) · {time}\n",
                one_line(snapshot_id),
                purpose.as_str()
            );
        }
        RecordBody::ResultReduced { id, tokens, .. } => {
            let _ = writeln!(
                md,
                "> ✂ Tool result #{} is shown to the model cut down from its original ({} tokens) · {time}\n",
                id.0,
                tokens.map_or_else(|| "?".to_string(), |t| t.to_string())
            );
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
            let _ = writeln!(
                md,
                "> ✔ Task done at #{at}: the tool calls and results before it left the model's context · {time}\n",
                at = at.0
            );
        }
        RecordBody::Restore { snapshot_id, .. } => {
            let _ = writeln!(
                md,
                "> ⏪ Restored snapshot `{}` · {time}\n",
                one_line(snapshot_id)
            );
        }
        RecordBody::Settings {
            model,
            ctx,
            mode,
            params,
        } => {
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
                for param in crate::core::params::Param::ALL {
                    if let Some(v) = p.get(param) {
                        parts.push(format!("{} → {v}", param.name()));
                    }
                }
                if let Some(word) = &p.think {
                    parts.push(format!("think → {}", one_line(word)));
                }
            }
            let _ = writeln!(md, "> ⚙ Settings: {} · {time}\n", parts.join(", "));
        }
    }
}

fn render_board(md: &mut String, board: &GoalBoard) {
    md.push_str("## Goal board\n\n");
    if let Some(g) = &board.active {
        let _ = writeln!(
            md,
            "**Active goal:** {} ({:?} priority, {:?})\n",
            one_line(&g.description),
            g.priority,
            g.status
        );
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
            md.push_str("**Artifacts:**\n\n");
            for a in &g.artifacts {
                let _ = writeln!(md, "- {} `{}`", a.action.as_str(), one_line(&a.path));
            }
            md.push('\n');
        }
        if !g.next_steps.is_empty() {
            md.push_str("**Next steps:**\n\n");
            for n in &g.next_steps {
                let _ = writeln!(md, "- {}", one_line(n));
            }
            md.push('\n');
        }
    }
    if !board.decisions.is_empty() {
        md.push_str("**Decisions:**\n\n");
        for d in &board.decisions {
            let lock = if d.locked { "🔒 " } else { "" };
            let _ = writeln!(md, "- {lock}{} (#{})", one_line(&d.text), d.id);
        }
        md.push('\n');
    }
    if !board.past.is_empty() {
        md.push_str("**Earlier goals:**\n\n");
        for g in &board.past {
            let _ = writeln!(md, "- {} ({:?})", one_line(&g.description), g.status);
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

/// A collapsible note (`<details>`), as GitHub and most Markdown viewers render it.
/// Arguments are JSON text from the model; the text itself where it is not JSON.
fn json_or_text(args: &str) -> Value {
    serde_json::from_str::<Value>(args).unwrap_or_else(|_| Value::from(args))
}

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
/// words a Markdown export is given (`app::words::goal_change`) fold the log's text alike.
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
        Format::Markdown(words) => to_markdown(&log, words),
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
