//! Tune the summary prompts against a real model: builds a realistic conversation, runs
//! real compressions through the engine and the Ollama backend, and prints what came back.
//!
//!     cargo run --release --example summary-probe -- --host 127.0.0.1:11434 \
//!         --model qwen2.5-coder:0.5b --ctx 2048 --passes 3
//!
//! Edit `assets/prompts/prompts.toml` (or put overrides in `$OLLM_HOME/prompts.toml` and
//! pass `--prompts FILE`) and run again. Nothing is written to disk.

use ollm_tui::actor::summarizer::BackendSummarizer;
use ollm_tui::core::engine::{
    Effect, Engine, EngineConfig, Input, ReplyInput, Request, SessionSpec,
};
use ollm_tui::core::events::EngineEvent;
use ollm_tui::core::facts;
use ollm_tui::core::message::ReplyStatus;
use ollm_tui::core::mode::Mode;
use ollm_tui::core::prompts::Prompts;
use ollm_tui::core::tokens::Tiktoken;
use ollm_tui::llm::{ChatBackend, OllamaBackend, OllamaOptions};
use std::sync::Arc;
use std::time::Instant;

/// A developer conversation with the kind of specifics summaries tend to lose.
const TURNS: &[(&str, &str)] = &[
    (
        "Our API server in src/server/main.rs listens on port 8080. Requests to /v1/orders time out after 30 seconds. Any idea?",
        "A 30 second timeout on /v1/orders usually means a slow database query or a lock. Check the handler in src/server/orders.rs: if it calls fetch_orders() without a LIMIT, the query scans the whole orders table. Add an index on orders.customer_id and log how long fetch_orders() takes.",
    ),
    (
        "fetch_orders() takes 28.4 seconds. The orders table has 12,000,000 rows.",
        "That confirms it. With 12,000,000 rows a full scan is expected. Create the index with: CREATE INDEX idx_orders_customer ON orders(customer_id); Then fetch_orders() should drop well below a second. Also paginate: return at most 100 orders per page.",
    ),
    (
        "The index helped: 0.35 seconds now. Should we cache results too?",
        "A cache helps only if the same customer asks repeatedly. I would add Redis with a 60 second TTL keyed by customer id, in src/server/cache.rs. Decision to make: cache or not.",
    ),
    (
        "Let's use Redis with a 60 second TTL. [DECISION] Use Redis cache with 60s TTL - LOCKED",
        "Good. I created src/server/cache.rs with get_cached_orders() and set_cached_orders(). The Redis URL comes from the REDIS_URL environment variable, default redis://127.0.0.1:6379. Next: write tests for cache expiry.",
    ),
    (
        "How do we test expiry without waiting 60 seconds?",
        "Make the TTL configurable: read ORDERS_CACHE_TTL_SECS (default 60) in src/server/config.rs. In tests set it to 1 second and sleep 1.5 seconds, or better, inject a clock. The test goes in tests/cache_expiry.rs.",
    ),
    (
        "Tests pass. Now the frontend shows stale prices after an update.",
        "When a price changes, invalidate the cache entry: call invalidate_customer(customer_id) from update_price() in src/server/prices.rs. Otherwise customers see old prices for up to 60 seconds.",
    ),
    (
        "Done. What about the 502 errors from nginx we saw on Friday?",
        "The nginx 502s came from the upstream timeout: proxy_read_timeout was 10s while fetch_orders() took 28 seconds. With the index that is solved, but raise proxy_read_timeout to 30s in deploy/nginx.conf as a safety margin.",
    ),
    (
        "Anything else before we release version 2.4.1?",
        "Update CHANGELOG.md for 2.4.1: the orders index, the Redis cache (60s TTL, ORDERS_CACHE_TTL_SECS), cache invalidation on price updates, and the nginx timeout. Then tag v2.4.1 and deploy with deploy/release.sh.",
    ),
];

fn arg(name: &str, default: &str) -> String {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
        .unwrap_or_else(|| default.to_string())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let host = arg("--host", "127.0.0.1:11434");
    let model = arg("--model", "qwen2.5-coder:0.5b");
    let ctx: u32 = arg("--ctx", "2048").parse()?;
    let passes: usize = arg("--passes", "3").parse()?;
    let mode: Mode = arg("--mode", "developer").parse()?;
    let prompts = match std::env::args().position(|a| a == "--prompts") {
        Some(_) => Prompts::with_overrides(&std::fs::read_to_string(arg("--prompts", ""))?)?,
        None => Prompts::builtin(),
    };
    let backend = OllamaBackend::new(&host, OllamaOptions::default())?;
    let info = backend.show_model(&model).await?;
    let mut engine = Engine::new(
        SessionSpec {
            session_id: "probe".into(),
            model: model.clone(),
            mode,
            ctx: Some(ctx),
        },
        EngineConfig::default(),
        Arc::new(Tiktoken::new()?),
        Arc::new(prompts),
        chrono::Utc::now(),
    );
    let now = chrono::Utc::now;
    engine.handle(
        Input::ModelInfo {
            context_length: info.context_length,
            parameter_size: info.parameter_size,
        },
        now(),
    );
    let backend = Arc::new(backend);
    for pass in 0..passes {
        // Replay the conversation (again) so there is something to fold each pass.
        for (user, assistant) in TURNS {
            // Compressions are run by hand below: a pass the turn asks for is skipped.
            let text = format!("{user} (pass {pass})");
            let raw = match engine.handle(Request::Send { text }, now()).pop() {
                Some(Effect::Chat(p)) => p.raw_estimate,
                _ => 0,
            };
            engine.handle(
                Input::Reply(ReplyInput {
                    text: assistant.to_string(),
                    status: ReplyStatus::Complete,
                    prompt_eval_count: None,
                    prompt_eval_cached: None,
                    eval_count: None,
                    prompt_raw: raw,
                }),
                now(),
            );
        }
        let mut fx = engine.handle(Request::Compress { focus: None }, now());
        let plan = match fx.pop() {
            Some(Effect::Compress(p)) => p,
            _ => {
                println!("pass {pass}: nothing to compress ({fx:?})");
                continue;
            }
        };
        println!(
            "\n=== pass {} — {} (tokens before {}) ===",
            pass + 1,
            plan.describe(),
            plan.tokens_before
        );
        let summarizer = BackendSummarizer {
            backend: backend.clone(),
            model: model.clone(),
            num_ctx: engine.ctx(),
        };
        let started = Instant::now();
        let outcome = plan.run(&summarizer).await;
        let elapsed = started.elapsed();
        let fx = engine.handle(Input::Compressed(Box::new(outcome)), now());
        for e in &fx {
            if let Effect::Event(ev) = e {
                match ev {
                    EngineEvent::CheckpointCreated {
                        number,
                        tokens,
                        original_tokens,
                        messages,
                        ..
                    } => println!(
                        "checkpoint {number}: {messages} messages, {original_tokens} -> {tokens} tokens"
                    ),
                    EngineEvent::CheckpointAged {
                        from,
                        to,
                        tokens_before,
                        tokens_after,
                        ..
                    } => println!(
                        "aged {} -> {}: {tokens_before} -> {tokens_after} tokens",
                        from.name(),
                        to.name()
                    ),
                    EngineEvent::Compressed {
                        tokens_before,
                        tokens_after,
                        calls,
                        ..
                    } => println!(
                        "compressed: {tokens_before} -> {tokens_after} tokens (freed {}), {calls} model calls, {:.1} s",
                        tokens_before.saturating_sub(*tokens_after),
                        elapsed.as_secs_f64()
                    ),
                    EngineEvent::FactsKept { count, .. } => {
                        println!("kept facts appended: {count}")
                    }
                    EngineEvent::CompressionFailed { error, .. } => println!("ERROR: {error}"),
                    _ => {}
                }
            }
        }
        for cp in engine.checkpoints() {
            let originals: String = cp
                .covers
                .iter()
                .filter_map(|id| engine.history().get(*id))
                .map(|m| m.text.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            let all = facts::extract(&originals);
            let kept = all
                .iter()
                .filter(|f| facts::is_kept(f, &cp.summary))
                .count();
            println!(
                "--- checkpoint {} [{}] {} tokens, facts kept {kept}/{} ---\n{}",
                cp.number,
                cp.level.name(),
                cp.tokens,
                all.len(),
                cp.summary
            );
        }
    }
    Ok(())
}
