//! `/check`: a few questions drawn from the person's own facts, asked of the model with
//! exactly the context the next message would get, and graded as the fidelity benchmark
//! grades (`core::answer`). The badge counts what the request carries; this measures
//! whether the model can answer from it.
//!
//! A question is the fact's line with one value blanked ("The plumber is ____, he comes
//! on 12 March."): it needs no model to write, names the fact's subject as a person's
//! question would, and has one right answer. The facts asked about are the folded ones —
//! what compression touched — spread from the oldest to the newest.

use crate::core::answer::{holds, normalize};
use crate::core::engine::{FactPlace, FactRow};
use crate::core::ledger;

/// Questions asked in one check: enough to see a pattern, few enough to wait for.
pub const QUESTIONS: usize = 4;
/// A reply to a blank is a few words.
pub const ANSWER_TOKENS: i32 = 48;

const BLANK: &str = "____";

/// One question about one fact.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// The fact as sent.
    pub fact: String,
    /// The value blanked out: the right answer.
    pub value: String,
    /// What is asked, as the person's message.
    pub question: String,
}

/// A probe and how the model answered it.
#[derive(Debug, Clone, PartialEq)]
pub struct Graded {
    pub probe: Probe,
    pub answer: String,
    pub right: bool,
}

/// Up to [`QUESTIONS`] probes over the folded facts the person stated (forgotten ones
/// aside), spread evenly from the oldest to the newest. None while nothing is folded.
pub fn probes(rows: &[FactRow]) -> Vec<Probe> {
    let folded: Vec<&FactRow> = rows
        .iter()
        .filter(|r| !r.by_model && matches!(r.place, FactPlace::Carried | FactPlace::NotSent))
        .collect();
    let made: Vec<Probe> = folded.iter().filter_map(|r| probe(&r.text)).collect();
    if made.len() <= QUESTIONS {
        return made;
    }
    // Evenly spaced, first and last included.
    (0..QUESTIONS)
        .map(|i| made[i * (made.len() - 1) / (QUESTIONS - 1)].clone())
        .collect()
}

/// The fact with its most specific value (the longest) blanked.
fn probe(fact: &str) -> Option<Probe> {
    let value = ledger::values(fact)
        .into_iter()
        .filter(|v| fact.contains(v.as_str()))
        .max_by_key(|v| v.chars().count())?;
    let cloze = fact.replacen(&value, BLANK, 1);
    Some(Probe {
        question: format!(
            "Quick memory check about what I told you earlier in this conversation. Fill in the blank and reply with the missing words only:\n\"{cloze}\""
        ),
        fact: fact.to_string(),
        value,
    })
}

/// Whether `answer` gives the probe's value, as people write it.
pub fn grade(probe: Probe, answer: String) -> Graded {
    let right = holds(&normalize(&answer), &normalize(&probe.value));
    Graded {
        probe,
        answer,
        right,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::message::MessageId;

    fn row(text: &str, place: FactPlace) -> FactRow {
        FactRow {
            key: text.into(),
            text: text.into(),
            from: Some(MessageId(1)),
            by_model: false,
            place,
            pinned: false,
            edited: false,
        }
    }

    #[test]
    fn a_question_blanks_the_facts_most_specific_value_and_the_answer_is_graded_as_people_write_it()
    {
        let p = probe("The budget for the kitchen is 18,500 EUR, fitting in week 14.").unwrap();
        assert_eq!(p.value, "18,500 EUR", "{p:?}");
        assert!(
            p.question
                .contains("The budget for the kitchen is ____, fitting in week 14.")
        );
        assert!(grade(p.clone(), "€18,500".into()).right);
        assert!(grade(p.clone(), "It was 18500 euros.".into()).right);
        assert!(!grade(p.clone(), "118,500 EUR".into()).right);
        assert!(!grade(p, "I don't know.".into()).right);
        assert!(probe("Sounds good to me, thanks").is_none());
    }

    #[test]
    fn the_questions_are_spread_over_the_folded_facts_only() {
        let mut rows: Vec<FactRow> = (1..=9)
            .map(|i| {
                row(
                    &format!("Room {i} has locker code {}.", 4000 + i * 7),
                    FactPlace::NotSent,
                )
            })
            .collect();
        rows.push(row("Flight FL-20931 leaves at 06:40.", FactPlace::InView));
        rows.push(row("The plumber is Branko.", FactPlace::Forgotten));
        let asked = probes(&rows);
        assert_eq!(asked.len(), QUESTIONS);
        assert_eq!(asked[0].value, "4007");
        assert_eq!(asked[QUESTIONS - 1].value, "4063");
        assert!(
            asked
                .iter()
                .all(|p| !p.fact.contains("FL-") && !p.fact.contains("Branko"))
        );
        assert!(
            probes(&rows[9..]).is_empty(),
            "nothing folded, nothing asked"
        );
    }
}
