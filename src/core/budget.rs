//! The token budget, recomputed after every change.
//!
//! ```text
//! ctx        = num_ctx sent on every request
//! reserve    = kept free for the reply: what recent replies used (see `reserve_for`),
//!              at most half of ctx
//! fixed      = system + tools + goals: what every request carries before the
//!              conversation (the tool schemas counted as what they are, never absorbed
//!              into the calibration ratio), kept within a quarter of ctx by default
//! available  = ctx − reserve − fixed − checkpoints
//! trigger    = compress_at × available            (compress when recent ≥ trigger)
//! hard limit = ctx − reserve                      (no request may exceed it)
//! ```
//! All figures are calibrated tokens (see `tokens`). Checkpoint sizes per level are also
//! derived here, scaled to the room the context has, so that the seed's 1200/600/300/150
//! hold at 8K–16K contexts and shrink proportionally at 2K.

use crate::core::checkpoint::Level;
use serde::{Deserialize, Serialize};

/// Cap applied to a model's advertised context length when no ctx is configured: large
/// contexts cost memory and speed, and most local machines cannot afford 128K.
pub const DEFAULT_CTX_CAP: u32 = 8192;
/// Context assumed before the model's own size is known (Ollama's default).
pub const FALLBACK_CTX: u32 = 4096;
/// Smallest context we accept: below it not even one exchange fits.
pub const MIN_CTX: u32 = 512;
/// The reserve's floor in a window of 4K and more (see [`reserve_floor`]): room for a
/// short answer whatever replies were.
pub const MIN_RESERVE_TOKENS: u32 = 256;
/// Replies whose lengths steer the reserve.
pub const RESERVE_SAMPLES: usize = 20;

/// Tunables of the budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BudgetConfig {
    /// Fraction of `available` at which compression starts at the latest (it starts
    /// earlier only when the next message would not fit otherwise).
    pub compress_at: f64,
    /// Tokens kept free for the reply; `None` = follow the lengths of recent replies.
    pub reserve_tokens: Option<u32>,
    /// Most recent tokens never summarized (at least the last exchange).
    pub preserve_recent_tokens: u32,
    /// A pass that frees less than this fraction of `available` makes automatic
    /// compression back off.
    pub min_free_fraction: f64,
    /// Share of the room (checkpoints and recent messages together) a normal pass folds
    /// down to: the hysteresis that keeps passes many turns apart.
    pub fold_to: f64,
}

impl Default for BudgetConfig {
    fn default() -> Self {
        BudgetConfig {
            compress_at: 0.95,
            reserve_tokens: None,
            preserve_recent_tokens: 2048,
            min_free_fraction: 0.10,
            fold_to: 0.45,
        }
    }
}

/// Where the context size came from (shown beside it when it was not set by hand).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CtxSource {
    /// `--ctx`, the config file or `/ctx`.
    Set,
    /// The window the server has the model loaded with (`/api/ps`): what plain
    /// `ollama run` gets, and sending it never makes Ollama reload the model.
    Server,
    /// The model's trained length (below [`DEFAULT_CTX_CAP`]).
    Model,
    /// The trained length capped at [`DEFAULT_CTX_CAP`]: the model is not loaded, so
    /// what the server would pick (it depends on its GPU memory) is unknown.
    Capped,
    /// Nothing known: [`FALLBACK_CTX`].
    Fallback,
}

impl CtxSource {
    /// The short word the status line shows after the number; none when set by hand.
    pub fn label(self) -> Option<&'static str> {
        match self {
            CtxSource::Set => None,
            CtxSource::Server => Some("server"),
            CtxSource::Model => Some("model"),
            CtxSource::Capped => Some("default"),
            CtxSource::Fallback => Some("guessed"),
        }
    }
}

/// The context size to send and where it came from: an explicit setting wins; else the
/// window the server loaded the model with (never above the trained length); else the
/// model's trained length capped at [`DEFAULT_CTX_CAP`]; else [`FALLBACK_CTX`].
pub fn resolve_ctx(
    explicit: Option<u32>,
    server_ctx: Option<u32>,
    model_ctx: Option<u32>,
) -> (u32, CtxSource) {
    let (ctx, source) = if let Some(c) = explicit {
        (c, CtxSource::Set)
    } else if let Some(c) = server_ctx.filter(|c| *c > 0) {
        (model_ctx.map_or(c, |m| c.min(m)), CtxSource::Server)
    } else if let Some(m) = model_ctx {
        if m > DEFAULT_CTX_CAP {
            (DEFAULT_CTX_CAP, CtxSource::Capped)
        } else {
            (m, CtxSource::Model)
        }
    } else {
        (FALLBACK_CTX, CtxSource::Fallback)
    };
    (ctx.max(MIN_CTX), source)
}

/// The most the reserve follows replies up to: max(1024, 10 % of ctx).
fn reserve_ceiling(ctx: u32) -> u32 {
    1024.max(ctx / 10)
}

/// The least the reserve takes when it follows replies: a sixteenth of the window,
/// between 128 and [`MIN_RESERVE_TOKENS`] — room for a few sentences. A fixed 256 was an
/// eighth of a 2K window held for replies of 30 tokens, while plain truncation (what the
/// server does without a client that manages context) keeps none.
pub fn reserve_floor(ctx: u32) -> u32 {
    (ctx / 16).clamp(128, MIN_RESERVE_TOKENS)
}

/// Tokens kept free for the reply. The configured value wins. Otherwise it follows what
/// this session's replies really used — the 90th percentile of `recent` reply lengths,
/// plus a quarter — between [`reserve_floor`] and max(1024, 10 % of ctx); before any
/// reply, an eighth of the context within the same bounds. A fixed 1,024 took half of a
/// 2K context while replies used ~50 tokens, so nearly every turn compressed. Never above
/// half of ctx.
pub fn reserve_for(ctx: u32, configured: Option<u32>, recent: &[u32]) -> u32 {
    let reserve = configured.unwrap_or_else(|| {
        let observed = if recent.is_empty() {
            ctx / 8
        } else {
            let mut sorted = recent.to_vec();
            sorted.sort_unstable();
            let p90 = sorted[(sorted.len() * 9 / 10).min(sorted.len() - 1)];
            p90.saturating_add(p90 / 4)
        };
        observed.clamp(reserve_floor(ctx), reserve_ceiling(ctx))
    });
    reserve.min(ctx / 2)
}

/// One reading of the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Budget {
    pub ctx: u32,
    pub reserve: u32,
    pub system: u32,
    /// The offered tools' schemas, as the request carries them.
    pub tools: u32,
    pub goals: u32,
    pub checkpoints: u32,
    /// Messages of the active context (not folded).
    pub recent: u32,
    pub available: u32,
    pub trigger: u32,
    /// Room kept for lines recalled from the folded part of the conversation, once
    /// something is folded: a question about an early fact finds room for its answer at a
    /// full context instead of waiting for the next fold.
    pub recall: u32,
}

impl Budget {
    #[allow(clippy::too_many_arguments)]
    pub fn compute(
        ctx: u32,
        reserve: u32,
        system: u32,
        tools: u32,
        goals: u32,
        checkpoints: u32,
        recent: u32,
        compress_at: f64,
    ) -> Budget {
        let available = ctx
            .saturating_sub(reserve)
            .saturating_sub(system)
            .saturating_sub(tools)
            .saturating_sub(goals)
            .saturating_sub(checkpoints);
        let trigger = (f64::from(available) * compress_at).floor() as u32;
        Budget {
            ctx,
            reserve,
            system,
            tools,
            goals,
            checkpoints,
            recent,
            available,
            trigger,
            recall: 0,
        }
    }

    /// The same reading with `recall` tokens kept for recalled lines, and the trigger no
    /// later than where the next message of `next` tokens would no longer fit: folding
    /// starts when the conversation would not fit, not before (a chat that fits the
    /// window folds nothing), and happens after a reply, while the person reads.
    pub fn with_room_for(mut self, recall: u32, next: u32, compress_at: f64) -> Budget {
        self.recall = recall.min(self.available);
        self.available -= self.recall;
        let by_share = (f64::from(self.available) * compress_at).floor() as u32;
        self.trigger = by_share.min(self.available.saturating_sub(next));
        self
    }

    /// Everything that would be sent now.
    pub fn total(&self) -> u32 {
        self.fixed()
            .saturating_add(self.checkpoints)
            .saturating_add(self.recent)
    }

    /// What every request carries before the conversation: the system prompt, the tool
    /// schemas and the goal board.
    pub fn fixed(&self) -> u32 {
        self.system
            .saturating_add(self.tools)
            .saturating_add(self.goals)
    }

    /// The most a request may hold.
    pub fn hard_limit(&self) -> u32 {
        self.ctx.saturating_sub(self.reserve)
    }

    pub fn over_trigger(&self) -> bool {
        self.recent >= self.trigger
    }

    /// The request fits the window (what is sent never exceeds this).
    pub fn fits(&self) -> bool {
        self.total() <= self.hard_limit()
    }

    /// The request fits with the room kept for recall: a normal fold is made first when it
    /// does not (the recall room is kept, not required: no request is refused for it).
    pub fn fits_with_recall(&self) -> bool {
        self.total().saturating_add(self.recall) <= self.hard_limit()
    }

    /// Share of ctx in use, 0.0..=1.0+ (the gauge).
    pub fn fraction_used(&self) -> f64 {
        if self.ctx == 0 {
            return 1.0;
        }
        f64::from(self.total()) / f64::from(self.ctx)
    }

    /// Room for conversation once the fixed parts are paid: what checkpoints and recent
    /// messages share.
    pub fn room(&self) -> u32 {
        self.ctx
            .saturating_sub(self.reserve)
            .saturating_sub(self.fixed())
    }

    /// Token cap for a summary at `level`: a share of what the summaries may take
    /// together, within the seed's size for the level (reached from about 16K up).
    pub fn level_cap(&self, level: Level) -> u32 {
        let summaries = f64::from(self.summaries_budget());
        let (share, floor) = match level {
            Level::Detailed => (0.5, 48.0),
            Level::Moderate => (0.25, 32.0),
            Level::Compact => (0.12, 24.0),
            Level::Ancient => (0.08, 16.0),
        };
        let scaled = (summaries * share).max(floor) as u32;
        scaled.min(level.default_cap_tokens())
    }

    /// What the checkpoints' summaries together may take before a pass merges or ages the
    /// oldest (the fact ledger has its own share).
    pub fn summaries_budget(&self) -> u32 {
        (f64::from(self.room()) * SUMMARIES_SHARE) as u32
    }

    /// Tokens the fact ledger may take. Its own share, so that aging the summaries never
    /// squeezes the facts out.
    pub fn ledger_budget(&self) -> u32 {
        (f64::from(self.room()) * LEDGER_SHARE) as u32
    }

    /// Tokens the fact ledger may take beside summaries of `summaries` tokens: its own
    /// share and half of what the summaries leave of theirs. Summaries are spent last:
    /// folds that summarize nothing (the facts are in the ledger) left the summaries'
    /// share empty while the ledger let the person's facts go (a 66-turn chat at 2K kept
    /// 13 of 16). Half, not all: with all of it, the recent turns left after a fold were
    /// so few that passes came every 4 turns instead of every 5.
    pub fn ledger_budget_beside(&self, summaries: u32) -> u32 {
        self.ledger_budget()
            .saturating_add(self.summaries_budget().saturating_sub(summaries) / 2)
    }

    /// The most the checkpoints' message holds, summaries and ledger together.
    pub fn checkpoints_budget(&self) -> u32 {
        self.summaries_budget().saturating_add(self.ledger_budget())
    }

    /// Checkpoints kept apart before the two oldest are merged: [`MAX_CHECKPOINTS`] in a
    /// large context, fewer where the summaries' share is small (two at 2K).
    pub fn max_checkpoints(&self) -> usize {
        ((self.summaries_budget() / TOKENS_PER_CHECKPOINT) as usize).clamp(2, MAX_CHECKPOINTS)
    }

    /// What the checkpoints and the recent messages together come to after a normal pass:
    /// well below the trigger, so that the next pass is many turns away whatever the
    /// context's size (hysteresis).
    pub fn fold_target(&self, fold_to: f64) -> u32 {
        (f64::from(self.room()) * fold_to) as u32
    }

    /// Upper bound of the checkpoints' message at any time: at most [`MAX_CHECKPOINTS`]
    /// summaries, none over the detailed cap (validation cuts back what runs over), plus
    /// the ledger within its share.
    pub fn checkpoint_bound(&self) -> u32 {
        MAX_CHECKPOINTS as u32 * self.level_cap(Level::Detailed) + self.ledger_budget()
    }

    /// Tokens of the most recent messages that are never summarized.
    pub fn recent_window(&self, preserve_recent_tokens: u32) -> u32 {
        preserve_recent_tokens.min((f64::from(self.room()) * 0.4) as u32)
    }
}

/// Checkpoints kept apart; when a pass would leave more, the two oldest are merged.
pub const MAX_CHECKPOINTS: usize = 5;

/// Share of the room (what checkpoints and messages share) the fact ledger may take: the
/// larger share, since what the person stated is what must survive (24 short facts fit
/// in it at a 2K context).
const LEDGER_SHARE: f64 = 0.28;
/// Share of the room the checkpoints' summaries may take together. With the ledger's
/// share, at most two fifths of the room are checkpoints, so a pass that folds down to
/// [`BudgetConfig::fold_to`] always leaves recent messages beside them.
const SUMMARIES_SHARE: f64 = 0.12;
/// Summary tokens per checkpoint kept apart: below it, a checkpoint's label costs more
/// than what it adds, and the oldest are merged sooner.
const TOKENS_PER_CHECKPOINT: u32 = 100;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctx_resolution_order() {
        use CtxSource::*;
        assert_eq!(
            resolve_ctx(Some(16384), Some(32768), Some(131072)),
            (16384, Set)
        );
        // What the server loaded wins over any guess, but never above the trained length.
        assert_eq!(
            resolve_ctx(None, Some(32768), Some(131072)),
            (32768, Server)
        );
        assert_eq!(resolve_ctx(None, Some(32768), Some(8192)), (8192, Server));
        assert_eq!(resolve_ctx(None, Some(4096), None), (4096, Server));
        assert_eq!(resolve_ctx(None, None, Some(131072)), (8192, Capped));
        assert_eq!(resolve_ctx(None, None, Some(2048)), (2048, Model));
        assert_eq!(resolve_ctx(None, None, None), (4096, Fallback));
        assert_eq!(resolve_ctx(Some(100), None, None), (MIN_CTX, Set));
        assert_eq!(Set.label(), None);
        assert_eq!(Server.label(), Some("server"));
        // Plain words (#31): "capped" read as jargon on the first screen.
        assert_eq!(Capped.label(), Some("default"));
        assert_eq!(Fallback.label(), Some("guessed"));
    }

    #[test]
    fn the_reserve_follows_reply_lengths_within_bounds() {
        // Before any reply: an eighth of the context, within floor ..= max(1024, 10 %).
        assert_eq!(reserve_for(2048, None, &[]), 256);
        assert_eq!(reserve_for(8192, None, &[]), 1024);
        assert_eq!(reserve_for(32768, None, &[]), 3276);
        assert_eq!(reserve_for(512, None, &[]), 128);
        // Short replies: the floor, a sixteenth of the window from 128 to 256; long
        // ones: up to the ceiling.
        assert_eq!(reserve_for(2048, None, &[30; 20]), 128);
        assert_eq!(reserve_for(4096, None, &[30; 20]), 256);
        assert_eq!(reserve_for(2048, None, &[120; 20]), 150);
        assert_eq!(reserve_for(8192, None, &[400; 20]), 500);
        assert_eq!(reserve_for(8192, None, &[5000; 20]), 1024);
        // The 90th percentile: one outlier does not move it, several do.
        let mut some = vec![100; 19];
        some.push(900);
        assert_eq!(reserve_for(8192, None, &some), 256);
        let mut many = vec![100; 15];
        many.extend([800; 5]);
        assert_eq!(reserve_for(8192, None, &many), 1000);
        // The user's setting wins; half the context at most.
        assert_eq!(reserve_for(8192, Some(2000), &[50]), 2000);
        assert_eq!(reserve_for(8192, Some(9000), &[]), 4096);
        assert_eq!(reserve_for(1024, None, &[5000]), 512);
    }

    #[test]
    fn seed_example_16k_tier() {
        // Seed 002: 13,600 ctx, 1,000 system, no reserve in the seed's formula.
        let b = Budget::compute(13_600, 0, 1_000, 0, 0, 0, 0, 0.80);
        assert_eq!(b.available, 12_600);
        assert_eq!(b.trigger, 10_080);
        // The seed prints 10,400 here; 13,600 − 1,000 − 1,200 is 11,400 (its later
        // figures, 10,800 and 10,500, are consistent with the formula).
        let b = Budget::compute(13_600, 0, 1_000, 0, 0, 1_200, 0, 0.80);
        assert_eq!(b.available, 11_400);
        assert_eq!(b.trigger, 9_120);
        let b = Budget::compute(13_600, 0, 1_000, 0, 0, 600 + 1_200, 0, 0.80);
        assert_eq!(b.available, 10_800);
        assert_eq!(b.trigger, 8_640);
        let b = Budget::compute(13_600, 0, 1_000, 0, 0, 300 + 600 + 1_200, 0, 0.80);
        assert_eq!(b.available, 10_500);
        assert_eq!(b.trigger, 8_400);
    }

    #[test]
    fn totals_limits_and_trigger() {
        let b = Budget::compute(8192, 1024, 300, 0, 100, 500, 5000, 0.8);
        assert_eq!(b.available, 8192 - 1024 - 300 - 100 - 500);
        assert_eq!(b.total(), 5900);
        assert_eq!(b.hard_limit(), 7168);
        assert!(b.fits());
        assert!(b.over_trigger() == (5000 >= b.trigger));
        let over = Budget::compute(8192, 1024, 300, 0, 100, 500, 7000, 0.8);
        assert!(!over.fits());
    }

    #[test]
    fn level_caps_reach_the_seed_in_large_contexts_and_shrink_with_the_room() {
        let large = Budget::compute(32768, 3276, 1000, 0, 0, 0, 0, 0.8);
        assert_eq!(large.level_cap(Level::Detailed), 1200);
        assert_eq!(large.level_cap(Level::Moderate), 600);
        assert_eq!(large.level_cap(Level::Compact), 300);
        assert_eq!(large.level_cap(Level::Ancient), 150);
        let small = Budget::compute(2048, 256, 60, 0, 0, 0, 0, 0.8);
        assert!(small.level_cap(Level::Detailed) < 200);
        assert!(small.level_cap(Level::Detailed) > small.level_cap(Level::Moderate));
        assert!(small.level_cap(Level::Moderate) > small.level_cap(Level::Compact));
        assert!(small.level_cap(Level::Compact) > small.level_cap(Level::Ancient));
        // Summaries and the ledger together take at most two fifths of the room at every
        // size, so a pass that folds to the fold target leaves recent messages beside
        // them; the ledger has the larger share.
        for b in [
            small,
            Budget::compute(8192, 1024, 250, 0, 0, 0, 0, 0.8),
            large,
        ] {
            let checkpoints = b.checkpoints_budget();
            assert_eq!(checkpoints, b.summaries_budget() + b.ledger_budget());
            assert!(
                checkpoints <= b.room() * 40 / 100,
                "{checkpoints} of {}",
                b.room()
            );
            assert!(checkpoints < b.fold_target(BudgetConfig::default().fold_to));
            assert!(b.ledger_budget() > b.summaries_budget());
        }
        assert_eq!(small.max_checkpoints(), 2);
        assert_eq!(large.max_checkpoints(), MAX_CHECKPOINTS);
    }

    #[test]
    fn the_ledger_takes_half_of_what_summaries_leave_and_never_more_than_both_shares() {
        let b = Budget::compute(2048, 128, 600, 0, 0, 0, 0, 0.8);
        let (ledger, summaries) = (b.ledger_budget(), b.summaries_budget());
        // Folds that summarized nothing: the ledger grows into half the summaries' share.
        assert_eq!(b.ledger_budget_beside(0), ledger + summaries / 2);
        // Full summaries: the ledger has its own share and no more.
        assert_eq!(b.ledger_budget_beside(summaries), ledger);
        assert_eq!(b.ledger_budget_beside(summaries * 3), ledger);
        for used in [0, summaries / 3, summaries / 2, summaries] {
            assert!(used + b.ledger_budget_beside(used) <= b.checkpoints_budget());
        }
    }

    #[test]
    fn recent_window_is_capped_by_the_room() {
        let small = Budget::compute(2048, 1024, 150, 0, 0, 0, 0, 0.8);
        assert!(small.recent_window(2048) < 400);
        let big = Budget::compute(32768, 3276, 1000, 0, 0, 0, 0, 0.8);
        assert_eq!(big.recent_window(2048), 2048);
    }
}
