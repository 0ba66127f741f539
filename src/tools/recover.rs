//! Tool calls small models write as text.
//!
//! Measured on Qwen2.5-Coder 0.5B: asked to use a tool, it names the right tool with the
//! right arguments — as plain JSON content (bare, or in a ```json fence), not in its
//! template's `<tool_call>` tags, so the server returns no `tool_calls`. A reply whose
//! whole content is one such object, naming an offered tool with arguments that the tool
//! accepts, is taken as the call. Anything else stays text: a reply that merely contains
//! JSON, names an unknown tool, or whose arguments do not fit is an answer, not a call.

use crate::core::message::ToolCall;
use serde_json::{Map, Value};

/// The call `content` spells out, if it is one and `accepts` agrees (the tool is offered,
/// its arguments fit).
pub fn recover(content: &str, accepts: impl Fn(&ToolCall) -> bool) -> Option<ToolCall> {
    let body = unwrap(content.trim())?;
    let value: Value = serde_json::from_str(body).ok()?;
    let Value::Object(obj) = value else {
        return None;
    };
    let (name, args) = shape(&obj)?;
    let args = match args {
        Value::Object(_) => args.to_string(),
        // Arguments as a JSON string holding the object.
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => v.to_string(),
            _ => return None,
        },
        Value::Null => "{}".to_string(),
        _ => return None,
    };
    let call = ToolCall {
        id: String::new(),
        name: name.to_string(),
        args,
        from_text: true,
    };
    accepts(&call).then_some(call)
}

/// The JSON inside a fence or `<tool_call>` tags, or the text itself.
fn unwrap(text: &str) -> Option<&str> {
    if let Some(inner) = text
        .strip_prefix("<tool_call>")
        .and_then(|t| t.strip_suffix("</tool_call>"))
    {
        return Some(inner.trim());
    }
    if let Some(rest) = text.strip_prefix("```") {
        let rest = rest.strip_suffix("```")?;
        // The info string ("json") up to the first newline.
        let (_, inner) = rest.split_once('\n')?;
        return Some(inner.trim());
    }
    text.starts_with('{').then_some(text)
}

/// `{"name", "arguments"|"parameters"}` or `{"function": {"name", "arguments"}}`.
fn shape(obj: &Map<String, Value>) -> Option<(&str, &Value)> {
    let obj = match obj.get("function") {
        Some(Value::Object(f)) if obj.len() <= 3 => f,
        _ => obj,
    };
    let name = obj.get("name")?.as_str()?;
    let args = obj
        .get("arguments")
        .or_else(|| obj.get("parameters"))
        .unwrap_or(&Value::Null);
    // Only the call's own keys: an object with more is data, not a call.
    let known = ["name", "arguments", "parameters", "type", "id"];
    obj.keys()
        .all(|k| known.contains(&k.as_str()))
        .then_some((name, args))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn read_file_only(call: &ToolCall) -> bool {
        call.name == "read_file"
            && serde_json::from_str::<Value>(&call.args).unwrap()["path"].is_string()
    }

    #[test]
    fn the_shapes_small_models_write_are_recovered() {
        for text in [
            r#"{"name": "read_file", "arguments": {"path": "notes.txt"}}"#,
            "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n```",
            "```\n{\"name\": \"read_file\", \"parameters\": {\"path\": \"notes.txt\"}}\n```",
            r#"<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>"#,
            r#"{"type": "function", "function": {"name": "read_file", "arguments": {"path": "notes.txt"}}}"#,
            r#"  {"name": "read_file", "arguments": "{\"path\": \"notes.txt\"}"}  "#,
        ] {
            let call = recover(text, read_file_only).unwrap_or_else(|| panic!("missed {text}"));
            assert_eq!(call.name, "read_file");
            assert!(call.from_text);
            assert_eq!(
                serde_json::from_str::<Value>(&call.args).unwrap()["path"],
                "notes.txt"
            );
        }
    }

    #[test]
    fn what_is_not_a_valid_call_stays_text() {
        for text in [
            "Sure! I will read notes.txt.",
            r#"Here it is: {"name": "read_file", "arguments": {"path": "notes.txt"}}"#,
            r#"{"name": "delete_everything", "arguments": {}}"#,
            r#"{"name": "read_file", "arguments": {"file": "notes.txt"}}"#,
            r#"{"name": "read_file", "arguments": {"path": "notes.txt"}, "age": 3}"#,
            r#"{"name": "read_file", "arguments": [1]}"#,
            r#"{"name": "read_file", "arguments": {"path": "notes.txt"}"#,
            "```json\n{\"name\": \"read_file\"\n```",
            "",
        ] {
            assert!(recover(text, read_file_only).is_none(), "took {text:?}");
        }
    }
}
