//! The first five scripts (#11): facts among chit-chat, a coding session, a planning
//! thread whose decisions change, long distractors, and an operations handover.

use super::{Question, Scenario, changed, distractor, fact};

/// Facts planted among chit-chat.
pub(super) fn facts_among_chat() -> Scenario {
    let turns: Vec<String> = vec![
        "Hi! I'm setting up the infrastructure notes for our shop. First thing: our cache service (Redis) listens on port 6379.".into(),
        "What's a good naming scheme for git branches in a small team?".into(),
        "Noted. The main shop config file lives at /etc/shopd/shop.toml.".into(),
        "Any tips for writing good commit messages?".into(),
        "The nightly database backup runs at 02:30 UTC every day.".into(),
        distractor("the history of the printing press"),
        "We pinned PostgreSQL to version 16.2 for now.".into(),
        "The public API gateway listens on port 8443.".into(),
        "How do I explain technical debt to a manager?".into(),
        "Our staging host is stage-7.internal, reachable only over the VPN.".into(),
        "Session tokens expire after 45 minutes of inactivity.".into(),
        distractor("how bees communicate"),
        "The product images are in the S3 bucket shop-assets-eu.".into(),
        "What's a good way to structure a weekly team meeting?".into(),
        "The on-call phone extension is 4417.".into(),
        "The CI pipeline is defined in .github/workflows/ci.yml.".into(),
        "Thanks, that's all the setup notes for today.".into(),
    ];
    let facts = vec![
        fact(&["cache", "redis"], "6379", 0),
        fact(&["shop config", "main config"], "/etc/shopd/shop.toml", 2),
        fact(&["backup"], "02:30", 4),
        fact(&["postgres"], "16.2", 6),
        fact(&["gateway"], "8443", 7),
        fact(&["staging"], "stage-7.internal", 9),
        fact(&["session token", "session"], "45", 10),
        fact(&["bucket", "images", "s3"], "shop-assets-eu", 12),
        fact(&["on-call", "extension"], "4417", 14),
        fact(&["pipeline"], ".github/workflows/ci.yml", 15),
    ];
    let quiz = vec![
        Question {
            ask: "Which port does our cache service listen on?",
            fact: 0,
        },
        Question {
            ask: "Where is the shop config file?",
            fact: 1,
        },
        Question {
            ask: "At what time does the nightly backup run?",
            fact: 2,
        },
        Question {
            ask: "Which port does the API gateway listen on?",
            fact: 4,
        },
        Question {
            ask: "What is the name of the S3 bucket for product images?",
            fact: 7,
        },
        Question {
            ask: "In which file is the CI pipeline defined?",
            fact: 9,
        },
    ];
    Scenario {
        name: "facts",
        locked: "Never store card numbers in our database",
        turns,
        facts,
        quiz,
    }
}

/// A coding session: paths, function names, commands, error messages.
pub(super) fn coding_session() -> Scenario {
    let turns: Vec<String> = vec![
        "I'm debugging our Rust checkout service. The test tests/cart_total.rs fails with: thread 'totals' panicked at 'attempt to subtract with overflow', src/cart/total.rs:88.".into(),
        "The function at that line is compute_total(), it subtracts the discount from the subtotal.".into(),
        "I run the tests with: cargo test --test cart_total -- --nocapture".into(),
        "Should I use saturating_sub or checked_sub here? What's the difference?".into(),
        "OK, we'll use checked_sub and return CartError::NegativeTotal when it fails.".into(),
        "The discount rules live in src/cart/discount.rs, in apply_discounts().".into(),
        distractor("the difference between tabs and spaces"),
        "The maximum discount is configured by MAX_DISCOUNT_PCT, currently 35.".into(),
        "Now clippy complains: warning: this `if` has identical blocks at src/cart/discount.rs:41.".into(),
        "How would you refactor a long match on discount kinds?".into(),
        "We also have a flaky integration test, tests/payment_flow.rs, that times out after 30 seconds.".into(),
        "The payment client reads its endpoint from the env var PAYMENT_API_URL.".into(),
        distractor("the origins of the coffee house"),
        "What's a reasonable timeout for an HTTP call to a payment provider?".into(),
        "Good. We'll set the client timeout to 12 seconds.".into(),
        "Let's stop here; summarize what we changed, please.".into(),
    ];
    let facts = vec![
        fact(
            &["cart_total", "cart total", "checkout"],
            "tests/cart_total.rs",
            0,
        ),
        fact(&["panic", "overflow"], "src/cart/total.rs:88", 0),
        fact(
            &["subtotal", "cart total", "subtract"],
            "compute_total()",
            1,
        ),
        fact(
            &["cart_total", "nocapture"],
            "cargo test --test cart_total",
            2,
        ),
        fact(
            &["checked_sub", "negative total"],
            "CartError::NegativeTotal",
            4,
        ),
        fact(&["discount rules", "discount.rs"], "apply_discounts()", 5),
        fact(
            &["max_discount", "maximum discount", "max discount"],
            "35",
            7,
        ),
        fact(
            &["flaky", "integration", "times out"],
            "tests/payment_flow.rs",
            10,
        ),
        fact(
            &["payment endpoint", "endpoint", "payment client"],
            "PAYMENT_API_URL",
            11,
        ),
        fact(&["timeout", "payment provider"], "12 seconds", 14),
    ];
    let quiz = vec![
        Question {
            ask: "Which test file was failing at the start?",
            fact: 0,
        },
        Question {
            ask: "Which function computes the cart total?",
            fact: 2,
        },
        Question {
            ask: "Which error do we return when the total would be negative?",
            fact: 4,
        },
        Question {
            ask: "What is the maximum discount percentage?",
            fact: 6,
        },
        Question {
            ask: "Which environment variable holds the payment endpoint?",
            fact: 8,
        },
        Question {
            ask: "What client timeout did we decide on for the payment provider?",
            fact: 9,
        },
    ];
    Scenario {
        name: "coding",
        locked: "Keep the public API of the cart module unchanged",
        turns,
        facts,
        quiz,
    }
}

/// A planning thread where decisions change: the latest value must win.
pub(super) fn planning_thread() -> Scenario {
    let turns: Vec<String> = vec![
        "We're planning the launch of our bike-sharing app. The launch city is Lisbon.".into(),
        "The budget for the pilot is 12,000 EUR.".into(),
        "We'll deploy the backend on Tuesday, March 3.".into(),
        "What should a pilot of a bike-sharing app measure?".into(),
        "The pilot fleet will be 40 bikes.".into(),
        distractor("urban cycling in Copenhagen"),
        "Change of plan: the launch city is now Porto, not Lisbon.".into(),
        "How do we pick docking station locations?".into(),
        "Our payment provider will be Stripe.".into(),
        "Another change: move the backend deploy to Thursday, March 5.".into(),
        "The budget was raised to 15,000 EUR.".into(),
        distractor("the economics of public transport"),
        "The support email will be help@pedalpal.example.".into(),
        "What risks should we list for the pilot?".into(),
        "Final fleet size: 55 bikes.".into(),
        "Great, let's recap the plan tomorrow.".into(),
    ];
    let facts = vec![
        changed(&["launch"], "Porto", "Lisbon", 6),
        changed(&["budget"], "15,000", "12,000", 10),
        changed(&["deploy"], "Thursday", "Tuesday", 9),
        changed(&["fleet", "bikes"], "55", "40", 14),
        fact(&["payment"], "Stripe", 8),
        fact(&["support"], "help@pedalpal.example", 12),
    ];
    let quiz = vec![
        Question {
            ask: "Which city do we launch in?",
            fact: 0,
        },
        Question {
            ask: "What is the pilot budget?",
            fact: 1,
        },
        Question {
            ask: "On which day do we deploy the backend?",
            fact: 2,
        },
        Question {
            ask: "How many bikes will the pilot fleet have?",
            fact: 3,
        },
        Question {
            ask: "Which payment provider will we use?",
            fact: 4,
        },
        Question {
            ask: "What is the support email address?",
            fact: 5,
        },
    ];
    Scenario {
        name: "planning",
        locked: "Bikes are unlocked by QR code only",
        turns,
        facts,
        quiz,
    }
}

/// Long distractor turns with a few facts early: they must survive a lot of noise.
pub(super) fn long_distractors() -> Scenario {
    let mut turns: Vec<String> = vec![
        "Before I forget: my home lab NAS is at 192.168.40.12 and the admin user is labadmin."
            .into(),
        "The backup drive is a 4 TB disk mounted at /mnt/vault.".into(),
        "My Wi-Fi network for the lab is called orchid-5g.".into(),
    ];
    for topic in [
        "the invention of the telescope",
        "sourdough baking",
        "the Roman road network",
        "how glaciers form",
        "the rules of cricket",
        "jazz improvisation",
        "the history of chess openings",
        "volcanic soils",
        "the silk road",
        "medieval bookbinding",
    ] {
        turns.push(distractor(topic));
    }
    turns.push("Thanks for all the digressions!".into());
    let facts = vec![
        fact(&["nas"], "192.168.40.12", 0),
        fact(&["admin user", "nas admin"], "labadmin", 0),
        fact(&["backup drive", "drive"], "/mnt/vault", 1),
        fact(&["wi-fi", "wifi"], "orchid-5g", 2),
    ];
    let quiz = vec![
        Question {
            ask: "What is the IP address of my NAS?",
            fact: 0,
        },
        Question {
            ask: "Where is the backup drive mounted?",
            fact: 2,
        },
        Question {
            ask: "What is the name of my lab Wi-Fi network?",
            fact: 3,
        },
    ];
    Scenario {
        name: "distractors",
        locked: "Never expose the NAS to the internet",
        turns,
        facts,
        quiz,
    }
}

/// Running a small platform: owners, addresses, limits and a changed retention, in the
/// forms people write them (a name alone, a URL, "every 15 minutes", a unit).
pub(super) fn operations_log() -> Scenario {
    let turns: Vec<String> = vec![
        "I'm taking over the on-call rotation for our platform this week, so let me write down what I learn.".into(),
        "The VPN is WireGuard, listening on UDP port 51820.".into(),
        "What should be in a good incident postmortem?".into(),
        "The billing service is owned by Maria Okafor's team.".into(),
        "Dashboards are at https://grafana.ops.example/d/platform-overview for everything we run.".into(),
        distractor("the history of lighthouses"),
        "Log retention for the app servers is 14 days.".into(),
        "The cleanup cron job runs every 15 minutes on the worker nodes.".into(),
        "How do I keep alert fatigue down?".into(),
        "Our Kubernetes namespace for payments is payments-prod-eu.".into(),
        "Uploads are capped at 25 MB per file by the ingress.".into(),
        distractor("the way octopuses change colour"),
        "We deploy the platform chart at version v2.14.1 and nothing newer yet.".into(),
        "Correction on logs: retention was extended to 30 days for compliance.".into(),
        "Is it better to page one person or a whole team?".into(),
        "The disk usage alert fires at 85 percent on every node.".into(),
        distractor("the building of medieval cathedrals"),
        "The status page is hosted by Statuspage under the name acme-status.".into(),
        "That's all for the handover notes, thanks.".into(),
    ];
    let facts = vec![
        fact(&["vpn", "wireguard"], "51820", 1),
        fact(&["billing"], "Maria", 3),
        fact(
            &["dashboard"],
            "https://grafana.ops.example/d/platform-overview",
            4,
        ),
        changed(&["retention", "logs"], "30 days", "14 days", 13),
        fact(&["cron", "cleanup"], "15 minutes", 7),
        fact(&["namespace", "kubernetes"], "payments-prod-eu", 9),
        fact(&["upload"], "25 MB", 10),
        fact(&["chart", "deploy"], "v2.14.1", 12),
        fact(&["disk", "alert"], "85", 15),
        fact(&["status page", "statuspage"], "acme-status", 17),
    ];
    let quiz = vec![
        Question {
            ask: "Which UDP port does our VPN listen on?",
            fact: 0,
        },
        Question {
            ask: "Whose team owns the billing service?",
            fact: 1,
        },
        Question {
            ask: "How long is log retention on the app servers?",
            fact: 3,
        },
        Question {
            ask: "What is our Kubernetes namespace for payments?",
            fact: 5,
        },
        Question {
            ask: "Which version of the platform chart do we deploy?",
            fact: 7,
        },
        Question {
            ask: "At what disk usage does the alert fire?",
            fact: 8,
        },
    ];
    Scenario {
        name: "ops",
        locked: "Never restart the billing database during business hours",
        turns,
        facts,
        quiz,
    }
}
