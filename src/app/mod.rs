//! The terminal application: events in, commands to the actor out, a view-model drawn.
//!
//! Files by job: `event_loop` (the loop and drawing), `input` (where keys and pastes go),
//! `overlays` (the dialogs), `present` (what the actor publishes → what the ui draws),
//! `words` (every sentence about what happened, in one place), `commands` (the slash
//! command registry and what each does), `state` (the app's state and small helpers),
//! `keymap`, `paste`, `terminal`.

pub mod commands;
mod event_loop;
mod input;
pub mod keymap;
mod overlays;
pub mod paste;
pub mod present;
mod state;
pub mod terminal;
pub mod words;

#[cfg(test)]
mod tests;

pub use event_loop::FRAME_RATE_HZ;
pub use present::status_view;
pub use state::{App, AppOptions};
