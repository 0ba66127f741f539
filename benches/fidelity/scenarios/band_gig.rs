//! `band_gig`: a band's first proper gig, planned in the week before — 42 turns written
//! before any rule was tuned to them. Its shapes: mostly lower case with dots for
//! clock times ("on at 9.15", "soundcheck 6.30"), a person standing in for another
//! ("jamie's filling in for rob on drums"), a deal in words and a percentage ("£250
//! guarantee and 70% of the door after the first £100"), a slot moved because the bill
//! changed, a count of things and its price ("40 shirts at £15"), a place given as
//! directions ("load in round the back on Mackenzie St"), and questions in other words
//! ("who's on drums", "the merch", "what we get paid").

use super::{Question, Scenario, changed, fact};

pub(super) fn band_gig() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "ok so my band has our first proper gig saturday and i'm the one organising everything apparently".into(),
        // 1
        "it's at the Brudenell, the small room, capacity 120.".into(),
        // 2
        "the promoter is Dervla, she's been really nice about it".into(),
        // 3
        "deal is £250 guarantee plus 70% of the door after the first £100".into(),
        // 4
        "is that a decent deal for a first gig?".into(),
        // 5
        "good, thought so".into(),
        // 6
        "we're second on the bill, on at 9.15 for 40 minutes".into(),
        // 7
        "how many songs fit in 40 mins if they're about 4 mins each?".into(),
        // 8
        "ten then, with a bit of chat".into(),
        // 9
        "soundcheck is 6.30, load in round the back on Mackenzie St".into(),
        // 10
        "should we bring our own cymbals or use the house kit's?".into(),
        // 11
        "own cymbals, makes sense".into(),
        // 12
        "we've ordered 40 shirts, selling them at £15 each".into(),
        // 13
        "card reader or cash only for merch?".into(),
        // 14
        "sumup it is".into(),
        // 15
        "how do i stop everyone faffing at soundcheck".into(),
        // 16
        "i'll write a stage plot tonight".into(),
        // 17
        "disaster, rob broke his wrist skateboarding".into(),
        // 18
        "so rob's out and jamie's filling in on drums, he knows most of the set".into(),
        // 19
        "should we cut the songs jamie doesn't know or risk it?".into(),
        // 20
        "cutting them, safer".into(),
        // 21
        "the headliners pulled out so Dervla's moved us up, we're on at 10.30 now".into(),
        // 22
        "does headlining change how long we should play?".into(),
        // 23
        "she wants a 50 minute set now".into(),
        // 24
        "we need two more songs then, jamie's learning them".into(),
        // 25
        "my mate Oisín is doing photos for free, legend".into(),
        // 26
        "what shots should i ask him for?".into(),
        // 27
        "i'll send him that list".into(),
        // 28
        "guest list is 8 people max, Dervla said".into(),
        // 29
        "is it rude to put my parents on the guest list lol".into(),
        // 30
        "they're on it".into(),
        // 31
        "how do we get people to actually come and not just click interested".into(),
        // 32
        "posting a rehearsal video tomorrow then".into(),
        // 33
        "presales are at 64 which seems good?".into(),
        // 34
        "what's a normal walk-up on the night at a venue that size?".into(),
        // 35
        "fingers crossed for a busy one".into(),
        // 36
        "what should we do between soundcheck and going on? that's ages".into(),
        // 37
        "food at the pub over the road it is".into(),
        // 38
        "anything else for the van? we're leaving from my place at 5".into(),
        // 39
        "gaffer tape, noted".into(),
        // 40
        "ok i think we're ready. nervous".into(),
        // 41
        "thanks, i'll tell you how it goes".into(),
    ];
    let facts = vec![
        // The first third (turns 0-13).
        fact(&["Brudenell", "capacity"], "120", 1),
        fact(&["promoter"], "Dervla", 2),
        fact(&["guarantee", "deal"], "£250", 3),
        fact(&["soundcheck"], "6.30", 9),
        fact(&["load in"], "Mackenzie St", 9),
        fact(&["shirts"], "£15", 12),
        // The rest.
        changed(&["drums"], "jamie", "rob", 18),
        changed(&["on at"], "10.30", "9.15", 21),
        changed(&["set"], "50", "40", 23),
        fact(&["photos"], "Oisín", 25),
        fact(&["guest list"], "8", 28),
        fact(&["presales"], "64", 33),
    ];
    let quiz = vec![
        Question {
            ask: "How many people does the room hold?",
            fact: 0,
        },
        Question {
            ask: "Who's the promoter?",
            fact: 1,
        },
        Question {
            ask: "What's our guaranteed fee?",
            fact: 2,
        },
        Question {
            ask: "What time is soundcheck?",
            fact: 3,
        },
        Question {
            ask: "Where do we load in?",
            fact: 4,
        },
        Question {
            ask: "How much are we charging for the merch?",
            fact: 5,
        },
        Question {
            ask: "Who's playing drums?",
            fact: 6,
        },
        Question {
            ask: "What time are we on stage?",
            fact: 7,
        },
        Question {
            ask: "Who's taking pictures?",
            fact: 9,
        },
        Question {
            ask: "How many presales so far?",
            fact: 11,
        },
    ];
    Scenario {
        name: "band_gig",
        locked: "We play the new songs last",
        turns,
        facts,
        quiz,
    }
}
