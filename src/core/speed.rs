//! How fast the model server is, and how much of its time compression takes: learned from
//! what the server reports about its replies and how long compressions took, so the
//! engine can weigh a model call before it asks for one.
//!
//! Two uses: upkeep of older checkpoints (aging, merging) is asked of the model only while
//! compression stays within [`COMPRESSION_SHARE`] of the server's busy time — otherwise
//! the summaries are shortened without it — and a huge tool result is read through only
//! when that would take less than the person's limit (`Engine::digest_plan`).
//!
//! Prompt speed is the slowest recent reading: a server that reports cached prompt tokens
//! as evaluated makes most readings look fast, but a summary request is never cached.
//! Runtime only (not in the log): a resumed session learns again from its first replies.
//! The same figures of one reply are what `/set verbose` shows after it.

use std::collections::VecDeque;
use std::time::Duration;

/// Share of the server's busy time compression may take before upkeep goes mechanical.
pub const COMPRESSION_SHARE: f64 = 0.15;
/// Readings kept.
const SAMPLES: usize = 16;
/// Prompt readings below this many tokens say little about the rate.
const MIN_PROMPT_TOKENS: u32 = 128;
/// Output readings below this many tokens say little about the rate.
const MIN_OUTPUT_TOKENS: u32 = 16;

/// What the server said about one reply (Ollama's counts and durations). Durations stay
/// as precise as the server's nanoseconds: a cached prompt takes well under a
/// millisecond, and a rate from whole milliseconds would be off by half.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CallTiming {
    pub prompt_tokens: Option<u32>,
    pub prompt_time: Option<Duration>,
    pub output_tokens: Option<u32>,
    pub output_time: Option<Duration>,
    /// The whole call as the server timed it (or as the client waited for it).
    pub total_time: Option<Duration>,
    /// Loading the model into memory, part of the total (Ollama's `load_duration`).
    pub load_time: Option<Duration>,
}

/// Tokens a second, when both figures are there and the time is not zero.
fn rate(tokens: Option<u32>, time: Option<Duration>) -> Option<f64> {
    let (tokens, secs) = (tokens?, time?.as_secs_f64());
    (secs > 0.0).then(|| f64::from(tokens) / secs)
}

impl CallTiming {
    /// The prompt's evaluation rate, tokens a second.
    pub fn prompt_rate(&self) -> Option<f64> {
        rate(self.prompt_tokens, self.prompt_time)
    }

    /// The reply's generation rate, tokens a second.
    pub fn output_rate(&self) -> Option<f64> {
        rate(self.output_tokens, self.output_time)
    }
}

/// The server's speed and where its time went.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerSpeed {
    prompt_tps: VecDeque<f64>,
    output_tps: VecDeque<f64>,
    /// Milliseconds spent on replies and on compression since the session started here.
    reply_ms: u64,
    compression_ms: u64,
}

fn push(q: &mut VecDeque<f64>, v: f64) {
    if v.is_finite() && v > 0.0 {
        if q.len() == SAMPLES {
            q.pop_front();
        }
        q.push_back(v);
    }
}

impl ServerSpeed {
    /// A reply ended with these figures.
    pub fn reply(&mut self, t: CallTiming) {
        if let Some(tps) = t.prompt_rate()
            && t.prompt_tokens.unwrap_or(0) >= MIN_PROMPT_TOKENS
        {
            push(&mut self.prompt_tps, tps);
        }
        if let Some(tps) = t.output_rate()
            && t.output_tokens.unwrap_or(0) >= MIN_OUTPUT_TOKENS
        {
            push(&mut self.output_tps, tps);
        }
        let total = t
            .total_time
            .or_else(|| Some(t.prompt_time? + t.output_time?))
            .unwrap_or_default();
        let ms = u64::try_from(total.as_millis()).unwrap_or(u64::MAX);
        self.reply_ms = self.reply_ms.saturating_add(ms);
    }

    /// A compression took this long.
    pub fn compression(&mut self, ms: u64) {
        self.compression_ms = self.compression_ms.saturating_add(ms);
    }

    /// Seconds a call reading `prompt` tokens and writing `output` would take; `None`
    /// until the server has been seen doing both.
    pub fn seconds_for(&self, prompt: u32, output: u32) -> Option<f64> {
        let p = self.prompt_tps.iter().copied().reduce(f64::min)?;
        let mut out: Vec<f64> = self.output_tps.iter().copied().collect();
        out.sort_by(f64::total_cmp);
        let o = *out.get(out.len() / 2)?;
        Some(f64::from(prompt) / p + f64::from(output) / o)
    }

    /// Whether `extra_secs` more of compression keeps it within its share of the busy
    /// time (counting the extra as busy time too). True while nothing is known.
    pub fn affords(&self, extra_secs: f64) -> bool {
        let busy = (self.reply_ms + self.compression_ms) as f64 / 1000.0;
        if busy <= 0.0 {
            return true;
        }
        let compression = self.compression_ms as f64 / 1000.0 + extra_secs;
        compression <= COMPRESSION_SHARE * (busy + extra_secs)
    }

    /// Share of the busy time spent compressing so far.
    pub fn compression_share(&self) -> f64 {
        let busy = self.reply_ms + self.compression_ms;
        if busy == 0 {
            0.0
        } else {
            self.compression_ms as f64 / busy as f64
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn reply(prompt: u32, prompt_ms: u64, out: u32, out_ms: u64) -> CallTiming {
        let ms = Duration::from_millis;
        CallTiming {
            prompt_tokens: Some(prompt),
            prompt_time: Some(ms(prompt_ms)),
            output_tokens: Some(out),
            output_time: Some(ms(out_ms)),
            total_time: Some(ms(prompt_ms + out_ms)),
            load_time: None,
        }
    }

    #[test]
    fn rates_come_from_the_servers_own_durations() {
        let t = CallTiming {
            prompt_tokens: Some(26),
            prompt_time: Some(Duration::from_micros(6_500)),
            output_tokens: Some(290),
            output_time: Some(Duration::from_millis(5_800)),
            ..CallTiming::default()
        };
        assert!((t.prompt_rate().unwrap() - 4_000.0).abs() < 1e-6);
        assert!((t.output_rate().unwrap() - 50.0).abs() < 1e-6);
        let nothing = CallTiming {
            output_tokens: Some(3),
            output_time: Some(Duration::ZERO),
            ..CallTiming::default()
        };
        assert_eq!((nothing.prompt_rate(), nothing.output_rate()), (None, None));
    }

    #[test]
    fn the_slowest_prompt_reading_and_the_median_output_rate_set_the_estimate() {
        let mut s = ServerSpeed::default();
        assert_eq!(s.seconds_for(100, 10), None);
        // A cached prompt looks fast (1,000 tokens in 0.1 s); an uncached one 50/s.
        s.reply(reply(1000, 100, 80, 10_000));
        s.reply(reply(1000, 20_000, 80, 10_000));
        s.reply(reply(40, 1, 8, 1)); // too small to say anything
        let secs = s.seconds_for(500, 40).unwrap();
        assert!((secs - (10.0 + 5.0)).abs() < 0.01, "{secs}");
    }

    #[test]
    fn compression_is_afforded_within_its_share_of_the_busy_time() {
        let mut s = ServerSpeed::default();
        assert!(s.affords(100.0), "nothing known: the model may be asked");
        s.reply(reply(1000, 5_000, 100, 5_000)); // 10 s of replies
        assert!(s.affords(1.0));
        assert!(!s.affords(5.0));
        s.compression(1_000);
        assert!((s.compression_share() - 1.0 / 11.0).abs() < 1e-9);
        assert!(!s.affords(1.0));
    }
}
