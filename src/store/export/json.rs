//! The session-file JSON export: data only, texts byte for byte.

use super::overview;
use crate::core::checkpoint::Checkpoint;
use crate::core::record::RecordBody;
use crate::store::log::LoadedLog;
use serde_json::{Value, json};

/// The session-file JSON (pretty-print it at the call site).
pub fn to_json(log: &LoadedLog) -> Value {
    let o = overview(log);
    let mut messages = Vec::new();
    let mut tool_calls = Vec::new();
    let mut checkpoints = Vec::new();
    for r in &log.records {
        let ts = r.ts.to_rfc3339();
        match &r.body {
            RecordBody::User {
                text,
                pinned,
                images,
                ..
            } => {
                let mut parts = vec![json!({"type": "text", "text": text})];
                // A picture by its content hash: the file `images/<session>/<hash>.<ext>`.
                parts.extend(images.iter().map(|i| {
                    json!({
                        "type": "image",
                        "name": i.name,
                        "sha256": i.hash,
                        "file": i.file_name(),
                        "format": i.format,
                        "width": i.width,
                        "height": i.height,
                        "bytes": i.bytes,
                    })
                }));
                let mut m = json!({
                    "id": r.seq,
                    "role": "user",
                    "parts": parts,
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
