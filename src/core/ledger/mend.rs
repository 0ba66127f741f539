//! Mending: what is left of an older line when a later one replaces a value in it. The
//! rest of the line stays, with the new value written in the old one's place, when the
//! correction names the old value, says it again beside the new one, or can only mean one
//! value of the line; and the older line as it stood before is what recall and summaries
//! must not bring back (`corrections.rs`). Which line replaces which is `supersede.rs`.

use super::LedgerLine;
use super::becomes::{unit, weekday};
use super::parsed::{Parsed, heads, heads_before, same_heads};
use super::replaced::named_replaced;
use super::values::{Kind, kind, value_spans, values};

/// `older` with the value `newer` names as replaced written as its replacement, when the
/// rest of `older` still holds: "leaves at 7:45 on the 12th" and "we fly out on the 14th
/// not the 12th" keep "leaves at 7:45 on the 14th" (dropping the line lost the 7:45).
pub(super) fn corrected(newer: &Parsed, older: &Parsed) -> Option<LedgerLine> {
    let mut text = match named_replaced(newer, older) {
        Some((old, new)) => older.line.text.replacen(old, new?, 1),
        None => match said_again(newer, older) {
            Some((old, new)) => older.line.text.replacen(old, new, 1),
            None => changed_in_place(newer, older)?,
        },
    };
    // A correction may change two values of one thing: "Saturday's off … the test drive
    // is Sunday at 2 now" moves "Saturday at 11" to "Sunday at 2", not "Sunday at 11".
    let once = Parsed::new(&LedgerLine {
        text: text.clone(),
        ..older.line.clone()
    });
    // Never back to a value the line held ("now, not half seven" names the old time;
    // measured, a second pass wrote it in place of "half eight").
    if let Some(twice) = changed_in_place(newer, &once)
        && values(&twice)
            .iter()
            .all(|v| once.values.contains(v) || !older.values.contains(v))
    {
        text = twice;
    }
    // Only values the correction does not speak of are worth keeping around it.
    values(&text)
        .iter()
        .any(|v| !newer.values.contains(v))
        .then(|| LedgerLine {
            text,
            user: older.line.user,
            corrects: true,
            // A correction is the person's own word, whatever the line it mends came with.
            listed: false,
            from: newer.line.from.or(older.line.from),
            pinned: false,
        })
}

/// `older` with the one value `newer` changes written as the new one, when the change
/// names neither the old value nor says it again: "update on the trip, it's €20 now"
/// mends "the trip is €18 and they're back by 17:15" (dropping it lost the 17:15). The
/// old value is the only one of the new value's kind, or, where a line holds several
/// people's values ("Maya 31, Leo 28 and Aoife 26"), the one that follows the name both
/// lines share, before any other name ("Leo's a 29 now" → "Leo 29"). Else nothing: a
/// guess would put a wrong value in the person's mouth.
pub(super) fn changed_in_place(newer: &Parsed, older: &Parsed) -> Option<String> {
    let changed = |v: &String, k: &Kind| changed_to(newer, older, v, *k);
    let in_order = |text: &str| {
        let mut spans = value_spans(text);
        spans.sort_by_key(|(start, _, _)| *start);
        spans
    };
    let newer_spans = in_order(&newer.line.text);
    let older_spans = in_order(&older.line.text);
    // Written where the old value stands as a value, not where its text first occurs
    // ("28" inside "2028").
    let text = &older.line.text;
    let write = |at: usize, ov: &str, nv: &str| {
        text[at..]
            .starts_with(ov)
            .then(|| format!("{}{nv}{}", &text[..at], &text[at + ov.len()..]))
    };
    let mut new = newer
        .values
        .iter()
        .zip(&newer.kinds)
        .filter(|(v, k)| changed(v, k));
    if let (Some((nv, nk)), None) = (new.next(), new.next()) {
        let mut old: Vec<_> = older_spans
            .iter()
            .filter(|(_, _, v)| {
                !newer.values.contains(v) && newer.could_replace(older, (v, kind(v)), (nv, *nk))
            })
            .collect();
        // Of several, the one in the same unit: "2.0 ml" lowers "2.4 ml", not "1.5 mg";
        // then the one said of the same thing: "der Dachdecker kommt erst am 28.04."
        // moves "der Dachdecker kommt am 14.04.", not "das Gerüst steht ab dem 10.04.".
        if old.len() > 1 && !unit(nv).is_empty() {
            old.retain(|(_, _, v)| unit(v) == unit(nv));
        }
        if old.len() > 1 {
            let new_heads = heads(&newer.line.text, nv);
            old.retain(|(at, _, _)| {
                heads_before(&text[..*at])
                    .iter()
                    .any(|w| new_heads.contains(w))
            });
        }
        if let [(at, _, ov)] = old[..] {
            return write(*at, ov, nv);
        }
    }
    // Anchored at a name both lines hold: its value in `newer` and in `older`.
    let mut pairs = older
        .values
        .iter()
        .zip(&older.kinds)
        .filter(|(v, k)| **k == Kind::Name && newer.values.contains(v))
        .filter_map(|(name, _)| {
            let (nv, nk) = own_values(&newer_spans, name)?
                .into_iter()
                .map(|(_, v)| {
                    let k = kind(&v);
                    (v, k)
                })
                .find(|(v, k)| changed(v, k))?;
            let (at, ov) = own_values(&older_spans, name)?.into_iter().find(|(_, v)| {
                !newer.values.contains(v) && newer.could_replace(older, (v, kind(v)), (&nv, nk))
            })?;
            Some((at, ov, nv))
        });
    let (at, ov, nv) = match (pairs.next(), pairs.next()) {
        (Some(pair), None) => pair,
        _ => return None,
    };
    write(at, &ov, &nv)
}

/// The values a line says of `name` (with where each starts), the spans in order: those
/// after it up to the next name ("Maya 31, Leo 28 and Aoife 26"), or, in a line that
/// puts values first, those before it back to the name before ("£612 a year for the
/// Mazda, £574 for the Skoda": measured, the Mazda's new price went in place of the
/// Skoda's insurance, the value after "Mazda").
fn own_values(spans: &[(usize, usize, String)], name: &str) -> Option<Vec<(usize, String)>> {
    let at = spans.iter().position(|(_, _, v)| v == name)?;
    let is_name = |(_, _, v): &&(usize, usize, String)| kind(v) == Kind::Name;
    // Such a line ends with a name; a date or a count opening it says nothing of the
    // order ("As of March 2026: Maya 31, Leo 28 and Aoife 26").
    let values_first = spans
        .iter()
        .find(|(_, _, v)| kind(v) != Kind::When)
        .is_some_and(|s| !is_name(&s))
        && spans.last().is_some_and(|s| is_name(&s));
    let own: Vec<&(usize, usize, String)> = if values_first {
        let from = spans[..at]
            .iter()
            .rposition(|s| is_name(&s))
            .map_or(0, |p| p + 1);
        spans[from..at].iter().collect()
    } else {
        spans[at + 1..].iter().take_while(|s| !is_name(s)).collect()
    };
    Some(
        own.into_iter()
            .map(|(start, _, v)| (*start, v.clone()))
            .collect(),
    )
}

/// Whether `value` (of `newer`, of kind `kind`) is one a correction changes `older` to:
/// new to `older`, with the change said of it, and not a name unless `older` holds one
/// said of the same thing (names are said beside each other, not replaced; "my buddy
/// from now on is Chiamaka" replaces the buddy called Rafe, and only him).
fn changed_to(newer: &Parsed, older: &Parsed, value: &String, kind: Kind) -> bool {
    let a_name_for_a_name =
        || {
            older.values.iter().zip(&older.kinds).any(|(ov, ok)| {
                *ok == Kind::Name && ov != value && same_heads(newer, value, older, ov)
            })
        };
    // "Tuesday" is no new value beside "Tue".
    let same_day = || {
        weekday(value).is_some_and(|d| older.values.iter().any(|v| weekday(v).as_ref() == Some(&d)))
    };
    !older.values.contains(value)
        && !newer.denies(value)
        && !same_day()
        && newer.change_said_of(value)
        && (kind != Kind::Name || a_name_for_a_name())
}

/// The value of `older` that `newer` says again beside the one new value of its kind
/// it changes to ("300 seconds is too long … so the backoff cap is 120 seconds"), when
/// there is just one of each: a rewrite keeps the rest of `older` ("give up after 8
/// attempts" was lost with the whole line).
fn said_again<'a>(newer: &'a Parsed, older: &'a Parsed) -> Option<(&'a str, &'a str)> {
    let mut pairs = newer
        .values
        .iter()
        .zip(&newer.kinds)
        .filter(|(v, k)| changed_to(newer, older, v, **k))
        .flat_map(|(nv, nk)| {
            older
                .values
                .iter()
                .zip(&older.kinds)
                .filter(move |(ov, ok)| {
                    newer.values.contains(ov) && newer.could_replace(older, (ov, **ok), (nv, *nk))
                })
                .map(move |(ov, _)| (ov.as_str(), nv.as_str()))
        });
    match (pairs.next(), pairs.next()) {
        (Some(pair), None) => Some(pair),
        _ => None,
    }
}

/// Whether `old` is `line` as it stood before a correction mended one of its values in
/// place (see [`changed_in_place`]): it shares at least two of the line's values and
/// lacks only one, the new one, in whose place it holds one value of the same kind
/// ("the trip is €18 and they're back by 17:15" for "the trip is €22 and they're back by
/// 17:15"). Recall must not quote it: the quote read "€18" beside the ledger's "€22", and
/// the model answered €18.
pub(super) fn earlier_form(old: &Parsed, line: &Parsed) -> bool {
    let mut came = line
        .lower_values
        .iter()
        .zip(&line.kinds)
        .filter(|(v, _)| !old.lower_values.contains(v));
    let Some((_, kind)) = came.next() else {
        return false;
    };
    if came.next().is_some() || *kind == Kind::Name {
        return false;
    }
    let shared = old
        .lower_values
        .iter()
        .filter(|v| line.lower_values.contains(v))
        .count();
    let gone_of_kind = old
        .lower_values
        .iter()
        .zip(&old.kinds)
        .filter(|(v, k)| *k == kind && !line.lower_values.contains(v))
        .count();
    shared >= 2 && gone_of_kind == 1
}
