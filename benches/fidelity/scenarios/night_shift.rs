//! `night_shift`: a season of running a small village cricket club, typed late in the
//! evening after work — 66 turns of one-word replies, long rambles, league admin, teas
//! politics and match-day panics, with four pastes that hold nothing to keep (an email
//! from the league, an availability poll typed as a table, a scoring app's sync log, a
//! page of the league's wet-weather rules). Eleven of its seventeen facts come in the
//! first third, some in passing inside a long sentence, one in the preamble of a
//! question ("since the winter nets at St. Wilfrid's are booked under ref NX-3307, can
//! I…"). Names outside ASCII (Søren, Begoña, Wiśniewski, Jürgen), abbreviations inside
//! sentences ("St.", "Dr.", "approx."), amounts in words that are not facts ("twelve
//! quid"), and a time said both ways ("18:30 … half six"). Two corrections: the umpires'
//! fee ("£45 a game this season, not £40") and the Haworth fixture, said across two
//! sentences ("Remember the Haworth game I said was the 7th of June? Scrap that…").
//! After asking for a message to the team the person strikes what a model tends to add
//! to one: "there's no minibus". Eight of ten questions ask about the first third; seven
//! share no subject word with the turn that said the fact ("the clubhouse" for the
//! pavilion keys, "who looks after the pitch" for the groundsman, "the indoor lanes" for
//! the nets, "our medical person" for the first-aider).

use super::{Question, Scenario, changed, fact};

/// The league's email, pasted whole: long, and nothing in it to keep.
const LEAGUE_EMAIL: &str = "this came from the league tonight, pasting it so you can tell me \
what I actually have to DO, because I've read it twice and I'm none the wiser:\n\
Dear Club Secretaries,\n\
As we approach the new season we would like to remind all member clubs of their \
obligations under the League Rules. Player registrations must be completed on the \
online system no later than 48 hours before a player's first appearance; players \
appearing unregistered will result in the loss of all points from the match in \
question. Clubs are reminded that a registered player may not appear for more than one \
club in the same week. Team sheets must be submitted by the home club within 24 hours \
of the scheduled close of play, including matches that are abandoned or not started. \
Captains' reports on umpires and pitches are mandatory and must be submitted within \
three days. Clubs with junior sections must have a named welfare officer whose \
safeguarding certificate is in date, and must display the welfare officer's contact \
details in the pavilion. The Management Committee has also asked us to remind clubs \
that sledging of any kind will not be tolerated and that persistent offenders will be \
referred to the Disciplinary Sub-Committee. Finally, please ensure that sight screens, \
boundary markers and scoreboards are in good working order before the first home \
fixture, and that visiting teams have access to changing facilities and hot water. \
The AGM minutes are attached for information. Thank you for your continued support \
of local cricket.\n\
Yours in cricket,\n\
The League Secretary\n\
like, 'hot water' is doing a lot of work there, our shower has two settings, freezing \
and lava";

/// The availability poll, typed up as a table: long, and nothing in it to keep.
const AVAILABILITY: &str = "typed up the whatsapp poll for the first three saturdays, \
Y = yes, N = no, ? = Declan:\n\
name       | sat 1 | sat 2 | sat 3 | notes\n\
Declan     |   ?   |   Y   |   ?   | 'depends on the garden centre'\n\
Harpreet   |   Y   |   Y   |   N   | wedding on sat 3\n\
Søren      |   Y   |   Y   |   Y   | always Y, has never once said N\n\
Ravi       |   Y   |   ?   |   Y   | back 'a bit stiff'\n\
Owen       |   N   |   Y   |   Y   | stag do sat 1, god help us\n\
Kwame      |   Y   |   Y   |   Y   |\n\
big Tom    |   Y   |   N   |   Y   | working sat 2\n\
little Tom |   Y   |   Y   |   N   |\n\
Fergus     |   ?   |   ?   |   ?   | hasn't opened the poll\n\
Iñaki      |   Y   |   Y   |   Y   | new, from Bilbao, keeps wicket\n\
Marek      |   N   |   N   |   Y   | in Gdańsk visiting his mum\n\
me         |   Y   |   Y   |   Y   | as if I have a choice\n\
Fergus hasn't opened a single poll since 2019, I don't know why I keep putting him on it";

/// The scoring app's sync log, pasted whole: long, and nothing in it to keep.
const SYNC_LOG: &str = "the scoring app wouldn't upload saturday's game, this is what \
the 'details' button shows, does any of it mean anything to you?\n\
2025-05-03 13:02:11 INFO  session: device registered (tablet-2, app 4.18.2)\n\
2025-05-03 13:02:12 INFO  match: loaded fixture home v Wilsden, 2nd XI scorer mode\n\
2025-05-03 13:58:40 WARN  net: no connectivity, queueing ball-by-ball events\n\
2025-05-03 14:31:07 WARN  net: no connectivity, 212 events queued\n\
2025-05-03 16:45:19 INFO  match: innings break recorded\n\
2025-05-03 17:02:55 WARN  net: no connectivity, 389 events queued\n\
2025-05-03 18:21:30 INFO  match: result recorded, awaiting confirmation by both scorers\n\
2025-05-03 18:21:31 INFO  sync: attempting upload of 541 events\n\
2025-05-03 18:21:36 ERROR sync: upload rejected: 409 conflict (events out of order)\n\
2025-05-03 18:21:36 ERROR sync: retry 1 of 3 in 30s\n\
2025-05-03 18:22:06 ERROR sync: upload rejected: 409 conflict (events out of order)\n\
2025-05-03 18:22:06 ERROR sync: retry 2 of 3 in 60s\n\
2025-05-03 18:23:06 ERROR sync: upload rejected: 409 conflict (events out of order)\n\
2025-05-03 18:23:06 ERROR sync: giving up; local copy kept, export available\n\
2025-05-03 18:40:12 INFO  session: device locked\n\
the wifi in the pavilion reaches approx. as far as the kettle, so I'm guessing the \
'no connectivity' bit is the root of it";

/// A page of the league's wet-weather rules, pasted whole: long, and nothing in it to keep.
const RAIN_RULES: &str = "ok the forecast for saturday is grim so I dug out the league's \
wet weather rules, pasting the relevant bit:\n\
7.1 The decision whether the ground, weather or light is fit for play rests solely with \
the umpires. Where no umpires have been appointed, the decision rests jointly with the \
two captains.\n\
7.2 Where play has not started, the umpires shall inspect the ground at the scheduled \
start time and at intervals thereafter. If no play is possible by 16:00, the match \
shall be abandoned and each side shall receive the points for an abandoned match.\n\
7.3 Where play is interrupted, the number of overs shall be reduced by one over for \
every four minutes of playing time lost, subject to a minimum of twenty overs per side \
for a result to be possible.\n\
7.4 The home club shall make reasonable efforts to make the ground fit for play, \
including the use of covers where available. Failure to use available covers may be \
reported by the visiting captain.\n\
7.5 A home club that cancels a match on account of the weather before the umpires' \
inspection, without the agreement of the visiting club and the Fixtures Officer, shall \
forfeit the match.\n\
7.6 Teas shall be provided where play has started, regardless of the length of play.\n\
7.6 is the only rule Marta cares about and she will quote it at you";

pub(super) fn night_shift() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "right. so I've ended up fixtures secretary AND junior organiser for Calder Vale Cricket Club this season, on top of the day job. the AGM voted while I was out making the teas, which is how everyone at this club gets a job apparently. I'll be on here most nights once the kids are asleep, can you be my brain for the next few months".into(),
        // 1
        "first thing on the list Chris left me (old secretary, now 'retired' in Alicante, answers emails once a week if the wifi at the beach bar works): the league registration fee is £145 and it has to be in by the end of the month or we start on minus points. which would honestly be very on brand for us".into(),
        // 2
        "k paid. suspiciously easy".into(),
        // 3
        "since the winter nets at St. Wilfrid's are booked under ref NX-3307 for Tuesdays, can I tack a second lane on for the juniors or do I have to start a whole new booking? their booking site looks like it was built by someone who hates cricket".into(),
        // 4
        "lol no, they don't do phones. it's the portal or nothing".into(),
        // 5
        "ok so Chris sent me a voice note that was four minutes long, about thirty seconds of fixtures and the rest about his tomatoes, but the gist is we open the season away at Oakworth on the 26th of April, and I need eleven people who can hold a bat and right now I've got about seven and a half, the half being Declan, who is 'probably' free, which in Declan means he texts at twenty to one from a garden centre. how do other clubs get people to actually commit? we used to pin a paper sheet on the noticeboard but nobody reads it except the spiders".into(),
        // 6
        "right".into(),
        // 7
        "Søren Dahl has the pavilion keys, he opens up on match days and has done since approx. 1994, so don't even suggest a key safe, I tried that at the AGM and he looked at me like I'd proposed selling the roller. anyway what should a match-day checklist look like for a home game? stumps, balls, scorebook, what else".into(),
        // 8
        "juniors are Thursdays at 18:30 this year. so half six, not seven like last year, because the parents want them home and fed before it gets dark and I want to be home before I lose the will to live".into(),
        // 9
        "the league also insists every club names a qualified first-aider now, after whatever happened at Cullingworth last summer (nobody will tell me what happened at Cullingworth last summer). our first-aider is Dr. Begoña Ruiz, she's a GP and her son Nico plays in the under-13s so she's at the ground most weekends anyway. do I need her certificate number for the form or just her name?".into(),
        // 10
        LEAGUE_EMAIL.into(),
        // 11
        "tl;dr register people, send the team sheet, be nice. got it".into(),
        // 12
        "the groundsman is Tomasz Wiśniewski, he does the square at Jubilee Park and treats it like his firstborn. nobody on it before the 19th of April, not for a knock-about, not for photos, not for anything. is a square actually that delicate in spring or is he just being protective".into(),
        // 13
        "ha. fair enough".into(),
        // 14
        "teas. the most political subject at any cricket club. Marta runs the tea rota and the committee agreed the visitors' tea is £4 a head now, up from three, and you'd think we'd proposed selling the children. our own players just pay the twelve quid a month subs and that covers theirs. is four pounds a lot for sandwiches, a slice of cake and stewed tea from the urn?".into(),
        // 15
        "ok good. Marta will be thrilled, she already thinks we run a charity".into(),
        // 16
        "the league's fixtures officer is a Welshman called Gwilym Pryce who signs every email 'Yours in cricket' and I love him for it. Gwilym's mobile is 07700 914 262 but he says text first, he's a postie and can't pick up on his round. I might need to ask him about moving one of the June games, is it better to ask now or wait till it's closer?".into(),
        // 17
        "yeah makes sense".into(),
        // 18
        "ordered the new playing shirts from Hartley Sports tonight, fourteen of them with the sponsor on the front, the shirts order number is HS-40219 and they say three to four weeks, which means six. do I need to get a sponsor logo approved by the league or is that only a thing in the big leagues".into(),
        // 19
        AVAILABILITY.into(),
        // 20
        "so basically I have nine for the first game if Declan turns up and Ravi's back holds. what's the least embarrassing way to ask the second team captain to lend me two of his".into(),
        // 21
        "junior subs are £35 for the season this year, £25 for a second kid from the same family, and four parents have already asked if they can pay in instalments. can they? I don't see why not, I just don't want to be chasing someone for eight pounds seventy-five in August".into(),
        // 22 — the first third ends before this turn
        "night. more tomorrow probably".into(),
        // 23
        "back. I got my eleven! Harpreet's cousin is visiting from Leicester and apparently 'bowls a bit', which at this level means either he's played county second eleven or he once bowled at a coconut shy. either way he's in".into(),
        // 24
        "money question. umpires get £40 a game from the home club, cash, in an envelope, handed over in the car park like it's a drugs deal, which feels very 1970s but nobody wants to change it. does the treasurer actually need receipts for that or is an envelope and a signature enough".into(),
        // 25
        "lol".into(),
        // 26
        "there's a cup game as well, first round, away at Denholme on the Sunday after next. can you draft me a message for the team whatsapp with the basics? they only read the first two lines so put the important stuff up top".into(),
        // 27
        "nearly. if that draft has a minibus in it take it out, there's no minibus, there never has been, it's car-share like every away game. we meet at the Jubilee Park car park at 9:15 and whoever has the biggest boot takes the kit bag. and say whites, not 'appropriate clothing', Fergus once turned up in a football shirt".into(),
        // 28
        "perfect, sent".into(),
        // 29
        "rant incoming. the Oakworth game got rained off after eleven overs, which, fine, it's England in April, but I'd spent two evenings getting eleven people, Harpreet's cousin drove up from Leicester for eleven overs and a sausage roll, and then Oakworth's secretary emails me tonight to say their umpire 'lost' the scorecard so could I send ours. we don't have ours. our scorer was Iñaki, who is lovely and keeps wicket and was doing both at once on the tablet, and the tablet died in the rain. so now two clubs have no scorecard for a game that lasted eleven overs, and somewhere in a league office there's a form that needs it, and I am the person who has to explain this to Gwilym, who will be very kind about it, which is worse".into(),
        // 30
        "is there even a rule for a game with no scorecard? does it just count as abandoned?".into(),
        // 31
        "ok that's a relief. also put this in the diary: we're home to Haworth on the 7th of June, which is also my niece's christening, so I'll be making the teas in a fascinator".into(),
        // 32
        "the under-11s were brilliant tonight by the way. one of them, tiny kid called Zainab, asked if she could bowl 'the spinny ones' and then bowled Nico's dad with her second ball. he's going to be hearing about that at every barbecue until she's thirty. I need more drills for the little ones though, they lose interest the second they're standing still, any ideas that don't need more than one coach and a bag of tennis balls".into(),
        // 33
        SYNC_LOG.into(),
        // 34
        "right so it's basically the wifi. Kwame says he can put one of those mesh things in the pavilion if the club pays for it, he's 'in IT', which at this club means he can fix the printer".into(),
        // 35
        "k".into(),
        // 36
        "got the dates for the junior stuff: the under-11 festival is at Thornbury on the 15th of June, eight-a-side, everyone gets a medal whether they win or lose, which the parents love and the kids see straight through. I need to find out how many of ours can go, it's the same weekend as half the school sports days".into(),
        // 37
        "why do cricket balls go that weird dark red when they've been used in the wet? the ones in the kit bag look like they've been left in a pond".into(),
        // 38
        "today was long. I had a work thing until seven, got home, ate toast standing up, then spent two hours on the phone to parents about the festival. everyone wants their kid to play but nobody can drive them, and the ones who can drive want to know if there's parking, and I don't know if there's parking, I've never been to Thornbury, I don't know anyone who's been to Thornbury. Søren says he played there in 1998 and it was 'fine', which is the whole review. my partner says I've started saying 'right' before every sentence like a football manager and honestly he's not wrong".into(),
        // 39
        "right. lol. see".into(),
        // 40
        "correction on the umpires: it's £45 a game this season, not £40, the league put it up over the winter and nobody told me, so I've underpaid two umpires and I'm mortified. I'm going to send them the fiver each with a note. is a note weird? it feels less weird than a fiver on its own".into(),
        // 41
        "ha ok, note it is, and a biscuit".into(),
        // 42
        "dumb question but what's the actual difference between a declaration game and a limited overs game? we play 45 overs in the league but the friendlies are 'timed' and I nod along like I understand".into(),
        // 43
        "so if we're timed and the other side bats for three hours we just... stand there? that explains a lot about last August actually".into(),
        // 44
        "the roller's back from Ackroyd's, Jürgen fixed the clutch and charged £180 for the roller, which the treasurer says is fine and Tomasz says is daylight robbery, but Tomasz also thinks the square should be fenced off with barbed wire so I'm not taking financial advice from him".into(),
        // 45
        "do rollers actually need servicing every year? ours is older than me".into(),
        // 46
        RAIN_RULES.into(),
        // 47
        "so if it rains before the umpires turn up I can't just call it off myself. good to know, because I absolutely would have, I'd have called it off on thursday from my sofa".into(),
        // 48
        "update: it did not rain. it was 24 degrees and we lost by four wickets but Harpreet's cousin took three wickets and now wants to join, he's moving to Keighley in July for work. I've never been so happy about losing. there's a registration form though, is it the same one for someone who's played for another club this season? he had two games for some club in Leicester before he came up".into(),
        // 49
        "ok I'll ask Gwilym".into(),
        // 50
        "Remember the Haworth game I said was the 7th of June? Scrap that, they can't raise a side on the Saturday because of a wedding. Haworth have moved it to Sunday the 8th of June and Gwilym's signed it off, so the christening and the cricket are on different days, which is the first thing that's gone right all month".into(),
        // 51
        "do you think I can get away with doing teas in a fascinator anyway".into(),
        // 52
        "bad night. a parent emailed the whole committee (reply-all, of course) to complain that her son didn't get a bat at the under-13s game on sunday. he did get a bat. he was out second ball. I have the scorebook. but I can't say 'he was out second ball' to a parent, can I? I wrote four versions of a reply and they all sounded either like a lawyer or like me at 11pm, which is what I am. help me write something that's kind and factual and doesn't make her kid sound rubbish, because he isn't, he's eleven and he swings at everything".into(),
        // 53
        "that's good. softer on the second line maybe? she's not wrong that he's had fewer goes than some of the others, I just don't want to promise a batting order".into(),
        // 54
        "sent. she replied 'thanks for clarifying' which in parent means either 'fine' or 'war', I'll find out at training".into(),
        // 55
        "it was fine. she brought flapjack".into(),
        // 56
        "end of season already on the horizon somehow. presentation night is booked at the Fleece on Towngate, upstairs room, they want a deposit by the end of the month but they do a hot buffet and the landlord used to open the batting for us in the eighties, so we'd never get away with going anywhere else anyway".into(),
        // 57
        "what awards do clubs actually give at these things? we've always done batting, bowling, fielding and 'clubman of the year', which Søren has won eleven times, and I'd like a junior one or two that isn't just 'most improved'".into(),
        // 58
        "'best sledge of a parent by a child' is not an award I can give, tempting as it is".into(),
        // 59
        "random one, how do you clean a white cricket shirt that's got grass AND tea on it? asking for Harpreet's cousin, who dived for a catch on his first game, dropped it, and then sat on a slice of cake at tea. his words: 'it was a good day'".into(),
        // 60
        "thanks. he'll never do it but thanks".into(),
        // 61
        "ok I've been thinking about next year, which is mad because this year isn't over. the juniors went from eleven kids to twenty-six, half of them girls, and the adults are still scraping eleven together most weeks. I think we need a women's softball team, three of the mums have asked, Begoña says she'd play if she doesn't have to keep wicket, and the league runs a festival format that's only eight-a-side and forty minutes an innings. but I'm also already doing two jobs for this club and one for actual money. how do small clubs find more volunteers without just asking the same five people again".into(),
        // 62
        "the 'ask for one specific small job' thing is good. nobody says yes to 'can you help out', everybody says yes to 'can you do the raffle on the 20th'".into(),
        // 63
        "right, it's gone midnight again. I'm going to bed. I'll need a checklist for the last month of the season at some point, fixtures, umpires, presentation night, the lot, but not tonight".into(),
        // 64
        "morning! well, evening. well, it's tomorrow. ok can we do that checklist now, just the main things, I'll add the rest".into(),
        // 65
        "brilliant. that's the fridge door sorted. thanks for putting up with me all season".into(),
    ];
    let facts = vec![
        // The first third (turns 0-21).
        fact(&["registration"], "£145", 1),
        fact(&["nets", "st. wilfrid"], "NX-3307", 3),
        fact(&["oakworth", "open the season"], "26th of April", 5),
        fact(&["pavilion keys", "pavilion", "opens up"], "Søren", 7),
        fact(&["juniors", "junior training"], "18:30", 8),
        fact(&["first-aider", "first aider", "first aid"], "Ruiz", 9),
        fact(&["groundsman", "square"], "Wiśniewski", 12),
        fact(&["visitors' tea", "tea rota", "teas"], "£4", 14),
        fact(&["gwilym", "fixtures officer"], "07700 914 262", 16),
        fact(&["shirts", "hartley"], "HS-40219", 18),
        fact(&["junior subs"], "£35", 21),
        // The rest.
        fact(&["car park", "denholme"], "9:15", 27).rejecting("minibus"),
        fact(&["festival", "under-11"], "15th of June", 36),
        changed(&["umpire"], "£45", "£40", 40),
        fact(&["roller"], "£180", 44),
        changed(&["haworth"], "8th of June", "7th of June", 50),
        fact(&["presentation night", "presentation"], "Fleece", 56),
    ];
    let quiz = vec![
        Question {
            ask: "how much was the league registration again? Chris is asking if I paid the right amount",
            fact: 0,
        },
        Question {
            ask: "the sports centre wants the booking reference for the indoor lanes, what was it?",
            fact: 1,
        },
        Question {
            ask: "when was our first league game of the season meant to be? just the date",
            fact: 2,
        },
        Question {
            ask: "who do I ring if I can't get into the clubhouse on a saturday?",
            fact: 3,
        },
        Question {
            ask: "what time do the kids train on a thursday? just the time",
            fact: 4,
        },
        Question {
            ask: "if one of the kids takes a ball to the face, who's our medical person?",
            fact: 5,
        },
        Question {
            ask: "who looks after the pitch at Jubilee Park?",
            fact: 6,
        },
        Question {
            ask: "what's the mobile number for the league's fixtures bloke",
            fact: 8,
        },
        Question {
            ask: "how much do we pay the umpires per game now?",
            fact: 13,
        },
        Question {
            ask: "what time are we meeting for the Denholme cup game?",
            fact: 11,
        },
    ];
    Scenario {
        name: "night_shift",
        locked: "Juniors under 13 do not play in adult league matches this season",
        turns,
        facts,
        quiz,
    }
}
