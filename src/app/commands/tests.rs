//! The registry's commands parsed as typed: names, aliases, arguments, usage on a mistake.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::core::goals::{ArtifactAction, StepStatus};

#[test]
fn a_mistyped_command_gets_the_closest_name() {
    let err = |s: &str| parse(s).unwrap().unwrap_err();
    assert!(err("/snapshto").contains("did you mean /snapshot?"));
    assert!(err("/resotre x").contains("did you mean /restore?"));
    assert!(err("/unpni 3").contains("did you mean /unpin?"));
    // Nothing close: the general pointer.
    let far = err("/frobnicate");
    assert!(far.contains("/help lists them") && !far.contains("did you mean"));
    // Every name and alias in the registry is one `parse` accepts.
    for c in COMMANDS {
        for name in std::iter::once(&c.name).chain(c.aliases) {
            assert!(
                !parse(&format!("/{name} 1"))
                    .unwrap()
                    .is_err_and(|e| e.contains("unknown command")),
                "/{name}"
            );
        }
    }
}

#[test]
fn names_and_aliases_are_unique() {
    let mut seen = std::collections::BTreeSet::new();
    for c in COMMANDS {
        for name in std::iter::once(&c.name).chain(c.aliases) {
            assert!(seen.insert(*name), "/{name} twice");
        }
    }
}

fn ok(s: &str) -> Intent {
    parse(s).unwrap().unwrap()
}

/// `s` parses to `want` (compared as printed: an intent may hold a reply channel,
/// so it has no `PartialEq`).
fn is(s: &str, want: Intent) {
    assert_eq!(format!("{:?}", ok(s)), format!("{want:?}"), "{s}");
}

#[test]
fn plain_text_and_escapes_are_not_commands() {
    assert!(parse("hello").is_none());
    assert!(parse("//not a command").is_none());
    assert!(parse("/").is_none());
    assert!(parse("a /goal in the middle").is_none());
}

#[test]
fn think_takes_a_level_or_the_default() {
    use crate::core::params::ParamChange;
    let think = |word: Option<&str>| {
        Intent::Engine(Request::SetParam {
            change: ParamChange::Think(word.map(str::to_string)),
        })
    };
    is("/think", think(None));
    is("/think default", think(None));
    is("/think off", think(Some("off")));
    is("/think HIGH", think(Some("high")));
    assert!(parse("/think lots").unwrap().unwrap_err().contains("usage"));
    is("/details", Intent::Details);
}

#[test]
fn goal_board_commands() {
    is(
        "/goal Ship the parser",
        Intent::Engine(Request::Goal {
            change: GoalChange::SetGoal {
                description: "Ship the parser".into(),
                priority: Priority::Medium,
            },
        }),
    );
    assert!(matches!(
        ok("/goal! Urgent"),
        Intent::Engine(Request::Goal {
            change: GoalChange::SetGoal {
                priority: Priority::High,
                ..
            }
        })
    ));
    is(
        "/goal done",
        Intent::Engine(Request::Goal {
            change: GoalChange::GoalStatus {
                status: GoalStatus::Completed,
            },
        }),
    );
    is("/goal", Intent::Panel);
    is(
        "/decision Use Postgres 16 --lock",
        Intent::Engine(Request::Goal {
            change: GoalChange::Decision {
                text: "Use Postgres 16".into(),
                locked: true,
            },
        }),
    );
    is(
        "/unlock 2",
        Intent::Engine(Request::Goal {
            change: GoalChange::Unlock { id: 2 },
        }),
    );
    is(
        "/step Write tests doing",
        Intent::Engine(Request::Goal {
            change: GoalChange::Checkpoint {
                description: "Write tests".into(),
                status: StepStatus::InProgress,
            },
        }),
    );
    is(
        "/artifact created src/a.rs",
        Intent::Engine(Request::Goal {
            change: GoalChange::Artifact {
                action: ArtifactAction::Created,
                path: "src/a.rs".into(),
            },
        }),
    );
    assert!(parse("/unlock x").unwrap().is_err());
    assert!(parse("/decision --lock").unwrap().is_err());
}

#[test]
fn settings_and_actions() {
    is(
        "/ctx 16k",
        Intent::Engine(Request::SetCtx { ctx: Some(16384) }),
    );
    is(
        "/ctx 8,192",
        Intent::Engine(Request::SetCtx { ctx: Some(8192) }),
    );
    is("/ctx auto", Intent::Engine(Request::SetCtx { ctx: None }));
    assert!(parse("/ctx 12").unwrap().is_err());
    is(
        "/mode developer",
        Intent::Engine(Request::SetMode {
            mode: Mode::Developer,
        }),
    );
    assert!(parse("/mode poet").unwrap().is_err());
    is(
        "/model qwen2.5:0.5b",
        Intent::Actor(Command::SetModel {
            name: "qwen2.5:0.5b".into(),
        }),
    );
    is("/model", Intent::PickModel);
    is(
        "/compress the schema",
        Intent::Engine(Request::Compress {
            focus: Some("the schema".into()),
        }),
    );
    is(
        "/pin #12",
        Intent::Engine(Request::Pin {
            id: Some(MessageId(12)),
            pinned: true,
        }),
    );
    is(
        "/pin",
        Intent::Engine(Request::Pin {
            id: None,
            pinned: true,
        }),
    );
    is(
        "/export json",
        Intent::Actor(Command::Ask(Ask::Export {
            format: Format::Json,
        })),
    );
    is("/RETRY", Intent::Engine(Request::Retry));
    is("/inspect #42", Intent::InspectResult(MessageId(42)));
    is("/inspect 3", Intent::Inspect(Some(3)));
    assert!(parse("/inspect #x").unwrap().is_err());
    is("/done", Intent::Engine(Request::Done));
    let e = parse("/frobnicate").unwrap().unwrap_err();
    assert!(e.contains("/help") && e.contains("//frobnicate"), "{e}");
}

/// #31 items 2 and 5: `/new`, `/clear`, `/bye` as `ollama run` users type them;
/// `/system` and `/set` (also in `ollama run`'s `/set system` and `/set parameter`
/// forms), checked, with a usage for what cannot be read.
#[test]
fn facts_lists_and_changes_a_row() {
    use crate::app::overlays::FactsAsk;
    use crate::core::ledger::FactEdit;
    let edit = |row, edit| Intent::Facts(FactsAsk::Edit { row, edit });
    is("/facts", Intent::Facts(FactsAsk::List));
    is("/ledger", Intent::Facts(FactsAsk::List));
    is("/facts pin 3", edit(3, FactEdit::Pin));
    is("/facts unpin #3", edit(3, FactEdit::Unpin));
    is("/facts forget 2", edit(2, FactEdit::Forget));
    is("/facts keep 2", edit(2, FactEdit::Keep));
    is("/facts edit 4", Intent::Facts(FactsAsk::Reword { row: 4 }));
    is(
        "/facts edit 4 The plumber is  Branko Horvat.",
        edit(
            4,
            FactEdit::Replace {
                text: "The plumber is Branko Horvat.".into(),
            },
        ),
    );
    for wrong in [
        "/facts pin",
        "/facts pin 0",
        "/facts frob 2",
        "/facts pin 2 extra",
    ] {
        assert!(
            matches!(parse(wrong), Some(Err(e)) if e.starts_with("usage: /facts")),
            "{wrong}"
        );
    }
}

#[test]
fn new_clear_bye_system_and_set() {
    use crate::core::params::{Param, ParamChange, ParamValue};
    let change = |c| Intent::Engine(Request::SetParam { change: c });
    is("/new", Intent::NewSession { model: None });
    is(
        "/new qwen2.5:0.5b",
        Intent::NewSession {
            model: Some("qwen2.5:0.5b".into()),
        },
    );
    is("/clear", Intent::NewSession { model: None });
    is("/bye", Intent::Quit);
    is(
        "/system Answer in French.",
        change(ParamChange::System(Some("Answer in French.".into()))),
    );
    is("/system", Intent::ShowParams);
    is("/system clear", change(ParamChange::System(None)));
    is(
        "/set system Be brief",
        change(ParamChange::System(Some("Be brief".into()))),
    );
    let temp = change(ParamChange::Set(
        Param::Temperature,
        Some(ParamValue::Float(0.2)),
    ));
    is("/set temperature 0.2", temp);
    let temp = change(ParamChange::Set(
        Param::Temperature,
        Some(ParamValue::Float(0.2)),
    ));
    is("/set parameter temperature 0.2", temp);
    is("/show", Intent::ShowInfo);
    is("/show info", Intent::ShowInfo);
    is("/show parameters", Intent::ShowParams);
    is("/show system", Intent::ShowParams);
    assert!(
        parse("/show modelfile")
            .unwrap()
            .unwrap_err()
            .contains("ollama show MODEL --modelfile")
    );
    // ollama run's way to set the window is /ctx's.
    is(
        "/set parameter num_ctx 4096",
        Intent::Engine(Request::SetCtx { ctx: Some(4096) }),
    );
    is(
        "/set num_ctx 8k",
        Intent::Engine(Request::SetCtx { ctx: Some(8192) }),
    );
    is(
        "/set top_p 0.9",
        change(ParamChange::Set(Param::TopP, Some(ParamValue::Float(0.9)))),
    );
    is(
        "/set seed 42",
        change(ParamChange::Set(Param::Seed, Some(ParamValue::Int(42)))),
    );
    is(
        "/set num_predict -1",
        change(ParamChange::Set(
            Param::NumPredict,
            Some(ParamValue::Int(-1)),
        )),
    );
    is(
        "/set temperature default",
        change(ParamChange::Set(Param::Temperature, None)),
    );
    is("/set", Intent::ShowParams);
    let err = |s: &str| parse(s).unwrap().unwrap_err();
    for bad in [
        "/set temperature 3",
        "/set top_p 1.1",
        "/set seed x",
        "/set num_predict -5",
    ] {
        let e = err(bad);
        assert!(
            e.contains("usage: /set") && e.contains("takes"),
            "{bad}: {e}"
        );
    }
    // ollama run's /set verbose and /set quiet (#37 item 3).
    is("/set verbose", change(ParamChange::Verbose(true)));
    is("/set VERBOSE on", change(ParamChange::Verbose(true)));
    is("/set verbose off", change(ParamChange::Verbose(false)));
    is("/set quiet", change(ParamChange::Verbose(false)));
    assert!(err("/set quiet please").contains("takes no value"));
    assert!(err("/set mirostat 1").contains("cannot set"));
    let long = format!("/system {}", "x".repeat(MAX + 1));
    assert!(err(&long).contains("at most"));
}

const MAX: usize = crate::core::params::MAX_SYSTEM_CHARS;

#[test]
fn every_command_is_in_the_manual() {
    // The README's table moved into the manual (#37 item 7); it must stay whole.
    let keys = crate::manual::find("keys").unwrap().text;
    let missing: Vec<&str> = COMMANDS
        .iter()
        .map(|c| c.name)
        .filter(|n| !keys.contains(&format!("`/{n}")))
        .collect();
    assert!(
        missing.is_empty(),
        "not in assets/manual/keys.md: {missing:?}"
    );
}

#[test]
fn help_rows_name_the_bound_key() {
    let rows = help_rows(|c| (c == "snapshot").then(|| "F5".to_string()));
    let row = |usage: &str| rows.iter().find(|(u, _)| u == usage).unwrap().1.clone();
    assert_eq!(
        row("/snapshot [label]"),
        "save a snapshot; also /snap, /save (F5)"
    );
    assert_eq!(
        row("/restore [id]"),
        "restore a snapshot; without an id, pick one"
    );
    assert_eq!(rows.len(), COMMANDS.len());
    // `ollama run`'s /load is the model picker's other name, and the help says so.
    assert!(
        rows.iter()
            .any(|(u, w)| u.starts_with("/model") && w.contains("/load")),
        "{rows:?}"
    );
}
