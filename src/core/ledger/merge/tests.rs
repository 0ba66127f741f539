//! What merging keeps, replaces and leaves standing, one chat shape per test.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::core::ledger::lines::{texts, user};
use crate::core::ledger::mend::changed_in_place;

mod by_name;
mod said_otherwise;

#[test]
fn a_value_said_after_taking_back_the_old_one_replaces_it() {
    use crate::core::ledger::extract;
    // The take-back in its own sentence, the new value in the next.
    let mut lines = extract(
        "the imaging facility gave me a standing slot on the LSM 980 confocal — Friday mornings, 9 till 1.",
        true,
    );
    lines.extend(extract(
        "Remember I said my confocal slot was Friday mornings? That was wrong, or rather it was right until this afternoon. Ólafur emailed that a new group has bought priority time, so my LSM 980 slot is Tuesday afternoons from next week on.",
        true,
    ));
    let slots = merge(&lines);
    let merged = texts(&slots);
    assert!(merged.iter().all(|l| !l.contains("Friday")), "{merged:?}");
    assert!(merged.iter().any(|l| l.contains("Tuesday")), "{merged:?}");
    // "the actual … is": the value said right this time.
    let orders = merge(&[
        user("the Merck order number is 3017-664219, she says five working days"),
        user("Brenda forwarded the confirmation and the actual Merck order number is 3017-664871"),
    ]);
    let merged = texts(&orders);
    assert!(merged.iter().all(|l| !l.contains("664219")), "{merged:?}");
}

#[test]
fn a_change_said_beside_the_old_value_keeps_the_rest_of_its_line() {
    let plan = user(
        "plan for the backoff: cap the backoff at 300 seconds, give up after 8 attempts and park it",
    );
    let change = user(
        "Priya says 300 seconds is too long. So the backoff cap is now 120 seconds, changed and re-pushed",
    );
    let merged = merge(&[plan, change]);
    assert!(
        merged
            .iter()
            .any(|l| l.text.contains("8 attempts") && l.text.contains("120 seconds")),
        "{merged:?}"
    );
    assert!(
        !merged
            .iter()
            .any(|l| l.text.contains("cap the backoff at 300"))
    );
}

#[test]
fn a_later_clause_or_a_shared_because_ties_no_line_to_another() {
    let chip = user(
        "she needs a rabies shot at least 21 days before travel and her microchip number is 620098100453217, writing it here because the vet form is in Portuguese",
    );
    let start = user("update from HR, start date moved to 8 September because Åse is away");
    let merged = merge(&[chip, start]);
    assert!(
        texts(&merged).iter().any(|l| l.contains("620098100453217")),
        "{merged:?}"
    );
    // A "now" after the value that opens another clause is not said of it.
    let rent = user("rent for a full plot is £35 a year and half plots are £20");
    let fox = user(
        "a fox got into the chicken run on plot 30 and now there is a petition about the gate",
    );
    let merged = merge(&[rent, fox]);
    assert!(
        texts(&merged).iter().any(|l| l.contains("£35")),
        "{merged:?}"
    );
}

#[test]
fn a_change_that_names_no_old_value_mends_the_one_it_can_only_mean() {
    let has = |merged: &[LedgerLine], all: &[&str], none: &str| {
        merged
            .iter()
            .any(|l| all.iter().all(|w| l.text.contains(w)) && !l.text.contains(none))
    };
    // One amount in the older line: the new one takes its place, the rest stays.
    let trip = user(
        "Maya's class is going to Newgrange on the 14th of November, the trip is €18 and they're back at the school by 17:15",
    );
    let dearer = user("update on the trip, it's €20 now, the bus company put the price up");
    let merged = merge(&[trip.clone(), dearer.clone()]);
    assert!(has(&merged, &["€20", "17:15", "14th"], "€18"), "{merged:?}");
    // A take-back opening the sentence, the old value said again beside the new one.
    let again = user(
        "actually scrap the earlier trip price, the school texted: the €20 didn't include the entry fee, so it's €22 all in",
    );
    let merged = merge(&[trip, dearer, again]);
    assert!(
        has(&merged, &["€22", "17:15", "Newgrange"], "€20"),
        "{merged:?}"
    );
    assert!(
        !texts(&merged).iter().any(|l| l.contains("€18")),
        "{merged:?}"
    );
    // Several people's values: the one after the name both lines hold.
    let sizes = user(
        "shoe sizes for the record because I always guess: Maya 31, Leo 28 and Aoife's still a 26",
    );
    let grew = user("oh and Leo's feet grew AGAIN, he's a 29 now, the 28s pinch apparently.");
    let merged = merge(&[sizes, grew]);
    assert!(
        has(&merged, &["Maya 31, Leo 29 and Aoife's still a 26"], "28,"),
        "{merged:?}"
    );
    // The value is written where it stands as a value, not inside another word.
    let key = Parsed::new(&user("desk A12 has the key for locker 12, ask Frau Berger"));
    let moved = Parsed::new(&user("the locker is 14 now"));
    assert_eq!(
        changed_in_place(&moved, &key).as_deref(),
        Some("desk A12 has the key for locker 14, ask Frau Berger")
    );
    // Two amounts and nothing to tell them apart: no guess is written in.
    let venue = user("the hall costs €300 and the caterer is €450, both paid in March");
    let up = user("update on the venue: it's €500 now");
    let merged = merge(&[venue, up]);
    assert!(
        !merged
            .iter()
            .any(|l| l.text.contains("€500")
                && (l.text.contains("hall") || l.text.contains("caterer"))),
        "{merged:?}"
    );
}

#[test]
fn a_change_mends_the_value_of_its_unit_or_of_its_head_and_a_name_says_no_change() {
    // A line that opens with the name (no value there) meets the change said of it,
    // and of two doses the one in the new value's unit is lowered.
    let label = user("Metacam 1.5 mg/ml: 2.4 ml once a day with food");
    let vet = user("his vet, Dr. Okonkwo at Riverside Vets, has put him on new meds.");
    let lower = user("The vet rang: Metacam goes down to 2.0 ml from today.");
    let merged = merge(&[label, vet.clone(), lower]);
    assert!(
        texts(&merged).contains(&"Metacam 1.5 mg/ml: 2.0 ml once a day with food"),
        "{merged:?}"
    );
    // "Now" in a name is no change: the out-of-hours vet replaces nothing.
    let night = user("the out of hours vet is Vets Now in Kingsmead, 01632 960 418.");
    let merged = merge(&[vet.clone(), night.clone()]);
    assert_eq!(merged, [vet, night]);
    // In German, of two dates the one said of the roofer moves.
    let roof = user("Das Gerüst steht ab dem 10.04. und der Dachdecker kommt am 14.04.");
    let later = user("Korrektur: der Dachdecker kommt erst am 28.04., sein Kollege ist krank.");
    let merged = merge(&[roof, later]);
    assert!(
        texts(&merged)
            .contains(&"Das Gerüst steht ab dem 10.04. und der Dachdecker kommt am 28.04."),
        "{merged:?}"
    );
    // In Spanish: "no 110" and "en vez de" name the replaced value, and "las" ties
    // the bus to nothing ("la ceremonia empieza a las 18:30" stays).
    let day = user("la boda es en la finca Los Almendros y la ceremonia empieza a las 18:30.");
    let guests = user("Vamos a ser 110 invitados, más o menos la mitad de cada familia.");
    let more = user("Perdona, me equivoqué: somos 120 invitados, no 110.");
    let bus = user("El autobús al final sale a las 17:45, que la ceremonia se retrasa.");
    let merged = merge(&[day.clone(), guests, more.clone(), bus.clone()]);
    assert_eq!(
        merged.iter().filter(|l| !l.corrects).count(),
        2,
        "{merged:?}"
    );
    assert!(texts(&merged).contains(&day.text.as_str()), "{merged:?}");
    assert!(
        !texts(&merged).iter().any(|l| l.starts_with("Vamos")),
        "{merged:?}"
    );
    // "statt" names the replaced value.
    let budget = user("Wir haben insgesamt 85.000 € Budget, davon 12.000 € Zuschuss.");
    let raised = user("die Bank hat aufgestockt, das Budget ist jetzt 92.000 € statt 85.000 €.");
    let merged = merge(&[budget, raised]);
    assert!(
        !texts(&merged).iter().any(|l| l.contains("85.000 € Budget")),
        "{merged:?}"
    );
}

#[test]
fn lines_sharing_only_a_name_or_a_paste_do_not_replace_each_other() {
    let fee = user(
        "Chris left me the list: the league registration fee is £145 and it has to be in by the end of the month.",
    );
    let note = user(
        "Chris sent a voice note, we open the season at Oakworth on the 26th of April and right now I've got 7 players.",
    );
    let mobile = user("Gwilym's mobile is 07700 914 262 but he says text first.");
    let moved = user("Haworth have moved it to Sunday the 8th of June and Gwilym's signed it off.");
    let mut rules = user(
        "7.3 Where play is interrupted, overs are reduced by one for every four minutes lost.",
    );
    rules.listed = true;
    let merged = merge(&[fee.clone(), note.clone(), mobile.clone(), moved, rules]);
    for kept in [&fee, &note, &mobile] {
        assert!(
            merged.iter().any(|l| l.text == kept.text),
            "{} left: {merged:?}",
            kept.text
        );
    }
}

#[test]
fn a_later_value_replaces_an_earlier_one() {
    let lines = vec![
        user("The launch city is Lisbon."),
        user("The budget for the pilot is 12,000 EUR."),
        user("We'll deploy the backend on Tuesday, March 3."),
        user("The discount rules live in src/cart/discount.rs."),
        user("Change of plan: the launch city is now Porto, not Lisbon."),
        user("Another change: move the backend deploy to Thursday, March 5."),
        user("The budget was raised to 15,000 EUR."),
        user("Now clippy complains at src/cart/discount.rs:41."),
    ];
    let merged = merge(&lines);
    assert_eq!(
        texts(&merged),
        [
            "The discount rules live in src/cart/discount.rs.",
            "Change of plan: the launch city is now Porto, not Lisbon.",
            "Another change: move the backend deploy to Thursday, March 5.",
            "The budget was raised to 15,000 EUR.",
            "Now clippy complains at src/cart/discount.rs:41.",
        ]
    );
    // Unrelated lines with change words do not replace each other.
    let kept = merge(&[
        user("The gateway listens on port 8443."),
        user("Now the cache uses 6379."),
    ]);
    assert_eq!(kept.len(), 2);
    // "Now" opening a sentence, and paths under one directory, tie nothing together.
    let kept = merge(&[
        user("The function at that line is compute_total(), it subtracts the discount."),
        user("I run the tests with: cargo test --test cart_total -- --nocapture"),
        user("Now clippy complains: this `if` has identical blocks at src/cart/total.rs:41."),
    ]);
    assert_eq!(kept.len(), 3, "{:?}", texts(&kept));
}

#[test]
fn a_correction_the_model_echoed_first_still_replaces_the_old_value() {
    // Measured on the real 0.5B model: its reply repeated the person's correction word
    // for word and was folded first; the person's own line, said later, was taken for
    // a repetition and the old date stayed in the ledger and in recall.
    let correction = "scratch that, the freeze starts on March 20th, not the 14th.";
    let lines = [
        user("The code freeze starts on March 14th, put it in your calendar."),
        LedgerLine {
            text: correction.into(),
            ..LedgerLine::default()
        },
        user(correction),
    ];
    let all = merge(lines.iter());
    assert!(
        all.iter().all(|l| !l.text.contains("March 14th")),
        "{all:?}"
    );
    let kept: Vec<_> = all.iter().filter(|l| l.text == correction).collect();
    assert_eq!(kept.len(), 1, "{all:?}");
    assert!(kept[0].user && kept[0].corrects, "{all:?}");
}

#[test]
fn a_correction_replaces_the_value_it_corrects() {
    let merged = merge(&[
        user("Log retention for the app servers is 14 days."),
        user("The cleanup cron job runs every 15 minutes."),
        user("Correction on logs: retention was extended to 30 days for compliance."),
    ]);
    assert_eq!(
        texts(&merged),
        [
            "The cleanup cron job runs every 15 minutes.",
            "Correction on logs: retention was extended to 30 days for compliance.",
        ]
    );
}

#[test]
fn only_the_persons_lines_count_as_corrections() {
    let merged = merge(&[
        LedgerLine {
            text: "The review is on Tuesday at 10:00.".into(),
            ..LedgerLine::default()
        },
        LedgerLine {
            text: "The review moved to Friday at 09:00.".into(),
            ..LedgerLine::default()
        },
    ]);
    assert_eq!(merged.len(), 1);
    assert!(!merged[0].corrects);
}

#[test]
fn the_model_never_supersedes_what_the_person_stated() {
    let assistant = |t: &str| LedgerLine {
        text: t.into(),
        ..LedgerLine::default()
    };
    let merged = merge(&[
        user("The public API gateway listens on port 8443."),
        assistant("We could move the gateway to port 8080 instead of 8443."),
    ]);
    assert_eq!(merged.len(), 2, "{:?}", texts(&merged));
    // The person's own change still wins over the model's older line.
    let merged = merge(&[
        assistant("The gateway listens on port 8443."),
        user("Change of plan: the gateway now listens on 8080, not 8443."),
    ]);
    assert_eq!(
        texts(&merged),
        ["Change of plan: the gateway now listens on 8080, not 8443."]
    );
}

#[test]
fn a_correction_keeps_the_rest_of_the_line_it_corrects() {
    let merged = merge(&[
        user("flights are booked, LH 1234 out of Zürich, leaves at 7:45 on the 12th."),
        user("wait no, we fly out on the 14th not the 12th"),
    ]);
    assert_eq!(
        texts(&merged),
        [
            "flights are booked, LH 1234 out of Zürich, leaves at 7:45 on the 14th.",
            "wait no, we fly out on the 14th not the 12th",
        ]
    );
    assert!(merged[0].corrects);
}

#[test]
fn a_change_said_of_something_else_replaces_nothing() {
    // A word both share ("says"), a "now" far from the new value, moving house.
    for (older, newer) in [
        (
            "the receipt from Hotel Larios says €386.40, must not lose it",
            "José (lives there now) says he'll pick us up, José's number is +34 612 48 93 07",
        ),
        (
            "we got the keys to the flat, Leipzig, 3rd floor",
            "Miri says if I buy one more gadget for this flat she's moving in with Frau Petrović",
        ),
        (
            "kitchen delivery is on the 6th of March, between 7 and 11",
            "plumber came by, they quoted €2,380 to move the pipes for the new kitchen.",
        ),
    ] {
        let merged = merge(&[user(older), user(newer)]);
        assert_eq!(texts(&merged), [older, newer]);
    }
    // The same person, two facts.
    let merged = merge(&[
        user("Miri wants a rain shower in the bathroom."),
        user("decide on a light for the hallway, Miri wants the paper one"),
    ]);
    assert_eq!(merged.len(), 2);
}

#[test]
fn a_change_said_beside_its_subject_replaces_the_old_value() {
    let merged = merge(&[
        user("kick-off at 9:30 on the thursday, then workshops"),
        user("9:30 is never going to work. kick-off moves to 10:15"),
    ]);
    // The day the old line named stays, with the new time.
    assert_eq!(
        texts(&merged),
        [
            "kick-off at 10:15 on the thursday, then workshops",
            "9:30 is never going to work. kick-off moves to 10:15"
        ]
    );
}

#[test]
fn of_several_things_one_changes_and_the_others_keep_their_values() {
    let prices =
        user("The Skoda is £8,950 with 61k on the clock, the Mazda's £9,400 but only 38k.");
    let listing = user("2019 Mazda 3 2.0 Skyactiv-G SE-L Nav 5dr");
    let insurance = user(
        "Insurance quotes came back: £612 a year for the Mazda, £574 for the Skoda and £655 for the Auris.",
    );
    let haggled = user("The Mazda seller came down to £9,100 after I mentioned the scratch.");
    let merged = merge(&[prices, listing.clone(), insurance.clone(), haggled.clone()]);
    // The price moves; a year and an insurance quote are no price.
    assert_eq!(
        texts(&merged),
        [
            "The Skoda is £8,950 with 61k on the clock, the Mazda's £9,100 but only 38k.",
            listing.text.as_str(),
            insurance.text.as_str(),
            haggled.text.as_str(),
        ]
    );
    // A date opening a list says nothing of its order.
    let ages = user("As of March 2026: Maya 31, Leo 28 and Aoife 26");
    let older = user("Leo's a 29 now");
    let merged = merge(&[ages, older]);
    assert!(
        texts(&merged).contains(&"As of March 2026: Maya 31, Leo 29 and Aoife 26"),
        "{merged:?}"
    );
    // In a line that puts values before their names, a name's value is the one
    // before it.
    let cheaper = user("The Skoda insurance went down to £540 after I added my brother.");
    let merged = merge(&[insurance, cheaper]);
    assert!(
        texts(&merged).contains(
            &"Insurance quotes came back: £612 a year for the Mazda, £540 for the Skoda and £655 for the Auris."
        ),
        "{merged:?}"
    );
}

#[test]
fn a_day_called_off_moves_with_its_time() {
    let booked = user("Test drive for the Mazda is booked for Saturday at 11 in Guildford.");
    let moved =
        user("Saturday's off, his kid's ill, so the test drive is Sunday at 2 now, same place.");
    let merged = merge(&[booked, moved]);
    assert!(
        texts(&merged)
            .contains(&"Test drive for the Mazda is booked for Sunday at 2 in Guildford."),
        "{merged:?}"
    );
}

#[test]
fn a_name_replaces_the_name_said_of_the_same_thing() {
    let buddy = user(
        "They've given me an onboarding buddy called Rafe who sits opposite me, and IT problems go to Józef on the helpdesk, extension 4471.",
    );
    let lunch = user(
        "Lunch tip from Rafe: skip the canteen, everyone goes to the Vietnamese place across the road, Pho Sen.",
    );
    let change = user(
        "Change of plan, Rafe is moving over to the customs team on Friday so my buddy from now on is Chiamaka.",
    );
    let merged = merge(&[buddy, lunch.clone(), change.clone()]);
    // The buddy changes and the helpdesk stays; a tip from Rafe is no buddy.
    assert_eq!(
        texts(&merged),
        [
            "They've given me an onboarding buddy called Chiamaka who sits opposite me, and IT problems go to Józef on the helpdesk, extension 4471.",
            lunch.text.as_str(),
            change.text.as_str(),
        ]
    );
}

#[test]
fn a_time_said_in_words_is_corrected_in_place() {
    let times = user("Kicks off at half seven, food at half eight.");
    let later = user(
        "Change of plan on timing: it starts at eight now, not half seven, the room's booked until then.",
    );
    let merged = merge(&[times, later]);
    assert!(
        texts(&merged).contains(&"Kicks off at eight, food at half eight."),
        "{merged:?}"
    );
}

#[test]
fn a_name_that_opens_its_sentence_is_said_of_what_follows_it() {
    let cake = user("Bronagh is doing the cake, she's an amazing baker.");
    let party =
        user("Mum turns seventy next month and me, Bronagh and Cathal are throwing her a party.");
    let later = user(
        "Bad news, Bronagh's oven has packed in, so the cake is coming from Betty's in Harrogate instead.",
    );
    let merged = merge(&[cake, party.clone(), later.clone()]);
    assert_eq!(texts(&merged), [party.text.as_str(), later.text.as_str()]);
}

#[test]
fn a_swap_on_one_day_changes_that_days_row_only() {
    use crate::core::ledger::extract;
    let mut lines = extract(
        "| Day | Who | Shift |\n|---|---|---|\n| Mon | Inês | 7:00–14:00 |\n| Tue | Ben | 14:00–close |\n| Thu | Ben | 7:00–14:00 |\n| Sat | Kasia and Ben | 8:00–16:00 |",
        true,
    );
    let alarm = user("The alarm code is 7302 and it has to be set by 17:30.");
    lines.push(alarm.clone());
    let swap = user(
        "Rota change: Kasia's doing the Tuesday close from now on, not Ben, he's got college on Tuesday evenings.",
    );
    lines.push(swap.clone());
    let merged = merge(&lines);
    let texts = texts(&merged);
    for row in [
        "| Mon | Inês | 7:00–14:00 |",
        "| Tue | Kasia | 14:00–close |",
        "| Thu | Ben | 7:00–14:00 |",
        "| Sat | Kasia and Ben | 8:00–16:00 |",
    ] {
        assert!(texts.contains(&row), "{row} in {texts:?}");
    }
    // A day is no clock time.
    assert!(texts.contains(&alarm.text.as_str()), "{texts:?}");
}

#[test]
fn a_time_moved_leaves_the_rent_and_a_price_changed_alone_in_its_line_is_replaced() {
    let flat = user("first one is on harcourt rd, 2 bed, 1850 pcm, agent is dev from foxtons");
    let viewing = user("viewing for harcourt is thurs at 6");
    let moved = user("update: harcourt viewing moved to fri 5.30, dev texted");
    let quote = user("moving van quote from shiftit was 340 for a saturday");
    let lower = user("the van guy says he can do sunday for 290 instead");
    let merged = merge(&[flat.clone(), viewing, moved.clone(), quote, lower.clone()]);
    assert_eq!(
        texts(&merged),
        [flat.text.as_str(), moved.text.as_str(), lower.text.as_str()]
    );
    // Clauses end at dashes too (and a dash is more than one byte).
    let hall = user("the hall — the big one by the river — costs £400 for the evening");
    let cheaper = user("the hall people — lovely — said £350 instead for the evening");
    let merged = merge(&[hall, cheaper.clone()]);
    assert_eq!(texts(&merged), [cheaper.text.as_str()]);
}

#[test]
fn a_dose_put_up_mends_that_medicine_and_not_the_other() {
    let meds =
        user("He's on metformin 500 mg twice a day with meals, and amlodipine 5 mg every morning.");
    let up = user(
        "Dr. Okafor rang today, she's put the amlodipine up to 10 mg because his blood pressure is still high.",
    );
    let merged = merge(&[meds, up]);
    assert!(
        merged.iter().any(|l| l.text
            == "He's on metformin 500 mg twice a day with meals, and amlodipine 10 mg every morning."),
        "{merged:?}"
    );
}

#[test]
fn a_price_offered_in_place_of_one_named_before_mends_it() {
    let fee = user(
        "A friend recommended an accountant, Siobhán Ní Bhriain, she charges £350 for a simple return.",
    );
    let offer = user("Siobhán got back to me, she'll do it for £300 since it's simple.");
    let merged = merge(&[fee, offer.clone()]);
    assert_eq!(
        texts(&merged),
        [
            "A friend recommended an accountant, Siobhán Ní Bhriain, she charges £300 for a simple return.",
            offer.text.as_str()
        ]
    );
}

#[test]
fn a_correction_with_no_subject_changes_the_last_thing_said_and_only_its_kind() {
    let dinner = user("Dinner at Luca's on the 12th");
    let again = user("actually make that the 14th");
    let merged = merge(&[dinner.clone(), again.clone()]);
    assert_eq!(
        texts(&merged),
        ["Dinner at Luca's on the 14th", again.text.as_str()]
    );
    // Said after a clock time, a date changes nothing.
    let dentist = user("The dentist is at 10:40");
    let merged = merge(&[dinner.clone(), dentist.clone(), again.clone()]);
    assert_eq!(
        texts(&merged),
        [
            dinner.text.as_str(),
            dentist.text.as_str(),
            again.text.as_str()
        ]
    );
}

#[test]
fn a_name_that_cannot_is_replaced_by_the_one_brought_and_only_then() {
    let booked = user("we booked the Crown for Saturday night");
    let moved = user("the Crown can't do Saturday so we're going to the Feathers instead");
    assert_eq!(
        texts(&merge(&[booked, moved.clone()])),
        [moved.text.as_str()]
    );
    let cake = user("Priya is bringing the cake");
    let away = user("Priya can't make it on Tuesday");
    assert_eq!(
        texts(&merge(&[cake.clone(), away.clone()])),
        [cake.text.as_str(), away.text.as_str()]
    );
}

#[test]
fn a_date_never_takes_an_hours_place_nor_a_name_an_office() {
    let party = user("The party starts at 8 at the Crown");
    let moved = user("the party moved to the 14th");
    let merged = merge(&[party, moved]);
    assert!(
        !merged.iter().any(|l| l.text.contains("at 14th")),
        "{merged:?}"
    );
    let driving = user("Tom is driving on Saturday");
    let office = user("Tom's office moved the meeting, so Priya is hosting now");
    let merged = merge(&[driving.clone(), office]);
    assert!(merged.iter().any(|l| l.text == driving.text), "{merged:?}");
}
