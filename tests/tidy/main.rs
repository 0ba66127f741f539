//! Tidy checks, run with the other tests: the code keeps the rules ARCHITECTURE.md states.
//! - `layers`: every `crate::` import is one the layer table allows;
//! - `map`: every path ARCHITECTURE.md names exists, and every numbered term the code
//!   uses ("stage 2", "layer 1") is one its "Terms" section defines;
//! - `manual`: the files in `assets/manual/` and the topics `ollm-tui help` knows are
//!   the same, and the README, at most 350 lines, names each;
//! - `source`: reading the crate's files (comments and strings blanked, paths named).
#![allow(clippy::unwrap_used)]

mod layers;
mod manual;
mod map;
mod source;
