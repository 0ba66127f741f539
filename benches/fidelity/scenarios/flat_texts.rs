//! `flat_texts`: someone flat hunting, typing as people text — 42 turns written before
//! any rule was tuned to them. Its shapes: all lower case, names included ("dev from
//! foxtons", "uncle femi", "mrs achterberg"), no full stops, "pcm" and "ish" amounts,
//! short forms ("thurs", "fri 5.30", "min", "lol", "u"), two flats compared in one
//! message, a landlord's demand haggled down ("2 months upfront now not 6") and a
//! quote lowered with "instead". The questions are texted too.

use super::{Question, Scenario, changed, fact};

pub(super) fn flat_texts() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "ok so im flat hunting again lol. can u help me keep track of stuff".into(),
        // 1
        "first one is on harcourt rd, 2 bed, 1850 pcm, agent is dev from foxtons".into(),
        // 2
        "viewing for harcourt is thurs at 6".into(),
        // 3
        "whats a good question to ask at a viewing".into(),
        // 4
        "ha ok. deposit is 5 weeks rent btw so like 2100ish".into(),
        // 5
        "second place is above the bakery on mill lane, 1 bed but huge, 1600 pcm bills not incl".into(),
        // 6
        "the bakery guy said the last tenant left cos of noise from the extractor fan".into(),
        // 7
        "is that a red flag".into(),
        // 8
        "yeah ill ask about it".into(),
        // 9
        "my budget is 1900 max all in, council tax included".into(),
        // 10
        "how much is council tax usually for a 1 bed".into(),
        // 11
        "oof ok".into(),
        // 12
        "lease has to start by 1st march, my current one ends 28 feb".into(),
        // 13
        "what happens if theres a gap of a few days".into(),
        // 14
        "moving van quote from shiftit was 340 for a saturday".into(),
        // 15
        "is that normal for a 1 bed move".into(),
        // 16
        "cool".into(),
        // 17
        "my guarantor is my uncle femi, he earns enough apparently".into(),
        // 18
        "what do guarantors need to provide usually".into(),
        // 19
        "ugh paperwork".into(),
        // 20
        "update: harcourt viewing moved to fri 5.30, dev texted".into(),
        // 21
        "should i bring anything to it".into(),
        // 22
        "ok".into(),
        // 23
        "mill lane is a private landlord, mrs achterberg, she wants 6 months upfront?? is that even legal".into(),
        // 24
        "hmm ok ill push back".into(),
        // 25
        "she came back, 2 months upfront now not 6".into(),
        // 26
        "better".into(),
        // 27
        "harcourt has a washer dryer, mill lane only a washing machine".into(),
        // 28
        "which is cheaper to run".into(),
        // 29
        "right".into(),
        // 30
        "the van guy says he can do sunday for 290 instead".into(),
        // 31
        "nice saving".into(),
        // 32
        "what should i check on the inventory when i move in".into(),
        // 33
        "photos of everything got it".into(),
        // 34
        "work is near the station so harcourt is a 12 min walk, mill lane is a 25 min bus".into(),
        // 35
        "does a long commute matter that much".into(),
        // 36
        "fair".into(),
        // 37
        "random but how do i get rid of mould on a window frame".into(),
        // 38
        "thx".into(),
        // 39
        "ok lemme check the numbers again tonight".into(),
        // 40
        "think im leaning harcourt tbh".into(),
        // 41
        "cheers for the help".into(),
    ];
    let facts = vec![
        // The first third (turns 0-13).
        fact(&["harcourt"], "1850", 1),
        fact(&["agent"], "foxtons", 1),
        fact(&["deposit"], "5 weeks", 4),
        fact(&["mill lane"], "1600", 5),
        fact(&["budget"], "1900", 9),
        fact(&["lease"], "1st march", 12),
        // The rest.
        fact(&["guarantor"], "femi", 17),
        changed(&["viewing"], "fri 5.30", "thurs at 6", 20),
        fact(&["landlord"], "achterberg", 23),
        changed(&["upfront"], "2 months", "6 months", 25),
        changed(&["van"], "290", "340", 30),
    ];
    let quiz = vec![
        Question {
            ask: "how much is harcourt a month again",
            fact: 0,
        },
        Question {
            ask: "which agency is harcourt with",
            fact: 1,
        },
        Question {
            ask: "how big is the deposit",
            fact: 2,
        },
        Question {
            ask: "whats the rent on the bakery one",
            fact: 3,
        },
        Question {
            ask: "whats the most i said i can spend",
            fact: 4,
        },
        Question {
            ask: "when does the new place need to start by",
            fact: 5,
        },
        Question {
            ask: "who did i say my guarantor is",
            fact: 6,
        },
        Question {
            ask: "when am i seeing harcourt",
            fact: 7,
        },
        Question {
            ask: "how much does the landlord want upfront now",
            fact: 9,
        },
        Question {
            ask: "whats the van costing me",
            fact: 10,
        },
    ];
    Scenario {
        name: "flat_texts",
        locked: "no flats without a proper kitchen",
        turns,
        facts,
        quiz,
    }
}
