//! A ledger line parsed once for the rules that compare lines (`supersede.rs`, `mend.rs`):
//! its values and their kinds, its subject words, whether it says a change or takes back
//! what was said; and the readings both rules share — a change said of a value, and the
//! words a value is said of (its heads). A value named as replaced is `replaced.rs`.

use super::LedgerLine;
use super::becomes::{clock_time, could_become};
use super::change::{holds_phrase, says_change, takes_back};
use super::values::{Kind, kind, values};
use crate::core::prose::split_sentences;
use std::cell::OnceCell;

/// Words too common to tie two lines to one subject.
const STOP: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "into", "will", "would", "should", "have",
    "has", "had", "was", "were", "are", "our", "your", "their", "there", "what", "when", "which",
    "who", "about", "also", "just", "then", "than", "them", "they", "its", "not", "but", "all",
    "any", "can", "use", "using", "used", "set", "get", "now", "new", "final", "change", "changed",
    "plan", "another", "noted", "okay", "good", "great", "thanks", "please", "sure", "here",
    "some", "more", "most", "only", "each", "every", "been", "being", "does", "did", "done",
    "make", "made", "need", "needs", "let", "lets", "she", "her", "him", "his", "you", "because",
    "since", "while", "until", "though", "although", "where", "after",
    "before", // German: "und der Dachdecker kommt am 14.04."
    "der", "die", "das", "und", "den", "dem", "des", "ein", "eine", "einen", "ist", "sind", "mit",
    "für", "auf", "von", "zum", "zur", "wir", "ich", "sie", "nicht", "auch", "noch", "aber",
    "oder", "wenn", "dann", "hat", "haben", "wird", "bei", "nach", "uns", "unser", "unsere",
    "jetzt", "schon", "erst", "statt", "kommt", "kommen", "geht", "macht", "steht", "liegt",
    "gibt", "soll", "muss", "kann",
    // Spanish, French, Italian, Portuguese: "la ceremonia empieza a las 18:30".
    "las", "los", "una", "unos", "unas", "del", "que", "por", "para", "sin", "sus", "este", "esta",
    "estos", "estas", "ese", "esa", "pero", "como", "más", "muy", "hay", "está", "están", "ser",
    "tiene", "tienen", "nos", "les", "mis", "tus", "desde", "hasta", "entre", "sobre", "cuando",
    "donde", "también", "todo", "toda", "todos", "ahora", "des", "une", "qui", "pour", "avec",
    "sans", "dans", "par", "est", "sont", "nous", "vous", "ils", "elles", "mais", "comme", "plus",
    "très", "aux", "ces", "cette", "ses", "leur", "leurs", "été", "tout", "tous", "gli", "che",
    "sul", "sulla", "nel", "nella", "della", "dei", "delle", "sono", "non", "più", "anche",
    "questo", "questa", "dos", "das", "nas", "não", "mais", "muito", "são", "com", "sem",
];

pub(super) fn lower_words(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 3 && !STOP.contains(&w.as_str()))
        .collect()
}

/// The words that say what a line is about: its words outside its values, so two lines
/// naming paths under one directory ("src/cart/…") do not share a subject by it.
fn subject_words(text: &str, values: &[String]) -> Vec<String> {
    let mut rest = text.to_string();
    for v in values {
        rest = rest.replace(v.as_str(), " ");
    }
    lower_words(&rest)
}

/// A line with what `supersedes` needs, computed once.
pub(super) struct Parsed {
    pub(super) line: LedgerLine,
    pub(super) values: Vec<String>,
    pub(super) lower_values: Vec<String>,
    pub(super) lower: String,
    pub(super) words: Vec<String>,
    pub(super) change: bool,
    /// It opens with a sentence that takes back what was said before and names no value
    /// ("That was wrong. … the slot is Tuesday afternoons"): the change is said of every
    /// value that follows.
    pub(super) takes_back: bool,
    /// Earlier values this line names by their last part only (see [`named_by_tail`]),
    /// read once: every line it is held against asks.
    pub(super) tails: Vec<String>,
    /// Its values it names as replaced (lower case; see `Parsed::denies`), read on first
    /// ask and kept: each rule asks of every line it is held against.
    pub(super) denied: OnceCell<Vec<String>>,
    pub(super) kinds: Vec<Kind>,
    /// The named things it is about (lower case): lines about different ones are about
    /// different things, whatever words they share ("service-13" is not "service-14").
    pub(super) entities: Vec<String>,
    /// The subject words of the lines it replaced (see [`same_heads`]).
    pub(super) about: Vec<String>,
}

impl Parsed {
    /// Whether the change this line says is said of its `value`: it opens by taking back
    /// what came before, or a change word stands by the value.
    pub(super) fn change_said_of(&self, value: &str) -> bool {
        self.takes_back || change_near(&self.line.text, value)
    }

    pub(super) fn new(line: &LedgerLine) -> Parsed {
        let lower = line.text.to_lowercase();
        let values = values(&line.text);
        let change = says_change(&line.text) || closes_a_value(&line.text, &values);
        let words = subject_words(&line.text, &values);
        let kinds: Vec<Kind> = values.iter().map(|v| kind(v)).collect();
        let entities = values
            .iter()
            .zip(&kinds)
            .filter(|(_, k)| **k == Kind::Entity)
            .map(|(v, _)| v.to_lowercase())
            .collect();
        let mut parsed = Parsed {
            lower_values: values.iter().map(|v| v.to_lowercase()).collect(),
            kinds,
            entities,
            values,
            words,
            change,
            takes_back: split_sentences(&line.text).first().is_some_and(|first| {
                // The sentence, or the clause that opens it ("actually scrap the earlier
                // trip price, the school texted: … so it's €22 all in").
                let clause = first.split([',', ':', ';', '—']).next().unwrap_or(first);
                [*first, clause]
                    .iter()
                    .any(|s| takes_back(s) && super::values::values(s).is_empty())
            }),
            lower,
            line: line.clone(),
            about: Vec::new(),
            tails: Vec::new(),
            denied: OnceCell::new(),
        };
        parsed.tails = named_by_tail(&parsed);
        parsed
    }
}

/// Earlier values `newer` names by their last part only, beside a value that differs
/// from them in that part and that the change is said of: "the printer had already
/// grabbed .40, so the NAS is on 192.168.1.50 now" names 192.168.1.40 (lower case).
/// Measured: the old address stayed in the ledger beside the new one, in a line that
/// said only "it". Only a part after a dot (an address's last number, a version's last
/// figure), and not one said to stay ("the gateway stays .1") or offered beside it
/// ("-123 or -124"): a dash or slash part is a date's day or a phone line's.
fn named_by_tail(newer: &Parsed) -> Vec<String> {
    let words: Vec<&str> = newer.lower.split_whitespace().collect();
    let tails: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            let next = words.get(i + 1).map(|w| bare_word(w)).unwrap_or_default();
            let before = i
                .checked_sub(1)
                .map(|j| bare_word(words[j]))
                .unwrap_or_default();
            !STAYS.contains(&next.as_str()) && !STAYS.contains(&before.as_str())
        })
        .map(|(_, w)| {
            w.trim_end_matches([',', ';', '!', '?', ')'])
                .trim_end_matches('.')
        })
        .filter(|w| {
            w.len() >= 2 && w.starts_with('.') && w[1..].chars().all(|c| c.is_ascii_digit())
        })
        .collect();
    if tails.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (nv, said) in newer.lower_values.iter().zip(&newer.values) {
        let Some(cut) = nv.rfind('.') else {
            continue;
        };
        let stem = &nv[..cut];
        if stem.chars().filter(char::is_ascii_alphanumeric).count() < 3
            || !newer.change_said_of(said)
        {
            continue;
        }
        for tail in &tails {
            let old = format!("{stem}{tail}");
            if old != *nv && !out.contains(&old) {
                out.push(old);
            }
        }
    }
    out
}

/// Words beside a value's last part that say it stays or is one of two: "the gateway
/// stays .1", ".1 is still the gateway", "-123 or .124".
const STAYS: &[&str] = &[
    "stays",
    "stay",
    "still",
    "remains",
    "remain",
    "unchanged",
    "keeps",
    "keep",
    "kept",
    "or",
    "and",
    "too",
    "also",
];

/// Words before a value that may name what it is the value of.
const HEAD_WORDS: usize = 6;

/// The subject words among the few before `value` in `text`, wherever it is said ("I
/// meant €7,800 — he offered €7,800": the offer heads the second).
pub(super) fn heads(text: &str, value: &str) -> Vec<String> {
    sayings(text, value)
        .flat_map(|at| heads_before(&text[..at]))
        .collect()
}

/// Where `value` is said in `text` as itself, not inside a longer word or number ("40"
/// in "1,440", "Ann" in "Annual").
fn sayings<'a>(text: &'a str, value: &'a str) -> impl Iterator<Item = usize> + 'a {
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    text.match_indices(value)
        .map(|(at, _)| at)
        .filter(move |&at| {
            let (first, last) = (value.chars().next(), value.chars().last());
            let glued_before = word(first) && word(text[..at].chars().last());
            let glued_after = word(last) && word(text[at + value.len()..].chars().next());
            !glued_before && !glued_after
        })
}

/// The subject words among the last few of `before` (what a value standing after it
/// may be the value of).
pub(super) fn heads_before(before: &str) -> Vec<String> {
    let words: Vec<&str> = before.split_whitespace().collect();
    let from = words.len().saturating_sub(HEAD_WORDS);
    lower_words(&words[from..].join(" "))
}

impl Parsed {
    /// Whether `new` (a value of this line, of kind `new_kind`) can stand where `old` (a
    /// value of `older`, of kind `old_kind`) stood: of one kind, within the old one's
    /// unit and size, and a name only for a name said of the same thing; or a clock time
    /// for an hour said as a bare number ("at 8").
    pub(super) fn could_replace(
        &self,
        older: &Parsed,
        (old, old_kind): (&str, Kind),
        (new, new_kind): (&str, Kind),
    ) -> bool {
        if old_kind == Kind::Number && new_kind == Kind::When {
            return bare_hour(older, old) && clock_time(new);
        }
        old_kind == new_kind
            && could_become(old, new)
            && (new_kind != Kind::Name || same_heads(self, new, older, old))
    }
}

/// An hour said as a bare number after "at", "by", "until", "till", "from", "after" or
/// "before" (whole words: not "that 3", not "at 10:30"):
/// "every morning at 8" is a clock time that "9 pm" can replace (measured: moving the
/// feed to 9 pm left "at 8" standing, a number to the rules and no time).
fn bare_hour(line: &Parsed, value: &str) -> bool {
    if value.len() > 2 || !value.parse::<u8>().is_ok_and(|h| (1..=24).contains(&h)) {
        return false;
    }
    let words: Vec<&str> = line.lower.split_whitespace().collect();
    words.windows(2).any(|w| {
        ["at", "by", "until", "till", "from", "after", "before"].contains(&w[0])
            && w[1].trim_end_matches(['.', ',', ';', '!', '?']) == value
    })
}

/// A line that replaced others is also about what they were about: "scratch Seehof …
/// now looking at Haus Ahorn" took the place of "venue: … Seehof Brunnen", so "the
/// venue is Villa Sonnenberg now" replaces it in turn.
pub(super) fn same_heads(newer: &Parsed, new: &str, older: &Parsed, old: &str) -> bool {
    let new_heads = name_heads(&newer.line.text, new);
    name_heads(&older.line.text, old)
        .iter()
        .chain(&older.about)
        .any(|w| new_heads.contains(w))
}

/// What a name is said of: the words before it, or, where it opens its sentence, the
/// words after ("Bronagh is doing the cake").
fn name_heads(text: &str, name: &str) -> Vec<String> {
    let before = heads(text, name);
    if !before.is_empty() {
        return before;
    }
    text.find(name)
        .map(|at| {
            let after: Vec<&str> = text[at + name.len()..]
                .split_whitespace()
                .take(HEAD_WORDS)
                .collect();
            lower_words(&after.join(" "))
        })
        .unwrap_or_default()
}

/// Words before a value, and after it, where the change said of it stands.
const CHANGE_BEFORE: usize = 6;
const CHANGE_AFTER: usize = 2;
/// The first `limit` words of `after` that stay in the clause they open: up to a word
/// that opens another clause, or through one that ends with a stop or a comma.
fn own_clause<'a>(after: &[&'a str], limit: usize) -> Vec<&'a str> {
    let mut own = Vec::new();
    for w in after.iter().take(limit) {
        if CLAUSE_OPENERS.contains(&bare_word(w).as_str()) {
            break;
        }
        own.push(*w);
        if w.ends_with([',', '.', ';', ':', '!', '?']) {
            break;
        }
    }
    own
}

/// The subject words of the clauses `value` stands in: between the stops, commas,
/// colons and dashes around each saying of it.
pub(super) fn clause_words(text: &str, value: &str) -> Vec<String> {
    sayings(text, value)
        .flat_map(|at| {
            let (mut start, end) = clause_at(text, at, value.len());
            // A label's colon opens no clause: "Base salary: NOK 812,000" is said of the
            // base salary (measured: "she came back with 860k" on the base could not
            // find it).
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            if text[..start].ends_with(':')
                && text[line_start..start - 1].split_whitespace().count() <= LABEL_WORDS
            {
                start = line_start;
            }
            lower_words(&text[start..end].replace(value, " "))
        })
        .collect()
}

/// Where the clause holding the `len` bytes at `at` starts and ends: between the stops,
/// commas, colons and dashes around them.
fn clause_at(text: &str, at: usize, len: usize) -> (usize, usize) {
    let bound = |c: char| ",;:.!?—–\n".contains(c);
    let start = text[..at]
        .char_indices()
        .rfind(|(_, c)| bound(*c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let end = text[at + len..]
        .find(bound)
        .map_or(text.len(), |i| at + len + i);
    (start, end)
}

/// The subject words of the clauses of `text` that take back what was said and hold no
/// value: "the broadband line is wrong btw, Siobhán got them down to £38" says the new
/// amount of the broadband in the clause before it (measured: "| Broadband | £45 |"
/// stood beside it).
///
/// Only a clause that ends on what takes back ("… is wrong btw", "scratch that"), not one
/// that says something else was wrong ("sent the wrong invoice", "a scratch on the car
/// door"), and only for an amount said of it by a word that points back ("got them down
/// to £38", "it's £38"): "gym is wrong, and broadband went up to £50" says the broadband's
/// amount, not the gym's.
pub(super) fn taken_back_words(text: &str, value: &str) -> Vec<String> {
    let points_back = clause_words_all(text, value)
        .iter()
        .any(|w| POINTS_BACK.contains(&w.as_str()));
    if !points_back {
        return Vec::new();
    }
    text.split(|c: char| ",;.!?—–\n".contains(c))
        .filter(|clause| {
            let lower = clause.to_lowercase();
            let words: Vec<&str> = lower
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            let last = words.iter().rev().find(|w| !AFTER_TAKING_BACK.contains(w));
            last.is_some_and(|w| takes_back(w)) && values(clause).is_empty()
        })
        .flat_map(lower_words)
        .collect()
}

/// Words that may close a clause after what takes back: "… is wrong btw", "scratch that".
const AFTER_TAKING_BACK: &[&str] = &["btw", "sorry", "lol", "that", "then", "actually", "there"];

/// Words that point back to what was said before: "got them down to £38", "it's £38".
const POINTS_BACK: &[&str] = &["it", "its", "them", "they", "that", "this", "those"];

/// Every word of the clauses `value` stands in, lower case, none left out: the pronouns
/// [`clause_words`] drops as saying nothing of a subject.
fn clause_words_all(text: &str, value: &str) -> Vec<String> {
    sayings(text, value)
        .flat_map(|at| {
            let (start, end) = clause_at(text, at, value.len());
            text[start..end]
                .to_lowercase()
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Words a label before a colon has at most ("Base salary:", "Reporting to:").
const LABEL_WORDS: usize = 3;

/// Whether two subject words are one word in two forms: "delivered" and "delivery",
/// "booking" and "booked" (measured: "delivery moved to 27/11" could not find "the tiles
/// get delivered on 28/11"). Short words only as they are: "part" is not "party".
pub(super) fn same_word(a: &str, b: &str) -> bool {
    a == b || stem(a).is_some_and(|s| stem(b) == Some(s))
}

/// A word as lines are looked up by it: its stem, so "delivery" finds "delivered".
pub(super) fn word_key(word: &str) -> &str {
    stem(word).unwrap_or(word)
}

/// A word of six letters or more without its ending ("-ies", "-ing", "-ed", "-es", "-s",
/// "-y"), at least four letters left.
fn stem(word: &str) -> Option<&str> {
    if word.chars().count() < 6 {
        return None;
    }
    ["ies", "ing", "ed", "es", "s", "y"]
        .iter()
        .find_map(|end| word.strip_suffix(end))
        .filter(|s| s.chars().count() >= 4)
        .or(Some(word))
}

/// A word without the punctuation around it, lower case.
fn bare_word(w: &str) -> String {
    w.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

/// "Instead" closing the value's clause is said of it: "the cake is coming from Betty's
/// in Harrogate instead", and so is a change for a while: "we're playing Wednesdays for
/// a bit". Read in the words right after the value, up to a stop or comma ("while" is
/// no new clause here).
fn closes_with_change(after: &[&str]) -> bool {
    let mut closing = Vec::new();
    for w in after.iter().take(INSTEAD_AFTER) {
        closing.push(bare_word(w));
        if w.ends_with([',', '.', ';', ':', '!', '?']) {
            break;
        }
    }
    CLOSING_CHANGES.iter().any(|p| holds_phrase(&closing, p))
}

/// The clause right after a value names it the new one: "she came back with 860k, so
/// that's the new number", "… £1,480, which is the final price". Read only where the
/// value's own clause has just ended (measured: the offer's raise stood beside the old
/// base salary).
fn named_new_after(after: &[&str]) -> bool {
    // The words up to the next stop: "so that's the new number", and nothing more.
    let mut head: Vec<String> = Vec::new();
    for w in after {
        let bare = bare_word(w);
        if !bare.is_empty() {
            head.push(bare);
        }
        if !head.is_empty() && w.ends_with(['.', ',', ';', '!', '?', ':']) || head.len() > 6 {
            break;
        }
    }
    if head
        .first()
        .is_some_and(|w| ["so", "and"].contains(&w.as_str()))
    {
        head.remove(0);
    }
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    let refers = match head.as_slice() {
        ["that's" | "thats" | "that’s", rest @ ..] | ["that" | "which", "is", rest @ ..] => rest,
        _ => return false,
    };
    // A figure, not a thing: "that's the new model with the OLED" changes no price.
    matches!(
        refers,
        [
            "the",
            "new" | "final" | "updated" | "revised" | "actual" | "correct",
            "number"
                | "figure"
                | "price"
                | "amount"
                | "total"
                | "rate"
                | "offer"
                | "quote"
                | "cost"
                | "fee"
                | "date"
                | "time"
                | "salary"
                | "deadline"
        ]
    )
}

/// Whether a change closes the clause of one of `values` in `text`.
fn closes_a_value(text: &str, values: &[String]) -> bool {
    values.iter().any(|v| {
        sayings(text, v).any(|at| {
            let after: Vec<&str> = text[at + v.len()..].split_whitespace().collect();
            closes_with_change(&after)
        })
    })
}

/// What closes a value's clause to say it replaces another, for good or for a while.
const CLOSING_CHANGES: &[&str] = &[
    "instead",
    "for a bit",
    "for a while",
    "for the time being",
    "until further notice",
];
/// Words after a value within which a closing "instead" is said of it.
const INSTEAD_AFTER: usize = 4;
/// Words that open another clause after a value.
const CLAUSE_OPENERS: &[&str] = &["and", "but", "so", "or", "then", "because", "while"];

/// A change word stands shortly before `value` or right after it ("move the backend
/// deploy to Thursday", "now May 2", "Sonnenberg now"), so a "now" or "moving" said of something else in the sentence
/// does not count (measured: "she's moving in with Frau Petrović" replaced "Leipzig,
/// 3rd floor"). Moving in or out is where someone lives, not a value changing.
pub(super) fn change_near(text: &str, value: &str) -> bool {
    let Some(at) = text.find(value) else {
        return false;
    };
    let before: Vec<&str> = text[..at].split_whitespace().collect();
    let after: Vec<&str> = text[at + value.len()..].split_whitespace().collect();
    let from = before.len().saturating_sub(CHANGE_BEFORE);
    // After the value, only its own clause: in "a fox got into the run on plot 30 and
    // now there is a petition" the "now" is said of the petition (measured: it replaced
    // "rent for a full plot is £35 a year", the two sharing "plot").
    let own = own_clause(&after, CHANGE_AFTER);
    if closes_with_change(&after) || named_new_after(&after) {
        return true;
    }
    // Kept in its case: a capital inside a sentence is a name's, not a change.
    let near = [before[from..].join(" "), own.join(" ")].join(" ");
    let moving_house = [
        "move in",
        "moving in",
        "moved in",
        "move out",
        "moving out",
        "moved out",
    ]
    .iter()
    .any(|p| near.to_lowercase().contains(p));
    !moving_house && says_change(&near)
}
