//! Values: what makes a sentence worth a ledger line — a number, time, date, version,
//! path, URL, identifier, amount or name — where each stands in a sentence, and what kind
//! it is (a later line replaces an earlier one only with a value of the kind it
//! replaces). Shared by extraction, compaction, superseding and weighing.

use regex::Regex;
use std::sync::LazyLock;

pub(super) fn re(pattern: &str) -> Regex {
    // The patterns are constants covered by tests; failing to compile is a build bug.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad built-in regex {pattern}: {e}"))
}

/// Month names and their usual short forms (a bare "May" or "March" is not a date: a day
/// must stand beside it).
const MONTH: &str = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?";
/// Units a number is said with: durations, sizes, rates, shares, money, doses; durations
/// and head counts in German, Spanish, French and Italian too ("4 horas", "3 Wochen").
const UNIT: &str = r"(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|nights?|weeks?|months?|years?|[kmgtp]i?b|bytes?|%|percent|per\s?cent|x|req(?:uest)?s?(?:/s|/min|\s(?:a|per)\s(?:second|minute|hour|day))|rps|qps|rpm|users?|seats?|nodes?|replicas?|cores?|bikes?|retries|attempts|eur|usd|gbp|chf|euros?|dollars?|mg|g|kg|ml|cl|dl|l|mm|cm|m|km|kw|kwh|w|mah|mph|kph|km/h|lbs?|oz|ft|inch|inches|tsp|tbsp|teaspoons?|tablespoons?|cups?|tablets?|pills?|capsules?|people|guests|adults|kids|children|quid|pounds?|grand|k|miles?|beds?|bedrooms?|bathrooms?|bags?|boxes|rolls?|packs?|bottles?|tins?|pairs?|slices?|loaves|eggs|rooms?|floors?|storeys?|stops?|nights?|shifts?|sessions?|lessons?|laps?|sets?|reps?|horas?|minutos?|días?|semanas?|meses|mes|años?|personas?|stunden?|minuten|tage?|wochen?|monate?|jahre?|personen|heures?|jours?|semaines?|mois|ans|personnes?|ore|giorni|settimane|mesi|anni|persone)";
/// Numbers said in words, for durations, counts and doses ("two weeks", "three
/// replicas", "half a tablet").
const NUMBER_WORD: &str = r"(?:half\s+an?|(?:a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)\s+(?:hundred|thousand)(?:\s+and\s+(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[-\s](?:one|two|three|four|five|six|seven|eight|nine))?|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|one|two|three|four|five|six|seven|eight|nine))?|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[-\s](?:one|two|three|four|five|six|seven|eight|nine))?|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+dozen)";
/// An hour said in words.
pub(super) const HOUR_WORD: &str =
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)";

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
        r"\b\d+(?:[.,]\d+)*\s?[€£$]".to_string(),                   // 8.940 €, as most of Europe writes it
        r"\b\d+(?:[.,]\d+)*\s?(?:m²|m³|°[CF]?)".to_string(),          // 38 m², 7 m³, 21 °C
        format!(r"\b\d+(?:[.,]\d+)*\s?-?(?i:{UNIT})\b"),           // 25 MB, 100 requests a minute, 85%
        r"\b\d+(?:\.\d+)?\s?%".to_string(),                        // 85%
        format!(r"(?i:\b{NUMBER_WORD}\s+{UNIT})\b"),           // two weeks, thirty-five people
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

/// A single digit said as a setting ("capped at 5", "retries = 3"), an age ("she's 7"),
/// a size or a place's number ("size 8", "gate 4", "room 2b"): the digit alone is the
/// value (a lone digit elsewhere is usually prose).
static SMALL_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:\b(?:at|to|is|are|was|of|every|max|maximum|min|minimum|limit|only|after|before|from|till|until|by|aged|size|room|gate|platform|terminal|table|seat|bay|desk|locker|ward|floor|level|flat|unit|no)|['’]s|=)\s+(\d[a-z]?)(?:[^\d.,\w]|[.,](?:\s|$)|$)",
    )
});

/// An hour said in words after "at", "until" (an hour alone is prose):
/// "it starts at eight now".
static HOUR_AT: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)\b(?:at|until|till)\s+({HOUR_WORD})(?:\s+(?:now|tonight|sharp|then|instead|on\s+the\s+dot)\b|\s*[,.;!?)]|\s*$)"
    ))
});

/// "wed", "sat", "sun" and "mon" typed in lower case are words too: days only before a
/// clock time ("sat 10am", "sun at 2", not "we sat 3 hours").
static DAY_BEFORE_TIME: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b(mon|wed|sat|sun)\s+(?:at\s+\d|\d{1,2}(?:[:.][0-5]\d|\s?[ap]\.?m\b))"));

/// A name typed in lower case, after a title or a relation ("mrs achterberg", "my uncle
/// femi, he …"): after a relation only where the name ends its clause, since "my sister
/// said" names no one; a title not after a number ("a 200 ms delay").
static LOWER_NAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:^|[^\d\s]\s+)(?i:(?:mr|mrs|ms|dr)\.?)\s+(\p{Ll}{3,})\b|(?i:\bmy\s+(?:uncle|aunt|auntie|sister|brother|cousin|mum|mom|dad|nan|gran|grandma|grandad|grandpa|son|daughter|husband|wife|partner|boyfriend|girlfriend|flatmate|boss|neighbour|neighbor))\s+(\p{Ll}{3,})(?:\s*[,.;!?)]|\s*$|\s+and\b)",
    )
});

/// A name typed in lower case where the words around it say it is one: after "is
/// called" or "named" ("the admin account is called bartek", "a dog named rufus"), or
/// opening a clause that stands in for someone ("… and jamie's filling in on drums").
/// Measured: both lines left the ledger as prose, and the user name and the new drummer
/// with them. Not "it's called off", "is called twice", "mum's standing in the queue".
static NAMED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i:\b(?:is|'s|’s|are|was|were|be)\s+called|\bnamed)\s+(\p{Ll}[\p{Ll}\d_-]{2,}(?:\.[\p{Ll}\d_-]+)*)(?:\s*[,.;!?)]|\s*$|\s+and\b)|(?:^|[,;.!?]\s*|\b(?:and|so|but|then|now)\s+)(\p{Ll}{3,})(?:'s|’s|'ll|\s+is|\s+will(?:\s+be)?)\s+(?:(?:filling|standing|stepping|fill|stand|step)\s+in\s+(?:for|on|as)|covering\s+for|subbing\s+(?:for|in))\b",
    )
});

/// What someone is allergic to: a fact with no figure and no capital that matters more
/// than most ("he's allergic to penicillin").
static ALLERGY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\ballerg(?:ic|y)\s+to\s+(?:the\s+|an?\s+|my\s+|our\s+)?(\p{L}{3,}(?:\s+and\s+\p{L}{3,})?)",
    )
});

/// A room, a flat, a seat with a number and a letter ("room 12b", "flat 3a"), or a hall
/// with a letter, kept with its noun ("hall B": a letter alone is found in any text).
static PLACE_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(?i:room|flat|apartment|apt|unit|gate|platform|seat|bay|desk|locker|ward|block|suite)\s+((?i:\d+[a-z]|[a-z]\d+))\b|\b((?i:hall|room|gate|terminal|block|wing|court|pitch|stage|zone|bay|car|coach)\s+[A-HJ-Z])\b",
    )
});

/// What a word is after "password is", "pin:", "username =": a credential need not look
/// like a value ("correcthorsebattery"). Words that say where it is written are not it.
/// Said with what it opens ("the password to the tunnel is 'saltwind'", "the pin for
/// the garage is 4471"), only in quotes or with a figure: "the password for the guest
/// network is expired" names none.
static CREDENTIAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:password|passcode|passphrase|pin|username|user\s+name|login|wifi|ssid)(?:\s*(?:is|=|:)\s+['‘“]?([^\s,;'‘’“”][^\s,;]{2,}[^\s,;.!?'‘’“”])|\s+(?:to|for|of|on)(?:\s+[\w'’-]+){1,3}?\s+(?:is|=|:)\s+(?:['‘“]([^\s'‘’“”]{3,})['’”]|([^\s,;]*\d[^\s,;]*[^\s,;.!?])))",
    )
});
/// Words a capture after "password is", "my sister", "can't have" or "dr" may land on
/// that name nothing: "the wifi is really slow", "I'll ask my boss too.", "I can't have
/// the day off", "see the dr tomorrow".
const NOT_A_THING: &[&str] = &[
    "the",
    "a",
    "an",
    "on",
    "in",
    "at",
    "to",
    "too",
    "and",
    "or",
    "under",
    "behind",
    "inside",
    "written",
    "printed",
    "stuck",
    "somewhere",
    "still",
    "also",
    "same",
    "what",
    "that",
    "this",
    "just",
    "not",
    "down",
    "out",
    "off",
    "broken",
    "working",
    "slow",
    "fast",
    "fine",
    "good",
    "bad",
    "terrible",
    "rubbish",
    "really",
    "very",
    "so",
    "wrong",
    "right",
    "changed",
    "different",
    "easy",
    "hard",
    "long",
    "short",
    "any",
    "anything",
    "much",
    "more",
    "today",
    "tomorrow",
    "tonight",
    "yesterday",
    "again",
    "now",
    "then",
    "later",
    "soon",
    "here",
    "there",
    "about",
    "appointment",
    "delay",
    "said",
    "says",
    "will",
    "can",
    "was",
    "for",
    "with",
    "it",
    "that's",
    "them",
    "him",
    "her",
    "back",
    "away",
    "twice",
    "once",
    "early",
    "late",
    "something",
    "daily",
    "weekly",
    "hourly",
    "monthly",
    "only",
    "often",
    "first",
    "last",
    "he",
    "she",
    "who",
    "someone",
    "somebody",
    "nobody",
    "everyone",
    "everybody",
    "anyone",
    "one",
    "after",
];

/// A need a person states about food or drink: "I'm vegetarian", "she can't have
/// gluten", "Noor doesn't eat meat" — no figure, no capital, and the thing a host must
/// not get wrong.
static DIET: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(vegetarian|vegan|pescatarian|gluten[- ]free|dairy[- ]free|nut[- ]free|halal|kosher|coeliac|celiac|lactose[- ]intolerant|teetotal)\b|\b(?:can't|cannot|can not)\s+(?:have|eat|drink)\s+(?:any\s+)?(\p{L}{3,})|\b(?:doesn't|don't|won't|never)\s+(?:eat|eats|drink|touch)\s+(?:any\s+)?(\p{L}{3,})",
    )
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
    for m in SMALL_NUMBER
        .captures_iter(sentence)
        .chain(HOUR_AT.captures_iter(sentence))
        .chain(DAY_BEFORE_TIME.captures_iter(sentence))
        .filter_map(|c| c.get(1))
        .chain(
            PLACE_NUMBER
                .captures_iter(sentence)
                .filter_map(|c| c.get(1).or_else(|| c.get(2))),
        )
        .chain(
            CREDENTIAL
                .captures_iter(sentence)
                .chain(ALLERGY.captures_iter(sentence))
                .chain(LOWER_NAME.captures_iter(sentence))
                .chain(NAMED.captures_iter(sentence))
                .chain(DIET.captures_iter(sentence))
                .filter_map(|c| c.iter().skip(1).flatten().next())
                .filter(|m| {
                    let w = m.as_str().to_lowercase();
                    // "is called automatically": a long "-ly" word is how, not who.
                    let how = w.len() >= 8 && w.ends_with("ly");
                    !NOT_A_THING.contains(&w.as_str()) && !how
                }),
        )
    {
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
    LazyLock::new(|| re(&format!(r"(?i)^{NUMBER_WORD}\s")));

static WHEN: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)^(?:\d{{4}}-\d{{1,2}}-\d{{1,2}}.*|.*\b{MONTH}\b.*|\d{{1,2}}(?:st|nd|rd|th)|\d{{1,2}}:\d{{2}}.*|\d{{1,2}}\s?[ap]\.?m\.?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun|(?:half|quarter)\s+(?:past\s+|to\s+)?{HOUR_WORD}|.*o'clock|{HOUR_WORD})$"
    ))
});

/// The kind of `value` (as [`values`] returns it).
pub(super) fn kind(value: &str) -> Kind {
    let v = value.trim();
    if v.starts_with("http://") || v.starts_with("https://") {
        Kind::Url
    } else if v.contains('@') && v.contains('.') && !v.contains(' ') {
        Kind::Email
    } else if WHEN.is_match(v) {
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
