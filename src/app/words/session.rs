//! A session's settings and its beginnings: a change of the system prompt or a parameter,
//! the `/set` listing, a new session (`/new`) and a fork. Apart because they speak of the
//! session as a whole rather than of one event in it.

use super::Words;
use crate::core::message::MessageId;
use crate::core::params::{Param, ParamChange, ParamValue, SessionParams};

/// A change of the session's system prompt or a parameter, as the transcript says it.
pub fn param_change(change: &ParamChange) -> String {
    match change {
        ParamChange::System(Some(text)) => format!(
            "System prompt set ({} characters): sent with every message of this session, after the app's own instructions.",
            text.chars().count()
        ),
        ParamChange::System(None) => "System prompt cleared.".to_string(),
        // The actor says it (`Notice::ThinkSet`, with whether the model can think).
        ParamChange::Think(Some(word)) => format!("Thinking: {word} for this session."),
        ParamChange::Think(None) => "Thinking: back to the default.".to_string(),
        ParamChange::Verbose(true) => {
            "Verbose: each reply is followed by its timing and speed (/set quiet stops it)."
                .to_string()
        }
        ParamChange::Verbose(false) => "Quiet: no timing after replies.".to_string(),
        ParamChange::Set(param, Some(v)) => {
            format!("{} set to {v} for this session.", param.name())
        }
        ParamChange::Set(Param::NumPredict, None) => {
            "num_predict back to the default (the room left for the reply).".to_string()
        }
        ParamChange::Set(Param::Temperature, None) => {
            "temperature back to the default (the config file's, else the model's).".to_string()
        }
        ParamChange::Set(param, None) => {
            format!("{} back to the default (the model's).", param.name())
        }
    }
}

/// `/set` or `/system` alone: what this session sends, one line each.
pub fn params_listing(p: &SessionParams, config_temperature: Option<f32>) -> String {
    let mut lines = vec![match &p.system {
        Some(text) => format!("system: {}", text.trim()),
        None => "system: none (/system TEXT sets one)".to_string(),
    }];
    for param in Param::ALL {
        let value = match (p.get(param), param, config_temperature) {
            (Some(v), _, _) => v.to_string(),
            (None, Param::Temperature, Some(t)) => {
                format!(
                    "default (the config file's {})",
                    ParamValue::Float(f64::from(t))
                )
            }
            (None, Param::NumPredict, _) => "default (the room left for the reply)".to_string(),
            (None, _, _) => "default (the model's)".to_string(),
        };
        lines.push(format!("{}: {value}", param.name()));
    }
    if let Some(word) = &p.think {
        lines.push(format!("think: {word} (/think default resets it)"));
    }
    lines.push(if p.verbose {
        "verbose: on, each reply's timing and speed (/set quiet stops it)".to_string()
    } else {
        "verbose: off (/set verbose shows each reply's timing and speed)".to_string()
    });
    lines.push(
        "Change one with /set NAME VALUE, reset it with /set NAME default; /system clear drops the system prompt."
            .to_string(),
    );
    lines.join("\n")
}

/// `/show info`: the model and its window, the mode, what every request carries and what
/// compression kept, in lines as `ollama run`'s `/show info` gives them.
pub fn session_info(s: &crate::core::engine::EngineStatus) -> String {
    let n = |k: u32| crate::ui::text::thousands(u64::from(k));
    let mut lines = vec![
        format!("model: {}", s.model),
        format!("context: {} tokens", n(s.budget.ctx)),
        format!("mode: {}", s.mode),
    ];
    lines.push(if s.tools.offered.is_empty() {
        "tools: none offered now".to_string()
    } else {
        format!("tools: {}", s.tools.offered.join(", "))
    });
    lines.push(format!(
        "messages: {} in the session, {} in view, {} checkpoint{}",
        s.history_messages,
        s.active_messages,
        s.checkpoints,
        if s.checkpoints == 1 { "" } else { "s" }
    ));
    let r = &s.reliability;
    if r.measured() {
        lines.push(format!(
            "facts from folded messages in every request: {} of {}",
            r.carried, r.stated
        ));
    }
    lines.join("\n")
}

/// Said in a new session started with `/new`: that the one left is kept, and how to get
/// back to it. `previous` names it (id and title), `None` when it had nothing to keep.
pub fn new_session(previous: Option<(&str, &str)>) -> Words {
    match previous {
        Some((name, short)) => Words::with_hint(
            format!("New session. The previous one ({name}) is saved."),
            format!("Go back to it with /sessions, or later: ollm-tui --resume {short}"),
        ),
        None => Words::with_hint(
            "New session.",
            "The previous one had no messages, so there was nothing to save.",
        ),
    }
}

/// Said in a fork once it is open: where it came from and what it kept.
pub fn forked(at: MessageId, id: &str, model: &str, ctx: Option<u32>, mode: &str) -> Words {
    let ctx = match ctx {
        Some(c) => format!("context {}", crate::ui::text::thousands(u64::from(c))),
        None => "the model's own context".to_string(),
    };
    Words::with_hint(
        format!("Forked at #{} into session {id}.", at.0),
        format!(
            "Model ({model}), {ctx}, mode ({mode}), system prompt and parameters kept; the session you forked from is unchanged."
        ),
    )
}
