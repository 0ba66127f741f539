//! Recall by meaning through the session actor, against the fake Ollama with its embedding
//! model installed: folded sentences embedded once, between turns, and kept in the log;
//! the person's message embedded before its request, within its time limit; a failing or
//! stalled embedding leaving the turn to recall by words; a resumed session asking the
//! model for nothing it already has; embedding-only models never chatting.
#![allow(clippy::unwrap_used)]

mod support;

use ollm_tui::actor::{self, ActorConfig, Ask, Command, EmbeddingChoice, Parts, StoreSlot};
use ollm_tui::core::engine::{Embedder, Engine};
use ollm_tui::core::log_recall::RecallIndex;
use ollm_tui::core::message::{MessageId, ReplyStatus, Role};
use ollm_tui::core::record::RecordBody;
use ollm_tui::llm::{OllamaBackend, OllamaOptions};
use ollm_tui::store::MemoryStore;
use ollm_tui::view::{Connection, SessionView, Update};
use serde_json::Value;
use std::time::{Duration, Instant};
use support::fake_ollama::{EmbedFault, FakeOllama, embedding_model};
use support::session::{Session, engine};

fn start(server: &FakeOllama, engine: Engine, embedding: EmbeddingChoice) -> Session {
    let backend = OllamaBackend::new(&server.url(), OllamaOptions::default()).unwrap();
    let store = StoreSlot::Open(MemoryStore::new(engine.header("test")));
    let spawned = actor::spawn(Parts {
        backend,
        summary_backend: None,
        engine: Box::new(move || engine),
        store,
        config: ActorConfig {
            host: server.url(),
            reconnect_after: Duration::from_secs(3600),
            embedding,
            ..ActorConfig::default()
        },
        model: None,
    });
    Session { spawned }
}

/// Wait until the published view satisfies `ok`.
async fn until(s: &Session, ok: impl Fn(&SessionView) -> bool) {
    let mut view = s.spawned.view.clone();
    tokio::time::timeout(Duration::from_secs(30), view.wait_for(|v| ok(v)))
        .await
        .expect("the view never got there")
        .unwrap();
}

/// Say `text` and wait for its reply and for the folded sentences' vectors, if any are
/// being made.
async fn turn(s: &Session, text: &str, messages: &mut usize) {
    s.say(text).await;
    *messages += 2;
    s.wait_for_messages(*messages).await;
    until(s, |v| {
        let r = &v.status.recall;
        r.with_vectors == r.lines || !matches!(r.embedder, Embedder::Model(_)) || r.failed.is_some()
    })
    .await;
}

/// The inputs of an embed request.
fn inputs(body: &Value) -> Vec<String> {
    body["input"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The recall slot of a chat request, if it has one.
fn slot(body: &Value) -> Option<String> {
    body["messages"].as_array()?.iter().find_map(|m| {
        let content = m["content"].as_str()?;
        (m["role"] == "system" && content.starts_with("Quotes from earlier"))
            .then(|| content.to_string())
    })
}

/// What the person said, and whether vectors existed when they said it.
#[derive(Default)]
struct Said {
    texts: Vec<(String, bool)>,
    messages: usize,
}

impl Said {
    async fn say(&mut self, s: &Session, text: &str) {
        let vectors = s.spawned.view.borrow().status.recall.with_vectors > 0;
        turn(s, text, &mut self.messages).await;
        self.texts.push((text.to_string(), vectors));
    }
}

const FACT: &str = "I kept the receipt for the taxi ride. It came to 42 euros in the end.";

#[tokio::test]
async fn folded_sentences_are_embedded_once_and_each_message_before_its_request() {
    let server = FakeOllama::start().await;
    server.add_model(embedding_model());
    server.set_reply_words(45);
    let s = start(
        &server,
        engine("llama3.2:3b", Some(2048)),
        EmbeddingChoice::Auto,
    );
    until(&s, |v| {
        v.status.recall.embedder == Embedder::Model("all-minilm:latest".into())
    })
    .await;
    // Every message has two sentences: as a query it is embedded whole, which no single
    // sentence of a folded message is.
    let mut said = Said::default();
    said.say(&s, FACT).await;
    let mut i = 0;
    while !s
        .spawned
        .view
        .borrow()
        .checkpoints
        .iter()
        .any(|c| c.covers.contains(&MessageId(1)))
    {
        said.say(
            &s,
            &format!("Turn {i}: tell me about item_{i}. It sits in src/lib_{i}.rs for now."),
        )
        .await;
        i += 1;
        assert!(i < 80, "the fact was never folded");
    }
    // A few turns more, with vectors to compare them with.
    for j in 0..3 {
        said.say(
            &s,
            &format!("Turn {}: what about the plan? Say it briefly.", i + j),
        )
        .await;
    }
    assert!(said.texts.iter().any(|(_, vectors)| *vectors));

    // A question worded unlike the fact finds it by meaning.
    let question = "How much was my expense claim?";
    said.say(&s, question).await;
    let chats = server.chat_requests();
    let quoted = slot(chats.last().unwrap());
    assert!(
        quoted.as_deref().is_some_and(|q| q.contains("receipt")),
        "{quoted:?}"
    );

    // The embedding model fails, then stalls: the turn goes on by words, the stall costs
    // the time limit and no more.
    server.push_embed_fault(EmbedFault::Http500 {
        message: "runner crashed".into(),
    });
    said.say(&s, "How much was my expense claim, again?").await;
    server.push_embed_fault(EmbedFault::Stall);
    let stalled_at = Instant::now();
    said.say(&s, "What did the reimbursement come to?").await;
    let stalled_turn = stalled_at.elapsed();
    let chats = server.chat_requests();
    for body in &chats[chats.len() - 2..] {
        let quoted = slot(body);
        assert!(
            quoted.as_deref().is_none_or(|q| !q.contains("receipt")),
            "{quoted:?}"
        );
    }
    assert!(
        stalled_turn >= Duration::from_millis(1900),
        "{stalled_turn:?}"
    );

    let (exit, _) = s.finish().await;
    // Every turn got its complete reply.
    let replies: Vec<ReplyStatus> = exit
        .engine
        .history()
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .map(|m| m.status)
        .collect();
    let said = said.texts;
    assert_eq!(replies.len(), said.len());
    assert!(replies.iter().all(|r| *r == ReplyStatus::Complete));

    // Embed requests: a message's own (the query) or folded sentences.
    let requests = server.requests();
    let embeds: Vec<(usize, Vec<String>)> = requests
        .iter()
        .enumerate()
        .filter(|(_, r)| r.path == "/api/embed")
        .map(|(i, r)| (i, inputs(r.body.as_ref().unwrap())))
        .collect();
    let is_query =
        |inputs: &[String]| inputs.len() == 1 && said.iter().any(|(t, _)| *t == inputs[0]);
    // Each message was embedded as a query once if vectors existed when it was said,
    // else never.
    for (text, vectors) in &said {
        let n = embeds
            .iter()
            .filter(|(_, i)| i.len() == 1 && i[0] == *text)
            .count();
        assert_eq!(n, usize::from(*vectors), "{text}");
    }
    // The folded sentences, each embedded once: exactly those of the folded messages.
    let mut embedded: Vec<String> = embeds
        .iter()
        .filter(|(_, i)| !is_query(i))
        .flat_map(|(_, i)| i.clone())
        .collect();
    let mut folded: Vec<String> = exit
        .engine
        .checkpoints()
        .iter()
        .flat_map(|c| c.covers.clone())
        .filter_map(|id| exit.engine.history().get(id))
        .filter(|m| m.role != Role::Tool)
        .flat_map(|m| RecallIndex::sentences(&m.text))
        .map(str::to_string)
        .collect();
    embedded.sort();
    folded.sort();
    assert!(!folded.is_empty());
    assert_eq!(embedded, folded);
    // In batches of at most 32, between turns: never while a reply streamed.
    assert!(embeds.iter().all(|(_, i)| i.len() <= 32));

    // What a query added before its request: from its arrival to the chat request's.
    let mut added: Vec<Duration> = embeds
        .iter()
        .filter(|(_, i)| is_query(i))
        .filter_map(|(at, _)| {
            let chat = requests[*at..].iter().find(|r| r.path == "/api/chat")?;
            Some(chat.at - requests[*at].at)
        })
        .collect();
    let stalled = added.iter().copied().max().unwrap();
    assert!(
        stalled >= Duration::from_millis(1900) && stalled < Duration::from_secs(4),
        "{stalled:?}"
    );
    added.retain(|d| *d < Duration::from_secs(1));
    added.sort();
    let median = added[added.len() / 2];
    let max = added.last().copied().unwrap();
    println!(
        "query embedding before the request (fake server, {} queries): median {median:?}, max \
         {max:?}; a stalled model: {stalled:?}",
        added.len()
    );
    assert!(max < Duration::from_millis(500), "{added:?}");

    // The vectors are in the log, with their model, and come back on replay.
    let records = exit.store.as_ref().unwrap().records();
    assert!(records.iter().any(|r| matches!(
        &r.body,
        RecordBody::SentenceVectors { model, .. } if model == "all-minilm:latest"
    )));
    let (replayed, report) = Engine::replay_owned(
        &exit.store.as_ref().unwrap().header(),
        records,
        exit.engine.config().clone(),
        exit.engine.tokenizer().clone(),
        exit.engine.prompts().clone(),
    );
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(replayed.sentence_vectors(), exit.engine.sentence_vectors());

    // Resumed: the model is asked for the question's vector before the request, and for
    // nothing the log already holds.
    let server = FakeOllama::start().await;
    server.add_model(embedding_model());
    let s = start(&server, replayed, EmbeddingChoice::Auto);
    s.say(question).await;
    let (_, _) = s.finish().await;
    let requests = server.requests();
    let first_chat = requests.iter().position(|r| r.path == "/api/chat").unwrap();
    let before: Vec<Vec<String>> = requests[..first_chat]
        .iter()
        .filter(|r| r.path == "/api/embed")
        .map(|r| inputs(r.body.as_ref().unwrap()))
        .collect();
    assert_eq!(before, vec![vec![question.to_string()]]);
    assert!(
        slot(&server.chat_requests()[0]).is_some_and(|q| q.contains("receipt")),
        "{:?}",
        slot(&server.chat_requests()[0])
    );
}

#[tokio::test]
async fn without_an_embedding_model_or_turned_off_nothing_is_embedded() {
    for (installed, choice) in [
        (false, EmbeddingChoice::Auto),
        (true, EmbeddingChoice::Off),
        (false, EmbeddingChoice::Named("nomic-embed-text".into())),
    ] {
        let server = FakeOllama::start().await;
        if installed {
            server.add_model(embedding_model());
        }
        server.set_reply_words(45);
        let s = start(&server, engine("llama3.2:3b", Some(2048)), choice.clone());
        let mut messages = 0;
        turn(&s, FACT, &mut messages).await;
        for i in 0..30 {
            turn(
                &s,
                &format!("Turn {i}: tell me about item_{i}. It sits in src/lib_{i}.rs."),
                &mut messages,
            )
            .await;
        }
        turn(&s, "How much was my expense claim?", &mut messages).await;
        let recall = s.spawned.view.borrow().status.recall.clone();
        let (exit, _) = s.finish().await;
        assert!(exit.engine.compressions() > 0, "{choice:?}");
        assert!(server.embed_requests().is_empty(), "{choice:?}");
        let expected = match &choice {
            EmbeddingChoice::Off => Embedder::Off,
            EmbeddingChoice::Auto => Embedder::Missing {
                pull: "all-minilm".into(),
            },
            EmbeddingChoice::Named(n) => Embedder::Missing { pull: n.clone() },
        };
        assert_eq!(recall.embedder, expected);
        assert!(recall.lines > 0 && recall.with_vectors == 0);
    }
}

#[tokio::test]
async fn an_embedding_model_never_chats() {
    let server = FakeOllama::start().await;
    server.add_model(embedding_model());
    // Pulled last, it is the newest model: a session without a model takes the newest
    // chat model instead.
    let s = start(&server, engine("", None), EmbeddingChoice::Auto);
    s.say("hello there").await;
    let (exit, _) = s.finish().await;
    assert!(
        !exit.engine.model().is_empty() && !exit.engine.model().starts_with("all-minilm"),
        "{}",
        exit.engine.model()
    );
    assert_eq!(server.chat_requests().len(), 1);
    // Asked for by name, it is refused: nothing is sent to it, the message is kept.
    let server = FakeOllama::start().await;
    server.add_model(embedding_model());
    let s = start(
        &server,
        engine("all-minilm:latest", None),
        EmbeddingChoice::Auto,
    );
    until(&s, |v| matches!(v.connection, Connection::NotChat { .. })).await;
    s.say("hello there").await;
    s.cmd(Command::SetModel {
        name: "all-minilm".into(),
    })
    .await;
    let (exit, updates) = s.finish().await;
    assert!(server.chat_requests().is_empty());
    assert!(exit.engine.last_message_unanswered());
    let banners: Vec<String> = updates
        .iter()
        .filter_map(|u| match u {
            Update::Banner(n) => Some(format!("{n:?}")),
            _ => None,
        })
        .collect();
    assert!(
        banners.iter().any(|b| b.contains("NotChatModel")),
        "{banners:?}"
    );
    assert!(
        banners.iter().any(|b| b.contains("NotChat {")),
        "{banners:?}"
    );
    // The picker does not offer it.
    let server = FakeOllama::start().await;
    server.add_model(embedding_model());
    let s = start(&server, engine("llama3.2:3b", None), EmbeddingChoice::Auto);
    let (tx, rx) = tokio::sync::oneshot::channel();
    s.cmd(Ask::ListModels { reply: tx }).await;
    let models = rx.await.unwrap().unwrap();
    assert!(!models.is_empty());
    assert!(models.iter().all(|m| !m.name.starts_with("all-minilm")));
    s.finish().await;
}
