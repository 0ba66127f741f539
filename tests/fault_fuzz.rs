//! Property tests over arbitrary bytes for the two readers that face the outside world:
//! the session log reader (a file anything may have written into) and the NDJSON decoder
//! (a server that may send anything). Neither may panic, and every valid record or line
//! must be recovered whatever surrounds it and however the bytes are chunked.
#![allow(clippy::unwrap_used)]

#[path = "store_fixtures.rs"]
mod fixtures;

use fixtures::{data_dir, header};
use ollm_tui::core::message::ReplyStatus;
use ollm_tui::core::record::{Record, RecordBody};
use ollm_tui::llm::ndjson::{ChatLine, LineDecoder, parse_chat_line};
use ollm_tui::store::SessionLog;
use proptest::prelude::*;

/// What goes between valid lines: arbitrary bytes without a newline (a newline would make
/// two lines, one possibly valid), or nothing.
fn junk() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..80)
        .prop_map(|mut v| {
            v.retain(|b| *b != b'\n');
            v
        })
        // Junk that happens to parse as a record would be a valid line, not junk.
        .prop_filter("not a record", |v| {
            serde_json::from_slice::<Record>(v).is_err()
        })
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 .,:/_-]{0,40}",
        "\\PC{0,20}",
        Just("\u{1b}[31mred\u{7} \u{202e}txet \u{9b}2J 日本語 👩‍💻".to_string()),
    ]
}

fn record(seq: u64, text: String, reply: bool) -> Record {
    let body = if reply {
        RecordBody::Assistant {
            text,
            status: ReplyStatus::Complete,
            model: "m".into(),
            prompt_eval_count: None,
            prompt_eval_cached: None,
            prompt_estimate: None,
            eval_count: None,
            tokens: None,
            tool_calls: Vec::new(),
            thinking: String::new(),
        }
    } else {
        RecordBody::User {
            text,
            pinned: false,
            tokens: None,
            images: Vec::new(),
        }
    };
    Record {
        seq,
        ts: chrono::DateTime::from_timestamp(1_790_000_000 + seq as i64, 0).unwrap(),
        body,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Valid records among junk lines: every one is recovered, in order; nothing panics.
    #[test]
    fn the_log_reader_recovers_every_valid_record_among_junk(
        items in prop::collection::vec((text(), any::<bool>(), junk()), 0..20),
        tail in prop::collection::vec(any::<u8>(), 0..40),
    ) {
        let (_tmp, dir) = data_dir();
        let id = "01a20000-0000-7000-8000-00000000f022";
        let mut bytes = serde_json::to_vec(&header(id)).unwrap();
        bytes.push(b'\n');
        let mut expected = Vec::new();
        for (i, (t, reply, junk)) in items.into_iter().enumerate() {
            let r = record(i as u64 + 1, t, reply);
            bytes.extend(serde_json::to_vec(&r).unwrap());
            bytes.push(b'\n');
            expected.push(r);
            if !junk.is_empty() {
                bytes.extend(junk);
                bytes.push(b'\n');
            }
        }
        // Arbitrary bytes at the end: a torn last line, or anything.
        bytes.extend(&tail);
        std::fs::create_dir_all(dir.sessions_dir()).unwrap();
        std::fs::write(dir.session_log_path(id), &bytes).unwrap();
        let loaded = SessionLog::read(&dir, id).unwrap();
        let got: Vec<&Record> = loaded
            .records
            .iter()
            .filter(|r| r.seq as usize <= expected.len())
            .collect();
        prop_assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(&expected) {
            prop_assert_eq!(*g, e);
        }
    }

    /// Any bytes at all in a log file: an error or a load, never a panic.
    #[test]
    fn the_log_reader_never_panics_on_arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..400),
        with_header in any::<bool>(),
    ) {
        let (_tmp, dir) = data_dir();
        let id = "01a20000-0000-7000-8000-00000000f023";
        let mut file = Vec::new();
        if with_header {
            file = serde_json::to_vec(&header(id)).unwrap();
            file.push(b'\n');
        }
        file.extend(bytes);
        std::fs::create_dir_all(dir.sessions_dir()).unwrap();
        std::fs::write(dir.session_log_path(id), &file).unwrap();
        let _ = SessionLog::read(&dir, id);
    }

    /// However a stream is cut into chunks, the decoder gives the same lines, and every
    /// valid chat line among junk parses to what was sent.
    #[test]
    fn the_ndjson_decoder_is_chunking_blind_and_keeps_every_valid_line(
        deltas in prop::collection::vec((text(), junk()), 0..15),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let mut stream = Vec::new();
        for (d, junk) in &deltas {
            let line = serde_json::json!({"message": {"role": "assistant", "content": d}, "done": false});
            stream.extend(serde_json::to_vec(&line).unwrap());
            stream.push(b'\n');
            stream.extend(junk);
            stream.push(b'\n');
        }
        let mut points: Vec<usize> = cuts.iter().map(|i| i.index(stream.len() + 1)).collect();
        points.push(0);
        points.push(stream.len());
        points.sort_unstable();
        let mut decoder = LineDecoder::new();
        let mut lines = Vec::new();
        for w in points.windows(2) {
            lines.extend(decoder.push(&stream[w[0]..w[1]]));
        }
        lines.extend(decoder.finish());
        let parsed: Vec<String> = lines
            .iter()
            .filter_map(|l| match parse_chat_line(l) {
                Ok(ChatLine::Delta(d)) => Some(d.content),
                _ => None,
            })
            .collect();
        let sent: Vec<String> = deltas.into_iter().map(|(d, _)| d).collect();
        prop_assert_eq!(parsed, sent);
    }

    /// Any bytes from a server: lines and parses, never a panic.
    #[test]
    fn the_ndjson_decoder_never_panics_on_arbitrary_bytes(
        chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 0..16),
    ) {
        let mut decoder = LineDecoder::new();
        for c in &chunks {
            for line in decoder.push(c) {
                let _ = parse_chat_line(&line);
            }
        }
        if let Some(line) = decoder.finish() {
            let _ = parse_chat_line(&line);
        }
    }
}
