//! The model server's request log, read as the benchmark goes: `ollama-real --log FILE`
//! (`/work/shared/tools/ollama-real`) appends one JSON line per chat request — the body as
//! received, the prompt's size in the model's own tokens, and how many of the oldest
//! messages its truncation dropped (`dropped_messages`). With it the truncation baseline
//! reports what the server really kept instead of estimating with our tokenizer, and
//! every run says how many of its requests the server cut.
//!
//! A cursor remembers how far the file was read, so each turn reads only the lines written
//! since, and a request is matched to its line by its messages, not by position alone.

use ollm_tui::llm::ChatMessage;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// One chat request as the server logged it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The messages' contents, in order, as the server received them.
    pub contents: Vec<String>,
    /// Prompt tokens by the model's tokenizer, before truncation.
    pub prompt_tokens: Option<u64>,
    /// Oldest non-system messages the server dropped to fit; `None` for a request it
    /// refused instead (sent with `truncate: false`).
    pub dropped: Option<usize>,
}

/// Reads the lines appended to the log since the last read.
#[derive(Debug)]
pub struct Cursor {
    path: PathBuf,
    offset: u64,
}

impl Cursor {
    /// A cursor at the log's current end (the start, if the server has not written it
    /// yet): only requests made from now on are read.
    pub fn at_end(path: &Path) -> std::io::Result<Cursor> {
        let offset = match std::fs::metadata(path) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(e) => return Err(e),
        };
        Ok(Cursor {
            path: path.to_path_buf(),
            offset,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The chat requests logged since the last read, oldest first. A line still being
    /// written (no newline yet) is left for the next read.
    pub fn read(&mut self) -> std::io::Result<Vec<Entry>> {
        let mut file = match std::fs::File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        file.seek(SeekFrom::Start(self.offset))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        self.offset += complete as u64;
        Ok(String::from_utf8_lossy(&bytes[..complete])
            .lines()
            .filter_map(parse)
            .collect())
    }
}

/// A chat line of the log; other paths (`/api/generate`) and unreadable lines are not.
fn parse(line: &str) -> Option<Entry> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    if v["path"].as_str() != Some("/api/chat") {
        return None;
    }
    let contents = v["body"]["messages"]
        .as_array()?
        .iter()
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect();
    Some(Entry {
        contents,
        prompt_tokens: v["prompt_tokens"].as_u64(),
        dropped: v["dropped_messages"]
            .as_u64()
            .and_then(|n| usize::try_from(n).ok()),
    })
}

/// The messages the server dropped from the request that carried `sent`: the last entry
/// with exactly these messages that the server answered. `None` when no such line was
/// logged (the server writes no log, or another one).
pub fn dropped_for(entries: &[Entry], sent: &[ChatMessage]) -> Option<usize> {
    entries
        .iter()
        .rev()
        .find(|e| {
            e.contents.len() == sent.len()
                && e.contents.iter().zip(sent).all(|(a, b)| *a == b.content)
        })
        .and_then(|e| e.dropped)
}

/// Remove the `n` oldest messages that are not system messages, as the server's
/// truncation does.
pub fn drop_oldest(messages: &mut Vec<ChatMessage>, n: usize) {
    let mut left = n;
    messages.retain(|m| {
        if left > 0 && m.role != ollm_tui::llm::ChatRole::System {
            left -= 1;
            false
        } else {
            true
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use ollm_tui::llm::ChatRole;
    use std::io::Write as _;

    fn line(contents: &[&str], dropped: Option<usize>) -> String {
        let messages: Vec<_> = contents
            .iter()
            .map(|c| serde_json::json!({"role": "user", "content": c}))
            .collect();
        let mut v = serde_json::json!({
            "t": 1.0, "path": "/api/chat", "body": {"messages": messages},
            "prompt_tokens": 900, "num_ctx": 2048,
        });
        match dropped {
            Some(n) => v["dropped_messages"] = n.into(),
            None => v["rejected"] = "input exceeds context".into(),
        }
        format!("{v}\n")
    }

    #[test]
    fn a_cursor_reads_only_what_was_appended_since_and_leaves_a_partial_line() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("requests.jsonl");
        let mut cursor = Cursor::at_end(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cursor.read().ok(), Some(Vec::new()), "no file yet");
        let mut f = std::fs::File::create(&path).unwrap_or_else(|e| panic!("{e}"));
        let first = line(&["a", "b"], Some(0));
        let second = line(&["a", "b", "c"], Some(1));
        write!(
            f,
            "{first}{{\"path\":\"/api/generate\"}}\n{}",
            &second[..10]
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let read = cursor.read().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.len(), 1, "{read:?}");
        assert_eq!(read[0].dropped, Some(0));
        write!(f, "{}", &second[10..]).unwrap_or_else(|e| panic!("{e}"));
        let read = cursor.read().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].contents, ["a", "b", "c"]);
        assert_eq!(read[0].prompt_tokens, Some(900));
        assert_eq!(cursor.read().ok(), Some(Vec::new()));
        // A cursor made now starts at the end.
        let mut late = Cursor::at_end(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(late.read().ok(), Some(Vec::new()));
    }

    #[test]
    fn a_request_is_matched_to_its_own_line() {
        let sent = [ChatMessage::system("s"), ChatMessage::user("hello")];
        let entries: Vec<Entry> = [
            line(&["s", "hello"], Some(3)),
            line(&["s", "other"], Some(5)),
            line(&["s", "hello", "x"], Some(7)),
        ]
        .iter()
        .filter_map(|l| parse(l.trim_end()))
        .collect();
        assert_eq!(dropped_for(&entries, &sent), Some(3));
        assert_eq!(dropped_for(&entries[1..], &sent), None);
        // A refused request has no count.
        let refused = parse(line(&["s", "hello"], None).trim_end())
            .into_iter()
            .collect::<Vec<_>>();
        assert_eq!(dropped_for(&refused, &sent), None);
    }

    #[test]
    fn the_oldest_messages_go_and_system_messages_stay() {
        let mut m = vec![
            ChatMessage::system("s"),
            ChatMessage::user("1"),
            ChatMessage::assistant("2"),
            ChatMessage::user("3"),
        ];
        drop_oldest(&mut m, 2);
        let left: Vec<_> = m.iter().map(|m| (m.role, m.content.as_str())).collect();
        assert_eq!(left, [(ChatRole::System, "s"), (ChatRole::User, "3")]);
        drop_oldest(&mut m, 0);
        assert_eq!(m.len(), 2);
    }
}
