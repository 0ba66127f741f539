//! Fitting: the ledger under its token budget (what goes first when it does not fit) and
//! its rendering into the request.

use super::LedgerLine;
use super::extract::{VALUE, values};
use crate::core::tokens::Tokenizer;

/// The lines that fit `budget` tokens (each counted as rendered, with its "- "). What
/// goes first: assistant lines whose values the person's lines already hold, then other
/// assistant lines, then the person's lines whose only value is a capitalised word (a
/// name is weak evidence: "our Rust service", "Historians argue"), then the rest; the
/// oldest first within each. Order is preserved.
pub fn fit(lines: Vec<LedgerLine>, budget: u32, tok: &dyn Tokenizer) -> Vec<LedgerLine> {
    let cost = |l: &LedgerLine| tok.count(&l.text) + 2;
    let mut total: u32 = lines.iter().map(cost).sum();
    if total <= budget {
        return lines;
    }
    let mut keep = vec![true; lines.len()];
    // Redundant assistant lines: every value already in a person's line.
    let user_text: String = lines
        .iter()
        .filter(|l| l.user)
        .map(|l| l.text.to_lowercase())
        .collect::<Vec<_>>()
        .join("\n");
    let redundant = |l: &LedgerLine| {
        !l.user
            && values(&l.text)
                .iter()
                .all(|v| user_text.contains(&v.to_lowercase()))
    };
    let names_only = |l: &LedgerLine| !VALUE.is_match(&l.text);
    let order: Vec<usize> = (0..lines.len())
        .filter(|&i| redundant(&lines[i]))
        .chain((0..lines.len()).filter(|&i| !lines[i].user && !redundant(&lines[i])))
        .chain((0..lines.len()).filter(|&i| lines[i].user && names_only(&lines[i])))
        .chain((0..lines.len()).filter(|&i| lines[i].user && !names_only(&lines[i])))
        .collect();
    for i in order {
        if total <= budget {
            break;
        }
        keep[i] = false;
        total = total.saturating_sub(cost(&lines[i]));
    }
    lines
        .into_iter()
        .zip(keep)
        .filter_map(|(l, k)| k.then_some(l))
        .collect()
}

/// The ledger as it appears in the request: a header, then a line each.
pub fn render(header: &str, lines: &[LedgerLine]) -> String {
    let mut out = String::from(header);
    for l in lines {
        out.push_str("\n- ");
        out.push_str(&l.text);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::ledger::lines::{texts, user};
    use crate::core::tokens::ByteEstimate;

    #[test]
    fn under_the_budget_a_line_with_only_a_name_goes_before_a_hard_value() {
        let lines = vec![
            user("The test tests/cart_total.rs fails at src/cart/total.rs:88."),
            user("I'm debugging our Rust checkout service."),
            user("The payment client reads PAYMENT_API_URL."),
        ];
        let tok = ByteEstimate;
        let all: u32 = lines.iter().map(|l| tok.count(&l.text) + 2).sum();
        let fitted = fit(lines.clone(), all - 1, &tok);
        assert_eq!(
            texts(&fitted),
            [
                "The test tests/cart_total.rs fails at src/cart/total.rs:88.",
                "The payment client reads PAYMENT_API_URL.",
            ]
        );
    }

    #[test]
    fn the_budget_drops_redundant_and_old_assistant_lines_first() {
        let lines = vec![
            user("The cache listens on port 6379."),
            LedgerLine {
                text: "Redis runs on 6379 as you said.".into(),
                user: false,
                corrects: false,
            },
            LedgerLine {
                text: "You could also tune maxmemory to 256 MB.".into(),
                user: false,
                corrects: false,
            },
            user("The config lives at /etc/shopd/shop.toml."),
        ];
        let tok = ByteEstimate;
        let all: u32 = lines.iter().map(|l| tok.count(&l.text) + 2).sum();
        let one_less = fit(lines.clone(), all - 1, &tok);
        assert_eq!(one_less.len(), 3);
        assert!(!texts(&one_less).contains(&"Redis runs on 6379 as you said."));
        let users_only = fit(lines.clone(), 2 * (all / 3), &tok);
        assert!(users_only.iter().all(|l| l.user), "{users_only:?}");
        assert_eq!(fit(lines.clone(), all, &tok), lines);
    }
}
