//! `trip` (#35): a mother planning a family trip to Málaga, typed between other things —
//! names with letters outside ASCII (Zoë, José, Łukasz, Ingrid Sørensen, Mr. Müller),
//! places with accents (Málaga, Zürich, Kraków), abbreviations inside sentences ("Dr.
//! Okafor", "No. 12", "approx.", "e.g.", "St. Pancras", "Flight LH 1234"), and a dozen
//! facts of different kinds, each said once: an address, a time, a date, two amounts of
//! money, a booking reference, an allergy, a flight number, a phone number, a key box
//! code, who has the spare key, which doctor signs a prescription. One correction comes
//! the way people make them ("wait no — we fly out on the 14th not the 12th"). The quiz
//! asks mostly about the first third, three questions in other words than the statement:
//! the receipt comes back as "the expense claim", "my mother-in-law" as "Ingrid" (named
//! in the first turn), the booking ref as "the reservation number".

use super::{Question, Scenario, changed, fact};

/// The house rules the person pastes: long, and nothing in it to keep.
const HOUSE_RULES: &str = "pasting the house rules bc I will 100% not read them otherwise:\n\
1. Check-in is self check-in, instructions will be sent 48 hours before arrival.\n\
2. Please take off your shoes inside, the floors are original tiles from 1920 and scratch easily.\n\
3. Quiet hours are from 23:00 to 08:00, the neighbours are elderly and the building has thin walls.\n\
4. No parties or events. Maximum occupancy as booked.\n\
5. Rubbish: glass in the green container, packaging in the yellow one, paper in the blue one, \
the containers are at the corner of the street, not in the building.\n\
6. The air conditioning must be switched off when you leave the apartment, otherwise an extra \
charge may apply.\n\
7. Towels for the beach are in the wardrobe in the hall, please do not take the bath towels \
to the beach.\n\
8. Smoking is not allowed anywhere in the apartment including the balcony.\n\
9. Check-out is at 11:00, leave the keys on the kitchen table and close the door firmly.\n\
10. Any damage must be reported, we are reasonable people and accidents happen!\n\
honestly nr 7 is fair, I would absolutely have taken the bath towels";

pub(super) fn trip() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "ok so we're actually doing Málaga this summer!! me, Łukasz, the kids (Zoë is 7, Mateo 4) and my mother-in-law Ingrid Sørensen for part of it. can you help me keep track of everything, my head is a sieve rn".into(),
        // 1
        "first thing: we're staying in a flat on Calle Granada 27, 2nd floor, apparently 5 min from the Picasso museum".into(),
        // 2
        "flights are booked, Flight LH 1234 out of Zürich, leaves at 7:45 on the 12th. yes 7:45 in the morning with two small kids, pray for me".into(),
        // 3
        "I'm at a conference the first two days too (ugh, work) so the company pays my hotel for those nights. the receipt from Hotel Larios says €386.40, must not lose it".into(),
        // 4
        "is it normal to be this stressed about packing when it's 3 weeks away 😅".into(),
        // 5
        "important: Zoë is allergic to sesame, like properly, we carry an epipen. so no tahini, no hummus, careful with bread".into(),
        // 6
        "the booking ref for the flat is HM4QX7TR2Z, the host is Carmen and she only speaks spanish. my spanish is approx. zero".into(),
        // 7
        "oh and my mother-in-law booked herself on SK 2583 from Copenhagen, lands approx. 2 hrs after us, so someone gets to go back to the airport 🙃".into(),
        // 8
        "what do 4 and 7 year olds actually enjoy in a city like that? e.g. is the Alcazaba going to bore them to tears".into(),
        // 9
        "José (Łukasz's old flatmate from uni, lives there now) says he'll pick us up, José's number is +34 612 48 93 07 in case our phones die".into(),
        // 10
        "random q, how do I explain a food allergy to a waiter in spanish without sounding dramatic".into(),
        // 11
        "Carmen just messaged: the key box code is 4812, check-in from 4pm but the code works from 3".into(),
        // 12
        "Mr. Müller from No. 12 is doing our plants while we're away and he's got the spare key. lovely man, deaf as a post, so text don't call".into(),
        // 13
        HOUSE_RULES.into(),
        // 14
        "Zoë's inhaler prescription needs renewing before we go, Dr. Okafor is signing it on Friday, I pick it up at the surgery after 2".into(),
        // 15
        "honestly is it mad to take a 4 yr old to a flamenco show at night? Łukasz says yes, I say he'll sleep through it".into(),
        // 16
        "the flat came to €1,450 for the nine nights all in, which felt like a lot until I looked at hotels".into(),
        // 17
        "btw last year we did London via St. Pancras and Mateo still talks about the train. would a day trip to Granada by train be insane with kids?".into(),
        // 18
        "wait no — we fly out on the 14th not the 12th 🤦 I was looking at the return leg. so LH 1234 on the 14th, sorry".into(),
        // 19
        "what's a kids' sunscreen that doesn't make them look like ghosts".into(),
        // 20
        "Łukasz's brother in Kraków wants to come for a weekend too, I said we'll see. is that rude".into(),
        // 21
        "do we need a car seat for Mateo in a spanish taxi? José has one but just in case".into(),
        // 22
        "ok thank you, I feel slightly less chaotic now".into(),
        // 23
        "night! probably back tomorrow with more questions lol".into(),
    ];
    let facts = vec![
        // The first third (turns 0-7).
        fact(&["calle granada", "flat", "staying"], "Calle Granada 27", 1),
        fact(&["lh 1234", "zürich"], "7:45", 2),
        fact(&["receipt", "hotel larios"], "€386.40", 3),
        fact(&["zoë", "allergic"], "sesame", 5),
        fact(&["booking ref", "flat"], "HM4QX7TR2Z", 6),
        fact(&["mother-in-law", "ingrid", "sørensen"], "SK 2583", 7),
        // The rest.
        fact(&["josé"], "+34 612 48 93 07", 9),
        fact(&["key box"], "4812", 11),
        fact(&["spare key", "plants"], "Müller", 12),
        fact(&["inhaler", "prescription"], "Okafor", 14),
        fact(&["flat", "nine nights"], "€1,450", 16),
        changed(&["fly out", "lh 1234"], "14th", "12th", 18),
    ];
    let quiz = vec![
        Question {
            ask: "so where are we staying in Málaga again?",
            fact: 0,
        },
        Question {
            ask: "what time does our flight leave? just the time pls",
            fact: 1,
        },
        Question {
            ask: "how much am I putting on my expense claim?",
            fact: 2,
        },
        Question {
            ask: "remind me what Zoë is allergic to, I need to tell the restaurant",
            fact: 3,
        },
        Question {
            ask: "Carmen wants the reservation number for the flat, what was it",
            fact: 4,
        },
        Question {
            ask: "which flight is Ingrid on?",
            fact: 5,
        },
        Question {
            ask: "when do we fly out? just the date pls",
            fact: 11,
        },
        Question {
            ask: "whats José's number",
            fact: 6,
        },
    ];
    Scenario {
        name: "trip",
        locked: "We are not renting a car in Málaga",
        turns,
        facts,
        quiz,
    }
}
