#![allow(clippy::unwrap_used)]
//! Snapshot tests of whole screens rendered with ratatui's TestBackend, plus explicit
//! style assertions where colour carries meaning (gauge bands, locked decisions,
//! NO_COLOR).

use chrono::{DateTime, Duration, FixedOffset, TimeZone, Utc};
use ollm_tui::app::present::banner_of;
use ollm_tui::app::words::{self, KeyNames};
use ollm_tui::core::checkpoint::{Checkpoint, CheckpointId, Level};
use ollm_tui::core::events::{Blocked, EngineEvent};
use ollm_tui::core::goals::{ArtifactAction, Author, GoalBoard, GoalChange, Priority, StepStatus};
use ollm_tui::core::message::{Message, MessageId, ReplyStatus, Role, ToolInfo};
use ollm_tui::core::mode::{Mode, Tier};
use ollm_tui::core::record::SnapshotPurpose;
use ollm_tui::core::reliability::Reliability;
use ollm_tui::core::snapshot::SnapshotMeta;
use ollm_tui::ui::text::buffer_text;
use ollm_tui::ui::{
    Banner, GaugeView, ModelEntry, Overlay, PanelView, StatusView, Theme, Transcript, UiView,
    render, style_textarea,
};
use ollm_tui::view::{Activity, Connection, Entry, EntryKind, Found, Notice, ReplyState, Severity};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use tui_textarea::TextArea;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 15, 14, 0, 0).unwrap()
}

/// The banner the app shows for `n`.
fn banner(n: Notice) -> Banner {
    banner_of(n.severity(), words::notice(&n, &KeyNames::default()))
}

fn status() -> StatusView {
    StatusView {
        model: "llama3.2:3b".to_string(),
        connection: Connection::Connected {
            version: "0.12.6".into(),
        },
        gauge: GaugeView {
            used: 5_234,
            ctx: 13_600,
            trigger: 9_792,
            reserve: 1_360,
            source: None,
        },
        compressions: 2,
        reliability: Some(Reliability::measure(2, 11, 12)),
        activity: Activity::Idle,
        background: None,
        elapsed_ms: 0,
        mode: Mode::Developer,
        tier: Tier::T3,
        spinner_frame: 0,
        tools_note: None,
        pull: None,
        mouse: None,
    }
}

/// Everything a screen needs besides the view's borrowed parts.
struct Fixture {
    transcript: Transcript,
    input: TextArea<'static>,
    theme: Theme,
    status: StatusView,
    banner: Option<Banner>,
    ascii: bool,
    input_note: Option<String>,
}

impl Fixture {
    fn new() -> Fixture {
        let theme = Theme::default();
        let mut input = TextArea::default();
        style_textarea(&mut input, &theme);
        // The app's words for an empty transcript, with the default keys.
        let mut transcript = Transcript::new();
        transcript.set_empty_hint(ollm_tui::app::words::empty_hint(
            &ollm_tui::app::words::KeyNames::default(),
        ));
        Fixture {
            transcript,
            input,
            theme,
            status: status(),
            banner: None,
            ascii: false,
            input_note: None,
        }
    }

    fn draw(
        &mut self,
        w: u16,
        h: u16,
        panel: Option<PanelView<'_>>,
        overlay: Option<Overlay<'_>>,
    ) -> Buffer {
        let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
        let mut view = UiView {
            transcript: &mut self.transcript,
            input: &self.input,
            input_note: self.input_note.clone(),
            status: self.status.clone(),
            panel,
            overlay,
            banner: self.banner.clone(),
            theme: &self.theme,
            ascii: self.ascii,
            utc_offset: FixedOffset::east_opt(0).unwrap(),
            details: false,
            queued: &[],
            attached: Vec::new(),
            image_cost: None,
            thumbnails: None,
        };
        term.draw(|f| render(f, &mut view)).unwrap();
        term.backend().buffer().clone()
    }

    fn text(
        &mut self,
        w: u16,
        h: u16,
        panel: Option<PanelView<'_>>,
        overlay: Option<Overlay<'_>>,
    ) -> String {
        buffer_text(&self.draw(w, h, panel, overlay))
    }
}

const REPLY: &str = "Here is the plan:\n\n\
## Steps\n\n\
1. Parse the **config** with `toml`.\n\
2. Validate *every* field.\n   - reject unknown keys\n   - name the file\n\n\
> Locked: errors carry the path.\n\n\
```rust\nfn load(path: &Path) -> Result<Config, Error> {\n    let text = fs::read_to_string(path)?;\n    toml::from_str(&text).map_err(Error::from)\n}\n```\n\n\
| key | default |\n|-----|--------:|\n| ctx | 8,192 |\n| reserve | 1,024 |\n\n\
See [the docs](https://docs.rs/toml) for more.";

fn conversation(t: &mut Transcript) {
    t.push(Entry::new(
        EntryKind::Fold {
            checkpoint: 1,
            messages: 24,
            tokens: 1_180,
            merged_into: None,
        },
        "",
        t0(),
    ));
    t.push(Entry::user("How should I load the config file?", t0()));
    t.push(Entry::assistant(
        REPLY,
        ReplyState::Complete,
        t0() + Duration::seconds(40),
    ));
    let mut pinned = Entry::user(
        "Keep errors typed, please.\n\tAnd mention the key.",
        t0() + Duration::minutes(2),
    );
    pinned.pinned = true;
    t.push(pinned);
    t.push(Entry::new(
        EntryKind::Tool {
            name: "read_file".to_string(),
            is_error: true,
            detail: "config.toml".to_string(),
            args: r#"{"path":"config.toml"}"#.to_string(),
            ms: None,
            original_chars: None,
            summarized: false,
        },
        "error: config.toml: permission denied",
        t0() + Duration::minutes(3),
    ));
    t.push(Entry::notice(
        Severity::Info,
        "Snapshot taken (rollback).",
        t0() + Duration::minutes(4),
    ));
}

fn board() -> GoalBoard {
    let mut b = GoalBoard::default();
    let now = t0();
    let changes = [
        GoalChange::SetGoal {
            description: "Ship config loading with typed errors".to_string(),
            priority: Priority::High,
        },
        GoalChange::Checkpoint {
            description: "Parse TOML".to_string(),
            status: StepStatus::Completed,
        },
        GoalChange::Checkpoint {
            description: "Validate fields and name the bad key".to_string(),
            status: StepStatus::InProgress,
        },
        GoalChange::Checkpoint {
            description: "Write the docs".to_string(),
            status: StepStatus::Pending,
        },
        GoalChange::Decision {
            text: "Use thiserror for library errors".to_string(),
            locked: true,
        },
        GoalChange::Decision {
            text: "Maybe support YAML later".to_string(),
            locked: false,
        },
        GoalChange::Artifact {
            action: ArtifactAction::Created,
            path: "src/config.rs".to_string(),
        },
        GoalChange::Artifact {
            action: ArtifactAction::Modified,
            path: "Cargo.toml".to_string(),
        },
        GoalChange::Next {
            text: "Add a test for unknown keys".to_string(),
        },
    ];
    for c in &changes {
        b.apply(c, Author::User, now).unwrap();
    }
    b
}

fn checkpoints() -> Vec<Checkpoint> {
    let mk = |n: u32, level: Level, tokens: u32, orig: u32, from: u64, to: u64, mins: i64| {
        Checkpoint {
            id: CheckpointId(u64::from(n)),
            number: n,
            level,
            summary: format!(
                "Discussed **config loading** (part {n}). Decided to use `thiserror`.\n\n- parse with toml\n- validate keys"
            ),
            tokens,
            covers: (from..=to).map(MessageId).collect(),
            original_tokens: orig,
            created_at: t0() - Duration::minutes(mins),
            aged_at: None,
            times_compressed: 0,
            truncated: false,
            key_decisions: vec!["Use thiserror".to_string()],
            files: vec!["src/config.rs".to_string()],
            next_steps: vec!["Write tests".to_string()],
            facts: vec![],
            summary_asked: false,
        }
    };
    vec![
        mk(1, Level::Compact, 290, 9_400, 1, 24, 180),
        mk(2, Level::Moderate, 590, 8_100, 25, 51, 65),
        mk(3, Level::Detailed, 1_180, 7_300, 52, 80, 5),
    ]
}

fn originals() -> Vec<Message> {
    (52..56)
        .map(|i| Message {
            id: MessageId(i),
            role: if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            },
            text: format!("Original message {i}: we talked about loading config and typed errors."),
            ts: t0() - Duration::minutes(30) + Duration::minutes(i as i64 - 52),
            status: ReplyStatus::Complete,
            pinned: false,
            tool: None,
            calls: Vec::new(),
            thinking: String::new(),
            tokens: 20,
            images: Vec::new(),
        })
        .chain(std::iter::once(Message {
            id: MessageId(56),
            role: Role::Tool,
            text: "file not found".to_string(),
            ts: t0() - Duration::minutes(20),
            status: ReplyStatus::Complete,
            pinned: false,
            tool: Some(ToolInfo {
                name: "read_file".to_string(),
                args: "{}".to_string(),
                is_error: true,
                call_id: None,
                ms: None,
                original: None,
            }),
            calls: Vec::new(),
            thinking: String::new(),
            tokens: 5,
            images: Vec::new(),
        }))
        .collect()
}

fn panel<'a>(b: &'a GoalBoard, cps: &'a [Checkpoint], selected: Option<usize>) -> PanelView<'a> {
    PanelView {
        goals: b,
        checkpoints: cps,
        selected,
        focused: selected.is_some(),
        now: t0(),
        params: None,
        status: None,
    }
}

#[test]
fn empty_session() {
    let mut f = Fixture::new();
    f.status.compressions = 0;
    f.status.reliability = Some(Reliability::measure(0, 0, 0));
    f.status.gauge.used = 312;
    insta::assert_snapshot!(f.text(80, 24, None, None));
}

#[test]
fn conversation_with_markdown_and_code() {
    let mut f = Fixture::new();
    conversation(&mut f.transcript);
    insta::assert_snapshot!(f.text(100, 60, None, None));
}

#[test]
fn conversation_follows_the_bottom_in_a_short_window() {
    let mut f = Fixture::new();
    conversation(&mut f.transcript);
    insta::assert_snapshot!(f.text(80, 20, None, None));
}

#[test]
fn mid_stream() {
    let mut f = Fixture::new();
    f.transcript
        .push(Entry::user("Write a haiku about Rust.", t0()));
    f.transcript
        .push(Entry::assistant("", ReplyState::Streaming, t0()));
    f.transcript.append_delta("Borrow checker ");
    f.transcript.append_delta("hums,\nlifetimes");
    f.status.activity = Activity::Generating {
        since: std::time::Instant::now(),
        chunks: 7,
    };
    f.status.elapsed_ms = 1_400;
    f.status.spinner_frame = 3;
    insta::assert_snapshot!(f.text(80, 14, None, None));
}

#[test]
fn compressing_status() {
    let mut f = Fixture::new();
    f.status.activity = Activity::Compressing {
        since: std::time::Instant::now(),
        what: "summarize".to_string(),
    };
    f.status.spinner_frame = 1;
    f.status.gauge.used = 10_100;
    insta::assert_snapshot!(f.text(100, 8, None, None));
}

#[test]
fn interrupted_reply() {
    let mut f = Fixture::new();
    f.transcript.push(Entry::user("Explain monads.", t0()));
    f.transcript
        .push(Entry::assistant("", ReplyState::Streaming, t0()));
    f.transcript.append_delta("A monad is a way to");
    f.transcript.finish_streaming(ReplyState::Interrupted);
    insta::assert_snapshot!(f.text(60, 12, None, None));
}

fn gauge_view(used: u32) -> GaugeView {
    GaugeView {
        used,
        ctx: 10_000,
        trigger: 8_000,
        reserve: 1_000,
        source: None,
    }
}

#[test]
fn gauge_in_each_band() {
    let theme = Theme::default();
    let mut all = String::new();
    let cases = [
        (1_000, theme.styles.gauge_calm),
        (5_500, theme.styles.gauge_filling),
        (8_200, theme.styles.gauge_hot),
        (9_500, theme.styles.gauge_critical),
    ];
    for (used, style) in cases {
        let mut f = Fixture::new();
        f.status.gauge = gauge_view(used);
        let buf = f.draw(110, 3, None, None);
        let text = buffer_text(&buf);
        let status_line = text.lines().last().unwrap().to_string();
        all.push_str(&status_line);
        all.push('\n');
        // The percentage is drawn in the band's colour.
        let pct = format!("{}%", (used + 50) / 100);
        let col = status_line.find(&pct).unwrap();
        let x = status_line[..col].chars().count() as u16;
        assert_eq!(buf[(x, 2)].fg, style.fg.unwrap(), "used={used}");
        // Filled bar cells too.
        let bar = status_line.find('▮').unwrap();
        let bx = status_line[..bar].chars().count() as u16;
        assert_eq!(buf[(bx, 2)].fg, style.fg.unwrap(), "used={used}");
    }
    insta::assert_snapshot!(all);
}

#[test]
fn gauge_marker_sits_at_the_trigger() {
    let mut f = Fixture::new();
    f.status.gauge = gauge_view(3_000);
    let text = f.text(110, 3, None, None);
    let line = text.lines().last().unwrap();
    let bar: String = line
        .chars()
        .skip_while(|c| *c != '▮')
        .take_while(|c| matches!(c, '▮' | '▯' | '┃'))
        .collect();
    // 3,000/10,000 fills 3 of 10 cells; the trigger at 8,000 puts the marker after 8.
    assert_eq!(bar, "▮▮▮▯▯▯▯▯┃▯▯");
}

#[test]
fn goal_panel_with_checkpoints() {
    let mut f = Fixture::new();
    conversation(&mut f.transcript);
    let b = board();
    let cps = checkpoints();
    let buf = f.draw(120, 32, Some(panel(&b, &cps, Some(1))), None);
    let text = buffer_text(&buf);
    insta::assert_snapshot!(text);
    // The locked decision carries the lock marker and the `locked` style.
    let theme = Theme::default();
    let (y, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("Use thiserror for library"))
        .unwrap();
    assert!(line.contains("🔒 1."));
    let col = line.find("Use thiserror").unwrap();
    // The cell: count display columns up to the match.
    let x = unicode_width::UnicodeWidthStr::width(&line[..col]) as u16;
    assert_eq!(buf[(x, y as u16)].fg, theme.styles.locked.fg.unwrap());
    assert!(buf[(x, y as u16)].modifier.contains(Modifier::BOLD));
    let open = text
        .lines()
        .find(|l| l.contains("Maybe support YAML"))
        .unwrap();
    assert!(!open.contains("🔒"));
}

#[test]
fn narrow_screen_panel_takes_the_main_area() {
    let mut f = Fixture::new();
    conversation(&mut f.transcript);
    let b = GoalBoard::default();
    let cps: Vec<Checkpoint> = Vec::new();
    insta::assert_snapshot!(f.text(50, 16, Some(panel(&b, &cps, None)), None));
}

#[test]
fn checkpoint_list_scrolls_to_the_selection() {
    let mut f = Fixture::new();
    let b = GoalBoard::default();
    let mut cps = Vec::new();
    for n in 1..=30u32 {
        let mut cp = checkpoints()[0].clone();
        cp.number = n;
        cp.id = CheckpointId(u64::from(n));
        cp.truncated = n == 2;
        cps.push(cp);
    }
    insta::assert_snapshot!(f.text(120, 16, Some(panel(&b, &cps, Some(1))), None));
}

fn snapshot_metas() -> Vec<SnapshotMeta> {
    let mk = |i: i64, purpose: SnapshotPurpose, label: Option<&str>| SnapshotMeta {
        id: format!("snap-{i}"),
        session_id: "s1".to_string(),
        created: t0() - Duration::minutes(i * 37),
        purpose,
        label: label.map(str::to_string),
        model: "llama3.2:3b".to_string(),
        tier: Tier::T3,
        mode: Mode::Developer,
        tokens: 4_000 + i as u32 * 1_111,
        message_count: 10 + i as usize * 7,
        checkpoint_count: i as usize,
    };
    vec![
        mk(0, SnapshotPurpose::Rollback, Some("before refactor")),
        mk(1, SnapshotPurpose::Recovery, None),
        mk(3, SnapshotPurpose::Emergency, None),
        mk(
            40,
            SnapshotPurpose::Rollback,
            Some("first working build\u{1b}[2J"),
        ),
    ]
}

#[test]
fn restore_picker() {
    let mut f = Fixture::new();
    conversation(&mut f.transcript);
    let items = snapshot_metas();
    let overlay = Overlay::Snapshots {
        items: &items,
        selected: 1,
        now: t0(),
        confirm_delete: false,
    };
    insta::assert_snapshot!(f.text(100, 20, None, Some(overlay)));
}

#[test]
fn restore_picker_empty() {
    let mut f = Fixture::new();
    let overlay = Overlay::Snapshots {
        items: &[],
        selected: 0,
        now: t0(),
        confirm_delete: false,
    };
    insta::assert_snapshot!(f.text(80, 12, None, Some(overlay)));
}

fn model_entries() -> Vec<ModelEntry> {
    vec![
        ModelEntry {
            name: "llama3.2:3b".to_string(),
            size_bytes: Some(2_019_393_189),
            parameter_size: Some("3.2B".to_string()),
            context_length: Some(131_072),
            capabilities: vec!["completion".into(), "tools".into()],
        },
        ModelEntry {
            name: "qwen2.5-coder:0.5b".to_string(),
            size_bytes: Some(397_821_319),
            parameter_size: Some("494.03M".to_string()),
            context_length: Some(32_768),
            capabilities: vec!["completion".into(), "tools".into(), "thinking".into()],
        },
        ModelEntry {
            name: "mistral:7b".to_string(),
            size_bytes: Some(4_113_301_824),
            parameter_size: None,
            context_length: None,
            capabilities: vec!["completion".into(), "vision".into()],
        },
    ]
}

#[test]
fn model_picker() {
    let mut f = Fixture::new();
    let items = model_entries();
    let overlay = Overlay::Models {
        items: &items,
        selected: 2,
        current: "llama3.2:3b",
        note: None,
        pull: None,
    };
    insta::assert_snapshot!(f.text(90, 16, None, Some(overlay)));
}

#[test]
fn model_picker_loading_and_empty() {
    let mut f = Fixture::new();
    let overlay = Overlay::Models {
        items: &[],
        selected: 0,
        current: "llama3.2:3b",
        note: Some("loading…"),
        pull: None,
    };
    let loading = f.text(70, 12, None, Some(overlay));
    let overlay = Overlay::Models {
        items: &[],
        selected: 0,
        current: "llama3.2:3b",
        note: None,
        pull: None,
    };
    let empty = f.text(70, 12, None, Some(overlay));
    insta::assert_snapshot!(format!("{loading}\n{empty}"));
}

#[test]
fn model_picker_offers_to_pull_the_missing_model() {
    let mut f = Fixture::new();
    let items = model_entries();
    let overlay = Overlay::Models {
        items: &items,
        selected: 0,
        current: "llama3.1:70b",
        note: Some(
            "llama3.1:70b is not installed: Enter on its row pulls it (/pull llama3.1:70b).",
        ),
        pull: Some("Pull llama3.1:70b…".to_string()),
    };
    let text = f.text(90, 16, None, Some(overlay));
    let row = text
        .lines()
        .find(|l| l.contains("Pull llama3.1:70b…"))
        .unwrap();
    let first_model = text
        .lines()
        .position(|l| l.contains("llama3.2:3b"))
        .unwrap();
    assert!(
        text.lines().position(|l| l == row).unwrap() < first_model,
        "the pull row comes first:\n{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn pull_dialog_draws_its_figures_and_a_bar() {
    let mut f = Fixture::new();
    let overlay = Overlay::Pull {
        title: "Pulling smollm2:135m".to_string(),
        lines: vec![
            "downloading".to_string(),
            "37.8 MB of 75.7 MB · 50 % · 12.0 MB/s".to_string(),
        ],
        ratio: Some(0.5),
        footer: "Esc cancel · q hide (it goes on)",
    };
    let text = f.text(80, 12, None, Some(overlay));
    let bar = text.lines().find(|l| l.contains('█')).unwrap();
    let (full, empty) = (bar.matches('█').count(), bar.matches('░').count());
    assert!(full > 0 && full.abs_diff(empty) <= 1, "half full: {bar}");
    insta::assert_snapshot!(text);
}

fn bindings() -> Vec<(String, String)> {
    [
        ("Enter", "send the message"),
        ("Alt+Enter / Shift+Enter", "new line"),
        ("Esc", "stop generating"),
        ("Ctrl+S", "take a snapshot"),
        ("Ctrl+R", "restore a snapshot (picker)"),
        ("F7", "compress now"),
        ("Ctrl+G", "show or hide the goal panel"),
        ("Ctrl+L", "choose a model"),
        ("PgUp / PgDn", "scroll the transcript"),
        ("Ctrl+C / Ctrl+Q", "quit"),
        (
            "?",
            "this help; a long description wraps onto the next line with a hanging indent",
        ),
    ]
    .iter()
    .map(|(k, d)| (k.to_string(), d.to_string()))
    .collect()
}

#[test]
fn help_overlay() {
    let mut f = Fixture::new();
    conversation(&mut f.transcript);
    let b = bindings();
    insta::assert_snapshot!(f.text(
        80,
        24,
        None,
        Some(Overlay::Help {
            bindings: &b,
            scroll: 0
        })
    ));
}

#[test]
fn help_overlay_scrolls_in_a_small_window() {
    let mut f = Fixture::new();
    let b = bindings();
    let top = f.text(
        40,
        10,
        None,
        Some(Overlay::Help {
            bindings: &b,
            scroll: 0,
        }),
    );
    let scrolled = f.text(
        40,
        10,
        None,
        Some(Overlay::Help {
            bindings: &b,
            scroll: 3,
        }),
    );
    let clamped = f.text(
        40,
        10,
        None,
        Some(Overlay::Help {
            bindings: &b,
            scroll: 999,
        }),
    );
    assert_ne!(top, scrolled);
    assert!(clamped.contains("hanging"), "{clamped}");
    insta::assert_snapshot!(format!("{top}\n{scrolled}\n{clamped}"));
}

#[test]
fn inspector_wide_and_narrow() {
    let mut f = Fixture::new();
    let cps = checkpoints();
    let orig = originals();
    let overlay = Overlay::Inspector {
        checkpoint: &cps[2],
        originals: &orig,
        scroll: 0,
    };
    let wide = f.text(120, 24, None, Some(overlay.clone()));
    let narrow = f.text(60, 30, None, Some(overlay));
    insta::assert_snapshot!(format!("{wide}\n{narrow}"));
}

fn banner_screen(b: Banner) -> String {
    let mut f = Fixture::new();
    conversation(&mut f.transcript);
    f.banner = Some(b);
    f.text(80, 16, None, None)
}

#[test]
fn banner_unreachable() {
    let mut f = Fixture::new();
    f.banner = Some(banner(Notice::Unreachable {
        url: "http://127.0.0.1:11434".into(),
        error: "Connection refused".into(),
    }));
    f.status.connection = Connection::Unreachable {
        url: "http://127.0.0.1:11434".to_string(),
        error: "Connection refused".to_string(),
    };
    let text = f.text(80, 16, None, None);
    assert!(text.contains("ollama serve"));
    assert!(text.contains("http://127.0.0.1:11434"));
    insta::assert_snapshot!(text);
}

#[test]
fn banner_model_missing() {
    let text = banner_screen(banner(Notice::ModelMissing {
        model: "llama3.2:3b".into(),
        found: Found::Connecting,
    }));
    assert!(text.contains("/pull llama3.2:3b"));
    insta::assert_snapshot!(text);
}

#[test]
fn banner_truncation() {
    insta::assert_snapshot!(banner_screen(banner(Notice::Engine(
        EngineEvent::TruncationSuspected {
            sent: 9_800,
            seen: 4_096,
        }
    ))));
}

#[test]
fn banner_write_error() {
    insta::assert_snapshot!(banner_screen(banner(Notice::WriteFailed {
        error: "cannot append to /home/u/.ollm/sessions/0193.jsonl: No space left on device (os error 28)".into(),
        waiting: 3,
    })));
}

#[test]
fn banner_message_not_sent() {
    insta::assert_snapshot!(banner_screen(banner(Notice::Engine(EngineEvent::Blocked(
        Blocked {
            needed: 9_100,
            ctx: 8_192,
            reserve: 1_024,
            system: 480,
            goals: 120,
            summaries: 900,
            pinned: 6_900,
        }
    )))));
}

#[test]
fn banner_shrinks_to_one_line_when_short() {
    let mut f = Fixture::new();
    f.banner = Some(banner(Notice::Unreachable {
        url: "http://127.0.0.1:11434".into(),
        error: "Connection refused".into(),
    }));
    insta::assert_snapshot!(f.text(60, 6, None, None));
}

#[test]
fn tiny_sizes() {
    let mut out = String::new();
    for (w, h) in [(1, 1), (2, 5), (10, 3), (20, 6)] {
        let mut f = Fixture::new();
        conversation(&mut f.transcript);
        out.push_str(&format!("--- {w}x{h}\n"));
        out.push_str(&f.text(w, h, None, None));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn ascii_mode() {
    let mut f = Fixture::new();
    f.ascii = true;
    conversation(&mut f.transcript);
    f.status.activity = Activity::Loading;
    let b = board();
    let cps = checkpoints();
    let text = f.text(110, 40, Some(panel(&b, &cps, Some(2))), None);
    for c in text.chars() {
        // Model text may be anything; our decorations must be ASCII. The fixture's
        // content is ASCII apart from none, so the whole screen must be.
        assert!(c.is_ascii(), "non-ASCII {c:?} in ASCII mode:\n{text}");
    }
    insta::assert_snapshot!(text);
}

#[test]
fn input_with_note_and_lines() {
    let mut f = Fixture::new();
    f.input = TextArea::from(["first line", "second line", "third"]);
    style_textarea(&mut f.input, &f.theme.clone());
    f.input_note = Some("paste capped at 1 MiB".to_string());
    insta::assert_snapshot!(f.text(60, 14, None, None));
}

#[test]
fn no_color_has_no_colours() {
    let mut f = Fixture::new();
    f.theme = Theme::load("dark", None, true).unwrap();
    let theme = f.theme.clone();
    style_textarea(&mut f.input, &theme);
    conversation(&mut f.transcript);
    f.banner = Some(banner(Notice::Engine(EngineEvent::TruncationSuspected {
        sent: 9_800,
        seen: 4_096,
    })));
    f.status.gauge = gauge_view(9_500);
    let b = board();
    let cps = checkpoints();
    let buf = f.draw(120, 50, Some(panel(&b, &cps, Some(0))), None);
    for cell in buf.content() {
        assert_eq!(cell.fg, Color::Reset, "{cell:?}");
        assert_eq!(cell.bg, Color::Reset, "{cell:?}");
    }
    // Meaning survives through modifiers: the critical gauge is reversed.
    let text = buffer_text(&buf);
    let last = text.lines().last().unwrap();
    let col = last.find("95%").unwrap();
    let x = unicode_width::UnicodeWidthStr::width(&last[..col]) as u16;
    assert!(buf[(x, 49)].modifier.contains(Modifier::REVERSED));
}
