//! How recall by meaning does with a real embedding model: a 26-sentence team-event chat
//! is indexed and embedded, then paraphrased questions, direct ones, small talk and
//! off-topic questions are asked; it prints each question's nearest sentences by cosine
//! and what BM25 alone and the fused search recall. The figures behind
//! `core::semantic::MIN_COSINE` came from it (ollama-real's all-minilm).
//!
//!     PORT=11437 ../shared/tools/ollama-real/run.sh &
//!     cargo run --example recall_semantic -- 127.0.0.1:11437
use ollm_tui::core::log_recall::RecallIndex;
use ollm_tui::core::message::{MessageId, Role};
use ollm_tui::core::semantic::{SentenceVectors, cosine};
use ollm_tui::llm::{ChatBackend, OllamaBackend, OllamaOptions};

const CHAT: &[(u64, Role, &str)] = &[
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
        16,
        Role::User,
        "The bus leaves the hotel at 8:45 for the workshop.",
    ),
    (
        18,
        Role::User,
        "Sørensen pays the dinner, approx. 35 euros a head.",
    ),
    (19, Role::Assistant, "Thanks for the details, that helps."),
    (20, Role::User, "The weather should be warm and sunny."),
    (
        22,
        Role::User,
        "I kept the receipt for the taxi from the airport, 42 euros.",
    ),
    (
        24,
        Role::User,
        "Our return flight leaves Málaga on Friday at 18:10.",
    ),
    (
        26,
        Role::User,
        "Dinner on Tuesday is at Cervejaria Ramiro, booked for 20:00.",
    ),
    (
        28,
        Role::User,
        "Priya is vegetarian and allergic to cashews.",
    ),
    (
        30,
        Role::User,
        "The budget for the whole trip is 12,000 euros.",
    ),
    (32, Role::User, "Actually, the dinner moved to Wednesday."),
    (
        34,
        Role::User,
        "Bring a laptop and a charger to the workshop.",
    ),
    (
        36,
        Role::Assistant,
        "I can help you draft an agenda if you like.",
    ),
    (
        38,
        Role::User,
        "The wifi password at the venue is orchid-5g.",
    ),
];

/// (query, the message that answers it or 0 for none)
const QUERIES: &[(&str, u64)] = &[
    ("How much was my expense claim?", 22),
    ("What do I put on my expense claim for the cab?", 22),
    ("Where are we sleeping?", 8),
    ("Where are we staying?", 8),
    ("What can Priya not eat?", 28),
    ("When do we fly home?", 24),
    ("How much money do we have in total?", 30),
    ("What should people bring?", 34),
    ("How do I get online at the venue?", 38),
    ("Who is in charge of transport?", 6),
    ("Where is the evening meal?", 26),
    ("In which room is the workshop?", 12),
    ("Who pays for dinner?", 18),
    ("thanks!", 0),
    ("Thanks, that's all for today!", 0),
    ("ok great, sounds good", 0),
    ("See you tomorrow!", 0),
    ("Cool.", 0),
    ("Got it, thank you so much", 0),
    ("haha nice", 0),
    ("Good morning!", 0),
    ("Can you tell me a joke?", 0),
    ("What is the capital of France?", 0),
    ("Write a haiku about autumn.", 0),
];

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let host = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:11437".into());
    let b = OllamaBackend::new(&host, OllamaOptions::default())?;
    let models = b.list_models().await?;
    let model = ollm_tui::llm::pick_embedding_model(&models)
        .map(|m| m.name.clone())
        .ok_or("no embedding model")?;
    println!("model {model}");
    let mut index = RecallIndex::default();
    let mut store = SentenceVectors::default();
    let mut all: Vec<(u64, String, Vec<f32>)> = Vec::new();
    let start = std::time::Instant::now();
    let mut n = 0;
    for (id, role, text) in CHAT {
        index.add(MessageId(*id), *role, text);
        let sentences: Vec<String> = RecallIndex::sentences(text)
            .iter()
            .map(|s| s.to_string())
            .collect();
        n += sentences.len();
        let vectors = b.embed(&model, &sentences).await?;
        for (s, v) in sentences.iter().zip(&vectors) {
            all.push((*id, s.clone(), v.clone()));
        }
        store.insert_message(MessageId(*id), vectors)?;
    }
    println!(
        "embedded {n} sentences one message per request in {:?}",
        start.elapsed()
    );
    let texts: Vec<String> = all.iter().map(|(_, s, _)| s.clone()).collect();
    let t = std::time::Instant::now();
    let batch = b.embed(&model, &texts).await?;
    println!(
        "embedded {} sentences in one call in {:?}",
        texts.len(),
        t.elapsed()
    );
    let drift = batch
        .iter()
        .zip(&all)
        .map(|(a, (_, _, b))| 1.0 - cosine(a, b))
        .fold(0f32, f32::max);
    println!("batched vs single: max 1-cos {drift:.2e}");
    let encoded = ollm_tui::core::semantic::encode_vectors(&batch)?;
    let decoded = ollm_tui::core::semantic::decode_vectors(&encoded)?;
    let codec = decoded
        .iter()
        .zip(&batch)
        .map(|(a, b)| 1.0 - cosine(a, b))
        .fold(0f32, f32::max);
    let mut pair_drift = 0f32;
    for i in 0..batch.len() {
        for j in 0..batch.len() {
            pair_drift = pair_drift
                .max((cosine(&batch[i], &batch[j]) - cosine(&decoded[i], &decoded[j])).abs());
        }
    }
    println!(
        "codec: {} chars for {} sentences ({} per sentence); max 1-cos {codec:.2e}; max pairwise cosine change {pair_drift:.2e}",
        encoded.len(),
        batch.len(),
        encoded.len() / batch.len()
    );
    let mut query_ms = Vec::new();
    let mut smalltalk_max = 0f32;
    let mut answer_cos = Vec::new();
    let mut distractor_max = 0f32;
    for (q, want) in QUERIES {
        let t = std::time::Instant::now();
        let qv = b.embed(&model, &[q.to_string()]).await?.remove(0);
        query_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        let mut ranked: Vec<(f32, u64, &str)> = all
            .iter()
            .map(|(id, s, v)| (cosine(&qv, v), *id, s.as_str()))
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
        println!("\n{q}  (answer #{want})");
        for (c, id, s) in ranked.iter().take(4) {
            println!("   {c:.3} #{id} {s}");
        }
        if *want == 0 {
            smalltalk_max = smalltalk_max.max(ranked[0].0);
        } else {
            let pos = ranked.iter().position(|r| r.1 == *want).unwrap_or(99);
            let c = ranked.iter().find(|r| r.1 == *want).map_or(0.0, |r| r.0);
            answer_cos.push((q, pos + 1, c));
            let d = ranked
                .iter()
                .filter(|r| r.1 != *want)
                .map(|r| r.0)
                .fold(0f32, f32::max);
            distractor_max = distractor_max.max(d);
        }
        let words = index.search(q, 3);
        let fused = index.search_with(q, Some(&qv), &store, 3);
        println!(
            "   BM25: {:?}",
            words.iter().map(|h| h.id.0).collect::<Vec<_>>()
        );
        println!(
            "   fused: {:?}",
            fused
                .iter()
                .map(|h| (h.id.0, h.text.as_str()))
                .collect::<Vec<_>>()
        );
    }
    println!("\nanswers: rank, cosine");
    for (q, pos, c) in &answer_cos {
        println!("  {pos} {c:.3} {q}");
    }
    query_ms.sort_by(f64::total_cmp);
    println!(
        "query embedding: median {:.0} ms, max {:.0} ms",
        query_ms[query_ms.len() / 2],
        query_ms[query_ms.len() - 1]
    );
    println!("small talk: best cosine to any sentence {smalltalk_max:.3}");
    println!("questions: best cosine to a sentence not their answer {distractor_max:.3}");
    Ok(())
}
