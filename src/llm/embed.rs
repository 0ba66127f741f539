//! Embeddings (`POST /api/embed`): vectors for recall by meaning, and which installed model
//! makes them.
//!
//! Over reqwest rather than ollama-rs: its embeddings call reports an error answer as a
//! string without its status, and a chat model asked to embed (HTTP 501) must be told
//! apart from a missing one (404) and from a server that is down, because each means
//! something else to the person (pull a model, pick another, start Ollama). Inputs go in
//! batches of [`EMBED_BATCH`]; each answer is read up to [`MAX_EMBED_RESPONSE`] bytes and
//! checked: one vector per input, one dimension for all, every component finite.

use serde_json::{Value, json};

use super::backend::ModelSummary;
use super::error::{LlmError, Waiting, cause_chain};
use super::ndjson::preview;
use super::ollama::OllamaBackend;
use super::status::status_error;

/// Inputs per request: a batch of 32 short sentences took ~0.2 s on all-minilm on two
/// busy cores (ollama-real), so a batch stays well inside the plain-call timeout even at
/// 256 tokens an input (~3.3 s), and a long chat's first embedding is a few requests.
pub const EMBED_BATCH: usize = 32;
/// The largest answer read for one batch: 32 vectors of 4,096 dimensions written as JSON
/// (~25 bytes a number) are ~3.3 MB; anything far beyond is not an embedding answer.
pub const MAX_EMBED_RESPONSE: usize = 16 << 20;

/// Names of embedding models in Ollama's library, best first for recall on a person's
/// machine: small and quick before large, English-only before none.
const KNOWN_EMBEDDERS: &[&str] = &[
    "all-minilm",
    "nomic-embed-text",
    "snowflake-arctic-embed",
    "mxbai-embed-large",
    "bge-m3",
    "bge-large",
    "bge-",
    "granite-embedding",
    "embeddinggemma",
    "paraphrase-multilingual",
    "qwen3-embedding",
];

/// Whether `m` makes embeddings: its capabilities say so (`/api/show`), or, where the
/// server reports none (older Ollama), its name is a known embedding model's.
pub fn is_embedding_model(m: &ModelSummary) -> bool {
    if m.capabilities.iter().any(|c| c == "embedding") {
        return true;
    }
    m.capabilities.is_empty() && known_rank(&m.name).is_some()
}

/// Whether the model named `name`, with these capabilities (`/api/show`), makes
/// embeddings and cannot chat: `embedding` without `completion`, or, where the server
/// reports none, a known embedding model's name. Such a model is never a chat model.
pub fn embedding_only(name: &str, capabilities: &[String]) -> bool {
    if capabilities.iter().any(|c| c == "completion") {
        return false;
    }
    capabilities.iter().any(|c| c == "embedding")
        || capabilities.is_empty() && known_rank(name).is_some()
}

/// Where `name` stands in [`KNOWN_EMBEDDERS`]: "nomic-embed-text:v1.5" and
/// "snowflake-arctic-embed2" are theirs, "all-minilmish" is not; a namespace
/// ("library/") is ignored.
fn known_rank(name: &str) -> Option<usize> {
    let base = name.rsplit('/').next().unwrap_or(name).to_lowercase();
    let base = base.split(':').next().unwrap_or("");
    KNOWN_EMBEDDERS.iter().position(|k| {
        base.strip_prefix(k).is_some_and(|rest| {
            k.ends_with('-')
                || rest.is_empty()
                || rest.starts_with(|c: char| c == '-' || c.is_ascii_digit())
        })
    })
}

/// Which model makes the vectors of recall by meaning (`[recall] embedding_model`): a
/// setting the config reads and the actor's `vectors.rs` applies, so it lives with the
/// embedding models it picks among.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum EmbeddingChoice {
    /// An installed embedding model, if any ([`pick_embedding_model`]; the one the
    /// session's vectors are from while it is installed).
    #[default]
    Auto,
    /// None: recall is by words alone, and nothing suggests a model.
    Off,
    /// This one, when installed.
    Named(String),
}

/// The installed model recall should embed with: a known embedding model first (in the
/// order of [`KNOWN_EMBEDDERS`]), else any model whose capabilities say `embedding`, the
/// smallest; `None` when nothing installed embeds (recall is then by words alone).
pub fn pick_embedding_model(models: &[ModelSummary]) -> Option<&ModelSummary> {
    let mut embedders: Vec<&ModelSummary> =
        models.iter().filter(|m| is_embedding_model(m)).collect();
    embedders.sort_by_key(|m| {
        (
            known_rank(&m.name).unwrap_or(usize::MAX),
            m.size_bytes,
            m.name.clone(),
        )
    });
    embedders.first().copied()
}

impl OllamaBackend {
    /// Every input's vector, in order, in batches of [`EMBED_BATCH`].
    pub(super) async fn embed_all(
        &self,
        model: &str,
        inputs: &[String],
    ) -> Result<Vec<Vec<f32>>, LlmError> {
        let mut out: Vec<Vec<f32>> = Vec::with_capacity(inputs.len());
        for batch in inputs.chunks(EMBED_BATCH) {
            let vectors = self.embed_batch(model, batch).await?;
            if let (Some(first), Some(v)) = (out.first(), vectors.first())
                && first.len() != v.len()
            {
                return Err(self.malformed(format!(
                    "vectors of {} and of {} dimensions from one model",
                    first.len(),
                    v.len()
                )));
            }
            out.extend(vectors);
        }
        Ok(out)
    }

    fn malformed(&self, detail: String) -> LlmError {
        LlmError::Malformed {
            url: self.url("/api/embed"),
            detail,
        }
    }

    /// One request: the answer read (bounded) and checked.
    async fn embed_batch(&self, model: &str, batch: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        let url = self.url("/api/embed");
        let body = json!({ "model": model, "input": batch });
        let exchange = async {
            let mut resp = self
                .http()
                .post(&url)
                .json(&body)
                .send()
                .await
                .map_err(|e| self.send_error(&e))?;
            let status = resp.status();
            let mut bytes: Vec<u8> = Vec::new();
            while let Some(chunk) = resp.chunk().await.map_err(|e| LlmError::Connection {
                url: url.clone(),
                cause: cause_chain(&e),
            })? {
                if bytes.len() + chunk.len() > MAX_EMBED_RESPONSE {
                    return Err(self.malformed(format!(
                        "an answer over {} MB for {} inputs",
                        MAX_EMBED_RESPONSE >> 20,
                        batch.len()
                    )));
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok::<_, LlmError>((status, bytes))
        };
        let (status, bytes) = tokio::time::timeout(self.options.request_timeout, exchange)
            .await
            .map_err(|_| LlmError::Timeout {
                waiting: Waiting::Response,
                after: self.options.request_timeout,
            })??;
        if !status.is_success() {
            let err = status_error(status.as_u16(), &url, &bytes, Some(model));
            tracing::debug!(%err, "embed refused");
            return Err(err);
        }
        let v: Value = serde_json::from_slice(&bytes)
            .map_err(|e| self.malformed(format!("not JSON ({e}): {}", preview(&bytes))))?;
        read_vectors(&v, batch.len()).map_err(|detail| self.malformed(detail))
    }
}

/// The `embeddings` of an answer: `expected` vectors of one dimension, finite.
fn read_vectors(v: &Value, expected: usize) -> Result<Vec<Vec<f32>>, String> {
    let Some(list) = v.get("embeddings").and_then(Value::as_array) else {
        return Err("no \"embeddings\" list in the answer".to_string());
    };
    if list.len() != expected {
        return Err(format!("{} vectors for {expected} inputs", list.len()));
    }
    let mut out: Vec<Vec<f32>> = Vec::with_capacity(list.len());
    for item in list {
        let Some(numbers) = item.as_array() else {
            return Err("a vector that is not a list".to_string());
        };
        let vector: Option<Vec<f32>> = numbers
            .iter()
            .map(|n| n.as_f64().map(|x| x as f32).filter(|x| x.is_finite()))
            .collect();
        let Some(vector) = vector else {
            return Err("a vector with a component that is not a finite number".to_string());
        };
        if vector.is_empty() {
            return Err("an empty vector".to_string());
        }
        if let Some(first) = out.first()
            && first.len() != vector.len()
        {
            return Err(format!(
                "vectors of {} and of {} dimensions in one answer",
                first.len(),
                vector.len()
            ));
        }
        out.push(vector);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(name: &str, size: u64, capabilities: &[&str]) -> ModelSummary {
        ModelSummary {
            name: name.to_string(),
            size_bytes: size,
            parameter_size: None,
            family: None,
            modified_at: None,
            context_length: None,
            capabilities: capabilities.iter().map(|c| c.to_string()).collect(),
        }
    }

    #[test]
    fn an_embedding_model_is_picked_by_what_it_can_do_then_by_name() {
        let chat = model("qwen2.5-coder:0.5b", 400, &["completion", "tools"]);
        assert_eq!(pick_embedding_model(std::slice::from_ref(&chat)), None);
        let nomic = model("nomic-embed-text:latest", 274, &["embedding"]);
        let minilm = model("all-minilm:latest", 46, &["embedding"]);
        let custom = model("acme/sentence-vectors:1", 10, &["embedding"]);
        let picked = |models: &[&ModelSummary]| {
            let owned: Vec<ModelSummary> = models.iter().map(|m| (*m).clone()).collect();
            pick_embedding_model(&owned).map(|m| m.name.clone())
        };
        assert_eq!(
            picked(&[&chat, &nomic, &minilm]).as_deref(),
            Some("all-minilm:latest")
        );
        assert_eq!(
            picked(&[&chat, &custom, &nomic]).as_deref(),
            Some("nomic-embed-text:latest")
        );
        // Unknown by name, but the server says it embeds.
        assert_eq!(
            picked(&[&chat, &custom]).as_deref(),
            Some("acme/sentence-vectors:1")
        );
        // An older server reports no capabilities: the name decides.
        let old = model("bge-large:335m", 670, &[]);
        assert!(is_embedding_model(&old));
        assert!(is_embedding_model(&model("mxbai-embed-large", 670, &[])));
        assert!(is_embedding_model(&model(
            "library/bge-m3:latest",
            1200,
            &[]
        )));
        assert!(is_embedding_model(&model(
            "snowflake-arctic-embed2",
            1200,
            &[]
        )));
        // A chat model whose name merely starts like one is not taken on its name.
        assert!(!is_embedding_model(&model(
            "all-minilmish-chat:7b",
            4000,
            &[]
        )));
        assert!(!is_embedding_model(&model(
            "nomic-embed-text:latest",
            274,
            &["completion"]
        )));
    }

    #[test]
    fn a_model_that_only_embeds_cannot_chat() {
        let caps = |c: &[&str]| c.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        assert!(embedding_only("all-minilm:latest", &caps(&["embedding"])));
        assert!(embedding_only("acme/vectors", &caps(&["embedding"])));
        assert!(embedding_only("bge-m3", &[]));
        assert!(!embedding_only(
            "llama3.2:3b",
            &caps(&["completion", "tools"])
        ));
        assert!(!embedding_only("llama3.2:3b", &[]));
        // One that does both chats.
        assert!(!embedding_only(
            "all-minilm:latest",
            &caps(&["completion", "embedding"])
        ));
    }

    #[test]
    fn answers_are_checked_vector_by_vector() {
        let ok = json!({"model": "m", "embeddings": [[0.1, 0.2], [0.3, -0.4]]});
        assert_eq!(
            read_vectors(&ok, 2),
            Ok(vec![vec![0.1f32, 0.2], vec![0.3, -0.4]])
        );
        let err = |v: &Value, n| read_vectors(v, n).err().unwrap_or_default();
        assert!(err(&ok, 3).contains("2 vectors for 3"));
        let ragged = json!({"embeddings": [[0.1, 0.2], [0.3]]});
        assert!(err(&ragged, 2).contains("dimensions"));
        let text = json!({"embeddings": [[0.1, "x"]]});
        assert!(err(&text, 1).contains("finite"));
        let huge = json!({"embeddings": [[1e300]]});
        assert!(err(&huge, 1).contains("finite"));
        assert!(read_vectors(&json!({"embeddings": [[]]}), 1).is_err());
        assert!(read_vectors(&json!({"error": "x"}), 1).is_err());
    }
}
