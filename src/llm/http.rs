//! The backend's HTTP plumbing: addresses, the plain calls bounded by their timeout, and
//! transport and ollama-rs errors typed with the URL and the real cause.

use ollama_rs::error::OllamaError;
use serde_json::Value;

use super::error::{LlmError, Waiting, cause_chain};
use super::ndjson::preview;
use super::ollama::OllamaBackend;
use super::status::status_error;

impl OllamaBackend {
    /// The HTTP client (for the calls of other files: `pull`).
    pub(super) fn http(&self) -> &reqwest::Client {
        &self.http
    }

    pub(super) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    pub(super) fn send_error(&self, err: &reqwest::Error) -> LlmError {
        if err.is_connect() {
            LlmError::Unreachable {
                url: self.base_url.clone(),
                cause: cause_chain(err),
            }
        } else {
            LlmError::Connection {
                url: self.base_url.clone(),
                cause: cause_chain(err),
            }
        }
    }

    /// Classify an ollama-rs error: typed, with the URL and the real cause.
    fn rs_error(&self, err: OllamaError, path: &str, model: Option<&str>) -> LlmError {
        let url = self.url(path);
        match err {
            OllamaError::ReqwestError(e) if e.is_decode() => LlmError::Malformed {
                url,
                detail: cause_chain(&e),
            },
            OllamaError::ReqwestError(e) => self.send_error(&e),
            OllamaError::JsonError(e) => LlmError::Malformed {
                url,
                detail: format!("not Ollama's JSON: {e}"),
            },
            OllamaError::InternalError(e) => status_error(0, &url, e.message.as_bytes(), model),
            OllamaError::Other(body) => status_error(0, &url, body.as_bytes(), model),
            other => LlmError::Malformed {
                url,
                detail: other.to_string(),
            },
        }
    }

    /// Bound an ollama-rs call by the plain-call timeout.
    pub(super) async fn timed<T>(
        &self,
        fut: impl std::future::Future<Output = Result<T, OllamaError>>,
        path: &str,
        model: Option<&str>,
    ) -> Result<T, LlmError> {
        tokio::time::timeout(self.options.request_timeout, fut)
            .await
            .map_err(|_| LlmError::Timeout {
                waiting: Waiting::Response,
                after: self.options.request_timeout,
            })?
            .map_err(|e| self.rs_error(e, path, model))
    }

    /// A plain call: the JSON answer of GET (no body) or POST (with `body`).
    pub(super) async fn call(
        &self,
        path: &str,
        body: Option<&Value>,
        model: Option<&str>,
    ) -> Result<Value, LlmError> {
        let url = self.url(path);
        let request = match body {
            Some(b) => self.http.post(&url).json(b),
            None => self.http.get(&url),
        };
        let exchange = async {
            let resp = request.send().await.map_err(|e| self.send_error(&e))?;
            let status = resp.status();
            let bytes = resp.bytes().await.map_err(|e| LlmError::Connection {
                url: url.clone(),
                cause: cause_chain(&e),
            })?;
            Ok::<_, LlmError>((status, bytes))
        };
        let (status, bytes) = tokio::time::timeout(self.options.request_timeout, exchange)
            .await
            .map_err(|_| LlmError::Timeout {
                waiting: Waiting::Response,
                after: self.options.request_timeout,
            })??;
        if !status.is_success() {
            return Err(status_error(status.as_u16(), &url, &bytes, model));
        }
        serde_json::from_slice(&bytes).map_err(|e| LlmError::Malformed {
            url,
            detail: format!("not JSON ({e}): {}", preview(&bytes)),
        })
    }
}
