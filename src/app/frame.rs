//! The view-model of one frame, built in this one place: what the actor published (the
//! session's view), what the app holds (the transcript, the message box, the dialog that
//! is open, the panel, the banner) and the theme, borrowed into a [`UiView`] that the ui
//! draws. Nothing here changes what the app holds but the message box's styling.

use super::App;
use super::overlays::OverlayState;
use super::present::status_view;
use super::words;
use crate::ui::{self, Overlay, PanelView, UiView};
use chrono::{Local, Offset, Utc};

impl App {
    /// The frame to draw now (see the module docs).
    pub(super) fn view_model(&mut self) -> UiView<'_> {
        let mut status = status_view(&self.session, self.spinner);
        status.pull = self.hidden_pull();
        status.mouse = (!self.mouse).then(|| words::mouse_status(&self.mouse_key()));
        let now = Utc::now();
        // A call waiting for the person's answer comes before any other popup.
        let asking = self.approving.asking(&self.session.activity);
        let overlay = self.overlay.as_ref().map(|o| match o {
            OverlayState::Facts { rows, selected } => Overlay::Facts {
                rows,
                selected: *selected,
            },
            OverlayState::Help {
                scroll,
                topic: None,
            } => Overlay::Help {
                bindings: &self.help_lines,
                scroll: *scroll,
            },
            OverlayState::Help {
                scroll,
                topic: Some(topic),
            } => Overlay::Topic {
                title: topic.title(),
                text: topic.body(),
                scroll: *scroll,
            },
            OverlayState::Snapshots {
                items,
                selected,
                confirm_delete,
            } => Overlay::Snapshots {
                items,
                selected: *selected,
                now,
                confirm_delete: *confirm_delete,
            },
            OverlayState::Models {
                items,
                selected,
                note,
                pull,
            } => Overlay::Models {
                items,
                selected: *selected,
                current: &self.session.status.model,
                note: note.as_deref(),
                pull: pull.as_deref().map(super::words::pull_row),
            },
            // Closed with its pull (`app::pull`); an empty frame at worst.
            OverlayState::Pull => Overlay::Pull {
                title: self
                    .pull
                    .job()
                    .map(|j| super::words::pull_title(&j.name))
                    .unwrap_or_default(),
                lines: self.pull.job().map(|j| j.lines()).unwrap_or_default(),
                ratio: self.pull.job().and_then(|j| j.ratio()),
                footer: super::words::PULL_FOOTER,
            },
            OverlayState::Inspector {
                checkpoint,
                originals,
                scroll,
            } => Overlay::Inspector {
                checkpoint,
                originals,
                scroll: *scroll,
            },
            OverlayState::ResultInspector { inspection, scroll } => Overlay::ResultInspector {
                id: inspection.id,
                tool: &inspection.tool,
                seen: &inspection.seen,
                original: &inspection.original,
                scroll: *scroll,
            },
            OverlayState::Sessions(b) => Overlay::Sessions {
                rows: b.all.as_ref().map(|_| {
                    b.shown()
                        .into_iter()
                        .map(|s| super::sessions::session_row(s, &self.session.session_id))
                        .collect()
                }),
                total: b.all.as_ref().map_or(0, Vec::len),
                selected: b.selected,
                filter: &b.filter,
                prompt: match &b.mode {
                    super::sessions::BrowserMode::Browse => crate::ui::BrowserPrompt::None,
                    super::sessions::BrowserMode::Rename(t) => {
                        crate::ui::BrowserPrompt::Rename(t, crate::store::manage::MAX_TITLE_CHARS)
                    }
                    super::sessions::BrowserMode::ConfirmDelete => {
                        crate::ui::BrowserPrompt::ConfirmDelete
                    }
                },
                note: b.note.as_deref(),
                now,
            },
            OverlayState::Search(d) => Overlay::Search {
                query: &d.query,
                rows: d.report.as_ref().map(super::sessions::search_rows),
                selected: d.selected,
                note: d.note.as_deref(),
            },
            OverlayState::Themes(p) => Overlay::Themes {
                names: p.items.iter().map(|(name, _)| name.as_str()).collect(),
                selected: p.selected,
                current: &self.opts.theme.name,
                note: p
                    .error()
                    .or(self.opts.no_color.then_some(super::words::THEMES_NO_COLOR)),
            },
        });
        let overlay = match asking {
            Some(ask) => Some(Overlay::Approval {
                ask,
                scroll: self.approving.scroll(),
            }),
            None => overlay,
        };
        let panel = self.panel.shown().then(|| PanelView {
            goals: &self.session.goals,
            checkpoints: &self.session.checkpoints,
            selected: self.panel.selected(),
            focused: self.panel.focused(),
            now,
            params: Some(&self.session.status.params),
            status: Some(&self.session.status),
        });
        let attached = self.chips();
        let image_cost = Some(self.image_cost());
        // A `/theme` preview: the whole screen in the selected theme, the box included.
        let theme = super::themes::drawn(&self.overlay, &self.opts.theme);
        let fingerprint = theme.fingerprint();
        if fingerprint != self.input_theme {
            ui::style_textarea(&mut self.input, theme);
            self.input_theme = fingerprint;
        }
        UiView {
            transcript: &mut self.transcript,
            input: &self.input,
            input_note: self.input_note.clone(),
            status,
            panel,
            overlay,
            banner: self.banner.clone(),
            theme,
            ascii: self.opts.ascii,
            utc_offset: Local::now().offset().fix(),
            details: self.details,
            queued: &self.session.queued,
            attached,
            image_cost,
            thumbnails: self.thumbnails.as_ref().map(|t| &t.ready),
        }
    }
}
