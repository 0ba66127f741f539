//! Goal markers in model output and summaries: `[GOAL] …`, `[CHECKPOINT] … - STATUS`,
//! `[DECISION] … - LOCKED`, `[ARTIFACT] Created path`, `[NEXT] …`.
//!
//! ```text
//! [GOAL] Implement user authentication
//! [CHECKPOINT] Design authentication flow - COMPLETED      (or IN-PROGRESS, PENDING)
//! [DECISION] Use JWT for authentication - LOCKED          (LOCKED is optional)
//! [ARTIFACT] Created src/auth/login.ts                    (Created | Modified | Deleted)
//! [NEXT] Complete JWT token generation
//! ```
//! Strategy: line-based and lenient about decoration models add (list bullets, bold,
//! backticks, a colon after the tag, any case), strict about the tag itself, so prose
//! that merely mentions a goal is never taken for a marker. Lines inside fenced code
//! blocks are ignored: code that prints markers is not the model declaring them.

use crate::core::goals::{ArtifactAction, GoalChange, Priority, StepStatus};
use crate::core::prose::lines_with_code;

/// Every marker found in `text`, in order.
pub fn parse(text: &str) -> Vec<GoalChange> {
    lines_with_code(text)
        .filter(|(_, code)| !code)
        .filter_map(|(line, _)| parse_line(line.trim_start()))
        .collect()
}

/// Whether one line is a marker (what [`parse`] would take from it).
pub fn is_marker_line(line: &str) -> bool {
    parse_line(line.trim_start()).is_some()
}

fn strip_decoration(line: &str) -> &str {
    let mut s = line.trim();
    loop {
        let before = s;
        for prefix in ["- ", "* ", "+ ", "• ", "> ", "**", "__", "`"] {
            if let Some(rest) = s.strip_prefix(prefix) {
                s = rest.trim_start();
            }
        }
        if s == before {
            return s;
        }
    }
}

fn clean_tail(s: &str) -> &str {
    s.trim()
        .trim_start_matches(':')
        .trim()
        .trim_end_matches(['*', '_', '`'])
        .trim()
}

fn parse_line(line: &str) -> Option<GoalChange> {
    let s = strip_decoration(line);
    let rest = s.strip_prefix('[')?;
    let (tag, body) = rest.split_once(']')?;
    let tag = tag
        .trim()
        .trim_matches(['*', '_', '`'])
        .to_ascii_uppercase();
    let body = clean_tail(body.trim_start_matches(['*', '_', '`']));
    if body.is_empty() {
        return None;
    }
    match tag.as_str() {
        "GOAL" => Some(GoalChange::SetGoal {
            description: body.to_string(),
            priority: Priority::default(),
        }),
        "CHECKPOINT" => {
            let (description, status) = split_status(body)?;
            Some(GoalChange::Checkpoint {
                description: description.to_string(),
                status,
            })
        }
        "DECISION" => {
            let (text, locked) = match split_suffix(body) {
                Some((head, tail)) if tail.eq_ignore_ascii_case("LOCKED") => (head, true),
                _ => (body, false),
            };
            Some(GoalChange::Decision {
                text: text.to_string(),
                locked,
            })
        }
        "ARTIFACT" => {
            let (verb, path) = body.split_once(char::is_whitespace)?;
            let action = match verb.to_ascii_lowercase().trim_end_matches(':') {
                "created" | "create" | "added" => ArtifactAction::Created,
                "modified" | "modify" | "changed" | "updated" => ArtifactAction::Modified,
                "deleted" | "delete" | "removed" => ArtifactAction::Deleted,
                _ => return None,
            };
            let path = path.trim().trim_matches('`');
            (!path.is_empty()).then(|| GoalChange::Artifact {
                action,
                path: path.to_string(),
            })
        }
        "NEXT" => Some(GoalChange::Next {
            text: body.to_string(),
        }),
        _ => None,
    }
}

/// Split "text - SUFFIX" (also "–", "—", or ":" separators) at the last separator.
fn split_suffix(body: &str) -> Option<(&str, &str)> {
    let idx = body
        .rmatch_indices([' ', '\t'])
        .map(|(i, _)| i)
        .find(|&i| {
            let after = body[i..].trim_start();
            after.starts_with('-') || after.starts_with('–') || after.starts_with('—')
        })?;
    let head = body[..idx].trim();
    let tail = body[idx..]
        .trim_start()
        .trim_start_matches(['-', '–', '—'])
        .trim();
    (!head.is_empty() && !tail.is_empty()).then_some((head, tail))
}

fn split_status(body: &str) -> Option<(&str, StepStatus)> {
    let (head, tail) = split_suffix(body)?;
    let status = match tail.to_ascii_uppercase().replace(['_', ' '], "-").as_str() {
        "COMPLETED" | "COMPLETE" | "DONE" => StepStatus::Completed,
        "IN-PROGRESS" | "INPROGRESS" | "STARTED" => StepStatus::InProgress,
        "PENDING" | "TODO" => StepStatus::Pending,
        _ => return None,
    };
    Some((head, status))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_seed_example() {
        let text = "\
[GOAL] Implement user authentication system
[CHECKPOINT] Design authentication flow - COMPLETED
[CHECKPOINT] Implement login endpoint - COMPLETED
[CHECKPOINT] Add JWT token generation - IN-PROGRESS
[DECISION] Use JWT for authentication - LOCKED
[DECISION] Store tokens in httpOnly cookies - LOCKED
[ARTIFACT] Created src/auth/login.ts
[ARTIFACT] Modified src/routes/api.ts
[NEXT] Complete JWT token generation, then move to user registration";
        let got = parse(text);
        assert_eq!(got.len(), 9);
        assert_eq!(
            got[0],
            GoalChange::SetGoal {
                description: "Implement user authentication system".into(),
                priority: Priority::Medium
            }
        );
        assert_eq!(
            got[3],
            GoalChange::Checkpoint {
                description: "Add JWT token generation".into(),
                status: StepStatus::InProgress
            }
        );
        assert_eq!(
            got[4],
            GoalChange::Decision {
                text: "Use JWT for authentication".into(),
                locked: true
            }
        );
        assert_eq!(
            got[7],
            GoalChange::Artifact {
                action: ArtifactAction::Modified,
                path: "src/routes/api.ts".into()
            }
        );
        assert_eq!(
            got[8],
            GoalChange::Next {
                text: "Complete JWT token generation, then move to user registration".into()
            }
        );
    }

    #[test]
    fn tolerates_decoration_models_add() {
        let got = parse("  - **[DECISION]** Use Postgres 16 — LOCKED\n* `[NEXT]`: write tests\n");
        assert_eq!(
            got,
            vec![
                GoalChange::Decision {
                    text: "Use Postgres 16".into(),
                    locked: true
                },
                GoalChange::Next {
                    text: "write tests".into()
                }
            ]
        );
    }

    #[test]
    fn unlocked_decision_keeps_dashes_in_text() {
        let got = parse("[DECISION] Use a read-through cache - for now");
        assert_eq!(
            got,
            vec![GoalChange::Decision {
                text: "Use a read-through cache - for now".into(),
                locked: false
            }]
        );
    }

    #[test]
    fn ignores_prose_unknown_tags_and_code_blocks() {
        let text = "We should set a [GOAL] later.\n[TODO] nothing\n```\n[GOAL] not real\n```\n[CHECKPOINT] no status\n[ARTIFACT] Renamed x";
        assert!(parse(text).is_empty());
    }

    #[test]
    fn status_spellings() {
        for (s, want) in [
            ("done", StepStatus::Completed),
            ("In Progress", StepStatus::InProgress),
            ("in_progress", StepStatus::InProgress),
            ("PENDING", StepStatus::Pending),
        ] {
            let got = parse(&format!("[CHECKPOINT] Step - {s}"));
            assert_eq!(
                got,
                vec![GoalChange::Checkpoint {
                    description: "Step".into(),
                    status: want
                }],
                "{s}"
            );
        }
    }
}
