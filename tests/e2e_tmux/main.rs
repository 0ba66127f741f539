//! End to end: the real `ollm-tui` binary in a tmux pane, talking to the fake Ollama server
//! over HTTP. Keys go in with `send-keys`, the screen comes out with `capture-pane`.
//!
//! Waiting is always for a condition on the screen (polling `capture-pane`) with a
//! generous deadline, never a fixed sleep that passes by luck. Every key changes what the
//! app does with the next one (Esc followed at once by a letter reads as Alt+letter), so
//! the harness refuses to send a key before the screen has shown the effect of the last
//! one (`Tmux::wait_for`). tmux is required (`.ci/run` installs it); each test uses its own
//! tmux server socket.
//!
//! Files: `harness` (the pane, keys, waits; the `Rig`: the fake server and a data directory),
//! `chat`, `faults` (kill -9, signals, a tiny terminal), `tools` (calls, approvals, attacks
//! through scripted calls), `sessions`, `pull` (`/pull` with its progress, Esc), `copy`
//! (`/copy` by OSC 52, the mouse released), `new_session` (`/new`, `/bye`, `/system` and
//! `/set`, what `/fork` keeps), `shipped` (the benchmark's first request is the binary's), `pictures` (`/image`, a
//! path in a message, resume, a model without `vision`).
#![allow(clippy::unwrap_used)]

/// The fidelity benchmark, for `shipped` (it lives outside the library).
#[allow(dead_code, unused_imports)]
#[path = "../../benches/fidelity/mod.rs"]
mod fidelity;
#[path = "../store_fixtures.rs"]
mod fixtures;
#[path = "../support/mod.rs"]
mod support;

mod chat;
mod copy;
mod faults;
mod harness;
mod new_session;
mod pictures;
mod pull;
mod screen;
mod sessions;
mod shipped;
mod tools;
