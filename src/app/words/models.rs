//! The model picker's words and pulling a model (`/pull`): its dialog, its status line,
//! and what is said when a pull starts, ends or fails. Apart because the picker and the
//! pull dialog are one subject and change together.

use super::Words;

/// The model picker before the list arrives.
pub const LOADING: &str = "loading…";
pub const NO_MODELS: &str = "No models installed: /pull llama3.2 downloads one.";

/// `/pull` without a name when the session's model is installed.
pub const PULL_USAGE: &str = "usage: /pull NAME (e.g. /pull llama3.2:3b); without a name it pulls this session's model when it is missing";

/// The picker's row that pulls the session's missing model.
pub fn pull_row(name: &str) -> String {
    format!("Pull {name}…")
}

/// The picker's note when the session's model is missing.
pub fn picker_missing(name: &str) -> String {
    format!("{name} is not installed: Enter on its row pulls it (/pull {name}).")
}

/// The pull dialog's title.
pub fn pull_title(name: &str) -> String {
    format!("Pulling {name}")
}

/// The dialog's footer: what its keys do.
pub const PULL_FOOTER: &str = "Esc cancel · q hide (it goes on)";

/// The status line while a pull goes on with its dialog hidden.
pub fn pull_status(name: &str, percent: Option<u8>) -> String {
    match percent {
        Some(p) => format!("pulling {name} {p} % (/pull shows it)"),
        None => format!("pulling {name} (/pull shows it)"),
    }
}

/// The dialog's figures: "1.2 GB of 2.0 GB · 61 % · 12.3 MB/s".
pub fn pull_figures(completed: u64, total: u64, percent: Option<u8>, speed: Option<f64>) -> String {
    if total == 0 {
        return "waiting for the size…".to_string();
    }
    let mut out = format!(
        "{} of {}",
        crate::ui::text::bytes(completed),
        crate::ui::text::bytes(total)
    );
    if let Some(p) = percent {
        out.push_str(&format!(" · {p} %"));
    }
    if let Some(bps) = speed {
        out.push_str(&format!(" · {}/s", crate::ui::text::bytes(bps as u64)));
    }
    out
}

pub fn pull_started(name: &str) -> String {
    format!("Pulling {name}: Esc in its dialog cancels, q hides it (/pull shows it again).")
}

pub fn pull_busy(running: &str) -> String {
    format!("{running} is being pulled; one pull at a time (/pull shows it, Esc there cancels).")
}

pub fn pull_cancelled(name: &str, completed: u64) -> String {
    format!(
        "Pull of {name} cancelled after {}; the server keeps what it downloaded, so /pull {name} resumes.",
        crate::ui::text::bytes(completed)
    )
}

pub fn pulled(name: &str, total: u64, secs: u64, switching: bool, embeds: bool) -> String {
    let size = if total > 0 {
        format!(" ({})", crate::ui::text::bytes(total))
    } else {
        String::new()
    };
    if embeds {
        // Not a chat model: recall takes it up by itself (the session says so).
        format!("Pulled {name}{size} in {secs} s.")
    } else if switching {
        format!("Pulled {name}{size} in {secs} s; switching to it.")
    } else {
        format!("Pulled {name}{size} in {secs} s; /model {name} switches to it.")
    }
}

pub fn pull_failed(name: &str, error: &str) -> Words {
    Words::with_hint(
        format!("Cannot pull {name}: {error}"),
        "Check the name (ollama.com/library lists them, with tags like :3b), or try again.",
    )
}
