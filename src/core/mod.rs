//! The context engine: pure, synchronous, free of I/O, tokio and the terminal.
//!
//! Everything here is plain data and functions over it. The engine never calls the model
//! or the disk: inputs go in through one door (`Engine::handle`) and effects come out
//! (persist this record, stream this request, run this compression, tell the person this)
//! for the session actor to carry out; it takes `now` as an input.

pub mod answer;
pub mod budget;
pub mod check;
pub mod checkpoint;
pub mod context;
pub mod digest;
pub mod engine;
pub use engine::compress;
pub mod events;
pub mod facts;
pub mod goals;
pub mod image;
pub mod ledger;
pub mod log_recall;
pub mod markers;
pub mod message;
pub mod mode;
pub mod overview;
pub mod params;
pub mod prompts;
pub mod prose;
pub mod purpose;
pub mod read_through;
pub mod record;
pub mod reliability;
pub mod result_lines;
pub mod results;
pub mod sanitize;
pub mod semantic;
pub mod snapshot;
pub mod speed;
pub mod summarizer;
pub mod summary_check;
#[doc(hidden)]
pub mod testing;
pub mod tokens;
