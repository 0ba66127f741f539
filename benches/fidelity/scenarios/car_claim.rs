//! `car_claim`: an insurance claim after someone drove into the back of the person's car
//! — 42 turns written before any rule was tuned to them. Its shapes: messages dictated
//! as voice notes (run-ons, "um", numbers said in words: "twelve hundred and forty
//! quid", "half eight"), a claim number and the other car's registration read out with
//! spaces, a witness's name and number, an excess, a garage's quote revised upwards, a
//! hire car's daily limit, and a date the person had wrong ("it was the Tuesday not the
//! Wednesday"). Questions ask in other words ("the reference", "what I pay myself").

use super::{Question, Scenario, changed, fact};

pub(super) fn car_claim() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "so um someone went into the back of me at the lights yesterday and I need to sort the insurance, can you help me keep track".into(),
        // 1
        "it happened on Wednesday the 4th at about half eight in the morning on Hagley Road".into(),
        // 2
        "the other driver was a guy called Terrence Mbeki, his reg is LB21 XKT".into(),
        // 3
        "he admitted it was his fault at the scene which is good right?".into(),
        // 4
        "ok I'll get it in writing if I can".into(),
        // 5
        "my insurer is Admiral and the claim number they gave me is ADM 4471 0932".into(),
        // 6
        "my excess is £250 which I'm hoping to get back from his insurer".into(),
        // 7
        "how does getting the excess back actually work".into(),
        // 8
        "right so I claim it from his side, makes sense".into(),
        // 9
        "there was a witness, a woman called Bernadette Quigley, her number is 07845 221 903".into(),
        // 10
        "should I ring her now or wait for the insurer to".into(),
        // 11
        "I'll let Admiral do it".into(),
        // 12
        "the garage is Lodge Motors and they quoted twelve hundred and forty quid for the bumper and the boot lid".into(),
        // 13
        "is that a fair price for a 2019 Golf?".into(),
        // 14
        "ok sounds about right".into(),
        // 15
        "my neck's a bit stiff today, should I mention that".into(),
        // 16
        "I'll see the GP first then".into(),
        // 17
        "the GP appointment is Friday at 10 past 9".into(),
        // 18
        "do I have to accept their insurer's repairer or can I use my own garage".into(),
        // 19
        "I'm sticking with Lodge, they did my MOT".into(),
        // 20
        "oh wait it was the Tuesday not the Wednesday, Tuesday the 3rd, I checked my dashcam".into(),
        // 21
        "does getting the date wrong on the first call cause problems".into(),
        // 22
        "ok I'll ring and correct it".into(),
        // 23
        "Admiral said the hire car is covered up to £45 a day".into(),
        // 24
        "what counts as a like for like hire car".into(),
        // 25
        "fine, a Polo or similar then".into(),
        // 26
        "Lodge rang back, once they took the bumper off there's a bracket gone too so the quote is £1,480 now".into(),
        // 27
        "does the higher quote change anything with the claim".into(),
        // 28
        "ok I'll send them the new figure".into(),
        // 29
        "the dashcam footage is about 40 seconds, how do I send a video that big".into(),
        // 30
        "WeTransfer, perfect".into(),
        // 31
        "my Admiral handler is called Precious, her direct line is 0333 220 8871".into(),
        // 32
        "how long do these things usually take".into(),
        // 33
        "ugh, weeks then".into(),
        // 34
        "the car goes into Lodge on Monday the 16th".into(),
        // 35
        "should I clear my stuff out of the car first".into(),
        // 36
        "yeah I'll empty it".into(),
        // 37
        "what should I check when I pick it up".into(),
        // 38
        "good list".into(),
        // 39
        "can you sum up where I am".into(),
        // 40
        "that's everything I think".into(),
        // 41
        "thanks, this was less stressful than I thought".into(),
    ];
    let facts = vec![
        // The first third (turns 0-13).
        fact(&["driver", "Terrence"], "LB21 XKT", 2),
        fact(&["claim number", "Admiral"], "ADM 4471 0932", 5),
        fact(&["excess"], "£250", 6),
        fact(&["witness", "Bernadette"], "07845 221 903", 9),
        fact(&["garage", "Lodge"], "Lodge Motors", 12),
        // The rest.
        fact(&["GP"], "Friday", 17),
        changed(&["Tuesday"], "3rd", "4th", 20),
        fact(&["hire car"], "£45", 23),
        changed(&["quote"], "£1,480", "twelve hundred and forty", 26),
        fact(&["handler", "Precious"], "0333 220 8871", 31),
        fact(&["Lodge"], "16th", 34),
    ];
    let quiz = vec![
        Question {
            ask: "What's the other car's number plate?",
            fact: 0,
        },
        Question {
            ask: "What's my claim reference?",
            fact: 1,
        },
        Question {
            ask: "How much do I pay myself before the insurance kicks in?",
            fact: 2,
        },
        Question {
            ask: "How do I reach the witness?",
            fact: 3,
        },
        Question {
            ask: "Which garage is fixing the car?",
            fact: 4,
        },
        Question {
            ask: "What date did the crash actually happen?",
            fact: 6,
        },
        Question {
            ask: "How much is the hire car allowance per day?",
            fact: 7,
        },
        Question {
            ask: "What's the garage quote now?",
            fact: 8,
        },
        Question {
            ask: "What's Precious's number?",
            fact: 9,
        },
    ];
    Scenario {
        name: "car_claim",
        locked: "Never admit any fault on the phone",
        turns,
        facts,
        quiz,
    }
}
