//! `car_hunt`: someone choosing between three second-hand cars over a few weeks — 42
//! turns written before any rule was tuned to them. Its shapes: several things of one
//! kind, each with values of the same units, often two in one sentence ("the Skoda is
//! £8,950 with 61k on the clock, the Mazda's £9,400 but only 38k"), so a correction of
//! one must not rewrite the other; mileage written "61k" and "38,200 miles"; a
//! registration and a seller's phone number; a listing pasted from a website; the
//! Mazda's price haggled down, the test drive moved, a dealer's offer beside its price. Most questions ask about the
//! first third, two in other words ("how many miles has the Skoda done" for "on the
//! clock", "what would it cost to insure" for the quote).

use super::{Question, Scenario, changed, fact};

/// A listing as it comes off a classifieds site: many numbers, one car's.
const LISTING: &str = "here's the Mazda listing:\n\
2019 Mazda 3 2.0 Skyactiv-G SE-L Nav 5dr\n\
£9,400\n\
Mileage: 38,200 miles\n\
Registration: KT19 WFN\n\
Fuel type: Petrol | Body: Hatchback | Gearbox: Manual | Engine: 2.0L\n\
Owners: 2 | Service history: Full | ULEZ: Yes\n\
Seller: private, Guildford\n\
Insurance group 17E. Last MOT 14/09, no advisories.\n\
Is there anything in that that should worry me?";

pub(super) fn car_hunt() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "I need a car by the end of the month for the new commute, budget is £10,000 absolute max. I've narrowed it to three: a Skoda Octavia, a Mazda 3 and a Toyota Auris hybrid.".into(),
        // 1
        "The Skoda is £8,950 with 61k on the clock, the Mazda's £9,400 but only 38k. Which matters more at that age, price or miles?".into(),
        // 2
        LISTING.into(),
        // 3
        "The Auris is at a dealer, Hendry Motors in Woking, £9,795 and they throw in a 12 month warranty.".into(),
        // 4
        "Hybrids still feel like witchcraft to me if I'm honest.".into(),
        // 5
        "How long do hybrid batteries actually last?".into(),
        // 6
        "The Skoda seller is a guy called Dariusz, his number is 07700 900 612, he said evenings are best.".into(),
        // 7
        "My commute is 34 miles each way, mostly dual carriageway. Does that change which one makes sense?".into(),
        // 8
        "Makes sense. The hybrid is a lot less fun to drive though.".into(),
        // 9
        "Insurance quotes came back: £612 a year for the Mazda, £574 for the Skoda and £655 for the Auris.".into(),
        // 10
        "Why would the Auris be the most expensive to insure?".into(),
        // 11
        "Test drive for the Mazda is booked for Saturday at 11 in Guildford.".into(),
        // 12
        "What should I check on a test drive? I never know what I'm listening for.".into(),
        // 13
        "Should I bring someone with me?".into(),
        // 14
        "My brother's coming, he thinks he knows cars.".into(),
        // 15
        "What's a cambelt and do any of these have one?".into(),
        // 16
        "Ugh, the Skoda's is due at 80k, another thing to budget for.".into(),
        // 17
        "How do I check a car's MOT history online?".into(),
        // 18
        "Done, all clean. The Skoda had a minor advisory for a tyre two years ago, nothing since.".into(),
        // 19
        "Is it normal to haggle with a private seller?".into(),
        // 20
        "The Mazda seller came down to £9,100 after I mentioned the scratch on the rear bumper.".into(),
        // 21
        "Still within budget and leaves something for the first service.".into(),
        // 22
        "Saturday's off, his kid's ill, so the test drive is Sunday at 2 now, same place.".into(),
        // 23
        "Do dealers usually beat private sellers on anything but the warranty?".into(),
        // 24
        "Hendry's said they'd do £9,500 if I pay by bank transfer.".into(),
        // 25
        "That's a reasonable drop for a dealer, right?".into(),
        // 26
        "What's road tax on a 2019 petrol car these days?".into(),
        // 27
        "Ok not as bad as I thought.".into(),
        // 28
        "How do I pay a private seller safely? I don't want to carry cash around.".into(),
        // 29
        "Bank transfer with him standing there it is.".into(),
        // 30
        "Do I need to sort insurance before I drive it home?".into(),
        // 31
        "Good thing I asked, I'd have just driven off.".into(),
        // 32
        "What paperwork should I get from the seller?".into(),
        // 33
        "Is a V5C the same thing as the logbook?".into(),
        // 34
        "Thanks. My brother says I should just get the Toyota and stop dithering.".into(),
        // 35
        "He's probably right but I like the Mazda.".into(),
        // 36
        "What would you pick for someone who does 17,000 miles a year?".into(),
        // 37
        "Fair. Let me sleep on it.".into(),
        // 38
        "Before I decide, let me check the numbers again.".into(),
        // 39
        "Also, roughly what does a first service cost on any of these?".into(),
        // 40
        "Ok. I'll make the call on Sunday after the drive.".into(),
        // 41
        "Thanks for all the help with this.".into(),
    ];
    let facts = vec![
        // The first third (turns 0-13).
        fact(&["budget"], "£10,000", 0),
        fact(&["Skoda"], "£8,950", 1),
        fact(&["Skoda"], "61k", 1),
        fact(&["Mazda", "Registration"], "KT19 WFN", 2),
        fact(&["Auris", "Hendry"], "Woking", 3),
        fact(&["Dariusz", "Skoda seller"], "07700 900 612", 6),
        fact(&["commute"], "34 miles", 7),
        fact(&["insure", "insurance", "Mazda"], "£612", 9),
        fact(&["insure", "insurance", "Skoda"], "£574", 9),
        // The rest.
        changed(&["Mazda"], "£9,100", "£9,400", 20),
        changed(&["test drive"], "Sunday", "Saturday", 22),
        // An offer beside the listed price, which stays what it was.
        fact(&["Hendry", "Auris"], "£9,500", 24),
    ];
    let quiz = vec![
        Question {
            ask: "What's my upper limit again?",
            fact: 0,
        },
        Question {
            ask: "How much was the Skoda?",
            fact: 1,
        },
        Question {
            ask: "How many miles has the Skoda done?",
            fact: 2,
        },
        Question {
            ask: "What's the Mazda's reg?",
            fact: 3,
        },
        Question {
            ask: "Where's the dealer with the Auris?",
            fact: 4,
        },
        Question {
            ask: "What's Dariusz's number?",
            fact: 5,
        },
        Question {
            ask: "What would it cost to insure the Mazda?",
            fact: 7,
        },
        Question {
            ask: "What's the Mazda's price now?",
            fact: 9,
        },
        Question {
            ask: "When is the Mazda test drive?",
            fact: 10,
        },
        Question {
            ask: "What price did Hendry's offer on the Auris?",
            fact: 11,
        },
    ];
    Scenario {
        name: "car_hunt",
        locked: "Petrol or hybrid only, no diesel",
        turns,
        facts,
        quiz,
    }
}
