//! Markdown (CommonMark + tables, strikethrough, task lists) to wrapped terminal lines.
//!
//! Strategy: one pass over pulldown-cmark events. Inline content collects as styled
//! spans; when a block ends it is wrapped to the width with the prefixes of the open
//! containers (quote bars, list markers and their hanging indent). Code blocks are
//! highlighted (see `highlight`) and char-wrapped on a padded background; tables are
//! measured and laid out as aligned columns, shrinking and wrapping cells when too wide.
//! The output is `'static` so callers can cache it per width.
//!
//! Invariants: the input is sanitized and tab-expanded here, so no control or bidi
//! character survives; no line is wider than `width` (except a lone wide char in a
//! 1-column space); every piece of text in the input appears in the output.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::highlight::CodeCache;
use super::text::{Glyphs, clean, glyphs, width as str_width};
use super::theme::Theme;
use super::wrap::{wrap, wrap_chars};

/// Render `src` as markdown wrapped to `width` columns, `base` being the text style.
pub fn render_markdown(
    src: &str,
    width: u16,
    theme: &Theme,
    ascii: bool,
    base: Style,
) -> Vec<Line<'static>> {
    render_markdown_cached(src, width, theme, ascii, base, &mut CodeCache::new())
}

/// [`render_markdown`] with a code-highlighting cache that outlives the call.
pub fn render_markdown_cached(
    src: &str,
    width: u16,
    theme: &Theme,
    ascii: bool,
    base: Style,
    code_cache: &mut CodeCache,
) -> Vec<Line<'static>> {
    let text = clean(src);
    let mut r = Renderer {
        code_cache,
        width: usize::from(width.max(1)),
        theme,
        g: glyphs(ascii),
        base,
        out: Vec::new(),
        inline: Vec::new(),
        styles: Vec::new(),
        containers: Vec::new(),
        lists: Vec::new(),
        need_blank: false,
        code: None,
        table: None,
        links: Vec::new(),
    };
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    for event in Parser::new_ext(&text, options) {
        r.event(event);
    }
    r.finish()
}

enum Container {
    Quote,
    /// A list item or footnote: `marker` on its first line, then a hanging indent.
    Item {
        marker: String,
        used: bool,
    },
}

struct Code {
    lang: String,
    body: String,
}

#[derive(Default)]
struct Table {
    aligns: Vec<Alignment>,
    rows: Vec<Vec<Vec<Span<'static>>>>,
    header_rows: usize,
}

struct Link {
    url: String,
    /// Index into `inline` where the link text starts.
    start: usize,
    image: bool,
}

struct Renderer<'t> {
    code_cache: &'t mut CodeCache,
    width: usize,
    theme: &'t Theme,
    g: &'static Glyphs,
    base: Style,
    out: Vec<Line<'static>>,
    inline: Vec<Span<'static>>,
    styles: Vec<Style>,
    containers: Vec<Container>,
    /// Next number of each open list (`None` = bullets).
    lists: Vec<Option<u64>>,
    need_blank: bool,
    code: Option<Code>,
    table: Option<Table>,
    links: Vec<Link>,
}

impl Renderer<'_> {
    fn style(&self) -> Style {
        self.styles.iter().fold(self.base, |acc, s| acc.patch(*s))
    }

    fn push_text(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            return;
        }
        match self.inline.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.inline.push(Span::styled(text.to_string(), style)),
        }
    }

    /// Prefixes for the next line and for continuation lines; consumes list markers.
    fn prefixes(&mut self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let mut first = Vec::new();
        let mut rest = Vec::new();
        let quote = self.theme.styles.quote;
        let accent = self.theme.styles.accent;
        let bar = format!("{} ", self.g.quote_bar);
        for c in &mut self.containers {
            match c {
                Container::Quote => {
                    first.push(Span::styled(bar.clone(), quote));
                    rest.push(Span::styled(bar.clone(), quote));
                }
                Container::Item { marker, used } => {
                    let pad = " ".repeat(str_width(marker));
                    if *used {
                        first.push(Span::raw(pad.clone()));
                    } else {
                        first.push(Span::styled(marker.clone(), accent));
                        *used = true;
                    }
                    rest.push(Span::raw(pad));
                }
            }
        }
        // Deep nesting in a narrow column: drop decoration rather than text.
        let pw: usize = rest.iter().map(|s| str_width(&s.content)).sum();
        if pw + 8 > self.width {
            let keep = |spans: Vec<Span<'static>>| -> Vec<Span<'static>> {
                spans.into_iter().last().into_iter().collect()
            };
            let (f, r) = (keep(first), keep(rest));
            let fits = |s: &[Span<'_>]| {
                s.iter().map(|x| str_width(&x.content)).sum::<usize>() + 4 <= self.width
            };
            if fits(&f) && fits(&r) {
                return (f, r);
            }
            return (Vec::new(), Vec::new());
        }
        (first, rest)
    }

    fn blank(&mut self) {
        let quote = self.theme.styles.quote;
        let spans: Vec<Span<'static>> = self
            .containers
            .iter()
            .filter(|c| matches!(c, Container::Quote))
            .map(|_| Span::styled(self.g.quote_bar.to_string(), quote))
            .collect();
        self.out.push(Line::from(spans));
    }

    fn flush_inline(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let spans = std::mem::take(&mut self.inline);
        // Trailing soft-break spaces would only produce an empty last line.
        let (first, rest) = self.prefixes();
        let lines = wrap(&spans, self.width, &first, &rest);
        self.out.extend(lines);
    }

    fn start_block(&mut self) {
        self.flush_inline();
        if self.need_blank && !self.out.is_empty() {
            self.blank();
        }
        self.need_blank = false;
    }

    fn event(&mut self, event: Event<'_>) {
        if let Some(code) = &mut self.code {
            match event {
                Event::Text(t) => {
                    code.body.push_str(&t);
                    return;
                }
                Event::End(TagEnd::CodeBlock) => {}
                _ => return,
            }
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => {
                let st = self.style();
                self.push_text(&t, st);
            }
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                let st = self.style().patch(self.theme.styles.inline_code);
                self.push_text(&t, st);
            }
            Event::Html(t) | Event::InlineHtml(t) => {
                let st = self.style().patch(self.theme.styles.dim);
                self.push_text(t.trim_end_matches('\n'), st);
            }
            // Chat models write line by line (verses, addresses, marker lines) and mean a
            // single newline as one, as chat UIs show it; CommonMark would join the lines.
            Event::SoftBreak => {
                let st = self.style();
                self.push_text("\n", st);
            }
            Event::HardBreak => {
                let st = self.style();
                self.push_text("\n", st);
            }
            Event::Rule => {
                self.start_block();
                let (first, _) = self.prefixes();
                let pw: usize = first.iter().map(|s| str_width(&s.content)).sum();
                let n = self.width.saturating_sub(pw);
                let mut spans = first;
                spans.push(Span::styled(self.g.rule.repeat(n), self.theme.styles.rule));
                self.out.push(Line::from(spans));
                self.need_blank = true;
            }
            Event::TaskListMarker(done) => {
                let st = self.theme.styles.accent;
                self.push_text(if done { "[x] " } else { "[ ] " }, st);
            }
            Event::FootnoteReference(label) => {
                let st = self.theme.styles.dim;
                self.push_text(&format!("[^{label}]"), st);
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock => self.start_block(),
            Tag::Heading { level, .. } => {
                self.start_block();
                let mut st = self.theme.styles.heading;
                match level {
                    HeadingLevel::H1 => st = st.add_modifier(Modifier::UNDERLINED),
                    HeadingLevel::H2 => {}
                    _ => st = st.remove_modifier(Modifier::UNDERLINED),
                }
                self.styles.push(st);
            }
            Tag::BlockQuote(_) => {
                self.start_block();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.start_block();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                        .next()
                        .unwrap_or_default()
                        .to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some(Code {
                    lang,
                    body: String::new(),
                });
            }
            Tag::List(start) => {
                self.flush_inline();
                if self.need_blank && !self.out.is_empty() {
                    self.blank();
                }
                self.need_blank = false;
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush_inline();
                if self.need_blank && !self.out.is_empty() {
                    self.blank();
                }
                self.need_blank = false;
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => format!("{} ", self.g.bullets[depth % self.g.bullets.len()]),
                };
                self.containers.push(Container::Item {
                    marker,
                    used: false,
                });
            }
            Tag::FootnoteDefinition(label) => {
                self.start_block();
                self.containers.push(Container::Item {
                    marker: format!("[^{label}]: "),
                    used: false,
                });
            }
            Tag::Table(aligns) => {
                self.start_block();
                self.table = Some(Table {
                    aligns,
                    ..Table::default()
                });
            }
            Tag::TableHead => {
                if let Some(t) = &mut self.table {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableCell => self.inline.clear(),
            Tag::Emphasis => self
                .styles
                .push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.styles.push(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self
                .styles
                .push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Superscript | Tag::Subscript => self.styles.push(Style::new()),
            Tag::Link { dest_url, .. } => {
                self.links.push(Link {
                    url: dest_url.to_string(),
                    start: self.inline.len(),
                    image: false,
                });
                self.styles.push(self.theme.styles.link);
            }
            Tag::Image { dest_url, .. } => {
                let st = self.theme.styles.dim;
                self.push_text("[image: ", st);
                self.links.push(Link {
                    url: dest_url.to_string(),
                    start: self.inline.len(),
                    image: true,
                });
                self.styles.push(self.theme.styles.dim);
            }
            Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => self.start_block(),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => {
                self.flush_inline();
                self.need_blank = true;
            }
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.flush_inline();
                self.need_blank = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush_inline();
                self.containers.pop();
                self.need_blank = true;
            }
            TagEnd::CodeBlock => {
                if let Some(code) = self.code.take() {
                    self.emit_code(code, true);
                }
                self.need_blank = true;
            }
            TagEnd::List(_) => {
                self.flush_inline();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.need_blank = true;
                }
            }
            TagEnd::Item | TagEnd::FootnoteDefinition => {
                self.flush_inline();
                if let Some(Container::Item { used: false, .. }) = self.containers.last() {
                    // An empty item still shows its marker.
                    let (first, _) = self.prefixes();
                    self.out.push(Line::from(first));
                }
                self.containers.pop();
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    self.emit_table(t);
                }
                self.need_blank = true;
            }
            TagEnd::TableHead => {
                if let Some(t) = &mut self.table {
                    t.header_rows = t.rows.len();
                }
            }
            TagEnd::TableRow => {}
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                if let Some(row) = self.table.as_mut().and_then(|t| t.rows.last_mut()) {
                    row.push(cell);
                }
            }
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript => {
                self.styles.pop();
            }
            TagEnd::Link | TagEnd::Image => {
                self.styles.pop();
                if let Some(link) = self.links.pop() {
                    self.close_link(link);
                }
            }
            TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::MetadataBlock(_) => {
                self.flush_inline();
                self.need_blank = true;
            }
        }
    }

    fn close_link(&mut self, link: Link) {
        let shown: String = self.inline[link.start.min(self.inline.len())..]
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        let dim = self.theme.styles.dim;
        if link.image {
            self.push_text("]", dim);
        }
        let url = link.url.trim();
        let same = shown == url || url.strip_prefix("mailto:") == Some(shown.as_str());
        if !url.is_empty() && !same {
            let st = self.theme.styles.url;
            self.push_text(&format!(" ({url})"), st);
        }
    }

    fn emit_code(&mut self, code: Code, finished: bool) {
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

    fn emit_table(&mut self, t: Table) {
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

    fn finish(mut self) -> Vec<Line<'static>> {
        if let Some(code) = self.code.take() {
            // An unterminated fence (a reply still streaming) renders as code so far.
            self.emit_code(code, false);
        }
        if let Some(t) = self.table.take() {
            self.emit_table(t);
        }
        self.flush_inline();
        self.out
    }
}

/// Shrink natural column widths to fit `total`: narrow columns keep their width, the
/// space left is shared among the wide ones (water-filling).
fn fit_columns(natural: &[usize], total: usize) -> Vec<usize> {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn md(src: &str, width: u16) -> Vec<String> {
        let theme = Theme::default();
        render_markdown(src, width, &theme, false, Style::new())
            .iter()
            .map(|l| l.to_string())
            .collect()
    }

    fn md_lines(src: &str, width: u16) -> Vec<Line<'static>> {
        render_markdown(src, width, &Theme::default(), false, Style::new())
    }

    #[test]
    fn paragraphs_are_separated_and_wrapped() {
        assert_eq!(
            md("one two three four five\n\nsix", 10),
            ["one two", "three four", "five", "", "six"]
        );
    }

    #[test]
    fn single_newlines_stay_line_breaks() {
        assert_eq!(
            md(
                "Roses are red,\nViolets are blue.\n\nAddress:\n1 Main St",
                40
            ),
            [
                "Roses are red,",
                "Violets are blue.",
                "",
                "Address:",
                "1 Main St"
            ]
        );
        // A wrapped continuation and a list item's second line keep their indent.
        assert_eq!(md("- one\n  two", 40), ["• one", "  two"]);
    }

    #[test]
    fn headings_are_styled_without_hashes() {
        let lines = md_lines("# Title\n\ntext", 40);
        assert_eq!(lines[0].to_string(), "Title");
        let st = lines[0].spans[0].style;
        assert!(st.add_modifier.contains(Modifier::BOLD));
        assert!(st.add_modifier.contains(Modifier::UNDERLINED));
        assert_eq!(lines[1].to_string(), "");
    }

    #[test]
    fn emphasis_strong_strike_and_inline_code() {
        let theme = Theme::default();
        let lines = md_lines("a *it* **bo** ~~st~~ `co`", 40);
        let find = |t: &str| {
            lines[0]
                .spans
                .iter()
                .find(|s| s.content.contains(t))
                .unwrap()
                .style
        };
        assert!(find("it").add_modifier.contains(Modifier::ITALIC));
        assert!(find("bo").add_modifier.contains(Modifier::BOLD));
        assert!(find("st").add_modifier.contains(Modifier::CROSSED_OUT));
        assert_eq!(find("co").fg, theme.styles.inline_code.fg);
    }

    #[test]
    fn nested_and_numbered_lists_hang_their_indent() {
        let src = "- first item wraps here\n- second\n  - nested\n\n1. one\n2. two\n";
        assert_eq!(
            md(src, 14),
            [
                "• first item",
                "  wraps here",
                "• second",
                "  ◦ nested",
                "",
                "1. one",
                "2. two"
            ]
        );
        // Ordered lists keep their start number.
        assert_eq!(md("3. c\n4. d", 20), ["3. c", "4. d"]);
    }

    #[test]
    fn task_lists_show_checkboxes() {
        assert_eq!(
            md("- [x] done\n- [ ] todo", 20),
            ["• [x] done", "• [ ] todo"]
        );
    }

    #[test]
    fn block_quotes_get_a_bar_on_every_line() {
        assert_eq!(
            md("> quoted text that wraps\n>\n> more", 12),
            ["│ quoted", "│ text that", "│ wraps", "│", "│ more"]
        );
    }

    #[test]
    fn links_show_text_and_url() {
        assert_eq!(
            md("see [docs](https://docs.rs) and <https://a.b>", 60),
            ["see docs (https://docs.rs) and https://a.b"]
        );
        assert_eq!(md("![logo](x.png)", 40), ["[image: logo] (x.png)"]);
    }

    #[test]
    fn rules_fill_the_width() {
        assert_eq!(md("a\n\n---\n\nb", 5), ["a", "", "─────", "", "b"]);
    }

    #[test]
    fn code_blocks_are_padded_highlighted_and_wrapped() {
        let theme = Theme::default();
        let lines = md_lines("```rust\nfn main() { println!(\"hi\"); }\n```", 20);
        assert!(lines.len() >= 2);
        for l in &lines {
            assert_eq!(l.width(), 20, "{l:?}");
            for s in &l.spans {
                assert_eq!(s.style.bg, theme.styles.code_bg.bg);
            }
        }
        let text: String = lines
            .iter()
            .map(|l| l.to_string().trim().to_string())
            .collect();
        assert_eq!(text.replace(' ', ""), "fnmain(){println!(\"hi\");}");
        let fgs: std::collections::HashSet<_> = lines
            .iter()
            .flat_map(|l| l.spans.iter().filter_map(|s| s.style.fg))
            .collect();
        assert!(fgs.len() >= 2);
    }

    #[test]
    fn unknown_language_and_unterminated_fence_are_plain_code() {
        let theme = Theme::default();
        let lines = md_lines("```nosuchlang\nx = 1\n", 20);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].to_string().trim(), "x = 1");
        let code = theme.styles.code_bg.patch(theme.styles.code);
        assert!(lines[0].spans.iter().all(|s| s.style == code));
    }

    #[test]
    fn indented_code_keeps_its_spaces() {
        let out = md("para\n\n    a  b\n      c", 30);
        assert_eq!(out[2].trim_end(), " a  b");
        assert_eq!(out[3].trim_end(), "   c");
    }

    #[test]
    fn tables_align_columns() {
        let src = "| name | n |\n|:-----|--:|\n| alpha | 1 |\n| b | 22 |";
        assert_eq!(
            md(src, 40),
            ["name  │  n", "──────┼───", "alpha │  1", "b     │ 22"]
        );
    }

    #[test]
    fn wide_tables_shrink_and_wrap_cells() {
        let src = "| a | b |\n|---|---|\n| short | a much longer cell that must wrap |";
        let out = md(src, 24);
        for l in &out {
            assert!(
                unicode_width::UnicodeWidthStr::width(l.as_str()) <= 24,
                "{l}"
            );
        }
        assert!(out.len() > 3);
        let all = out.join(" ");
        for word in ["short", "much", "longer", "wrap"] {
            assert!(all.contains(word));
        }
    }

    #[test]
    fn cjk_and_emoji_wrap_by_display_width() {
        let out = md("漢字とかなの混じった文章 🦀🦀", 10);
        for l in &out {
            assert!(
                unicode_width::UnicodeWidthStr::width(l.as_str()) <= 10,
                "{l}"
            );
        }
        assert_eq!(
            out.concat().replace(' ', ""),
            "漢字とかなの混じった文章🦀🦀"
        );
    }

    #[test]
    fn never_wider_than_the_width() {
        let src = "# H\n\n> - a [link](http://x.y/zzzzzzzzzzzzzzzz) `code`\n>   1. deep\n\n```\nlong code line here\n```\n\n| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |";
        for w in 1..30 {
            for l in md_lines(src, w) {
                assert!(l.width() <= usize::from(w.max(2)), "w={w}: {l:?}");
            }
        }
    }

    #[test]
    fn escapes_never_survive() {
        let out = md(
            "a\u{1b}]52;c;ZXZpbA==\u{7}b \u{1b}[2J\u{202E}c\n```\n\u{1b}[31mred\n```",
            40,
        );
        for l in out {
            assert!(!l.contains('\u{1b}') && !l.contains('\u{202E}'), "{l:?}");
        }
    }

    #[test]
    fn fit_columns_water_fills() {
        assert_eq!(fit_columns(&[3, 4], 10), [3, 4]);
        assert_eq!(fit_columns(&[3, 40], 20), [3, 17]);
        let w = fit_columns(&[30, 40], 21);
        assert_eq!(w.iter().sum::<usize>(), 21);
    }
}
