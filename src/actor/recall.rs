//! Executors of recall by meaning: the embedding model learned when the server is checked
//! (and again when a pull may have added one), the folded sentences' vectors handed to
//! the engine when their job ends, and the person's message embedded before its request
//! (`EmbedQuery`).
//!
//! The request never waits long for its vector: the call has [`QUERY_TIMEOUT`], and on a
//! timeout, an error or Stop the turn goes on by words alone (Stop then ends it before the
//! request, as it would have ended the reply). Measured against the fake server (one
//! short input over HTTP on the loopback, debug build, `tests/actor_recall.rs`): 11 ms
//! median, 16 ms at most, from the embed request to the chat request.

use super::driver::{Actor, Job};
use crate::core::engine::{Embedder, Input};
use crate::llm::{ChatBackend, ModelSummary};
use crate::store::SessionStore;
use crate::view::{Activity, Notice};
use chrono::Utc;
use std::time::{Duration, Instant};

/// Longest the person's request waits for its message's vector.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(2);

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    /// Tell the engine which model makes the vectors, from the installed models
    /// (`installed` when already listed; else they are asked for, unless the person
    /// turned recall by meaning off). A server that cannot list them leaves it unknown.
    pub(super) async fn learn_embedder(&mut self, installed: Option<Vec<ModelSummary>>) {
        let embedder = if self.vectors.off() {
            Embedder::Off
        } else {
            let models = match installed {
                Some(m) => m,
                None => match self.link.backend().list_models().await {
                    Ok(m) => m,
                    Err(e) => {
                        tracing::info!(error = %e, "cannot list the models: recall stays by words");
                        return;
                    }
                },
            };
            let held = self.engine.sentence_vectors().model().to_string();
            self.vectors.pick(&models, &held)
        };
        self.apply(Input::Embedder(embedder));
    }

    /// A model was installed: an embedding model among them is used from now on (said
    /// once, when recall gains it).
    pub(super) async fn models_changed(&mut self) {
        let before = self.engine.recall_status().embedder;
        self.learn_embedder(None).await;
        let after = self.engine.recall_status().embedder;
        if after != before
            && let Embedder::Model(model) = after
        {
            self.out.notice(Notice::RecallByMeaning { model });
        }
    }

    /// The folded sentences' job ended (between turns): the engine records the vectors,
    /// and may ask for the next ones.
    pub(super) async fn vectors_ended(&mut self, answer: Input) {
        self.feed(answer).await;
    }

    /// Embed the person's message for the turn, within [`QUERY_TIMEOUT`]; Stop ends the
    /// turn before its request. Returns what the engine asks for next (the request).
    pub(super) async fn embed_query(&mut self, model: String, text: String) -> Option<Job> {
        let since = Instant::now();
        self.out
            .set_activity(Activity::Generating { since, chunks: 0 });
        self.publish();
        let backend = self.link.backend().clone();
        let call = async move {
            tokio::time::timeout(QUERY_TIMEOUT, backend.embed(&model, &[text])).await
        };
        let answer = match self.listen(call).await {
            None => {
                self.out.notice(Notice::StoppedBeforeReply);
                let fx = self.engine.handle(Input::NoReply, Utc::now());
                return self.execute(fx);
            }
            Some(Ok(Ok(mut vectors))) if vectors.len() == 1 => vectors.pop(),
            Some(Ok(Ok(vectors))) => {
                tracing::warn!(n = vectors.len(), "one vector expected for the message");
                None
            }
            Some(Ok(Err(e))) => {
                tracing::info!(error = %e, "the message's vector failed: recall by words");
                None
            }
            Some(Err(_)) => {
                tracing::info!(
                    after_ms = QUERY_TIMEOUT.as_millis() as u64,
                    "the message's vector took too long: recall by words"
                );
                None
            }
        };
        tracing::info!(
            ms = since.elapsed().as_millis() as u64,
            vector = answer.is_some(),
            "message embedded for recall"
        );
        let fx = self.engine.handle(Input::QueryEmbedded(answer), Utc::now());
        self.execute(fx)
    }
}
