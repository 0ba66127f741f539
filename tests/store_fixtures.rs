//! Builders shared by the store tests (included with `#[path]`; as its own test target it
//! holds no tests).
#![allow(clippy::unwrap_used, dead_code)]

use chrono::{DateTime, Duration, TimeZone, Utc};
use ollm_tui::core::checkpoint::{Checkpoint, CheckpointId, Level};
use ollm_tui::core::goals::{ArtifactAction, Author, GoalChange, Priority, StepStatus};
use ollm_tui::core::message::{Message, MessageId, ReplyStatus, Role};
use ollm_tui::core::mode::{Mode, Tier};
use ollm_tui::core::record::{
    ActiveState, FORMAT_VERSION, Header, LOG_FORMAT, Record, RecordBody, SnapshotPurpose,
};
use ollm_tui::core::snapshot::{Snapshot, SnapshotMeta};
use ollm_tui::store::DataDir;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

pub fn data_dir() -> (tempfile::TempDir, DataDir) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = DataDir::new(tmp.path().join("ollm")).unwrap();
    (tmp, dir)
}

/// 2026-11-22 10:00:00 UTC plus `secs`.
pub fn ts(secs: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap() + Duration::seconds(secs)
}

pub fn header(id: &str) -> Header {
    Header {
        format: LOG_FORMAT.to_string(),
        format_version: FORMAT_VERSION,
        session_id: id.to_string(),
        app_version: "0.1.0-test".to_string(),
        model: "llama3.2:3b".to_string(),
        created: ts(0),
        ctx: Some(8192),
        mode: Mode::Developer,
        fork_of: None,
        params: Default::default(),
    }
}

pub fn user(seq: u64, text: &str) -> Record {
    Record {
        seq,
        ts: ts(seq as i64),
        body: RecordBody::User {
            text: text.to_string(),
            pinned: false,
            tokens: None,
            images: Vec::new(),
        },
    }
}

pub fn assistant(seq: u64, text: &str, status: ReplyStatus) -> Record {
    Record {
        seq,
        ts: ts(seq as i64),
        body: RecordBody::Assistant {
            text: text.to_string(),
            status,
            model: "llama3.2:3b".to_string(),
            prompt_eval_count: Some(1200),
            prompt_estimate: Some(1180),
            eval_count: Some(85),
            tokens: None,
            prompt_eval_cached: None,
            tool_calls: Vec::new(),
            thinking: String::new(),
        },
    }
}

pub fn checkpoint(id: u64, covers: &[u64]) -> Checkpoint {
    Checkpoint {
        id: CheckpointId(id),
        number: id as u32,
        level: Level::Detailed,
        summary: format!("Summary of part {id}: decided to use `Vec<u8>` in src/lib.rs"),
        tokens: 120,
        covers: covers.iter().copied().map(MessageId).collect(),
        original_tokens: 1500,
        created_at: ts(1000),
        aged_at: None,
        times_compressed: 0,
        truncated: false,
        key_decisions: vec!["use Vec<u8>".to_string()],
        files: vec!["src/lib.rs".to_string()],
        next_steps: vec![],
        facts: vec![],
        summary_asked: false,
    }
}

/// One record of every `RecordBody` variant, seqs from `start`.
pub fn every_variant(start: u64) -> Vec<Record> {
    let bodies = vec![
        RecordBody::User {
            text: "Hello\nwith \"quotes\", ünïcödé ✓ and a tab\t".to_string(),
            pinned: true,
            tokens: None,
            images: Vec::new(),
        },
        RecordBody::Assistant {
            text: "Partial rep".to_string(),
            status: ReplyStatus::Interrupted,
            model: "llama3.2:3b".to_string(),
            prompt_eval_count: None,
            prompt_estimate: Some(10),
            eval_count: None,
            tokens: None,
            prompt_eval_cached: None,
            tool_calls: Vec::new(),
            thinking: String::new(),
        },
        RecordBody::Tool {
            name: "read_file".to_string(),
            args: r#"{"path":"src/main.rs"}"#.to_string(),
            result: "fn main() {}".to_string(),
            is_error: true,
            tokens: None,
            call_id: None,
            ms: None,
            original: Some(ollm_tui::core::message::Original {
                file: "7.txt".to_string(),
                chars: 48_000,
                summarized: false,
            }),
        },
        RecordBody::Checkpoint {
            checkpoint: checkpoint(1, &[1, 2, 3]),
        },
        RecordBody::CheckpointAged {
            checkpoint: Checkpoint {
                level: Level::Moderate,
                aged_at: Some(ts(2000)),
                times_compressed: 1,
                ..checkpoint(1, &[1, 2, 3])
            },
        },
        RecordBody::CheckpointsMerged {
            merged: vec![CheckpointId(1), CheckpointId(2)],
            checkpoint: Checkpoint {
                level: Level::Ancient,
                ..checkpoint(3, &[1, 2, 3, 4])
            },
        },
        RecordBody::Goal {
            change: GoalChange::SetGoal {
                description: "Ship the store".to_string(),
                priority: Priority::High,
            },
            author: Author::User,
        },
        RecordBody::Goal {
            change: GoalChange::Checkpoint {
                description: "write tests".to_string(),
                status: StepStatus::InProgress,
            },
            author: Author::Model,
        },
        RecordBody::Goal {
            change: GoalChange::Decision {
                text: "JSONL log".to_string(),
                locked: true,
            },
            author: Author::User,
        },
        RecordBody::Goal {
            change: GoalChange::Artifact {
                action: ArtifactAction::Created,
                path: "src/store/log.rs".to_string(),
            },
            author: Author::Model,
        },
        RecordBody::Pin {
            id: MessageId(1),
            pinned: false,
        },
        RecordBody::Snapshot {
            snapshot_id: "20261122-100000-abcd".to_string(),
            purpose: SnapshotPurpose::Rollback,
        },
        RecordBody::Restore {
            snapshot_id: "20261122-100000-abcd".to_string(),
            state: ActiveState {
                checkpoints: vec![checkpoint(1, &[1, 2])],
                messages: vec![MessageId(3)],
                goals: Default::default(),
                model: "llama3.2:3b".to_string(),
                ctx: Some(8192),
                mode: Mode::Debugger,
                compressions: 1,
                clips: Vec::new(),
                watermark: Some(MessageId(2)),
                reduced: vec![ollm_tui::core::record::ReducedResult {
                    id: MessageId(3),
                    text: "[Shortened file: 10 of 48,000 characters shown.]".to_string(),
                    tokens: 12,
                }],
            },
        },
        RecordBody::Clip {
            clip: ollm_tui::core::record::Clip {
                id: MessageId(3),
                head_chars: 100,
                tail_chars: 50,
                omitted_tokens: 900,
            },
        },
        RecordBody::ResultReduced {
            id: MessageId(3),
            text: "[Shortened file: 10 of 48,000 characters shown.]".to_string(),
            tokens: Some(12),
        },
        RecordBody::Watermark { at: MessageId(3) },
        RecordBody::Settings {
            model: Some("qwen2.5:7b".to_string()),
            ctx: Some(16384),
            mode: Some(Mode::Planning),
            params: None,
        },
        RecordBody::Title {
            title: "JSONL store, \"quoted\" ✓".to_string(),
        },
    ];
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, body)| Record {
            seq: start + i as u64,
            ts: ts(start as i64 + i as i64),
            body,
        })
        .collect()
}

pub fn snapshot(purpose: SnapshotPurpose, secs: i64, text: &str) -> Snapshot {
    Snapshot {
        format_version: FORMAT_VERSION,
        meta: SnapshotMeta {
            id: String::new(),
            session_id: String::new(),
            created: ts(secs),
            purpose,
            label: Some(format!("label {text}")),
            model: "llama3.2:3b".to_string(),
            tier: Tier::T2,
            mode: Mode::Developer,
            tokens: 321,
            message_count: 1,
            checkpoint_count: 1,
        },
        state: ActiveState {
            checkpoints: vec![checkpoint(1, &[1, 2])],
            messages: vec![MessageId(3)],
            goals: Default::default(),
            model: "llama3.2:3b".to_string(),
            ctx: Some(8192),
            mode: Mode::Developer,
            compressions: 1,
            clips: Vec::new(),
            watermark: None,
            reduced: Vec::new(),
        },
        messages: vec![Message {
            id: MessageId(3),
            role: Role::User,
            text: text.to_string(),
            ts: ts(secs),
            status: ReplyStatus::Complete,
            pinned: false,
            tool: None,
            calls: Vec::new(),
            thinking: String::new(),
            tokens: 7,
            images: Vec::new(),
        }],
    }
}

pub fn mode_of(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}
