//! The session browser (`/sessions`, Ctrl+T) and search across sessions (`/search`):
//! their state, their keys, and the store work they ask of the actor (which runs it on
//! the blocking pool), the answers coming back as [`Reply`]s.
//!
//! Opening another session ends this app with [`AppExit::Open`]; `main` closes the current
//! session cleanly (the actor syncs and stops) and starts the other in the same terminal.

pub use super::browser::{Browser, BrowserMode, SearchDialog};
use super::overlays::{OverlayState, Reply};
use super::words;
use super::{App, AppExit};
use crate::actor::{Ask, SessionChange, SessionChanged, SessionListing};
use crate::core::message::MessageId;
use crate::store::manage::MAX_TITLE_CHARS;
use crate::store::search::SearchReport;
use crate::store::{DataDir, SessionLock, SessionSummary};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Hits a search lists at most.
const SEARCH_LIMIT: usize = 200;

impl App {
    fn data_dir(&mut self) -> Option<DataDir> {
        let dir = self.opts.data_dir.clone();
        if dir.is_none() {
            self.info("Sessions are not kept on disk here.");
        }
        dir
    }

    pub(super) fn open_sessions(&mut self) {
        if self.data_dir().is_none() {
            return;
        }
        self.overlay = Some(OverlayState::Sessions(Box::new(Browser {
            all: None,
            filter: String::new(),
            selected: 0,
            mode: BrowserMode::Browse,
            note: None,
        })));
        self.relist(None);
    }

    /// Ask the actor to `change` the sessions on disk (or not), then list them again; the
    /// browser shows the list with what the change did.
    fn relist(&mut self, change: Option<SessionChange>) {
        self.ask(
            |reply| Ask::ListSessions { change, reply },
            Reply::SessionList,
        );
    }

    pub(super) fn open_search(&mut self, query: String) {
        if self.data_dir().is_none() {
            return;
        }
        self.overlay = Some(OverlayState::Search(Box::new(SearchDialog {
            query: query.clone(),
            report: None,
            selected: 0,
            note: None,
        })));
        self.ask(
            |reply| Ask::SearchSessions {
                query,
                limit: SEARCH_LIMIT,
                reply,
            },
            Reply::Searched,
        );
    }

    pub(super) fn on_session_list(&mut self, listing: SessionListing) {
        let Some(OverlayState::Sessions(b)) = &mut self.overlay else {
            return;
        };
        let note = listing.changed.map(|c| match c {
            SessionChanged::Renamed(Ok(Some(t))) => format!("Renamed to \"{t}\"."),
            SessionChanged::Renamed(Ok(None)) => "Titled by its first message again.".to_string(),
            SessionChanged::Renamed(Err(e)) => format!("Cannot rename: {e}"),
            SessionChanged::Trashed(Ok(folder)) => format!("Moved to {}.", folder.display()),
            SessionChanged::Trashed(Err(e)) => format!("Not deleted: {e}"),
        });
        match listing.list {
            Ok(list) => {
                let first = b.all.is_none();
                b.all = Some(list);
                b.note = note;
                // Opened: the session in use is selected (F2 renames it at once).
                let current = &self.session.session_id;
                if first && let Some(i) = b.shown().iter().position(|s| &s.id == current) {
                    b.selected = i;
                }
                b.selected = b.selected.min(b.shown().len().saturating_sub(1));
            }
            Err(e) => {
                b.all = Some(Vec::new());
                b.note = Some(format!("Cannot list the sessions: {e}"));
            }
        }
    }

    pub(super) fn on_searched(&mut self, r: Result<SearchReport, String>) {
        let Some(OverlayState::Search(d)) = &mut self.overlay else {
            return;
        };
        match r {
            Ok(report) => {
                let mut notes = Vec::new();
                if report.unreadable_lines > 0 {
                    notes.push(format!(
                        "{} damaged line(s) holding the text were skipped",
                        report.unreadable_lines
                    ));
                }
                if report.truncated {
                    notes.push(format!("the first {SEARCH_LIMIT} hits"));
                }
                d.note = (!notes.is_empty()).then(|| notes.join("; "));
                d.report = Some(report);
            }
            Err(e) => {
                d.report = Some(SearchReport::default());
                d.note = Some(format!("Cannot search: {e}"));
            }
        }
    }

    /// Keys of the browser and the search list. Typing filters the browser.
    pub(super) fn sessions_key(&mut self, k: KeyEvent) {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        match &mut self.overlay {
            Some(OverlayState::Search(d)) => {
                let n = d.rows().len();
                match k.code {
                    KeyCode::Esc => self.overlay = None,
                    KeyCode::Up => d.selected = d.selected.saturating_sub(1),
                    KeyCode::Down => d.selected = (d.selected + 1).min(n.saturating_sub(1)),
                    KeyCode::Enter => {
                        if let Some((id, seq)) =
                            d.rows().get(d.selected).map(|(i, s)| (i.to_string(), *s))
                        {
                            self.open_session(id, Some(MessageId(seq)));
                        }
                    }
                    _ => {}
                }
            }
            Some(OverlayState::Sessions(b)) => {
                let has_chosen = b.chosen().is_some();
                match (&mut b.mode, k.code) {
                    // The input stops at the length a title is kept with, and says so,
                    // rather than saving less than the screen showed.
                    (BrowserMode::Rename(title), KeyCode::Char(c)) if !ctrl => {
                        if title.chars().count() < MAX_TITLE_CHARS {
                            title.push(c);
                        } else {
                            b.note = Some(words::title_limit(MAX_TITLE_CHARS));
                        }
                    }
                    (BrowserMode::Rename(title), KeyCode::Backspace) => {
                        title.pop();
                        b.note = None;
                    }
                    (BrowserMode::Rename(_), KeyCode::Esc) => b.mode = BrowserMode::Browse,
                    (BrowserMode::Rename(title), KeyCode::Enter) => {
                        let title = std::mem::take(title);
                        b.mode = BrowserMode::Browse;
                        if let Some(id) = b.chosen().map(|s| s.id.clone()) {
                            self.relist(Some(SessionChange::Rename { id, title }));
                        }
                    }
                    (BrowserMode::ConfirmDelete, KeyCode::Char('y') | KeyCode::Delete) => {
                        b.mode = BrowserMode::Browse;
                        let current = self.session.session_id.clone();
                        match b.chosen().map(|s| s.id.clone()) {
                            Some(id) if id == current => {
                                b.note = Some(
                                    "This is the session you are in: open another first.".into(),
                                );
                            }
                            Some(id) => self.relist(Some(SessionChange::Trash { id })),
                            None => {}
                        }
                    }
                    (BrowserMode::ConfirmDelete, _) => b.mode = BrowserMode::Browse,
                    (BrowserMode::Browse, KeyCode::Esc) => self.overlay = None,
                    (BrowserMode::Browse, KeyCode::Up) => b.selected = b.selected.saturating_sub(1),
                    (BrowserMode::Browse, KeyCode::Down) => {
                        b.selected = (b.selected + 1).min(b.shown().len().saturating_sub(1));
                    }
                    (BrowserMode::Browse, KeyCode::Delete) if has_chosen => {
                        b.mode = BrowserMode::ConfirmDelete;
                    }
                    (BrowserMode::Browse, KeyCode::F(2)) => {
                        if let Some(s) = b.chosen() {
                            b.mode = BrowserMode::Rename(s.title.clone().unwrap_or_default());
                        }
                    }
                    (BrowserMode::Browse, KeyCode::Enter) => {
                        if let Some(id) = b.chosen().map(|s| s.id.clone()) {
                            self.open_session(id, None);
                        }
                    }
                    (BrowserMode::Browse, KeyCode::Backspace) => {
                        b.filter.pop();
                        b.selected = 0;
                    }
                    (BrowserMode::Browse, KeyCode::Char(c)) if !ctrl => {
                        b.filter.push(c);
                        b.selected = 0;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// A fork was made: go on in it (this session stays as it was); `main` says so there.
    pub(super) fn open_fork(&mut self, made: crate::actor::Forked) {
        self.leaving.leave(AppExit::Forked {
            id: made.id,
            at: made.at,
        });
    }

    /// Leave this session for `id` (at message `at`): this one is closed cleanly by
    /// `main`, then the other opens. The session in use, or one open elsewhere, is said.
    fn open_session(&mut self, id: String, at: Option<MessageId>) {
        if id == self.session.session_id {
            self.overlay = None;
            if let Some(at) = at {
                self.transcript.show_message(at);
            }
            return;
        }
        let holder = self
            .opts
            .data_dir
            .as_ref()
            .and_then(|d| SessionLock::holder(d, &id));
        if let Some(pid) = holder {
            let note = format!("Session {id} is open in another ollm-tui (pid {pid}).");
            match &mut self.overlay {
                Some(OverlayState::Sessions(b)) => b.note = Some(note),
                Some(OverlayState::Search(d)) => d.note = Some(note),
                _ => self.info(note),
            }
            return;
        }
        self.leaving.leave(AppExit::Open { id, at });
    }
}

/// A browser row from a session's summary.
pub(super) fn session_row(s: &SessionSummary, current: &str) -> crate::ui::SessionRow {
    crate::ui::SessionRow {
        id: s.id.clone(),
        title: s.title.clone(),
        model: s.model.clone(),
        last_activity: s.last_activity,
        messages: s.messages,
        compressions: s.compressions,
        size_bytes: s.size_bytes,
        current: s.id == current,
        parent: s.parent.clone(),
        problem: s.problem.clone(),
    }
}

/// The hits as listed: each session's title on its first.
pub(super) fn search_rows(r: &SearchReport) -> Vec<crate::ui::SearchRow> {
    r.sessions
        .iter()
        .flat_map(|s| {
            s.hits
                .iter()
                .enumerate()
                .map(move |(i, h)| crate::ui::SearchRow {
                    session_id: s.session_id.clone(),
                    heading: (i == 0)
                        .then(|| s.title.clone().unwrap_or_else(|| s.session_id.clone())),
                    seq: h.seq,
                    ts: h.ts,
                    role: h.role,
                    snippet: h.snippet.clone(),
                    matched: h.matched.clone(),
                })
        })
        .collect()
}
