//! Merging: the ledger's lines in order, each new line held against the older ones that
//! share a value or a subject word with it — a repeat adds nothing, a line that
//! supersedes another (`supersede.rs`) takes its place, and what the correction leaves of
//! the older line stays (`mend.rs`).

use super::LedgerLine;
use super::mend::corrected;
use super::parsed::{Parsed, word_key};
use super::replaced::{REPLACED, number_alone};
use super::supersede::{different_things, said_of_the_last, supersedes};
use super::values::Kind;
use std::collections::{HashMap, HashSet};

/// A line's values as one key: lines that can be the same fact share it.
fn value_set(p: &Parsed) -> String {
    let mut v: Vec<&str> = p.lower_values.iter().map(String::as_str).collect();
    v.sort_unstable();
    v.dedup();
    v.join("\u{1}")
}

/// The same fact said twice: the same values, about the same thing ("Note 3: the
/// cache is on 6379" and the model's "the cache listens on 6379").
/// They must share a word of what they say besides: "Miri wants a rain shower" and
/// "Miri insists on the carousel" name one person and are two facts.
fn same_fact(a: &Parsed, b: &Parsed) -> bool {
    !a.lower_values.is_empty()
        && !different_things(a, b)
        && a.lower_values.len() == b.lower_values.len()
        && a.lower_values.iter().all(|v| b.lower_values.contains(v))
        && shares_what_it_says(a, b)
}

/// Lines of values alone (a number, a code) share a word of what they say besides; lines
/// whose values are all names share half their words, since one name is said of many
/// things.
fn shares_what_it_says(a: &Parsed, b: &Parsed) -> bool {
    if a.words.is_empty() || b.words.is_empty() {
        return true;
    }
    let shared = a.words.iter().filter(|w| b.words.contains(w)).count();
    if a.kinds.iter().chain(&b.kinds).all(|k| *k == Kind::Name) {
        2 * shared >= a.words.len().min(b.words.len())
    } else {
        shared > 0
    }
}

/// Lines in order (oldest first) with superseded ones and repeats removed. The model's
/// lines never supersede the person's: a reply that echoes a value wrongly, or proposes
/// one ("we could move it to 8080"), must not erase what the person stated. A person's
/// line that replaced another is marked `corrects`, and keeps the mark through later
/// merges (the line it replaced is gone by then).
pub fn merge<'a>(lines: impl IntoIterator<Item = &'a LedgerLine>) -> Vec<LedgerLine> {
    // Lines by slot (a replaced line leaves a hole), and indexes by text, value and
    // subject word: a line can only repeat or replace one that shares a value with it, or
    // — when it says a change — a subject word, so only those are compared (a ledger of
    // hundreds of lines is merged on every fold).
    let mut slots: Vec<Option<Parsed>> = Vec::new();
    let mut by_text: HashMap<String, usize> = HashMap::new();
    let mut by_value: HashMap<String, Vec<usize>> = HashMap::new();
    let mut by_word: HashMap<String, Vec<usize>> = HashMap::new();
    let mut by_set: HashMap<String, Vec<usize>> = HashMap::new();
    for line in lines {
        if let Some(&i) = by_text.get(&line.text)
            && let Some(same) = slots[i].as_mut()
        {
            if same.line.user || !line.user {
                same.line.corrects |= line.corrects;
                continue;
            }
            // The person says word for word what a model's line said (a small model
            // echoes the correction it is given): theirs takes its place, and is then
            // held against what it may replace like any line of theirs.
            slots[i] = None;
            by_text.remove(&line.text);
        }
        let mut parsed = Parsed::new(line);
        let key = value_set(&parsed);
        // Only a line that says a change, or names a value as replaced, can replace
        // another: the rest are compared with the lines of the same values alone.
        let mut candidates: Vec<usize> = Vec::new();
        let names_replaced = REPLACED.iter().any(|p| parsed.lower.contains(p));
        if parsed.change || names_replaced {
            candidates.extend(
                parsed
                    .lower_values
                    .iter()
                    .filter_map(|v| by_value.get(v))
                    .flatten(),
            );
        }
        if parsed.line.user {
            candidates.extend(
                parsed
                    .tails
                    .iter()
                    .filter_map(|v| by_value.get(v))
                    .flatten(),
            );
        }
        // A line that denies a day may name a date otherwise than it was said ("not the
        // 4th" of "Start date: 4 January 2027"): the lines of its words too. Only then:
        // "from" and "not" are in most lines, and the words' lines are many.
        if parsed.change || names_replaced && denies_a_day(&parsed.lower) {
            // A name is a subject word where a line opens with it: "Metacam 1.5 mg/ml:
            // 2.4 ml once a day" names no value "Metacam", "Metacam goes down to 2.0 ml"
            // does (measured: the lowered dose never met the line it lowers).
            let names = parsed
                .lower_values
                .iter()
                .zip(&parsed.kinds)
                .filter(|(_, k)| **k == Kind::Name)
                .map(|(v, _)| v);
            candidates.extend(
                parsed
                    .words
                    .iter()
                    .chain(names)
                    .filter_map(|w| by_word.get(word_key(w)))
                    .flatten(),
            );
        }
        candidates.extend(by_set.get(&key).into_iter().flatten());
        let said_of_the_last = said_of_the_last(&parsed, &slots);
        candidates.extend(said_of_the_last);
        candidates.sort_unstable();
        candidates.dedup();
        // The same fact again: the person's word stands, and a newer saying of theirs
        // replaces an older one; the model's repetition adds nothing.
        let same = by_set
            .get(&key)
            .into_iter()
            .flatten()
            .copied()
            .find(|&i| slots[i].as_ref().is_some_and(|old| same_fact(&parsed, old)));
        if let Some(old) = same.and_then(|i| slots[i].as_ref()) {
            if !parsed.line.user && old.line.user {
                continue;
            }
            parsed.line.corrects |= old.line.corrects;
        }
        let mut replaced = false;
        for i in candidates {
            let gone = slots[i].as_ref().is_some_and(|old| {
                Some(i) == same
                    || Some(i) == said_of_the_last
                    || (supersedes(&parsed, old) && (parsed.line.user || !old.line.user))
            });
            if gone {
                replaced |= Some(i) != same;
                if let Some(old) = slots[i].take() {
                    by_text.remove(&old.line.text);
                    if Some(i) != same {
                        parsed
                            .about
                            .extend(old.words.iter().chain(&old.about).cloned());
                    }
                    // The rest of the old line stays, with the new value in it.
                    if Some(i) != same
                        && parsed.line.user
                        && let Some(line) = corrected(&parsed, &old)
                        && !by_text.contains_key(&line.text)
                    {
                        let mut kept = Parsed::new(&line);
                        kept.about = old.about.clone();
                        by_text.insert(line.text.clone(), i);
                        for v in &kept.lower_values {
                            by_value.entry(v.clone()).or_default().push(i);
                        }
                        slots[i] = Some(kept);
                    }
                }
            }
        }
        parsed.line.corrects |= parsed.line.user && replaced;
        let at = slots.len();
        by_text.insert(parsed.line.text.clone(), at);
        // A count under its number too: "not 12" names "12 kids".
        let numbers = parsed.lower_values.iter().filter_map(|v| number_alone(v));
        for v in parsed
            .lower_values
            .iter()
            .map(String::as_str)
            .chain(numbers)
        {
            by_value.entry(v.to_string()).or_default().push(at);
        }
        by_set.entry(key).or_default().push(at);
        // A name is a subject word too: "Broadband is £45" is found by "the broadband
        // line is wrong … down to £38" (measured: the old amount stood).
        let names = parsed
            .lower_values
            .iter()
            .zip(&parsed.kinds)
            .filter(|(_, k)| **k == Kind::Name)
            .flat_map(|(v, _)| v.split_whitespace());
        for w in parsed.words.iter().map(String::as_str).chain(names) {
            by_word.entry(word_key(w).to_string()).or_default().push(at);
        }
        slots.push(Some(parsed));
    }
    let out: Vec<Parsed> = slots.into_iter().flatten().collect();
    // The model's lines whose every value the person stated are the person's facts
    // again, in the model's words.
    let said: HashSet<&str> = out
        .iter()
        .filter(|p| p.line.user)
        .flat_map(|p| p.lower_values.iter().map(String::as_str))
        .collect();
    let keep: Vec<bool> = out
        .iter()
        .map(|p| p.line.user || !p.lower_values.iter().all(|v| said.contains(v.as_str())))
        .collect();
    out.into_iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(p.line))
        .collect()
}

/// Whether `lower` names a day of the month as replaced: "not the 4th", "instead of 12th".
fn denies_a_day(lower: &str) -> bool {
    REPLACED.iter().any(|p| {
        lower.match_indices(p).any(|(at, _)| {
            let rest = lower[at + p.len()..].trim_start_matches("the ");
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            (1..=2).contains(&digits)
                && ["st", "nd", "rd", "th"]
                    .iter()
                    .any(|s| rest[digits..].starts_with(s))
        })
    })
}

#[cfg(test)]
mod tests;
