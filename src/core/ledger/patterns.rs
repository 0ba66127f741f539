//! The pieces the value patterns are written from: months, units, numbers and hours said
//! in words, currency codes; and how a built-in pattern is compiled.

use regex::Regex;

pub(super) fn re(pattern: &str) -> Regex {
    // The patterns are constants covered by tests; failing to compile is a build bug.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad built-in regex {pattern}: {e}"))
}

/// Month names and their usual short forms (a bare "May" or "March" is not a date: a day
/// must stand beside it).
pub(super) const MONTH: &str = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?";
/// Units a number is said with: durations, sizes, rates, shares, money, doses; durations
/// and head counts in German, Spanish, French and Italian too ("4 horas", "3 Wochen").
pub(super) const UNIT: &str = r"(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|nights?|weeks?|months?|years?|[kmgtp]i?b|bytes?|%|percent|per\s?cent|x|req(?:uest)?s?(?:/s|/min|\s(?:a|per)\s(?:second|minute|hour|day))|rps|qps|rpm|users?|seats?|nodes?|replicas?|cores?|bikes?|retries|attempts|eur|usd|gbp|chf|euros?|dollars?|mg|g|kg|ml|cl|dl|l|mm|cm|m|km|kw|kwh|w|mah|mph|kph|km/h|lbs?|oz|ft|inch|inches|tsp|tbsp|teaspoons?|tablespoons?|cups?|tablets?|pills?|capsules?|people|guests|adults|kids|children|quid|pounds?|grand|k|miles?|beds?|bedrooms?|bathrooms?|bags?|boxes|rolls?|packs?|bottles?|tins?|pairs?|slices?|loaves|eggs|rooms?|floors?|storeys?|stops?|nights?|shifts?|sessions?|lessons?|laps?|sets?|reps?|horas?|minutos?|días?|semanas?|meses|mes|años?|personas?|stunden?|minuten|tage?|wochen?|monate?|jahre?|personen|heures?|jours?|semaines?|mois|ans|personnes?|ore|giorni|settimane|mesi|anni|persone)";
/// Numbers below twenty as words, each at its value.
pub(super) const SMALL_NUMBERS: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
/// The tens from twenty as words.
pub(super) const TENS: [&str; 8] = [
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// Numbers said in words, for durations, counts and doses ("two weeks", "three
/// replicas", "half a tablet", "twelve hundred and forty"), written from the two lists
/// above that also read their size.
pub(super) fn number_word() -> String {
    let units = SMALL_NUMBERS[1..10].join("|");
    let teens = SMALL_NUMBERS[10..].join("|");
    let tens = TENS.join("|");
    let below_hundred = format!(r"(?:{tens})(?:[-\s](?:{units}))?|{teens}|{units}");
    format!(
        r"(?:half\s+an?|(?:a|{teens}|{units})\s+(?:hundred|thousand)(?:\s+and\s+(?:{below_hundred}))?|{below_hundred}|a\s+dozen)"
    )
}

/// Currencies by their codes, as offers and invoices write them before an amount.
pub(super) const CURRENCY_CODE: &str =
    r"(?:NOK|SEK|DKK|CHF|EUR|USD|GBP|PLN|CZK|HUF|JPY|CAD|AUD|NZD|INR|BRL|ZAR|MXN|CNY)";
/// An hour said in words.
pub(super) const HOUR_WORD: &str =
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)";
