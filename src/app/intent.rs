//! What the person wants: one type, [`Intent`], made by a key (`keymap`) or a slash
//! command (`commands`), and one handler, [`App::intend`], with one arm per intent.
//!
//! A key bound to a command runs that command, so the two cannot do different things.
//! An intent the engine handles carries the engine's own [`Request`], one the actor
//! handles the actor's own [`Command`]: both go to the actor as they are, and adding such
//! a slash command is a registry entry (and its handler in the layer that owns it). Only
//! what the app itself does (dialogs, scrolling, quitting) has a variant of its own.

use super::overlays::{OverlayState, Reply};
use super::words;
use super::{App, AppExit};
use crate::actor::{Ask, Command};
use crate::core::engine::Request;
use crate::core::message::MessageId;

/// Something the person asks for. (Not `Clone`: an actor command may carry a reply
/// channel, and each key press or command makes a fresh intent.)
#[derive(Debug)]
pub enum Intent {
    /// Send the message box (Enter): a slash command runs, text is sent.
    Send,
    Newline,
    /// Esc: take back queued messages, stop what runs, or close what is open.
    Stop,
    ScrollUp,
    ScrollDown,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// `/image PATH`: a picture for the next message.
    AttachImage(String),
    /// `/image clear`: the attached pictures removed.
    ClearImages,
    /// The restore picker.
    PickSnapshot,
    /// The model picker.
    PickModel,
    /// Show or hide the goal panel.
    Panel,
    /// Unfold (or fold again) tool calls and reasoning.
    Details,
    /// The session browser.
    Sessions,
    /// Search every session for the text.
    Search(String),
    /// Checkpoint N (the newest by default) beside its original messages.
    Inspect(Option<u32>),
    /// `/inspect #N`: tool result N beside its whole original.
    InspectResult(MessageId),
    /// `/check`: a few questions about the person's folded facts, graded.
    Check,
    /// `/facts`: the ledger listed, or a fact of it changed.
    Facts(super::overlays::FactsAsk),
    /// Copy text from the transcript to the clipboard (OSC 52).
    Copy(super::copy::CopyTarget),
    /// `/theme`: the picker, which shows the screen in the selected theme as it moves.
    PickTheme,
    /// `/theme NAME`: that theme for this run.
    Theme(String),
    /// Capture the mouse or release it to the terminal (`None`: the other way round).
    Mouse(Option<bool>),
    /// Pull a model (`/pull`); without a name, the session's missing one.
    Pull(Option<String>),
    /// A new session from this one's messages up to N (the last by default).
    Fork(Option<MessageId>),
    /// The help; with a topic, that part of the manual (`/help tools`) in its place.
    Help(Option<&'static crate::manual::Topic>),
    /// Quit, asking first when something would be lost.
    Quit,
    /// `/new [MODEL]`: leave this session (it is saved) for an empty one with the same
    /// settings, asking first as quitting does.
    NewSession {
        model: Option<String>,
    },
    /// `/set` or `/system` alone: list the session's system prompt and parameters.
    ShowParams,
    /// `/show info` (as in `ollama run`): the model, its window, the mode, what every
    /// request carries and what compression kept.
    ShowInfo,
    /// What the engine handles (a message, compress, pins, settings, a snapshot).
    Engine(Request),
    /// What the actor handles (models, restore, export, think).
    Actor(Command),
}

/// A command for the actor, as the pickers and the pull's end ask for one: through
/// [`App::intend`] like every other intent (and without naming this file, which names
/// theirs).
impl From<Command> for Intent {
    fn from(c: Command) -> Intent {
        Intent::Actor(c)
    }
}

/// A request for the engine, as a dialog's key asks for one (see `From<Command>`).
impl From<Request> for Intent {
    fn from(r: Request) -> Intent {
        Intent::Engine(r)
    }
}

impl App {
    /// Carry out what the person asked for; the one place each intent is handled.
    pub(super) fn intend(&mut self, intent: Intent) {
        match intent {
            Intent::Send => self.submit(),
            Intent::Newline => {
                self.input.insert_newline();
            }
            Intent::Stop => self.stop(),
            Intent::ScrollUp => self.scroll(true, 1),
            Intent::ScrollDown => self.scroll(false, 1),
            Intent::PageUp => self.transcript.page_up(),
            Intent::PageDown => self.transcript.page_down(),
            Intent::Top => self.transcript.to_top(),
            Intent::Bottom => self.transcript.to_bottom(),
            Intent::PickSnapshot => self.open_restore(),
            Intent::PickModel => self.open_models(),
            Intent::Panel => self.toggle_panel(),
            Intent::Details => self.details = !self.details,
            Intent::Sessions => self.open_sessions(),
            Intent::Search(text) => self.open_search(text),
            Intent::Inspect(number) => self.inspect(number, false),
            Intent::InspectResult(id) => self.inspect_result(id),
            Intent::Facts(ask) => self.facts(ask),
            Intent::Check => self.check(),
            Intent::Pull(name) => self.pull(name, false),
            Intent::Copy(target) => self.copy(target),
            Intent::Mouse(on) => self.set_mouse(on.unwrap_or(!self.mouse)),
            Intent::PickTheme => self.open_themes(),
            Intent::Theme(name) => self.switch_theme(&name),
            Intent::AttachImage(path) => self.attach_image(path),
            Intent::ClearImages => self.clear_images(),
            Intent::Fork(at) => self.ask(move |reply| Command::Fork { at, reply }, Reply::Forked),
            Intent::Help(topic) => self.overlay = Some(OverlayState::Help { scroll: 0, topic }),
            Intent::Quit => self.leave_or_ask(AppExit::Quit),
            Intent::NewSession { model } => self.leave_or_ask(AppExit::New { model }),
            Intent::ShowParams => self.info(words::params_listing(
                &self.session.status.params,
                self.opts.config_temperature,
            )),
            Intent::ShowInfo => self.info(words::session_info(&self.session.status)),
            Intent::Engine(request) => {
                // A goal-board change shows in the panel.
                let board = matches!(request, Request::Goal { .. });
                self.command(request);
                if board {
                    self.panel.show();
                }
            }
            Intent::Actor(command) => self.command(command),
        }
    }

    /// `/copy`: the text to the terminal's clipboard, and a line saying what went.
    fn copy(&mut self, target: super::copy::CopyTarget) {
        let picked = match super::copy::pick(self.transcript.entries(), target) {
            Ok(p) => p,
            Err(e) => return self.info(words::copy_failed(&e)),
        };
        if picked.text.len() > super::copy::MAX_TEXT_BYTES {
            return self.info(words::copy_too_long(
                &picked.what,
                picked.text.len(),
                super::copy::MAX_TEXT_BYTES,
            ));
        }
        match super::terminal::clipboard(&super::copy::osc52(&picked.text)) {
            Ok(()) => self.info(words::copied(
                &picked.what,
                picked.text.chars().count(),
                picked.removed,
                super::terminal::inside_tmux(),
            )),
            Err(e) => self.info(words::copy_failed(&e.to_string())),
        }
    }

    /// How the mouse's key is named: the one bound to it, else the command.
    pub(super) fn mouse_key(&self) -> String {
        self.opts
            .keymap
            .command_label("mouse")
            .unwrap_or_else(|| "/mouse".to_string())
    }

    /// Capture the mouse (`on`) or give it to the terminal's selection, and say which.
    pub(super) fn set_mouse(&mut self, on: bool) {
        self.mouse = on;
        let _ = super::terminal::set_mouse(on);
        let key = self.mouse_key();
        self.input_note = Some(words::mouse_note(on, &key));
    }

    /// Esc: messages typed ahead come back first; the next Esc stops the reply.
    fn stop(&mut self) {
        if !self.session.queued.is_empty() {
            self.ask(|reply| Ask::TakeBackQueued { reply }, Reply::TakenBack);
        } else if self.generating() {
            self.command(Command::Stop);
        } else if self.banner.is_some() {
            self.banner = None;
        } else if self.panel.focused() {
            self.panel.unfocus();
        } else if self.session.background.is_some() {
            // Nothing else to stop: the compression between turns.
            self.command(Command::Stop);
        }
    }
}
