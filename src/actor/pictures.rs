//! Pictures (#39), the actor's side: a file the person attaches is refused when the model
//! cannot see pictures (naming the installed models that can), else checked and made
//! ready (`store::attach`) and stored by its hash beside the session log before its
//! reference goes back to the app; the message that carries it is recorded later, as any.
//! On resume, the stored pictures the log names are checked, and the missing or altered
//! ones are said once.

use super::command::AttachRefused;
use super::driver::Actor;
use crate::core::image::ImageRef;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use crate::view::Notice;
use std::path::PathBuf;
use tokio::sync::oneshot;

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    /// `Ask::AttachImage`. The file is read and decoded here, on the actor's task: a
    /// picture is attached between turns, and the checks cap what is read (20 MB) and
    /// decoded, so it takes a fraction of a second.
    pub(super) fn attach_image(
        &mut self,
        path: PathBuf,
        reply: oneshot::Sender<Result<ImageRef, AttachRefused>>,
    ) {
        if !self.link.vision_capable() {
            let model = self.engine.model().to_string();
            let backend = self.link.backend().clone();
            tokio::spawn(async move {
                let vision_models = backend
                    .list_models()
                    .await
                    .map(|models| {
                        models
                            .into_iter()
                            .filter(|m| m.capabilities.iter().any(|c| c == "vision"))
                            .map(|m| m.name)
                            .collect()
                    })
                    .unwrap_or_default();
                let _ = reply.send(Err(AttachRefused::NotVision {
                    model,
                    vision_models,
                }));
            });
            return;
        }
        let answer = crate::store::attach::prepare(&path)
            .map_err(AttachRefused::File)
            .and_then(|ready| {
                self.disk
                    .store_mut()
                    .save_image(&ready.image, &ready.bytes)
                    .map_err(|e| AttachRefused::Store(e.to_string()))?;
                Ok(ready.image)
            });
        let _ = reply.send(answer);
    }

    /// On resume: the pictures the history names that cannot be read back as they were
    /// attached are said (their messages go without them), once.
    pub(super) fn check_images(&mut self) {
        let mut names: Vec<String> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for m in self.engine.history().iter() {
            for image in &m.images {
                if seen.insert(image.hash.clone()) && self.disk.store().load_image(image).is_err() {
                    names.push(image.name.clone());
                }
            }
        }
        if !names.is_empty() {
            self.out.notice(Notice::ImagesMissing { names });
        }
    }
}
