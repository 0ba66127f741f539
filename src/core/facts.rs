//! Hard facts in a text.
//!
//! The specifics of a text — paths, URLs, numbers, code identifiers, `[DECISION]` lines —
//! pulled out mechanically and ranked (decisions first, then by how often they occur,
//! then by first appearance). Used to list the files a checkpoint names and by the
//! deterministic test summarizer; what survives compression is the ledger's job
//! (`core::ledger`).

use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FactKind {
    Decision,
    Url,
    Path,
    Identifier,
    Number,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Fact {
    pub kind: FactKind,
    pub text: String,
}

static URL: LazyLock<Regex> = LazyLock::new(|| re(r#"https?://[^\s<>"'`\)\]\}]+"#));
static PATH: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:~|\.{1,2})?/?(?:[A-Za-z0-9_.@-]+/)+[A-Za-z0-9_.@-]+|\b[A-Za-z0-9_-]+\.(?:rs|py|ts|tsx|js|jsx|go|c|h|cc|cpp|hpp|java|kt|rb|php|cs|swift|toml|json|yaml|yml|md|txt|sh|sql|html|css|lock|conf|ini|env|xml|proto)\b",
    )
});
static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b|\b\d+(?:\.\d+)+\b|\b\d{2,}\b"));
static IDENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"`[^`\n]{2,60}`|\b[A-Za-z_][A-Za-z0-9_]*(?:(?:::|\.)[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z]+[0-9]*(?:[A-Z][a-z0-9]*)+\b|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b",
    )
});
static DECISION: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?im)^\W*\[DECISION\]\W*(.+?)(?:\s+[-–—]\s*LOCKED)?\s*$"));

fn re(pattern: &str) -> Regex {
    // The patterns are constants covered by tests; failing to compile is a build bug.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad built-in regex {pattern}: {e}"))
}

/// Drop sentence punctuation after a match; a `)` only when it closes nothing inside.
fn trim_punct(mut s: &str) -> &str {
    loop {
        let t = s.trim_end_matches(['.', ',', ';', ':', '!', '?', '\'', '"']);
        let t = match t.strip_suffix(')') {
            Some(inner) if t.matches('(').count() < t.matches(')').count() => inner,
            _ => t,
        };
        if t.len() == s.len() {
            return t;
        }
        s = t;
    }
}

/// All facts in `text`, deduplicated, in order of first appearance, with their counts.
fn scan(text: &str) -> Vec<(Fact, usize)> {
    let mut order: Vec<Fact> = Vec::new();
    let mut counts: HashMap<Fact, usize> = HashMap::new();
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let mut add =
        |kind: FactKind, s: &str, span: (usize, usize), taken: &mut Vec<(usize, usize)>| {
            if taken.iter().any(|&(a, b)| span.0 < b && a < span.1) {
                return;
            }
            taken.push(span);
            let fact = Fact {
                kind,
                text: s.to_string(),
            };
            let n = counts.entry(fact.clone()).or_insert(0);
            if *n == 0 {
                order.push(fact);
            }
            *n += 1;
        };
    for cap in DECISION.captures_iter(text) {
        if let Some(m) = cap.get(1) {
            let t = m.as_str().trim();
            if !t.is_empty() {
                add(FactKind::Decision, t, (m.start(), m.end()), &mut taken);
            }
        }
    }
    for (kind, regex) in [
        (FactKind::Url, &*URL),
        (FactKind::Path, &*PATH),
        (FactKind::Identifier, &*IDENT),
        (FactKind::Number, &*NUMBER),
    ] {
        for m in regex.find_iter(text) {
            if kind == FactKind::Number && is_enumerator(text, m.start(), m.end()) {
                continue;
            }
            let s = trim_punct(m.as_str());
            let s = s.trim_matches('`');
            if s.len() < 2 || (kind == FactKind::Path && !looks_like_path(s)) {
                continue;
            }
            add(kind, s, (m.start(), m.start() + s.len().max(1)), &mut taken);
        }
    }
    order
        .into_iter()
        .map(|f| {
            let n = counts.get(&f).copied().unwrap_or(1);
            (f, n)
        })
        .collect()
}

/// "10." or "10)" opening a line is list numbering, not a fact (a model stuck in a loop
/// numbers dozens of items; measured with a 0.5B model).
fn is_enumerator(text: &str, start: usize, end: usize) -> bool {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    text[start..end].chars().all(|c| c.is_ascii_digit())
        && text[line_start..start].trim().is_empty()
        && text[end..].starts_with(['.', ')'])
        && text[end + 1..].starts_with(|c: char| c.is_whitespace())
}

fn looks_like_path(s: &str) -> bool {
    // "and/or", "a/b" in prose are not paths; require an extension or 3+ segments or a
    // leading / ~ .
    s.contains('.') || s.matches('/').count() >= 2 || s.starts_with(['/', '~', '.'])
}

/// Facts of `text`, most important first.
pub fn extract(text: &str) -> Vec<Fact> {
    let mut scanned: Vec<(usize, (Fact, usize))> = scan(text).into_iter().enumerate().collect();
    scanned.sort_by(|(ia, (fa, na)), (ib, (fb, nb))| {
        let rank = |f: &Fact| u8::from(f.kind != FactKind::Decision);
        rank(fa).cmp(&rank(fb)).then(nb.cmp(na)).then(ia.cmp(ib))
    });
    scanned.into_iter().map(|(_, (f, _))| f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(facts: &[Fact]) -> Vec<&str> {
        facts.iter().map(|f| f.text.as_str()).collect()
    }

    #[test]
    fn finds_paths_urls_numbers_identifiers_and_decisions() {
        let text = "Edit src/auth/login.rs and ./config.toml, see https://example.com/docs?x=1.\n\
                    The server listens on port 8080 with 1,024 workers, version 2.3.1.\n\
                    Call parse_header() then `HttpClient::send` via UserSession.refresh().\n\
                    [DECISION] Use JWT for sessions - LOCKED";
        let facts = extract(text);
        let t = texts(&facts);
        assert_eq!(t[0], "Use JWT for sessions", "decisions rank first");
        for want in [
            "src/auth/login.rs",
            "./config.toml",
            "https://example.com/docs?x=1",
            "8080",
            "1,024",
            "2.3.1",
            "parse_header",
            "HttpClient::send",
            "UserSession.refresh()",
        ] {
            assert!(t.contains(&want), "missing {want} in {t:?}");
        }
        // A URL's parts are not also reported as paths or numbers.
        assert!(!t.contains(&"example.com/docs?x=1"));
    }

    #[test]
    fn prose_is_not_mistaken_for_facts() {
        let facts = extract("Yes, and/or maybe. I think it is 5 or 6 things, ok?");
        assert!(facts.is_empty(), "{facts:?}");
    }

    #[test]
    fn list_numbering_is_not_a_fact() {
        let facts =
            extract("Steps:\n10. Use a cache\n11) Add an index\n  12. Retry after 30 seconds");
        let t = texts(&facts);
        assert_eq!(t, vec!["30"], "{t:?}");
        // A version at the start of a line is still a fact.
        assert_eq!(texts(&extract("2.4.1. is out")), vec!["2.4.1"]);
    }

    #[test]
    fn ranking_prefers_frequent_facts() {
        let facts = extract("port 9000 once. retry_count here, retry_count there, retry_count.");
        assert_eq!(facts[0].text, "retry_count");
    }
}
