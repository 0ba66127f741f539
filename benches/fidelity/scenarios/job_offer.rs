//! `job_offer`: weighing two job offers — 44 turns written before any rule was tuned to
//! them. Its shapes: an offer letter pasted whole (a greeting, "Key: value" lines, a
//! signature block with a phone number), money in thousands with "k" and in kroner, a
//! recruiter with "ø" and "Ø" in her name, a friend's text quoted inside the message, a
//! counter-offer that moves the salary, a date corrected by negation ("not the 15th, the
//! 22nd"), and a choice made between named options. Questions ask in other words ("pay",
//! "who do I answer to", "when do I begin").

use super::{Question, Scenario, changed, fact};

pub(super) fn job_offer() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "I've got two job offers on the table and I need to decide by the end of next week, can you help me think it through".into(),
        // 1
        "ok here's the first one, I'll paste the important bit of the email:\n\nHi Mateo,\n\nWe are delighted to offer you the position below.\n\nRole: Senior Data Analyst\nTeam: Pricing & Revenue\nBase salary: NOK 812,000\nStart date: 4 January 2027\nReporting to: Ingrid Løvås\n\nBest regards,\nBjørg Ødegård\nTalent Acquisition, Fjordline Energi\nMobile: +47 915 20 388".into(),
        // 2
        "that's the Oslo one. the other one is in Lisbon, remote-first, at a startup called Marésia".into(),
        // 3
        "Lisbon is offering 68k euros plus 0.4% equity".into(),
        // 4
        "is 0.4% of a seed stage startup worth anything realistically".into(),
        // 5
        "yeah I figured it's basically a lottery ticket".into(),
        // 6
        "my current job pays 61k so both are a raise at least".into(),
        // 7
        "how do I compare NOK and euros fairly with cost of living and tax".into(),
        // 8
        "right, Norway's taxes are brutal but so are the prices".into(),
        // 9
        "my sister lives in Oslo actually, she texted me \"rent for a 1-bed in Grünerløkka is like 15k a month now\" which is scary".into(),
        // 10
        "15k NOK I mean, not euros lol".into(),
        // 11
        "what would my monthly take-home be roughly in Oslo".into(),
        // 12
        "ok that's tighter than I thought".into(),
        // 13
        "the Lisbon founder is called Tomás Aguiar, I had a video call with him yesterday".into(),
        // 14
        "he seemed really nice but a bit chaotic, is that a red flag".into(),
        // 15
        "fair, early startups are chaotic by nature".into(),
        // 16
        "Fjordline has a notice period of 3 months which feels long".into(),
        // 17
        "is 3 months normal in Norway".into(),
        // 18
        "huh ok, it's pretty standard then".into(),
        // 19
        "I asked Bjørg if they could do better on the base and she came back with 860k, so that's the new number".into(),
        // 20
        "is it worth pushing again or is that pushing my luck".into(),
        // 21
        "I'll leave it there".into(),
        // 22
        "Marésia wants an answer by Friday the 11th".into(),
        // 23
        "how do I ask for more time without annoying them".into(),
        // 24
        "good wording, I'll use that".into(),
        // 25
        "oh and the Oslo start date, I misread it, it's not the 4th it's the 11th of January".into(),
        // 26
        "does a January start mess with my holiday allowance here".into(),
        // 27
        "ok I'll check my contract".into(),
        // 28
        "the Lisbon role would have me reporting to their CTO, a guy named Rui Sampaio".into(),
        // 29
        "what questions should I ask a CTO before saying yes".into(),
        // 30
        "these are great, especially the runway one".into(),
        // 31
        "Tomás said their runway is 18 months after the seed round".into(),
        // 32
        "is 18 months enough".into(),
        // 33
        "hmm ok, not amazing not terrible".into(),
        // 34
        "my partner Saoirse is a nurse, she'd need her registration recognised in Norway which takes ages".into(),
        // 35
        "how long does the nursing registration take there".into(),
        // 36
        "that's a real factor then".into(),
        // 37
        "ok I've slept on it. we're going with Oslo. Saoirse is on board and the money is better".into(),
        // 38
        "how do I turn down Marésia nicely, I might want to work with them one day".into(),
        // 39
        "perfect, sending that".into(),
        // 40
        "what should I sort out first for moving to Norway".into(),
        // 41
        "good list, the D-number sounds annoying".into(),
        // 42
        "can you recap the final offer for me".into(),
        // 43
        "thanks, feels good to have decided".into(),
    ];
    let facts = vec![
        // The first third (turns 0-14).
        fact(&["role", "Senior"], "Senior Data Analyst", 1),
        fact(&["reporting", "Ingrid"], "Ingrid Løvås", 1),
        fact(&["Mobile"], "+47 915 20 388", 1),
        fact(&["Lisbon", "Marésia"], "68k", 3),
        fact(&["equity"], "0.4%", 3),
        fact(&["current", "job"], "61k", 6),
        fact(&["rent", "Grünerløkka"], "15k", 9),
        fact(&["founder", "Tomás"], "Tomás Aguiar", 13),
        // The rest.
        fact(&["notice"], "3 months", 16),
        changed(&["base", "salary", "Bjørg"], "860k", "812,000", 19),
        fact(&["Marésia", "answer"], "Friday the 11th", 22),
        changed(&["start"], "11th of January", "4 January", 25),
        fact(&["CTO", "Rui"], "Rui Sampaio", 28),
        fact(&["runway"], "18 months", 31),
        fact(&["Saoirse", "partner"], "nurse", 34),
    ];
    let quiz = vec![
        Question {
            ask: "What's the job title in the Norwegian offer?",
            fact: 0,
        },
        Question {
            ask: "Who would my boss be in Oslo?",
            fact: 1,
        },
        Question {
            ask: "What's the recruiter's phone number?",
            fact: 2,
        },
        Question {
            ask: "What was the Portuguese startup paying?",
            fact: 3,
        },
        Question {
            ask: "How much do I earn now?",
            fact: 5,
        },
        Question {
            ask: "What did my sister say a flat costs there?",
            fact: 6,
        },
        Question {
            ask: "Who's the guy who runs the startup?",
            fact: 7,
        },
        Question {
            ask: "What's the Oslo pay after I negotiated?",
            fact: 9,
        },
        Question {
            ask: "When do I begin in Oslo?",
            fact: 11,
        },
        Question {
            ask: "How long can the startup last on its money?",
            fact: 13,
        },
    ];
    Scenario {
        name: "job_offer",
        locked: "Decide by the end of next week, not before talking to Saoirse",
        turns,
        facts,
        quiz,
    }
}
