//! `short_fit`: a short chat typed on a bus — a bike in for repair, fourteen short turns,
//! six facts (the shop, the repair ticket, the pick-up time, the tyre size, the cost,
//! the lock code) and one correction, the way a shop's phone call makes one ("the repair
//! is £90 not £65 — the chain's worn out too"). The whole chat, with the app's system prompt and
//! replies of a few sentences, fits a 2048-token window, so nothing has to be folded:
//! ours must keep every fact, as plain truncation does. Four questions, one in other
//! words ("get the bike back" for the pick-up).

use super::{Question, Scenario, changed, fact};

pub(super) fn short_fit() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "hi! quick bike thing, short answers pls, I'm on the bus".into(),
        // 1
        "my bike's in for repair at Pedal Republic on Carver St. because the back wheel is buckled"
            .into(),
        // 2
        "the repair ticket is R-2291, they said not to lose it".into(),
        // 3
        "is a buckled wheel usually fixable or is it a new wheel?".into(),
        // 4
        "they quoted £65 for truing it plus a new inner tube".into(),
        // 5
        "pick up is Thursday after 17:30, they shut at 6".into(),
        // 6
        "tyre size is 700x28c btw, in case I want a spare".into(),
        // 7
        "lol the mechanic called my bike 'vintage'. it's from 2015".into(),
        // 8
        "update: they rang, the repair is £90 not £65 — the chain's worn out too so they're swapping it"
            .into(),
        // 9
        "is that fair for a wheel true and a chain?".into(),
        // 10
        "ok. and my lock code is 3806, writing it here bc I forget it every time".into(),
        // 11
        "should I get one of those chain checker tools?".into(),
        // 12
        "cheers 👍".into(),
        // 13
        "oh wait, do I need the ticket to collect it or is my name enough?".into(),
    ];
    let facts = vec![
        // The first third (turns 0-4).
        fact(&["repair", "bike", "shop"], "Pedal Republic", 1),
        fact(&["ticket"], "R-2291", 2),
        // The rest.
        fact(&["pick up", "pick-up", "collect"], "17:30", 5),
        fact(&["tyre", "tire"], "700x28", 6),
        changed(&["repair", "quote", "cost"], "£90", "£65", 8),
        fact(&["lock"], "3806", 10),
    ];
    let quiz = vec![
        Question {
            ask: "what time can I get the bike back on Thursday?",
            fact: 2,
        },
        Question {
            ask: "how much is the repair going to cost me now?",
            fact: 4,
        },
        Question {
            ask: "what's my lock code again?",
            fact: 5,
        },
        Question {
            ask: "what was the repair ticket number?",
            fact: 1,
        },
    ];
    Scenario {
        name: "short_fit",
        locked: "No new bike this year: the old one gets repaired",
        turns,
        facts,
        quiz,
    }
}
