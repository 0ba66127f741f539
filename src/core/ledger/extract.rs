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

/// Hard values: what makes a sentence worth keeping word for word.
pub(super) static VALUE: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"https?://[^\s<>`)\]]+",                            // URL
        r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+",                    // e-mail
        r"|(?:~|\.{1,2})?/?(?:[\w.@-]+/)+[\w.@-]+(?::\d+)?", // path
        r"|\b[\w-]+\.(?:rs|py|ts|js|go|c|h|cpp|java|rb|toml|json|ya?ml|md|txt|sh|sql|conf|ini|env|xml|lock|proto|html|css)\b(?::\d+)?",
        r"|\b\d{1,2}:\d{2}(?::\d{2})?\b", // time
        r"|\b\d+(?:[.,]\d+)+\b",          // 1,024 · 16.2 · IPs
        r"|\b\d{2,}\b",                   // numbers
        r"|`[^`\n]{2,60}`",               // code
        r"|\b[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?", // paths in code
        r"|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:\(\))?", // snake_case
        r"|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b", // CONSTANT_CASE
        r"|\b[a-z]+[0-9][a-z0-9]*(?:-[a-z0-9]+)+\b|\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*-[a-z]*[0-9][a-z0-9]*\b", // kebab-case with a digit: orchid-5g
        r"|\b[a-z][a-z0-9]*(?:-[a-z0-9]+){2,}\b", // kebab-case, three parts or more: shop-assets-eu
        r"|\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*\.(?:internal|local|lan|com|org|net|io|dev|example)\b", // host
        r"|\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b",
        r"|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2}\b",
    ))
});

/// A capitalised word inside a sentence: a name ("Porto", "Stripe").
static NAME: LazyLock<Regex> = LazyLock::new(|| re(r"\s([A-Z][a-z]{2,}(?:[A-Z][a-z]+)*)\b"));

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
    for c in NAME.captures_iter(sentence) {
        if let Some(m) = c.get(1) {
            out.push(m.as_str().to_string());
        }
    }
    out.sort();
    out.dedup();
    out
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
