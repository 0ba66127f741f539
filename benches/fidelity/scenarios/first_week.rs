//! `first_week`: someone starting a new office job, talking their first fortnight
//! through with the assistant — 44 turns written before any rule was tuned to them. Its
//! shapes: most facts hold no figure at all (who manages whom, which room, which tool,
//! which café), so nothing but a name or a word marks them; a tool written in lower case
//! ("looker"); two people's facts in one sentence; a name with letters outside ASCII
//! (Józef, Øvergaard) and a double-barrelled one; the buddy and the standup time
//! changed; a detail the model tends to add (a Zoom link for an in-person standup) set
//! right. Most questions ask about the first third, several in other words ("who do I
//! ask when my laptop breaks" for the helpdesk, "when do we get paid" for payday).

use super::{Question, Scenario, changed, fact};

pub(super) fn first_week() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "Starting at Kestrel Freight on Monday as a junior analyst in the pricing team. My manager is going to be Ngozi Adeyemi-Clarke, she seemed nice in the interview. Any tips for a first week?".into(),
        // 1
        "The office is on the fourth floor of the Tannery building on Wharf Lane, I have to pick up my badge from reception before 9.".into(),
        // 2
        "Bit nervous honestly, it's my first proper job after the masters.".into(),
        // 3
        "They've given me an onboarding buddy called Rafe who sits opposite me, and IT problems go to Józef on the helpdesk, extension 4471.".into(),
        // 4
        "How do I ask a buddy for help without being annoying?".into(),
        // 5
        "ok first day done!! survived".into(),
        // 6
        "All the data is in snowflake and the dashboards are all in looker, which I've never touched. How long does it take to get comfortable with looker?".into(),
        // 7
        "Team standup is every morning at 9:15 in the meeting room they call Marlin. Everyone stands, it's very strict about 15 minutes.".into(),
        // 8
        "No, there's no zoom link, standup is in person in Marlin, that's the whole point apparently.".into(),
        // 9
        "What should I actually say at standup when I've done nothing yet?".into(),
        // 10
        "Lunch tip from Rafe: skip the canteen, everyone goes to the Vietnamese place across the road, Pho Sen.".into(),
        // 11
        "Their bun cha is unreal by the way.".into(),
        // 12
        "We get paid on the 28th of each month, which is annoying because my rent is due on the 1st. Is it worth asking my landlord to move it?".into(),
        // 13
        "Probation is six months and my review at the end is with Ngozi.".into(),
        // 14
        "What do managers usually look for in a probation review?".into(),
        // 15
        "Useful, thanks. I'll write some of that down.".into(),
        // 16
        "Staff wifi is KFG-Staff with my normal login, the KFG-Visitors one kicks you off every hour.".into(),
        // 17
        "Can you explain what a freight lane is in pricing terms? Everyone says it like I should know.".into(),
        // 18
        "Ahh ok that makes sense now.".into(),
        // 19
        "Expenses go through an app called Pleo, you photograph the receipt and it has to be in within 30 days.".into(),
        // 20
        "What's a sensible way to keep track of receipts when I travel?".into(),
        // 21
        "My first real project is repricing the Rotterdam to Felixstowe lane, due by the end of next month.".into(),
        // 22
        "Honestly a bit scary to get something real so soon.".into(),
        // 23
        "How would you approach repricing a lane if you were new?".into(),
        // 24
        "Change of plan, Rafe is moving over to the customs team on Friday so my buddy from now on is Chiamaka.".into(),
        // 25
        "She's been here five years so probably better anyway.".into(),
        // 26
        "Is it rude to book a 1:1 with someone senior in my first month?".into(),
        // 27
        "Going to do it. Fortune favours the bold or whatever.".into(),
        // 28
        "Leave is booked in BambooHR, I get 25 days plus bank holidays.".into(),
        // 29
        "When do people normally take their first holiday at a new job?".into(),
        // 30
        "Standup is moving to 9:30 from next week so the Amsterdam people can join.".into(),
        // 31
        "Ngozi goes on maternity leave in March and while she's away I report to her deputy, Lars Øvergaard.".into(),
        // 32
        "Any advice on working for someone covering for your actual manager?".into(),
        // 33
        "He's very Scandinavian about it, super calm. I like him.".into(),
        // 34
        "Can you give me a quick SQL refresher on window functions? I need a running total by week.".into(),
        // 35
        "Perfect, that worked first time.".into(),
        // 36
        "What's the difference between a CTE and a subquery, performance wise?".into(),
        // 37
        "Good to know. I'll stop nesting everything.".into(),
        // 38
        "Friday drinks are apparently a big thing here. Do I have to go?".into(),
        // 39
        "Yeah I'll show my face for one.".into(),
        // 40
        "Right, end of week two. Let me check a few things I've forgotten already.".into(),
        // 41
        "Also how do I politely stop someone talking to me when I have headphones on?".into(),
        // 42
        "Ha, I'll try the pointing at headphones move.".into(),
        // 43
        "Thanks for getting me through the fortnight.".into(),
    ];
    let facts = vec![
        // The first third (turns 0-14).
        fact(&["manager"], "Ngozi", 0),
        fact(&["office", "Tannery"], "Wharf Lane", 1),
        fact(&["IT", "helpdesk"], "Józef", 3),
        fact(&["IT", "helpdesk", "extension"], "4471", 3),
        fact(&["dashboards"], "looker", 6),
        fact(&["standup"], "Marlin", 8).rejecting("zoom"),
        fact(&["lunch", "Vietnamese"], "Pho Sen", 10),
        fact(&["paid"], "28th", 12),
        fact(&["probation"], "six months", 13),
        // The rest.
        fact(&["wifi"], "KFG-Staff", 16),
        fact(&["expenses", "receipt"], "Pleo", 19),
        fact(&["project", "repricing"], "Rotterdam", 21),
        changed(&["buddy"], "Chiamaka", "Rafe", 24),
        fact(&["leave"], "BambooHR", 28),
        changed(&["standup"], "9:30", "9:15", 30),
        fact(&["deputy", "report"], "Øvergaard", 31),
    ];
    let quiz = vec![
        Question {
            ask: "Who's my manager again?",
            fact: 0,
        },
        Question {
            ask: "Who do I ask when my laptop breaks?",
            fact: 2,
        },
        Question {
            ask: "What's the number for IT?",
            fact: 3,
        },
        Question {
            ask: "What do we build the dashboards in?",
            fact: 4,
        },
        Question {
            ask: "Which room is standup in?",
            fact: 5,
        },
        Question {
            ask: "What was that place for lunch called?",
            fact: 6,
        },
        Question {
            ask: "When do we get paid?",
            fact: 7,
        },
        Question {
            ask: "Which wifi network should I be on?",
            fact: 9,
        },
        Question {
            ask: "Who's my buddy now?",
            fact: 12,
        },
        Question {
            ask: "What time is standup these days?",
            fact: 14,
        },
    ];
    Scenario {
        name: "first_week",
        locked: "Keep answers short, I read them between meetings",
        turns,
        facts,
        quiz,
    }
}
