//! The state of the session browser (`/sessions`, Ctrl+T) and of the search dialog
//! (`/search`): what each shows and which row is chosen. Their keys and the store work
//! they ask for are `sessions.rs`; the overlay that holds them is `overlays.rs`. Kept apart
//! from both so that neither needs the other for these types.

use crate::store::SessionSummary;
use crate::store::search::SearchReport;

/// What the browser is doing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrowserMode {
    Browse,
    /// Typing a new title for the selected session.
    Rename(String),
    /// Del was pressed: y or Del deletes, anything else keeps it.
    ConfirmDelete,
}

pub struct Browser {
    /// Every session, newest first (`None` while loading).
    pub all: Option<Vec<SessionSummary>>,
    pub filter: String,
    /// Index into the filtered list.
    pub selected: usize,
    pub mode: BrowserMode,
    pub note: Option<String>,
}

impl Browser {
    /// The sessions the filter keeps: every word in the title, id or model.
    pub fn shown(&self) -> Vec<&SessionSummary> {
        let words: Vec<String> = self
            .filter
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        self.all
            .iter()
            .flatten()
            .filter(|s| {
                let hay = format!("{} {} {}", s.title.as_deref().unwrap_or(""), s.id, s.model)
                    .to_lowercase();
                words.iter().all(|w| hay.contains(w.as_str()))
            })
            .collect()
    }

    pub(super) fn chosen(&self) -> Option<&SessionSummary> {
        self.shown().get(self.selected).copied()
    }
}

pub struct SearchDialog {
    pub query: String,
    pub report: Option<SearchReport>,
    /// Index into the hits, in the order listed.
    pub selected: usize,
    pub note: Option<String>,
}

impl SearchDialog {
    /// (session id, message) of every hit, in the order listed.
    pub fn rows(&self) -> Vec<(&str, u64)> {
        self.report
            .iter()
            .flat_map(|r| r.sessions.iter())
            .flat_map(|s| s.hits.iter().map(move |h| (s.session_id.as_str(), h.seq)))
            .collect()
    }
}
