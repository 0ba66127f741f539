//! One compression = four stages (ARCHITECTURE.md, "Terms"), and the types that carry it
//! from plan to outcome.
//!
//! - stage 1, **identify** (`identify.rs`, [`Engine::identify`](super::Engine::identify)): the oldest unprotected messages
//!   outside the recent window. Protected: pinned messages, tool errors, the recent window
//!   (at least the last exchange), and user messages — unless keeping user text would
//!   leave the context at the trigger after compression, then the oldest user messages go
//!   too (reported).
//! - stage 2, **plan** (`plan.rs`): tasks with mode- and goal-aware prompts and token caps — the
//!   new checkpoint (its cap follows what it replaces), and only when the summaries would
//!   outgrow their share or count: the two oldest merged into one rolling summary, and the
//!   oldest that can age aged one level from its original messages. A pass costs about two
//!   model calls however many checkpoints there are.
//! - stage 3, **summarize** ([`CompressionPlan::run`], via `pipeline.rs`'s `run_task`): the only async
//!   stage, run by the driver; it never touches engine state, so cancelling is dropping the
//!   future.
//! - stage 4, **apply** (`apply.rs`): checkpoint, update and validate: results become records
//!   (applied like every record, so replay matches); a failed aging or merge shortens the
//!   existing summaries without the model (marked `truncated`), so every pass keeps at most
//!   `MAX_CHECKPOINTS` checkpoints whatever the summarizer does; facts found in the
//!   covered messages go to the fact ledger (`core/ledger/`), which aging never shrinks; then the budget is checked and, if a pass freed under the minimum share of the
//!   budget, automatic compression backs off.
//!
//! The emergency measures a turn escalates to when a request does not fit (snapshot,
//! clipping, the blocked report) are in `emergency.rs`; when to use them is the turn's
//! decision (`turn/escalate.rs`).

mod apply;
mod emergency;
mod identify;
pub mod pipeline;
mod plan;
mod summary;

pub use identify::Selection;
pub(super) use summary::Summaries;
pub use summary::SummaryVerdicts;

use crate::core::checkpoint::Checkpoint;
use crate::core::events::{CompressReason, Intensity};
use crate::core::facts::{self, FactKind};
use crate::core::goals::GoalChange;
use crate::core::markers;
use crate::core::message::{Message, MessageId, ReplyStatus, Role};
use crate::core::prompts::Prompts;
use crate::core::snapshot::Snapshot;
use crate::core::summarizer::Summarizer;
use crate::core::tokens::Tokenizer;
use pipeline::{Task, TaskResult, TaskTarget};
use std::sync::Arc;

/// Progress of a running compression, for the spinner text.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub step: usize,
    pub of: usize,
    pub what: String,
}

/// A prepared compression: run it (async, through a `Summarizer`), then hand the outcome
/// to `Engine::apply_compression`.
#[derive(Debug)]
pub struct CompressionPlan {
    pub reason: CompressReason,
    pub intensity: Intensity,
    /// To be saved before running (recovery, or emergency).
    pub snapshot: Option<Snapshot>,
    /// Compression number this pass will get.
    pub number: u32,
    pub tokens_before: u32,
    pub(super) version: u64,
    pub(super) new: Option<Task>,
    pub(super) aging: Vec<Task>,
    pub(super) merge: Option<Task>,
    tok: Arc<dyn Tokenizer>,
    prompts: Arc<Prompts>,
}

/// The result of running a plan.
#[derive(Debug)]
pub struct CompressionOutcome {
    /// How long the run took, as the driver measured it (the engine has no clock): it
    /// counts toward compression's share of the server's time (`core::speed`).
    pub elapsed_ms: Option<u64>,
    pub reason: CompressReason,
    pub intensity: Intensity,
    pub number: u32,
    pub tokens_before: u32,
    pub(super) version: u64,
    pub(super) new: Option<(Task, Result<TaskResult, String>)>,
    pub(super) aging: Vec<(Task, Result<TaskResult, String>)>,
    pub(super) merge: Option<(Task, Result<TaskResult, String>)>,
}

impl CompressionOutcome {
    /// Only the summary of an earlier fold (`Summarize`): nothing folded, aged or merged.
    pub fn summary_only(&self) -> bool {
        self.new.is_none()
            && self.merge.is_none()
            && !self.aging.is_empty()
            && self
                .aging
                .iter()
                .all(|(t, _)| matches!(t.target, TaskTarget::Summarize { .. }))
    }
}

impl CompressionPlan {
    /// Messages the new checkpoint will fold.
    pub fn messages(&self) -> usize {
        match &self.new {
            Some(Task {
                target: TaskTarget::New { covers, .. },
                ..
            }) => covers.len(),
            _ => 0,
        }
    }

    /// Tasks (model calls at least) this plan will run.
    pub fn tasks(&self) -> usize {
        usize::from(self.new.is_some()) + self.aging.len() + usize::from(self.merge.is_some())
    }

    /// One line for the spinner and the log.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(t) = &self.new {
            parts.push(format!(
                "fold {} messages ({} tokens)",
                self.messages(),
                t.input_raw
            ));
        }
        for t in &self.aging {
            if matches!(t.target, TaskTarget::Summarize { .. }) {
                parts.push(format!("summarizing {}", t.range_label));
            }
        }
        let aged = self
            .aging
            .iter()
            .filter(|t| matches!(t.target, TaskTarget::Age { .. }))
            .count();
        if aged > 0 {
            parts.push(format!("age {aged} checkpoint(s)"));
        }
        if let Some(TaskTarget::Merge { ids }) = self.merge.as_ref().map(|t| &t.target) {
            parts.push(format!("merge {} checkpoints into one", ids.len()));
        }
        parts.join(", ")
    }

    /// Every task can be done without the model (folds keep the facts only; upkeep
    /// cuts): the plan can be applied at once, in the turn.
    pub fn offline(&self) -> bool {
        let offline = |t: &Task| t.cut_from.is_some() || t.mechanical;
        self.new
            .iter()
            .chain(&self.aging)
            .chain(&self.merge)
            .all(offline)
    }

    /// The outcome of an [`offline`](Self::offline) plan, at once (no summarizer, no
    /// waiting); the plan back when some task needs the model. The one executor
    /// ([`Self::run_with_progress`]) runs it: `pipeline::run_task` does a task without the
    /// model first, so the summarizer is never asked and the run never waits.
    pub fn run_offline(self) -> Result<CompressionOutcome, Box<CompressionPlan>> {
        if !self.offline() {
            return Err(Box::new(self));
        }
        let mut run = std::pin::pin!(self.run_with_progress(&NoModel, |_| {}));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        loop {
            // Ready at the first poll: nothing in it waits (`NoModel` answers at once).
            if let std::task::Poll::Ready(mut outcome) = run.as_mut().poll(&mut cx) {
                outcome.elapsed_ms = Some(0);
                return Ok(outcome);
            }
        }
    }

    pub async fn run<S: Summarizer>(self, summarizer: &S) -> CompressionOutcome {
        self.run_with_progress(summarizer, |_| {}).await
    }

    /// The one executor of a plan: every task in order (the new checkpoint, aging, the
    /// merge), each by `pipeline::run_task`, its progress said; stops early if the new
    /// checkpoint cannot be made (then nothing is applied and nothing lost).
    pub async fn run_with_progress<S: Summarizer, F: FnMut(Progress) + Send>(
        self,
        summarizer: &S,
        mut progress: F,
    ) -> CompressionOutcome {
        let CompressionPlan {
            reason,
            intensity,
            number,
            tokens_before,
            version,
            new,
            aging,
            merge,
            tok,
            prompts,
            ..
        } = self;
        let of = usize::from(new.is_some()) + aging.len() + usize::from(merge.is_some());
        let mut step = 0;
        let mut out = CompressionOutcome {
            elapsed_ms: None,
            reason,
            intensity,
            number,
            tokens_before,
            version,
            new: None,
            aging: Vec::new(),
            merge: None,
        };
        if let Some(task) = new {
            step += 1;
            progress(Progress {
                step,
                of,
                what: format!("summarizing {}", task.range_label),
            });
            let r = pipeline::run_task(&task, &prompts, tok.as_ref(), summarizer).await;
            let failed = r.is_err();
            out.new = Some((task, r));
            if failed {
                return out;
            }
        }
        for task in aging {
            step += 1;
            let what = match task.target {
                TaskTarget::Summarize { .. } => format!("summarizing {}", task.range_label),
                _ => format!("aging checkpoint to {}", task.level.name()),
            };
            progress(Progress { step, of, what });
            let r = pipeline::run_task(&task, &prompts, tok.as_ref(), summarizer).await;
            out.aging.push((task, r));
        }
        if let Some(task) = merge {
            step += 1;
            progress(Progress {
                step,
                of,
                what: "merging checkpoints".into(),
            });
            let r = pipeline::run_task(&task, &prompts, tok.as_ref(), summarizer).await;
            out.merge = Some((task, r));
        }
        out
    }
}

/// The summarizer of a plan that needs no model: never asked (see
/// [`CompressionPlan::run_offline`]), and if it were, it would refuse at once.
struct NoModel;

impl Summarizer for NoModel {
    fn summarize(
        &self,
        _request: crate::core::summarizer::SummaryRequest,
    ) -> impl std::future::Future<Output = Result<String, crate::core::summarizer::SummaryError>> + Send
    {
        std::future::ready(Err(crate::core::summarizer::SummaryError::Failed(
            "needs the model".into(),
        )))
    }
}

pub(super) fn format_message(m: &Message) -> String {
    let who = match m.role {
        Role::User => "User".to_string(),
        Role::Assistant => "Assistant".to_string(),
        Role::Tool => format!(
            "Tool {}",
            m.tool.as_ref().map_or("result", |t| t.name.as_str())
        ),
    };
    // Plain "User: …" lines: with message ids and annotations a small model copies the
    // transcript instead of taking notes (measured with a 0.5B model).
    let who = if m.status == ReplyStatus::Interrupted {
        format!("{who} (cut off)")
    } else {
        who
    };
    format!("{who}: {}", m.text)
}

pub(super) fn range_label(ids: &[MessageId]) -> String {
    match (ids.first(), ids.last()) {
        (Some(a), Some(b)) if a == b => format!("message {a}"),
        (Some(a), Some(b)) => format!("{} messages, {a}–{b}", ids.len()),
        _ => "no messages".into(),
    }
}

pub(super) fn merged_covers(parts: &[&Checkpoint]) -> Vec<MessageId> {
    let mut covers: Vec<MessageId> = parts
        .iter()
        .flat_map(|c| c.covers.iter().copied())
        .collect();
    covers.sort_unstable();
    covers.dedup();
    covers
}

/// Decisions, files and next steps mentioned in a summary.
pub(super) fn parse_details(text: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut decisions = Vec::new();
    let mut next = Vec::new();
    for change in markers::parse(text) {
        match change {
            GoalChange::Decision { text, .. } => decisions.push(text),
            GoalChange::Next { text } => next.push(text),
            _ => {}
        }
    }
    let files = facts::extract(text)
        .into_iter()
        .filter(|f| f.kind == FactKind::Path)
        .map(|f| f.text)
        .take(20)
        .collect();
    (decisions, files, next)
}
