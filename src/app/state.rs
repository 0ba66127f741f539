//! The app's state, and the few helpers every part of it uses: sending a command without
//! ever blocking the UI, asking the actor for an answer, noting something in the
//! transcript.

use super::keymap::Keymap;
use super::overlays::{OverlayState, Reply};
use super::words::{self, KeyNames};
use crate::actor::{Command, SessionHandle};
use crate::ui::{self, Banner, Theme, Transcript};
use crate::view::{Activity, Connection, Entry, SessionView, Severity};
use chrono::Utc;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};
use tui_textarea::TextArea;

/// What the app was started with.
pub struct AppOptions {
    pub keymap: Keymap,
    pub theme: Theme,
    pub ascii: bool,
    pub paste_limit_bytes: usize,
    /// Shown once at start (e.g. records skipped while loading).
    pub startup_banner: Option<Banner>,
}

pub struct App {
    pub(super) handle: SessionHandle,
    pub(super) view_rx: watch::Receiver<Arc<SessionView>>,
    pub(super) session: Arc<SessionView>,
    pub(super) transcript: Transcript,
    pub(super) input: TextArea<'static>,
    pub(super) input_note: Option<String>,
    pub(super) opts: AppOptions,
    /// How notices and hints name keys: the ones the keymap binds.
    pub(super) keys: KeyNames,
    pub(super) help_lines: Vec<(String, String)>,
    pub(super) panel: bool,
    pub(super) panel_focus: bool,
    pub(super) panel_selected: Option<usize>,
    pub(super) overlay: Option<OverlayState>,
    pub(super) banner: Option<Banner>,
    pub(super) spinner: usize,
    pub(super) quit: bool,
    pub(super) replies_tx: mpsc::UnboundedSender<Reply>,
    pub(super) replies_rx: mpsc::UnboundedReceiver<Reply>,
}

/// Keys the help lists besides the keymap's and the commands'.
const HELP_EXTRAS: &[(&str, &str)] = &[
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
];

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
        help_lines.extend(
            HELP_EXTRAS
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        help_lines.extend(super::commands::help_rows(|a| opts.keymap.label(a)));
        let (replies_tx, replies_rx) = mpsc::unbounded_channel();
        let session = view_rx.borrow().clone();
        App {
            handle,
            view_rx,
            session,
            transcript: Transcript::new(),
            input,
            input_note: None,
            banner: opts.startup_banner.clone(),
            keys: KeyNames::from_keymap(&opts.keymap),
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

    /// Something is under way (the spinner turns).
    pub(super) fn busy(&self) -> bool {
        self.session.activity != Activity::Idle || self.session.connection == Connection::Connecting
    }

    /// A reply streams or a compression runs: Esc and Ctrl+C stop it.
    pub(super) fn generating(&self) -> bool {
        matches!(
            self.session.activity,
            Activity::Generating { .. } | Activity::Compressing { .. }
        )
    }

    /// Send a command; never waits. A full queue means the actor is stuck: say so rather
    /// than freeze the screen.
    pub(super) fn command(&mut self, c: impl Into<Command>) {
        if self.handle.try_send(c.into()).is_err() {
            self.banner = Some(super::present::banner_of(
                Severity::Error,
                words::not_responding(&self.keys),
            ));
        }
    }

    /// A note from the app in the transcript.
    pub(super) fn info(&mut self, text: impl Into<String>) {
        self.transcript
            .push(Entry::notice(Severity::Info, text.into(), Utc::now()));
    }

    /// Ask the actor and route the answer back into the loop.
    pub(super) fn ask<T: Send + 'static>(
        &mut self,
        make: impl FnOnce(tokio::sync::oneshot::Sender<T>) -> Command,
        wrap: impl FnOnce(T) -> Reply + Send + 'static,
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
}
