#![allow(clippy::unwrap_used)]
//! Behaviour of the renderer beyond what snapshots show: every size renders, untrusted
//! text cannot reach the terminal, caches are reused, streaming and scrolling work.

use chrono::{DateTime, Duration, FixedOffset, TimeZone, Utc};
use ollm_tui::app::present::banner_of;
use ollm_tui::app::words::{self, KeyNames};
use ollm_tui::core::checkpoint::{Checkpoint, CheckpointId, Level};
use ollm_tui::core::goals::{Author, GoalBoard, GoalChange, Priority};
use ollm_tui::core::image::{ImageCost, ImageFormat, ImageRef};
use ollm_tui::core::message::{Message, MessageId, ReplyStatus, Role, ToolInfo};
use ollm_tui::core::mode::{Mode, Tier};
use ollm_tui::core::record::SnapshotPurpose;
use ollm_tui::core::reliability::Reliability;
use ollm_tui::core::snapshot::SnapshotMeta;
use ollm_tui::ui::text::buffer_text;
use ollm_tui::ui::{
    Banner, GaugeView, ModelEntry, Overlay, PanelView, StatusView, Theme, Transcript, UiView,
    render_buffer,
};
use ollm_tui::view::{Activity, Connection, Entry, EntryKind, Found, Notice, ReplyState, Severity};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use tui_textarea::TextArea;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 15, 14, 0, 0).unwrap()
}

/// The banner the app shows for `n`.
fn banner(n: Notice) -> Banner {
    banner_of(n.severity(), words::notice(&n, &KeyNames::default()))
}

fn status(model: &str) -> StatusView {
    StatusView {
        model: model.to_string(),
        connection: Connection::Connected {
            version: "0.12.6".into(),
        },
        gauge: GaugeView {
            used: 9_000,
            ctx: 10_000,
            trigger: 8_000,
            reserve: 1_000,
            source: None,
        },
        compressions: 3,
        reliability: Some(Reliability::measure(3, 14, 16)),
        activity: Activity::Generating {
            since: std::time::Instant::now(),
            chunks: 120,
        },
        background: None,
        elapsed_ms: 3_000,
        mode: Mode::Assistant,
        tier: Tier::T2,
        spinner_frame: 7,
        tools_note: None,
        pull: None,
        mouse: None,
    }
}

struct Parts {
    input: TextArea<'static>,
    theme: Theme,
    status: StatusView,
    banner: Option<Banner>,
    ascii: bool,
    details: bool,
    queued: Vec<String>,
    image_cost: Option<ImageCost>,
}

impl Parts {
    fn new() -> Parts {
        Parts {
            input: TextArea::default(),
            theme: Theme::default(),
            status: status("llama3.2:3b"),
            banner: None,
            ascii: false,
            details: false,
            queued: Vec::new(),
            image_cost: None,
        }
    }

    fn draw(
        &self,
        t: &mut Transcript,
        w: u16,
        h: u16,
        panel: Option<PanelView<'_>>,
        overlay: Option<Overlay<'_>>,
    ) -> Buffer {
        self.draw_at(t, Rect::new(0, 0, w, h), panel, overlay)
    }

    /// Render into `area` of a buffer that also starts away from the origin and is
    /// larger than `area`, to catch coordinates computed from 0 instead of the area.
    fn draw_at(
        &self,
        t: &mut Transcript,
        area: Rect,
        panel: Option<PanelView<'_>>,
        overlay: Option<Overlay<'_>>,
    ) -> Buffer {
        let outer = Rect::new(
            area.x.saturating_sub(2),
            area.y.saturating_sub(1),
            area.width + 5,
            area.height + 3,
        );
        let mut buf = if area.x == 0 && area.y == 0 {
            Buffer::empty(area)
        } else {
            Buffer::empty(outer)
        };
        let mut view = UiView {
            transcript: t,
            input: &self.input,
            input_note: Some("paste capped at 1 MiB".to_string()),
            status: self.status.clone(),
            panel,
            overlay,
            banner: self.banner.clone(),
            theme: &self.theme,
            ascii: self.ascii,
            utc_offset: FixedOffset::east_opt(3600).unwrap(),
            details: self.details,
            queued: &self.queued,
            attached: Vec::new(),
            image_cost: self.image_cost,
            thumbnails: None,
        };
        render_buffer(area, &mut buf, &mut view);
        buf
    }
}

fn msg(id: u64, role: Role, text: &str) -> Message {
    Message {
        id: MessageId(id),
        role,
        text: text.to_string(),
        ts: t0(),
        status: ReplyStatus::Complete,
        pinned: false,
        tool: (role == Role::Tool).then(|| ToolInfo {
            name: "shell".to_string(),
            args: "{}".to_string(),
            is_error: false,
            call_id: None,
            ms: None,
            original: None,
        }),
        calls: Vec::new(),
        thinking: String::new(),
        tokens: 10,
        images: Vec::new(),
    }
}

fn checkpoint(summary: &str) -> Checkpoint {
    Checkpoint {
        id: CheckpointId(1),
        number: 1,
        level: Level::Detailed,
        summary: summary.to_string(),
        tokens: 100,
        covers: vec![MessageId(1), MessageId(2)],
        original_tokens: 1_000,
        created_at: t0() - Duration::minutes(3),
        aged_at: None,
        times_compressed: 0,
        truncated: false,
        key_decisions: vec![summary.to_string()],
        files: vec![],
        next_steps: vec![],
        facts: vec![],
        summary_asked: false,
    }
}

fn filled(n: usize) -> Transcript {
    let mut t = Transcript::new();
    for i in 0..n {
        let e = if i % 2 == 0 {
            Entry::user(format!("question {i}: how does part {i} work?"), t0())
        } else {
            Entry::assistant(
                format!(
                    "Answer {i}.\n\n- point one about **{i}**\n- point two\n\n```rust\nlet x = {i};\n```"
                ),
                ReplyState::Complete,
                t0(),
            )
        };
        t.push(e);
    }
    t
}

#[test]
fn every_size_renders_with_every_screen() {
    let mut board = GoalBoard::default();
    board
        .apply(
            &GoalChange::SetGoal {
                description: "a goal with a fairly long description".to_string(),
                priority: Priority::High,
            },
            Author::User,
            t0(),
        )
        .unwrap();
    board
        .apply(
            &GoalChange::Decision {
                text: "locked one".to_string(),
                locked: true,
            },
            Author::User,
            t0(),
        )
        .unwrap();
    let cps = vec![checkpoint("summary"), checkpoint("another")];
    let originals = vec![msg(1, Role::User, "hi"), msg(2, Role::Assistant, "hello")];
    let bindings = vec![("Enter".to_string(), "send".to_string()); 12];
    let snaps = vec![SnapshotMeta {
        id: "a".to_string(),
        session_id: "s".to_string(),
        created: t0(),
        purpose: SnapshotPurpose::Rollback,
        label: Some("label".to_string()),
        model: "m".to_string(),
        tier: Tier::T2,
        mode: Mode::Assistant,
        tokens: 100,
        message_count: 3,
        checkpoint_count: 0,
    }];
    let models = vec![ModelEntry {
        name: "m".to_string(),
        size_bytes: Some(1),
        parameter_size: None,
        context_length: Some(8192),
        capabilities: Vec::new(),
    }];
    let panel = PanelView {
        goals: &board,
        checkpoints: &cps,
        selected: Some(1),
        focused: true,
        now: t0(),
        params: None,
        status: None,
    };
    let overlays = [
        None,
        Some(Overlay::Help {
            bindings: &bindings,
            scroll: 5,
        }),
        Some(Overlay::Topic {
            title: ollm_tui::manual::TOPICS[0].title(),
            text: ollm_tui::manual::TOPICS[0].body(),
            scroll: 9,
        }),
        Some(Overlay::Snapshots {
            items: &snaps,
            selected: 4,
            now: t0(),
            confirm_delete: false,
        }),
        Some(Overlay::Models {
            items: &models,
            selected: 9,
            current: "m",
            note: Some("loading…"),
            pull: Some("Pull m…".to_string()),
        }),
        Some(Overlay::Pull {
            title: "Pulling m".to_string(),
            lines: vec!["downloading".to_string(), "1 MB of 2 MB · 50 %".to_string()],
            ratio: Some(0.5),
            footer: "Esc cancel",
        }),
        Some(Overlay::Inspector {
            checkpoint: &cps[0],
            originals: &originals,
            scroll: 100,
        }),
        Some(Overlay::Themes {
            names: vec!["dark", "light", "high-contrast", "mine"],
            selected: 3,
            current: "dark",
            note: Some("a note long enough to wrap in a narrow popup, and then some more"),
        }),
    ];
    let mut sizes: Vec<(u16, u16)> = vec![
        (0, 0),
        (1, 1),
        (2, 5),
        (10, 3),
        (20, 6),
        (80, 24),
        (200, 60),
    ];
    for w in (0..=34).step_by(3) {
        for h in 0..=16 {
            sizes.push((w, h));
        }
    }
    for ascii in [false, true] {
        let mut parts = Parts {
            ascii,
            ..Parts::new()
        };
        parts.banner = Some(banner(Notice::Unreachable {
            url: "http://127.0.0.1:11434".into(),
            error: "Connection refused".into(),
        }));
        for &(w, h) in &sizes {
            for with_panel in [false, true] {
                for overlay in &overlays {
                    let mut t = filled(6);
                    let p = with_panel.then_some(panel);
                    let buf = parts.draw(&mut t, w, h, p, overlay.clone());
                    assert_eq!(buf.area, Rect::new(0, 0, w, h));
                    let area = Rect::new(7, 3, w, h);
                    let buf = parts.draw_at(&mut t, area, p, overlay.clone());
                    // Nothing drawn outside the area.
                    for y in buf.area.top()..buf.area.bottom() {
                        for x in buf.area.left()..buf.area.right() {
                            if !area.contains(ratatui::layout::Position { x, y }) {
                                assert_eq!(buf[(x, y)].symbol(), " ", "({x},{y}) outside {area:?}");
                            }
                        }
                    }
                }
            }
        }
    }
}

const NASTY: &str = "ok \u{1b}]52;c;ZXZpbA==\u{7} \u{1b}[2J\u{1b}[H \u{202E}evil\u{202C} \u{2066}iso\u{2069} \u{9b}31m \u{1b}P+q\u{1b}\\ end";

fn assert_clean(buf: &Buffer) {
    for cell in buf.content() {
        for c in cell.symbol().chars() {
            assert!(
                !(c.is_control()
                    || ('\u{202A}'..='\u{202E}').contains(&c)
                    || ('\u{2066}'..='\u{2069}').contains(&c)),
                "unsafe char {c:?} in cell {cell:?}"
            );
        }
    }
}

#[test]
fn untrusted_text_never_reaches_the_buffer() {
    let mut parts = Parts::new();
    parts.status = status(NASTY);
    parts.status.activity = Activity::Compressing {
        since: std::time::Instant::now(),
        what: NASTY.to_string(),
    };
    parts.banner = Some(Banner::new(Severity::Error, NASTY, NASTY));
    parts.input = TextArea::from([NASTY]);
    let mut t = Transcript::new();
    t.push(Entry::user(NASTY, t0()));
    t.push(Entry::assistant(
        format!("{NASTY}\n\n```rust\n{NASTY}\n```\n\n| a | b |\n|---|---|\n| {NASTY} | x |"),
        ReplyState::Complete,
        t0(),
    ));
    t.push(Entry::new(
        EntryKind::Tool {
            name: NASTY.to_string(),
            is_error: false,
            detail: NASTY.to_string(),
            args: serde_json::json!({ "path": NASTY }).to_string(),
            ms: None,
            original_chars: None,
            summarized: false,
        },
        NASTY,
        t0(),
    ));
    t.push(Entry::notice(Severity::Warn, NASTY, t0()));
    let mut thought = Entry::assistant(NASTY, ReplyState::Complete, t0());
    thought.thinking = NASTY.to_string();
    t.push(thought);
    t.push(Entry::assistant("", ReplyState::Streaming, t0()));
    t.append_thinking(NASTY);
    t.append_delta("partial \u{1b}]52;c;");
    t.append_delta("ZXZpbA==\u{7} done \u{202E}x");

    let mut board = GoalBoard::default();
    for change in [
        GoalChange::SetGoal {
            description: NASTY.to_string(),
            priority: Priority::Medium,
        },
        GoalChange::Decision {
            text: NASTY.to_string(),
            locked: true,
        },
        GoalChange::Next {
            text: NASTY.to_string(),
        },
    ] {
        board.apply(&change, Author::User, t0()).unwrap();
    }
    let cps = vec![checkpoint(NASTY)];
    let panel = PanelView {
        goals: &board,
        checkpoints: &cps,
        selected: Some(0),
        focused: false,
        now: t0(),
        params: None,
        status: None,
    };
    let buf = parts.draw(&mut t, 140, 60, Some(panel), None);
    assert_clean(&buf);
    assert!(buffer_text(&buf).contains("evil"), "visible text is kept");
    // Unfolded: the tool's arguments and result, the reasoning.
    parts.details = true;
    let buf = parts.draw(&mut t, 140, 200, Some(panel), None);
    assert_clean(&buf);
    parts.details = false;

    let originals = vec![msg(1, Role::User, NASTY), msg(2, Role::Tool, NASTY)];
    let bindings = vec![(NASTY.to_string(), NASTY.to_string())];
    let snaps = vec![SnapshotMeta {
        id: "a".to_string(),
        session_id: "s".to_string(),
        created: t0(),
        purpose: SnapshotPurpose::Recovery,
        label: Some(NASTY.to_string()),
        model: NASTY.to_string(),
        tier: Tier::T2,
        mode: Mode::Assistant,
        tokens: 1,
        message_count: 1,
        checkpoint_count: 0,
    }];
    let models = vec![ModelEntry {
        name: NASTY.to_string(),
        size_bytes: None,
        parameter_size: Some(NASTY.to_string()),
        context_length: None,
        capabilities: Vec::new(),
    }];
    for overlay in [
        Overlay::Help {
            bindings: &bindings,
            scroll: 0,
        },
        Overlay::Topic {
            title: NASTY,
            text: NASTY,
            scroll: 0,
        },
        Overlay::Snapshots {
            items: &snaps,
            selected: 0,
            now: t0(),
            confirm_delete: false,
        },
        Overlay::Models {
            items: &models,
            selected: 0,
            current: "x",
            note: Some(NASTY),
            pull: Some(NASTY.to_string()),
        },
        Overlay::Pull {
            title: NASTY.to_string(),
            lines: vec![NASTY.to_string()],
            ratio: Some(2.0),
            footer: "Esc",
        },
        Overlay::Inspector {
            checkpoint: &cps[0],
            originals: &originals,
            scroll: 0,
        },
    ] {
        let buf = parts.draw(&mut t, 140, 60, None, Some(overlay));
        assert_clean(&buf);
    }
}

#[test]
fn a_topic_of_the_manual_renders_its_markdown_in_the_helps_frame() {
    // #37 item 7: `/help TOPIC` shows a part of the manual, not its Markdown source.
    let parts = Parts::new();
    let mut t = filled(3);
    let tools = ollm_tui::manual::find("tools").unwrap();
    let overlay = |scroll| Overlay::Topic {
        title: tools.title(),
        text: tools.body(),
        scroll,
    };
    let text = buffer_text(&parts.draw(&mut t, 110, 30, None, Some(overlay(0))));
    assert!(text.contains("Tools and approval"), "{text}");
    assert!(text.contains("PgUp/PgDn scroll"), "{text}");
    assert!(text.contains("read_file"), "{text}");
    assert!(!text.contains("**") && !text.contains("## "), "{text}");
    // Scrolled past its end, it shows its end, not nothing.
    let end = buffer_text(&parts.draw(&mut t, 110, 30, None, Some(overlay(u16::MAX))));
    assert_ne!(end, text);
    assert!(end.contains("MCP server"), "{end}");
}

#[test]
fn tabs_are_expanded_to_spaces() {
    let parts = Parts::new();
    let mut t = Transcript::new();
    t.push(Entry::user("a\tb", t0()));
    t.push(Entry::assistant(
        "```\n\tindented\n```",
        ReplyState::Complete,
        t0(),
    ));
    let buf = parts.draw(&mut t, 60, 12, None, None);
    assert!(buf.content().iter().all(|c| c.symbol() != "\t"));
    let text = buffer_text(&buf);
    assert!(text.contains("a   b"), "{text}");
    assert!(text.contains("     indented"), "{text}");
}

#[test]
fn a_cached_frame_renders_no_entry() {
    let parts = Parts::new();
    let mut t = filled(50);
    let first = parts.draw(&mut t, 100, 30, None, None);
    let after_first = t.render_count();
    assert!(after_first > 0);
    let second = parts.draw(&mut t, 100, 30, None, None);
    assert_eq!(
        t.render_count(),
        after_first,
        "second frame re-rendered entries"
    );
    assert_eq!(first, second);
}

#[test]
fn a_long_transcript_renders_only_what_is_visible() {
    let parts = Parts::new();
    let mut t = filled(10_000);
    parts.draw(&mut t, 120, 40, None, None);
    let cold = t.render_count();
    // 40 rows show a handful of entries; far fewer than 10,000 were rendered.
    assert!(cold <= 12, "rendered {cold} entries for one screen");
    // A resize re-renders only the entries the new width shows.
    parts.draw(&mut t, 90, 40, None, None);
    let resized = t.render_count() - cold;
    assert!(resized <= 14, "resize rendered {resized} entries");
    // Going back to the old width: those entries were replaced, so they render again,
    // but still only a screenful.
    parts.draw(&mut t, 120, 40, None, None);
    assert!(t.render_count() - cold - resized <= 14);
}

#[test]
fn scrolling_through_a_long_transcript_keeps_the_cache_bounded() {
    let parts = Parts::new();
    let mut t = filled(3_000);
    for _ in 0..400 {
        t.page_up();
        parts.draw(&mut t, 80, 30, None, None);
    }
    assert!(
        t.cached_entries() <= ollm_tui::ui::transcript::MAX_CACHED_ENTRIES,
        "{} cached",
        t.cached_entries()
    );
    assert!(!t.is_following());
}

#[test]
fn streaming_rerenders_only_the_streaming_entry_when_it_changes() {
    let parts = Parts::new();
    let mut t = filled(20);
    t.push(Entry::assistant("", ReplyState::Streaming, t0()));
    parts.draw(&mut t, 80, 24, None, None);
    let base = t.render_count();
    for (k, chunk) in ["Hello", " world", ".\n\nSecond", " paragraph."]
        .iter()
        .enumerate()
    {
        t.append_delta(chunk);
        parts.draw(&mut t, 80, 24, None, None);
        assert_eq!(t.render_count(), base + k as u64 + 1);
        // Nothing changed: nothing re-rendered.
        parts.draw(&mut t, 80, 24, None, None);
        assert_eq!(t.render_count(), base + k as u64 + 1);
    }
    let text = buffer_text(&parts.draw(&mut t, 80, 24, None, None));
    assert!(text.contains("Hello world."), "{text}");
    assert!(text.contains("Second paragraph."), "{text}");
    assert!(text.contains("writing…"));
}

#[test]
fn a_streamed_reply_ends_identical_to_a_complete_one() {
    let reply = "# Title\n\nSome *text* that is long enough to wrap across lines here.\n\n\
                 - item one\n- item two\n\n```python\ndef f(x):\n\n    return x\n```\n\nDone.";
    let parts = Parts::new();
    let mut streamed = Transcript::new();
    streamed.push(Entry::user("q", t0()));
    streamed.push(Entry::assistant("", ReplyState::Streaming, t0()));
    // Feed it in small, uneven chunks, drawing in between.
    let bytes: Vec<char> = reply.chars().collect();
    for chunk in bytes.chunks(7) {
        streamed.append_delta(&chunk.iter().collect::<String>());
        parts.draw(&mut streamed, 70, 40, None, None);
    }
    streamed.finish_streaming(ReplyState::Complete);
    assert!(
        !streamed.append_delta("late"),
        "no reply is streaming any more"
    );

    let mut direct = Transcript::new();
    direct.push(Entry::user("q", t0()));
    direct.push(Entry::assistant(reply, ReplyState::Complete, t0()));
    assert_eq!(
        buffer_text(&parts.draw(&mut streamed, 70, 40, None, None)),
        buffer_text(&parts.draw(&mut direct, 70, 40, None, None))
    );
}

#[test]
fn a_sent_pictures_chip_says_its_cost_a_guess_until_learned() {
    let mut parts = Parts::new();
    let mut t = Transcript::new();
    let mut e = Entry::user("what is on it?", t0());
    e.id = Some(MessageId(3));
    e.images = vec![ImageRef {
        hash: "a".repeat(64),
        name: "shot.png".into(),
        width: 1280,
        height: 720,
        bytes: 10,
        format: ImageFormat::Png,
    }];
    t.push(e);
    parts.image_cost = Some(ImageCost::from_learned(None));
    let guessed = buffer_text(&parts.draw(&mut t, 80, 6, None, None));
    assert!(
        guessed.contains("🖼 shot.png 1280×720 · ≈ 768 tokens (guess)"),
        "{guessed}"
    );
    // Learned from the server: the same (cached) entry says the measured figure.
    parts.image_cost = Some(ImageCost::from_learned(Some(576)));
    let learned = buffer_text(&parts.draw(&mut t, 80, 6, None, None));
    assert!(
        learned.contains("shot.png 1280×720 · ≈ 576 tokens") && !learned.contains("guess"),
        "{learned}"
    );
}

#[test]
fn a_folded_message_says_which_checkpoint_stands_for_it() {
    let parts = Parts::new();
    let mut t = Transcript::new();
    let mut e = Entry::user("what about the cache?", t0());
    e.id = Some(MessageId(7));
    t.push(e);
    let before = buffer_text(&parts.draw(&mut t, 60, 6, None, None));
    assert!(!before.contains("checkpoint"), "{before}");
    t.update(0, |e| e.folded = Some(3));
    let after = buffer_text(&parts.draw(&mut t, 60, 6, None, None));
    assert!(after.contains("in checkpoint 3"), "{after}");
    assert!(
        after.contains("what about the cache?"),
        "the text stays: {after}"
    );
}

#[test]
fn before_the_first_token_the_status_says_waiting() {
    let mut parts = Parts::new();
    parts.status.activity = Activity::Generating {
        since: std::time::Instant::now(),
        chunks: 0,
    };
    parts.status.elapsed_ms = 2_500;
    let mut t = Transcript::new();
    let text = buffer_text(&parts.draw(&mut t, 120, 3, None, None));
    let status = text.lines().last().unwrap();
    assert!(status.contains("waiting for the model 2.5s"), "{status:?}");
    assert!(!status.contains("0 tok"), "{status:?}");
}

#[test]
fn a_summary_between_turns_shows_in_the_status_line() {
    let mut parts = Parts::new();
    parts.status.activity = Activity::Idle;
    parts.status.background = Some("summarizing 8 messages, 3–17 (1/1)".into());
    let mut t = Transcript::new();
    let text = buffer_text(&parts.draw(&mut t, 140, 3, None, None));
    let status = text.lines().last().unwrap();
    assert!(
        status.contains("in the background: summarizing 8 messages, 3–17 (1/1)"),
        "{status:?}"
    );
    // Narrow: the short form.
    let text = buffer_text(&parts.draw(&mut t, 60, 3, None, None));
    let status = text.lines().last().unwrap();
    assert!(status.contains("summarizing"), "{status:?}");
}

#[test]
fn a_reply_that_never_began_leaves_no_empty_entry() {
    let parts = Parts::new();
    let mut t = Transcript::new();
    t.push(Entry::user("q", t0()));
    t.push(Entry::assistant("", ReplyState::Streaming, t0()));
    parts.draw(&mut t, 60, 10, None, None);
    assert!(t.discard_empty_streaming());
    assert_eq!(t.len(), 1);
    assert_eq!(t.streaming_index(), None);
    assert!(buffer_text(&parts.draw(&mut t, 60, 10, None, None)).contains("q"));

    // Once text arrived it is kept, marked interrupted.
    t.push(Entry::assistant("", ReplyState::Streaming, t0()));
    t.append_delta("partial");
    assert!(!t.discard_empty_streaming());
    assert_eq!(t.len(), 2);
    assert_eq!(
        t.get(1).unwrap().kind,
        EntryKind::Assistant {
            state: ReplyState::Interrupted
        }
    );
}

fn numbered(n: usize) -> Transcript {
    let mut t = Transcript::new();
    for i in 0..n {
        t.push(Entry::notice(Severity::Info, format!("line {i}"), t0()));
    }
    t
}

/// Transcript rows of a 40×12 screen (input 3 rows + status 1 → 8 rows).
fn rows(parts: &Parts, t: &mut Transcript) -> Vec<String> {
    let text = buffer_text(&parts.draw(t, 40, 12, None, None));
    text.lines().take(8).map(str::to_string).collect()
}

#[test]
fn follows_the_bottom_until_scrolled_up() {
    let parts = Parts::new();
    // Each notice is 1 line + a blank separator: 2 rows per entry.
    let mut t = numbered(20);
    let r = rows(&parts, &mut t);
    assert!(r[7].contains("line 19"), "{r:?}");
    assert!(t.is_following());

    t.scroll_up(4);
    assert!(!t.is_following());
    let r = rows(&parts, &mut t);
    assert!(r[7].contains("line 17"), "{r:?}");
    assert!(r[7].contains("↓ more"), "{r:?}");

    // New content while scrolled up: the view stays put and says there is news.
    t.push(Entry::notice(Severity::Info, "line 20", t0()));
    assert!(t.has_unseen());
    let r2 = rows(&parts, &mut t);
    assert_eq!(r2[0], r[0]);
    assert!(r2[7].contains("↓ new"), "{r2:?}");

    // Scrolling down to the end follows again.
    t.scroll_down(100);
    let r = rows(&parts, &mut t);
    assert!(t.is_following());
    assert!(!t.has_unseen());
    assert!(r[7].contains("line 20"), "{r:?}");
    assert!(!r.iter().any(|l| l.contains('↓')));
}

#[test]
fn page_keys_and_top_bottom() {
    let parts = Parts::new();
    let mut t = numbered(30);
    let before = rows(&parts, &mut t);
    assert_eq!(before[0], "", "{before:?}");
    assert!(before[1].contains("line 26"), "{before:?}");
    t.page_up();
    let r = rows(&parts, &mut t);
    // A page is the viewport (8 rows) less one line of overlap: the old top row (the
    // blank above line 26) is now the bottom row, under the hint.
    assert!(r[0].contains("line 22"), "{r:?}");
    assert!(r[6].contains("line 25"), "{r:?}");
    assert!(r[7].trim_start().starts_with("↓"), "{r:?}");
    t.page_down();
    let r = rows(&parts, &mut t);
    assert!(r[7].contains("line 29"), "{r:?}");
    assert!(t.is_following());

    t.to_top();
    let r = rows(&parts, &mut t);
    assert!(r[0].contains("line 0"), "{r:?}");
    t.scroll_up(50);
    let r = rows(&parts, &mut t);
    assert!(
        r[0].contains("line 0"),
        "scrolling past the top clamps: {r:?}"
    );
    t.to_bottom();
    let r = rows(&parts, &mut t);
    assert!(r[7].contains("line 29"), "{r:?}");
}

#[test]
fn resize_keeps_the_anchor_entry_in_view() {
    let parts = Parts::new();
    let mut t = numbered(40);
    rows(&parts, &mut t);
    t.to_top();
    t.scroll_down(20);
    let r = rows(&parts, &mut t);
    assert!(r[0].contains("line 10"), "{r:?}");
    let text = buffer_text(&parts.draw(&mut t, 25, 20, None, None));
    assert!(text.lines().next().unwrap().contains("line 10"), "{text}");
}

#[test]
fn short_transcripts_start_at_the_top() {
    let parts = Parts::new();
    let mut t = numbered(2);
    let r = rows(&parts, &mut t);
    assert!(r[0].contains("line 0"), "{r:?}");
    // Scrolling in a transcript that fits changes nothing and keeps following.
    t.scroll_up(3);
    let r = rows(&parts, &mut t);
    assert!(r[0].contains("line 0"), "{r:?}");
    assert!(t.is_following());
}

#[test]
fn replace_all_resets_scroll_and_streaming() {
    let parts = Parts::new();
    let mut t = numbered(30);
    t.push(Entry::assistant("", ReplyState::Streaming, t0()));
    t.scroll_up(10);
    rows(&parts, &mut t);
    let msgs = [
        msg(1, Role::User, "restored question"),
        msg(2, Role::Assistant, "restored answer"),
    ];
    t.replace_all(msgs.iter().map(Entry::from_message).collect());
    assert!(t.is_following());
    assert_eq!(t.streaming_index(), None);
    assert!(!t.append_delta("x"));
    let text = rows(&parts, &mut t).join("\n");
    assert!(text.contains("restored answer"), "{text}");
    assert_eq!(t.get(0).unwrap().id, Some(MessageId(1)));
}

#[test]
fn theme_change_invalidates_the_cache() {
    let mut parts = Parts::new();
    let mut t = filled(10);
    parts.draw(&mut t, 80, 24, None, None);
    let n = t.render_count();
    parts.theme = Theme::load("light", None, false).unwrap();
    parts.draw(&mut t, 80, 24, None, None);
    assert!(t.render_count() > n);
    let n = t.render_count();
    parts.ascii = true;
    parts.draw(&mut t, 80, 24, None, None);
    assert!(t.render_count() > n);
}

#[test]
fn update_drops_only_that_entry() {
    let parts = Parts::new();
    let mut t = Transcript::new();
    for i in 0..5 {
        t.push(Entry::user(format!("message {i}"), t0()));
    }
    parts.draw(&mut t, 80, 24, None, None);
    let n = t.render_count();
    t.update(4, |e| e.pinned = true);
    let text = buffer_text(&parts.draw(&mut t, 80, 24, None, None));
    assert_eq!(t.render_count(), n + 1);
    assert!(text.contains("pinned"), "{text}");
}

#[test]
fn streaming_code_is_highlighted_incrementally_and_once() {
    let parts = Parts::new();
    let mut t = Transcript::new();
    t.push(Entry::user("write code", t0()));
    t.push(Entry::assistant("```rust\n", ReplyState::Streaming, t0()));
    let lines = 60u64;
    for i in 0..lines {
        // Each line arrives in two deltas, with a frame after each.
        t.append_delta(&format!("let v{i} = "));
        parts.draw(&mut t, 80, 24, None, None);
        t.append_delta(&format!("{i};\n"));
        parts.draw(&mut t, 80, 24, None, None);
    }
    // Every complete line once, plus one look at the unfinished last line per frame:
    // linear, not quadratic, in the length of the block.
    let streamed = t.highlighted_lines();
    assert!(
        streamed <= lines + 2 * lines + 2,
        "{streamed} highlighted lines"
    );

    t.append_delta("```\n\nDone.");
    t.finish_streaming(ReplyState::Complete);
    parts.draw(&mut t, 80, 24, None, None);
    let finished = t.highlighted_lines();
    assert!(
        finished - streamed <= 2,
        "final render re-highlighted {}",
        finished - streamed
    );

    // Re-wrapping at other widths re-uses the highlighted lines.
    parts.draw(&mut t, 61, 24, None, None);
    parts.draw(&mut t, 99, 30, None, None);
    assert_eq!(t.highlighted_lines(), finished);
}

/// A flood of one endless paragraph (#36): each frame renders what came since the last
/// cut, never the whole reply, so a frame costs the same at 10 KB and at 1.7 MB; the reply
/// is rendered whole once, when it ends.
#[test]
fn an_endless_paragraph_costs_each_frame_a_bounded_tail() {
    let parts = Parts::new();
    let mut t = Transcript::new();
    t.push(Entry::user("go on", t0()));
    t.push(Entry::assistant("", ReplyState::Streaming, t0()));
    let mut sent = 0usize;
    let mut most = 0usize;
    for i in 0..256 {
        let delta: String = (0..800).map(|k| format!("w{}x{k} ", i)).collect();
        sent += delta.len();
        t.append_delta(&delta);
        parts.draw(&mut t, 80, 24, None, None);
        most = most.max(t.streaming_tail_bytes());
    }
    assert!(sent > 1_500_000, "{sent}");
    assert!(most <= 64 << 10, "a frame rendered {most} bytes again");
    let text = buffer_text(&parts.draw(&mut t, 80, 24, None, None));
    assert!(text.contains("w255x799"), "the newest words show:\n{text}");
}

/// A code block longer than what a frame renders again is cut too, and the rest of it
/// stays code: its lines look as they do once the reply is whole.
#[test]
fn a_huge_code_block_stays_code_when_it_is_cut() {
    let parts = Parts::new();
    let mut t = Transcript::new();
    t.push(Entry::user("write code", t0()));
    t.push(Entry::assistant("```rust\n", ReplyState::Streaming, t0()));
    let mut code = String::new();
    // 1,800 lines, 30 KB: past what a frame renders again, within what is highlighted.
    for i in 0..1800 {
        let line = format!("let v{i} = {i};\n");
        code.push_str(&line);
        t.append_delta(&line);
        if i % 50 == 0 {
            parts.draw(&mut t, 80, 24, None, None);
        }
    }
    let streaming = parts.draw(&mut t, 80, 24, None, None);
    assert!(t.streaming_tail_bytes() < 64 << 10);
    let mut whole = Transcript::new();
    whole.push(Entry::user("write code", t0()));
    whole.push(Entry::assistant(
        format!("```rust\n{code}"),
        ReplyState::Streaming,
        t0(),
    ));
    let fresh = parts.draw(&mut whole, 80, 24, None, None);
    let row = |b: &Buffer| {
        (0..b.area.height)
            .find(|y| {
                let line: String = (0..b.area.width)
                    .map(|x| b[(x, *y)].symbol().to_string())
                    .collect();
                line.contains("let v1799 = 1799;")
            })
            .map(|y| {
                (0..b.area.width)
                    .map(|x| (b[(x, y)].symbol().to_string(), b[(x, y)].style()))
                    .collect::<Vec<_>>()
            })
    };
    let (cut, uncut) = (row(&streaming), row(&fresh));
    assert!(cut.is_some(), "{}", buffer_text(&streaming));
    assert_eq!(cut, uncut, "the cut block's last line is drawn as code");
}

#[test]
fn status_line_keeps_the_budget_visible_as_it_narrows() {
    let mut parts = Parts::new();
    parts.status.gauge = GaugeView {
        used: 3_800,
        ctx: 10_000,
        trigger: 8_000,
        reserve: 1_000,
        source: None,
    };
    for w in 12..=160u16 {
        let mut t = Transcript::new();
        let buf = parts.draw(&mut t, w, 3, None, None);
        let text = buffer_text(&buf);
        let status = text.lines().last().unwrap();
        assert!(status.contains("38%"), "w={w}: {status:?}");
        assert!(unicode_width::UnicodeWidthStr::width(status) <= usize::from(w));
        if w >= 60 {
            assert!(status.contains("3,800/10,000"), "w={w}: {status:?}");
            assert!(status.contains("120 tok"), "w={w}: {status:?}");
        }
        if w >= 110 {
            assert!(status.contains("llama3.2:3b"), "w={w}: {status:?}");
        }
        if w >= 150 {
            assert!(status.contains("3 compressions"), "w={w}: {status:?}");
            assert!(status.contains("assistant mode"), "w={w}: {status:?}");
        }
    }
}

/// A merge keeps the oldest checkpoint's number: its own divider says it took the later
/// ones in, rather than "checkpoint 1 (since merged into checkpoint 1)" (#31).
#[test]
fn a_divider_merged_into_its_own_number_says_what_it_took_in() {
    let parts = Parts::new();
    let mut t = Transcript::new();
    for (checkpoint, merged_into) in [(1, Some(1)), (2, Some(1))] {
        t.push(Entry::new(
            EntryKind::Fold {
                checkpoint,
                messages: 4,
                tokens: 49,
                merged_into,
            },
            "",
            t0(),
        ));
    }
    let text = buffer_text(&parts.draw(&mut t, 120, 12, None, None));
    assert!(
        text.contains("checkpoint 1 (later ones since merged into it): 4 earlier"),
        "{text}"
    );
    assert!(
        text.contains("checkpoint 2 (since merged into checkpoint 1)"),
        "{text}"
    );
    assert!(
        !text.contains("checkpoint 1 (since merged into checkpoint 1)"),
        "{text}"
    );
}

/// A brand-new chat with a small model (#31): nothing was compressed, so nothing was lost —
/// no reliability badge (it read a red 30 % before) — and the status line speaks plainly:
/// "(default)" rather than "(capped)", "assistant mode" rather than "assistant T2". After
/// a compression the badge appears, calm for a clean one.
#[test]
fn a_fresh_small_model_session_shows_no_alarm_and_no_jargon() {
    let mut parts = Parts::new();
    parts.status = status("qwen2.5-coder:0.5b");
    parts.status.activity = Activity::Idle;
    parts.status.gauge = GaugeView {
        used: 68,
        ctx: 8_192,
        trigger: 6_000,
        reserve: 1_024,
        source: Some("default"),
    };
    parts.status.compressions = 0;
    parts.status.reliability = Some(Reliability::measure(0, 0, 0));
    for w in [80u16, 200] {
        let mut t = Transcript::new();
        let text = buffer_text(&parts.draw(&mut t, w, 3, None, None));
        let line = text.lines().last().unwrap();
        for badge in ["🔴", "🟠", "🟡", "🟢", "%!"] {
            assert!(!line.contains(badge), "w={w}: {line:?}");
        }
        assert!(line.contains("(default)"), "w={w}: {line:?}");
        assert!(
            !line.contains("capped") && !line.contains(" T2"),
            "w={w}: {line:?}"
        );
        if w == 200 {
            assert!(line.contains("nothing compressed yet"), "{line:?}");
            assert!(line.contains("assistant mode"), "{line:?}");
        }
    }
    parts.status.compressions = 1;
    parts.status.reliability = Some(Reliability::measure(1, 4, 4));
    let mut t = Transcript::new();
    let text = buffer_text(&parts.draw(&mut t, 200, 3, None, None));
    let line = text.lines().last().unwrap();
    assert!(line.contains("1 compression · 🟢 4/4 facts"), "{line:?}");
}

#[test]
fn the_status_line_says_where_an_automatic_context_size_came_from() {
    let mut parts = Parts::new();
    parts.status.gauge = GaugeView {
        used: 3_800,
        ctx: 32_768,
        trigger: 24_000,
        reserve: 3_276,
        source: Some("server"),
    };
    let mut t = Transcript::new();
    let wide = buffer_text(&parts.draw(&mut t, 160, 3, None, None));
    let status = wide.lines().last().unwrap();
    assert!(status.contains("3,800/32,768 (server)"), "{status:?}");
    // Narrow terminals drop it with the bar, never overflow.
    for w in 12..=160u16 {
        let mut t = Transcript::new();
        let text = buffer_text(&parts.draw(&mut t, w, 3, None, None));
        let status = text.lines().last().unwrap();
        assert!(unicode_width::UnicodeWidthStr::width(status) <= usize::from(w));
        assert!(status.contains('%'), "w={w}: {status:?}");
    }
}

#[test]
fn no_model_leaves_no_empty_segment_in_the_status_line() {
    let mut parts = Parts::new();
    parts.status = status("");
    parts.status.connection = Connection::Unreachable {
        url: "http://127.0.0.1:11434".to_string(),
        error: "Connection refused".to_string(),
    };
    let mut t = Transcript::new();
    let buf = parts.draw(&mut t, 160, 3, None, None);
    let text = buffer_text(&buf);
    let status = text.lines().last().unwrap();
    assert!(status.contains("Ollama unreachable"), "{status:?}");
    assert!(!status.contains("·  ·"), "{status:?}");
}

#[test]
fn ascii_mode_draws_only_ascii_on_every_screen() {
    let mut parts = Parts::new();
    parts.ascii = true;
    parts.status.connection = Connection::Connecting;
    let mut t = filled(8);
    t.push(Entry::new(
        EntryKind::Tool {
            name: "ls".to_string(),
            is_error: false,
            detail: String::new(),
            args: "{}".to_string(),
            ms: None,
            original_chars: None,
            summarized: false,
        },
        (0..40).map(|i| format!("file{i}\n")).collect::<String>(),
        t0(),
    ));
    t.push(Entry::new(
        EntryKind::Fold {
            checkpoint: 2,
            messages: 10,
            tokens: 300,
            merged_into: Some(1),
        },
        "",
        t0(),
    ));
    t.push(Entry::assistant("cut", ReplyState::Interrupted, t0()));
    t.push(Entry::notice(Severity::Error, "boom", t0()));
    t.push(Entry::assistant("", ReplyState::Streaming, t0()));
    let mut board = GoalBoard::default();
    board
        .apply(
            &GoalChange::SetGoal {
                description: "goal ".repeat(40),
                priority: Priority::Low,
            },
            Author::User,
            t0(),
        )
        .unwrap();
    let cps = vec![checkpoint(
        "- summary with a list\n\n```rust\nlet x = 1;\n```",
    )];
    let originals = vec![msg(1, Role::User, "hi"), msg(2, Role::Tool, "out")];
    let bindings = vec![("Ctrl+X".to_string(), "do it".to_string()); 30];
    let snaps: Vec<SnapshotMeta> = Vec::new();
    let models = vec![ModelEntry {
        name: "m".to_string(),
        size_bytes: Some(12_345_678),
        parameter_size: Some("1B".to_string()),
        context_length: Some(4096),
        capabilities: Vec::new(),
    }];
    let panel = PanelView {
        goals: &board,
        checkpoints: &cps,
        selected: Some(0),
        focused: true,
        now: t0(),
        params: None,
        status: None,
    };
    let overlays = [
        None,
        Some(Overlay::Help {
            bindings: &bindings,
            scroll: 0,
        }),
        Some(Overlay::Snapshots {
            items: &snaps,
            selected: 0,
            now: t0(),
            confirm_delete: false,
        }),
        Some(Overlay::Models {
            items: &models,
            selected: 0,
            current: "m",
            note: None,
            pull: None,
        }),
        Some(Overlay::Inspector {
            checkpoint: &cps[0],
            originals: &originals,
            scroll: 0,
        }),
        Some(Overlay::ResultInspector {
            id: ollm_tui::core::message::MessageId(9),
            tool: "read_file",
            seen: "[Shortened file: 20 of 9,000 characters]\nline 1",
            original: "line 1\nline 2\n",
            scroll: 0,
        }),
        Some(Overlay::Themes {
            names: vec!["dark", "light"],
            selected: 1,
            current: "dark",
            note: Some("NO_COLOR is set"),
        }),
    ];
    for banner in [
        None,
        Some(banner(Notice::ModelMissing {
            model: "m".into(),
            found: Found::Connecting,
        })),
    ] {
        parts.banner = banner;
        for (w, h) in [(120, 40), (50, 14), (30, 6)] {
            for overlay in overlays.clone() {
                let text = buffer_text(&parts.draw(&mut t, w, h, Some(panel), overlay.clone()));
                assert!(text.is_ascii(), "{w}x{h} {overlay:?}:\n{text}");
            }
        }
    }
}

#[test]
fn a_focused_panel_says_which_keys_it_takes_and_how_to_leave() {
    let parts = Parts::new();
    let board = GoalBoard::default();
    let cps = vec![checkpoint("we chose Postgres")];
    let panel = |focused| PanelView {
        goals: &board,
        checkpoints: &cps,
        selected: Some(0),
        focused,
        now: t0(),
        params: None,
        status: None,
    };
    let mut t = filled(2);
    let focused = buffer_text(&parts.draw(&mut t, 120, 30, Some(panel(true)), None));
    assert!(
        focused.contains("select · Enter inspect · Tab back"),
        "{focused}"
    );
    let unfocused = buffer_text(&parts.draw(&mut t, 120, 30, Some(panel(false)), None));
    assert!(!unfocused.contains("Tab back"), "{unfocused}");
}

#[test]
fn a_very_long_input_line_wraps_and_shows_its_end_where_typing_happens() {
    let mut parts = Parts::new();
    ollm_tui::ui::style_textarea(&mut parts.input, &parts.theme);
    // Past the textarea's 65,535 columns a single unwrapped line showed its start
    // forever; characters typed at its end never appeared.
    let long = "lorem ipsum ".repeat(90_000);
    parts.input.insert_str(&long);
    parts.input.move_cursor(tui_textarea::CursorMove::End);
    parts.input.insert_str("TYPED-HERE");
    let mut t = filled(2);
    let screen = buffer_text(&parts.draw(&mut t, 100, 30, None, None));
    assert!(screen.contains("TYPED-HERE"), "{screen}");
    // Wrapped, the input box shows several rows of the line, not one.
    let rows = screen.lines().filter(|l| l.contains("lorem ipsum")).count();
    assert!(rows >= 3, "{screen}");
}

#[test]
fn message_headers_show_the_number_pin_and_unpin_take() {
    let parts = Parts::new();
    let mut t = Transcript::new();
    t.push(Entry::from_message(&msg(12, Role::User, "which database?")));
    t.push(Entry::from_message(&msg(13, Role::Assistant, "Postgres.")));
    t.push(Entry::notice(
        Severity::Info,
        "a notice has no number",
        t0(),
    ));
    let screen = buffer_text(&parts.draw(&mut t, 80, 20, None, None));
    assert!(screen.contains("You #12  "), "{screen}");
    assert!(screen.contains("Assistant #13  "), "{screen}");
    assert!(!screen.contains("#14"), "{screen}");
    // The number comes right after the role, before a status.
    let mut t = Transcript::new();
    let mut cut = msg(15, Role::Assistant, "Post");
    cut.status = ReplyStatus::Interrupted;
    t.push(Entry::from_message(&cut));
    let screen = buffer_text(&parts.draw(&mut t, 80, 20, None, None));
    assert!(screen.contains("Assistant #15 · interrupted"), "{screen}");
}

#[test]
fn the_restore_picker_names_del_and_asks_before_deleting() {
    let parts = Parts::new();
    let snaps = vec![SnapshotMeta {
        id: "s1".to_string(),
        session_id: "s".to_string(),
        created: t0(),
        purpose: SnapshotPurpose::Rollback,
        label: Some("before refactor".to_string()),
        model: "m".to_string(),
        tier: Tier::T2,
        mode: Mode::Assistant,
        tokens: 100,
        message_count: 2,
        checkpoint_count: 0,
    }];
    let picker = |confirm_delete| Overlay::Snapshots {
        items: &snaps,
        selected: 0,
        now: t0(),
        confirm_delete,
    };
    let mut t = filled(2);
    let normal = buffer_text(&parts.draw(&mut t, 100, 20, None, Some(picker(false))));
    assert!(normal.contains("Del delete"), "{normal}");
    let asking = buffer_text(&parts.draw(&mut t, 100, 20, None, Some(picker(true))));
    assert!(
        asking.contains("Delete this snapshot? Del or y"),
        "{asking}"
    );
}

fn tool_entry(name: &str, args: serde_json::Value, result: &str, is_error: bool) -> Entry {
    Entry::new(
        EntryKind::Tool {
            name: name.to_string(),
            is_error,
            detail: ollm_tui::view::key_argument(&args.to_string()),
            args: args.to_string(),
            ms: Some(1234),
            original_chars: None,
            summarized: false,
        },
        result,
        t0(),
    )
}

#[test]
fn a_tool_call_is_one_line_until_details_unfold_it() {
    let mut parts = Parts::new();
    let mut t = Transcript::new();
    t.push(tool_entry(
        "run_command",
        serde_json::json!({"command": "cargo test", "timeout_secs": 30}),
        "running 3 tests\ntest a ... ok\nexit status 0",
        false,
    ));
    t.push(tool_entry(
        "read_file",
        serde_json::json!({"path": "secret.txt"}),
        "error: denied by the user\nmore detail here",
        true,
    ));
    let text = buffer_text(&parts.draw(&mut t, 80, 20, None, None));
    let line = text.lines().find(|l| l.contains("⚙ run_command")).unwrap();
    assert!(line.contains("cargo test"), "{line}");
    assert!(line.contains('✓') && line.contains("1.2s"), "{line}");
    assert!(
        !text.contains("running 3 tests"),
        "the result is folded:\n{text}"
    );
    assert!(!text.contains("timeout_secs"), "{text}");
    // A failure says why in one line, folded.
    let failed = text.lines().find(|l| l.contains("⚙ read_file")).unwrap();
    assert!(failed.contains('✗'), "{failed}");
    assert!(text.contains("error: denied by the user"), "{text}");
    assert!(!text.contains("more detail here"), "{text}");

    parts.details = true;
    let text = buffer_text(&parts.draw(&mut t, 80, 20, None, None));
    assert!(text.contains("command: cargo test"), "{text}");
    assert!(text.contains("timeout_secs: 30"), "{text}");
    assert!(
        text.contains("running 3 tests") && text.contains("exit status 0"),
        "{text}"
    );
    assert!(text.contains("more detail here"), "{text}");
}

#[test]
fn reasoning_is_a_folded_line_above_the_answer_until_details_unfold_it() {
    let mut parts = Parts::new();
    let mut t = Transcript::new();
    t.push(Entry::user("why?", t0()));
    t.push(Entry::assistant("", ReplyState::Streaming, t0()));
    t.append_thinking("Let me weigh");
    t.append_thinking(" the options");
    let text = buffer_text(&parts.draw(&mut t, 80, 20, None, None));
    assert!(text.contains("▸ thinking · 5 words"), "{text}");
    assert!(!text.contains("Let me weigh"), "{text}");
    t.append_delta("Because it is.");
    t.finish_streaming(ReplyState::Complete);
    let text = buffer_text(&parts.draw(&mut t, 80, 20, None, None));
    let folded = text.lines().position(|l| l.contains("▸ thought · 5 words"));
    let answer = text.lines().position(|l| l.contains("Because it is."));
    assert!(
        folded.is_some() && folded < answer,
        "reasoning above the answer:\n{text}"
    );

    parts.details = true;
    let text = buffer_text(&parts.draw(&mut t, 80, 20, None, None));
    assert!(text.contains("Let me weigh the options"), "{text}");
    assert!(text.contains("Because it is."), "{text}");
}

#[test]
fn a_shortened_result_says_what_the_model_kept_and_how_to_get_the_rest() {
    let parts = Parts::new();
    let mut t = Transcript::new();
    let mut e = tool_entry(
        "read_file",
        serde_json::json!({"path": "big.rs"}),
        &"x".repeat(2100),
        false,
    );
    e.id = Some(ollm_tui::core::message::MessageId(7));
    if let EntryKind::Tool { original_chars, .. } = &mut e.kind {
        *original_chars = Some(48_000);
    }
    t.push(e);
    t.push(tool_entry(
        "read_file",
        serde_json::json!({"path": "small.rs"}),
        "short",
        false,
    ));
    let text = buffer_text(&parts.draw(&mut t, 120, 20, None, None));
    let line = text.lines().find(|l| l.contains("big.rs")).unwrap();
    assert!(
        line.contains("kept 2.1K of 48.0K chars · recall #7"),
        "{line}"
    );
    let small = text.lines().find(|l| l.contains("small.rs")).unwrap();
    assert!(!small.contains("kept"), "{small}");

    // The model's own notes on a huge result say so, not "kept".
    let mut t = Transcript::new();
    let mut e = tool_entry(
        "run_command",
        serde_json::json!({"command": "make"}),
        "[Summarized command output: …]",
        false,
    );
    e.id = Some(ollm_tui::core::message::MessageId(9));
    if let EntryKind::Tool {
        original_chars,
        summarized,
        ..
    } = &mut e.kind
    {
        *original_chars = Some(30_000);
        *summarized = true;
    }
    t.push(e);
    let text = buffer_text(&parts.draw(&mut t, 120, 20, None, None));
    let line = text.lines().find(|l| l.contains("make")).unwrap();
    assert!(line.contains("notes on 30.0K chars · recall #9"), "{line}");
    assert!(!line.contains("kept"), "{line}");
}

#[test]
fn the_result_inspector_shows_what_the_model_saw_beside_the_whole() {
    let parts = Parts::new();
    let mut t = Transcript::new();
    let original: String = (1..=3000).map(|i| format!("whole line {i}\n")).collect();
    let overlay = Overlay::ResultInspector {
        id: ollm_tui::core::message::MessageId(9),
        tool: "read_file",
        seen: "[Shortened file: 30 of 40,893 characters]\nwhole line 1",
        original: &original,
        scroll: 0,
    };
    let text = buffer_text(&parts.draw(&mut t, 120, 30, None, Some(overlay.clone())));
    assert!(text.contains("read_file #9"), "{text}");
    assert!(
        text.contains("What the model saw") && text.contains("The whole result"),
        "{text}"
    );
    assert!(text.contains("[Shortened file:"), "{text}");
    assert!(
        text.contains("whole line 2"),
        "the original's lines:\n{text}"
    );
    // Narrow: one column below the other.
    let text = buffer_text(&parts.draw(&mut t, 50, 30, None, Some(overlay)));
    assert!(text.contains("What the model saw"), "{text}");
}

#[test]
fn messages_typed_ahead_show_as_queued_under_the_transcript() {
    let mut parts = Parts::new();
    let mut t = Transcript::new();
    t.push(tool_entry(
        "read_file",
        serde_json::json!({"path": "a.rs"}),
        "x",
        false,
    ));
    parts.queued = vec!["and then the tests?\nsecond line".into(), "one more".into()];
    let text = buffer_text(&parts.draw(&mut t, 80, 20, None, None));
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("queued")).collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].contains("and then the tests?"), "{text}");
    assert!(lines[0].contains("Esc takes it back"), "{text}");
    assert!(!text.contains("second line"), "one line each:\n{text}");
    assert!(lines[1].contains("one more"), "{text}");
    // More than three: the last row counts the rest.
    parts.queued = (1..=5).map(|i| format!("message {i}")).collect();
    let text = buffer_text(&parts.draw(&mut t, 80, 20, None, None));
    assert!(text.contains("queued (+2 more)"), "{text}");
    assert!(!text.contains("message 4"), "{text}");
    // Nothing queued: no such line.
    parts.queued.clear();
    let text = buffer_text(&parts.draw(&mut t, 80, 20, None, None));
    assert!(!text.contains("queued"), "{text}");
}

fn session_row(id: &str, title: &str, current: bool) -> ollm_tui::ui::SessionRow {
    ollm_tui::ui::SessionRow {
        id: id.into(),
        title: Some(title.into()),
        model: "llama3.2:3b".into(),
        last_activity: Utc.timestamp_opt(1_790_000_000, 0).unwrap(),
        messages: 1234,
        compressions: 3,
        size_bytes: 48_000,
        current,
        parent: None,
        problem: None,
    }
}

#[test]
fn the_session_browser_lists_filter_counts_and_asks_before_deleting() {
    let parts = Parts::new();
    let mut t = Transcript::new();
    let now = Utc.timestamp_opt(1_790_000_600, 0).unwrap();
    let rows = vec![
        session_row("aaaa1111", "Infra notes for the shop", true),
        session_row("bbbb2222", "Plan the Q3 migration", false),
    ];
    let overlay = Overlay::Sessions {
        rows: Some(rows.clone()),
        total: 5,
        selected: 1,
        filter: "q3",
        prompt: ollm_tui::ui::BrowserPrompt::None,
        note: None,
        now,
    };
    let text = buffer_text(&parts.draw(&mut t, 120, 20, None, Some(overlay)));
    assert!(text.contains("Filter: q3"), "{text}");
    assert!(text.contains("2 of 5"), "{text}");
    assert!(
        text.contains("● Infra notes for the shop"),
        "the current one is marked:\n{text}"
    );
    let row = text.lines().find(|l| l.contains("Plan the Q3")).unwrap();
    assert!(
        row.contains("1,234") && row.contains("10m") && row.contains("llama3.2:3b"),
        "{row}"
    );
    assert!(text.contains("F2 rename"), "{text}");
    // Deleting asks; renaming shows the title as typed.
    let overlay = Overlay::Sessions {
        rows: Some(rows.clone()),
        total: 2,
        selected: 1,
        filter: "",
        prompt: ollm_tui::ui::BrowserPrompt::ConfirmDelete,
        note: Some("Moved to /d/trash/x."),
        now,
    };
    let text = buffer_text(&parts.draw(&mut t, 120, 20, None, Some(overlay)));
    assert!(
        text.contains("Move this session to the trash? y or Del"),
        "{text}"
    );
    assert!(text.contains("Moved to /d/trash/x."), "{text}");
    let overlay = Overlay::Sessions {
        rows: Some(rows.clone()),
        total: 2,
        selected: 1,
        filter: "",
        prompt: ollm_tui::ui::BrowserPrompt::Rename("Q3 plan", 80),
        note: None,
        now,
    };
    let text = buffer_text(&parts.draw(&mut t, 120, 20, None, Some(overlay)));
    assert!(text.contains("New title: Q3 plan▏  7/80"), "{text}");
    // A title at its limit: the count says so, and in a narrow window the end of what is
    // typed stays in sight.
    let long = format!("{}END", "x".repeat(77));
    let overlay = Overlay::Sessions {
        rows: Some(rows.clone()),
        total: 2,
        selected: 1,
        filter: "",
        prompt: ollm_tui::ui::BrowserPrompt::Rename(&long, 80),
        note: Some("Titles are at most 80 characters: the rest is not taken."),
        now,
    };
    let text = buffer_text(&parts.draw(&mut t, 60, 20, None, Some(overlay)));
    assert!(text.contains("END▏  80/80"), "{text}");
    assert!(text.contains("New title: …x"), "{text}");
    // Loading, and nothing matching.
    let overlay = Overlay::Sessions {
        rows: Some(Vec::new()),
        total: 2,
        selected: 0,
        filter: "zzz",
        prompt: ollm_tui::ui::BrowserPrompt::None,
        note: None,
        now,
    };
    let text = buffer_text(&parts.draw(&mut t, 120, 20, None, Some(overlay)));
    assert!(text.contains("No session matches the filter."), "{text}");
}

#[test]
fn search_hits_show_under_their_session_with_the_match_marked() {
    let parts = Parts::new();
    let mut t = Transcript::new();
    let hit = |id: &str, heading: Option<&str>, seq: u64| ollm_tui::ui::SearchRow {
        session_id: id.into(),
        heading: heading.map(str::to_string),
        seq,
        ts: Utc.timestamp_opt(1_790_000_000, 0).unwrap(),
        role: "user",
        snippet: "…our cache service (Redis) listens on port 6379.".into(),
        matched: 22..27,
    };
    let overlay = Overlay::Search {
        query: "redis",
        rows: Some(vec![
            hit("aaaa1111-x", Some("Infra notes"), 3),
            hit("aaaa1111-x", None, 9),
            hit("bbbb2222-y", Some("Other"), 4),
        ]),
        selected: 2,
        note: None,
    };
    let buf = parts.draw(&mut t, 110, 20, None, Some(overlay));
    let text = buffer_text(&buf);
    assert!(text.contains("Search: redis"), "{text}");
    assert!(text.contains("3 hits"), "{text}");
    assert!(text.contains("aaaa1111  Infra notes"), "{text}");
    assert!(text.contains("#3 "), "{text}");
    assert!(text.contains("#9 "), "{text}");
    let row = text.lines().find(|l| l.contains("#4 ")).unwrap();
    assert!(row.contains("listens on port 6379"), "{row}");
    // The match itself is drawn reversed.
    let y = text.lines().position(|l| l.contains("#4 ")).unwrap() as u16;
    let x = text
        .lines()
        .nth(y as usize)
        .unwrap()
        .chars()
        .position(|c| c == 'R')
        .unwrap() as u16;
    assert!(
        buf[(x, y)]
            .modifier
            .contains(ratatui::style::Modifier::REVERSED)
    );
    let overlay = Overlay::Search {
        query: "nothing",
        rows: Some(Vec::new()),
        selected: 0,
        note: None,
    };
    let text = buffer_text(&parts.draw(&mut t, 110, 20, None, Some(overlay)));
    assert!(
        text.contains("No message in any session holds it."),
        "{text}"
    );
}

/// #37 item 4: the badge counts the person's facts the request no longer carries; the
/// panel names them, so "14/16 facts" is not a riddle.
#[test]
fn the_panel_names_the_facts_the_request_no_longer_carries() {
    use ollm_tui::core::summarizer::doubles::Extractive;
    use ollm_tui::core::testing::Harness;
    let mut h = Harness::new(
        2048,
        std::sync::Arc::new(ollm_tui::core::tokens::ByteEstimate),
        Extractive::new(),
    );
    h.state_locker_codes(250);
    let status = h.engine.status();
    let r = status.reliability;
    assert!(!status.facts_missing.is_empty(), "{r:?}");
    assert_eq!(status.facts_missing.len(), r.stated - r.carried);
    let board = GoalBoard::default();
    let panel = PanelView {
        goals: &board,
        checkpoints: &[],
        selected: None,
        focused: false,
        now: t0(),
        params: None,
        status: Some(&status),
    };
    let parts = Parts::new();
    let mut t = Transcript::new();
    let text = buffer_text(&parts.draw(&mut t, 160, 80, Some(panel), None));
    assert!(text.contains("not sent:"), "{text}");
    let first = &status.facts_missing[0];
    let code = first.rsplit(' ').next().unwrap().trim_end_matches('.');
    assert!(text.contains(code), "{first} not named:\n{text}");
}

/// #37 item 6: at 120 columns the goal half got 60% of the panel at most, so a long
/// decision under a few steps was cut short ("… orders move to Postgres …") while the
/// checkpoint list kept rows it could scroll. The board is read whole; the list keeps its
/// title and a row, and says how many it shows.
#[test]
fn a_long_decision_is_shown_whole_in_the_panel_at_120_columns() {
    use ollm_tui::core::goals::StepStatus;
    let mut board = GoalBoard::default();
    let mut change = |c: GoalChange| board.apply(&c, Author::User, t0()).unwrap();
    change(GoalChange::SetGoal {
        description: "Move the order service from Redis caching to Postgres materialized \
                      views without downtime"
            .into(),
        priority: Priority::High,
    });
    for step in [
        "Measure the cache hit rate on the production replica for a week",
        "Write the materialized views and their refresh job",
        "Switch reads over behind a flag",
    ] {
        change(GoalChange::Checkpoint {
            description: step.into(),
            status: StepStatus::Pending,
        });
    }
    let long = "We keep Redis for sessions only; orders move to Postgres materialized views \
                refreshed every 30 seconds, and the cache keys go away with the last reader";
    change(GoalChange::Decision {
        text: long.into(),
        locked: true,
    });
    change(GoalChange::Decision {
        text: "The payment client retries twice with backoff, then gives up loudly".into(),
        locked: false,
    });
    let cps: Vec<Checkpoint> = (0..6).map(|i| checkpoint(&format!("fold {i}"))).collect();
    let panel = PanelView {
        goals: &board,
        checkpoints: &cps,
        selected: None,
        focused: false,
        now: t0(),
        params: None,
        status: None,
    };
    let parts = Parts::new();
    let mut t = filled(4);
    let text = buffer_text(&parts.draw(&mut t, 120, 30, Some(panel), None));
    // The panel's column, its rows joined: the decision wrapped over several of them.
    let column: String = text
        .lines()
        .filter_map(|l| {
            let start = l.char_indices().nth(80)?.0;
            Some(l[start..].trim_matches(|c: char| c == '│' || c.is_whitespace()))
        })
        .collect::<Vec<_>>()
        .join(" ");
    let words: Vec<&str> = long.split_whitespace().collect();
    assert!(
        column.contains(&words.join(" ")),
        "the decision is cut:\n{text}"
    );
    assert!(column.contains("gives up loudly"), "{text}");
    assert!(
        column.contains("shown)"),
        "the list says it shows fewer:\n{text}"
    );
}

/// `/theme` (#37 item 3): the picker's preview is the whole screen drawn in the selected
/// theme — the transcript, the box, the status line — not a sample inside the popup.
#[test]
fn the_theme_picker_shows_the_whole_screen_in_the_selected_theme() {
    let names = vec!["dark", "light", "high-contrast"];
    let frame = |name: &str, selected: usize, note: Option<&str>| {
        let mut parts = Parts::new();
        parts.theme = Theme::load(name, None, false).unwrap();
        let mut t = filled(4);
        let overlay = Overlay::Themes {
            names: names.clone(),
            selected,
            current: "dark",
            note,
        };
        parts.draw(&mut t, 100, 30, None, Some(overlay))
    };
    let dark = frame("dark", 0, None);
    let light = frame("light", 1, None);
    let text = buffer_text(&light);
    assert!(
        text.contains("Theme") && text.contains("Enter keep") && text.contains("Esc back"),
        "{text}"
    );
    for name in &names {
        assert!(text.contains(name), "{name} listed:\n{text}");
    }
    // Outside the popup (its rows are the middle ones) the text is the same, its colours not.
    let outside = |y: u16| !(8..=22).contains(&y);
    let mut differ = 0;
    for y in (0..30).filter(|y| outside(*y)) {
        for x in 0..100 {
            assert_eq!(dark[(x, y)].symbol(), light[(x, y)].symbol(), "({x},{y})");
            if dark[(x, y)].style() != light[(x, y)].style() {
                differ += 1;
            }
        }
    }
    assert!(differ > 100, "only {differ} cells changed colour");
    let status = |b: &Buffer| b[(1, 29)].style();
    assert_ne!(status(&dark), status(&light), "the status line too");
    let noted = buffer_text(&frame("dark", 2, Some("NO_COLOR is set: no colours")));
    assert!(noted.contains("NO_COLOR is set"), "{noted}");
}
