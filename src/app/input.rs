//! Input routing: which part of the app a key or a paste goes to — an open dialog, the
//! focused panel, a binding (whose intent `app::intent` carries out), or the message
//! box — and what Enter sends.
//!
//! Rules: no dialog takes text, so a character a dialog does not use closes it and is
//! typed (never silently dropped behind it); the panel's focus is for navigation only,
//! so editing hands the keys back to the message box; a draft is never lost by quitting
//! without being asked first.

use super::App;
use super::commands;
use super::intent::Intent;
use super::overlays::OverlayState;
use super::paste;
use super::words;
use crate::actor::Command;
use crate::core::engine::Request;
use crate::core::sanitize::{byte_prefix, sanitize};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_textarea::TextArea;

/// A key that types a character (Shift allowed; Ctrl and Alt make it a command).
pub(super) fn is_text(k: &KeyEvent) -> bool {
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

/// What opens and closes a message of several lines (`ollama run`'s habit).
const MULTILINE: &str = "\"\"\"";

/// Cut a paste at `limit` bytes on a char boundary.
fn cap_paste(text: &str, limit: usize) -> (&str, bool) {
    let kept = byte_prefix(text, limit);
    (kept, kept.len() < text.len())
}

impl App {
    pub(super) fn on_key(&mut self, k: KeyEvent) {
        self.opts.start_at = None;
        if let Some(ask) = self.approving.asking(&self.session.activity) {
            let id = ask.id;
            let session_offered =
                !matches!(ask.session_scope, crate::view::SessionScope::NotOffered(_));
            if self.approval_key(id, session_offered, &k) {
                return;
            }
        }
        if self.overlay.is_some() {
            if !is_text(&k) || self.overlay_uses(&k) {
                self.overlay_key(k);
                return;
            }
            self.overlay = None;
            self.panel.unfocus();
        }
        if self.panel.focused() {
            if self.panel_key(k) {
                return;
            }
            // Editing hands the keys back to the input, so the Enter that follows sends
            // rather than opening a checkpoint.
            if edits_input(&k) {
                self.panel.unfocus();
            }
        }
        let intent = self.opts.keymap.intent(&k);
        // `?` on an empty input opens help; otherwise it is a character.
        if intent.is_none()
            && k.code == KeyCode::Char('?')
            && !k.modifiers.contains(KeyModifiers::CONTROL)
            && self.input.is_empty()
        {
            self.intend(Intent::Help(None));
            return;
        }
        if self.readline_key(&k, intent.is_some()) {
            return;
        }
        match intent {
            // Ctrl+C stops what runs (a reply, a compression, a tool call) first.
            Some(Ok(Intent::Quit))
                if k.code == KeyCode::Char('c')
                    && k.modifiers.contains(KeyModifiers::CONTROL)
                    && self.generating() =>
            {
                self.intend(Intent::Actor(Command::Stop));
            }
            Some(Ok(intent)) => self.intend(intent),
            Some(Err(usage)) => self.input_note = Some(usage),
            None => {
                if k.code == KeyCode::Tab && self.panel.focus() {
                    return;
                }
                self.input.input(k);
                self.input_note = None;
            }
        }
    }

    /// Readline's habits in the message box, as `ollama run` and shells have them: Ctrl+K
    /// kills to the end of the line and Ctrl+U to its start, Ctrl+D on an empty box ends
    /// the session as end-of-input does (over text it deletes the next character), Ctrl+Z
    /// undoes. Ctrl+K is no default binding any more (it compressed on an empty box: a
    /// shell user's reflex must never fold the context). A key the person bound in `[keys]`
    /// keeps their binding (`bound`); Ctrl+K only on an empty box, as it always did, so
    /// over text it still kills.
    fn readline_key(&mut self, k: &KeyEvent, bound: bool) -> bool {
        if k.modifiers != KeyModifiers::CONTROL {
            return false;
        }
        let empty = self.input.is_empty();
        match k.code {
            KeyCode::Char('k') if !bound || !empty => {
                self.input.delete_line_by_end();
            }
            KeyCode::Char('u') if !bound => {
                self.input.delete_line_by_head();
            }
            KeyCode::Char('d') if !bound && empty => self.intend(Intent::Quit),
            KeyCode::Char('z') if !bound => {
                self.input.undo();
            }
            _ => return false,
        }
        self.input_note = None;
        true
    }

    /// Whether `k` only types a character into the message box (no dialog, panel or
    /// binding takes it), so that a run of such keys can be inserted at once.
    pub(super) fn types_into_the_box(&self, k: &KeyEvent) -> bool {
        let asking = self.approving.asking(&self.session.activity).is_some();
        is_text(k)
            && !asking
            && self.overlay.is_none()
            && !self.panel.focused()
            && self.opts.keymap.binding(k).is_none()
            && !(k.code == KeyCode::Char('?') && self.input.is_empty())
    }

    pub(super) fn scroll(&mut self, up: bool, lines: u16) {
        match &mut self.overlay {
            Some(OverlayState::Help { scroll, .. })
            | Some(OverlayState::Inspector { scroll, .. })
            | Some(OverlayState::ResultInspector { scroll, .. }) => {
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

    pub(super) fn on_paste(&mut self, text: &str) {
        // Pasted text goes to the input; close what hides it so nothing lands unseen.
        self.overlay = None;
        self.panel.unfocus();
        let text = paste::normalize_newlines(text);
        let clean = sanitize(&text);
        let (kept, cut) = cap_paste(&clean, self.opts.paste_limit_bytes);
        let cut_note = cut.then(|| words::paste_cut(kept.len(), clean.len()));
        if kept.len() > paste::FOLD_BYTES {
            let marker = self.pastes.fold(kept.to_string());
            self.input.insert_str(&marker);
            let note = words::paste_folded(&marker);
            self.input_note = Some(match cut_note {
                Some(cut) => format!("{cut} · {note}"),
                None => note,
            });
        } else {
            self.input.insert_str(kept);
            self.input_note = cut_note;
        }
    }

    /// The draft as it will be sent: folded pastes in place of their markers.
    pub(super) fn draft(&self) -> String {
        self.pastes.expand(&self.input.lines().join("\n"))
    }

    /// Messages taken back from the queue go before what the box holds now, in order
    /// (a long one folds to a paste marker again, so typing stays instant).
    pub(super) fn put_back(&mut self, texts: Vec<String>) {
        if texts.is_empty() {
            return;
        }
        let mut parts: Vec<String> = texts
            .into_iter()
            .map(|t| {
                if t.len() > paste::FOLD_BYTES {
                    self.pastes.fold(t)
                } else {
                    t
                }
            })
            .collect();
        let now = self.input.lines().join("\n");
        if !now.trim().is_empty() {
            parts.push(now);
        }
        let all = parts.join("\n\n");
        self.input = TextArea::new(all.split('\n').map(str::to_string).collect());
        self.style_input();
        self.input.move_cursor(tui_textarea::CursorMove::Bottom);
        self.input.move_cursor(tui_textarea::CursorMove::End);
    }

    fn take_input(&mut self) -> String {
        let text = self.draft();
        self.pastes.clear();
        self.input = TextArea::default();
        self.style_input();
        self.input_note = None;
        text
    }

    /// Enter: a slash command runs, a message is sent — unless a reply streams or a
    /// compression runs, then the text stays and a note says why.
    pub(super) fn submit(&mut self) {
        let text = self.draft();
        if text.trim().is_empty() {
            return;
        }
        // `"""` opens a message of several lines, as in `ollama run`: Enter is a new line
        // until a closing `"""` ends the text, and what stands between is sent.
        if let Some(body) = text.trim_start().strip_prefix(MULTILINE) {
            match body.trim_end().strip_suffix(MULTILINE) {
                Some(inner) if !inner.trim().is_empty() => self.send(inner.trim().to_string()),
                _ => {
                    self.input.insert_newline();
                    self.input_note = Some(words::MULTILINE_OPEN.to_string());
                }
            }
            return;
        }
        if let Some(parsed) = commands::parse(&text) {
            match parsed {
                Ok(intent) => {
                    self.take_input();
                    self.intend(intent);
                }
                Err(usage) => self.input_note = Some(usage),
            }
            return;
        }
        // `//x` sends `/x`.
        let text = match text.trim_start().strip_prefix("//") {
            Some(rest) => format!("/{rest}"),
            None => text,
        };
        self.send(text);
    }

    /// The box is emptied and `text` goes to the session. While a reply streams or a
    /// compression runs the actor queues it (it shows as queued) and sends it when the
    /// turn ends.
    fn send(&mut self, text: String) {
        if self.wait_for_pictures(&text) {
            return;
        }
        self.send_with_pictures(text);
    }

    /// [`Self::send`] once the message's own pictures are attached: the chips go with
    /// it, when the model can see them (else the box keeps everything).
    pub(super) fn send_with_pictures(&mut self, text: String) {
        if !self.pictures_can_go() {
            return;
        }
        self.check_yields();
        self.take_input();
        self.transcript.to_bottom();
        let images = self.pictures.take();
        self.command(Request::Send { text, images });
    }
}
