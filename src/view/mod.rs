//! The vocabulary the actor publishes and the ui renders — one type for each thing, so
//! nothing is mapped onto a parallel copy on the way to the screen:
//! - [`Entry`]: one transcript entry (message, notice line, fold divider);
//! - [`SessionView`]: the session's latest state (status line, panels), a `watch`;
//! - [`Update`]: what changed, in order;
//! - [`Notice`]: what happened, typed; the app words it (`app::words`).
//!
//! Plain data only: no I/O, no rendering, no sentences.

mod entry;
mod notice;
mod session;
mod update;

pub use entry::{Entry, EntryKind, ReplyState, Severity, key_argument};
pub use notice::{Found, McpEvent, Notice, Place, RestoreLookup, show};
pub use session::{
    Activity, ApprovalAsk, BackgroundWork, Connection, SessionScope, SessionView, ToolsState,
};
pub use update::Update;

/// `1234567` → `1,234,567`: how a count is written on the screen and on a pipe's stderr
/// alike.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
