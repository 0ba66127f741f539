//! The fidelity and cost benchmark (see `benches/fidelity/`): scripted conversations
//! played by ours, a rolling summary and plain truncation on the same model, side by side.
//!
//!     PORT=11434 ../shared/tools/ollama-real/run.sh --log /tmp/requests.jsonl &
//!     cargo run --release --example fidelity -- --host 127.0.0.1:11434 \
//!         --model qwen2.5-coder:0.5b --ctx 2048 --ctx 4096 --json results.json \
//!         --server-log /tmp/requests.jsonl
//!
//! `--server-log FILE` is the server's request log (ollama-real's `--log`): with it the
//! truncation baseline lets the server truncate and reads what it kept from the log, and
//! every run counts the requests the server cut; without it truncation is estimated with
//! our tokenizer, and the table says so.
//! `--scenario facts|coding|planning|distractors|ops|services|coding24|varied|trip|offsite|fits|marathon`
//! (repeatable) and `--strategy ours|rolling|truncate` (repeatable) narrow a run;
//! `--turns N` plays the first N turns;
//! `--stretch K` asks K side questions after every scripted turn, for a longer session
//! with the same facts (a larger context needs one to fold at all);
//! `--think S` is how long the person reads each reply before typing (default 5 s: a
//! compression that runs while they read does not make them wait); `--pace` adds the time
//! to read each reply and type the next message (`--read-wpm`, default 250, and
//! `--type-wpm`, default 40, words a minute). Tables go to stdout as
//! each scenario finishes; `--json` writes every figure, the quiz answers and the final
//! contexts; `--rescore FILE` judges such a file again with the current scorer.

/// The benchmark is not part of the product, so it lives outside the library, in
/// `benches/fidelity/`; this target and `tests/fidelity.rs` include it. Each uses only
/// part of it, hence the allow.
#[allow(dead_code, unused_imports)]
#[path = "../benches/fidelity/mod.rs"]
mod fidelity;

use clap::Parser;
use fidelity::{Measured, Pace, QuizScore, Setup, Strategy, scenarios};
use ollm_tui::core::tokens::Tiktoken;
use ollm_tui::llm::{ChatBackend, OllamaBackend, OllamaOptions};
use std::sync::Arc;
use std::time::Duration;

#[derive(Parser)]
struct Args {
    #[arg(long, default_value = "127.0.0.1:11434")]
    host: String,
    #[arg(long, default_value = "qwen2.5-coder:0.5b")]
    model: String,
    /// Context sizes (repeatable).
    #[arg(long, default_values_t = [2048u32])]
    ctx: Vec<u32>,
    #[arg(long)]
    scenario: Vec<String>,
    #[arg(long)]
    strategy: Vec<String>,
    /// Play only the first N turns of each scenario.
    #[arg(long)]
    turns: Option<usize>,
    /// Ask K side questions after every scripted turn (a longer session, same facts).
    #[arg(long, default_value_t = 0)]
    stretch: usize,
    /// Seconds the person reads a reply before the next message.
    #[arg(long, default_value_t = 5.0)]
    think: f64,
    /// The person also reads each reply and types each message at a human pace.
    #[arg(long)]
    pace: bool,
    /// Reading speed with `--pace`, in words a minute.
    #[arg(long, default_value_t = Pace::TYPICAL.read_words_per_min)]
    read_wpm: f64,
    /// Typing speed with `--pace`, in words a minute.
    #[arg(long, default_value_t = Pace::TYPICAL.type_words_per_min)]
    type_wpm: f64,
    /// Reply temperature (the app ships with none: the model's own).
    #[arg(long, default_value_t = 0.3)]
    temperature: f32,
    /// A cap on every reply, for every strategy alike (`/set num_predict N` for ours); as
    /// shipped there is none, and a small model may write until the window is full.
    #[arg(long)]
    num_predict: Option<u32>,
    /// Tools offered to the model: `on` (as the app ships) or `off` (repeatable: each
    /// scenario runs once per value).
    #[arg(long, default_values_t = [String::from("on")])]
    tools: Vec<String>,
    /// Skip the ceiling and floor quizzes.
    #[arg(long)]
    no_bounds: bool,
    #[arg(long)]
    json: Option<std::path::PathBuf>,
    /// The server's request log (ollama-real `run.sh --log FILE`): truncation is measured
    /// from what the server kept instead of estimated.
    #[arg(long)]
    server_log: Option<std::path::PathBuf>,
    /// Judge the answers and final contexts of earlier `--json` files again with the
    /// current scorer (rewritten in place, tables to stdout); nothing is asked of a model.
    #[arg(long)]
    rescore: Vec<std::path::PathBuf>,
}

/// `--rescore`: every run and bound of `path` scored again.
fn rescore(path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let mut entries: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let all = scenarios::all();
    for entry in &mut entries {
        let name = entry["scenario"].as_str().unwrap_or_default().to_string();
        let Some(scenario) = all.iter().find(|s| s.name == name) else {
            eprintln!(
                "{}: no scenario named {name:?}; left as it was",
                path.display()
            );
            continue;
        };
        let mut runs: Vec<Measured> = serde_json::from_value(entry["runs"].take())?;
        for run in &mut runs {
            run.rescore(scenario);
        }
        let mut bound = |key: &str| -> Result<Option<QuizScore>, serde_json::Error> {
            let mut q: Option<QuizScore> = serde_json::from_value(entry[key].take())?;
            if let Some(q) = &mut q {
                q.rescore(scenario);
            }
            entry[key] = serde_json::to_value(&q)?;
            Ok(q)
        };
        let (ceiling, floor) = (bound("ceiling")?, bound("floor")?);
        let refs: Vec<&Measured> = runs.iter().collect();
        // Without a floor no bounds were asked; a ceiling alone is missing when the
        // whole conversation did not fit.
        let ceiling = floor.as_ref().map(|_| &ceiling);
        println!(
            "{}",
            fidelity::report::table(&refs, ceiling, floor.as_ref())
        );
        entry["runs"] = serde_json::to_value(&runs)?;
    }
    std::fs::write(path, serde_json::to_string_pretty(&entries)?)?;
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    if !args.rescore.is_empty() {
        for path in &args.rescore {
            rescore(path)?;
        }
        return Ok(());
    }
    let backend = OllamaBackend::new(
        &args.host,
        OllamaOptions {
            first_token_timeout: Duration::from_secs(900),
            idle_timeout: Duration::from_secs(300),
            request_timeout: Duration::from_secs(900),
            ..OllamaOptions::default()
        },
    )?;
    backend.show_model(&args.model).await?;
    let strategies: Vec<Strategy> = Strategy::ALL
        .into_iter()
        .filter(|s| args.strategy.is_empty() || args.strategy.iter().any(|n| n == s.name()))
        .collect();
    let all = scenarios::all();
    let chosen: Vec<_> = all
        .iter()
        .filter(|s| args.scenario.is_empty() || args.scenario.iter().any(|n| n == s.name))
        .map(|s| match args.turns {
            Some(n) => s.truncated(n),
            None => s.clone(),
        })
        .map(|s| s.stretched(args.stretch))
        .collect();
    let tok: Arc<Tiktoken> = Arc::new(Tiktoken::new()?);
    let mut results: Vec<serde_json::Value> = Vec::new();
    let tool_settings: Vec<bool> = args
        .tools
        .iter()
        .map(|t| match t.as_str() {
            "on" => Ok(true),
            "off" => Ok(false),
            other => Err(format!("--tools {other}: on or off")),
        })
        .collect::<Result<_, _>>()?;
    for (&ctx, &tools) in args
        .ctx
        .iter()
        .flat_map(|c| tool_settings.iter().map(move |t| (c, t)))
    {
        let setup = Setup {
            model: args.model.clone(),
            ctx,
            think: Duration::from_secs_f64(args.think),
            pace: args.pace.then_some(Pace {
                read_words_per_min: args.read_wpm,
                type_words_per_min: args.type_wpm,
            }),
            tok: tok.clone(),
            temperature: Some(args.temperature),
            tools,
            num_predict: args.num_predict,
            turn_timeout: Duration::from_secs(1800),
            server_log: args.server_log.clone(),
        };
        for scenario in &chosen {
            let mut rows: Vec<Measured> = Vec::new();
            let mut transcript = None;
            for &strategy in &strategies {
                eprintln!(
                    "[{} ctx {ctx}, tools {}] {} …",
                    scenario.name,
                    if tools { "on" } else { "off" },
                    strategy.name()
                );
                match fidelity::measure(strategy, &backend, scenario, &setup).await {
                    Ok((m, run)) => {
                        if transcript.is_none() || strategy == Strategy::Ours {
                            transcript = Some(run.transcript.clone());
                        }
                        rows.push(m);
                    }
                    Err(e) => eprintln!("  failed: {e}"),
                }
                // Written after every strategy: a run stopped halfway (they take hours on
                // a small machine) keeps what it measured.
                if let Some(path) = &args.json {
                    let mut partial = results.clone();
                    partial.push(serde_json::json!({
                        "scenario": scenario.name,
                        "ctx": ctx,
                        "tools": tools,
                        "runs": rows,
                        "partial": true,
                    }));
                    std::fs::write(path, serde_json::to_string_pretty(&partial)?)?;
                }
            }
            let (ceiling, floor) = match (&transcript, args.no_bounds) {
                (Some(t), false) => {
                    let (c, f) = fidelity::bounds(&backend, scenario, &setup, t).await?;
                    (Some(c), Some(f))
                }
                _ => (None, None),
            };
            let refs: Vec<&Measured> = rows.iter().collect();
            println!(
                "{}",
                fidelity::report::table(&refs, ceiling.as_ref(), floor.as_ref())
            );
            results.push(serde_json::json!({
                "scenario": scenario.name,
                "ctx": ctx,
                "tools": tools,
                "num_predict": args.num_predict,
                "think_secs": args.think,
                "stretch": args.stretch,
                "pace": args.pace.then_some([args.read_wpm, args.type_wpm]),
                "server_log": args.server_log,
                "runs": rows,
                "ceiling": ceiling,
                "floor": floor,
            }));
            if let Some(path) = &args.json {
                std::fs::write(path, serde_json::to_string_pretty(&results)?)?;
            }
        }
    }
    Ok(())
}
