//! The words recall reads: every script, accents folded, identifiers whole and in parts,
//! function words and contraction tails dropped, endings folded.

/// Words that say nothing about what a sentence is about.
const STOP: &[&str] = &[
    "a",
    "about",
    "after",
    "again",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "for",
    "from",
    "had",
    "has",
    "have",
    "he",
    "her",
    "here",
    "hi",
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "let",
    "me",
    "more",
    "my",
    "no",
    "not",
    "now",
    "of",
    "ok",
    "okay",
    "on",
    "or",
    "our",
    "out",
    "please",
    "she",
    "should",
    "so",
    "some",
    "tell",
    "than",
    "thank",
    "thanks",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "to",
    "up",
    "us",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "will",
    "with",
    "would",
    "yes",
    "you",
    "your",
    // Contractions' first halves, and what small talk says.
    "alright",
    "awesome",
    "bye",
    "cheers",
    "cool",
    "fine",
    "glad",
    "good",
    "got",
    "great",
    "hello",
    "hey",
    "lot",
    "much",
    "nice",
    "perfect",
    "really",
    "see",
    "sorry",
    "sound",
    "sure",
    "very",
    "welcome",
    "well",
    "yeah",
    "yep",
    "again",
    "remind",
    "remember",
    "said",
    "say",
    "told",
    "mentioned",
    "earlier",
    "know",
];

/// Characters a word is made of (an identifier's separators and apostrophes included;
/// they are split or dropped after).
pub(super) fn word_char(c: char) -> bool {
    c.is_alphanumeric() || "-_./:@'’".contains(c)
}

/// Ideographs and kana: written without spaces, so each is a word of its own.
fn ideograph(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xf900..=0xfaff | 0x20000..=0x2fa1f)
}

/// `text` lower case with its accents folded ("Zoë" → "zoe", "Łukasz" → "lukasz",
/// "Sørensen" → "sorensen"), so a name typed without them still matches. Only Latin,
/// Greek and Cyrillic letters are decomposed and lose their marks: in other scripts the
/// marks are parts of the letters.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut after_alphabetic = false;
    for c in text.to_lowercase().chars() {
        if unicode_normalization::char::is_combining_mark(c) {
            // A mark typed apart ("e" + U+0308) goes with the letter it follows.
            if !after_alphabetic {
                out.push(c);
            }
            continue;
        }
        after_alphabetic = (c as u32) < 0x0530;
        if !after_alphabetic {
            if ideograph(c) {
                out.push(' ');
                out.push(c);
                out.push(' ');
            } else {
                out.push(c);
            }
            continue;
        }
        unicode_normalization::char::decompose_canonical(c, |d| {
            if unicode_normalization::char::is_combining_mark(d) {
                return;
            }
            match d {
                'ł' => out.push('l'),
                'ø' => out.push('o'),
                'đ' | 'ð' => out.push('d'),
                'ħ' => out.push('h'),
                'ı' => out.push('i'),
                'ß' => out.push_str("ss"),
                'æ' => out.push_str("ae"),
                'œ' => out.push_str("oe"),
                'þ' => out.push_str("th"),
                d => out.push(d),
            }
        });
    }
    out.replace('’', "'")
}

/// A word without its contraction's tail ("that's" → "that", "we'll" → "we"); `None` for
/// a negated auxiliary ("don't"), a function word whole. Other apostrophes go ("O'Brien"
/// → "obrien").
fn uncontract(raw: &str) -> Option<String> {
    if raw.ends_with("n't") {
        return None;
    }
    if let Some((head, tail)) = raw.rsplit_once('\'')
        && ["s", "re", "ve", "ll", "d", "m"].contains(&tail)
    {
        return Some(head.replace('\'', ""));
    }
    Some(raw.replace('\'', ""))
}

/// The words of `text` as the index sees them: folded (lower case, no accents),
/// identifiers whole and split at `-_./:@`, function words out, simple endings folded.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let shouted = shouted(text);
    // Token by token, so a function word in capitals is known where it stands.
    for token in text.split(|c: char| !word_char(c)) {
        let acronym = !shouted && acronym(token);
        let folded = fold(token);
        for raw in folded.split(|c: char| !word_char(c)) {
            push_words(raw, acronym, &mut out);
        }
    }
    out
}

/// The words of one folded token (see [`words`]).
fn push_words(raw: &str, acronym: bool, out: &mut Vec<String>) {
    let Some(raw) = uncontract(raw.trim_matches('\'')) else {
        return;
    };
    let whole = raw.trim_matches(|c: char| !c.is_alphanumeric());
    if whole.is_empty() {
        return;
    }
    let parts: Vec<&str> = whole
        .split(|c: char| !c.is_alphanumeric())
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() > 1 {
        out.push(whole.to_string());
        // "wi-fi" is also "wifi", "on-call" also "oncall".
        out.push(parts.concat());
    }
    for p in parts {
        let stem = fold_ending(p);
        if (STOP.contains(&p) || STOP.contains(&stem.as_str())) && !acronym {
            continue;
        }
        out.push(stem);
    }
}

/// Whether most of a text's letters are capitals: then none of them marks an acronym.
fn shouted(text: &str) -> bool {
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let capitals = text.chars().filter(|c| c.is_uppercase()).count();
    capitals * 2 > letters
}

/// A function word written in capitals: "IT" (the helpdesk) is not "it", nor "US" "us"
/// (measured: "What's the number for IT?" found nothing, every word of it a function
/// word). Only the token itself: "9 AM" leaves every other "am" a function word.
fn acronym(token: &str) -> bool {
    token.len() >= 2 && token.chars().all(|c| c.is_ascii_uppercase())
}

/// "listens" → "listen", "owners" → "owner", "listening" → "listen": enough to match a
/// question's form of a word with a statement's, never applied to numbers or short words.
/// The endings are English; a word of another script keeps its own.
fn fold_ending(w: &str) -> String {
    if w.chars().count() <= 3 || !w.chars().all(char::is_alphabetic) {
        return w.to_string();
    }
    for (suffix, shortest) in [("ing", 4), ("ed", 4), ("s", 3)] {
        if let Some(stem) = w.strip_suffix(suffix)
            && stem.chars().count() >= shortest
            && !stem.ends_with('s')
        {
            return stem.to_string();
        }
    }
    w.to_string()
}

/// The words of a sentence as written, lower case, for the checks below.
pub(super) fn plain_words(sentence: &str) -> Vec<String> {
    fold(sentence)
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').to_string())
        .filter(|w| !w.is_empty())
        .collect()
}
