#![allow(clippy::unwrap_used)]
//! Frame render time of a long transcript: 10,000 messages at 120×40.
//!
//! - `warm_frame`: the cache holds the visible entries (the common case: a redraw for a
//!   spinner tick or a status change). Goal: < 2 ms.
//! - `cold_first_frame`: a freshly loaded session, nothing cached.
//! - `resize_frame`: the width changes every frame, so every visible entry re-renders.
//! - `streaming_frame`: a reply grows by a delta per frame (stable prefix cached).
//! - `streaming_code_frame`: the reply is one code block growing to 400 lines.
//! - `terminal_draw_warm`: `Terminal::draw` on a TestBackend (adds ratatui's diff).
//! - `streaming_frame_long_reply`: as `streaming_frame`, but the reply is already ~1 MB
//!   long: a frame must cost about what it costs for a short reply (only the newest
//!   block is redone), so CPU per chunk stays flat as a reply grows.
//! - `input_1mib_lines` / `input_1mib_one_line`: a frame while the message box holds a
//!   1 MiB paste (the paste cap), as 20,000 lines or one line.
//! - `keystroke_1mib_in_box` / `keystroke_folded_paste`: a key typed (and taken back)
//!   plus its frame, with 1 MiB in the textarea itself vs the same paste folded to a
//!   marker as the app does. Goal for the folded case: < 5 ms.

use chrono::{FixedOffset, TimeZone, Utc};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ollm_tui::core::mode::{Mode, Tier};
use ollm_tui::core::reliability::Reliability;
use ollm_tui::ui::{GaugeView, StatusView, Theme, Transcript, UiView, render, render_buffer};
use ollm_tui::view::{Activity, Connection, Entry, ReplyState};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::hint::black_box;
use std::time::{Duration, Instant};
use tui_textarea::TextArea;

const MESSAGES: usize = 10_000;

fn entries() -> Vec<Entry> {
    let ts = Utc.with_ymd_and_hms(2025, 1, 15, 14, 0, 0).unwrap();
    (0..MESSAGES)
        .map(|i| {
            if i % 2 == 0 {
                Entry::user(
                    format!("Question {i}: how should the loader treat unknown keys in section {i}? Keep it short."),
                    ts,
                )
            } else if i % 10 == 1 {
                Entry::assistant(
                    format!(
                        "Here is a sketch for **case {i}**:\n\n```rust\nfn load(path: &Path) -> Result<Config, Error> {{\n    let text = fs::read_to_string(path)?;\n    toml::from_str(&text).map_err(Error::from)\n}}\n```\n\nIt returns a typed error naming the file."
                    ),
                    ReplyState::Complete,
                    ts,
                )
            } else {
                Entry::assistant(
                    format!(
                        "Answer {i}. Unknown keys should be **errors**, not warnings:\n\n\
                         1. parse into a table first;\n2. compare against the known keys;\n\
                         3. report the file and the key, e.g. `styles.usr`.\n\n\
                         > A typo that is silently ignored costs more than a startup error.\n\n\
                         See [the toml docs](https://docs.rs/toml) for the table API."
                    ),
                    ReplyState::Complete,
                    ts,
                )
            }
        })
        .collect()
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
        reliability: Some(Reliability::measure(2, 9, 10)),
        activity: Activity::Generating {
            since: std::time::Instant::now(),
            chunks: 120,
        },
        background: None,
        elapsed_ms: 3_000,
        mode: Mode::Developer,
        tier: Tier::T3,
        spinner_frame: 0,
        tools_note: None,
        pull: None,
        mouse: None,
    }
}

struct Fixed {
    input: TextArea<'static>,
    theme: Theme,
    status: StatusView,
}

fn frame(fx: &Fixed, t: &mut Transcript, buf: &mut Buffer, width: u16) {
    let area = Rect::new(0, 0, width, 40);
    buf.resize(area);
    let mut view = UiView {
        transcript: t,
        input: &fx.input,
        input_note: None,
        status: fx.status.clone(),
        panel: None,
        overlay: None,
        banner: None,
        theme: &fx.theme,
        ascii: false,
        utc_offset: FixedOffset::east_opt(0).unwrap(),
        details: false,
        queued: &[],
        attached: Vec::new(),
        image_cost: None,
        thumbnails: None,
    };
    render_buffer(area, buf, &mut view);
}

fn bench_render(c: &mut Criterion) {
    let fx = Fixed {
        input: TextArea::default(),
        theme: Theme::default(),
        status: status(),
    };
    let all = entries();
    let mut buf = Buffer::empty(Rect::new(0, 0, 120, 40));

    // One-off cost, reported once: decoding syntect's definitions on the first code block.
    let mut t = Transcript::new();
    t.replace_all(all.clone());
    let ts = Utc.with_ymd_and_hms(2025, 1, 15, 14, 0, 0).unwrap();
    t.push(Entry::assistant(
        "```rust\nfn main() {}\n```",
        ReplyState::Complete,
        ts,
    ));
    let start = Instant::now();
    frame(&fx, &mut t, &mut buf, 120);
    eprintln!(
        "first frame with a code block, incl. syntect load: {:?}",
        start.elapsed()
    );
    let mut t = Transcript::new();
    t.replace_all(all.clone());
    let start = Instant::now();
    frame(&fx, &mut t, &mut buf, 120);
    eprintln!(
        "first frame of the 10k transcript, syntect loaded: {:?}",
        start.elapsed()
    );

    let mut group = c.benchmark_group("render_10k");
    group.measurement_time(Duration::from_secs(4));

    group.bench_function("warm_frame", |b| {
        let mut t = Transcript::new();
        t.replace_all(all.clone());
        frame(&fx, &mut t, &mut buf, 120);
        b.iter(|| {
            frame(&fx, &mut t, &mut buf, 120);
            black_box(&buf);
        });
    });

    group.bench_function("cold_first_frame", |b| {
        b.iter_batched(
            || {
                let mut t = Transcript::new();
                t.replace_all(all.clone());
                t
            },
            |mut t| {
                frame(&fx, &mut t, &mut buf, 120);
                t
            },
            BatchSize::LargeInput,
        );
    });

    group.bench_function("resize_frame", |b| {
        let mut t = Transcript::new();
        t.replace_all(all.clone());
        let mut w = 120u16;
        b.iter(|| {
            w = if w == 120 { 119 } else { 120 };
            frame(&fx, &mut t, &mut buf, w);
            black_box(&buf);
        });
    });

    group.bench_function("streaming_frame", |b| {
        let ts = Utc.with_ymd_and_hms(2025, 1, 15, 14, 0, 0).unwrap();
        let mut t = Transcript::new();
        t.replace_all(all.clone());
        let deltas = [
            "The loader ",
            "reads the file, ",
            "parses it as a table ",
            "and checks each key.\n\n",
            "- unknown keys ",
            "are errors\n",
            "- values are typed\n\n",
            "```rust\n",
            "let t: Table = ",
            "toml::from_str(&s)?;\n",
            "for (k, v) in &t {\n",
            "    check(k, v)?;\n",
            "}\n",
            "```\n\n",
            "That keeps ",
            "typos visible.\n\n",
        ];
        let mut n = 0u64;
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let i = n;
                n += 1;
                // A reply of ~200 deltas (~4 KB), then the next one.
                if i.is_multiple_of(200) {
                    t.finish_streaming(ReplyState::Complete);
                    t.push(Entry::assistant("", ReplyState::Streaming, ts));
                }
                t.append_delta(deltas[(i % deltas.len() as u64) as usize]);
                let start = Instant::now();
                frame(&fx, &mut t, &mut buf, 120);
                total += start.elapsed();
            }
            total
        });
    });

    group.bench_function("streaming_frame_long_reply", |b| {
        let ts = Utc.with_ymd_and_hms(2025, 1, 15, 14, 0, 0).unwrap();
        let mut t = Transcript::new();
        t.replace_all(all.clone());
        let paragraph = "The loader reads the file, parses it as a table and checks each \
                         key; unknown keys are errors and values are typed.\n\n";
        t.push(Entry::assistant(
            paragraph.repeat(8_000),
            ReplyState::Streaming,
            ts,
        ));
        frame(&fx, &mut t, &mut buf, 120);
        let deltas = ["The loader ", "reads the file ", "and checks each key.\n\n"];
        let mut n = 0usize;
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                t.append_delta(deltas[n % deltas.len()]);
                n += 1;
                let start = Instant::now();
                frame(&fx, &mut t, &mut buf, 120);
                total += start.elapsed();
            }
            total
        });
    });

    group.bench_function("streaming_code_frame", |b| {
        // Worst case: the reply is one fenced block growing to 400 lines.
        let ts = Utc.with_ymd_and_hms(2025, 1, 15, 14, 0, 0).unwrap();
        let mut t = Transcript::new();
        t.replace_all(all.clone());
        let mut n = 0u64;
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let i = n;
                n += 1;
                if i.is_multiple_of(400) {
                    t.finish_streaming(ReplyState::Complete);
                    t.push(Entry::assistant("```rust\n", ReplyState::Streaming, ts));
                }
                t.append_delta(&format!(
                    "    let value_{i} = compute({i}, \"text\")?; // step {i}\n"
                ));
                let start = Instant::now();
                frame(&fx, &mut t, &mut buf, 120);
                total += start.elapsed();
            }
            total
        });
    });

    group.bench_function("terminal_draw_warm", |b| {
        let mut t = Transcript::new();
        t.replace_all(all.clone());
        let mut term = Terminal::new(TestBackend::new(120, 40)).unwrap();
        let mut spinner = 0usize;
        b.iter(|| {
            spinner += 1;
            let mut st = fx.status.clone();
            st.spinner_frame = spinner;
            let mut view = UiView {
                transcript: &mut t,
                input: &fx.input,
                input_note: None,
                status: st,
                panel: None,
                overlay: None,
                banner: None,
                theme: &fx.theme,
                ascii: false,
                utc_offset: FixedOffset::east_opt(0).unwrap(),
                details: false,
                queued: &[],
                attached: Vec::new(),
                image_cost: None,
                thumbnails: None,
            };
            term.draw(|f| render(f, &mut view)).unwrap();
        });
    });
    for (name, text) in [
        (
            "input_1mib_lines",
            "a pasted log line with some words in it, fifty-two\n".repeat(20_000),
        ),
        ("input_1mib_one_line", "word ".repeat(210_000)),
    ] {
        let mut input = TextArea::from(text.lines());
        ollm_tui::ui::style_textarea(&mut input, &fx.theme);
        input.move_cursor(tui_textarea::CursorMove::Bottom);
        input.move_cursor(tui_textarea::CursorMove::End);
        let big = Fixed {
            input,
            theme: Theme::default(),
            status: status(),
        };
        group.bench_function(name, |b| {
            let mut t = Transcript::new();
            t.replace_all(all.clone());
            frame(&big, &mut t, &mut buf, 120);
            b.iter(|| {
                frame(&big, &mut t, &mut buf, 120);
                black_box(&buf);
            });
        });
    }
    // The in-box case costs ~0.25 s a key: a few samples say enough.
    group.sample_size(10);
    let paste = "a pasted log line with some words in it, fifty-two\n".repeat(20_000);
    for (name, text) in [
        ("keystroke_1mib_in_box", paste.clone()),
        (
            "keystroke_folded_paste",
            "why is this slow? [paste 1: 20,000 lines, 1.0 MiB] thanks".to_string(),
        ),
    ] {
        let mut input = TextArea::from(text.lines());
        ollm_tui::ui::style_textarea(&mut input, &fx.theme);
        input.move_cursor(tui_textarea::CursorMove::Bottom);
        input.move_cursor(tui_textarea::CursorMove::End);
        let mut typing = Fixed {
            input,
            theme: Theme::default(),
            status: status(),
        };
        let mut t = Transcript::new();
        t.replace_all(all.clone());
        frame(&typing, &mut t, &mut buf, 120);
        let mut n = 0u64;
        group.bench_function(name, |b| {
            b.iter(|| {
                // Type a letter, then take it back: the draft does not grow.
                if n.is_multiple_of(2) {
                    typing.input.insert_char('x');
                } else {
                    typing.input.delete_char();
                }
                n += 1;
                frame(&typing, &mut t, &mut buf, 120);
                black_box(&buf);
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench_render);
criterion_main!(benches);
