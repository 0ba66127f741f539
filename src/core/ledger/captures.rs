//! Values the words around them make values: "capped at 5", "at eight", "is called
//! bartek", "the password is 'saltwind'", "allergic to penicillin", "she can't have
//! gluten" — a digit, a word or a lower-case name that alone would be prose.

use super::patterns::{HOUR_WORD, re};
use regex::{Match, Regex};
use std::sync::LazyLock;

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

/// A colour chosen: "grout colour is going to be charcoal", "the colour's sage green",
/// "painted in dark grey" — no figure and no capital, and what a decorator must not get
/// wrong. Only colour words count ("the colour is fine" names none).
static COLOUR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:colou?rs?\s*(?:is|are|will\s+be|is\s+going\s+to\s+be|'s|’s|:|=)|painted(?:\s+it|\s+them)?(?:\s+in)?|(?:going|gone)\s+with)\s+(?:a\s+|an\s+|in\s+)?((?:(?:light|dark|pale|deep|bright|warm|cool|matte?|gloss)\s+)?(?:white|black|grey|gray|charcoal|anthracite|navy|blue|green|red|yellow|orange|pink|purple|brown|beige|cream|ivory|teal|turquoise|olive|sage|mint|gold|silver|bronze|copper|taupe|terracotta|burgundy|maroon|lilac|lavender|mustard|ochre|magenta|khaki|slate|oak|walnut)(?:\s+(?:green|grey|gray|blue|white))?)\b",
    )
});

/// The values the words around them say are values: a digit after "capped at", an hour
/// after "at", a name after "is called", a password, an allergy, a diet, a colour chosen.
pub(super) fn captured(sentence: &str) -> Vec<Match<'_>> {
    SMALL_NUMBER
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
                .chain(COLOUR.captures_iter(sentence))
                .filter_map(|c| c.iter().skip(1).flatten().next())
                .filter(|m| {
                    let w = m.as_str().to_lowercase();
                    // "is called automatically": a long "-ly" word is how, not who.
                    let how = w.len() >= 8 && w.ends_with("ly");
                    !NOT_A_THING.contains(&w.as_str()) && !how
                }),
        )
        .collect()
}
