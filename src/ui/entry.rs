//! One transcript entry → its lines at a width: header and body. (The transcript puts
//! a blank line between entries, so the newest line sits right above the input.)
//!
//! Strategy: user text is shown verbatim (wrapped, never interpreted as markdown: what
//! you typed is what you see); assistant text is markdown; tool output is plain and
//! capped to a preview; notices and folds are single wrapped lines. Everything is
//! sanitized on the way in. Output is `'static` so the transcript can cache it.
//!
//! A streaming reply is split at its last blank line outside a code fence: the part
//! before is rendered once and kept ([`StreamCache`]), only the tail is re-rendered as
//! deltas arrive. When the reply completes it is rendered whole once more, so the final
//! lines are exactly those of a non-streamed reply.

use chrono::{DateTime, FixedOffset, Utc};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::highlight::CodeCache;
use super::markdown::render_markdown_cached;
use super::text::{Glyphs, clean, clean_line, thousands, width as str_width};
use super::theme::Theme;
use super::wrap::wrap;
use crate::view::{Entry, EntryKind, ReplyState, Severity};

/// Everything besides the entry that affects its lines (the cache key, with width).
pub(crate) struct EntryCtx<'a> {
    pub theme: &'a Theme,
    pub g: &'static Glyphs,
    pub ascii: bool,
    pub offset: FixedOffset,
    /// Show what is folded away: a tool call's arguments and result, a reply's reasoning.
    pub details: bool,
    /// What one picture costs, said on the chip under a message that carried one.
    pub image_cost: Option<crate::core::image::ImageCost>,
    /// The terminal draws pictures: rows are kept under each chip for its thumbnail.
    pub thumbnails: Option<&'a super::thumbnail::Thumbnails>,
}

/// A streaming reply's lines, kept between frames. `lines[..prefix_len]` (separator,
/// header, the body's stable blocks) is final; only what follows is redone per frame.
#[derive(Debug, Default)]
pub(crate) struct StreamCache {
    pub width: u16,
    separator: bool,
    /// Bytes of the text covered by the stable prefix.
    pub stable_bytes: usize,
    scan: SplitScan,
    /// Lines of the separator and header.
    head_len: usize,
    prefix_len: usize,
    /// The fence line the text after `stable_bytes` starts inside of, when it was cut in
    /// a code block for being too long ([`TAIL_MAX`]): rendered before it, so the rest of
    /// the block stays code.
    reopen: Option<String>,
    /// The entry's lines while they are not in the transcript's slot.
    pub lines: Vec<Line<'static>>,
}

/// The most text a frame renders again while a reply streams: a block longer than this
/// without a blank line (one endless paragraph, a huge code block) is cut and kept, so a
/// frame costs the same whatever the reply, even one that floods. The reply is rendered
/// whole once when it ends.
pub(crate) const TAIL_MAX: usize = 8 << 10;

fn indent_for(width: u16) -> usize {
    if width >= 24 { 2 } else { 0 }
}

fn time(ts: DateTime<Utc>, offset: FixedOffset) -> String {
    ts.with_timezone(&offset).format("%H:%M").to_string()
}

fn header(entry: &Entry, ctx: &EntryCtx<'_>) -> Line<'static> {
    let s = &ctx.theme.styles;
    let sep = Span::styled(ctx.g.sep.to_string(), s.dim);
    let mut spans = Vec::new();
    match &entry.kind {
        EntryKind::User => spans.push(Span::styled("You", s.user)),
        EntryKind::Assistant { state } => {
            spans.push(Span::styled("Assistant", s.assistant));
            match state {
                ReplyState::Streaming => {
                    spans.push(sep.clone());
                    spans.push(Span::styled(format!("writing{}", ctx.g.ellipsis), s.dim));
                }
                ReplyState::Interrupted => {
                    spans.push(sep.clone());
                    spans.push(Span::styled("interrupted", s.warn));
                }
                ReplyState::Complete => {}
            }
        }
        EntryKind::Tool {
            name,
            is_error,
            detail,
            ms,
            original_chars,
            summarized,
            ..
        } => {
            spans.push(Span::styled(
                format!("{} {}", ctx.g.tool, clean_line(name)),
                s.tool,
            ));
            // One line says what ran and how it went: the key argument, the size of
            // the result, ✓ or ✗, the time.
            if !detail.is_empty() {
                spans.push(Span::styled(
                    format!(
                        " {}",
                        super::text::truncate(&clean_line(detail), 60, ctx.g.ellipsis)
                    ),
                    s.text,
                ));
            }
            // A call that never ran (denied, stopped) has no time.
            let time = ms.map_or(String::new(), |ms| format!(" {:.1}s", ms as f64 / 1000.0));
            spans.push(sep.clone());
            spans.push(Span::styled(
                format!(
                    "{} {}{time}",
                    super::text::bytes(entry.text.len() as u64),
                    match (*is_error, ctx.ascii) {
                        (true, false) => "✗",
                        (false, false) => "✓",
                        (true, true) => "failed",
                        (false, true) => "ok",
                    },
                ),
                if *is_error { s.tool_error } else { s.dim },
            ));
            // Never silent: what the model saw of a large result, and how to get the rest.
            if let (Some(orig), Some(id)) = (original_chars, entry.id) {
                spans.push(sep.clone());
                let human = crate::core::results::human;
                let said = if *summarized {
                    format!("notes on {} chars · recall {id}", human(*orig as usize))
                } else {
                    format!(
                        "kept {} of {} chars · recall {id}",
                        human(entry.text.chars().count()),
                        human(*orig as usize)
                    )
                };
                spans.push(Span::styled(said, s.warn));
            }
        }
        EntryKind::Notice(_) | EntryKind::Fold { .. } => {}
    }
    // The number `/pin N`, `/unpin N` and `/inspect`'s originals refer to; without it on
    // screen those commands could only be used on the last reply.
    // Right after the role, before any status: "Assistant #3 · interrupted".
    if let Some(id) = entry.id {
        let at = spans.len().min(1);
        spans.insert(at, Span::styled(format!(" {id}"), s.dim));
    }
    if entry.pinned {
        spans.push(sep.clone());
        spans.push(Span::styled(format!("{} pinned", ctx.g.pin), s.pinned));
    }
    // Shown here, the model now sees only the checkpoint's summary of it.
    if let Some(n) = entry.folded {
        spans.push(sep.clone());
        spans.push(Span::styled(format!("in checkpoint {n}"), s.dim));
    }
    spans.push(Span::styled(
        format!("  {}", time(entry.ts, ctx.offset)),
        s.dim,
    ));
    Line::from(spans)
}

fn indented(lines: Vec<Line<'static>>, indent: usize) -> impl Iterator<Item = Line<'static>> {
    lines.into_iter().map(move |mut l| {
        if indent > 0 {
            l.spans.insert(0, Span::raw(" ".repeat(indent)));
        }
        l
    })
}

/// Plain text wrapped line by line (source newlines kept).
fn plain(text: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    let cleaned = clean(text);
    let body = cleaned.trim_end_matches('\n');
    wrap(&[Span::styled(body.to_string(), style)], width, &[], &[])
}

fn severity_style(level: Severity, theme: &Theme) -> Style {
    match level {
        Severity::Quiet => theme.styles.dim,
        Severity::Info => theme.styles.info,
        Severity::Warn => theme.styles.warn,
        Severity::Error => theme.styles.error,
    }
}

pub(crate) fn severity_icon(level: Severity, g: &Glyphs) -> &'static str {
    match level {
        // A space: with the one after every icon, the line sits under the reply's text.
        Severity::Quiet => " ",
        Severity::Info => g.info,
        Severity::Warn => g.warn,
        Severity::Error => g.error,
    }
}

fn markdown(
    text: &str,
    width: u16,
    ctx: &EntryCtx<'_>,
    code: &mut CodeCache,
) -> Vec<Line<'static>> {
    let base = ctx.theme.styles.text;
    render_markdown_cached(text, width, ctx.theme, ctx.ascii, base, code)
}

fn placeholder(ctx: &EntryCtx<'_>) -> Vec<Line<'static>> {
    vec![Line::from(Span::styled(
        ctx.g.ellipsis,
        ctx.theme.styles.dim,
    ))]
}

/// Render a whole entry (header and body) at `width`.
pub(crate) fn render_entry(
    entry: &Entry,
    width: u16,
    ctx: &EntryCtx<'_>,
    code: &mut CodeCache,
) -> Vec<Line<'static>> {
    render_with(entry, width, ctx, |body_w| {
        // Reasoning that led only to tool calls has no text to stand in for.
        if entry.text.trim().is_empty() && !entry.thinking.trim().is_empty() {
            Vec::new()
        } else if entry.text.trim().is_empty() {
            placeholder(ctx)
        } else {
            markdown(&entry.text, body_w, ctx, code)
        }
    })
}

/// Render a streaming reply whole (with the blank separator line above it when
/// `separator`), extending `cache`: the stable prefix is rendered once and its lines are
/// reused, so a frame costs the newest block, not the reply.
pub(crate) fn render_streaming(
    entry: &Entry,
    width: u16,
    separator: bool,
    ctx: &EntryCtx<'_>,
    cache: &mut StreamCache,
    code: &mut CodeCache,
) -> Vec<Line<'static>> {
    let mut lines = std::mem::take(&mut cache.lines);
    if cache.width != width
        || cache.separator != separator
        || cache.head_len == 0
        || cache.stable_bytes > entry.text.len()
        || lines.len() < cache.prefix_len
    {
        *cache = StreamCache {
            width,
            separator,
            ..StreamCache::default()
        };
        lines.clear();
        if separator {
            lines.push(Line::default());
        }
        lines.push(header(entry, ctx));
        let indent = indent_for(width);
        let body_w = usize::from(width).saturating_sub(indent).max(1);
        lines.extend(indented(thinking(entry, body_w, ctx), indent));
        cache.head_len = lines.len();
        cache.prefix_len = lines.len();
    }
    lines.truncate(cache.prefix_len);
    let indent = indent_for(width);
    let body_w = u16::try_from(usize::from(width).saturating_sub(indent).max(1)).unwrap_or(1);
    let text = entry.text.as_str();
    let mut split = cache.scan.advance(text);
    let mut reopen = None;
    if text.len() - split.max(cache.stable_bytes) > TAIL_MAX {
        // Too long a tail: cut after its last complete line, or, in one endless line, at
        // its end; inside a code block, the rest reopens it.
        let pos = cache.scan.pos();
        split = if pos > split.max(cache.stable_bytes) {
            pos
        } else {
            text.len()
        };
        reopen = cache.scan.open_fence().map(str::to_string);
    }
    // The text from `stable_bytes` on, as markdown: inside the fence it was cut in.
    let block = |from: usize, to: usize, reopen: &Option<String>| match reopen {
        Some(fence) => format!(
            "{fence}
{}",
            &text[from..to]
        ),
        None => text[from..to].to_string(),
    };
    if split > cache.stable_bytes {
        let chunk = block(cache.stable_bytes, split, &cache.reopen);
        if !text[cache.stable_bytes..split].trim().is_empty() {
            push_block(
                &mut lines,
                cache.head_len,
                markdown(&chunk, body_w, ctx, code),
                indent,
            );
        }
        cache.stable_bytes = split;
        cache.reopen = reopen;
        cache.prefix_len = lines.len();
    }
    if !text[cache.stable_bytes..].trim().is_empty() {
        let tail = block(cache.stable_bytes, text.len(), &cache.reopen);
        push_block(
            &mut lines,
            cache.head_len,
            markdown(&tail, body_w, ctx, code),
            indent,
        );
    }
    if lines.len() == cache.head_len {
        lines.extend(indented(placeholder(ctx), indent));
    }
    lines
}

/// Append a block's lines, a blank line between it and the body's previous block.
fn push_block(
    lines: &mut Vec<Line<'static>>,
    head_len: usize,
    block: Vec<Line<'static>>,
    indent: usize,
) {
    if lines.len() > head_len {
        lines.extend(indented(vec![Line::default()], indent));
    }
    lines.extend(indented(block, indent));
}

/// A reply's reasoning: one folded line, or the whole text with `details`.
fn thinking(entry: &Entry, body_w: usize, ctx: &EntryCtx<'_>) -> Vec<Line<'static>> {
    let text = entry.thinking.trim();
    if text.is_empty() {
        return Vec::new();
    }
    let s = &ctx.theme.styles;
    let words = thousands(text.split_whitespace().count() as u64);
    let still = entry.is_streaming() && entry.text.is_empty();
    if !ctx.details {
        let what = if still { "thinking" } else { "thought" };
        let line = format!("{} {what} · {words} words", ctx.g.collapsed);
        return vec![Line::from(Span::styled(line, s.dim))];
    }
    let mut out = vec![Line::from(Span::styled(
        format!("{} thinking · {words} words", ctx.g.expanded),
        s.dim,
    ))];
    out.extend(wrap(&[Span::styled(clean(text), s.dim)], body_w, &[], &[]));
    // A blank line between the reasoning and the answer.
    out.push(Line::default());
    out
}

/// A call's arguments, one per line (`path: notes.txt`), or the JSON as sent.
fn pretty_args(args: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(args) {
        Ok(serde_json::Value::Object(map)) if !map.is_empty() => map
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => format!("{k}: {}", clean(s)),
                other => format!("{k}: {other}"),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => clean(args).into_owned(),
    }
}

/// Where a user message's thumbnails go: for each picture, the line of the entry's
/// rendering (as [`render_entry`] makes it) its thumbnail starts on, counted from the
/// end, and the column it is indented to. Empty when no thumbnails are drawn.
pub(crate) fn thumbnail_rows<'e>(
    entry: &'e Entry,
    width: u16,
    ctx: &EntryCtx<'_>,
) -> Vec<(usize, u16, &'e str)> {
    if ctx.thumbnails.is_none() || !matches!(entry.kind, EntryKind::User) {
        return Vec::new();
    }
    let indent = indent_for(width);
    let body_w = usize::from(width).saturating_sub(indent).max(1);
    let rows = usize::from(super::thumbnail::ROWS);
    let col = u16::try_from(indent).unwrap_or(u16::MAX);
    let mut from_end = 0;
    let mut out = Vec::new();
    for image in entry.images.iter().rev() {
        from_end += rows;
        out.push((from_end, col, image.hash.as_str()));
        let chip = super::text::image_chip(image, ctx.image_cost, ctx.ascii);
        from_end += plain(&chip, body_w, ctx.theme.styles.dim).len();
    }
    out
}

fn render_with(
    entry: &Entry,
    width: u16,
    ctx: &EntryCtx<'_>,
    assistant: impl FnOnce(u16) -> Vec<Line<'static>>,
) -> Vec<Line<'static>> {
    let s = &ctx.theme.styles;
    let indent = indent_for(width);
    let body_w = usize::from(width).saturating_sub(indent).max(1);
    let mut out = Vec::new();
    match &entry.kind {
        EntryKind::User => {
            out.push(header(entry, ctx));
            out.extend(indented(plain(&entry.text, body_w, s.text), indent));
            for image in &entry.images {
                let chip = super::text::image_chip(image, ctx.image_cost, ctx.ascii);
                out.extend(indented(plain(&chip, body_w, s.dim), indent));
                if ctx.thumbnails.is_some() {
                    let rows = usize::from(super::thumbnail::ROWS);
                    out.extend(std::iter::repeat_n(Line::default(), rows));
                }
            }
        }
        EntryKind::Assistant { state } => {
            out.push(header(entry, ctx));
            out.extend(indented(thinking(entry, body_w, ctx), indent));
            let bw = u16::try_from(body_w).unwrap_or(u16::MAX);
            out.extend(indented(assistant(bw), indent));
            if *state == ReplyState::Interrupted {
                let note = format!("{} reply interrupted: partial text kept", ctx.g.warn);
                out.extend(indented(
                    wrap(&[Span::styled(note, s.warn)], body_w, &[], &[]),
                    indent,
                ));
            }
        }
        EntryKind::Tool { is_error, args, .. } => {
            out.push(header(entry, ctx));
            let style = if *is_error { s.tool_error } else { s.dim };
            let cleaned = clean(&entry.text);
            let body = cleaned.trim_end_matches('\n');
            if ctx.details {
                out.extend(indented(
                    wrap(&[Span::styled(pretty_args(args), s.dim)], body_w, &[], &[]),
                    indent,
                ));
                out.extend(indented(
                    wrap(&[Span::styled(body.to_string(), style)], body_w, &[], &[]),
                    indent,
                ));
            } else if *is_error {
                // Folded, a failure still says why, in one line.
                let first = body.lines().next().unwrap_or_default();
                let line = super::text::truncate(first, body_w, ctx.g.ellipsis);
                out.extend(indented(
                    vec![Line::from(Span::styled(line, style))],
                    indent,
                ));
            }
        }
        EntryKind::Notice(level) => {
            let style = severity_style(*level, ctx.theme);
            let icon = format!("{} ", severity_icon(*level, ctx.g));
            let pad = " ".repeat(str_width(&icon));
            let cleaned = clean(&entry.text);
            out.extend(wrap(
                &[Span::styled(
                    cleaned.trim_end_matches('\n').to_string(),
                    style,
                )],
                usize::from(width),
                &[Span::styled(icon, style)],
                &[Span::raw(pad)],
            ));
        }
        EntryKind::Fold {
            checkpoint,
            messages,
            tokens,
            merged_into,
        } => {
            // A merge keeps the oldest one's number: "checkpoint 1 (since merged into
            // checkpoint 1)" read as a slip (#31), so the oldest says what it took in.
            let merged = match merged_into {
                Some(m) if m == checkpoint => " (later ones since merged into it)".to_string(),
                Some(m) => format!(" (since merged into checkpoint {m})"),
                None => String::new(),
            };
            // A fold without a summary keeps the facts only: "0 tokens" read as a loss.
            let kept = if *tokens == 0 {
                "your facts kept".to_string()
            } else {
                format!("{} tokens", thousands(u64::from(*tokens)))
            };
            let text = format!(
                "{f}{f} checkpoint {checkpoint}{merged}: {messages} earlier messages folded ({kept}) {f}{f}",
                f = ctx.g.fold,
                messages = thousands(*messages as u64),
            );
            out.extend(wrap(
                &[Span::styled(text, s.dim)],
                usize::from(width),
                &[],
                &[],
            ));
        }
    }
    out
}

/// Byte offset up to which a streaming reply can be rendered for good: just after its
/// last blank line that is outside a code fence (0 if none).
#[cfg(test)]
pub(crate) fn stable_split(text: &str) -> usize {
    SplitScan::default().advance(text)
}

/// [`stable_split`] kept up as a reply grows: complete lines are read once, so the work
/// per delta is the delta, not the reply.
#[derive(Debug, Default)]
pub(crate) struct SplitScan {
    /// Bytes read: always just after a newline.
    pos: usize,
    fence: Option<(char, usize)>,
    /// The line that opened `fence` (with its language), to reopen it after a cut.
    opener: String,
    prev_blank: bool,
    split: usize,
}

impl SplitScan {
    /// Bytes read so far: the end of the last complete line.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// The fence line of the code block open at [`SplitScan::pos`], if one is.
    pub(crate) fn open_fence(&self) -> Option<&str> {
        self.fence.map(|_| self.opener.as_str())
    }

    /// The stable split of `text`, which extends the text seen before.
    pub(crate) fn advance(&mut self, text: &str) -> usize {
        if self.pos > text.len() || !text.is_char_boundary(self.pos) {
            *self = SplitScan::default();
        }
        let rest = &text[self.pos..];
        let complete = rest.rfind('\n').map_or(0, |i| i + 1);
        for line in rest[..complete].split_inclusive('\n') {
            self.line(line);
        }
        // An unfinished last line is looked at, not committed: it may still grow.
        let tail = &rest[complete..];
        if self.fence.is_none() && self.prev_blank && !tail.trim().is_empty() {
            return self.pos;
        }
        self.split
    }

    fn line(&mut self, line: &str) {
        let outside = self.fence.is_none();
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        if let (Some(c), true) = (marker, indent < 4) {
            let run = trimmed.chars().take_while(|x| *x == c).count();
            if run >= 3 {
                match self.fence {
                    None => {
                        self.fence = Some((c, run));
                        self.opener = trimmed.trim_end().to_string();
                    }
                    Some((fc, n)) if fc == c && run >= n && trimmed[run..].trim().is_empty() => {
                        self.fence = None;
                    }
                    Some(_) => {}
                }
            }
        }
        let blank = line.trim().is_empty();
        // A blank line ends a block; cut at the start of the first non-blank line after.
        if outside && self.prev_blank && !blank {
            self.split = self.pos;
        }
        self.prev_blank = blank && self.fence.is_none();
        self.pos += line.len();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn split_only_outside_fences() {
        assert_eq!(stable_split("a\n\nb"), 3);
        assert_eq!(stable_split("a\n\nb\n\nc"), 6);
        assert_eq!(stable_split("no blank yet"), 0);
        // A blank line inside an open fence is not a split point.
        assert_eq!(stable_split("a\n\n```\nx\n\ny"), 3);
        // After the fence closes, the next blank line is.
        let t = "```\nx\n\ny\n```\n\nz";
        assert_eq!(stable_split(t), t.len() - 1);
        // Trailing blank lines wait for the next block to start.
        assert_eq!(stable_split("a\n\n"), 0);
    }

    /// Fed in pieces, the scan finds what a scan of the whole text finds at every
    /// length — including pieces that end mid-line and mid-fence.
    #[test]
    fn the_running_split_matches_a_fresh_one_at_every_length() {
        let texts = [
            "a\n\nb\n\n```rust\nfn x() {}\n\nlet y = 1;\n```\n\nafter the fence\n\n~~~~\n```\n\n~~~~\nz",
            "  ```\nindented fence\n\n  ```\n\n    ```\ncode by indent\n\ntail",
            "one\n\n\n\ntwo é\n\n≥ three\n",
        ];
        for text in texts {
            for step in 1..=7 {
                let mut scan = SplitScan::default();
                let mut end = 0;
                while end < text.len() {
                    end = (end + step).min(text.len());
                    while !text.is_char_boundary(end) {
                        end += 1;
                    }
                    let prefix = &text[..end];
                    let fresh = SplitScan::default().advance(prefix);
                    assert_eq!(scan.advance(prefix), fresh, "{prefix:?} by {step}");
                }
            }
        }
    }
}
