//! Stage 3 of a compression, summarize, and the mechanical checks that
//! decide whether a summary is accepted.
//!
//! The engine's `plan` (stages 1 and 2, identify and plan) produces [`Task`]s: make a new checkpoint,
//! age one to a lower level, or merge ancient ones. [`run_task`] turns a task into text
//! through the [`Summarizer`]:
//! - inputs larger than the summarizer's window are split at message (then line, then
//!   character) boundaries, each chunk summarized, and the parts combined, recursively
//!   (map-reduce) — never cut;
//! - the result must be shorter than its input, else one retry asks for brevity;
//! - the prompt's own scaffolding ("Notes:", a "Summary:" heading) is taken off, and a
//!   line the summary already said is said once;
//! - the final text never exceeds [`limit_for`]`(cap)` tokens.
//!
//! Specifics (numbers, paths, names with what they belong to) are not the summary's job:
//! the fact ledger (`core::ledger`) keeps them word for word beside it, so there is no
//! fact check and no retry for a summary that paraphrased them away.
//!
//! Mechanical tasks (emergency truncation) never call the model.
//! Invariant: a task either yields an accepted text within its limit or an error; it
//! never changes engine state (the engine applies results later, as records).

use crate::core::checkpoint::{CheckpointId, Level};
use crate::core::message::MessageId;
use crate::core::prompts::{Prompts, cap_words, fill};
use crate::core::prose::{bare, lines_with_code};
use crate::core::summarizer::{Summarizer, SummaryRequest};
use crate::core::tokens::Tokenizer;
use std::collections::HashSet;

/// What a task produces.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskTarget {
    /// A new checkpoint replacing these messages.
    New {
        covers: Vec<MessageId>,
        /// How many of them are user messages (folded only when user text overflows).
        folded_users: usize,
    },
    /// Re-summarize an existing checkpoint from its originals at a lower level.
    Age { id: CheckpointId, from: Level },
    /// Merge these checkpoints (oldest first) into one ancient checkpoint.
    Merge { ids: Vec<CheckpointId> },
    /// Write the summary a fold was made without, from its originals: asked of the model
    /// between turns when the server can afford it, and kept only if it carries the
    /// span's facts (`core::summary_check`).
    Summarize { id: CheckpointId },
}

/// One piece of input: a formatted original message, or part of one.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub text: String,
    pub raw: u32,
}

/// A unit of summarization work, fully prepared (prompts filled apart from the text).
#[derive(Debug, Clone)]
pub struct Task {
    pub target: TaskTarget,
    pub level: Level,
    /// Token cap for the result (num_predict).
    pub cap: u32,
    /// Original messages, formatted, oldest first.
    pub pieces: Vec<Piece>,
    /// For a merge: the summary of the oldest checkpoint, which the originals extend.
    pub earlier: Option<String>,
    /// Raw tokens of all input.
    pub input_raw: u32,
    /// "messages #3–#40", for prompts and notices.
    pub range_label: String,
    /// Emergency truncation: no model call.
    pub mechanical: bool,
    /// Upkeep without the model: the result is the opening lines of these summaries
    /// within the cap (`opening_lines`), when asking the model would cost more of the
    /// server's time than compression may take (`core::speed`).
    pub cut_from: Option<Vec<String>>,
    /// The summary system prompt for this level and mode.
    pub system: String,
    /// Goal block for the user prompt ("" when there is no goal).
    pub goal: String,
    /// Focus block ("" when none).
    pub focus: String,
    /// Raw tokens of input a single summarizer call may take.
    pub window_raw: u32,
}

/// The accepted result of a task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskResult {
    pub text: String,
    pub tokens: u32,
    /// Summarizer calls made (chunks, reduces, retries).
    pub calls: u32,
    pub retried: bool,
    /// The model overran the limit and the text was cut.
    pub cut: bool,
    pub mechanical: bool,
}

/// Tolerance over the cap: our tokenizer is not the model's, so a summary the server
/// capped at `num_predict` may count a little longer here.
pub fn limit_for(cap: u32) -> u32 {
    cap + cap / 5 + 2
}

/// Deepest map-reduce recursion before giving up (a window this small is useless).
const MAX_REDUCE_DEPTH: u32 = 6;

/// Cut `text` into pieces of at most `max_raw` tokens at line, then char, boundaries.
pub fn split_piece(text: &str, max_raw: u32, tok: &dyn Tokenizer) -> Vec<Piece> {
    let max_raw = max_raw.max(16);
    let raw = tok.count(text);
    if raw <= max_raw {
        return vec![Piece {
            text: text.to_string(),
            raw,
        }];
    }
    let mut out = Vec::new();
    let mut current = String::new();
    let mut current_raw = 0u32;
    let flush = |out: &mut Vec<Piece>, current: &mut String, current_raw: &mut u32| {
        if !current.is_empty() {
            out.push(Piece {
                text: std::mem::take(current),
                raw: *current_raw,
            });
            *current_raw = 0;
        }
    };
    for line in text.split_inclusive('\n') {
        let lr = tok.count(line);
        if lr > max_raw {
            flush(&mut out, &mut current, &mut current_raw);
            // A single huge line: cut by characters, sized from its density.
            let chars: Vec<char> = line.chars().collect();
            let per = ((chars.len() as u64 * u64::from(max_raw) * 9 / 10) / u64::from(lr.max(1)))
                .max(1) as usize;
            for chunk in chars.chunks(per) {
                let t: String = chunk.iter().collect();
                let r = tok.count(&t);
                out.push(Piece { text: t, raw: r });
            }
            continue;
        }
        if current_raw + lr > max_raw {
            flush(&mut out, &mut current, &mut current_raw);
        }
        current.push_str(line);
        current_raw += lr;
    }
    flush(&mut out, &mut current, &mut current_raw);
    out
}

/// Group pieces into chunks of at most `window_raw` tokens, in order.
fn chunk(pieces: &[Piece], window_raw: u32) -> Vec<Vec<&Piece>> {
    let mut chunks: Vec<Vec<&Piece>> = Vec::new();
    let mut size = 0u32;
    for p in pieces {
        if chunks.is_empty() || (size + p.raw > window_raw && size > 0) {
            chunks.push(Vec::new());
            size = 0;
        }
        size += p.raw;
        if let Some(last) = chunks.last_mut() {
            last.push(p);
        }
    }
    chunks
}

fn join(pieces: &[&Piece]) -> String {
    pieces
        .iter()
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Strip what models wrap around a summary: reasoning blocks, a "Summary:" or "Notes:"
/// heading, and the prompt's own scaffolding echoed at the end ("Notes:", "Notes (- bullets,
/// at most 40 words):").
pub fn clean_summary(text: &str) -> String {
    let mut t = text.to_string();
    while let (Some(a), Some(b)) = (t.find("<think>"), t.find("</think>")) {
        if b < a {
            break;
        }
        t.replace_range(a..b + "</think>".len(), "");
    }
    let is_scaffold = |line: &str| {
        let l = line
            .trim()
            .trim_matches(['*', '#', ' '])
            .to_ascii_lowercase();
        ["summary", "notes", "transcript"].iter().any(|h| {
            l == *h
                || l == format!("{h}:")
                || (l.starts_with(&format!("{h} (")) && l.ends_with(':'))
        })
    };
    let lines: Vec<&str> = t.trim().lines().collect();
    let start = lines
        .iter()
        .position(|l| !is_scaffold(l))
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !is_scaffold(l))
        .map_or(start, |i| i + 1);
    let body = lines[start..end.max(start)].join("\n");
    let lower = body.to_ascii_lowercase();
    let body = ["summary:", "notes:"]
        .iter()
        .find(|h| lower.starts_with(*h))
        .map_or(body.as_str(), |h| body[h.len()..].trim_start());
    drop_repeated_lines(body.trim())
}

/// `text` without the prose lines that repeat an earlier one (bullet, case and spacing
/// aside). Small models loop: measured on the real 0.5B model, a fifth of the summary
/// text in its requests was a line already said in the same summary, room the cap could
/// have given to something new. Lines under three words ("```", "Pros:") and lines in
/// code blocks may rightly repeat and stay.
fn drop_repeated_lines(text: &str) -> String {
    let mut seen = HashSet::new();
    let mut out: Vec<&str> = Vec::new();
    for (line, code) in lines_with_code(text) {
        if !code {
            let key: Vec<String> = bare(line)
                .split_whitespace()
                .map(str::to_lowercase)
                .collect();
            if key.len() >= 3 && !seen.insert(key.join(" ")) {
                continue;
            }
        }
        out.push(line);
    }
    out.join("\n")
}

struct Caller<'a, S> {
    summarizer: &'a S,
    task: &'a Task,
    prompts: &'a Prompts,
    calls: u32,
}

impl<S: Summarizer> Caller<'_, S> {
    async fn call(&mut self, user: String) -> Result<String, String> {
        self.calls += 1;
        let request = SummaryRequest {
            system: self.task.system.clone(),
            user,
            num_predict: self.task.cap,
        };
        self.summarizer
            .summarize(request)
            .await
            .map(|t| clean_summary(&t))
            .map_err(|e| e.to_string())
    }

    fn words(&self) -> String {
        cap_words(self.task.cap).to_string()
    }

    fn user_prompt(&self, transcript: &str) -> String {
        let words = self.words();
        fill(
            &self.prompts.summary.user,
            &[
                ("goal", &self.task.goal),
                ("range", &self.task.range_label),
                ("transcript", transcript),
                ("focus", &self.task.focus),
                ("cap_words", &words),
            ],
        )
    }

    fn merge_prompt(&self, earlier: &str, transcript: &str) -> String {
        let words = self.words();
        fill(
            &self.prompts.summary.merge,
            &[
                ("earlier", earlier),
                ("range", &self.task.range_label),
                ("transcript", transcript),
                ("cap_words", &words),
            ],
        )
    }

    async fn reduce(
        &mut self,
        mut parts: Vec<String>,
        tok: &dyn Tokenizer,
    ) -> Result<String, String> {
        let window = self.task.window_raw;
        for _ in 0..MAX_REDUCE_DEPTH {
            if parts.len() == 1 {
                return Ok(parts.remove(0));
            }
            let pieces: Vec<Piece> = parts
                .iter()
                .map(|p| Piece {
                    text: p.clone(),
                    raw: tok.count(p),
                })
                .collect();
            let groups = chunk(&pieces, window);
            if groups.len() == pieces.len()
                && pieces.len() > 1
                && groups.iter().all(|g| g.len() == 1)
            {
                // No two parts fit together: pair them anyway rather than loop.
                return Err("summarizer window too small to combine summaries".into());
            }
            let mut next = Vec::with_capacity(groups.len());
            for g in groups {
                if g.len() == 1 {
                    next.push(g[0].text.clone());
                    continue;
                }
                let words = self.words();
                let joined = g
                    .iter()
                    .enumerate()
                    .map(|(i, p)| format!("Part {}:\n{}", i + 1, p.text))
                    .collect::<Vec<_>>()
                    .join("\n\n");
                let prompt = fill(
                    &self.prompts.summary.reduce,
                    &[("parts", &joined), ("cap_words", &words)],
                );
                next.push(self.call(prompt).await?);
            }
            parts = next;
        }
        Err("map-reduce did not converge".into())
    }

    /// First draft: one call, or map-reduce over chunks.
    async fn draft(&mut self, tok: &dyn Tokenizer) -> Result<String, String> {
        let task = self.task;
        let earlier_raw = task.earlier.as_deref().map_or(0, |e| tok.count(e));
        let chunks = chunk(
            &task.pieces,
            task.window_raw.saturating_sub(earlier_raw).max(16),
        );
        if chunks.len() <= 1 {
            let transcript = chunks.first().map(|c| join(c)).unwrap_or_default();
            let prompt = match &task.earlier {
                Some(e) => self.merge_prompt(e, &transcript),
                None => self.user_prompt(&transcript),
            };
            return self.call(prompt).await;
        }
        let chunks = chunk(&task.pieces, task.window_raw);
        let mut parts = Vec::with_capacity(chunks.len() + 1);
        if let Some(e) = &task.earlier {
            parts.push(e.clone());
        }
        for c in &chunks {
            let prompt = self.user_prompt(&join(c));
            parts.push(self.call(prompt).await?);
        }
        self.reduce(parts, tok).await
    }
}

/// Cut `text` at a word boundary so that it counts at most `max_raw` tokens.
pub fn cut_to(text: &str, max_raw: u32, tok: &dyn Tokenizer) -> String {
    let mut raw = tok.count(text);
    if raw <= max_raw {
        return text.to_string();
    }
    let mut chars: Vec<char> = text.chars().collect();
    while raw > max_raw && !chars.is_empty() {
        let keep =
            (chars.len() as u64 * u64::from(max_raw) * 95 / 100 / u64::from(raw.max(1))) as usize;
        let keep = keep.min(chars.len().saturating_sub(1));
        chars.truncate(keep);
        while chars.last().is_some_and(|c| !c.is_whitespace()) && chars.len() > keep / 2 {
            chars.pop();
        }
        let candidate: String = chars.iter().collect::<String>().trim_end().to_string() + " …";
        raw = tok.count(&candidate);
        if raw <= max_raw {
            return candidate;
        }
    }
    String::new()
}

/// A stand-in for a failed aging or merge: the opening of each summary, in equal shares
/// of the cap, never above `cap` tokens.
pub fn shorten(summaries: &[&str], cap: u32, tok: &dyn Tokenizer) -> String {
    let n = u32::try_from(summaries.len().max(1)).unwrap_or(u32::MAX);
    let share = cap.saturating_sub(n) / n;
    let joined = summaries
        .iter()
        .map(|s| cut_to(s.trim(), share, tok))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    cut_to(&joined, cap, tok)
}

/// Summaries shortened without the model: the opening lines of each, whole, in equal
/// shares of the cap (a summary's first bullets are its main points); a first line over
/// its share is cut. Never above `cap` tokens.
pub fn opening_lines(summaries: &[&str], cap: u32, tok: &dyn Tokenizer) -> String {
    let n = u32::try_from(summaries.len().max(1)).unwrap_or(u32::MAX);
    let share = cap.saturating_sub(n) / n;
    let mut parts = Vec::new();
    for s in summaries {
        let mut kept: Vec<&str> = Vec::new();
        let mut used = 0u32;
        for line in s.lines().filter(|l| !l.trim().is_empty()) {
            let cost = tok.count(line) + 1;
            if used + cost > share {
                break;
            }
            used += cost;
            kept.push(line);
        }
        if kept.is_empty() {
            let first = s.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            parts.push(cut_to(first.trim(), share, tok));
        } else {
            parts.push(kept.join("\n"));
        }
    }
    let joined = parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    cut_to(&joined, cap, tok)
}

/// The text of an emergency truncation: a marker, then the opening of the input.
pub fn mechanical_text(task: &Task, reason: &str, tok: &dyn Tokenizer) -> String {
    let header = format!(
        "[Marked truncation, not a summary ({reason}). {} ({} tokens) are kept whole in the session history. The folded text begins:]",
        task.range_label, task.input_raw
    );
    let body: String = task
        .earlier
        .iter()
        .cloned()
        .chain(task.pieces.iter().map(|p| p.text.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    let room = task.cap.saturating_sub(tok.count(&header) + 2);
    let head = cut_to(&body, room, tok);
    if head.is_empty() {
        cut_to(&header, task.cap, tok)
    } else {
        format!("{header}\n{head}")
    }
}

/// The result of a task that needs no model (upkeep by cutting, a fold that keeps the
/// facts only, an emergency truncation); `None` for a task the model must do.
pub fn run_offline(task: &Task, tok: &dyn Tokenizer) -> Option<TaskResult> {
    let text = if let Some(summaries) = &task.cut_from {
        let refs: Vec<&str> = summaries.iter().map(String::as_str).collect();
        opening_lines(&refs, task.cap, tok)
    } else if task.mechanical {
        mechanical_text(task, "emergency rollover", tok)
    } else {
        return None;
    };
    let tokens = tok.count(&text);
    Some(TaskResult {
        text,
        tokens,
        calls: 0,
        retried: false,
        cut: false,
        mechanical: true,
    })
}

/// Run one task to an accepted text (shorter than its input, its facts kept), or an error.
pub async fn run_task<S: Summarizer>(
    task: &Task,
    prompts: &Prompts,
    tok: &dyn Tokenizer,
    summarizer: &S,
) -> Result<TaskResult, String> {
    let limit = limit_for(task.cap);
    if let Some(done) = run_offline(task, tok) {
        return Ok(done);
    }
    let mut caller = Caller {
        summarizer,
        task,
        prompts,
        calls: 0,
    };
    let mut text = caller.draft(tok).await?;
    let mut tokens = tok.count(&text);
    let mut retried = false;
    let words = caller.words();

    if tokens >= task.input_raw || text.is_empty() {
        retried = true;
        let prompt = fill(
            &prompts.summary.retry_too_long,
            &[("cap_words", &words), ("previous", &text)],
        );
        text = caller.call(prompt).await?;
        tokens = tok.count(&text);
        if tokens >= task.input_raw || text.is_empty() {
            return Err(format!(
                "the summary was not shorter than its input ({tokens} ≥ {} tokens), twice",
                task.input_raw
            ));
        }
    }

    let mut cut = false;
    if tokens > limit {
        text = cut_to(&text, limit, tok);
        tokens = tok.count(&text);
        cut = true;
    }
    Ok(TaskResult {
        text,
        tokens,
        calls: caller.calls,
        retried,
        cut,
        mechanical: false,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::summarizer::SummaryError;
    use crate::core::summarizer::doubles::{Extractive, Failing, Scripted};
    use crate::core::tokens::ByteEstimate;
    use futures::executor::block_on;

    fn task(text: &str, cap: u32, window: u32) -> Task {
        let tok = ByteEstimate;
        let pieces = split_piece(text, window, &tok);
        let input_raw = pieces.iter().map(|p| p.raw).sum();
        Task {
            target: TaskTarget::New {
                covers: vec![MessageId(1)],
                folded_users: 0,
            },
            level: Level::Detailed,
            cap,
            pieces,
            earlier: None,
            input_raw,
            range_label: "messages #1–#1".into(),
            mechanical: false,
            cut_from: None,
            system: "You compress chat history.".into(),
            goal: String::new(),
            focus: String::new(),
            window_raw: window,
        }
    }

    fn long_text() -> String {
        (0..200)
            .map(|i| format!("Assistant (#{i}): step {i} edits src/mod_{i}.rs and discusses details at length.\n"))
            .collect()
    }

    #[test]
    fn small_input_is_one_call() {
        let p = Prompts::builtin();
        let text = format!(
            "Assistant (#1): we chose port 8080 for the api_server in src/main.rs.\n{}",
            "We talked about it for a long while and weighed several options.\n".repeat(8)
        );
        let t = task(&text, 60, 4000);
        let s = Extractive::new();
        let r = block_on(run_task(&t, &p, &ByteEstimate, &s)).unwrap();
        assert_eq!(s.calls(), 1);
        assert!(r.text.contains("8080") && r.text.contains("src/main.rs"));
        assert!(r.tokens <= limit_for(60));
    }

    #[test]
    fn large_input_is_map_reduced_never_cut() {
        let p = Prompts::builtin();
        let text = long_text();
        let t = task(&text, 120, 400);
        assert!(t.input_raw > 4 * 400);
        let s = Scripted::new((0..100).map(|i| Ok(format!("part {i} src/mod_0.rs"))));
        let r = block_on(run_task(&t, &p, &ByteEstimate, &s)).unwrap();
        let reqs = s.requests();
        // Every chunk went to the model: together they cover the whole input.
        let chunk_calls = reqs
            .iter()
            .filter(|r| r.user.contains("Transcript ("))
            .count();
        assert!(chunk_calls >= 5, "{chunk_calls}");
        for i in [0, 57, 133, 199] {
            assert!(
                reqs.iter()
                    .any(|r| r.user.contains(&format!("step {i} edits"))),
                "message {i} never reached the summarizer"
            );
        }
        assert!(
            reqs.iter().any(|r| r.user.contains("Part 1:")),
            "reduce step ran"
        );
        assert!(reqs.iter().all(|r| r.num_predict == 120));
        assert!(r.tokens <= limit_for(120));
    }

    #[test]
    fn not_shorter_is_retried_then_rejected() {
        let p = Prompts::builtin();
        let text = "Assistant (#1): short answer about nothing much at all, really.";
        let t = task(text, 50, 4000);
        let long = "x ".repeat(200);
        let s = Scripted::new([Ok(long.clone()), Ok(long)]);
        let err = block_on(run_task(&t, &p, &ByteEstimate, &s)).unwrap_err();
        assert!(err.contains("not shorter"), "{err}");
        let s = Scripted::new([Ok("y ".repeat(200)), Ok("brief.".into())]);
        let r = block_on(run_task(&t, &p, &ByteEstimate, &s)).unwrap();
        assert_eq!(r.text, "brief.");
        assert!(r.retried);
        assert!(s.requests()[1].user.contains("too long"));
    }

    #[test]
    fn overlong_summaries_are_cut_to_the_limit() {
        let p = Prompts::builtin();
        let text = long_text();
        let t = task(&text, 40, 100_000);
        let s = Scripted::new([Ok("word ".repeat(300))]);
        let r = block_on(run_task(&t, &p, &ByteEstimate, &s)).unwrap();
        assert!(r.cut);
        assert!(
            r.tokens <= limit_for(40),
            "{} > {}",
            r.tokens,
            limit_for(40)
        );
    }

    #[test]
    fn failure_is_an_error_and_mechanical_needs_no_model() {
        let p = Prompts::builtin();
        let mut t = task(&long_text(), 40, 400);
        assert!(block_on(run_task(&t, &p, &ByteEstimate, &Failing)).is_err());
        t.mechanical = true;
        let r = block_on(run_task(&t, &p, &ByteEstimate, &Failing)).unwrap();
        assert!(r.mechanical && r.text.starts_with("[Marked truncation"));
        assert!(r.tokens <= 40);
        let _ = SummaryError::Cancelled;
    }

    #[test]
    fn shorten_keeps_the_opening_of_each_summary_within_the_cap() {
        let tok = ByteEstimate;
        let a = format!("ALPHA {}", "first summary words ".repeat(40));
        let b = format!("BETA {}", "second summary words ".repeat(40));
        let s = shorten(&[&a, &b], 60, &tok);
        assert!(tok.count(&s) <= 60, "{}", tok.count(&s));
        assert!(s.starts_with("ALPHA") && s.contains("\nBETA"), "{s}");
        assert_eq!(shorten(&["short"], 60, &tok), "short");
    }

    #[test]
    fn clean_summary_strips_reasoning_and_headings() {
        assert_eq!(clean_summary("<think>hmm</think>\nSummary: done"), "done");
        assert_eq!(clean_summary("## Summary\n- a"), "- a");
        assert_eq!(clean_summary("plain"), "plain");
        // The prompt's scaffolding echoed back is not part of the summary.
        assert_eq!(
            clean_summary("- The cache listens on 6379.\n\nNotes:"),
            "- The cache listens on 6379."
        );
        assert_eq!(
            clean_summary("Notes (\"- \" bullets, at most 40 words):\n- a\n- b"),
            "- a\n- b"
        );
        assert_eq!(clean_summary("Notes:\n- a"), "- a");
    }

    #[test]
    fn a_summary_says_each_line_once() {
        // A looping model's repeats go, whatever their bullet, case or spacing.
        assert_eq!(
            clean_summary(
                "- Take a short walk outside.\n- Read a book tonight.\n\
                 * take a  short walk outside.\n- Read a book tonight.\n- The cache uses 6379."
            ),
            "- Take a short walk outside.\n- Read a book tonight.\n- The cache uses 6379."
        );
        // Short lines and code may rightly repeat.
        let code =
            "Pros:\n- fast\nCons:\n- fast\n```\nlet a = b + c;\n```\n```\nlet a = b + c;\n```";
        assert_eq!(clean_summary(code), code);
        let tilde = "- fix the cache key now\n~~~\nfix the cache key now\n~~~";
        assert_eq!(clean_summary(tilde), tilde);
    }

    #[test]
    fn split_piece_respects_the_window() {
        let tok = ByteEstimate;
        let text = format!("{}\n{}", "a".repeat(4000), "short line\n".repeat(50));
        let pieces = split_piece(&text, 100, &tok);
        assert!(
            pieces.iter().all(|p| p.raw <= 100),
            "{:?}",
            pieces.iter().map(|p| p.raw).collect::<Vec<_>>()
        );
        let joined: String = pieces.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(joined, text, "splitting loses nothing");
    }
}
