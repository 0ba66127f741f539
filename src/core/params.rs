//! A session's own system prompt and sampling parameters (`/system`, `/set`): what the
//! person set for this conversation, beside the app's context instructions and over the
//! config file's `temperature`.
//!
//! They are settings like the model and the context size: held in the session's
//! [`Header`](crate::core::record::Header), changed by a `settings` record that carries
//! the whole set (so replay, fork and the session list fold them with the rest), sent with
//! every chat request, and kept by `/new` and `/fork`. Only the values are checked here;
//! the words that explain a refusal are in the usage the app shows.

use serde::{Deserialize, Serialize};

/// Longest system prompt kept, in characters: it is sent with every request and counted
/// in the budget, so a paste of a whole file is refused rather than filling the context.
pub const MAX_SYSTEM_CHARS: usize = 8_000;

/// What the person set for this session; `None`: the model's default (or the config's).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionParams {
    /// The person's system prompt, sent after the app's own instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i32>,
    /// Ollama's reply cap: tokens, or -1 (no cap) or -2 (until the context is full).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_predict: Option<i32>,
    /// How much a thinking model reasons (`/think`), as Ollama's word ("high", "off", …):
    /// kept in the log so that resume, `/new` and `/fork` go on with it. The app checks the
    /// word; the actor turns it into the request's `think`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think: Option<String>,
    /// `/set verbose` (`/set quiet` ends it), as in `ollama run --verbose`: each reply is
    /// followed by its timing and speed. Nothing is sent for it; it is kept with the rest
    /// so that resume, `/new` and `/fork` go on showing them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verbose: bool,
}

impl SessionParams {
    /// The `num_predict` a chat request carries when `room` tokens are left for the reply.
    /// The person's cap is kept when it fits; one larger than the room is cut to it, since a
    /// longer reply would push the conversation past the context and the server would drop
    /// its start without a word. -1 and -2 are sent as asked (Ollama's "no cap" and "until
    /// the context is full": the person chose them knowingly).
    pub fn reply_cap(&self, room: u32) -> i32 {
        let room = i32::try_from(room.max(1)).unwrap_or(i32::MAX);
        match self.num_predict {
            Some(n) if n > 0 => n.min(room),
            Some(n) => n,
            None => room,
        }
    }

    /// Nothing set: the header leaves the field out.
    pub fn is_empty(&self) -> bool {
        *self == SessionParams::default()
    }

    /// The set with `change` made.
    pub fn with(&self, change: &ParamChange) -> SessionParams {
        let mut p = self.clone();
        match change {
            ParamChange::System(text) => p.system = text.clone(),
            ParamChange::Think(word) => p.think = word.clone(),
            ParamChange::Verbose(on) => p.verbose = *on,
            ParamChange::Set(param, value) => match (param, value) {
                (Param::Temperature, v) => p.temperature = v.map(|v| v.as_f32()),
                (Param::TopP, v) => p.top_p = v.map(|v| v.as_f32()),
                (Param::Seed, v) => p.seed = v.and_then(ParamValue::as_int),
                (Param::NumPredict, v) => p.num_predict = v.and_then(ParamValue::as_int),
            },
        }
        p
    }

    /// The value of `param` as set, if it is.
    pub fn get(&self, param: Param) -> Option<ParamValue> {
        match param {
            Param::Temperature => self.temperature.map(|v| ParamValue::Float(f64::from(v))),
            Param::TopP => self.top_p.map(|v| ParamValue::Float(f64::from(v))),
            Param::Seed => self.seed.map(ParamValue::Int),
            Param::NumPredict => self.num_predict.map(ParamValue::Int),
        }
    }
}

/// A sampling parameter the person may set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Param {
    Temperature,
    TopP,
    Seed,
    NumPredict,
}

impl Param {
    pub const ALL: [Param; 4] = [
        Param::Temperature,
        Param::TopP,
        Param::Seed,
        Param::NumPredict,
    ];

    /// The name Ollama gives it (and `/set` takes).
    pub fn name(self) -> &'static str {
        match self {
            Param::Temperature => "temperature",
            Param::TopP => "top_p",
            Param::Seed => "seed",
            Param::NumPredict => "num_predict",
        }
    }

    /// The values it takes, as a usage says them.
    pub fn range(self) -> &'static str {
        match self {
            Param::Temperature => "a number from 0 to 2",
            Param::TopP => "a number from 0 to 1",
            Param::Seed => "a whole number (32-bit)",
            Param::NumPredict => "a whole number of tokens, -1 (no cap) or -2 (fill the context)",
        }
    }

    /// `top-p` and `topp` are read as `top_p`, any case.
    pub fn parse(name: &str) -> Option<Param> {
        let n = name.trim().to_ascii_lowercase().replace('-', "_");
        Param::ALL
            .into_iter()
            .find(|p| p.name() == n || p.name().replace('_', "") == n)
    }

    /// Check `text` as a value of this parameter.
    pub fn value(self, text: &str) -> Result<ParamValue, String> {
        let t = text.trim();
        let bad = || format!("{} takes {}, not {t:?}", self.name(), self.range());
        match self {
            Param::Temperature | Param::TopP => {
                let max = if self == Param::Temperature { 2.0 } else { 1.0 };
                let v: f64 = t.parse().map_err(|_| bad())?;
                if v.is_finite() && (0.0..=max).contains(&v) {
                    Ok(ParamValue::Float(v))
                } else {
                    Err(bad())
                }
            }
            Param::Seed => t.parse::<i32>().map(ParamValue::Int).map_err(|_| bad()),
            Param::NumPredict => match t.parse::<i32>() {
                Ok(n) if n >= -2 => Ok(ParamValue::Int(n)),
                _ => Err(bad()),
            },
        }
    }
}

/// A checked value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    Float(f64),
    Int(i32),
}

impl ParamValue {
    fn as_f32(self) -> f32 {
        match self {
            ParamValue::Float(v) => v as f32,
            ParamValue::Int(v) => v as f32,
        }
    }

    fn as_int(self) -> Option<i32> {
        match self {
            ParamValue::Int(v) => Some(v),
            ParamValue::Float(_) => None,
        }
    }
}

impl std::fmt::Display for ParamValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // f32 → f64 shows 0.2 as 0.20000000298…: two decimals say what was typed.
            ParamValue::Float(v) => {
                let s = format!("{v:.3}");
                let s = s.trim_end_matches('0').trim_end_matches('.');
                f.write_str(s)
            }
            ParamValue::Int(v) => write!(f, "{v}"),
        }
    }
}

/// One change the person asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamChange {
    /// The system prompt; `None` drops it.
    System(Option<String>),
    /// A parameter; `None` goes back to the default.
    Set(Param, Option<ParamValue>),
    /// `/think`: Ollama's word for how much to reason; `None`: the config's or the model's.
    Think(Option<String>),
    /// `/set verbose` (true) or `/set quiet` (false).
    Verbose(bool),
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_reply_cap_is_the_persons_when_it_fits_the_room() {
        let with = |n: Option<i32>| SessionParams {
            num_predict: n,
            ..SessionParams::default()
        };
        assert_eq!(with(None).reply_cap(900), 900, "by default: the room");
        assert_eq!(
            with(None).reply_cap(0),
            1,
            "never 0 (Ollama's 0 means nothing)"
        );
        assert_eq!(with(Some(200)).reply_cap(900), 200, "a smaller cap is kept");
        assert_eq!(
            with(Some(5000)).reply_cap(900),
            900,
            "a larger one is cut to the room"
        );
        assert_eq!(with(Some(-1)).reply_cap(900), -1, "no cap, as asked");
        assert_eq!(
            with(Some(-2)).reply_cap(900),
            -2,
            "to the context's end, as asked"
        );
    }

    #[test]
    fn values_are_checked_against_their_ranges() {
        let ok = |p: Param, t: &str| p.value(t).unwrap();
        assert_eq!(ok(Param::Temperature, "0.2"), ParamValue::Float(0.2));
        assert_eq!(ok(Param::Temperature, "2"), ParamValue::Float(2.0));
        assert_eq!(ok(Param::TopP, "0"), ParamValue::Float(0.0));
        assert_eq!(ok(Param::Seed, "-42"), ParamValue::Int(-42));
        assert_eq!(ok(Param::NumPredict, "-2"), ParamValue::Int(-2));
        assert_eq!(ok(Param::NumPredict, "256"), ParamValue::Int(256));
        for (p, t) in [
            (Param::Temperature, "2.1"),
            (Param::Temperature, "-0.1"),
            (Param::Temperature, "NaN"),
            (Param::Temperature, "warm"),
            (Param::TopP, "1.5"),
            (Param::Seed, "1.5"),
            (Param::Seed, "99999999999"),
            (Param::NumPredict, "-3"),
            (Param::NumPredict, "10.5"),
        ] {
            let e = p.value(t).unwrap_err();
            assert!(e.contains(p.name()) && e.contains(p.range()), "{e}");
        }
    }

    #[test]
    fn names_are_read_as_ollama_writes_them() {
        assert_eq!(Param::parse("TOP_P"), Some(Param::TopP));
        assert_eq!(Param::parse("top-p"), Some(Param::TopP));
        assert_eq!(Param::parse("numpredict"), Some(Param::NumPredict));
        assert_eq!(Param::parse("mirostat"), None);
    }

    #[test]
    fn a_change_sets_or_resets_one_value_and_keeps_the_rest() {
        let p = SessionParams::default()
            .with(&ParamChange::System(Some("Be brief.".into())))
            .with(&ParamChange::Set(
                Param::Temperature,
                Some(ParamValue::Float(0.2)),
            ))
            .with(&ParamChange::Set(Param::Seed, Some(ParamValue::Int(7))));
        assert_eq!(p.system.as_deref(), Some("Be brief."));
        assert_eq!(p.temperature, Some(0.2));
        assert_eq!(p.get(Param::Temperature).unwrap().to_string(), "0.2");
        assert_eq!(p.seed, Some(7));
        let p = p.with(&ParamChange::Set(Param::Temperature, None));
        assert_eq!((p.temperature, p.seed), (None, Some(7)));
        let p = p
            .with(&ParamChange::System(None))
            .with(&ParamChange::Set(Param::Seed, None));
        assert!(p.is_empty());
        let p = p.with(&ParamChange::Verbose(true));
        assert!(p.verbose && !p.is_empty());
        assert!(p.with(&ParamChange::Verbose(false)).is_empty());
    }

    #[test]
    fn the_set_round_trips_through_json_leaving_unset_values_out() {
        let p = SessionParams {
            temperature: Some(0.2),
            num_predict: Some(-1),
            ..SessionParams::default()
        };
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, r#"{"temperature":0.2,"num_predict":-1}"#);
        assert_eq!(serde_json::from_str::<SessionParams>(&json).unwrap(), p);
        let verbose = SessionParams { verbose: true, ..p };
        let json = serde_json::to_string(&verbose).unwrap();
        assert_eq!(
            json,
            r#"{"temperature":0.2,"num_predict":-1,"verbose":true}"#
        );
        assert_eq!(
            serde_json::from_str::<SessionParams>(&json).unwrap(),
            verbose
        );
    }
}
