//! What a correction does beyond the ledger's own lines: the person's recent lines that
//! count as corrections before they are folded, and what a correction takes out of a
//! summary written before it or a quote recalled from the log.

use super::LedgerLine;
use super::change::says_change;
use super::extract::{extract, line_sentences};
use super::mend::earlier_form;
use super::merge::merge;
use super::parsed::Parsed;
use super::replaced::REPLACED;
use super::supersede::supersedes;
use super::values::values;
use crate::core::prose::{BULLETS, bare};
use std::borrow::Cow;
use std::collections::HashSet;

/// The lines of a person's message that may replace an earlier value (by the rule of
/// [`merge`]: they say a change or name a value as replaced), for corrections said but
/// not folded yet.
pub fn corrections_said(text: &str) -> Vec<LedgerLine> {
    let mut lines = extract(text, true);
    lines.retain(|l| {
        let lower = l.text.to_lowercase();
        says_change(&l.text) || REPLACED.iter().any(|p| lower.contains(p))
    });
    lines
}

/// The folded ledger beside what the person said since, not folded yet: the folded lines
/// still standing (to show: the later lines are in the request word for word already),
/// with a folded line a correction rewrote in its corrected form (the correction said
/// only what changed: "so LH 1234 on the 14th" keeps "leaves at 7:45" of the line it
/// corrects, which is nowhere else in the request), and the whole merge (whose
/// corrections [`drop_replaced`] takes). A correction then replaces the old value when it
/// is said, not when it is folded (measured: with the correction still recent, the
/// ledger's old line beside it won the model's answer).
pub fn settle(folded: Vec<LedgerLine>, said: &[LedgerLine]) -> (Vec<LedgerLine>, Vec<LedgerLine>) {
    if said.is_empty() {
        return (folded.clone(), folded);
    }
    let all = merge(folded.iter().chain(said));
    let was: HashSet<&str> = folded.iter().chain(said).map(|l| l.text.as_str()).collect();
    let standing: HashSet<&str> = all.iter().map(|l| l.text.as_str()).collect();
    let mut shown: Vec<LedgerLine> = folded
        .iter()
        .filter(|l| standing.contains(l.text.as_str()))
        .cloned()
        .collect();
    // A rewritten line shows only when it keeps a value the correction does not say.
    let said_values: HashSet<String> = said.iter().flat_map(|l| values(&l.text)).collect();
    shown.extend(
        all.iter()
            .filter(|l| {
                !was.contains(l.text.as_str())
                    && values(&l.text).iter().any(|v| !said_values.contains(v))
            })
            .cloned(),
    );
    (shown, all)
}

/// Whether `sentence` states a value one of `corrections` replaced.
fn stale_beside(sentence: &str, corrections: &[Parsed]) -> bool {
    let line = Parsed::new(&LedgerLine {
        text: bare(sentence).to_string(),
        ..LedgerLine::default()
    });
    corrections
        .iter()
        .any(|c| supersedes(c, &line) || earlier_form(&line, c))
}

/// The ledger's corrections, parsed once for every sentence held against them.
fn corrections_in(ledger: &[LedgerLine]) -> Vec<Parsed> {
    ledger
        .iter()
        .filter(|l| l.corrects)
        .map(Parsed::new)
        .collect()
}

/// Whether a quote (recalled from the log) states a value one of the `ledger`'s
/// corrections replaced, by the rule [`drop_replaced`] applies to summaries: recall must
/// not bring back what the person corrected (measured: "The code freeze starts on March
/// 14th" recalled beside "moved to March 20th" won the model's answer).
pub fn replaced(ledger: &[LedgerLine]) -> impl Fn(&str) -> bool {
    let corrections = corrections_in(ledger);
    move |sentence| stale_beside(sentence, &corrections)
}

/// `summary` without the sentences one of the `ledger`'s corrections replaced, by the
/// rule the ledger applies to its own lines. A summary written before the person
/// corrected a value still states the old one; the ledger holds the new one, and a small
/// model shown both tends to answer with the one it read first (measured: "retention is
/// 14 days" in a summary beat "retention was extended to 30 days" in the ledger).
pub fn drop_replaced<'a>(summary: &'a str, ledger: &[LedgerLine]) -> Cow<'a, str> {
    let corrections = corrections_in(ledger);
    if corrections.is_empty() {
        return Cow::Borrowed(summary);
    }
    let stale = |sentence: &str| stale_beside(sentence, &corrections);
    let mut dropped = false;
    let mut out: Vec<String> = Vec::new();
    for line in summary.lines() {
        let parts = line_sentences(line);
        let before = parts.len();
        let kept: Vec<&str> = parts.into_iter().filter(|s| !stale(s)).collect();
        if kept.len() == before {
            out.push(line.to_string());
            continue;
        }
        dropped = true;
        if kept.iter().all(|s| bare(s).is_empty()) {
            continue;
        }
        // The line's indent and bullet stay when its first sentence went.
        let lead_len = line.len()
            - line
                .trim_start()
                .trim_start_matches(BULLETS)
                .trim_start()
                .len();
        let text = kept.iter().map(|s| bare(s)).collect::<Vec<_>>().join(" ");
        out.push(format!("{}{text}", &line[..lead_len]));
    }
    if dropped {
        Cow::Owned(out.join("\n"))
    } else {
        Cow::Borrowed(summary)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::ledger::lines::{texts, user};

    #[test]
    fn a_correction_said_but_not_folded_settles_the_folded_ledger() {
        let folded = merge(&[
            user("Log retention for the app servers is 14 days."),
            user("The cleanup cron job runs every 15 minutes."),
        ]);
        // Only the lines that may replace something count as said corrections.
        let said = corrections_said(
            "Thanks. The dashboard is at grafana.internal. \
             Correction on logs: retention was extended to 30 days for compliance.",
        );
        assert_eq!(
            texts(&said),
            ["Correction on logs: retention was extended to 30 days for compliance."]
        );
        let (shown, all) = settle(folded.clone(), &said);
        // The old value is no longer shown; the correction is not shown either (it is in
        // the request word for word), but it is what summaries are cut by.
        assert_eq!(
            texts(&shown),
            ["The cleanup cron job runs every 15 minutes."]
        );
        assert!(all.iter().any(|l| l.corrects && l.text.contains("30 days")));
        assert_eq!(
            drop_replaced(
                "- Log retention for the app servers is 14 days.\n- Cron: 15 min.",
                &all
            ),
            "- Cron: 15 min."
        );
        // Nothing said since: the folded ledger as it was.
        assert_eq!(settle(folded.clone(), &[]).0, folded);
        // A line that corrects nothing folded leaves the ledger whole.
        let other = corrections_said("The cache now listens on port 6380.");
        assert_eq!(settle(folded.clone(), &other).0, folded);
    }

    #[test]
    fn a_correction_of_one_value_keeps_the_rest_of_the_folded_line_in_view() {
        let folded = merge(&extract(
            "flights are booked, Flight LH 1234 out of Zürich, leaves at 7:45 on the 12th.",
            true,
        ));
        let said = corrections_said(
            "wait no — we fly out on the 14th not the 12th. so LH 1234 on the 14th, sorry",
        );
        let (shown, _) = settle(folded, &said);
        // The departure time was said only in the folded line: it stays, with the new day.
        assert!(
            shown.iter().any(|l| l.text.contains("7:45")
                && l.text.contains("14th")
                && !l.text.contains("12th")),
            "{shown:?}"
        );
    }

    #[test]
    fn recall_does_not_quote_a_line_as_it_stood_before_it_was_mended() {
        let said = "Maya's class is going to Newgrange on the 14th of November, the trip is €18 and they're back at the school by 17:15";
        let ledger = merge(&[
            user(said),
            user("update on the trip, it's €20 now, the bus company put the price up"),
        ]);
        let stale = replaced(&ledger);
        assert!(stale(said), "{ledger:?}");
        // Another sentence sharing the date and the time, with no amount, still stands.
        assert!(!stale(
            "Maya's class photo is on the 14th of November at 17:15"
        ));
        // Nor does a sentence naming the new value.
        assert!(!stale(
            "the trip is €20 for Maya, back by 17:15 on the 14th of November"
        ));
    }

    #[test]
    fn a_summary_loses_the_sentences_a_correction_replaced() {
        let ledger = merge(&[
            user("The launch review is on Tuesday at 10:00."),
            user("The budget for the pilot is 12,000 euros."),
            user("Correction: the launch review moved to Thursday at 15:30."),
        ]);
        assert_eq!(
            ledger.iter().map(|l| l.corrects).collect::<Vec<_>>(),
            [false, true]
        );
        let summary = "- The launch review is on Tuesday at 10:00.\n\
                       - The pilot budget is 12,000 euros. We agreed the review is Tuesday at 10:00.\n\
                       - The review moved from Tuesday 10:00 to Thursday 15:30.\n\
                       The team likes the plan.";
        assert_eq!(
            drop_replaced(summary, &ledger),
            "- The pilot budget is 12,000 euros.\n\
             - The review moved from Tuesday 10:00 to Thursday 15:30.\n\
             The team likes the plan."
        );
        // Nothing corrected, nothing taken out (and nothing copied).
        assert!(matches!(
            drop_replaced(summary, &ledger[..1]),
            Cow::Borrowed(_)
        ));
        // The mark outlives the line it replaced: a later merge no longer sees that line.
        let later = merge(&ledger[1..]);
        assert!(later[0].corrects);
        let unrelated = [LedgerLine {
            corrects: true,
            ..user("The pilot now runs in Lisbon.")
        }];
        assert!(matches!(
            drop_replaced("- The review is on Tuesday at 10:00.", &unrelated),
            Cow::Borrowed(_)
        ));
    }
}
