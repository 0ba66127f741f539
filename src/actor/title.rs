//! A short title the model writes for a session, once, after its first answer: in the
//! background (the person is reading; the request is a few tokens), never for a session
//! that has a title already (one given with rename always wins). The request runs as a
//! task of its own; its answer comes back to the actor's loop, which hands it to the
//! engine (`Input::Titled`) unless the session was renamed meanwhile: the engine commits a
//! `title` record, written and synced by the actor's writer like every other record, where
//! the session list, the browser and exports read it.

use super::store::LazyStore;
use super::summarizer::BackendSummarizer;
use crate::core::engine::Engine;
use crate::core::message::Role;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use tokio::task::JoinHandle;

/// How much of the first exchange the title is made from.
const EXCERPT_CHARS: usize = 600;
/// A title is a few words.
const TITLE_TOKENS: u32 = 24;

/// Whether a title was asked of the model in this run, and the request under way.
#[derive(Default)]
pub(super) struct Titler {
    asked: bool,
    /// The model writing the title; its answer becomes a `title` record, written by the
    /// actor's writer like every other record of the session.
    running: Option<JoinHandle<Option<String>>>,
}

impl Titler {
    /// After a complete reply: ask for a title if the session has none yet (once a run).
    pub fn ask_once<B: ChatBackend, S: SessionStore>(
        &mut self,
        store: &LazyStore<S>,
        engine: &Engine,
        summarizer: BackendSummarizer<B>,
    ) {
        if self.asked || engine.title().is_some() || !store.wants_title() {
            return;
        }
        let history = engine.history();
        let first = |role: Role| {
            history
                .iter()
                .find(|m| m.role == role && !m.text.trim().is_empty())
                .map(|m| m.text.chars().take(EXCERPT_CHARS).collect::<String>())
        };
        let (Some(user), Some(reply)) = (first(Role::User), first(Role::Assistant)) else {
            return;
        };
        self.asked = true;
        let request = summarizer.request(
            engine.prompts().summary.title.clone(),
            format!("User: {user}\n\nAssistant: {reply}\n\nTitle:"),
            TITLE_TOKENS,
        );
        let backend = summarizer.backend.clone();
        self.running = Some(tokio::spawn(async move {
            match backend.chat(request).await {
                Ok(r) => Some(clean_title(&r.text)),
                Err(e) => {
                    tracing::info!(error = %e, "no title for the session");
                    None
                }
            }
        }));
    }

    /// The title the model wrote, when its request ends (never when none runs: for
    /// `select!`); `None` when it failed.
    pub async fn done(&mut self) -> Option<String> {
        let Some(task) = &mut self.running else {
            return std::future::pending().await;
        };
        let out = task.await;
        self.running = None;
        out.ok().flatten()
    }

    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Quitting does not wait for a title: the next run asks again.
    pub fn abort(&mut self) {
        if let Some(task) = self.running.take() {
            task.abort();
        }
    }
}

/// The title out of what a model wrote: its first line, without quotes, a `Title:`
/// label, markdown marks or a full stop.
fn clean_title(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let line = line.trim_start_matches('#').trim();
    let line = line
        .strip_prefix("Title:")
        .or_else(|| line.strip_prefix("title:"))
        .unwrap_or(line)
        .trim();
    let marks = |c: char| matches!(c, '"' | '\'' | '*' | '`' | '“' | '”');
    line.trim_end_matches('.')
        .trim_matches(marks)
        .trim_end_matches('.')
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::clean_title;

    #[test]
    fn a_title_is_one_clean_line() {
        assert_eq!(
            clean_title("\n\"Redis cache setup\".\nmore"),
            "Redis cache setup"
        );
        assert_eq!(
            clean_title("## Title: **Shop infra notes**"),
            "Shop infra notes"
        );
        assert_eq!(clean_title("   "), "");
    }
}
