//! Extraction: the sentences of a message that state a hard value, cut to a short window
//! around their values. Mechanical (no model call), so replay extracts the same lines.

use super::LedgerLine;
use super::change::{says_change, takes_back};
use super::courtesy;
use super::values::{Kind, kind, value_spans, values};
use crate::core::prose::{asks, bare, premise, split_sentences};

/// Words of context kept before the first value and after the last.
const WORDS_BEFORE: usize = 12;
const WORDS_AFTER: usize = 8;

/// The sentences of one line, split as every reader of sentences splits them (not at
/// "Dr." or "No. 12"): measured, a split at "Mr." left "Müller from No. 12 is doing
/// our plants" as two lines, neither of them the fact.
pub(super) fn line_sentences(line: &str) -> Vec<&str> {
    split_sentences(line)
}

/// Sentences of `text`: its lines' sentences, bare.
fn sentences(text: &str) -> Vec<&str> {
    text.lines()
        .flat_map(line_sentences)
        .map(bare)
        .filter(|s| !s.is_empty())
        .collect()
}

/// A sentence cut to a window around its values (whole words).
fn window(sentence: &str, values: &[String]) -> String {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    let hit = |w: &&str| {
        values.iter().any(|v| {
            w.contains(v.as_str())
                || v.contains(w.trim_matches(|c: char| !c.is_alphanumeric())) && w.len() > 1
        })
    };
    let first = words.iter().position(hit).unwrap_or(0);
    let last = words
        .iter()
        .rposition(hit)
        .unwrap_or(words.len().saturating_sub(1));
    let from = first.saturating_sub(WORDS_BEFORE);
    let to = (last + WORDS_AFTER + 1).min(words.len());
    let mut out = words[from..to].join(" ");
    if from > 0 {
        out.insert_str(0, "… ");
    }
    if to < words.len() {
        out.push_str(" …");
    }
    out
}

/// Words that open a sentence about something the sentence before named ("It exposes
/// 9100", "that one's on 8081").
const BACK_REFERENCES: &[&str] = &[
    "it", "its", "it's", "that", "that's", "this", "these", "those", "they", "they're", "their",
    "there", "he", "she", "his", "her", "which", "both",
];
/// A sentence before a back reference is joined to it when it has at most this many
/// words: short enough to be the naming of the subject.
const SHORT_SENTENCE_WORDS: usize = 12;
/// A sentence whose only values are capitalised words counts only when it has at most
/// this many: in a long one a capital is more likely prose ("Historians argue…"). Such
/// a sentence is kept whole: what it says of the name ("is coeliac, so … gluten free")
/// may stand anywhere in it. 16 lost "Maren from People Ops handles the invoices …"
/// (21 words) and "the workshop room … is called Pilatus" (17).
const NAME_SENTENCE_WORDS: usize = 28;

/// Endings that make a statement a question only for politeness ("oven at 190 for 50
/// min, right?"): the person states the value and checks it, so it is a fact.
const TAG_QUESTIONS: &[&str] = &[
    ", right?",
    ", yes?",
    ", yeah?",
    ", correct?",
    ", ok?",
    ", okay?",
    ", no?",
    ", isn't it?",
    ", aren't they?",
    ", don't we?",
    ", didn't we?",
    ", remember?",
];

/// A question that only checks a statement: one of the tags above, or in any language a
/// word or two after the last comma of a statement that brings a value, not a name alone
/// ("6,5 cm dick, und der muss ja ewig trocknen, oder?": measured, the screed's thickness
/// was dropped as a question).
fn tag_question(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    if TAG_QUESTIONS.iter().any(|t| lower.ends_with(t)) {
        return true;
    }
    let Some((statement, tag)) = sentence.trim_end_matches('?').rsplit_once(", ") else {
        return false;
    };
    tag.split_whitespace().count() <= 2
        && values(tag).is_empty()
        && !asks(statement)
        && !asks(tag)
        && holds_hard_value(statement)
}

/// A short statement with a value right after a short question is said of what the
/// question names, in any language: "¿Es normal que la finca pida una fianza? Nos piden
/// 1.500 €" (Spanish drops the "they" that [`refers_back`] looks for; measured, the
/// deposit's amount was kept without the deposit).
fn answers_it(prev: &str, sentence: &str) -> bool {
    asks(prev)
        && sentence.split_whitespace().count() <= SHORT_SENTENCE_WORDS
        && holds_hard_value(sentence)
}

/// Whether `sentence` states a value other than a name (a name alone is said of many
/// things, and a capital in a question is no statement).
fn holds_hard_value(sentence: &str) -> bool {
    values(sentence).iter().any(|v| kind(v) != Kind::Name)
}

fn refers_back(sentence: &str) -> bool {
    sentence
        .split_whitespace()
        .next()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .is_some_and(|w| BACK_REFERENCES.contains(&w.as_str()))
}

/// The ledger lines of one message. A sentence that refers back to a short one before
/// it is kept with it, so its values keep the subject the other named ("billing-api?
/// that one's on 8081" is one line, not "that one's on 8081").
pub fn extract(text: &str, user: bool) -> Vec<LedgerLine> {
    extract_lines(text, user, false)
}

/// The lines of a model's message the person confirmed ("Shall I book the caterer for 40
/// people?" — "yes, exactly"): a question confirmed is settled, so questions count too.
pub fn extract_confirmed(text: &str) -> Vec<LedgerLine> {
    extract_lines(text, true, true)
}

fn extract_lines(text: &str, user: bool, questions: bool) -> Vec<LedgerLine> {
    let mut out: Vec<LedgerLine> = Vec::new();
    // The line made of the sentence before, if one was: a change said next takes it in.
    let mut last_line: Option<String> = None;
    // A sentence that took back what came before, waiting for the value that replaces it.
    let mut taken_back: Option<&str> = None;
    let all = sentences(text);
    for (i, s) in all.iter().enumerate() {
        let made_before = last_line.take();
        let s = if !questions && asks(s) && !tag_question(s) {
            // A question states nothing, but what it takes as given it states.
            match premise(s) {
                Some(p) => p,
                None => continue,
            }
        } else {
            s
        };
        if courtesy::salutation(s) {
            continue;
        }
        let prev = i.checked_sub(1).map(|p| all[p]);
        // "Remember I said the slot was Friday mornings? That was wrong …": a sentence
        // that takes back, with no value of its own, is not joined to what it takes back
        // (that would keep the old value as a line); it opens the next line that brings a
        // value, whose value then replaces the earlier one.
        if takes_back(s) && values(s).is_empty() {
            taken_back = Some(s);
            continue;
        }
        let joined;
        let s: &str = match prev {
            // A question before is joined only to the answer that brings a value: "why
            // does imidazole absorb at 280? it makes my peaks look enormous" states
            // nothing, "which port? it's 8443" does.
            Some(prev)
                if (refers_back(s) || answers_it(prev, s))
                    && prev.split_whitespace().count() <= SHORT_SENTENCE_WORDS
                    && !(asks(prev) && values(s).is_empty()) =>
            {
                joined = format!("{prev} {s}");
                &joined
            }
            // "Haus Ahorn just emailed, their heating gets redone. so the venue is
            // Villa Sonnenberg now": one correction, said in two sentences; the first
            // alone would keep the old value standing. And a value alone on its line
            // ("£9,400" under a listing's title) is said of the line above: alone it
            // names nothing, and a correction of it ("the Mazda came down to £9,100")
            // could not find it.
            Some(prev) if value_alone(s) && !asks(prev) || changes_what_came_before(prev, s) => {
                let made = made_before
                    .as_ref()
                    .filter(|before| out.last().is_some_and(|l| &l.text == *before));
                if made.is_some() {
                    out.pop();
                }
                // A run of amounts stays with the title above them all.
                let base = match made {
                    Some(before) if value_alone(s) => before.as_str(),
                    _ => prev,
                };
                joined = format!("{base} {s}");
                &joined
            }
            _ => s,
        };
        let mut vals = values(s);
        let names_only = vals.iter().all(|v| kind(v) == Kind::Name);
        let aside_out;
        let s = if names_only && s.split_whitespace().count() > NAME_SENTENCE_WORDS {
            // In a long sentence a name counts in a short clause of its own: "presentation
            // night is booked at the Fleece on Towngate, upstairs room, they want …".
            // An aside between dashes is left out first: "Minh — Nguyễn Văn Minh, the
            // postdoc next to me — is the ITC superuser, so …" is said of Minh.
            aside_out = without_aside(s);
            match name_clause(&aside_out) {
                Some(c) => {
                    vals = values(c);
                    c
                }
                None => continue,
            }
        } else {
            s
        };
        if vals.is_empty() {
            continue;
        }
        let line = if names_only {
            s.to_string()
        } else {
            window(s, &vals)
        };
        let line = match taken_back.take() {
            Some(back) => format!("{back} {line}"),
            None => line,
        };
        if !out.iter().any(|l| l.text == line) {
            out.push(LedgerLine {
                text: line.clone(),
                user,
                ..LedgerLine::default()
            });
            last_line = Some(line);
        }
    }
    if out.len() >= LISTED_LINES {
        for l in &mut out {
            l.listed = true;
        }
    }
    out
}

/// Whether `sentence` is an amount and nothing else: no word of its own to say what it is
/// ("£9,400"; "max_attempts = 5" names itself).
fn value_alone(sentence: &str) -> bool {
    let spans = value_spans(sentence);
    if spans.is_empty() || spans.iter().any(|(_, _, v)| kind(v) != Kind::Number) {
        return false;
    }
    !sentence
        .char_indices()
        .any(|(at, c)| c.is_alphabetic() && !spans.iter().any(|(a, b, _)| (*a..*b).contains(&at)))
}

/// `sentence` without an aside set off by a pair of dashes ("X — who is Y, of Z — did W"
/// becomes "X did W"); as it was when there is no such pair.
fn without_aside(sentence: &str) -> String {
    let mut parts = sentence.splitn(3, " — ");
    match (parts.next(), parts.next(), parts.next()) {
        (Some(before), Some(_aside), Some(after)) => format!("{before} {after}"),
        _ => sentence.to_string(),
    }
}

/// The first clause of `sentence` (up to a comma or semicolon) that names something and
/// is short enough to be said of it.
fn name_clause(sentence: &str) -> Option<&str> {
    sentence
        .split([',', ';'])
        .map(str::trim)
        .find(|c| c.split_whitespace().count() <= NAME_CLAUSE_WORDS && !values(c).is_empty())
}

/// A clause of a long sentence is kept for its name when it has at most this many words.
const NAME_CLAUSE_WORDS: usize = 14;

/// A message that yields this many lines states many things at once — a pasted plan, a
/// spec, a list — rather than telling one: its lines are marked [`LedgerLine::listed`].
/// Three is still a person telling ("flight LH 123 on 4 May, hotel Ibis, car from
/// Hertz"); a paste gives ten.
const LISTED_LINES: usize = 4;

/// `s` says a change and the short sentence before it names a value of a kind `s` brings:
/// the two are one correction ("9:30 is never going to work. kick-off moves to 10:15").
fn changes_what_came_before(prev: &str, s: &str) -> bool {
    if prev.ends_with('?')
        || prev.split_whitespace().count() > CHANGE_CONTEXT_WORDS
        || !says_change(s)
    {
        return false;
    }
    let kinds: Vec<Kind> = values(s).iter().map(|v| kind(v)).collect();
    values(prev).iter().any(|v| kinds.contains(&kind(v)))
}

/// A sentence before a change is taken in with it when it has at most this many words.
const CHANGE_CONTEXT_WORDS: usize = 16;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::ledger::lines::texts;

    #[test]
    fn an_amount_alone_on_its_line_is_said_of_the_line_above() {
        let listing = extract(
            "here's the listing:\n2019 Mazda 3 2.0 Skyactiv-G SE-L Nav 5dr\n£9,400\nMileage: 38,200 miles\nRegistration: KT19 WFN",
            true,
        );
        let lines = texts(&listing);
        assert!(
            lines.contains(&"2019 Mazda 3 2.0 Skyactiv-G SE-L Nav 5dr £9,400"),
            "{lines:?}"
        );
        assert!(!lines.contains(&"£9,400"), "{lines:?}");
        // A run of amounts stays with the title above them.
        let run = extract("Mazda 3 SE-L\n£9,400\n2019", true);
        assert_eq!(texts(&run), ["Mazda 3 SE-L £9,400 2019"], "{run:?}");
        // A setting names itself.
        let config = extract("max_attempts = 5\ninitial_ms = 500", true);
        assert_eq!(texts(&config), ["max_attempts = 5", "initial_ms = 500"]);
    }

    #[test]
    fn facts_said_inside_questions_and_pasted_lists_are_kept() {
        let lines = |t: &str| {
            extract(t, true)
                .into_iter()
                .map(|l| l.text)
                .collect::<Vec<_>>()
        };
        // A statement the question follows after a comma.
        assert_eq!(
            lines("His microchip number is 977200009123456, do I need to update it myself?"),
            ["His microchip number is 977200009123456"]
        );
        // A tag in any language after a statement with a value.
        assert_eq!(
            lines("Im Bad kommt ein neuer Estrich rein, 6,5 cm dick, oder?").len(),
            1
        );
        // A German question is not a statement for its comma.
        assert!(
            lines("Kannst du mir eine Liste machen, was wir vorher fertig haben müssen?")
                .is_empty()
        );
        assert!(lines("Was kostet eine neue Haustür ungefähr, so grob?").is_empty());
        // A short answer after a short question is said of what the question names, in a
        // language that drops the "they".
        assert_eq!(
            lines("¿Es normal que la finca pida una fianza? Nos piden 1.500 € por si hay daños."),
            ["¿Es normal que la finca pida una fianza? Nos piden 1.500 € por si hay daños."]
        );
        // Every item of a pasted label, single-digit doses included.
        let label = lines(
            "Here's what's on the labels:\n- Metacam 1.5 mg/ml: 2.4 ml once a day\n- Vetmedin 5 mg: half a tablet twice a day",
        );
        assert_eq!(label.len(), 2, "{label:?}");
    }

    #[test]
    fn a_letters_greeting_and_sign_off_are_no_facts() {
        let letter = "Hi Mateo,\n\nWe are delighted to offer you the position below.\n\nRole: Senior Data Analyst\nBase salary: NOK 812,000\n\nKind regards,\nBjørg Ødegård\nMobile: +47 915 20 388";
        let lines: Vec<String> = extract(letter, true).into_iter().map(|l| l.text).collect();
        assert!(!lines.iter().any(|l| l.contains("Mateo")), "{lines:?}");
        assert!(
            lines.iter().any(|l| l.contains("Senior Data Analyst")),
            "{lines:?}"
        );
        assert!(
            lines.iter().any(|l| l.contains("+47 915 20 388")),
            "{lines:?}"
        );
    }

    #[test]
    fn a_questions_premise_and_a_name_in_a_long_sentence_are_facts() {
        let premise = extract(
            "since the winter nets at St. Wilfrid's are booked under ref NX-3307 for Tuesdays, \
             can I tack a second lane on for the juniors?",
            true,
        );
        assert!(
            texts(&premise)
                .iter()
                .any(|l| l.contains("nets") && l.contains("NX-3307"))
        );
        assert!(
            extract(
                "are those compatible in a 3rd floor flat or do we need a pump",
                true
            )
            .is_empty()
        );
        let named = extract(
            "presentation night is booked at the Fleece on Towngate, upstairs room, they want a \
             deposit by the end of the month but they do a hot buffet and the landlord used to \
             open the batting for us back then, so we'd never get away with going anywhere else",
            true,
        );
        assert_eq!(
            texts(&named),
            ["presentation night is booked at the Fleece on Towngate"]
        );
    }

    #[test]
    fn facts_are_kept_whole_with_their_subject() {
        let lines = extract(
            "Hi! I'm setting up the notes. First thing: our cache service (Redis) listens on port 6379. \
             The meeting is at 14:00 with the team. What about you?",
            true,
        );
        assert_eq!(
            texts(&lines),
            [
                "First thing: our cache service (Redis) listens on port 6379.",
                "The meeting is at 14:00 with the team."
            ]
        );
        // A time stays one value, not "14" and "00".
        assert_eq!(values("at 14:00 sharp"), ["14:00"]);
        assert!(values("version 16.2 of PostgreSQL").contains(&"16.2".to_string()));
        let v = values("the file /etc/shopd/shop.toml and src/cart/total.rs:88");
        assert!(v.contains(&"/etc/shopd/shop.toml".to_string()), "{v:?}");
        assert!(v.contains(&"src/cart/total.rs:88".to_string()), "{v:?}");
        // Prose without hard values, and questions, state nothing.
        assert!(extract("That sounds like a good plan to me.", true).is_empty());
        assert_eq!(values("My network is called orchid-5g."), ["orchid-5g"]);
        assert_eq!(
            values("The images are in shop-assets-eu now."),
            ["shop-assets-eu"]
        );
        assert!(extract("Keep the docs up-to-date, end-to-end.", true).is_empty());
        assert!(extract("A well-known, long-term plan.", true).is_empty());
        assert!(extract("Which port does it use, 6379?", true).is_empty());
    }

    #[test]
    fn long_sentences_are_cut_around_their_values() {
        let long = format!(
            "{} the gateway listens on port 8443 {}",
            "word ".repeat(30),
            "tail ".repeat(20)
        );
        let l = &extract(&long, true)[0].text;
        assert!(l.starts_with("… ") && l.ends_with(" …"), "{l}");
        assert!(l.contains("the gateway listens on port 8443"), "{l}");
        assert!(l.split_whitespace().count() <= WORDS_BEFORE + WORDS_AFTER + 3);
    }

    #[test]
    fn a_question_joins_only_an_answer_that_brings_a_value() {
        assert!(
            extract(
                "why does imidazole absorb at 280 anyway? it makes my elution peaks look enormous",
                true
            )
            .is_empty()
        );
        let answered = extract("which port does the gateway use? it's 8443 now", true);
        assert_eq!(answered.len(), 1);
        assert!(answered[0].text.contains("gateway") && answered[0].text.contains("8443"));
    }

    #[test]
    fn a_name_is_kept_with_what_is_said_of_it_past_an_aside() {
        let lines = extract(
            "Minh — Nguyễn Văn Minh, the postdoc on the bench next to mine — is the ITC superuser, so he has to sign me off before I'm allowed to run it alone, and he's doing the first run with me",
            true,
        );
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0].text.contains("Minh is the ITC superuser"),
            "{lines:?}"
        );
    }

    #[test]
    fn values_of_every_common_kind_are_found_whole() {
        let has = |s: &str, v: &str| values(s).contains(&v.to_string());
        assert!(has(
            "The audit kicks off 2026-04-09, so no changes.",
            "2026-04-09"
        ));
        assert!(has("The code freeze starts on March 14th.", "March 14th"));
        assert!(has(
            "The Lisbon office opens on the 3rd of May.",
            "3rd of May"
        ));
        assert!(has(
            "The API is capped at 100 requests a minute per key.",
            "100 requests a minute"
        ));
        assert!(has("Our uptime target is 99.95%.", "99.95%"));
        assert!(has("Session cookies last 8 hours now.", "8 hours"));
        assert!(has("Keep it for two weeks.", "two weeks"));
        assert!(has("db-2 is still on Postgres 14.9.", "db-2"));
        assert!(has("db-2 is still on Postgres 14.9.", "14.9"));
        assert!(has("We deploy the chart at v2.14.1 only.", "v2.14.1"));
        assert!(has("It fails with E0412 at compile time.", "E0412"));
        assert!(has("Retries are capped at 5 for now.", "5"));
        assert!(has("Priya's team owns the billing service.", "Priya"));
        assert!(has("The budget is $5,000 for the pilot.", "$5,000"));
        // A room code and a dilution are one value each, not "17" and "500".
        assert!(has(
            "The aliquots are in the -80 in Rm. B2.17, top shelf.",
            "B2.17"
        ));
        assert!(has("The anti-His has to go 1:500, not 1:200.", "1:500"));
        assert!(has(
            "The tyre is a 700x28c, the screen 1280×720.",
            "700x28c"
        ));
        assert!(has(
            "The tyre is a 700x28c, the screen 1280×720.",
            "1280×720"
        ));
        // A lone digit in prose is not a value; "at 5" is.
        assert!(values("I have 2 cats").is_empty());
        assert_eq!(kind("2026-04-09"), Kind::When);
        assert_eq!(kind("March 20th"), Kind::When);
        assert_eq!(kind("service-13"), Kind::Entity);
        assert_eq!(kind("8081"), Kind::Number);
        assert_eq!(kind("/srv/billing/app.yaml"), Kind::Path);
        assert_eq!(kind("v2.14.1"), Kind::Version);
    }

    #[test]
    fn a_sentence_that_refers_back_keeps_the_short_one_that_named_its_subject() {
        let lines = extract(
            "billing-api? that one's on 8081, config under /srv/billing/app.yaml",
            true,
        );
        assert_eq!(lines.len(), 1);
        assert!(lines[0].text.contains("billing-api") && lines[0].text.contains("8081"));
        let lines = extract(
            "Oh, metrics-agent, everybody forgets metrics-agent. It exposes 9100 and reads /etc/node-exporter/agent.yml.",
            true,
        );
        assert!(
            lines
                .iter()
                .any(|l| l.text.contains("metrics-agent") && l.text.contains("9100")),
            "{lines:?}"
        );
        // A long sentence whose only value is a capital is prose, not a fact.
        assert!(
            extract(
                "Historians and practitioners have argued about it for a long time, and the debate keeps coming back because every generation finds new evidence.",
                true
            )
            .is_empty()
        );
    }

    #[test]
    fn a_name_in_any_script_is_kept_with_what_is_said_of_it() {
        let lines = extract(
            "Mr. Müller from No. 12 has the spare key. Noor doesn't eat meat, she's vegetarian. \
             oh and Tomás is coeliac so the caterer has to do proper gluten free, not just the bread.",
            true,
        );
        assert_eq!(
            texts(&lines),
            [
                "Mr. Müller from No. 12 has the spare key.",
                "Noor doesn't eat meat, she's vegetarian.",
                "oh and Tomás is coeliac so the caterer has to do proper gluten free, not just the bread.",
            ]
        );
        // An opening word that names nobody, a month alone: no line.
        assert!(extract("Honestly, it is fine. We go in April.", true).is_empty());
        assert_eq!(values("moving day is April 25"), ["April 25"]);
    }

    #[test]
    fn a_booking_code_is_a_value_and_a_checked_statement_is_a_fact() {
        assert_eq!(values("the booking ref is HM4QX7TR2Z"), ["HM4QX7TR2Z"]);
        assert_eq!(values("booking ref CS-7734 with them"), ["CS-7734"]);
        assert_eq!(
            texts(&extract(
                "lasagne it is. oven at 190 for 50 min, right?",
                true
            )),
            ["oven at 190 for 50 min, right?"]
        );
        assert!(extract("is the oven at 190 for 50 min?", true).is_empty());
    }

    #[test]
    fn a_change_said_after_the_old_value_is_one_line_with_it() {
        assert_eq!(
            texts(&extract(
                "Haus Ahorn just emailed, their heating is broken. so the venue is Villa Sonnenberg now.",
                true
            )),
            [
                "Haus Ahorn just emailed, their heating is broken. so the venue is Villa Sonnenberg now."
            ]
        );
    }

    #[test]
    fn lines_of_material_that_states_many_things_at_once_are_marked() {
        let paste = "Here is the quote from the fitter:\n\
            Base cabinet 80 cm, sink side, oak front.\n\
            Wall cabinet 60 cm x 3, handle-less.\n\
            Worktop 3.2 m, 38 mm laminate.\n\
            Delivery week 14, fitting 2 days.\n\
            Total 7,480 EUR incl. VAT.";
        let lines = extract(paste, true);
        assert!(lines.len() >= LISTED_LINES, "{lines:?}");
        assert!(lines.iter().all(|l| l.listed), "{lines:?}");
        let telling = "Flight LH 1234 lands at 14:05. Hotel is the Ibis, ref 88231. Car from Hertz for 3 days.";
        let told = extract(telling, true);
        assert_eq!(told.len(), 3, "{told:?}");
        assert!(told.iter().all(|l| !l.listed), "{told:?}");
        assert!(
            extract("Our plumber is Branko, 0176 5551234.", true)
                .iter()
                .all(|l| !l.listed)
        );
    }
}
