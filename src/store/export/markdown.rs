//! The Markdown export: a readable transcript in the words it is given, every text
//! sanitized and every code fence longer than the backtick runs inside it.

use super::overview;
use crate::core::checkpoint::{Checkpoint, CheckpointId};
use crate::core::goals::{Author, GoalBoard, GoalChange, GoalStatus, Priority, StepStatus};
use crate::core::message::{MessageId, ReplyStatus};
use crate::core::mode::Mode;
use crate::core::params::SessionParams;
use crate::core::record::{Clip, Record, RecordBody, SnapshotPurpose};
use crate::core::sanitize::sanitize;
use crate::store::log::{LoadReport, LoadedLog};
use std::fmt::Write as _;

const TIME_FORMAT: &str = "%Y-%m-%d %H:%M:%S UTC";

/// Every word a Markdown export says, given by the app (`app::words::MARKDOWN`), where
/// sentences are made: this module lays out the records (Markdown syntax, marks, order,
/// the log's data) and never words them, so wording changes in one place and `store`
/// imports nothing from `app`. Labels and headings are plain text (the layout adds the
/// `**…:**` and `#`); sentences are functions of the record's data, which the layout has
/// already folded with [`one_line`] where it is a name from the log. The parts are held by
/// reference so that a [`Format`], which travels in the actor's commands, stays small.
#[derive(Debug, Clone, Copy)]
pub struct MarkdownWords {
    pub head: &'static HeadWords,
    pub board: &'static BoardWords,
    pub records: &'static RecordWords,
}

/// The session's facts at the top of the export.
#[derive(Debug, Clone, Copy)]
pub struct HeadWords {
    /// The title of a session with no user message yet (its id given).
    pub untitled: fn(&str) -> String,
    pub session: &'static str,
    pub model: &'static str,
    /// The settings the session ends with: model (folded), mode and context size.
    pub settings: fn(&str, Mode, Option<u32>) -> String,
    pub started: &'static str,
    pub last_activity: &'static str,
    pub messages: &'static str,
    pub compressions: &'static str,
    /// The label of the warning that the log is not clean.
    pub losses_label: &'static str,
    /// What loading skipped or set aside.
    pub losses: fn(&LoadReport) -> String,
}

/// The goal board as it stands at the end.
#[derive(Debug, Clone, Copy)]
pub struct BoardWords {
    pub heading: &'static str,
    pub active: &'static str,
    /// The active goal: description (folded), priority, status.
    pub goal: fn(&str, Priority, GoalStatus) -> String,
    pub artifacts: &'static str,
    pub next_steps: &'static str,
    pub decisions: &'static str,
    pub earlier: &'static str,
    /// An earlier goal: description (folded) and how it ended.
    pub past_goal: fn(&str, GoalStatus) -> String,
}

/// The conversation: message headings, and a sentence for each other kind of record.
#[derive(Debug, Clone, Copy)]
pub struct RecordWords {
    pub heading: &'static str,
    pub user: &'static str,
    pub pinned: &'static str,
    pub assistant: &'static str,
    /// The fold of a reply's reasoning, given its word count.
    pub thinking: fn(usize) -> String,
    /// A tool the reply asked for (name folded); `true` when read from the reply's text.
    pub calls: fn(&str, bool) -> String,
    pub interrupted: &'static str,
    /// A picture whose stored file is missing or changed, so the export has no copy:
    /// its name (folded), width and height.
    pub picture_missing: fn(&str, u32, u32) -> String,
    /// A picture of message N folded before the model answered about it, described by
    /// the model when asked: the ledger's line for it now (folded).
    pub picture_described: fn(MessageId, &str) -> String,
    pub interrupted_note: &'static str,
    pub tool: &'static str,
    /// How long a tool ran, from milliseconds.
    pub took: fn(u64) -> String,
    pub error: &'static str,
    pub arguments: &'static str,
    pub result: &'static str,
    /// The result the model saw is shortened: the whole one's length and file (folded).
    pub shortened: fn(u64, &str) -> String,
    pub checkpoint: fn(&Checkpoint) -> String,
    pub checkpoint_aged: fn(&Checkpoint) -> String,
    /// Checkpoints merged (named by number where known) into the one given.
    pub checkpoints_merged: fn(&[String], &Checkpoint) -> String,
    /// A fold's summary checked against its facts: the checkpoint's number, whether it
    /// was kept, the facts it carried and the span's.
    pub checkpoint_summarized: fn(u32, bool, u32, u32) -> String,
    /// A change to the goal board and who made it.
    pub goal: fn(&GoalChange, Author) -> String,
    pub pin: fn(MessageId, bool) -> String,
    /// A fact of the ledger pinned, reworded, forgotten or taken back.
    pub fact: fn(&str, &crate::core::ledger::FactEdit) -> String,
    pub clip: fn(&Clip) -> String,
    /// A snapshot written: its id (folded) and why.
    pub snapshot: fn(&str, SnapshotPurpose) -> String,
    pub reduced: fn(MessageId, Option<u32>) -> String,
    pub task_done: fn(MessageId) -> String,
    /// A snapshot restored: its id (folded).
    pub restored: fn(&str) -> String,
    /// A settings record: what changed (the log's texts in it are not yet folded).
    pub settings: SettingsSentence,
}

/// A settings record's sentence, from its model, ctx, mode and parameters.
pub type SettingsSentence =
    fn(Option<&str>, Option<u32>, Option<Mode>, Option<&SessionParams>) -> String;

/// A readable Markdown transcript, headed by its first message.
pub fn to_markdown(log: &LoadedLog, words: &MarkdownWords) -> String {
    to_markdown_titled(log, words, None)
}

/// A readable Markdown transcript headed by the session's title (given with rename or
/// written by the model: `manage::custom_title`), else by its first message, as the
/// session list names it. Its pictures link to `<session>.images/` ([`images_folder`]).
pub fn to_markdown_titled(log: &LoadedLog, words: &MarkdownWords, title: Option<&str>) -> String {
    let links = PictureLinks {
        folder: images_folder(&log.header.session_id),
        missing: std::collections::BTreeSet::new(),
    };
    to_markdown_linked(log, words, title, &links)
}

/// Where a Markdown export's picture links point: the folder that holds the copies
/// (relative to the export, or the session's own store when the export is printed), and
/// the pictures (by hash) whose stored file is missing or changed, which are named
/// instead of linked so a reader knows a picture was there.
#[derive(Debug, Clone, Default)]
pub struct PictureLinks {
    pub folder: String,
    pub missing: std::collections::BTreeSet<String>,
}

/// [`to_markdown_titled`] with its pictures linked as `links` says.
pub fn to_markdown_linked(
    log: &LoadedLog,
    words: &MarkdownWords,
    title: Option<&str>,
    links: &PictureLinks,
) -> String {
    let o = overview(log);
    let h = &log.header;
    let w = words.head;
    let mut md = String::new();
    let title = title
        .map(str::to_string)
        .or_else(|| o.title.clone())
        .unwrap_or_else(|| (w.untitled)(&h.session_id));
    let _ = writeln!(md, "# {}\n", one_line(&title));
    let _ = writeln!(md, "- **{}:** `{}`", w.session, h.session_id);
    let settings = (w.settings)(
        &one_line(&o.settings.model),
        o.settings.mode,
        o.settings.ctx,
    );
    let _ = writeln!(md, "- **{}:** {settings}", w.model);
    let _ = writeln!(md, "- **{}:** {}", w.started, h.created.format(TIME_FORMAT));
    let _ = writeln!(
        md,
        "- **{}:** {}",
        w.last_activity,
        o.last_activity.format(TIME_FORMAT)
    );
    let _ = writeln!(
        md,
        "- **{}:** {} · **{}:** {}",
        w.messages, o.messages, w.compressions, o.compressions
    );
    if !log.report.is_clean() {
        let _ = writeln!(md, "\n> ⚠ {}: {}", w.losses_label, (w.losses)(&log.report));
    }
    md.push('\n');

    if !o.board.is_empty() || !o.board.past.is_empty() {
        render_board(&mut md, &o.board, words.board);
    }

    let _ = writeln!(md, "## {}\n", words.records.heading);
    // Checkpoints are named by their number, as on screen; merge records name the
    // merged ones by id, so remember each id's number.
    let mut numbers = std::collections::HashMap::new();
    for r in &log.records {
        if let RecordBody::Checkpoint { checkpoint: c }
        | RecordBody::CheckpointsMerged { checkpoint: c, .. } = &r.body
        {
            numbers.insert(c.id, c.number);
        }
        render_record(&mut md, r, &numbers, words.records, links);
    }
    md
}

/// The folder beside a Markdown export that holds copies of its pictures, as its links
/// name it (relative to the export).
pub fn images_folder(session_id: &str) -> String {
    format!("{session_id}.images")
}

fn render_record(
    md: &mut String,
    r: &Record,
    numbers: &std::collections::HashMap<CheckpointId, u32>,
    w: &RecordWords,
    links: &PictureLinks,
) {
    let time = r.ts.format(TIME_FORMAT);
    // Messages carry the number `/pin N` and the screen use (the record's seq).
    let n = r.seq;
    match &r.body {
        RecordBody::User {
            text,
            pinned,
            images,
            ..
        } => {
            let pin = if *pinned {
                format!(" · 📌 {}", w.pinned)
            } else {
                String::new()
            };
            let _ = writeln!(md, "### {} #{n} · {time}{pin}\n", w.user);
            let _ = writeln!(md, "{}\n", sanitize(text).trim_end());
            // Pictures link to their copies (`links.folder`); one without a file is named.
            for image in images {
                if links.missing.contains(&image.hash) {
                    let name = one_line(&image.name);
                    let said = (w.picture_missing)(&name, image.width, image.height);
                    let _ = writeln!(md, "{said}\n");
                    continue;
                }
                let alt = sanitize(&image.name).replace(['[', ']', '\n'], "");
                let target = format!("{}/{}", sanitize(&links.folder), image.file_name());
                // A destination with a space or a bracket in it is only one in `<…>`.
                let target = if target.contains(|c: char| c.is_whitespace() || "()<>".contains(c)) {
                    format!("<{}>", target.replace(['<', '>'], ""))
                } else {
                    target
                };
                let _ = writeln!(md, "![{alt}]({target})\n");
            }
        }
        RecordBody::Assistant {
            text,
            status,
            model,
            tool_calls,
            thinking,
            ..
        } => {
            let _ = writeln!(
                md,
                "### {} #{n} · {time} · {}\n",
                w.assistant,
                one_line(model)
            );
            if !thinking.trim().is_empty() {
                let count = thinking.split_whitespace().count();
                folded(md, &(w.thinking)(count), thinking);
            }
            let body = sanitize(text);
            if !body.trim().is_empty() {
                let _ = writeln!(md, "{}\n", body.trim_end());
            }
            for c in tool_calls {
                let _ = writeln!(md, "{}\n", (w.calls)(&one_line(&c.name), c.from_text));
            }
            if *status == ReplyStatus::Interrupted {
                let _ = writeln!(md, "> ⚠ **{}** — {}\n", w.interrupted, w.interrupted_note);
            }
        }
        RecordBody::Tool {
            name,
            args,
            result,
            is_error,
            ms,
            original,
            ..
        } => {
            let err = if *is_error {
                format!(" · ❌ {}", w.error)
            } else {
                String::new()
            };
            let took = ms.map_or(String::new(), |ms| format!(" · {}", (w.took)(ms)));
            let _ = writeln!(
                md,
                "### {} `{}` #{n} · {time}{took}{err}\n",
                w.tool,
                one_line(name)
            );
            let _ = writeln!(md, "**{}**\n", w.arguments);
            fenced(md, "json", &sanitize(args));
            let _ = writeln!(md, "**{}**\n", w.result);
            if let Some(o) = original {
                let _ = writeln!(md, "> {}\n", (w.shortened)(o.chars, &one_line(&o.file)));
            }
            fenced(md, "", &sanitize(result));
        }
        RecordBody::Checkpoint { checkpoint: c } => {
            let summary = format!("📝 {} · {time}", (w.checkpoint)(c));
            folded(md, &summary, &c.summary);
        }
        RecordBody::CheckpointAged { checkpoint: c } => {
            let summary = format!("📝 {} · {time}", (w.checkpoint_aged)(c));
            folded(md, &summary, &c.summary);
        }
        RecordBody::CheckpointSummarized {
            id,
            summary,
            carried,
            facts,
            ..
        } => {
            let number = numbers.get(id).copied().unwrap_or_default();
            let line = (w.checkpoint_summarized)(number, !summary.is_empty(), *carried, *facts);
            if summary.is_empty() {
                let _ = writeln!(md, "> 📝 {line} · {time}\n");
            } else {
                folded(md, &format!("📝 {line} · {time}"), summary);
            }
        }
        RecordBody::CheckpointsMerged {
            merged,
            checkpoint: c,
        } => {
            let names: Vec<String> = merged
                .iter()
                .map(|m| numbers.get(m).map_or_else(|| m.to_string(), u32::to_string))
                .collect();
            let summary = format!("📝 {} · {time}", (w.checkpoints_merged)(&names, c));
            folded(md, &summary, &c.summary);
        }
        RecordBody::Goal { change, author } => {
            let _ = writeln!(md, "> 🎯 {} · {time}\n", (w.goal)(change, *author));
        }
        RecordBody::Pin { id, pinned } => {
            let _ = writeln!(md, "> 📌 {} · {time}\n", (w.pin)(*id, *pinned));
        }
        RecordBody::Fact { fact, edit } => {
            let _ = writeln!(md, "> ✎ {} · {time}\n", sanitize(&(w.fact)(fact, edit)));
        }
        RecordBody::Clip { clip } => {
            let _ = writeln!(md, "> ✂ {} · {time}\n", (w.clip)(clip));
        }
        RecordBody::Snapshot {
            snapshot_id,
            purpose,
        } => {
            let said = (w.snapshot)(&one_line(snapshot_id), *purpose);
            let _ = writeln!(md, "> 💾 {said} · {time}\n");
        }
        RecordBody::ResultReduced { id, tokens, .. } => {
            let _ = writeln!(md, "> ✂ {} · {time}\n", (w.reduced)(*id, *tokens));
        }
        // Warnings the transcript showed; the rest (compressions, merges, restores) have
        // records of their own above.
        RecordBody::Event { event } => {
            use crate::core::events::EngineEvent as E;
            if matches!(
                event,
                E::TruncationSuspected { .. }
                    | E::MessageClipped { .. }
                    | E::OverflowPersists { .. }
                    | E::CompressionFailed { .. }
            ) {
                let _ = writeln!(md, "> ⚠ {} · {time}\n", event.name());
            }
        }
        RecordBody::Watermark { at } => {
            let _ = writeln!(md, "> ✔ {} · {time}\n", (w.task_done)(*at));
        }
        RecordBody::PictureDescribed { from, new, .. } => {
            let said = (w.picture_described)(*from, &one_line(new));
            let _ = writeln!(md, "> 🖼 {said} · {time}\n");
        }
        // Recall's vectors are numbers for the model, not something to read.
        // The title heads the transcript (`to_markdown_titled`).
        RecordBody::SentenceVectors { .. } | RecordBody::Title { .. } => {}
        RecordBody::Restore { snapshot_id, .. } => {
            let _ = writeln!(
                md,
                "> ⏪ {} · {time}\n",
                (w.restored)(&one_line(snapshot_id))
            );
        }
        RecordBody::Settings {
            model,
            ctx,
            mode,
            params,
        } => {
            let said = (w.settings)(model.as_deref(), *ctx, *mode, params.as_ref());
            let _ = writeln!(md, "> ⚙ {said} · {time}\n");
        }
    }
}

fn render_board(md: &mut String, board: &GoalBoard, w: &BoardWords) {
    let _ = writeln!(md, "## {}\n", w.heading);
    if let Some(g) = &board.active {
        let goal = (w.goal)(&one_line(&g.description), g.priority, g.status);
        let _ = writeln!(md, "**{}:** {goal}\n", w.active);
        for c in &g.checkpoints {
            let mark = match c.status {
                StepStatus::Completed => "[x]",
                StepStatus::InProgress => "[~]",
                StepStatus::Pending => "[ ]",
            };
            let _ = writeln!(md, "- {mark} {}", one_line(&c.description));
        }
        if !g.checkpoints.is_empty() {
            md.push('\n');
        }
        if !g.artifacts.is_empty() {
            let _ = writeln!(md, "**{}:**\n", w.artifacts);
            for a in &g.artifacts {
                let _ = writeln!(md, "- {} `{}`", a.action.as_str(), one_line(&a.path));
            }
            md.push('\n');
        }
        if !g.next_steps.is_empty() {
            let _ = writeln!(md, "**{}:**\n", w.next_steps);
            for n in &g.next_steps {
                let _ = writeln!(md, "- {}", one_line(n));
            }
            md.push('\n');
        }
    }
    if !board.decisions.is_empty() {
        let _ = writeln!(md, "**{}:**\n", w.decisions);
        for d in &board.decisions {
            let lock = if d.locked { "🔒 " } else { "" };
            let _ = writeln!(md, "- {lock}{} (#{})", one_line(&d.text), d.id);
        }
        md.push('\n');
    }
    if !board.past.is_empty() {
        let _ = writeln!(md, "**{}:**\n", w.earlier);
        for g in &board.past {
            let _ = writeln!(
                md,
                "- {}",
                (w.past_goal)(&one_line(&g.description), g.status)
            );
        }
        md.push('\n');
    }
}

/// A collapsible note (`<details>`), as GitHub and most Markdown viewers render it.
fn folded(md: &mut String, summary: &str, body: &str) {
    let body = sanitize(body);
    let _ = writeln!(
        md,
        "<details>\n<summary>{}</summary>\n\n{}\n\n</details>\n",
        escape_html(summary),
        body.trim_end()
    );
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Sanitised and folded onto one line (for headings and list items). Public so that the
/// words a Markdown export is given fold the log's texts they receive whole (a goal change,
/// a settings record) alike.
pub fn one_line(text: &str) -> String {
    sanitize(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A code block whose fence is longer than any backtick run in `body`.
fn fenced(md: &mut String, lang: &str, body: &str) {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat((longest + 1).max(3));
    let _ = writeln!(
        md,
        "{fence}{lang}\n{}\n{fence}\n",
        body.trim_end_matches('\n')
    );
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_backtick_runs_in_the_body() {
        let mut md = String::new();
        fenced(&mut md, "", "a ```` b");
        assert!(md.starts_with("`````\n"), "{md}");
        assert!(md.trim_end().ends_with("`````"), "{md}");
        let mut md = String::new();
        fenced(&mut md, "json", "{}");
        assert_eq!(md, "```json\n{}\n```\n\n");
    }

    #[test]
    fn one_line_folds_and_strips_controls() {
        assert_eq!(one_line("a\n b\u{1b}]0;x\u{7}\tc"), "a b c");
    }
}
