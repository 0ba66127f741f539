//! `kids_party`: a parent organising a sixth birthday at a soft play, 44 turns written
//! before any rule was tuned to them. Its shapes: texting shorthand and symbols ("→",
//! "@ 2pm", "x £14.50 each", "tmrw", "obvs", "48hrs"), emoji beside facts ("‼️", "🎉"),
//! a mobile number after a name, a cake and a head count each corrected ("14 kids now
//! not 12", "the cake is £14 not £12"), and a room named with a hyphen ("the T-Rex
//! room"). Questions ask in other words ("how many children", "per child").

use super::{Question, Scenario, changed, fact};

pub(super) fn kids_party() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "ok so I'm organising Leo's 6th birthday and I'm already stressed 😅 can you help me keep track".into(),
        // 1
        "party → Sat 14th @ 2pm at Jungle Jim's soft play 🎉".into(),
        // 2
        "they do a 2hr package, 90 mins play + 30 mins in the party room".into(),
        // 3
        "what do 6 year olds even eat at parties".into(),
        // 4
        "lol fair, pizza it is".into(),
        // 5
        "12 kids x £14.50 each, that includes the pizza + a drink".into(),
        // 6
        "is that expensive for soft play".into(),
        // 7
        "ok so about normal, fine".into(),
        // 8
        "Mila's allergic to nuts ‼️ her mum is Daniela, 07712 448 903".into(),
        // 9
        "do soft play places usually do nut free".into(),
        // 10
        "I'll ring them tmrw to check".into(),
        // 11
        "cake → M&S Colin the Caterpillar, £12, collecting Fri".into(),
        // 12
        "he's obsessed with Colin, it's a whole thing".into(),
        // 13
        "party bags, is that still a thing".into(),
        // 14
        "ugh ok. budget for party bags is £3 a kid max".into(),
        // 15
        "do I need to invite the whole class? there are 28 of them".into(),
        // 16
        "yeah just the ones he actually plays with then".into(),
        // 17
        "invites going out Mon on the class WhatsApp".into(),
        // 18
        "RSVP by Weds 11th".into(),
        // 19
        "how do people deal with no-one replying to RSVPs lol".into(),
        // 20
        "haha true, I'll chase the ones I know".into(),
        // 21
        "Leo wants a dinosaur theme 🦖".into(),
        // 22
        "balloons and napkins from the pound shop, sorted".into(),
        // 23
        "my sister Aoife's helping, she's bringing her car for the presents".into(),
        // 24
        "what games work for a soft play party when they're already running wild".into(),
        // 25
        "they don't need games lol, fair".into(),
        // 26
        "numbers update: 14 kids now not 12, the twins are coming".into(),
        // 27
        "so what's that in total".into(),
        // 28
        "eek".into(),
        // 29
        "Jungle Jim's said they can do a nut free table if we tell them 48hrs before".into(),
        // 30
        "I'll email them Thurs".into(),
        // 31
        "what time should I tell parents to pick up".into(),
        // 32
        "4pm pick up then".into(),
        // 33
        "should I stay for the whole thing or is it drop off at 6".into(),
        // 34
        "I'm staying obvs lol".into(),
        // 35
        "Daniela says Mila can have the pizza but not the cake, she'll bring her own cupcake".into(),
        // 36
        "phew".into(),
        // 37
        "oh the party room is called the T-Rex room, which Leo will lose his mind over".into(),
        // 38
        "thank you cards, do people still do those".into(),
        // 39
        "photo cards it is".into(),
        // 40
        "wait sorry the cake is £14 not £12, I looked at the wrong size".into(),
        // 41
        "still cheaper than a bakery".into(),
        // 42
        "can you do me a checklist for the week before".into(),
        // 43
        "amazing thank you 🙏".into(),
    ];
    let facts = vec![
        // The first third (turns 0-14).
        fact(&["party", "Jungle Jim"], "2pm", 1),
        fact(&["package"], "2hr", 2),
        fact(&["kids", "each"], "£14.50", 5),
        fact(&["Mila", "allergic"], "nuts", 8),
        fact(&["Daniela"], "07712 448 903", 8),
        fact(&["cake", "Colin"], "M&S", 11),
        fact(&["party bags"], "£3", 14),
        // The rest.
        fact(&["RSVP"], "Weds 11th", 18),
        fact(&["theme", "Leo"], "dinosaur", 21),
        changed(&["kids", "numbers"], "14 kids", "12 kids", 26),
        fact(&["nut free"], "48hrs", 29),
        fact(&["pick up"], "4pm", 32),
        fact(&["party room"], "T-Rex room", 37),
        changed(&["cake"], "£14", "£12", 40),
    ];
    let quiz = vec![
        Question {
            ask: "What time does the party start?",
            fact: 0,
        },
        Question {
            ask: "How long is the soft play package?",
            fact: 1,
        },
        Question {
            ask: "How much does the soft play charge per child?",
            fact: 2,
        },
        Question {
            ask: "What is Mila allergic to?",
            fact: 3,
        },
        Question {
            ask: "What's Daniela's phone number?",
            fact: 4,
        },
        Question {
            ask: "Which shop is the cake from?",
            fact: 5,
        },
        Question {
            ask: "What's the most I'm spending on each party bag?",
            fact: 6,
        },
        Question {
            ask: "How many children are coming now?",
            fact: 9,
        },
        Question {
            ask: "How much is the cake?",
            fact: 13,
        },
        Question {
            ask: "When do people need to reply to the invite by?",
            fact: 7,
        },
        Question {
            ask: "How much notice does the soft play need for the nut-free table?",
            fact: 10,
        },
        Question {
            ask: "What's the party room called?",
            fact: 12,
        },
    ];
    Scenario {
        name: "kids_party",
        locked: "Just the kids Leo actually plays with, not the whole class",
        turns,
        facts,
        quiz,
    }
}
