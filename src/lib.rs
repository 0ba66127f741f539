//! ollm-tui: a terminal chat client for local Ollama models with built-in context
//! compression. The library holds everything but `main`, so tests and benches reach it.
//!
//! Layers, from the inside out:
//! - [`core`]: the pure context engine (budget, pipeline, checkpoints, goals).
//! - [`llm`]: the model server behind the `ChatBackend` trait (Ollama over HTTP).
//! - [`store`]: the session log, snapshots, lock and export on disk.
//! - [`tools`]: the tools the model may call, and MCP servers.
//! - [`actor`]: one task that owns a session's state and executes the engine's effects.
//! - [`view`]: the vocabulary the actor publishes and the ui renders.
//! - [`config`]: the config file, environment and flags, read by `app` and `main`.
//! - [`launch`]: what a session is made of, from the settings: one place for the chat,
//!   the one-shot run and the benchmark.
//! - [`app`] and [`ui`]: the terminal event loop and pure rendering of a view-model.
//! - [`manual`]: the manual's topics, built in from `assets/manual/`, for `ollm-tui help
//!   TOPIC` and `/help TOPIC`; it imports nothing of ours.
//! - [`small_file`]: how every file in the data folder is opened (never a FIFO, a device
//!   or a link out of it; small ones read with a cap), below all that read one.
//!
//! ARCHITECTURE.md's layer table says what each may import; `tests/tidy/` holds the code
//! to it. The fidelity benchmark is not here: it is `benches/fidelity/`.

pub mod actor;
pub mod app;
pub mod config;
pub mod core;
pub mod launch;
pub mod llm;
pub mod manual;
pub mod model_word;
pub mod oneshot;
pub mod small_file;
pub mod store;
pub mod tools;
pub mod ui;
pub mod view;
