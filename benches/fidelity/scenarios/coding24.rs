//! `coding24` (#28): a day of debugging an HTTP proxy, told the way a person types it
//! ("the thing blowing up is parse_header() in src/http/parse.rs, returns E0412") —
//! functions, files, error codes, commands, environment variables, a CI image — with
//! questions and chat between. The quiz asks mostly about the first third, where the bug
//! the day started with was described.

use super::{Question, Scenario, distractor, fact};

pub(super) fn coding24() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "ok so the thing blowing up is parse_header() in src/http/parse.rs, it returns E0412 on any request with a folded header line".into(),
        // 1
        "to reproduce: RUST_LOG=debug cargo run --bin edge-proxy -- --listen 127.0.0.1:8088, then curl it with a folded header".into(),
        // 2
        "what's the actual rule for folded headers in HTTP/1.1? I remember it being deprecated".into(),
        // 3
        "right, obs-fold. The obs-fold fix goes into unfold_continuation(), which I just added right below the parser.".into(),
        // 4
        "Strict parsing is behind an env var, EDGE_STRICT_HEADERS=1, and it's off by default.".into(),
        // 5
        "lunch break, brb. is it bad that I eat at my desk every day?".into(),
        // 6
        "back. The folding tests are in tests/http_fold.rs and I run the folding tests with cargo test -p edge-http --test http_fold".into(),
        // 7
        "CI is red though: clippy on the runner says error[E0599]: no method named `trim_ascii_start` found for `&[u8]`".into(),
        // 8
        "turns out the runner image is ghcr.io/acme/rust-ci:2024-02, which is older than trim_ascii_start".into(),
        // 9
        "We'll bump the MSRV to 1.80 in rust-toolchain.toml then, decision made. What's the usual etiquette for announcing an MSRV bump?".into(),
        // 10
        distractor("the history of the QWERTY layout"),
        // 11
        "next bug, different crate: the connection pool leaks when the upstream sends RST. The connection pool lives in src/pool/mod.rs and checkout() never gives the slot back on that path.".into(),
        // 12
        "how do people usually test for leaks like this without sleeping in tests?".into(),
        // 13
        "The metric to watch for the leak is edge_pool_idle_slots on the Grafana board.".into(),
        // 14
        "PRs need two approvals here, which is fine but slow. Any tips on getting faster reviews?".into(),
        // 15
        "I added a guard type, SlotGuard, that hands the slot back in Drop.".into(),
        // 16
        distractor("how lighthouses were staffed"),
        // 17
        "The retry budget comes from EDGE_RETRY_BUDGET and we agreed the retry budget is 3 retries.".into(),
        // 18
        "and the panic on shutdown: thread 'tokio-runtime-worker' panicked at src/server/shutdown.rs:57 because drain() gets called twice".into(),
        // 19
        "What's your take on unwrap() in tests, fine or lazy?".into(),
        // 20
        "fixed it, drain() takes self by value now so it can't run twice".into(),
        // 21
        "the release checklist lives in docs/RELEASING.md, I always forget it exists".into(),
        // 22
        "The next release gets tagged 0.9.3 with `just release`, then the pipeline publishes it to the internal registry.".into(),
        // 23
        distractor("bird migration"),
        // 24
        "one more env thing: the admin socket path comes from EDGE_ADMIN_SOCK, the admin socket defaults to /run/edge/admin.sock".into(),
        // 25
        "I think that's it for today, my brain is fried".into(),
        // 26
        "thanks for rubber-ducking all of this!".into(),
    ];
    let facts = vec![
        // The first third (turns 0-8).
        fact(&["blowing up", "folded header"], "parse_header()", 0),
        fact(&["parse_header"], "src/http/parse.rs", 0),
        fact(&["parse_header", "folded header"], "E0412", 0),
        fact(&["reproduce", "repro"], "cargo run --bin edge-proxy", 1),
        fact(&["obs-fold"], "unfold_continuation()", 3),
        fact(&["strict parsing"], "EDGE_STRICT_HEADERS", 4),
        fact(&["folding tests"], "tests/http_fold.rs", 6),
        fact(&["folding tests"], "cargo test -p edge-http", 6),
        fact(&["trim_ascii_start", "clippy"], "E0599", 7),
        fact(
            &["runner image", "ci image"],
            "ghcr.io/acme/rust-ci:2024-02",
            8,
        ),
        // The rest.
        fact(&["msrv"], "1.80", 9),
        fact(&["connection pool"], "src/pool/mod.rs", 11),
        fact(&["leak", "slot back"], "checkout()", 11),
        fact(
            &["idle slots", "metric to watch"],
            "edge_pool_idle_slots",
            13,
        ),
        fact(&["guard type", "slot back"], "SlotGuard", 15),
        fact(&["retry budget"], "EDGE_RETRY_BUDGET", 17),
        fact(&["panic", "shutdown.rs"], "drain()", 18),
        fact(
            &["panic on shutdown", "panicked"],
            "src/server/shutdown.rs:57",
            18,
        ),
        fact(&["release checklist", "checklist"], "docs/RELEASING.md", 21),
        fact(&["next release", "tagged"], "0.9.3", 22),
        fact(&["admin socket"], "/run/edge/admin.sock", 24),
    ];
    let quiz = vec![
        Question {
            ask: "Which function was blowing up at the start?",
            fact: 0,
        },
        Question {
            ask: "Which error code did parse_header return on a folded header?",
            fact: 2,
        },
        Question {
            ask: "Which environment variable turns on strict header parsing?",
            fact: 5,
        },
        Question {
            ask: "In which file are the header folding tests?",
            fact: 6,
        },
        Question {
            ask: "Which error did clippy report on the CI runner?",
            fact: 8,
        },
        Question {
            ask: "Which container image does the CI runner use?",
            fact: 9,
        },
        Question {
            ask: "Which metric shows the connection pool leak?",
            fact: 13,
        },
        Question {
            ask: "Where does the admin socket live by default?",
            fact: 20,
        },
    ];
    Scenario {
        name: "coding24",
        locked: "Keep the HTTP wire format of the proxy unchanged",
        turns,
        facts,
        quiz,
    }
}
