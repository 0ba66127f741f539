//! Arguments of slash commands: each reader returns the value or the usage to show.

use crate::core::goals::{ArtifactAction, GoalChange, StepStatus};
use crate::core::message::MessageId;
use crate::core::params::{MAX_SYSTEM_CHARS, Param, ParamChange};

/// Context sizes `/ctx` accepts.
use crate::config::CTX_RANGE;

/// The trimmed argument, if any.
pub(super) fn rest(arg: &str) -> Option<String> {
    let t = arg.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// `#12` or `12`; nothing means "the default".
pub(super) fn message_id(arg: &str) -> Result<Option<MessageId>, String> {
    let t = arg.trim().trim_start_matches('#');
    if t.is_empty() {
        return Ok(None);
    }
    t.parse::<u64>()
        .map(|n| Some(MessageId(n)))
        .map_err(|_| format!("{arg:?} is not a message number"))
}

pub(super) fn number(arg: &str, usage: &str) -> Result<u32, String> {
    arg.trim()
        .trim_start_matches('#')
        .parse::<u32>()
        .map_err(|_| format!("usage: {usage}"))
}

/// `/ctx 8192`, `16k`, `8,192`, `auto`. The `k` multiplication is checked: `4194305k`
/// must be refused, not wrap around to a small size.
pub(super) fn ctx(arg: &str) -> Result<Option<u32>, String> {
    let usage = || "usage: /ctx N (e.g. 8192 or 16k) or /ctx auto".to_string();
    let n = arg.trim().to_ascii_lowercase();
    if matches!(n.as_str(), "auto" | "default" | "0") {
        return Ok(None);
    }
    let digits = n.replace(['_', ','], "");
    let (digits, kilo) = match digits.strip_suffix('k') {
        Some(d) => (d.to_string(), true),
        None => (digits, false),
    };
    let v: u64 = digits.parse().map_err(|_| usage())?;
    let v = if kilo { v.saturating_mul(1024) } else { v };
    match u32::try_from(v) {
        Ok(v) if CTX_RANGE.contains(&v) => Ok(Some(v)),
        _ => Err(format!(
            "the context size must be between {} and {}",
            CTX_RANGE.start(),
            CTX_RANGE.end()
        )),
    }
}

/// `/step TEXT [done|doing|todo]`.
pub(super) fn step(arg: &str) -> Result<GoalChange, String> {
    let t = arg.trim();
    let (text, status) = match t.rsplit_once(char::is_whitespace) {
        Some((head, tail)) => match tail.to_ascii_lowercase().as_str() {
            "done" | "completed" => (head, StepStatus::Completed),
            "doing" | "wip" | "in-progress" => (head, StepStatus::InProgress),
            "todo" | "pending" => (head, StepStatus::Pending),
            _ => (t, StepStatus::Pending),
        },
        None => (t, StepStatus::Pending),
    };
    if text.is_empty() {
        return Err("usage: /step TEXT [done|doing|todo]".into());
    }
    Ok(GoalChange::Checkpoint {
        description: text.to_string(),
        status,
    })
}

/// `/decision TEXT [--lock]`.
pub(super) fn decision(arg: &str) -> Result<GoalChange, String> {
    let mut text = arg.trim().to_string();
    let locked = ["--lock", "--locked"].iter().any(|flag| {
        if let Some(stripped) = text.strip_suffix(flag) {
            text = stripped.trim().to_string();
            true
        } else {
            false
        }
    });
    if text.is_empty() {
        return Err("usage: /decision TEXT [--lock]".into());
    }
    Ok(GoalChange::Decision { text, locked })
}

/// `/artifact created|modified|deleted PATH`.
pub(super) fn artifact(arg: &str) -> Result<GoalChange, String> {
    let usage = "usage: /artifact created|modified|deleted PATH";
    let (verb, path) = arg.trim().split_once(char::is_whitespace).ok_or(usage)?;
    let action = match verb.to_ascii_lowercase().as_str() {
        "created" | "create" | "new" => ArtifactAction::Created,
        "modified" | "modify" | "changed" => ArtifactAction::Modified,
        "deleted" | "delete" | "removed" => ArtifactAction::Deleted,
        _ => return Err(usage.into()),
    };
    Ok(GoalChange::Artifact {
        action,
        path: path.trim().to_string(),
    })
}

/// Words that drop a value (`/system clear`, `/set temperature default`).
const RESET_WORDS: &[&str] = &["default", "reset", "clear", "none", "off", "unset"];

const SET_USAGE: &str = "usage: /set [temperature|top_p|seed|num_predict VALUE|default], /set system TEXT, /set verbose or /set quiet (/set alone lists them)";

/// `/system TEXT`, `/system clear`; nothing: the listing.
pub(super) fn system(arg: &str) -> Result<Option<ParamChange>, String> {
    let t = arg.trim();
    if t.is_empty() {
        return Ok(None);
    }
    if RESET_WORDS.contains(&t.to_ascii_lowercase().as_str()) {
        return Ok(Some(ParamChange::System(None)));
    }
    let chars = t.chars().count();
    if chars > MAX_SYSTEM_CHARS {
        return Err(format!(
            "the system prompt is {chars} characters; at most {MAX_SYSTEM_CHARS} are kept (it is sent with every message)"
        ));
    }
    Ok(Some(ParamChange::System(Some(t.to_string()))))
}

/// The value of `/set num_ctx N` or `/set parameter num_ctx N`: the context size, which
/// `/ctx` sets (the log keeps it with the session, the gauge and budget follow).
pub(super) fn num_ctx(arg: &str) -> Option<&str> {
    let mut rest = arg.trim();
    for prefix in ["parameters", "parameter", "param"] {
        if let Some(r) = rest
            .strip_prefix(prefix)
            .filter(|r| r.starts_with(char::is_whitespace))
        {
            rest = r.trim_start();
            break;
        }
    }
    let (name, value) = rest.split_once(char::is_whitespace)?;
    name.eq_ignore_ascii_case("num_ctx").then(|| value.trim())
}

/// `/set NAME VALUE`, `/set NAME default`, and `ollama run`'s `/set parameter NAME VALUE`
/// and `/set system TEXT`; nothing (or a name alone): the listing.
pub(super) fn set(arg: &str) -> Result<Option<ParamChange>, String> {
    let t = arg.trim();
    let (name, value) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "" => return Ok(None),
        "system" => return system(value),
        "parameter" | "param" | "parameters" => return set(value),
        // `ollama run`'s words: timing and speed after each reply, or not.
        "verbose" | "quiet" => {
            let word = value.trim().to_ascii_lowercase();
            let on = match (lower.as_str(), word.as_str()) {
                ("verbose", "" | "on" | "true" | "yes") => true,
                ("verbose", w) if RESET_WORDS.contains(&w) || matches!(w, "false" | "no") => false,
                ("quiet", "") => false,
                _ => return Err(format!("/set {lower} takes no value; {SET_USAGE}")),
            };
            return Ok(Some(ParamChange::Verbose(on)));
        }
        _ => {}
    }
    let Some(param) = Param::parse(&lower) else {
        return Err(format!("/set cannot set {name:?}; {SET_USAGE}"));
    };
    let value = value.trim();
    if value.is_empty() {
        return Ok(None);
    }
    if RESET_WORDS.contains(&value.to_ascii_lowercase().as_str()) {
        return Ok(Some(ParamChange::Set(param, None)));
    }
    param
        .value(value)
        .map(|v| Some(ParamChange::Set(param, Some(v))))
        .map_err(|e| format!("{e}; {SET_USAGE}"))
}

/// `/facts`, `/facts pin 3`, `/facts edit 3 the new words`, `/facts edit 3` (to reword
/// it in the box).
pub(super) fn facts(arg: &str) -> Result<crate::app::overlays::FactsAsk, String> {
    use crate::app::overlays::FactsAsk;
    use crate::core::ledger::FactEdit;
    let usage = || "usage: /facts [pin|unpin|forget|keep|edit N [TEXT]]".to_string();
    let mut words = arg.split_whitespace();
    let Some(verb) = words.next() else {
        return Ok(FactsAsk::List);
    };
    let row = words
        .next()
        .and_then(|n| n.trim_start_matches('#').parse::<usize>().ok())
        .filter(|n| *n > 0)
        .ok_or_else(usage)?;
    let text = words.collect::<Vec<_>>().join(" ");
    let edit = match (verb.to_ascii_lowercase().as_str(), text.is_empty()) {
        ("pin", true) => FactEdit::Pin,
        ("unpin", true) => FactEdit::Unpin,
        ("forget" | "drop" | "rm", true) => FactEdit::Forget,
        ("keep" | "unforget", true) => FactEdit::Keep,
        ("edit", true) => return Ok(FactsAsk::Reword { row }),
        ("edit", false) => FactEdit::Replace { text },
        _ => return Err(usage()),
    };
    Ok(FactsAsk::Edit { row, edit })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ctx_in_k_never_wraps_around() {
        assert_eq!(ctx("16k"), Ok(Some(16_384)));
        assert_eq!(ctx("1024k"), Ok(Some(1_048_576)));
        // 4194305 × 1024 wraps to 1024 in u32 arithmetic: it must be refused instead.
        assert!(
            ctx("4194305k")
                .unwrap_err()
                .contains("between 512 and 1048576")
        );
        assert!(ctx("99999999999999999999").is_err());
        assert!(ctx("1025k").is_err());
        assert_eq!(ctx("auto"), Ok(None));
        assert!(ctx("12").is_err());
        assert!(ctx("lots").unwrap_err().starts_with("usage"));
    }
}
