//! Lines of model text read as prose: which lines are fenced code (a ```` ``` ```` or
//! `~~~` line opens or closes a block), a line without its list bullet, and where a
//! sentence ends. Shared so the goal markers, the fact ledger, summary cleaning and recall
//! agree on them.

/// What a list item may start with.
pub const BULLETS: [char; 3] = ['-', '*', '•'];

/// A line or sentence without its list bullet and surrounding space.
pub fn bare(line: &str) -> &str {
    line.trim().trim_start_matches(BULLETS).trim()
}

/// Each line of `text` with whether it is code: a fence line or a line between fences.
pub fn lines_with_code(text: &str) -> impl Iterator<Item = (&str, bool)> {
    let mut in_fence = false;
    text.lines().map(move |line| {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            return (line, true);
        }
        (line, in_fence)
    })
}

/// Words that open a question when the word after them is its subject or verb ("how
/// early do you …", "what's a decent drill …").
const WH_WORDS: &[&str] = &[
    "what", "what's", "whats", "which", "who", "who's", "whose", "why", "how", "how's", "where",
    "where's", "when", "when's",
];
/// Verbs that open a question when its subject follows ("are those compatible …").
const AUXILIARIES: &[&str] = &[
    "is", "isn't", "are", "aren't", "am", "do", "does", "doesn't", "did", "didn't", "don't", "can",
    "can't", "could", "should", "shall", "would", "will", "won't", "has", "have", "was", "were",
];
/// After an auxiliary opener: a subject, so the sentence asks ("are those …", "do you
/// …"), where "do not deploy …" or "have a look …" tells.
const ASKED_ABOUT: &[&str] = &[
    "i", "you", "we", "they", "it", "he", "she", "those", "these", "that", "this", "there",
    "anyone", "anybody", "someone", "somebody", "people", "the", "my", "our", "your", "their", "u",
    "ya",
];
/// Auxiliaries that ask before "a"/"an" ("would a 2 hour drive be too much"); not "was
/// a great gig", "has a 3 year warranty", "do a backup", said without their subject.
/// Nor "is a 3 bed semi, £1,450 pcm", "did a 5k this morning", "should a parcel come …,
/// leave it with …".
const A_THING_ASKED: &[&str] = &["would", "could", "can", "will", "does"];
/// Auxiliaries that ask before a name ("would Toronto get …", "is Sam coming"); not
/// "did", "do", "have", "has", "was" ("Did Parkrun in 24:10", "Have Covid so …").
const NAME_ASKED: &[&str] = &[
    "would", "could", "should", "can", "will", "shall", "does", "is", "are",
];
/// After a wh-word: a verb or a measure, so the sentence asks ("how early do …", "what
/// is …"), where "when the kitchen arrives, …" or "what we decided: …" tells.
const ASKED_HOW: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "would", "will",
    "shall", "has", "have", "much", "many", "long", "early", "late", "often", "far", "big", "old",
    "about", "if", "a", "an", "kind", "sort", "time", "day", "else",
];

/// Whether `sentence` asks rather than tells: it ends with a question mark (one, or two
/// after words worded as a question), or it is worded as a question and left open (people in chat often drop the mark: "are those
/// compatible in a 3rd floor flat or do we need a pump"). Measured: such sentences
/// entered the fact ledger as facts and pushed out what the person had stated.
pub fn asks(sentence: &str) -> bool {
    let s = sentence.trim_end_matches(['"', '\'', ')', ']', '”', '’', '»', ' ']);
    if s.ends_with('?') {
        // "she wants 6 months upfront??": marks doubled after a statement say disbelief,
        // not a question (measured: the landlord's demand never reached the ledger).
        return !(s.ends_with("??") || s.ends_with("!?")) || worded_as_question(s);
    }
    // A closing "approx." or "etc." is the abbreviation's stop, not the sentence's
    // (measured: "what do people pay a babysitter per hour in Dublin now, approx." went
    // into the fact ledger as a statement).
    if s.ends_with('!')
        || s.ends_with('.') && !s.split_whitespace().last().is_some_and(abbreviation)
    {
        return false;
    }
    worded_as_question(s) || asks_opinion(s)
}

/// Tails that ask what the other thinks of what was just said ("would Toronto get the top
/// end do you think"): the sentence asks whatever its opening.
/// Not "you think" alone ("it's cheaper than you think"), "or not" ("whether she likes
/// it or not") or "you reckon" alone ("bigger than you reckon", "whatever you reckon").
const OPINION_TAILS: &[&str] = &["do you think", "d'you think", "do you reckon"];

fn asks_opinion(s: &str) -> bool {
    let s = s
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
        .replace('’', "'");
    OPINION_TAILS
        .iter()
        .any(|t| s.strip_suffix(t).is_some_and(|b| b.ends_with([' ', ','])))
}

/// Whether `s` is worded as a question: a wh-word or an auxiliary opens it, after the
/// words a message opens with.
fn worded_as_question(s: &str) -> bool {
    let mut words = s
        .split_whitespace()
        .map(|w| {
            let bare = w
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .replace('’', "'");
            // A capital, not a word in capitals for emphasis ("Do NOT book …").
            let named = bare.starts_with(char::is_uppercase)
                && bare != "I"
                && !bare.chars().all(|c| !c.is_lowercase());
            (bare.to_lowercase(), named)
        })
        // "random but what's a good first phrase …", "oh and is it …": the question
        // starts after the words people open a message with.
        .skip_while(|(w, _)| OPENERS.contains(&w.as_str()));
    let (Some((first, first_named)), Some((second, named))) = (words.next(), words.next()) else {
        return false;
    };
    // "Will Smith is the plumber": a name, not an auxiliary, opens it; "Did Parkrun in
    // 24:10", "Have Monday off": a statement without its subject.
    let named = named && NAME_ASKED.contains(&first.as_str()) && !(first == "will" && first_named);
    let mut words = words.map(|(w, _)| w);
    // "anyone know a plumber in Leeds??"
    if ["anyone", "anybody"].contains(&first.as_str()) {
        return true;
    }
    let wh = WH_WORDS.contains(&first.as_str());
    if !wh && !AUXILIARIES.contains(&first.as_str()) {
        return false;
    }
    if first.contains('\'') {
        // "what's", "how's": the verb is in the opener — unless what follows is what is
        // left, and a verb says where it goes ("what's left over goes into a Chase saver
        // at 4.1%": measured, the rate never reached the ledger).
        return wh && !(first == "what's" && second == "left" && goes_somewhere(words));
    }
    if wh {
        // "which colour did we pick", "what time is it": a noun, then the verb.
        let third = words.next().unwrap_or_default();
        ASKED_HOW.contains(&second.as_str())
            || ["which", "what", "whose"].contains(&first.as_str())
                && AUXILIARIES.contains(&third.as_str())
    } else {
        // "is 62 square metres big …": a measure as the subject; "would Toronto get …",
        // "is a 1 hour connection too tight": a name or a thing ("do a backup" and "have
        // a look" tell).
        ASKED_ABOUT.contains(&second.as_str())
            || second.starts_with(|c: char| c.is_ascii_digit())
            || named
            || ["a", "an"].contains(&second.as_str()) && A_THING_ASKED.contains(&first.as_str())
            // "do soft play places usually do nut free": how often, asked of what follows
            // the auxiliary (not "is usually closed", a statement without its subject).
            || words.take(3).any(|w| HOW_OFTEN.contains(&w.as_str()))
    }
}

/// Words that ask how often, after an auxiliary and its subject.
const HOW_OFTEN: &[&str] = &["usually", "normally", "generally", "typically", "ever"];

/// Whether the words after "what's left" go on to say where it goes: "(over) goes into
/// …", not "for the month", "we still need to book" or "is how much" (asked without
/// their mark).
fn goes_somewhere(mut words: impl Iterator<Item = String>) -> bool {
    let mut next = words.next().unwrap_or_default();
    if next == "over" {
        next = words.next().unwrap_or_default();
    }
    LEFT_GOES.contains(&next.as_str())
}

/// What follows "what's left (over)" in a statement of where it goes.
const LEFT_GOES: &[&str] = &["goes", "go", "went"];

/// Words a message opens with before what it says: "random but what's …", "ok so is …".
const OPENERS: &[&str] = &[
    "random", "but", "so", "and", "also", "ok", "okay", "oh", "btw", "anyway", "well", "hmm",
    "right", "actually", "hey", "lol", "ha", "quick", "question", "q",
];

/// Words that open a question's premise: "since the nets are booked under ref NX-3307,
/// can I add a lane?" states the booking before it asks.
const PREMISES: &[&str] = &[
    "since ",
    "as ",
    "given that ",
    "now that ",
    "because ",
    "seeing as ",
    "seeing that ",
];

/// Verbs after "which" that ask what the person thinks of what they just said.
const OPINION_VERBS: &[&str] = &["seems", "sounds", "looks", "feels"];
/// Words after "which" within which such a question ends ("which seems a bit low?").
const OPINION_WORDS: usize = 5;

/// The premise a question states before it asks: up to its first comma when it opens
/// with one ("since …, can I …?"), or a statement the question follows after a comma
/// ("His microchip number is 977200009123456, do I need to update it?": measured, the
/// number was dropped with the question).
pub fn premise(question: &str) -> Option<&str> {
    let lower = question.to_lowercase();
    if let Some(p) = PREMISES.iter().find(|p| lower.starts_with(*p)) {
        let end = question.find(", ")?;
        return (end > p.len()).then(|| &question[..end]);
    }
    // "presales are at 64 which seems good?": a statement the person asks an opinion
    // of (measured: the count never reached the ledger).
    if let Some(at) = question.find(" which ") {
        let tail: Vec<&str> = question[at + " which ".len()..]
            .split_whitespace()
            .collect();
        let before = &question[..at];
        if tail.len() <= OPINION_WORDS
            && tail.first().is_some_and(|w| OPINION_VERBS.contains(w))
            && !asks(before)
            && before.split_whitespace().count() >= 3
        {
            return Some(before);
        }
    }
    let (before, after) = question.rsplit_once(", ")?;
    // The question's own words must ask, not only the mark at the end.
    let tail = after.trim_end_matches(['?', ' ']);
    (asks(tail) && !asks(before) && before.split_whitespace().count() >= 3).then_some(before)
}

/// Abbreviations that end in a full stop without ending the sentence: a title before a
/// name, "No. 5", Latin shorthand. Lower case, without their last full stop.
const ABBREVIATIONS: &[&str] = &[
    "dr", "mr", "mrs", "ms", "mx", "prof", "sr", "jr", "st", "mt", "no", "nos", "approx", "e.g",
    "i.e", "etc", "vs", "cf", "ca", "fig", "inc", "ltd", "co", "dept", "est", "min", "max", "vol",
    "ave", "rd", "rm", "ext", "incl", "tel", "nr", "pp", "hr", "hrs", "mins",
    // German, as people write addresses, firms and titles: "Hr. Yıldız von der Fa. Brandl",
    // "inkl. MwSt.", "bzw.", "ggf.", "Lindenstr. 23".
    "fr", "fa", "inkl", "bzw", "ggf", "evtl", "usw", "vgl", "str", "geb",
    // Spanish, French, Italian and Portuguese: "la Avda. de Málaga 42", "la Sra. Ortega",
    // "aprox. 180 €", "p. ej.", "Mme Leroy", "Sig. Rossi".
    "avda", "av", "sra", "srta", "sres", "dña", "dra", "aprox", "ej", "núm", "tlf", "pág", "mme",
    "mlle", "env", "sig", "dott", "ing",
];
/// Whether `word` is an abbreviation with its full stop ("St.", "Dr.", "approx."): a
/// stop that ends neither a sentence nor a clause.
pub fn abbreviation(word: &str) -> bool {
    let lower = word
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    lower
        .strip_suffix('.')
        .is_some_and(|w| ABBREVIATIONS.contains(&w))
}

/// Of those, the ones a sentence may well end with ("… pens, paper, etc. The hotel …"):
/// they end it when the next word starts with a capital letter.
const MAY_END: &[&str] = &[
    "etc", "inc", "ltd", "co", "est", "min", "max", "incl", "hr", "hrs", "mins",
];

/// The sentences of one line of prose, trimmed: split after `.`, `!` or `?` (and any
/// closing quote or bracket) followed by a space, except after an abbreviation ("Dr.",
/// "e.g.", "No. 5"), a single capital initial ("J. R. Tolkien") or inside a number
/// ("3.5", which has no space anyway). Shared so every reader of sentences (recall, the
/// ledger) agrees on where one ends; measured: a split at "Dr." cut a person's note in
/// two and recall quoted half of it.
pub fn split_sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        if !matches!(c, '.' | '!' | '?') {
            i += 1;
            continue;
        }
        // Closing quotes and brackets belong to the sentence they close.
        let mut end = i;
        while end + 1 < chars.len()
            && matches!(chars[end + 1].1, '"' | '\'' | ')' | ']' | '”' | '’' | '»')
        {
            end += 1;
        }
        let next = chars.get(end + 1).map(|(_, c)| *c);
        if !next.is_some_and(char::is_whitespace) {
            i = end + 1;
            continue;
        }
        if c == '.' && !ends_sentence(&line[start..at], &line[chars[end].0..]) {
            i = end + 1;
            continue;
        }
        let cut = chars[end].0 + chars[end].1.len_utf8();
        push_trimmed(&mut out, &line[start..cut]);
        start = cut;
        i = end + 1;
    }
    push_trimmed(&mut out, &line[start..]);
    out
}

/// Whether the full stop after `before` ends the sentence, `after` being the rest of the
/// line from that stop on.
fn ends_sentence(before: &str, after: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace() || "([\"'“‘".contains(c))
        .next()
        .unwrap_or("");
    let next = after.chars().skip(1).find(|c| c.is_alphanumeric());
    let lower = word.to_lowercase();
    // "J. R. R. Tolkien": a lone capital is an initial.
    let mut letters = word.chars();
    if let (Some(first), None) = (letters.next(), letters.next())
        && first.is_uppercase()
    {
        return false;
    }
    // "z. B. schon im Juni": a lone letter is shorthand too.
    if word.chars().count() == 1 && word.chars().all(char::is_alphabetic) {
        return false;
    }
    // "ab dem 10.04. und der Dachdecker", "Lindenstr. 23": a date written with its
    // closing stop (as German writes "the 10th of April"), or a street cut short, goes on
    // when what follows is lower case or a number.
    let goes_on = next.is_some_and(|c| c.is_lowercase() || c.is_ascii_digit());
    let dated = word.ends_with(|c: char| c.is_ascii_digit())
        && word.contains('.')
        && word.chars().all(|c| c.is_ascii_digit() || c == '.');
    if goes_on && (dated || lower.ends_with("str")) {
        return false;
    }
    if !ABBREVIATIONS.contains(&lower.as_str()) {
        return true;
    }
    // "Hr. Yıldız", "Fr. Meyer": capitalised, a title before a name, not an hour.
    if ["hr", "fr"].contains(&lower.as_str()) && word.starts_with(char::is_uppercase) {
        return false;
    }
    match lower.as_str() {
        // "No." as an answer ends a sentence; "No. 5" and "Account no. HFD-30418" do
        // not: the word after holds a digit.
        "no" | "nos" => !after[1..]
            .split_whitespace()
            .next()
            .is_some_and(|w| w.contains(|c: char| c.is_ascii_digit())),
        w if MAY_END.contains(&w) => next.is_some_and(char::is_uppercase),
        _ => false,
    }
}

fn push_trimmed<'a>(out: &mut Vec<&'a str>, s: &'a str) {
    let s = s.trim();
    if !s.is_empty() {
        out.push(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_and_the_lines_between_them_are_code() {
        let code: Vec<bool> = lines_with_code("a\n```rust\nx\n```\nb\n  ~~~\ny\n~~~\nc")
            .map(|(_, c)| c)
            .collect();
        assert_eq!(
            code,
            [false, true, true, true, false, true, true, true, false]
        );
        assert_eq!(bare("  - a point "), "a point");
        assert_eq!(bare("•item"), "item");
    }

    #[test]
    fn sentences_end_at_stops_not_at_abbreviations() {
        assert_eq!(
            split_sentences("The hotel is booked. Is it far? Yes!"),
            ["The hotel is booked.", "Is it far?", "Yes!"]
        );
        assert_eq!(
            split_sentences("Note 5: Dr. Sørensen moved the talk to room B2. Thanks."),
            ["Note 5: Dr. Sørensen moved the talk to room B2.", "Thanks."]
        );
        for whole in [
            "Mr. and Mrs. Okafor arrive with Ms. Zoë Lind at 9.",
            "We meet at St. Paul's, No. 5 on the list.",
            "It costs approx. 40 euros, e.g. for two, i.e. each pays 20.",
            "The -80 is in Rm. B2.17, top shelf.",
            "It is Porto vs. Málaga this year.",
            "J. R. R. Tolkien wrote it in version 3.5 of the notes.",
            // German: a title, a firm, a street, a date with its stop, shorthand.
            "Unser Elektriker ist Hr. Yıldız von der Fa. Elektro Brandl, Handy 0176 2234 9981.",
            "Das Haus steht in der Lindenstr. 23 in Bamberg.",
            "Das Gerüst steht ab dem 10.04. und der Dachdecker kommt am 14.04., er deckt neu.",
            "Wir wollen z. B. schon im Juni einziehen, inkl. Küche.",
            // Spanish: an avenue, a title, "about".
            "El autobús sale de la Avda. de Málaga 42 y la Sra. Ortega paga aprox. 180 €.",
        ] {
            assert_eq!(split_sentences(whole), [whole], "{whole}");
        }
        // An abbreviation a sentence may end with ends it before a capital.
        assert_eq!(
            split_sentences("Bring pens, paper, etc. The bus leaves at 8."),
            ["Bring pens, paper, etc.", "The bus leaves at 8."]
        );
        assert_eq!(
            split_sentences("It takes an hr. Then we eat."),
            ["It takes an hr.", "Then we eat."]
        );
        assert_eq!(
            split_sentences("Der Maler kommt am 2.06. Danach trocknet es."),
            ["Der Maler kommt am 2.06.", "Danach trocknet es."]
        );
        assert_eq!(
            split_sentences("No. The bus leaves at 8."),
            ["No.", "The bus leaves at 8."]
        );
        assert_eq!(
            split_sentences("Account no. HFD-30418. Any changes by noon."),
            ["Account no. HFD-30418.", "Any changes by noon."]
        );
        // Closing quotes stay with their sentence; "..." is one stop.
        assert_eq!(
            split_sentences("She said \"the room is B2.\" Then... we left."),
            ["She said \"the room is B2.\"", "Then...", "we left."]
        );
        assert_eq!(split_sentences("  "), Vec::<&str>::new());
    }
}

#[cfg(test)]
mod asks_tests {
    use super::{asks, premise};

    #[test]
    fn a_question_asks_with_or_without_its_mark() {
        for q in [
            "is it normal that half the sockets aren't earthed?",
            "are those compatible in a 3rd floor flat or do we need a pump",
            "how early do you have to put out signs",
            "what's a decent cordless drill for someone who will use it a lot",
            "which colour did we pick",
            "should I be wearing a mask for that",
            "do you think i should bring her something",
            "what do people pay a babysitter per hour in Dublin now, approx.",
            "random but what's a good first Norwegian phrase to learn that isn't 'hello'",
            "is 62 square metres big for two people there or is that normal",
            "oh and do I need winter tyres",
            "is that even legal??",
            "can u do the 14th??",
            "anyone know a plumber in Leeds??",
            "would Toronto get the top end do you think",
            "would a 1 hour 10 minute connection in Copenhagen be too tight",
            "can Priya do the Tuesday",
            "the blue one's better do you reckon",
            "what's left for the month after all that",
            "what's left to book",
            "what's left we still need to book for Rome",
            "what's left is how much after the £1,200 rent",
            "do soft play places usually do nut free",
            "does it normally take that long",
        ] {
            assert!(asks(q), "{q}");
        }
        for s in [
            "the front door code is 1953",
            "when the kitchen arrives, Branko connects it",
            "what we decided: port 8080",
            "do not deploy on Fridays",
            "have a look at the logs from 14:00",
            "how we deploy: blue-green, then the canary at 5%",
            "is it normal? no. but the code is 1953.",
            "who knows what's in the layers.",
            "what we pay: €14 an hour, approx.",
            "so we move on the 27th",
            "ok so it's happening",
            "right, the code is 4471",
            "she wants 6 months upfront??",
            "what's left over goes into a Chase saver at 4.1%",
            "is usually closed on Mondays, the chippy",
            "do a backup before the upgrade",
            "I think so, do you",
            "Did I mention the Tuesday slot is gone.",
            "Will Smith is the plumber, his number is 07700 900 123",
            "it's cheaper than you think",
            "we're going whether she likes it or not",
            "was a 2 hour drive in the end",
            "has a 3 year warranty",
            "Did Parkrun in 24:10",
            "Have Monday off so the viewing can be 10am",
            "Do NOT book the 6am flight, the 9:40 is fine",
            "Did a 5k this morning in 24:10",
            "Is a 3 bed semi, £1,450 pcm",
            "62 square metres is bigger than you reckon",
        ] {
            assert!(!asks(s), "{s}");
        }
        assert_eq!(
            premise("since the nets are booked under ref NX-3307 for Tuesdays, can I add a lane?"),
            Some("since the nets are booked under ref NX-3307 for Tuesdays")
        );
        assert_eq!(premise("can I add a lane, or a whole net?"), None);
        // A statement the question follows after a comma.
        assert_eq!(
            premise("His microchip number is 977200009123456, do I need to update it myself?"),
            Some("His microchip number is 977200009123456")
        );
        assert_eq!(premise("what about Friday, is that too late?"), None);
        assert_eq!(premise("ok, is it far?"), None);
        assert_eq!(
            premise("presales are at 64 which seems good?"),
            Some("presales are at 64")
        );
        assert_eq!(premise("is the flat which is cheaper better?"), None);
        assert_eq!(
            premise("the blue one which is £40 looks good, should I get it?"),
            Some("the blue one which is £40 looks good")
        );
        assert_eq!(premise("which one which is better?"), None);
    }
}
