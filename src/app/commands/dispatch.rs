//! What each slash command does: one arm per [`Intent`].

use super::Intent;
use crate::actor::Command;
use crate::app::App;
use crate::app::overlays::{OverlayState, Reply};
use crate::core::engine::Request;
use crate::store::export::Format;

impl App {
    pub(in crate::app) fn slash(&mut self, intent: Intent) {
        match intent {
            Intent::Snapshot(label) => self.command(Request::Snapshot { label }),
            Intent::Restore(None) => self.open_restore(),
            Intent::Restore(Some(id)) => self.command(Command::Restore { id }),
            Intent::Compress(focus) => self.command(Request::Compress { focus }),
            Intent::Goal(change) => {
                self.command(Request::Goal { change });
                self.panel = true;
            }
            Intent::Pin(id) => self.command(Request::Pin { id, pinned: true }),
            Intent::Unpin(id) => self.command(Request::Pin { id, pinned: false }),
            Intent::Model(None) => self.open_models(),
            Intent::Model(Some(name)) => self.command(Command::SetModel { name }),
            Intent::Ctx(ctx) => self.command(Request::SetCtx { ctx }),
            Intent::Mode(mode) => self.command(Request::SetMode { mode }),
            Intent::Export { json } => self.command(Command::Export {
                format: if json {
                    Format::Json
                } else {
                    Format::Markdown(crate::app::words::MARKDOWN)
                },
            }),
            Intent::Inspect(number) => self.inspect(number, false),
            Intent::InspectResult(id) => self.inspect_result(id),
            Intent::Panel => self.toggle_panel(),
            Intent::Details => self.details = !self.details,
            Intent::Think(think) => self.command(Command::SetThink(think)),
            Intent::Retry => self.command(Request::Retry),
            Intent::Done => self.command(Request::Done),
            Intent::Sessions => self.open_sessions(),
            Intent::Search(text) => self.open_search(text),
            Intent::Fork(at) => self.ask(move |reply| Command::Fork { at, reply }, Reply::Forked),
            Intent::Help => self.overlay = Some(OverlayState::Help { scroll: 0 }),
            Intent::Quit => self.quit = true,
        }
    }
}
