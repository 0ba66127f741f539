//! Everything that can go wrong talking to the model server, each with the context a person
//! needs (URL, model, status) and, through [`LlmError::hint`], the fix.

use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

use thiserror::Error;

use super::host::HostError;

/// The embedding model to suggest when none is installed (the hint of
/// [`LlmError::NotEmbedding`]): small (46 MB) and quick on a CPU.
pub const SUGGESTED_EMBEDDING_MODEL: &str = "all-minilm";

/// What the client was waiting for when time ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiting {
    /// A plain API call's answer.
    Response,
    /// The first bytes of a reply (covers model loading).
    FirstToken,
    /// More of a reply already under way.
    NextToken,
}

impl fmt::Display for Waiting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Waiting::Response => "answer",
            Waiting::FirstToken => "first token",
            Waiting::NextToken => "further tokens",
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LlmError {
    /// Nothing accepted the connection (refused, DNS, no route, connect timeout).
    #[error("cannot reach Ollama at {url}: {cause}")]
    Unreachable { url: String, cause: String },
    /// Connected, then the connection broke before an answer.
    #[error("the connection to Ollama at {url} broke: {cause}")]
    Connection { url: String, cause: String },
    #[error("model \"{model}\" is not installed on the Ollama server")]
    ModelNotFound { model: String },
    /// The model is installed but makes no embeddings (a chat model asked for vectors).
    #[error("model \"{model}\" does not make embeddings")]
    NotEmbedding { model: String },
    /// The model only makes embeddings: it cannot be the chat model.
    #[error("model \"{model}\" makes embeddings only; it cannot chat")]
    NotChat { model: String },
    /// Ollama refused the prompt as larger than num_ctx (sent with `truncate: false`).
    #[error("the conversation does not fit the model's context window: {message}")]
    ContextOverflow { message: String },
    #[error("Ollama answered HTTP {status} at {url}: {message}")]
    Http {
        status: u16,
        url: String,
        message: String,
    },
    /// An error answer whose HTTP status was not kept (ollama-rs reports only the body).
    #[error("Ollama refused the request at {url}: {message}")]
    Refused { url: String, message: String },
    /// An `{"error": …}` line inside a reply stream.
    #[error("Ollama failed while replying: {message}")]
    Server { message: String },
    /// The answer is not Ollama's JSON.
    #[error("unexpected answer from {url}: {detail}")]
    Malformed { url: String, detail: String },
    /// The reply stopped before `done: true`; the caller keeps the deltas it has.
    #[error("the reply ended before Ollama finished it: {detail}")]
    Incomplete { detail: String },
    #[error("no {waiting} from Ollama within {after:?}")]
    Timeout { waiting: Waiting, after: Duration },
    /// The reply went past the app's own ceiling (`ReplyCeiling`): the rest is not read.
    #[error(
        "the reply went past what the app reads of one reply ({lines} lines, {bytes} bytes; at most {max_lines} lines or {max_bytes} bytes)"
    )]
    ReplyTooLong {
        lines: u64,
        bytes: usize,
        max_lines: u64,
        max_bytes: usize,
    },
    #[error(transparent)]
    InvalidHost(#[from] HostError),
}

impl LlmError {
    /// What a person can do about it, when there is something to do.
    pub fn hint(&self) -> Option<String> {
        let hint = match self {
            LlmError::Unreachable { url, .. } => format!(
                "Start Ollama with `ollama serve` (tried {url}), or set OLLAMA_HOST to where it runs."
            ),
            LlmError::Connection { .. } => {
                "Check that Ollama is still running (`ollama ps`) and retry.".to_string()
            }
            LlmError::ModelNotFound { model } => format!(
                "Download it with `ollama pull {model}`, or choose an installed model (`ollama list`)."
            ),
            LlmError::NotEmbedding { .. } => format!(
                "Recall by meaning needs an embedding model: /pull {} installs a small one (46 MB).",
                SUGGESTED_EMBEDDING_MODEL
            ),
            LlmError::NotChat { .. } => "Pick a chat model (the model picker lists them). An \
                 embedding model serves recall by meaning by itself ([recall] embedding_model)."
                .to_string(),
            LlmError::ContextOverflow { .. } => {
                "Compress the conversation (/compress) or raise the context size (/ctx)."
                    .to_string()
            }
            LlmError::Http { status, .. } if *status >= 500 => {
                "Ollama hit an internal error; its log says why \
                 (`journalctl -u ollama` or ~/.ollama/logs/server.log)."
                    .to_string()
            }
            LlmError::Http { .. } | LlmError::Refused { .. } => return None,
            LlmError::ReplyTooLong { .. } => "The server kept sending past the reply's \
                 `num_predict` (or the context): what came is kept. /set num_predict sets the \
                 cap; /retry asks again."
                .to_string(),
            LlmError::Server { .. } => "The model failed while generating, often for lack of \
                 memory: check the Ollama log, or try a smaller model or context."
                .to_string(),
            LlmError::Malformed { url, .. } => format!(
                "Check that {url} is an Ollama server (OLLAMA_HOST) and that no proxy rewrites its answers."
            ),
            LlmError::Incomplete { .. } => "/retry asks for a complete reply.".to_string(),
            LlmError::Timeout {
                waiting: Waiting::FirstToken,
                ..
            } => "The model may still be loading (large models take minutes the first time); \
                  /retry, or allow longer with first_token_timeout_secs in config.toml."
                .to_string(),
            LlmError::Timeout {
                waiting: Waiting::NextToken,
                ..
            } => "Ollama stopped sending mid-reply and may be overloaded (idle_timeout_secs in \
                  config.toml sets how long to wait); /retry asks for a complete reply."
                .to_string(),
            LlmError::Timeout {
                waiting: Waiting::Response,
                ..
            } => "Ollama is not answering; check it with `ollama ps`.".to_string(),
            LlmError::InvalidHost(HostError::HttpsUnsupported { .. }) => {
                "Use http:// (Ollama speaks plain HTTP) or tunnel to the server.".to_string()
            }
            LlmError::InvalidHost(_) => {
                "Write the address as http://127.0.0.1:11434, host:port or :port.".to_string()
            }
        };
        Some(hint)
    }
}

/// The causes below a top-level error, joined: reqwest's own Display says only "error
/// sending request"; the useful part ("Connection refused", "dns error") is further down.
pub fn cause_chain(err: &(dyn StdError + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = err.source();
    while let Some(e) = next {
        let text = e.to_string();
        // hyper-util's wrapper ("client error (Connect)") only repeats what follows.
        let wrapper = text.starts_with("client error (");
        if !wrapper && !text.is_empty() && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = e.source();
    }
    if parts.is_empty() {
        err.to_string()
    } else {
        parts.join(": ")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[derive(Debug, Error)]
    #[error("error sending request")]
    struct Top(#[source] Wrapper);

    #[derive(Debug, Error)]
    #[error("client error (Connect)")]
    struct Wrapper(#[source] Middle);

    #[derive(Debug, Error)]
    #[error("tcp connect error")]
    struct Middle(#[source] std::io::Error);

    #[test]
    fn cause_chain_reaches_the_os_error() {
        let err = Top(Wrapper(Middle(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "Connection refused",
        ))));
        assert_eq!(cause_chain(&err), "tcp connect error: Connection refused");
    }

    #[test]
    fn cause_chain_of_a_leaf_is_its_own_text() {
        let err = std::io::Error::other("boom");
        assert_eq!(cause_chain(&err), "boom");
    }

    #[test]
    fn timeouts_name_the_setting_to_change() {
        let first = LlmError::Timeout {
            waiting: Waiting::FirstToken,
            after: std::time::Duration::from_secs(300),
        };
        assert!(first.hint().unwrap().contains("first_token_timeout_secs"));
        let next = LlmError::Timeout {
            waiting: Waiting::NextToken,
            after: std::time::Duration::from_secs(60),
        };
        assert!(next.hint().unwrap().contains("idle_timeout_secs"));
    }

    #[test]
    fn hints_name_the_fix() {
        let unreachable = LlmError::Unreachable {
            url: "http://127.0.0.1:11434".into(),
            cause: "Connection refused".into(),
        };
        let hint = unreachable.hint().unwrap();
        assert!(hint.contains("ollama serve") && hint.contains("http://127.0.0.1:11434"));
        assert_eq!(
            unreachable.to_string(),
            "cannot reach Ollama at http://127.0.0.1:11434: Connection refused"
        );

        let missing = LlmError::ModelNotFound {
            model: "llama3.2:3b".into(),
        };
        assert!(missing.hint().unwrap().contains("ollama pull llama3.2:3b"));

        let chat_model = LlmError::NotEmbedding {
            model: "llama3.2:3b".into(),
        };
        assert!(chat_model.hint().unwrap().contains("/pull all-minilm"));

        let overflow = LlmError::ContextOverflow {
            message: "the input length exceeds the context length".into(),
        };
        assert!(overflow.hint().unwrap().contains("/compress"));

        let loading = LlmError::Timeout {
            waiting: Waiting::FirstToken,
            after: Duration::from_secs(300),
        };
        assert!(loading.hint().unwrap().contains("loading"));
        assert_eq!(
            loading.to_string(),
            "no first token from Ollama within 300s"
        );

        let teapot = LlmError::Http {
            status: 418,
            url: "u".into(),
            message: "m".into(),
        };
        assert_eq!(teapot.hint(), None);
        let crash = LlmError::Http {
            status: 500,
            url: "u".into(),
            message: "m".into(),
        };
        assert!(crash.hint().unwrap().contains("log"));
    }
}
