//! The terminal application: events in, commands to the actor out, a view-model drawn.
pub mod keymap;
pub mod paste;
pub mod run;
pub mod slash;
pub mod terminal;
pub mod words;

pub use run::{App, AppOptions, FRAME_RATE_HZ, entry_of, status_view};
