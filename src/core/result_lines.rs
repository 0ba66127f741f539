//! The `recall` tool's slicer: the part of a saved tool result the model asks for, by line. A file read is
//! addressed by the file's own line numbers — the ones the model saw in it — not by the
//! result's (which are one off, for its header); any other result by its own lines.

use std::fmt::Write;

/// The part of a saved result `recall` asks for: lines `start..=end` (1-based), numbered
/// like a file read, under a header that says which part of how much it is.
pub fn slice(text: &str, id: u64, start: Option<u64>, end: Option<u64>) -> Result<String, String> {
    if let Some(read) = FileRead::of(text) {
        return read.slice(text, id, start, end);
    }
    let total = text.lines().count() as u64;
    let start = start.unwrap_or(1).max(1);
    let end = end.unwrap_or(total).min(total);
    if total == 0 {
        return Ok(format!("result {id}: empty"));
    }
    if start > total {
        return Err(format!(
            "result {id} has {total} lines; start_line {start} is past the end"
        ));
    }
    if end < start {
        return Err(format!("end_line {end} is before start_line {start}"));
    }
    let mut out = format!("result {id}: lines {start}–{end} of {total}\n");
    for (i, line) in text
        .lines()
        .enumerate()
        .skip(start as usize - 1)
        .take((end - start + 1) as usize)
    {
        let _ = writeln!(out, "{:>5}  {line}", i + 1);
    }
    Ok(out)
}

/// A `read_file` result: a header (`path: lines A–B of N`), then the file's lines, each
/// shown with its own number. `recall` on it takes the file's line numbers — the ones the
/// model saw — not the result's (which are one off, for the header).
struct FileRead<'a> {
    path: &'a str,
    first: u64,
    last: u64,
    total: u64,
}

impl<'a> FileRead<'a> {
    fn of(text: &'a str) -> Option<FileRead<'a>> {
        let header = text.lines().next()?;
        let (path, rest) = header.rsplit_once(": lines ")?;
        let (range, total) = rest.split_once(" of ")?;
        let (first, last) = range.split_once('–')?;
        Some(FileRead {
            path,
            first: first.trim().parse().ok()?,
            last: last.trim().parse().ok()?,
            total: total.trim().parse().ok()?,
        })
    }

    fn slice(
        &self,
        text: &str,
        id: u64,
        start: Option<u64>,
        end: Option<u64>,
    ) -> Result<String, String> {
        let start = start.unwrap_or(self.first).max(self.first);
        let end = end.unwrap_or(self.last).min(self.last);
        if start > self.last {
            return Err(format!(
                "result {id} holds lines {}–{} of {} ({} lines in all); line {start} is not in it \
                 (read_file with start_line reads other lines)",
                self.first, self.last, self.path, self.total
            ));
        }
        if end < start {
            return Err(format!("end_line {end} is before start_line {start}"));
        }
        let mut out = format!(
            "result {id}: {} lines {start}–{end} (of {} in the file)\n",
            self.path, self.total
        );
        // Result line 1 is the header; file line L is result line L - first + 2.
        for line in text
            .lines()
            .skip((start - self.first + 1) as usize)
            .take((end - start + 1) as usize)
        {
            out.push_str(line);
            out.push('\n');
        }
        Ok(out)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A `read_file` result of `lines` lines, numbered as the tool numbers them.
    fn file(lines: usize) -> String {
        let mut s = format!("src/big.rs: lines 1–{lines} of {lines}\n");
        for i in 1..=lines {
            let _ = writeln!(
                s,
                "{i:>5}      let value_{i} = compute(value_{}, {i});",
                i - 1
            );
        }
        s
    }

    #[test]
    fn recall_of_a_file_read_takes_the_files_own_line_numbers() {
        let text = file(600);
        let s = slice(&text, 3, Some(432), Some(433)).unwrap();
        assert_eq!(
            s,
            "result 3: src/big.rs lines 432–433 (of 600 in the file)\n  432      let value_432 = compute(value_431, 432);\n  433      let value_433 = compute(value_432, 433);\n"
        );
        // A read of part of a file: its lines keep their numbers; others are said missing.
        let part = "a.rs: lines 101–103 of 900\n  101  x\n  102  y\n  103  z\n";
        assert_eq!(
            slice(part, 4, Some(102), None).unwrap(),
            "result 4: a.rs lines 102–103 (of 900 in the file)\n  102  y\n  103  z\n"
        );
        assert!(
            slice(part, 4, Some(500), None)
                .unwrap_err()
                .contains("holds lines 101–103")
        );
    }

    #[test]
    fn slice_returns_the_requested_lines_numbered() {
        let text = "one\ntwo\nthree\nfour\n";
        let s = slice(text, 5, Some(2), Some(3)).unwrap();
        assert_eq!(s, "result 5: lines 2–3 of 4\n    2  two\n    3  three\n");
        assert!(slice(text, 5, Some(9), None).is_err());
        assert!(
            slice(text, 5, None, None)
                .unwrap()
                .ends_with("    4  four\n")
        );
    }
}
