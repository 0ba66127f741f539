//! The person's commands that change the goal board, pins and settings, what the
//! server says about the model, and the session's title the model wrote. Each validates first (a refused input changes nothing
//! and is reported as [`EngineEvent::Refused`]), then commits a record.

use super::Engine;
use super::input::Effect;
use crate::core::events::{EngineError, EngineEvent};
use crate::core::goals::{Author, GoalChange};
use crate::core::message::{MessageId, Role};
use crate::core::mode::Mode;
use crate::core::record::RecordBody;
use crate::core::reliability::parse_parameter_billions;
use chrono::{DateTime, Utc};

fn refused(fx: &mut Vec<Effect>, error: impl Into<EngineError>) {
    fx.push(Effect::Event(EngineEvent::Refused {
        error: error.into(),
    }));
}

impl Engine {
    /// The title the model wrote: kept once, as one clean line (a session that has one
    /// keeps it; nothing usable is not kept). Made durable at once, like a turn's end.
    pub(super) fn titled(&mut self, title: &str, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        let title = crate::core::overview::clean_title(title);
        if title.is_empty() || self.title.is_some() {
            return;
        }
        self.commit(RecordBody::Title { title }, now, fx);
        fx.push(Effect::Sync);
    }

    /// A goal-board change from the person (slash commands).
    pub(super) fn user_goal(
        &mut self,
        change: GoalChange,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        if let Err(e) = self.goals.clone().apply(&change, Author::User, now) {
            refused(fx, e);
            return;
        }
        self.commit(
            RecordBody::Goal {
                change: change.clone(),
                author: Author::User,
            },
            now,
            fx,
        );
        fx.push(Effect::Event(EngineEvent::GoalUpdated {
            change,
            author: Author::User,
        }));
    }

    /// Pin or unpin an active message (the latest reply when `id` is `None`): pinned
    /// messages are never folded.
    pub(super) fn pin(
        &mut self,
        id: Option<MessageId>,
        pinned: bool,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        let Some(id) = id.or_else(|| self.last_active(Role::Assistant)) else {
            refused(fx, EngineError::NoReplyToPin { pin: pinned });
            return;
        };
        if self.history.get(id).is_none() {
            refused(fx, EngineError::NoSuchMessage { id, pin: pinned });
            return;
        }
        if !self.active.messages().iter().any(|e| e.id == id) {
            refused(fx, EngineError::AlreadyFolded { id, pin: pinned });
            return;
        }
        self.commit(RecordBody::Pin { id, pinned }, now, fx);
        fx.push(Effect::Event(EngineEvent::Pinned { id, pinned }));
    }

    pub(super) fn set_mode(&mut self, mode: Mode, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        self.commit(
            RecordBody::Settings {
                model: None,
                ctx: None,
                mode: Some(mode),
                params: None,
            },
            now,
            fx,
        );
        fx.push(Effect::Event(EngineEvent::ModeChanged { mode }));
    }

    /// Set the context size; `None` returns to the model's own (capped) size.
    pub(super) fn set_ctx(&mut self, ctx: Option<u32>, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        self.commit(
            RecordBody::Settings {
                model: None,
                ctx: Some(ctx.unwrap_or(0)),
                mode: None,
                params: None,
            },
            now,
            fx,
        );
        let ctx = self.ctx();
        fx.push(Effect::Event(EngineEvent::CtxChanged {
            ctx,
            trained: self.model_ctx.filter(|trained| ctx > *trained),
        }));
    }

    /// The person's system prompt or one parameter: the record carries the whole set
    /// after the change, so replay restores it exactly. The system prompt is part of the
    /// request, so its part is rendered and counted again.
    pub(super) fn set_param(
        &mut self,
        change: crate::core::params::ParamChange,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        let params = self.settings.params.with(&change);
        self.commit(
            RecordBody::Settings {
                model: None,
                ctx: None,
                mode: None,
                params: Some(params),
            },
            now,
            fx,
        );
        fx.push(Effect::Event(EngineEvent::ParamsChanged { change }));
    }

    pub(super) fn set_model(&mut self, model: String, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        // Until the server says what the new model can do (`ModelInfo`).
        self.sees_images = false;
        self.commit(
            RecordBody::Settings {
                model: Some(model),
                ctx: None,
                mode: None,
                params: None,
            },
            now,
            fx,
        );
    }

    /// The context the server reports the model loaded with (`/api/ps`). When it is
    /// smaller than num_ctx the server will cut prompts to it, so the budget follows it.
    pub(super) fn loaded_ctx(&mut self, loaded: Option<u32>, fx: &mut Vec<Effect>) {
        let asked = self.ctx();
        let limit = loaded.filter(|c| *c < asked);
        let changed = limit != self.loaded_ctx;
        self.loaded_ctx = limit;
        if changed && let Some(loaded) = limit {
            fx.push(Effect::Event(EngineEvent::LoadedCtxSmaller {
                model: self.settings.model.clone(),
                loaded,
                asked,
            }));
        }
    }

    /// What the server told us about the model (from `/api/show`); not persisted.
    pub(super) fn model_info(
        &mut self,
        context_length: Option<u32>,
        parameter_size: Option<&str>,
        server_ctx: Option<u32>,
    ) {
        self.model_ctx = context_length;
        self.server_ctx = server_ctx;
        self.model_billions = parameter_size
            .and_then(parse_parameter_billions)
            .or_else(|| parse_parameter_billions(&self.settings.model));
        self.rebuild_system();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::core::engine::{Engine, Request};
    use crate::core::params::{Param, ParamChange, ParamValue};
    use crate::core::record::RecordBody;
    use crate::core::summarizer::doubles::Extractive;
    use crate::core::testing::Harness;
    use crate::core::tokens::ByteEstimate;
    use std::sync::Arc;

    fn set(h: &mut Harness<Extractive>, change: ParamChange) {
        h.apply(Request::SetParam { change });
    }

    /// #31 item 5: the person's system prompt goes into the system message beside the
    /// app's instructions and is counted; each change is one `settings` record carrying
    /// the whole set, and replay from the header the session started with restores it.
    #[test]
    fn the_system_prompt_and_parameters_are_sent_counted_recorded_and_replayed() {
        let mut h = Harness::new(4096, Arc::new(ByteEstimate), Extractive::new());
        let started = h.header();
        let app_only = h.engine.prompt().messages[0].content.clone();
        let system_before = h.engine.budget().system;
        set(
            &mut h,
            ParamChange::System(Some("Answer in French.".into())),
        );
        set(
            &mut h,
            ParamChange::Set(Param::Temperature, Some(ParamValue::Float(0.2))),
        );
        set(
            &mut h,
            ParamChange::Set(Param::Seed, Some(ParamValue::Int(7))),
        );
        set(&mut h, ParamChange::Set(Param::Seed, None));
        let sent = h.engine.prompt().messages[0].content.clone();
        assert!(sent.starts_with(&app_only), "beside, not instead: {sent}");
        assert!(sent.ends_with("Answer in French."), "{sent}");
        assert!(h.engine.budget().system > system_before, "counted");
        let last = h.records.last().unwrap();
        let RecordBody::Settings {
            params: Some(p), ..
        } = &last.body
        else {
            panic!("{last:?}")
        };
        assert_eq!(p.system.as_deref(), Some("Answer in French."));
        assert_eq!((p.temperature, p.seed), (Some(0.2), None));
        let (replayed, report) = Engine::replay(
            &started,
            &h.records,
            h.engine.config().clone(),
            h.engine.tokenizer().clone(),
            h.engine.prompts().clone(),
        );
        assert!(report.issues.is_empty(), "{:?}", report.issues);
        assert_eq!(replayed.params(), h.engine.params());
        assert_eq!(replayed.prompt().messages[0].content, sent);
        assert_eq!(replayed.budget().system, h.engine.budget().system);
        // Cleared: the app's instructions alone again.
        set(&mut h, ParamChange::System(None));
        assert_eq!(h.engine.prompt().messages[0].content, app_only);
        assert_eq!(h.engine.status().params.temperature, Some(0.2));
    }

    /// #38 item 1: the model's title is a record like any other: written once, one clean
    /// line, durable at once, and restored by replay.
    #[test]
    fn the_models_title_is_one_record_kept_once_and_replayed() {
        use crate::core::engine::{Effect, Input};
        let mut h = Harness::new(4096, Arc::new(ByteEstimate), Extractive::new());
        h.turn("How do I cache fetch_orders?", |_| "With Redis.".into());
        let before = h.records.len();
        assert!(
            h.apply(Input::Titled {
                title: " \n ".into()
            })
            .is_empty()
        );
        assert_eq!(h.records.len(), before, "nothing usable is not kept");
        let now = h.clock.tick();
        let fx = h.engine.handle(
            Input::Titled {
                title: "Redis cache\nfor orders".into(),
            },
            now,
        );
        assert!(
            matches!(&fx[..], [Effect::Persist(r), Effect::Sync] if r.body == RecordBody::Title { title: "Redis cache for orders".into() }),
            "{fx:?}"
        );
        h.absorb(fx);
        assert_eq!(h.engine.title(), Some("Redis cache for orders"));
        h.apply(Input::Titled {
            title: "Another".into(),
        });
        assert_eq!(
            h.records.len(),
            before + 1,
            "a session keeps its first title"
        );
        let (replayed, report) = h.replayed();
        assert!(report.issues.is_empty(), "{:?}", report.issues);
        assert_eq!(replayed.title(), Some("Redis cache for orders"));
    }
}
