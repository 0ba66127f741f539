//! `old_dog`: someone looking after an elderly dog, 44 turns written before any rule was
//! tuned to them. Its shapes: most facts arrive inside questions ("He weighs 24.6 kg as
//! of Monday — is that too heavy?"), so a rule that drops questions drops them; a
//! medicine label pasted as a Markdown list; doses and units ("2.4 ml", "5 mg", "250 g");
//! a fifteen-digit microchip number; two corrections (a check-up moved, a dose lowered);
//! an Irish name. Most questions ask about the first third, two in other words ("how
//! heavy" for "weighs", "the after-hours vet" for "out of hours").

use super::{Question, Scenario, changed, fact};

pub(super) fn old_dog() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "Our dog Biscuit is a 13-year-old lurcher and his vet, Dr. Okonkwo at Riverside Vets, has just put him on a pile of new meds. Can you help me keep it all straight?".into(),
        // 1
        "He weighs 24.6 kg as of Monday. Is that heavy for a lurcher, or about right?".into(),
        // 2
        "Here's what's on the labels:\n- Metacam 1.5 mg/ml: 2.4 ml once a day with food\n- Vetmedin 5 mg: half a tablet twice a day, an hour before meals\n- YuMOVE joint tablets: 2 a day".into(),
        // 3
        "What does Vetmedin actually do? The vet said something about his heart but I was too flustered to take it in.".into(),
        // 4
        "Do you think Petplan will cover all this? Our policy number is PP-55102-KX and the excess is £99 per condition.".into(),
        // 5
        "OK, I'll ring them tomorrow.".into(),
        // 6
        "His next check-up is on 3 March at 9:40 and they want bloods. Should I stop his breakfast that morning?".into(),
        // 7
        "Poor boy hates being starved, he'll sulk all morning.".into(),
        // 8
        "Is it normal for an old dog to sleep 18 hours a day?".into(),
        // 9
        "My neighbour Siobhán walks him at lunch on Tuesdays and Thursdays while I'm at work. Is 20 minutes enough for him at his age?".into(),
        // 10
        "She's brilliant with him, he adores her.".into(),
        // 11
        "Does hydrotherapy actually help arthritis? There's a place called AquaPaws on Mill Road that does £38 a session, Wednesdays at 4.".into(),
        // 12
        "That's more than I expected but if it helps his hips I'll try it.".into(),
        // 13
        "He's on Burns Senior, 250 g a day split into two meals. Would a bit of plain chicken on top hurt?".into(),
        // 14
        "Ha, he'd marry you for that answer.".into(),
        // 15
        "What are the signs that arthritis pain is getting worse that I should watch for?".into(),
        // 16
        "He does do the stiff thing in the mornings, yes.".into(),
        // 17
        "Can dogs get dementia? Sometimes he stands in the corner and stares at the wall.".into(),
        // 18
        "That's a bit heartbreaking honestly.".into(),
        // 19
        "What can I do to keep his brain busy without tiring his legs?".into(),
        // 20
        "Sorry, the check-up got moved to 10 March, same time. Does a week later change anything for the bloods?".into(),
        // 21
        "Good, one less thing.".into(),
        // 22
        "Is a ramp for the car worth it or is lifting him fine?".into(),
        // 23
        "He's too proud for a ramp I think, but my back would thank me.".into(),
        // 24
        "The vet rang: Metacam goes down to 2.0 ml from today because his kidney numbers were borderline. Should I worry about his kidneys now?".into(),
        // 25
        "OK, I'll keep an eye on how much he drinks.".into(),
        // 26
        "How much water should a dog his size drink in a day, roughly?".into(),
        // 27
        "Right, I'll measure it for a few days.".into(),
        // 28
        "If something happens at night, the out of hours vet is Vets Now in Kingsmead, 01632 960 418. Is it normal that they charge £180 just to see him?".into(),
        // 29
        "Ugh, fine, better than nothing.".into(),
        // 30
        "We're moving house in the summer. His microchip number is 977200009123456, do I need to update the address on it myself?".into(),
        // 31
        "Good to know, I'd never have thought of that.".into(),
        // 32
        "How do I help an old dog settle into a new house?".into(),
        // 33
        "Keeping his bed the same makes sense.".into(),
        // 34
        "His groomer is Tash at Scruffs to Fluffs, every 8 weeks, £45. Is that often enough for a wiry coat?".into(),
        // 35
        "Fair, he's not exactly a show dog.".into(),
        // 36
        "What should I have in a first aid kit for him?".into(),
        // 37
        "I'll put one together this weekend.".into(),
        // 38
        "It's been a long week with him, thanks for listening.".into(),
        // 39
        "Let me check I've got it all right before I write it on the fridge.".into(),
        // 40
        "Should the chart on the fridge go by day or by medicine?".into(),
        // 41
        "By day it is.".into(),
        // 42
        "Do I need to give the YuMOVE with food as well?".into(),
        // 43
        "Brilliant, thank you.".into(),
    ];
    let facts = vec![
        // The first third (turns 0-14).
        fact(&["vet", "Riverside"], "Okonkwo", 0),
        fact(&["weighs", "Biscuit"], "24.6 kg", 1),
        fact(&["Vetmedin"], "half a tablet", 2),
        fact(&["Petplan", "policy"], "PP-55102-KX", 4),
        fact(&["excess", "Petplan"], "£99", 4),
        fact(&["walks", "neighbour"], "Siobhán", 9),
        fact(&["hydrotherapy", "AquaPaws"], "£38", 11),
        fact(&["Burns", "meals"], "250 g", 13),
        // The rest.
        changed(&["check-up"], "10 March", "3 March", 20),
        changed(&["Metacam"], "2.0 ml", "2.4 ml", 24),
        fact(&["out of hours", "Vets Now"], "01632 960 418", 28),
        fact(&["microchip"], "977200009123456", 30),
        fact(&["groomer", "Tash"], "£45", 34),
    ];
    let quiz = vec![
        Question {
            ask: "How heavy was Biscuit at the last weigh-in?",
            fact: 1,
        },
        Question {
            ask: "How much Vetmedin does he get?",
            fact: 2,
        },
        Question {
            ask: "What's our Petplan policy number?",
            fact: 3,
        },
        Question {
            ask: "Who walks him at lunchtime?",
            fact: 5,
        },
        Question {
            ask: "How much is a hydrotherapy session?",
            fact: 6,
        },
        Question {
            ask: "How much Burns Senior does he get a day?",
            fact: 7,
        },
        Question {
            ask: "When is his check-up?",
            fact: 8,
        },
        Question {
            ask: "What dose of Metacam is he on now?",
            fact: 9,
        },
        Question {
            ask: "What's the number for the after-hours vet?",
            fact: 10,
        },
    ];
    Scenario {
        name: "old_dog",
        locked: "No new supplements without asking the vet first",
        turns,
        facts,
        quiz,
    }
}
