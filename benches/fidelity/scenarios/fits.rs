//! `fits` (#35): a short chat from a phone — a dinner for six on Saturday, fourteen
//! short turns, six facts — that fits a 2048-token window whole, with the app's system
//! prompt and replies of a few sentences. Nothing has to be folded, so ours must keep
//! what plain truncation keeps: every fact. The person asks for short answers, as people
//! on a phone do; the test keeps the person's own text under 250 tokens.

use super::{Question, Scenario, fact};

pub(super) fn fits() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "hey, short answers pls, on my phone. dinner at mine on saturday, 6 of us".into(),
        // 1
        "dinner's at 7:30pm, people come late anyway".into(),
        // 2
        "Noor doesn't eat meat, she's vegetarian".into(),
        // 3
        "easy veggie main for 6?".into(),
        // 4
        "lasagne it is. oven at 190 for 50 min, right?".into(),
        // 5
        "Oskar's bringing the wine, a Rioja".into(),
        // 6
        "buzzer code is 2207 btw, it's broken half the time".into(),
        // 7
        "lol the cat is going to hate this".into(),
        // 8
        "Hannah's doing dessert, tiramisu".into(),
        // 9
        "starter too or overkill?".into(),
        // 10
        "ok just bread and olives then".into(),
        // 11
        "shopping list from all that? short pls".into(),
        // 12
        "cheers 👍".into(),
        // 13
        "oh wait, how long does the lasagne rest after?".into(),
    ];
    let facts = vec![
        // The first third (turns 0-4).
        fact(&["dinner"], "7:30pm", 1),
        fact(&["noor"], "vegetarian", 2),
        fact(&["oven", "lasagne"], "190", 4),
        // The rest.
        fact(&["oskar", "wine"], "Rioja", 5),
        fact(&["buzzer"], "2207", 6),
        fact(&["dessert", "tiramisu"], "Hannah", 8),
    ];
    let quiz = vec![
        Question {
            ask: "what time did I say dinner was?",
            fact: 0,
        },
        Question {
            ask: "what's Noor's thing food-wise again",
            fact: 1,
        },
        Question {
            ask: "oven temp for the lasagne? just the number",
            fact: 2,
        },
        Question {
            ask: "buzzer code?",
            fact: 4,
        },
        Question {
            ask: "who's doing dessert",
            fact: 5,
        },
    ];
    Scenario {
        name: "fits",
        locked: "No phones at the table",
        turns,
        facts,
        quiz,
    }
}
