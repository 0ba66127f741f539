//! Corrections that name the old value otherwise than by saying it again: for a while,
//! by its last part, as "the new number", by a date's day alone, by another form of the
//! subject's word.

use crate::core::ledger::lines::{texts, user};
use crate::core::ledger::merge::merge;

#[test]
fn a_change_for_a_while_or_a_value_meant_replaces_and_a_plan_does_not() {
    let thursday = user("We play every other Thursday at 7, at Dev's flat.");
    let for_a_bit =
        user("Dev's flat is getting repainted so we're playing Wednesdays for a bit, same time.");
    let merged = merge(&[thursday.clone(), for_a_bit]);
    assert!(
        !merged.iter().any(|l| l.text == thursday.text),
        "{merged:?}"
    );
    for (old, new) in [
        (
            "Band practice is on Thursdays at the hall.",
            "After chatting for a while, band practice on Mondays suits Sam better.",
        ),
        (
            "the plumber's coming Thursday.",
            "the plumber was meant to come Tuesday originally.",
        ),
        (
            "The deposit is £400.",
            "I meant to pay the £450 deposit yesterday but forgot.",
        ),
    ] {
        let merged = merge(&[user(old), user(new)]);
        assert!(merged.iter().any(|l| l.text == old), "{new}: {merged:?}");
    }
}

#[test]
fn an_old_value_named_by_its_last_part_is_replaced() {
    let set = user("I gave it a fixed address, 192.168.1.40.");
    let pi = user("The Pi-hole is at 192.168.1.2.");
    let moved =
        user("Ugh, the printer had already grabbed .40, so the NAS is on 192.168.1.50 now.");
    let merged = merge(&[set, pi.clone(), moved]);
    assert!(
        !merged.iter().any(|l| l.text.contains("192.168.1.40")),
        "{merged:?}"
    );
    assert!(merged.iter().any(|l| l.text == pi.text), "{merged:?}");
    // A part that names no value of the line's stem replaces nothing.
    let port = user("Jellyfin is on port 8096 at 192.168.1.50.");
    let other = user("The printer is .40 on the old range, 10.0.0.50 is the camera.");
    let merged = merge(&[port.clone(), other]);
    assert!(merged.iter().any(|l| l.text == port.text), "{merged:?}");
    // A part said to stay, a date's day, a second phone line: no change.
    for (old, new) in [
        (
            "Our gateway is 192.168.1.1.",
            "Gateway stays .1, the NAS moved to 192.168.1.50.",
        ),
        (
            "Release date is 2027-03-14.",
            "Beta ships on 2027-03-20, -14 is still the release.",
        ),
        (
            "The office line is 07700-900-124.",
            "Call 07700-900-123 or -124 for support.",
        ),
    ] {
        let merged = merge(&[user(old), user(new)]);
        assert!(merged.iter().any(|l| l.text == old), "{merged:?}");
    }
}

#[test]
fn a_figure_named_the_new_one_replaces_a_labelled_amount() {
    // A pasted offer's "Key: value" line, then the raise said in thousands.
    let offer = user("Base salary: NOK 812,000");
    let team = user("Team: Pricing & Revenue");
    let raise = user(
        "I asked Bjørg if they could do better on the base and she came back with 860k, so that's the new number",
    );
    let merged = merge(&[offer, team.clone(), raise.clone()]);
    assert!(
        !merged.iter().any(|l| l.text.contains("812,000")),
        "{merged:?}"
    );
    assert!(merged.iter().any(|l| l.text == raise.text), "{merged:?}");
    assert!(merged.iter().any(|l| l.text == team.text), "{merged:?}");
    // "So that's the …" about something else, a new thing rather than a new figure, or
    // thousands of miles rather than money: no change.
    for (old, said) in [
        (
            "Rent: £950 a month",
            "the deposit is £1,100, so that's the deposit sorted",
        ),
        (
            "Rent: £950 a month",
            "the van was £90, that's the new van company we tried",
        ),
        (
            "The HP laptop is £749",
            "The Dell laptop is £899, that's the new model with the OLED",
        ),
        (
            "my old charger cost £25",
            "bought a charger for £40, that's the new USB-C one",
        ),
        ("the Fiesta has done 12k miles", "the Fiesta is now £11,500"),
        (
            "the Mazda has 9k on the clock",
            "the Mazda seller came down to £9,100",
        ),
    ] {
        let merged = merge(&[user(old), user(said)]);
        assert!(merged.iter().any(|l| l.text == old), "{said}: {merged:?}");
    }
}

#[test]
fn a_date_denied_by_its_day_alone_is_replaced() {
    let start = user("Start date: 4 January 2027");
    let fixed =
        user("oh and the Oslo start date, I misread it, it's not the 4th it's the 11th of January");
    let merged = merge(&[start.clone(), fixed.clone()]);
    assert_eq!(texts(&merged), vec![fixed.text.as_str()]);
    // Said without a change word, by the denial alone.
    let denied = user("the start date is not the 4th, it's the 11th of January");
    let merged = merge(&[start, denied.clone()]);
    assert_eq!(texts(&merged), vec![denied.text.as_str()]);
    // Another thing's day, in no month the date names: the date stands.
    let birthday = user("Mum's birthday is 4 June");
    let party =
        user("the party for Mum is the 7th, not the 4th, since her birthday is a Wednesday");
    let merged = merge(&[birthday.clone(), party]);
    assert!(merged.iter().any(|l| l.text == birthday.text), "{merged:?}");
    // Another date's day, or the day not denied, replaces nothing.
    let trip = user("Flights are booked for March 14th.");
    for said in [
        "the dentist is not the 14th, it's the 18th",
        "we land on the 14th and the hotel is from the 15th",
    ] {
        let merged = merge(&[trip.clone(), user(said)]);
        assert!(
            merged.iter().any(|l| l.text == trip.text),
            "{said}: {merged:?}"
        );
    }
}

#[test]
fn a_change_said_with_another_form_of_the_word_replaces() {
    // "delivery" for "delivered", and a date written day/month.
    let delivered = user("the tiles get delivered on 28/11 between 8 and noon");
    let moved = user("the supplier rang, delivery moved to 27/11, same time window");
    let merged = merge(&[delivered, moved.clone()]);
    assert_eq!(texts(&merged), vec![moved.text.as_str()]);
    // Short words match only as they are: a party is no part.
    let part = user("the part number is 4471-22");
    let party = user("the party moved to 4472-10 in the new system");
    let merged = merge(&[part.clone(), party]);
    assert!(merged.iter().any(|l| l.text == part.text), "{merged:?}");
}
