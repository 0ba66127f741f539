//! `offsite` (#35): a team lead planning a two-day offsite in Slack-speak. Twelve facts of
//! different kinds — dates, a headcount, a budget in francs, a diet, who takes the
//! invoices, a train, a phone number, a deadline, a room, a time — and two corrections:
//! the kick-off moves once (9:30 → 10:15), the venue twice (Seehof Brunnen → Haus Ahorn
//! → Villa Sonnenberg; only the last counts, and neither earlier one may stand as
//! current). Halfway the person asks for a draft invite and then rejects what a model
//! tends to add to one: "no, I never said there'd be a shuttle — there's no shuttle".
//! That "no shuttle" is not a fact of its own (a negation has no value to find); the
//! fact is what the person said instead, the 8:04 train, and the shuttle is its
//! `rejected` detail: a passage or answer that gives the train beside an undenied
//! shuttle does not count. Three questions are worded unlike the statement ("spend on
//! each person" for "per head", "bills" for "invoices", "kitchen" for "caterer").

use super::{Question, Scenario, changed, changed_from, fact};

/// The agenda the person pastes to be tidied: long, and nothing in it to keep.
const AGENDA: &str = "here's my super rough agenda, don't judge:\n\
DAY 1\n\
- arrive, coffee, people complaining about the train wifi\n\
- kick-off: where we are, what went well, what absolutely did not\n\
- workshop block 1: the on-call rotation, again, because it's still broken\n\
- lunch (long one, people need to actually talk to each other)\n\
- afternoon thing TBD\n\
- dinner, no speeches, I'm serious\n\
DAY 2\n\
- slow start, breakfast whenever\n\
- workshop block 2: roadmap for next year, what we stop doing\n\
- retro of the offsite itself while it's fresh\n\
- lunch and everyone heads home\n\
things I keep forgetting: name tags?? a speaker for the laptops, someone to take notes \
that isn't me, and a plan B if the weather is bad for whatever the afternoon thing is";

/// The survey answers the person pastes: long, and nothing in it to keep.
const SURVEY: &str = "pasting what people answered to 'what do you want from the offsite' (anonymised-ish):\n\
- \"less talking at us, more talking with each other\"\n\
- \"a real conversation about on-call, not another slide deck\"\n\
- \"good food pls, last year's sandwiches haunt me\"\n\
- \"time outside, but not a forced march up a mountain\"\n\
- \"clarity on what we're NOT doing next year\"\n\
- \"can we please not do trust falls\"\n\
- \"I'd like to meet the people from the data team properly\"\n\
- \"a quiet room for people who need a break from everyone\"\n\
- \"honestly just sleep and not be on call for two days\"\n\
- \"decent coffee. I will bring my own if I must\"\n\
so basically: food, coffee, no trust falls, fix on-call. very us";

pub(super) fn offsite() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "ok offsite planning time 🙃 platform team, we're doing Sept 18–19 (thu/fri). can you be my second brain for this".into(),
        // 1
        "venue: we've got Seehof Brunnen on hold, lake view, looks gorgeous in the pics".into(),
        // 2
        "headcount is 19 incl. the two new starters (Aiyana and Ruairí, both lovely)".into(),
        // 3
        "finance says CHF 180 per head per day and they were VERY clear it's a hard cap".into(),
        // 4
        "how do you even make an offsite not feel like one long meeting with worse coffee".into(),
        // 5
        "kick-off at 9:30 on the thursday, then workshops till lunch".into(),
        // 6
        "oh and Tomás is coeliac so the caterer has to do proper gluten free, not just 'we'll take the bread off the plate'".into(),
        // 7
        "scratch Seehof, they double booked us 🙄 now looking at Haus Ahorn in Lungern, they have space".into(),
        // 8
        "fyi Maren from People Ops handles the invoices for all of this, anything with a number on it goes to her".into(),
        // 9
        AGENDA.into(),
        // 10
        "can you draft the invite email? dates, venue, kick-off, that there's a dinner on the thursday. short and not cringe pls".into(),
        // 11
        "no, I never said there'd be a shuttle — there's no shuttle. people take the 8:04 train from Zürich HB and walk up from the station, it's 10 min".into(),
        // 12
        "which means 9:30 is never going to work, the train gets in just before 10. kick-off moves to 10:15".into(),
        // 13
        "is it weird to do an icebreaker with people who've worked together for 5 years".into(),
        // 14
        "catering is Gabi's Küche, the contact is Gabriele Brandt, 079 412 88 10, she's super relaxed about everything".into(),
        // 15
        "RSVP deadline is August 29, after that I'm giving final numbers to the venue and that's that".into(),
        // 16
        SURVEY.into(),
        // 17
        "ugh. Haus Ahorn just emailed, their heating gets redone in september. so the venue is Villa Sonnenberg now, in Sachseln. final final. I hope".into(),
        // 18
        "the workshop room at the villa is called Pilatus, first floor, it has a massive whiteboard wall 😍".into(),
        // 19
        "what's a good afternoon thing for people who hate hiking? half the team would rather die".into(),
        // 20
        "ok we're doing the cheese dairy tour, the dairy booked us for 15:00 on the thursday".into(),
        // 21
        "can you turn all of this into a checklist for me".into(),
        // 22
        "do I need to tell people to bring proper shoes if nobody's hiking lol".into(),
        // 23
        "sending the invite tomorrow morning, before I lose my nerve".into(),
        // 24
        "one last thing: how do I ask people about dietary stuff without it feeling like a form".into(),
        // 25
        "ok that's it for now, thank you 🙏".into(),
    ];
    let facts = vec![
        // The first third (turns 0-8).
        fact(&["offsite"], "Sept 18", 0),
        fact(&["headcount"], "19", 2),
        fact(&["per head", "finance"], "CHF 180", 3),
        fact(&["tomás", "coeliac"], "gluten", 6),
        fact(&["invoices", "people ops"], "Maren", 8),
        // The rest.
        fact(&["train", "zürich hb"], "8:04", 11).rejecting("shuttle"),
        changed(&["kick-off", "kickoff"], "10:15", "9:30", 12),
        fact(&["catering", "gabriele", "gabi"], "079 412 88 10", 14),
        fact(&["rsvp"], "August 29", 15),
        changed_from(
            &["venue", "offsite"],
            "Villa Sonnenberg",
            &["Seehof Brunnen", "Haus Ahorn"],
            17,
        ),
        fact(&["workshop room", "workshop"], "Pilatus", 18),
        fact(&["dairy", "cheese"], "15:00", 20),
    ];
    let quiz = vec![
        Question {
            ask: "when's the offsite again? just the first day pls",
            fact: 0,
        },
        Question {
            ask: "how many of us are going",
            fact: 1,
        },
        Question {
            ask: "what can we spend on each person per day?",
            fact: 2,
        },
        Question {
            ask: "anything the kitchen needs to know about Tomás?",
            fact: 3,
        },
        Question {
            ask: "who do the bills go to",
            fact: 4,
        },
        Question {
            ask: "so where are we actually doing this in the end?",
            fact: 9,
        },
        Question {
            ask: "what time do we kick off on day one",
            fact: 6,
        },
        Question {
            ask: "how's everyone getting there — which train, and is there a shuttle?",
            fact: 5,
        },
        Question {
            ask: "which room is the workshop in?",
            fact: 10,
        },
    ];
    Scenario {
        name: "offsite",
        locked: "Nobody presents slides at the offsite",
        turns,
        facts,
        quiz,
    }
}
