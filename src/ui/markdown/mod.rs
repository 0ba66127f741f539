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

use crate::ui::highlight::CodeCache;

use crate::ui::text::{Glyphs, clean, glyphs, width as str_width};
use crate::ui::theme::Theme;
use crate::ui::wrap::wrap;

mod blocks;

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
    render(src, width, theme, ascii, base, code_cache, false)
}

/// Render a document written for a reader, such as the manual: a line break inside a
/// paragraph is a space, as CommonMark has it, so its paragraphs fill the width. A model's
/// reply keeps its line breaks ([`render_markdown`]): models break lines on purpose.
pub fn render_document(
    src: &str,
    width: u16,
    theme: &Theme,
    ascii: bool,
    base: Style,
) -> Vec<Line<'static>> {
    render(src, width, theme, ascii, base, &mut CodeCache::new(), true)
}

fn render(
    src: &str,
    width: u16,
    theme: &Theme,
    ascii: bool,
    base: Style,
    code_cache: &mut CodeCache,
    reflow: bool,
) -> Vec<Line<'static>> {
    let text = clean(src);
    let mut r = Renderer {
        reflow,
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
    /// A soft line break is a space (a document), not a new line (a reply).
    reflow: bool,
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
                self.push_text(if self.reflow { " " } else { "\n" }, st);
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

#[cfg(test)]
mod tests;
