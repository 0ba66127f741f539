//! Entering and leaving the terminal's TUI state, and putting it back on panic.
//!
//! `ratatui::try_init` gives raw mode, the alternate screen and a panic hook; on top of it
//! we enable bracketed paste (so a paste is one event, not a storm of keys), mouse capture
//! (wheel scrolling) and, where the terminal supports it, disambiguated key codes (so
//! Shift+Enter differs from Enter). [`leave`] undoes all of it and is idempotent; our
//! panic hook calls it before the panic is printed, so the message lands on a sane
//! terminal. Signals (SIGTERM, SIGHUP, SIGINT, SIGQUIT) end the event loop, which then calls
//! [`leave`].

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::execute;
use ratatui::DefaultTerminal;
use std::io::stdout;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

static ACTIVE: AtomicBool = AtomicBool::new(false);
static KEYBOARD_FLAGS: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// Switch the terminal to the TUI.
pub fn enter() -> std::io::Result<DefaultTerminal> {
    let terminal = ratatui::try_init()?;
    ACTIVE.store(true, Ordering::SeqCst);
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            leave();
            tracing::error!(%info, "panic");
            previous(info);
        }));
    });
    execute!(stdout(), EnableBracketedPaste, EnableMouseCapture)?;
    if crossterm::terminal::supports_keyboard_enhancement().unwrap_or(false)
        && execute!(
            stdout(),
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )
        .is_ok()
    {
        KEYBOARD_FLAGS.store(true, Ordering::SeqCst);
    }
    Ok(terminal)
}

/// Capture the mouse (wheel scrolling) or give it back to the terminal, whose own
/// selection then works.
pub fn set_mouse(on: bool) -> std::io::Result<()> {
    if on {
        execute!(stdout(), EnableMouseCapture)
    } else {
        execute!(stdout(), DisableMouseCapture)
    }
}

/// Write an OSC 52 sequence (`app::copy`): it sets the clipboard and draws nothing.
pub fn clipboard(sequence: &str) -> std::io::Result<()> {
    execute!(stdout(), crossterm::style::Print(sequence))
}

/// Whether the app runs inside tmux, whose default `set-clipboard external` keeps an
/// application's OSC 52 from the clipboard: `/copy` cannot see whether the text arrived,
/// so it says what tmux needs.
pub fn inside_tmux() -> bool {
    std::env::var_os("TMUX").is_some()
}

/// Restore the terminal: keyboard flags, mouse, paste, alternate screen, raw mode, cursor.
/// Safe to call more than once, and when [`enter`] never ran.
pub fn leave() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    if KEYBOARD_FLAGS.swap(false, Ordering::SeqCst) {
        let _ = execute!(stdout(), PopKeyboardEnhancementFlags);
    }
    let _ = execute!(stdout(), DisableMouseCapture, DisableBracketedPaste);
    ratatui::restore();
    let _ = execute!(stdout(), crossterm::cursor::Show);
}
