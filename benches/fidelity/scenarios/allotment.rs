//! `allotment`: someone takes over the running of a community garden, typing fast on a
//! phone — lower case, run-on messages with no full stops, several things per message,
//! 44 turns written before any rule was tuned to them. Its shapes: facts buried mid-way
//! in long unpunctuated messages, values said as words and figures mixed ("plot
//! fourteen", "£35 a year"), a person's name in lower case ("ask gráinne"), a correction
//! said as "wait no", a water-off date moved, a made-up opening time set right. Most
//! questions ask about the first third, two in other words ("the lock on the front gate",
//! "who did the secretary job before me").

use super::{Question, Scenario, changed, fact};

pub(super) fn allotment() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "so i got roped into being secretary of the allotment association at the last agm which i did not see coming and now i have a folder of stuff and no idea what any of it means can you help me keep track".into(),
        // 1
        "ok first the site itself its the one on Hollybank Lane behind the old church and there are 42 plots most of them half plots and the waiting list is apparently 3 years long which is wild".into(),
        // 2
        "the padlock code for the main gate is 7319 and people are not supposed to give it out but everyone does obviously".into(),
        // 3
        "how do you even run a meeting i have never chaired anything in my life".into(),
        // 4
        "rent for a full plot is £35 a year and half plots are £20 and its due by the end of march and about a third of people pay late every year according to the old secretary".into(),
        // 5
        "the old secretary is called Maureen Okafor-Hale she did it for 11 years and she is moving to Devon so i cant just ring her every five minutes but she said i can email".into(),
        // 6
        "the council contact for anything about the land is Deshawn Price in the parks department and his direct line is 0161 496 0732 but apparently he only answers before lunch".into(),
        // 7
        "whats the best way to do a rota for watering in summer that people actually stick to".into(),
        // 8
        "ha yes a whatsapp group will be chaos but its the only thing people read".into(),
        // 9
        "the shed has the shared tools and the key for it is in a key safe on the side of the shed code 0448 and there is a strimmer that nobody knows how to start".into(),
        // 10
        "also the water gets turned off for winter on the 31st of october and back on in april and last year someone left a hose connected and the tap burst so i need to remind people".into(),
        // 11
        "manure delivery is coming on saturday the 12th from Brogan's farm its 6 tonnes and its dumped by the gate so everyone needs to shift their share within a week or the neighbours complain".into(),
        // 12
        "is horse manure ok to put straight on or does it need to rot first".into(),
        // 13
        "right ok rotted it is then i will tell people to stack it".into(),
        // 14
        "the bank account for the association is with the co-op and the sort code is 08-92-99 and the account is in the name of Hollybank Allotment Association and i need to get added as a signatory which needs two other committee members".into(),
        // 15
        "the treasurer is a guy called ciarán who i have met once and he seemed nice but slightly terrifying about spreadsheets".into(),
        // 16
        "what do people usually grow first year on a neglected plot".into(),
        // 17
        "potatoes to break up the soil makes sense".into(),
        // 18
        "new person on plot fourteen is called Yusuf and he wants to put up a polytunnel which the rules say needs committee approval and the max size is 3 metres by 2".into(),
        // 19
        "is a polytunnel a fire risk or anything i feel like i should know".into(),
        // 20
        "wait no the water goes off on the 7th of november this year not the 31st the council emailed".into(),
        // 21
        "that's actually good because the leeks need it".into(),
        // 22
        "the open day is on sunday the 21st of september from 11 till 3 and we are doing a plant sale and a cake stall and gráinne from plot 9 is in charge of the cakes".into(),
        // 23
        "how much should we charge for seedlings at a plant sale like this".into(),
        // 24
        "ok 50p to a pound sounds right".into(),
        // 25
        "someone has been leaving the gate open and a fox got into the chicken run on plot 30 and now there is a petition about the gate which i am supposed to respond to".into(),
        // 26
        "how do i word a reminder about the gate without sounding like a headmaster".into(),
        // 27
        "perfect thats exactly the tone".into(),
        // 28
        "the insurance renewal is with NFU Mutual policy number is HAA-7724190 and it renews on the 1st of december and the premium went up to £412 from £380".into(),
        // 29
        "is it normal for community insurance to go up that much".into(),
        // 30
        "you said the open day starts at 10 but i never said that it starts at 11 and ends at 3".into(),
        // 31
        "anyway the agm next year is in march and i need to do a secretary's report which i am dreading".into(),
        // 32
        "whats a good structure for a short report to members".into(),
        // 33
        "thats helpful i will steal that".into(),
        // 34
        "oh the skip for clearing plot 22 is booked for the 3rd of october and its a 6 yard skip from Dean's skips and it costs £240 which comes out of the maintenance fund".into(),
        // 35
        "i hope nobody tries to put a sofa in it".into(),
        // 36
        "lol yes someone will definitely try".into(),
        // 37
        "the maintenance fund has £1,180 in it as of this month after the skip".into(),
        // 38
        "right its late i am going to stop".into(),
        // 39
        "actually one more thing is it ok to burn garden waste on site the rules dont say".into(),
        // 40
        "ok no bonfires then i will add it to the newsletter".into(),
        // 41
        "a few quick checks before i write the newsletter".into(),
        // 42
        "should i mention the petition or just fix the gate quietly".into(),
        // 43
        "thanks youve been more useful than the folder".into(),
    ];
    let facts = vec![
        // The first third (turns 0-14).
        fact(&["plots"], "42", 1),
        fact(&["padlock", "main gate"], "7319", 2),
        fact(&["full plot", "rent"], "£35", 4),
        fact(&["old secretary", "Maureen"], "Maureen Okafor-Hale", 5),
        fact(&["council", "Deshawn"], "0161 496 0732", 6),
        fact(&["key safe", "shed"], "0448", 9),
        fact(&["manure"], "Brogan", 11),
        fact(&["sort code", "bank"], "08-92-99", 14),
        // The rest.
        fact(&["polytunnel"], "3 metres by 2", 18),
        changed(&["water"], "7th of november", "31st of october", 20),
        fact(&["cakes"], "gráinne", 22),
        fact(&["insurance", "NFU"], "HAA-7724190", 28),
        fact(&["open day"], "21st of september", 22),
        fact(&["skip"], "£240", 34),
        fact(&["maintenance fund"], "£1,180", 37),
    ];
    let quiz = vec![
        Question {
            ask: "what's the number for the lock on the front gate?",
            fact: 1,
        },
        Question {
            ask: "how much does a full plot cost per year?",
            fact: 2,
        },
        Question {
            ask: "who did the secretary job before me?",
            fact: 3,
        },
        Question {
            ask: "what's the phone number for the man at the council?",
            fact: 4,
        },
        Question {
            ask: "what's the code to get the tool shed key?",
            fact: 5,
        },
        Question {
            ask: "what's the association's sort code?",
            fact: 7,
        },
        Question {
            ask: "when does the water get switched off this year?",
            fact: 9,
        },
        Question {
            ask: "what's our insurance policy number?",
            fact: 11,
        },
        Question {
            ask: "how much money is left in the maintenance fund?",
            fact: 14,
        },
    ];
    Scenario {
        name: "allotment",
        locked: "Plot rents stay the same this year: no increase until the AGM votes on it",
        turns,
        facts,
        quiz,
    }
}
