//! `marathon` (#35): two months of renovating a flat in Leipzig, told in one long,
//! wandering chat of 62 turns — tradespeople, orders, codes, house rules, a budget, with
//! small talk, side questions, rants and long pastes (a quote, a letter from the property
//! management, a forum post, a kitchen plan, a to-do list) between. Ten of its sixteen
//! facts come in the first third; after it the person's own text alone is longer than a
//! 4096-token window, so plain truncation has nothing of the first third left at the end,
//! whatever the replies. One late correction (moving day). Eight of ten questions ask
//! about the first third, one in other words ("building management" for the
//! Hausverwaltung). Its filler is its own, not the stretched scenarios' side questions.

use super::{Question, Scenario, changed, fact};

/// The plumber's quote, pasted whole: long, and nothing in it to keep.
const QUOTE: &str = "ok here's the quote from the plumber so you can tell me if I'm being ripped off, \
copied straight from the pdf:\n\
Item 1 - Dismantling of existing kitchen water supply and drainage, disposal of old pipework\n\
Item 2 - Supply and installation of new supply lines (composite pipe 16 mm) from the riser \
to the new sink position, approx. 4.5 metres, including fittings and insulation\n\
Item 3 - New waste pipe DN 50 to the new sink position with the required fall, including \
core drilling through one interior wall\n\
Item 4 - Connection of dishwasher (supply and waste), connection of sink mixer tap (tap \
supplied by customer)\n\
Item 5 - Pressure test of the new installation and documentation\n\
Item 6 - Travel costs, site setup, protection of floors in the stairwell\n\
Item 7 - Removal and disposal of the old gas water heater in the kitchen (disconnected \
and capped by a licensed gas fitter, not included, to be arranged by the customer)\n\
Item 8 - Making good of wall openings after pipework, rough plaster only, no painting\n\
Item 9 - Optional: replacement of the main shut-off valve in the flat, recommended given \
its age, price on request after inspection\n\
Not included: tiling, electrical work, carpentry, any work caused by hidden defects such as \
corroded pipes inside walls or ceilings, which will be charged by time and material.\n\
Note: any work on the riser itself must be approved by the property management. Prices \
valid for 4 weeks. Payment within 14 days of invoice, no discount.\n\
the 'protection of floors in the stairwell' line made me laugh, have you SEEN our stairwell";

/// The property management's letter, pasted whole: long, and nothing in it to keep.
const LETTER: &str = "got a letter from the property management, pasting it bc it's so \
passive aggressive I need a second opinion:\n\
Dear residents, we would like to remind all parties that renovation work in the building \
is subject to the house rules and to the conditions of the lease. In particular: noise \
must be kept to a minimum; construction waste may not be left in the stairwell, the \
courtyard or next to the household waste containers, not even for a short time; the lift \
is not to be used for transporting building materials without prior agreement and the \
protective wall mats in place; the main water supply may only be shut off after giving \
all residents 48 hours written notice; any work affecting the load-bearing structure, the \
risers, the facade or the windows requires our prior written consent. We have received \
complaints about dust in the stairwell and kindly ask all residents to take this \
seriously. Residents who fail to observe these rules may be held liable for any \
resulting costs. P.S. We would also like to point out that bicycles may only be parked in \
the bicycle room in the courtyard and not in the entrance hall, that the attic is not a \
storage space for furniture, and that the cellar compartments must be kept locked at all \
times. The annual inspection of the smoke detectors will take place in the coming months; \
you will be informed of the date in good time and are asked to grant access or to leave a \
key with a neighbour. Kind regards, your property management.\n\
'not even for a short time' is 100% about me and the two bags of old tiles I left by \
the bins for like an hour";

/// A forum post the person found, pasted whole: long, and nothing in it to keep.
const FORUM: &str = "found this on a diy forum about levelling the floor before the \
parquet goes down, is this guy right?\n\
\"Self-levelling compound is great but people get it wrong all the time. First: prime the \
subfloor, always, or the compound dries out too fast and cracks. Second: mix it properly, \
with a paddle on a drill, and use exactly the water it says on the bag, not a splash \
more because it 'feels thick'. Third: you have maybe 15-20 minutes of working time, so \
have everything ready, buckets lined up, someone mixing while you pour. Fourth: use a \
spiked roller to get the air out. Fifth: don't walk on it for a day and don't lay \
anything on it until it is properly dry, which for a thick layer can be a week or more, \
check the bag. Also edge strips around the walls or it will bond to the walls and crack \
when the building moves. And if your dip is more than a couple of centimetres deep, \
honestly get a pro, a bad pour is far more work to fix than a good one.\"\n\
and someone replied under it: \"All true, but for old floorboards you usually don't want \
compound at all. Boards move with the seasons and the compound doesn't, so it cracks \
anyway. Screw down the loose boards, plane or sand the high spots, and if it has to be \
flatter for click parquet use fibreboard underlay sheets or, for bigger dips, a dry screed \
system with loose fill. It's more work up front but it stays quiet and it lets the old \
floor breathe. Also check the joists while the boards are up, in buildings from before the \
war you find all kinds of creative repairs down there.\"\n\
the 'someone mixing while you pour' bit means I need to bribe a friend with pizza again";

/// The kitchen planner's list, pasted whole: long, and nothing in it to keep.
const KITCHEN_PLAN: &str = "pasting the item list from the kitchen planner, can you \
check if anything's obviously missing? I don't trust myself:\n\
- base cabinet 60 cm with two drawers x3\n\
- base cabinet 80 cm for the sink, with a bin pull-out\n\
- base cabinet 60 cm for the dishwasher (integrated, the dishwasher itself is ours)\n\
- corner base cabinet with carousel (I hate carousels but Miri insists)\n\
- tall cabinet 60 cm for the oven and microwave\n\
- tall cabinet 60 cm for the fridge, integrated\n\
- wall cabinets 60 cm x4, one with a lift-up door over the hob\n\
- extractor fan, recirculating (no way to vent outside in our building)\n\
- worktop oak effect laminate, 2 pieces, cut to size, plus the joint strip\n\
- plinth, cover panels for both ends, handles x14 (the black ones)\n\
- sink, single bowl with drainer, and the tap from the other shop\n\
- hob, induction, 4 zones\n\
and the notes I wrote under it: the fridge we have is too wide for the integrated cabinet \
so it goes to Miri's brother, the oven from the old flat comes with us, the dishwasher is \
two years old and fine, the extractor needs its own socket above the wall cabinets which \
the electrician has to know about before he closes the walls, and the sink has to sit under the \
window because that's where the pipes will be.\n\
I keep thinking we forgot lighting under the wall cabinets but maybe that's a later problem";

/// The person's to-do list, pasted whole: long, and nothing in it to keep.
const TODO: &str = "current to-do list, pasted from my notes app, in no order whatsoever:\n\
- sand the hallway floor (needs the big sander, not the little one)\n\
- fill the holes where the old shelves were in the bedroom\n\
- decide on a light for the hallway, Miri wants the paper one\n\
- ask about the radiator in the bathroom, it gurgles like a drain\n\
- buy more masking tape, we always run out\n\
- change the address at the bank, insurance, work, the gym I never go to\n\
- sort out parking permit for the new street\n\
- the bedroom door doesn't close, plane it or just accept it\n\
- silicone around the bath, the old stuff is black\n\
- find out where the fuse for the balcony socket is\n\
- book the window cleaner for after all the dust\n\
- actually go to the dentist at some point, unrelated but it's on the list\n\
- return the tile spacers we didn't use, there's like three bags\n\
- cancel the electricity contract at the old flat and read the meter on the last day\n\
- ask Miri's brother if he still has the trailer for the old sofa\n\
- find the paperwork for the old washing machine, it might still be under warranty\n\
- clean the paint brushes properly for once instead of letting them turn into sticks\n\
my notes app is basically a cry for help at this point";

pub(super) fn marathon() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "we got the keys to the flat today 🎉 Leipzig, 3rd floor, old building, needs basically everything. total budget for the reno is €18,500 and not a cent more, Miri's words not mine".into(),
        // 1
        "ok where do people even start with this, walls first or floors first? my gut says walls but my gut also ate a whole stollen last christmas".into(),
        // 2
        "electrician's sorted at least, it's Branko, he did my sister's place and she won't shut up about how tidy he was. the electrician starts on the wiring next week".into(),
        // 3
        "is it normal that half the sockets in an old building aren't earthed? because that's what he said and he said it very calmly which was somehow worse".into(),
        // 4
        "ordered the bathroom tiles, grey ones, 14 boxes. the tile order number is FL-20931 in case they lose it, which they will".into(),
        // 5
        "random but whats the difference between tile adhesive and grout, I've been using the words interchangeably and the guy at the shop gave me a look".into(),
        // 6
        "house rules say drilling only until 18:00 on weekdays and never on sundays, and Frau Petrović downstairs WILL come up and knock, she already introduced herself with that info".into(),
        // 7
        "honestly she's sweet though, she gave us plums from her garden. do you think i should bring her something as a sorry in advance for the noise".into(),
        // 8
        "living room walls are going to be Skimming Stone, it's a Farrow & Ball colour, No. 241. Miri picked it, I said it looks like porridge, I lost".into(),
        // 9
        "how many coats does a dark-ish wall colour need over old white, roughly? the tin says 2 but tins lie".into(),
        // 10
        "kitchen delivery is on the 6th of March, between 7 and 11 in the morning, so one of us has to take the morning off".into(),
        // 11
        "lol I just realised we don't own a single screwdriver that isn't from a christmas cracker".into(),
        // 12
        "for the tradespeople: the front door code downstairs is 1953. I keep forgetting it myself which is embarrassing".into(),
        // 13
        "what's a decent cordless drill for someone who will use it a lot for 2 months and then twice a year forever after".into(),
        // 14
        "the Hausverwaltung contact is Mr. Haas at Krämer Immobilien, ext. 214, he's the one to call about anything to do with the risers or the water".into(),
        // 15
        "do landlords / property management people generally have to sign off on moving a kitchen sink? or is that a me problem".into(),
        // 16
        "the skip comes monday, booking ref CS-7734 with Container Schulz, it goes on the street in front so I need to put out signs".into(),
        // 17
        "how early do you have to put out no-parking signs for a skip? I've heard everything from 1 day to 2 weeks".into(),
        // 18
        "ok day 3 update: ripped out the carpet in the bedroom and there's beautiful old floorboards under it. also a newspaper from 1987. also something that was once a mouse".into(),
        // 19
        "plumber came by, Kowalczyk & Sohn, they quoted €2,380 to move the pipes for the new kitchen. sounds like a lot? no idea what normal is".into(),
        // 20
        "anyway I'm going to bed, my back hurts in places I didn't know I had".into(),
        // 21 — the first third ends here
        QUOTE.into(),
        // 22
        "ok that makes me feel better. the core drilling line is the bit that worries me, the kitchen wall is the one with the old chimney behind it and I have a feeling something weird lives in there. the previous owner left a note taped inside the kitchen cupboard that just says 'don't' in pencil, no context, nothing else, and I think about it every single night".into(),
        // 23
        "side question, completely unrelated: why do old buildings always smell the same? every Altbau stairwell I've ever been in smells like wet stone and someone else's soup. ours has an extra note of cigarettes from the 90s and fresh paint from us, which I guess is the smell of progress. the mail boxes downstairs still have three names on ours from people who moved out years ago, should I just take the old labels off or is there some rule about that too".into(),
        // 24
        "also the window in the bedroom doesn't close properly, there's a gap at the top you can feel the wind through. is that a seal thing or is the whole frame warped? it's the old wooden type with the two layers of glass and the little latch in the middle. I kind of love them tbh, they're original, but in january that gap is going to be a whole weather system in the bedroom and Miri already sleeps in socks and a hat".into(),
        // 25
        "measured the bathroom, the back wall is 2.35 wide, so the bath we wanted (1.70) fits with room for the little shelf thing Miri found, which is a relief bc she had already ordered it".into(),
        // 26
        "how do you get old wallpaper off when it's been painted over like five times? we tried the spray bottle thing and it just laughed at us. Miri scored it with the little spiky wheel thing first like the video said and it still didn't budge, there is a layer in there that I'm fairly sure is load-bearing wallpaper at this point".into(),
        // 27
        "ok the steamer worked. it's disgusting but it worked. under the wallpaper there was more wallpaper, under that was newspaper from the 1950s, I feel like an archaeologist".into(),
        // 28
        LETTER.into(),
        // 29
        "yeah I took the bags to the recycling centre, it's fine. but the lift thing is annoying, we're on the 3rd floor and everything is heavy. anyway do you think they can actually charge us for dust in the stairwell or is that just a threat. I'm not trying to be a bad neighbour, I swept the stairs twice on saturday, but a building this old makes its own dust even when nobody's touching it, I swear the walls just shed".into(),
        // 30
        "btw Frau Petrović has our spare key now, for deliveries when we're not there, she was delighted, I think she likes being in charge of things".into(),
        // 31
        "what's a good way to keep dust from going everywhere? we hung a sheet in the doorway but it just moves the dust around more artistically. everything in the flat has a fine grey coat on it now, the kettle, the windows, my eyebrows, and the one plant we brought over looks like it's been in a volcano".into(),
        // 32
        "Miri wants a rain shower in the bathroom. I want water pressure that doesn't make me cry. are those compatible in a 3rd floor flat in an old building or do we need a pump".into(),
        // 33
        "fun fact, I learned today that the previous owner painted the ceiling in the kitchen with something that is definately not ceiling paint, it peels off in sheets like sunburn. it's very satisfying and also probably bad for me. I spent an hour on a ladder peeling it off with a scraper and a podcast about the history of bridges and honestly it was the most relaxed I've been in weeks, which says a lot about the weeks".into(),
        // 34
        "should I be wearing a mask for that? it's just paint I think. the building is from 1908 though so who knows what's in the layers".into(),
        // 35
        FORUM.into(),
        // 36
        "ok so I'm doing the floor myself, the floor sander from the rental place is €64 a day, so it's happening in one weekend or I die trying".into(),
        // 37
        "which grit sequence do people use on old pine floorboards? the rental guy said 40-80-120 but he also called me 'chief' so I'm not sure he's a reliable source. he also tried to sell me a dust bag upgrade and a second set of pads 'just in case', and I bought both, because I am weak and he was very confident".into(),
        // 38
        "ok sanding is LOUD. did the first room. my ears are ringing and everything in the flat is covered in a fine layer of tree. Frau Petrović came up to 'see how it's going', which means to see what the noise was, and she stood in the doorway for ten minutes telling me how her husband did the floors in 1974 with a hand scraper and a bottle of schnapps, and honestly his floors probably looked better than mine will".into(),
        // 39
        "what finish for the floorboards, oil or lacquer? we have no pets and no kids but we do have me, and I drop things constantly. last week I dropped a full tin of paint on the landing, lid on thankfully, but the dent it left in the old boards is now a permanent feature we call 'the incident'".into(),
        // 40
        "we've got a date for the move at least, moving day is April 25, the movers are booked, Miri made a spreadsheet and colour coded it".into(),
        // 41
        "how do you pack a kitchen without wanting to burn it all down? we have so many mugs, where did all these mugs come from, I don't remember buying a single one. we counted and it's 31 mugs for two people, and Miri refuses to let go of the one with the chipped cat on it because it was a gift from her first job, so it's 31 mugs forever apparently".into(),
        // 42
        "the boiler is a Vaillant, no idea how old, the boiler has a sticker on it saying last serviced 2019 which feels like a bad sign".into(),
        // 43
        "how often should a gas boiler actually be serviced? once a year seems like a lot but what do I know, I just found out what a riser is three weeks ago. also the boiler makes a noise when it starts up like someone clearing their throat in a library, is that normal or is that the sound of money leaving".into(),
        // 44
        KITCHEN_PLAN.into(),
        // 45
        "ha yes, the end panels, I would have 100% forgotten those. and I'm putting under-cabinet lights on the list for 'future me', future me is going to be so tired".into(),
        // 46
        "side note, is it me or do all hardware stores play the same four songs on a loop? I've heard that one song about the summer of 69 more times this month than in my whole life before. and the guy in the paint section knows me by name now, which is either good customer service or a cry for help, and he has started recommending things to me before I ask, yesterday it was a special roller for textured walls, we don't have textured walls".into(),
        // 47
        "internet update: the fibre gets connected on the 20th of April, technician comes between 8 and 12. finally, the mobile hotspot is dying".into(),
        // 48
        "what's a sensible place to put the router in a long narrow flat? the connection box is at one end in the hallway, naturally. and the bedroom is at the other end behind two of those thick old walls, so right now the phone has one bar in bed and full signal standing in the hallway like an idiot".into(),
        // 49
        "ok mesh it is. here's what the comparison site says about the two I'm looking at, copied over, tell me if there's any real difference or if it's marketing:\n\
first one: tri-band mesh system, three units, covers up to 550 square metres, one dedicated 5 GHz band for the connection between the units, two gigabit ports on each unit, parental controls and a guest network in the app, automatic updates, no subscription needed for the basic features, the security package costs extra after the first year.\n\
second one: dual-band mesh system, two units, covers up to 370 square metres, the units talk to each other on the same bands the devices use, one gigabit port on each unit plus one on the main unit for the modem, works with the app of the same brand, supports the newer standard, slightly smaller units that look like air fresheners, cheaper by about a third.\n\
our flat is long and narrow, about 85 square metres, the walls are thick old brick and the connection box is at one end of the hallway. Miri says if I buy one more gadget for this flat she's moving in with Frau Petrović".into(),
        // 50
        TODO.into(),
        // 51
        "thanks. the parking permit one I keep putting off because the website looks like it was built in 2003 and wants me to print something. who has a printer in this year. I'm going to have to go to the copy shop on the corner, the one with the guy who always asks if I want it laminated, no Dieter, I don't want my parking permit application laminated".into(),
        // 52
        "oh, and the bathroom radiator: turns out it just needed bleeding. I feel like a plumbing genius now, I bled a radiator, someone give me a medal. it hissed, it spat a bit of brown water on my sock, and then the whole thing went quiet and warm from top to bottom, and I stood there holding the little key like I'd just defused a bomb. Miri filmed it for her mum".into(),
        // 53
        "can you explain why you need to bleed radiators in the first place? like where does the air come from, is it just in the water".into(),
        // 54
        "today I found a whole roll of wallpaper from the 70s in the cellar compartment that belongs to the flat, orange and brown flowers. Miri says absolutely not, I say feature wall. the cellar compartment also had two broken chairs, a box of jam jars with no lids, a sled, and a single ski boot, so either the previous owner had one leg or there's a story there I will never know. the sled stays, obviously".into(),
        // 55
        "bad news: the movers can't do the 25th after all, they double booked. moving day is now May 2, which means one more week of paying rent on two flats, great. Miri took it better than me, she just opened the spreadsheet, changed one cell, and said 'there, solved', which is how she deals with everything and I don't understand it at all".into(),
        // 56
        "how do you deal with the notice period on the old flat? can I ask the old landlord to let us out a week later or is that just not a thing".into(),
        // 57
        "ok here's what I wrote to the old landlord, is it too grovelling? I've already sent it so it's a bit late but I want to know:\n\
Dear Mr. Lindner, I hope you are well. As you know we gave notice on our flat and we are moving out at the end of the month. Unfortunately the removal company has had to move our date by a week at short notice, which we could not avoid. Would it be possible for us to hand over the keys one week later than planned? We would of course pay the rent for the extra days, and we will leave the flat in the condition agreed, with the holes filled and the walls painted white as before. We have been very happy in the flat for the last six years and are grateful for how quickly you always helped when something needed fixing, especially with the boiler two winters ago. If it suits you, we could also do the handover on a weekend so that you don't have to take time off. Many thanks in advance and kind regards.\n\
update: he said fine, he was weirdly nice about it. maybe because I told him on the phone the new flat has a 'porridge-coloured' living room and he laughed".into(),
        // 58
        "painting the living room this weekend. any tips for cutting in around the ceiling without tape? I watched a video of a guy doing it freehand and he made it look so easy, which means it isn't. I bought an angled brush that cost more than my first bike and a tiny bucket you hold in your hand, so if it goes wrong it's definitely not the equipment's fault".into(),
        // 59
        "update: cutting in without tape is not easy. the ceiling has a slight porridge border now. Miri says nobody will look up. I will look up. every day. forever".into(),
        // 60
        "ok I think I need to make a list of everything that's still open before the move, can you help me get my head straight, it's all a bit of a blur. the flat looks half finished and half like a building site and I can't tell anymore which half is winning, and every time I cross one thing off two new ones show up like some kind of mythical monster".into(),
        // 61
        "thanks, that helps. right, shower, then bed, then the same again tomorrow. cheers for keeping me sane through all of this".into(),
    ];
    let facts = vec![
        // The first third (turns 0-20).
        fact(&["budget", "reno"], "€18,500", 0),
        fact(&["electrician"], "Branko", 2),
        fact(&["tile order", "tiles"], "FL-20931", 4),
        fact(&["drilling"], "18:00", 6),
        fact(&["living room"], "Skimming Stone", 8),
        fact(&["kitchen delivery"], "6th of March", 10),
        fact(&["front door code", "front door"], "1953", 12),
        fact(&["hausverwaltung", "haas", "krämer"], "214", 14),
        fact(&["skip", "container schulz"], "CS-7734", 16),
        fact(&["plumber", "kowalczyk"], "€2,380", 19),
        // The rest.
        fact(&["back wall", "bathroom"], "2.35", 25),
        fact(&["spare key"], "Petrović", 30),
        fact(&["floor sander", "sander"], "€64", 36),
        fact(&["boiler"], "Vaillant", 42),
        fact(&["fibre"], "20th of April", 47),
        changed(&["moving day", "movers"], "May 2", "April 25", 55),
    ];
    let quiz = vec![
        Question {
            ask: "whats our total budget for the reno again",
            fact: 0,
        },
        Question {
            ask: "what was the electrician called, the one my sister used?",
            fact: 1,
        },
        Question {
            ask: "the tile shop is asking for my order number, which was it?",
            fact: 2,
        },
        Question {
            ask: "until when am I allowed to drill on a weekday? just the time",
            fact: 3,
        },
        Question {
            ask: "which colour did we pick for the living room walls",
            fact: 4,
        },
        Question {
            ask: "when is the kitchen being delivered?",
            fact: 5,
        },
        Question {
            ask: "front door code for the tradespeople?",
            fact: 6,
        },
        Question {
            ask: "what's the extension for the building management guy",
            fact: 7,
        },
        Question {
            ask: "how much is the floor sander a day",
            fact: 12,
        },
        Question {
            ask: "when's moving day now? just the date pls",
            fact: 15,
        },
    ];
    Scenario {
        name: "marathon",
        locked: "No load-bearing walls come out",
        turns,
        facts,
        quiz,
    }
}
