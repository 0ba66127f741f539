//! What the actor tells the UI, and the rules for it: the stream of [`Update`]s (transcript
//! changes, typed notices, banners) and the `watch` of the latest [`SessionView`].
//!
//! The part [`Publisher`] owns both channels, the activity the status line shows, and which
//! banner is up: a banner about one failed attempt comes down at the next success of that
//! kind, and while records wait to be written the banner saying so stays up (anything else
//! goes to the transcript instead). Publishing never blocks; a UI that is gone is ignored.
//! The other parts hand it what they know ([`Shown`]); long-running work that reports
//! progress from its own task gets an [`ActivityLine`].

use crate::core::checkpoint::Checkpoint;
use crate::core::engine::Engine;
use crate::core::goals::GoalBoard;
use crate::view::{Activity, BackgroundWork, Connection, Notice, SessionView, ToolsState, Update};
use std::sync::Arc;
use tokio::sync::{mpsc, watch};

/// The session's view and update stream, and the banner in force.
pub(super) struct Publisher {
    updates: mpsc::UnboundedSender<Update>,
    view: watch::Sender<Arc<SessionView>>,
    activity: Activity,
    /// The banner up is about a failed attempt (see [`Publisher::transient_banner`]).
    transient: bool,
    /// Records wait to be written and the banner says so.
    writing: bool,
    /// As last published: shared with every frame until they change.
    checkpoints: Arc<Vec<Checkpoint>>,
    goals: Arc<GoalBoard>,
}

/// What the view shows besides the engine's state, from the parts that know it.
pub(super) struct Shown {
    pub host: String,
    pub connection: Connection,
    pub unwritten: usize,
    pub persisted: bool,
    pub tools: ToolsState,
    pub queued: Vec<String>,
    pub sees_images: bool,
}

/// A handle on the view for work running in its own task (a compression's progress).
#[derive(Clone)]
pub(super) struct ActivityLine(watch::Sender<Arc<SessionView>>);

impl ActivityLine {
    /// The status line's activity, changed from outside the actor's loop.
    pub fn set_activity(&self, activity: Activity) {
        self.0.send_modify(|v| {
            let mut next = (**v).clone();
            next.activity = activity;
            *v = Arc::new(next);
        });
    }

    /// Publish the background work (and, while a turn waits for it, the activity's text).
    pub fn set_background(&self, work: Option<BackgroundWork>) {
        self.0.send_modify(|v| {
            let mut next = (**v).clone();
            if let (Some(w), Activity::Compressing { what, .. }) = (&work, &mut next.activity) {
                what.clone_from(&w.what);
            }
            next.background = work;
            *v = Arc::new(next);
        });
    }
}

impl Publisher {
    pub fn new(
        updates: mpsc::UnboundedSender<Update>,
        view: watch::Sender<Arc<SessionView>>,
    ) -> Self {
        Publisher {
            updates,
            view,
            activity: Activity::Loading,
            transient: false,
            writing: false,
            checkpoints: Arc::default(),
            goals: Arc::default(),
        }
    }

    pub fn send(&self, u: Update) {
        // The UI may be gone (shutting down); nothing to do then.
        let _ = self.updates.send(u);
    }

    /// A line in the transcript.
    pub fn notice(&self, notice: Notice) {
        tracing::info!(?notice, "notice");
        self.send(Update::Notice(notice));
    }

    /// Something the person must see until it is dealt with.
    pub fn banner(&mut self, notice: Notice) {
        self.raise(notice);
    }

    /// Show `notice` as the banner; false when it went to the transcript instead: while
    /// records wait to be written, the banner saying so stays up (a failed snapshot on
    /// the same full disk must not hide it).
    fn raise(&mut self, notice: Notice) -> bool {
        let about_writing = matches!(
            notice,
            Notice::WriteFailed { .. }
                | Notice::NotSentUnwritten { .. }
                | Notice::StoreCreateFailed { .. }
        );
        if self.writing && !about_writing {
            self.notice(notice);
            return false;
        }
        // A new banner replaces whatever was up, transient or not.
        self.transient = false;
        tracing::info!(?notice, "banner");
        self.send(Update::Banner(notice));
        true
    }

    /// A banner about one failed attempt (a request, a restore): the next success of
    /// that kind takes it down, rather than leaving it up for the rest of the session.
    pub fn transient_banner(&mut self, notice: Notice) {
        if self.raise(notice) {
            self.transient = true;
        }
    }

    /// A success: take down a banner about an earlier failed attempt.
    pub fn clear_transient_banner(&mut self) {
        if std::mem::take(&mut self.transient) {
            self.send(Update::ClearBanner);
        }
    }

    /// Writing failed: the banner says so (and stays up until everything is written).
    pub fn write_failed(&mut self, notice: Notice) {
        self.writing = true;
        self.banner(notice);
    }

    /// Everything is written again: the writing banner comes down, said once.
    pub fn write_recovered(&mut self) {
        if std::mem::take(&mut self.writing) {
            self.send(Update::ClearBanner);
            self.notice(Notice::WriteRecovered);
        }
    }

    /// The writing banner is up.
    pub fn writing(&self) -> bool {
        self.writing
    }

    pub fn activity(&self) -> &Activity {
        &self.activity
    }

    /// What the status line says the actor is doing (shown at the next publish).
    pub fn set_activity(&mut self, activity: Activity) {
        self.activity = activity;
    }

    /// A handle for progress reported from another task.
    pub fn line(&self) -> ActivityLine {
        ActivityLine(self.view.clone())
    }

    /// The checkpoints as last published (a merge names ones the engine no longer has).
    pub fn last_checkpoints(&self) -> &[Checkpoint] {
        &self.checkpoints
    }

    /// The count the app needs before quitting (it asks when records would be lost).
    pub fn publish_unwritten(&self, waiting: usize) {
        if self.view.borrow().unwritten != waiting {
            self.view.send_modify(|v| {
                let mut next = (**v).clone();
                next.unwritten = waiting;
                *v = Arc::new(next);
            });
        }
    }

    /// The latest state, for the next frame.
    pub fn publish(&mut self, engine: &Engine, shown: Shown) {
        let cps = engine.checkpoints();
        if *self.checkpoints != cps {
            self.checkpoints = Arc::new(cps.to_vec());
        }
        if *self.goals != *engine.goals() {
            self.goals = Arc::new(engine.goals().clone());
        }
        let view = SessionView {
            session_id: engine.session_id().to_string(),
            host: shown.host,
            status: engine.status(),
            connection: shown.connection,
            activity: self.activity.clone(),
            // Kept as the background task last published it.
            background: self.view.borrow().background.clone(),
            unwritten: shown.unwritten,
            checkpoints: self.checkpoints.clone(),
            goals: self.goals.clone(),
            persisted: shown.persisted,
            tools: shown.tools,
            queued: shown.queued,
            sees_images: shown.sees_images,
        };
        self.view.send_replace(Arc::new(view));
    }
}
