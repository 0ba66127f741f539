//! `school_run`: a parent of three keeps the autumn term straight in one long chat, 48
//! turns written before any rule was tuned to them. Its shapes are new to the benchmark:
//! several people's values in one sentence ("Maya 31, Leo 28 and Aoife's still a 26"), so
//! a value counts only beside its own child's name; a pasted note from the school, in
//! lines; a message in Irish-English with fadas (Ní Bhriain, Siobhán, Tomás) and one
//! quoting a Polish text; abbreviations inside sentences ("Dr.", "Rd.", "approx.", "e.g.");
//! a price corrected twice; a meeting moved; a half day the person never said (the
//! model's, rejected). Most questions ask about the first third, several in other words
//! ("the tooth doctor", "the canteen account", "ring the school").

use super::{Question, Scenario, changed, changed_from, fact};

pub(super) fn school_run() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "right, new term, new chaos. I'm going to dump school stuff in here as it comes so I stop losing it in WhatsApp groups. three kids: Maya (9), Leo (7) and Aoife (5, just started junior infants)".into(),
        // 1
        "first thing, Maya's teacher this year is Ms. Ní Bhriain, who apparently is strict but fair, which is exactly what Maya needs tbh".into(),
        // 2
        "shoe sizes for the record because I always stand in the shop guessing: Maya 31, Leo 28 and Aoife's still a 26".into(),
        // 3
        "how do you get a 7 year old to actually put shoes on in the morning without it being a 20 minute negotiation".into(),
        // 4
        "Leo is allergic to sesame, NOT nuts — the school form had nuts ticked from last year and I only noticed today. need to email them".into(),
        // 5
        "can you help me word that email? short and polite, I don't want to be That Parent in week one".into(),
        // 6
        "thanks. the school office number is 01 862 4410 if I need to ring instead, they're only there till 2 though".into(),
        // 7
        "also the side gate by the car park has a keypad now, code is C2791, the main gate is a nightmare at pick-up".into(),
        // 8
        "Leo's football is Tue and Thu at the Ballymun Rd. pitches, 15:30 till 16:45, and they need shin pads which we do not own".into(),
        // 9
        "what's a normal price for kids shin pads, I refuse to pay 30 euro for something he'll lose in a fortnight".into(),
        // 10
        "Aoife has the dentist on the 9th of November, Dr. Okonkwo-Byrne at the Phibsborough practice, 10:20. she's going to be a nightmare about it".into(),
        // 11
        "lunches are paid online now, the Cashless Catering ID for our account is CC-55812, top-ups by Sunday night or they get the 'emergency' sandwich".into(),
        // 12
        "any tips for packed lunches that aren't just sandwiches? Maya says sandwiches are 'for babies' now".into(),
        // 13
        "ha. ok. what about a lunchbox that keeps things cold, are the insulated ones worth it".into(),
        // 14
        "the school sent a note home, pasting it so I have it:\nDear Parents,\n- Book rental: €45 per child, due by 1 October\n- Uniform: navy jumper with crest, available from Elverys\n- Please label everything\n- Green School committee meets first Monday of the month\nMise le meas, An Príomhoide".into(),
        // 15
        "label everything. with what, my tears? are those iron-on labels any good or do they peel".into(),
        // 16
        "carpool sorted finally! Siobhán does Wednesdays, I do Mon and Fri, Tomás does Tue and Thu (his car has the booster seats)".into(),
        // 17
        "Tomás is Leo's friend Cian's dad, Siobhán is the one with the green Yaris, in case I forget who's who at 8am".into(),
        // 18
        "how early is too early to leave for an 8:50 bell if it's a 10 minute drive".into(),
        // 19
        "Maya's class is going to Newgrange on the 14th of November, the trip is €18 and they're back at the school by 17:15".into(),
        // 20
        "she is SO excited. she's been reading about the winter solstice thing all week. explain it to me like I'm 9 so I can keep up".into(),
        // 21
        "cool. ok I need to sleep. night".into(),
        // 22
        "morning. Aoife cried at the door again. the teacher says it's normal for the first few weeks, is it?".into(),
        // 23
        "update on the trip, it's €20 now, the bus company put the price up".into(),
        // 24
        "swimming: Aoife is in the Saturday 09:15 class at Glasnevin pool, the one with the big slide she's not allowed on yet".into(),
        // 25
        "what do I bring to a 5 year old's swimming lesson besides the obvious".into(),
        // 26
        "the babysitter for the parents' night out is Zuzanna, her number is 087 314 2206, she's a student at DCU and the kids adore her".into(),
        // 27
        "she sent me this when I asked about Friday: 'Tak, piątek jest ok, będę o 19:00' — I think that's a yes? my Polish is limited to pierogi".into(),
        // 28
        "lol ok so she's coming. what do people usually pay a babysitter per hour in Dublin now, approx.".into(),
        // 29
        "parent-teacher meeting with Ms. Ní Bhriain is on Thursday the 20th at 18:40, ten minutes each, so I'd better have my questions ready".into(),
        // 30
        "what should I actually ask at a parent-teacher meeting for a 9 year old who's doing fine but hates maths".into(),
        // 31
        "good list. I'll steal most of it".into(),
        // 32
        "oh and Leo's feet grew AGAIN, the 28s pinch apparently, he's a 29 now. new runners this weekend I suppose".into(),
        // 33
        "is it normal for kids feet to grow a whole size in like two months".into(),
        // 34
        "the parent-teacher thing got moved, it's 19:10 now not 18:40, she's running two classes' meetings back to back".into(),
        // 35
        "Leo wants to do Halloween as 'a broken robot'. ideas that don't involve me buying a 3D printer?".into(),
        // 36
        "the tinfoil idea is genius. he'll love that".into(),
        // 37
        "Leo's tablet — the parental PIN is 6620, writing it here because last time I locked myself out for 24 hours".into(),
        // 38
        "how much screen time is reasonable for a 7 year old on a school night, roughly".into(),
        // 39
        "actually scrap the earlier trip price, the school texted: the €20 didn't include the entry fee, so it's €22 all in".into(),
        // 40
        "no no, about the trip: there's no half day, I never said that. it's a full day and they're back at the school at 17:15 like I said".into(),
        // 41
        "anyway. Maya wants to join the Green School committee which means I'll be dragged along, e.g. litter picks in the rain".into(),
        // 42
        "fine, that's character building. for me".into(),
        // 43
        "right, Sunday night admin. a few questions before I do the week".into(),
        // 44
        "is it better to do lunch top-ups weekly or monthly, does it matter".into(),
        // 45
        "ok weekly it is".into(),
        // 46
        "and should I get the flu vaccine for the kids this year or is that overkill".into(),
        // 47
        "thanks, you've been more organised than me this month. which is a low bar".into(),
    ];
    let facts = vec![
        // The first third (turns 0-15).
        fact(&["Maya"], "Ní Bhriain", 1),
        fact(&["Maya"], "31", 2),
        fact(&["Aoife"], "26", 2),
        fact(&["allergic", "allergy", "allergies"], "sesame", 4),
        fact(&["office", "school"], "01 862 4410", 6),
        fact(&["gate", "keypad"], "C2791", 7),
        fact(&["football"], "16:45", 8),
        fact(&["dentist"], "10:20", 10),
        fact(&["Cashless Catering", "lunch"], "CC-55812", 11),
        fact(&["book rental", "rental"], "€45", 14),
        // The rest.
        fact(&["Wednesday"], "Siobhán", 16),
        fact(&["swim", "pool"], "09:15", 24),
        fact(&["Zuzanna", "babysitter"], "087 314 2206", 26),
        changed(&["Leo"], "29", "28", 32),
        changed(&["parent-teacher", "meeting"], "19:10", "18:40", 34),
        fact(&["PIN", "tablet"], "6620", 37),
        changed_from(&["trip", "Newgrange"], "€22", &["€18", "€20"], 39),
        fact(&["back", "trip"], "17:15", 40).rejecting("half day"),
    ];
    let quiz = vec![
        Question {
            ask: "who teaches Maya this year?",
            fact: 0,
        },
        Question {
            ask: "what size shoes does Maya take?",
            fact: 1,
        },
        Question {
            ask: "which food is Leo actually reactive to?",
            fact: 3,
        },
        Question {
            ask: "what number do I ring to reach the school?",
            fact: 4,
        },
        Question {
            ask: "what's the code for the little gate by the car park?",
            fact: 5,
        },
        Question {
            ask: "what time is Aoife's appointment with the tooth doctor?",
            fact: 7,
        },
        Question {
            ask: "what's our ID for the canteen account?",
            fact: 8,
        },
        Question {
            ask: "what size is Leo in now?",
            fact: 13,
        },
        Question {
            ask: "when am I seeing Maya's teacher, what time?",
            fact: 14,
        },
        Question {
            ask: "how much do I owe for the Newgrange outing?",
            fact: 16,
        },
    ];
    Scenario {
        name: "school_run",
        locked: "No after-school activity on Fridays: Friday is a rest day",
        turns,
        facts,
        quiz,
    }
}
