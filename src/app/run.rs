//! The event loop: terminal events and actor updates in, commands out, frames drawn.
//!
//! Strategy (yazi, ratatui templates): draw only when something changed, and at most
//! [`FRAME_RATE_HZ`] times a second — stream deltas arriving faster are coalesced into one
//! frame. Idle means no timers at all (the spinner ticks only while the actor is busy), so
//! an idle session uses no CPU. The UI never blocks on the actor: commands go out with
//! `try_send`, answers (snapshot and model lists, checkpoint details) come back on
//! oneshots that are awaited by small tasks which wake the loop.

use super::keymap::{Action, Keymap};
use super::paste;
use super::slash::{self, HELP, Slash};
use super::words;
use crate::actor::{
    Activity as ActorActivity, Command, Connection as ActorConnection, Item, ItemKind, NoticeLevel,
    SessionHandle, SessionView, Update,
};
use crate::core::checkpoint::Checkpoint;
use crate::core::message::{Message, ReplyStatus};
use crate::core::sanitize::sanitize;
use crate::core::snapshot::SnapshotMeta;
use crate::llm::ModelSummary;
use crate::ui::{
    self, Activity, Banner, Connection, Entry, EntryKind, GaugeView, ModelEntry, Overlay,
    PanelView, ReplyState, Severity, StatusView, Theme, Transcript, UiView,
};
use chrono::{Local, Offset, Utc};
use crossterm::event::{
    Event, EventStream, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEventKind,
};
use futures_util::StreamExt;
use ratatui::DefaultTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};
use tui_textarea::TextArea;

/// Redraws per second at most; stream chunks arriving faster share a frame.
pub const FRAME_RATE_HZ: u64 = 60;
const FRAME: Duration = Duration::from_millis(1000 / FRAME_RATE_HZ);
/// Spinner speed while busy.
const SPINNER: Duration = Duration::from_millis(120);
/// Lines per mouse-wheel step.
const WHEEL_LINES: u16 = 3;
/// Shown on the input when Enter is pressed mid-reply; cleared when the reply ends.
const BUSY_NOTE: &str = "still replying: Esc stops it; your text stays here";
/// The same while a compression runs.
const COMPRESSING_NOTE: &str = "still compressing: Esc stops it; your text stays here";

/// What the app was started with.
pub struct AppOptions {
    pub keymap: Keymap,
    pub theme: Theme,
    pub ascii: bool,
    pub paste_limit_bytes: usize,
    /// Shown once at start (e.g. records skipped while loading).
    pub startup_banner: Option<Banner>,
}

/// Answers that arrive on oneshots.
enum Reply {
    Snapshots(Result<Vec<SnapshotMeta>, String>),
    Models(Result<Vec<ModelSummary>, String>),
    Inspect(Option<(Checkpoint, Vec<Message>)>),
}

enum OverlayState {
    Help {
        scroll: u16,
    },
    Snapshots {
        items: Vec<SnapshotMeta>,
        selected: usize,
        /// Del was pressed once; a second Del or `y` deletes. Any other key withdraws it.
        confirm_delete: bool,
    },
    Models {
        items: Vec<ModelEntry>,
        selected: usize,
        note: Option<String>,
    },
    Inspector {
        checkpoint: Checkpoint,
        originals: Vec<Message>,
        scroll: u16,
    },
}

pub struct App {
    handle: SessionHandle,
    view_rx: watch::Receiver<Arc<SessionView>>,
    session: Arc<SessionView>,
    transcript: Transcript,
    input: TextArea<'static>,
    input_note: Option<String>,
    opts: AppOptions,
    help_lines: Vec<(String, String)>,
    panel: bool,
    panel_focus: bool,
    panel_selected: Option<usize>,
    overlay: Option<OverlayState>,
    banner: Option<Banner>,
    spinner: usize,
    quit: bool,
    replies_tx: mpsc::UnboundedSender<Reply>,
    replies_rx: mpsc::UnboundedReceiver<Reply>,
    /// How notices name keys: the ones the keymap binds.
    keys: words::KeyNames,
}

fn severity(l: NoticeLevel) -> Severity {
    match l {
        NoticeLevel::Info => Severity::Info,
        NoticeLevel::Warn => Severity::Warn,
        NoticeLevel::Error => Severity::Error,
    }
}

fn thousands(n: u32) -> String {
    ui::text::thousands(u64::from(n))
}

/// A transcript entry for an actor item.
pub fn entry_of(item: Item) -> Entry {
    let kind = match item.kind {
        ItemKind::User => EntryKind::User,
        ItemKind::Assistant { status } => EntryKind::Assistant {
            state: match status {
                ReplyStatus::Complete => ReplyState::Complete,
                ReplyStatus::Interrupted => ReplyState::Interrupted,
            },
        },
        ItemKind::Tool { name, is_error } => EntryKind::Tool { name, is_error },
        ItemKind::Fold {
            checkpoint,
            messages,
            tokens_before,
            tokens_after,
        } => {
            return Entry {
                id: None,
                kind: EntryKind::Fold {
                    checkpoint,
                    messages,
                    tokens: tokens_after,
                    merged_into: None,
                },
                text: format!(
                    "{} → {} tokens",
                    thousands(tokens_before),
                    thousands(tokens_after)
                ),
                ts: item.ts,
                pinned: false,
                folded: None,
            };
        }
    };
    Entry {
        id: item.id,
        kind,
        text: item.text,
        ts: item.ts,
        pinned: item.pinned,
        folded: None,
    }
}

/// The status line's view of the session.
pub fn status_view(s: &SessionView, spinner: usize) -> StatusView {
    let b = &s.status.budget;
    StatusView {
        model: s.status.model.clone(),
        connection: match &s.connection {
            ActorConnection::Connected { .. } => Connection::Connected,
            ActorConnection::Connecting => Connection::Connecting,
            ActorConnection::Unreachable { url, .. } => {
                Connection::Unreachable { url: url.clone() }
            }
            ActorConnection::ModelMissing { model } => Connection::ModelMissing {
                model: model.clone(),
            },
            ActorConnection::NoModels => Connection::ModelMissing {
                model: "(none installed)".into(),
            },
        },
        gauge: GaugeView {
            used: b.total(),
            ctx: b.ctx,
            // Compression starts when the recent part reaches its trigger.
            trigger: b.total().saturating_sub(b.recent).saturating_add(b.trigger),
            reserve: b.reserve,
        },
        compressions: s.status.compressions,
        reliability: (!s.status.model.is_empty()).then_some(s.status.reliability),
        activity: match &s.activity {
            ActorActivity::Loading => Activity::Busy {
                text: "loading the session…".into(),
            },
            ActorActivity::Idle if s.connection == ActorConnection::Connecting => Activity::Busy {
                text: "connecting…".into(),
            },
            ActorActivity::Idle => Activity::Idle,
            ActorActivity::Generating { since, chunks } => Activity::Generating {
                tokens: *chunks,
                elapsed_ms: since.elapsed().as_millis() as u64,
            },
            ActorActivity::Compressing { what, .. } => Activity::Compressing {
                stage: what.clone(),
            },
        },
        mode: s.status.mode,
        tier: s.status.tier,
        spinner_frame: spinner,
    }
}

fn model_entry(m: &ModelSummary) -> ModelEntry {
    ModelEntry {
        name: m.name.clone(),
        size_bytes: Some(m.size_bytes),
        parameter_size: m.parameter_size.clone(),
        context_length: m.context_length,
    }
}

/// A key that types a character (Shift allowed; Ctrl and Alt make it a command).
fn is_text(k: &KeyEvent) -> bool {
    matches!(k.code, KeyCode::Char(_))
        && !k
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

/// A key that edits or moves within the input text.
fn edits_input(k: &KeyEvent) -> bool {
    is_text(k)
        || matches!(
            k.code,
            KeyCode::Backspace | KeyCode::Delete | KeyCode::Left | KeyCode::Right
        )
}

/// Cut a paste at `limit` bytes on a char boundary.
fn cap_paste(text: &str, limit: usize) -> (&str, bool) {
    if text.len() <= limit {
        return (text, false);
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

impl App {
    pub fn new(
        handle: SessionHandle,
        view_rx: watch::Receiver<Arc<SessionView>>,
        opts: AppOptions,
    ) -> App {
        let mut input = TextArea::default();
        ui::style_textarea(&mut input, &opts.theme);
        let mut help_lines = opts.keymap.help();
        help_lines.push(("? (empty input)".into(), "this help".into()));
        for (k, v) in [
            (
                "Tab",
                "focus the goal panel (when shown); Tab or Esc gives focus back, typing too",
            ),
            (
                "Enter (panel)",
                "open the selected checkpoint beside its original messages",
            ),
            (
                "Del (restore picker)",
                "delete the selected snapshot (asks: Del again or y)",
            ),
            (
                "mouse wheel",
                "scroll the transcript, or the open help or inspector",
            ),
            ("//text", "send text that starts with / as a message"),
        ] {
            help_lines.push((k.into(), v.into()));
        }
        help_lines.extend(HELP.iter().map(|(cmd, what, key)| {
            let key = key.and_then(|a| opts.keymap.label(a));
            let what = match key {
                Some(k) => format!("{what} ({k})"),
                None => what.to_string(),
            };
            (cmd.to_string(), what)
        }));
        let (replies_tx, replies_rx) = mpsc::unbounded_channel();
        let session = view_rx.borrow().clone();
        let keys = words::KeyNames::from_keymap(&opts.keymap);
        App {
            keys,
            handle,
            view_rx,
            session,
            transcript: Transcript::new(),
            input,
            input_note: None,
            banner: opts.startup_banner.clone(),
            opts,
            help_lines,
            panel: false,
            panel_focus: false,
            panel_selected: None,
            overlay: None,
            spinner: 0,
            quit: false,
            replies_tx,
            replies_rx,
        }
    }

    fn busy(&self) -> bool {
        !matches!(self.session.activity, ActorActivity::Idle)
            || self.session.connection == ActorConnection::Connecting
    }

    fn generating(&self) -> bool {
        matches!(
            self.session.activity,
            ActorActivity::Generating { .. } | ActorActivity::Compressing { .. }
        )
    }

    fn command(&mut self, c: Command) {
        if self.handle.try_send(c).is_err() {
            let quit = self.key_or(Action::Quit, "/quit");
            self.banner = Some(Banner::new(
                Severity::Error,
                "The session is not responding",
                format!(
                    "Your input is kept; try again in a moment, or quit with {quit} (everything sent so far is saved)."
                ),
            ));
        }
    }

    fn quit_note(&self) -> String {
        format!(
            "unsent text: {} again quits and discards it",
            self.key_or(Action::Quit, "/quit")
        )
    }

    /// How a hint names `action`: the key bound to it, else `fallback` (a command).
    fn key_or(&self, action: Action, fallback: &str) -> String {
        self.opts
            .keymap
            .label(action)
            .unwrap_or_else(|| fallback.to_string())
    }

    fn info(&mut self, text: impl Into<String>) {
        self.transcript
            .push(Entry::notice(Severity::Info, text.into(), Utc::now()));
    }

    /// Ask the actor and route the answer back into the loop.
    fn ask<T: Send + 'static>(
        &mut self,
        make: impl FnOnce(tokio::sync::oneshot::Sender<T>) -> Command,
        wrap: fn(T) -> Reply,
    ) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.command(make(tx));
        let back = self.replies_tx.clone();
        tokio::spawn(async move {
            if let Ok(v) = rx.await {
                let _ = back.send(wrap(v));
            }
        });
    }

    fn draw(&mut self, terminal: &mut DefaultTerminal) -> std::io::Result<()> {
        // The actor publishes the view before sending the updates that follow from it, so
        // the freshest view is never older than the transcript drawn with it.
        self.sync_session();
        let status = status_view(&self.session, self.spinner);
        let now = Utc::now();
        let session = self.session.clone();
        let overlay = match &self.overlay {
            None => None,
            Some(OverlayState::Help { scroll }) => Some(Overlay::Help {
                bindings: &self.help_lines,
                scroll: *scroll,
            }),
            Some(OverlayState::Snapshots {
                items,
                selected,
                confirm_delete,
            }) => Some(Overlay::Snapshots {
                items,
                selected: *selected,
                now,
                confirm_delete: *confirm_delete,
            }),
            Some(OverlayState::Models {
                items,
                selected,
                note,
            }) => Some(Overlay::Models {
                items,
                selected: *selected,
                current: &session.status.model,
                note: note.as_deref(),
            }),
            Some(OverlayState::Inspector {
                checkpoint,
                originals,
                scroll,
            }) => Some(Overlay::Inspector {
                checkpoint,
                originals,
                scroll: *scroll,
            }),
        };
        let panel = self.panel.then(|| PanelView {
            goals: &session.goals,
            checkpoints: &session.checkpoints,
            selected: self.panel_selected,
            focused: self.panel_focus,
            now,
        });
        let mut view = UiView {
            transcript: &mut self.transcript,
            input: &self.input,
            input_note: self.input_note.clone(),
            status,
            panel,
            overlay,
            banner: self.banner.clone(),
            theme: &self.opts.theme,
            ascii: self.opts.ascii,
            utc_offset: Local::now().offset().fix(),
        };
        terminal.draw(|f| ui::render(f, &mut view))?;
        Ok(())
    }

    /// Run until the user quits, the actor stops, or a signal asks us to end.
    pub async fn run(
        mut self,
        terminal: &mut DefaultTerminal,
        mut updates: mpsc::UnboundedReceiver<Update>,
    ) -> std::io::Result<()> {
        let mut events = EventStream::new();
        let mut sigterm =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        let mut sighup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;
        let mut dirty = true;
        let mut last_draw: Option<Instant> = None;
        let mut spinner = tokio::time::interval(SPINNER);
        spinner.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        while !self.quit {
            if dirty && last_draw.is_none_or(|t| t.elapsed() >= FRAME) {
                self.draw(terminal)?;
                last_draw = Some(Instant::now());
                dirty = false;
            }
            let next_frame = last_draw.map(|t| tokio::time::Instant::from_std(t + FRAME));
            let busy = self.busy();
            tokio::select! {
                ev = events.next() => match ev {
                    Some(Ok(e)) => {
                        self.on_event(e);
                        dirty = true;
                    }
                    Some(Err(e)) => return Err(e),
                    None => break,
                },
                u = updates.recv() => match u {
                    Some(u) => {
                        self.on_update(u);
                        while let Ok(u) = updates.try_recv() {
                            self.on_update(u);
                        }
                        dirty = true;
                    }
                    None => break,
                },
                changed = self.view_rx.changed() => {
                    if changed.is_err() {
                        break;
                    }
                    self.sync_session();
                    dirty = true;
                }
                Some(r) = self.replies_rx.recv() => {
                    self.on_reply(r);
                    dirty = true;
                }
                _ = spinner.tick(), if busy => {
                    self.spinner = self.spinner.wrapping_add(1);
                    dirty = true;
                }
                _ = async {
                    match next_frame {
                        Some(t) => tokio::time::sleep_until(t).await,
                        None => std::future::pending().await,
                    }
                }, if dirty => {}
                _ = sigterm.recv() => break,
                _ = sighup.recv() => break,
            }
        }
        Ok(())
    }

    /// Take the actor's latest view. A "still replying" note outlives its reason once
    /// the reply (or compression) is over, so it goes then.
    fn sync_session(&mut self) {
        self.session = self.view_rx.borrow_and_update().clone();
        if !self.generating()
            && matches!(
                self.input_note.as_deref(),
                Some(BUSY_NOTE | COMPRESSING_NOTE)
            )
        {
            self.input_note = None;
        }
    }

    fn on_reply(&mut self, r: Reply) {
        match r {
            Reply::Snapshots(Ok(items)) if items.is_empty() => {
                self.overlay = None;
                let hint = match self.opts.keymap.label(Action::Snapshot) {
                    Some(k) => format!("No snapshots yet: {k} or /snapshot takes one."),
                    None => "No snapshots yet: /snapshot takes one.".to_string(),
                };
                self.info(hint);
            }
            Reply::Snapshots(Ok(items)) => {
                self.overlay = Some(OverlayState::Snapshots {
                    items,
                    selected: 0,
                    confirm_delete: false,
                });
            }
            Reply::Snapshots(Err(e)) => {
                self.overlay = None;
                self.banner = Some(Banner::new(
                    Severity::Warn,
                    format!("Cannot list snapshots: {e}"),
                    "Check the data directory's permissions (OLLM_HOME/snapshots).",
                ));
            }
            Reply::Models(result) => {
                if let Some(OverlayState::Models {
                    items,
                    selected,
                    note,
                }) = &mut self.overlay
                {
                    match result {
                        Ok(list) => {
                            *items = list.iter().map(model_entry).collect();
                            *selected = items
                                .iter()
                                .position(|m| m.name == self.session.status.model)
                                .unwrap_or(0);
                            *note = items
                                .is_empty()
                                .then(|| "No models installed: `ollama pull llama3.2`".to_string());
                        }
                        Err(e) => *note = Some(e),
                    }
                }
            }
            Reply::Inspect(Some((checkpoint, originals))) => {
                self.overlay = Some(OverlayState::Inspector {
                    checkpoint,
                    originals,
                    scroll: 0,
                });
            }
            Reply::Inspect(None) => self.info("That checkpoint no longer exists."),
        }
    }

    fn on_update(&mut self, u: Update) {
        match u {
            Update::Transcript(items) => {
                self.transcript
                    .replace_all(items.into_iter().map(entry_of).collect());
            }
            Update::Appended(item) => self.transcript.push(entry_of(item)),
            Update::ReplyStart => {
                self.transcript
                    .push(Entry::assistant("", ReplyState::Streaming, Utc::now()));
                self.transcript.to_bottom();
            }
            Update::Delta(d) => {
                self.transcript.append_delta(&d);
            }
            Update::ReplyEnd { id: None, .. } if self.transcript.discard_empty_streaming() => {}
            Update::ReplyEnd { status, id } => {
                if let Some(i) = self.transcript.streaming_index() {
                    self.transcript.finish_streaming(match status {
                        ReplyStatus::Complete => ReplyState::Complete,
                        ReplyStatus::Interrupted => ReplyState::Interrupted,
                    });
                    self.transcript.update(i, |e| e.id = id);
                }
            }
            Update::Notice(n) => {
                let level = severity(n.level());
                let text = words::notice(&n, &self.keys).text();
                self.transcript.push(Entry::notice(level, text, Utc::now()));
            }
            Update::Banner(n) => {
                let level = severity(n.level());
                let words::Words { title, hint } = words::notice(&n, &self.keys);
                self.banner = Some(Banner { level, title, hint });
            }
            Update::ClearBanner => self.banner = None,
            Update::Folded { checkpoint, ids } => {
                let ids: std::collections::HashSet<_> = ids.into_iter().collect();
                let at: Vec<usize> = self
                    .transcript
                    .entries()
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.id.is_some_and(|id| ids.contains(&id)))
                    .map(|(i, _)| i)
                    .collect();
                for i in at {
                    self.transcript.update(i, |e| e.folded = Some(checkpoint));
                }
            }
            Update::Merged { checkpoints, into } => {
                let at: Vec<usize> = self
                    .transcript
                    .entries()
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| {
                        matches!(e.kind, EntryKind::Fold { checkpoint, .. }
                            if checkpoint != into && checkpoints.contains(&checkpoint))
                    })
                    .map(|(i, _)| i)
                    .collect();
                for i in at {
                    self.transcript.update(i, |e| {
                        if let EntryKind::Fold { merged_into, .. } = &mut e.kind {
                            *merged_into = Some(into);
                        }
                    });
                }
            }
            Update::Pinned { id, pinned } => {
                if let Some(i) = self
                    .transcript
                    .entries()
                    .iter()
                    .rposition(|e| e.id == Some(id))
                {
                    self.transcript.update(i, |e| e.pinned = pinned);
                }
            }
            Update::Engine(_) => {}
            Update::Closed => self.quit = true,
        }
    }

    fn on_event(&mut self, e: Event) {
        match e {
            Event::Key(k) if k.kind != KeyEventKind::Release => self.on_key(k),
            Event::Paste(text) => self.on_paste(&text),
            Event::Mouse(m) => match m.kind {
                MouseEventKind::ScrollUp => self.scroll(true, WHEEL_LINES),
                MouseEventKind::ScrollDown => self.scroll(false, WHEEL_LINES),
                _ => {}
            },
            _ => {}
        }
    }

    fn scroll(&mut self, up: bool, lines: u16) {
        match &mut self.overlay {
            Some(OverlayState::Help { scroll }) | Some(OverlayState::Inspector { scroll, .. }) => {
                *scroll = if up {
                    scroll.saturating_sub(lines)
                } else {
                    scroll.saturating_add(lines)
                };
            }
            _ if up => self.transcript.scroll_up(lines),
            _ => self.transcript.scroll_down(lines),
        }
    }

    fn on_paste(&mut self, text: &str) {
        // Pasted text goes to the input; close what hides it so nothing lands unseen.
        self.overlay = None;
        self.panel_focus = false;
        let text = paste::normalize_newlines(text);
        let clean = sanitize(&text);
        let (kept, cut) = cap_paste(&clean, self.opts.paste_limit_bytes);
        self.input.insert_str(kept);
        self.input_note = cut.then(|| {
            format!(
                "paste cut at {} KiB of {} KiB (paste_limit_kib)",
                kept.len() / 1024,
                clean.len() / 1024
            )
        });
    }

    fn on_key(&mut self, k: KeyEvent) {
        if self.overlay.is_some() {
            // No dialog takes text: a character it does not use closes it and is typed,
            // rather than being silently dropped behind it.
            if !is_text(&k) || self.overlay_uses(&k) {
                self.overlay_key(k);
                return;
            }
            self.overlay = None;
            self.panel_focus = false;
        }
        if self.panel_focus {
            if self.panel_key(k) {
                return;
            }
            // The panel's focus is for navigation only: editing hands the keys back to
            // the input, so the Enter that follows sends rather than opening a checkpoint.
            if edits_input(&k) {
                self.panel_focus = false;
            }
        }
        let action = self.opts.keymap.action(&k);
        // `?` on an empty input opens help; otherwise it is a character.
        if action.is_none()
            && k.code == KeyCode::Char('?')
            && !k.modifiers.contains(KeyModifiers::CONTROL)
            && self.input.is_empty()
        {
            self.overlay = Some(OverlayState::Help { scroll: 0 });
            return;
        }
        match action {
            Some(a) => self.act(a, k),
            None => {
                if k.code == KeyCode::Tab && self.panel {
                    self.panel_focus = true;
                    self.panel_selected.get_or_insert(0);
                    return;
                }
                self.input.input(k);
                self.input_note = None;
            }
        }
    }

    fn act(&mut self, a: Action, k: KeyEvent) {
        match a {
            Action::Send => self.submit(),
            Action::Newline => self.input.insert_newline(),
            Action::Stop => {
                if self.generating() {
                    self.command(Command::Stop);
                } else if self.banner.is_some() {
                    self.banner = None;
                } else if self.panel_focus {
                    self.panel_focus = false;
                }
            }
            Action::Quit => {
                let ctrl_c =
                    k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL);
                if ctrl_c && self.generating() {
                    self.command(Command::Stop);
                } else if self.input.lines().iter().any(|l| !l.trim().is_empty())
                    && self.input_note.as_deref() != Some(&self.quit_note())
                {
                    // Unsent text is not in the session yet: quitting would lose it, so
                    // the first press only says so (typing clears the question).
                    self.input_note = Some(self.quit_note());
                } else {
                    self.quit = true;
                }
            }
            Action::Help => self.overlay = Some(OverlayState::Help { scroll: 0 }),
            Action::Snapshot => self.command(Command::Snapshot { label: None }),
            Action::Restore => self.open_restore(),
            Action::Compress => self.command(Command::Compress { focus: None }),
            Action::Goals => self.toggle_panel(),
            Action::Models => self.open_models(),
            Action::ScrollUp => self.scroll(true, 1),
            Action::ScrollDown => self.scroll(false, 1),
            Action::PageUp => self.transcript.page_up(),
            Action::PageDown => self.transcript.page_down(),
            Action::Top => self.transcript.to_top(),
            Action::Bottom => self.transcript.to_bottom(),
        }
    }

    fn toggle_panel(&mut self) {
        self.panel = !self.panel;
        self.panel_focus = false;
    }

    fn open_restore(&mut self) {
        self.overlay = Some(OverlayState::Snapshots {
            items: Vec::new(),
            selected: 0,
            confirm_delete: false,
        });
        self.ask(|reply| Command::ListSnapshots { reply }, Reply::Snapshots);
    }

    fn open_models(&mut self) {
        self.overlay = Some(OverlayState::Models {
            items: Vec::new(),
            selected: 0,
            note: Some("loading…".into()),
        });
        self.ask(|reply| Command::ListModels { reply }, Reply::Models);
    }

    fn inspect(&mut self, index: usize) {
        let Some(cp) = self.session.checkpoints.get(index) else {
            self.info("No such checkpoint.");
            return;
        };
        let id = cp.id;
        self.ask(move |reply| Command::Inspect { id, reply }, Reply::Inspect);
    }

    /// Keys while the panel has focus; true if used.
    fn panel_key(&mut self, k: KeyEvent) -> bool {
        let n = self.session.checkpoints.len();
        match k.code {
            KeyCode::Up => {
                self.panel_selected = Some(self.panel_selected.unwrap_or(0).saturating_sub(1));
            }
            KeyCode::Down => {
                self.panel_selected =
                    Some((self.panel_selected.unwrap_or(0) + 1).min(n.saturating_sub(1)));
            }
            KeyCode::Enter => {
                if let Some(i) = self.panel_selected {
                    self.inspect(i);
                }
            }
            KeyCode::Tab | KeyCode::Esc => self.panel_focus = false,
            _ => return false,
        }
        true
    }

    /// Characters the open dialog acts on itself (all dialogs: `q` closes; the restore
    /// picker asking to confirm a deletion: `y`).
    fn overlay_uses(&self, k: &KeyEvent) -> bool {
        let confirming = matches!(
            self.overlay,
            Some(OverlayState::Snapshots {
                confirm_delete: true,
                ..
            })
        );
        k.modifiers.is_empty()
            && (k.code == KeyCode::Char('q') || confirming && k.code == KeyCode::Char('y'))
    }

    fn overlay_key(&mut self, k: KeyEvent) {
        if let Some(OverlayState::Snapshots {
            confirm_delete: confirm @ true,
            ..
        }) = &mut self.overlay
            && k.code == KeyCode::Esc
        {
            // Esc answers the question ("keep it"), not the picker.
            *confirm = false;
            return;
        }
        let close = matches!(k.code, KeyCode::Esc)
            || (k.code == KeyCode::Char('q') && k.modifiers.is_empty())
            || self.opts.keymap.action(&k) == Some(Action::Quit);
        if close {
            self.overlay = None;
            return;
        }
        let mut chosen: Option<Command> = None;
        match &mut self.overlay {
            Some(OverlayState::Help { scroll }) | Some(OverlayState::Inspector { scroll, .. }) => {
                match k.code {
                    KeyCode::Up => *scroll = scroll.saturating_sub(1),
                    KeyCode::Down => *scroll = scroll.saturating_add(1),
                    KeyCode::PageUp => *scroll = scroll.saturating_sub(10),
                    KeyCode::PageDown => *scroll = scroll.saturating_add(10),
                    KeyCode::Home => *scroll = 0,
                    KeyCode::Enter => self.overlay = None,
                    _ => {}
                }
            }
            Some(OverlayState::Snapshots {
                items,
                selected,
                confirm_delete,
            }) => {
                // Deleting cannot be undone: the first Del asks, the footer says how to
                // confirm, and any other key withdraws the question.
                let asked = std::mem::take(confirm_delete);
                match k.code {
                    KeyCode::Up => *selected = selected.saturating_sub(1),
                    KeyCode::Down => *selected = (*selected + 1).min(items.len().saturating_sub(1)),
                    KeyCode::Enter => {
                        if let Some(s) = items.get(*selected) {
                            chosen = Some(Command::Restore { id: s.id.clone() });
                        }
                    }
                    KeyCode::Delete if !asked && *selected < items.len() => {
                        *confirm_delete = true;
                    }
                    KeyCode::Delete | KeyCode::Char('y') if asked && *selected < items.len() => {
                        let s = items.remove(*selected);
                        *selected = (*selected).min(items.len().saturating_sub(1));
                        chosen = Some(Command::DeleteSnapshot { id: s.id });
                    }
                    _ => {}
                }
            }
            Some(OverlayState::Models {
                items, selected, ..
            }) => match k.code {
                KeyCode::Up => *selected = selected.saturating_sub(1),
                KeyCode::Down => *selected = (*selected + 1).min(items.len().saturating_sub(1)),
                KeyCode::Enter => {
                    if let Some(m) = items.get(*selected) {
                        chosen = Some(Command::SetModel {
                            name: m.name.clone(),
                        });
                    }
                }
                _ => {}
            },
            None => {}
        }
        if let Some(c) = chosen {
            let keep_open = matches!(c, Command::DeleteSnapshot { .. });
            self.command(c);
            if !keep_open {
                self.overlay = None;
            }
        }
    }

    fn take_input(&mut self) -> String {
        let text = self.input.lines().join("\n");
        self.input = TextArea::default();
        ui::style_textarea(&mut self.input, &self.opts.theme);
        self.input_note = None;
        text
    }

    fn submit(&mut self) {
        let text = self.input.lines().join("\n");
        if text.trim().is_empty() {
            return;
        }
        if let Some(parsed) = slash::parse(&text) {
            match parsed {
                Ok(cmd) => {
                    self.take_input();
                    self.slash(cmd);
                }
                Err(usage) => self.input_note = Some(usage),
            }
            return;
        }
        if self.generating() {
            let note = if matches!(self.session.activity, ActorActivity::Compressing { .. }) {
                COMPRESSING_NOTE
            } else {
                BUSY_NOTE
            };
            self.input_note = Some(note.into());
            return;
        }
        let text = self.take_input();
        // `//x` sends `/x`.
        let text = match text.trim_start().strip_prefix("//") {
            Some(rest) => format!("/{rest}"),
            None => text,
        };
        self.transcript.to_bottom();
        self.command(Command::Send { text });
    }

    fn slash(&mut self, cmd: Slash) {
        match cmd {
            Slash::Snapshot(label) => self.command(Command::Snapshot { label }),
            Slash::Restore(None) => self.open_restore(),
            Slash::Restore(Some(id)) => self.command(Command::Restore { id }),
            Slash::Compress(focus) => self.command(Command::Compress { focus }),
            Slash::Goal(change) => {
                self.command(Command::Goal { change });
                self.panel = true;
            }
            Slash::Pin(id) => self.command(Command::Pin { id, pinned: true }),
            Slash::Unpin(id) => self.command(Command::Pin { id, pinned: false }),
            Slash::Model(None) => self.open_models(),
            Slash::Model(Some(name)) => self.command(Command::SetModel { name }),
            Slash::Ctx(ctx) => self.command(Command::SetCtx { ctx }),
            Slash::Mode(mode) => self.command(Command::SetMode { mode }),
            Slash::Export { json } => self.command(Command::Export { json }),
            Slash::Inspect(n) => {
                let index = match n {
                    Some(number) => self
                        .session
                        .checkpoints
                        .iter()
                        .position(|c| c.number == number),
                    None => self.session.checkpoints.len().checked_sub(1),
                };
                // A checkpoint merged away lives on in the one it was merged into.
                let merged_into = n.and_then(|number| {
                    self.transcript.entries().iter().find_map(|e| match e.kind {
                        EntryKind::Fold {
                            checkpoint,
                            merged_into: Some(into),
                            ..
                        } if checkpoint == number => Some(into),
                        _ => None,
                    })
                });
                let index = index.or_else(|| {
                    let into = merged_into?;
                    self.session
                        .checkpoints
                        .iter()
                        .position(|c| c.number == into)
                });
                match (index, n, merged_into) {
                    (Some(i), Some(number), Some(into))
                        if self.session.checkpoints[i].number == into =>
                    {
                        self.info(format!(
                            "Checkpoint {number} was merged into checkpoint {into}; showing that."
                        ));
                        self.inspect(i);
                    }
                    (Some(i), ..) => self.inspect(i),
                    (None, ..) => {
                        let panel = self.key_or(Action::Goals, "/goals");
                        self.info(format!("No such checkpoint now: older ones merge as they age; the panel ({panel}) lists the current ones."));
                    }
                }
            }
            Slash::Panel => self.toggle_panel(),
            Slash::Retry => self.command(Command::Retry),
            Slash::Help => self.overlay = Some(OverlayState::Help { scroll: 0 }),
            Slash::Quit => self.quit = true,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    //! The app's state machine driven by key events, against a real actor whose server
    //! is unreachable (commands queue; the tests look at the app's own state).
    use super::*;
    use crate::actor::{self, ActorConfig, Parts, StoreSlot};
    use crate::core::checkpoint::{CheckpointId, Level};
    use crate::core::engine::{Engine, EngineConfig, SessionSpec};
    use crate::core::message::MessageId;
    use crate::core::mode::Mode;
    use crate::core::prompts::Prompts;
    use crate::core::tokens::ByteEstimate;
    use crate::llm::{OllamaBackend, OllamaOptions};
    use crate::store::MemoryStore;
    use crossterm::event::KeyEventState;
    use std::collections::BTreeMap;

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
                ascii: false,
                paste_limit_bytes: 1 << 20,
                startup_banner: None,
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
        assert!(app.panel && app.panel_focus);
    }

    #[tokio::test]
    async fn typing_with_the_panel_focused_goes_to_the_input_and_enter_sends() {
        let mut h = harness();
        let app = &mut h.app;
        focus_panel(app);
        type_text(app, "Question 9");
        assert!(!app.panel_focus, "typing hands focus back to the input");
        assert_eq!(input(app), "Question 9");
        key(app, KeyCode::Enter);
        assert!(app.overlay.is_none());
        assert_eq!(input(app), "", "Enter sent the message");
        // Backspace, too, edits the input rather than being swallowed by the panel.
        type_text(app, "ab");
        key(app, KeyCode::Tab);
        assert!(app.panel_focus);
        key(app, KeyCode::Backspace);
        assert!(!app.panel_focus);
        assert_eq!(input(app), "a");
    }

    #[tokio::test]
    async fn a_key_typed_over_the_inspector_closes_it_and_reaches_the_input() {
        let mut h = harness();
        let app = &mut h.app;
        focus_panel(app);
        open_inspector(app);
        // Its own keys still work.
        key(app, KeyCode::Down);
        assert!(matches!(
            app.overlay,
            Some(OverlayState::Inspector { scroll: 1, .. })
        ));
        type_text(app, "Question 9");
        assert!(
            app.overlay.is_none(),
            "the first letter closed the inspector"
        );
        assert!(!app.panel_focus);
        assert_eq!(input(app), "Question 9", "no letter was lost");
        key(app, KeyCode::Enter);
        assert_eq!(input(app), "", "Enter sent the message");
        // `q` stays the inspector's close key.
        open_inspector(app);
        key(app, KeyCode::Char('q'));
        assert!(app.overlay.is_none());
        assert_eq!(input(app), "");
    }

    #[tokio::test]
    async fn hints_name_the_keys_actually_bound() {
        let mut keys = BTreeMap::new();
        keys.insert("snapshot".to_string(), "f5".to_string());
        keys.insert("restore".to_string(), "f6".to_string());
        let mut h = harness_with(&keys);
        let app = &mut h.app;
        app.on_reply(Reply::Snapshots(Ok(Vec::new())));
        let last = app.transcript.entries().last().unwrap().text.clone();
        assert!(last.contains("F5") && !last.contains("Ctrl+S"), "{last}");
        let help = |cmd: &str| {
            app.help_lines
                .iter()
                .find(|(k, _)| k.starts_with(cmd))
                .unwrap()
                .1
                .clone()
        };
        assert!(help("/snapshot").contains("(F5)"), "{}", help("/snapshot"));
        assert!(help("/restore").contains("(F6)"), "{}", help("/restore"));
        assert!(help("/compress").contains("(Ctrl+K)"));
    }

    fn meta(id: &str) -> SnapshotMeta {
        SnapshotMeta {
            id: id.into(),
            session_id: "app-test".into(),
            created: Utc::now(),
            purpose: crate::core::record::SnapshotPurpose::Rollback,
            label: None,
            model: "m".into(),
            tier: crate::core::mode::Tier::T2,
            mode: Mode::Assistant,
            tokens: 1,
            message_count: 1,
            checkpoint_count: 0,
        }
    }

    fn picker_ids(app: &App) -> Vec<String> {
        match &app.overlay {
            Some(OverlayState::Snapshots { items, .. }) => {
                items.iter().map(|m| m.id.clone()).collect()
            }
            _ => panic!("the picker is closed"),
        }
    }

    #[tokio::test]
    async fn del_in_the_restore_picker_asks_before_deleting() {
        let mut h = harness();
        let app = &mut h.app;
        app.on_reply(Reply::Snapshots(Ok(vec![meta("a"), meta("b"), meta("c")])));
        key(app, KeyCode::Delete);
        assert_eq!(picker_ids(app), ["a", "b", "c"], "the first Del only asks");
        // Moving on, or Esc, withdraws the question; Esc keeps the picker open.
        key(app, KeyCode::Down);
        key(app, KeyCode::Delete);
        key(app, KeyCode::Esc);
        assert_eq!(picker_ids(app), ["a", "b", "c"]);
        key(app, KeyCode::Delete);
        key(app, KeyCode::Delete);
        assert_eq!(picker_ids(app), ["a", "c"], "Del again confirms");
        key(app, KeyCode::Delete);
        key(app, KeyCode::Char('y'));
        assert_eq!(picker_ids(app), ["a"], "so does y");
        assert_eq!(input(app), "", "that y was not typed");
    }

    #[tokio::test]
    async fn the_help_lists_tab_del_escapes_and_the_wheel() {
        let h = harness();
        let keys: Vec<&str> = h.app.help_lines.iter().map(|(k, _)| k.as_str()).collect();
        for want in [
            "Tab",
            "Enter (panel)",
            "Del (restore picker)",
            "//text",
            "mouse wheel",
        ] {
            assert!(keys.iter().any(|k| k.starts_with(want)), "{want}: {keys:?}");
        }
    }

    #[tokio::test]
    async fn folded_updates_mark_the_messages_they_name() {
        let mut h = harness();
        let app = &mut h.app;
        let item = |id: u64, text: &str| Item {
            id: Some(MessageId(id)),
            kind: ItemKind::User,
            text: text.into(),
            ts: Utc::now(),
            pinned: false,
        };
        app.on_update(Update::Transcript(vec![
            item(1, "a"),
            item(2, "b"),
            item(3, "c"),
        ]));
        app.on_update(Update::Folded {
            checkpoint: 4,
            ids: vec![MessageId(1), MessageId(3)],
        });
        let folded: Vec<Option<u32>> = app.transcript.entries().iter().map(|e| e.folded).collect();
        assert_eq!(folded, [Some(4), None, Some(4)]);
    }

    #[tokio::test]
    async fn a_merged_checkpoint_is_labelled_and_inspect_leads_to_its_successor() {
        let mut h = harness();
        let app = &mut h.app;
        let fold = |n: u32| Item {
            id: None,
            kind: ItemKind::Fold {
                checkpoint: n,
                messages: 4,
                tokens_before: 400,
                tokens_after: 80,
            },
            text: String::new(),
            ts: Utc::now(),
            pinned: false,
        };
        app.on_update(Update::Transcript(vec![fold(1), fold(2), fold(3)]));
        app.on_update(Update::Merged {
            checkpoints: vec![1, 2],
            into: 1,
        });
        let merged: Vec<Option<u32>> = app
            .transcript
            .entries()
            .iter()
            .map(|e| match e.kind {
                EntryKind::Fold { merged_into, .. } => merged_into,
                _ => None,
            })
            .collect();
        assert_eq!(merged, [None, Some(1), None]);
        // Only checkpoint 1 (the merged one) is left in the session.
        let mut v = (*app.session).clone();
        v.checkpoints = Arc::new(vec![checkpoint()]);
        app.session = Arc::new(v);
        app.slash(Slash::Inspect(Some(2)));
        let last = app.transcript.entries().last().unwrap();
        assert!(
            last.text
                .contains("Checkpoint 2 was merged into checkpoint 1"),
            "{}",
            last.text
        );
        app.slash(Slash::Inspect(Some(7)));
        assert!(
            app.transcript
                .entries()
                .last()
                .unwrap()
                .text
                .contains("No such checkpoint")
        );
    }

    #[tokio::test]
    async fn quitting_over_unsent_text_asks_first() {
        let mut h = harness();
        let app = &mut h.app;
        type_text(app, "half a thought");
        press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
        assert!(!app.quit, "the draft would be lost");
        assert!(app.input_note.as_deref().unwrap().contains("Ctrl+Q again"));
        // Typing on withdraws the question; the next Ctrl+Q asks again.
        type_text(app, "!");
        press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
        assert!(!app.quit);
        press(app, KeyCode::Char('q'), KeyModifiers::CONTROL);
        assert!(app.quit, "asked twice: quit");
        assert_eq!(input(app), "half a thought!");

        let mut h = harness();
        press(&mut h.app, KeyCode::Char('q'), KeyModifiers::CONTROL);
        assert!(h.app.quit, "nothing to lose: quit at once");
    }

    #[tokio::test]
    async fn enter_during_a_compression_says_compressing() {
        let mut h = harness();
        let app = &mut h.app;
        let mut v = (*app.session).clone();
        v.activity = ActorActivity::Compressing {
            since: std::time::Instant::now(),
            what: "summarizing 2 messages".into(),
        };
        app.session = Arc::new(v);
        type_text(app, "next question");
        key(app, KeyCode::Enter);
        assert_eq!(app.input_note.as_deref(), Some(COMPRESSING_NOTE));
        assert_eq!(input(app), "next question", "kept for later");
    }

    #[tokio::test]
    async fn the_still_replying_note_goes_when_the_reply_ends() {
        let mut h = harness();
        let app = &mut h.app;
        app.input_note = Some(BUSY_NOTE.to_string());
        app.sync_session();
        assert!(!app.generating());
        assert_eq!(app.input_note, None);
        // Other notes (a cut paste) stay until the input changes.
        app.input_note = Some("paste cut".into());
        app.sync_session();
        assert_eq!(app.input_note.as_deref(), Some("paste cut"));
    }

    #[tokio::test]
    async fn a_paste_over_a_dialog_or_the_focused_panel_lands_in_the_input() {
        let mut h = harness();
        let app = &mut h.app;
        focus_panel(app);
        open_inspector(app);
        app.on_event(Event::Paste("one\rtwo".into()));
        assert!(app.overlay.is_none());
        assert!(!app.panel_focus);
        assert_eq!(input(app), "one\ntwo");
    }
}
