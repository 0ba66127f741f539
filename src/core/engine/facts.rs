//! The fact ledger as the person sees and changes it (`/facts`): each fact with the
//! message it came from and whether the next request carries it; pin, edit, forget.

use super::Engine;
use super::input::Effect;
use crate::core::events::{EngineError, EngineEvent};
use crate::core::ledger::{self, FactEdit, LedgerLine};
use crate::core::message::{MessageId, Role};
use crate::core::record::RecordBody;
use chrono::{DateTime, Utc};

/// Where a fact stands for the next request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactPlace {
    /// Its message is in the conversation the model sees.
    InView,
    /// Its message is folded and the ledger carries it.
    Carried,
    /// Its message is folded and the ledger had no room for it (recall may still find it).
    NotSent,
    /// The person forgot it: never sent (`/facts`).
    Forgotten,
}

/// One row of `/facts`.
#[derive(Debug, Clone, PartialEq)]
pub struct FactRow {
    /// The line as extraction made it: what an edit is keyed by.
    pub key: String,
    /// The line as it is sent (the person's words when edited).
    pub text: String,
    pub from: Option<MessageId>,
    /// Said by the model (and not confirmed by the person).
    pub by_model: bool,
    pub place: FactPlace,
    pub pinned: bool,
    pub edited: bool,
}

impl Engine {
    /// Every fact of the conversation, oldest first: the folded ones (the ledger) then
    /// those still in view. Computed when asked; nothing here is kept up to date per turn.
    pub fn fact_rows(&self) -> Vec<FactRow> {
        let shown = &self.facts_carried.shown;
        let mut rows: Vec<FactRow> = self
            .folded_facts
            .iter()
            .map(|line| {
                let mark = self.fact_edits.mark(&line.text);
                let text = mark
                    .and_then(|m| m.replaced.clone())
                    .unwrap_or_else(|| line.text.clone());
                let place = if mark.is_some_and(|m| m.forgotten) {
                    FactPlace::Forgotten
                } else if shown.contains(&text) {
                    FactPlace::Carried
                } else {
                    FactPlace::NotSent
                };
                FactRow {
                    key: line.text.clone(),
                    edited: text != line.text,
                    text,
                    from: line.from,
                    by_model: !line.user,
                    place,
                    pinned: mark.is_some_and(|m| m.pinned),
                }
            })
            .collect();
        for line in self.facts_in_view() {
            if rows.iter().any(|r| r.key == line.text) {
                continue;
            }
            rows.push(FactRow {
                pinned: self.fact_edits.mark(&line.text).is_some_and(|m| m.pinned),
                key: line.text.clone(),
                text: line.text,
                from: line.from,
                by_model: false,
                place: FactPlace::InView,
                edited: false,
            });
        }
        rows
    }

    /// The person's facts in messages not folded yet.
    fn facts_in_view(&self) -> Vec<LedgerLine> {
        self.active
            .messages()
            .iter()
            .filter(|e| e.role == Role::User)
            .filter_map(|e| self.history.get(e.id))
            .flat_map(|m| {
                ledger::extract(&m.text, true)
                    .into_iter()
                    .map(|l| l.said_in(m.id))
            })
            .collect()
    }

    /// Pin, unpin, forget, keep or reword the fact `fact` (a row's key). A fact in view
    /// can be pinned (it holds once folded), not changed: its message says it, and the
    /// model reads the message.
    pub(super) fn edit_fact(
        &mut self,
        fact: String,
        edit: FactEdit,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        let folded = self.folded_facts.iter().any(|l| l.text == fact);
        let in_view = !folded && self.facts_in_view().iter().any(|l| l.text == fact);
        let refuse = |fx: &mut Vec<Effect>, error: EngineError| {
            fx.push(Effect::Event(EngineEvent::Refused { error }));
        };
        if !folded && !in_view {
            return refuse(fx, EngineError::NoSuchFact { fact });
        }
        let changes = matches!(
            edit,
            FactEdit::Forget | FactEdit::Keep | FactEdit::Replace { .. }
        );
        if in_view && changes {
            return refuse(fx, EngineError::FactInView { fact });
        }
        if matches!(&edit, FactEdit::Replace { text } if text.trim().is_empty()) {
            return refuse(fx, EngineError::EmptyFact);
        }
        self.commit(
            RecordBody::Fact {
                fact: fact.clone(),
                edit: edit.clone(),
            },
            now,
            fx,
        );
        fx.push(Effect::Event(EngineEvent::FactEdited { fact, edit }));
    }

    /// A fact edit, recorded or replayed: the ledger is sent as the person wants it.
    pub(super) fn apply_fact_edit(&mut self, fact: &str, edit: &FactEdit) {
        self.fact_edits.edit(fact, edit);
        self.version += 1;
        // The merged ledger is kept per set of checkpoints; the edits change it too.
        self.merged_ledger.0.clear();
        self.rebuild_checkpoints();
    }
}
