//! Tool calls small models write as text.
//!
//! Measured on Qwen2.5-Coder 0.5B: asked to use a tool, it names the right tool with the
//! right arguments — as plain JSON content (bare, or in a ```json fence), not in its
//! template's `<tool_call>` tags, so the server returns no `tool_calls`. It sometimes
//! writes two calls one after the other, or ends with the goal-marker lines the system
//! prompt teaches. A reply made only of such calls (and marker lines after them), each
//! naming an offered tool with arguments that the tool accepts, is taken as those calls.
//! Anything else stays text: a reply that merely contains JSON, names an unknown tool, or
//! holds one call whose arguments do not fit is an answer, not a call — all or nothing.

use crate::core::markers::is_marker_line;
use crate::core::message::ToolCall;
use serde_json::{Map, Value};

/// The calls `content` spells out, if it is made of nothing else and `accepts` takes each
/// (the tool is offered, its arguments fit); empty otherwise.
pub fn recover(content: &str, accepts: impl Fn(&ToolCall) -> bool) -> Vec<ToolCall> {
    let body = without_trailing_markers(content);
    let Some(values) = units(body) else {
        return Vec::new();
    };
    let mut calls = Vec::new();
    for value in values {
        match call_of(&value) {
            Some(call) if accepts(&call) => calls.push(call),
            _ => return Vec::new(),
        }
    }
    calls
}

/// `text` without the marker lines (and blank lines) at its end.
fn without_trailing_markers(text: &str) -> &str {
    let mut end = text.trim_end().len();
    loop {
        let head = text[..end].trim_end();
        let (rest, last) = match head.rfind('\n') {
            Some(i) => (&head[..i], &head[i + 1..]),
            None => ("", head),
        };
        if last.is_empty() || !is_marker_line(last) {
            return head;
        }
        end = rest.len();
    }
}

/// The JSON values a text is made of: one after another, each bare, in a fence or in
/// `<tool_call>` tags, with only whitespace between; `None` when anything else is there.
fn units(text: &str) -> Option<Vec<Value>> {
    let mut rest = text.trim();
    let mut out = Vec::new();
    while !rest.is_empty() {
        let (inner, after) = if let Some(r) = rest.strip_prefix("<tool_call>") {
            let end = r.find("</tool_call>")?;
            (&r[..end], &r[end + "</tool_call>".len()..])
        } else if let Some(r) = rest.strip_prefix("```") {
            // The info string ("json") up to the first newline, then the body.
            let (_, body) = r.split_once('\n')?;
            let end = body.find("```")?;
            (&body[..end], &body[end + 3..])
        } else if rest.starts_with('{') {
            let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
            let value = stream.next()?.ok()?;
            out.push(value);
            rest = rest[stream.byte_offset()..].trim_start();
            continue;
        } else {
            return None;
        };
        let mut stream = serde_json::Deserializer::from_str(inner.trim()).into_iter::<Value>();
        for value in stream.by_ref() {
            out.push(value.ok()?);
        }
        rest = after.trim_start();
    }
    (!out.is_empty()).then_some(out)
}

/// A call's shapes: `{"name", "arguments"|"parameters"}` or `{"function": {…}}`.
fn call_of(value: &Value) -> Option<ToolCall> {
    let Value::Object(obj) = value else {
        return None;
    };
    let (name, args) = shape(obj)?;
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
    Some(ToolCall {
        id: String::new(),
        name: name.to_string(),
        args,
        from_text: true,
    })
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
            let calls = recover(text, read_file_only);
            let [call] = calls.as_slice() else {
                panic!("missed {text}: {calls:?}")
            };
            assert_eq!(call.name, "read_file");
            assert!(call.from_text);
            assert_eq!(
                serde_json::from_str::<Value>(&call.args).unwrap()["path"],
                "notes.txt"
            );
        }
    }

    #[test]
    fn several_calls_and_trailing_markers_are_taken_whole() {
        let path = |c: &ToolCall| serde_json::from_str::<Value>(&c.args).unwrap()["path"].clone();
        // Two calls one after the other, bare and tagged (as a template would write them).
        for text in [
            "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"b.txt\"}}",
            "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"b.txt\"}}\n</tool_call>",
            "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"b.txt\"}}\n```",
        ] {
            let calls = recover(text, read_file_only);
            assert_eq!(calls.len(), 2, "{text}");
            assert_eq!(
                (path(&calls[0]), path(&calls[1])),
                ("a.txt".into(), "b.txt".into())
            );
        }
        // The goal markers the system prompt teaches, after the call.
        let text = "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n\n[GOAL] Read the notes\n[NEXT] Summarize them\n";
        assert_eq!(recover(text, read_file_only).len(), 1);
    }

    #[test]
    fn one_bad_call_among_several_leaves_all_as_text() {
        // Measured: a second "call" naming the file as the tool.
        for text in [
            "{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n{\"name\": \"notes.txt\", \"arguments\": {\"path\": \"notes.txt\"}}",
            "{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\nThat reads the file.",
            "[GOAL] Read notes\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}",
            "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}",
        ] {
            assert!(recover(text, read_file_only).is_empty(), "took {text:?}");
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
            assert!(recover(text, read_file_only).is_empty(), "took {text:?}");
        }
    }
}
