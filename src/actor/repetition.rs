//! The repetition guard: a reply that repeats the same lines over and over is stopped.
//!
//! Small models loop: the real 0.5B model, after a tool result, wrote the same call lines
//! again and again until `num_predict` ran out — minutes at a few tokens a second, for
//! nothing. The guard watches the reply's completed lines as they stream and trips when a
//! block of 1 to [`MAX_BLOCK_LINES`] lines has come `limit` times in a row (blank lines
//! aside) and the repeats add up to at least [`MIN_LOOP_CHARS`] characters — so ten
//! closing braces, or a short list of equal items, do not trip it. The actor then stops the
//! stream, keeps what arrived (marked interrupted) and says so in the transcript.
//! `repeat_limit` in the config sets `limit`; 0 turns the guard off.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

/// Repeats of the same lines that stop a reply, unless the config's `repeat_limit` says
/// otherwise.
pub const DEFAULT_REPEAT_LIMIT: usize = 10;
/// The longest repeated block looked for, in lines.
pub const MAX_BLOCK_LINES: usize = 8;
/// Repeats shorter than this in all are not a loop worth stopping.
pub const MIN_LOOP_CHARS: usize = 200;
/// Lines remembered (a repeated short line needs many to reach [`MIN_LOOP_CHARS`]).
const WINDOW: usize = 2048;

/// A loop found: a block of `lines` lines, repeated `times` times in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loop {
    pub lines: usize,
    pub times: usize,
}

/// Watches one stream of text (a reply, or a thinking model's reasoning).
#[derive(Debug, Clone)]
pub struct RepetitionGuard {
    limit: usize,
    /// The line being written (only its hash and length are kept once it is long).
    current: String,
    /// Completed non-blank lines, newest last: (hash, characters).
    lines: VecDeque<(u64, usize)>,
}

/// Lines longer than this are hashed as they stream instead of kept whole.
const KEEP_LINE_BYTES: usize = 4096;

impl RepetitionGuard {
    pub fn new(limit: usize) -> RepetitionGuard {
        RepetitionGuard {
            limit,
            current: String::new(),
            lines: VecDeque::new(),
        }
    }

    /// Take the next piece of the stream; a loop, once one is there.
    pub fn feed(&mut self, delta: &str) -> Option<Loop> {
        if self.limit < 2 {
            return None;
        }
        let mut found = None;
        let mut rest = delta;
        while let Some(nl) = rest.find('\n') {
            if self.current.len() < KEEP_LINE_BYTES {
                self.current.push_str(&rest[..nl]);
            }
            rest = &rest[nl + 1..];
            let line = std::mem::take(&mut self.current);
            if let Some(l) = self.line_done(line.trim()) {
                found = Some(l);
            }
        }
        if self.current.len() < KEEP_LINE_BYTES {
            self.current.push_str(rest);
        }
        found
    }

    fn line_done(&mut self, line: &str) -> Option<Loop> {
        if line.is_empty() {
            return None;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        line.hash(&mut h);
        if self.lines.len() == WINDOW {
            self.lines.pop_front();
        }
        self.lines.push_back((h.finish(), line.chars().count()));
        self.check()
    }

    /// The shortest block, ending at the newest line, repeated `limit` times or more with
    /// enough text in it.
    fn check(&self) -> Option<Loop> {
        let n = self.lines.len();
        for p in 1..=MAX_BLOCK_LINES {
            if n < p * self.limit {
                break;
            }
            // How many lines, from the newest back, equal the line `p` before them.
            let same = (0..n - p)
                .take_while(|k| self.lines[n - 1 - k].0 == self.lines[n - 1 - k - p].0)
                .count();
            let times = 1 + same / p;
            if times < self.limit {
                continue;
            }
            let block: usize = (0..p).map(|k| self.lines[n - 1 - k].1).sum();
            if block * times >= MIN_LOOP_CHARS {
                return Some(Loop { lines: p, times });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(guard: &mut RepetitionGuard, text: &str) -> Option<Loop> {
        // Fed in small pieces, as a stream comes.
        let chars: Vec<char> = text.chars().collect();
        chars
            .chunks(7)
            .filter_map(|c| guard.feed(&c.iter().collect::<String>()))
            .next()
    }

    #[test]
    fn the_same_call_line_again_and_again_is_a_loop() {
        let line = r#"{"name": "read_file", "arguments": {"path": "notes.txt"}}"#;
        let text = format!("I will read it.\n{}", format!("{line}\n").repeat(50));
        let mut g = RepetitionGuard::new(10);
        assert_eq!(
            run(&mut g, &text),
            Some(Loop {
                lines: 1,
                times: 10
            })
        );
    }

    #[test]
    fn a_block_of_lines_repeated_with_blank_lines_between_is_a_loop() {
        let block = "The answer is in the file.\nLet me check the file again.\n\n";
        let mut g = RepetitionGuard::new(10);
        assert_eq!(
            run(&mut g, &block.repeat(30)),
            Some(Loop {
                lines: 2,
                times: 10
            })
        );
    }

    #[test]
    fn ordinary_text_and_short_repeats_are_not_loops() {
        let mut g = RepetitionGuard::new(10);
        let code = format!("fn main() {{\n{}{}", "    {\n".repeat(9), "}\n".repeat(12));
        assert_eq!(run(&mut g, &code), None, "closing braces");
        let mut g = RepetitionGuard::new(10);
        let prose: String = (0..200)
            .map(|i| format!("Line {i} says something new.\n"))
            .collect();
        assert_eq!(run(&mut g, &prose), None);
        let mut g = RepetitionGuard::new(10);
        let list = "- yes\n".repeat(12);
        assert_eq!(run(&mut g, &list), None, "too little text to matter");
    }

    #[test]
    fn a_limit_of_zero_turns_it_off() {
        let mut g = RepetitionGuard::new(0);
        assert_eq!(run(&mut g, &"the same long line again\n".repeat(500)), None);
    }
}
