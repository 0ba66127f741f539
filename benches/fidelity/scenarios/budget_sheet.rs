//! `budget_sheet`: a couple's monthly budget — 44 turns written before any rule was tuned
//! to them. Its shapes: a markdown table pasted whole ("| Broadband | £45 |"), rows
//! copied out of a spreadsheet with tabs between item and amount, "approx.", pence
//! ("£62.40", "£169.50"), a rate ("3.9%"), "£18k", a partner named Siobhán, a row
//! corrected by its name ("the broadband line is wrong … £38"), a council tax that went
//! up, and a subscription the model made up ("no Netflix"). Questions ask in other words
//! ("what do we pay for the internet", "groceries").

use super::{Question, Scenario, changed, fact};

pub(super) fn budget_sheet() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "me and Siobhán are finally doing a proper budget, she made a spreadsheet. can you help me sanity check it".into(),
        // 1
        "here's the monthly outgoings bit:\n| item | amount |\n|---|---|\n| Mortgage | £1,310 |\n| Council tax | £187 |\n| Broadband | £45 |\n| Car insurance | £62.40 |\n| Gym (both) | £78 |".into(),
        // 2
        "is £45 a lot for broadband these days".into(),
        // 3
        "ok I'll look at switching, we're on the fastest package which is overkill tbh".into(),
        // 4
        "our take-home between us is approx. £4,850 a month, Siobhán's is a bit more than mine".into(),
        // 5
        "what's a sensible amount to put aside for emergencies".into(),
        // 6
        "three months feels like a lot but ok".into(),
        // 7
        "the mortgage is a 5 year fix at 3.9%, it ends in 2028".into(),
        // 8
        "should we overpay or save".into(),
        // 9
        "hmm we'll probably do a bit of both".into(),
        // 10
        "food shop is roughly £140 a week, Aldi mostly, plus the odd Ocado when we can't be bothered".into(),
        // 11
        "is that normal for two people".into(),
        // 12
        "we do eat a lot of cheese to be fair".into(),
        // 13
        "and these are the yearly ones, copied straight out of the sheet:\nTV licence\t£169.50\nCar service\t£240\nBoiler cover\t£216\nAmazon Prime\t£95".into(),
        // 14
        "would it be better to spread those monthly".into(),
        // 15
        "sinking fund, I like that".into(),
        // 16
        "the car is a 2017 Fabia btw, MOT is due 14 June".into(),
        // 17
        "do you think we need breakdown cover on top of the insurance".into(),
        // 18
        "we get it through Siobhán's bank account, so we're fine".into(),
        // 19
        "just found out the council tax went up in April, it's £196 now not £187".into(),
        // 20
        "classic".into(),
        // 21
        "we've got a joint account for bills and our own accounts for the rest, is that a good setup".into(),
        // 22
        "we each put £1,600 a month into the joint one".into(),
        // 23
        "what's left over goes into a Chase saver at 4.1%".into(),
        // 24
        "is Chase safe? it's a bit new".into(),
        // 25
        "ok FSCS covered is good enough for me".into(),
        // 26
        "I forgot the phones, mine's £12 SIM only with giffgaff and hers is £24 with Three".into(),
        // 27
        "she says she'll switch when her contract ends".into(),
        // 28
        "what's a good way to track spending without it being a chore".into(),
        // 29
        "we tried YNAB once, lasted about a week".into(),
        // 30
        "not sure where Netflix came from, there's no Netflix, we cancelled it ages ago. the only streaming one is Disney+ at £7.99".into(),
        // 31
        "should we keep the gym if we only go twice a week".into(),
        // 32
        "we'll give it till the new year".into(),
        // 33
        "the broadband line is wrong btw, Siobhán got them down to £38 on the phone yesterday".into(),
        // 34
        "she's very good at haggling, I just accept whatever they say".into(),
        // 35
        "right so what's left at the end of the month roughly, with everything".into(),
        // 36
        "ok that's more than I thought".into(),
        // 37
        "we want to save for a wedding, aiming for £18k by summer 2028".into(),
        // 38
        "realistic?".into(),
        // 39
        "her sister got married for 12 grand so it can be done".into(),
        // 40
        "can you write me a short summary we can stick on the fridge".into(),
        // 41
        "perfect".into(),
        // 42
        "how often should we look at this again".into(),
        // 43
        "every quarter then, thanks, this was actually painless".into(),
    ];
    let facts = vec![
        // The first third (turns 0-14).
        fact(&["Mortgage"], "£1,310", 1),
        fact(&["Car insurance"], "£62.40", 1),
        fact(&["Gym"], "£78", 1),
        fact(&["take-home"], "£4,850", 4),
        fact(&["fix", "mortgage"], "3.9%", 7),
        fact(&["food shop", "food"], "£140", 10),
        fact(&["TV licence"], "£169.50", 13),
        fact(&["Boiler cover"], "£216", 13),
        // The rest.
        fact(&["MOT"], "14 June", 16),
        changed(&["council tax"], "£196", "£187", 19),
        fact(&["joint"], "£1,600", 22),
        fact(&["Chase", "saver"], "4.1%", 23),
        fact(&["giffgaff"], "£12", 26),
        fact(&["Disney+", "streaming"], "£7.99", 30).rejecting("netflix"),
        changed(&["broadband"], "£38", "£45", 33),
        fact(&["wedding"], "£18k", 37),
    ];
    let quiz = vec![
        Question {
            ask: "What's our monthly mortgage payment?",
            fact: 0,
        },
        Question {
            ask: "What does the car insurance cost a month?",
            fact: 1,
        },
        Question {
            ask: "How much do we bring home a month together?",
            fact: 3,
        },
        Question {
            ask: "What rate is the mortgage fixed at?",
            fact: 4,
        },
        Question {
            ask: "How much do we spend on groceries each week?",
            fact: 5,
        },
        Question {
            ask: "How much is the TV licence?",
            fact: 6,
        },
        Question {
            ask: "What does the boiler cover cost a year?",
            fact: 7,
        },
        Question {
            ask: "How much is the council tax now?",
            fact: 9,
        },
        Question {
            ask: "What do we pay for the internet?",
            fact: 14,
        },
        Question {
            ask: "How much is our streaming subscription?",
            fact: 13,
        },
        Question {
            ask: "How much are we saving for the wedding?",
            fact: 15,
        },
    ];
    Scenario {
        name: "budget_sheet",
        locked: "Bills come out of the joint account only",
        turns,
        facts,
        quiz,
    }
}
