//! Fitting: the ledger under its token budget and its rendering into the request.
//!
//! A full ledger compacts before the person's own lines leave it. Every line is rendered
//! plain (`compact::Form::Plain`); then, one step at a time until it fits: lines of
//! material that stated many things at once (`LedgerLine::listed`: a pasted config or
//! plan) go tight; the model's lines leave (oldest first); the material's lines leave —
//! a pasted config's dozen settings pushed "today's mostly PAY-2231, the webhook
//! retries …" down to its ticket number, and a pasted plan pushed out the plumber's name
//! said in passing; the person's own lines go tight, those that save the most first (a
//! ramble before a short line whose few extra words hold its subject); and last the
//! person's own lines leave. What leaves goes lightest first (`weight.rs`: a story placed
//! in time, then names alone, then values a person looks up), then the oldest. What
//! leaves is counted, so the transcript can say so; it stays in the log, where recall
//! finds it. A line the person pinned (`/facts`) is compacted last and never leaves.

use super::LedgerLine;
use super::compact::{Form, compact};
use super::weight::{Weight, weight};
use crate::core::tokens::Tokenizer;

/// What the model said is marked, so it never reads as the person's word.
const MODEL_MARK: &str = "(assistant) ";

/// The ledger as it will be rendered: each kept line in the form it is shown.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fitted {
    /// (line, its text as shown), in order.
    pub lines: Vec<(LedgerLine, String)>,
    /// The person's lines that did not fit.
    pub dropped_user: usize,
    /// The model's lines that did not fit.
    pub dropped_model: usize,
}

fn shown(line: &LedgerLine, form: Form) -> String {
    let text = compact(&line.text, form);
    if line.user {
        text
    } else {
        format!("{MODEL_MARK}{text}")
    }
}

/// A line with its two compacted forms and their costs, computed once: a ledger is
/// fitted again whenever its budget moves, and compacting is the costly part.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    pub line: LedgerLine,
    plain: String,
    tight: String,
    plain_cost: u32,
    tight_cost: u32,
    weight: Weight,
}

/// Each line with its compacted forms (each counted as rendered, with its "- ").
pub fn prepare(lines: Vec<LedgerLine>, tok: &dyn Tokenizer) -> Vec<Prepared> {
    lines
        .into_iter()
        .map(|line| {
            let plain = shown(&line, Form::Plain);
            let tight = shown(&line, Form::Tight);
            let plain_cost = tok.count(&plain) + 2;
            let tight_cost = (tok.count(&tight) + 2).min(plain_cost);
            Prepared {
                weight: weight(&line.text),
                line,
                plain,
                tight,
                plain_cost,
                tight_cost,
            }
        })
        .collect()
}

/// The lines that fit `budget` tokens, compacted first and dropped last (see the module
/// docs). Order is preserved.
pub fn fit(lines: Vec<LedgerLine>, budget: u32, tok: &dyn Tokenizer) -> Fitted {
    fit_prepared(&prepare(lines, tok), budget)
}

/// One move that makes the ledger smaller.
#[derive(Clone, Copy)]
enum Step {
    Tighten(usize),
    Drop(usize),
}

/// [`fit`] over lines prepared once.
pub fn fit_prepared(lines: &[Prepared], budget: u32) -> Fitted {
    let listed = |i: usize| lines[i].line.listed;
    let pinned = |i: usize| lines[i].line.pinned;
    let user = |i: usize| lines[i].line.user;
    let all = || 0..lines.len();
    // The person's own lines, tightened where it saves the most (so the fewest lose
    // their context).
    let mut own: Vec<usize> = all().filter(|&i| !listed(i) && !pinned(i)).collect();
    own.sort_by_key(|&i| {
        (
            std::cmp::Reverse(lines[i].plain_cost - lines[i].tight_cost),
            i,
        )
    });
    // Lines that leave: weakest first, then the oldest.
    let leaving = |material: bool| {
        let mut ids: Vec<usize> = all()
            .filter(|&i| user(i) && !pinned(i) && listed(i) == material)
            .collect();
        ids.sort_by_key(|&i| (lines[i].weight, std::cmp::Reverse(lines[i].tight_cost), i));
        ids
    };
    let steps: Vec<Step> = all()
        .filter(|&i| listed(i) && !pinned(i))
        .map(Step::Tighten)
        .chain(all().filter(|&i| !user(i) && !pinned(i)).map(Step::Drop))
        .chain(leaving(true).into_iter().map(Step::Drop))
        .chain(own.into_iter().map(Step::Tighten))
        .chain(all().filter(|&i| pinned(i)).map(Step::Tighten))
        .chain(leaving(false).into_iter().map(Step::Drop))
        .collect();
    let mut tight = vec![false; lines.len()];
    let mut keep = vec![true; lines.len()];
    let mut total: u32 = lines.iter().map(|p| p.plain_cost).sum();
    let mut out = Fitted::default();
    for step in steps {
        if total <= budget {
            break;
        }
        match step {
            Step::Tighten(i) if keep[i] && !tight[i] => {
                total = total - lines[i].plain_cost + lines[i].tight_cost;
                tight[i] = true;
            }
            Step::Drop(i) if keep[i] => {
                keep[i] = false;
                let cost = if tight[i] {
                    lines[i].tight_cost
                } else {
                    lines[i].plain_cost
                };
                total = total.saturating_sub(cost);
                if user(i) {
                    out.dropped_user += 1;
                } else {
                    out.dropped_model += 1;
                }
            }
            _ => {}
        }
    }
    out.lines = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| keep[*i])
        .map(|(i, p)| {
            let text = if tight[i] { &p.tight } else { &p.plain };
            (p.line.clone(), text.clone())
        })
        .collect();
    out
}

/// The ledger as it appears in the request: a header, then a line each.
pub fn render(header: &str, fitted: &Fitted) -> String {
    let mut out = String::from(header);
    for (_, text) in &fitted.lines {
        out.push_str("\n- ");
        out.push_str(text);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::ledger::lines::user;
    use crate::core::tokens::ByteEstimate;

    fn model(text: &str) -> LedgerLine {
        LedgerLine {
            text: text.into(),
            ..LedgerLine::default()
        }
    }

    fn kept(f: &Fitted) -> Vec<&str> {
        f.lines.iter().map(|(l, _)| l.text.as_str()).collect()
    }

    fn cost(f: &Fitted, tok: &dyn Tokenizer) -> u32 {
        f.lines.iter().map(|(_, t)| tok.count(t) + 2).sum()
    }

    #[test]
    fn a_full_ledger_compacts_before_anything_leaves() {
        let tok = ByteEstimate;
        let lines: Vec<LedgerLine> = (1..=12)
            .map(|k| {
                user(&format!(
                    "Note {k}: well, we decided that service-{k} listens on port {} and its config is /etc/service-{k}/config.yaml.",
                    7000 + k * 10
                ))
            })
            .collect();
        let whole: u32 = lines.iter().map(|l| tok.count(&l.text) + 2).sum();
        let roomy = fit(lines.clone(), whole, &tok);
        assert_eq!(roomy.lines.len(), 12);
        assert!(roomy.lines.iter().all(|(_, t)| !t.starts_with("Note")));
        // Under the plain cost: the oldest go tight, nothing leaves.
        let plain = cost(&roomy, &tok);
        let squeezed = fit(lines.clone(), plain - 10, &tok);
        assert_eq!((squeezed.lines.len(), squeezed.dropped_user), (12, 0));
        assert!(cost(&squeezed, &tok) <= plain - 10);
        assert!(squeezed.lines[0].1.len() < roomy.lines[0].1.len());
        assert_eq!(
            squeezed.lines[11].1, roomy.lines[11].1,
            "the newest stay plain"
        );
        // Far under: the oldest leave, and are counted.
        let tiny = fit(lines, plain / 3, &tok);
        assert!(tiny.dropped_user > 0);
        assert_eq!(tiny.lines.len() + tiny.dropped_user, 12);
        assert!(kept(&tiny).last().unwrap().contains("service-12 "));
        assert!(cost(&tiny, &tok) <= plain / 3);
    }

    #[test]
    fn the_models_lines_leave_first_then_names_then_the_oldest() {
        let tok = ByteEstimate;
        let lines = vec![
            user("The cache listens on port 6379."),
            model("You could also tune maxmemory to 256 MB."),
            user("I'm debugging our Rust checkout service."),
            user("The config lives at /etc/shopd/shop.toml."),
        ];
        let marked = fit(lines.clone(), u32::MAX, &tok);
        assert!(marked.lines[1].1.starts_with(MODEL_MARK), "{marked:?}");
        // Below what the lines cost even compacted hard, something must leave.
        let all: u32 = lines
            .iter()
            .map(|l| tok.count(&shown(l, Form::Tight)) + 2)
            .sum();
        let one = fit(lines.clone(), all - 1, &tok);
        assert_eq!(one.dropped_model, 1);
        assert!(!kept(&one).contains(&"You could also tune maxmemory to 256 MB."));
        let two = fit(lines.clone(), all * 3 / 5, &tok);
        assert!(!kept(&two).contains(&"I'm debugging our Rust checkout service."));
        assert!(kept(&two).contains(&"The config lives at /etc/shopd/shop.toml."));
    }

    #[test]
    fn what_the_person_said_on_its_own_outlasts_pasted_material_even_when_older() {
        use crate::core::ledger::extract;
        let tok = ByteEstimate;
        let mut lines = extract("The plumber is Branko, he comes on 12 March.", true);
        lines.extend(extract(
            "My flight is FL-20931, and the budget is 18,500 EUR.",
            true,
        ));
        let said = lines.len();
        lines.extend(extract(
            "Router A: 4x4 MIMO, 2.5 GbE WAN.\nRouter B: 3 units, 160 MHz channels.\n\
             Satellite: 1 GbE backhaul, 2 ports.\nPrice: 349 EUR per pack of 3.\nWarranty 24 months.",
            true,
        ));
        assert!(lines[said..].iter().all(|l| l.listed));
        let told: Vec<String> = lines[..said].iter().map(|l| l.text.clone()).collect();
        let own: u32 = prepare(lines[..said].to_vec(), &tok)
            .iter()
            .map(|p| p.plain_cost)
            .sum();
        // Room for the person's own lines and a little more: the material leaves, and
        // what was said first stays, though it is older.
        let fitted = fit(lines.clone(), own + 8, &tok);
        for t in &told {
            assert!(kept(&fitted).contains(&t.as_str()), "{t} left: {fitted:?}");
        }
        assert!(fitted.dropped_user > 0);
        // With no material the oldest leaves first, as before.
        let alone = fit(lines[..said].to_vec(), own - 1, &tok);
        assert!(
            kept(&alone).last().unwrap().contains("FL-20931"),
            "{alone:?}"
        );
    }

    #[test]
    fn pasted_material_leaves_before_the_persons_own_lines_lose_their_words() {
        use crate::core::ledger::extract;
        let tok = ByteEstimate;
        let ticket = user(
            "today's mostly PAY-2231, the webhook retries that pile up when the acquirer times out",
        );
        let config = extract(
            "clock_skew_secs = 300\nqueue_capacity = 20000\ninitial_ms = 500\nmax_delay_ms = 60000\nmax_attempts = 5",
            true,
        );
        assert!(config.len() >= 4 && config.iter().all(|l| l.listed));
        let plain = shown(&ticket, Form::Plain);
        assert_ne!(plain, shown(&ticket, Form::Tight));
        let mut lines = vec![ticket];
        lines.extend(config);
        let f = fit(lines, tok.count(&plain) + 2 + 8, &tok);
        assert_eq!(f.lines[0].1, plain, "{f:?}");
        assert!(f.lines.len() < 6);
    }

    #[test]
    fn of_lines_alike_the_costliest_leaves_first() {
        let tok = ByteEstimate;
        let lines = vec![
            user("the league registration fee is £145"),
            user(
                "I loaded 20 µL per lane like Minh said, ran it at 120 V for 90 min, and the blot came out completely black",
            ),
            user("the shirts order number is HS-40219"),
        ];
        let tight: u32 = lines
            .iter()
            .map(|l| tok.count(&shown(l, Form::Tight)) + 2)
            .sum();
        let f = fit(lines, tight - 1, &tok);
        assert_eq!(
            kept(&f),
            [
                "the league registration fee is £145",
                "the shirts order number is HS-40219"
            ]
        );
    }

    #[test]
    fn a_pinned_line_never_leaves() {
        let tok = ByteEstimate;
        let mut lines: Vec<LedgerLine> = (1..=8)
            .map(|k| user(&format!("Room {k} is booked for {k}0 people on day {k}.")))
            .collect();
        lines[0].pinned = true;
        let fitted = fit(lines.clone(), 30, &tok);
        assert!(fitted.dropped_user > 0);
        assert_eq!(kept(&fitted)[0], lines[0].text, "{fitted:?}");
        lines[0].pinned = false;
        assert_ne!(
            kept(&fit(lines, 30, &tok)).first(),
            Some(&"Room 1 is booked for 10 people on day 1.")
        );
    }
}
