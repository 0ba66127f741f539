//! `dads_meds`: someone looking after their father's medicines after a hospital stay —
//! 42 turns written before any rule was tuned to them. Its shapes: medicine names in
//! lower case beside doses ("metformin 500 mg twice a day"), a title abbreviation
//! ("Dr. Okafor"), a phone number and an NHS number written with spaces, an allergy
//! with no figure ("allergic to penicillin"), a dose raised by the doctor, a clinic
//! date moved ("is now 21 January, same time") and a collection day moved ("has moved
//! to Fridays from next week"). Questions ask in other words ("which antibiotic",
//! "collect his tablets").

use super::{Question, Scenario, changed, fact};

pub(super) fn dads_meds() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "I'm sorting out my dad's medication now he's home from hospital. Can you help me keep it straight?".into(),
        // 1
        "He's on metformin 500 mg twice a day with meals, and amlodipine 5 mg every morning.".into(),
        // 2
        "What's amlodipine actually for?".into(),
        // 3
        "Blood pressure, right, that tracks.".into(),
        // 4
        "His GP is Dr. Okafor at the Brookside surgery, their number is 01632 960418.".into(),
        // 5
        "He's allergic to penicillin, it's still on his wristband from the ward.".into(),
        // 6
        "Is amoxicillin a penicillin?".into(),
        // 7
        "Good to know, I'll flag that with anyone who prescribes.".into(),
        // 8
        "He also takes atorvastatin 20 mg at night.".into(),
        // 9
        "Does it matter what time of day he takes a statin?".into(),
        // 10
        "His pharmacy is Lloyds on Station Road, they do the blister packs and pick up is on Thursdays.".into(),
        // 11
        "His NHS number is 943 476 5919 in case I need it on forms.".into(),
        // 12
        "What should I do if he misses a dose of metformin?".into(),
        // 13
        "OK, just skip it then.".into(),
        // 14
        "He's got a follow-up at the diabetes clinic on 14 January at 10:40.".into(),
        // 15
        "Should I write down his sugar readings before that?".into(),
        // 16
        "I'll get him a notebook.".into(),
        // 17
        "How often should he check his blood sugar?".into(),
        // 18
        "His morning readings have been around 7 to 8.".into(),
        // 19
        "Is that OK?".into(),
        // 20
        "Dr. Okafor rang today, she's put the amlodipine up to 10 mg because his blood pressure is still high.".into(),
        // 21
        "Any side effects I should watch for at the higher dose?".into(),
        // 22
        "Ankles, noted.".into(),
        // 23
        "The clinic called, his follow-up is now 21 January, same time.".into(),
        // 24
        "My sister Ingrid will do the Tuesday visits, I do the rest.".into(),
        // 25
        "Can you suggest a simple weekly checklist?".into(),
        // 26
        "Perfect.".into(),
        // 27
        "He's been a bit dizzy when he stands up, is that the pills?".into(),
        // 28
        "I'll mention it to the GP.".into(),
        // 29
        "What foods should he cut down on with his diabetes?".into(),
        // 30
        "He'll hate giving up his biscuits.".into(),
        // 31
        "The pharmacy said pick up has moved to Fridays from next week.".into(),
        // 32
        "Should I get him one of those pill reminder apps?".into(),
        // 33
        "He's not great with phones, I'll stick to the blister pack.".into(),
        // 34
        "Is it safe for him to have a small glass of wine at Christmas?".into(),
        // 35
        "One glass it is.".into(),
        // 36
        "How do I get a copy of his discharge letter?".into(),
        // 37
        "Thanks, I'll ask at reception.".into(),
        // 38
        "He wants to drive again, is there a rule after a hospital stay?".into(),
        // 39
        "I'll check with the DVLA then.".into(),
        // 40
        "OK, let me write the list up for the fridge.".into(),
        // 41
        "Thanks, this has really helped.".into(),
    ];
    let facts = vec![
        // The first third (turns 0-13).
        fact(&["metformin"], "500 mg", 1),
        fact(&["GP"], "Okafor", 4),
        fact(&["Brookside"], "01632 960418", 4),
        fact(&["allergic"], "penicillin", 5),
        fact(&["atorvastatin"], "20 mg", 8),
        fact(&["NHS number"], "943 476 5919", 11),
        // The rest.
        changed(&["amlodipine"], "10 mg", "5 mg", 20),
        changed(&["clinic"], "21 January", "14 January", 23),
        fact(&["Ingrid"], "Tuesday", 24),
        changed(&["pick up"], "Fridays", "Thursdays", 31),
    ];
    let quiz = vec![
        Question {
            ask: "How much metformin does he take?",
            fact: 0,
        },
        Question {
            ask: "Who's his doctor?",
            fact: 1,
        },
        Question {
            ask: "What's the surgery's phone number?",
            fact: 2,
        },
        Question {
            ask: "Which antibiotic has to be avoided?",
            fact: 3,
        },
        Question {
            ask: "What dose of the statin is he on?",
            fact: 4,
        },
        Question {
            ask: "What's his NHS number?",
            fact: 5,
        },
        Question {
            ask: "What dose of amlodipine is he on now?",
            fact: 6,
        },
        Question {
            ask: "When's his diabetes appointment?",
            fact: 7,
        },
        Question {
            ask: "Which day do I collect his tablets?",
            fact: 9,
        },
    ];
    Scenario {
        name: "dads_meds",
        locked: "Never change a dose without asking the GP",
        turns,
        facts,
        quiz,
    }
}
