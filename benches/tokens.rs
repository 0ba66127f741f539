//! Token counting throughput (`Tiktoken::count`, cl100k_base) on English prose, code and
//! CJK text, in bytes/s and tokens/s, and the tokenizer's start-up time.
//!
//! Each input is about 64 KiB, built deterministically from varied sentences so the BPE
//! sees realistic, not repetitive, text. Counting happens once per message (the count is
//! cached), so this bounds what a large paste costs on arrival.
#![allow(clippy::unwrap_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ollm_tui::core::tokens::{Tiktoken, Tokenizer};
use std::hint::black_box;

const SIZE_BYTES: usize = 64 * 1024;

const PROSE: &[&str] = &[
    "The context engine keeps the conversation inside a fixed window by folding old turns into summaries.",
    "Each summary records which messages it replaces, so nothing is ever lost from the session history.",
    "When the budget runs low, older checkpoints are rewritten at a lower level of detail.",
    "We measured the prompt evaluation count reported by the server and calibrated our estimate against it.",
    "Pinned messages, tool errors and the latest exchange are never summarized; the user decides what matters.",
    "If a reply is interrupted, the partial text is kept and marked, so the next request can refer to it.",
    "Numbers like 8,192 tokens, 4500 ms or version 2.3.1 must survive every summary exactly as written.",
];

const CODE: &[&str] = &[
    "fn handle_request(req: &Request, cache: &Cache) -> Result<Response, Error> {\n",
    "    let value = cache.get(&req.key).ok_or_else(|| Error::Missing(req.key.clone()))?;\n",
    "    if value.len() > MAX_LEN { return Err(Error::TooLong { len: value.len() }); }\n",
    "    Ok(Response::new(StatusCode::OK, value.to_vec()))\n}\n\n",
    "#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]\npub struct Checkpoint {\n",
    "    pub id: CheckpointId,\n    pub covers: Vec<MessageId>,\n    pub tokens: u32,\n}\n\n",
    "for (i, line) in text.lines().enumerate() {\n    println!(\"{i:>4}: {line}\");\n}\n",
    "SELECT id, name, created_at FROM sessions WHERE model = $1 ORDER BY created_at DESC;\n",
];

const CJK: &[&str] = &[
    "上下文引擎把旧的对话折叠成摘要，使对话始终保持在固定的窗口之内。",
    "每个摘要都记录它所替代的消息，因此会话历史中不会丢失任何内容。",
    "预算不足时，较早的检查点会以更低的细节层次重新编写。",
    "ローカルのモデルで長い会話を続けるには、古いやり取りを要約する必要があります。",
    "ピン留めしたメッセージとツールのエラーは要約されません。",
    "대화가 길어지면 오래된 부분을 요약하여 컨텍스트 안에 유지합니다。",
];

/// About `SIZE_BYTES` of text cycling through `parts` with a varying stride.
fn corpus(parts: &[&str]) -> String {
    let mut out = String::with_capacity(SIZE_BYTES + 256);
    let mut i = 0usize;
    while out.len() < SIZE_BYTES {
        out.push_str(parts[(i * 5 + i / parts.len()) % parts.len()]);
        out.push(if i % 4 == 3 { '\n' } else { ' ' });
        i += 1;
    }
    out
}

fn benches(c: &mut Criterion) {
    let tok = Tiktoken::new().unwrap();
    let mut group = c.benchmark_group("tokens/count");
    group.measurement_time(std::time::Duration::from_secs(10));
    for (name, parts) in [("english prose", PROSE), ("code", CODE), ("cjk", CJK)] {
        let text = corpus(parts);
        let tokens = tok.count(&text);
        eprintln!(
            "{name}: {} bytes, {tokens} tokens ({:.2} bytes/token)",
            text.len(),
            text.len() as f64 / f64::from(tokens)
        );
        group.throughput(Throughput::ElementsAndBytes {
            elements: u64::from(tokens),
            bytes: text.len() as u64,
        });
        group.bench_function(name, |b| b.iter(|| tok.count(black_box(&text))));
    }
    group.finish();

    let mut group = c.benchmark_group("tokens/init");
    group.sample_size(10);
    group.bench_function("Tiktoken::new (cl100k_base)", |b| {
        b.iter(|| Tiktoken::new().unwrap())
    });
    group.finish();
}

criterion_group!(tokens, benches);
criterion_main!(tokens);
