//! Words that say a value changed ("moved", "now", "instead"): read by extraction, which
//! keeps a change with the sentence it corrects, and by superseding, which decides what
//! it replaces.

/// Words that say a value changed.
const CHANGE_WORDS: &[&str] = &[
    "now",
    "change",
    "changed",
    "changes",
    "move",
    "moved",
    "moving",
    "moves",
    "raise",
    "raised",
    "lower",
    "lowered",
    "instead",
    "final",
    "finally",
    "update",
    "updated",
    "switch",
    "switched",
    "replace",
    "replaced",
    "new",
    "no longer",
    "rather",
    // Corrections and adjustments, as people write them in handover notes and plans.
    "correction",
    "corrected",
    "extended",
    "increased",
    "decreased",
    "reduced",
    "shortened",
    "bumped",
    "revised",
    "postponed",
    "rescheduled",
    // Taking back what was said.
    "scratch",
    "wrong",
    "mistake",
    "misspoke",
    "typo",
    "scrap",
    // "I misread the message" (and "I meant …", see [`meant_instead`]).
    "misread",
    "misheard",
    // The value said right this time: "the actual order number is …".
    "actual",
    "correct",
    // Up and down: "Metacam goes down to 2.0 ml", "the rent went up to £950" (and "put …
    // up to", see [`raised_up_to`]).
    "down to",
    "upped",
    "went up",
    "goes up",
    "gone up",
    "dropped",
    // "actually make that the 14th".
    "make that",
    "halved",
    "doubled",
    "pushed",
    "delayed",
    // German, the language after English that the chats were written in: "Korrektur:",
    // "jetzt 92.000 € statt 85.000 €", "verschoben auf den 28.04.".
    "korrektur",
    "jetzt",
    "statt",
    "anstatt",
    "stattdessen",
    "verschoben",
    "geändert",
    "nicht mehr",
    // Spanish, French, Italian, Portuguese: "ahora son 68 € en vez de 62,50 €", "al final
    // sale a las 17:45" (by "final" above), "maintenant", "invece", "agora".
    "ahora",
    "cambiado",
    "cambia",
    "subido",
    "bajado",
    "retrasado",
    "adelantado",
    "ya no",
    "maintenant",
    "désormais",
    "changé",
    "déplacé",
    "adesso",
    "invece",
    "spostato",
    "cambiato",
    "agora",
    "mudou",
    "mudado",
];

/// Words that take back what was said before ("that was wrong", "correction on the
/// Merck thing: the number I gave you was the quote"): a sentence of them without a
/// value of its own says the next value it is followed by replaces the earlier one.
const TAKE_BACK: &[&str] = &[
    "correction",
    "wrong",
    "mistake",
    "misspoke",
    "typo",
    "scratch",
    "scrap",
    "korrektur",
    "falsch",
    "equivoqué",
    "equivocado",
    "corrijo",
    "corrección",
    "erreur",
    "trompé",
    "sbagliato",
    "errore",
    "enganei",
];

/// Whether `sentence` takes back what was said before.
pub(super) fn takes_back(sentence: &str) -> bool {
    sentence
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| TAKE_BACK.contains(&w))
}

/// Whether `text` says a change. A capitalised word inside a sentence is part of a name,
/// not a change said ("Vets Now in Kingsmead", "New York"): measured, "the out of hours
/// vet is Vets Now in Kingsmead, 01632 960 418" replaced the line naming the dog's vet.
pub(super) fn says_change(text: &str) -> bool {
    let mut lower = String::new();
    for line in text.lines() {
        let mut opens = true;
        for w in line.split_whitespace() {
            let core = w.trim_matches(|c: char| !c.is_alphanumeric());
            let mut chars = core.chars();
            let titled = chars.next().is_some_and(char::is_uppercase)
                && chars.clone().next().is_some()
                && chars.all(|c| !c.is_uppercase());
            if opens || !titled {
                lower.push_str(&core.to_lowercase());
                lower.push(' ');
            }
            opens = w.ends_with(['.', '!', '?', ':', ';']);
        }
    }
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    CHANGE_WORDS.iter().any(|w| holds_phrase(&words, w))
        || raised_up_to(&words)
        || offered_for(&words)
        || meant_instead(&words)
}

/// Whether `words` hold `phrase` (words split by spaces) one after another.
pub(super) fn holds_phrase<S: AsRef<str>>(words: &[S], phrase: &str) -> bool {
    let phrase: Vec<&str> = phrase.split(' ').collect();
    words
        .windows(phrase.len())
        .any(|w| w.iter().map(AsRef::as_ref).eq(phrase.iter().copied()))
}

/// "sorry, I meant €7,800": "I meant" before what the person meant, not before "to"
/// ("I meant to pay the £450 deposit", "it was meant to come Tuesday") or nothing
/// ("this is what I meant").
fn meant_instead(words: &[&str]) -> bool {
    words.windows(3).any(|p| {
        p[0] == "i"
            && p[1] == "meant"
            && ![
                "to", "it", "that", "this", "was", "is", "well", "no", "nothing",
            ]
            .contains(&p[2])
    })
}

/// "she'll do it for £300": a price offered in place of one named before, unless only
/// asked about ("I asked if he'd do it for £300").
fn offered_for(words: &[&str]) -> bool {
    words.windows(3).enumerate().any(|(i, p)| {
        p == ["do", "it", "for"]
            && !words[i.saturating_sub(4)..i]
                .iter()
                .any(|w| ["if", "whether", "asked", "ask"].contains(w))
    })
}

/// Verbs that make a following "up to" a change: "she's put the amlodipine up to 10 mg".
const RAISING: &[&str] = &[
    "put", "puts", "putting", "bumped", "bump", "bumping", "pushed", "push", "raised", "moved",
];

/// "Up to" is a limit ("the column can be used up to 5 times", "sleeps up to 6") unless
/// a raising verb stands a few words before it (measured: as a change word it let a
/// pasted column manual's "used up to 5 times" replace its flow rates).
fn raised_up_to(words: &[&str]) -> bool {
    words.windows(2).enumerate().any(|(i, p)| {
        p == ["up", "to"]
            && words[i.saturating_sub(4)..i]
                .iter()
                .any(|w| RAISING.contains(w))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_said_in_lower_case_or_opening_a_sentence_not_inside_a_name() {
        assert!(says_change("Metacam goes down to 2.0 ml from today"));
        assert!(says_change("Now it's the 14th."));
        assert!(says_change("she's put the amlodipine up to 10 mg"));
        assert!(!says_change("the column can be used up to 5 times"));
        assert!(says_change("Siobhán got back to me, she'll do it for £300"));
        assert!(!says_change(
            "I asked if he'd do it for £300 but he said no"
        ));
        assert!(!says_change("refunds can take up to 10 days"));
        assert!(says_change("sorry, I meant €7,800"));
        assert!(!says_change("I meant to pay the £450 deposit yesterday"));
        assert!(!says_change("the plumber was meant to come Tuesday"));
        assert!(!says_change("this is what I meant"));
        assert!(says_change(
            "Korrektur: der Dachdecker kommt erst am 28.04."
        ));
        assert!(!says_change(
            "the out of hours vet is Vets Now in Kingsmead"
        ));
        assert!(!says_change("the office is in New York, 5th Avenue"));
    }
}
