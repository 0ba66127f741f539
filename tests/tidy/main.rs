//! Tidy checks, run with the other tests: the code keeps the rules ARCHITECTURE.md states.
//! - `layers`: every `crate::` import is one the layer table allows;
//! - `source`: reading the crate's files (comments and strings blanked, paths named).
#![allow(clippy::unwrap_used)]

mod layers;
mod source;
