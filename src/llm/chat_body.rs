//! The chat request's body, written from a [`ChatRequest`] in one step: the model, the
//! messages as Ollama reads them (with `tool_name` and `tool_call_id`), the options,
//! `stream`, `think`, `tools`, `truncate` and `shift`, and `keep_alive` as a number when it
//! is one.

use serde_json::{Value, json};

use super::backend::{ChatMessage, ChatRequest, ChatRole};

/// The chat body. `server_truncates` (the benchmark's truncation baseline only) leaves out
/// `"truncate": false` and `"shift": false`.
pub(super) fn wire_chat(req: &ChatRequest, server_truncates: bool) -> Value {
    let o = &req.options;
    let mut options = serde_json::Map::new();
    options.insert("num_ctx".into(), json!(u64::from(o.num_ctx)));
    if let Some(n) = o.num_predict {
        options.insert("num_predict".into(), json!(n));
    }
    if let Some(t) = o.temperature {
        options.insert("temperature".into(), json!(t));
    }
    if let Some(p) = o.top_p {
        options.insert("top_p".into(), json!(p));
    }
    if let Some(seed) = o.seed {
        options.insert("seed".into(), json!(seed));
    }
    let mut map = serde_json::Map::new();
    map.insert("model".into(), json!(req.model));
    map.insert(
        "messages".into(),
        Value::Array(req.messages.iter().map(wire_message).collect()),
    );
    map.insert("options".into(), Value::Object(options));
    if !req.tools.is_empty() {
        map.insert("tools".into(), Value::Array(req.tools.clone()));
    }
    if let Some(think) = &req.think {
        map.insert("think".into(), think.wire());
    }
    map.insert("stream".into(), json!(true));
    if !server_truncates {
        // Overflow is an error, not silently dropped history.
        map.insert("truncate".into(), json!(false));
        // A full context ends the reply ("length") instead of discarding its start.
        map.insert("shift".into(), json!(false));
    }
    // Ollama reads a number as seconds and a string as a Go duration ("-1" alone is not
    // one), so plain integers go out as numbers.
    if let Some(k) = req.keep_alive.as_deref() {
        let v = match k.trim().parse::<i64>() {
            Ok(secs) => json!(secs),
            Err(_) => json!(k),
        };
        map.insert("keep_alive".into(), v);
    }
    Value::Object(map)
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
    if !m.images.is_empty() {
        out.insert("images".into(), json!(m.images));
    }
    Value::Object(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::llm::backend::ChatOptions;

    fn request(keep_alive: Option<&str>) -> ChatRequest {
        ChatRequest::new(
            "m",
            vec![ChatMessage::user("hi")],
            ChatOptions {
                num_ctx: 8192,
                ..ChatOptions::default()
            },
        )
        .with_keep_alive(keep_alive.map(str::to_string))
    }

    #[test]
    fn wire_body_always_carries_num_ctx_truncate_and_shift() {
        let body = wire_chat(&request(None), false);
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
        let body = wire_chat(&request(None), true);
        let map = body.as_object().unwrap();
        assert!(!map.contains_key("truncate") && !map.contains_key("shift"));
        assert_eq!(body["options"]["num_ctx"], json!(8192));
    }

    #[test]
    fn a_message_with_pictures_carries_them_base64_and_others_carry_no_field() {
        let mut with = ChatMessage::user("what is this?");
        with.images = vec!["aGVsbG8=".to_string()];
        let req = ChatRequest::new(
            "llava:7b",
            vec![ChatMessage::system("s"), with],
            ChatOptions::default(),
        );
        let body = wire_chat(&req, false);
        assert_eq!(body["messages"][1]["images"], json!(["aGVsbG8="]));
        assert!(body["messages"][0].get("images").is_none());
    }

    #[test]
    fn keep_alive_numbers_go_out_as_numbers() {
        let body = wire_chat(&request(Some("-1")), false);
        assert_eq!(body["keep_alive"], json!(-1));
        let body = wire_chat(&request(Some("10m")), false);
        assert_eq!(body["keep_alive"], json!("10m"));
    }
}
