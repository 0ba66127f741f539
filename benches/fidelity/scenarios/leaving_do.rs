//! `leaving_do`: organising a colleague's leaving do — 42 turns written before any rule
//! was tuned to them. Its shapes: other people's messages passed on ("Tom says …",
//! "Update from the Lamb and Flag: …"), money collected in an envelope and counted
//! again later ("up to £187.50 now"), a booking reference, a room letter ("Room B"),
//! diets with no figure ("vegetarian", "coeliac"), a head count lowered by someone who
//! "can't make it now", a pub that wants a deposit. Questions ask in other words ("the
//! collection", "per person", "can't eat").

use super::{Question, Scenario, changed, fact};

pub(super) fn leaving_do() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "Marguerite is leaving after 11 years and somehow I've ended up organising her leaving do. Help!".into(),
        // 1
        "It's on Thursday the 19th, straight after work, from half 6.".into(),
        // 2
        "We've booked the back room at the Lamb and Flag, booking ref RB-20417.".into(),
        // 3
        "What's a good way to collect money without it being awkward?".into(),
        // 4
        "An envelope going round it is.".into(),
        // 5
        "So far there's £142.50 in the envelope.".into(),
        // 6
        "The gift is a pottery course at Clay Studio Hove, it's £165 for six weeks.".into(),
        // 7
        "Is that a good gift for someone moving abroad? She's off to Lisbon.".into(),
        // 8
        "She's always said she wants to try it, so yes.".into(),
        // 9
        "Wen is doing the card, she's got lovely handwriting.".into(),
        // 10
        "Marguerite is vegetarian and her partner Joss is coeliac, so the food needs to work for both.".into(),
        // 11
        "What finger food works for both of those?".into(),
        // 12
        "Great list.".into(),
        // 13
        "The pub does a buffet at £14 a head if we confirm numbers by Monday.".into(),
        // 14
        "How many people usually turn up to these compared to who says yes?".into(),
        // 15
        "Makes sense, people drop out.".into(),
        // 16
        "Make sure nobody tells Marguerite about the pottery thing, it's a surprise.".into(),
        // 17
        "Tom says he'll do a short speech, nothing cringe.".into(),
        // 18
        "Any tips for a short leaving speech?".into(),
        // 19
        "I'll pass those on to him.".into(),
        // 20
        "Update from the Lamb and Flag: the back room is double booked, so they've moved us to Room B upstairs.".into(),
        // 21
        "Is an upstairs room a problem for anyone with mobility issues?".into(),
        // 22
        "Good point, I'll check they have a lift.".into(),
        // 23
        "They do, phew.".into(),
        // 24
        "We're at 22 yeses so far.".into(),
        // 25
        "Do I order food for everyone who said yes or fewer?".into(),
        // 26
        "Fewer it is.".into(),
        // 27
        "The envelope is up to £187.50 now!".into(),
        // 28
        "That covers the gift with some left over, right?".into(),
        // 29
        "What should we do with the extra?".into(),
        // 30
        "Priyanka can't make it now, so that's 21 yeses.".into(),
        // 31
        "Flowers for her last day it is.".into(),
        // 32
        "Should I say something too, as the organiser?".into(),
        // 33
        "Short and sweet, got it.".into(),
        // 34
        "Her last day is actually Friday the 20th, the do is the night before.".into(),
        // 35
        "Do people still do leaving books?".into(),
        // 36
        "Wen has the card covered anyway.".into(),
        // 37
        "Oh, the pub wants a £50 deposit to hold the room.".into(),
        // 38
        "I'll pay it out of the envelope.".into(),
        // 39
        "OK, I think we're sorted.".into(),
        // 40
        "Anything I've forgotten?".into(),
        // 41
        "Thanks, you're a lifesaver.".into(),
    ];
    let facts = vec![
        // The first third (turns 0-13).
        fact(&["Thursday"], "19th", 1),
        fact(&["Lamb"], "RB-20417", 2),
        fact(&["pottery"], "£165", 6),
        fact(&["card"], "Wen", 9),
        fact(&["Joss"], "coeliac", 10),
        fact(&["buffet"], "£14", 13),
        // The rest.
        fact(&["Lamb", "upstairs"], "Room B", 20),
        changed(&["envelope"], "£187.50", "£142.50", 27),
        changed(&["yeses"], "21", "22", 30),
        fact(&["last day"], "20th", 34),
        fact(&["deposit"], "£50", 37),
    ];
    let quiz = vec![
        Question {
            ask: "What date is the do?",
            fact: 0,
        },
        Question {
            ask: "What's the booking reference?",
            fact: 1,
        },
        Question {
            ask: "How much is the present?",
            fact: 2,
        },
        Question {
            ask: "Who's writing the card?",
            fact: 3,
        },
        Question {
            ask: "What's Joss's dietary thing?",
            fact: 4,
        },
        Question {
            ask: "What does the food cost per person?",
            fact: 5,
        },
        Question {
            ask: "Which room are we in now?",
            fact: 6,
        },
        Question {
            ask: "How much is in the collection?",
            fact: 7,
        },
        Question {
            ask: "How many yeses do we have?",
            fact: 8,
        },
        Question {
            ask: "When is her last day?",
            fact: 9,
        },
        Question {
            ask: "How much deposit does the pub want?",
            fact: 10,
        },
    ];
    Scenario {
        name: "leaving_do",
        locked: "Keep it a surprise from Marguerite",
        turns,
        facts,
        quiz,
    }
}
