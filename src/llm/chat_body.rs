//! The chat request's body: ollama-rs's request serialised, plus what it cannot express
//! (`truncate`, `shift`, `stream`, `think`, `tools`, messages with `tool_name` and
//! `tool_call_id`, `keep_alive` as a number).

use ollama_rs::generation::chat::request::ChatMessageRequest;
use ollama_rs::models::ModelOptions;
use serde_json::{Value, json};

use super::backend::{ChatMessage, ChatRequest, ChatRole};

/// The chat body: ollama-rs's request, plus what it cannot express.
pub(super) fn wire_chat(req: &ChatRequest) -> Value {
    let mut options = ModelOptions::default().num_ctx(u64::from(req.options.num_ctx));
    if let Some(n) = req.options.num_predict {
        options = options.num_predict(n);
    }
    if let Some(t) = req.options.temperature {
        options = options.temperature(t);
    }
    if let Some(p) = req.options.top_p {
        options = options.top_p(p);
    }
    if let Some(seed) = req.options.seed {
        options = options.seed(seed);
    }
    let request = ChatMessageRequest::new(req.model.clone(), Vec::new()).options(options);
    let mut body = serde_json::to_value(&request).unwrap_or_else(|_| json!({}));
    if let Value::Object(map) = &mut body {
        // Messages as Ollama reads them, written here: ollama-rs's message type has no
        // `tool_name` / `tool_call_id`, and serialises empty tool lists and null thinking.
        map.insert(
            "messages".into(),
            Value::Array(req.messages.iter().map(wire_message).collect()),
        );
        if !req.tools.is_empty() {
            map.insert("tools".into(), Value::Array(req.tools.clone()));
        }
        if let Some(think) = &req.think {
            map.insert("think".into(), think.wire());
        }
        map.insert("stream".into(), json!(true));
        if !req.server_truncates {
            // Overflow is an error, not silently dropped history.
            map.insert("truncate".into(), json!(false));
            // A full context ends the reply ("length") instead of discarding its start.
            map.insert("shift".into(), json!(false));
        }
        // Ollama reads a number as seconds and a string as a Go duration ("-1" alone is
        // not one), so plain integers go out as numbers.
        if let Some(k) = req.keep_alive.as_deref() {
            let v = match k.trim().parse::<i64>() {
                Ok(secs) => json!(secs),
                Err(_) => json!(k),
            };
            map.insert("keep_alive".into(), v);
        }
    }
    body
}

/// One message on the wire. Tool calls go back with their arguments as an object (as
/// Ollama sent them); arguments that are not a JSON object (a model's malformed call, kept
/// as it came) go as a string.
fn wire_message(m: &ChatMessage) -> Value {
    let role = match m.role {
        ChatRole::System => "system",
        ChatRole::User => "user",
        ChatRole::Assistant => "assistant",
        ChatRole::Tool => "tool",
    };
    let mut out = serde_json::Map::new();
    out.insert("role".into(), json!(role));
    out.insert("content".into(), json!(m.content));
    if !m.tool_calls.is_empty() {
        let calls: Vec<Value> = m
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let args = match serde_json::from_str::<Value>(&c.args) {
                    Ok(v @ Value::Object(_)) => v,
                    _ => json!(c.args),
                };
                let mut call = json!({
                    "function": { "index": i, "name": c.name, "arguments": args }
                });
                if !c.id.is_empty() {
                    call["id"] = json!(c.id);
                }
                call
            })
            .collect();
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    if let Some(name) = &m.tool_name {
        out.insert("tool_name".into(), json!(name));
    }
    if let Some(id) = &m.tool_call_id {
        out.insert("tool_call_id".into(), json!(id));
    }
    Value::Object(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::llm::backend::ChatOptions;

    fn request(keep_alive: Option<&str>) -> ChatRequest {
        ChatRequest {
            model: "m".into(),
            messages: vec![ChatMessage::user("hi")],
            options: ChatOptions {
                num_ctx: 8192,
                ..ChatOptions::default()
            },
            keep_alive: keep_alive.map(str::to_string),
            tools: Vec::new(),
            think: None,
            server_truncates: false,
        }
    }

    #[test]
    fn wire_body_always_carries_num_ctx_truncate_and_shift() {
        let body = wire_chat(&request(None));
        assert_eq!(
            body,
            json!({
                "model": "m",
                "messages": [{"role": "user", "content": "hi"}],
                "stream": true,
                "options": {"num_ctx": 8192},
                "truncate": false,
                "shift": false
            })
        );
    }

    #[test]
    fn only_the_benchmark_opt_out_leaves_truncation_to_the_server() {
        let body = wire_chat(&ChatRequest {
            server_truncates: true,
            ..request(None)
        });
        let map = body.as_object().unwrap();
        assert!(!map.contains_key("truncate") && !map.contains_key("shift"));
        assert_eq!(body["options"]["num_ctx"], json!(8192));
    }

    #[test]
    fn keep_alive_numbers_go_out_as_numbers() {
        let body = wire_chat(&request(Some("-1")));
        assert_eq!(body["keep_alive"], json!(-1));
        let body = wire_chat(&request(Some("10m")));
        assert_eq!(body["keep_alive"], json!("10m"));
    }
}
