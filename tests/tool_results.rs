//! Tool results in the engine: large ones enter the context shortened by kind and are
//! kept whole for `recall`; errors never are shortened; no request goes over budget
//! however much the tools return. No runtime, no I/O (the harness keeps what the engine
//! asks to save).
#![allow(clippy::unwrap_used)]

use ollm_tui::core::engine::EngineConfig;
use ollm_tui::core::message::{Role, ToolCall};
use ollm_tui::core::record::RecordBody;
use ollm_tui::core::results;
use ollm_tui::core::summarizer::doubles::Extractive;
use ollm_tui::core::testing::Harness;
use ollm_tui::core::tokens::{ByteEstimate, Tiktoken, Tokenizer};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::fmt::Write;
use std::sync::Arc;

/// A `read_file` of a generated source file of about `kb` KiB.
fn read(path: &str, kb: usize) -> ToolCall {
    ToolCall {
        id: format!("call_{path}"),
        name: "read_file".into(),
        args: json!({"path": path, "kb": kb}).to_string(),
        from_text: false,
    }
}

/// What the harness's tools return: a numbered file for `read_file` (its size from the
/// call's `kb`), a long error for `fail`.
fn tool_output(call: &ToolCall) -> (String, bool) {
    let args: Value = serde_json::from_str(&call.args).unwrap();
    match call.name.as_str() {
        "fail" => (
            format!("Error: {}", "the build failed at this step. ".repeat(400)),
            true,
        ),
        _ => {
            let path = args["path"].as_str().unwrap();
            let kb = args["kb"].as_u64().unwrap() as usize;
            (numbered_file(path, kb * 1024), false)
        }
    }
}

fn numbered_file(path: &str, bytes: usize) -> String {
    let mut body = String::new();
    let mut n = 0;
    while body.len() < bytes {
        n += 1;
        let line = if n % 40 == 1 {
            format!("pub fn section_{n}(input: &str) -> Result<(), Error> {{")
        } else {
            format!(
                "    let value_{n} = transform(value_{}, \"{path}\", {n});",
                n - 1
            )
        };
        let _ = writeln!(body, "{n:>5}  {line}");
    }
    format!("{path}: lines 1–{n} of {n}\n{body}")
}

/// A call without arguments.
fn bare(name: &str) -> ToolCall {
    ToolCall {
        id: format!("call_{name}"),
        name: name.into(),
        args: "{}".into(),
        from_text: false,
    }
}

fn harness(ctx: u32, tok: Arc<dyn Tokenizer>, cfg: EngineConfig) -> Harness<Extractive> {
    let mut h = Harness::with_config(ctx, cfg, tok, Extractive::new());
    h.tool_output = tool_output;
    h
}

/// The tool records written so far: (call, result as recorded, saved file).
fn tool_records(h: &Harness<Extractive>) -> Vec<(String, String, String, Option<String>)> {
    h.records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::Tool {
                name,
                args,
                result,
                original,
                ..
            } => Some((
                name.clone(),
                args.clone(),
                result.clone(),
                original.as_ref().map(|o| o.file.clone()),
            )),
            _ => None,
        })
        .collect()
}

/// 40 files of 20–200 KiB, four per message, at ctx 4096 and 8192, read through by the
/// summarizer (layer 1) and only shortened: every request within budget (the harness
/// checks each one), every large result shortened or summarized with a reference, and
/// every original kept byte for byte.
#[test]
fn a_task_reading_forty_large_files_never_goes_over_budget() {
    let tok: Arc<dyn Tokenizer> = Arc::new(Tiktoken::new().unwrap());
    for ctx in [4096, 8192] {
        for digest in [true, false] {
            forty_files(ctx, digest, &tok);
        }
    }
}

fn forty_files(ctx: u32, digest: bool, tok: &Arc<dyn Tokenizer>) {
    let cfg = EngineConfig {
        digest_results: digest,
        ..EngineConfig::default()
    };
    let mut h = harness(ctx, tok.clone(), cfg);
    let mut digests = 0;
    for turn in 0..10 {
        let calls: Vec<ToolCall> = (0..4)
            .map(|i| {
                let n = turn * 4 + i;
                read(&format!("src/file_{n}.rs"), 20 + (n * 37) % 181)
            })
            .collect();
        h.scripted_calls.push_back(calls);
        h.scripted_calls.push_back(Vec::new());
        let r = h.turn(&format!("Read the next four files, batch {turn}."), |_| {
            "Read them; the sections are listed above.".into()
        });
        assert!(
            r.blocked.is_none(),
            "ctx {ctx} turn {turn}: {:?}",
            r.blocked
        );
        assert_eq!(r.sent.len(), 2, "one request for the calls, one after them");
        digests += r.digests;
    }
    // Only the files small enough to read through in a few parts are (the rest would
    // keep the person waiting): some of both kinds at these sizes.
    if digest {
        assert!((1..40).contains(&digests), "ctx {ctx}: {digests} digests");
    } else {
        assert_eq!(digests, 0);
    }
    let records = tool_records(&h);
    assert_eq!(records.len(), 40);
    let limit = results::limit_for(h.engine.budget().room(), u32::MAX);
    let mut summarized = 0;
    for (name, args, result, file) in &records {
        let call = ToolCall {
            id: String::new(),
            name: name.clone(),
            args: args.clone(),
            from_text: false,
        };
        let (original, _) = tool_output(&call);
        let file = file
            .as_ref()
            .expect("a 20 KiB result is shortened at these sizes");
        assert_eq!(
            h.saved[file], original,
            "the original is kept byte for byte"
        );
        if result.starts_with("[Summarized file:") {
            summarized += 1;
        } else {
            assert!(result.starts_with("[Shortened file:"), "{result}");
        }
        assert!(result.contains("recall with id"), "{result}");
        assert!(
            tok.count(result) <= limit.max(results::SMALL_TOKENS),
            "ctx {ctx}"
        );
    }
    assert_eq!(summarized, digests, "every digest made is the one recorded");
    // The results of one reply share what their exchange has left: none needed an
    // emergency cut to fit.
    assert!(
        !h.events.iter().any(|e| matches!(
            e,
            ollm_tui::core::events::EngineEvent::MessageClipped { .. }
        )),
        "ctx {ctx}: a result was clipped"
    );
    // The model saw the head and the outline of each file it did not read through.
    if let Some((_, _, last, _)) = records.iter().rev().find(|r| r.2.starts_with("[Shortened")) {
        assert!(last.contains("    1  pub fn section_1"), "{last}");
        assert!(last.contains("left out"), "{last}");
    }
}

#[test]
fn the_shortened_form_names_its_own_record_for_recall_and_survives_replay() {
    let mut h = harness(4096, Arc::new(ByteEstimate), EngineConfig::default());
    h.scripted_calls.push_back(vec![read("src/big.rs", 64)]);
    h.scripted_calls.push_back(Vec::new());
    h.turn("read src/big.rs", |_| "done".into());
    let tool = h
        .engine
        .history()
        .iter()
        .find(|m| m.role == Role::Tool)
        .unwrap()
        .clone();
    let original = tool.tool.as_ref().unwrap().original.clone().unwrap();
    assert_eq!(original.file, format!("{}.txt", tool.id.0));
    assert!(
        tool.text.contains(&format!("recall with id {}", tool.id.0)),
        "{}",
        tool.text
    );
    assert_eq!(
        original.chars as usize,
        h.saved[&original.file].chars().count()
    );
    let (replayed, report) = h.replayed();
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    let again = replayed.history().get(tool.id).unwrap();
    assert_eq!(again.text, tool.text);
    assert_eq!(again.tool, tool.tool);
}

#[test]
fn errors_and_small_results_go_in_whole() {
    let mut h = harness(2048, Arc::new(ByteEstimate), EngineConfig::default());
    h.scripted_calls.push_back(vec![bare("fail"), bare("ls")]);
    h.scripted_calls.push_back(Vec::new());
    h.tool_output = |call| match call.name.as_str() {
        "fail" => tool_output(call),
        _ => ("a.txt\nb.txt\n".into(), false),
    };
    h.turn("build it", |_| "it failed".into());
    let records = tool_records(&h);
    let (error, _) = tool_output(&bare("fail"));
    assert_eq!(records[0].2, error, "an error is verbatim, however long");
    assert_eq!(records[0].3, None);
    assert_eq!(records[1].2, "a.txt\nb.txt\n");
    assert_eq!(records[1].3, None);
    assert!(h.saved.is_empty());
}

#[test]
fn results_whole_keeps_every_result_as_it_came() {
    let cfg = EngineConfig {
        whole_results: true,
        ..EngineConfig::default()
    };
    let mut h = harness(8192, Arc::new(ByteEstimate), cfg);
    h.scripted_calls.push_back(vec![read("src/a.rs", 8)]);
    h.scripted_calls.push_back(Vec::new());
    h.turn("read it", |_| "ok".into());
    let records = tool_records(&h);
    assert_eq!(records[0].2, tool_output(&read("src/a.rs", 8)).0);
    assert!(h.saved.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever a tool returns and whatever the limit, the shortened form fits it, says
    /// it is shortened and names the reference; a result that fits is left untouched.
    #[test]
    fn shortening_fits_the_limit_and_says_so(
        lines in proptest::collection::vec("[ -~]{0,200}", 0..400),
        tool in prop_oneof![
            Just("read_file"), Just("search_files"), Just("run_command"), Just("mcp.x"),
        ],
        limit in 200u32..3000,
    ) {
        let tok = ByteEstimate;
        let text = lines.join("\n");
        match results::shorten(tool, &text, limit, 77, &tok) {
            None => prop_assert!(tok.count(&text) <= limit),
            Some(s) => {
                prop_assert!(tok.count(&s.text) <= limit, "{} > {limit}", tok.count(&s.text));
                prop_assert!(s.text.starts_with("[Shortened "));
                prop_assert!(s.text.contains("recall with id 77"));
                prop_assert_eq!(s.original_chars, text.chars().count());
            }
        }
    }
}

/// Two reads and an answer, then a plain exchange: what `/done` has to work with.
fn task_then_chat(h: &mut Harness<Extractive>) {
    h.scripted_calls
        .push_back(vec![read("src/a.rs", 1), read("src/b.rs", 1)]);
    h.scripted_calls.push_back(Vec::new());
    // The reply that calls says nothing else, as models do; the one after the results
    // answers.
    h.turn("read a.rs and b.rs", |p| {
        answer_after(p, 1, "Both define sections.")
    });
    h.turn("thanks, what next?", |_| "Next we test.".into());
}

/// Empty until the request holds `results` tool results (the model is still calling),
/// then `text`.
fn answer_after(p: &ollm_tui::core::engine::ChatPrompt, results: usize, text: &str) -> String {
    let seen = p
        .messages
        .iter()
        .filter(|m| m.role == ollm_tui::core::engine::PromptRole::Tool)
        .count();
    if seen >= results {
        text.into()
    } else {
        String::new()
    }
}

fn done(h: &mut Harness<Extractive>) -> ollm_tui::core::testing::TurnReport {
    let mut report = ollm_tui::core::testing::TurnReport::default();
    h.run(ollm_tui::core::engine::Request::Done, &mut report, &|_| {
        panic!("/done sends no request")
    });
    report
}

#[test]
fn done_removes_exactly_the_tool_messages_before_it_and_nothing_else() {
    let mut h = harness(8192, Arc::new(ByteEstimate), EngineConfig::default());
    task_then_chat(&mut h);
    let before: Vec<_> = h.engine.active().messages().to_vec();
    let snapshot = h.snapshot();
    let report = done(&mut h);
    let after: Vec<_> = h.engine.active().messages().to_vec();
    // user, assistant(calls only), tool, tool, assistant, user, assistant
    let removed: Vec<_> = before
        .iter()
        .filter(|e| !after.iter().any(|a| a.id == e.id))
        .collect();
    assert_eq!(removed.len(), 3, "{removed:?}");
    assert!(removed.iter().all(|e| e.role == Role::Tool
        || (e.role == Role::Assistant && h.engine.history().get(e.id).unwrap().text.is_empty())));
    assert!(after.iter().all(|e| e.role != Role::Tool));
    assert_eq!(after.len(), 4, "what was said stays");
    let freed = report
        .events
        .iter()
        .find_map(|e| match e {
            ollm_tui::core::events::EngineEvent::TaskDone { messages, tokens } => {
                Some((*messages, *tokens))
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(freed.0, 3);
    assert!(freed.1 > 0);
    // The next request carries no call or result from before the watermark.
    let r = h.turn("a new task", |_| "ok".into());
    let sent = r.sent.last().unwrap();
    assert!(
        sent.messages
            .iter()
            .all(|m| m.tool_calls.is_empty() && m.role != ollm_tui::core::engine::PromptRole::Tool)
    );
    // A log record: replay rebuilds the same context.
    let (replayed, _) = h.replayed();
    assert_eq!(replayed.active().messages(), h.engine.active().messages());
    // A restore of the state before brings every message back.
    h.restore(&snapshot);
    let restored: Vec<_> = h.engine.active().messages().iter().map(|e| e.id).collect();
    assert_eq!(restored, before.iter().map(|e| e.id).collect::<Vec<_>>());
    // Nothing left to clear: refused, and nothing changes.
    let mut h = harness(8192, Arc::new(ByteEstimate), EngineConfig::default());
    h.turn("hello", |_| "hi".into());
    let report = done(&mut h);
    assert!(
        report
            .events
            .iter()
            .any(|e| matches!(e, ollm_tui::core::events::EngineEvent::Refused { .. }))
    );
}

#[test]
fn the_models_task_done_sets_the_watermark_after_its_answer() {
    let mut h = harness(8192, Arc::new(ByteEstimate), EngineConfig::default());
    h.tool_output = |call| match call.name.as_str() {
        "task_done" => ("Noted.".into(), false),
        _ => tool_output(call),
    };
    h.scripted_calls.push_back(vec![read("src/a.rs", 1)]);
    h.scripted_calls.push_back(vec![bare("task_done")]);
    h.scripted_calls.push_back(Vec::new());
    h.turn("read a.rs, then we are done", |p| {
        answer_after(p, 2, "All done: a.rs is fine.")
    });
    let active = h.engine.active().messages();
    assert!(active.iter().all(|e| e.role != Role::Tool), "{active:?}");
    let texts: Vec<&str> = active
        .iter()
        .map(|e| h.engine.history().get(e.id).unwrap().text.as_str())
        .collect();
    assert_eq!(
        texts,
        ["read a.rs, then we are done", "All done: a.rs is fine."]
    );
    assert!(
        h.records
            .iter()
            .any(|r| matches!(r.body, RecordBody::Watermark { .. }))
    );
}

/// Reads of 60 KiB files turn after turn at ctx 8192: when the context reaches the
/// trigger, the older results are cut down from their originals before any conversation
/// is folded; the newest exchange's result stays as it arrived.
#[test]
fn layer_two_reduces_older_results_before_folding_conversation() {
    let tok: Arc<dyn Tokenizer> = Arc::new(Tiktoken::new().unwrap());
    let mut h = harness(8192, tok.clone(), EngineConfig::default());
    for turn in 0..8 {
        h.scripted_calls
            .push_back(vec![read(&format!("src/part_{turn}.rs"), 60)]);
        h.scripted_calls.push_back(Vec::new());
        h.turn(
            &format!("Read part {turn} and tell me what it does."),
            |p| answer_after(p, turn + 1, "It defines sections that transform values."),
        );
    }
    let kinds: Vec<&str> = h.records.iter().map(|r| r.body.kind()).collect();
    let first_reduced = kinds
        .iter()
        .position(|k| *k == "result_reduced")
        .expect("no result was reduced");
    if let Some(first_fold) = kinds.iter().position(|k| *k == "checkpoint") {
        assert!(first_reduced < first_fold, "{kinds:?}");
    }
    // Each reduction is made from the original: its header counts the original's
    // characters, and it is what the shortening of the original to its target gives.
    for r in &h.records {
        let RecordBody::ResultReduced { id, text, .. } = &r.body else {
            continue;
        };
        let m = h.engine.history().get(*id).unwrap();
        let original = &h.saved[&m.tool.as_ref().unwrap().original.as_ref().unwrap().file];
        let chars = original.chars().count();
        assert!(
            text.contains(&format!("of {} characters", results::human(chars))),
            "{text}"
        );
        assert!(
            tok.count(text) < m.tokens,
            "smaller than what the context held"
        );
    }
    // The newest exchange's result is as it arrived.
    let newest = h
        .engine
        .active()
        .messages()
        .iter()
        .rev()
        .find(|e| e.role == Role::Tool)
        .unwrap()
        .id;
    assert!(
        !h.records
            .iter()
            .any(|r| matches!(&r.body, RecordBody::ResultReduced { id, .. } if *id == newest))
    );
    let sent = h.engine.prompt();
    let newest_text = &h.engine.history().get(newest).unwrap().text;
    assert!(sent.messages.iter().any(|m| &m.content == newest_text));
    // Replay rebuilds the same request.
    let (replayed, report) = h.replayed();
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(replayed.prompt().messages, sent.messages);
}

/// A result worth reading through is read only when the server, at its measured speed,
/// would do it within `digest_max_secs`: on a fast server it is read (and the plan says
/// about how long), on a slow one it is shortened instead and the engine says how long
/// the reading would have taken. Before any reply there is no measure: it is read.
#[test]
fn a_result_is_read_through_only_when_the_server_is_fast_enough() {
    use ollm_tui::core::engine::Digestion;
    let tok: Arc<dyn Tokenizer> = Arc::new(Tiktoken::new().unwrap());
    let cfg = EngineConfig {
        digest_results: true,
        digest_max_secs: 30,
        ..EngineConfig::default()
    };
    let call = read("src/big.rs", 40);
    let (result, _) = tool_output(&call);
    let timed = |prompt_tps: u64, output_tps: u64| {
        let mut h = harness(8192, tok.clone(), cfg.clone());
        h.measure(prompt_tps, output_tps);
        h.engine.digest_plan(&call, &result)
    };
    let unmeasured = harness(8192, tok.clone(), cfg.clone())
        .engine
        .digest_plan(&call, &result);
    assert!(
        matches!(unmeasured, Digestion::Read { secs: None, .. }),
        "{unmeasured:?}"
    );
    // A GPU-class server: thousands of prompt tokens a second.
    match timed(4000, 80) {
        Digestion::Read {
            secs: Some(s),
            plan,
        } => {
            assert!(s <= 30, "{s} s");
            assert!(!plan.calls().is_empty());
        }
        other => panic!("fast server: {other:?}"),
    }
    // The 0.5B model on two cores: ~60 prompt tokens and 8 output tokens a second.
    match timed(60, 8) {
        Digestion::TooSlow { secs, limit } => {
            assert_eq!(limit, 30);
            assert!(secs > 30, "{secs} s");
        }
        other => panic!("slow server: {other:?}"),
    }
}
