//! `freelance_tax`: a freelance illustrator doing a first tax return — 44 turns written
//! before any rule was tuned to them. Its shapes: amounts as people say them ("about
//! 6k", "2 grand all in", "45p a mile", "150 a month"), a reference number written with
//! a space ("48213 90571"), an accountant with an Irish name ("Siobhán Ní Bhriain"), the
//! largest client's total corrected as transposed digits ("£4,850 not £4,580"), the
//! accountant's fee lowered later ("she'll do it for £300"), an iPad bought for work.
//! Questions ask in other words ("how much did the publisher pay me", "what does the
//! accountant cost").

use super::{Question, Scenario, changed, fact};

pub(super) fn freelance_tax() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "Doing my first self assessment as a freelancer and I'm panicking a bit. Can you help me get organised?".into(),
        // 1
        "I'm an illustrator, went self-employed in May, before that I was on PAYE at a design studio.".into(),
        // 2
        "From April to May at the studio I earned about 6k, the P45 says £6,120 exactly.".into(),
        // 3
        "Do I need to put that on the self assessment too?".into(),
        // 4
        "Ok.".into(),
        // 5
        "My UTR is 48213 90571, it came in a letter from HMRC.".into(),
        // 6
        "Biggest client is Hatchling Press, they paid me £4,580 across three invoices.".into(),
        // 7
        "Then a bunch of small stuff on Etsy, maybe 2 grand all in after fees.".into(),
        // 8
        "What counts as an allowable expense?".into(),
        // 9
        "The iPad Pro was £1,099, I bought it in June purely for work.".into(),
        // 10
        "Can I claim all of it in one year?".into(),
        // 11
        "Nice, annual investment allowance it is.".into(),
        // 12
        "I use the back bedroom as a studio, it's about 15% of the house.".into(),
        // 13
        "How do people usually work out the use of home thing?".into(),
        // 14
        "I'll do the flat rate then, simpler.".into(),
        // 15
        "I drove to client meetings a fair bit, roughly 1,200 miles since May.".into(),
        // 16
        "What's the mileage rate?".into(),
        // 17
        "45p a mile, got it.".into(),
        // 18
        "A friend recommended an accountant, Siobhán Ní Bhriain, she charges £350 for a simple return.".into(),
        // 19
        "Is it worth paying someone for a first return?".into(),
        // 20
        "I'll think about it.".into(),
        // 21
        "The deadline is 31 January for online, right?".into(),
        // 22
        "And payment on account, what's that?".into(),
        // 23
        "Ugh, that sounds painful.".into(),
        // 24
        "Oh no wait, the Hatchling total was £4,850 not £4,580, I transposed the digits.".into(),
        // 25
        "Does that change much?".into(),
        // 26
        "Ok good.".into(),
        // 27
        "I also pay into a pension, 150 a month since June.".into(),
        // 28
        "Does that go on the return?".into(),
        // 29
        "Right.".into(),
        // 30
        "Siobhán got back to me, she'll do it for £300 since it's simple.".into(),
        // 31
        "Booked her then.".into(),
        // 32
        "What records should I keep and for how long?".into(),
        // 33
        "Five years, wow.".into(),
        // 34
        "I keep receipts in a shoebox, is a photo of them OK?".into(),
        // 35
        "I'll get an app for it.".into(),
        // 36
        "Should I register for VAT?".into(),
        // 37
        "Nowhere near 90k, lol.".into(),
        // 38
        "What happens if I'm late?".into(),
        // 39
        "£100 fine straight away, noted.".into(),
        // 40
        "Can I pay in instalments if it's a lot?".into(),
        // 41
        "Good to know.".into(),
        // 42
        "Right, I'll gather everything this weekend.".into(),
        // 43
        "Thanks, you've calmed me down.".into(),
    ];
    let facts = vec![
        // The first third (turns 0-14).
        fact(&["P45"], "£6,120", 2),
        fact(&["UTR"], "48213 90571", 5),
        fact(&["Etsy"], "2 grand", 7),
        fact(&["iPad"], "£1,099", 9),
        fact(&["studio", "bedroom"], "15%", 12),
        // The rest.
        fact(&["drove"], "1,200 miles", 15),
        changed(&["Hatchling"], "£4,850", "£4,580", 24),
        fact(&["pension"], "150", 27),
        changed(&["Siobhán"], "£300", "£350", 30),
    ];
    let quiz = vec![
        Question {
            ask: "What did my P45 say I earned at the studio?",
            fact: 0,
        },
        Question {
            ask: "What's my tax reference?",
            fact: 1,
        },
        Question {
            ask: "How much did I make selling online?",
            fact: 2,
        },
        Question {
            ask: "What did the tablet cost?",
            fact: 3,
        },
        Question {
            ask: "How much of the house is work space?",
            fact: 4,
        },
        Question {
            ask: "How far did I drive for work?",
            fact: 5,
        },
        Question {
            ask: "How much did the publisher pay me in total?",
            fact: 6,
        },
        Question {
            ask: "How much goes into my pension?",
            fact: 7,
        },
        Question {
            ask: "What's the accountant charging me?",
            fact: 8,
        },
    ];
    Scenario {
        name: "freelance_tax",
        locked: "Everything in pounds, no rounding",
        turns,
        facts,
        quiz,
    }
}
