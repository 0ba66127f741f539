//! The status line: budget gauge, compressions, reliability badge, model, mode, and the
//! spinner with what is going on.
//!
//! Strategy: the line is a list of segments with priorities. When the width is short,
//! the least important segments go first and the gauge degrades (bar, then label) so
//! the numbers that matter — the budget and what the app is doing — stay visible down
//! to a dozen columns. The activity sits at the right edge.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::text::{Glyphs, clean_line, thousands, truncate, width as str_width};
use super::theme::Theme;
use super::view::{GaugeBand, GaugeView, StatusView};
use crate::core::reliability::{Band, Reliability};
use crate::view::{Activity, Connection};

/// Cells in the gauge bar.
pub(crate) const GAUGE_CELLS: usize = 10;

fn band_style(band: GaugeBand, theme: &Theme) -> Style {
    match band {
        GaugeBand::Calm => theme.styles.gauge_calm,
        GaugeBand::Filling => theme.styles.gauge_filling,
        GaugeBand::Hot => theme.styles.gauge_hot,
        GaugeBand::Critical => theme.styles.gauge_critical,
    }
}

/// The bar: filled cells in the band colour, a marker where compression triggers.
pub(crate) fn gauge_bar(g: &GaugeView, theme: &Theme, glyphs: &Glyphs) -> Vec<Span<'static>> {
    let fill_style = band_style(g.band(), theme);
    let ctx = u64::from(g.ctx.max(1));
    let filled = usize::try_from((u64::from(g.used) * GAUGE_CELLS as u64 + ctx / 2) / ctx)
        .unwrap_or(GAUGE_CELLS)
        .min(GAUGE_CELLS);
    let filled = if g.used > 0 { filled.max(1) } else { 0 };
    let marker = if g.trigger > 0 && g.trigger < g.ctx {
        Some(
            usize::try_from((u64::from(g.trigger) * GAUGE_CELLS as u64 + ctx / 2) / ctx)
                .unwrap_or(GAUGE_CELLS)
                .min(GAUGE_CELLS),
        )
    } else {
        None
    };
    let mut spans = Vec::new();
    for i in 0..=GAUGE_CELLS {
        if marker == Some(i) {
            spans.push(Span::styled(glyphs.gauge_marker, theme.styles.gauge_marker));
        }
        if i == GAUGE_CELLS {
            break;
        }
        if i < filled {
            spans.push(Span::styled(glyphs.gauge_full, fill_style));
        } else {
            spans.push(Span::styled(glyphs.gauge_empty, theme.styles.gauge_empty));
        }
    }
    spans
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum GaugeForm {
    Full,
    NoBar,
    Short,
}

fn gauge(g: &GaugeView, form: GaugeForm, theme: &Theme, glyphs: &Glyphs) -> Vec<Span<'static>> {
    let s = &theme.styles;
    let band = band_style(g.band(), theme);
    let pct = Span::styled(format!("{}%", g.percent()), band);
    if g.ctx == 0 {
        return vec![Span::styled(
            format!("Context: {}/?", thousands(u64::from(g.used))),
            s.text,
        )];
    }
    let numbers = format!(
        "{}/{}",
        thousands(u64::from(g.used)),
        thousands(u64::from(g.ctx))
    );
    match form {
        GaugeForm::Full => {
            let mut spans = vec![
                Span::styled("Context: ", s.dim),
                Span::styled(numbers, s.text),
                Span::raw(" "),
            ];
            if let Some(source) = g.source {
                spans.push(Span::styled(format!("({source}) "), s.dim));
            }
            spans.extend(gauge_bar(g, theme, glyphs));
            spans.push(Span::raw(" "));
            spans.push(pct);
            spans
        }
        GaugeForm::NoBar => vec![
            Span::styled("Context: ", s.dim),
            Span::styled(numbers, s.text),
            Span::raw(" "),
            pct,
        ],
        GaugeForm::Short => vec![Span::styled("ctx ", s.dim), pct],
    }
}

/// The badge: how many of the person's facts from folded messages the next request
/// carries, `🟢 19/19 facts` (`[ok] 19/19 facts` in ASCII) — a count, not a countdown.
pub(crate) fn badge(r: &Reliability, theme: &Theme, ascii: bool) -> Span<'static> {
    let s = &theme.styles;
    let style = match r.band {
        Band::High => s.rel_high,
        Band::Medium => s.rel_medium,
        Band::Low => s.rel_low,
        Band::Critical => s.rel_critical,
    };
    let icon = if ascii {
        match r.band {
            Band::High => "[ok]",
            Band::Medium => "[~~]",
            Band::Low => "[!]",
            Band::Critical => "[!!]",
        }
    } else {
        r.band.emoji()
    };
    Span::styled(format!("{icon} {}/{} facts", r.carried, r.stated), style)
}

/// How much of the activity to show: 0 = all, 1 = short, 2 = the spinner alone.
fn activity(
    status: &StatusView,
    theme: &Theme,
    glyphs: &Glyphs,
    detail: u8,
) -> Option<Vec<Span<'static>>> {
    let s = &theme.styles;
    let spin = glyphs.spinner[status.spinner_frame % glyphs.spinner.len()];
    let connecting =
        status.activity == Activity::Idle && status.connection == Connection::Connecting;
    let background = status
        .background
        .as_deref()
        .filter(|_| status.activity == Activity::Idle);
    let pull = status
        .pull
        .as_deref()
        .filter(|_| status.activity == Activity::Idle && background.is_none());
    if detail >= 2
        && (status.activity != Activity::Idle
            || connecting
            || background.is_some()
            || pull.is_some())
    {
        return Some(vec![Span::styled(spin.to_string(), s.spinner)]);
    }
    let short = detail >= 1;
    let text = match &status.activity {
        Activity::Idle if connecting => format!("connecting{}", glyphs.ellipsis),
        // Between turns: typing and sending go on meanwhile.
        Activity::Idle => match background {
            Some(_) if short => "summarizing".to_string(),
            Some(what) => format!("in the background: {}", clean_line(what)),
            None => match pull {
                Some(_) if short => "pulling".to_string(),
                Some(what) => clean_line(what),
                None => return None,
            },
        },
        Activity::Loading => format!("loading the session{}", glyphs.ellipsis),
        Activity::Generating { chunks, .. } => {
            let tokens = *chunks;
            let elapsed_ms = status.elapsed_ms;
            let secs = elapsed_ms as f64 / 1000.0;
            // Before the first token the model is loading or reading the prompt.
            if tokens == 0 {
                if short {
                    "waiting".to_string()
                } else {
                    format!("waiting for the model {secs:.1}s")
                }
            } else if short {
                format!("{} tok", thousands(u64::from(tokens)))
            } else if elapsed_ms >= 500 {
                format!(
                    "generating {} tok {secs:.1}s ({:.0} tok/s)",
                    thousands(u64::from(tokens)),
                    f64::from(tokens) / secs
                )
            } else {
                format!("generating {} tok {secs:.1}s", thousands(u64::from(tokens)))
            }
        }
        Activity::Thinking { .. } => {
            let secs = status.elapsed_ms as f64 / 1000.0;
            if short {
                "thinking".to_string()
            } else {
                format!("thinking{} {secs:.1}s", glyphs.ellipsis)
            }
        }
        Activity::Compressing { what, .. } => {
            if short {
                "compressing".to_string()
            } else {
                format!("compressing: {}", clean_line(what))
            }
        }
        Activity::Tool { what, .. } => {
            let secs = status.elapsed_ms as f64 / 1000.0;
            if short {
                "tool".to_string()
            } else {
                format!(
                    "running {} {secs:.1}s",
                    truncate(&clean_line(what), 40, glyphs.ellipsis)
                )
            }
        }
        Activity::Approval(ask) => {
            if short {
                "approve?".to_string()
            } else {
                format!("{} asks for your approval", clean_line(&ask.tool))
            }
        }
    };
    Some(vec![
        Span::styled(spin.to_string(), s.spinner),
        Span::raw(" "),
        Span::styled(text, s.text),
    ])
}

fn connection(c: &Connection, theme: &Theme, glyphs: &Glyphs) -> Option<Span<'static>> {
    let s = &theme.styles;
    match c {
        Connection::Connected { .. } => None,
        Connection::Connecting => Some(Span::styled(
            format!("connecting{}", glyphs.ellipsis),
            s.dim,
        )),
        Connection::Unreachable { .. } => Some(Span::styled(
            format!("{} Ollama unreachable", glyphs.error),
            s.error,
        )),
        Connection::ModelMissing { .. } | Connection::NoModels => Some(Span::styled(
            format!("{} model not installed", glyphs.error),
            s.error,
        )),
        Connection::NotChat { .. } => Some(Span::styled(
            format!("{} model cannot chat", glyphs.error),
            s.error,
        )),
    }
}

fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| str_width(&s.content)).sum()
}

/// Draw the status line into the one-row `area`.
pub(crate) fn render_status(
    status: &StatusView,
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
    buf.set_style(area, s.status);
    let width = usize::from(area.width);

    // Segments in display order, each with a drop rank (higher drops first).
    let model = Span::styled(
        truncate(&clean_line(&status.model), 32, g.ellipsis),
        s.accent,
    );
    let comp = Span::styled(
        match status.compressions {
            0 => "nothing compressed yet".to_string(),
            1 => "1 compression".to_string(),
            n => format!("{} compressions", thousands(u64::from(n))),
        },
        s.dim,
    );
    // The mode in words; the context tier (which sizes the system prompt) is not shown:
    // "T1" read as jargon on the first screen (#31), and it follows the context size.
    let mode = Span::styled(
        match status.tools_note {
            Some(note) => format!("{} mode {} {note}", status.mode, g.sep.trim()),
            None => format!("{} mode", status.mode),
        },
        s.dim,
    );
    // Kept as long as the model is: with the mouse left to the terminal the wheel no longer
    // scrolls the transcript, which is easy to forget.
    let mouse = status
        .mouse
        .as_ref()
        .map(|m| Span::styled(clean_line(m), s.warn));
    // No badge before anything was compressed: nothing has been lost yet (#31).
    let rel = status
        .reliability
        .as_ref()
        .filter(|r| r.measured())
        .map(|r| badge(r, theme, ascii));
    let conn = connection(&status.connection, theme, g);

    // (gauge form, drop level). Drop levels: 1 = mode, 2 = +compressions, 3 = +model,
    // 4 = +reliability, 5 = short activity, 6 = spinner only. The budget numbers go
    // last: they are what the status line is for.
    let forms = [
        (GaugeForm::Full, 0),
        (GaugeForm::Full, 1),
        (GaugeForm::Full, 2),
        (GaugeForm::NoBar, 2),
        (GaugeForm::NoBar, 3),
        (GaugeForm::NoBar, 4),
        (GaugeForm::NoBar, 5),
        (GaugeForm::Short, 5),
        (GaugeForm::Short, 6),
    ];
    let mut chosen: Option<(Vec<Span<'static>>, Vec<Span<'static>>)> = None;
    for (form, drop) in forms {
        let mut left: Vec<Span<'static>> = Vec::new();
        let sep = Span::styled(g.sep, s.dim);
        let add = |left: &mut Vec<Span<'static>>, part: Vec<Span<'static>>| {
            if !left.is_empty() {
                left.push(sep.clone());
            }
            left.extend(part);
        };
        left.push(Span::raw(" "));
        let gauge_spans = gauge(&status.gauge, form, theme, g);
        left.extend(gauge_spans);
        if drop < 2 {
            add(&mut left, vec![comp.clone()]);
        }
        if let (Some(r), true) = (&rel, drop < 4) {
            add(&mut left, vec![r.clone()]);
        }
        // No model yet (server unreachable, nothing installed): no empty segment.
        if drop < 3 && !status.model.is_empty() {
            add(&mut left, vec![model.clone()]);
        }
        if let Some(c) = &conn {
            add(&mut left, vec![c.clone()]);
        }
        if let (Some(m), true) = (&mouse, drop < 3) {
            add(&mut left, vec![m.clone()]);
        }
        if drop < 1 {
            add(&mut left, vec![mode.clone()]);
        }
        let detail = match drop {
            0..=4 => 0,
            5 => 1,
            _ => 2,
        };
        let mut right = activity(status, theme, g, detail).unwrap_or_default();
        if !right.is_empty() {
            right.push(Span::raw(" "));
        }
        let total = spans_width(&left) + spans_width(&right) + usize::from(!right.is_empty());
        let fits = total <= width;
        chosen = Some((left, right));
        if fits {
            break;
        }
    }
    let Some((left, right)) = chosen else {
        return;
    };
    let rw = spans_width(&right);
    let lw = spans_width(&left);
    if rw > 0 && rw < width {
        let x = area.x + u16::try_from(width - rw).unwrap_or(0);
        buf.set_line(
            x,
            area.y,
            &Line::from(right),
            u16::try_from(rw).unwrap_or(0),
        );
        let room = u16::try_from((width - rw).saturating_sub(1)).unwrap_or(0);
        buf.set_line(
            area.x,
            area.y,
            &Line::from(left),
            room.min(u16::try_from(lw).unwrap_or(u16::MAX)),
        );
    } else {
        buf.set_line(area.x, area.y, &Line::from(left), area.width);
    }
}
