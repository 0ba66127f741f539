//! `moving_north`: a couple moves from Lisbon to Oslo for a job, told over 52 turns by one
//! of them, written before any rule was tuned to it. Its shapes: facts written as labels
//! ("Visa: case no. 21-7743115", "Flat — Thorvald Meyers gate 14B"), units and currencies
//! the other chats do not use (NOK, kg, m²), numeric dates ("03/09"), people named by
//! their relation ("my partner Inês", "my manager Åse Bjørnstad"), a correction said as
//! "sorry, I meant …", a start date moved twice, a number the model made up and the
//! person rejected, and long asides between. Most questions ask about the first third,
//! several in other words ("the immigration reference", "the removal firm").

use super::{Question, Scenario, changed, changed_from, fact};

pub(super) fn moving_north() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "ok so it's happening. I accepted the Oslo job. we move in about two months and I have a thousand things to track, can I just throw them at you as they come?".into(),
        // 1
        "my partner Inês is coming too, she's a nurse and has to get her Norwegian authorisation sorted before she can work, which apparently takes forever".into(),
        // 2
        "Visa: case no. 21-7743115 with UDI, applied online, appointment to hand in documents still to be booked".into(),
        // 3
        "how cold does Oslo actually get in January? be honest".into(),
        // 4
        "great. thermal everything then. my manager there is Åse Bjørnstad, she's been lovely on email, writes in very short sentences".into(),
        // 5
        "start date: 1 September. HR says the first week is onboarding at the Nydalen office".into(),
        // 6
        "Flat — Thorvald Meyers gate 14B, 3rd floor, 62 m², rent NOK 16,500 a month. we viewed it on a video call and the landlord, Mr. Haugen, seemed fine".into(),
        // 7
        "is 62 square metres big for two people there or is that normal".into(),
        // 8
        "deposit is three months' rent, so NOK 49,500, into a depositum account — apparently that's a special locked account thing in Norway?".into(),
        // 9
        "the removal firm quoted €3,200 for a part load, door to door, about 18 cubic metres, they're called Transnor".into(),
        // 10
        "also the cat. Pimenta. she needs a rabies shot at least 21 days before travel and her microchip number is 620098100453217, writing it here because the vet form is in Portuguese and I keep losing it".into(),
        // 11
        "do cats get jet lag? it's only a 1 hour difference but she is a dramatic cat".into(),
        // 12
        "Inês's authorisation application number with Helsedirektoratet is HPR-88412, she asked me to keep it somewhere safe lol".into(),
        // 13
        "what's the deal with the Norwegian ID number, do we need one before we can open a bank account".into(),
        // 14
        "ok the D-number thing sounds like a circle of bureaucracy. we'll deal with it".into(),
        // 15
        "the flight is on 27/08, TAP to Oslo, TP 1754, leaves at 09:40. the cat flies in the cabin, 7 kg max with the bag, she's 5.2 kg so we're fine".into(),
        // 16
        "random but what's a good first Norwegian phrase to learn that isn't 'hello'".into(),
        // 17
        "ha 'takk for sist' is adorable. thanking people for the last time you saw them".into(),
        // 18
        "update from HR, start date moved to 8 September because Åse is away the first week".into(),
        // 19
        "which means one more week of rent in Lisbon, ugh. fine".into(),
        // 20
        "the removal firm called back, the part load is €3,600 now because of the ferry surcharge, not €3,200".into(),
        // 21
        "I am now emotionally attached to our sofa that we are definitely not taking. it's been through a lot".into(),
        // 22
        "the bank: we have an appointment at DNB on 10 September at 14:15, the Majorstuen branch, bring passports and the work contract".into(),
        // 23
        "is it normal to pay for everything by phone there? someone said cash is basically dead".into(),
        // 24
        "Vipps. right. another app".into(),
        // 25
        "for the record my Portuguese tax number is 254 871 306, I'll need it for the final return next year and I can never find it".into(),
        // 26
        "we're selling the car, a 2016 Clio. a guy offered €6,800 which feels low?".into(),
        // 27
        "sorry, I meant €7,800 — he offered €7,800, I misread the message. still low?".into(),
        // 28
        "fine, we'll take it. one less thing".into(),
        // 29
        "Inês's mum is crying every time we see her. I don't know what to say to her".into(),
        // 30
        "that's kind, thank you. I'll tell her about the direct flights".into(),
        // 31
        "school stuff doesn't apply to us, but the kindergarten question keeps coming up from friends, is it true it's cheap there".into(),
        // 32
        "HR again: start date is now 15 September. something about a contract signature chain. I have stopped believing in dates".into(),
        // 33
        "so the flight on the 27th is way too early now?".into(),
        // 34
        "no I'm keeping the flight, we'll use the time to settle in. Inês is happy about that".into(),
        // 35
        "the UDI appointment is booked: 2 September, 11:30, at the police station in Grønland (the area, not the country, I checked)".into(),
        // 36
        "lol that was my exact reaction. Grønland in Oslo".into(),
        // 37
        "what documents do people usually forget for these appointments".into(),
        // 38
        "noted, printing copies of everything twice".into(),
        // 39
        "about the deposit, there's no 45,000 anywhere, I never said that — it's NOK 49,500, three months of 16,500".into(),
        // 40
        "anyway. the Lisbon landlord wants the keys back on 31 August, 18:00, and the inspection at the same time".into(),
        // 41
        "should I be there for the inspection or can a friend do it".into(),
        // 42
        "my friend Duarte will do it then, he's got a spare set already".into(),
        // 43
        "internet at the flat: Telenor fibre, installation 16 September between 08:00 and 12:00, someone has to be home".into(),
        // 44
        "Inês will be home, she won't be working yet anyway".into(),
        // 45
        "what's a reasonable budget for groceries for two in Oslo per month, roughly".into(),
        // 46
        "oof. ok. lots of lentils".into(),
        // 47
        "right, before I sleep, a few things to check with you".into(),
        // 48
        "do I need winter tyres if we're not even bringing a car".into(),
        // 49
        "ha, obviously not. I'm tired".into(),
        // 50
        "is it weird to bring pastéis de nata to your first day at work".into(),
        // 51
        "ok good. thanks for keeping my brain in one place".into(),
    ];
    let facts = vec![
        // The first third (turns 0-17).
        fact(&["visa", "UDI"], "21-7743115", 2),
        fact(&["manager"], "Åse Bjørnstad", 4),
        fact(&["flat", "Thorvald"], "14B", 6),
        fact(&["rent"], "16,500", 6),
        fact(&["Pimenta", "microchip"], "620098100453217", 10),
        fact(&["authorisation", "Helsedirektoratet"], "HPR-88412", 12),
        fact(&["flight", "TP 1754"], "09:40", 15),
        // The rest.
        changed_from(
            &["start date", "start"],
            "15 September",
            &["1 September", "8 September"],
            32,
        ),
        changed(
            &["removal", "Transnor", "part load"],
            "€3,600",
            "€3,200",
            20,
        ),
        fact(&["DNB", "bank"], "14:15", 22),
        fact(&["tax number"], "254 871 306", 25),
        changed(&["car", "Clio", "offered"], "€7,800", "€6,800", 27),
        fact(&["UDI", "appointment"], "11:30", 35),
        fact(&["deposit", "depositum"], "49,500", 39).rejecting("45,000"),
        fact(&["keys", "inspection"], "18:00", 40),
        fact(&["Telenor", "internet", "installation"], "16 September", 43),
    ];
    let quiz = vec![
        Question {
            ask: "what's the immigration reference number again?",
            fact: 0,
        },
        Question {
            ask: "who's going to be my boss in Oslo?",
            fact: 1,
        },
        Question {
            ask: "how much do we pay each month for the apartment?",
            fact: 3,
        },
        Question {
            ask: "what's the cat's chip number?",
            fact: 4,
        },
        Question {
            ask: "what reference did Inês get for her nursing registration?",
            fact: 5,
        },
        Question {
            ask: "what time does our plane leave?",
            fact: 6,
        },
        Question {
            ask: "when do I actually start the job?",
            fact: 7,
        },
        Question {
            ask: "what are the movers charging us now?",
            fact: 8,
        },
        Question {
            ask: "how much are we getting for the Clio?",
            fact: 11,
        },
        Question {
            ask: "how big is the deposit?",
            fact: 13,
        },
    ];
    Scenario {
        name: "moving_north",
        locked: "We rent for the first year; no buying a flat before we know the city",
        turns,
        facts,
        quiz,
    }
}
