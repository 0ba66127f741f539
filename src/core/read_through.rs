//! A message too long for the context — a pipe's stdin, most often — read through by the
//! model in parts rather than clipped: the same reading as a huge tool result
//! (`core::digest`), with the person's request as the question the notes serve, and the
//! request then answered from the notes.
//!
//! Whether to read is a matter of time, as for a tool result: reading costs a model call
//! a part. With the server's speed measured (a session that has replied before), the
//! estimate decides. A first run knows nothing of the server, and neither a slow guess
//! (it would refuse every GPU) nor a fast one (it would start readings that take minutes
//! on a CPU) is right; so a guess only at the speed of a fast GPU ([`FASTEST_PROMPT_TPS`],
//! [`FASTEST_OUTPUT_TPS`]) rules out the readings that are hopeless anyway, and the first
//! part, timed, decides the rest ([`go_on`]): at worst one part's time is spent learning.
//! When it is not read, the engine clips the message's middle as before, and says so.
//!
//! Pure: the plan, the decision and the message sent; running is the actor's.

use crate::core::digest::{DigestPlan, Source, split};
use crate::core::results::Kind;
use crate::core::tokens::Tokenizer;

/// What the person chose for input too long for the context (`--long-input`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LongInput {
    /// Read it through when that is quick enough, else clip it.
    #[default]
    Auto,
    /// Read it through however long it takes.
    Read,
    /// Clip it: its start and its end with a marker between.
    Clip,
}

/// Prompt tokens a second of a fast GPU: no server reads much faster, so a reading over
/// the limit even at this speed is not started.
pub const FASTEST_PROMPT_TPS: f64 = 2_000.0;
/// Output tokens a second of a fast GPU, likewise.
pub const FASTEST_OUTPUT_TPS: f64 = 100.0;

/// What to do with a message too long for the context.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decision {
    /// Read it through; `probe`: the speed is not known, so the first part is timed and
    /// decides whether to read on ([`go_on`]).
    Read { probe: bool },
    /// Reading would take about `secs`, over `limit`: clip. `measured`: from the server's
    /// speed, else from the fastest speed a server has.
    TooSlow {
        secs: u32,
        limit: u32,
        measured: bool,
    },
    /// The person asked for the clip.
    Clip,
}

/// Decide from the person's choice, the estimate at the measured speed (`None`: not
/// measured yet), the estimate at the fastest speed, and the limit in seconds.
pub fn decide(choice: LongInput, measured: Option<f64>, fastest: f64, limit: u32) -> Decision {
    let too_slow = |secs: f64, measured| Decision::TooSlow {
        secs: secs.ceil() as u32,
        limit,
        measured,
    };
    match (choice, measured) {
        (LongInput::Clip, _) => Decision::Clip,
        (LongInput::Read, _) => Decision::Read { probe: false },
        (LongInput::Auto, Some(s)) if s > f64::from(limit) => too_slow(s, true),
        (LongInput::Auto, Some(_)) => Decision::Read { probe: false },
        (LongInput::Auto, None) if fastest > f64::from(limit) => too_slow(fastest, false),
        (LongInput::Auto, None) => Decision::Read { probe: true },
    }
}

/// Seconds `calls` (prompt tokens, output cap) take at the fastest speed a server has.
pub fn fastest_secs(calls: &[(u32, u32)]) -> f64 {
    calls.iter().map(|&(p, o)| weight(p, o)).sum::<f64>()
}

fn weight(prompt: u32, output: u32) -> f64 {
    f64::from(prompt) / FASTEST_PROMPT_TPS + f64::from(output) / FASTEST_OUTPUT_TPS
}

/// The whole reading's time, projected from the first `done` calls of `calls` having
/// taken `elapsed` seconds: each call's share as it would be at a fast GPU's rates.
pub fn projected_secs(calls: &[(u32, u32)], done: usize, elapsed: f64) -> f64 {
    let done_weight = fastest_secs(&calls[..done.min(calls.len())]);
    if done_weight <= 0.0 {
        return elapsed;
    }
    elapsed * fastest_secs(calls) / done_weight
}

/// Whether a probed reading goes on after its first `done` calls took `elapsed` seconds:
/// the projection of the whole stays within `limit`.
pub fn go_on(calls: &[(u32, u32)], done: usize, elapsed: f64, limit: u32) -> bool {
    projected_secs(calls, done, elapsed) <= f64::from(limit)
}

/// Plan the reading of `input` in parts of at most `part_tokens`, its notes within
/// `limit` tokens, serving `request` (the person's words; the input itself when there
/// are none).
pub fn plan(
    request: &str,
    input: &str,
    limit: u32,
    part_tokens: u32,
    tok: &dyn Tokenizer,
) -> DigestPlan {
    let purpose = match request.trim() {
        "" => "Say what this text is and what matters in it.".to_string(),
        r => r.chars().take(400).collect(),
    };
    DigestPlan {
        source: Source::Input,
        reference: 0,
        tool: String::new(),
        call: String::new(),
        purpose,
        kind: Kind::of("", input),
        parts: split(input, part_tokens.max(256), tok),
        limit,
        window: part_tokens.max(256),
        original_chars: input.chars().count(),
    }
}

/// The message the model answers once the input is read: the person's request, then the
/// notes (which say what they are) where the input stood.
pub fn notes_message(request: &str, notes: &str) -> String {
    match request.trim() {
        "" => notes.to_string(),
        r => format!("{r}\n\nInput (from stdin), as notes:\n{notes}"),
    }
}

/// What became of a message too long for the context, for the person to read (on
/// stderr in a pipe).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputOutcome {
    /// Read through: all `tokens` of it in `parts` parts, in `secs` seconds.
    Read {
        parts: usize,
        tokens: u32,
        secs: u32,
    },
    /// Not read: about `secs` seconds, over `limit` (`measured`: at the server's measured
    /// speed, or on the first `after` parts; else at the fastest a server has). Clipped.
    TooSlow {
        secs: u32,
        limit: u32,
        measured: bool,
        after: usize,
    },
    /// The reading failed (a call failed, empty notes): clipped.
    Failed { error: String },
    /// Stop was pressed during the reading: clipped.
    Stopped,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::summarizer::doubles::Extractive;
    use crate::core::tokens::ByteEstimate;

    fn lines(n: usize) -> String {
        (1..=n)
            .map(|i| format!("row {i}: the pump in hall {} runs at {i} rpm\n", i % 7))
            .collect()
    }

    #[test]
    fn the_persons_choice_wins_and_auto_follows_the_clock() {
        use Decision::*;
        assert_eq!(decide(LongInput::Clip, Some(1.0), 1.0, 30), Clip);
        assert_eq!(
            decide(LongInput::Read, Some(900.0), 900.0, 30),
            Read { probe: false }
        );
        assert_eq!(
            decide(LongInput::Auto, Some(10.0), 2.0, 30),
            Read { probe: false }
        );
        assert_eq!(
            decide(LongInput::Auto, Some(41.2), 2.0, 30),
            TooSlow {
                secs: 42,
                limit: 30,
                measured: true
            }
        );
        // Not measured: hopeless even on a fast GPU is refused, else the first part tells.
        assert_eq!(decide(LongInput::Auto, None, 2.0, 30), Read { probe: true });
        assert_eq!(
            decide(LongInput::Auto, None, 75.0, 30),
            TooSlow {
                secs: 75,
                limit: 30,
                measured: false
            }
        );
    }

    #[test]
    fn the_first_part_timed_projects_the_whole() {
        let calls = [(1000, 100), (1000, 100), (1000, 100), (500, 50)];
        // Four parts of 3.5 equal shares; the first took 2 s: about 7 s in all.
        let p = projected_secs(&calls, 1, 2.0);
        assert!((p - 7.0).abs() < 1e-9, "{p}");
        assert!(go_on(&calls, 1, 2.0, 30));
        assert!(!go_on(&calls, 1, 10.0, 30));
        assert!((projected_secs(&calls, 0, 3.0) - 3.0).abs() < 1e-9);
    }

    #[test]
    fn every_line_of_the_input_is_in_one_part_and_the_request_is_the_task() {
        let tok = ByteEstimate;
        let text = lines(400);
        let p = plan("which hall is loudest?", &text, 300, 600, &tok);
        assert_eq!(p.source, Source::Input);
        assert!(p.parts.len() > 3);
        let joined: String = p.parts.iter().map(|x| x.text.as_str()).collect();
        assert_eq!(joined, text);
        assert_eq!(p.purpose, "which hall is loudest?");
        assert_eq!(p.tokens(), p.parts.iter().map(|x| x.tokens).sum::<u32>());
        assert!(
            plan(" ", &text, 300, 600, &tok)
                .purpose
                .starts_with("Say what")
        );
    }

    #[test]
    fn the_notes_say_what_they_are_and_the_request_comes_first() {
        let tok = ByteEstimate;
        let text = lines(300);
        let p = plan("summarise", &text, 400, 600, &tok);
        let s = Extractive::new();
        let d = futures_util::FutureExt::now_or_never(Box::pin(p.run(&s, &tok, |_, _| {})))
            .unwrap()
            .unwrap();
        assert!(d.text.starts_with("[The input was too long"), "{}", d.text);
        assert!(d.text.contains(&format!("in {} parts", p.parts.len())));
        assert!(tok.count(&d.text) <= 400);
        let m = notes_message("summarise", &d.text);
        assert!(m.starts_with("summarise\n\nInput (from stdin), as notes:\n[The input"));
        assert_eq!(notes_message("", &d.text), d.text);
    }

    /// Extractive, keeping the largest prompt it was sent.
    struct Widest(Extractive, std::sync::atomic::AtomicU32);

    impl crate::core::summarizer::Summarizer for Widest {
        async fn summarize(
            &self,
            r: crate::core::summarizer::SummaryRequest,
        ) -> Result<String, crate::core::summarizer::SummaryError> {
            let t = ByteEstimate.count(&r.user);
            self.1.fetch_max(t, std::sync::atomic::Ordering::Relaxed);
            self.0.summarize(r).await
        }
    }

    #[test]
    fn many_parts_notes_are_merged_in_groups_that_each_fit_a_request() {
        // ~30 parts of 256 tokens: their notes together are far over what one request
        // of that window carries.
        let tok = ByteEstimate;
        let p = plan("summarise", &lines(900), 300, 256, &tok);
        assert!(p.parts.len() >= 25, "{}", p.parts.len());
        let s = Widest(Extractive::new(), Default::default());
        let d = futures_util::FutureExt::now_or_never(Box::pin(p.run(&s, &tok, |_, _| {})))
            .unwrap()
            .unwrap();
        assert!(tok.count(&d.text) <= 300);
        assert!(d.calls as usize > p.parts.len() + 1, "{}", d.calls);
        let widest = s.1.into_inner();
        assert!(widest <= 256 + 120, "a merge request of {widest} tokens");
        assert!(p.calls().len() > p.parts.len() + 1);
    }

    #[test]
    fn a_reading_told_to_stop_stops_after_that_part() {
        let tok = ByteEstimate;
        let p = plan("summarise", &lines(300), 400, 600, &tok);
        let s = Extractive::new();
        let r =
            futures_util::FutureExt::now_or_never(Box::pin(p.run_while(&s, &tok, |d, _| d < 1)))
                .unwrap();
        assert_eq!(
            r,
            Err(crate::core::digest::DigestError::Stopped { after: 1 })
        );
        assert_eq!(s.calls(), 1);
    }
}
