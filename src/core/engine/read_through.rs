//! Whether a message too long for the context is read through before it is sent (the
//! reading and the rule are `core::read_through`): the engine knows the room a message
//! has, the window a part may take, the server's measured speed and the person's limit
//! (`[tools] digest_max_secs`, the one wait for any reading).

use super::Engine;
use super::digest::{MAX_PART_TOKENS, PART_SHARE};
use crate::core::digest::DigestPlan;
use crate::core::read_through::{self, Decision, LongInput};

/// Tokens kept free beside the notes in the message (the words that introduce them).
const NOTES_MARGIN: u32 = 64;
/// The notes never get less room than this, however small the window.
const MIN_NOTES: u32 = 128;

/// What to do with a message before it is sent.
#[derive(Debug)]
pub enum InputReading {
    /// It fits the room: sent as it is.
    Fits,
    /// Read it through first; `probe`: the first part is timed and decides whether to read
    /// on within `limit` seconds (`read_through::go_on`).
    Read {
        plan: Box<DigestPlan>,
        probe: bool,
        limit: u32,
    },
    /// Sent as it is, which clips its middle; why it is not read.
    Clip(Decision),
}

impl Engine {
    /// How to send `message`, made of the person's `request` and a long `input`: as it
    /// is when it fits, else read through in parts (when `choice` and the clock allow),
    /// else clipped by the turn as any oversized message is.
    pub fn input_reading(
        &self,
        request: &str,
        input: &str,
        message: &str,
        choice: LongInput,
    ) -> InputReading {
        let cal = self.calibration();
        let room = self.budget().room();
        if cal.apply(self.tok.count(message)) <= room {
            return InputReading::Fits;
        }
        // The notes go in whole: under half the room, where the turn clips a message.
        let half_room = (f64::from(room / 2) / cal.factor) as u32;
        let limit = half_room
            .saturating_sub(self.tok.count(request) + NOTES_MARGIN)
            .max(MIN_NOTES);
        let part_tokens = ((f64::from(self.ctx()) * PART_SHARE) as u32).min(MAX_PART_TOKENS);
        let plan = read_through::plan(request, input, limit, part_tokens, self.tok.as_ref());
        let calls: Vec<(u32, u32)> = plan
            .calls()
            .into_iter()
            .map(|(p, o)| (cal.apply(p), o))
            .collect();
        let measured = calls
            .iter()
            .map(|&(p, o)| self.speed.seconds_for(p, o))
            .sum::<Option<f64>>();
        let limit = self.cfg.digest_max_secs;
        match read_through::decide(choice, measured, read_through::fastest_secs(&calls), limit) {
            Decision::Read { probe } => InputReading::Read {
                plan: Box::new(plan),
                probe,
                limit,
            },
            other => InputReading::Clip(other),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::summarizer::doubles::Extractive;
    use crate::core::testing::Harness;
    use crate::core::tokens::ByteEstimate;
    use std::sync::Arc;

    /// About `tokens` tokens of input (4 bytes a token).
    fn input(tokens: usize) -> String {
        (0..tokens / 10)
            .map(|i| format!("row {i:05}: pump ok at {i:04}\n"))
            .collect()
    }

    fn harness() -> Harness<Extractive> {
        Harness::new(2048, Arc::new(ByteEstimate), Extractive::new())
    }

    fn reading(h: &Harness<Extractive>, tokens: usize, choice: LongInput) -> InputReading {
        let i = input(tokens);
        let message = format!("summarise\n\n{i}");
        h.engine.input_reading("summarise", &i, &message, choice)
    }

    /// A server at `prompt_tps` and `output_tps`, as the engine learns it from a reply.
    fn measured(prompt_tps: u64, output_tps: u64) -> Harness<Extractive> {
        let mut h = harness();
        h.measure(prompt_tps, output_tps);
        h
    }

    #[test]
    fn a_message_that_fits_is_sent_as_it_is_whatever_the_choice() {
        let h = harness();
        assert!(matches!(
            reading(&h, 300, LongInput::Read),
            InputReading::Fits
        ));
    }

    #[test]
    fn unmeasured_a_reading_is_probed_unless_it_is_hopeless() {
        let h = harness();
        match reading(&h, 6_000, LongInput::Auto) {
            InputReading::Read { plan, probe, limit } => {
                assert!(probe);
                assert_eq!(limit, 30);
                assert!(plan.parts.len() >= 4, "{}", plan.parts.len());
                // The notes go in whole: under the half of the room where clipping starts.
                assert!(plan.limit < h.engine.budget().room() / 2);
                assert!(plan.parts.iter().all(|p| p.tokens <= 1228));
            }
            other => panic!("{other:?}"),
        }
        // 60,000 tokens take longer than 30 s even on a fast GPU: not started.
        assert!(matches!(
            reading(&h, 60_000, LongInput::Auto),
            InputReading::Clip(Decision::TooSlow {
                measured: false,
                ..
            })
        ));
        // Unless the person asks for it, or for the clip.
        assert!(matches!(
            reading(&h, 60_000, LongInput::Read),
            InputReading::Read { probe: false, .. }
        ));
        assert!(matches!(
            reading(&h, 6_000, LongInput::Clip),
            InputReading::Clip(Decision::Clip)
        ));
    }

    #[test]
    fn measured_the_servers_speed_decides() {
        assert!(matches!(
            reading(&measured(4000, 120), 6_000, LongInput::Auto),
            InputReading::Read { probe: false, .. }
        ));
        match reading(&measured(60, 8), 6_000, LongInput::Auto) {
            InputReading::Clip(Decision::TooSlow {
                secs,
                limit,
                measured: true,
            }) => assert!(secs > limit, "{secs} s"),
            other => panic!("{other:?}"),
        }
    }
}
