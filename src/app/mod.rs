//! The terminal application: events in, commands to the actor out, a view-model drawn.
//!
//! Files by job: `event_loop` (the loop), `frame` (the view-model drawn, built there
//! only), `input` (where keys and pastes go), `leaving`, `approval`, `goal_panel`,
//! `replies` (the channel answers come back on) and `session_link` (the actor's ends:
//! commands out, its view in) (parts of the app with fields of their own),
//! `intent` (what the person wants, from a key or a command, and the one handler of
//! each), `overlays` (the dialogs), `present` (what the actor publishes → what the ui
//! draws), `words` (every sentence about what happened, in one place), `commands` (the
//! slash command registry), `keymap` (keys → intents), `paste`, `terminal`. The [`App`]
//! itself, its state and the few helpers every part uses, are here.

mod approval;
mod browser;
mod check;
mod closest;
pub mod commands;
pub mod copy;
mod event_loop;
pub mod facts;
mod frame;
mod goal_panel;
mod input;
pub mod intent;
pub mod keymap;
mod leaving;
mod overlays;
pub mod paste;
mod pictures;
pub mod present;
pub(crate) mod pull;
mod replies;
mod session_link;
pub(crate) mod sessions;
pub mod terminal;
mod theme_picker;
mod themes;
pub mod thumbnails;
pub mod words;

#[cfg(test)]
mod tests;

pub use event_loop::FRAME_RATE_HZ;
pub use present::status_view;

use crate::actor::{Command, SessionHandle};
use crate::ui::{self, Banner, Theme, Transcript};
use crate::view::{Activity, Connection, Entry, SessionView, Severity};
use chrono::Utc;
use keymap::Keymap;
use overlays::{OverlayState, Reply};
use std::sync::Arc;
use tokio::sync::watch;
use tui_textarea::TextArea;
use words::KeyNames;

/// What the app was started with.
pub struct AppOptions {
    pub keymap: Keymap,
    pub theme: Theme,
    /// `NO_COLOR`: a theme chosen with `/theme` is loaded without colour too.
    pub no_color: bool,
    pub ascii: bool,
    pub paste_limit_bytes: usize,
    /// Shown once at start (e.g. records skipped while loading).
    pub startup_banner: Option<Banner>,
    /// Where sessions are kept (the browser and search); `None`: not on disk.
    pub data_dir: Option<crate::store::DataDir>,
    /// The config file's `temperature`, which a session's own (`/set`) overrides: `/set`
    /// alone names it.
    pub config_temperature: Option<f32>,
    /// Show this message once the transcript arrives (a search hit opened here).
    pub start_at: Option<crate::core::message::MessageId>,
    /// Capture the mouse (wheel scrolling) at start; `false` leaves it to the terminal's
    /// selection (`mouse = false` in config.toml).
    pub mouse: bool,
    /// The terminal's picture maker when the transcript draws thumbnails
    /// (`thumbnails::detect`, asked before the TUI started); `None`: chips only.
    pub thumbnails: Option<ratatui_image::picker::Picker>,
}

/// Why the app ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AppExit {
    #[default]
    Quit,
    /// Open another session (at a message): the caller closes this one first.
    Open {
        id: String,
        at: Option<crate::core::message::MessageId>,
    },
    /// Open the fork just made of this session at message `at`, and say what it kept.
    Forked {
        id: String,
        at: crate::core::message::MessageId,
    },
    /// `/new`: close this session (it stays saved) and start an empty one with its model,
    /// context, mode, system prompt and parameters — with `model` instead, when given.
    New { model: Option<String> },
}

pub struct App {
    pub(crate) link: session_link::SessionLink,
    pub(crate) session: Arc<SessionView>,
    pub(crate) transcript: Transcript,
    pub(crate) input: TextArea<'static>,
    /// The theme the message box was styled with (its fingerprint): a frame in another
    /// (a `/theme` preview) styles it again.
    pub(crate) input_theme: u64,
    pub(crate) input_note: Option<String>,
    /// Large pastes of the draft, shown in `input` as markers.
    pub(crate) pastes: paste::Folded,
    pub(crate) opts: AppOptions,
    /// How notices and hints name keys: the ones the keymap binds.
    pub(crate) keys: KeyNames,
    pub(crate) help_lines: Vec<(String, String)>,
    /// Tool calls and reasoning unfolded in the transcript.
    pub(crate) details: bool,
    /// A `/check` is under way (`check.rs`).
    pub(crate) checking: bool,
    /// The goal panel: shown, focused, its selection (`goal_panel.rs`).
    pub(crate) panel: goal_panel::GoalPanel,
    pub(crate) overlay: Option<OverlayState>,
    /// A tool call's question: answered, and its preview's scroll (`approval.rs`).
    pub(crate) approving: approval::Approving,
    /// Rows of the last frame drawn: PgUp/PgDn in a scrolled dialog move by its page.
    pub(crate) screen_rows: u16,
    pub(crate) banner: Option<Banner>,
    pub(crate) spinner: usize,
    /// Whether and where the app ends, and what the person was asked first (`leaving.rs`).
    pub(crate) leaving: leaving::Leaving,
    /// `/pull`: the pull under way and what it switches to (`pull.rs`).
    pub(crate) pull: pull::Pulling,
    /// The mouse is captured (the wheel scrolls); released, the terminal selects text.
    pub(crate) mouse: bool,
    pub(crate) replies: replies::Replies,
    /// Pictures for the next message, shown as chips above the box (`pictures.rs`).
    pub(crate) pictures: pictures::Attached,
    /// Sent pictures drawn under their chips (`thumbnails.rs`); `None`: chips only.
    pub(crate) thumbnails: Option<thumbnails::Shown>,
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
        mut opts: AppOptions,
    ) -> App {
        let thumbnails = opts.thumbnails.take().map(thumbnails::Shown::new);
        let mut input = TextArea::default();
        ui::style_textarea(&mut input, &opts.theme);
        let input_theme = opts.theme.fingerprint();
        // How notices, hints, the help and the empty transcript name the keys.
        let keys = opts.keymap.key_names();
        let mut help_lines: Vec<(String, String)> = words::STATUS_LINE_HELP
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        help_lines.push(words::help_close_row(&keys));
        help_lines.extend(opts.keymap.help());
        help_lines.push(("? (empty input)".into(), "this help".into()));
        help_lines.extend(
            HELP_EXTRAS
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        help_lines.extend(commands::help_rows(|c| opts.keymap.command_label(c)));
        help_lines.extend(words::topic_rows());
        let link = session_link::SessionLink::new(handle, view_rx);
        let session = link.current();
        App {
            link,
            session,
            transcript: {
                let mut t = Transcript::new();
                t.set_empty_hint(words::empty_hint(&keys));
                t
            },
            input,
            input_theme,
            input_note: None,
            pastes: paste::Folded::default(),
            banner: opts.startup_banner.clone(),
            keys,
            mouse: opts.mouse,
            opts,
            help_lines,
            panel: goal_panel::GoalPanel::default(),
            details: false,
            checking: false,
            overlay: None,
            approving: approval::Approving::default(),
            screen_rows: 24,
            spinner: 0,
            leaving: leaving::Leaving::default(),
            pull: pull::Pulling::default(),
            replies: replies::Replies::default(),
            pictures: pictures::Attached::default(),
            thumbnails,
        }
    }

    /// Something is under way (the spinner turns).
    pub(crate) fn busy(&self) -> bool {
        self.session.activity != Activity::Idle
            || self.session.connection == Connection::Connecting
            || self.session.background.is_some()
    }

    /// A reply streams, a compression runs, or a tool call runs or waits for an answer:
    /// Esc and Ctrl+C stop it (and the calls after it) rather than quitting.
    pub(crate) fn generating(&self) -> bool {
        matches!(
            self.session.activity,
            Activity::Generating { .. }
                | Activity::Thinking { .. }
                | Activity::Compressing { .. }
                | Activity::Tool { .. }
                | Activity::Approval(_)
        )
    }

    /// Send a command; never waits. A full queue means the actor is stuck: say so rather
    /// than freeze the screen.
    pub(crate) fn command(&mut self, c: impl Into<Command>) {
        if !self.link.try_send(c.into()) {
            self.banner = Some(present::banner_of(
                Severity::Error,
                words::not_responding(&self.keys),
            ));
        }
    }

    /// A note from the app in the transcript.
    pub(crate) fn info(&mut self, text: impl Into<String>) {
        self.transcript
            .push(Entry::notice(Severity::Info, text.into(), Utc::now()));
    }

    /// A warning from the app in the transcript (something asked for did not happen).
    pub(crate) fn warn(&mut self, text: impl Into<String>) {
        self.transcript
            .push(Entry::notice(Severity::Warn, text.into(), Utc::now()));
    }

    /// Ask the actor and route the answer back into the loop.
    pub(crate) fn ask<T: Send + 'static, C: Into<Command>>(
        &mut self,
        make: impl FnOnce(tokio::sync::oneshot::Sender<T>) -> C,
        wrap: impl FnOnce(T) -> Reply + Send + 'static,
    ) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.command(make(tx));
        let back = self.replies.sender();
        tokio::spawn(async move {
            if let Ok(v) = rx.await {
                let _ = back.send(wrap(v));
            }
        });
    }
}
