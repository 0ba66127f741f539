//! Values: what makes a sentence worth a ledger line — a number, time, date, version,
//! path, URL, identifier, amount or name — where each stands in a sentence, and what kind
//! it is (a later line replaces an earlier one only with a value of the kind it
//! replaces). Shared by extraction, compaction, superseding and weighing.

use super::captures::captured;
use super::patterns::{CURRENCY_CODE, HOUR_WORD, MONTH, UNIT, number_word, re};
use regex::Regex;
use std::sync::LazyLock;

/// Hard values: what makes a sentence worth keeping. Dates, times, versions, sizes,
/// rates and durations come first so they match whole ("2026-03-14", not "2026").
pub(super) static VALUE: LazyLock<Regex> = LazyLock::new(|| {
    re(&[
        r"https?://[^\s<>`)\]]+".to_string(),                 // URL
        r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+".to_string(),           // e-mail
        r"\b\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?Z?)?\b".to_string(), // ISO date
        format!(r"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH}(?:,?\s+\d{{4}})?\b"), // 14 March 2026
        format!(r"\b{MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b"), // March 14th, 2026
        r"\b\d{1,2}(?:st|nd|rd|th)\b".to_string(),               // the 20th
        r"\b[vV]\d+(?:\.\d+)*(?:-[\w.]+)?\b".to_string(),        // v2.14.1
        r"(?:~|\.{1,2})?/?(?:[\w.@-]+/)+[\w.@-]+(?::\d+)?".to_string(), // path, 3/14/2026
        r"\b[\w-]+\.(?:rs|py|ts|tsx|js|go|c|h|cpp|java|rb|toml|json|ya?ml|md|txt|sh|sql|conf|ini|env|xml|lock|proto|html|css|log|csv)\b(?::\d+)?".to_string(),
        r"\b[A-Z]{2}\d{2}\s[A-Z]{3}\b|\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b".to_string(), // a registration, a postcode: KT19 WFN, GU1 4RT, SW1A 1AA
        r"\b\p{Lu}{2,}-\p{Lu}[\p{L}\d]*\b".to_string(),                 // a network, a plan: KFG-Staff, SE-L (not UK-based)
        r"\b[A-Z]{1,4}-\d{3,}\b".to_string(),                       // CS-7734
        r"\b[A-Z][A-Z0-9]*\d[A-Z0-9]*[A-Z][A-Z0-9]*\b|\b\d[A-Z0-9]*[A-Z][A-Z0-9]*\d[A-Z0-9]*\b".to_string(), // HM4QX7TR2Z
        r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?\b".to_string(), // time
        r"\b\d{1,2}\s?[ap]\.?m\b\.?".to_string(),                 // 3pm
        r"[$€£]\s?\d[\d,.]*(?:[kKmM]|bn)?\b".to_string(),           // money: £9,400, £3.5k, $2m
        format!(r"\b{CURRENCY_CODE}\s?(?:\d[\d,.]*\d(?:[kKmM]|bn)?|\d(?:[kKmM]|bn))\b"), // NOK 812,000, not "CAD 3"
        r"\b\d+(?:[.,]\d+)*\s?[€£$]".to_string(),                   // 8.940 €, as most of Europe writes it
        r"\b\d+(?:[.,]\d+)*\s?(?:m²|m³|°[CF]?)".to_string(),          // 38 m², 7 m³, 21 °C
        format!(r"\b\d+(?:[.,]\d+)*\s?-?(?i:{UNIT})\b"),           // 25 MB, 100 requests a minute, 85%
        r"\b\d+(?:\.\d+)?\s?%".to_string(),                        // 85%
        format!(r"(?i:\b{}\s+{UNIT})\b", number_word()),           // two weeks, thirty-five people
        format!(r"(?i:\b(?:half|quarter)\s+(?:past\s+|to\s+)?{HOUR_WORD}\b|\b{HOUR_WORD}\s+o'clock\b)"), // half seven, eight o'clock
        r"\b\d{3,}(?:-\d{3,})+\b".to_string(),                      // order 3017-664871
        r"\b\d+(?:\.\d+)?\s?[x×]\s?\d+(?:\.\d+)?(?:\s?[x×]\s?\d+(?:\.\d+)?)?[a-z]?\b".to_string(), // 700x28c, 1280×720
        r"\b[A-Z]{1,3}\d+(?:[.-]\d+)+\b".to_string(),                // room B2.17, bay C-4-2
        r"\b\d{1,2}:\d{3,}\b".to_string(),                           // a dilution, 1:500
        r"\b\d+(?:[.,]\d+)+\b".to_string(),                         // 1,024 · 16.2 · IPs
        r"\b\d{2,}\b".to_string(),                                 // numbers
        r"`[^`\n]{2,60}`".to_string(),                              // code
        r"\b[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?".to_string(), // paths in code
        r"\b[A-Za-z_][A-Za-z0-9_]*\(\)".to_string(),                 // a function()
        r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:\(\))?".to_string(),    // snake_case
        r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b".to_string(),            // CONSTANT_CASE
        r"\b[A-Z]\d{3,5}\b".to_string(),                            // E0412
        r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-[a-z]*[0-9][a-z0-9]*\b|\b[a-z]+[0-9][a-z0-9]*(?:-[a-z0-9]+)+\b".to_string(), // kebab-case with a digit: orchid-5g, db-2
        r"\b[a-z]{2,}\d+[a-z0-9]*\b".to_string(),                   // web01, node3
        r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+){2,}\b".to_string(),         // kebab-case, three parts or more: shop-assets-eu
        r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:\.[a-z0-9-]+)*\.(?:internal|local|lan|com|org|net|io|dev|example|cloud|app|ai|co|uk|de|eu|corp|prod|svc)\b".to_string(), // host
        r"\b[a-z][a-z0-9-]*(?:\.[a-z0-9-]+){2,}\b".to_string(),      // db-2.prod.eu
        r"\b(?i:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b".to_string(),
        r"\b(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\b".to_string(), // a rota's "| Tue | Ben |"
        r"\b(?:tues?|thu(?:rs?)?|fri)\b".to_string(), // typed in lower case: "viewing is thurs at 6"
    ]
    .join("|"))
});

/// A capitalised word inside a sentence: a name ("Porto", "Stripe", "Maria Okafor",
/// "Müller", "Petrović" — any script with cases).
static NAME: LazyLock<Regex> = LazyLock::new(|| re(r"\s(\p{Lu}\p{Ll}{2,}(?:\p{Lu}\p{Ll}+)*)\b"));
/// A name that opens a sentence and says something of itself ("Priya's team", "Dana
/// owns …", "Noor doesn't eat meat"): the sentence's first word counts only before a
/// verb, so "Honestly, …" or "Lasagne it is" does not.
static LEADING_NAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(\p{Lu}\p{Ll}{2,})(?:'s\b|’s\b|\s+(?:owns|runs|leads|manages|handles|maintains|approved|approves|wrote|built|is|isn't|was|wasn't|has|hasn't|had|does|doesn't|did|didn't|can|can't|cannot|will|won't|would|should|must|needs|wants|likes|loves|hates|eats|drinks|lives|works|brings|picks|pays|says|said|knows|takes|gets|got|comes|arrives|leaves|prefers|uses|speaks|rang|called|emailed|texted|messaged|replied|quoted|charges|charged|sent|told|reckons|agreed|and \p{Lu}\p{Ll}+)\b)",
    )
});
/// Capitalised words that open sentences without naming anyone.
const NOT_NAMES: &[&str] = &[
    "The",
    "This",
    "That",
    "These",
    "Those",
    "There",
    "Here",
    "What",
    "When",
    "Which",
    "Who",
    "Why",
    "How",
    "Our",
    "Your",
    "Their",
    "And",
    "But",
    "Also",
    "Please",
    "Thanks",
    "Yes",
    "Okay",
    "She",
    "They",
    "You",
    "His",
    "Her",
    "Its",
    "Everything",
    "Nothing",
    "Something",
    "Someone",
    "Everyone",
    "Anyone",
    "Nobody",
    "Everybody",
    "Somebody",
    "Today",
    "Tonight",
    "Tomorrow",
    "Yesterday",
    "Now",
    "Then",
    "Maybe",
    "Honestly",
    "Sorry",
    "Well",
    "Still",
    "Just",
    "Only",
    "Even",
    "Some",
    "Any",
    "All",
    "Each",
    "Every",
    "Both",
    "One",
    "Two",
    "Three",
    "None",
    "Not",
    "Let",
    "Sure",
    "Yeah",
    "Wait",
    "Anyway",
    "Hmm",
    "Ugh",
    "Cool",
    "Nice",
    "Great",
    "Good",
    "Fine",
    "Right",
];

/// Months and days: a name alone is no value ("in April"); beside a day it is a date.
const CALENDAR_WORDS: &[&str] = &[
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// "up-to-date", "end-to-end": hyphenated English, not a name of something.
fn english_compound(v: &str) -> bool {
    v.contains('-')
        && v.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
        && v.split('-').any(|w| {
            [
                "a", "an", "and", "at", "by", "for", "in", "of", "on", "the", "to",
            ]
            .contains(&w)
        })
}

/// Where the values of a sentence stand in it (byte ranges), with the values.
pub(super) fn value_spans(sentence: &str) -> Vec<(usize, usize, String)> {
    let mut out: Vec<(usize, usize, String)> = VALUE
        .find_iter(sentence)
        .map(|m| {
            let v = m
                .as_str()
                .trim_matches('`')
                .trim_end_matches(['.', ','])
                .to_string();
            (m.start(), m.end(), v)
        })
        .filter(|(_, _, v)| v.len() >= 2 && !english_compound(v))
        .collect();
    for m in captured(sentence) {
        if !out.iter().any(|(a, b, _)| m.start() < *b && *a < m.end()) {
            out.push((m.start(), m.end(), m.as_str().to_string()));
        }
    }
    let lead = sentence.len() - sentence.trim_start().len();
    let inside = NAME
        .captures_iter(sentence)
        .filter_map(|c| c.get(1))
        .map(|m| (m.start(), m.end(), m.as_str()));
    let leading = LEADING_NAME
        .captures_iter(sentence.trim_start())
        .filter_map(|c| c.get(1))
        .map(|m| (m.start() + lead, m.end() + lead, m.as_str()));
    let nouns_capitalised = reads_german(sentence);
    for (a, b, name) in inside.chain(leading) {
        // "April" inside "April 25" is the date's, not a name of its own.
        let inside_a_value = out.iter().any(|(x, y, _)| a < *y && *x < b);
        let a_name = !nouns_capitalised
            || name.chars().skip(1).any(char::is_uppercase)
            || after_title(&sentence[..a]);
        if a_name
            && !NOT_NAMES.contains(&name)
            && !CALENDAR_WORDS.contains(&name)
            && !inside_a_value
        {
            out.push((a, b, name.to_string()));
        }
    }
    out
}

/// Words only German uses this often: a sentence with two of them reads as German, where
/// every noun is capitalised ("Der Schlüsselkasten am Bauzaun hat den Code 5182"), so a
/// capital names no one. Measured: every German sentence entered the fact ledger for its
/// nouns ("Puh, das klingt nach viel Papierkram") and the ledger let the figures go.
const GERMAN_WORDS: &[&str] = &[
    "der", "das", "und", "ist", "nicht", "mit", "für", "ein", "eine", "einen", "einem", "einer",
    "dem", "auf", "ich", "wir", "sind", "haben", "wird", "auch", "noch", "aber", "oder", "wenn",
    "bei", "nach", "sich", "uns", "dass", "über", "vom", "zum", "zur", "im", "zu", "kommt", "soll",
    "muss", "kann", "unser", "unsere", "dann", "die", "ja", "doch", "schon", "jetzt", "nur",
    "sehr", "wie", "sein", "seine", "ihr", "ihre", "mein", "meine", "du", "dir", "mir", "mich",
    "ganze", "alles", "immer", "heute", "habe", "hatte", "wurde", "werden", "gibt", "geht",
    "diese", "dieser", "neue", "neuer", "alte", "alten",
];

/// English words as common, for a sentence that mixes the two ("my neighbour Siobhán walks
/// him at lunch, das ist super" is English).
const ENGLISH_WORDS: &[&str] = &[
    "the", "and", "is", "are", "to", "of", "my", "his", "her", "him", "at", "on", "with", "for",
    "you", "we", "it", "this", "that", "was", "be", "have", "has", "our", "your", "their", "a",
];

fn reads_german(sentence: &str) -> bool {
    let mut seen: Vec<&str> = Vec::new();
    let mut english = 0;
    for w in sentence.split(|c: char| !c.is_alphanumeric()) {
        if let Some(g) = GERMAN_WORDS.iter().find(|g| w.eq_ignore_ascii_case(g))
            && !seen.contains(g)
        {
            seen.push(g);
        }
        english += usize::from(ENGLISH_WORDS.iter().any(|e| w.eq_ignore_ascii_case(e)));
    }
    seen.len() >= 2 && seen.len() > english
}

/// Words that put a name after them, in a language that capitalises every noun: "Frau
/// Kowalczyk", "Hr. Yıldız von der Fa. Elektro Brandl", "Frau Dr. Schäfer-Ngata".
const TITLES: &[&str] = &[
    "Herr", "Herrn", "Frau", "Hr.", "Fr.", "Dr.", "Prof.", "Fa.", "Firma", "Familie", "Mr.",
    "Mrs.", "Ms.",
];

/// Whether the words just before a capitalised word (`before` ends where it starts) are
/// a title, or capitalised words after one.
fn after_title(before: &str) -> bool {
    for w in before.split_whitespace().rev().take(3) {
        if TITLES.contains(&w) {
            return true;
        }
        if !w.starts_with(char::is_uppercase) || w.ends_with(',') {
            return false;
        }
    }
    false
}

/// The values a sentence states.
pub fn values(sentence: &str) -> Vec<String> {
    let mut out: Vec<String> = value_spans(sentence)
        .into_iter()
        .map(|(_, _, v)| v)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// What kind of value a value is: a later line replaces an earlier one only with a value
/// of the kind it replaces (a port for a port, a path for a path).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Kind {
    Number,
    When,
    Version,
    Path,
    Url,
    Email,
    /// A named thing: `service-13`, `parse_header()`, `PAYMENT_API_URL`, `db-2.prod`.
    Entity,
    Name,
    Other,
}

/// An amount said in words: "thirty-five people", "a hundred and fifty quid".
pub(super) static SAID_IN_WORDS: LazyLock<Regex> =
    LazyLock::new(|| re(&format!(r"(?i)^{}\s", number_word())));

static WHEN: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)^(?:\d{{4}}-\d{{1,2}}-\d{{1,2}}.*|.*\b{MONTH}\b.*|\d{{1,2}}(?:st|nd|rd|th)|\d{{1,2}}:\d{{2}}.*|\d{{1,2}}\s?[ap]\.?m\.?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun|(?:half|quarter)\s+(?:past\s+|to\s+)?{HOUR_WORD}|.*o'clock|{HOUR_WORD})$"
    ))
});

/// A date written day/month or month/day ("28/11", "3/12/2026"): a date, not a path
/// (measured: a delivery moved "to 27/11" could not replace "on 28/11"). Not a kitchen's
/// or a workshop's fraction: "1/2", "3/4", "1/8".
static DAY_MONTH: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:(?:[12]\d|3[01]|0?[5-9])/(?:1[0-2]|0?[1-9])|(?:[1-4])/(?:1[0-2]|0?[5-9]))(?:/(?:\d{2}|\d{4}))?$|^\d{1,2}/\d{1,2}/(?:\d{2}|\d{4})$",
    )
});

/// An amount after its currency's code: "NOK 812,000".
static CODED_AMOUNT: LazyLock<Regex> = LazyLock::new(|| re(&format!(r"^{CURRENCY_CODE}\s?\d")));

/// The kind of `value` (as [`values`] returns it).
pub(super) fn kind(value: &str) -> Kind {
    let v = value.trim();
    if v.starts_with("http://") || v.starts_with("https://") {
        Kind::Url
    } else if v.contains('@') && v.contains('.') && !v.contains(' ') {
        Kind::Email
    } else if WHEN.is_match(v) || DAY_MONTH.is_match(v) {
        Kind::When
    } else if v.len() > 1
        && (v.starts_with(['v', 'V']))
        && v[1..].starts_with(|c: char| c.is_ascii_digit())
    {
        Kind::Version
    } else if v.contains('/') && !v.contains(' ') {
        Kind::Path
    } else if v.starts_with(|c: char| c.is_ascii_digit() || "$€£".contains(c))
        || SAID_IN_WORDS.is_match(v)
        || CODED_AMOUNT.is_match(v)
    {
        Kind::Number
    } else if !v.contains(' ')
        && v.starts_with(|c: char| c.is_alphabetic())
        && (v.contains(['-', '_']) || v.ends_with("()") || v.contains("::"))
    {
        Kind::Entity
    } else if v.starts_with(|c: char| c.is_uppercase())
        && v.chars().skip(1).all(|c| c.is_lowercase() || c == ' ')
    {
        Kind::Name
    } else {
        Kind::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_colour_chosen_and_a_day_month_date_are_values() {
        assert!(
            values("grout colour is going to be charcoal, not white")
                .contains(&"charcoal".to_string())
        );
        assert!(values("the colour's sage green for the hall").contains(&"sage green".to_string()));
        assert!(values("we've painted it in dark grey").contains(&"dark grey".to_string()));
        // "The colour is fine" chooses nothing; a colour elsewhere is prose.
        assert!(values("the colour is fine honestly").is_empty());
        assert!(values("the green light came on").is_empty());
        assert_eq!(kind("28/11"), Kind::When);
        assert_eq!(kind("1/12"), Kind::When);
        assert_eq!(kind("3/12/2026"), Kind::When);
        // Fractions and paths stay what they are.
        assert_eq!(kind("1/2"), Kind::Path);
        assert_eq!(kind("3/4"), Kind::Path);
        assert_eq!(kind("src/main"), Kind::Path);
        // Amounts after their currency's code.
        assert_eq!(kind("NOK 812,000"), Kind::Number);
        assert!(values("Base salary: NOK 812,000").contains(&"NOK 812,000".to_string()));
    }

    #[test]
    fn amounts_and_times_said_in_words_are_values() {
        for (sentence, value, k) in [
            (
                "we reckon about thirty-five people, mostly family",
                "thirty-five people",
                Kind::Number,
            ),
            (
                "the deposit was a hundred and fifty quid",
                "a hundred and fifty quid",
                Kind::Number,
            ),
            (
                "Kicks off at half seven, food at half eight.",
                "half seven",
                Kind::When,
            ),
            ("doors open at eight o'clock", "eight o'clock", Kind::When),
            (
                "it starts at eight now, not half seven",
                "eight",
                Kind::When,
            ),
            (
                "Vetmedin: half a tablet twice a day",
                "half a tablet",
                Kind::Number,
            ),
        ] {
            assert!(
                values(sentence).contains(&value.to_string()),
                "{sentence}: {:?}",
                values(sentence)
            );
            assert_eq!(kind(value), k, "{value}");
        }
        assert!(values("about twenty five people").contains(&"twenty five people".to_string()));
        assert!(values("Half seven works for me").contains(&"Half seven".to_string()));
        // An hour word is a value only as a time.
        assert!(values("at one point we had seven of them").is_empty());
        assert!(values("got quotes from three, the cheapest was fine").is_empty());
        // Capitals that are no code.
        for sentence in [
            "send it as an A4 PDF",
            "the Q3 KPI review",
            "a UK-based team",
        ] {
            assert!(
                values(sentence).is_empty(),
                "{sentence}: {:?}",
                values(sentence)
            );
        }
    }

    #[test]
    fn registrations_postcodes_network_names_and_kitchen_measures_are_values() {
        for (sentence, value) in [
            ("Registration: KT19 WFN", "KT19 WFN"),
            ("we're at GU1 4RT now", "GU1 4RT"),
            ("the office is at SW1A 1AA", "SW1A 1AA"),
            ("Staff wifi is KFG-Staff with my normal login", "KFG-Staff"),
            ("it goes in a 9 inch round banneton", "9 inch"),
            ("and 2 tsp salt", "2 tsp"),
            ("| Tue | Ben | 14:00–close |", "Tue"),
        ] {
            assert!(values(sentence).contains(&value.to_string()), "{sentence}");
        }
    }

    #[test]
    fn days_names_allergies_and_amounts_as_people_text_them_are_values() {
        for (sentence, value) in [
            ("viewing for harcourt is thurs at 6", "thurs"),
            ("update: harcourt viewing moved to fri 5.30", "fri"),
            ("he can do sunday for 290 instead", "sunday"),
            ("the match is sat 10am", "sat"),
            (
                "mill lane is a private landlord, mrs achterberg, she wants more",
                "achterberg",
            ),
            ("my guarantor is my uncle femi, he earns enough", "femi"),
            (
                "He's allergic to penicillin, it's on his wristband.",
                "penicillin",
            ),
            ("she has an allergy to nuts and sesame", "nuts and sesame"),
            ("he's allergic to the cat", "cat"),
            ("mileage was 61k", "61k"),
            ("the bonus was £3.5k", "£3.5k"),
            ("it's 2 grand for the lot", "2 grand"),
            ("it's 3 miles away", "3 miles"),
            (
                "the wifi password is correcthorsebattery",
                "correcthorsebattery",
            ),
            ("we're in room 12b", "12b"),
            ("she's 7 and he's 4", "4"),
            ("every morning at 8.", "8"),
            ("parking is round the back, it's free after 6", "6"),
            ("the keynote is in hall B", "hall B"),
            ("we're in Room 4B", "4B"),
            ("it's a size 8 dress", "8"),
            ("we need 3 bags of compost", "3 bags"),
            ("it's a 2 bed flat", "2 bed"),
            ("i'm vegetarian and my wife is vegan", "vegan"),
            ("she can't have gluten", "gluten"),
            (
                "The admin account is called bartek, I disabled the default one.",
                "bartek",
            ),
            ("we got a puppy named rufus!", "rufus"),
            (
                "The password to the smugglers' tunnel is 'saltwind'.",
                "saltwind",
            ),
            ("the pin for the garage is 4471", "4471"),
            ("the password is don't-panic", "don't-panic"),
            (
                "they quoted twelve hundred and forty quid for the bumper",
                "twelve hundred and forty quid",
            ),
            (
                "so rob's out and jamie's filling in on drums, he knows the set",
                "jamie",
            ),
            ("priya is covering for me on friday", "priya"),
        ] {
            assert!(
                values(sentence).iter().any(|v| v == value),
                "{sentence}: {:?}",
                values(sentence)
            );
        }
        // Words that are also days, and a relation followed by a verb, name nothing.
        for (sentence, word) in [
            ("we sat in the sun all afternoon", "sat"),
            ("we sat in the sun all afternoon", "sun"),
            ("my sister said it was fine", "said"),
            ("the password is on the router", "on"),
            ("I don't have time", "time"),
            ("they stage a protest every year", "stage a"),
            ("I'll miss the train", "the"),
            ("a 200 ms delay", "delay"),
            ("see the dr tomorrow", "tomorrow"),
            ("I'll ask my boss too.", "too"),
            ("the room I booked", "room I"),
            ("thus the total is fine", "thus"),
            ("we sat 3 hours in A&E", "sat"),
            ("I can't have the day off", "the"),
            ("the wifi is really slow", "really"),
            ("the password is wrong", "wrong"),
            ("the match is called off.", "off"),
            ("this function is called twice.", "twice"),
            ("it's called automatically.", "automatically"),
            ("the water is standing in the basement", "water"),
            ("my dad's covering for me", "dad"),
            ("mum's standing in the queue", "mum"),
            ("the pin for the map is below", "below"),
            (
                "the wifi password for the guest network is expired now",
                "expired",
            ),
        ] {
            assert!(
                !values(sentence).iter().any(|v| v == word),
                "{sentence}: {:?}",
                values(sentence)
            );
        }
        assert_eq!(kind("fri"), Kind::When);
    }

    #[test]
    fn units_and_amounts_as_europe_writes_them_are_values() {
        for (sentence, value) in [
            ("Vetmedin 5 mg: half a tablet twice a day", "5 mg"),
            ("eine Wärmepumpe mit ca. 9 kW Leistung", "9 kW"),
            ("liegt bei 8.940 € inkl. MwSt.", "8.940 €"),
            ("38,90 € pro m², der Container hat 7 m³", "7 m³"),
            ("He weighs 24.6 kg as of Monday", "24.6 kg"),
            ("Vetmedin 5 mg: half a tablet twice a day", "half a tablet"),
            ("la barra libre es solo de 4 horas, hasta la 1", "4 horas"),
        ] {
            assert!(values(sentence).contains(&value.to_string()), "{sentence}");
        }
    }

    #[test]
    fn in_german_a_capital_names_someone_only_after_a_title() {
        let v = values("Die Nachbarin links, Frau Kowalczyk, hat sich über den Lärm beschwert.");
        assert_eq!(v, ["Kowalczyk"]);
        let v = values("Unser Elektriker ist Hr. Yıldız von der Fa. Elektro Brandl.");
        assert_eq!(v, ["Brandl", "Elektro", "Yıldız"]);
        assert!(values("Hoffentlich regnet es dann nicht die ganze Zeit.").is_empty());
        // English keeps its names, and a German aside in it changes nothing.
        let v = values("My neighbour Siobhán walks him at lunch, das ist super.");
        assert_eq!(v, ["Siobhán"]);
    }
}
