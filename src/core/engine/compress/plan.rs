//! Stage 2, plan: a selection and the existing checkpoints become summarization tasks
//! with mode- and goal-aware prompts and token caps: the new checkpoint, each older
//! checkpoint aged one level (re-summarized from its original messages), and the oldest
//! ancient ones merged. In an emergency everything is merged into one ancient checkpoint,
//! from the summaries (speed matters then).

use super::super::Engine;
use super::pipeline::{Piece, Task, TaskTarget};
use super::{CompressionPlan, format_message, merged_covers, range_label};
use crate::core::budget::Budget;
use crate::core::checkpoint::{Checkpoint, CheckpointId, Level};
use crate::core::engine::input::Effect;
use crate::core::events::{CompressReason, EngineEvent, Intensity, SkipReason};
use crate::core::prompts::{cap_words, fill};
use crate::core::record::SnapshotPurpose;
use chrono::{DateTime, Utc};

/// A fold smaller than this (raw tokens) is not worth a model call.
const MIN_FOLD_RAW: u32 = 48;
/// Safety margin in a summarizer request, tokens.
const SUMMARY_MARGIN: u32 = 64;

impl Engine {
    /// A manual compression (F7, `/compress [focus]`): ignores the trigger and the
    /// back-off, never escalates.
    pub(in crate::core::engine) fn compress_now(
        &mut self,
        focus: Option<String>,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        self.backoff = None;
        if self.background {
            // The summary under way is for an older fold; this one goes first.
            self.background = false;
            fx.push(Effect::CancelBackground);
        }
        match self.plan(
            CompressReason::Manual {
                focus: focus.clone(),
            },
            Intensity::Normal,
            now,
        ) {
            Ok(plan) => {
                if self.fold_now(plan, now, fx) {
                    self.summarize_in_background(true, focus.as_deref().unwrap_or(""), fx);
                }
            }
            Err(reason) => fx.push(Effect::Event(EngineEvent::NotCompressed { reason })),
        }
    }

    pub(super) fn summary_system(&self, level: Level, cap: u32) -> String {
        let p = &self.prompts.summary;
        fill(
            &p.system,
            &[
                ("level_description", p.levels.get(level)),
                ("cap_words", &cap_words(cap).to_string()),
                ("mode_focus", p.modes.get(self.settings.mode)),
            ],
        )
    }

    pub(super) fn goal_block(&self) -> String {
        if self.goals.is_empty() {
            return String::new();
        }
        fill(
            &self.prompts.summary.goal,
            &[("board", self.goals.render_for_prompt().trim_end())],
        ) + "\n\n"
    }

    /// Raw tokens of input one summarizer call can take at this cap.
    pub(super) fn summary_window(&self, system: &str, goal: &str, cap: u32) -> u32 {
        let template = fill(
            &self.prompts.summary.user,
            &[
                ("goal", goal),
                ("transcript", ""),
                ("range", ""),
                ("focus", ""),
            ],
        );
        let overhead = self.tok.count(system) + self.tok.count(&template) + 2 * 4 + 3;
        let cal = self.calibration();
        let room = self
            .ctx()
            .saturating_sub(cal.apply(overhead))
            .saturating_sub(cap)
            .saturating_sub(SUMMARY_MARGIN);
        ((f64::from(room) / cal.factor) as u32).max(64)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn task(
        &self,
        target: TaskTarget,
        level: Level,
        cap: u32,
        pieces: Vec<Piece>,
        earlier: Option<String>,
        range_label: String,
        mechanical: bool,
        focus: &str,
    ) -> Task {
        let system = self.summary_system(level, cap);
        let goal = self.goal_block();
        let window_raw = self.summary_window(&system, &goal, cap);
        let input_raw = pieces.iter().map(|p| p.raw).sum::<u32>()
            + earlier.as_deref().map_or(0, |e| self.tok.count(e));
        Task {
            target,
            level,
            cap,
            pieces,
            earlier,
            input_raw,
            range_label,
            mechanical,
            cut_from: None,
            system,
            goal,
            focus: if focus.is_empty() {
                String::new()
            } else {
                fill(&self.prompts.summary.focus, &[("focus", focus)])
            },
            window_raw,
        }
    }

    /// Stage 2: turn a selection into tasks.
    pub(in crate::core::engine) fn plan(
        &mut self,
        reason: CompressReason,
        intensity: Intensity,
        now: DateTime<Utc>,
    ) -> Result<Box<CompressionPlan>, SkipReason> {
        let b = self.budget();
        let sel = self.identify(intensity);
        let focus = match &reason {
            CompressReason::Manual { focus: Some(f) } => f.clone(),
            _ => String::new(),
        };
        let mechanical = intensity == Intensity::Truncate;
        let level = match intensity {
            Intensity::Normal => Level::Detailed,
            Intensity::Hard => Level::Compact,
            Intensity::Truncate => Level::Ancient,
        };

        let fold_worth_it = if intensity == Intensity::Normal {
            sel.raw >= MIN_FOLD_RAW
        } else {
            !sel.covers.is_empty()
        };
        let new = if fold_worth_it {
            // A fold keeps the folded messages' facts in the ledger and makes no model
            // call: it is applied at once, so nobody waits for it and nothing is sent past
            // the window meanwhile. A summary of the span may follow between turns, when
            // the server can afford it, and stays only if it carries those facts
            // (`plan_summary`). An emergency truncation marks what it cut.
            let mut t = self.task(
                TaskTarget::New {
                    covers: sel.covers.clone(),
                    folded_users: sel.folded_users,
                },
                level,
                b.level_cap(level),
                Vec::new(),
                None,
                range_label(&sel.covers),
                mechanical,
                &focus,
            );
            if mechanical {
                t.pieces = sel
                    .covers
                    .iter()
                    .filter_map(|id| self.history.get(*id))
                    .map(|m| {
                        let text = format_message(m);
                        Piece {
                            raw: self.tok.count(&text),
                            text,
                        }
                    })
                    .collect();
            } else {
                t.cut_from = Some(Vec::new());
            }
            t.input_raw = sel.raw;
            Some(t)
        } else {
            None
        };
        if new.is_none() && intensity == Intensity::Normal {
            let recent = self.active.messages().len() - sel.boundary;
            return Err(if self.active.messages().is_empty() {
                SkipReason::NothingYet
            } else if sel.boundary == 0 {
                SkipReason::RecentKept { recent }
            } else {
                SkipReason::RecentAndProtected {
                    recent,
                    protected: sel.boundary,
                }
            });
        }

        let (aging, merge) = self.plan_checkpoints(intensity, &b, new.as_ref());
        if new.is_none() && aging.is_empty() && merge.is_none() {
            return Err(SkipReason::NothingLeft);
        }

        // Emergency passes come after the emergency snapshot the turn asks for.
        let snapshot = (intensity == Intensity::Normal && self.cfg.auto_snapshots)
            .then(|| self.make_snapshot(SnapshotPurpose::Recovery, None, now));
        Ok(Box::new(CompressionPlan {
            reason,
            intensity,
            snapshot,
            number: self.compressions + 1,
            tokens_before: b.total(),
            version: self.version,
            new,
            aging,
            merge,
            tok: self.tok.clone(),
            prompts: self.prompts.clone(),
        }))
    }

    /// Aging and merging for the existing checkpoints, as much as the budget needs, all
    /// without the model: the facts are in the ledger whatever a summary holds, so an older
    /// summary is not worth a model call. Normal passes: when there would be more than
    /// [`Budget::max_checkpoints`], the two oldest are merged into one ancient checkpoint;
    /// then, while the summaries would outgrow their share of the room, the oldest that can
    /// age age one level — each keeping the opening lines of its summary within the cap (a
    /// summary's first lines are its main points). Emergencies merge everything into one.
    /// Nothing is lost either way: the ledger keeps the facts, the log the originals.
    fn plan_checkpoints(
        &self,
        intensity: Intensity,
        b: &Budget,
        new: Option<&Task>,
    ) -> (Vec<Task>, Option<Task>) {
        let cps = self.active.checkpoints();
        let ancient_cap = b.level_cap(Level::Ancient);
        match intensity {
            Intensity::Normal => {
                let budget = b.summaries_budget();
                let mut projected: u32 = cps.iter().map(|c| c.tokens).sum();
                let count = cps.len() + usize::from(new.is_some());
                let merge_cap = b.level_cap(Level::Compact);
                let mut merge = None;
                let mut merged: Vec<CheckpointId> = Vec::new();
                if cps.len() >= 2 && count > b.max_checkpoints() {
                    let (a, n) = (&cps[0], &cps[1]);
                    projected = projected.saturating_sub(a.tokens + n.tokens)
                        + merge_cap.min(a.tokens + n.tokens);
                    merge = Some(self.merge_cut(&[a, n], merge_cap));
                    merged = vec![a.id, n.id];
                }
                let mut aging = Vec::new();
                for cp in cps.iter().filter(|c| !merged.contains(&c.id)) {
                    if projected <= budget {
                        break;
                    }
                    let Some(to) = cp.level.aged() else { continue };
                    let task = self.age_cut(cp, to, b);
                    projected = projected.saturating_sub(cp.tokens) + task.cap.min(cp.tokens);
                    aging.push(task);
                }
                // Nothing left to age: fold the oldest two.
                if projected > budget && merge.is_none() && cps.len() >= 2 {
                    let (a, n) = (&cps[0], &cps[1]);
                    if aging.iter().all(|t| !matches!(t.target, TaskTarget::Age { id, .. } if id == a.id || id == n.id)) {
                        merge = Some(self.merge_cut(&[a, n], merge_cap));
                    }
                }
                (aging, merge)
            }
            Intensity::Hard | Intensity::Truncate => {
                let total: u32 = cps.iter().map(|c| c.tokens).sum();
                if cps.is_empty() || (cps.len() == 1 && total <= ancient_cap) {
                    return (Vec::new(), None);
                }
                let refs: Vec<&Checkpoint> = cps.iter().collect();
                (Vec::new(), Some(self.merge_cut(&refs, ancient_cap)))
            }
        }
    }

    /// `cp` aged one level without the model: the opening lines of its summary.
    fn age_cut(&self, cp: &Checkpoint, to: Level, b: &Budget) -> Task {
        let cap = b
            .level_cap(to)
            .min(((f64::from(cp.tokens) * to.aging_ratio()) as u32).max(16));
        let mut t = self.task(
            TaskTarget::Age {
                id: cp.id,
                from: cp.level,
            },
            to,
            cap,
            Vec::new(),
            None,
            range_label(&cp.covers),
            false,
            "",
        );
        t.cut_from = Some(vec![cp.summary.clone()]);
        t
    }

    /// `parts` (oldest first) merged without the model: the opening lines of each summary.
    fn merge_cut(&self, parts: &[&Checkpoint], cap: u32) -> Task {
        let covers = merged_covers(parts);
        let mut t = self.task(
            TaskTarget::Merge {
                ids: parts.iter().map(|c| c.id).collect(),
            },
            Level::Ancient,
            cap,
            Vec::new(),
            None,
            range_label(&covers),
            false,
            "",
        );
        t.cut_from = Some(parts.iter().map(|c| c.summary.clone()).collect());
        t
    }
}
