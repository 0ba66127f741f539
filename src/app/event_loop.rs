//! The event loop: terminal events and actor updates in, commands out, frames drawn.
//!
//! Strategy (yazi, ratatui templates): draw only when something changed, and at most
//! [`FRAME_RATE_HZ`] times a second — stream deltas arriving faster are coalesced into one
//! frame. Idle means no timers at all (the spinner ticks only while the actor is busy), so
//! an idle session uses no CPU. The UI never blocks on the actor: commands go out with
//! `try_send`, answers (snapshot and model lists, checkpoint details) come back on
//! oneshots that are awaited by small tasks which wake the loop.

use super::App;
use crate::ui;
use crate::view::Update;
use crossterm::event::{Event, EventStream, KeyEventKind, MouseEventKind};
use futures_util::StreamExt;
use ratatui::DefaultTerminal;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Redraws per second at most; stream chunks arriving faster share a frame.
pub const FRAME_RATE_HZ: u64 = 60;
const FRAME: Duration = Duration::from_millis(1000 / FRAME_RATE_HZ);
/// Spinner speed while busy.
const SPINNER: Duration = Duration::from_millis(120);
/// Lines per mouse-wheel step.
const WHEEL_LINES: u16 = 3;
/// Terminal events taken in one go at most.
const MAX_BATCH: usize = 1 << 16;
/// Actor updates taken in one go at most: the rest wait for the next turn of the loop, so
/// keys and signals are looked at between (the actor sends text at most every 16 ms, but
/// a backlog must not hold the loop either).
const MAX_UPDATES: usize = 256;

impl App {
    /// Run until the user quits, the actor stops, or a signal asks us to end. Borrowed, not
    /// consumed: what the run chose for the next session in the same terminal (the theme)
    /// is read after.
    pub async fn run(
        &mut self,
        terminal: &mut DefaultTerminal,
        mut updates: mpsc::UnboundedReceiver<Update>,
    ) -> std::io::Result<super::AppExit> {
        let mut events = EventStream::new().ready_chunks(MAX_BATCH);
        let mut sigterm =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        let mut sighup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;
        // `kill -INT` (Ctrl+C in raw mode is a key, handled as one).
        let mut sigint = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
        // `kill -QUIT` would otherwise end the process at once (and dump core), leaving the
        // terminal raw and the reply unsaved; it ends like SIGTERM (Ctrl+\ in raw mode is
        // a key, not this signal).
        let mut sigquit = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::quit())?;
        if !self.mouse {
            // `mouse = false`: `terminal::enter` captured it; the terminal selects.
            let _ = super::terminal::set_mouse(false);
        }
        let mut dirty = true;
        let mut last_draw: Option<Instant> = None;
        let mut spinner = tokio::time::interval(SPINNER);
        spinner.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        while !self.leaving.decided() {
            if dirty && last_draw.is_none_or(|t| t.elapsed() >= FRAME) {
                self.draw(terminal)?;
                last_draw = Some(Instant::now());
                dirty = false;
            }
            let next_frame = last_draw.map(|t| tokio::time::Instant::from_std(t + FRAME));
            let busy = self.busy();
            tokio::select! {
                // Keys and signals first, whatever else is ready: a reply streaming as
                // fast as the socket allows must not keep them waiting.
                biased;
                _ = sigterm.recv() => break,
                _ = sighup.recv() => break,
                _ = sigint.recv() => break,
                _ = sigquit.recv() => break,
                // Everything already waiting comes at once (`ready_chunks`): a burst of
                // typed text (a paste without bracketed paste) is inserted in one go.
                batch = events.next() => match batch {
                    Some(batch) => {
                        let batch: std::io::Result<Vec<Event>> = batch.into_iter().collect();
                        self.on_events(batch?);
                        dirty = true;
                    }
                    None => break,
                },
                u = updates.recv() => match u {
                    Some(u) => {
                        self.on_update(u);
                        for _ in 1..MAX_UPDATES {
                            let Ok(u) = updates.try_recv() else { break };
                            self.on_update(u);
                        }
                        dirty = true;
                    }
                    None => break,
                },
                changed = self.link.changed() => {
                    if !changed {
                        break;
                    }
                    self.sync_session();
                    dirty = true;
                }
                Some(r) = self.replies.next() => {
                    self.on_reply(r);
                    dirty = true;
                }
                _ = spinner.tick(), if busy => {
                    self.spinner = self.spinner.wrapping_add(1);
                    dirty = true;
                }
                _ = async {
                    match next_frame {
                        Some(t) => tokio::time::sleep_until(t).await,
                        None => std::future::pending().await,
                    }
                }, if dirty => {}
            }
        }
        Ok(self.leaving.take_exit())
    }

    fn draw(&mut self, terminal: &mut DefaultTerminal) -> std::io::Result<()> {
        // The actor publishes the view before sending the updates that follow from it, so
        // the freshest view is never older than the transcript drawn with it.
        self.sync_session();
        let mut view = self.view_model();
        let frame = terminal.draw(|f| ui::render(f, &mut view))?;
        self.screen_rows = frame.area.height;
        Ok(())
    }

    /// Take the actor's latest view.
    pub(super) fn sync_session(&mut self) {
        self.session = self.link.latest();
    }

    /// Events that arrived together. Runs of plain typed characters go into the message
    /// box as one insertion (a 200 KB burst typed key by key re-wrapped the whole box per
    /// key: minutes at full CPU), and a run longer than a paste folds is folded like one.
    pub(super) fn on_events(&mut self, batch: Vec<Event>) {
        let mut typed = String::new();
        let mut first: Option<crossterm::event::KeyEvent> = None;
        for e in batch {
            if let Event::Key(k) = &e
                && k.kind != KeyEventKind::Release
                && self.types_into_the_box(k)
                && let crossterm::event::KeyCode::Char(c) = k.code
            {
                if typed.is_empty() {
                    first = Some(*k);
                }
                typed.push(c);
                continue;
            }
            self.flush_typed(&mut typed, first.take());
            self.on_event(e);
        }
        self.flush_typed(&mut typed, first);
    }

    fn flush_typed(&mut self, typed: &mut String, first: Option<crossterm::event::KeyEvent>) {
        match (typed.chars().count(), first) {
            (0, _) => {}
            (1, Some(k)) => self.on_key(k),
            _ => self.on_paste(typed),
        }
        typed.clear();
    }

    pub(super) fn on_event(&mut self, e: Event) {
        match e {
            Event::Key(k) if k.kind != KeyEventKind::Release => self.on_key(k),
            Event::Paste(text) => self.on_paste(&text),
            Event::Mouse(m) => match m.kind {
                MouseEventKind::ScrollUp => self.scroll(true, WHEEL_LINES),
                MouseEventKind::ScrollDown => self.scroll(false, WHEEL_LINES),
                _ => {}
            },
            _ => {}
        }
    }
}
