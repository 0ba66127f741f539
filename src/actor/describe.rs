//! A folded picture described when the model never answered about it (`DescribePicture`,
//! see `core::engine::describe`): the chat model, with the picture, asked for a few
//! sentences, in a task of its own while the person reads and types (a title's
//! request, no more). Its answer comes back to the actor's loop, which hands it to the
//! engine (`Input::PictureDescribed`). A model that cannot see pictures or a picture whose
//! file is gone is answered at once, with nothing: the fold's line naming it stays.

use crate::core::engine::Input;
use crate::core::image::ImageRef;
use crate::core::message::MessageId;
use crate::llm::{ChatBackend, ChatMessage, ChatOptions, ChatRequest, Think};
use tokio::task::JoinHandle;

/// Steady wording, as for summaries.
const TEMPERATURE: f32 = 0.2;

/// The description under way, if one is.
#[derive(Default)]
pub(super) struct Describer {
    running: Option<JoinHandle<Input>>,
}

/// What one request needs: the picture (its bytes base64, when they could be read), the
/// chat model, what to ask.
pub(super) struct Ask {
    pub from: MessageId,
    pub image: ImageRef,
    pub base64: Option<String>,
    pub model: String,
    pub num_ctx: u32,
    pub think: Option<Think>,
    pub prompt: String,
    pub cap: u32,
}

impl Describer {
    /// Start the request; the answer at once (`Some`) when there is nothing to ask.
    pub fn start<B: ChatBackend>(
        &mut self,
        ask: Ask,
        vision: bool,
        backend: &std::sync::Arc<B>,
    ) -> Option<Input> {
        let nothing = Input::PictureDescribed {
            from: ask.from,
            hash: ask.image.hash.clone(),
            description: None,
        };
        let Some(base64) = ask.base64.filter(|_| vision) else {
            return Some(nothing);
        };
        let mut message = ChatMessage::user(ask.prompt);
        message.images = vec![base64];
        let options = ChatOptions {
            num_ctx: ask.num_ctx,
            num_predict: Some(i32::try_from(ask.cap).unwrap_or(i32::MAX)),
            temperature: Some(TEMPERATURE),
            top_p: None,
            seed: None,
        };
        let request = ChatRequest::new(ask.model, vec![message], options).with_think(ask.think);
        let backend = backend.clone();
        let (from, hash) = (ask.from, ask.image.hash);
        self.running = Some(tokio::spawn(async move {
            let description = match backend.chat(request).await {
                Ok(r) => Some(r.text),
                Err(e) => {
                    tracing::info!(error = %e, "a folded picture could not be described");
                    None
                }
            };
            Input::PictureDescribed {
                from,
                hash,
                description,
            }
        }));
        None
    }

    /// The answer, when the request ends (never when none runs: for `select!`).
    pub async fn done(&mut self) -> Input {
        let Some(task) = &mut self.running else {
            return std::future::pending().await;
        };
        let out = task.await;
        self.running = None;
        out.unwrap_or_else(|e| {
            tracing::error!(%e, "the description of a picture failed to finish");
            // The engine waits for an answer to ask the next one; this one keeps its line.
            Input::PictureDescribed {
                from: MessageId(0),
                hash: String::new(),
                description: None,
            }
        })
    }

    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Quitting does not wait for a description: the line naming the picture stays.
    pub fn abort(&mut self) {
        if let Some(task) = self.running.take() {
            task.abort();
        }
    }
}
