#![allow(clippy::unwrap_used)]
//! syntect's definitions are decoded on the first code block, not at startup: a screen
//! without code must not pay for them. Its own test binary, so no other test has loaded
//! them first.

use chrono::{FixedOffset, TimeZone, Utc};
use ollm_tui::core::mode::{Mode, Tier};
use ollm_tui::ui::{
    GaugeView, StatusView, Theme, Transcript, UiView, render_buffer, syntax_assets_loaded,
};
use ollm_tui::view::{Activity, Connection, Entry, ReplyState};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use tui_textarea::TextArea;

fn draw(t: &mut Transcript, theme: &Theme) {
    let input = TextArea::default();
    let area = Rect::new(0, 0, 80, 24);
    let mut buf = Buffer::empty(area);
    let mut view = UiView {
        transcript: t,
        input: &input,
        input_note: None,
        status: StatusView {
            model: "m".to_string(),
            connection: Connection::Connecting,
            gauge: GaugeView::default(),
            compressions: 0,
            reliability: None,
            activity: Activity::Idle,
            background: None,
            elapsed_ms: 0,
            mode: Mode::Assistant,
            tier: Tier::T1,
            spinner_frame: 0,
            tools_note: None,
            pull: None,
            mouse: None,
        },
        panel: None,
        overlay: None,
        banner: None,
        theme,
        ascii: false,
        utc_offset: FixedOffset::east_opt(0).unwrap(),
        details: false,
        queued: &[],
        attached: Vec::new(),
        image_cost: None,
        thumbnails: None,
    };
    render_buffer(area, &mut buf, &mut view);
}

#[test]
fn syntax_definitions_load_on_the_first_code_block() {
    let ts = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    let theme = Theme::load("dark", None, false).unwrap();
    let mut t = Transcript::new();
    draw(&mut t, &theme);
    t.push(Entry::user("hello", ts));
    t.push(Entry::assistant(
        "plain *markdown*, `inline code`",
        ReplyState::Complete,
        ts,
    ));
    draw(&mut t, &theme);
    assert!(!syntax_assets_loaded(), "loaded without any code block");
    t.push(Entry::assistant(
        "```rust\nfn main() {}\n```",
        ReplyState::Complete,
        ts,
    ));
    draw(&mut t, &theme);
    assert!(syntax_assets_loaded());
}
