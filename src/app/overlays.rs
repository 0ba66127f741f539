//! The dialogs drawn over the screen — help, the restore picker, the model picker, the
//! checkpoint inspector — with their state, their keys, and the answers from the actor
//! that fill them.

use super::App;
use super::present::banner_of;
use super::words::{self, CHECKPOINT_GONE, LOADING, NO_MODELS};
use crate::actor::{Ask, Command, Inspection, ResultInspection};
use crate::core::checkpoint::Checkpoint;
use crate::core::ledger::FactEdit;
use crate::core::message::Message;
use crate::core::snapshot::SnapshotMeta;
use crate::llm::ModelSummary;
use crate::ui::ModelEntry;
use crate::view::Severity;
use crossterm::event::{KeyCode, KeyEvent};

/// A pull's line as the actor sends it (`app::pull`).
pub use crate::actor::PullEvent;

/// What `/facts` was asked to do: its rows come back with it (`Reply::Facts`), and
/// `app::facts` acts on them.
#[derive(Debug, Clone, PartialEq)]
pub enum FactsAsk {
    /// Show the list.
    List,
    /// Change row `row` (1-based, as listed).
    Edit { row: usize, edit: FactEdit },
    /// Put `/facts edit N TEXT` in the message box, to be reworded there.
    Reword { row: usize },
}

/// Answers that arrive on oneshots.
pub enum Reply {
    /// A sent picture's thumbnail, made ready (`None`: its file or its decoding failed).
    Thumbnail {
        hash: String,
        made: Option<crate::ui::thumbnail::Thumbnail>,
    },
    Snapshots(Result<crate::store::snapshot::SnapshotListing, String>),
    Models(Result<Vec<ModelSummary>, String>),
    /// `from_panel`: asked by Enter in the panel (else by `/inspect`).
    Inspect {
        from_panel: bool,
        /// Boxed: a checkpoint with its ledger is much larger than the other answers.
        inspection: Option<Box<Inspection>>,
    },
    InspectResult(Result<Box<ResultInspection>, String>),
    /// A `/check` graded, or why there was none.
    Checked(Result<crate::actor::CheckReport, String>),
    /// The facts (`/facts`), and what was asked of them.
    Facts {
        rows: Vec<crate::core::engine::FactRow>,
        ask: FactsAsk,
    },
    /// Messages typed ahead, taken back out of the queue: they return to the input.
    TakenBack(Vec<String>),
    /// The sessions (after a rename or delete, with what happened).
    SessionList(crate::actor::SessionListing),
    Searched(Result<crate::store::search::SearchReport, String>),
    /// A fork just made, to open.
    Forked(Result<crate::actor::Forked, String>),
    /// The actor's answer to an attach (`/image`, or a path in the message being sent).
    Attached {
        result: Result<crate::core::image::ImageRef, crate::actor::AttachRefused>,
        for_message: bool,
    },
    /// A line of the pull `id` (`app::pull`).
    Pull {
        id: u64,
        event: PullEvent,
    },
}

pub enum OverlayState {
    Help {
        scroll: u16,
        /// A part of the manual shown instead of the keys (`/help TOPIC`): the same
        /// popup, scrolled and closed the same way.
        topic: Option<&'static crate::manual::Topic>,
    },
    /// `/facts` (`app::facts`).
    Facts {
        rows: Vec<crate::core::engine::FactRow>,
        selected: usize,
    },
    Snapshots {
        items: Vec<SnapshotMeta>,
        selected: usize,
        /// Del was pressed once; a second Del or `y` deletes. Any other key withdraws it.
        confirm_delete: bool,
    },
    Models {
        items: Vec<ModelEntry>,
        /// Row 0 is the pull row when `pull` is set; the models follow.
        selected: usize,
        note: Option<String>,
        /// The session's model, missing: a first row offers to pull it.
        pull: Option<String>,
    },
    /// The pull under way (`App::pull` holds it; hiding the dialog does not stop it).
    Pull,
    Inspector {
        checkpoint: Checkpoint,
        originals: Vec<Message>,
        scroll: u16,
    },
    ResultInspector {
        inspection: Box<ResultInspection>,
        scroll: u16,
    },
    Sessions(Box<super::browser::Browser>),
    Search(Box<super::browser::SearchDialog>),
    /// `/theme` (`app::themes`): the screen is drawn in the selected theme while it is open.
    Themes(super::theme_picker::ThemePicker),
}

fn model_entry(m: &ModelSummary) -> ModelEntry {
    ModelEntry {
        name: m.name.clone(),
        size_bytes: Some(m.size_bytes),
        parameter_size: m.parameter_size.clone(),
        context_length: m.context_length,
        capabilities: m.capabilities.clone(),
    }
}

impl App {
    pub(super) fn open_restore(&mut self) {
        self.overlay = Some(OverlayState::Snapshots {
            items: Vec::new(),
            selected: 0,
            confirm_delete: false,
        });
        self.ask(|reply| Ask::ListSnapshots { reply }, Reply::Snapshots);
    }

    pub(super) fn open_models(&mut self) {
        let pull = self.missing_model();
        self.overlay = Some(OverlayState::Models {
            items: Vec::new(),
            selected: 0,
            note: Some(LOADING.into()),
            pull,
        });
        self.ask(|reply| Ask::ListModels { reply }, Reply::Models);
    }

    /// The inspector for checkpoint `number` (the newest when `None`).
    pub(super) fn inspect(&mut self, number: Option<u32>, from_panel: bool) {
        self.ask(
            move |reply| Ask::Inspect { number, reply },
            move |inspection: Option<Inspection>| Reply::Inspect {
                from_panel,
                inspection: inspection.map(Box::new),
            },
        );
    }

    /// Tool result `id` beside its whole original.
    pub(super) fn inspect_result(&mut self, id: crate::core::message::MessageId) {
        self.ask(
            move |reply| Ask::InspectResult { id, reply },
            |r: Result<ResultInspection, String>| Reply::InspectResult(r.map(Box::new)),
        );
    }

    /// Enter on row `index` of the panel's checkpoint list.
    pub(super) fn inspect_selected(&mut self, index: usize) {
        match self.session.checkpoints.get(index) {
            Some(cp) => {
                let number = cp.number;
                self.inspect(Some(number), true);
            }
            None => self.info(CHECKPOINT_GONE),
        }
    }

    /// Characters the open dialog acts on itself (all dialogs: `q` closes; the restore
    /// picker asking to confirm a deletion: `y`).
    pub(super) fn overlay_uses(&self, k: &KeyEvent) -> bool {
        let confirming = matches!(
            self.overlay,
            Some(OverlayState::Snapshots {
                confirm_delete: true,
                ..
            })
        );
        // The browser filters (and renames) as you type: every character is its own.
        if matches!(self.overlay, Some(OverlayState::Sessions(_))) {
            return true;
        }
        let facts = matches!(self.overlay, Some(OverlayState::Facts { .. }));
        k.modifiers.is_empty()
            && (k.code == KeyCode::Char('q')
                || confirming && k.code == KeyCode::Char('y')
                || facts && matches!(k.code, KeyCode::Char('p' | 'd' | 'e')))
    }

    pub(super) fn overlay_key(&mut self, k: KeyEvent) {
        if matches!(
            self.overlay,
            Some(OverlayState::Sessions(_) | OverlayState::Search(_))
        ) && !self.opts.keymap.quits(&k)
        {
            self.sessions_key(k);
            return;
        }
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
        if matches!(self.overlay, Some(OverlayState::Pull)) && k.code == KeyCode::Esc {
            self.cancel_pull();
            return;
        }
        // The help's own key closes it too (it says so).
        let help_again = matches!(self.overlay, Some(OverlayState::Help { .. }))
            && self
                .opts
                .keymap
                .binding(&k)
                .is_some_and(|b| b.name == "help");
        let close = help_again
            || matches!(k.code, KeyCode::Esc)
            || (k.code == KeyCode::Char('q') && k.modifiers.is_empty())
            || self.opts.keymap.quits(&k);
        if close {
            self.overlay = None;
            return;
        }
        if matches!(self.overlay, Some(OverlayState::Facts { .. })) {
            self.facts_key(k);
            return;
        }
        if matches!(self.overlay, Some(OverlayState::Themes(_))) {
            self.themes_key(k);
            return;
        }
        let mut chosen: Option<Command> = None;
        let mut pull: Option<String> = None;
        // A page of a dialog that fills the screen but its frame, title and footer.
        let page = self.screen_rows.saturating_sub(6).max(1);
        match &mut self.overlay {
            Some(OverlayState::Help { scroll, .. })
            | Some(OverlayState::Inspector { scroll, .. })
            | Some(OverlayState::ResultInspector { scroll, .. }) => match k.code {
                KeyCode::Up => *scroll = scroll.saturating_sub(1),
                KeyCode::Down => *scroll = scroll.saturating_add(1),
                KeyCode::PageUp => *scroll = scroll.saturating_sub(page),
                KeyCode::PageDown => *scroll = scroll.saturating_add(page),
                KeyCode::Home => *scroll = 0,
                KeyCode::Enter => self.overlay = None,
                _ => {}
            },
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
                items,
                selected,
                pull: offer,
                ..
            }) => {
                let first = usize::from(offer.is_some());
                match k.code {
                    KeyCode::Up => *selected = selected.saturating_sub(1),
                    KeyCode::Down => {
                        *selected = (*selected + 1).min((items.len() + first).saturating_sub(1));
                    }
                    KeyCode::Enter if *selected < first => pull = offer.clone(),
                    KeyCode::Enter => {
                        if let Some(m) = items.get(*selected - first) {
                            chosen = Some(Command::SetModel {
                                name: m.name.clone(),
                            });
                        }
                    }
                    _ => {}
                }
            }
            Some(
                OverlayState::Sessions(_)
                | OverlayState::Search(_)
                | OverlayState::Pull
                | OverlayState::Facts { .. }
                | OverlayState::Themes(_),
            )
            | None => {}
        }
        if let Some(name) = pull {
            self.overlay = None;
            self.pull(Some(name), true);
            return;
        }
        if let Some(c) = chosen {
            let keep_open = matches!(c, Command::DeleteSnapshot { .. });
            self.intend(c.into());
            if !keep_open {
                self.overlay = None;
            }
        }
    }

    /// An answer from the actor fills (or closes) its dialog.
    pub(super) fn on_reply(&mut self, r: Reply) {
        match r {
            Reply::Snapshots(Ok(listing)) => {
                // Damaged snapshot files are said, never silently left out.
                if let Some(first) = listing.unreadable.first() {
                    self.banner = Some(banner_of(
                        Severity::Warn,
                        words::snapshots_damaged(
                            listing.unreadable.len(),
                            &first.reason,
                            &first.path.display().to_string(),
                        ),
                    ));
                }
                let items = listing.snapshots;
                if items.is_empty() {
                    self.overlay = None;
                    if listing.unreadable.is_empty() {
                        self.info(words::no_snapshots(&self.keys));
                    }
                } else {
                    self.overlay = Some(OverlayState::Snapshots {
                        items,
                        selected: 0,
                        confirm_delete: false,
                    });
                }
            }
            Reply::Snapshots(Err(e)) => {
                self.overlay = None;
                self.banner = Some(banner_of(Severity::Warn, words::snapshots_unreadable(&e)));
            }
            Reply::Models(result) => {
                if let Some(OverlayState::Models {
                    items,
                    selected,
                    note,
                    pull,
                }) = &mut self.overlay
                {
                    match result {
                        Ok(list) => {
                            *items = list.iter().map(model_entry).collect();
                            let first = usize::from(pull.is_some());
                            *selected = items
                                .iter()
                                .position(|m| m.name == self.session.status.model)
                                .map_or(0, |i| i + first);
                            *note = match pull {
                                Some(name) => Some(words::picker_missing(name)),
                                None => items.is_empty().then(|| NO_MODELS.to_string()),
                            };
                        }
                        Err(e) => *note = Some(e),
                    }
                }
            }
            Reply::Inspect {
                inspection: Some(i),
                ..
            } => {
                if let Some(asked) = i.asked.filter(|n| *n != i.checkpoint.number) {
                    self.info(words::inspect_merged(asked, i.checkpoint.number));
                }
                let i = *i;
                self.overlay = Some(OverlayState::Inspector {
                    checkpoint: i.checkpoint,
                    originals: i.originals,
                    scroll: 0,
                });
            }
            Reply::Inspect {
                from_panel: true,
                inspection: None,
            } => self.info(CHECKPOINT_GONE),
            Reply::InspectResult(Ok(inspection)) => {
                self.overlay = Some(OverlayState::ResultInspector {
                    inspection,
                    scroll: 0,
                });
            }
            Reply::InspectResult(Err(e)) => self.info(format!("Cannot inspect: {e}.")),
            Reply::TakenBack(texts) => self.put_back(texts),
            Reply::Facts { rows, ask } => self.on_facts(rows, ask),
            Reply::Checked(result) => self.on_checked(result),
            Reply::SessionList(r) => self.on_session_list(r),
            Reply::Searched(r) => self.on_searched(r),
            Reply::Forked(Ok(made)) => self.open_fork(made),
            Reply::Forked(Err(e)) => self.info(format!("Cannot fork: {e}.")),
            Reply::Pull { id, event } => self.on_pull(id, event),
            Reply::Thumbnail { hash, made } => self.on_thumbnail(hash, made),
            Reply::Attached {
                result,
                for_message,
            } => self.on_attached(result, for_message),
            Reply::Inspect {
                from_panel: false,
                inspection: None,
            } => self.info(words::no_such_checkpoint(&self.keys)),
        }
    }
}
