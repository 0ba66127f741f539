//! Extraction: the sentences of a message that state a hard value, cut to a short window
//! around their values. Mechanical (no model call), so replay extracts the same lines.

use super::LedgerLine;
use crate::core::prose::bare;
use regex::Regex;
use std::sync::LazyLock;

/// Words of context kept before the first value and after the last.
const WORDS_BEFORE: usize = 12;
const WORDS_AFTER: usize = 8;

fn re(pattern: &str) -> Regex {
    // The patterns are constants covered by tests; failing to compile is a build bug.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad built-in regex {pattern}: {e}"))
}

/// Month names and their usual short forms (a bare "May" or "March" is not a date: a day
/// must stand beside it).
const MONTH: &str = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?";
/// Units a number is said with: durations, sizes, rates, shares, money.
const UNIT: &str = r"(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|nights?|weeks?|months?|years?|[kmgtp]i?b|bytes?|%|percent|per\s?cent|x|req(?:uest)?s?(?:/s|/min|\s(?:a|per)\s(?:second|minute|hour|day))|rps|qps|rpm|users?|seats?|nodes?|replicas?|cores?|bikes?|retries|attempts|eur|usd|gbp|chf|euros?|dollars?)";
/// Numbers said in words, for durations and counts ("two weeks", "three replicas").
const NUMBER_WORD: &str = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|a\s+hundred|a\s+thousand)";

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
        r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?\b".to_string(), // time
        r"\b\d{1,2}\s?[ap]\.?m\b\.?".to_string(),                 // 3pm
        r"[$€£]\s?\d[\d,.]*\b".to_string(),                         // money
        format!(r"\b\d+(?:[.,]\d+)*\s?-?(?i:{UNIT})\b"),           // 25 MB, 100 requests a minute, 85%
        r"\b\d+(?:\.\d+)?\s?%".to_string(),                        // 85%
        format!(r"(?i:\b{NUMBER_WORD}\s+{UNIT})\b"),           // two weeks
        r"\b\d+(?:[.,]\d+)+\b".to_string(),                         // 1,024 · 16.2 · IPs
        r"\b\d{2,}\b".to_string(),                                 // numbers
        r"\b(?:at|to|is|of|every|max|maximum|min|minimum|limit|only|=)\s+\d\b".to_string(), // "capped at 5"
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
        r"\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b".to_string(),
    ]
    .join("|"))
});

/// A capitalised word inside a sentence: a name ("Porto", "Stripe", "Maria Okafor").
static NAME: LazyLock<Regex> = LazyLock::new(|| re(r"\s([A-Z][a-z]{2,}(?:[A-Z][a-z]+)*)\b"));
/// A name that opens a sentence and does something ("Priya's team", "Dana owns …"):
/// the sentence's first word counts only in these shapes.
static LEADING_NAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^([A-Z][a-z]{2,})(?:'s\b|\s+(?:owns|runs|leads|manages|handles|maintains|approved|approves|wrote|built|is responsible|is in charge|takes care|looks after|will own|will handle|and [A-Z][a-z]+))",
    )
});
/// Capitalised words that open sentences without naming anyone.
const NOT_NAMES: &[&str] = &[
    "The", "This", "That", "These", "Those", "There", "Here", "What", "When", "Which", "Who",
    "Our", "Your", "Their", "And", "But", "Also", "Please", "Thanks", "Yes", "Okay",
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

/// The values a sentence states.
pub fn values(sentence: &str) -> Vec<String> {
    let mut out: Vec<String> = VALUE
        .find_iter(sentence)
        .map(|m| {
            m.as_str()
                .trim_matches('`')
                .trim_end_matches(['.', ','])
                .to_string()
        })
        .filter(|v| v.len() >= 2 && !english_compound(v))
        .collect();
    for c in NAME
        .captures_iter(sentence)
        .chain(LEADING_NAME.captures_iter(sentence.trim_start()))
    {
        if let Some(m) = c.get(1)
            && !NOT_NAMES.contains(&m.as_str())
        {
            out.push(m.as_str().to_string());
        }
    }
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

static WHEN: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)^(?:\d{{4}}-\d{{1,2}}-\d{{1,2}}.*|.*\b{MONTH}\b.*|\d{{1,2}}(?:st|nd|rd|th)|\d{{1,2}}:\d{{2}}.*|\d{{1,2}}\s?[ap]\.?m\.?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?)$"
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
    } else if v.starts_with(|c: char| c.is_ascii_digit() || "$€£".contains(c)) {
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

/// The sentences of one line as written (with their spaces): split at sentence ends
/// (". " etc.), so paths and version numbers stay whole.
pub(super) fn line_sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = line.as_bytes();
    for i in 0..bytes.len() {
        if matches!(bytes[i], b'.' | b'!' | b'?')
            && bytes.get(i + 1).is_some_and(|b| *b == b' ')
            && i + 2 < bytes.len()
        {
            out.push(&line[start..=i]);
            start = i + 2;
        }
    }
    out.push(&line[start..]);
    out
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

/// The ledger lines of one message.
pub fn extract(text: &str, user: bool) -> Vec<LedgerLine> {
    let mut out: Vec<LedgerLine> = Vec::new();
    for s in sentences(text) {
        if s.ends_with('?') {
            continue;
        }
        let vals = values(s);
        if vals.is_empty() {
            continue;
        }
        let line = window(s, &vals);
        if !out.iter().any(|l| l.text == line) {
            out.push(LedgerLine {
                text: line,
                user,
                corrects: false,
            });
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::ledger::lines::texts;

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
}
