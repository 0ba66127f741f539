//! `varied` (#28): a dozen facts of different kinds as people say them — who owns what,
//! dates in three forms (2026-04-09, "March 14th", "the 3rd of May"), a version on a host,
//! a rate limit, a percentage, a URL, durations, a person's name — with small talk
//! between, and one correction later ("scratch that, the freeze starts on March 20th").
//! Six of the twelve come in the first third; the quiz asks all six.

use super::{Question, Scenario, changed, distractor, fact};

pub(super) fn varied() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "Morning! Quick brain dump before standup. Priya's team owns the billing service as of this week, so billing bugs go to them.".into(),
        // 1
        "Also, the SOC 2 audit kicks off 2026-04-09, so no big infra changes that week please.".into(),
        // 2
        "did you catch the match last night? no? ok never mind haha".into(),
        // 3
        "db-2 is still on Postgres 14.9, the upgrade keeps slipping.".into(),
        // 4
        "Platform says the public API is capped at 100 requests a minute per key now.".into(),
        // 5
        "any idea how to politely decline a meeting that could've been an email?".into(),
        // 6
        "The code freeze starts on March 14th, put it in your calendar.".into(),
        // 7
        "Our uptime target for the quarter is 99.95%. Ambitious, if you ask me.".into(),
        // 8
        "Oh and the Lisbon office opens on the 3rd of May, expect travel requests around then.".into(),
        // 9
        distractor("the history of the bicycle"),
        // 10
        "The runbook lives at https://wiki.example.com/ops/rb/3 and yes, I'll keep saying bookmark the runbook until everyone does.".into(),
        // 11
        "How long should a good onboarding doc be, roughly?".into(),
        // 12
        "Session cookies last 8 hours now; security brought the session cookie lifetime down from 12.".into(),
        // 13
        "cache-1 is running Redis 7.2.4, in case anyone wonders why the new commands fail on the other box.".into(),
        // 14
        "Random, but what's a good book on negotiation?".into(),
        // 15
        "Dmitri is the on-call lead for March, ping him before paging anyone.".into(),
        // 16
        "scratch that, the freeze starts on March 20th, not the 14th. Release management moved it.".into(),
        // 17
        distractor("how coral reefs grow"),
        // 18
        "Backups on the cold tier are kept for 35 days.".into(),
        // 19
        "what's a team-building thing that isn't awkward?".into(),
        // 20
        "ha, the escape room idea might actually work with this bunch.".into(),
        // 21
        "Do you think a who-to-ask-for-what page is worth keeping up to date?".into(),
        // 22
        "ok I need coffee before the next meeting.".into(),
        // 23
        "Anything I should double-check before the freeze?".into(),
        // 24
        "Thanks, that's all for today!".into(),
    ];
    let facts = vec![
        // The first third (turns 0-8).
        fact(&["billing"], "Priya", 0),
        fact(&["audit", "soc 2"], "2026-04-09", 1),
        fact(&["db-2"], "14.9", 3),
        fact(
            &["public api", "rate limit", "rate-limit"],
            "100 requests a minute",
            4,
        ),
        fact(&["uptime"], "99.95", 7),
        fact(&["lisbon"], "3rd of May", 8),
        // The rest.
        changed(&["freeze"], "March 20", "March 14", 16),
        fact(&["runbook"], "https://wiki.example.com/ops/rb/3", 10),
        fact(&["session cookie"], "8 hours", 12),
        fact(&["cache-1"], "7.2.4", 13),
        fact(&["on-call lead", "on-call"], "Dmitri", 15),
        fact(&["cold tier", "backups"], "35 days", 18),
    ];
    let quiz = vec![
        Question {
            ask: "Whose team owns the billing service?",
            fact: 0,
        },
        Question {
            ask: "When does the SOC 2 audit start?",
            fact: 1,
        },
        Question {
            ask: "Which Postgres version is db-2 on?",
            fact: 2,
        },
        Question {
            ask: "What is the rate limit of the public API?",
            fact: 3,
        },
        Question {
            ask: "What is our uptime target for the quarter?",
            fact: 4,
        },
        Question {
            ask: "When does the Lisbon office open?",
            fact: 5,
        },
        Question {
            ask: "When does the code freeze start?",
            fact: 6,
        },
        Question {
            ask: "Who is the on-call lead for March?",
            fact: 10,
        },
    ];
    Scenario {
        name: "varied",
        locked: "No deploys on Fridays",
        turns,
        facts,
        quiz,
    }
}
