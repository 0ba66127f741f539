//! What loading a session's log skipped or set aside, in one sentence. Apart because three
//! places say it: the start of a session, `export`, and the head of a Markdown export.

use crate::store::LoadReport;

/// What loading a session's log skipped or set aside (`store::LoadReport`): said at start,
/// by `export`, and at the head of a Markdown export.
pub fn load_report(r: &LoadReport) -> String {
    let mut parts = Vec::new();
    if !r.skipped.is_empty() {
        let n = r.skipped.len();
        let lines: Vec<String> = r
            .skipped
            .iter()
            .take(5)
            .map(|s| s.line.to_string())
            .collect();
        let more = if n > 5 { ", …" } else { "" };
        parts.push(format!(
            "{n} record{} skipped (line{} {}{more})",
            if n == 1 { "" } else { "s" },
            if n == 1 { "" } else { "s" },
            lines.join(", ")
        ));
    }
    if !r.gaps.is_empty() {
        let missing: u64 = r.gaps.iter().map(|g| g.end() - g.start() + 1).sum();
        let ranges: Vec<String> = r
            .gaps
            .iter()
            .take(5)
            .map(|g| {
                if g.start() == g.end() {
                    g.start().to_string()
                } else {
                    format!("{}–{}", g.start(), g.end())
                }
            })
            .collect();
        let more = if r.gaps.len() > 5 { ", …" } else { "" };
        parts.push(format!(
            "{missing} record{} never written (seq {}{more})",
            if missing == 1 { "" } else { "s" },
            ranges.join(", ")
        ));
    }
    if let Some(t) = &r.torn_tail {
        match &t.set_aside {
            Some(p) => parts.push(format!(
                "an incomplete last line ({} bytes) was set aside to {}",
                t.len,
                p.display()
            )),
            None => parts.push(format!("an incomplete last line ({} bytes)", t.len)),
        }
    }
    if parts.is_empty() {
        "clean".to_owned()
    } else {
        parts.join("; ")
    }
}
