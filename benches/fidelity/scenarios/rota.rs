//! `rota`: someone who has just taken over a small café runs its staff and suppliers
//! through the assistant for a few weeks — 44 turns written before any rule was tuned to
//! them. Its shapes: the week's rota pasted as a Markdown table, one row per day with a
//! name and a shift ("| Tue | Ben | 14:00–close |"), so one person stands in several rows
//! and a swap must change one row only; times as ranges; a supplier's standing order
//! pasted from an email with its quoted ">" lines; an alarm code changed; a fact said
//! after a dash; names outside ASCII (Kasia Wróbel, Inês). Most questions ask about the
//! first third, two in other words ("who locks up on Tuesday" for the close, "when does
//! the milk come" for the dairy's delivery).

use super::{Question, Scenario, changed, fact};

/// The rota as it comes out of the spreadsheet: a table, nothing else around it.
const ROTA: &str = "this is the rota for the next few weeks, it repeats:\n\
| Day | Who | Shift |\n\
|---|---|---|\n\
| Mon | Inês | 7:00–14:00 |\n\
| Tue | Ben | 14:00–close |\n\
| Wed | Kasia | 7:00–14:00 |\n\
| Thu | Ben | 7:00–14:00 |\n\
| Fri | Inês | 14:00–close |\n\
| Sat | Kasia and Ben | 8:00–16:00 |\n\
Does that look fair to you?";

/// The dairy's email, forwarded with its quoting.
const DAIRY: &str = "the dairy sent this, can you make sense of it?\n\
> Hi, confirming your standing order from Hollins Farm Dairy:\n\
> 24 x 2L whole milk, 12 x 2L oat, delivered Tuesdays and Fridays before 6:30\n\
> Account no. HFD-30418. Any changes by noon the day before.\n\
> Thanks, Marie";

pub(super) fn rota() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "I've just taken over the Little Wren café on Kirkgate and I'm drowning a bit. Can you help me keep the staff and supplier stuff straight?".into(),
        // 1
        ROTA.into(),
        // 2
        "The alarm code is 7302 — only me and Kasia know it, and it has to be set by 17:30.".into(),
        // 3
        "How do I make sure the closing person actually sets it?".into(),
        // 4
        DAIRY.into(),
        // 5
        "Coffee beans come from Dark Horse Roasters, 6 kg every second Monday, I pay them by invoice at the end of the month.".into(),
        // 6
        "What's a normal amount of coffee for a café doing about 200 cups a day?".into(),
        // 7
        "Ok so I'm about right.".into(),
        // 8
        "Inês's mobile is 07893 411 206 and she's the one who does the cake orders with the bakery.".into(),
        // 9
        "The fridge temperatures have to be written down twice a day, the environmental health officer was very clear about that.".into(),
        // 10
        "What temperature should a café fridge actually be at?".into(),
        // 11
        "Good, ours says 4.".into(),
        // 12
        "The card machine is rented from Paymatic, the support line is 0330 088 5521.".into(),
        // 13
        "How do I stop people leaving their laptops on tables for three hours with one flat white?".into(),
        // 14
        "Ha, I'll try the gentle sign.".into(),
        // 15
        "Ben asked for a pay rise, he's on £11.80 an hour. What's reasonable for a barista with two years' experience?".into(),
        // 16
        "I'll think about it over the weekend.".into(),
        // 17
        "Is it worth doing a loyalty card or are those dead now?".into(),
        // 18
        "Paper ones it is, people like the stamps.".into(),
        // 19
        "Rota change: Kasia's doing the Tuesday close from now on, not Ben, he's got college on Tuesday evenings.".into(),
        // 20
        "Does that mean I need to show Kasia the closing checklist again?".into(),
        // 21
        "She's done it before so probably fine.".into(),
        // 22
        "What should go on a closing checklist anyway?".into(),
        // 23
        "That's better than ours. Stealing it.".into(),
        // 24
        "We had a break-in attempt next door so I've changed the alarm code to 5189.".into(),
        // 25
        "Should I tell the staff the code by text or in person?".into(),
        // 26
        "In person then.".into(),
        // 27
        "How do I handle a customer who says their coffee was wrong after drinking most of it?".into(),
        // 28
        "Fair. Replace it and move on.".into(),
        // 29
        "The dairy is putting the oat milk up to 18 cartons from next week because we keep running out.".into(),
        // 30
        "Would an oat milk surcharge annoy people?".into(),
        // 31
        "No surcharge then.".into(),
        // 32
        "Any ideas for a cheap way to get more people in on Monday mornings?".into(),
        // 33
        "The pensioners' deal is a nice idea.".into(),
        // 34
        "What do I need to know about allergen labelling for the cakes?".into(),
        // 35
        "Ugh, more paperwork. Fine.".into(),
        // 36
        "Should I be open on bank holidays?".into(),
        // 37
        "I'll try the next one and see.".into(),
        // 38
        "How do you know when it's time to hire another person?".into(),
        // 39
        "Not yet then.".into(),
        // 40
        "Right, quick check on the boring stuff before I do the orders.".into(),
        // 41
        "Also is it normal to feel this tired after a month?".into(),
        // 42
        "Thanks, that helps.".into(),
        // 43
        "Ok, off to do the orders.".into(),
    ];
    let facts = vec![
        // The first third (turns 0-14).
        fact(&["Mon", "Inês"], "Inês", 1),
        fact(&["Thu"], "Ben", 1),
        fact(&["dairy", "Hollins", "milk"], "Tuesdays and Fridays", 4),
        fact(&["Account", "dairy"], "HFD-30418", 4),
        fact(&["beans", "Dark Horse"], "6 kg", 5),
        fact(&["mobile", "Inês"], "07893 411 206", 8),
        fact(&["card machine", "Paymatic"], "0330 088 5521", 12),
        // The rest.
        fact(&["Ben", "pay"], "£11.80", 15),
        changed(&["Tuesday", "Tue"], "Kasia", "Ben", 19),
        changed(&["alarm code"], "5189", "7302", 24),
        changed(&["oat"], "18", "12", 29),
    ];
    let quiz = vec![
        Question {
            ask: "Who works Monday mornings?",
            fact: 0,
        },
        Question {
            ask: "Who's on Thursday?",
            fact: 1,
        },
        Question {
            ask: "When does the milk come?",
            fact: 2,
        },
        Question {
            ask: "What's our account number with the dairy?",
            fact: 3,
        },
        Question {
            ask: "How much coffee comes in each delivery?",
            fact: 4,
        },
        Question {
            ask: "What's Inês's number?",
            fact: 5,
        },
        Question {
            ask: "Who do I ring when the card reader stops working?",
            fact: 6,
        },
        Question {
            ask: "Who locks up on Tuesday now?",
            fact: 8,
        },
        Question {
            ask: "What's the alarm code?",
            fact: 9,
        },
    ];
    Scenario {
        name: "rota",
        locked: "Nobody works more than five shifts a week",
        turns,
        facts,
        quiz,
    }
}
