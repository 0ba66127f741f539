//! One compression = six stages (DESIGN §3.4), and the decision when to run one.
//!
//! - **identify** ([`Engine::identify`]): the oldest unprotected messages outside the recent
//!   window. Protected: pinned messages, tool errors, the recent window (at least the last
//!   exchange), and user messages — unless keeping user text would leave the context at
//!   the trigger after compression, then the oldest user messages go too (reported).
//! - **prepare** ([`Engine::plan_compression`]): tasks with mode- and goal-aware prompts and
//!   token caps — the new checkpoint, aging every older checkpoint one level (from its
//!   original messages), merging the oldest ancient ones.
//! - **summarize** ([`CompressionPlan::run`], via `pipeline::run_task`): the only async
//!   stage; it never touches engine state, so cancelling is dropping the future.
//! - **checkpoint** ([`Engine::make_checkpoint`]): id, covered ids, tokens, level, number,
//!   decisions / files / next steps parsed out of the summary.
//! - **update** and **validate** ([`Engine::apply_compression`]): results become records
//!   (applied through `apply_record`, so replay matches); a failed aging or merge
//!   shortens the existing summaries without the model (marked `truncated`), so every pass
//!   keeps one checkpoint per level and at most `MAX_ANCIENT` ancient ones whatever the
//!   summarizer does; then the budget is checked and, if a pass freed under 10 % of the
//!   budget, automatic compression backs off.
//!
//! [`Engine::next_step`] decides between sending and compressing, and escalates when a
//! request would not fit: normal → emergency snapshot → clip a message larger than half
//! the room → hard (everything to ancient, only the last exchange kept) → marked
//! truncation without the model (the last exchange still kept) → clipping unpinned
//! messages, largest first → blocked with a reason. A message larger than the whole room
//! is clipped before the normal pass, which could not make it fit. It never returns an
//! over-budget request.

use crate::core::budget::MAX_ANCIENT;
use crate::core::checkpoint::{Checkpoint, CheckpointId, Level};
use crate::core::engine::{ChatPrompt, Engine, Step};
use crate::core::events::{CompressReason, Effect, EngineEvent, Intensity};
use crate::core::facts::{self, FactKind};
use crate::core::goals::GoalChange;
use crate::core::markers;
use crate::core::message::{Message, MessageId, ReplyStatus, Role};
use crate::core::pipeline::{self, Piece, Task, TaskResult, TaskTarget};
use crate::core::prompts::{Prompts, cap_words, fill};
use crate::core::record::{Clip, RecordBody, SnapshotPurpose};
use crate::core::reliability::warning_threshold;
use crate::core::snapshot::Snapshot;
use crate::core::summarizer::Summarizer;
use crate::core::tokens::{MESSAGE_OVERHEAD_TOKENS, Tokenizer};
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// A fold smaller than this (raw tokens) is not worth a model call.
const MIN_FOLD_RAW: u32 = 48;
/// Tokens of head and tail an emergency clip keeps at least (enough to see what it was).
const CLIP_KEEP_MIN_TOKENS: u32 = 48;
/// Tokens a clip must save to be worth a record (and so that clipping always progresses).
const CLIP_GAIN: u32 = 16;
/// Share of the post-compression trigger the recent window may take.
const WINDOW_SHARE: f64 = 0.5;
/// Share of the post-compression trigger that recent messages (window, kept user text,
/// pinned) may fill before user text is folded too: the rest is headroom for new turns.
const RECENT_TARGET: f64 = 0.65;
/// Safety margin in a summarizer request, tokens.
const SUMMARY_MARGIN: u32 = 64;

/// What identify chose to fold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    /// Sorted ids to fold into the new checkpoint.
    pub covers: Vec<MessageId>,
    pub folded_users: usize,
    /// Raw tokens (with per-message overhead) the fold removes from the active context.
    pub raw: u32,
    /// Index in the active messages where the protected recent part begins.
    pub boundary: usize,
}

/// Progress of a running compression, for the spinner text.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub step: usize,
    pub of: usize,
    pub what: String,
}

/// A prepared compression: run it (async, through a `Summarizer`), then hand the outcome
/// to [`Engine::apply_compression`].
#[derive(Debug)]
pub struct CompressionPlan {
    pub reason: CompressReason,
    pub intensity: Intensity,
    /// To be saved before running (recovery, or emergency).
    pub snapshot: Option<Snapshot>,
    /// Compression number this pass will get.
    pub number: u32,
    pub tokens_before: u32,
    pub(crate) version: u64,
    pub(crate) new: Option<Task>,
    pub(crate) aging: Vec<Task>,
    pub(crate) merge: Option<Task>,
    tok: Arc<dyn Tokenizer>,
    prompts: Arc<Prompts>,
}

/// The result of running a plan.
#[derive(Debug)]
pub struct CompressionOutcome {
    pub reason: CompressReason,
    pub intensity: Intensity,
    pub number: u32,
    pub tokens_before: u32,
    pub(crate) version: u64,
    pub(crate) new: Option<(Task, Result<TaskResult, String>)>,
    pub(crate) aging: Vec<(Task, Result<TaskResult, String>)>,
    pub(crate) merge: Option<(Task, Result<TaskResult, String>)>,
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
        if !self.aging.is_empty() {
            parts.push(format!("age {} checkpoint(s)", self.aging.len()));
        }
        if let Some(TaskTarget::Merge { ids }) = self.merge.as_ref().map(|t| &t.target) {
            parts.push(format!("merge {} checkpoints into one", ids.len()));
        }
        parts.join(", ")
    }

    pub async fn run<S: Summarizer>(self, summarizer: &S) -> CompressionOutcome {
        self.run_with_progress(summarizer, |_| {}).await
    }

    /// Run every task; stops early if the new checkpoint cannot be made (then nothing is
    /// applied and nothing lost).
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
            progress(Progress {
                step,
                of,
                what: format!("aging checkpoint to {}", task.level.name()),
            });
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

fn format_message(m: &Message) -> String {
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

fn range_label(ids: &[MessageId]) -> String {
    match (ids.first(), ids.last()) {
        (Some(a), Some(b)) if a == b => format!("message {a}"),
        (Some(a), Some(b)) => format!("{} messages, {a}–{b}", ids.len()),
        _ => "no messages".into(),
    }
}

impl Engine {
    /// Stage 1: what to fold at this intensity.
    pub fn identify(&self, intensity: Intensity) -> Selection {
        let msgs = self.active.messages();
        let b = self.budget();
        let factor = self.calibration().factor;
        let to_raw = |cal: u32| (f64::from(cal) / factor) as u32;

        // The last exchange is always kept, at every intensity: from the last user message
        // that has a reply (and the pending one after it). When it alone does not fit, the
        // reported clip of its largest message is the only alteration allowed.
        // Unanswered user messages after the last reply (a failed request, a restore) are
        // part of it: the exchange is found from the last reply, not the last user message.
        let last_reply = msgs.iter().rposition(|e| e.role == Role::Assistant);
        let exchange_start = match last_reply {
            Some(a) => msgs[..a]
                .iter()
                .rposition(|e| e.role == Role::User)
                .unwrap_or(a),
            None => msgs
                .iter()
                .rposition(|e| e.role == Role::User)
                .unwrap_or(msgs.len()),
        };
        // Headroom: after a pass the recent part should leave room for several turns before
        // the next compression. The trigger after this pass is projected from the sizes
        // the checkpoints will have once aged; the recent window takes at most half of it,
        // and user text is folded only down to RECENT_TARGET of it.
        let trigger_after = {
            let projected_cp: u32 = self
                .active
                .checkpoints()
                .iter()
                .map(|c| match c.level.aged() {
                    Some(to) => b
                        .level_cap(to)
                        .min((f64::from(c.tokens) * to.aging_ratio()) as u32),
                    None => c.tokens,
                })
                .sum::<u32>()
                + b.level_cap(Level::Detailed);
            f64::from(b.room().saturating_sub(projected_cp)) * self.cfg.budget.compress_at
        };
        let window_raw = match intensity {
            Intensity::Normal => to_raw(
                b.recent_window(self.cfg.budget.preserve_recent_tokens)
                    .min((trigger_after * WINDOW_SHARE) as u32),
            ),
            _ => 0,
        };
        let mut start = msgs.len();
        let mut acc = 0u32;
        while start > 0 && acc < window_raw {
            start -= 1;
            acc = acc.saturating_add(msgs[start].cost());
        }
        let boundary = start.min(exchange_start);

        let mut fold: Vec<usize> = Vec::new();
        let mut users: Vec<usize> = Vec::new();
        for (i, e) in msgs[..boundary].iter().enumerate() {
            if e.pinned || e.tool_error {
                continue;
            }
            if e.role == Role::User {
                users.push(i);
            } else {
                fold.push(i);
            }
        }
        let mut raw: u32 = fold.iter().map(|&i| msgs[i].cost()).sum();
        // User text is folded only if keeping it would leave the context too close to the
        // trigger right after this pass.
        let target_raw = match intensity {
            Intensity::Normal => to_raw((trigger_after * RECENT_TARGET) as u32),
            _ => 0,
        };
        let mut folded_users = 0;
        for i in users {
            if self.active.messages_raw().saturating_sub(raw) <= target_raw {
                break;
            }
            raw = raw.saturating_add(msgs[i].cost());
            fold.push(i);
            folded_users += 1;
        }
        fold.sort_unstable();
        Selection {
            covers: fold.iter().map(|&i| msgs[i].id).collect(),
            folded_users,
            raw,
            boundary,
        }
    }

    /// A manual compression (Ctrl+K, `/compress [focus]`): ignores the trigger and the
    /// back-off, never escalates.
    pub fn plan_compression(
        &mut self,
        focus: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<Box<CompressionPlan>, String> {
        self.backoff = None;
        self.plan(CompressReason::Manual { focus }, Intensity::Normal, now)
    }

    fn summary_system(&self, level: Level, cap: u32) -> String {
        let p = &self.prompts.summary;
        fill(
            &p.system,
            &[
                ("level_description", p.levels.get(level)),
                ("cap_words", &cap_words(cap).to_string()),
                ("mode_focus", p.modes.get(self.mode)),
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
    pub(crate) fn plan(
        &mut self,
        reason: CompressReason,
        intensity: Intensity,
        now: DateTime<Utc>,
    ) -> Result<Box<CompressionPlan>, String> {
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
                "nothing to compress yet".into()
            } else if sel.boundary == 0 {
                format!(
                    "nothing worth folding yet: the {recent} most recent messages are always kept"
                )
            } else {
                format!(
                    "nothing worth folding yet: the {recent} most recent messages are always kept, and the {} before them are protected (your own, pinned, or tool errors)",
                    sel.boundary
                )
            });
        }

        let (aging, merge) = self.plan_checkpoints(intensity, &b, &focus);
        if new.is_none() && aging.is_empty() && merge.is_none() {
            return Err("nothing left to fold".into());
        }

        // Emergency passes come after the emergency snapshot `next_step` asks for.
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

    /// Stage 4: the checkpoint for a new fold.
    pub fn make_checkpoint(
        &self,
        task: &Task,
        result: &TaskResult,
        now: DateTime<Utc>,
    ) -> Option<Checkpoint> {
        let TaskTarget::New { covers, .. } = &task.target else {
            return None;
        };
        let original_tokens = covers
            .iter()
            .filter_map(|id| self.history.get(*id))
            .map(|m| m.tokens)
            .sum();
        let (key_decisions, files, next_steps) = parse_details(&result.text);
        Some(Checkpoint {
            id: CheckpointId(self.next_checkpoint_id),
            number: self.compressions + 1,
            level: task.level,
            summary: result.text.clone(),
            tokens: result.tokens,
            covers: covers.clone(),
            original_tokens,
            created_at: now,
            aged_at: None,
            times_compressed: 0,
            truncated: result.mechanical,
            key_decisions,
            files,
            next_steps,
        })
    }

    /// Stages 5 and 6: apply a finished compression and check the budget.
    pub fn apply_compression(
        &mut self,
        outcome: CompressionOutcome,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let mut fx = Vec::new();
        self.escalation = self.escalation.max(Some(outcome.intensity));
        if outcome.version != self.version {
            fx.push(Effect::Event(EngineEvent::CompressionSkipped {
                reason: "the conversation changed while compressing; nothing was folded".into(),
            }));
            return fx;
        }
        let before = self.budget();
        let mut calls = 0u32;
        self.skip_noted = false;
        if let Some((_, Err(e))) = &outcome.new {
            fx.push(Effect::Event(EngineEvent::CompressionError {
                error: format!("{e}; nothing was folded and nothing is lost"),
            }));
            return fx;
        }

        // A failed aging or merge shortens the existing summaries without the model:
        // leaving them as they are would let checkpoints pile up with every failure and
        // break the bound of DESIGN §3.5. Nothing is lost: aging re-summarizes from the
        // originals in history next time, and the flag marks the text as a cut.
        for (task, result) in &outcome.aging {
            let TaskTarget::Age { id, from } = task.target else {
                continue;
            };
            let Some(old) = self
                .active
                .checkpoints()
                .iter()
                .find(|c| c.id == id)
                .cloned()
            else {
                continue;
            };
            let (text, tokens, mechanical) = self.result_or_shortened(
                result,
                &[&old.summary],
                task.cap,
                &format!(
                    "checkpoint {id} aged to {} by shortening its summary without the model",
                    task.level.name()
                ),
                &mut calls,
                &mut fx,
            );
            // Aging never makes a checkpoint larger (a re-summary from the originals with
            // its kept facts can be): then the old text stays, cut to the level's cap if
            // it is above it.
            let (text, tokens, mechanical) = if tokens < old.tokens {
                (text, tokens, mechanical)
            } else if old.tokens <= task.cap {
                (old.summary.clone(), old.tokens, old.truncated)
            } else {
                let cut = pipeline::shorten(&[&old.summary], task.cap, self.tok.as_ref());
                let n = self.tok.count(&cut);
                (cut, n, true)
            };
            let (key_decisions, files, next_steps) = parse_details(&text);
            let aged = Checkpoint {
                // Derived on apply: the same messages as before.
                covers: Vec::new(),
                level: task.level,
                summary: text,
                tokens,
                aged_at: Some(now),
                times_compressed: old.times_compressed + 1,
                truncated: mechanical,
                key_decisions,
                files,
                next_steps,
                ..old.clone()
            };
            self.commit(
                RecordBody::CheckpointAged { checkpoint: aged },
                now,
                &mut fx,
            );
            fx.push(Effect::Event(EngineEvent::CheckpointAged {
                id,
                from,
                to: task.level,
                tokens_before: old.tokens,
                tokens_after: tokens,
            }));
        }

        if let Some((task, result)) = &outcome.merge
            && let TaskTarget::Merge { ids } = &task.target
        {
            let parts: Vec<&Checkpoint> = self
                .active
                .checkpoints()
                .iter()
                .filter(|c| ids.contains(&c.id))
                .collect();
            if parts.len() == ids.len()
                && let Some(first) = parts.first()
            {
                let summaries: Vec<&str> = parts.iter().map(|c| c.summary.as_str()).collect();
                let (text, tokens, mechanical) = self.result_or_shortened(
                    result,
                    &summaries,
                    task.cap,
                    "ancient checkpoints merged by shortening their summaries without the model",
                    &mut calls,
                    &mut fx,
                );
                let (key_decisions, files, next_steps) = parse_details(&text);
                let merged = Checkpoint {
                    id: CheckpointId(self.next_checkpoint_id),
                    number: first.number,
                    level: Level::Ancient,
                    summary: text,
                    tokens,
                    // Derived on apply: the union of the parts.
                    covers: Vec::new(),
                    original_tokens: parts.iter().map(|c| c.original_tokens).sum(),
                    created_at: first.created_at,
                    aged_at: Some(now),
                    times_compressed: parts.iter().map(|c| c.times_compressed).max().unwrap_or(0)
                        + 1,
                    truncated: mechanical,
                    key_decisions,
                    files,
                    next_steps,
                };
                let into = merged.id;
                // An emergency merge is there to make room: one that would not (small
                // parts, a long truncation marker) is not applied. Normal merges always
                // apply: they keep the number of ancient checkpoints bounded.
                let parts_raw: u32 = parts
                    .iter()
                    .map(|c| self.tok.count(&self.checkpoint_entry(c)))
                    .sum();
                if outcome.intensity > Intensity::Normal
                    && self.tok.count(&self.checkpoint_entry(&merged)) >= parts_raw
                {
                    fx.push(Effect::Event(EngineEvent::CompressionSkipped {
                        reason: "merging the checkpoints would not free any room; they stay apart"
                            .into(),
                    }));
                } else {
                    self.commit(
                        RecordBody::CheckpointsMerged {
                            merged: ids.clone(),
                            checkpoint: merged,
                        },
                        now,
                        &mut fx,
                    );
                    fx.push(Effect::Event(EngineEvent::CheckpointsMerged {
                        merged: ids.clone(),
                        into,
                        tokens,
                    }));
                }
            }
        }

        let mut folded = 0;
        let mut new = match &outcome.new {
            Some((task, Ok(r))) => self.make_checkpoint(task, r, now).map(|cp| (task, r, cp)),
            _ => None,
        };
        // Validate: a checkpoint that costs as much as the messages it replaces (a tiny
        // fold, the header of a first checkpoint) would grow the request and hide their
        // text for nothing. A normal pass then backs off below, which says so once.
        if let Some((_, _, cp)) = &new
            && !self.fold_frees_room(cp)
        {
            if outcome.intensity > Intensity::Normal {
                fx.push(Effect::Event(EngineEvent::CompressionSkipped {
                    reason: format!(
                        "folding {} would not free any room (the summary costs as much as the messages); they stay as they are",
                        range_label(&cp.covers)
                    ),
                }));
            }
            new = None;
        }
        if let Some((task, r, cp)) = new {
            calls += r.calls;
            folded = cp.covers.len();
            let number = cp.number;
            let summary = cp.summary.clone();
            fx.push(Effect::Event(EngineEvent::CheckpointCreated {
                id: cp.id,
                number,
                level: cp.level,
                tokens: cp.tokens,
                original_tokens: cp.original_tokens,
                messages: cp.covers.len(),
            }));
            self.commit(RecordBody::Checkpoint { checkpoint: cp }, now, &mut fx);
            if let TaskTarget::New { folded_users, .. } = task.target
                && folded_users > 0
            {
                fx.push(Effect::Event(EngineEvent::UserMessagesFolded {
                    count: folded_users,
                    checkpoint: number,
                }));
            }
            if r.kept_facts > 0 {
                fx.push(Effect::Event(EngineEvent::FactsKept {
                    checkpoint: number,
                    count: r.kept_facts,
                }));
            }
            self.apply_markers(&summary, now, &mut fx);
            let threshold = warning_threshold(self.model_billions);
            if self.compressions == threshold {
                let rel = self.reliability();
                fx.push(Effect::Event(EngineEvent::ReliabilityWarning {
                    compressions: self.compressions,
                    percent: rel.percent(),
                    model: self.model.clone(),
                }));
            }
        }

        // Validate: did it help enough?
        let after = self.budget();
        let freed = before.total().saturating_sub(after.total());
        let min_free =
            (f64::from(before.available.max(1)) * self.cfg.budget.min_free_fraction) as u32;
        self.backoff = if outcome.intensity == Intensity::Normal && freed < min_free {
            let pct = f64::from(freed) * 100.0 / f64::from(before.available.max(1));
            Some(crate::core::engine::Backoff {
                messages_raw: self.active.messages_raw(),
                reason: format!(
                    "the last compression freed only {freed} tokens ({pct:.0}% of the budget); automatic compression waits until the conversation grows"
                ),
            })
        } else {
            None
        };
        fx.push(Effect::Event(EngineEvent::Compressed {
            number: outcome.number,
            reason: outcome.reason.clone(),
            intensity: outcome.intensity,
            messages: folded,
            tokens_before: before.total(),
            tokens_after: after.total(),
            calls,
        }));
        if outcome.intensity > Intensity::Normal {
            fx.push(Effect::Event(EngineEvent::RolloverComplete {
                intensity: outcome.intensity,
                tokens_after: after.total(),
            }));
        }
        fx.push(Effect::Sync);
        fx
    }

    /// Whether replacing the messages `cp` covers by `cp` makes the request smaller.
    fn fold_frees_room(&self, cp: &Checkpoint) -> bool {
        let freed: u32 = self
            .active
            .messages()
            .iter()
            .filter(|e| cp.covers.binary_search(&e.id).is_ok())
            .map(|e| e.cost())
            .sum();
        let mut added = self.tok.count(&self.checkpoint_entry(cp));
        if self.active.checkpoints().is_empty() {
            added +=
                self.tok.count(&self.prompts.chat.checkpoints_header) + MESSAGE_OVERHEAD_TOKENS;
        }
        added < freed
    }

    /// The text of an aging or merge: the model's result, or — when the model failed — the
    /// existing summaries shortened mechanically (marked), so checkpoints never pile up.
    #[allow(clippy::too_many_arguments)]
    fn result_or_shortened(
        &self,
        result: &Result<TaskResult, String>,
        summaries: &[&str],
        cap: u32,
        failure: &str,
        calls: &mut u32,
        fx: &mut Vec<Effect>,
    ) -> (String, u32, bool) {
        match result {
            Ok(r) => {
                *calls += r.calls;
                (r.text.clone(), r.tokens, r.mechanical)
            }
            Err(e) => {
                fx.push(Effect::Event(EngineEvent::CompressionError {
                    error: format!("{failure}: {e}"),
                }));
                let text = pipeline::shorten(summaries, cap, self.tok.as_ref());
                let tokens = self.tok.count(&text);
                (text, tokens, true)
            }
        }
    }

    /// Why automatic compression is paused right now, if it is.
    fn backoff_reason(&mut self) -> Option<String> {
        let b = self.budget();
        let backoff = self.backoff.as_ref()?;
        let grown = self
            .active
            .messages_raw()
            .saturating_sub(backoff.messages_raw);
        let needed = (f64::from(b.available.max(1)) * self.cfg.budget.min_free_fraction
            / self.calibration().factor) as u32;
        if grown >= needed {
            self.backoff = None;
            return None;
        }
        Some(backoff.reason.clone())
    }

    /// The next thing to do in a turn. See the module docs.
    pub fn next_step(&mut self, now: DateTime<Utc>) -> (Step, Vec<Effect>) {
        let mut fx = Vec::new();
        if let Some(reason) = self.force.take()
            && self.escalation.is_none()
        {
            match self.plan(reason, Intensity::Normal, now) {
                Ok(plan) => return (Step::Compress(plan), fx),
                Err(why) => fx.push(Effect::Event(EngineEvent::CompressionSkipped {
                    reason: why,
                })),
            }
        }
        loop {
            let b = self.budget();
            if b.fits() {
                if b.over_trigger() && self.escalation.is_none() {
                    let skipped = match self.backoff_reason() {
                        Some(why) => why,
                        None => match self.plan(CompressReason::Auto, Intensity::Normal, now) {
                            Ok(plan) => return (Step::Compress(plan), fx),
                            Err(why) => why,
                        },
                    };
                    // Say it once, not every turn, until something changes.
                    if !self.skip_noted {
                        self.skip_noted = true;
                        fx.push(Effect::Event(EngineEvent::CompressionSkipped {
                            reason: skipped,
                        }));
                    }
                } else if !b.over_trigger() {
                    self.skip_noted = false;
                }
                self.reset_escalation();
                let prompt = self.prompt();
                debug_assert!(prompt.estimate <= b.hard_limit());
                return (Step::Send(prompt), fx);
            }
            // Over the hard limit. If one message alone is larger than the whole room, no
            // folding can make it fit: snapshot and clip it first, then go on as usual.
            if self.escalation.is_none() && self.unfittable_message() {
                if let Some(step) = self.emergency_snapshot(now) {
                    return (step, fx);
                }
                if self.clip_oversized(now, &mut fx) {
                    continue;
                }
            }
            // Then the normal pass, as at the trigger.
            if self.escalation.is_none() {
                match self.plan(CompressReason::Auto, Intensity::Normal, now) {
                    Ok(plan) => return (Step::Compress(plan), fx),
                    Err(_) => self.escalation = Some(Intensity::Normal),
                }
            }
            // From here on it is an emergency: snapshot the state first, once.
            if let Some(step) = self.emergency_snapshot(now) {
                return (step, fx);
            }
            // A message larger than half the room can never be sent whole: showing it cut
            // down loses less than folding all history harder.
            if self.clip_oversized(now, &mut fx) {
                continue;
            }
            // Go harder until it fits.
            let mut next = Intensity::after(self.escalation);
            while let Some(intensity) = next {
                match self.plan(CompressReason::Emergency, intensity, now) {
                    Ok(plan) => return (Step::Compress(plan), fx),
                    Err(_) => {
                        self.escalation = Some(intensity);
                        next = Intensity::after(Some(intensity));
                    }
                }
            }
            if !self.clip_largest(now, &mut fx) {
                self.reset_escalation();
                return (Step::Blocked(self.blocked_reason()), fx);
            }
        }
    }

    /// Last resort: show the largest unpinned, non-error message cut down — by enough to
    /// fit if it can absorb the whole overage, else to a short head and tail, so that the
    /// caller clips the next largest (a clipped message may be clipped further). Returns
    /// false, clipping nothing, when even clipping every candidate could not make it fit.
    fn clip_largest(&mut self, now: DateTime<Utc>, fx: &mut Vec<Effect>) -> bool {
        let b = self.budget();
        let factor = self.calibration().factor;
        let over_raw =
            (f64::from(b.total().saturating_sub(b.hard_limit())) / factor).ceil() as u32 + 16;
        let marker = self.tok.count(&crate::core::context::clipped_text(
            "ab",
            Some(&Clip {
                id: MessageId(0),
                head_chars: 1,
                tail_chars: 0,
                omitted_tokens: 99_999,
            }),
        ));
        // What a clip down to the minimum still shows; a clip must gain at least CLIP_GAIN.
        let floor = CLIP_KEEP_MIN_TOKENS + marker;
        let candidates = || {
            self.active
                .messages()
                .iter()
                .filter(move |e| !e.pinned && !e.tool_error && e.tokens > floor + CLIP_GAIN)
        };
        let gain: u32 = candidates().map(|e| e.tokens - floor).sum();
        if gain < over_raw {
            return false;
        }
        let Some(entry) = candidates().max_by_key(|e| e.tokens).cloned() else {
            return false;
        };
        let Some(full) = self.history.get(entry.id).map(|m| m.tokens.max(1)) else {
            return false;
        };
        let mut keep_tokens = entry
            .tokens
            .saturating_sub(over_raw + marker)
            .clamp(CLIP_KEEP_MIN_TOKENS, full);
        loop {
            let Some((clip, shown)) = self.clip_of(entry.id, keep_tokens) else {
                return false;
            };
            let at_floor = keep_tokens <= CLIP_KEEP_MIN_TOKENS;
            if shown + CLIP_GAIN <= entry.tokens && (shown + over_raw <= entry.tokens || at_floor) {
                self.commit(RecordBody::Clip { clip }, now, fx);
                fx.push(Effect::Event(EngineEvent::MessageClipped {
                    id: entry.id,
                    omitted_tokens: clip.omitted_tokens,
                }));
                return true;
            }
            if at_floor {
                return false;
            }
            keep_tokens = (keep_tokens * 3 / 4).max(CLIP_KEEP_MIN_TOKENS);
        }
    }

    /// A clip of message `id` keeping about `keep_tokens`, two thirds from the start and
    /// one third from the end; with the tokens it then shows.
    fn clip_of(&self, id: MessageId, keep_tokens: u32) -> Option<(Clip, u32)> {
        let m = self.history.get(id)?;
        let (text, full) = (m.text.as_str(), m.tokens.max(1));
        let chars = text.chars().count();
        let keep_chars = (chars as u64 * u64::from(keep_tokens) / u64::from(full.max(1))) as usize;
        let clip = Clip {
            id,
            head_chars: keep_chars * 2 / 3,
            tail_chars: keep_chars / 3,
            omitted_tokens: full.saturating_sub(keep_tokens),
        };
        let shown = self
            .tok
            .count(&crate::core::context::clipped_text(text, Some(&clip)));
        Some((clip, shown))
    }

    /// The emergency snapshot of this turn, unless it was taken already.
    fn emergency_snapshot(&mut self, now: DateTime<Utc>) -> Option<Step> {
        if self.emergency_snapshot_taken {
            return None;
        }
        self.emergency_snapshot_taken = true;
        let snapshot = self.make_snapshot(SnapshotPurpose::Emergency, None, now);
        Some(Step::Snapshot(Box::new(snapshot)))
    }

    /// Whether an unpinned, non-error message alone takes more than the room for
    /// checkpoints and messages together (a giant paste).
    fn unfittable_message(&self) -> bool {
        let b = self.budget();
        let room = (f64::from(b.room()) / self.calibration().factor) as u32;
        self.active
            .messages()
            .iter()
            .any(|e| !e.pinned && !e.tool_error && e.tokens > room)
    }

    /// Clip one unpinned, non-error message that alone takes more than half the room (a
    /// runaway reply, a giant paste) down to a quarter of the room. Returns whether it did.
    fn clip_oversized(&mut self, now: DateTime<Utc>, fx: &mut Vec<Effect>) -> bool {
        let b = self.budget();
        let factor = self.calibration().factor;
        let half_room = (f64::from(b.room() / 2) / factor) as u32;
        let Some(entry) = self
            .active
            .messages()
            .iter()
            .filter(|e| !e.pinned && !e.tool_error && e.tokens > half_room)
            .max_by_key(|e| e.tokens)
            .cloned()
        else {
            return false;
        };
        let Some(full) = self.history.get(entry.id).map(|m| m.tokens.max(1)) else {
            return false;
        };
        let keep = (half_room / 2).max(CLIP_KEEP_MIN_TOKENS).min(full);
        let Some((clip, shown)) = self.clip_of(entry.id, keep) else {
            return false;
        };
        if shown + CLIP_GAIN > entry.tokens {
            return false;
        }
        self.commit(RecordBody::Clip { clip }, now, fx);
        fx.push(Effect::Event(EngineEvent::MessageClipped {
            id: entry.id,
            omitted_tokens: clip.omitted_tokens,
        }));
        true
    }

    fn blocked_reason(&self) -> String {
        let b = self.budget();
        let pinned: u32 = self
            .active
            .messages()
            .iter()
            .filter(|e| e.pinned)
            .map(|e| e.cost())
            .sum();
        format!(
            "this request needs about {} tokens but the context holds {} ({} kept free for the reply); what is left is protected: system prompt {}, goal board {}, summaries {}, pinned messages {}. Unpin messages, shorten the goal board, or raise the context with /ctx N. Your message is saved.",
            b.total(),
            b.ctx,
            b.reserve,
            b.system,
            b.goals,
            b.checkpoints,
            self.calibration().apply(pinned)
        )
    }

    /// The request as it stands, for tools and tests that skip the turn logic.
    pub fn current_prompt(&self) -> ChatPrompt {
        self.prompt()
    }
}

fn merged_covers(parts: &[&Checkpoint]) -> Vec<MessageId> {
    let mut covers: Vec<MessageId> = parts
        .iter()
        .flat_map(|c| c.covers.iter().copied())
        .collect();
    covers.sort_unstable();
    covers.dedup();
    covers
}

/// Decisions, files and next steps mentioned in a summary.
fn parse_details(text: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
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
