//! The person's commands that change the goal board, pins and settings, and what the
//! server says about the model. Each validates first (a refused input changes nothing
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

    pub(super) fn set_model(&mut self, model: String, now: DateTime<Utc>, fx: &mut Vec<Effect>) {
        self.commit(
            RecordBody::Settings {
                model: Some(model),
                ctx: None,
                mode: None,
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
