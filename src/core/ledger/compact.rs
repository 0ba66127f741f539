//! Compaction: a ledger line in as few tokens as keep its subject beside its value.
//!
//! A fact is worth its subject and its value, not the sentence it came in: "Note 13:
//! service-13 listens on port 7130 and its config is /etc/service-13/config.yaml." is
//! kept as "service-13 listens on port 7130 and config /etc/service-13/config.yaml".
//! [`Form::Plain`] drops what only carries the conversation — labels and greetings
//! that open a line ("Note 13:", "Hi!", "Before I forget:"), articles, pronouns,
//! copulas and hedges — never a word that is or holds a value. [`Form::Tight`] also
//! cuts the words far from the values, for a ledger that is full. Both are mechanical
//! and deterministic, applied when the ledger is rendered; the stored line is as said.

use super::values::value_spans;
use super::weight::{Weight, value_weight};
use crate::core::prose::abbreviation;
use regex::Regex;
use std::sync::LazyLock;

/// How hard a line is compacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Form {
    /// Labels and filler words out.
    Plain,
    /// Plain, and only a few words around the values.
    Tight,
}

/// Words kept before the first value and, at most, after the last in [`Form::Tight`]
/// (those after stop where the value's clause does).
const TIGHT_BEFORE: usize = 8;
const TIGHT_AFTER: usize = 3;
/// Words kept before each later value in [`Form::Tight`] when the values stand far apart.
const TIGHT_BETWEEN: usize = 6;
/// Fewer words than this left out between two values are not worth a "…".
const MIN_GAP: usize = 4;
/// Words a clause needs before its value to hold the value's subject; fewer, and
/// [`Form::Tight`] reaches back past the clause's start ("the fee, £145").
const MIN_SUBJECT: usize = 2;
/// Words [`Form::Tight`] also drops: they join the sentence, the subject and value say
/// the fact without them ("listens on port 8443" → "listens port 8443"). "from", "to"
/// and "not" stay: they say which value is which.
const SOFT: &[&str] = &[
    "that", "which", "who", "for", "of", "with", "by", "in", "on", "at", "and", "then", "now",
    "whole", "all", "some", "any", "this", "these", "those", "decided", "agreed",
];

/// What opens a line without saying anything about its fact: a numbered label, a list
/// number, a greeting, a discourse marker. Taken off repeatedly ("OK so, note 3: …").
static LEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)^(?:",
        r"(?:note|fact|item|point|todo|fyi|ps|p\.s\.|update|reminder|nb|n\.b\.)\s*#?\d*\s*[:.)\-–—]\s*",
        r"|\d+\s*[.):]\s+|#\d+\s*[:.)\-]?\s*",
        r"|(?:hi|hey|hello|ok|okay|so|also|and|noted|great|cool|thanks|thank you|alright|right|well|oh|btw|by the way|anyway|one more thing|another thing|first thing|first things first|before i forget|just so you know|for the record|quick note|heads up|fyi)\b[\s,:;!.\-–—]*",
        r")",
    ))
    .unwrap_or_else(|e| panic!("bad built-in regex: {e}"))
});

/// Words that carry the conversation, not the fact (compared in lower case, without
/// the punctuation around them).
const FILLER: &[&str] = &[
    "a",
    "an",
    "the",
    "our",
    "my",
    "your",
    "its",
    "their",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "just",
    "really",
    "actually",
    "basically",
    "please",
    "i",
    "we",
    "i'm",
    "we're",
    "it's",
    "that's",
    "there's",
    "think",
    "guess",
    "believe",
    "pretty",
    "quite",
    "very",
    "also",
    "um",
    "uh",
    "like,",
    "currently,",
    // German and Spanish articles, pronouns and copulas, which cost more tokens than
    // English ones: "Das Angebot für die Fenster liegt bei 8.940 €".
    "der",
    "die",
    "das",
    "den",
    "dem",
    "ein",
    "eine",
    "einen",
    "ist",
    "sind",
    "wir",
    "ich",
    "el",
    "los",
    "las",
    "una",
    "es",
];

/// A word that ends a clause: what follows it is another thing said ("St." and "approx."
/// end nothing).
fn ends_clause(word: &str) -> bool {
    (word.ends_with([',', ';', '.', ':', '!', '?', ')']) || ["-", "–", "—"].contains(&word))
        && !abbreviation(word)
}

/// A stop stronger than a comma: what comes before it holds its own subject ("Søren has
/// the keys, he opens up since …" is one thing said; "… works): the fee is £145" two).
fn ends_sentence_part(word: &str) -> bool {
    word.ends_with([';', '.', ':', '!', '?', ')']) && !abbreviation(word)
}

/// `text` compacted to `form`.
pub fn compact(text: &str, form: Form) -> String {
    let mut rest = text.trim();
    while let Some(m) = LEAD.find(rest) {
        if m.end() == 0 || m.end() >= rest.len() {
            break;
        }
        rest = rest[m.end()..].trim_start();
    }
    let spans = value_spans(rest);
    if spans.is_empty() {
        return text.trim().to_string();
    }
    // A word is part of a value when it overlaps where one stands ("a" in "100 requests a
    // minute" stays).
    let base = rest.as_ptr() as usize;
    let within = |w: &str, spans: &[(usize, usize, String)]| {
        let at = w.as_ptr() as usize - base;
        spans.iter().any(|(a, b, _)| at < *b && *a < at + w.len())
    };
    // A quotation is said as it was: a title or a text quoted ("the talk is called "Lies
    // My Profiler Told Me"") loses no word (measured: "Lies Profiler Told Me").
    let quoted = quotations(rest);
    let holds_value = |w: &str| within(w, &spans) || within(w, &quoted);
    // Tight keeps the words around the line's weightiest values: beside "charged £180
    // for the roller", the names told along the way ("Ackroyd's", "Tomasz") are not what
    // the line is kept for, and a window spanning them all keeps the whole ramble.
    // (Weighed only for Tight: the plain form keeps every value.)
    let weights: Vec<Weight> = if form == Form::Tight {
        spans
            .iter()
            .map(|(a, b, v)| value_weight(rest, *a, *b, v))
            .collect()
    } else {
        Vec::new()
    };
    let top = weights.iter().copied().max();
    let of_weight = |keep: &dyn Fn(Weight) -> bool| -> Vec<(usize, usize, String)> {
        spans
            .iter()
            .zip(&weights)
            .filter(|(_, w)| keep(**w))
            .map(|(s, _)| s.clone())
            .collect()
    };
    let anchors = of_weight(&|w| Some(w) == top);
    let anchored = |w: &str| within(w, &anchors);
    // Values that are more than a name told along the way: kept wherever they stand
    // inside the window.
    let firm = of_weight(&|w| w >= Weight::Soft && w != Weight::Names || Some(w) == top);
    let firmly = |w: &str| within(w, &firm);
    let all: Vec<&str> = rest.split_whitespace().collect();
    // A small word between two values joins them into one ("Friday the 11th"): kept.
    let joins =
        |i: usize| i > 0 && i + 1 < all.len() && holds_value(all[i - 1]) && holds_value(all[i + 1]);
    let mut words: Vec<&str> = all
        .iter()
        .enumerate()
        .filter(|&(i, w)| {
            let lower = w
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase();
            holds_value(w)
                || joins(i)
                || !(FILLER.contains(&lower.as_str())
                    || form == Form::Tight && SOFT.contains(&lower.as_str()))
        })
        .map(|(_, w)| *w)
        .collect();
    if form == Form::Tight
        && let (Some(first), Some(last)) = (
            words.iter().position(|w| anchored(w)),
            words.iter().rposition(|w| anchored(w)),
        )
    {
        // Before the first value, its own part of the sentence: "(… answers emails if the
        // wifi at the beach bar works): the league registration fee is £145" keeps
        // "league registration fee £145" — unless the part is too short to hold a subject.
        let clause = words[..first]
            .iter()
            .rposition(|w| ends_sentence_part(w))
            .map_or(0, |i| i + 1);
        let from = if first.saturating_sub(clause) >= MIN_SUBJECT {
            clause.max(first.saturating_sub(TIGHT_BEFORE))
        } else {
            first.saturating_sub(TIGHT_BEFORE)
        };
        // After the last value, the words that finish its clause ("Frau Petrović has
        // our spare key now, for deliveries…" keeps "has spare key"): the subject may
        // follow its value. A clause that ends at the value ends the line: measured with
        // long replies (a small room), words kept past it cost two facts of sixteen.
        let mut to = last + 1;
        while !ends_clause(words[last]) && to < words.len() && to <= last + TIGHT_AFTER {
            to += 1;
            if ends_clause(words[to - 1]) {
                break;
            }
        }
        // Between two values far apart, only the words that lead to the later one: "I
        // loaded 20 µL per lane, ran it at 120 V … (a story) … Minh said the anti-His has
        // to go 1:500" keeps both ends and drops the story between.
        let mut kept: Vec<&str> = Vec::with_capacity(to - from);
        let mut next = from;
        for i in from..to {
            if !firmly(words[i]) {
                continue;
            }
            // Words between this value and the one before: all of them when few, else
            // only those that lead to it.
            let lead = if next > from && i - next > TIGHT_BETWEEN + MIN_GAP {
                kept.push("…");
                i - TIGHT_BETWEEN
            } else {
                next
            };
            kept.extend(&words[lead..=i]);
            next = i + 1;
        }
        kept.extend(&words[next..to]);
        let mut shown: Vec<&str> = Vec::with_capacity(kept.len());
        for w in kept {
            // One mark where words were left out (the line's own "…" included).
            if w != "…" || shown.last().is_some_and(|l| *l != "…") {
                shown.push(w);
            }
        }
        words = shown;
    }
    let mut out = words.join(" ");
    while out.ends_with(['.', '!', ';', ',', ':']) {
        out.pop();
    }
    if out.is_empty() {
        text.trim().to_string()
    } else {
        out
    }
}

/// Where quotations stand in `text` (byte ranges, marks included): between straight or
/// curly double quotes, or single quotes that open after a space and close before one
/// (an apostrophe in "it's" opens nothing, nor an inch mark in "27\"").
fn quotations(text: &str) -> Vec<(usize, usize, String)> {
    static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:^|[\s(])"[^"\s][^"\n]{0,199}"|“[^”\n]{1,200}”|(?:^|\s)'[^'\s][^'\n]{0,199}'(?:[\s.,;:!?)]|$)"#)
            .unwrap_or_else(|e| panic!("bad built-in regex: {e}"))
    });
    QUOTED
        .find_iter(text)
        .map(|m| (m.start(), m.end(), String::new()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_filler_go_the_subject_and_values_stay() {
        assert_eq!(
            compact(
                "Note 13: service-13 listens on port 7130 and its config is /etc/service-13/config.yaml.",
                Form::Plain
            ),
            "service-13 listens on port 7130 and config /etc/service-13/config.yaml"
        );
        assert_eq!(
            compact(
                "Hi! First thing: our cache service (Redis) listens on port 6379.",
                Form::Plain
            ),
            "cache service (Redis) listens on port 6379"
        );
        assert_eq!(
            compact(
                "OK so, before I forget: the NAS is at 192.168.40.12.",
                Form::Plain
            ),
            "NAS at 192.168.40.12"
        );
        // German and Spanish articles and copulas go too.
        assert_eq!(
            compact(
                "Das Angebot für die Fenster liegt bei 8.940 € inkl. MwSt.",
                Form::Plain
            ),
            "Angebot für Fenster liegt bei 8.940 € inkl. MwSt"
        );
        assert_eq!(
            compact("El menú es de 68 € por persona.", Form::Plain),
            "menú de 68 € por persona"
        );
        // A value is never dropped, even when it looks like a filler word.
        assert_eq!(compact("Version a is 1.2.", Form::Plain), "Version 1.2");
        // No value: the line stays as it was.
        assert_eq!(compact("It is.", Form::Plain), "It is.");
    }

    #[test]
    fn tight_keeps_a_few_words_around_the_values() {
        let line = "We talked for a while and in the end we agreed that the payments gateway for the whole shop listens on port 8443 from now on";
        let tight = compact(line, Form::Tight);
        assert!(
            tight.contains("gateway") && tight.contains("8443"),
            "{tight}"
        );
        assert!(tight.split_whitespace().count() <= TIGHT_BEFORE + TIGHT_AFTER + 1);
        assert!(tight.len() < compact(line, Form::Plain).len());
    }

    #[test]
    fn tight_keeps_the_clause_of_the_weightiest_value() {
        // Names told along the way do not stretch the window past the amount.
        let roller = compact(
            "the roller's back from Ackroyd's, Jürgen fixed the clutch and charged £180 for the roller, which the treasurer says is fine and Tomasz says is daylight robbery",
            Form::Tight,
        );
        assert!(
            roller.contains("£180") && roller.contains("roller"),
            "{roller}"
        );
        assert!(!roller.contains("Tomasz"), "{roller}");
        // The value's own part of the sentence, after a bracket or colon.
        let fee = compact(
            "first thing Chris left me (old secretary, now retired in Alicante, answers emails if the wifi at the beach bar works): the league registration fee is £145 and it has to be in by the end of the month",
            Form::Tight,
        );
        assert!(fee.starts_with("league registration fee £145"), "{fee}");
        // "St." ends no clause: the subject before it stays.
        let nets = compact(
            "since the winter nets at St. Wilfrid's are booked under ref NX-3307 for Tuesdays",
            Form::Tight,
        );
        assert!(
            nets.contains("winter nets") && nets.contains("NX-3307"),
            "{nets}"
        );
        // A name is the value when nothing weightier stands beside it.
        let keys = compact(
            "Søren Dahl has the pavilion keys, he opens up on match days and has done since approx. 1994, so don't even suggest a key safe",
            Form::Tight,
        );
        assert!(keys.contains("Søren Dahl has pavilion keys"), "{keys}");
    }

    #[test]
    fn tight_leaves_out_a_story_between_two_values_far_apart() {
        let blot = compact(
            "I loaded 20 µL per lane like Minh said, ran it at 120 V for 90 min, transfer looked fine on the Ponceau, and then the blot came out completely black, like someone had gone over it with a Sharpie, Minh took one look and said the anti-His has to go 1:500 not 1:200 like the old protocol",
            Form::Tight,
        );
        for kept in ["20 µL", "120", "anti-His has to go 1:500 not 1:200"] {
            assert!(blot.contains(kept), "{kept}: {blot}");
        }
        assert!(blot.contains(" … ") && !blot.contains("Sharpie"), "{blot}");
        // Every value inside the window stays, a weak one too.
        let slot = compact(
            "Ólafur emailed that a new group has bought priority time, so my LSM 980 slot is Tuesday afternoons from next week on, same weekly confirm-or-lose-it rule",
            Form::Tight,
        );
        assert!(slot.contains("980 slot Tuesday"), "{slot}");
    }

    #[test]
    fn a_quotation_and_a_word_joining_two_values_are_kept() {
        // Measured: "Lies Profiler Told Me", "answer by Friday 11th".
        let talk = compact(
            "the talk is called \"Lies My Profiler Told Me\" and my submission id is PCN-27-0193",
            Form::Plain,
        );
        assert!(talk.contains("\"Lies My Profiler Told Me\""), "{talk}");
        assert!(!talk.starts_with("the "), "{talk}");
        let curly = compact(
            "the motto is “Do It Right The First Time” since 2019",
            Form::Plain,
        );
        assert!(curly.contains("“Do It Right The First Time”"), "{curly}");
        let single = compact(
            "the password is 'the blue door' and it's on the 3rd floor",
            Form::Plain,
        );
        assert!(single.contains("'the blue door'"), "{single}");
        // The apostrophes of "it's" and "Sam's" open no quotation.
        assert!(!single.contains("it's"), "{single}");
        assert_eq!(
            compact("Marésia wants an answer by Friday the 11th", Form::Plain),
            "Marésia wants answer by Friday the 11th"
        );
    }

    #[test]
    fn compacting_costs_fewer_tokens() {
        use crate::core::tokens::{Tiktoken, Tokenizer};
        let tok = Tiktoken::new().unwrap_or_else(|e| panic!("{e}"));
        let lines: Vec<String> = (1..=24)
            .map(|k| {
                format!(
                    "Note {k}: service-{k} listens on port {} and its config is /etc/service-{k}/config.yaml.",
                    7000 + k * 10
                )
            })
            .collect();
        let whole: u32 = lines.iter().map(|l| tok.count(l) + 2).sum();
        let plain: u32 = lines
            .iter()
            .map(|l| tok.count(&compact(l, Form::Plain)) + 2)
            .sum();
        assert!(plain * 100 <= whole * 85, "{plain} of {whole}");
    }
}
