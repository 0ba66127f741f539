//! `visa_run`: helping a partner through a visa application — 46 turns written before
//! any rule was tuned to them. Its shapes: a Vietnamese name with its marks ("Nguyễn
//! Thị Thu Hà"), dates written the ISO way ("2027-03-14") and as "12 January", a
//! passport number and an application number, a pasted checklist in "- " lines,
//! a fee in another currency ("€90"), an appointment moved by the embassy (its date
//! and its time), a rule the person had wrong ("they want six months of statements,
//! not three"), and questions that ask in other words ("the biometrics", "how far back").

use super::{Question, Scenario, changed, fact};

pub(super) fn visa_run() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "My girlfriend is applying for a Schengen visa to visit me in Lyon and I'm trying to help her get the paperwork right.".into(),
        // 1
        "Her name is Nguyễn Thị Thu Hà, she's in Hanoi.".into(),
        // 2
        "She wants to arrive on 2027-03-14 and fly back on 2027-04-04.".into(),
        // 3
        "Is three weeks OK for a tourist visa?".into(),
        // 4
        "Good, well under the 90 days.".into(),
        // 5
        "Her passport number is C4829173, it expires in 2031.".into(),
        // 6
        "The appointment is at the TLScontact centre in Hanoi on 12 January at 09:40.".into(),
        // 7
        "What does she need to bring to the appointment?".into(),
        // 8
        "Here's the checklist from their site:\n- application form, signed\n- two photos 35x45 mm\n- travel insurance with at least €30,000 cover\n- three months of bank statements\n- proof of accommodation".into(),
        // 9
        "The fee is €90, paid at the centre.".into(),
        // 10
        "I'm writing the invitation letter, what should it say?".into(),
        // 11
        "Perfect, I'll sign it and send a scan.".into(),
        // 12
        "Her travel insurance is with AXA, policy number VN-7731-0092.".into(),
        // 13
        "Does the insurance have to cover the whole trip or just the first days?".into(),
        // 14
        "Whole trip, got it, it does.".into(),
        // 15
        "She's nervous about the interview part, is there an interview?".into(),
        // 16
        "OK, mostly just biometrics then.".into(),
        // 17
        "Her application number on France-Visas is FRA1HN20271234567.".into(),
        // 18
        "How long does it usually take to get the decision?".into(),
        // 19
        "Fifteen days, so we should be fine.".into(),
        // 20
        "Her flight is Vietnam Airlines VN19 to Paris, then the TGV down to Lyon.".into(),
        // 21
        "Should the train ticket be booked before the visa comes through?".into(),
        // 22
        "Makes sense, a refundable one.".into(),
        // 23
        "Bad news, TLScontact moved her appointment to 15 January.".into(),
        // 24
        "The new appointment is at 10:20, not 09:40.".into(),
        // 25
        "Does a later appointment change anything for the 15 days?".into(),
        // 26
        "Still enough time, phew.".into(),
        // 27
        "Correction from the consulate's email: they want six months of bank statements, not three.".into(),
        // 28
        "Can she use her employer's letter instead of payslips?".into(),
        // 29
        "She'll bring both to be safe.".into(),
        // 30
        "Her employer is Viettel, she's a data analyst there.".into(),
        // 31
        "Does it help that she's been there five years?".into(),
        // 32
        "Good, that shows ties to home.".into(),
        // 33
        "I'm hosting her at my flat, 27 rue Cavenne, so no hotel.".into(),
        // 34
        "Do I need an attestation d'accueil from the mairie for that?".into(),
        // 35
        "Ugh, more paperwork. I'll book the mairie.".into(),
        // 36
        "The mairie can see me on 4 December.".into(),
        // 37
        "How long is an attestation valid for?".into(),
        // 38
        "Fine, it'll still be valid in March.".into(),
        // 39
        "Her mum wants to come next year too, can she use the same process?".into(),
        // 40
        "One thing at a time.".into(),
        // 41
        "What's a good checklist order so she doesn't forget anything on the day?".into(),
        // 42
        "I'll send her that tonight.".into(),
        // 43
        "Can you go over everything once more?".into(),
        // 44
        "Great, that matches my notes.".into(),
        // 45
        "Thank you, fingers crossed!".into(),
    ];
    let facts = vec![
        // The first third (turns 0-15).
        fact(&["arrive"], "2027-03-14", 2),
        fact(&["passport"], "C4829173", 5),
        fact(&["fee"], "€90", 9),
        fact(&["insurance", "AXA"], "VN-7731-0092", 12),
        fact(&["insurance"], "€30,000", 8),
        // The rest.
        fact(&["application", "France-Visas"], "FRA1HN20271234567", 17),
        fact(&["flight"], "VN19", 20),
        changed(&["appointment"], "15 January", "12 January", 23),
        changed(&["appointment"], "10:20", "09:40", 24),
        changed(&["bank statements"], "six months", "three months", 27),
        fact(&["flat", "hosting"], "27 rue Cavenne", 33),
        fact(&["mairie"], "4 December", 36),
    ];
    let quiz = vec![
        Question {
            ask: "What day does Hà land?",
            fact: 0,
        },
        Question {
            ask: "What's her passport number?",
            fact: 1,
        },
        Question {
            ask: "How much does the visa cost?",
            fact: 2,
        },
        Question {
            ask: "What's the AXA policy number?",
            fact: 3,
        },
        Question {
            ask: "How much cover does the insurance need?",
            fact: 4,
        },
        Question {
            ask: "What's the date of the biometrics appointment?",
            fact: 7,
        },
        Question {
            ask: "What time should she be there?",
            fact: 8,
        },
        Question {
            ask: "How far back do the bank statements need to go?",
            fact: 9,
        },
        Question {
            ask: "When am I seeing the mairie?",
            fact: 11,
        },
    ];
    Scenario {
        name: "visa_run",
        locked: "Everything she brings is an original or a certified copy",
        turns,
        facts,
        quiz,
    }
}
