//! A ledger line parsed once for the rules that compare lines (`supersede.rs`, `mend.rs`):
//! its values and their kinds, its subject words, whether it says a change or takes back
//! what was said; and the readings both rules share — a value named as replaced ("the 14th
//! not the 12th"), a change said of a value, and the words a value is said of (its heads).

use super::LedgerLine;
use super::change::{says_change, takes_back};
use super::values::{Kind, kind, values};
use crate::core::prose::split_sentences;

/// Words too common to tie two lines to one subject.
const STOP: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "into", "will", "would", "should", "have",
    "has", "had", "was", "were", "are", "our", "your", "their", "there", "what", "when", "which",
    "who", "about", "also", "just", "then", "than", "them", "they", "its", "not", "but", "all",
    "any", "can", "use", "using", "used", "set", "get", "now", "new", "final", "change", "changed",
    "plan", "another", "noted", "okay", "good", "great", "thanks", "please", "sure", "here",
    "some", "more", "most", "only", "each", "every", "been", "being", "does", "did", "done",
    "make", "made", "need", "needs", "let", "lets", "because", "since", "while", "until", "though",
    "although", "where", "after", "before", // German: "und der Dachdecker kommt am 14.04."
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
        let words = subject_words(&line.text, &values);
        let kinds: Vec<Kind> = values.iter().map(|v| kind(v)).collect();
        let entities = values
            .iter()
            .zip(&kinds)
            .filter(|(_, k)| **k == Kind::Entity)
            .map(|(v, _)| v.to_lowercase())
            .collect();
        Parsed {
            lower_values: values.iter().map(|v| v.to_lowercase()).collect(),
            kinds,
            entities,
            values,
            words,
            change: says_change(&line.text),
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
        }
    }
}

/// What comes before a value a line names as replaced: "not Lisbon", "from 14 days",
/// "statt 85.000 €", "en vez de 62,50 €", "120, no 110".
pub(super) const REPLACED: &[&str] = &[
    "not ",
    "instead of ",
    "no longer ",
    "scratch ",
    "cancel ",
    "from ",
    "statt ",
    "anstatt ",
    "nicht ",
    "en vez de ",
    "en lugar de ",
    "no ",
    "au lieu de ",
    "pas ",
    "invece di ",
    "em vez de ",
];

/// Whether `said` ("from rafe", "not the 12th") stands in `lower` as naming a value
/// replaced. "From" a name is where something came from ("a tip from Rafe": measured,
/// it took the line naming Rafe as the buddy for a change) unless a "to" follows.
fn replaced_by(lower: &str, said: &str, prefix: &str, kind: Kind) -> bool {
    lower.match_indices(said).any(|(at, _)| {
        prefix != "from "
            || kind != Kind::Name
            || lower[at + said.len()..]
                .split_whitespace()
                .take(3)
                .any(|w| w == "to")
    })
}

/// What follows a value to call it off: "Saturday's off, … so the test drive is Sunday".
pub(super) const CALLED_OFF: &[&str] = &[
    "'s off",
    "’s off",
    " is off",
    "'s cancelled",
    "’s cancelled",
    " is cancelled",
    " was cancelled",
    " got cancelled",
    "'s canceled",
    " is canceled",
    " was canceled",
    " fell through",
];

/// The value of `older` that `newer` names as replaced ("the 14th not the 12th",
/// "Saturday's off"), and the one value of its kind that `newer` brings in its place, if there is just one.
pub(super) fn named_replaced<'a>(
    newer: &'a Parsed,
    older: &'a Parsed,
) -> Option<(&'a str, Option<&'a str>)> {
    let (old, kind) = older
        .values
        .iter()
        .zip(&older.lower_values)
        .zip(&older.kinds)
        .find(|((v, lv), k)| {
            // A name of two words is named by its first ("scratch Seehof" for "Seehof
            // Brunnen").
            let first = (**k == Kind::Name)
                .then(|| v.split_once(' ').map(|(f, _)| f))
                .flatten()
                .filter(|f| newer.values.iter().any(|n| n == f));
            let forms: Vec<String> = [Some(lv.to_string()), first.map(str::to_lowercase)]
                .into_iter()
                .flatten()
                .collect();
            (newer.values.contains(v) || first.is_some())
                && newer.values.iter().any(|n| !older.values.contains(n))
                && forms.iter().any(|lv| {
                    REPLACED.iter().any(|p| {
                        [format!("{p}{lv}"), format!("{p}the {lv}")]
                            .iter()
                            .any(|said| replaced_by(&newer.lower, said, p, **k))
                    }) || CALLED_OFF
                        .iter()
                        .any(|p| newer.lower.contains(&format!("{lv}{p}")))
                })
        })
        .map(|((v, _), k)| (v, k))?;
    let mut new = newer
        .values
        .iter()
        .zip(&newer.kinds)
        .filter(|(v, k)| *k == kind && !older.values.contains(v))
        .map(|(v, _)| v.as_str());
    let one = match (new.next(), new.next()) {
        (Some(v), None) => Some(v),
        _ => None,
    };
    Some((old.as_str(), one))
}

/// Words before a value that may name what it is the value of.
const HEAD_WORDS: usize = 6;

/// The subject words among the few before `value` in `text`.
pub(super) fn heads(text: &str, value: &str) -> Vec<String> {
    text.find(value)
        .map(|at| heads_before(&text[..at]))
        .unwrap_or_default()
}

/// The subject words among the last few of `before` (what a value standing after it
/// may be the value of).
pub(super) fn heads_before(before: &str) -> Vec<String> {
    let words: Vec<&str> = before.split_whitespace().collect();
    let from = words.len().saturating_sub(HEAD_WORDS);
    lower_words(&words[from..].join(" "))
}

/// Whether a name `newer` brings and one `older` holds are said of the same thing, by
/// a word before each: "my buddy from now on is Chiamaka" and "an onboarding buddy
/// called Rafe". A name changes only so (measured: that change, naming Rafe, replaced
/// "Lunch tip from Rafe: … Pho Sen", and the café was lost).
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
    let mut own = Vec::new();
    for w in after.iter().take(CHANGE_AFTER) {
        let bare = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        if CLAUSE_OPENERS.contains(&bare.as_str()) {
            break;
        }
        own.push(*w);
        if w.ends_with([',', '.', ';', ':', '!', '?']) {
            break;
        }
    }
    // "Instead" closing the value's clause is said of it: "the cake is coming from
    // Betty's in Harrogate instead".
    let instead = after
        .iter()
        .take(INSTEAD_AFTER)
        .take_while(|w| {
            let bare = w
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            !CLAUSE_OPENERS.contains(&bare.as_str())
        })
        .any(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .eq_ignore_ascii_case("instead")
        });
    if instead {
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
