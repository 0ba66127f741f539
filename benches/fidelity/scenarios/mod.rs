//! Scripted conversations of different kinds. Each plants facts — a value with its
//! subject — among other talk, and ends with a quiz about them. One decision is locked on
//! the goal board at the start; in the planning thread some facts change later, and the
//! latest value must win.
//!
//! The scripts are written to be ordinary conversations, not to suit one strategy: the
//! facts sit in the person's messages (the model's replies vary), chit-chat and long
//! distractors sit between them, and questions ask for the fact by its subject.

mod allotment;
mod altbau;
mod band_gig;
mod bathroom;
mod boda;
mod budget_sheet;
mod car_claim;
mod car_hunt;
mod classic;
mod coding24;
mod conf_talk;
mod dads_meds;
mod dnd_campaign;
mod first_week;
mod fits;
mod flat_texts;
mod freelance_tax;
mod homelab;
mod japan_trip;
mod job_offer;
mod kids_party;
mod lab_notebook;
mod leaving_do;
mod marathon;
mod moving_north;
mod mums_seventy;
mod night_shift;
mod offsite;
mod old_dog;
mod rota;
mod school_run;
mod services;
mod short_fit;
mod sourdough;
mod standup;
mod trip;
mod varied;
mod visa_run;

/// A fact planted in the conversation.
#[derive(Debug, Clone)]
pub struct Fact {
    /// Words that name what the value belongs to (any one counts, case-insensitive).
    pub subject: &'static [&'static str],
    pub value: &'static str,
    /// Earlier values the conversation replaced, oldest first, so the last is the one
    /// the latest correction replaced ("A, no B, wait no C": `["A", "B"]`). None of them
    /// may win.
    pub stale: Vec<&'static str>,
    /// A detail the model made up and the person rejected in the fact's turn ("I never
    /// said there'd be a shuttle — there's no shuttle"): a passage or an answer that
    /// names it without denying it does not give the fact. A "no shuttle" is not a fact
    /// of its own: a negation has no value to find, and "no shuttle", "there isn't one"
    /// and "people walk" all say it; what the person said instead (the train they take)
    /// is the fact, and the invention is what must not stand beside it.
    pub rejected: Option<&'static str>,
    /// The turn (0-based) whose message states it last.
    pub turn: usize,
}

impl Fact {
    /// The same fact, said in a turn that rejects `detail`, which the model invented.
    fn rejecting(self, detail: &'static str) -> Fact {
        Fact {
            rejected: Some(detail),
            ..self
        }
    }
}

/// A question for the end, about one fact.
#[derive(Debug, Clone)]
pub struct Question {
    pub ask: &'static str,
    /// Index into the scenario's facts.
    pub fact: usize,
}

#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: &'static str,
    /// A decision locked on the goal board before the first turn.
    pub locked: &'static str,
    pub turns: Vec<String>,
    pub facts: Vec<Fact>,
    pub quiz: Vec<Question>,
}

impl Scenario {
    /// Whether `fact` is said in the first third of the chat: where plain truncation has
    /// nothing left at the end, so what a strategy keeps there is what it adds.
    pub fn early(&self, fact: &Fact) -> bool {
        fact.turn * 3 < self.turns.len()
    }

    /// The first `n` turns, with the facts and questions they plant.
    pub fn truncated(&self, n: usize) -> Scenario {
        let n = n.min(self.turns.len());
        let keep: Vec<bool> = self.facts.iter().map(|f| f.turn < n).collect();
        let mut index = vec![usize::MAX; self.facts.len()];
        let mut facts = Vec::new();
        for (i, f) in self.facts.iter().enumerate() {
            if keep[i] {
                index[i] = facts.len();
                facts.push(f.clone());
            }
        }
        Scenario {
            name: self.name,
            locked: self.locked,
            turns: self.turns[..n].to_vec(),
            quiz: self
                .quiz
                .iter()
                .filter(|q| keep[q.fact])
                .map(|q| Question {
                    ask: q.ask,
                    fact: index[q.fact],
                })
                .collect(),
            facts,
        }
    }
}

/// Side questions a person asks between the scripted turns of a stretched scenario: the
/// kind of talk that fills a long session and has nothing to keep.
const SIDE_QUESTIONS: &[&str] = &[
    "By the way, how do I write a good README for a small project?",
    "What is the difference between a process and a thread?",
    "Can you suggest a short warm-up routine before a run?",
    "Why do some bridges sway in the wind?",
    "How would you explain recursion to a beginner?",
    "What makes a good code review comment?",
    "Any advice for keeping a plant alive in a dark office?",
    "How do noise-cancelling headphones work?",
    "What should I look for when choosing a mechanical keyboard?",
    "Why is the sky blue, in two sentences?",
    "How do I say no to a meeting politely?",
    "What is a good way to learn a new programming language quickly?",
    "How do I make a decent cup of pour-over coffee?",
    "What is the idea behind spaced repetition?",
    "Why do cats purr?",
    "What are the pros and cons of a standing desk?",
    "How do vaccines train the immune system, briefly?",
    "What is a sensible way to name variables?",
    "How did people navigate at sea before GPS?",
    "What is the best way to take notes in a meeting?",
    "Why does bread go stale?",
    "How do I keep a long-running side project motivating?",
    "What is the difference between weather and climate?",
    "How should I structure a five-minute talk?",
];

impl Scenario {
    /// The same script with `k` side questions after every scripted turn but the last: a
    /// longer session with the same facts, for contexts where the script alone folds too
    /// little to measure.
    pub fn stretched(&self, k: usize) -> Scenario {
        let mut turns = Vec::with_capacity(self.turns.len() * (k + 1));
        let mut next = 0;
        for (i, t) in self.turns.iter().enumerate() {
            turns.push(t.clone());
            if i + 1 < self.turns.len() {
                for _ in 0..k {
                    turns.push(SIDE_QUESTIONS[next % SIDE_QUESTIONS.len()].to_string());
                    next += 1;
                }
            }
        }
        Scenario {
            name: self.name,
            locked: self.locked,
            turns,
            facts: self
                .facts
                .iter()
                .map(|f| Fact {
                    turn: f.turn * (k + 1),
                    ..f.clone()
                })
                .collect(),
            quiz: self.quiz.clone(),
        }
    }
}

fn fact(subject: &'static [&'static str], value: &'static str, turn: usize) -> Fact {
    Fact {
        subject,
        value,
        stale: Vec::new(),
        rejected: None,
        turn,
    }
}

fn changed(
    subject: &'static [&'static str],
    value: &'static str,
    stale: &'static str,
    turn: usize,
) -> Fact {
    changed_from(subject, value, &[stale], turn)
}

/// A fact corrected more than once: `stale` holds the replaced values, oldest first.
fn changed_from(
    subject: &'static [&'static str],
    value: &'static str,
    stale: &[&'static str],
    turn: usize,
) -> Fact {
    Fact {
        stale: stale.to_vec(),
        ..fact(subject, value, turn)
    }
}

/// A long turn of text that has nothing to do with the facts.
fn distractor(topic: &str) -> String {
    format!(
        "Unrelated, but I am curious about {topic}. Here is some background I read: {}\
         What would you say are the two most important points about {topic}?",
        "Historians and practitioners have argued about it for a long time, and the debate \
         keeps coming back because every generation finds new evidence, new tools and new \
         reasons to look again at what seemed settled. Some say the details matter less than \
         the overall shape; others say the opposite. "
            .repeat(3)
    )
}

/// Every scenario, by name.
pub fn all() -> Vec<Scenario> {
    vec![
        classic::facts_among_chat(),
        classic::coding_session(),
        classic::planning_thread(),
        classic::long_distractors(),
        classic::operations_log(),
        services::services(),
        coding24::coding24(),
        varied::varied(),
        trip::trip(),
        offsite::offsite(),
        fits::fits(),
        marathon::marathon(),
        night_shift::night_shift(),
        standup::standup(),
        lab_notebook::lab_notebook(),
        short_fit::short_fit(),
        school_run::school_run(),
        moving_north::moving_north(),
        allotment::allotment(),
        altbau::altbau(),
        old_dog::old_dog(),
        boda::boda(),
        first_week::first_week(),
        car_hunt::car_hunt(),
        mums_seventy::mums_seventy(),
        rota::rota(),
        sourdough::sourdough(),
        flat_texts::flat_texts(),
        dads_meds::dads_meds(),
        freelance_tax::freelance_tax(),
        leaving_do::leaving_do(),
        homelab::homelab(),
        visa_run::visa_run(),
        band_gig::band_gig(),
        car_claim::car_claim(),
        dnd_campaign::dnd_campaign(),
        job_offer::job_offer(),
        conf_talk::conf_talk(),
        bathroom::bathroom(),
        budget_sheet::budget_sheet(),
        japan_trip::japan_trip(),
        kids_party::kids_party(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fact_is_stated_in_its_turn_and_every_question_names_a_fact() {
        let stretched = all().iter().map(|s| s.stretched(2)).collect::<Vec<_>>();
        for s in all().into_iter().chain(stretched) {
            for f in &s.facts {
                assert!(
                    s.turns[f.turn].contains(f.value.trim_end_matches("()")),
                    "{}: {} not in turn {}",
                    s.name,
                    f.value,
                    f.turn
                );
                // Said with its own subject: checked in `score.rs`, which reads facts.
                // Every replaced value was said before, in the order `stale` lists them:
                // the last is the one the latest correction replaced.
                let said = |v: &str| s.turns[..f.turn].iter().position(|t| t.contains(v));
                let mut before = 0;
                for stale in &f.stale {
                    let at =
                        said(stale).unwrap_or_else(|| panic!("{}: {stale} never said", s.name));
                    assert!(
                        at >= before,
                        "{}: {stale} said before the value it replaced",
                        s.name
                    );
                    before = at;
                }
                // A rejected invention is rejected where the fact is said.
                if let Some(detail) = f.rejected {
                    assert!(
                        s.turns[f.turn]
                            .to_lowercase()
                            .contains(&format!("no {detail}")),
                        "{}: turn {} does not reject {detail}",
                        s.name,
                        f.turn
                    );
                }
            }
            assert!(s.quiz.iter().all(|q| q.fact < s.facts.len()));
        }
    }

    /// Words that name no fact in particular: beside them a value says nothing about what
    /// it belongs to ("the port is 8081" — which service's?).
    const GENERIC: &[&str] = &[
        "test", "tests", "line", "run", "file", "files", "port", "error", "errors", "config",
        "function", "fail", "fails", "failing", "return", "max", "user", "client", "env", "value",
        "service", "server", "name", "time", "date", "version", "number", "limit", "host", "path",
        "network", "email", "city",
    ];

    #[test]
    fn no_fact_counts_beside_a_generic_word_alone() {
        for s in all() {
            for f in &s.facts {
                assert!(
                    !f.subject.is_empty(),
                    "{}: {} has no subject",
                    s.name,
                    f.value
                );
                for w in f.subject {
                    assert!(
                        !GENERIC.contains(&w.to_lowercase().as_str()),
                        "{}: {} has the generic subject {w:?}",
                        s.name,
                        f.value
                    );
                }
            }
        }
    }

    #[test]
    fn the_chats_of_28_are_long_and_ask_about_their_first_third() {
        for s in [services::services(), coding24::coding24(), varied::varied()] {
            let name = s.name;
            assert!(s.turns.len() >= 24, "{name}: {} turns", s.turns.len());
            assert!(!s.locked.is_empty());
            let early = s.quiz.iter().filter(|q| s.early(&s.facts[q.fact])).count();
            assert!(
                (4..=6).contains(&early) && early * 2 > s.quiz.len(),
                "{name}: {early} of {} questions on the first third",
                s.quiz.len()
            );
            // Stretched, the same questions stay on the first third.
            let long = s.stretched(2);
            let early_long = long
                .quiz
                .iter()
                .filter(|q| long.early(&long.facts[q.fact]))
                .count();
            assert_eq!(early_long, early, "{name} stretched");
        }
    }

    /// The chats of #35: every chat from `trip` on, but the four written for other
    /// issues in between.
    fn chats_of_35() -> Vec<Scenario> {
        const OTHERS: [&str; 4] = ["night_shift", "standup", "lab_notebook", "short_fit"];
        all()
            .into_iter()
            .skip_while(|s| s.name != "trip")
            .filter(|s| !OTHERS.contains(&s.name))
            .collect()
    }

    /// How many of `s`'s questions are about the first third.
    fn early_questions(s: &Scenario) -> usize {
        s.quiz.iter().filter(|q| s.early(&s.facts[q.fact])).count()
    }

    /// Questions worded unlike the statement: none of the fact's subject words that its
    /// turn says is in the question ("expense claim" for what was said as "receipt").
    fn worded_otherwise(s: &Scenario) -> Vec<&'static str> {
        s.quiz
            .iter()
            .filter(|q| {
                let f = &s.facts[q.fact];
                let said = s.turns[f.turn].to_lowercase();
                let ask = q.ask.to_lowercase();
                !f.subject
                    .iter()
                    .any(|w| said.contains(&w.to_lowercase()) && ask.contains(&w.to_lowercase()))
            })
            .map(|q| q.ask)
            .collect()
    }

    #[test]
    fn the_chats_of_35_ask_mostly_about_their_first_third() {
        for s in chats_of_35() {
            let name = s.name;
            assert!(!s.locked.is_empty());
            // The locked decision is on the goal board in every request of ours: it must
            // not hand ours a fact the baselines have to keep.
            for f in &s.facts {
                assert!(!s.locked.contains(f.value), "{name}: {} is locked", f.value);
            }
            let early = early_questions(&s);
            assert!(
                early * 2 > s.quiz.len(),
                "{name}: {early} of {} questions on the first third",
                s.quiz.len()
            );
            let long = s.stretched(2);
            assert_eq!(early_questions(&long), early, "{name} stretched");
        }
    }

    #[test]
    fn trip_has_accented_names_abbreviations_and_questions_in_other_words() {
        let s = trip::trip();
        assert!(
            (22..=26).contains(&s.turns.len()),
            "{} turns",
            s.turns.len()
        );
        assert_eq!(s.facts.len(), 12);
        // Names and places outside ASCII, in the turns and among the facts.
        let text = s.turns.join("\n");
        for name in [
            "Zoë",
            "José",
            "Łukasz",
            "Sørensen",
            "Müller",
            "Málaga",
            "Zürich",
            "Kraków",
        ] {
            assert!(text.contains(name), "{name}");
        }
        let accented = s
            .facts
            .iter()
            .filter(|f| f.subject.iter().any(|w| !w.is_ascii()) || !f.value.is_ascii())
            .count();
        assert!(accented >= 4, "{accented} facts with an accent");
        // Abbreviations with a period inside a sentence (a word follows in lower case or
        // a name), not at its end.
        let abbreviations = ["Dr. O", "Mr. M", "No. 12", "approx. ", "e.g. ", "St. P"]
            .iter()
            .filter(|a| text.contains(*a))
            .count();
        assert!(abbreviations >= 5, "{abbreviations}");
        assert!(text.contains("Flight LH 1234"));
        // One correction, said as people say it.
        let corrected: Vec<_> = s.facts.iter().filter(|f| !f.stale.is_empty()).collect();
        assert_eq!(corrected.len(), 1);
        assert!(s.turns[corrected[0].turn].starts_with("wait no"));
        let otherwise = worded_otherwise(&s);
        assert!(otherwise.len() >= 2, "{otherwise:?}");
    }

    #[test]
    fn school_run_says_several_peoples_values_at_once_and_asks_mostly_about_its_start() {
        let s = school_run::school_run();
        assert!(s.turns.len() >= 45, "{} turns", s.turns.len());
        // One sentence holds three children's sizes: each counts beside its own name.
        let sizes = &s.turns[2];
        for child in ["Maya", "Leo", "Aoife"] {
            assert!(sizes.contains(child), "{child}");
        }
        let by_name: Vec<_> = s.facts.iter().filter(|f| f.turn == 2).collect();
        assert!(by_name.len() >= 2 && by_name.iter().all(|f| f.subject.len() == 1));
        // A price corrected twice, a moved meeting, a rejected invention.
        assert!(s.facts.iter().any(|f| f.stale.len() == 2));
        assert!(s.facts.iter().filter(|f| !f.stale.is_empty()).count() >= 3);
        assert!(s.facts.iter().any(|f| f.rejected.is_some()));
        assert!(
            worded_otherwise(&s).len() >= 3,
            "{:?}",
            worded_otherwise(&s)
        );
    }

    #[test]
    fn moving_north_writes_facts_as_labels_and_corrects_a_date_twice() {
        let s = moving_north::moving_north();
        assert!(s.turns.len() >= 50, "{} turns", s.turns.len());
        // Facts written as labels, not sentences.
        assert!(s.turns.iter().any(|t| t.starts_with("Visa: ")));
        assert!(s.turns.iter().any(|t| t.starts_with("Flat — ")));
        // "sorry, I meant …", a date moved twice, a number the model made up.
        assert!(s.turns.iter().any(|t| t.starts_with("sorry, I meant")));
        assert!(s.facts.iter().any(|f| f.stale.len() == 2));
        assert!(s.facts.iter().any(|f| f.rejected.is_some()));
        assert!(
            worded_otherwise(&s).len() >= 4,
            "{:?}",
            worded_otherwise(&s)
        );
    }

    #[test]
    fn allotment_is_typed_in_lower_case_run_ons() {
        let s = allotment::allotment();
        assert!(s.turns.len() >= 40, "{} turns", s.turns.len());
        // Long messages without a full stop, several facts in one.
        let run_ons = s
            .turns
            .iter()
            .filter(|t| t.split_whitespace().count() >= 30 && !t.contains(". "))
            .count();
        assert!(run_ons >= 8, "{run_ons} run-on messages");
        assert!(s.turns.iter().any(|t| t.starts_with("wait no")));
        assert!(
            worded_otherwise(&s).len() >= 2,
            "{:?}",
            worded_otherwise(&s)
        );
    }

    #[test]
    fn offsite_corrects_twice_and_rejects_an_invention() {
        let s = offsite::offsite();
        assert!(
            (24..=28).contains(&s.turns.len()),
            "{} turns",
            s.turns.len()
        );
        let corrected = s.facts.iter().filter(|f| !f.stale.is_empty()).count();
        assert!(corrected >= 2, "{corrected} corrections");
        let venue = s.facts.iter().find(|f| f.value == "Villa Sonnenberg");
        assert_eq!(
            venue.map(|f| f.stale.clone()),
            Some(vec!["Seehof Brunnen", "Haus Ahorn"]),
            "the venue changes twice, the latest replaced value last"
        );
        let rejected: Vec<_> = s.facts.iter().filter(|f| f.rejected.is_some()).collect();
        assert_eq!(rejected.len(), 1);
        // The invention is never the person's: no turn before the rejection names it.
        let detail = rejected[0].rejected.unwrap_or_default();
        assert!(
            s.turns[..rejected[0].turn]
                .iter()
                .all(|t| !t.to_lowercase().contains(detail))
        );
        // A question about it.
        assert!(s.quiz.iter().any(|q| s.facts[q.fact].rejected.is_some()));
        let otherwise = worded_otherwise(&s);
        assert!(otherwise.len() >= 2, "{otherwise:?}");
    }

    #[test]
    fn fits_is_short_enough_to_fit_2048_whole() {
        use ollm_tui::core::tokens::{Tiktoken, Tokenizer};
        let s = fits::fits();
        assert!(
            (12..=16).contains(&s.turns.len()),
            "{} turns",
            s.turns.len()
        );
        // The person's text; with replies of a few sentences (~50 tokens each) the chat
        // stays well under 1,200 tokens, so with the system prompt it fits 2048.
        let tok = Tiktoken::new().unwrap_or_else(|e| panic!("{e}"));
        let person: u32 = s.turns.iter().map(|t| tok.count(t)).sum();
        assert!(person < 250, "{person} tokens");
        assert!(s.facts.iter().all(|f| f.stale.is_empty()));
    }

    #[test]
    fn marathon_is_long_and_truncation_keeps_nothing_of_its_first_third() {
        use ollm_tui::core::tokens::{Tiktoken, Tokenizer};
        let s = marathon::marathon();
        let n = s.turns.len();
        assert!(n >= 60, "{n} turns");
        let early_facts = s.facts.iter().filter(|f| s.early(f)).count();
        assert!(
            early_facts * 2 >= s.facts.len(),
            "{early_facts} early facts"
        );
        let early = early_questions(&s);
        assert!(
            early >= 6 && early * 2 >= s.quiz.len(),
            "{early} early questions"
        );
        // After the first third, the person's own text alone is more than a 4096-token
        // window: whatever the replies, truncation keeps none of the first third.
        let tok = Tiktoken::new().unwrap_or_else(|e| panic!("{e}"));
        let first_later = (0..n).find(|&t| t * 3 >= n).unwrap_or(n);
        let later: u32 = s.turns[first_later..].iter().map(|t| tok.count(t)).sum();
        assert!(later > 4096, "{later} tokens after the first third");
        // Its filler is its own.
        assert!(
            s.turns
                .iter()
                .all(|t| !SIDE_QUESTIONS.contains(&t.as_str()))
        );
    }

    #[test]
    fn lab_notebook_is_long_and_asks_mostly_about_its_first_third() {
        let s = lab_notebook::lab_notebook();
        let n = s.turns.len();
        assert!(n >= 64, "{n} turns");
        assert!(
            (14..=18).contains(&s.facts.len()),
            "{} facts",
            s.facts.len()
        );
        let early_facts = s.facts.iter().filter(|f| s.early(f)).count();
        assert!(
            early_facts * 3 >= s.facts.len() * 2,
            "{early_facts} early facts of {}",
            s.facts.len()
        );
        for f in &s.facts {
            assert!(!s.locked.contains(f.value), "{} is locked", f.value);
        }
        assert_eq!(s.quiz.len(), 10);
        let early = early_questions(&s);
        assert!(early >= 7, "{early} early questions");
        assert_eq!(early_questions(&s.stretched(2)), early, "stretched");
        let otherwise = worded_otherwise(&s);
        assert!(otherwise.len() >= 5, "{otherwise:?}");
        // Two corrections, one of them across two sentences.
        let corrected: Vec<_> = s.facts.iter().filter(|f| !f.stale.is_empty()).collect();
        assert_eq!(corrected.len(), 2);
        assert!(
            corrected
                .iter()
                .any(|f| s.turns[f.turn].starts_with("Remember I said"))
        );
        // One invention rejected, never named by the person before.
        let rejected: Vec<_> = s.facts.iter().filter(|f| f.rejected.is_some()).collect();
        assert_eq!(rejected.len(), 1);
        let detail = rejected[0].rejected.unwrap_or_default();
        assert!(
            s.turns[..rejected[0].turn]
                .iter()
                .all(|t| !t.to_lowercase().contains(detail))
        );
        // Names outside ASCII and abbreviations inside sentences.
        let text = s.turns.join("\n");
        for name in ["Zsófia", "Nguyễn", "Ólafur"] {
            assert!(text.contains(name), "{name}");
        }
        for abbreviation in ["Prof. Z", "Rm. B", "approx. ", "e.g. ", "ext. "] {
            assert!(text.contains(abbreviation), "{abbreviation}");
        }
    }

    #[test]
    fn short_fit_is_short_enough_to_fit_2048_whole() {
        use ollm_tui::core::tokens::{Tiktoken, Tokenizer};
        let s = short_fit::short_fit();
        assert!(
            (12..=14).contains(&s.turns.len()),
            "{} turns",
            s.turns.len()
        );
        let tok = Tiktoken::new().unwrap_or_else(|e| panic!("{e}"));
        let person: u32 = s.turns.iter().map(|t| tok.count(t)).sum();
        assert!(person < 400, "{person} tokens");
        assert_eq!(s.facts.len(), 6);
        assert_eq!(s.facts.iter().filter(|f| !f.stale.is_empty()).count(), 1);
        assert_eq!(s.quiz.len(), 4);
    }

    #[test]
    fn services_are_said_in_more_than_one_shape() {
        // Some pasted as template notes, most not: a rule for one template cannot win.
        let s = services::services();
        let noted = |t: &String| t.contains("Note ") && t.contains("listens on port");
        let notes = s.facts.iter().filter(|f| noted(&s.turns[f.turn])).count();
        assert!(
            notes >= 6 && notes * 2 < s.facts.len(),
            "{notes} of {}",
            s.facts.len()
        );
        assert!(s.facts.len() >= 22, "{}", s.facts.len());
    }

    #[test]
    fn stretching_adds_side_questions_between_turns_only() {
        let s = classic::planning_thread();
        let long = s.stretched(2);
        assert_eq!(long.turns.len(), s.turns.len() * 3 - 2);
        assert_eq!(long.turns.last(), s.turns.last());
        assert_eq!(long.turns[3], s.turns[1]);
        assert!(SIDE_QUESTIONS.contains(&long.turns[1].as_str()));
        assert_eq!(long.quiz.len(), s.quiz.len());
        assert_eq!(s.stretched(0).turns, s.turns);
    }

    #[test]
    fn truncating_keeps_only_what_was_planted() {
        let s = classic::planning_thread().truncated(9);
        assert_eq!(s.turns.len(), 9);
        assert!(s.facts.iter().all(|f| f.turn < 9));
        assert!(s.quiz.iter().all(|q| q.fact < s.facts.len()));
        assert_eq!(
            s.quiz.len(),
            2,
            "the city (changed at 6) and payment (8) are planted by turn 9"
        );
    }
}
