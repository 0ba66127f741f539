//! `services` (#28): the chat #11 described — a person writes down how a dozen services
//! are wired, each with its port and its config path. Most are said freely, each in its
//! own shape ("billing-api? that one's on 8081", "Port 5672 is the queue"); one stretch is
//! pasted from a notes file, one template line after another ("Note 13: service-13
//! listens on port 7130 and its config is …"), so a rule that learns one template cannot
//! win. Half the facts come in the first third, where the quiz mostly asks.

use super::{Question, Scenario, distractor, fact};

pub(super) fn services() -> Scenario {
    let turns: Vec<String> = vec![
        // 0
        "hey! I'm finally writing down how our services are wired so the new folks stop asking me. billing-api? that one's on 8081, config under /srv/billing/app.yaml".into(),
        // 1
        "The auth gateway is the one everybody hits first: it listens on 9443, and the auth gateway's settings are in /etc/authgw/gateway.toml.".into(),
        // 2
        "ugh, long week. do you have a trick for remembering which terminal tab is which?".into(),
        // 3
        "Port 5672 is the queue, rabbitmq-main. Don't ask me why rabbitmq-main keeps its config in /opt/rabbit/conf/rabbitmq.conf, it just does.".into(),
        // 4
        "search-indexer runs on 9200 like a stock Elasticsearch, and search-indexer reads /etc/indexer/es.yml when it starts".into(),
        // 5
        "What's the nicest way to tell a colleague their pull request is way too big?".into(),
        // 6
        "For the record, 3000 is grafana-dash. Config for grafana-dash: /etc/dashboards/grafana.ini".into(),
        // 7
        "Haha, fair. I'll try that on Monday.".into(),
        // 8
        "And the one that bit us last month, payments-worker: it doesn't listen on anything public, payments-worker only has 7070 for health checks, and it's configured from /srv/payments/worker.env".into(),
        // 9
        "Quick question before I paste the rest: YAML or TOML for config files people edit by hand?".into(),
        // 10
        "ok, the older ones straight from my notes file. Note 13: service-13 listens on port 7130 and its config is /etc/svc13/service.conf".into(),
        // 11
        "Note 14: service-14 listens on port 7140 and its config is /etc/svc14/service.conf".into(),
        // 12
        "Note 15: service-15 listens on port 7150 and its config is /etc/svc15/service.conf".into(),
        // 13
        "Sorry, got pulled into a call. Where was I... right, the notes.".into(),
        // 14
        "Note 16: service-16 listens on port 7160 and its config is /etc/svc16/service.conf".into(),
        // 15
        distractor("the history of the shipping container"),
        // 16
        "How do you keep notes like these from going stale?".into(),
        // 17
        "What's a sane default size for a database connection pool?".into(),
        // 18
        "mail-relay: 2525 is the port, mail-relay's config is /etc/postfix-relay/main.cf.".into(),
        // 19
        distractor("how tides work"),
        // 20
        "lol my cat just walked across the keyboard. anyway".into(),
        // 21
        "Oh, metrics-agent, everybody forgets metrics-agent. It exposes 9100 and reads /etc/node-exporter/agent.yml.".into(),
        // 22
        "How would you lay all of this out as a table in our wiki?".into(),
        // 23
        "Is it worth automating this list, or will it rot either way?".into(),
        // 24
        "Good point about owners, I'll ask around.".into(),
        // 25
        "That's everything I know about the services, thanks for bearing with me.".into(),
    ];
    let facts = vec![
        // The first third (turns 0-8).
        fact(&["billing-api"], "8081", 0),
        fact(&["billing-api"], "/srv/billing/app.yaml", 0),
        fact(&["auth gateway"], "9443", 1),
        fact(&["auth gateway"], "/etc/authgw/gateway.toml", 1),
        fact(&["rabbitmq-main", "queue"], "5672", 3),
        fact(&["rabbitmq-main"], "/opt/rabbit/conf/rabbitmq.conf", 3),
        fact(&["search-indexer"], "9200", 4),
        fact(&["search-indexer"], "/etc/indexer/es.yml", 4),
        fact(&["grafana-dash"], "3000", 6),
        fact(&["grafana-dash"], "/etc/dashboards/grafana.ini", 6),
        fact(&["payments-worker"], "7070", 8),
        fact(&["payments-worker"], "/srv/payments/worker.env", 8),
        // The notes, pasted.
        fact(&["service-13"], "7130", 10),
        fact(&["service-13"], "/etc/svc13/service.conf", 10),
        fact(&["service-14"], "7140", 11),
        fact(&["service-14"], "/etc/svc14/service.conf", 11),
        fact(&["service-15"], "7150", 12),
        fact(&["service-15"], "/etc/svc15/service.conf", 12),
        fact(&["service-16"], "7160", 14),
        fact(&["service-16"], "/etc/svc16/service.conf", 14),
        // Said freely again, late.
        fact(&["mail-relay"], "2525", 18),
        fact(&["mail-relay"], "/etc/postfix-relay/main.cf", 18),
        fact(&["metrics-agent"], "9100", 21),
        fact(&["metrics-agent"], "/etc/node-exporter/agent.yml", 21),
    ];
    let quiz = vec![
        Question {
            ask: "Which port is billing-api on?",
            fact: 0,
        },
        Question {
            ask: "Where is the auth gateway's config file?",
            fact: 3,
        },
        Question {
            ask: "Which port does rabbitmq-main use?",
            fact: 4,
        },
        Question {
            ask: "Which file does search-indexer read its config from?",
            fact: 7,
        },
        Question {
            ask: "Which port is grafana-dash on?",
            fact: 8,
        },
        Question {
            ask: "Which file is payments-worker configured from?",
            fact: 11,
        },
        Question {
            ask: "Which port does service-14 listen on?",
            fact: 14,
        },
        Question {
            ask: "Where is mail-relay's config file?",
            fact: 21,
        },
    ];
    Scenario {
        name: "services",
        locked: "Never open the internal admin ports to the public internet",
        turns,
        facts,
        quiz,
    }
}
