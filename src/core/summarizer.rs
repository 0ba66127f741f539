//! The one thing the engine needs from a model: turn a prompt into a summary.
//!
//! The trait is async (the real implementation talks HTTP) but runtime-agnostic: the
//! engine's pipeline awaits it without knowing about tokio. `doubles` holds deterministic
//! implementations for tests and benchmarks.

use std::future::Future;

/// One summarization call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRequest {
    /// States the job (small models refuse a bare "summarize" user message).
    pub system: String,
    pub user: String,
    /// Token cap, sent as `options.num_predict` (Ollama ignores `max_tokens`).
    pub num_predict: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SummaryError {
    #[error("summary failed: {0}")]
    Failed(String),
    #[error("summary cancelled")]
    Cancelled,
}

pub trait Summarizer: Send + Sync {
    fn summarize(
        &self,
        request: SummaryRequest,
    ) -> impl Future<Output = Result<String, SummaryError>> + Send;
}

/// Deterministic summarizers for tests and benches.
pub mod doubles {
    use super::*;
    use crate::core::facts;
    use std::collections::VecDeque;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicU32, Ordering};

    fn words_in(text: &str) -> impl Iterator<Item = &str> {
        text.split_whitespace()
    }

    /// Keeps the facts of its input and the first words of each line, within the cap:
    /// a well-behaved model.
    #[derive(Debug, Default)]
    pub struct Extractive {
        pub calls: AtomicU32,
    }

    impl Extractive {
        pub fn new() -> Self {
            Self::default()
        }
        pub fn calls(&self) -> u32 {
            self.calls.load(Ordering::Relaxed)
        }
    }

    /// Build an extractive summary of `text` in at most `max_words` words.
    pub fn extract_summary(text: &str, max_words: usize) -> String {
        let mut out: Vec<String> = Vec::new();
        let mut used = 0usize;
        for f in facts::extract(text) {
            let n = words_in(&f.text).count();
            if used + n > max_words / 2 {
                break;
            }
            used += n;
            out.push(f.text);
        }
        let mut summary = if out.is_empty() {
            String::new()
        } else {
            format!("Facts: {}.", out.join(", "))
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            for w in words_in(line).take(6) {
                if used >= max_words {
                    break;
                }
                summary.push(' ');
                summary.push_str(w);
                used += 1;
            }
            if used >= max_words {
                break;
            }
        }
        summary.trim().to_string()
    }

    impl Summarizer for Extractive {
        async fn summarize(&self, request: SummaryRequest) -> Result<String, SummaryError> {
            self.calls.fetch_add(1, Ordering::Relaxed);
            let max_words = (request.num_predict as usize * 6 / 10).max(4);
            Ok(extract_summary(&request.user, max_words))
        }
    }

    /// Always fails, like a server that went away.
    #[derive(Debug, Default)]
    pub struct Failing;

    impl Summarizer for Failing {
        async fn summarize(&self, _request: SummaryRequest) -> Result<String, SummaryError> {
            Err(SummaryError::Failed("server unreachable".into()))
        }
    }

    /// Returns scripted replies in order, then fails; records the requests it saw.
    #[derive(Debug, Default)]
    pub struct Scripted {
        replies: Mutex<VecDeque<Result<String, SummaryError>>>,
        pub seen: Mutex<Vec<SummaryRequest>>,
    }

    impl Scripted {
        pub fn new(replies: impl IntoIterator<Item = Result<String, SummaryError>>) -> Self {
            Scripted {
                replies: Mutex::new(replies.into_iter().collect()),
                seen: Mutex::new(Vec::new()),
            }
        }
        pub fn requests(&self) -> Vec<SummaryRequest> {
            self.seen.lock().map(|s| s.clone()).unwrap_or_default()
        }
    }

    impl Summarizer for Scripted {
        async fn summarize(&self, request: SummaryRequest) -> Result<String, SummaryError> {
            if let Ok(mut seen) = self.seen.lock() {
                seen.push(request);
            }
            self.replies
                .lock()
                .ok()
                .and_then(|mut r| r.pop_front())
                .unwrap_or_else(|| Err(SummaryError::Failed("no scripted reply left".into())))
        }
    }

    /// Misbehaves deterministically from a seed: sometimes ignores the cap, sometimes
    /// rambles longer than its input, sometimes drops every fact, sometimes fails.
    /// For property tests: whatever it does, the engine's invariants must hold.
    #[derive(Debug)]
    pub struct Erratic {
        state: Mutex<u64>,
        calls: AtomicU32,
    }

    impl Erratic {
        pub fn new(seed: u64) -> Self {
            Erratic {
                state: Mutex::new(seed | 1),
                calls: AtomicU32::new(0),
            }
        }
        /// Requests answered so far (failures included).
        pub fn calls(&self) -> u32 {
            self.calls.load(Ordering::Relaxed)
        }
        fn next(&self) -> u64 {
            let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
            // xorshift64*
            let mut x = *s;
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            *s = x;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
    }

    impl Summarizer for Erratic {
        async fn summarize(&self, request: SummaryRequest) -> Result<String, SummaryError> {
            self.calls.fetch_add(1, Ordering::Relaxed);
            let roll = self.next() % 100;
            let cap_words = (request.num_predict as usize * 6 / 10).max(4);
            match roll {
                0..=4 => Err(SummaryError::Failed("erratic failure".into())),
                5..=14 => Ok(request.user.repeat(2)),
                15..=24 => Ok("ok ".repeat(cap_words * 3)),
                25..=39 => Ok("nothing specific was said".into()),
                _ => {
                    let words = 1 + (self.next() as usize % cap_words);
                    Ok(extract_summary(&request.user, words))
                }
            }
        }
    }
}
