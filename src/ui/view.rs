//! The view-model: everything one frame shows, as plain data the app assembles.
//!
//! The app builds a [`UiView`] each frame from borrowed state (no clones of the
//! transcript, goal board or checkpoints) and passes it to [`crate::ui::render`]. The
//! only mutable part is the [`Transcript`], which owns the render caches and the scroll
//! position. Text here is untrusted and is sanitized by the renderers, not by the app.

use super::theme::Theme;
use super::transcript::Transcript;
use crate::core::checkpoint::Checkpoint;
use crate::core::goals::GoalBoard;
use crate::core::message::Message;
use crate::core::mode::{Mode, Tier};
use crate::core::reliability::Reliability;
use crate::core::snapshot::SnapshotMeta;
use crate::view::{Activity, Connection, Severity};
use chrono::{DateTime, FixedOffset, Utc};

/// One frame's worth of state.
pub struct UiView<'a> {
    pub transcript: &'a mut Transcript,
    /// The input box. The UI draws its border; give the textarea no block of its own.
    pub input: &'a tui_textarea::TextArea<'static>,
    /// A short note shown on the input border, e.g. "paste capped at 1 MiB".
    pub input_note: Option<String>,
    pub status: StatusView,
    /// The goal panel; `None` = hidden.
    pub panel: Option<PanelView<'a>>,
    pub overlay: Option<Overlay<'a>>,
    pub banner: Option<Banner>,
    pub theme: &'a Theme,
    /// ASCII-only decorations: no emoji, no box drawing.
    pub ascii: bool,
    /// Offset used to show timestamps as local time (`Local::now().offset().fix()`);
    /// explicit so rendering stays a pure function.
    pub utc_offset: FixedOffset,
    /// Tool calls and reasoning unfolded (the details key).
    pub details: bool,
    /// Messages typed ahead, waiting for the turn to end (shown under the transcript).
    pub queued: &'a [String],
    /// Pictures attached to the next message, a chip each, worded by the app (shown
    /// under the transcript, above the box, until the message is sent).
    pub attached: Vec<String>,
    /// What a picture costs, for the chips under sent messages (`None`: not said).
    pub image_cost: Option<crate::core::image::ImageCost>,
    /// The pictures drawn as thumbnails under their chips; `None`: chips only (the
    /// terminal draws no pictures, or `thumbnails = false`, `NO_COLOR`, ASCII, tmux).
    pub thumbnails: Option<&'a crate::ui::thumbnail::Thumbnails>,
}

/// The status line.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusView {
    pub model: String,
    pub connection: Connection,
    pub gauge: GaugeView,
    pub compressions: u32,
    pub reliability: Option<Reliability>,
    pub activity: Activity,
    /// A compression running between turns (what it does, with its progress).
    pub background: Option<String>,
    /// Milliseconds since the activity began (the app reads the clock, so rendering
    /// stays a pure function).
    pub elapsed_ms: u64,
    pub mode: Mode,
    pub tier: Tier,
    /// Advanced by the app on a timer while something is in progress.
    pub spinner_frame: usize,
    /// Said beside the mode when tools cannot be used ("no tools: model").
    pub tools_note: Option<&'static str>,
    /// A model pull whose dialog is hidden ("pulling NAME 42 %"): it goes on, and the
    /// person would otherwise not see it until it ends.
    pub pull: Option<String>,
    /// Said after the mode while the mouse is left to the terminal ("mouse: terminal (F9)"):
    /// the wheel then scrolls the terminal, not the transcript, which is easy to forget.
    pub mouse: Option<String>,
}

/// Token budget figures for the live gauge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GaugeView {
    /// Tokens the active context holds now (calibrated).
    pub used: u32,
    /// `num_ctx` sent to Ollama.
    pub ctx: u32,
    /// `used` at which automatic compression starts.
    pub trigger: u32,
    /// Tokens kept free for the reply.
    pub reserve: u32,
    /// Where `ctx` came from, when it was not set by hand ("server", "capped", …).
    pub source: Option<&'static str>,
}

/// Colour band of the gauge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GaugeBand {
    /// Below 60% of the trigger.
    Calm,
    /// Between 60% of the trigger and the trigger.
    Filling,
    /// At or past the trigger: compression is due.
    Hot,
    /// Past `ctx - reserve`: the reply has less room than it should.
    Critical,
}

impl GaugeView {
    pub fn band(&self) -> GaugeBand {
        let limit = self.ctx.saturating_sub(self.reserve);
        let trigger = if self.trigger == 0 {
            limit
        } else {
            self.trigger
        };
        if self.ctx > 0 && self.used > limit {
            GaugeBand::Critical
        } else if self.used >= trigger && trigger > 0 {
            GaugeBand::Hot
        } else if u64::from(self.used) * 10 >= u64::from(trigger) * 6 && trigger > 0 {
            GaugeBand::Filling
        } else {
            GaugeBand::Calm
        }
    }

    /// `used / ctx` as a whole percentage (may exceed 100).
    pub fn percent(&self) -> u32 {
        if self.ctx == 0 {
            return 0;
        }
        let p = (u64::from(self.used) * 100 + u64::from(self.ctx) / 2) / u64::from(self.ctx);
        u32::try_from(p).unwrap_or(u32::MAX)
    }
}

/// The goal panel.
#[derive(Debug, Clone, Copy)]
pub struct PanelView<'a> {
    pub goals: &'a GoalBoard,
    /// Live compression checkpoints, oldest first.
    pub checkpoints: &'a [Checkpoint],
    /// Selected row of the checkpoint list (for the inspector).
    pub selected: Option<usize>,
    /// The panel has keyboard focus.
    pub focused: bool,
    pub now: DateTime<Utc>,
    /// The session's own system prompt and parameters (`/system`, `/set`), shown when set.
    pub params: Option<&'a crate::core::params::SessionParams>,
    /// What every request carries besides the conversation: the tools offered and what
    /// their schemas cost, those the window has no room for, whether folds still get the
    /// model's summaries.
    pub status: Option<&'a crate::core::engine::EngineStatus>,
}

/// A popup drawn over everything else.
#[derive(Debug, Clone)]
pub enum Overlay<'a> {
    /// Key bindings as (keys, what they do).
    Help {
        bindings: &'a [(String, String)],
        scroll: u16,
    },
    /// The fact ledger (`/facts`).
    Facts {
        rows: &'a [crate::core::engine::FactRow],
        selected: usize,
    },
    /// A part of the manual (`/help TOPIC`): Markdown, scrolled as the help is.
    Topic {
        title: &'a str,
        text: &'a str,
        scroll: u16,
    },
    /// Restore picker.
    Snapshots {
        items: &'a [SnapshotMeta],
        selected: usize,
        now: DateTime<Utc>,
        /// Del was pressed once: the footer asks to confirm the deletion.
        confirm_delete: bool,
    },
    /// Model picker.
    Models {
        items: &'a [ModelEntry],
        selected: usize,
        current: &'a str,
        /// "loading…", or an error with its fix.
        note: Option<&'a str>,
        /// A first row that pulls the session's missing model ("Pull NAME…").
        pull: Option<String>,
    },
    /// Theme picker (`/theme`). The frame around it is already drawn in the selected
    /// theme: `UiView::theme` is the preview.
    Themes {
        names: Vec<&'a str>,
        selected: usize,
        /// The theme in use before the picker opened (Esc goes back to it).
        current: &'a str,
        /// Why the selected theme cannot be shown, or that `NO_COLOR` takes the colours.
        note: Option<&'a str>,
    },
    /// A model being pulled: the status words and figures, and a bar.
    Pull {
        title: String,
        lines: Vec<String>,
        /// The bar's filled share; `None` until the size is known.
        ratio: Option<f64>,
        footer: &'a str,
    },
    /// A checkpoint's summary beside the messages it replaced.
    Inspector {
        checkpoint: &'a Checkpoint,
        originals: &'a [Message],
        scroll: u16,
    },
    /// A tool result as the model saw it beside the whole of it (`/inspect #N`).
    ResultInspector {
        id: crate::core::message::MessageId,
        tool: &'a str,
        seen: &'a str,
        original: &'a str,
        scroll: u16,
    },
    /// A tool call that asks before it runs.
    Approval {
        ask: &'a crate::view::ApprovalAsk,
        scroll: u16,
    },
    /// The session browser.
    Sessions {
        /// The sessions the filter keeps (`None` while loading).
        rows: Option<Vec<SessionRow>>,
        /// How many there are before filtering.
        total: usize,
        selected: usize,
        filter: &'a str,
        prompt: BrowserPrompt<'a>,
        note: Option<&'a str>,
        now: DateTime<Utc>,
    },
    /// Hits of `/search` (`None` while searching).
    Search {
        query: &'a str,
        rows: Option<Vec<SearchRow>>,
        selected: usize,
        note: Option<&'a str>,
    },
}

/// One session in the browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    pub id: String,
    pub title: Option<String>,
    pub model: String,
    pub last_activity: DateTime<Utc>,
    pub messages: usize,
    pub compressions: usize,
    pub size_bytes: u64,
    /// The session this app has open.
    pub current: bool,
    /// Forked from this session (its id), when it is a fork.
    pub parent: Option<String>,
    /// Why its log reads with losses, if it does.
    pub problem: Option<String>,
}

/// One hit of a search, under its session's heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRow {
    pub session_id: String,
    /// The session's title, on the first hit of each session.
    pub heading: Option<String>,
    pub seq: u64,
    pub ts: DateTime<Utc>,
    pub role: &'static str,
    pub snippet: String,
    pub matched: std::ops::Range<usize>,
}

/// What the browser's footer asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrowserPrompt<'a> {
    None,
    /// The new title as typed so far, and the most characters a title keeps (shown as a
    /// count, so the input visibly stops there).
    Rename(&'a str, usize),
    ConfirmDelete,
}

/// A row of the model picker (from `/api/tags` and `/api/show`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelEntry {
    pub name: String,
    pub size_bytes: Option<u64>,
    pub parameter_size: Option<String>,
    pub context_length: Option<u32>,
    /// Ollama's capabilities ("tools", "thinking", "vision", …), when known.
    pub capabilities: Vec<String>,
}

/// A notice that needs the user: what happened, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Banner {
    pub level: Severity,
    pub title: String,
    /// The fix. Every banner the app raises should have one.
    pub hint: Option<String>,
}

impl Banner {
    pub fn new(level: Severity, title: impl Into<String>, hint: impl Into<String>) -> Banner {
        Banner {
            level,
            title: title.into(),
            hint: Some(hint.into()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn g(used: u32) -> GaugeView {
        GaugeView {
            used,
            ctx: 10_000,
            trigger: 8_000,
            reserve: 1_000,
            source: None,
        }
    }

    #[test]
    fn gauge_bands_have_the_documented_edges() {
        assert_eq!(g(0).band(), GaugeBand::Calm);
        assert_eq!(g(4_799).band(), GaugeBand::Calm);
        assert_eq!(g(4_800).band(), GaugeBand::Filling); // 60% of the trigger
        assert_eq!(g(7_999).band(), GaugeBand::Filling);
        assert_eq!(g(8_000).band(), GaugeBand::Hot); // at the trigger
        assert_eq!(g(9_000).band(), GaugeBand::Hot); // ctx - reserve is still hot
        assert_eq!(g(9_001).band(), GaugeBand::Critical);
        assert_eq!(g(12_000).band(), GaugeBand::Critical);
    }

    #[test]
    fn gauge_without_a_trigger_uses_the_reserve_line() {
        let mut v = g(8_500);
        v.trigger = 0;
        assert_eq!(v.band(), GaugeBand::Filling);
        v.used = 9_000;
        assert_eq!(v.band(), GaugeBand::Hot);
        let empty = GaugeView::default();
        assert_eq!(empty.band(), GaugeBand::Calm);
        assert_eq!(empty.percent(), 0);
    }

    #[test]
    fn percent_rounds_and_may_exceed_100() {
        assert_eq!(g(5_234).percent(), 52);
        assert_eq!(g(3_849).percent(), 38);
        assert_eq!(g(3_850).percent(), 39);
        assert_eq!(g(10_500).percent(), 105);
    }
}
