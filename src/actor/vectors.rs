//! Recall by meaning, the actor's part: which model makes the vectors (the person's
//! setting against the installed models), and the folded sentences embedded between
//! turns (`EmbedSentences`) as a task of its own.
//!
//! Strategy: the task only calls `embed` and hands the engine its answer (`EmbedJob::
//! answer`); the driver applies it between turns, like a summary's outcome. At most one
//! runs (the engine asks for one at a time).

use super::EmbeddingChoice;
use super::link::same_model;
use crate::core::engine::{EmbedJob, Embedder, Input};
use crate::llm::{
    ChatBackend, ModelSummary, SUGGESTED_EMBEDDING_MODEL, is_embedding_model, pick_embedding_model,
};
use std::sync::Arc;
use std::time::Instant;
use tokio::task::JoinHandle;

/// The part: the person's choice and the job running.
pub(super) struct Vectors {
    choice: EmbeddingChoice,
    running: Option<JoinHandle<Input>>,
}

impl Vectors {
    pub fn new(choice: EmbeddingChoice) -> Self {
        Vectors {
            choice,
            running: None,
        }
    }

    /// Whether the person turned recall by meaning off (nothing is listed for it then).
    pub fn off(&self) -> bool {
        self.choice == EmbeddingChoice::Off
    }

    /// What makes the vectors among `installed`: the model the person named, else
    /// (automatic) the one the session's vectors are from (`held`) while it is installed,
    /// so they need not be made again, else the best installed embedding model.
    pub fn pick(&self, installed: &[ModelSummary], held: &str) -> Embedder {
        match &self.choice {
            EmbeddingChoice::Off => Embedder::Off,
            EmbeddingChoice::Named(name) => {
                match installed.iter().find(|m| same_model(&m.name, name)) {
                    Some(m) => Embedder::Model(m.name.clone()),
                    None => Embedder::Missing { pull: name.clone() },
                }
            }
            EmbeddingChoice::Auto => {
                let kept = installed
                    .iter()
                    .find(|m| !held.is_empty() && m.name == held && is_embedding_model(m));
                match kept.or_else(|| pick_embedding_model(installed)) {
                    Some(m) => Embedder::Model(m.name.clone()),
                    None => Embedder::Missing {
                        pull: SUGGESTED_EMBEDDING_MODEL.to_string(),
                    },
                }
            }
        }
    }

    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Embed `job`'s sentences in a task of its own.
    pub fn start<B: ChatBackend>(&mut self, job: EmbedJob, backend: Arc<B>) {
        if let Some(old) = self.running.take() {
            tracing::error!("a second embedding job was asked for; the first is dropped");
            old.abort();
        }
        self.running = Some(tokio::spawn(async move {
            let inputs = job.inputs();
            let since = Instant::now();
            let result = backend
                .embed(&job.model, &inputs)
                .await
                .map_err(|e| e.to_string());
            tracing::info!(
                model = %job.model,
                sentences = inputs.len(),
                ms = since.elapsed().as_millis() as u64,
                ok = result.is_ok(),
                "folded sentences embedded"
            );
            job.answer(result)
        }));
    }

    /// Wait for the running job's answer, or forever when none runs (for `select!`).
    pub async fn done(&mut self) -> Input {
        let Some(task) = &mut self.running else {
            return std::future::pending().await;
        };
        let out = task.await;
        self.running = None;
        match out {
            Ok(input) => input,
            Err(e) => {
                tracing::error!(%e, "the embedding task failed to finish");
                Input::SentencesEmbedded {
                    model: String::new(),
                    vectors: Err("the embedding task failed".into()),
                }
            }
        }
    }

    /// Stop the running job (quitting); its answer is not applied.
    pub fn abort(&mut self) {
        if let Some(task) = self.running.take() {
            task.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(name: &str, capabilities: &[&str]) -> ModelSummary {
        ModelSummary {
            name: name.to_string(),
            size_bytes: 1,
            parameter_size: None,
            family: None,
            modified_at: None,
            context_length: None,
            capabilities: capabilities.iter().map(|c| c.to_string()).collect(),
        }
    }

    #[test]
    fn the_embedding_model_is_the_named_the_held_or_the_best_installed() {
        let installed = [
            model("llama3.2:3b", &["completion", "tools"]),
            model("nomic-embed-text:latest", &["embedding"]),
            model("all-minilm:latest", &["embedding"]),
        ];
        let auto = Vectors::new(EmbeddingChoice::Auto);
        assert_eq!(
            auto.pick(&installed, ""),
            Embedder::Model("all-minilm:latest".into())
        );
        // The session's vectors are nomic's: kept while it is installed.
        assert_eq!(
            auto.pick(&installed, "nomic-embed-text:latest"),
            Embedder::Model("nomic-embed-text:latest".into())
        );
        assert_eq!(
            auto.pick(&installed[..1], ""),
            Embedder::Missing {
                pull: "all-minilm".into()
            }
        );
        let named = Vectors::new(EmbeddingChoice::Named("nomic-embed-text".into()));
        assert_eq!(
            named.pick(&installed, "all-minilm:latest"),
            Embedder::Model("nomic-embed-text:latest".into())
        );
        assert_eq!(
            named.pick(&installed[..1], ""),
            Embedder::Missing {
                pull: "nomic-embed-text".into()
            }
        );
        assert_eq!(
            Vectors::new(EmbeddingChoice::Off).pick(&installed, ""),
            Embedder::Off
        );
    }
}
