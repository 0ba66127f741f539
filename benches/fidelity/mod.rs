//! The fidelity and cost benchmark: how much of a conversation a strategy keeps, and what
//! it costs, measured on a real model against simpler strategies on the same script.
//!
//! Strategy: each scenario (`scenarios`) is played once per strategy (`strategies`) on
//! the same backend, model and context size. At the end the context the next request would
//! carry is scored: facts kept *with their subject* (`score`), and a quiz asked against
//! that context; beside them the ceiling (the whole conversation, where it fits the
//! server's largest context) and the floor (no history). Every model call is recorded
//! (`recorder`), so calls, tokens, seconds spent compressing vs replying, the longest wait
//! and the waiting that compression caused come from what happened, not from estimates.
//! So do the compression passes per turn (ours: the engine's own events) and the share of
//! the server's busy time spent compressing. Facts and quiz are also split by where the
//! fact was said: in the first third of the chat, plain truncation has nothing left.
//!
//! Truncation is measured from what the server kept when it writes a request log
//! (`server_log`, ollama-real's `--log`); otherwise it is estimated with our tokenizer,
//! and the report says which.
//!
//! Invariants checked on every run: no request over budget (the server never refused one
//! as too long) and, for ours, the locked decision in every chat request.
//!
//! Run it with `cargo run --release --example fidelity -- --help`. `tests/fidelity.rs` runs
//! it against the fake server to guard the plumbing. It is not the product, so it is not in
//! the library: those two targets include this folder as their `fidelity` module and reach
//! the product through `ollm_tui`'s public items, as any client would.

pub mod recorder;
pub mod report;
pub mod scenarios;
pub mod score;
pub mod server_log;
pub mod strategies;

pub use report::{Measured, QuizScore};
pub use scenarios::Scenario;
pub use strategies::{KeptBy, Pace, Passes, Run, RunError, Setup, Strategy};

use ollm_tui::llm::{ChatBackend, ChatMessage, ChatOptions, ChatRequest, ChatRole, OllamaBackend};
use recorder::CallKind;
use std::time::Instant;

/// Tokens the quiz answers may use.
const QUIZ_ANSWER_TOKENS: i32 = 48;
/// The largest context the ceiling may ask for.
pub const CEILING_MAX_CTX: u32 = 8192;

/// A backend the benchmark plays through: a chat backend that can also give a copy of
/// itself whose chats let the server truncate (the truncation baseline read from the
/// server's log), which the app never sends.
pub trait Backend: ChatBackend + Clone {
    fn server_truncating(&self) -> Self;
}

impl Backend for OllamaBackend {
    fn server_truncating(&self) -> Self {
        OllamaBackend::server_truncating(self)
    }
}

/// Ask the quiz against `context`; one fresh request per question. A question whose
/// request does not fit `num_ctx` gets no answer, unless `backend` lets the server
/// truncate (the truncation baseline measured from the server's log, whose next request
/// the server would cut as it cut the others).
pub async fn quiz<B: ChatBackend>(
    backend: &B,
    setup: &Setup,
    scenario: &Scenario,
    context: &[(ChatRole, String)],
    num_ctx: u32,
    ask: Option<&strategies::Asker>,
) -> Result<QuizScore, RunError> {
    let mut score = QuizScore::default();
    for q in &scenario.quiz {
        let question = format!("{} Answer in one short sentence.", q.ask);
        // A strategy that builds its own requests is asked through them (ours recalls
        // what the question is about from its log); else the context, then the question.
        let messages: Vec<ChatMessage> = match ask {
            Some(ask) => ask(&question)
                .into_iter()
                .map(|(r, t)| ChatMessage::new(r, t))
                .collect(),
            None => context
                .iter()
                .map(|(r, t)| ChatMessage::new(*r, t.clone()))
                .chain(std::iter::once(ChatMessage::user(question.clone())))
                .collect(),
        };
        let options = ChatOptions {
            num_ctx,
            num_predict: Some(QUIZ_ANSWER_TOKENS),
            temperature: Some(0.0),
            seed: Some(7),
            top_p: None,
        };
        // What the model was shown: for a context the server cuts, the context the
        // run kept (as the server cut it); else the request, the question left out.
        let shown = match ask {
            Some(_) => report::joined(
                messages[..messages.len().saturating_sub(1)]
                    .iter()
                    .map(|m| m.content.as_str()),
            ),
            None => report::joined(context.iter().map(|(_, t)| t.as_str())),
        };
        let req = ChatRequest::new(setup.model.clone(), messages, options);
        let answer = match backend.chat(req).await {
            Ok(r) => r.text,
            Err(ollm_tui::llm::LlmError::ContextOverflow { .. }) => String::new(),
            Err(e) => return Err(e.into()),
        };
        let right = score::answer_is_right(&answer, &scenario.facts[q.fact]);
        score.asked += 1;
        score.right += usize::from(right);
        score
            .found
            .push(score::kept_with_subject(&shown, &scenario.facts[q.fact]));
        score.answers.push((q.ask.to_string(), answer, right));
    }
    Ok(score)
}

/// Play `scenario` with `strategy`, then score and quiz it.
pub async fn measure<B: Backend>(
    strategy: Strategy,
    backend: &B,
    scenario: &Scenario,
    setup: &Setup,
) -> Result<(Measured, Run), RunError> {
    let mut log = match &setup.server_log {
        Some(path) => Some(server_log::Cursor::at_end(path).map_err(|e| RunError::log(path, &e))?),
        None => None,
    };
    let run = strategies::run(strategy, backend, scenario, setup).await?;
    let cut = match &mut log {
        Some(log) => Some(
            log.read()
                .map_err(|e| RunError::log(log.path(), &e))?
                .iter()
                .filter(|e| e.dropped.is_some_and(|n| n > 0))
                .count(),
        ),
        None => None,
    };
    // The truncation baseline's questions are cut by the server as its turns were.
    let asked = if run.kept_by == KeptBy::ServerLog {
        backend.server_truncating()
    } else {
        backend.clone()
    };
    let quiz = quiz(
        &asked,
        setup,
        scenario,
        &run.context,
        setup.ctx,
        run.ask.as_ref(),
    )
    .await?;
    Ok((report::measured(scenario, setup, &run, quiz, cut), run))
}

/// The quiz with the whole conversation (where it fits) and with none.
pub async fn bounds<B: ChatBackend>(
    backend: &B,
    scenario: &Scenario,
    setup: &Setup,
    transcript: &[(ChatRole, String)],
) -> Result<(Option<QuizScore>, QuizScore), RunError> {
    let tokens: u32 = transcript
        .iter()
        .map(|(_, t)| setup.tok.count(t) + 4)
        .sum::<u32>();
    let need = tokens + tokens / 4 + 512;
    let ceiling = if need <= CEILING_MAX_CTX {
        let ctx = need.max(setup.ctx);
        Some(quiz(backend, setup, scenario, transcript, ctx, None).await?)
    } else {
        None
    };
    let floor = quiz(backend, setup, scenario, &[], setup.ctx, None).await?;
    Ok((ceiling, floor))
}

/// Seconds between two instants, for reports.
pub(crate) fn secs(from: Instant, to: Instant) -> f64 {
    to.saturating_duration_since(from).as_secs_f64()
}

/// Whether a recorded call was a compression (not a reply).
pub(crate) fn is_compression(kind: CallKind) -> bool {
    kind == CallKind::Summary
}
