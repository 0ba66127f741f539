//! Decoding Ollama's NDJSON reply stream.
//!
//! HTTP chunks do not respect lines, nor UTF-8: a line can arrive in pieces and a
//! character's bytes can straddle two chunks. [`LineDecoder`] therefore buffers raw bytes,
//! splits only on `\n` (dropping a `\r` before it, and blank lines), and hands out whole
//! lines as bytes; text is decoded from a whole line only, so a split character is never
//! lost or replaced. Each line is parsed once, into a `serde_json::Value`, and the counts
//! are read from it field by field: a missing or odd field costs that field, not the reply.

use std::time::Duration;

use serde_json::{Map, Value};

use super::backend::{ChatStats, ToolCall};

/// Splits a byte stream into lines.
#[derive(Debug, Default)]
pub struct LineDecoder {
    buf: Vec<u8>,
    /// Bytes of `buf` already searched for a newline (so a long line costs O(n), not O(n²)).
    scanned: usize,
}

impl LineDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Add bytes; return every line they complete, without its `\n` / `\r\n`, blank lines
    /// skipped.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Vec<u8>> {
        self.buf.extend_from_slice(bytes);
        let mut lines = Vec::new();
        let mut start = 0;
        let mut from = self.scanned;
        while let Some(pos) = memchr::memchr(b'\n', &self.buf[from..]) {
            let end = from + pos;
            push_line(&mut lines, &self.buf[start..end]);
            start = end + 1;
            from = start;
        }
        self.buf.drain(..start);
        self.scanned = self.buf.len();
        lines
    }

    /// The last line if the stream ended without a newline after it.
    pub fn finish(&mut self) -> Option<Vec<u8>> {
        let mut lines = Vec::new();
        push_line(&mut lines, &self.buf);
        self.buf.clear();
        self.scanned = 0;
        lines.pop()
    }

    /// Bytes waiting for their newline (to bound a server that never sends one).
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }
}

fn push_line(lines: &mut Vec<Vec<u8>>, line: &[u8]) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if !line.iter().all(u8::is_ascii_whitespace) {
        lines.push(line.to_vec());
    }
}

/// What one line's `message` carries: text, thinking, and tool calls (Ollama sends a
/// parsed call in a chunk of its own, with empty content, before the final line).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Chunk {
    pub content: String,
    pub thinking: String,
    pub tool_calls: Vec<ToolCall>,
}

impl From<&str> for Chunk {
    fn from(content: &str) -> Chunk {
        Chunk {
            content: content.to_string(),
            ..Chunk::default()
        }
    }
}

/// One line of an `/api/chat` reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatLine {
    Delta(Chunk),
    /// The last line; it may still carry text (non-streamed replies carry all of it).
    Done {
        delta: Chunk,
        stats: ChatStats,
    },
    /// `{"error": "..."}`
    Error(String),
}

/// Parse one whole line. The error is a description for [`super::LlmError::Malformed`].
pub fn parse_chat_line(line: &[u8]) -> Result<ChatLine, String> {
    let value: Value =
        serde_json::from_slice(line).map_err(|e| format!("not JSON ({e}): {}", preview(line)))?;
    let Value::Object(obj) = value else {
        return Err(format!("not a JSON object: {}", preview(line)));
    };
    if let Some(err) = obj.get("error") {
        let message = err.as_str().map_or_else(|| err.to_string(), str::to_string);
        return Ok(ChatLine::Error(message));
    }
    let delta = chunk_from(obj.get("message"));
    match obj.get("done").and_then(Value::as_bool) {
        Some(false) => Ok(ChatLine::Delta(delta)),
        Some(true) => Ok(ChatLine::Done {
            delta,
            stats: stats_from(&obj),
        }),
        None => Err(format!(
            "a line with neither \"done\" nor \"error\": {}",
            preview(line)
        )),
    }
}

fn chunk_from(message: Option<&Value>) -> Chunk {
    let text = |key: &str| {
        message
            .and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let tool_calls = message
        .and_then(|m| m.get("tool_calls"))
        .and_then(Value::as_array)
        .map(|calls| calls.iter().map(tool_call_from).collect())
        .unwrap_or_default();
    Chunk {
        content: text("content"),
        thinking: text("thinking"),
        tool_calls,
    }
}

/// One of `message.tool_calls`: `{"id"?, "function": {"index"?, "name", "arguments"}}`.
/// Arguments are an object on Ollama; a string (as OpenAI-style servers send) is kept as
/// it is. A call the server mangled is kept as it came: the tool that runs it says what is
/// wrong, so the model can try again.
fn tool_call_from(call: &Value) -> ToolCall {
    let function = call.get("function").unwrap_or(call);
    let args = match function.get("arguments") {
        None | Some(Value::Null) => "{}".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    ToolCall {
        id: call
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        name: function
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        args,
        from_text: false,
    }
}

fn stats_from(obj: &Map<String, Value>) -> ChatStats {
    let count = |key: &str| {
        obj.get(key)
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
    };
    let nanos = |key: &str| {
        obj.get(key)
            .and_then(Value::as_u64)
            .map(Duration::from_nanos)
    };
    ChatStats {
        prompt_eval_count: count("prompt_eval_count"),
        prompt_eval_cached_count: count("prompt_eval_cached_count"),
        eval_count: count("eval_count"),
        done_reason: obj
            .get("done_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
        total_duration: nanos("total_duration"),
        load_duration: nanos("load_duration"),
        prompt_eval_duration: nanos("prompt_eval_duration"),
        eval_duration: nanos("eval_duration"),
    }
}

/// The start of a bad line, for error messages (lossy: it may be garbage).
pub(crate) fn preview(bytes: &[u8]) -> String {
    const MAX_CHARS: usize = 80;
    let text = String::from_utf8_lossy(bytes);
    let mut out: String = text.chars().take(MAX_CHARS).collect();
    if text.chars().count() > MAX_CHARS {
        out.push('…');
    }
    format!("{out:?}")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const SAMPLE: &str =
        "{\"a\":\"café\"}\n\r\n{\"b\":\"日本語 🦀\"}\r\n\n   \n{\"c\":\"naïve\"}\n{\"d\":1}";

    fn expected() -> Vec<Vec<u8>> {
        [
            "{\"a\":\"café\"}",
            "{\"b\":\"日本語 🦀\"}",
            "{\"c\":\"naïve\"}",
            "{\"d\":1}",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect()
    }

    fn decode_in_pieces(pieces: &[&[u8]]) -> Vec<Vec<u8>> {
        let mut d = LineDecoder::new();
        let mut lines = Vec::new();
        for p in pieces {
            lines.extend(d.push(p));
        }
        lines.extend(d.finish());
        lines
    }

    #[test]
    fn every_split_position_gives_the_same_lines() {
        let bytes = SAMPLE.as_bytes();
        for i in 0..=bytes.len() {
            let (a, b) = bytes.split_at(i);
            assert_eq!(decode_in_pieces(&[a, b]), expected(), "split at {i}");
        }
    }

    #[test]
    fn every_pair_of_split_positions_gives_the_same_lines() {
        let bytes = SAMPLE.as_bytes();
        for i in 0..=bytes.len() {
            for j in i..=bytes.len() {
                let pieces = [&bytes[..i], &bytes[i..j], &bytes[j..]];
                assert_eq!(decode_in_pieces(&pieces), expected(), "split at {i},{j}");
            }
        }
    }

    #[test]
    fn byte_at_a_time_keeps_multibyte_characters_whole() {
        let pieces: Vec<&[u8]> = SAMPLE.as_bytes().chunks(1).collect();
        let lines = decode_in_pieces(&pieces);
        assert_eq!(lines, expected());
        let text: Vec<String> = lines
            .into_iter()
            .map(|l| String::from_utf8(l).unwrap())
            .collect();
        assert!(text[1].contains("日本語 🦀"));
    }

    #[test]
    fn lines_come_out_as_soon_as_they_are_complete() {
        let mut d = LineDecoder::new();
        assert!(d.push(b"{\"x\":").is_empty());
        assert_eq!(d.buffered(), 5);
        assert_eq!(d.push(b"1}\n{\"y\""), vec![b"{\"x\":1}".to_vec()]);
        assert_eq!(d.buffered(), 4);
        assert_eq!(d.push(b":2}\r\n"), vec![b"{\"y\":2}".to_vec()]);
        assert_eq!(d.buffered(), 0);
        assert_eq!(d.finish(), None);
    }

    #[test]
    fn trailing_line_without_newline_is_returned_by_finish() {
        let mut d = LineDecoder::new();
        assert!(d.push(b"{\"done\":true}").is_empty());
        assert_eq!(d.finish(), Some(b"{\"done\":true}".to_vec()));
        assert_eq!(d.finish(), None);
    }

    #[test]
    fn blank_and_crlf_only_input_gives_nothing() {
        assert!(decode_in_pieces(&[b"\n\r\n  \n\t\r\n"]).is_empty());
    }

    #[test]
    fn parses_a_delta() {
        let line = r#"{"model":"m","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":"Hi 🦀"},"done":false}"#;
        assert_eq!(
            parse_chat_line(line.as_bytes()).unwrap(),
            ChatLine::Delta("Hi 🦀".into())
        );
    }

    #[test]
    fn parses_the_final_line_with_stats() {
        let line = br#"{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"length","total_duration":5000000000,"load_duration":1000,"prompt_eval_count":26,"prompt_eval_duration":2000,"eval_count":290,"eval_duration":3000}"#;
        let ChatLine::Done { delta, stats } = parse_chat_line(line).unwrap() else {
            panic!("not done");
        };
        assert_eq!(delta, Chunk::default());
        assert_eq!(
            stats,
            ChatStats {
                prompt_eval_count: Some(26),
                prompt_eval_cached_count: None,
                eval_count: Some(290),
                done_reason: Some("length".into()),
                total_duration: Some(Duration::from_secs(5)),
                load_duration: Some(Duration::from_nanos(1000)),
                prompt_eval_duration: Some(Duration::from_nanos(2000)),
                eval_duration: Some(Duration::from_nanos(3000)),
            }
        );
    }

    #[test]
    fn missing_or_odd_stats_cost_only_themselves() {
        let line = br#"{"done":true,"eval_count":"many","prompt_eval_count":12}"#;
        let ChatLine::Done { stats, .. } = parse_chat_line(line).unwrap() else {
            panic!("not done");
        };
        assert_eq!(stats.prompt_eval_count, Some(12));
        assert_eq!(stats.eval_count, None);
        assert_eq!(stats.done_reason, None);
        assert_eq!(stats.total_duration, None);
    }

    #[test]
    fn parses_tool_calls_as_ollama_streams_them() {
        // Ollama: the parsed call in its own chunk, empty content, done:false.
        let line = br#"{"model":"qwen","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_x1","function":{"index":0,"name":"read_file","arguments":{"path":"notes.txt","start":2}}}]},"done":false}"#;
        let ChatLine::Delta(chunk) = parse_chat_line(line).unwrap() else {
            panic!("not a delta");
        };
        assert_eq!(chunk.content, "");
        assert_eq!(chunk.tool_calls.len(), 1);
        let call = &chunk.tool_calls[0];
        assert_eq!(call.id, "call_x1");
        assert_eq!(call.name, "read_file");
        let args: serde_json::Value = serde_json::from_str(&call.args).unwrap();
        assert_eq!(args["path"], "notes.txt");
        assert_eq!(args["start"], 2);
    }

    #[test]
    fn keeps_string_arguments_and_calls_without_an_id() {
        let line = br#"{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"list_files","arguments":"{\"dir\":\".\"}"}},{"function":{"name":"x"}}]},"done":true}"#;
        let ChatLine::Done { delta, .. } = parse_chat_line(line).unwrap() else {
            panic!("not done");
        };
        assert_eq!(delta.tool_calls[0].id, "");
        assert_eq!(delta.tool_calls[0].args, r#"{"dir":"."}"#);
        assert_eq!(delta.tool_calls[1].args, "{}");
    }

    #[test]
    fn parses_thinking_apart_from_content() {
        let line = br#"{"message":{"role":"assistant","content":"","thinking":"Let me see"},"done":false}"#;
        let ChatLine::Delta(chunk) = parse_chat_line(line).unwrap() else {
            panic!("not a delta");
        };
        assert_eq!(chunk.thinking, "Let me see");
        assert_eq!(chunk.content, "");
    }

    #[test]
    fn parses_an_error_line() {
        assert_eq!(
            parse_chat_line(br#"{"error":"model runner crashed"}"#).unwrap(),
            ChatLine::Error("model runner crashed".into())
        );
    }

    #[test]
    fn rejects_what_is_not_a_chat_line() {
        for bad in [
            &b"<html>"[..],
            b"[1,2]",
            b"{\"model\":\"m\"}",
            b"\xff\xfe{}",
        ] {
            let err = parse_chat_line(bad).unwrap_err();
            assert!(!err.is_empty());
        }
        let err = parse_chat_line(b"<html><body>502 Bad Gateway</body></html>").unwrap_err();
        assert!(err.contains("<html>"), "{err}");
    }
}
