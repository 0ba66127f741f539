//! `lab_notebook`: a second-year PhD student in a protein lab using the assistant as a
//! second lab notebook for a few weeks, typed at the end of long days — 66 turns of
//! "ok" and "ugh", notes-to-self, long rambles about failed westerns and ITC days, orders
//! for the lab manager, a shared confocal's booking, a supervisor who is away half the
//! month, and a conference abstract. Three pastes hold many numbers that are not facts
//! to keep: a plate reader's CSV export of a Bradford assay, a page of a column manual,
//! and an ITC fit's output. Twelve of its sixteen facts come in the first third, said the
//! ways people say them: mid-sentence in a ramble (the antibody dilution), in a
//! subordinate clause (the stock concentration "which came out at 3.2 mg/mL"), in
//! brackets (the imidazole's catalogue number), after a dash (the facility manager's
//! extension), as an item of a list inside prose (the grant code); with units (µL,
//! mg/mL, °C, rpm), a room ("Rm. B2.17"), an instrument ("the LSM 980"), names outside
//! ASCII (Zsófia Kertész, Nguyễn Văn Minh, Ólafur Sigurðsson) and abbreviations inside
//! sentences ("Prof.", "Rm.", "approx.", "e.g.", "ext."). Two corrections: the Merck
//! order number ("the number I gave you was the quote reference … the actual order
//! number is …") and the confocal slot, said across two sentences ("Remember I said my
//! confocal slot was Friday mornings? That was wrong…"). After asking for a protocol for
//! the rotation student, the person strikes what a model tends to add to a lysis buffer:
//! "there's no glycerol". Eight of ten questions ask about the first third; seven share
//! no subject word with the turn that said the fact ("the freezer" for "the -80", "who
//! signs off my expenses" for who approves the purchase orders, "the calorimeter" for
//! the ITC, "the funding box" for the grant code, "the microscope" for the confocal).

use super::{Question, Scenario, changed, fact};

/// The plate reader's export, pasted whole: long, and nothing in it to keep.
const PLATE_READER: &str = "plate reader export from this morning's Bradford, can you \
sanity-check the standard curve? I always get paranoid about the top standard:\n\
Plate ID,Bradford_HK_0214\n\
Reader,CLARIOstar Plus\n\
Wavelength (nm),595\n\
Temperature (C),25.1\n\
Well,Content,Conc (mg/mL),Raw,Blank corrected\n\
A1,Blank,0.000,0.452,0.000\n\
A2,Blank,0.000,0.448,0.000\n\
B1,Standard S2,0.125,0.561,0.111\n\
B2,Standard S2,0.125,0.569,0.119\n\
C1,Standard S3,0.250,0.663,0.213\n\
C2,Standard S3,0.250,0.671,0.221\n\
D1,Standard S4,0.500,0.842,0.392\n\
D2,Standard S4,0.500,0.836,0.386\n\
E1,Standard S5,0.750,0.987,0.537\n\
E2,Standard S5,0.750,0.979,0.529\n\
F1,Standard S6,1.000,1.104,0.654\n\
F2,Standard S6,1.000,1.121,0.671\n\
G1,Standard S7,1.500,1.262,0.812\n\
G2,Standard S7,1.500,1.249,0.799\n\
H1,Standard S8,2.000,1.331,0.881\n\
H2,Standard S8,2.000,1.347,0.897\n\
A4,Sample prep 8 1:10,,0.741,0.291\n\
A5,Sample prep 8 1:10,,0.733,0.283\n\
B4,Sample prep 8 1:20,,0.602,0.152\n\
B5,Sample prep 8 1:20,,0.611,0.161\n\
Fit,Quadratic,R^2,0.9957\n\
the S8 pair is always the flattest, I've never trusted it";

/// A page of the column's manual, pasted whole: long, and nothing in it to keep.
const COLUMN_MANUAL: &str = "pasting the bit of the column manual Aoife is going to ask \
about, so it's here when she does:\n\
Recommended flow rates: 1 mL/min for a 1 mL column, 5 mL/min for a 5 mL column.\n\
Binding buffer: 20 mM sodium phosphate, 0.5 M NaCl, 20-40 mM imidazole, pH 7.4.\n\
Elution buffer: 20 mM sodium phosphate, 0.5 M NaCl, 500 mM imidazole, pH 7.4.\n\
1) Wash out the ethanol with 5 column volumes of distilled water.\n\
2) Equilibrate the column with at least 5 column volumes of binding buffer.\n\
3) Apply the sample. Do not exceed a pressure of 0.5 MPa (5 bar) over the packed bed.\n\
4) Wash with binding buffer until the UV baseline is stable, typically 10-15 column volumes.\n\
5) Elute with a linear gradient of 0-100% elution buffer over 20 column volumes, or \
step-elute with 100% elution buffer.\n\
6) After use, wash with 5 column volumes of binding buffer and 5 column volumes of water, \
then store in 20% ethanol at 4 to 8 C.\n\
Note: the column can be used up to 5 times for the same protein before stripping and \
recharging with 0.1 M NiSO4. Reducing agents above 5 mM may reduce the nickel ions and \
turn the medium brown.\n\
Troubleshooting: high back pressure usually means particulates in the sample; centrifuge \
and filter through 0.22 or 0.45 um before loading.\n\
'usually means particulates in the sample' — yes, I know, I was there";

/// The ITC fit's output, pasted whole: long, and nothing in it to keep.
const ITC_FIT: &str = "the fit output, pasting it before I lose the USB stick again:\n\
MicroCal PEAQ-ITC Analysis Software 1.41\n\
Run: HK_ITC_002   Date: 24/02   Operator: HK / NVM\n\
Cell: PhoX 30 uM (200 uL)   Syringe: ligand 350 uM   T: 25.0 C   Stir: 750 rpm\n\
Injections: 19 (first 0.4 uL, then 2.0 uL), spacing 150 s, reference power 10 ucal/s\n\
Model: One set of sites\n\
N          0.94 +/- 0.03\n\
KD (uM)    4.8 +/- 0.9\n\
dH (kcal/mol)   -8.71 +/- 0.21\n\
-TdS (kcal/mol)  1.44\n\
dG (kcal/mol)   -7.27\n\
Reduced chi-sq   0.62\n\
Inj  Vol(uL)  DH(kcal/mol)  Ratio\n\
1    0.4      -9.81         0.05\n\
2    2.0      -8.92         0.28\n\
3    2.0      -8.87         0.51\n\
4    2.0      -8.79         0.74\n\
5    2.0      -8.55         0.97\n\
6    2.0      -7.96         1.19\n\
7    2.0      -6.71         1.41\n\
8    2.0      -4.93         1.62\n\
9    2.0      -3.12         1.83\n\
10   2.0      -1.87         2.03\n\
11   2.0      -1.09         2.23\n\
12   2.0      -0.71         2.42\n\
...\n\
19   2.0      -0.22         3.61\n\
the first injection is always junk and I always forget to tick 'exclude'";

pub(super) fn lab_notebook() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "hi. I'm a second-year PhD student in a protein biochem lab and my paper lab notebook is honestly a crime scene, so I'm going to use you as a second notebook for the next few weeks — experiments, orders, the instrument booking nightmare, my supervisor, a conference. mostly I'll just dump things on you at the end of the day when my brain is soup. ok?".into(),
        // 1
        "ok basics. my supervisor is Prof. Zsófia Kertész (everyone just calls her Zsófia, she physically winces at 'Prof.'), and Zsófia approves the purchase orders — anything over £50 goes through her before finance sees it, which is why my orders always take a week longer than everyone else's. she's lovely. she's also in Budapest half of every month.".into(),
        // 2
        "ugh, first western of the week tomorrow. 8am. fine.".into(),
        // 3
        "writing down where things live so I stop losing them: my purified PhoX aliquots are in the -80 in Rm. B2.17, top shelf, grey rack with the orange tape, box labelled 'HK PhoX', and the competent cells are in the same one but the door sticks, you have to lift it and then pull".into(),
        // 4
        "lol yes HK is my initials. very creative, I know".into(),
        // 5
        "small win: the PhoX stock from prep 7, which came out at 3.2 mg/mL on this morning's Bradford, is the best I've ever had, so nobody is touching it till the ITC — I'll make working dilutions off it and that's it. any tips for not wasting it?".into(),
        // 6
        "the western was a mess again. I loaded 20 µL per lane like Minh said, ran it at 120 V for 90 min, transfer looked fine on the Ponceau, and then the blot came out completely black, like someone had gone over it with a Sharpie, and Minh took one look and said the anti-His has to go at 1:500 and not 1:200 like the old protocol sheet on the wall says, apparently the new lot is way stronger and nobody ever updated the sheet, which is extremely this lab, and on top of that I'd only blocked for 30 min in milk because I was rushing to get to the seminar. so what else makes a western background that dark? I do not want to do this a third time".into(),
        // 7
        "right. block longer, fresh milk, more TBST washes. got it".into(),
        // 8
        "order list for Brenda (lab manager, she does the orders on Thursdays): more imidazole (Sigma I5513, the 500 g tub, we're down to the crust at the bottom), two HisTrap HP 5 mL columns, a roll of nitrocellulose, and fresh ECL, e.g. the Pierce one, because ours expired in 2023 and I suspect that's also why my blots look like modern art. anything else I'll need for four litres of prep next week?".into(),
        // 9
        "Brenda placed it! the Merck order number is 3017-664219, she says five working days, which at Merck is more of a personality than a promise".into(),
        // 10
        "what's a sensible way to aliquot a protein so it survives freeze-thaw? I've been doing 50 µL in PCR tubes and snap-freezing in liquid nitrogen, but Minh does 20 µL and swears by it".into(),
        // 11
        "booking saga. the imaging facility finally gave me a standing slot on the LSM 980 confocal — Friday mornings, 9 till 1 — so I can actually plan the localisation experiments instead of begging for cancellations at 7am. the booking system (iLab) is horrendous though, you have to click 'confirm' on an email every single week or it quietly releases your slot to someone else".into(),
        // 12
        "lysate clear-up, for future me: resuspend in lysis buffer, approx. 40 mL per litre of culture, sonicate 10 s on / 20 s off for 5 min at 40% amplitude on ice, then spin at 15,000 rpm for 45 min at 4 °C in the JA-25.50 rotor, then filter the supernatant through 0.45 µm before the column. Minh says I can skip the filter but last time I did, the column clogged, so, no.".into(),
        // 13
        "ok".into(),
        // 14
        "ugh, correction on the Merck thing: the number I gave you was the quote reference, not the order. Brenda just forwarded the confirmation and the actual Merck order number is 3017-664871 — the quote one is useless to their helpline apparently".into(),
        // 15
        "ITC is booked for the 24th. Minh — Nguyễn Văn Minh, the postdoc on the bench next to mine — is the ITC superuser, so he has to sign me off before I'm allowed to run it alone, and he's doing the first run with me. he is very patient and very precise and will definitely make me wash the cell five times".into(),
        // 16
        "the 24th of THIS month. so I have eleven days to make enough protein. fine. totally fine".into(),
        // 17
        "admin day. three things I keep having to look up, so writing them here once: 1) the grant code for anything bought on the BBSRC grant is BB/X014722/1, 2) the Fisher account is under Zsófia's name, not mine, 3) the departmental stores cost centre is 50213, only for gloves and tips, don't ask me why it's different. the amount of my life that goes on codes".into(),
        // 18
        "does the research council actually care what I spend the consumables money on, or is it all just 'research costs' as one blob?".into(),
        // 19
        "conference! Zsófia wants me to submit to the Gordon conference on phosphatases in July, and the abstract is due on the 3rd of March, 250 words max — she wants a draft a week before that, which realistically means she'll read it the night before in an airport lounge".into(),
        // 20
        "the imaging facility manager is Ólafur Sigurðsson — ext. 4471 if the LSM 980 throws a laser error, which it does roughly weekly — and he's the one who sorted out my slot, so he is getting biscuits".into(),
        // 21
        "expression notes so I stop asking Minh: grow to OD 0.6, induce with 0.5 mM IPTG, then overnight at 18 °C, 200 rpm. at 37 it all ends up in inclusion bodies, I learned that the hard way in first year".into(),
        // 22 — the first third ends before this turn
        "ok sleep".into(),
        // 23
        PLATE_READER.into(),
        // 24
        "yeah the top standard is always a bit flat. my samples were in the middle of the curve anyway".into(),
        // 25
        "lab meeting rant. Zsófia wants 'a clear story' for the Gordon abstract and my story right now is 'the protein exists and sometimes it binds things'. how do you write an abstract when the key experiment hasn't happened yet?".into(),
        // 26
        "lol. 'preliminary data suggest' doing a lot of heavy lifting there".into(),
        // 27
        "can you write me a one-page protocol for the Ni-NTA purification that I can give to the rotation student (Aoife, starts Monday)? lysis, clear-up, column, elution, the bits I've told you about".into(),
        // 28
        "nearly. take the glycerol out though, there's no glycerol in my lysis buffer, there never has been, the protein crashes out with it. the lysis buffer is 50 mM Tris pH 8.0, 300 mM NaCl, 20 mM imidazole, plus one protease inhibitor tablet per 50 mL. and put 'ask Hana' at the top, not 'ask your supervisor', Aoife is already terrified of Zsófia".into(),
        // 29
        "sent to Aoife 👍".into(),
        // 30
        "why does imidazole absorb at 280 anyway? it makes my elution peaks look enormous".into(),
        // 31
        "ok that makes sense, I'll blank with the elution buffer from now on".into(),
        // 32
        COLUMN_MANUAL.into(),
        // 33
        "so basically what I already do, but slower. noted".into(),
        // 34
        "ITC day was today. long one. Minh came in at 8 to show me how to clean the cell, we degassed everything, the first titration looked like a seismograph because I'd left a tiny bubble in, we cleaned it all again, and the second run was actually beautiful, a proper sigmoid, Kd somewhere in the low micromolar, which is exactly what Zsófia predicted in my first week, so she'll be unbearable about it. I have never been so happy to be predictable. then I dropped my USB stick in the sink. the data's fine. I'm not.".into(),
        // 35
        "ugh".into(),
        // 36
        ITC_FIT.into(),
        // 37
        "so low micromolar, like she said. I'll take it".into(),
        // 38
        "Zsófia's reply to the ITC data: 'Good. Now do it three times.' that's the whole email".into(),
        // 39
        "how many replicates is actually standard for ITC in a paper?".into(),
        // 40
        "fair. three it is".into(),
        // 41
        "Remember I said my confocal slot was Friday mornings? That was wrong, or rather it was right until this afternoon. Ólafur emailed that a new group has bought priority time, so my LSM 980 slot is Tuesday afternoons from next week on, 2 till 6, same weekly confirm-or-lose-it rule".into(),
        // 42
        "which is annoying because that's exactly when lab meeting is. so now I skip lab meeting or skip the microscope. guess which one Zsófia will want me to skip".into(),
        // 43
        "ok".into(),
        // 44
        "bad day. someone turned off the shaker in the warm room overnight — not maliciously, they needed the plug for a water bath and didn't look at what they were unplugging — so my four litres sat there at room temperature doing nothing for eleven hours and the ODs this morning were basically where I left them. I re-inoculated, it's growing now, but that's two days gone, and I had to tell Minh the ITC replicates are slipping, and he was nice about it, which somehow made it worse. and then at lunch someone from the other lab asked if I was 'still doing that phosphatase thing', like it's a hobby. I'm going to put a sign on the shaker plug. a big one. laminated.".into(),
        // 45
        "how do people deal with shared equipment politics without becoming the lab villain?".into(),
        // 46
        "the 'write it on the whiteboard, not a passive-aggressive email' rule is good. stealing it".into(),
        // 47
        "Gordon news: the abstract got accepted as a poster!! I'm poster P-117, session B on the Wednesday evening, and the boards are 1 m wide by 2 m tall, portrait, so none of my landscape templates work".into(),
        // 48
        "what makes a poster people actually stop at?".into(),
        // 49
        "less text. yes. I know. I am physically incapable".into(),
        // 50
        "money news: the Biochemical Society travel grant came through, £400, which covers the registration and maybe half the flight if I book it this week, and Zsófia says the lab budget covers the rest".into(),
        // 51
        "booked! the cheap one with a layover in Reykjavík, which Ólafur says is 'a very good airport', which is the most Icelandic review possible".into(),
        // 52
        "random one: why does my pipette sometimes leave a drop on the outside of the tip?".into(),
        // 53
        "pre-wetting. ok, will try".into(),
        // 54
        "long day again, but a good one for once. Aoife ran her first prep on her own with the protocol and it worked first time — clean elution, one big peak, a single band on the gel at the right size — which means either the protocol is good or she's a better scientist than me, and honestly probably the second. she asked very sensible questions about the imidazole in the wash and then went off and read about it without being told, which I did not do in my rotation, I just nodded. Zsófia walked past while we were looking at the gel and said 'nice' and kept walking, which from her is basically a standing ovation. I'm going to ask if Aoife can help with the replicates, if she picks the lab.".into(),
        // 55
        "is it weird to ask a rotation student to help with my stuff? I don't want to be that PhD student".into(),
        // 56
        "do you know anything about shipping protein to a collaborator in Kraków? they want some for crystallisation trials".into(),
        // 57
        "the courier forms sound like a nightmare, Brenda will know".into(),
        // 58
        "my thesis committee meeting got scheduled for the week after the conference, which is either great timing (fresh data, poster already made) or a disaster (jet lag). Zsófia says great timing. Zsófia is not the one with jet lag.".into(),
        // 59
        "lol".into(),
        // 60
        "can we do a to-do list for the next two weeks? ITC replicates, poster, committee report, the defrost rota, all of it".into(),
        // 61
        "add 'buy Ólafur biscuits', I promised and I keep not doing it".into(),
        // 62
        "ugh, the alarm on the -80 went off at 3am and security rang me because my name's on the sticker. it was the door. someone had left it ajar. everything is fine. I am not fine.".into(),
        // 63
        "going to bed. tomorrow I'm quizzing myself on my own notebook, so I know what I actually remember".into(),
        // 64
        "morning. right, before I write the committee report I want to double-check a few things with you".into(),
        // 65
        "thanks, that's everything for now".into(),
    ];
    let facts = vec![
        // The first third (turns 0-21).
        fact(&["purchase order", "approves", "signs off"], "Zsófia", 1),
        fact(&["-80", "freezer"], "B2.17", 3),
        fact(&["stock", "prep 7"], "3.2", 5),
        fact(&["anti-his", "antibody", "western"], "1:500", 6),
        fact(&["imidazole"], "I5513", 8),
        fact(&["spin", "lysate", "centrifuge"], "15,000", 12),
        changed(&["merck", "order number"], "3017-664871", "3017-664219", 14),
        fact(&["itc", "superuser", "calorimeter"], "Minh", 15),
        fact(&["grant code", "bbsrc"], "BB/X014722/1", 17),
        fact(&["abstract", "gordon"], "3rd of March", 19),
        fact(&["ólafur", "imaging facility"], "4471", 20),
        fact(&["induce", "induction", "overnight"], "18", 21),
        // The rest.
        fact(&["lysis buffer", "nacl"], "300", 28).rejecting("glycerol"),
        changed(&["confocal", "lsm 980", "slot"], "Tuesday", "Friday", 41),
        fact(&["poster"], "P-117", 47),
        fact(&["travel grant", "biochemical society"], "£400", 50),
    ];
    let quiz = vec![
        Question {
            ask: "who signs off my expenses when I want to buy something?",
            fact: 0,
        },
        Question {
            ask: "which room is the freezer with my protein in?",
            fact: 1,
        },
        Question {
            ask: "what dilution am I meant to use for the primary now that the new lot is stronger?",
            fact: 3,
        },
        Question {
            ask: "what's the catalogue number for the imidazole again? Brenda's reordering",
            fact: 4,
        },
        Question {
            ask: "the Merck delivery still hasn't come, what's the order number I should quote to them?",
            fact: 6,
        },
        Question {
            ask: "who do I go to when the calorimeter does something weird?",
            fact: 7,
        },
        Question {
            ask: "what do I write in the funding box on an order form?",
            fact: 8,
        },
        Question {
            ask: "when is the conference submission due?",
            fact: 9,
        },
        Question {
            ask: "what day am I on the microscope now?",
            fact: 13,
        },
        Question {
            ask: "what's in my lysis buffer again? making it up fresh for Aoife",
            fact: 12,
        },
    ];
    Scenario {
        name: "lab_notebook",
        locked: "All raw data goes on the lab server the same day, never only on a USB stick",
        turns,
        facts,
        quiz,
    }
}
