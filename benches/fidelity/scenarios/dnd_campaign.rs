//! `dnd_campaign`: a dungeon master keeping notes between sessions — 44 turns written
//! before any rule was tuned to them. Its shapes: invented names with apostrophes and
//! hyphens ("Vel'Shara", "Bryn-Ffion"), numbers that are game stats ("31 hit points",
//! "AC 16", "level 4"), a player leaving and another taking over the character, a
//! session moved to another night, a count that goes down ("the party has 3 healing
//! potions left" after 5), a password said in the game's world, and questions in other
//! words ("how tough is", "what night do we play").

use super::{Question, Scenario, changed, fact};

pub(super) fn dnd_campaign() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "I'm running a D&D campaign for my mates and I need somewhere to keep my notes between sessions.".into(),
        // 1
        "We play every other Thursday at 7, at Dev's flat.".into(),
        // 2
        "The party are level 4 now after last session.".into(),
        // 3
        "Any tips for pacing a dungeon crawl so it doesn't drag?".into(),
        // 4
        "Good shout on the timer.".into(),
        // 5
        "The main villain is a drow priestess called Vel'Shara.".into(),
        // 6
        "Her lieutenant is an ogre mage with 31 hit points and AC 16.".into(),
        // 7
        "Is that too tough for four level 4 characters?".into(),
        // 8
        "I'll give him some minions then.".into(),
        // 9
        "The password to the smugglers' tunnel is 'saltwind'.".into(),
        // 10
        "The party owes the thieves' guild 250 gold, they'll come collecting.".into(),
        // 11
        "Ollie plays Bryn-Ffion, a half-elf bard.".into(),
        // 12
        "What's a fun way for a bard to get a plot hook?".into(),
        // 13
        "Love the rival bard idea.".into(),
        // 14
        "The party has 5 healing potions between them.".into(),
        // 15
        "How much loot should a level 4 party find in a dungeon?".into(),
        // 16
        "Noted, I'll keep it modest.".into(),
        // 17
        "Next session they reach the Sunken Chapel.".into(),
        // 18
        "What traps would a drow priestess put in a chapel?".into(),
        // 19
        "The mirror trap is perfect.".into(),
        // 20
        "Bad news, Ollie's moving to Glasgow, so Sam is taking over Bryn-Ffion.".into(),
        // 21
        "How do I hand a character to a new player without it being weird?".into(),
        // 22
        "I'll do a short recap scene for Sam.".into(),
        // 23
        "Dev's flat is getting repainted so we're playing Wednesdays for a bit, same time.".into(),
        // 24
        "Does the day change matter for pacing? Probably not.".into(),
        // 25
        "They used two potions fighting the ghouls, so they're down to 3.".into(),
        // 26
        "Should I let them buy more potions in town?".into(),
        // 27
        "OK, expensive ones.".into(),
        // 28
        "The chapel's high priest is called Orsolya and she's secretly on their side.".into(),
        // 29
        "How do I drop hints without giving it away?".into(),
        // 30
        "The candle thing is great.".into(),
        // 31
        "Our next session is session 12, I can't believe it.".into(),
        // 32
        "What's a good cliffhanger to end session 12 on?".into(),
        // 33
        "The ogre mage bursting through the floor it is.".into(),
        // 34
        "Priya wants to join as a fifth player, a tiefling warlock.".into(),
        // 35
        "Does a fifth player mean I need to beef up the encounters?".into(),
        // 36
        "Right, more minions.".into(),
        // 37
        "Can you remind me of the big things going on?".into(),
        // 38
        "That's a good summary.".into(),
        // 39
        "I'll prep the chapel map tomorrow.".into(),
        // 40
        "Any last advice for running a session with a new player?".into(),
        // 41
        "Cheers.".into(),
        // 42
        "They're going to love the mirror trap.".into(),
        // 43
        "Right, prep time.".into(),
    ];
    let facts = vec![
        // The first third (turns 0-14).
        fact(&["level"], "4", 2),
        fact(&["villain", "priestess"], "Vel'Shara", 5),
        fact(&["ogre", "lieutenant"], "31 hit points", 6),
        fact(&["password", "tunnel"], "saltwind", 9),
        fact(&["guild"], "250 gold", 10),
        // The rest.
        changed(&["Bryn-Ffion"], "Sam", "Ollie", 20),
        changed(&["playing"], "Wednesdays", "Thursday", 23),
        changed(&["potions"], "3", "5", 25),
        fact(&["priest", "Orsolya"], "Orsolya", 28),
        fact(&["Priya"], "tiefling", 34),
    ];
    let quiz = vec![
        Question {
            ask: "What level is the party?",
            fact: 0,
        },
        Question {
            ask: "Who's the big bad?",
            fact: 1,
        },
        Question {
            ask: "How tough is the ogre mage?",
            fact: 2,
        },
        Question {
            ask: "What gets them into the smugglers' tunnel?",
            fact: 3,
        },
        Question {
            ask: "How much do they owe the thieves' guild?",
            fact: 4,
        },
        Question {
            ask: "Who's playing the bard now?",
            fact: 5,
        },
        Question {
            ask: "What night do we play at the moment?",
            fact: 6,
        },
        Question {
            ask: "How many healing potions are left?",
            fact: 7,
        },
    ];
    Scenario {
        name: "dnd_campaign",
        locked: "No player-versus-player fights",
        turns,
        facts,
        quiz,
    }
}
