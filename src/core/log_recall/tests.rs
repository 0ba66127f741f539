//! Tests of recall from the log.

use super::*;

fn index(lines: &[(u64, Role, &str)]) -> RecallIndex {
    let mut ix = RecallIndex::default();
    for (id, role, text) in lines {
        ix.add(MessageId(*id), *role, text);
    }
    ix
}

#[test]
fn a_question_finds_the_line_that_names_its_subject() {
    let mut lines = Vec::new();
    let texts: Vec<String> = (1..=24)
        .map(|k| {
            format!(
                "Note {k}: service-{k} listens on port {} and its config is /etc/service-{k}/config.yaml.",
                7000 + k * 10
            )
        })
        .collect();
    for (i, t) in texts.iter().enumerate() {
        lines.push((i as u64 * 2 + 2, Role::User, t.as_str()));
        lines.push((
            i as u64 * 2 + 3,
            Role::Assistant,
            "Got it, I will keep that in mind for the services.",
        ));
    }
    let ix = index(&lines);
    let hits = ix.search("Which port does service-3 listen on?", 3);
    assert!(!hits.is_empty());
    assert!(hits[0].text.contains("service-3 "), "{hits:?}");
    assert!(hits[0].text.contains("7030"));
    // Not service-13 or service-23 first.
    assert!(!hits[0].text.contains("service-13"));
}

#[test]
fn identifiers_match_whole_and_in_parts() {
    let ix = index(&[
        (
            2,
            Role::User,
            "The billing-api runs on 8081, config under /srv/billing/app.yaml.",
        ),
        (4, Role::User, "Our Wi-Fi is called orchid-5g."),
        (
            6,
            Role::User,
            "The thing blowing up is parse_header() in src/http/parse.rs.",
        ),
    ]);
    assert_eq!(
        ix.search("where is the billing config?", 1)[0].id,
        MessageId(2)
    );
    assert_eq!(
        ix.search("which function was parse_header again", 1)[0].id,
        MessageId(6)
    );
    assert_eq!(
        ix.search("what's in src/http/parse.rs", 1)[0].id,
        MessageId(6)
    );
    assert_eq!(ix.search("the wifi orchid-5g", 1)[0].id, MessageId(4));
    assert_eq!(ix.search("what is my wifi called?", 1)[0].id, MessageId(4));
}

#[test]
fn small_talk_recalls_nothing() {
    let ix = index(&[
        (2, Role::User, "The cache listens on port 6379."),
        (
            3,
            Role::Assistant,
            "Thanks, noted. Redis usually listens there.",
        ),
        (4, Role::User, "The nightly backup runs at 02:30 UTC."),
    ]);
    assert!(ix.search("Thanks, that's all for today!", 3).is_empty());
    assert!(ix.search("ok", 3).is_empty());
    assert!(ix.search("", 3).is_empty());
}

#[test]
fn the_person_wins_a_tie_with_the_model() {
    let ix = index(&[
        (2, Role::User, "The backup runs at 02:30."),
        (3, Role::Assistant, "The backup runs at 02:30."),
        (4, Role::User, "Our gateway listens on 8443."),
    ]);
    let hits = ix.search("when does the backup run", 3);
    assert_eq!(hits.len(), 1, "the same sentence is quoted once: {hits:?}");
    assert_eq!(hits[0].role, Role::User);
}

#[test]
fn long_sentences_are_quoted_around_the_match() {
    let long = format!(
        "{} the vault password rotates every 90 days {}",
        "filler words ".repeat(60),
        "more filler ".repeat(60)
    );
    let ix = index(&[
        (2, Role::User, &long),
        (4, Role::User, "The gateway listens on 8443."),
        (6, Role::User, "Backups run nightly at 02:30."),
        (8, Role::Assistant, "Sounds good, noted."),
    ]);
    let hits = ix.search("how often does the vault password rotate", 1);
    assert!(
        hits[0]
            .text
            .contains("vault password rotates every 90 days")
    );
    assert!(hits[0].text.chars().count() <= MAX_QUOTE_CHARS + 4);
}

#[test]
fn words_keep_identifiers_and_fold_endings() {
    let w = words("Service-13 listens on port 7130 at /etc/svc.");
    for expected in [
        "service-13",
        "service",
        "13",
        "listen",
        "port",
        "7130",
        "etc/svc",
        "etc",
        "svc",
    ] {
        assert!(w.contains(&expected.to_string()), "{expected} in {w:?}");
    }
    assert!(!w.contains(&"on".to_string()));
}

#[test]
fn a_function_word_in_capitals_is_a_word() {
    let has = |text: &str, w: &str| words(text).contains(&w.to_string());
    assert!(has("What's the number for IT?", "it"));
    assert!(has("IT problems go to Józef on the helpdesk", "it"));
    assert!(!has("It is on the shelf, put it back", "it"));
    // Shouted, every word is in capitals and none is an acronym.
    assert!(!has("IT IS ON THE SHELF", "it"));
    // Only the word in capitals: "9 AM" keeps no other "am".
    assert_eq!(
        words("Meet at 9 AM, I am late")
            .iter()
            .filter(|w| *w == "am")
            .count(),
        1
    );
}

/// A team-event chat: the workshop, the rooms, the hotel and the bus come up again and
/// again, so none of those words is rare; small talk between.
fn event_chat() -> Vec<(u64, Role, &'static str)> {
    vec![
        (
            2,
            Role::User,
            "We are planning the team offsite in Málaga for 40 people.",
        ),
        (
            3,
            Role::Assistant,
            "Great, an offsite in Málaga sounds lovely.",
        ),
        (4, Role::User, "The workshop starts on Tuesday at 9:30."),
        (
            5,
            Role::Assistant,
            "Noted, the workshop starts Tuesday morning.",
        ),
        (
            6,
            Role::User,
            "Zoë Lind runs the workshop and Łukasz handles the bus.",
        ),
        (7, Role::Assistant, "Zoë runs the workshop, Łukasz the bus."),
        (
            8,
            Role::User,
            "The hotel is the Miramar, next to the beach.",
        ),
        (9, Role::Assistant, "The hotel is next to the beach, nice."),
        (10, Role::User, "Every room at the hotel has a sea view."),
        (
            11,
            Role::Assistant,
            "A room with a sea view for everyone, lovely.",
        ),
        (
            12,
            Role::User,
            "The workshop room is Sala Picasso on the first floor.",
        ),
        (
            13,
            Role::Assistant,
            "The workshop has its room on the first floor.",
        ),
        (14, Role::User, "Lunch after the workshop is at the hotel."),
        (
            15,
            Role::Assistant,
            "Lunch at the hotel after the workshop, got it.",
        ),
        (
            16,
            Role::User,
            "The bus leaves the hotel at 8:45 for the workshop.",
        ),
        (
            17,
            Role::Assistant,
            "The bus leaves the hotel before the workshop.",
        ),
        (
            18,
            Role::User,
            "Sørensen pays the dinner, approx. 35 euros a head.",
        ),
        (19, Role::Assistant, "Thanks for the details, that helps."),
        (20, Role::User, "The weather should be warm and sunny."),
        (
            21,
            Role::Assistant,
            "Warm weather is good for the workshop break.",
        ),
    ]
}

#[test]
fn accents_fold_and_every_script_is_read() {
    assert_eq!(
        words("Zoë's Málaga Łukasz Sørensen Straße"),
        ["zoe", "malaga", "lukasz", "sorensen", "strasse"]
    );
    // Marks stay on scripts whose marks are letters' parts; ideographs are words.
    assert_eq!(words("東京の会議"), ["東", "京", "の", "会", "議"]);
    assert_eq!(words("Встреча в Москве"), ["встреча", "в", "москве"]);
    // A mark typed apart folds too; other scripts keep theirs.
    assert_eq!(words("Zoe\u{308} İstanbul"), ["zoe", "istanbul"]);
    assert_eq!(fold("नमस्ते 한국"), "नमस्ते 한국");
    assert!(
        words("don't we'll that's").is_empty(),
        "{:?}",
        words("don't we'll that's")
    );
    let ix = index(&event_chat());
    for (query, expected) in [
        ("Who runs the workshop, Zoe?", 6),
        ("What does Lukasz handle?", 6),
        ("How much does Sorensen pay?", 18),
        ("How many people come to Malaga?", 2),
        ("Who pays, Sørensen?", 18),
    ] {
        let hits = ix.search(query, 3);
        assert_eq!(
            hits.first().map(|h| h.id),
            Some(MessageId(expected)),
            "{query}: {hits:?}"
        );
    }
}

#[test]
fn a_question_whose_words_are_everywhere_finds_the_sentence_holding_them_all() {
    let ix = index(&event_chat());
    // "workshop" and "room" are in a third of the sentences: neither is rare.
    let hits = ix.search("In which room is the workshop?", 3);
    assert!(!hits.is_empty());
    assert!(hits[0].text.contains("Sala Picasso"), "{hits:?}");
    // Three words of the question, all common, stand in one sentence.
    let hits = ix.search("bus hotel workshop?", 3);
    assert!(hits[0].text.contains("8:45"), "{hits:?}");
    // Small talk still recalls nothing.
    for talk in [
        "Thanks, that's all!",
        "ok great, sounds good",
        "Thank you so much, that's really helpful.",
        "Answer in one short sentence.",
        "Good morning!",
    ] {
        assert!(
            ix.search(talk, 3).is_empty(),
            "{talk}: {:?}",
            ix.search(talk, 3)
        );
    }
}

#[test]
fn the_persons_correction_ranks_above_the_models_paraphrase_and_earlier_questions() {
    let mut chat = event_chat();
    chat.extend([
        (22, Role::User, "Which room is the dinner in?"),
        (23, Role::Assistant, "The dinner room is not decided yet."),
        (24, Role::User, "The dinner is in the Terrace room."),
        (
            25,
            Role::Assistant,
            "The dinner room is confirmed for the evening.",
        ),
        (
            26,
            Role::User,
            "Actually, the dinner moved to the Garden room.",
        ),
        (
            27,
            Role::Assistant,
            "Understood, the dinner moved to another room.",
        ),
    ]);
    let ix = index(&chat);
    let hits = ix.search("Which room is the dinner in?", 4);
    assert!(hits[0].text.contains("Garden"), "{hits:?}");
    assert_eq!(hits[0].role, Role::User);
    let place = |needle: &str| hits.iter().position(|h| h.text.contains(needle));
    // The earlier question, worded as this one, ranks below every statement of it.
    if let Some(q) = place("Which room is the dinner in?") {
        assert!(place("Terrace").is_none_or(|t| t < q), "{hits:?}");
    }
    // The person's older statement ranks above the model's paraphrases without a value.
    if let (Some(t), Some(m)) = (place("Terrace"), place("confirmed")) {
        assert!(t < m, "{hits:?}");
    }
}

#[test]
fn instructions_are_not_indexed_and_do_not_weigh_in_a_query() {
    let mut chat: Vec<(u64, Role, &str)> = event_chat()
        .into_iter()
        .filter(|(_, _, t)| !t.contains("dinner"))
        .collect();
    chat.extend([
        (
            30,
            Role::User,
            "What time is the dinner? Answer in one short sentence.",
        ),
        (31, Role::Assistant, "I do not know yet."),
        (
            32,
            Role::User,
            "The dinner is at 19:30 at Cervejaria Ramiro.",
        ),
        (34, Role::User, "Please keep it brief."),
    ]);
    let ix = index(&chat);
    assert_eq!(
        RecallIndex::sentences("What time is the dinner? Answer in one short sentence."),
        ["What time is the dinner?"]
    );
    assert!(RecallIndex::sentences("Please keep it brief.").is_empty());
    let hits = ix.search("Where is the dinner? Answer in one short sentence.", 3);
    assert_eq!(hits[0].id, MessageId(32), "{hits:?}");
    assert!(hits.iter().all(|h| !h.text.contains("Answer")), "{hits:?}");
    // A request worded as an instruction still asks.
    assert_eq!(
        ix.search("Tell me the dinner place.", 1)[0].id,
        MessageId(32)
    );
}

#[test]
fn sentences_are_keyed_by_their_place_in_the_message() {
    let text = "Note 5: Dr. Okafor moved the talk to B2.\n```\ncode here.\n```\n- Answer briefly.\n- The bus leaves at 8:45. Thanks!";
    assert_eq!(
        RecallIndex::sentences(text),
        [
            "Note 5: Dr. Okafor moved the talk to B2.",
            "The bus leaves at 8:45."
        ]
    );
    let ix = index(&[(7, Role::User, text)]);
    let hit = &ix.search("when does the bus leave", 1)[0];
    assert_eq!((hit.id, hit.sentence), (MessageId(7), 1));
    let hit = &ix.search("Who is Dr. Okafor?", 1)[0];
    assert!(hit.text.starts_with("Note 5: Dr. Okafor"), "{hit:?}");
}

/// Vectors for a toy model of four concepts (money, sleeping, transport, other): the
/// test says which sentences mean what.
fn vectors_for(ix_lines: &[(u64, Role, &str)], meaning: &[(&str, [f32; 4])]) -> SentenceVectors {
    let mut store = SentenceVectors::default();
    for (id, _, text) in ix_lines {
        let vectors: Vec<Vec<f32>> = RecallIndex::sentences(text)
            .iter()
            .map(|s| {
                meaning
                    .iter()
                    .find(|(needle, _)| s.contains(needle))
                    .map_or(vec![0.05, 0.05, 0.05, 1.0], |(_, v)| v.to_vec())
            })
            .collect();
        assert_eq!(store.insert_message(MessageId(*id), vectors), Ok(()));
    }
    store
}

#[test]
fn a_question_worded_unlike_the_fact_is_found_through_vectors() {
    let chat = [
        (2, Role::User, "I kept the receipt for the taxi, 42 euros."),
        (3, Role::Assistant, "Good idea to keep it."),
        (
            4,
            Role::User,
            "The hotel is the Miramar, next to the beach.",
        ),
        (5, Role::User, "The bus leaves at 8:45."),
        (6, Role::User, "The weather should be warm."),
    ];
    let ix = index(&chat);
    let store = vectors_for(
        &chat,
        &[
            ("receipt", [1.0, 0.0, 0.1, 0.1]),
            ("hotel", [0.0, 1.0, 0.1, 0.1]),
            ("bus", [0.1, 0.0, 1.0, 0.1]),
        ],
    );
    let claim = "How much was my expense claim?";
    assert!(ix.search(claim, 3).is_empty(), "no shared word");
    let hits = ix.search_with(claim, Some(&[0.9, 0.1, 0.1, 0.2]), &store, 3);
    assert_eq!(hits.len(), 1, "only the near one: {hits:?}");
    assert_eq!((hits[0].id, hits[0].sentence), (MessageId(2), 0));
    let hits = ix.search_with(
        "Where are we sleeping?",
        Some(&[0.1, 0.8, 0.0, 0.3]),
        &store,
        3,
    );
    assert_eq!(hits[0].id, MessageId(4), "{hits:?}");
    // Far from everything: nothing.
    assert!(
        ix.search_with(
            "What about the budget?",
            Some(&[0.0, 0.0, 0.0, -1.0]),
            &store,
            3
        )
        .is_empty()
    );
    // Small talk recalls nothing however near its vector.
    assert!(
        ix.search_with("thanks!", Some(&[1.0, 0.0, 0.1, 0.1]), &store, 3)
            .is_empty()
    );
    // Nor does small talk with a word of its own: it asks nothing.
    assert!(
        ix.search_with(
            "Thanks, that's all for today!",
            Some(&[1.0, 0.0, 0.1, 0.1]),
            &store,
            3
        )
        .is_empty()
    );
    // A request to be reminded asks.
    let hits = ix.search_with(
        "Remind me about the expense claim.",
        Some(&[0.9, 0.1, 0.1, 0.2]),
        &store,
        3,
    );
    assert_eq!(hits[0].id, MessageId(2), "{hits:?}");
    // Another model's vector (another dimension) is BM25 alone.
    assert_eq!(
        ix.search_with("when does the bus leave", Some(&[1.0; 3]), &store, 3),
        ix.search("when does the bus leave", 3)
    );
}

#[test]
fn words_and_vectors_agreeing_rank_first() {
    let chat = [
        (2, Role::User, "The bus to the airport leaves at 8:45."),
        (
            4,
            Role::User,
            "The shuttle to the airport runs every 25 minutes.",
        ),
        (6, Role::User, "The airport is 20 minutes away."),
    ];
    let ix = index(&chat);
    let store = vectors_for(
        &chat,
        &[
            ("bus", [0.0, 0.0, 1.0, 0.2]),
            ("shuttle", [0.0, 0.0, 0.9, 0.3]),
            ("away", [0.0, 0.0, 0.2, 1.0]),
        ],
    );
    let query = "When does the airport bus leave?";
    let words_only = ix.search(query, 3);
    assert_eq!(words_only[0].id, MessageId(2));
    let fused = ix.search_with(query, Some(&[0.0, 0.0, 1.0, 0.25]), &store, 3);
    // The bus sentence is first by both; the shuttle, near by meaning, comes next.
    assert_eq!(fused[0].id, MessageId(2), "{fused:?}");
    assert!(fused.iter().any(|h| h.id == MessageId(4)), "{fused:?}");
}

#[test]
fn the_order_messages_were_folded_in_does_not_change_what_is_recalled() {
    // Replay may fold in another order than the live session did (a person's message
    // kept back at first and folded later): ties must fall the same way.
    let mut chat = event_chat();
    chat.extend([
        (
            40,
            Role::User,
            "The bus leaves the hotel at 8:45 for the workshop.",
        ),
        (
            41,
            Role::Assistant,
            "The workshop room is on the first floor.",
        ),
        (42, Role::User, "The workshop room is on the first floor."),
    ]);
    let forward = index(&chat);
    let mut reversed = chat.clone();
    reversed.reverse();
    let backward = index(&reversed);
    for query in [
        "In which room is the workshop?",
        "bus hotel workshop?",
        "When does the bus leave?",
        "Who runs the workshop?",
    ] {
        assert_eq!(
            forward.search(query, 3),
            backward.search(query, 3),
            "{query}"
        );
    }
}
