//! The context engine: pure, synchronous, free of I/O, tokio and the terminal.
//!
//! Everything here is plain data and functions over it. The engine never calls the model
//! or the disk: it returns effects (summarize these messages, persist this record, warn)
//! that the session actor carries out, and it takes `now` as an input.

pub mod budget;
pub mod checkpoint;
pub mod compress;
pub mod context;
pub mod engine;
pub mod events;
pub mod facts;
pub mod goals;
pub mod markers;
pub mod message;
pub mod mode;
pub mod pipeline;
pub mod prompts;
pub mod record;
pub mod reliability;
pub mod sanitize;
pub mod snapshot;
pub mod summarizer;
#[doc(hidden)]
pub mod testing;
pub mod tokens;
