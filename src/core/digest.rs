//! Layer 1 of keeping tool results small: one huge result is read through by the model
//! before it enters the context. The result is cut into parts that fit the summarizer's
//! window; each part is summarized to about a tenth, with the call's purpose (what the
//! person asked, the call itself) so the notes keep what the task needs; the notes are
//! put together and, when they are still over the result's limit, merged once more.
//!
//! Strategy: this is the expensive path (one model call a part), so it is taken only for
//! a result well over its limit ([`DIGEST_ABOVE`] times it) and not so large that reading
//! it would keep the person waiting for minutes ([`MAX_PARTS`]); below, the kind-aware
//! shortening alone is enough, above, it is all that is affordable.
//!
//! Invariants: the original is saved before the digest is used, and the digest says it
//! is one and how to get the original back (`recall`); a digest over the limit, an empty
//! one or a failed call is no digest — the caller falls back to the shortened form, never
//! to a blind cut. Planning is pure; running needs only a [`Summarizer`].

use crate::core::compress::pipeline::{clean_summary, cut_to};
use crate::core::results::{Kind, human};
use crate::core::summarizer::{Summarizer, SummaryError, SummaryRequest};
use crate::core::tokens::Tokenizer;

/// A result is digested when it is more than this many times its limit.
pub const DIGEST_ABOVE: u32 = 3;
/// A result that needs more parts than this is only shortened: reading it through would
/// take the person's time out of all proportion.
pub const MAX_PARTS: usize = 8;
/// The fewest tokens a part's notes may have (a tenth of a small part says nothing).
const MIN_NOTE_TOKENS: u32 = 48;
/// How much of the purpose (the person's words) goes into each prompt.
const PURPOSE_CHARS: usize = 400;

const PART_SYSTEM: &str = "You take notes on one part of a long tool result for an assistant that \
cannot see it. Write short notes of what in this part matters for the task: names, \
numbers together with what they are, paths, errors, and the line numbers where they are. \
No introduction, no advice.";

const MERGE_SYSTEM: &str = "You merge notes on the parts of a long tool result into one \
short set of notes for an assistant that cannot see the result. Keep what matters for the \
task: names, numbers together with what they are, paths, errors and line numbers. Drop \
repetition. No introduction.";

const INPUT_PART_SYSTEM: &str = "You take notes on one part of a long text the person gave, \
for an assistant that cannot see it and must answer the person's request from your notes. \
Write short notes of what in this part matters for the request: what it says and does, \
names, numbers together with what they are, and the line numbers where they are. No \
introduction, no advice.";

const INPUT_MERGE_SYSTEM: &str = "You merge notes on the parts of a long text the person \
gave into one short set of notes for an assistant that cannot see the text and must answer \
the person's request from them. Keep what matters for the request: names, numbers together \
with what they are, and line numbers. Drop repetition. No introduction.";

/// What is read through: the wording of the prompts and of the digest's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A tool's result, saved whole and recalled by the plan's `reference`.
    ToolResult,
    /// The person's own input, too long for the context (a pipe's stdin): the notes stand
    /// in for it, and the person's request is the question they serve.
    Input,
}

/// One part of the result, with the lines it spans (1-based, inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub first_line: usize,
    pub last_line: usize,
    pub text: String,
    pub tokens: u32,
}

/// How one huge result is to be read through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestPlan {
    pub source: Source,
    /// The message id the result will have (what `recall` is given).
    pub reference: u64,
    pub tool: String,
    /// The call as one line (`read_file {"path":"log.txt"}`).
    pub call: String,
    /// What the person asked for, which the notes should serve.
    pub purpose: String,
    pub kind: Kind,
    pub parts: Vec<Part>,
    /// Tokens the finished digest may take in the context.
    pub limit: u32,
    /// Tokens of notes one merge request may carry (what a part may).
    pub window: u32,
    pub original_chars: usize,
}

/// Tokens of instructions around each part in its request (the system prompt, the task
/// and the call), for estimating how long the reading takes.
const PART_OVERHEAD_TOKENS: u32 = 120;

impl DigestPlan {
    /// The calls the reading will make, as (prompt tokens, output cap): one a part, and
    /// the merge when the notes together will not fit the limit.
    pub fn calls(&self) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> = self
            .parts
            .iter()
            .map(|p| {
                (
                    p.tokens + PART_OVERHEAD_TOKENS,
                    (p.tokens / 10).max(MIN_NOTE_TOKENS),
                )
            })
            .collect();
        let notes: u32 = out.iter().map(|(_, cap)| cap).sum();
        if notes > self.limit && notes > self.window {
            // Merged in groups first (as `run_while` does), then once.
            let groups = notes.div_ceil(self.window.max(1));
            let cap = (self.limit / groups).max(MIN_NOTE_TOKENS);
            for _ in 0..groups {
                out.push((self.window + PART_OVERHEAD_TOKENS, cap));
            }
            out.push((cap * groups + PART_OVERHEAD_TOKENS, self.limit));
        } else if notes > self.limit {
            out.push((notes + PART_OVERHEAD_TOKENS, self.limit));
        }
        out
    }
}

/// What the model made of the result: the text for the context and its cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    pub text: String,
    pub calls: u32,
}

/// Plan a digest of `text` when it is worth one: over [`DIGEST_ABOVE`] × `limit` tokens
/// and within [`MAX_PARTS`] parts of `part_tokens`.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    tool: &str,
    call: String,
    purpose: &str,
    text: &str,
    limit: u32,
    part_tokens: u32,
    reference: u64,
    tok: &dyn Tokenizer,
) -> Option<DigestPlan> {
    let part_tokens = part_tokens.max(256);
    let threshold = limit.saturating_mul(DIGEST_ABOVE);
    // Cheap bounds first: counting a megabyte to refuse it would be waste.
    if text.len() <= threshold as usize
        || text.len() > part_tokens as usize * MAX_PARTS * 12
        || tok.count(text) <= threshold
    {
        return None;
    }
    let parts = split(text, part_tokens, tok);
    if parts.len() > MAX_PARTS {
        return None;
    }
    Some(DigestPlan {
        source: Source::ToolResult,
        reference,
        tool: tool.to_string(),
        call,
        purpose: purpose.chars().take(PURPOSE_CHARS).collect(),
        kind: Kind::of(tool, text),
        parts,
        limit,
        window: part_tokens,
        original_chars: text.chars().count(),
    })
}

/// Rounds of merging in groups before the notes are merged (and cut) at once.
const MAX_MERGE_ROUNDS: u32 = 3;

/// `notes` joined into groups of neighbours of at most `window` tokens each (a note
/// longer than that is a group of its own).
fn groups(notes: &[String], window: u32, tok: &dyn Tokenizer) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut tokens = 0u32;
    for note in notes {
        let t = tok.count(note) + 1;
        match out.last_mut() {
            Some(last) if tokens + t <= window => {
                last.push('\n');
                last.push_str(note);
                tokens += t;
            }
            _ => {
                out.push(note.clone());
                tokens = t;
            }
        }
    }
    out
}

/// Cut `text` into parts of at most `max` tokens at line boundaries (a single longer
/// line is cut by characters and keeps its line number).
pub(crate) fn split(text: &str, max: u32, tok: &dyn Tokenizer) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut tokens = 0u32;
    let mut first = 1usize;
    let flush = |parts: &mut Vec<Part>,
                 current: &mut String,
                 tokens: &mut u32,
                 first: usize,
                 last: usize| {
        if !current.is_empty() {
            parts.push(Part {
                first_line: first,
                last_line: last,
                text: std::mem::take(current),
                tokens: std::mem::take(tokens),
            });
        }
    };
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let n = i + 1;
        let lt = tok.count(line);
        if lt > max {
            flush(
                &mut parts,
                &mut current,
                &mut tokens,
                first,
                n.saturating_sub(1).max(first),
            );
            let chars: Vec<char> = line.chars().collect();
            let per = ((chars.len() as u64 * u64::from(max) * 9 / 10) / u64::from(lt)).max(1);
            for piece in chars.chunks(per as usize) {
                let t: String = piece.iter().collect();
                let pt = tok.count(&t);
                parts.push(Part {
                    first_line: n,
                    last_line: n,
                    text: t,
                    tokens: pt,
                });
            }
            first = n + 1;
            continue;
        }
        if tokens + lt > max {
            flush(&mut parts, &mut current, &mut tokens, first, n - 1);
            first = n;
        }
        current.push_str(line);
        tokens += lt;
    }
    let last = text.split_inclusive('\n').count().max(first);
    flush(&mut parts, &mut current, &mut tokens, first, last);
    parts
}

impl DigestPlan {
    /// Model calls the plan makes (parts and merges), as [`DigestPlan::calls`] counts.
    pub fn most_calls(&self) -> usize {
        self.calls().len()
    }

    /// Read the result through: each part to notes, then one merge when they are over the
    /// limit (cut at a word if the merge still overran). `progress(done, of)` is told
    /// after each call. A failed call or empty notes end it: the caller keeps the
    /// shortened form instead.
    pub async fn run<S: Summarizer>(
        &self,
        summarizer: &S,
        tok: &dyn Tokenizer,
        mut progress: impl FnMut(usize, usize),
    ) -> Result<Digest, DigestError> {
        self.run_while(summarizer, tok, |done, of| {
            progress(done, of);
            true
        })
        .await
    }

    /// [`DigestPlan::run`], asking `go_on(done, of)` after each part whether to read on:
    /// a reading whose speed is first measured on its own parts stops as soon as it
    /// would take too long ([`DigestError::Stopped`]).
    pub async fn run_while<S: Summarizer>(
        &self,
        summarizer: &S,
        tok: &dyn Tokenizer,
        mut go_on: impl FnMut(usize, usize) -> bool,
    ) -> Result<Digest, DigestError> {
        let (part_system, merge_system) = match self.source {
            Source::ToolResult => (PART_SYSTEM, MERGE_SYSTEM),
            Source::Input => (INPUT_PART_SYSTEM, INPUT_MERGE_SYSTEM),
        };
        let of = self.parts.len();
        let mut notes = Vec::with_capacity(of);
        let mut calls = 0u32;
        for (i, part) in self.parts.iter().enumerate() {
            let cap = (part.tokens / 10).max(MIN_NOTE_TOKENS);
            let words = cap * 3 / 4;
            let user = format!(
                "Task: {}\n{}Part {} of {} of {} (lines {}-{}):\n\n{}\n\n\
                 Notes on this part (at most {words} words):",
                self.purpose,
                self.call_line(),
                i + 1,
                of,
                self.whole(),
                part.first_line,
                part.last_line,
                part.text.trim_end()
            );
            let text = summarizer
                .summarize(SummaryRequest {
                    system: part_system.to_string(),
                    user,
                    num_predict: cap,
                })
                .await?;
            calls += 1;
            if !go_on(i + 1, of) && i + 1 < of {
                return Err(DigestError::Stopped { after: i + 1 });
            }
            // Our tokenizer is not the model's: notes that count over their cap here are
            // cut at a word (they are notes on a result that stays whole on disk).
            let text = cut_to(clean_summary(&text).trim(), cap + cap / 5, tok);
            if !text.trim().is_empty() {
                notes.push(format!(
                    "Lines {}-{}: {}",
                    part.first_line,
                    part.last_line,
                    text.trim()
                ));
            }
        }
        if notes.is_empty() {
            return Err(DigestError::Empty);
        }
        let header = self.header();
        let room = self.limit.saturating_sub(tok.count(&header) + 8);
        // One merge when the notes fit one request; many parts' notes (a long input at a
        // small window) are first merged in groups of neighbours that each fit.
        let mut rounds = 0;
        let body = loop {
            let body = notes.join("\n");
            if tok.count(&body) <= room {
                break body;
            }
            let groups = groups(&notes, self.window, tok);
            rounds += 1;
            if groups.len() <= 1 || rounds > MAX_MERGE_ROUNDS {
                let merged = self.merge(summarizer, merge_system, &body, room).await?;
                calls += 1;
                break cut_to(clean_summary(&merged).trim(), room, tok);
            }
            let cap = (room / groups.len() as u32).max(MIN_NOTE_TOKENS);
            let mut next = Vec::with_capacity(groups.len());
            for group in groups {
                let merged = self.merge(summarizer, merge_system, &group, cap).await?;
                calls += 1;
                let merged = cut_to(clean_summary(&merged).trim(), cap + cap / 5, tok);
                if !merged.trim().is_empty() {
                    next.push(merged);
                }
            }
            if next.is_empty() {
                return Err(DigestError::Empty);
            }
            notes = next;
        };
        if body.is_empty() {
            return Err(DigestError::Empty);
        }
        let text = format!("{}\n{body}", self.header());
        // Unreachable by construction; a digest over its limit is never handed on.
        if tok.count(&text) > self.limit {
            return Err(DigestError::TooLarge);
        }
        Ok(Digest { text, calls })
    }

    /// The model's merge of `notes` in at most `cap` tokens.
    async fn merge<S: Summarizer>(
        &self,
        summarizer: &S,
        system: &str,
        notes: &str,
        cap: u32,
    ) -> Result<String, SummaryError> {
        let user = format!(
            "Task: {}\n{}Notes on the parts of {}:\n\n{notes}\n\n\
             Merged notes (at most {} words):",
            self.purpose,
            self.call_line(),
            self.whole(),
            cap * 3 / 4
        );
        summarizer
            .summarize(SummaryRequest {
                system: system.to_string(),
                user,
                num_predict: cap,
            })
            .await
    }

    /// The tool call as a line of the prompt (none for the person's input).
    fn call_line(&self) -> String {
        match self.source {
            Source::ToolResult => format!("Tool call: {}\n", self.call),
            Source::Input => String::new(),
        }
    }

    /// What the parts are parts of, as the prompts name it.
    fn whole(&self) -> &'static str {
        match self.source {
            Source::ToolResult => "its result",
            Source::Input => "the input",
        }
    }

    /// Tokens of the whole text read (our tokenizer's count).
    pub fn tokens(&self) -> u32 {
        self.parts.iter().map(|p| p.tokens).sum()
    }

    fn header(&self) -> String {
        if self.source == Source::Input {
            return format!(
                "[The input was too long for the context: the model read all {} tokens of it \
                 in {} parts and wrote these notes on each.]",
                human(self.tokens() as usize),
                self.parts.len()
            );
        }
        format!(
            "[Summarized {}: the model read all {} characters in {} parts and wrote these \
             notes. The whole result is saved: call recall with id {} (and \
             start_line/end_line) to read any part of it exactly.]",
            self.kind.label(),
            human(self.original_chars),
            self.parts.len(),
            self.reference
        )
    }
}

/// Why a digest was not made (the shortened form is used instead).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DigestError {
    #[error(transparent)]
    Summary(#[from] SummaryError),
    #[error("the model's notes were empty")]
    Empty,
    #[error("the model's notes did not fit the result's limit")]
    TooLarge,
    #[error("stopped after {after} part(s): reading on would take too long")]
    Stopped { after: usize },
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::summarizer::doubles::Extractive;
    use crate::core::tokens::ByteEstimate;

    fn numbered(lines: usize) -> String {
        (1..=lines)
            .map(|i| {
                format!(
                    "line {i}: the service on port {} answered in {i} ms\n",
                    8000 + i
                )
            })
            .collect()
    }

    #[test]
    fn small_and_enormous_results_are_not_digested() {
        let tok = ByteEstimate;
        let small = numbered(5);
        assert!(plan("run_command", "c".into(), "p", &small, 200, 1000, 3, &tok).is_none());
        // Far more than MAX_PARTS parts of 300 tokens.
        let huge = numbered(2000);
        assert!(plan("run_command", "c".into(), "p", &huge, 200, 300, 3, &tok).is_none());
    }

    #[test]
    fn parts_cover_every_line_once_in_order() {
        let tok = ByteEstimate;
        let text = numbered(300);
        let p = plan("run_command", "c".into(), "why", &text, 200, 700, 9, &tok).unwrap();
        assert!(p.parts.len() > 1 && p.parts.len() <= MAX_PARTS);
        let joined: String = p.parts.iter().map(|x| x.text.as_str()).collect();
        assert_eq!(joined, text);
        assert_eq!(p.parts[0].first_line, 1);
        for w in p.parts.windows(2) {
            assert_eq!(w[0].last_line + 1, w[1].first_line);
        }
        assert_eq!(p.parts.last().unwrap().last_line, 300);
        assert!(p.parts.iter().all(|x| x.tokens <= 700));
    }

    #[test]
    fn a_digest_carries_its_header_and_fits_the_limit() {
        let tok = ByteEstimate;
        let text = numbered(300);
        let p = plan(
            "run_command",
            "run_command make".into(),
            "why does it fail",
            &text,
            400,
            700,
            9,
            &tok,
        )
        .unwrap();
        let s = Extractive::new();
        let mut seen = Vec::new();
        let d = now(p.run(&s, &tok, |a, b| seen.push((a, b)))).unwrap();
        assert!(d.text.starts_with("[Summarized command output"));
        assert!(d.text.contains("recall with id 9"));
        assert!(tok.count(&d.text) <= 400);
        assert_eq!(seen.last(), Some(&(p.parts.len(), p.parts.len())));
        assert!(d.calls as usize >= p.parts.len());
        assert_eq!(d.calls, s.calls());
    }

    /// The doubles answer at once: no runtime needed.
    fn now<F: std::future::Future>(f: F) -> F::Output {
        futures_util::FutureExt::now_or_never(Box::pin(f)).expect("the double never waits")
    }
}
