//! What a short message says to the other side rather than about the world: a yes that
//! confirms what the model just said, a letter's greeting or sign-off.

use super::patterns::re;
use regex::Regex;
use std::sync::LazyLock;

/// Words that close a letter ("Kind regards", "Cheers").
const SIGN_OFFS: &str = r"best|best\s+wishes|(?:kind|warm|best|many)\s+regards|regards|cheers|thanks|many\s+thanks|thank\s+you|yours(?:\s+(?:sincerely|truly|faithfully))?|sincerely|all\s+the\s+best";
/// Up to three capitalised words: whom a greeting names.
const NAMED: &str = r"\p{Lu}[\p{L}'’-]*(?:\s+\p{Lu}[\p{L}'’-]*){0,2}";

/// A letter's greeting or sign-off and whom it names, closed by a comma or "!" ("Hi
/// Mateo,", "Dear Ms Løvås,", "Kind regards, Bjørg"; not "Best Western Plus"): measured,
/// a pasted offer letter put "Hi Mateo," in the ledger for its name. The signature's
/// name on a line of its own stays: it says who wrote.
pub(super) fn salutation(sentence: &str) -> bool {
    static GREETING: LazyLock<Regex> = LazyLock::new(|| {
        re(&format!(
            r"^(?i:hi|hello|hey|hiya|dear|good\s+(?:morning|afternoon|evening)|morning|{SIGN_OFFS})(?:\s*,?\s+(?:(?i:mr|mrs|ms|dr)\.?\s+)?{NAMED})?\s*[,!]$|^(?i:{SIGN_OFFS}),\s*{NAMED}$"
        ))
    });
    GREETING.is_match(sentence.trim())
}

/// Words a short answer opens with when the person confirms what the model just said:
/// "yes", "exactly", "sounds good", "let's go with that".
const CONFIRMATIONS: &[&str] = &[
    "yes",
    "yeah",
    "yep",
    "yup",
    "correct",
    "exactly",
    "right",
    "that's right",
    "thats right",
    "that is right",
    "perfect",
    "agreed",
    "sounds good",
    "sounds right",
    "confirmed",
    "let's do that",
    "lets do that",
    "let's go with that",
    "lets go with that",
    "go with that",
    "do that",
    "that works",
    "works for me",
    "spot on",
    "👍",
];
/// A confirmation is a short answer: past this many words it is a message of its own.
const CONFIRMATION_WORDS: usize = 12;

/// Whether the person's `text` confirms the model's message before it (a short answer
/// that opens with a yes): the model's facts there become the person's. Without it a
/// model line never enters the ledger — an echo adds nothing, an invention is not a fact.
pub fn confirms(text: &str) -> bool {
    let t = text.trim().to_lowercase();
    if t.is_empty() || t.split_whitespace().count() > CONFIRMATION_WORDS || t.contains('?') {
        return false;
    }
    let t = t.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '👍' && c != '\'');
    CONFIRMATIONS.iter().any(|c| {
        t.strip_prefix(c).is_some_and(|rest| {
            rest.is_empty() || !rest.starts_with(|ch: char| ch.is_alphanumeric())
        })
    }) && !t.starts_with("yes but")
        && !t.starts_with("right but")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_letters_greeting_and_sign_off_name_no_fact() {
        for greeting in [
            "Dear Ms Løvås,",
            "Best regards, Bjørg",
            "Thanks Sam!",
            "Hi,",
        ] {
            assert!(salutation(greeting), "{greeting}");
        }
        for said in [
            "Dear Sam is the landlord",
            "Thanks to Sam the van is booked",
            "Cheers at 8",
            // A name answered alone, with no comma or "!", may be the answer.
            "Best Western Plus",
            "Hello Fresh",
        ] {
            assert!(!salutation(said), "{said}");
        }
    }

    #[test]
    fn a_short_yes_confirms_and_anything_else_does_not() {
        for yes in [
            "yes",
            "Yes, exactly.",
            "yep!",
            "Correct",
            "sounds good, book it",
            "👍",
            "That's right.",
            "perfect, let's go with that",
        ] {
            assert!(confirms(yes), "{yes}");
        }
        for no in [
            "",
            "no, the dinner is on Friday",
            "yesterday we said Friday",
            "rightly or wrongly, I picked the blue one",
            "yes but the bus leaves at 9",
            "is that right?",
            "ok",
            "yes I think so, although honestly I am not sure we ever agreed on the venue or the date or the time",
        ] {
            assert!(!confirms(no), "{no}");
        }
    }
}
