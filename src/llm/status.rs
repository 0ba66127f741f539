//! An error answer read into a typed [`LlmError`]: a context overflow, a missing model, a
//! proxy's bare 404, the server's own message. The chat, the plain calls and `/api/pull`
//! read theirs the same way.

use serde_json::Value;

use super::error::LlmError;

/// The `error` text of an error body, or the body itself.
fn error_message(body: &[u8]) -> String {
    serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| {
            let text = String::from_utf8_lossy(body);
            text.trim().chars().take(300).collect()
        })
}

pub(super) fn is_context_overflow(message: &str) -> bool {
    let m = message.to_lowercase();
    [
        "context length",
        "context window",
        "input length",
        "exceeds the context",
    ]
    .iter()
    .any(|k| m.contains(k))
}

pub(super) fn status_error(status: u16, url: &str, body: &[u8], model: Option<&str>) -> LlmError {
    let message = error_message(body);
    if is_context_overflow(&message) {
        return LlmError::ContextOverflow { message };
    }
    if let Some(model) = model {
        // Ollama answers 501 to an embedding request for a model that does not embed.
        if status == 501 || message.contains("does not support embeddings") {
            return LlmError::NotEmbedding {
                model: model.to_string(),
            };
        }
        // A 404 naming the model; a proxy's bare 404 is not about a model. Through
        // ollama-rs the status is lost (0): then the message must say "not found".
        let names_model = message.contains("model") || message.contains(model);
        if names_model && (status == 404 || (status == 0 && message.contains("not found"))) {
            return LlmError::ModelNotFound {
                model: model.to_string(),
            };
        }
    }
    if status == 0 {
        return LlmError::Refused {
            url: url.to_string(),
            message,
        };
    }
    LlmError::Http {
        status,
        url: url.to_string(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_errors_are_classified() {
        let overflow = status_error(
            400,
            "u",
            br#"{"error":"the input length exceeds the context length"}"#,
            Some("m"),
        );
        assert!(matches!(overflow, LlmError::ContextOverflow { .. }));
        let missing = status_error(
            404,
            "u",
            br#"{"error":"model \"m\" not found, try pulling it first"}"#,
            Some("m"),
        );
        assert!(matches!(missing, LlmError::ModelNotFound { model } if model == "m"));
        let chat_model = status_error(
            501,
            "u",
            br#"{"error":"this model does not support embeddings"}"#,
            Some("llama"),
        );
        assert!(matches!(chat_model, LlmError::NotEmbedding { model } if model == "llama"));
        let proxy = status_error(404, "u", b"404 page not found", Some("llama"));
        assert!(matches!(proxy, LlmError::Http { status: 404, .. }));
        let crash = status_error(500, "u", br#"{"error":"out of memory"}"#, None);
        assert!(
            matches!(crash, LlmError::Http { status: 500, message, .. } if message == "out of memory")
        );
    }
}
