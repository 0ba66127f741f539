//! A session at a glance, folded from its log in one pass: what the session list and the
//! exports show (settings as the log leaves them, activity, counts, the goal board, a
//! title: the first message's line, and the one the model wrote). Pure: records in,
//! figures out.
//!
//! Invariants: only accepted changes are logged, so a goal change that would be refused
//! here is skipped without a word; a restore takes the board of the state it restored;
//! compressions count checkpoint records (a restore does not take them back: the list
//! shows how often the session was compressed).

use crate::core::goals::GoalBoard;
use crate::core::record::{Header, Record, RecordBody};
use crate::core::sanitize::sanitize;
use chrono::{DateTime, Utc};

/// Longest title kept, in characters (the model's, or one given with rename).
pub const MAX_TITLE_CHARS: usize = 80;

/// A title as it is kept: one line, sanitised, at most [`MAX_TITLE_CHARS`] (empty when
/// nothing is left).
pub fn clean_title(title: &str) -> String {
    let one_line = title.split_whitespace().collect::<Vec<_>>().join(" ");
    let clean: String = sanitize(&one_line).chars().take(MAX_TITLE_CHARS).collect();
    clean.trim().to_string()
}

#[derive(Debug, Clone, PartialEq)]
pub struct SessionOverview {
    /// The header with the settings records applied: model, ctx and mode as they stand.
    pub settings: Header,
    pub last_activity: DateTime<Utc>,
    /// User, assistant and tool messages.
    pub messages: usize,
    /// Checkpoint records.
    pub compressions: usize,
    pub board: GoalBoard,
    /// The first non-blank line of the first user message, sanitised; `None` before it.
    pub title: Option<String>,
    /// The title the model wrote (the last `title` record; an empty one takes it back).
    pub titled: Option<String>,
    /// The context the server last reported (prompt + reply tokens).
    pub token_count: u64,
}

impl SessionOverview {
    pub fn new(header: &Header) -> SessionOverview {
        SessionOverview {
            settings: header.clone(),
            last_activity: header.created,
            messages: 0,
            compressions: 0,
            board: GoalBoard::default(),
            title: None,
            titled: None,
            token_count: 0,
        }
    }

    /// The overview of a whole log.
    pub fn of<'a>(header: &Header, records: impl IntoIterator<Item = &'a Record>) -> Self {
        let mut o = SessionOverview::new(header);
        for r in records {
            o.apply(r);
        }
        o
    }

    pub fn apply(&mut self, r: &Record) {
        // A title arrives in the background after an answer: the person did nothing then.
        if !matches!(r.body, RecordBody::Title { .. }) {
            self.last_activity = r.ts;
        }
        if r.body.is_message() {
            self.messages += 1;
        }
        self.settings.apply_settings(&r.body);
        match &r.body {
            RecordBody::User { text, .. } if self.title.is_none() => {
                self.title = text
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .map(|l| sanitize(l).trim().to_string());
            }
            RecordBody::Assistant {
                prompt_eval_count: Some(p),
                eval_count,
                ..
            } => self.token_count = u64::from(*p) + u64::from(eval_count.unwrap_or(0)),
            RecordBody::Checkpoint { .. } => self.compressions += 1,
            RecordBody::Goal { change, author } => {
                // Only accepted changes are logged; a refusal here changes nothing.
                let _ = self.board.apply(change, *author, r.ts);
            }
            RecordBody::Restore { state, .. } => self.board = state.goals.clone(),
            RecordBody::Title { title } => {
                self.titled = (!title.is_empty()).then(|| title.clone());
            }
            _ => {}
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::goals::{Author, GoalChange, Priority};
    use crate::core::message::ReplyStatus;
    use crate::core::mode::Mode;
    use crate::core::record::{FORMAT_VERSION, LOG_FORMAT};
    use chrono::TimeZone;

    fn at(s: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(1_800_000_000 + s, 0).single().unwrap()
    }

    fn rec(seq: u64, body: RecordBody) -> Record {
        Record {
            seq,
            ts: at(seq as i64),
            body,
        }
    }

    fn header() -> Header {
        Header {
            format: LOG_FORMAT.into(),
            format_version: FORMAT_VERSION,
            session_id: "s".into(),
            app_version: "t".into(),
            model: "a:1b".into(),
            created: at(0),
            ctx: None,
            mode: Mode::Assistant,
            fork_of: None,
            params: Default::default(),
        }
    }

    #[test]
    fn folds_settings_counts_title_and_board() {
        let header = header();
        let records = [
            rec(
                1,
                RecordBody::Settings {
                    model: Some("b:3b".into()),
                    ctx: Some(4096),
                    mode: Some(Mode::Developer),
                    params: None,
                },
            ),
            rec(
                2,
                RecordBody::User {
                    text: "\n  Ship \u{1b}[31mit  \nmore".into(),
                    pinned: false,
                    tokens: None,
                    images: Vec::new(),
                },
            ),
            rec(
                3,
                RecordBody::Assistant {
                    text: "ok".into(),
                    status: ReplyStatus::Complete,
                    model: "b:3b".into(),
                    prompt_eval_count: Some(100),
                    prompt_eval_cached: None,
                    prompt_estimate: None,
                    eval_count: Some(20),
                    tokens: None,
                    tool_calls: Vec::new(),
                    thinking: String::new(),
                },
            ),
            rec(
                4,
                RecordBody::Goal {
                    change: GoalChange::SetGoal {
                        description: "Ship".into(),
                        priority: Priority::High,
                    },
                    author: Author::User,
                },
            ),
            rec(
                5,
                RecordBody::Settings {
                    model: None,
                    ctx: Some(0),
                    mode: None,
                    params: None,
                },
            ),
        ];
        let o = SessionOverview::of(&header, &records);
        assert_eq!(o.settings.model, "b:3b");
        assert_eq!(o.settings.ctx, None, "0 returns to the model's own size");
        assert_eq!(o.settings.mode, Mode::Developer);
        assert_eq!(o.messages, 2);
        assert_eq!(o.title.as_deref(), Some("Ship it"));
        assert_eq!(o.token_count, 120);
        assert_eq!(o.board.active.as_ref().unwrap().description, "Ship");
        assert_eq!(o.last_activity, at(5));
    }

    #[test]
    fn the_models_title_is_the_last_title_record_and_moves_no_activity() {
        let header = header();
        let user = rec(
            1,
            RecordBody::User {
                text: "Cache the orders".into(),
                pinned: false,
                tokens: None,
                images: Vec::new(),
            },
        );
        let title = |seq, t: &str| {
            rec(
                seq,
                RecordBody::Title {
                    title: t.to_string(),
                },
            )
        };
        let o = SessionOverview::of(&header, &[user.clone(), title(2, "Redis cache")]);
        assert_eq!(o.titled.as_deref(), Some("Redis cache"));
        assert_eq!(o.title.as_deref(), Some("Cache the orders"));
        assert_eq!(o.last_activity, at(1), "a title is not the person's doing");
        let o = SessionOverview::of(&header, &[user, title(2, "Redis cache"), title(3, "")]);
        assert_eq!(o.titled, None, "an empty title takes it back");
    }

    #[test]
    fn a_title_is_kept_as_one_clean_short_line() {
        assert_eq!(
            clean_title("  Infra\n notes \x1b[31mred "),
            "Infra notes red"
        );
        assert_eq!(
            clean_title(&"t".repeat(MAX_TITLE_CHARS + 5)).len(),
            MAX_TITLE_CHARS
        );
        assert_eq!(clean_title(" \n "), "");
    }
}
