//! `standup`: a developer's working day on one payments bug, told to the assistant the
//! way one tells a colleague at the next desk — 30 short technical turns full of
//! identifiers (a ticket, a branch, hosts, a pgbouncer port, a pinned crate version, a
//! feature flag, an incident number, a release train time). Two pastes hold many values
//! that are not facts to keep: a panic's stack trace and the retry config as it stood
//! before the change (its `max_attempts = 5` and `multiplier = 1.5` are the old
//! settings, not the plan). Twelve facts, two corrections: the staging box ("not
//! stg-pay-03.internal — staging is stg-pay-05.internal now") and the backoff cap, said
//! across two sentences after a review comment ("300 seconds is too long … So the
//! backoff cap is 120 seconds now"). Six questions, three in other words ("which ticket"
//! for what was said as the webhook retries, "the retry ceiling" for the backoff cap,
//! "holding the pager" for on call).

use super::{Question, Scenario, changed, fact};

/// The panic the person pastes: long, and nothing in it to keep.
const STACK_TRACE: &str = "replay blew up, here's the trace:\n\
thread 'tokio-runtime-worker' panicked at src/webhooks/retry.rs:212:38:\n\
called `Result::unwrap()` on an `Err` value: Timeout(Elapsed(()))\n\
stack backtrace:\n\
   0: rust_begin_unwind\n\
             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/std/src/panicking.rs:665:5\n\
   1: core::panicking::panic_fmt\n\
   2: core::result::unwrap_failed\n\
             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/result.rs:1700:5\n\
   3: core::result::Result<T,E>::unwrap\n\
   4: payments_gateway::webhooks::retry::RetryWorker::deliver::{{closure}}\n\
             at ./src/webhooks/retry.rs:212:38\n\
   5: payments_gateway::webhooks::retry::RetryWorker::run::{{closure}}\n\
             at ./src/webhooks/retry.rs:141:17\n\
   6: tokio::runtime::task::core::Core<T,S>::poll\n\
   7: tokio::runtime::task::harness::Harness<T,S>::poll\n\
   8: tokio::runtime::scheduler::multi_thread::worker::Context::run_task\n\
   9: tokio::runtime::scheduler::multi_thread::worker::run\n\
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n\
2025-03-11T09:47:02.118Z ERROR payments_gateway::webhooks: worker 3 exited, 17 deliveries in flight, merchant_id=m_88213\n\
2025-03-11T09:47:02.119Z WARN  payments_gateway::webhooks: restarting worker 3 (restart 1 of 5)";

/// The retry config before the change: many values, none of them a fact to keep.
const OLD_CONFIG: &str = "this is the [webhooks] bit of staging's gateway.toml as it is \
right now, before my change, so you can see what I'm up against:\n\
[webhooks]\n\
enabled = true\n\
listen = \"0.0.0.0:8443\"\n\
max_body_kb = 256\n\
signature_header = \"X-Acq-Signature\"\n\
signature_algo = \"hmac-sha256\"\n\
clock_skew_secs = 300\n\
workers = 6\n\
queue_capacity = 20000\n\
[webhooks.retry]\n\
initial_ms = 500\n\
multiplier = 1.5\n\
max_delay_ms = 60000\n\
max_attempts = 5\n\
jitter = false\n\
dead_letter_table = \"webhook_dlq\"\n\
[webhooks.http]\n\
connect_timeout_ms = 2000\n\
request_timeout_ms = 10000\n\
pool_idle_timeout_secs = 90\n\
pool_max_idle_per_host = 32\n\
user_agent = \"pg-webhooks/3.14.0\"\n\
[webhooks.metrics]\n\
prefix = \"pgw_webhooks\"\n\
histogram_buckets_ms = [5, 10, 25, 50, 100, 250, 500, 1000, 2500]\n\
yes the request timeout is longer than the connect timeout times five, don't ask";

pub(super) fn standup() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "morning. today's mostly PAY-2231, the webhook retries that pile up when the acquirer times out. keep notes for me as I go?".into(),
        // 1
        "branch is fix/webhook-backoff off main, pushed an empty commit so CI has something to chew on".into(),
        // 2
        "ugh CI queue is 40 deep".into(),
        // 3
        "staging for payments is stg-pay-03.internal, I'll point the replay script there".into(),
        // 4
        "how do I replay a webhook with curl and keep the original signature valid? it's an HMAC over the raw body".into(),
        // 5
        "fyi pgbouncer on staging listens on 6432, not 5432, that cost me twenty minutes".into(),
        // 6
        STACK_TRACE.into(),
        // 7
        "right, the unwrap on the timeout. we're pinned to reqwest 0.11.27 btw, 0.12 drags in hyper 1 and the TLS setup changes, so no upgrade as part of this".into(),
        // 8
        "Priya's reviewing this one, she wrote half the acquirer client".into(),
        // 9
        "lol yes".into(),
        // 10
        "plan for the backoff: start at 2 seconds, double each time, cap the backoff at 300 seconds, give up after 8 attempts and park it in the dead-letter table".into(),
        // 11
        "does jitter matter at our volume? we do maybe 40 webhooks a second at peak".into(),
        // 12
        "it ships behind the flag webhook_retry_v2, default off, we flip it per merchant".into(),
        // 13
        "k".into(),
        // 14
        OLD_CONFIG.into(),
        // 15
        "the 1.5 multiplier predates everyone on the team. git blame says 'initial commit'".into(),
        // 16
        "wait, not stg-pay-03.internal — staging is stg-pay-05.internal now, 03 got recycled last sprint and nobody updated the wiki".into(),
        // 17
        "replay works on 05. 14 of 14 delivered after the fix, no panics".into(),
        // 18
        "this is also the fix for incident INC-5098 from last Thursday, the merchant who got the same refund webhook 30 times, so I'll link it in the PR".into(),
        // 19
        "what's a good PR description shape for a fix that's also an incident follow-up?".into(),
        // 20
        "Priya's first comment: 300 seconds is too long for merchants watching their dashboard. So the backoff cap is 120 seconds now, changed and re-pushed".into(),
        // 21
        "she also wants a counter for parked webhooks. prometheus counter with merchant as a label, or is that a cardinality footgun?".into(),
        // 22
        "release train today is 15:30, if it isn't merged by then it goes tomorrow".into(),
        // 23
        "approved 🎉 merging".into(),
        // 24
        "canary on 5% of merchants first. watching graphs".into(),
        // 25
        "if it goes sideways tonight Tomás is on call, not me, thank god".into(),
        // 26
        "p99 on the webhook endpoint went from 840ms to 310ms on the canary. nice".into(),
        // 27
        "flag's on for the three merchants from the incident. the rest next week".into(),
        // 28
        "write me tomorrow's standup update, three lines max".into(),
        // 29
        "cheers. logging off".into(),
    ];
    let facts = vec![
        fact(&["webhook", "ticket"], "PAY-2231", 0),
        fact(&["branch"], "fix/webhook-backoff", 1),
        fact(&["pgbouncer"], "6432", 5),
        fact(&["reqwest"], "0.11.27", 7),
        fact(&["reviewing", "reviewer", "review"], "Priya", 8),
        fact(&["attempts", "dead-letter"], "8 attempts", 10),
        fact(&["flag"], "webhook_retry_v2", 12),
        changed(
            &["staging"],
            "stg-pay-05.internal",
            "stg-pay-03.internal",
            16,
        ),
        fact(&["incident"], "INC-5098", 18),
        changed(&["backoff"], "120 seconds", "300 seconds", 20),
        fact(&["release train"], "15:30", 22),
        fact(&["on call", "on-call"], "Tomás", 25),
    ];
    let quiz = vec![
        Question {
            ask: "which ticket am I on again?",
            fact: 0,
        },
        Question {
            ask: "what's my branch called",
            fact: 1,
        },
        Question {
            ask: "which reqwest version are we stuck on?",
            fact: 3,
        },
        Question {
            ask: "what box is staging on now?",
            fact: 7,
        },
        Question {
            ask: "what did we settle on for the retry ceiling in the end?",
            fact: 9,
        },
        Question {
            ask: "who's holding the pager tonight?",
            fact: 11,
        },
    ];
    Scenario {
        name: "standup",
        locked: "No dependency upgrades go in with this fix",
        turns,
        facts,
        quiz,
    }
}
