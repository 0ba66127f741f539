//! The app's state machine driven by key events, against a real actor whose server is
//! unreachable (commands queue; the tests look at the app's own state). This file holds
//! the harness and the key helpers; the tests are in a file per concern.
#![allow(clippy::unwrap_used)]

mod dialogs;
mod leaving;
mod transcript;
mod typing;

use super::keymap::Keymap;
use super::overlays::{OverlayState, Reply};
use super::{App, AppOptions};
use crate::actor::{self, ActorConfig, Inspection, Parts, StoreSlot};
use crate::core::checkpoint::Checkpoint;
use crate::core::checkpoint::{CheckpointId, Level};
use crate::core::engine::{Engine, EngineConfig, SessionSpec};
use crate::core::message::MessageId;
use crate::core::mode::Mode;
use crate::core::prompts::Prompts;
use crate::core::snapshot::SnapshotMeta;
use crate::core::tokens::ByteEstimate;
use crate::llm::{OllamaBackend, OllamaOptions};
use crate::store::MemoryStore;
use crate::ui::Theme;
use crate::view::{Activity, Entry, EntryKind, Update};
use chrono::Utc;
use crossterm::event::KeyEventState;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

struct Harness {
    app: App,
    _spawned: actor::Spawned<MemoryStore>,
}

fn harness_with(keys: &BTreeMap<String, String>) -> Harness {
    let engine = Engine::new(
        SessionSpec {
            session_id: "app-test".into(),
            model: "llama3.2:3b".into(),
            mode: Mode::Assistant,
            ctx: Some(4096),
            params: Default::default(),
        },
        EngineConfig::default(),
        Arc::new(ByteEstimate),
        Arc::new(Prompts::builtin()),
        Utc::now(),
    );
    let header = engine.header("test");
    // Port 9 (discard) refuses connections: the actor never gets a server.
    let url = "http://127.0.0.1:9";
    let spawned = actor::spawn(Parts {
        backend: OllamaBackend::new(url, OllamaOptions::default()).unwrap(),
        summary_backend: None,
        engine: Box::new(move || engine),
        store: StoreSlot::Open(MemoryStore::new(header)),
        config: ActorConfig {
            host: url.into(),
            reconnect_after: Duration::from_secs(3600),
            ..ActorConfig::default()
        },
        model: None,
    });
    let app = App::new(
        spawned.handle.clone(),
        spawned.view.clone(),
        AppOptions {
            keymap: Keymap::new(keys).unwrap(),
            theme: Theme::default(),
            no_color: false,
            ascii: false,
            paste_limit_bytes: 1 << 20,
            startup_banner: None,
            data_dir: None,
            start_at: None,
            config_temperature: None,
            mouse: true,
            thumbnails: None,
        },
    );
    Harness {
        app,
        _spawned: spawned,
    }
}

fn harness() -> Harness {
    harness_with(&BTreeMap::new())
}

fn press(app: &mut App, code: KeyCode, modifiers: KeyModifiers) {
    app.on_event(Event::Key(KeyEvent {
        code,
        modifiers,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    }));
}

fn key(app: &mut App, code: KeyCode) {
    press(app, code, KeyModifiers::NONE);
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        let mods = if c.is_uppercase() {
            KeyModifiers::SHIFT
        } else {
            KeyModifiers::NONE
        };
        press(app, KeyCode::Char(c), mods);
    }
}

fn input(app: &App) -> String {
    app.input.lines().join("\n")
}

fn checkpoint() -> Checkpoint {
    Checkpoint {
        id: CheckpointId(1),
        number: 1,
        level: Level::Detailed,
        summary: "We chose Postgres.".into(),
        tokens: 10,
        covers: vec![MessageId(1), MessageId(2)],
        original_tokens: 100,
        created_at: Utc::now(),
        aged_at: None,
        times_compressed: 0,
        truncated: false,
        key_decisions: vec![],
        files: vec![],
        next_steps: vec![],
        facts: vec![],
        summary_asked: false,
    }
}

fn open_inspector(app: &mut App) {
    app.overlay = Some(OverlayState::Inspector {
        checkpoint: checkpoint(),
        originals: vec![],
        scroll: 0,
    });
}

/// Ctrl+G, then Tab: the panel is shown and focused.
fn focus_panel(app: &mut App) {
    press(app, KeyCode::Char('g'), KeyModifiers::CONTROL);
    key(app, KeyCode::Tab);
    assert!(app.panel.shown() && app.panel.focused());
}
