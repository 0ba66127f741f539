#![allow(clippy::unwrap_used)]
use super::blocks::fit_columns;
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
fn a_document_fills_its_paragraphs_where_a_reply_keeps_its_lines() {
    // The manual is written wrapped at 90 columns: shown as a reply is, every source line
    // broke the popup's text early.
    let src = "one two\nthree four\n\n- a\n  b\n\n```\nx\ny\n```";
    let doc: Vec<String> = render_document(src, 20, &Theme::default(), false, Style::new())
        .iter()
        .map(|l| l.to_string().trim_end().to_string())
        .collect();
    assert_eq!(doc[0], "one two three four");
    assert!(doc.iter().any(|l| l.ends_with("a b")), "{doc:?}");
    // Code keeps its lines.
    assert!(doc.iter().any(|l| l.trim() == "x"), "{doc:?}");
    assert!(doc.iter().any(|l| l.trim() == "y"), "{doc:?}");
    assert_eq!(md("one two\nthree four", 20), ["one two", "three four"]);
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
