//! `/facts`: the ledger listed, with the keys and commands that pin, reword and forget a
//! fact. The rows come from the actor each time (they move with every fold); a command
//! that names a row (`/facts pin 3`) asks for them first and acts on that row.

use super::App;
use super::overlays::{FactsAsk, OverlayState, Reply};
use crate::actor::Ask;
use crate::core::engine::{FactPlace, FactRow, Request};
use crate::core::ledger::FactEdit;
use crossterm::event::{KeyCode, KeyEvent};

impl App {
    pub(super) fn facts(&mut self, ask: FactsAsk) {
        self.ask(
            |reply| Ask::ListFacts { reply },
            move |rows| Reply::Facts { rows, ask },
        );
    }

    /// The rows arrived: show them, or act on the row a command named.
    pub(super) fn on_facts(&mut self, rows: Vec<FactRow>, ask: FactsAsk) {
        let row = match &ask {
            FactsAsk::List => {
                let selected = match &self.overlay {
                    Some(OverlayState::Facts { selected, .. }) => *selected,
                    _ => 0,
                };
                self.overlay = Some(OverlayState::Facts { rows, selected });
                return;
            }
            FactsAsk::Edit { row, .. } | FactsAsk::Reword { row } => *row,
        };
        let Some(fact) = row.checked_sub(1).and_then(|i| rows.get(i)) else {
            self.info(super::words::no_such_fact(row, rows.len()));
            return;
        };
        match ask {
            FactsAsk::Edit { edit, .. } => self.command(Request::Fact {
                fact: fact.key.clone(),
                edit,
            }),
            FactsAsk::Reword { row } => {
                if fact.place == FactPlace::InView {
                    self.info(super::words::FACT_IN_VIEW);
                } else if self.draft().trim().is_empty() {
                    self.put_back(vec![format!("/facts edit {row} {}", fact.text)]);
                } else {
                    self.info(super::words::FACT_EDIT_BUSY);
                }
            }
            FactsAsk::List => {}
        }
    }

    /// Keys of the open list: move, pin, forget or keep, reword.
    pub(super) fn facts_key(&mut self, k: KeyEvent) {
        let Some(OverlayState::Facts { rows, selected }) = &mut self.overlay else {
            return;
        };
        match k.code {
            KeyCode::Up => *selected = selected.saturating_sub(1),
            KeyCode::Down => *selected = (*selected + 1).min(rows.len().saturating_sub(1)),
            KeyCode::PageUp => *selected = selected.saturating_sub(10),
            KeyCode::PageDown => *selected = (*selected + 10).min(rows.len().saturating_sub(1)),
            KeyCode::Home => *selected = 0,
            _ => {}
        }
        let Some(fact) = rows.get(*selected) else {
            return;
        };
        let row = *selected + 1;
        let edit = match k.code {
            KeyCode::Char('p') if fact.pinned => FactEdit::Unpin,
            KeyCode::Char('p') => FactEdit::Pin,
            KeyCode::Char('d') | KeyCode::Delete if fact.place == FactPlace::Forgotten => {
                FactEdit::Keep
            }
            KeyCode::Char('d') | KeyCode::Delete => FactEdit::Forget,
            KeyCode::Char('e') | KeyCode::Enter => {
                let rows = std::mem::take(rows);
                self.overlay = None;
                self.on_facts(rows, FactsAsk::Reword { row });
                return;
            }
            _ => return,
        };
        let fact = fact.key.clone();
        self.intend(Request::Fact { fact, edit }.into());
        // The list shows the change once the engine made it.
        self.facts(FactsAsk::List);
    }
}
