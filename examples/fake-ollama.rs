//! The fake Ollama server as a program, for trying the TUI without a model:
//! `cargo run --example fake-ollama -- --port 11434 --token-delay-ms 30`.
//!
//! Faults and scripted replies can be queued for the next chat requests, on the command
//! line (`--fault drop:3 --reply "[GOAL] Ship it"`) or while it runs, one per line on its
//! standard input (`drop:3`, `500`, `reply [DECISION] Use Postgres - LOCKED`, ...).

#[allow(dead_code)]
#[path = "../tests/support/fake_ollama.rs"]
mod fake_ollama;

use std::time::Duration;

use clap::Parser;
use fake_ollama::{FakeConfig, FakeOllama, Fault, embedding_model, vision_model};
use tokio::io::{AsyncBufReadExt, BufReader};

const FAULTS: &str = "drop:N (connection cut after N chunks), error:N (an error line after N \
chunks), 500, garbage, split (lines split mid UTF-8), nodone (no done line), stall:N (silence \
after N chunks), overflow (HTTP 400 context overflow), slow:MS (token delay for one reply), \
endless:MBPS (a reply that never ends nor repeats, MBPS megabytes a second; 0: as fast as the \
socket takes it)";

#[derive(Parser, Debug)]
#[command(
    about = "A fake Ollama server (real wire format, deterministic replies)",
    after_help = format!("Faults: {FAULTS}.\nOn standard input: a fault, or `reply TEXT`, one per line.")
)]
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
    /// A fault for the next chat request (repeat for the ones after); see below.
    #[arg(long, value_parser = parse_fault)]
    fault: Vec<Fault>,
    /// The text of the next reply, verbatim (repeat for the ones after).
    #[arg(long)]
    reply: Vec<String>,
    /// `/api/pull` streams a model's main layer in this many steps...
    #[arg(long, default_value_t = 50)]
    pull_steps: usize,
    /// ...this many milliseconds apart (`smollm2:135m`, `tinyllama:1.1b` and `all-minilm`
    /// can be pulled; any other name fails as Ollama's unknown models do).
    #[arg(long, default_value_t = 60)]
    pull_delay_ms: u64,
    /// Append one JSON line per chat request to FILE, as ollama-real's `--log` does (for
    /// trying the fidelity benchmark's `--server-log`).
    #[arg(long)]
    log: Option<std::path::PathBuf>,
    /// Start with the embedding model `all-minilm` installed (`/api/embed` answers with
    /// the fake's deterministic vectors).
    #[arg(long)]
    embedding_model: bool,
    /// Leave out the vision model `llava:7b`, installed by default: it answers a message
    /// with pictures from their bytes ("I see an image of N bytes, sha256 …").
    #[arg(long)]
    no_vision: bool,
}

fn parse_fault(s: &str) -> Result<Fault, String> {
    let (kind, n) = s.split_once(':').unwrap_or((s, "3"));
    let n: u64 = n
        .trim()
        .parse()
        .map_err(|_| format!("not a number in {s:?}"))?;
    let tokens = usize::try_from(n).unwrap_or(usize::MAX);
    Ok(match kind.trim() {
        "drop" => Fault::DropAfter { tokens },
        "error" => Fault::ErrorAfter {
            tokens,
            message: "fake failure inside the stream".into(),
        },
        "500" => Fault::Http500 {
            message: "fake internal error".into(),
        },
        "garbage" => Fault::Garbage,
        "split" => Fault::SplitLines,
        "nodone" => Fault::NoDone,
        "stall" => Fault::StallAfter { tokens },
        "overflow" => Fault::ContextOverflow,
        "slow" => Fault::TokenDelay(Duration::from_millis(n)),
        "endless" => Fault::Endless {
            bytes_per_sec: (n > 0).then(|| n.saturating_mul(1_000_000)),
            pad: 0,
        },
        other => return Err(format!("unknown fault {other:?}; one of: {FAULTS}")),
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let server = FakeOllama::try_start_with(FakeConfig {
        port: args.port,
        token_delay: Duration::from_millis(args.token_delay_ms),
        reply_words: args.reply_words,
        ignore_truncate_flag: args.ignore_truncate,
        pull_steps: args.pull_steps.max(1),
        pull_delay: Duration::from_millis(args.pull_delay_ms),
        ..FakeConfig::default()
    })
    .await?;
    for f in args.fault {
        server.push_fault(f);
    }
    for r in args.reply {
        server.push_reply(r);
    }
    if let Some(path) = &args.log {
        server.set_request_log(path);
    }
    if args.embedding_model {
        server.add_model(embedding_model());
    }
    if !args.no_vision {
        server.add_model(vision_model());
    }
    println!("fake ollama listening on {}", server.url());
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            line = lines.next_line() => match line {
                Ok(Some(line)) => {
                    let line = line.trim();
                    if let Some(text) = line.strip_prefix("reply ") {
                        server.push_reply(text.replace("\\n", "\n"));
                        println!("queued a reply");
                    } else if !line.is_empty() {
                        match parse_fault(line) {
                            Ok(f) => {
                                println!("queued {f:?}");
                                server.push_fault(f);
                            }
                            Err(e) => println!("{e}"),
                        }
                    }
                }
                // Standard input closed (e.g. started in the background): serve on.
                Ok(None) | Err(_) => {
                    tokio::signal::ctrl_c().await?;
                    break;
                }
            },
        }
    }
    server.shutdown();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_with_and_without_a_count() {
        assert_eq!(parse_fault("drop:5"), Ok(Fault::DropAfter { tokens: 5 }));
        assert_eq!(parse_fault("stall"), Ok(Fault::StallAfter { tokens: 3 }));
        assert_eq!(
            parse_fault("slow:400"),
            Ok(Fault::TokenDelay(Duration::from_millis(400)))
        );
        assert_eq!(parse_fault("overflow"), Ok(Fault::ContextOverflow));
        assert!(parse_fault("explode").unwrap_err().contains("one of"));
        assert!(parse_fault("drop:x").is_err());
    }
}
