//! `sourdough`: someone learning to bake sourdough over a month of weekends, asking as
//! they go — 42 turns written before any rule was tuned to them. Its shapes: kitchen
//! measures the other chats lack ("2 tsp salt", "a 9 inch banneton", "20 g of rye"),
//! ratios ("1:1:1"), temperatures with and without the degree sign ("24°C",
//! "bake at 250"), a pet name for a thing (the starter is "Bubbles"), an oven and a mill
//! by brand, the bake temperature corrected ("230, not 250") and the feeding time moved.
//! Most questions ask about the first third, two in other words ("how hot" for the bake
//! temperature, "what's my starter called").

use super::{Question, Scenario, changed, fact};

pub(super) fn sourdough() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "I've finally started a sourdough starter! I named him Bubbles. Any tips for keeping him alive?".into(),
        // 1
        "I feed Bubbles 1:1:1 by weight, 50 g starter, 50 g flour, 50 g water, every morning at 8.".into(),
        // 2
        "Is it normal for it to smell like nail polish remover?".into(),
        // 3
        "Phew. OK.".into(),
        // 4
        "The flour is Shipton Mill organic strong white, I get it in 16 kg sacks.".into(),
        // 5
        "The recipe I'm following is 75% hydration, 500 g flour, 375 g water and 2 tsp salt.".into(),
        // 6
        "What does hydration actually mean? I just nodded along.".into(),
        // 7
        "Got it, so more water means a wetter dough.".into(),
        // 8
        "Bulk ferment is 5 hours at about 24°C, with stretch and folds every 30 minutes for the first two hours.".into(),
        // 9
        "How do I know when bulk fermentation is done?".into(),
        // 10
        "I shape it into a 9 inch round banneton and it goes in the fridge overnight.".into(),
        // 11
        "The oven is a Neff with the slide and hide door, I bake in a Lodge cast iron pot at 250 with the lid on for 20 minutes, then lid off.".into(),
        // 12
        "Why does the lid matter so much?".into(),
        // 13
        "Makes sense, steam.".into(),
        // 14
        "First loaf was flat as a pancake. Any idea why?".into(),
        // 15
        "I think my kitchen is just cold.".into(),
        // 16
        "Where can I put dough to keep it warm if the kitchen is cold?".into(),
        // 17
        "Oven with the light on, genius.".into(),
        // 18
        "Second loaf was way better! Still a bit dense in the middle.".into(),
        // 19
        "What's the difference between underproofed and overproofed?".into(),
        // 20
        "Mine was underproofed I think, the holes were all at the top.".into(),
        // 21
        "I got the temperature wrong, the recipe says bake at 230, not 250. I'd misread it.".into(),
        // 22
        "Would 250 have burnt the bottom?".into(),
        // 23
        "That explains the black bottom.".into(),
        // 24
        "I'm moving Bubbles' feed to 9 pm so he peaks in the morning when I mix.".into(),
        // 25
        "Can I use a bit of rye flour in the starter?".into(),
        // 26
        "Ok, I'll try 20 g of rye in the next feed.".into(),
        // 27
        "How do I get a more open crumb?".into(),
        // 28
        "Loads to try. Thank you.".into(),
        // 29
        "Can I add things like olives or cheese, and when?".into(),
        // 30
        "Olive loaf next weekend then.".into(),
        // 31
        "My partner wants a sandwich loaf in a tin. Does the same dough work?".into(),
        // 32
        "I'll keep it simple for now.".into(),
        // 33
        "How long does sourdough keep?".into(),
        // 34
        "Freezing sliced is a good idea.".into(),
        // 35
        "What do I do with all the discard? I hate throwing it away.".into(),
        // 36
        "Discard crumpets sound amazing.".into(),
        // 37
        "Is it worth buying a proper lame or will a razor blade do?".into(),
        // 38
        "Razor it is.".into(),
        // 39
        "Ok, doing a bake tomorrow. Let me check the numbers.".into(),
        // 40
        "Also, how do I get those pretty flour patterns on top?".into(),
        // 41
        "Love it. Thanks!".into(),
    ];
    let facts = vec![
        // The first third (turns 0-13).
        fact(&["starter", "named"], "Bubbles", 0),
        fact(&["feed", "Bubbles"], "1:1:1", 1),
        fact(&["flour", "Shipton"], "16 kg", 4),
        fact(&["hydration"], "75%", 5),
        fact(&["salt"], "2 tsp", 5),
        fact(&["Bulk ferment"], "5 hours", 8),
        fact(&["banneton"], "9 inch", 10),
        fact(&["oven"], "Neff", 11),
        // The rest.
        changed(&["bake"], "230", "250", 21),
        changed(&["feed", "Bubbles"], "9 pm", "at 8", 24),
    ];
    let quiz = vec![
        Question {
            ask: "What's my starter called?",
            fact: 0,
        },
        Question {
            ask: "What ratio do I feed him at?",
            fact: 1,
        },
        Question {
            ask: "What hydration is the recipe?",
            fact: 3,
        },
        Question {
            ask: "How much salt goes in?",
            fact: 4,
        },
        Question {
            ask: "How long is the bulk ferment?",
            fact: 5,
        },
        Question {
            ask: "What size is my banneton?",
            fact: 6,
        },
        Question {
            ask: "How hot should the oven be?",
            fact: 8,
        },
        Question {
            ask: "When do I feed Bubbles now?",
            fact: 9,
        },
    ];
    Scenario {
        name: "sourdough",
        locked: "Keep the steps in metric, no cups",
        turns,
        facts,
        quiz,
    }
}
