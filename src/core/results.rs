//! Tool results as the model sees them: shortened by kind right after the call, so one
//! `read_file` or `run_command` cannot flood a small model's context.
//!
//! Strategy: the original is always kept whole (the engine has it saved before it
//! records the shortened form, and the model can read any part of it back with the
//! `recall` tool); what enters the context is a form that keeps what that kind of result
//! is read for — no model call needed:
//!
//! | result | kept |
//! | --- | --- |
//! | a file read | its head, an outline (definitions and headings with their line numbers), the ranges left out |
//! | a search | the first matches of each file, the count of the rest |
//! | command output | the command and its exit status, a head and a longer tail (errors are at the end) |
//! | JSON | keys and types, array lengths, a few sample items |
//! | a table | row and column counts, the header, sample rows |
//! | anything else | a head and a tail |
//!
//! Invariants: errors are never shortened; a result that fits its limit is left exactly
//! as it is; a shortened form always says so, with what was left out and how to get it
//! back — never a blind cut. The limit follows the context (a quarter of the room for
//! history, at least [`SMALL_TOKENS`], at most [`MAX_KEEP_CHARS`]), and the result is
//! shrunk until it fits it by the same tokenizer the budget uses.

use crate::core::tokens::Tokenizer;
use serde_json::Value;
use std::fmt::Write;

/// Results up to this many tokens always go in whole.
pub const SMALL_TOKENS: u32 = 200;
/// However large the context, one result keeps at most this many characters.
pub const MAX_KEEP_CHARS: usize = 60_000;

/// The most tokens one result may take in a context with `room` tokens for history,
/// when `share` is what is left of it for this result (the results of one reply share
/// what their exchange has left: four reads at once must not need an emergency cut).
pub fn limit_for(room: u32, share: u32) -> u32 {
    (room / 4)
        .min(share)
        .max(SMALL_TOKENS)
        .min((MAX_KEEP_CHARS / 4) as u32)
}

/// What kind of text a result is, which decides what its short form keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    FileRead,
    Search,
    Command,
    Json,
    Table,
    Text,
}

impl Kind {
    /// From the tool that produced it, else from its content.
    pub fn of(tool: &str, text: &str) -> Kind {
        match tool {
            "read_file" | "recall" => Kind::FileRead,
            "search_files" => Kind::Search,
            "run_command" => Kind::Command,
            _ if looks_json(text) => Kind::Json,
            _ if table_separator(text).is_some() => Kind::Table,
            _ => Kind::Text,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Kind::FileRead => "file",
            Kind::Search => "search",
            Kind::Command => "command output",
            Kind::Json => "JSON",
            Kind::Table => "table",
            Kind::Text => "text",
        }
    }
}

/// A result shortened for the context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shortened {
    /// What the model is told, starting with a line that says it is shortened.
    pub text: String,
    /// Characters of the original.
    pub original_chars: usize,
    pub kind: Kind,
}

/// The result as the context should hold it: `None` when it goes in whole (it fits
/// `limit` tokens). `reference` is how the model asks `recall` for the original.
pub fn shorten(
    tool: &str,
    text: &str,
    limit: u32,
    reference: u64,
    tok: &dyn Tokenizer,
) -> Option<Shortened> {
    // Counting a multi-megabyte result would cost more than shortening it: a text more
    // than 12 bytes a token is practically never under its limit.
    if text.len() <= limit as usize * 12 && tok.count(text) <= limit {
        return None;
    }
    let kind = Kind::of(tool, text);
    let original_chars = text.chars().count();
    // Shrink the character budget until the whole form fits (tokens per character vary).
    let mut chars = (limit as usize * 4).min(MAX_KEEP_CHARS);
    for _ in 0..8 {
        let body = body(kind, text, chars);
        let full = with_header(&body, kind, original_chars, reference);
        if tok.count(&full) <= limit {
            return Some(Shortened {
                text: full,
                original_chars,
                kind,
            });
        }
        chars = chars * 2 / 3;
    }
    // Still too large (a pathological text): a bare head, which the header announces.
    let body = head_chars(text, (limit as usize).max(40));
    Some(Shortened {
        text: with_header(&body, kind, original_chars, reference),
        original_chars,
        kind,
    })
}

fn with_header(body: &str, kind: Kind, original_chars: usize, reference: u64) -> String {
    let shown = body.chars().count();
    format!(
        "[Shortened {}: {} of {} characters shown. The whole result is saved: call recall \
         with id {reference} (and start_line/end_line) to read any part of it.]\n{body}",
        kind.label(),
        human(shown),
        human(original_chars)
    )
}

/// 2100 → "2.1K".
pub fn human(n: usize) -> String {
    if n < 1000 {
        n.to_string()
    } else if n < 1_000_000 {
        format!("{:.1}K", n as f64 / 1000.0)
    } else {
        format!("{:.1}M", n as f64 / 1_000_000.0)
    }
}

/// The short form's body, about `chars` characters.
fn body(kind: Kind, text: &str, chars: usize) -> String {
    match kind {
        Kind::FileRead => file_read(text, chars),
        Kind::Search => search(text, chars),
        Kind::Command => command(text, chars),
        Kind::Json => json(text, chars),
        Kind::Table => table(text, chars),
        Kind::Text => head_tail(&text.lines().collect::<Vec<_>>(), chars, 0.6),
    }
}

/// The first `n` characters, whole.
fn head_chars(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// Whole lines from the front until `chars` is spent (none when the first is longer:
/// the callers handle one enormous line by characters).
fn take_lines<'a>(lines: impl Iterator<Item = &'a str>, chars: usize) -> Vec<&'a str> {
    let mut used = 0;
    let mut out = Vec::new();
    for l in lines {
        used += l.chars().count() + 1;
        if used > chars {
            break;
        }
        out.push(l);
    }
    out
}

/// A head and a tail of `lines` in about `chars` characters (`head_share` of it to the
/// head), with the count of lines left out between them.
fn head_tail(lines: &[&str], chars: usize, head_share: f64) -> String {
    let head_budget = (chars as f64 * head_share) as usize;
    let head = take_lines(lines.iter().copied(), head_budget);
    let rest = &lines[head.len()..];
    let tail_budget = chars.saturating_sub(head.iter().map(|l| l.chars().count() + 1).sum());
    let mut tail = take_lines(rest.iter().rev().copied(), tail_budget);
    tail.reverse();
    let mut out = String::new();
    if head.is_empty() && tail.is_empty() {
        // One enormous line: its start and its end.
        let all: String = lines.join("\n");
        let n = all.chars().count();
        let h = (chars as f64 * head_share) as usize;
        let t = chars.saturating_sub(h);
        out.push_str(&head_chars(&all, h));
        let _ = write!(
            out,
            "\n[… {} characters left out …]\n",
            n.saturating_sub(h + t)
        );
        out.extend(all.chars().skip(n.saturating_sub(t)));
        return out;
    }
    for l in &head {
        out.push_str(l);
        out.push('\n');
    }
    let left_out = lines.len() - head.len() - tail.len();
    if left_out > 0 {
        let _ = writeln!(out, "[… {left_out} lines left out …]");
    }
    for l in &tail {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// A line of `read_file` output: its number and text (`   42  fn main() {`).
fn numbered(line: &str) -> Option<(u64, &str)> {
    let t = line.trim_start();
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let n = t[..digits].parse().ok()?;
    Some((n, t[digits..].strip_prefix("  ").unwrap_or(&t[digits..])))
}

/// Whether a line of code or prose is worth naming in an outline: a definition or a
/// heading.
fn is_outline(text: &str) -> bool {
    let t = text.trim_start();
    let indent = text.len() - t.len();
    if t.starts_with('#') && t.trim_start_matches('#').starts_with(' ') {
        return true; // Markdown heading
    }
    if indent > 4 {
        return false;
    }
    const STARTS: &[&str] = &[
        "fn ",
        "pub ",
        "async fn ",
        "impl ",
        "impl<",
        "struct ",
        "enum ",
        "trait ",
        "mod ",
        "type ",
        "const ",
        "static ",
        "def ",
        "class ",
        "async def ",
        "function ",
        "export ",
        "interface ",
        "func ",
        "package ",
        "module ",
        "public ",
        "private ",
        "protected ",
        "[",
        "CREATE ",
        "create ",
    ];
    STARTS.iter().any(|s| t.starts_with(s))
}

/// A file read: the header, the head, an outline of the rest, the ranges left out.
fn file_read(text: &str, chars: usize) -> String {
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    let body: Vec<&str> = lines.collect();
    let head = take_lines(body.iter().copied(), chars * 2 / 5);
    if head.is_empty() && !body.is_empty() {
        // Lines longer than the budget (minified code): its start and its end.
        return format!("{header}\n{}", head_tail(&body, chars, 0.6));
    }
    let rest = &body[head.len()..];
    let mut out = format!("{header}\n");
    for l in &head {
        out.push_str(l);
        out.push('\n');
    }
    let Some(first_left) = rest.first() else {
        return out;
    };
    let outline_budget = chars.saturating_sub(out.chars().count());
    let candidates: Vec<&str> = rest
        .iter()
        .copied()
        .filter(|l| numbered(l).is_some_and(|(_, t)| is_outline(t)))
        .collect();
    let outline = take_lines(candidates.iter().copied(), outline_budget);
    let from = numbered(first_left).map_or(0, |(n, _)| n);
    let to = rest
        .last()
        .and_then(|l| numbered(l))
        .map_or(from, |(n, _)| n);
    if !outline.is_empty() {
        let _ = writeln!(
            out,
            "[outline of lines {from}–{to}: {} of {} definitions and headings]",
            outline.len(),
            candidates.len()
        );
        for l in &outline {
            out.push_str(l);
            out.push('\n');
        }
    }
    let _ = writeln!(
        out,
        "[lines {from}–{to} left out ({} lines); read_file with start_line and end_line, or \
         recall, shows them]",
        rest.len()
    );
    out
}

/// Search output: the first matches of each file and how many more it has.
fn search(text: &str, chars: usize) -> String {
    let mut lines = text.lines().peekable();
    let mut out = String::new();
    if let Some(first) = lines.peek()
        && !first.contains(": ")
    {
        let _ = writeln!(out, "{first}");
        lines.next();
    }
    // Group by file, in order.
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut other = 0usize;
    for l in lines {
        let file = l.split(':').next().unwrap_or_default();
        if l.starts_with("[…") {
            other += 1;
            continue;
        }
        match groups.last_mut() {
            Some((f, v)) if *f == file => v.push(l),
            _ => groups.push((file, vec![l])),
        }
    }
    let files = groups.len().max(1);
    let per_file = (chars / files).max(80);
    let mut skipped_files = 0usize;
    for (file, matches) in &groups {
        if out.chars().count() >= chars {
            skipped_files += 1;
            continue;
        }
        let kept = take_lines(matches.iter().copied().take(3), per_file);
        for l in &kept {
            out.push_str(l);
            out.push('\n');
        }
        if matches.len() > kept.len() {
            let _ = writeln!(out, "{file}: {} more matches", matches.len() - kept.len());
        }
    }
    if skipped_files > 0 {
        let _ = writeln!(out, "[… {skipped_files} more files with matches left out]");
    }
    if other > 0 {
        let _ = writeln!(out, "[the search itself said more matches exist]");
    }
    out
}

/// Command output: the command and its status whole, then a head and a longer tail.
fn command(text: &str, chars: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let keep = lines
        .iter()
        .take(2)
        .take_while(|l| {
            l.starts_with("$ ") || l.starts_with("exit status") || l.starts_with("killed")
        })
        .count();
    let mut out = String::new();
    for l in &lines[..keep] {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&head_tail(
        &lines[keep..],
        chars.saturating_sub(out.len()),
        0.3,
    ));
    out
}

fn looks_json(text: &str) -> bool {
    let t = text.trim_start();
    (t.starts_with('{') || t.starts_with('[')) && serde_json::from_str::<Value>(text).is_ok()
}

/// JSON: its shape — keys with types, array lengths — and sample values, as deep as the
/// budget allows.
fn json(text: &str, chars: usize) -> String {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return head_tail(&text.lines().collect::<Vec<_>>(), chars, 0.6);
    };
    // The deepest outline that fits.
    let mut best = String::new();
    for depth in 1..=6 {
        let mut out = String::new();
        shape(&v, 0, depth, &mut out);
        if out.chars().count() > chars {
            break;
        }
        best = out;
    }
    if best.is_empty() {
        let mut out = String::new();
        shape(&v, 0, 1, &mut out);
        best = head_chars(&out, chars);
    }
    best
}

fn type_name(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if s.chars().count() <= 40 => format!("{s:?}"),
        Value::String(s) => format!("string ({} chars)", s.chars().count()),
        Value::Array(a) => format!("array of {}", a.len()),
        Value::Object(o) => format!("object with {} keys", o.len()),
    }
}

fn shape(v: &Value, indent: usize, depth: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    match v {
        Value::Object(map) if depth > 0 => {
            for (k, val) in map {
                let _ = writeln!(out, "{pad}{k}: {}", type_name(val));
                if matches!(val, Value::Object(_) | Value::Array(_)) {
                    shape(val, indent + 1, depth - 1, out);
                }
            }
        }
        Value::Array(items) if depth > 0 => {
            for (i, item) in items.iter().take(2).enumerate() {
                let _ = writeln!(out, "{pad}[{i}]: {}", type_name(item));
                if matches!(item, Value::Object(_) | Value::Array(_)) {
                    shape(item, indent + 1, depth - 1, out);
                }
            }
            if items.len() > 2 {
                let _ = writeln!(out, "{pad}[… {} more items]", items.len() - 2);
            }
        }
        _ => {}
    }
}

/// The separator of a table: most lines (at least 20) split into the same number (≥ 2)
/// of columns by it.
fn table_separator(text: &str) -> Option<char> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() < 20 {
        return None;
    }
    ['|', '\t', ','].into_iter().find(|&sep| {
        let counts: Vec<usize> = lines.iter().map(|l| l.matches(sep).count()).collect();
        let first = counts[0];
        first >= 1 && counts.iter().filter(|&&c| c == first).count() * 10 >= lines.len() * 9
    })
}

/// A table: its size, its header, the first rows and the last.
fn table(text: &str, chars: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let sep = table_separator(text).unwrap_or('|');
    let columns = lines.first().map_or(0, |l| {
        let n = l.matches(sep).count();
        if sep == '|' && l.trim().starts_with('|') {
            n.saturating_sub(1)
        } else {
            n + 1
        }
    });
    let mut out = format!(
        "[table: {} rows × {columns} columns; the header and sample rows follow]\n",
        lines.len().saturating_sub(1)
    );
    out.push_str(&head_tail(&lines, chars.saturating_sub(out.len()), 0.75));
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::tokens::ByteEstimate;

    fn file(lines: usize) -> String {
        let mut s = format!("src/big.rs: lines 1–{lines} of {lines}\n");
        for i in 1..=lines {
            let code = if i % 50 == 0 {
                format!("pub fn handler_{i}(x: u32) -> u32 {{")
            } else {
                format!("    let value_{i} = compute(value_{}, {i});", i - 1)
            };
            let _ = writeln!(s, "{i:>5}  {code}");
        }
        s
    }

    #[test]
    fn a_result_that_fits_is_left_as_it_is() {
        let tok = ByteEstimate;
        assert_eq!(shorten("read_file", "tiny", 200, 7, &tok), None);
        let text = file(10);
        assert_eq!(shorten("read_file", &text, tok.count(&text), 7, &tok), None);
    }

    #[test]
    fn a_large_file_keeps_its_head_an_outline_and_the_ranges_left_out() {
        let tok = ByteEstimate;
        let text = file(2000);
        let s = shorten("read_file", &text, 800, 42, &tok).unwrap();
        assert!(tok.count(&s.text) <= 800, "{}", tok.count(&s.text));
        assert!(s.text.starts_with("[Shortened file:"), "{}", s.text);
        assert!(s.text.contains("recall with id 42"));
        assert!(s.text.contains("src/big.rs: lines 1–2000 of 2000"));
        assert!(s.text.contains("    1  "), "the head");
        assert!(
            s.text.contains("pub fn handler_1000"),
            "the outline: {}",
            s.text
        );
        assert!(s.text.contains("left out"));
        assert_eq!(s.original_chars, text.chars().count());
    }

    #[test]
    fn command_output_keeps_the_status_and_more_tail_than_head() {
        let tok = ByteEstimate;
        let mut text = "$ cargo build\nexit status 101\n--- stderr ---\n".to_string();
        for i in 0..3000 {
            let _ = writeln!(text, "   Compiling crate_{i} v1.0.{i}");
        }
        text.push_str("error[E0308]: mismatched types at src/main.rs:12\n");
        let s = shorten("run_command", &text, 600, 3, &tok).unwrap();
        assert!(s.text.contains("$ cargo build\nexit status 101\n"));
        assert!(
            s.text.contains("error[E0308]: mismatched types"),
            "the end stays"
        );
        assert!(s.text.contains("lines left out"));
        let head = s.text.find("lines left out").unwrap();
        assert!(
            s.text[head..].len() > s.text[..head].len() - 200,
            "more tail than head"
        );
        assert!(tok.count(&s.text) <= 600);
    }

    #[test]
    fn search_keeps_the_first_matches_of_each_file_and_counts_the_rest() {
        let tok = ByteEstimate;
        let mut text = "600 matches in 30 files\n".to_string();
        for f in 0..30 {
            for l in 0..20 {
                let _ = writeln!(text, "src/m{f}.rs:{}: let needle = {l};", l + 1);
            }
        }
        let s = shorten("search_files", &text, 900, 1, &tok).unwrap();
        assert!(s.text.contains("600 matches in 30 files"));
        assert!(s.text.contains("src/m0.rs:1: let needle = 0;"));
        let counted = s
            .text
            .lines()
            .find_map(|l| l.strip_prefix("src/m0.rs: ")?.strip_suffix(" more matches"))
            .unwrap();
        let shown = s.text.matches("src/m0.rs:").count() - 1;
        assert_eq!(counted.parse::<usize>().unwrap() + shown, 20, "{}", s.text);
        assert!(tok.count(&s.text) <= 900);
    }

    #[test]
    fn json_keeps_its_shape_and_samples() {
        let tok = ByteEstimate;
        let items: Vec<Value> = (0..500)
            .map(|i| serde_json::json!({"id": i, "name": format!("item {i}"), "tags": ["a", "b"]}))
            .collect();
        let text = serde_json::json!({"total": 500, "items": items}).to_string();
        let s = shorten("db.query", &text, 300, 9, &tok).unwrap();
        assert_eq!(s.kind, Kind::Json);
        assert!(s.text.contains("items: array of 500"), "{}", s.text);
        assert!(s.text.contains("total: 500"));
        assert!(s.text.contains("[… 498 more items]"));
        assert!(tok.count(&s.text) <= 300);
    }

    #[test]
    fn a_table_keeps_its_size_header_and_sample_rows() {
        let tok = ByteEstimate;
        let mut text = "id,name,city\n".to_string();
        for i in 0..1000 {
            let _ = writeln!(text, "{i},person {i},city {}", i % 7);
        }
        let s = shorten("db.query", &text, 300, 9, &tok).unwrap();
        assert_eq!(s.kind, Kind::Table);
        assert!(s.text.contains("1000 rows × 3 columns"), "{}", s.text);
        assert!(s.text.contains("id,name,city"));
        assert!(s.text.contains("999,person 999"));
    }

    #[test]
    fn one_enormous_line_keeps_its_start_and_end() {
        let tok = ByteEstimate;
        let text = format!("START{}END", "x".repeat(100_000));
        let s = shorten("mcp.tool", &text, 300, 1, &tok).unwrap();
        assert!(
            s.text.contains("START") && s.text.contains("END"),
            "{}",
            s.text
        );
        assert!(s.text.contains("characters left out"));
        assert!(tok.count(&s.text) <= 300);
    }

    #[test]
    fn a_minified_file_keeps_its_start_and_end() {
        let tok = ByteEstimate;
        let text = format!(
            "app.min.js: lines 1–1 of 1\n    1  START{}END\n",
            "x;".repeat(50_000)
        );
        let s = shorten("read_file", &text, 300, 1, &tok).unwrap();
        assert!(
            s.text.contains("START") && s.text.contains("END"),
            "{}",
            s.text
        );
        assert!(s.text.contains("app.min.js: lines 1–1 of 1"));
    }

    #[test]
    fn the_limit_follows_the_room_within_bounds() {
        assert_eq!(limit_for(400, u32::MAX), SMALL_TOKENS);
        assert_eq!(limit_for(3200, u32::MAX), 800);
        assert_eq!(limit_for(3200, 500), 500);
        assert_eq!(limit_for(3200, 0), SMALL_TOKENS);
        assert_eq!(limit_for(1_000_000, u32::MAX), 15_000);
    }
}
