//! The engine a session's actor builds: the tokenizer loaded once and shared, the log
//! replayed or a new engine made.

use ollm_tui::config::Settings;
use ollm_tui::core::engine::{Engine, SessionSpec};
use ollm_tui::core::prompts::Prompts;
use ollm_tui::core::tokens::Tiktoken;
use ollm_tui::store::LoadedLog;
use std::sync::Arc;

/// The tokenizer, loaded once on a thread of its own and shared by every engine.
pub struct SharedTokenizer {
    loading: std::sync::Mutex<
        Option<std::thread::JoinHandle<Result<Tiktoken, ollm_tui::core::tokens::TokenizerError>>>,
    >,
    ready: std::sync::OnceLock<Arc<dyn ollm_tui::core::tokens::Tokenizer>>,
}

impl SharedTokenizer {
    pub fn loading() -> Self {
        SharedTokenizer {
            loading: std::sync::Mutex::new(Some(std::thread::spawn(Tiktoken::new))),
            ready: std::sync::OnceLock::new(),
        }
    }

    fn get(&self) -> Arc<dyn ollm_tui::core::tokens::Tokenizer> {
        self.ready
            .get_or_init(|| {
                let handle = self.loading.lock().ok().and_then(|mut h| h.take());
                match handle.map(std::thread::JoinHandle::join) {
                    Some(Ok(Ok(t))) => Arc::new(t),
                    // The tables are embedded; failing to load them is a broken build.
                    _ => Arc::new(ollm_tui::core::tokens::ByteEstimate),
                }
            })
            .clone()
    }
}

/// How the actor builds the session's engine (it runs on the actor's task, so the
/// tokenizer is waited for there, not before the terminal starts): `launch::engine`, as
/// the benchmark builds it.
pub fn make_engine(
    spec: SessionSpec,
    loaded: Option<LoadedLog>,
    settings: &Settings,
    tokenizer: &Arc<SharedTokenizer>,
    prompts: &Arc<Prompts>,
) -> Box<dyn FnOnce() -> Engine + Send> {
    let settings = settings.clone();
    let tokenizer = tokenizer.clone();
    let prompts = prompts.clone();
    Box::new(move || {
        let log = loaded.map(|l| (l.header, l.records));
        ollm_tui::launch::engine(spec, log, &settings, tokenizer.get(), prompts)
    })
}
