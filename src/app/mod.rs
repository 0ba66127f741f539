//! The terminal application: events in, commands to the actor out, a view-model drawn.
pub mod keymap;
pub mod slash;
