//! The side panel: the active goal (its checkpoints, decisions, artifacts, next steps)
//! above the list of compression checkpoints.
//!
//! Strategy: both halves are built as wrapped lines. The goal half comes first and is
//! shown whole while the checkpoint list keeps its title and one row: the board binds the
//! model (locked decisions word for word) and has no other place on screen, while the list
//! says how many rows it shows and scrolls to keep the selected one visible. (It once got
//! 60% at most, which cut a long decision short at 120 columns.) Locked decisions carry a
//! lock marker (🔒 or `[L]`) *and* the `locked` style, so they stand out without colour.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use super::text::{Glyphs, age, clean_line, thousands, truncate, width as str_width};
use super::theme::Theme;
use super::view::PanelView;
use super::wrap::wrap;
use crate::core::checkpoint::Checkpoint;
use crate::core::goals::{ArtifactAction, GoalStatus, Priority, StepStatus};
use crate::core::params::{Param, SessionParams};

fn section(title: &str, theme: &Theme) -> Line<'static> {
    Line::from(Span::styled(title.to_string(), theme.styles.title))
}

/// A bulleted, wrapped item: `marker text` with a hanging indent.
fn item(
    marker: &str,
    marker_style: Style,
    text: &str,
    style: Style,
    width: usize,
) -> Vec<Line<'static>> {
    let m = format!(" {marker} ");
    let pad = " ".repeat(str_width(&m));
    wrap(
        &[Span::styled(clean_line(text), style)],
        width,
        &[Span::styled(m, marker_style)],
        &[Span::raw(pad)],
    )
}

/// Characters of the system prompt the panel shows (`/system` shows it whole).
const SYSTEM_SHOWN: usize = 120;

/// The session's own system prompt and parameters, when any is set: what this
/// conversation is sent besides the app's instructions.
fn params_lines(
    params: &SessionParams,
    width: usize,
    theme: &Theme,
    g: &Glyphs,
) -> Vec<Line<'static>> {
    let s = &theme.styles;
    let mut out = Vec::new();
    if params.is_empty() {
        return out;
    }
    out.push(section("Session settings", theme));
    if let Some(text) = &params.system {
        let shown: String = if text.chars().count() > SYSTEM_SHOWN {
            text.chars().take(SYSTEM_SHOWN).collect::<String>() + g.ellipsis
        } else {
            text.clone()
        };
        out.extend(item("system:", s.dim, &shown, s.text, width));
    }
    let mut values: Vec<String> = Param::ALL
        .into_iter()
        .filter_map(|p| params.get(p).map(|v| format!("{} {v}", p.name())))
        .collect();
    if let Some(word) = &params.think {
        values.push(format!("think {}", super::text::clean_line(word)));
    }
    if params.verbose {
        values.push("verbose".to_string());
    }
    if !values.is_empty() {
        out.extend(item("params:", s.dim, &values.join(g.sep), s.text, width));
    }
    // Apart from the goal below.
    out.push(Line::default());
    out
}

/// What every request carries besides the conversation, when it is worth saying: the
/// tools offered and their cost, those left out for room, and folds without summaries.
fn context_lines(
    status: &crate::core::engine::EngineStatus,
    width: usize,
    theme: &Theme,
    g: &Glyphs,
) -> Vec<Line<'static>> {
    let s = &theme.styles;
    let tools = &status.tools;
    let mut out = Vec::new();
    if !tools.offered.is_empty() {
        let cost = status.calibration.apply(tools.raw);
        out.extend(item(
            "tools:",
            s.dim,
            &format!(
                "{} ({} tokens a request)",
                tools.offered.join(", "),
                thousands(u64::from(cost))
            ),
            s.text,
            width,
        ));
    }
    if !tools.left_out.is_empty() {
        out.extend(item(
            "no room:",
            s.dim,
            &format!(
                "{} (a larger window offers them{}/ctx)",
                tools.left_out.join(", "),
                g.sep
            ),
            s.text,
            width,
        ));
    }
    if !tools.waiting.is_empty() {
        out.extend(item(
            "held back:",
            s.dim,
            &format!(
                "{} (offered once the chat turns to files, code or commands{}/mode developer)",
                tools.waiting.join(", "),
                g.sep
            ),
            s.text,
            width,
        ));
    }
    if status.summaries_off {
        out.extend(item(
            "folds:",
            s.dim,
            "your facts only (the model's summaries dropped them)",
            s.text,
            width,
        ));
    }
    if let Some(line) = recall_line(&status.recall, g) {
        out.extend(item("recall:", s.dim, &line, s.text, width));
    }
    // What the badge counts as not carried: named, so "14/16 facts" is not a mystery.
    // They are on disk and recall quotes them back when a message asks about them.
    if !status.facts_missing.is_empty() {
        out.extend(item(
            "not sent:",
            s.dim,
            &format!(
                "{} of your facts from folded messages (recalled when you ask about them)",
                status.facts_missing.len()
            ),
            s.text,
            width,
        ));
        for fact in status.facts_missing.iter().take(MISSING_SHOWN) {
            out.extend(item("  -", s.dim, &clean_line(fact), s.text, width));
        }
        if status.facts_missing.len() > MISSING_SHOWN {
            out.extend(item(
                "  …",
                s.dim,
                &format!("and {} more", status.facts_missing.len() - MISSING_SHOWN),
                s.text,
                width,
            ));
        }
    }
    if !out.is_empty() {
        out.insert(0, section("Every request", theme));
        out.push(Line::default());
    }
    out
}

/// Facts not carried that the panel names (the rest are counted).
const MISSING_SHOWN: usize = 8;

/// Characters of an embedding failure the panel shows.
const FAILURE_SHOWN: usize = 80;

/// How recall finds folded lines, once something is folded: by meaning too, or by words
/// alone and why (the one place a missing embedding model is mentioned, and only when the
/// person did not turn it off).
fn recall_line(recall: &crate::core::engine::RecallStatus, g: &Glyphs) -> Option<String> {
    use crate::core::engine::Embedder;
    if recall.lines == 0 {
        return None;
    }
    let lines = recall.lines;
    match &recall.embedder {
        Embedder::Unknown | Embedder::Off => None,
        Embedder::Missing { pull } => Some(format!(
            "by words only; /pull {} lets it find paraphrases too",
            clean_line(pull)
        )),
        Embedder::Model(m) => {
            let m = clean_line(m);
            Some(match &recall.failed {
                Some(why) => format!(
                    "by words ({m} failed: {})",
                    truncate(&clean_line(why), FAILURE_SHOWN, g.ellipsis)
                ),
                None if recall.with_vectors >= lines => {
                    format!(
                        "by words and meaning ({m}, {} lines)",
                        thousands(lines as u64)
                    )
                }
                None => format!(
                    "by words; by meaning for {} of {} lines ({m})",
                    thousands(recall.with_vectors as u64),
                    thousands(lines as u64)
                ),
            })
        }
    }
}

pub(crate) fn goal_lines(
    view: &PanelView<'_>,
    width: usize,
    theme: &Theme,
    g: &Glyphs,
) -> Vec<Line<'static>> {
    let s = &theme.styles;
    let mut out = match view.params {
        Some(p) => params_lines(p, width, theme, g),
        None => Vec::new(),
    };
    if let Some(status) = view.status {
        out.extend(context_lines(status, width, theme, g));
    }
    match &view.goals.active {
        None => {
            out.extend(wrap(
                &[Span::styled(
                    "No active goal. Set one with /goal TEXT.",
                    s.dim,
                )],
                width,
                &[],
                &[],
            ));
        }
        Some(goal) => {
            let prio = match goal.priority {
                Priority::High => "high",
                Priority::Medium => "medium",
                Priority::Low => "low",
            };
            let status = match goal.status {
                GoalStatus::Active => "active",
                GoalStatus::Paused => "paused",
                GoalStatus::Completed => "completed",
            };
            out.extend(wrap(
                &[Span::styled(clean_line(&goal.description), s.heading)],
                width,
                &[],
                &[],
            ));
            out.push(Line::from(Span::styled(
                format!(" {prio} priority{}{status}", g.sep),
                s.dim,
            )));
            if !goal.checkpoints.is_empty() {
                let done = goal
                    .checkpoints
                    .iter()
                    .filter(|c| c.status == StepStatus::Completed)
                    .count();
                out.push(section(
                    // "Steps", not "Checkpoints": the panel's other list is the
                    // context's checkpoints (summaries), a different thing.
                    &format!("Steps {done}/{}", goal.checkpoints.len()),
                    theme,
                ));
                for c in &goal.checkpoints {
                    let (marker, st) = match c.status {
                        StepStatus::Completed => (g.step_done, s.step_done),
                        StepStatus::InProgress => (g.step_doing, s.step_doing),
                        StepStatus::Pending => (g.step_todo, s.step_todo),
                    };
                    out.extend(item(marker, st, &c.description, s.text, width));
                }
            }
            if !goal.artifacts.is_empty() {
                out.push(section("Artifacts", theme));
                for a in &goal.artifacts {
                    let marker = match a.action {
                        ArtifactAction::Created => "+",
                        ArtifactAction::Modified => "~",
                        ArtifactAction::Deleted => "-",
                    };
                    out.extend(item(marker, s.accent, &a.path, s.text, width));
                }
            }
            if !goal.next_steps.is_empty() {
                out.push(section("Next", theme));
                for n in &goal.next_steps {
                    out.extend(item(g.next, s.accent, n, s.text, width));
                }
            }
        }
    }
    if !view.goals.decisions.is_empty() {
        out.push(section("Decisions", theme));
        for d in &view.goals.decisions {
            if d.locked {
                out.extend(item(
                    &format!("{} {}.", g.lock, d.id),
                    s.locked,
                    &d.text,
                    s.locked,
                    width,
                ));
            } else {
                out.extend(item(&format!("{}.", d.id), s.dim, &d.text, s.text, width));
            }
        }
    }
    out
}

/// Rows the checkpoint list keeps under a goal board that needs the rest: the blank row
/// above it, its title and one checkpoint.
const LIST_MIN_ROWS: usize = 3;

/// One row of the checkpoint list, in words and most telling first (a narrow panel cuts
/// the end): `3: messages 120–188, 5m ago, 9,400 → 1,180 tokens, detailed`.
pub(crate) fn checkpoint_row(
    cp: &Checkpoint,
    now: chrono::DateTime<chrono::Utc>,
    g: &Glyphs,
) -> String {
    let range = match cp.range() {
        Some((a, b)) if a == b => format!("message {}", a.0),
        Some((a, b)) => format!("messages {}{}{}", a.0, g.range, b.0),
        None => "no messages".to_string(),
    };
    let how = if cp.truncated {
        "cut without the model"
    } else {
        cp.level.name()
    };
    format!(
        "{}: {range}, {} ago, {} {} {} tokens, {how}",
        cp.number,
        age((now - cp.created_at).num_seconds()),
        thousands(u64::from(cp.original_tokens)),
        g.next,
        thousands(u64::from(cp.tokens)),
    )
}

pub(crate) fn render_panel(
    view: &PanelView<'_>,
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
    ascii: bool,
) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let g = super::text::glyphs(ascii);
    let s = &theme.styles;
    let border = if view.focused {
        s.border_focus
    } else {
        s.border
    };
    let inner = if area.width >= 6 && area.height >= 3 {
        let mut block = Block::default()
            .borders(Borders::ALL)
            .border_set(g.border)
            .border_style(border)
            .title(Span::styled(" Goal ", s.title));
        if view.focused {
            // A border colour alone is easy to miss (and absent without colour): say
            // that keys now go to the panel, and how to give them back.
            // The longest that fits; the way back goes last.
            let arrows = if ascii { "Up/Down" } else { "↑↓" };
            let room = usize::from(area.width.saturating_sub(4));
            let hint = [
                format!("{arrows} select{0}Enter inspect{0}Tab back", g.sep),
                format!("Enter inspect{}Tab back", g.sep),
                "Tab back".to_string(),
            ]
            .into_iter()
            .find(|h| str_width(h) <= room);
            if let Some(hint) = hint {
                block = block.title_bottom(Span::styled(format!(" {hint} "), s.accent));
            }
        }
        let inner = block.inner(area);
        block.render(area, buf);
        inner
    } else {
        area
    };
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let width = usize::from(inner.width);
    let goal = goal_lines(view, width, theme, g);
    let cps = view.checkpoints;
    let h = usize::from(inner.height);
    // In a panel too short for both, each gets half.
    let goal_h = goal.len().min(h.saturating_sub(LIST_MIN_ROWS).max(h / 2));
    for (k, line) in goal.iter().take(goal_h).enumerate() {
        let y = inner.y + u16::try_from(k).unwrap_or(0);
        buf.set_line(inner.x, y, line, inner.width);
    }
    let mut y = goal_h;
    let more = format!(" {}", g.ellipsis);
    let more_w = u16::try_from(str_width(&more)).unwrap_or(u16::MAX);
    if goal.len() > goal_h && goal_h > 0 && inner.width >= more_w {
        // Show that the goal continues.
        let last = inner.y + u16::try_from(goal_h - 1).unwrap_or(0);
        let span = Span::styled(more, s.dim);
        buf.set_span(inner.right() - more_w, last, &span, more_w);
    }
    if y >= h {
        return;
    }
    if goal_h > 0 && y + 1 < h {
        y += 1; // breathing room
    }
    // Say when the list is longer than the room left (a notice above takes rows too).
    let room = h.saturating_sub(y + 1);
    let title = if cps.len() > room && room > 0 {
        format!("Checkpoints ({}, {room} shown)", cps.len())
    } else {
        format!("Checkpoints ({})", cps.len())
    };
    buf.set_line(
        inner.x,
        inner.y + u16::try_from(y).unwrap_or(0),
        &section(&title, theme),
        inner.width,
    );
    y += 1;
    let rows = h.saturating_sub(y);
    if rows == 0 {
        return;
    }
    if cps.is_empty() {
        // Said what they will be, for a newcomer who has not seen one yet (#31).
        let lines = wrap(
            &[Span::styled(
                "none yet: when the context fills, older messages are summarized here",
                s.dim,
            )],
            width,
            &[Span::raw(" ")],
            &[Span::raw(" ")],
        );
        for (k, line) in lines.iter().take(rows).enumerate() {
            let row = inner.y + u16::try_from(y + k).unwrap_or(0);
            buf.set_line(inner.x, row, line, inner.width);
        }
        return;
    }
    // Newest first: the one most likely to be inspected.
    let order: Vec<usize> = (0..cps.len()).rev().collect();
    let sel_pos = view
        .selected
        .and_then(|sel| order.iter().position(|&i| i == sel));
    let offset = match sel_pos {
        Some(p) if p >= rows => p + 1 - rows,
        _ => 0,
    };
    for (k, &i) in order.iter().skip(offset).take(rows).enumerate() {
        let cp = &cps[i];
        let selected = view.selected == Some(i);
        let marker = if selected { g.selected } else { " " };
        let text = truncate(
            &format!("{marker}{}", checkpoint_row(cp, view.now, g)),
            width,
            g.ellipsis,
        );
        let style = if selected {
            s.selection
        } else if cp.truncated {
            s.warn
        } else {
            s.text
        };
        let row = inner.y + u16::try_from(y + k).unwrap_or(0);
        if selected {
            buf.set_style(Rect::new(inner.x, row, inner.width, 1), s.selection);
        }
        buf.set_span(inner.x, row, &Span::styled(text, style), inner.width);
    }
}
