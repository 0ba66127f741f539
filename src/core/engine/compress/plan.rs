//! Stage 2, prepare: a selection and the existing checkpoints become summarization tasks
//! with mode- and goal-aware prompts and token caps: the new checkpoint, each older
//! checkpoint aged one level (re-summarized from its original messages), and the oldest
//! ancient ones merged. In an emergency everything is merged into one ancient checkpoint,
//! from the summaries (speed matters then).

use super::super::Engine;
use super::{CompressionPlan, format_message, merged_covers, range_label};
use crate::core::budget::MAX_ANCIENT;
use crate::core::checkpoint::{Checkpoint, Level};
use crate::core::engine::input::Effect;
use crate::core::events::{CompressReason, EngineEvent, Intensity, SkipReason};
use crate::core::message::MessageId;
use crate::core::pipeline::{self, Piece, Task, TaskTarget};
use crate::core::prompts::{cap_words, fill};
use crate::core::record::SnapshotPurpose;
use chrono::{DateTime, Utc};

/// A fold smaller than this (raw tokens) is not worth a model call.
const MIN_FOLD_RAW: u32 = 48;
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

    fn text_of(&self, ids: &[MessageId]) -> String {
        ids.iter()
            .filter_map(|id| self.history.get(*id))
            .map(|m| m.text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[allow(clippy::too_many_arguments)]
    fn task(
        &self,
        target: TaskTarget,
        level: Level,
        cap: u32,
        pieces: Vec<Piece>,
        earlier: Option<String>,
        facts_from: &str,
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
            required: if mechanical {
                Vec::new()
            } else {
                pipeline::required_facts(facts_from, cap)
            },
            range_label,
            mechanical,
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
            let cap = b.level_cap(level);
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
            let facts_from = self.text_of(&sel.covers);
            Some(self.task(
                TaskTarget::New {
                    covers: sel.covers.clone(),
                    folded_users: sel.folded_users,
                },
                level,
                cap,
                pieces,
                None,
                &facts_from,
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

        let (aging, merge) = self.plan_checkpoints(intensity, &b, &focus);
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

    /// Aging and merging tasks for the existing checkpoints.
    fn plan_checkpoints(
        &self,
        intensity: Intensity,
        b: &crate::core::budget::Budget,
        focus: &str,
    ) -> (Vec<Task>, Option<Task>) {
        let cps = self.active.checkpoints();
        let ancient_cap = b.level_cap(Level::Ancient);
        match intensity {
            Intensity::Normal => {
                // Which checkpoints are ancient once this pass has aged everyone?
                let ancients: Vec<usize> = (0..cps.len())
                    .filter(|&i| {
                        cps[i].level == Level::Ancient
                            || cps[i].level.aged() == Some(Level::Ancient)
                    })
                    .collect();
                let merged: Vec<usize> = if ancients.len() > MAX_ANCIENT {
                    ancients[..2].to_vec()
                } else {
                    Vec::new()
                };
                let mut aging = Vec::new();
                for (i, cp) in cps.iter().enumerate() {
                    if merged.contains(&i) {
                        continue;
                    }
                    let Some(to) = cp.level.aged() else { continue };
                    aging.push(self.age_task(cp, to, b, focus));
                }
                let merge = (merged.len() == 2).then(|| {
                    let (a, n) = (&cps[merged[0]], &cps[merged[1]]);
                    let window = self.summary_window(
                        &self.summary_system(Level::Ancient, ancient_cap),
                        &self.goal_block(),
                        ancient_cap,
                    );
                    let pieces = self.pieces_of(&n.covers, window);
                    let covers = merged_covers(&[a, n]);
                    self.task(
                        TaskTarget::Merge {
                            ids: vec![a.id, n.id],
                        },
                        Level::Ancient,
                        ancient_cap,
                        pieces,
                        Some(a.summary.clone()),
                        &format!("{}\n{}", a.summary, self.text_of(&n.covers)),
                        range_label(&covers),
                        false,
                        focus,
                    )
                });
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
                let facts_from: String = cps
                    .iter()
                    .map(|c| c.summary.as_str())
                    .collect::<Vec<_>>()
                    .join("\n");
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
                    &facts_from,
                    range_label(&covers),
                    mechanical,
                    focus,
                );
                (Vec::new(), Some(merge))
            }
        }
    }

    fn age_task(
        &self,
        cp: &Checkpoint,
        to: Level,
        b: &crate::core::budget::Budget,
        focus: &str,
    ) -> Task {
        let cap = b
            .level_cap(to)
            .min(((f64::from(cp.tokens) * to.aging_ratio()) as u32).max(16));
        let window = self.summary_window(&self.summary_system(to, cap), &self.goal_block(), cap);
        let mut pieces = self.pieces_of(&cp.covers, window);
        let mut facts_from = self.text_of(&cp.covers);
        if pieces.is_empty() {
            // Originals unavailable (damaged log): age from the summary instead.
            pieces = vec![Piece {
                text: cp.summary.clone(),
                raw: cp.tokens,
            }];
            facts_from = cp.summary.clone();
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
            &facts_from,
            range_label(&cp.covers),
            false,
            focus,
        )
    }
}
