//! Stage 2, plan: a selection and the existing checkpoints become summarization tasks
//! with mode- and goal-aware prompts and token caps: the new checkpoint, each older
//! checkpoint aged one level (re-summarized from its original messages), and the oldest
//! ancient ones merged. In an emergency everything is merged into one ancient checkpoint,
//! from the summaries (speed matters then).

use super::super::Engine;
use super::{CompressionPlan, format_message, merged_covers, range_label};
use crate::core::budget::Budget;
use crate::core::checkpoint::{Checkpoint, CheckpointId, Level};
use crate::core::engine::input::Effect;
use crate::core::events::{CompressReason, EngineEvent, Intensity, SkipReason};
use crate::core::message::MessageId;
use crate::core::pipeline::{self, Piece, Task, TaskTarget};
use crate::core::prompts::{cap_words, fill};
use crate::core::record::SnapshotPurpose;
use chrono::{DateTime, Utc};

/// A fold smaller than this (raw tokens) is not worth a model call.
const MIN_FOLD_RAW: u32 = 48;
/// A new checkpoint's summary may take this share of what it replaces.
const NEW_SHARE: f64 = 0.3;
/// The smallest cap a summary gets.
const MIN_CAP: u32 = 48;
/// Safety margin in a summarizer request, tokens.
const SUMMARY_MARGIN: u32 = 64;

impl Engine {
    /// A manual compression (Ctrl+K, `/compress [focus]`): ignores the trigger and the
    /// back-off, never escalates.
    pub(in crate::core::engine) fn compress_now(
        &mut self,
        focus: Option<String>,
        now: DateTime<Utc>,
        fx: &mut Vec<Effect>,
    ) {
        self.backoff = None;
        match self.plan(CompressReason::Manual { focus }, Intensity::Normal, now) {
            Ok(plan) => self.request_compression(plan, fx),
            Err(reason) => fx.push(Effect::Event(EngineEvent::NotCompressed { reason })),
        }
    }

    fn summary_system(&self, level: Level, cap: u32) -> String {
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

    fn goal_block(&self) -> String {
        if self.goals.is_empty() {
            return String::new();
        }
        fill(
            &self.prompts.summary.goal,
            &[("board", self.goals.render_for_prompt().trim_end())],
        ) + "\n\n"
    }

    /// Raw tokens of input one summarizer call can take at this cap.
    fn summary_window(&self, system: &str, goal: &str, cap: u32) -> u32 {
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

    fn pieces_of(&self, ids: &[MessageId], window: u32) -> Vec<Piece> {
        ids.iter()
            .filter_map(|id| self.history.get(*id))
            .flat_map(|m| pipeline::split_piece(&format_message(m), window, self.tok.as_ref()))
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn task(
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
            // The cap follows what the summary must hold: a share of what it replaces
            // (the ledger keeps the specifics), within the level's cap.
            let cap = if mechanical {
                b.level_cap(level)
            } else {
                ((f64::from(sel.raw) * NEW_SHARE) as u32)
                    .clamp(MIN_CAP, b.level_cap(level).max(MIN_CAP))
            };
            let probe_window =
                self.summary_window(&self.summary_system(level, cap), &self.goal_block(), cap);
            // Only what is folded goes to the summarizer. User messages that stay verbatim
            // in the context are left out: a small model copies them into the notes,
            // spending the cap on text that is kept anyway (measured with a 0.5B model).
            let pieces: Vec<Piece> = sel
                .covers
                .iter()
                .filter_map(|id| self.history.get(*id))
                .flat_map(|m| {
                    pipeline::split_piece(&format_message(m), probe_window, self.tok.as_ref())
                })
                .collect();
            Some(self.task(
                TaskTarget::New {
                    covers: sel.covers.clone(),
                    folded_users: sel.folded_users,
                },
                level,
                cap,
                pieces,
                None,
                range_label(&sel.covers),
                mechanical,
                &focus,
            ))
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

        let (aging, merge) = self.plan_checkpoints(intensity, &b, &focus, new.as_ref());
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

    /// Aging and merging for the existing checkpoints, as much as the budget needs. Normal
    /// passes: when there would be more than [`Budget::max_checkpoints`], the two oldest are merged
    /// into one ancient checkpoint (from the older summary and the younger one's originals:
    /// the oldest part of the conversation becomes one rolling summary); then, while the
    /// summaries would outgrow their share of the room, the oldest that can age age one
    /// level each. At most one of these is asked of the model a pass, and only while
    /// compression stays within its share of the server's time (`core::speed`): the rest
    /// are done without it — the opening lines of the summaries kept, within the cap — so a
    /// pass costs one or two model calls and the summaries always fit their share. Nothing
    /// is lost either way: the ledger keeps the facts, the log the originals.
    /// Emergencies merge everything into one, from the summaries.
    fn plan_checkpoints(
        &self,
        intensity: Intensity,
        b: &Budget,
        focus: &str,
        new: Option<&Task>,
    ) -> (Vec<Task>, Option<Task>) {
        let cps = self.active.checkpoints();
        let ancient_cap = b.level_cap(Level::Ancient);
        let new_cap = new.map_or(0, |t| t.cap);
        match intensity {
            Intensity::Normal => {
                let budget = b.summaries_budget();
                let mut projected: u32 = cps.iter().map(|c| c.tokens).sum::<u32>() + new_cap;
                let count = cps.len() + usize::from(new.is_some());
                let merge_cap = b.level_cap(Level::Compact);
                // The new summary's call comes first; upkeep by the model only if the
                // server can afford both.
                let new_secs = new.map_or(0.0, |t| self.call_secs(t.input_raw, t.cap));
                let mut model_slot = true;
                let mut by_model = |input: u32, cap: u32| {
                    let afford =
                        model_slot && self.speed.affords(new_secs + self.call_secs(input, cap));
                    model_slot &= !afford;
                    afford
                };
                let mut merge = None;
                let mut merged: Vec<CheckpointId> = Vec::new();
                if cps.len() >= 2 && count > b.max_checkpoints() {
                    let (a, n) = (&cps[0], &cps[1]);
                    projected = projected.saturating_sub(a.tokens + n.tokens) + merge_cap;
                    let input = a.tokens + n.original_tokens;
                    merge = Some(if by_model(input, merge_cap) {
                        self.merge_task(a, n, merge_cap, focus)
                    } else {
                        self.merge_cut(a, n, merge_cap)
                    });
                    merged = vec![a.id, n.id];
                }
                let mut aging = Vec::new();
                for cp in cps.iter().filter(|c| !merged.contains(&c.id)) {
                    if projected <= budget {
                        break;
                    }
                    let Some(to) = cp.level.aged() else { continue };
                    let task = if by_model(cp.original_tokens, b.level_cap(to)) {
                        self.age_task(cp, to, b, focus)
                    } else {
                        self.age_cut(cp, to, b)
                    };
                    projected = projected.saturating_sub(cp.tokens) + task.cap.min(cp.tokens);
                    aging.push(task);
                }
                // Nothing left to age: fold the oldest two.
                if projected > budget && merge.is_none() && cps.len() >= 2 {
                    let (a, n) = (&cps[0], &cps[1]);
                    if aging.iter().all(|t| !matches!(t.target, TaskTarget::Age { id, .. } if id == a.id || id == n.id)) {
                        merge = Some(self.merge_cut(a, n, merge_cap));
                    }
                }
                (aging, merge)
            }
            Intensity::Hard | Intensity::Truncate => {
                let mechanical = intensity == Intensity::Truncate;
                let total: u32 = cps.iter().map(|c| c.tokens).sum();
                if cps.is_empty() || (cps.len() == 1 && total <= ancient_cap) {
                    return (Vec::new(), None);
                }
                // In an emergency, speed matters: work from the summaries.
                let pieces: Vec<Piece> = cps[1..]
                    .iter()
                    .map(|c| Piece {
                        text: c.summary.clone(),
                        raw: c.tokens,
                    })
                    .collect();
                let refs: Vec<&Checkpoint> = cps.iter().collect();
                let covers = merged_covers(&refs);
                let merge = self.task(
                    TaskTarget::Merge {
                        ids: cps.iter().map(|c| c.id).collect(),
                    },
                    Level::Ancient,
                    ancient_cap,
                    pieces,
                    Some(cps[0].summary.clone()),
                    range_label(&covers),
                    mechanical,
                    focus,
                );
                (Vec::new(), Some(merge))
            }
        }
    }

    /// Seconds the server would take over a summary call (0 while its speed is unknown).
    fn call_secs(&self, input: u32, cap: u32) -> f64 {
        let cal = self.calibration();
        self.speed.seconds_for(cal.apply(input), cap).unwrap_or(0.0)
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

    /// `older` and `younger` merged without the model: the opening lines of both.
    fn merge_cut(&self, older: &Checkpoint, younger: &Checkpoint, cap: u32) -> Task {
        let covers = merged_covers(&[older, younger]);
        let mut t = self.task(
            TaskTarget::Merge {
                ids: vec![older.id, younger.id],
            },
            Level::Ancient,
            cap,
            Vec::new(),
            None,
            range_label(&covers),
            false,
            "",
        );
        t.cut_from = Some(vec![older.summary.clone(), younger.summary.clone()]);
        t
    }

    fn age_task(&self, cp: &Checkpoint, to: Level, b: &Budget, focus: &str) -> Task {
        let cap = b
            .level_cap(to)
            .min(((f64::from(cp.tokens) * to.aging_ratio()) as u32).max(16));
        let window = self.summary_window(&self.summary_system(to, cap), &self.goal_block(), cap);
        let mut pieces = self.pieces_of(&cp.covers, window);
        if pieces.is_empty() {
            // Originals unavailable (damaged log): age from the summary instead.
            pieces = vec![Piece {
                text: cp.summary.clone(),
                raw: cp.tokens,
            }];
        }
        self.task(
            TaskTarget::Age {
                id: cp.id,
                from: cp.level,
            },
            to,
            cap,
            pieces,
            None,
            range_label(&cp.covers),
            false,
            focus,
        )
    }

    /// Merge `older` and `younger` into one ancient checkpoint: the older summary, and the
    /// younger one's originals (never a summary of a summary of a summary).
    fn merge_task(&self, older: &Checkpoint, younger: &Checkpoint, cap: u32, focus: &str) -> Task {
        let window = self.summary_window(
            &self.summary_system(Level::Ancient, cap),
            &self.goal_block(),
            cap,
        );
        let pieces = self.pieces_of(&younger.covers, window);
        let covers = merged_covers(&[older, younger]);
        self.task(
            TaskTarget::Merge {
                ids: vec![older.id, younger.id],
            },
            Level::Ancient,
            cap,
            pieces,
            Some(older.summary.clone()),
            range_label(&covers),
            false,
            focus,
        )
    }
}
