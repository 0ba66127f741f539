//! The person's hand on the ledger (`/facts`): a fact pinned always goes with the
//! request, a fact forgotten never does, and a fact edited goes in the person's words.
//!
//! Edits are keyed by the line's text as extraction made it, which is deterministic, so
//! an edit made today still finds its line when replay rebuilds the ledger, and applies
//! to a fact in view once its message is folded. The messages themselves are never
//! touched: the log keeps what was said, and recall can still find it.

use super::LedgerLine;
use serde::{Deserialize, Serialize};

/// One change to a fact, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "edit", rename_all = "snake_case")]
pub enum FactEdit {
    Pin,
    Unpin,
    Forget,
    /// Take a forgotten fact back.
    Keep,
    /// The fact in the person's words from now on.
    Replace {
        text: String,
    },
}

/// What the person has done to one fact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FactMark {
    pub pinned: bool,
    pub forgotten: bool,
    pub replaced: Option<String>,
}

/// Every fact the person has edited, by the line's text as extracted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FactEdits {
    marks: Vec<(String, FactMark)>,
}

impl FactEdits {
    pub fn is_empty(&self) -> bool {
        self.marks.is_empty()
    }

    pub fn edit(&mut self, fact: &str, edit: &FactEdit) {
        let i = match self.marks.iter().position(|(k, _)| k == fact) {
            Some(i) => i,
            None => {
                self.marks.push((fact.to_string(), FactMark::default()));
                self.marks.len() - 1
            }
        };
        let mark = &mut self.marks[i].1;
        match edit {
            FactEdit::Pin => mark.pinned = true,
            FactEdit::Unpin => mark.pinned = false,
            FactEdit::Forget => mark.forgotten = true,
            FactEdit::Keep => mark.forgotten = false,
            FactEdit::Replace { text } => {
                // Back to its own words is no edit at all.
                mark.replaced = (text.trim() != fact).then(|| text.trim().to_string());
            }
        }
        if *mark == FactMark::default() {
            self.marks.remove(i);
        }
    }

    pub fn mark(&self, fact: &str) -> Option<&FactMark> {
        self.marks.iter().find(|(k, _)| k == fact).map(|(_, m)| m)
    }

    /// `lines` as the person wants them sent: forgotten ones out, replaced ones in the
    /// person's words (a correction of theirs, so summaries go without what it replaced),
    /// pinned ones marked so the fit never drops them.
    pub fn apply(&self, lines: Vec<LedgerLine>) -> Vec<LedgerLine> {
        if self.is_empty() {
            return lines;
        }
        lines
            .into_iter()
            .filter_map(|mut line| {
                let Some(mark) = self.mark(&line.text) else {
                    return Some(line);
                };
                if mark.forgotten {
                    return None;
                }
                if let Some(text) = &mark.replaced {
                    line = LedgerLine {
                        text: text.clone(),
                        user: true,
                        corrects: true,
                        from: line.from,
                        ..LedgerLine::default()
                    };
                }
                line.pinned = mark.pinned;
                Some(line)
            })
            .collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::ledger::lines::{texts, user};

    #[test]
    fn forgotten_lines_leave_replaced_ones_change_and_pins_are_marked() {
        let lines = vec![
            user("The plumber is Branko."),
            user("Budget is 18,500 EUR."),
            user("Flight FL-20931 on 4 May."),
        ];
        let mut edits = FactEdits::default();
        edits.edit("Budget is 18,500 EUR.", &FactEdit::Forget);
        edits.edit(
            "Flight FL-20931 on 4 May.",
            &FactEdit::Replace {
                text: "Flight FL-20931 on 5 May.".into(),
            },
        );
        edits.edit("The plumber is Branko.", &FactEdit::Pin);
        let out = edits.apply(lines.clone());
        assert_eq!(
            texts(&out),
            ["The plumber is Branko.", "Flight FL-20931 on 5 May."]
        );
        assert!(out[0].pinned && !out[1].pinned);
        assert!(out[1].corrects && out[1].user);
        // Undone, each edit leaves no mark.
        edits.edit("Budget is 18,500 EUR.", &FactEdit::Keep);
        edits.edit("The plumber is Branko.", &FactEdit::Unpin);
        edits.edit(
            "Flight FL-20931 on 4 May.",
            &FactEdit::Replace {
                text: " Flight FL-20931 on 4 May. ".into(),
            },
        );
        assert!(edits.is_empty());
        assert_eq!(edits.apply(lines.clone()), lines);
    }
}
