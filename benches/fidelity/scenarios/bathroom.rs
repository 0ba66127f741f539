//! `bathroom`: redoing a small bathroom with a tiler — 40 turns written before any rule
//! was tuned to them. Its shapes: measures with "x" and fractions ("2.4m x 1.8m", "1/2
//! inch"), dates written day/month ("28/11", "3/12"), a price per square metre ("£32/m²"),
//! ranges ("3-4 days"), "noon", a tiler named O'Sullivan, a tile's product code, a grout
//! colour in words, a delivery moved by a day/month date, and a count of boxes revised.
//! Questions ask in other words ("how big is the room", "when do the tiles arrive").

use super::{Question, Scenario, changed, fact};

pub(super) fn bathroom() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "we're finally redoing the bathroom, it's tiny and I want to get the tiling right. can you help me plan".into(),
        // 1
        "the floor is 2.4m x 1.8m and the walls are tiled up to 1.2m except the shower which goes to the ceiling".into(),
        // 2
        "how much extra should I order for cuts and breakages".into(),
        // 3
        "10% it is then".into(),
        // 4
        "the tiles we picked are the Marazzi Grande in matt grey, code MZ-6619, they're £32/m²".into(),
        // 5
        "are big tiles a bad idea in a small room".into(),
        // 6
        "ok good, I was worried it would look weird".into(),
        // 7
        "the tiler is Declan O'Sullivan, he quoted £1,150 for labour, materials on top".into(),
        // 8
        "he says it'll take 3-4 days including the shower wall".into(),
        // 9
        "does that sound realistic for a room that size".into(),
        // 10
        "good, he seems to know what he's doing".into(),
        // 11
        "the shower tray is 900 x 760 and it's the Merlyn Ionic one".into(),
        // 12
        "what's the difference between a tray and a wet room really".into(),
        // 13
        "yeah we're not doing a wet room, the floor joists won't take it".into(),
        // 14
        "grout colour is going to be charcoal, not white, white goes grubby".into(),
        // 15
        "should the grout match the tile or contrast".into(),
        // 16
        "makes sense, charcoal is close enough to the grey".into(),
        // 17
        "the tiles get delivered on 28/11 between 8 and noon".into(),
        // 18
        "do I need to be in for a pallet delivery".into(),
        // 19
        "ugh ok I'll work from home that morning".into(),
        // 20
        "Declan starts on 1/12, a Monday".into(),
        // 21
        "what should I do to prep the room before he comes".into(),
        // 22
        "good list, the old tiles are coming off this weekend".into(),
        // 23
        "the backer board needs to be 12mm on the floor he said, and 6mm on the walls".into(),
        // 24
        "why is the floor thicker".into(),
        // 25
        "ah because of the flex, got it".into(),
        // 26
        "the supplier rang, delivery moved to 27/11, same time window".into(),
        // 27
        "that's actually better, gives me a day".into(),
        // 28
        "I worked out I need 9 boxes of the floor tile".into(),
        // 29
        "is there an easy way to check that".into(),
        // 30
        "oh I did the maths wrong, it's 7 boxes for the floor, the 9 was with the walls".into(),
        // 31
        "how long does grout need before we can shower".into(),
        // 32
        "72 hours is a pain but fine".into(),
        // 33
        "Declan's number is 087 224 6120 if I need to text him".into(),
        // 34
        "should I tip a tradesperson in Ireland".into(),
        // 35
        "tea and biscuits it is".into(),
        // 36
        "the silicone for round the tray should be anthracite to go with the grout".into(),
        // 37
        "can you make me a list of everything I need to buy".into(),
        // 38
        "brilliant".into(),
        // 39
        "thanks, I feel way more organised now".into(),
    ];
    let facts = vec![
        // The first third (turns 0-13).
        fact(&["floor"], "2.4m x 1.8m", 1),
        fact(&["tiles", "Marazzi"], "MZ-6619", 4),
        fact(&["tiles", "Marazzi"], "£32/m²", 4),
        fact(&["tiler", "Declan"], "£1,150", 7),
        fact(&["take", "days"], "3-4 days", 8),
        fact(&["shower tray"], "900 x 760", 11),
        // The rest.
        fact(&["grout"], "charcoal", 14),
        changed(&["delivery"], "27/11", "28/11", 26),
        fact(&["Declan", "starts"], "1/12", 20),
        fact(&["backer board", "floor"], "12mm", 23),
        changed(&["boxes", "floor"], "7 boxes", "9 boxes", 30),
        fact(&["Declan"], "087 224 6120", 33),
    ];
    let quiz = vec![
        Question {
            ask: "How big is the bathroom floor?",
            fact: 0,
        },
        Question {
            ask: "What's the product code of the tiles we chose?",
            fact: 1,
        },
        Question {
            ask: "How much are the tiles per square metre?",
            fact: 2,
        },
        Question {
            ask: "What is the tiler charging for his work?",
            fact: 3,
        },
        Question {
            ask: "How long will the tiling job take?",
            fact: 4,
        },
        Question {
            ask: "What size is the shower tray?",
            fact: 5,
        },
        Question {
            ask: "When do the tiles arrive now?",
            fact: 7,
        },
        Question {
            ask: "How many boxes of floor tiles do I need?",
            fact: 10,
        },
        Question {
            ask: "What colour grout are we using?",
            fact: 6,
        },
    ];
    Scenario {
        name: "bathroom",
        locked: "No wet room: the joists won't take it",
        turns,
        facts,
        quiz,
    }
}
