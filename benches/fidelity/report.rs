//! The figures of a run, and the side-by-side table.

use super::recorder::{Call, CallKind};
use super::scenarios::Scenario;
use super::strategies::{KeptBy, Passes, Run, Setup, Strategy};
use super::{is_compression, score, secs};
use std::fmt::Write as _;
use std::time::Instant;

/// A quiz's answers.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct QuizScore {
    pub asked: usize,
    pub right: usize,
    /// (question, answer, right).
    pub answers: Vec<(String, String, bool)>,
    /// Per answer: whether its request held the fact with its subject (the ledger, recall
    /// or the kept turns). A weak model answers badly from a good request; this is what
    /// compression controls. Empty in files written before it was measured.
    #[serde(default)]
    pub found: Vec<bool>,
}

/// Everything measured about one strategy on one scenario.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Measured {
    pub scenario: String,
    pub strategy: Strategy,
    pub ctx: u32,
    pub turns: usize,
    pub failed_turns: usize,
    pub facts_kept: usize,
    pub facts: usize,
    /// Facts lost, by value (what to look at).
    pub lost: Vec<String>,
    pub quiz: QuizScore,
    pub reply_calls: usize,
    pub summary_calls: usize,
    pub compressions: u32,
    pub tokens_in_replies: u64,
    pub tokens_out_replies: u64,
    pub tokens_in_summaries: u64,
    pub tokens_out_summaries: u64,
    pub secs_replying: f64,
    pub secs_compressing: f64,
    /// From the first message to the end of the last work.
    pub session_secs: f64,
    /// The longest a person waited for a reply.
    pub longest_wait_secs: f64,
    /// Seconds of waiting for replies during which a compression ran.
    pub waited_on_compression_secs: f64,
    /// Requests the server refused as too long.
    pub over_budget: usize,
    /// Share of chat requests that carried the locked decision, in percent.
    pub locked_in_requests_pct: f64,
    /// The context at the end, as sent (for reading).
    pub final_context: String,
    // The figures below came with #28; files written before have none, and `--rescore`
    // derives what it can from the rest.
    /// Where the final context comes from; `None` in older files, where truncation's was
    /// always estimated (see `kept_by()`).
    #[serde(default)]
    pub kept_by: Option<KeptBy>,
    /// Compression passes by kind, as the strategy reported them; `None` for ours in older
    /// files, which counted only checkpoints.
    #[serde(default)]
    pub passes: Option<Passes>,
    /// Passes ÷ turns.
    #[serde(default)]
    pub passes_per_turn: Option<f64>,
    /// Model calls for compression ÷ turns.
    #[serde(default)]
    pub compression_calls_per_turn: f64,
    /// Seconds the server was busy with the run's calls (the union of their intervals),
    /// and the part of them spent on compression calls: the server serves one request at
    /// a time, so a call that starts while another is in flight waits for it, and the
    /// time they overlap is the earlier call's.
    #[serde(default)]
    pub busy_secs: f64,
    #[serde(default)]
    pub busy_secs_compressing: f64,
    /// The share of the server's busy time spent on compression calls (0 to 1). Files
    /// from before #28 have no busy seconds: there it is compressing ÷ all call seconds.
    #[serde(default)]
    pub busy_share_compressing: f64,
    /// Facts said in the first third of the chat (where plain truncation keeps nothing at
    /// the end), and how many of them were kept with their subject.
    #[serde(default)]
    pub facts_early: usize,
    #[serde(default)]
    pub facts_early_kept: usize,
    /// Quiz questions about the first third, and how many were answered right.
    #[serde(default)]
    pub quiz_early_asked: usize,
    #[serde(default)]
    pub quiz_early_right: usize,
    /// Requests of the run that the server cut to fit (its request log); `None` without
    /// a log.
    #[serde(default)]
    pub server_cut_requests: Option<usize>,
}

impl QuizScore {
    /// Judge the recorded answers again with the current scorer.
    pub fn rescore(&mut self, scenario: &Scenario) {
        for (ask, answer, right) in &mut self.answers {
            if let Some(q) = scenario.quiz.iter().find(|q| q.ask == ask.as_str()) {
                *right = score::answer_is_right(answer, &scenario.facts[q.fact]);
            }
        }
        self.right = self.answers.iter().filter(|a| a.2).count();
    }

    /// Questions whose request held their fact, if measured.
    pub fn in_request(&self) -> Option<usize> {
        (self.found.len() == self.answers.len() && !self.found.is_empty())
            .then(|| self.found.iter().filter(|f| **f).count())
    }
}

impl Measured {
    /// Score the recorded final context and quiz answers again with the current scorer:
    /// a run takes an hour on a small machine, a better judge should not need another.
    pub fn rescore(&mut self, scenario: &Scenario) {
        let (kept, lost) = facts_in(&self.final_context, scenario);
        self.facts_kept = kept;
        self.facts = scenario.facts.len();
        self.lost = lost;
        self.quiz.rescore(scenario);
        // A baseline's passes are its compactions; ours' were not counted before #28.
        if self.passes.is_none() && self.strategy != Strategy::Ours {
            self.passes = Some(Passes {
                total: self.compressions,
                ..Passes::default()
            });
        }
        self.derive(scenario);
    }

    /// Where the final context comes from (older files: truncation's was estimated).
    pub fn kept_by(&self) -> KeptBy {
        self.kept_by.unwrap_or(match self.strategy {
            Strategy::Truncate => KeptBy::Estimated,
            _ => KeptBy::Sent,
        })
    }

    /// The figures that follow from the others: rates, the busy share, the first third.
    fn derive(&mut self, scenario: &Scenario) {
        let turns = self.turns.max(1) as f64;
        self.passes_per_turn = self.passes.map(|p| f64::from(p.total) / turns);
        self.compression_calls_per_turn = self.summary_calls as f64 / turns;
        let (part, busy) = if self.busy_secs > 0.0 {
            (self.busy_secs_compressing, self.busy_secs)
        } else {
            (
                self.secs_compressing,
                self.secs_replying + self.secs_compressing,
            )
        };
        self.busy_share_compressing = if busy > 0.0 { part / busy } else { 0.0 };
        let early: Vec<bool> = scenario.facts.iter().map(|f| scenario.early(f)).collect();
        self.facts_early = early.iter().filter(|e| **e).count();
        self.facts_early_kept = scenario
            .facts
            .iter()
            .zip(&early)
            .filter(|(f, e)| **e && score::kept_with_subject(&self.final_context, f))
            .count();
        let early_answers: Vec<bool> = self
            .quiz
            .answers
            .iter()
            .filter(|(ask, _, _)| {
                scenario
                    .quiz
                    .iter()
                    .find(|q| q.ask == ask.as_str())
                    .is_some_and(|q| early[q.fact])
            })
            .map(|a| a.2)
            .collect();
        self.quiz_early_asked = early_answers.len();
        self.quiz_early_right = early_answers.iter().filter(|r| **r).count();
    }
}

/// How many of the scenario's facts `context` keeps with their subject, and the values
/// of those it lost.
fn facts_in(context: &str, scenario: &Scenario) -> (usize, Vec<String>) {
    let mut kept = 0;
    let mut lost = Vec::new();
    for f in &scenario.facts {
        if score::kept_with_subject(context, f) {
            kept += 1;
        } else {
            lost.push(f.value.to_string());
        }
    }
    (kept, lost)
}

fn overlap(a: (Instant, Instant), b: (Instant, Instant)) -> f64 {
    let start = a.0.max(b.0);
    let end = a.1.min(b.1);
    secs(start, end)
}

fn duration(c: &Call) -> f64 {
    c.ended.map_or(0.0, |e| secs(c.started, e))
}

/// The seconds the server spent on each call, for a server that serves one request at a
/// time in the order they came: a call's service starts when it was sent or when the calls
/// sent before it were done, whichever is later. The seconds add up to the union of the
/// calls' intervals.
fn served(calls: &[Call]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..calls.len()).collect();
    order.sort_by_key(|&i| calls[i].started);
    let mut out = vec![0.0; calls.len()];
    let mut free_at: Option<Instant> = None;
    for i in order {
        let Some(end) = calls[i].ended else {
            continue;
        };
        let start = free_at.map_or(calls[i].started, |f| f.max(calls[i].started));
        out[i] = secs(start, end);
        free_at = Some(free_at.map_or(end, |f| f.max(end)));
    }
    out
}

/// Messages' texts as one text, as the scorer reads a context.
pub(super) fn joined<'a>(texts: impl Iterator<Item = &'a str>) -> String {
    texts.collect::<Vec<_>>().join("\n\n")
}

pub(super) fn measured(
    scenario: &Scenario,
    setup: &Setup,
    run: &Run,
    quiz: QuizScore,
    server_cut_requests: Option<usize>,
) -> Measured {
    let calls = run.calls.lock().map(|c| c.clone()).unwrap_or_default();
    let context = joined(run.context.iter().map(|(_, t)| t.as_str()));
    let (facts_kept, lost) = facts_in(&context, scenario);
    let served = served(&calls);
    let sum = |kind: CallKind, f: &dyn Fn(&Call) -> u64| -> u64 {
        calls.iter().filter(|c| c.kind == kind).map(f).sum()
    };
    let replies: Vec<&Call> = calls.iter().filter(|c| c.kind == CallKind::Reply).collect();
    let summaries: Vec<&Call> = calls.iter().filter(|c| is_compression(c.kind)).collect();
    let waited_on_compression = run
        .turns
        .iter()
        .map(|t| {
            summaries
                .iter()
                .filter_map(|c| c.ended.map(|e| (c.started, e)))
                .map(|iv| overlap((t.sent, t.done), iv))
                .sum::<f64>()
        })
        .sum::<f64>();
    let locked = replies
        .iter()
        .filter(|c| c.request_text.contains(scenario.locked))
        .count();
    let last_work = calls
        .iter()
        .filter_map(|c| c.ended)
        .chain(run.turns.iter().map(|t| t.done))
        .max()
        .unwrap_or(run.ended);
    let mut m = Measured {
        scenario: scenario.name.to_string(),
        strategy: run.strategy,
        ctx: setup.ctx,
        turns: run.turns.len(),
        failed_turns: run.turns.iter().filter(|t| t.failed).count(),
        facts_kept,
        facts: scenario.facts.len(),
        lost,
        quiz,
        reply_calls: replies.len(),
        summary_calls: summaries.len(),
        compressions: run.compressions,
        tokens_in_replies: sum(CallKind::Reply, &|c| {
            u64::from(c.prompt_tokens.unwrap_or(0))
        }),
        tokens_out_replies: sum(CallKind::Reply, &|c| {
            u64::from(c.output_tokens.unwrap_or(0))
        }),
        tokens_in_summaries: sum(CallKind::Summary, &|c| {
            u64::from(c.prompt_tokens.unwrap_or(0))
        }),
        tokens_out_summaries: sum(CallKind::Summary, &|c| {
            u64::from(c.output_tokens.unwrap_or(0))
        }),
        // `+ 0.0`: an empty float sum is -0.0, which prints as "-0".
        secs_replying: replies.iter().map(|c| duration(c)).sum::<f64>() + 0.0,
        secs_compressing: summaries.iter().map(|c| duration(c)).sum::<f64>() + 0.0,
        session_secs: secs(run.started, last_work),
        longest_wait_secs: run
            .turns
            .iter()
            .map(|t| secs(t.sent, t.done))
            .fold(0.0, f64::max),
        waited_on_compression_secs: waited_on_compression + 0.0,
        over_budget: calls.iter().filter(|c| c.overflow).count(),
        locked_in_requests_pct: if replies.is_empty() {
            0.0
        } else {
            100.0 * locked as f64 / replies.len() as f64
        },
        final_context: context,
        kept_by: Some(run.kept_by),
        passes: Some(run.passes),
        passes_per_turn: None,
        compression_calls_per_turn: 0.0,
        busy_secs: served.iter().sum::<f64>() + 0.0,
        busy_secs_compressing: calls
            .iter()
            .zip(&served)
            .filter(|(c, _)| is_compression(c.kind))
            .map(|(_, s)| s)
            .sum::<f64>()
            + 0.0,
        busy_share_compressing: 0.0,
        facts_early: 0,
        facts_early_kept: 0,
        quiz_early_asked: 0,
        quiz_early_right: 0,
        server_cut_requests,
    };
    m.derive(scenario);
    m
}

/// One table for one scenario at one context size: a column per strategy.
pub fn table(
    rows: &[&Measured],
    ceiling: Option<&Option<QuizScore>>,
    floor: Option<&QuizScore>,
) -> String {
    let Some(first) = rows.first() else {
        return String::new();
    };
    let mut t = String::new();
    let _ = writeln!(
        t,
        "#### {} at ctx {} ({} turns)\n",
        first.scenario, first.ctx, first.turns
    );
    let _ = write!(t, "| |");
    for r in rows {
        let estimated = if r.kept_by() == KeptBy::Estimated {
            " (estimated)"
        } else {
            ""
        };
        let _ = write!(t, " {}{estimated} |", r.strategy.name());
    }
    t.push('\n');
    let _ = writeln!(t, "|---|{}", "---|".repeat(rows.len()));
    let line = |t: &mut String, name: &str, f: &dyn Fn(&Measured) -> String| {
        let _ = write!(t, "| {name} |");
        for r in rows {
            let _ = write!(t, " {} |", f(r));
        }
        t.push('\n');
    };
    let pct = |a: usize, b: usize| {
        if b == 0 {
            "–".to_string()
        } else {
            format!("{a}/{b} ({:.0} %)", 100.0 * a as f64 / b as f64)
        }
    };
    line(&mut t, "facts kept with subject", &|r| {
        pct(r.facts_kept, r.facts)
    });
    line(&mut t, "quiz", &|r| pct(r.quiz.right, r.quiz.asked));
    line(
        &mut t,
        "quiz: fact in its request",
        &|r| match r.quiz.in_request() {
            Some(n) => pct(n, r.quiz.asked),
            None => "–".into(),
        },
    );
    let split = |kept: usize, of: usize, all_kept: usize, all: usize| {
        format!("{kept}/{of} · {}/{}", all_kept - kept, all - of)
    };
    line(&mut t, "facts: first third · rest", &|r| {
        split(r.facts_early_kept, r.facts_early, r.facts_kept, r.facts)
    });
    line(&mut t, "quiz: first third · rest", &|r| {
        split(
            r.quiz_early_right,
            r.quiz_early_asked,
            r.quiz.right,
            r.quiz.asked,
        )
    });
    line(
        &mut t,
        "passes per turn (emergency, overflow, merges)",
        &|r| match (r.passes, r.passes_per_turn) {
            (Some(p), Some(per)) => format!(
                "{per:.2} ({}: {}, {}, {})",
                p.total, p.emergency, p.overflow, p.merges
            ),
            _ => "–".into(),
        },
    );
    line(&mut t, "compression calls per turn", &|r| {
        format!("{:.2}", r.compression_calls_per_turn)
    });
    line(&mut t, "server busy on compression", &|r| {
        format!("{:.0} %", 100.0 * r.busy_share_compressing)
    });
    line(&mut t, "compressions (per turn)", &|r| {
        format!(
            "{} ({:.2})",
            r.compressions,
            f64::from(r.compressions) / r.turns.max(1) as f64
        )
    });
    line(&mut t, "model calls: replies + summaries", &|r| {
        format!("{} + {}", r.reply_calls, r.summary_calls)
    });
    line(&mut t, "summary calls per compression", &|r| {
        if r.compressions == 0 {
            "–".into()
        } else {
            format!("{:.1}", r.summary_calls as f64 / f64::from(r.compressions))
        }
    });
    line(&mut t, "tokens in/out: replies", &|r| {
        format!("{} / {}", r.tokens_in_replies, r.tokens_out_replies)
    });
    line(&mut t, "tokens in/out: summaries", &|r| {
        format!("{} / {}", r.tokens_in_summaries, r.tokens_out_summaries)
    });
    line(&mut t, "seconds replying / compressing", &|r| {
        format!("{:.0} / {:.0}", r.secs_replying, r.secs_compressing)
    });
    line(&mut t, "waited on compression (of session)", &|r| {
        format!(
            "{:.0} s ({:.0} %)",
            r.waited_on_compression_secs,
            100.0 * r.waited_on_compression_secs / r.session_secs.max(0.001)
        )
    });
    line(&mut t, "longest wait", &|r| {
        format!("{:.0} s", r.longest_wait_secs)
    });
    line(&mut t, "requests over budget", &|r| {
        r.over_budget.to_string()
    });
    line(&mut t, "locked decision in requests", &|r| {
        format!("{:.0} %", r.locked_in_requests_pct)
    });
    line(&mut t, "failed turns", &|r| r.failed_turns.to_string());
    line(&mut t, "requests the server cut", &|r| {
        r.server_cut_requests
            .map_or("– (no log)".into(), |n| n.to_string())
    });
    line(&mut t, "final context", &|r| {
        match r.kept_by() {
            KeptBy::Sent => "as sent",
            KeptBy::ServerLog => "as the server kept it (log)",
            KeptBy::Estimated => "estimated by our tokenizer",
        }
        .into()
    });
    if let Some(c) = ceiling {
        let _ = writeln!(
            t,
            "\nQuiz with the whole conversation (ceiling): {}; with no history (floor): {}.",
            c.as_ref()
                .map_or("n/a (does not fit)".to_string(), |q| pct(q.right, q.asked)),
            floor.map_or("–".to_string(), |q| pct(q.right, q.asked))
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn call(kind: CallKind, base: Instant, from: u64, to: Option<u64>) -> Call {
        Call {
            kind,
            started: base + Duration::from_secs(from),
            ended: to.map(|t| base + Duration::from_secs(t)),
            num_ctx: 2048,
            prompt_tokens: None,
            output_tokens: None,
            request_text: String::new(),
            overflow: false,
        }
    }

    #[test]
    fn overlapping_calls_share_the_server_in_the_order_they_came() {
        let t = Instant::now();
        // A summary from 0 to 10 s; a reply sent at 5 s waits for it and ends at 12 s;
        // later a reply alone from 20 to 23 s; a call that never ended counts nothing.
        let calls = [
            call(CallKind::Reply, t, 5, Some(12)),
            call(CallKind::Summary, t, 0, Some(10)),
            call(CallKind::Reply, t, 20, Some(23)),
            call(CallKind::Summary, t, 21, None),
        ];
        let s = served(&calls);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        assert!(
            close(s[1], 10.0) && close(s[0], 2.0) && close(s[2], 3.0),
            "{s:?}"
        );
        assert!(close(s[3], 0.0));
        // The seconds add up to the time the server was busy at all.
        assert!(close(s.iter().sum::<f64>(), 15.0));
        // A call sent and done while an earlier one still ran took no time of its own.
        let nested = [
            call(CallKind::Summary, t, 0, Some(10)),
            call(CallKind::Reply, t, 2, Some(4)),
        ];
        assert_eq!(served(&nested), [10.0, 0.0]);
    }
}
