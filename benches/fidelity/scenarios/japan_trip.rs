//! `japan_trip`: two weeks in Japan, planned over 62 turns written before any rule was
//! tuned to them. Its shapes: times in 24-hour form ("06:15", "09:21"), yen ("¥24,500",
//! "¥98,000 a night with dinner"), flight and train numbers ("JL44", "Nozomi 215"), a
//! name written in kanji beside its reading ("Hiiragiya (柊家)"), Japanese words that are
//! not names ("gochisousama deshita", "takkyubin"), a friend's date moved by him ("not the
//! 11th anymore … the 12th now"), a booking moved by a day with its time kept ("same
//! time"), and a date the model got wrong. Truncation keeps nothing of the first third.

use super::{Question, Scenario, changed, fact};

pub(super) fn japan_trip() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "planning two weeks in Japan with my partner Ana in April, first time for both of us. can you help me keep it all straight".into(),
        // 1
        "we land at Haneda on 3 April at 06:15, flight JL44 from London".into(),
        // 2
        "is it worth getting a JR pass still, I heard the price went up".into(),
        // 3
        "ok so probably not then, we'll just buy tickets as we go".into(),
        // 4
        "first 4 nights in Tokyo at Hotel Gracery Shinjuku, ¥24,500 a night".into(),
        // 5
        "the one with the Godzilla head on top lol".into(),
        // 6
        "what should we do on the first day when we're jetlagged".into(),
        // 7
        "a sento sounds perfect actually".into(),
        // 8
        "my friend Kenji Morimoto lives in Osaka, we're seeing him on the 11th".into(),
        // 9
        "he said he'd take us to a proper okonomiyaki place in Tsuruhashi".into(),
        // 10
        "how do you say thank you for dinner properly".into(),
        // 11
        "gochisousama deshita, ok I'll practise".into(),
        // 12
        "the teamLab Planets tickets are booked for 5 April at 10:30".into(),
        // 13
        "do we need to bring anything? I read you walk through water".into(),
        // 14
        "shorts it is".into(),
        // 15
        "Ana's vegetarian btw which I think is going to be hard".into(),
        // 16
        "any tips for finding veggie food that isn't just convenience store onigiri".into(),
        // 17
        "shojin ryori! she'll love that".into(),
        // 18
        "then Kyoto for 3 nights at a ryokan called Hiiragiya (柊家), it's expensive, ¥98,000 a night with dinner".into(),
        // 19
        "it's a once in a lifetime thing, we've been saving for ages".into(),
        // 20
        "do they do vegetarian kaiseki if you ask in advance".into(),
        // 21
        "I'll email them, they're pretty good about replying".into(),
        // 22
        "we're getting the Nozomi 215 from Tokyo to Kyoto, leaves 09:21".into(),
        // 23
        "is it easy to carry big suitcases on the shinkansen".into(),
        // 24
        "oh we have to reserve the oversized luggage seats? didn't know that".into(),
        // 25
        "we'll use takkyubin then and send the cases ahead".into(),
        // 26
        "Fushimi Inari at sunrise is the plan on the 8th".into(),
        // 27
        "how early is sunrise in Kyoto in April".into(),
        // 28
        "5:30 it is, Ana's going to hate me".into(),
        // 29
        "a tea ceremony in Uji on the 9th at 14:00, booked under my surname, Whitfield".into(),
        // 30
        "why is matcha from Uji meant to be the best".into(),
        // 31
        "makes sense, the mist thing is cool".into(),
        // 32
        "Kenji says not the 11th anymore, his work trip moved, so it's the 12th now".into(),
        // 33
        "that actually works better because we get an extra day in Nara".into(),
        // 34
        "should we feed the deer in Nara or is it a tourist trap".into(),
        // 35
        "bowing deer, ok I'm sold".into(),
        // 36
        "Osaka is 3 nights at Cross Hotel, ¥19,800 a night".into(),
        // 37
        "near Dotonbori I think".into(),
        // 38
        "what's a good day trip from Osaka that isn't Kyoto or Nara".into(),
        // 39
        "Himeji castle looks incredible".into(),
        // 40
        "then Hiroshima for 2 nights, we haven't booked that yet".into(),
        // 41
        "is Miyajima worth staying on the island overnight".into(),
        // 42
        "ok we'll do one night on the island then".into(),
        // 43
        "our budget for the whole trip is £7,500 not counting flights".into(),
        // 44
        "flights were £1,840 for both of us, return".into(),
        // 45
        "does that sound enough with the ryokan in there".into(),
        // 46
        "yeah the ryokan is the big one, everything else is pretty normal".into(),
        // 47
        "Ana wants to buy a proper Japanese knife, any idea where in Kyoto".into(),
        // 48
        "Aritsugu in Nishiki market, noted".into(),
        // 49
        "change on teamLab, we swapped to 6 April because of the jetlag, not the 5th, same time".into(),
        // 50
        "I keep changing things, sorry".into(),
        // 51
        "do we need cash or is card fine now".into(),
        // 52
        "7-Eleven ATMs, good to know".into(),
        // 53
        "flying home from Kansai on 17 April at 11:25, JL98".into(),
        // 54
        "is it easy to get to KIX from Osaka early in the morning".into(),
        // 55
        "Haruka it is".into(),
        // 56
        "can you put together a day by day for us".into(),
        // 57
        "you put the tea ceremony on the 10th but it's the 9th".into(),
        // 58
        "great, that looks right now".into(),
        // 59
        "how much should we tip? or is tipping rude".into(),
        // 60
        "no tipping, ok, that's easy".into(),
        // 61
        "thanks, I'm getting excited now".into(),
    ];
    let facts = vec![
        // The first third (turns 0-20).
        fact(&["land", "Haneda"], "06:15", 1),
        fact(&["flight"], "JL44", 1),
        fact(&["Hotel Gracery", "Shinjuku"], "¥24,500", 4),
        fact(&["okonomiyaki"], "Tsuruhashi", 9),
        fact(&["teamLab"], "10:30", 12),
        fact(&["Ana"], "vegetarian", 15),
        fact(&["ryokan"], "Hiiragiya", 18),
        fact(&["ryokan", "Hiiragiya"], "¥98,000", 18),
        // The rest.
        fact(&["Nozomi"], "09:21", 22),
        fact(&["Fushimi Inari"], "8th", 26),
        fact(&["tea ceremony"], "14:00", 29),
        changed(&["Kenji"], "12th", "11th", 32),
        fact(&["Cross Hotel"], "¥19,800", 36),
        fact(&["budget"], "£7,500", 43),
        fact(&["flights"], "£1,840", 44),
        fact(&["Aritsugu"], "Nishiki", 48),
        changed(&["teamLab"], "6 April", "5 April", 49),
        fact(&["home", "Kansai"], "17 April", 53),
    ];
    let quiz = vec![
        Question {
            ask: "What time does our plane get into Tokyo?",
            fact: 0,
        },
        Question {
            ask: "Which flight are we on out of London?",
            fact: 1,
        },
        Question {
            ask: "What does the Shinjuku hotel cost per night?",
            fact: 2,
        },
        Question {
            ask: "Where's the okonomiyaki place Kenji wants to take us?",
            fact: 3,
        },
        Question {
            ask: "What time is our teamLab slot?",
            fact: 4,
        },
        Question {
            ask: "What's the ryokan in Kyoto called?",
            fact: 6,
        },
        Question {
            ask: "How much is a night at the ryokan?",
            fact: 7,
        },
        Question {
            ask: "What day are we meeting Kenji?",
            fact: 11,
        },
        Question {
            ask: "When does our train to Kyoto leave?",
            fact: 8,
        },
        Question {
            ask: "Which day is teamLab now?",
            fact: 16,
        },
        Question {
            ask: "Where should Ana go for her knife?",
            fact: 15,
        },
    ];
    Scenario {
        name: "japan_trip",
        locked: "No JR pass: we buy tickets as we go",
        turns,
        facts,
        quiz,
    }
}
