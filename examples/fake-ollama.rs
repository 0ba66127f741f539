//! The fake Ollama server as a program, for trying the TUI without a model:
//! `cargo run --example fake-ollama -- --port 11434 --token-delay-ms 30`.

#[allow(dead_code)]
#[path = "../tests/support/fake_ollama.rs"]
mod fake_ollama;

use std::time::Duration;

use clap::Parser;
use fake_ollama::{FakeConfig, FakeOllama};

#[derive(Parser, Debug)]
#[command(about = "A fake Ollama server (real wire format, deterministic replies)")]
struct Args {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 11434)]
    port: u16,
    /// Pause before each streamed chunk, in milliseconds.
    #[arg(long, default_value_t = 20)]
    token_delay_ms: u64,
    /// Filler words in each normal reply.
    #[arg(long, default_value_t = 40)]
    reply_words: usize,
    /// Truncate silently even when a request says `"truncate": false` (older Ollama).
    #[arg(long)]
    ignore_truncate: bool,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let server = FakeOllama::try_start_with(FakeConfig {
        port: args.port,
        token_delay: Duration::from_millis(args.token_delay_ms),
        reply_words: args.reply_words,
        ignore_truncate_flag: args.ignore_truncate,
        ..FakeConfig::default()
    })
    .await?;
    println!("fake ollama listening on {}", server.url());
    tokio::signal::ctrl_c().await?;
    server.shutdown();
    Ok(())
}
