//! Lines that meet by a name or a number: a route between two places changes neither, a
//! name said in lower case is the subject of a correction, a date denied by its day is
//! found where the lines share only the name of what it is the date of, and a count
//! denied by its number alone where the new line counts the same thing.

use crate::core::ledger::lines::user;
use crate::core::ledger::merge::merge;

#[test]
fn a_route_from_one_place_to_another_replaces_nothing_and_a_move_does() {
    let hotel = user("first 4 nights in Tokyo at Hotel Gracery Shinjuku, ¥24,500 a night");
    let train = user("we're getting the Nozomi 215 from Tokyo to Kyoto, leaves 09:21");
    let merged = merge(&[hotel.clone(), train.clone()]);
    assert!(merged.iter().any(|l| l.text == hotel.text), "{merged:?}");
    assert!(merged.iter().any(|l| l.text == train.text), "{merged:?}");
    // Said as a change, it is one.
    let drinks = user("leaving drinks are at the Crown on Friday");
    let moved = user("we've moved the drinks from Crown to the Feathers, same time");
    let merged = merge(&[drinks.clone(), moved]);
    assert!(!merged.iter().any(|l| l.text == drinks.text), "{merged:?}");
}

#[test]
fn a_name_said_in_lower_case_is_what_a_correction_is_of() {
    for old in [
        "| item | amount |\n|---|---|\n| Broadband | £45 |",
        "Broadband is £45",
    ] {
        let lines = crate::core::ledger::extract(old, true);
        let fixed = user(
            "the broadband line is wrong btw, Siobhán got them down to £38 on the phone yesterday",
        );
        let merged = merge(lines.iter().chain([&fixed]));
        assert!(
            !merged.iter().any(|l| l.text.contains("£45")),
            "{old}: {merged:?}"
        );
        assert!(
            merged
                .iter()
                .any(|l| l.text.contains("Broadband") && l.text.contains("£38")),
            "{old}: {merged:?}"
        );
    }
    // Without a clause that takes it back, another amount said of something else beside
    // the name stays another fact.
    let gym = user("Gym is £78 for both of us");
    let other = user("the gym's fine, the bike got dropped to £20 on the app");
    let merged = merge(&[gym.clone(), other]);
    assert!(merged.iter().any(|l| l.text == gym.text), "{merged:?}");
}

#[test]
fn a_date_denied_by_its_day_keeps_the_time_the_line_held() {
    let booked = user("the teamLab Planets tickets are booked for 5 April at 10:30");
    let swapped = user(
        "change on teamLab, we swapped to 6 April because of the jetlag, not the 5th, same time",
    );
    let merged = merge(&[booked, swapped]);
    assert!(
        merged
            .iter()
            .any(|l| l.text == "the teamLab Planets tickets are booked for 6 April at 10:30"),
        "{merged:?}"
    );
    assert!(
        !merged.iter().any(|l| l.text.contains("5 April")),
        "{merged:?}"
    );
}

#[test]
fn a_count_denied_by_its_number_alone_is_replaced_where_the_thing_is_counted_again() {
    let count = user("12 kids x £14.50 each, that includes the pizza + a drink");
    let update = user("numbers update: 14 kids now not 12, the twins are coming");
    let merged = merge(&[count, update.clone()]);
    assert!(
        merged
            .iter()
            .any(|l| l.text == "14 kids x £14.50 each, that includes the pizza + a drink"),
        "{merged:?}"
    );
    assert!(merged.iter().any(|l| l.text == update.text), "{merged:?}");
    // Another thing counted by the same number stays.
    let chairs = user("the removal firm is bringing 12 boxes on Friday");
    let merged = merge(&[chairs.clone(), update]);
    assert!(merged.iter().any(|l| l.text == chairs.text), "{merged:?}");
}

#[test]
fn a_name_or_a_wrong_thing_beside_another_amount_changes_nothing() {
    for (old, new) in [
        (
            "Council tax is £160 a month, Leeds City Council",
            "the council put the parking permit up to £80",
        ),
        (
            "my sister Rose is bringing the cake, £30",
            "rose wine went up to £12 a bottle",
        ),
        (
            "Piano lessons with Grace are £30 each",
            "grace said the school trip went up to £45",
        ),
        (
            "Nursery is £62 a day",
            "nursery sent the wrong invoice, the after school club went up to £14 a day",
        ),
        (
            "Car insurance is £560 a year",
            "there's a scratch on the car door, the garage quote went up to £400",
        ),
        (
            "Tesco delivery slot is £4.50",
            "tesco got the order wrong again, the milk went up to £1.65",
        ),
        (
            "| item | amount |\n|---|---|\n| Broadband | £45 |\n| Gym | £78 |",
            "gym is wrong, and broadband went up to £50",
        ),
    ] {
        let lines = crate::core::ledger::extract(old, true);
        let merged = merge(lines.iter().chain([&user(new)]));
        for line in &lines {
            if !line.text.contains("Broadband") {
                assert!(
                    merged.iter().any(|l| l.text == line.text),
                    "{new}: {merged:?}"
                );
            }
        }
    }
}

#[test]
fn a_shared_name_ties_a_change_only_where_the_change_is_said_of_it() {
    // Said by the way before another thing's change: both stay.
    for (old, new) in [
        (
            "the car MOT is 5 June at 10:00 at Kwik Fit",
            "Kwik Fit rang, tyres fitting moved to 6 June, not the 5th",
        ),
        (
            "the dentist for Mum is on 5 June at 9:30",
            "her birthday moved to 6 June, not the 5th, Mum says",
        ),
    ] {
        let merged = merge(&[user(old), user(new)]);
        assert!(merged.iter().any(|l| l.text == old), "{new}: {merged:?}");
    }
    // Said of it, of a word of the old line, or of nothing else: the change holds.
    for (old, new, kept) in [
        (
            "service-14 listens on port 7100",
            "service-14 moved to port 7150",
            None,
        ),
        (
            "the dentist for Mum is on 5 June at 9:30",
            "Mum rang, her dentist moved to 6 June, not the 5th",
            Some("the dentist for Mum is on 6 June at 9:30"),
        ),
        (
            "Priya's flight lands at 14:20",
            "Priya texted, her flight now lands at 15:05",
            None,
        ),
        (
            "The Crown is booked for 7pm on Friday",
            "The Crown called: they moved us to 8pm",
            Some("The Crown is booked for 8pm on Friday"),
        ),
    ] {
        let merged = merge(&[user(old), user(new)]);
        assert!(!merged.iter().any(|l| l.text == old), "{new}: {merged:?}");
        if let Some(kept) = kept {
            assert!(merged.iter().any(|l| l.text == kept), "{new}: {merged:?}");
        }
    }
}
