//! `conf_talk`: preparing a conference talk from another time zone — 42 turns written
//! before any rule was tuned to them. Its shapes: two clock times in one sentence (the
//! slot in CET and in Toronto), a talk title in quotes, a submission id, a co-speaker
//! with "ë", a range of money ("between 400 and 600 euros"), two people saying different
//! dates and the organiser settling it, a slot cut from 30 to 25 minutes, a hotel the
//! model made up and the person rejects, and a booking pasted as "Key: value" lines.
//! Questions ask in other words ("how long do I get on stage", "the grant").

use super::{Question, Scenario, changed, fact};

pub(super) fn conf_talk() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "my talk got accepted at PyCon Nordics!! I'm terrified. can you help me keep the logistics straight".into(),
        // 1
        "the talk is called \"Lies My Profiler Told Me\" and my submission id is PCN-27-0193".into(),
        // 2
        "the slot is Thursday at 14:30 CET, which is 8:30 in the morning for me in Toronto".into(),
        // 3
        "how early should I fly to get over the jet lag".into(),
        // 4
        "ok two days early it is".into(),
        // 5
        "I'm co-presenting with Zoë Achterberg, she wrote the flame graph tooling".into(),
        // 6
        "how do we split a talk between two people without it being awkward".into(),
        // 7
        "I'll do the intro and the war stories, she does the tooling demo".into(),
        // 8
        "the talk slot is 30 minutes including questions".into(),
        // 9
        "how many slides is that roughly".into(),
        // 10
        "ok so about 20 slides max".into(),
        // 11
        "they have a travel grant that covers between 400 and 600 euros depending on where you fly from".into(),
        // 12
        "would Toronto get the top end do you think".into(),
        // 13
        "fingers crossed".into(),
        // 14
        "the AV person is Kalle Nyström, his number is +46 70 412 88 03 in case the HDMI dies".into(),
        // 15
        "should I bring my own adapters anyway".into(),
        // 16
        "yeah I'll pack a USB-C one and a spare clicker".into(),
        // 17
        "Zoë says the speaker rehearsal is on the 2nd but the schedule page says the 3rd".into(),
        // 18
        "which should I trust".into(),
        // 19
        "I emailed the organiser".into(),
        // 20
        "the organiser confirmed the rehearsal is on the 3rd, Zoë had an old version".into(),
        // 21
        "wait, no radisson, I never said that, we're staying at the Scandic Continental. here's the confirmation:\n\nHotel: Scandic Continental\nCheck-in: 30 March\nNights: 4\nBooking ref: 88213409".into(),
        // 22
        "is 4 nights enough if we fly two days early".into(),
        // 23
        "ok it's fine, I leave the day after".into(),
        // 24
        "what do speakers usually wear at these things".into(),
        // 25
        "jeans and a nice shirt it is".into(),
        // 26
        "bad news, they're squeezing the schedule and our slot is 25 minutes now".into(),
        // 27
        "what do I cut to lose 5 minutes".into(),
        // 28
        "cutting the second war story hurts but ok".into(),
        // 29
        "my flight is AC 826 out of Pearson".into(),
        // 30
        "is a 1 hour 10 minute connection in Copenhagen too tight".into(),
        // 31
        "ugh, I'll rebook the connection".into(),
        // 32
        "how do I practise a talk without boring my partner to death".into(),
        // 33
        "recording myself, good idea".into(),
        // 34
        "Zoë wants to rehearse together over video on Sunday at 11 her time, she's in Utrecht".into(),
        // 35
        "what time is that for me".into(),
        // 36
        "oof that's early but fine".into(),
        // 37
        "any tips for the Q&A if someone asks something I don't know".into(),
        // 38
        "that's reassuring actually".into(),
        // 39
        "can you give me a checklist of everything for the trip".into(),
        // 40
        "perfect, printing it".into(),
        // 41
        "thanks, feeling a bit less terrified".into(),
    ];
    let facts = vec![
        // The first third (turns 0-13).
        fact(&["talk", "called"], "Lies My Profiler Told Me", 1),
        fact(&["submission"], "PCN-27-0193", 1),
        fact(&["slot", "Thursday"], "14:30", 2),
        fact(&["co-presenting", "Zoë"], "Zoë Achterberg", 5),
        fact(&["grant"], "between 400 and 600 euros", 11),
        // The rest.
        fact(&["AV", "Kalle"], "+46 70 412 88 03", 14),
        changed(&["rehearsal"], "3rd", "2nd", 20),
        fact(&["Hotel", "Booking"], "88213409", 21).rejecting("radisson"),
        changed(&["slot", "minutes"], "25 minutes", "30 minutes", 26),
        fact(&["flight"], "AC 826", 29),
        fact(&["Zoë", "Sunday"], "11", 34),
    ];
    let quiz = vec![
        Question {
            ask: "What's the name of my talk?",
            fact: 0,
        },
        Question {
            ask: "What's my submission number?",
            fact: 1,
        },
        Question {
            ask: "What time is the talk in Europe?",
            fact: 2,
        },
        Question {
            ask: "Who am I presenting with?",
            fact: 3,
        },
        Question {
            ask: "How much money can I get for travel?",
            fact: 4,
        },
        Question {
            ask: "Who do I call if the projector breaks?",
            fact: 5,
        },
        Question {
            ask: "When is the speaker rehearsal?",
            fact: 6,
        },
        Question {
            ask: "How long do I get on stage now?",
            fact: 8,
        },
    ];
    Scenario {
        name: "conf_talk",
        locked: "Keep the demo offline, no live internet on stage",
        turns,
        facts,
        quiz,
    }
}
