//! The blocks that are laid out as a whole: fenced code (highlighted, char-wrapped on a
//! padded background) and tables (measured, aligned, shrunk to the width with wrapped
//! cells).

use super::{Code, Renderer, Table};
use crate::ui::text::width as str_width;
use crate::ui::wrap::{wrap, wrap_chars};
use pulldown_cmark::Alignment;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

impl Renderer<'_> {
    pub(super) fn emit_code(&mut self, code: Code, finished: bool) {
        let block = self.theme.styles.code_bg.patch(self.theme.styles.code);
        let body = code.body.strip_suffix('\n').unwrap_or(&code.body);
        let lines = self.code_cache.highlight(
            body,
            &code.lang,
            self.theme.syntax_theme.as_deref(),
            block,
            finished,
        );
        let (first, rest) = self.prefixes();
        let pw: usize = rest.iter().map(|s| str_width(&s.content)).sum();
        let avail = self.width.saturating_sub(pw).max(1);
        // One column of padding each side when there is room.
        let pad = usize::from(avail >= 8);
        let inner = avail - 2 * pad;
        let mut is_first = true;
        for src in lines.iter() {
            for mut row in wrap_chars(src, inner) {
                let w: usize = row.iter().map(|s| str_width(&s.content)).sum();
                let mut spans = if is_first {
                    first.clone()
                } else {
                    rest.clone()
                };
                is_first = false;
                if pad > 0 {
                    spans.push(Span::styled(" ", block));
                }
                spans.append(&mut row);
                let fill = inner.saturating_sub(w) + pad;
                if fill > 0 {
                    spans.push(Span::styled(" ".repeat(fill), block));
                }
                self.out.push(Line::from(spans));
            }
        }
    }

    pub(super) fn emit_table(&mut self, t: Table) {
        let cols = t.rows.iter().map(Vec::len).max().unwrap_or(0);
        if cols == 0 {
            return;
        }
        let border = self.theme.styles.table_border;
        let (first, rest) = self.prefixes();
        let pw: usize = rest.iter().map(|s| str_width(&s.content)).sum();
        let avail = self.width.saturating_sub(pw);
        let sep = format!(" {} ", self.g.table_v);
        let sep_w = 3 * (cols - 1);
        let cell_width =
            |cell: &[Span<'_>]| cell.iter().map(|s| str_width(&s.content)).sum::<usize>();
        let mut natural = vec![0usize; cols];
        for row in &t.rows {
            for (i, cell) in row.iter().enumerate() {
                natural[i] = natural[i].max(cell_width(cell));
            }
        }
        if avail < sep_w + cols * 3 {
            // Too narrow for columns: one cell per line.
            let mut is_first = true;
            for row in &t.rows {
                for cell in row {
                    let (f, r) = if is_first {
                        (first.clone(), rest.clone())
                    } else {
                        (rest.clone(), rest.clone())
                    };
                    is_first = false;
                    self.out.extend(wrap(cell, self.width, &f, &r));
                }
            }
            return;
        }
        let widths = fit_columns(&natural, avail - sep_w);
        let mut is_first = true;
        for (ri, row) in t.rows.iter().enumerate() {
            let header = ri < t.header_rows;
            let mut wrapped: Vec<Vec<Line<'static>>> = Vec::with_capacity(cols);
            for (ci, w) in widths.iter().enumerate() {
                let cell = row.get(ci).map(Vec::as_slice).unwrap_or(&[]);
                let mut cell: Vec<Span<'static>> = cell.to_vec();
                if header {
                    for s in &mut cell {
                        s.style = s.style.add_modifier(Modifier::BOLD);
                    }
                }
                wrapped.push(wrap(&cell, *w, &[], &[]));
            }
            let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
            for li in 0..height {
                let mut spans = if is_first {
                    first.clone()
                } else {
                    rest.clone()
                };
                is_first = false;
                for (ci, w) in widths.iter().enumerate() {
                    if ci > 0 {
                        spans.push(Span::styled(sep.clone(), border));
                    }
                    let line = wrapped[ci].get(li);
                    let lw = line.map_or(0, Line::width);
                    let gap = w.saturating_sub(lw);
                    let (left, right) = match t.aligns.get(ci) {
                        Some(Alignment::Right) => (gap, 0),
                        Some(Alignment::Center) => (gap / 2, gap - gap / 2),
                        _ => (0, gap),
                    };
                    if left > 0 {
                        spans.push(Span::raw(" ".repeat(left)));
                    }
                    if let Some(line) = line {
                        spans.extend(line.spans.iter().cloned());
                    }
                    if right > 0 && ci + 1 < cols {
                        spans.push(Span::raw(" ".repeat(right)));
                    }
                }
                self.out.push(Line::from(spans));
            }
            if header && ri + 1 == t.header_rows {
                let mut spans = rest.clone();
                let parts: Vec<String> = widths.iter().map(|w| self.g.table_h.repeat(*w)).collect();
                let joiner = format!("{h}{x}{h}", h = self.g.table_h, x = self.g.table_x);
                spans.push(Span::styled(parts.join(&joiner), border));
                self.out.push(Line::from(spans));
            }
        }
    }
}

/// Shrink natural column widths to fit `total`: narrow columns keep their width, the
/// space left is shared among the wide ones (water-filling).
pub(super) fn fit_columns(natural: &[usize], total: usize) -> Vec<usize> {
    let want: usize = natural.iter().sum();
    if want <= total {
        return natural.iter().map(|w| (*w).max(1)).collect();
    }
    let mut widths = vec![0usize; natural.len()];
    let mut open: Vec<usize> = (0..natural.len()).collect();
    let mut left = total;
    loop {
        if open.is_empty() {
            break;
        }
        let share = (left / open.len()).max(1);
        let (small, big): (Vec<usize>, Vec<usize>) =
            open.iter().partition(|&&i| natural[i] <= share);
        if small.is_empty() {
            for (k, &i) in big.iter().enumerate() {
                // Hand out the remainder one column at a time.
                widths[i] = share + usize::from(k < left.saturating_sub(share * big.len()));
            }
            break;
        }
        for &i in &small {
            widths[i] = natural[i].max(1);
            left = left.saturating_sub(widths[i]);
        }
        open = big;
    }
    widths
}
