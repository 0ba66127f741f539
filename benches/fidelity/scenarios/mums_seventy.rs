//! `mums_seventy`: three siblings' surprise party for their mum, organised by one of them
//! in a chat typed the way people text — 42 turns written before any rule was tuned to
//! them. Its shapes: numbers said in words ("about thirty-five people", "a hundred and
//! fifty quid", "half seven", "eight o'clock"), money as slang ("quid"), Irish names
//! (Bronagh, Dermot, Siobhán), facts with no figure ("Auntie Pat is vegan"), the start
//! time corrected ("eight, not half seven") and the cake's maker changed. Most questions
//! ask about the first third, two in other words ("who's doing the music" for "DJing",
//! "how many are coming" for the head count).

use super::{Question, Scenario, changed, fact};

pub(super) fn mums_seventy() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "Mum turns seventy next month and me, Bronagh and Cathal are throwing her a surprise party. Can you help me keep track of everything?".into(),
        // 1
        "It's Saturday the 9th of May, in the function room at the Rose and Crown in Ilkley.".into(),
        // 2
        "we reckon about thirty-five people, mostly family and her walking group".into(),
        // 3
        "The deposit for the room was a hundred and fifty quid, paid it yesterday.".into(),
        // 4
        "How do you keep a party a surprise when half the guests can't keep their mouths shut?".into(),
        // 5
        "lol yeah my uncle Gerry is the weak link".into(),
        // 6
        "Bronagh is doing the cake, she's an amazing baker. Lemon drizzle, mum's favourite.".into(),
        // 7
        "Dad's job is to get her there, he's telling her it's dinner with the Hendersons.".into(),
        // 8
        "Kicks off at half seven, food at half eight.".into(),
        // 9
        "The pub's number is 01943 608 212, ask for Lorraine, she does the functions.".into(),
        // 10
        "What kind of food works for a party like this, sit down or buffet?".into(),
        // 11
        "Buffet it is then.".into(),
        // 12
        "Our cousin Dermot is DJing for free as his present, god help us.".into(),
        // 13
        "Auntie Pat is vegan so the buffet needs a proper vegan option, not just a sad salad.".into(),
        // 14
        "Any ideas for a speech? Cathal wants to do it but he rambles.".into(),
        // 15
        "Ha, I'll send him that.".into(),
        // 16
        "We're splitting the cost three ways, about 400 each.".into(),
        // 17
        "Is that a reasonable amount for a party this size?".into(),
        // 18
        "Good, that's what I hoped.".into(),
        // 19
        "Should we do a photo slideshow? We have boxes of old prints.".into(),
        // 20
        "How do I scan a load of prints without spending a week on it?".into(),
        // 21
        "Genius, I'll get the kids on it.".into(),
        // 22
        "Change of plan on timing: it starts at eight now, not half seven, the room's booked for a christening until then.".into(),
        // 23
        "Does that push the food back too, do you think?".into(),
        // 24
        "Ok food at nine then.".into(),
        // 25
        "What do we do about people who RSVP and don't turn up?".into(),
        // 26
        "Bad news, Bronagh's oven has packed in, so the cake is coming from Betty's in Harrogate instead.".into(),
        // 27
        "Mum will be thrilled to be honest, she loves Betty's.".into(),
        // 28
        "How far ahead do you need to order a cake from a posh bakery?".into(),
        // 29
        "Right, I'll ring them Monday.".into(),
        // 30
        "Should we get her one big present from everyone or let people do their own?".into(),
        // 31
        "One big one. She's been on about a garden bench for years.".into(),
        // 32
        "What's a nice thing to engrave on a bench?".into(),
        // 33
        "Aww. Maybe the second one.".into(),
        // 34
        "How do we stop Gerry from spoiling it on the day?".into(),
        // 35
        "Haha, giving him a job is perfect.".into(),
        // 36
        "What should I put in the invitation so people actually read it?".into(),
        // 37
        "Perfect. Sending them tonight.".into(),
        // 38
        "Ok brain is fried. Let me check I've got the main things.".into(),
        // 39
        "Actually, what's a good playlist vibe for a seventy year old's party?".into(),
        // 40
        "Dermot will ignore all of that anyway.".into(),
        // 41
        "Thanks, you've been a star.".into(),
    ];
    let facts = vec![
        // The first third (turns 0-13).
        fact(&["party", "Rose and Crown"], "9th of May", 1),
        fact(&["function room"], "Rose and Crown", 1),
        fact(&["people"], "thirty-five", 2),
        fact(&["deposit"], "a hundred and fifty", 3),
        fact(&["Dad"], "Hendersons", 7),
        fact(&["pub", "Lorraine"], "01943 608 212", 9),
        fact(&["DJing"], "Dermot", 12),
        fact(&["vegan"], "Pat", 13),
        // The rest.
        fact(&["cost", "splitting"], "400", 16),
        changed(&["starts"], "eight", "half seven", 22),
        changed(&["cake"], "Betty's", "Bronagh", 26),
    ];
    let quiz = vec![
        Question {
            ask: "How many are coming?",
            fact: 2,
        },
        Question {
            ask: "How much was the deposit for the room?",
            fact: 3,
        },
        Question {
            ask: "What's Dad telling her the evening is?",
            fact: 4,
        },
        Question {
            ask: "What's the number for the pub?",
            fact: 5,
        },
        Question {
            ask: "Who's doing the music?",
            fact: 6,
        },
        Question {
            ask: "Which of the family is vegan?",
            fact: 7,
        },
        Question {
            ask: "What time does it start?",
            fact: 9,
        },
        Question {
            ask: "Where's the cake coming from now?",
            fact: 10,
        },
    ];
    Scenario {
        name: "mums_seventy",
        locked: "Nobody tells Mum, not even a hint",
        turns,
        facts,
        quiz,
    }
}
