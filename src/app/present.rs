//! Presentation: what the actor publishes, turned into what the ui draws — the status
//! line's view, transcript entries, banners. Sentences come from `words`; this file
//! decides where they go.

use super::App;
use super::words::{self, Words};
use crate::core::message::ReplyStatus;
use crate::ui::{Banner, GaugeView, StatusView};
use crate::view::{
    Activity, Entry, EntryKind, ReplyState, SessionView, Severity, ToolsState, Update,
};
use chrono::Utc;
use std::collections::HashSet;

/// A banner with these words.
pub fn banner_of(level: Severity, w: Words) -> Banner {
    Banner {
        level,
        title: w.title,
        hint: w.hint,
    }
}

/// The status line's view of the session. Reads the clock for the elapsed time, so the
/// renderer does not have to.
pub fn status_view(s: &SessionView, spinner: usize) -> StatusView {
    let b = &s.status.budget;
    let elapsed_ms = match &s.activity {
        Activity::Generating { since, .. }
        | Activity::Thinking { since, .. }
        | Activity::Compressing { since, .. }
        | Activity::Tool { since, .. } => since.elapsed().as_millis() as u64,
        Activity::Loading | Activity::Idle | Activity::Approval(_) => 0,
    };
    StatusView {
        model: s.status.model.clone(),
        connection: s.connection.clone(),
        gauge: GaugeView {
            used: b.total(),
            ctx: b.ctx,
            // Compression starts when the recent part reaches its trigger.
            trigger: b.total().saturating_sub(b.recent).saturating_add(b.trigger),
            reserve: b.reserve,
            source: s.status.ctx_source.label(),
        },
        compressions: s.status.compressions,
        reliability: (!s.status.model.is_empty()).then_some(s.status.reliability),
        activity: s.activity.clone(),
        background: s.background.as_ref().map(|b| b.what.clone()),
        elapsed_ms,
        mode: s.status.mode,
        tier: s.status.tier,
        spinner_frame: spinner,
        tools_note: match s.tools {
            ToolsState::Unsupported => Some(words::TOOLS_UNSUPPORTED),
            ToolsState::Off | ToolsState::On(_) => None,
        },
        pull: None,
        mouse: None,
    }
}

impl App {
    /// Opened at a search hit: that message at the top (again after the notices are
    /// placed; the first key press lets it go).
    fn show_start(&mut self) {
        if let Some(at) = self.opts.start_at
            && !self.transcript.show_message(at)
        {
            self.opts.start_at = None;
            self.info(format!("Message {at} is not in this session any more."));
        }
    }

    /// Apply one update from the actor.
    pub(super) fn on_update(&mut self, u: Update) {
        match u {
            Update::Transcript(entries) => {
                self.transcript.replace_all(entries);
                self.ask_thumbnails();
                self.show_start();
            }
            Update::PastNotices(notices) => {
                let mut entries = self.transcript.entries().to_vec();
                for (pos, ts, n) in notices.into_iter().rev() {
                    let text = words::notice(&n, &self.keys).text();
                    entries.insert(
                        pos.min(entries.len()),
                        Entry::notice(n.severity(), text, ts),
                    );
                }
                self.transcript.replace_all(entries);
                self.show_start();
            }
            Update::Appended(entry) => {
                let pictures = !entry.images.is_empty();
                self.transcript.push(entry);
                if pictures {
                    self.ask_thumbnails();
                }
            }
            Update::ReplyStart => {
                self.transcript
                    .push(Entry::assistant("", ReplyState::Streaming, Utc::now()));
                self.transcript.to_bottom();
            }
            Update::Delta(d) => {
                self.transcript.append_delta(&d);
            }
            Update::Thinking(t) => self.transcript.append_thinking(&t),
            Update::ReplyIsToolCall => self.transcript.drop_streaming(),
            Update::ReplyEnd { id: None, .. } if self.transcript.discard_empty_streaming() => {}
            Update::ReplyEnd {
                status: ReplyStatus::Complete,
                ..
            } if self.transcript.drop_if_empty() => {}
            Update::ReplyEnd { status, id } => {
                if let Some(i) = self.transcript.streaming_index() {
                    self.transcript.finish_streaming(match status {
                        ReplyStatus::Complete => ReplyState::Complete,
                        ReplyStatus::Interrupted => ReplyState::Interrupted,
                    });
                    self.transcript.update(i, |e| e.id = id);
                }
            }
            Update::Notice(n) => {
                let text = words::notice(&n, &self.keys).text();
                self.transcript
                    .push(Entry::notice(n.severity(), text, Utc::now()));
            }
            Update::Banner(n) => {
                self.remember_wanted_model(&n);
                self.banner = Some(banner_of(n.severity(), words::notice(&n, &self.keys)));
            }
            Update::ClearBanner => self.banner = None,
            Update::Folded { checkpoint, ids } => {
                let ids: HashSet<_> = ids.into_iter().collect();
                self.update_entries(
                    |e| e.id.is_some_and(|id| ids.contains(&id)),
                    |e| e.folded = Some(checkpoint),
                );
            }
            Update::Merged { checkpoints, into } => {
                self.update_entries(
                    |e| {
                        matches!(e.kind, EntryKind::Fold { checkpoint, .. }
                            if checkpoint != into && checkpoints.contains(&checkpoint))
                    },
                    |e| {
                        if let EntryKind::Fold { merged_into, .. } = &mut e.kind {
                            *merged_into = Some(into);
                        }
                    },
                );
            }
            Update::Pinned { id, pinned } => {
                if let Some(i) = self
                    .transcript
                    .entries()
                    .iter()
                    .rposition(|e| e.id == Some(id))
                {
                    self.transcript.update(i, |e| e.pinned = pinned);
                }
            }
            Update::Engine(_) => {}
            Update::Closed => self.leaving.closed(),
        }
    }

    /// Change every entry that matches (each change drops that entry's render cache).
    fn update_entries(&mut self, matches: impl Fn(&Entry) -> bool, change: impl Fn(&mut Entry)) {
        let at: Vec<usize> = self
            .transcript
            .entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| matches(e))
            .map(|(i, _)| i)
            .collect();
        for i in at {
            self.transcript.update(i, &change);
        }
    }
}
