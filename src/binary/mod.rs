//! The binary's parts, which `main.rs` dispatches to: the subcommands, the chat, one
//! message without the TUI, and what they share. They wire the library; the logic is there.

pub mod chat;
pub mod engine;
pub mod errors;
pub mod one_shot;
pub mod session;
pub mod setup;
pub mod subcommands;
pub mod words;
