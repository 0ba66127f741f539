//! How often a model really runs a tool when asked to: the same request, in a fresh
//! session each try, through the session actor and the real server (tool calls the server
//! parses, and calls written as JSON text that the app recovers, both count).
//!
//!     cargo run --release --example tool_rate -- --host 127.0.0.1:11434 \
//!         --model qwen2.5-coder:0.5b --tries 10
//!
//! Each try works in a new directory holding `notes.txt`; the report says per try whether
//! `read_file` ran (and how the call arrived), whether the answer quotes the file, and
//! what the model did instead when it did not call.

mod common;

use clap::Parser;
use ollm_tui::actor;
use ollm_tui::core::record::RecordBody;
use ollm_tui::core::tokens::Tiktoken;
use ollm_tui::llm::OllamaBackend;
use std::sync::Arc;
use std::time::Duration;

#[derive(Parser)]
struct Args {
    #[arg(long, default_value = "127.0.0.1:11434")]
    host: String,
    #[arg(long, default_value = "qwen2.5-coder:0.5b")]
    model: String,
    #[arg(long, default_value_t = 10)]
    tries: usize,
    #[arg(long, default_value = "What is in notes.txt? Use the read_file tool.")]
    ask: String,
    #[arg(long)]
    ctx: Option<u32>,
    /// Print each whole answer, not its first line.
    #[arg(long)]
    full: bool,
}

const NOTES: &str = "Deploy window: Friday 14:00. Staging port: 7040. Owner: Dana.\n";

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let tok = Arc::new(Tiktoken::new()?);
    let (mut ran, mut quoted) = (0, 0);
    for i in 1..=args.tries {
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("notes.txt"), NOTES)?;
        let session = common::Session {
            id: format!("tool-rate-{i}"),
            host: &args.host,
            model: &args.model,
            ctx: args.ctx,
            dir: dir.path(),
        };
        let backend = OllamaBackend::new(&args.host, common::patient(Duration::from_secs(600)))?;
        let spawned = common::reading_session(session, backend, tok.clone())?;
        let mut view = spawned.view.clone();
        let secs = common::turn(
            &spawned.handle,
            &mut view,
            &args.ask,
            Duration::from_secs(900),
        )
        .await?;
        let actor::Spawned { handle, task, .. } = spawned;
        drop(handle);
        let exit = task.await?;
        let records: Vec<RecordBody> = exit
            .store
            .as_ref()
            .map(|s| s.records().into_iter().map(|r| r.body).collect())
            .unwrap_or_default();
        // Ran: a read_file call (sent as a tool call, or written as text and recovered)
        // whose result was the file.
        let mut how = String::from("no call");
        let mut answer = String::new();
        let mut rounds = 0;
        for r in &records {
            match r {
                RecordBody::Assistant {
                    tool_calls, text, ..
                } => {
                    rounds += usize::from(!tool_calls.is_empty());
                    if tool_calls.is_empty() {
                        answer = text.clone();
                    } else if how == "no call" {
                        how = match tool_calls.iter().find(|c| c.name == "read_file") {
                            Some(c) if c.from_text => "read_file? (recovered from text)",
                            Some(_) => "read_file? (tool_calls)",
                            None => "another tool",
                        }
                        .to_string();
                    }
                }
                RecordBody::Tool {
                    name,
                    is_error: false,
                    ..
                } if name == "read_file" => {
                    how = how.replace('?', "");
                }
                _ => {}
            }
        }
        let did_run = how.starts_with("read_file (");
        let how = format!(
            "{how}, {rounds} round{}",
            if rounds == 1 { "" } else { "s" }
        );
        let quotes = ["7040", "14:00", "Dana"].iter().any(|w| answer.contains(w));
        ran += usize::from(did_run);
        quoted += usize::from(did_run && quotes);
        let shown: String = if args.full {
            format!("\n{answer}\n")
        } else {
            answer
                .chars()
                .take(90)
                .collect::<String>()
                .replace('\n', " ")
        };
        println!(
            "try {i:>2}: {how:<44} answer quotes the file: {:<3} {secs:>5.1}s  {shown}",
            if quotes { "yes" } else { "no" }
        );
    }
    println!(
        "\n{}: read_file ran in {ran}/{} tries; the answer quoted the file in {quoted}",
        args.model, args.tries
    );
    Ok(())
}
