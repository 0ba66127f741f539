//! Pulling a model (`POST /api/pull`, streamed), as `ollama pull` does: the status lines
//! Ollama sends, and the progress they add up to (bytes, percent, speed).
//!
//! Ollama streams one JSON object per line: `{"status":"pulling manifest"}`, then per layer
//! `{"status":"pulling <digest>","digest":"sha256:…","total":N,"completed":M}` (layers may
//! interleave), then `verifying sha256 digest`, `writing manifest`, `success`; a failure is
//! an `{"error":"…"}` line inside the 200 stream (an unknown model: `pull model manifest:
//! file does not exist`). ollama-rs's `pull_model_stream` is not used: it drops a last line
//! without a newline, reports a stream that ends before `success` as success, and its
//! errors are strings. The body is read with our own [`LineDecoder`], as chat replies are;
//! dropping the stream closes the connection, which is how a pull is cancelled.

use std::collections::VecDeque;
use std::pin::Pin;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::error::{LlmError, Waiting, cause_chain};
use super::ndjson::{LineDecoder, preview};
use super::ollama::OllamaBackend;

/// One line of a pull.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PullLine {
    /// A step: its words, and for a layer its digest and byte counts.
    Status {
        status: String,
        digest: Option<String>,
        total: Option<u64>,
        completed: Option<u64>,
    },
    /// The model is installed.
    Success,
    /// Ollama's `{"error": …}`: the pull failed (always the last line).
    Error(String),
}

/// Read one line of a pull's body.
pub fn parse_pull_line(line: &[u8]) -> Result<PullLine, String> {
    let v: Value =
        serde_json::from_slice(line).map_err(|e| format!("not JSON ({e}): {}", preview(line)))?;
    if let Some(message) = v.get("error") {
        return Ok(PullLine::Error(match message {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }));
    }
    let Some(status) = v.get("status").and_then(Value::as_str) else {
        return Err(format!("neither status nor error: {}", preview(line)));
    };
    if status == "success" {
        return Ok(PullLine::Success);
    }
    Ok(PullLine::Status {
        status: status.to_string(),
        digest: v.get("digest").and_then(Value::as_str).map(str::to_string),
        total: v.get("total").and_then(Value::as_u64),
        completed: v.get("completed").and_then(Value::as_u64),
    })
}

/// How far along the seconds over which the speed is measured.
const SPEED_WINDOW: Duration = Duration::from_secs(3);

/// A pull's progress, folded from its lines: every layer's bytes (a layer's `total` counts
/// once it is announced, so the whole grows as layers appear, as `ollama pull` shows it),
/// the last status words, and the speed over the last few seconds.
#[derive(Debug, Clone, Default)]
pub struct PullProgress {
    /// The last status words ("pulling manifest", "verifying sha256 digest").
    pub status: String,
    /// (digest, total, completed) per layer, in the order they appeared.
    layers: Vec<(String, u64, u64)>,
    /// (when, bytes completed) over the last [`SPEED_WINDOW`].
    samples: VecDeque<(Instant, u64)>,
    pub done: bool,
}

impl PullProgress {
    /// Take one line in, seen at `now`.
    pub fn apply(&mut self, line: &PullLine, now: Instant) {
        match line {
            PullLine::Status {
                status,
                digest,
                total,
                completed,
            } => {
                // A layer line says "pulling 6a0746a1ec1a"; the status words of the other
                // steps are the step. Keep "pulling" for a layer (its digest is noise).
                self.status = match digest {
                    Some(_) => "downloading".to_string(),
                    None => status.clone(),
                };
                if let (Some(digest), Some(total)) = (digest, total) {
                    let completed = completed.unwrap_or(0).min(*total);
                    match self.layers.iter_mut().find(|(d, ..)| d == digest) {
                        Some(layer) => {
                            layer.1 = *total;
                            // Never backwards: a retried part restarts its count.
                            layer.2 = layer.2.max(completed);
                        }
                        None => self.layers.push((digest.clone(), *total, completed)),
                    }
                    let done = self.completed();
                    self.samples.push_back((now, done));
                    // Keep one sample from before the window, so a slow stream of lines
                    // still spans time.
                    while self
                        .samples
                        .get(1)
                        .is_some_and(|(t, _)| now.duration_since(*t) > SPEED_WINDOW)
                    {
                        self.samples.pop_front();
                    }
                }
            }
            PullLine::Success => {
                self.status = "success".to_string();
                self.done = true;
            }
            PullLine::Error(_) => {}
        }
    }

    /// Bytes of every layer announced so far.
    pub fn total(&self) -> u64 {
        self.layers.iter().map(|(_, t, _)| *t).sum()
    }

    /// Bytes downloaded so far.
    pub fn completed(&self) -> u64 {
        self.layers.iter().map(|(_, _, c)| *c).sum()
    }

    /// Whole percent of the bytes, once any are known (100 only when all are in).
    pub fn percent(&self) -> Option<u8> {
        let total = self.total();
        if total == 0 {
            return self.done.then_some(100);
        }
        let done = self.completed();
        let p = u128::from(done) * 100 / u128::from(total);
        Some(u8::try_from(p).unwrap_or(100))
    }

    /// Bytes a second over the last few seconds; `None` until two samples span some time.
    pub fn speed(&self) -> Option<f64> {
        let (t0, b0) = self.samples.front()?;
        let (t1, b1) = self.samples.back()?;
        let secs = t1.duration_since(*t0).as_secs_f64();
        (secs > 0.0).then(|| (b1.saturating_sub(*b0)) as f64 / secs)
    }
}

/// A pull under way: its lines, then the end (after `Success` or an `Error` line, or an
/// `Err` when the connection fails). Dropping it closes the connection: the pull is
/// cancelled on the server's side too.
pub type PullStream = Pin<Box<dyn Stream<Item = Result<PullLine, LlmError>> + Send>>;

/// A line longer than this is not Ollama talking.
const MAX_LINE_BYTES: usize = 1 << 20;

impl OllamaBackend {
    /// Start pulling `model`. Between two lines the wait is bounded by the first-token
    /// timeout (verifying a large blob can be silent for a while), not the idle one.
    pub async fn pull(&self, model: &str) -> Result<PullStream, LlmError> {
        let url = format!("{}/api/pull", self.base_url());
        let idle = self.options().first_token_timeout;
        let timeout = LlmError::Timeout {
            waiting: Waiting::Response,
            after: idle,
        };
        let send = self
            .http()
            .post(&url)
            .json(&json!({ "model": model, "stream": true }))
            .send();
        let resp = match tokio::time::timeout(idle, send).await {
            Err(_) => return Err(timeout),
            Ok(Err(e)) => return Err(self.send_error(&e)),
            Ok(Ok(r)) => r,
        };
        let status = resp.status();
        if !status.is_success() {
            let body = resp.bytes().await.unwrap_or_default();
            return Err(super::status::status_error(
                status.as_u16(),
                &url,
                &body,
                Some(model),
            ));
        }
        let state = (
            Box::pin(resp.bytes_stream()),
            LineDecoder::new(),
            VecDeque::<Result<PullLine, LlmError>>::new(),
            false,
        );
        let stream = futures_util::stream::unfold(state, move |mut s| {
            let url = url.clone();
            async move {
                let (body, decoder, pending, finished) = &mut s;
                loop {
                    if let Some(item) = pending.pop_front() {
                        return Some((item, s));
                    }
                    if *finished {
                        return None;
                    }
                    // The lines this read completed, then how the body ended, if it did.
                    let (lines, end) = match tokio::time::timeout(idle, body.next()).await {
                        Err(_) => (
                            Vec::new(),
                            Some(LlmError::Timeout {
                                waiting: Waiting::NextToken,
                                after: idle,
                            }),
                        ),
                        Ok(Some(Ok(bytes))) => {
                            let lines = decoder.push(&bytes);
                            let end = (decoder.buffered() > MAX_LINE_BYTES).then(|| {
                                LlmError::Malformed {
                                    url: url.clone(),
                                    detail: format!("a line longer than {MAX_LINE_BYTES} bytes"),
                                }
                            });
                            (lines, end)
                        }
                        Ok(Some(Err(e))) => (
                            Vec::new(),
                            Some(LlmError::Incomplete {
                                detail: format!("the connection broke: {}", cause_chain(&e)),
                            }),
                        ),
                        Ok(None) => (
                            decoder.finish().into_iter().collect(),
                            Some(LlmError::Incomplete {
                                detail: "the pull ended before Ollama said \"success\"".into(),
                            }),
                        ),
                    };
                    for line in lines {
                        let item = parse_pull_line(&line).map_err(|detail| LlmError::Malformed {
                            url: url.clone(),
                            detail,
                        });
                        *finished =
                            matches!(item, Ok(PullLine::Success | PullLine::Error(_)) | Err(_));
                        pending.push_back(item);
                        if *finished {
                            break;
                        }
                    }
                    if let Some(err) = end.filter(|_| !*finished) {
                        pending.push_back(Err(err));
                        *finished = true;
                    }
                }
            }
        });
        Ok(Box::pin(stream))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn layer(digest: &str, total: u64, completed: u64) -> PullLine {
        PullLine::Status {
            status: format!("pulling {digest}"),
            digest: Some(format!("sha256:{digest}")),
            total: Some(total),
            completed: Some(completed),
        }
    }

    #[test]
    fn lines_parse_as_ollama_sends_them() {
        assert_eq!(
            parse_pull_line(br#"{"status":"pulling manifest"}"#).unwrap(),
            PullLine::Status {
                status: "pulling manifest".into(),
                digest: None,
                total: None,
                completed: None
            }
        );
        assert_eq!(
            parse_pull_line(
                br#"{"status":"pulling 6a0746a1ec1a","digest":"sha256:6a0746a1ec1a","total":2019377376,"completed":241970}"#
            )
            .unwrap(),
            layer("6a0746a1ec1a", 2_019_377_376, 241_970)
        );
        assert_eq!(
            parse_pull_line(br#"{"status":"success"}"#).unwrap(),
            PullLine::Success
        );
        assert_eq!(
            parse_pull_line(br#"{"error":"pull model manifest: file does not exist"}"#).unwrap(),
            PullLine::Error("pull model manifest: file does not exist".into())
        );
        assert!(parse_pull_line(b"<html>").is_err());
        assert!(parse_pull_line(br#"{"done":true}"#).is_err());
    }

    #[test]
    fn progress_adds_up_layers_and_measures_speed() {
        let t0 = Instant::now();
        let mut p = PullProgress::default();
        assert_eq!(p.percent(), None);
        p.apply(
            &parse_pull_line(br#"{"status":"pulling manifest"}"#).unwrap(),
            t0,
        );
        assert_eq!(p.status, "pulling manifest");
        p.apply(&layer("aa", 1000, 0), t0);
        p.apply(&layer("bb", 3000, 0), t0);
        assert_eq!((p.total(), p.completed(), p.percent()), (4000, 0, Some(0)));
        assert_eq!(p.speed(), None, "one instant: no speed yet");
        p.apply(&layer("aa", 1000, 1000), t0 + Duration::from_secs(1));
        p.apply(&layer("bb", 3000, 1000), t0 + Duration::from_secs(2));
        assert_eq!(p.status, "downloading");
        assert_eq!((p.completed(), p.percent()), (2000, Some(50)));
        // 2000 bytes in 2 s.
        assert_eq!(p.speed(), Some(1000.0));
        // A count never goes backwards, and never past the total.
        p.apply(&layer("bb", 3000, 500), t0 + Duration::from_secs(2));
        p.apply(&layer("aa", 1000, 5000), t0 + Duration::from_secs(2));
        assert_eq!(p.completed(), 2000);
        // The window forgets older samples, but for the last one before it: 2000 bytes
        // from 2 s to 6 s.
        p.apply(&layer("bb", 3000, 3000), t0 + Duration::from_secs(6));
        assert_eq!(p.percent(), Some(100));
        assert_eq!(p.speed(), Some(500.0));
        p.apply(
            &parse_pull_line(br#"{"status":"verifying sha256 digest"}"#).unwrap(),
            t0,
        );
        assert_eq!(p.status, "verifying sha256 digest");
        assert!(!p.done);
        p.apply(&PullLine::Success, t0);
        assert!(p.done);
    }

    #[test]
    fn a_pull_with_no_layers_is_whole_when_done() {
        let mut p = PullProgress::default();
        p.apply(&PullLine::Success, Instant::now());
        assert_eq!(p.percent(), Some(100));
    }
}
