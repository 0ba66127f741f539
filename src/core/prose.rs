//! Lines of model text read as prose: which lines are fenced code (a ```` ``` ```` or
//! `~~~` line opens or closes a block), and a line without its list bullet. Shared so the
//! goal markers, the fact ledger and summary cleaning agree on both.

/// What a list item may start with.
pub const BULLETS: [char; 3] = ['-', '*', '•'];

/// A line or sentence without its list bullet and surrounding space.
pub fn bare(line: &str) -> &str {
    line.trim().trim_start_matches(BULLETS).trim()
}

/// Each line of `text` with whether it is code: a fence line or a line between fences.
pub fn lines_with_code(text: &str) -> impl Iterator<Item = (&str, bool)> {
    let mut in_fence = false;
    text.lines().map(move |line| {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            return (line, true);
        }
        (line, in_fence)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_and_the_lines_between_them_are_code() {
        let code: Vec<bool> = lines_with_code("a\n```rust\nx\n```\nb\n  ~~~\ny\n~~~\nc")
            .map(|(_, c)| c)
            .collect();
        assert_eq!(
            code,
            [false, true, true, true, false, true, true, true, false]
        );
        assert_eq!(bare("  - a point "), "a point");
        assert_eq!(bare("•item"), "item");
    }
}
