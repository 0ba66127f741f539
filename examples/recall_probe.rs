//! Whether a model finds a specific line of a large file it read many turns earlier: a
//! file read shortened for the context (its whole kept for `recall`), then small talk,
//! then a question only the left-out part answers. Through the session actor and a real
//! server, tools in read mode (nothing asks).
//!
//!     cargo run --release --example recall_probe -- --host 127.0.0.1:11434 \
//!         --model qwen2.5-coder:0.5b --ctx 4096 --turns 20
//!
//! It reports whether the read ran and how much of it the context kept, what the model
//! called for the last question (`recall`, `read_file`, nothing), whether its answer holds
//! the line's code, the tokens the shortening saved, compressions, and the time each
//! phase took.

mod common;

use clap::Parser;
use ollm_tui::actor;
use ollm_tui::core::record::RecordBody;
use ollm_tui::core::tokens::{Tiktoken, Tokenizer};
use ollm_tui::llm::{
    ChatBackend, ChatReply, ChatRequest, ChatStats, ChatStream, LlmError, LoadedModel, ModelInfo,
    ModelSummary, OllamaBackend, StreamEvent, ToolCall,
};
use ollm_tui::store::{MemoryStore, SessionStore};
use std::sync::Arc;
use std::time::Duration;

#[derive(Parser)]
struct Args {
    #[arg(long, default_value = "127.0.0.1:11434")]
    host: String,
    #[arg(long, default_value = "qwen2.5-coder:0.5b")]
    model: String,
    #[arg(long, default_value_t = 4096)]
    ctx: u32,
    /// Turns of small talk between the read and the question.
    #[arg(long, default_value_t = 20)]
    turns: usize,
    /// Lines in the file.
    #[arg(long, default_value_t = 3000)]
    lines: usize,
    /// The line asked about at the end.
    #[arg(long, default_value_t = 1234)]
    target: usize,
    /// Fresh sessions to try until the model calls read_file.
    #[arg(long, default_value_t = 3)]
    tries: usize,
    /// The first reply is a planted call reading the whole file (a model that only ever
    /// reads a few lines never gets a large result to shorten or recall); everything
    /// after it, the reading through (layer 1) included, is the real model's.
    #[arg(long)]
    plant_read: bool,
}

/// The real server, except that the first reply offered tools is a call reading the whole
/// file (`--plant-read`).
struct Planted {
    inner: OllamaBackend,
    first: std::sync::atomic::AtomicBool,
}

impl ChatBackend for Planted {
    async fn version(&self) -> Result<String, LlmError> {
        self.inner.version().await
    }
    async fn list_models(&self) -> Result<Vec<ModelSummary>, LlmError> {
        self.inner.list_models().await
    }
    async fn show_model(&self, model: &str) -> Result<ModelInfo, LlmError> {
        self.inner.show_model(model).await
    }
    async fn loaded_models(&self) -> Result<Vec<LoadedModel>, LlmError> {
        self.inner.loaded_models().await
    }
    async fn chat_stream(&self, req: ChatRequest) -> Result<ChatStream, LlmError> {
        if !req.tools.is_empty() && self.first.swap(false, std::sync::atomic::Ordering::SeqCst) {
            let call = ToolCall {
                id: "call_planted".into(),
                name: "read_file".into(),
                args: r#"{"path":"records.log"}"#.into(),
                from_text: false,
            };
            let events: Vec<Result<StreamEvent, LlmError>> = vec![
                Ok(StreamEvent::ToolCalls(vec![call])),
                Ok(StreamEvent::Done(ChatStats::default())),
            ];
            return Ok(Box::pin(futures_util::stream::iter(events)));
        }
        self.inner.chat_stream(req).await
    }
    async fn chat(&self, req: ChatRequest) -> Result<ChatReply, LlmError> {
        self.inner.chat(req).await
    }
    async fn embed(&self, model: &str, inputs: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        self.inner.embed(model, inputs).await
    }
    async fn pull(&self, model: &str) -> Result<ollm_tui::llm::PullStream, LlmError> {
        ChatBackend::pull(&self.inner, model).await
    }
}

/// A session through the actor and the real server, tools in read mode.
fn start(
    args: &Args,
    dir: &std::path::Path,
    tok: Arc<Tiktoken>,
) -> Result<actor::Spawned<MemoryStore>, Box<dyn std::error::Error>> {
    let backend = Planted {
        inner: OllamaBackend::new(&args.host, common::patient(Duration::from_secs(900)))?,
        first: std::sync::atomic::AtomicBool::new(args.plant_read),
    };
    let session = common::Session {
        id: "recall-probe".into(),
        host: &args.host,
        model: &args.model,
        ctx: Some(args.ctx),
        dir,
    };
    common::reading_session(session, backend, tok)
}

/// Send `text` and wait until its turn is over; the seconds it took.
async fn say(
    handle: &ollm_tui::actor::SessionHandle,
    view: &mut tokio::sync::watch::Receiver<Arc<ollm_tui::view::SessionView>>,
    text: &str,
) -> Result<f64, Box<dyn std::error::Error>> {
    common::turn(handle, view, text, Duration::from_secs(1800)).await
}

fn code(k: usize) -> String {
    format!("Q{:05}", (k * 7919) % 100_000)
}

const SMALL_TALK: &[&str] = &[
    "Name one fruit that is in season in autumn.",
    "What is a good name for a grey cat?",
    "Give me a synonym for 'quick'.",
    "How many days are in a leap year?",
    "What colour do you get mixing blue and yellow?",
    "Suggest a short walk for a rainy day.",
    "What is the capital of Portugal?",
    "Tell me one tip for writing clear emails.",
];

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let tok = Arc::new(Tiktoken::new()?);
    let dir = tempfile::tempdir()?;
    let file: String = (1..=args.lines)
        .map(|k| {
            format!(
                "line {k}: order {k} shipped from warehouse {} with code {}\n",
                ["north", "south", "east", "west"][k % 4],
                code(k)
            )
        })
        .collect();
    std::fs::write(dir.path().join("records.log"), &file)?;
    // A small model does not always call the tool when asked: up to `--tries` fresh
    // sessions, until the read ran (the history then holds the call and its result).
    let mut attempt = 0;
    let (spawned, mut view, read_secs) = loop {
        attempt += 1;
        let mut spawned = start(&args, dir.path(), tok.clone())?;
        let mut view = spawned.view.clone();
        let read_secs = say(
            &spawned.handle,
            &mut view,
            "Call read_file with only the path records.log (no start_line, no end_line) to \
             read the whole file, then tell me what kind of records it holds.",
        )
        .await?;
        // The read counts when it brought more than the context could hold whole (a
        // model that reads five lines has nothing to recall later).
        let mut read = false;
        while let Ok(u) = spawned.updates.try_recv() {
            if let ollm_tui::view::Update::Appended(e) = u
                && matches!(
                    e.kind,
                    ollm_tui::view::EntryKind::Tool {
                        original_chars: Some(_),
                        ..
                    }
                )
            {
                read = true;
            }
        }
        if read || attempt >= args.tries {
            eprintln!("read ran: {read} (try {attempt})");
            break (spawned, view, read_secs);
        }
        eprintln!("try {attempt}: the model did not read the whole file; a fresh session");
        let actor::Spawned { handle, task, .. } = spawned;
        drop(handle);
        let _ = task.await;
    };
    let handle = &spawned.handle;
    eprintln!("read: {read_secs:.0}s");
    let mut talk_secs = 0.0;
    for i in 0..args.turns {
        talk_secs += say(handle, &mut view, SMALL_TALK[i % SMALL_TALK.len()]).await?;
        eprintln!(
            "small talk {}/{}: {talk_secs:.0}s so far",
            i + 1,
            args.turns
        );
    }
    let question_from = view.borrow().status.history_messages;
    let question = format!(
        "What is the code on line {} of records.log? The file was read earlier; use recall or \
         read_file to look it up.",
        args.target
    );
    let ask_secs = say(handle, &mut view, &question).await?;
    let actor::Spawned { handle, task, .. } = spawned;
    drop(handle);
    let exit = task.await?;
    let records: Vec<(u64, RecordBody)> = exit
        .store
        .as_ref()
        .map(|s| s.records().into_iter().map(|r| (r.seq, r.body)).collect())
        .unwrap_or_default();
    let store = exit.store.as_ref();
    // The first read: how much of it the context kept, and by which layer.
    let mut saved_tokens = 0u32;
    let mut first_read = String::from("no read_file ran");
    let mut seen_of = std::collections::HashMap::new();
    for (seq, r) in &records {
        match r {
            RecordBody::Tool {
                name,
                result,
                original: Some(o),
                ..
            } => {
                let whole = store
                    .and_then(|s| s.load_result(&o.file).ok())
                    .unwrap_or_default();
                let (seen, all) = (tok.count(result), tok.count(&whole));
                saved_tokens += all.saturating_sub(seen);
                seen_of.insert(*seq, seen);
                if name == "read_file" && first_read.starts_with("no") {
                    let how = if o.summarized {
                        "layer 1: the model's notes"
                    } else {
                        "shortened by kind"
                    };
                    let planted = if args.plant_read { "planted " } else { "" };
                    first_read = format!("{planted}read_file kept {seen} of {all} tokens ({how})");
                }
            }
            // Layer 2: an older result cut down further at the compression trigger.
            RecordBody::ResultReduced { id, text, .. } => {
                let now = tok.count(text);
                let before = seen_of.get(&id.0).copied().unwrap_or(now);
                saved_tokens += before.saturating_sub(now);
                println!("layer 2 cut result {}: {before} -> {now} tokens", id.0);
                seen_of.insert(id.0, now);
            }
            _ => {}
        }
    }
    // The last question: what the model called and what it answered.
    let history = exit.engine.history();
    let tail: Vec<_> = history.iter().skip(question_from).collect();
    let calls: Vec<String> = tail
        .iter()
        .flat_map(|m| m.calls.iter())
        .map(|c| format!("{}({})", c.name, c.args))
        .collect();
    let answer = tail
        .iter()
        .rev()
        .find(|m| m.role == ollm_tui::core::message::Role::Assistant && !m.text.is_empty())
        .map(|m| m.text.clone())
        .unwrap_or_default();
    let want = code(args.target);
    println!(
        "{} at ctx {}: {first_read}; {} turns of small talk ({talk_secs:.0}s); {} compressions",
        args.model,
        args.ctx,
        args.turns,
        exit.engine.compressions()
    );
    println!(
        "last question ({ask_secs:.0}s): calls {}; answer holds {want}: {}",
        if calls.is_empty() {
            "none".to_string()
        } else {
            calls.join(", ")
        },
        if answer.contains(&want) { "yes" } else { "no" }
    );
    println!("tokens the layers saved: {saved_tokens}; the read took {read_secs:.0}s");
    println!("answer: {}", answer.replace('\n', " "));
    Ok(())
}
