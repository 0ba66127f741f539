//! `/pull NAME`: a model downloaded by the Ollama server, as `ollama pull` does, with its
//! progress in a dialog.
//!
//! The actor's link runs the pull (`Ask::Pull`) on a task of its own, never on the
//! event loop or the actor's: chatting goes on, and the dialog can be hidden (`q`, or
//! typing) while it runs. Its lines come back to the loop as [`Reply::Pull`], carried by a
//! small task here. Esc in the dialog aborts that task, which drops the receiver: the link
//! drops the HTTP stream, and the server sees the client leave.
//! On success the model is switched to when the session wanted it (it was missing, or it
//! was chosen in the picker); otherwise the notice says how to switch.

use super::App;
use super::overlays::{OverlayState, PullEvent, Reply};
use super::present::banner_of;
use super::words;
use crate::actor::{Ask, Command};
use crate::llm::{LlmError, PullLine, PullProgress};
use crate::view::{Connection, Notice, Severity};
use tokio::time::Instant;

/// The pull under way (one at a time).
pub struct PullJob {
    /// Names this pull's answers, so a cancelled one's last lines are ignored.
    pub(crate) id: u64,
    pub(crate) name: String,
    pub(crate) progress: PullProgress,
    started: Instant,
    /// Switch to the model once it is installed.
    pub(crate) switch: bool,
    /// The transcript's "Pulling NAME…" line, which a failure replaces: left as it was,
    /// it read as a pull still under way.
    started_line: String,
    task: tokio::task::JoinHandle<()>,
}

impl PullJob {
    /// The dialog's lines: the status words, then the figures.
    pub(crate) fn lines(&self) -> Vec<String> {
        let p = &self.progress;
        let status = if p.status.is_empty() {
            "asking the server…".to_string()
        } else {
            p.status.clone()
        };
        vec![
            status,
            words::pull_figures(p.completed(), p.total(), p.percent(), p.speed()),
        ]
    }

    /// The bar's filled share, once the size is known.
    pub(crate) fn ratio(&self) -> Option<f64> {
        let total = self.progress.total();
        (total > 0).then(|| self.progress.completed() as f64 / total as f64)
    }
}

/// The app's part for `/pull`: the pull under way, the names of its answers, and the
/// model a failed switch asked for. Its fields are this file's.
#[derive(Default)]
pub struct Pulling {
    /// The model being pulled, whether or not its dialog shows.
    job: Option<PullJob>,
    /// The last pull's id (`PullJob::id`).
    seq: u64,
    /// The model a failed `/model NAME` asked for (the server lacks it): pulling it switches.
    wanted: Option<String>,
}

impl Pulling {
    /// The pull under way.
    pub fn job(&self) -> Option<&PullJob> {
        self.job.as_ref()
    }
}

/// The model `/pull` without a name means: the session's, when the server lacks it.
pub fn missing_model(connection: &Connection, model: &str) -> Option<String> {
    match connection {
        Connection::ModelMissing { model } => Some(model.clone()),
        Connection::NoModels if !model.is_empty() => Some(model.to_string()),
        _ => None,
    }
}

impl App {
    /// The model a bare `/pull` (and the picker's first row) means for this session.
    pub(super) fn missing_model(&self) -> Option<String> {
        missing_model(&self.session.connection, &self.session.status.model)
    }

    /// The status line's word for a pull that goes on with its dialog hidden.
    pub(super) fn hidden_pull(&self) -> Option<String> {
        let job = self.pull.job.as_ref()?;
        if matches!(self.overlay, Some(OverlayState::Pull)) {
            return None;
        }
        Some(words::pull_status(&job.name, job.progress.percent()))
    }

    /// A `/model NAME` the server could not switch to because it lacks the model: the
    /// banner offers `/pull NAME`, which then switches to it, as the person asked.
    pub(super) fn remember_wanted_model(&mut self, notice: &Notice) {
        if let Notice::ModelSwitchFailed {
            name,
            error: LlmError::ModelNotFound { .. },
        } = notice
        {
            self.pull.wanted = Some(name.clone());
        }
    }

    /// `/pull [NAME]`; `from_picker`: chosen in the model picker (switch to it after).
    pub(super) fn pull(&mut self, name: Option<String>, from_picker: bool) {
        let missing = self.missing_model();
        if let Some(job) = &self.pull.job {
            if name.as_ref().is_none_or(|n| *n == job.name) {
                self.overlay = Some(OverlayState::Pull);
            } else {
                self.info(words::pull_busy(&job.name));
            }
            return;
        }
        let Some(name) = name.or_else(|| missing.clone()) else {
            self.input_note = Some(words::PULL_USAGE.to_string());
            return;
        };
        let switch = from_picker
            || missing.as_deref() == Some(name.as_str())
            || self.pull.wanted.as_deref() == Some(name.as_str())
            || matches!(self.session.connection, Connection::NoModels);
        self.pull.seq += 1;
        let id = self.pull.seq;
        // The actor's link pulls; this task only carries its lines into the loop, and
        // aborting it drops the receiver, which ends the pull.
        let (lines, mut rx) = tokio::sync::mpsc::unbounded_channel();
        self.command(Ask::Pull {
            name: name.clone(),
            lines,
        });
        let back = self.replies.sender();
        let task = tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                if back.send(Reply::Pull { id, event }).is_err() {
                    return;
                }
            }
        });
        let started_line = words::pull_started(&name);
        self.info(started_line.clone());
        self.pull.job = Some(PullJob {
            id,
            name,
            progress: PullProgress::default(),
            started: Instant::now(),
            switch,
            started_line,
            task,
        });
        self.overlay = Some(OverlayState::Pull);
    }

    /// Esc in the dialog: stop the pull (its stream is dropped with the task).
    pub(super) fn cancel_pull(&mut self) {
        if matches!(self.overlay, Some(OverlayState::Pull)) {
            self.overlay = None;
        }
        if let Some(job) = self.pull.job.take() {
            job.task.abort();
            self.info(words::pull_cancelled(&job.name, job.progress.completed()));
        }
    }

    /// A line (or the failure) of the pull under way.
    pub(super) fn on_pull(&mut self, id: u64, event: PullEvent) {
        let Some(job) = self.pull.job.as_mut().filter(|j| j.id == id) else {
            return;
        };
        let failed = match event {
            PullEvent::Line(PullLine::Error(message)) | PullEvent::Failed(message) => message,
            PullEvent::Line(line) => {
                job.progress.apply(&line, Instant::now());
                if !job.progress.done {
                    return;
                }
                let Some(job) = self.pull.job.take() else {
                    return;
                };
                self.close_pull_dialog();
                let secs = job.started.elapsed().as_secs();
                let embeds = crate::llm::embedding_only(&job.name, &[]);
                self.info(words::pulled(
                    &job.name,
                    job.progress.total(),
                    secs,
                    job.switch && !embeds,
                    embeds,
                ));
                // An embedding model serves recall: the session picks it up.
                self.intend(Command::ModelsChanged.into());
                if job.switch && !embeds {
                    self.intend(Command::SetModel { name: job.name }.into());
                }
                return;
            }
        };
        let Some(job) = self.pull.job.take() else {
            return;
        };
        self.close_pull_dialog();
        let said = words::pull_failed(&job.name, &failed);
        self.replace_started_line(&job.started_line, &said.title);
        self.banner = Some(banner_of(Severity::Warn, said));
    }

    /// The pull's "Pulling NAME…" line says `failed` instead, where it stood (the banner
    /// says it too, with the fix; the line stays once the banner is closed).
    fn replace_started_line(&mut self, started: &str, failed: &str) {
        let at = self.transcript.entries().iter().rposition(|e| {
            matches!(e.kind, crate::view::EntryKind::Notice(_)) && e.text == started
        });
        match at {
            Some(i) => self.transcript.update(i, |e| {
                e.kind = crate::view::EntryKind::Notice(Severity::Warn);
                e.text = failed.to_string();
            }),
            None => self.transcript.push(crate::view::Entry::notice(
                Severity::Warn,
                failed,
                chrono::Utc::now(),
            )),
        }
    }

    fn close_pull_dialog(&mut self) {
        if matches!(self.overlay, Some(OverlayState::Pull)) {
            self.overlay = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_pull_means_the_missing_model_only() {
        let missing = Connection::ModelMissing {
            model: "llama3.1:70b".into(),
        };
        assert_eq!(
            missing_model(&missing, "llama3.1:70b").as_deref(),
            Some("llama3.1:70b")
        );
        let connected = Connection::Connected {
            version: "0.12.6".into(),
        };
        assert_eq!(missing_model(&connected, "llama3.2:3b"), None);
        assert_eq!(missing_model(&Connection::NoModels, ""), None);
    }

    #[test]
    fn the_figures_say_bytes_percent_and_speed() {
        assert_eq!(
            words::pull_figures(37_800_000, 75_700_000, Some(49), Some(12_000_000.0)),
            "37.8 MB of 75.7 MB · 49 % · 12.0 MB/s"
        );
        assert_eq!(
            words::pull_figures(0, 2_000_000_000, Some(0), None),
            "0 B of 2.0 GB · 0 %"
        );
        assert_eq!(
            words::pull_figures(0, 0, None, None),
            "waiting for the size…"
        );
    }
}
