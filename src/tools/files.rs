//! The read-only tools: `read_file`, `list_files`, `search_files`. Walks respect
//! `.gitignore` (the `ignore` crate, as ripgrep does) and never leave the working
//! directory: links are not followed. Files are opened through `fsio` (regular files
//! only, never blocking) and read with bounded memory.

use super::{Limits, Sandbox, ToolError, cap, fsio, looks_binary};
use serde::Deserialize;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

/// Lines longer than this are cut in listings and search results.
const MAX_LINE_CHARS: usize = 300;
/// Matches `search_files` reports at most.
const MAX_MATCHES: usize = 200;
/// Entries `list_files` reports at most.
const MAX_ENTRIES: usize = 500;
/// Bytes read past the lines asked for just to count the rest: a huge file's total is
/// given as "more than N" rather than read to its end.
const COUNT_BEYOND_BYTES: u64 = 64 << 20;

#[derive(Debug, Deserialize)]
pub struct ReadFileArgs {
    path: String,
    #[serde(default, deserialize_with = "super::lenient_number")]
    start_line: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient_number")]
    end_line: Option<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReadFile {
    pub path: PathBuf,
    start: u64,
    end: Option<u64>,
}

impl ReadFile {
    pub fn prepare(a: ReadFileArgs, sb: &Sandbox) -> Result<ReadFile, ToolError> {
        let start = a.start_line.unwrap_or(1).max(1);
        if let Some(end) = a.end_line
            && end < start
        {
            return Err(ToolError::BadArgs(format!(
                "end_line {end} is before start_line {start}"
            )));
        }
        let path = sb.resolve(&a.path)?;
        // A FIFO or a device is refused here, before anything opens it.
        if fsio::check(&path, &sb.show(&path))? == fsio::Kind::Dir {
            return Err(ToolError::Failed(format!(
                "{} is a directory; use list_files",
                sb.show(&path)
            )));
        }
        Ok(ReadFile {
            path,
            start,
            end: a.end_line,
        })
    }

    /// Read the lines asked for, streaming: memory holds at most the output cap and one
    /// buffer, however large the file or its lines (a 2 GB file of one line included).
    /// The lines after the range are counted up to [`COUNT_BEYOND_BYTES`], so the total
    /// is said without reading a huge file to its end.
    pub fn run(self, sb: &Sandbox, limits: Limits) -> Result<String, ToolError> {
        let shown = sb.show(&self.path);
        let file = fsio::open_regular(&self.path, &shown)?;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let mut reader = BufReader::with_capacity(64 * 1024, file);
        let read_err = |e: std::io::Error| ToolError::Failed(format!("cannot read {shown}: {e}"));
        let head = reader.fill_buf().map_err(read_err)?;
        if looks_binary(&head[..head.len().min(8192)]) {
            return Err(ToolError::Failed(format!(
                "{shown} is a binary file ({size} bytes); it cannot be shown as text"
            )));
        }
        let budget = limits.output_bytes;
        let wanted = |n: u64| n >= self.start && self.end.is_none_or(|e| n <= e);
        let mut out = String::new();
        // The current line if it is wanted, kept only up to what the output can take.
        let mut line = Vec::new();
        let mut line_no = 1u64;
        let mut in_line = false;
        let mut last_shown = 0u64;
        let mut past_range = 0u64;
        let mut counted_all = true;
        let show = |out: &mut String, line: &[u8], n: u64| {
            let text = String::from_utf8_lossy(line);
            let _ = writeln!(out, "{n:>5}  {}", text.trim_end_matches('\r'));
            n
        };
        loop {
            let chunk = reader.fill_buf().map_err(read_err)?;
            if chunk.is_empty() {
                break;
            }
            let n = chunk.len();
            let mut at = 0;
            while at < n {
                let nl = memchr::memchr(b'\n', &chunk[at..]).map(|i| at + i);
                let piece_end = nl.unwrap_or(n);
                in_line = true;
                if wanted(line_no) {
                    let room = (budget + 4).saturating_sub(out.len() + line.len());
                    let take = (piece_end - at).min(room);
                    line.extend_from_slice(&chunk[at..at + take]);
                }
                match nl {
                    Some(i) => {
                        if wanted(line_no) && out.len() < budget {
                            last_shown = show(&mut out, &line, line_no);
                        }
                        line.clear();
                        line_no += 1;
                        in_line = false;
                        at = i + 1;
                    }
                    None => at = n,
                }
            }
            reader.consume(n);
            // Past the range, or nothing more fits: the rest is only counted, and only so far.
            let full = out.len() + line.len() >= budget;
            if line_no >= self.start && (full || self.end.is_some_and(|e| line_no > e)) {
                past_range += n as u64;
                if past_range > COUNT_BEYOND_BYTES {
                    counted_all = false;
                    break;
                }
            }
        }
        if in_line {
            // A last line without a newline (or one whose end was not read).
            if wanted(line_no) && out.len() < budget {
                last_shown = show(&mut out, &line, line_no);
            }
        } else {
            line_no -= 1;
        }
        let total = line_no;
        if total == 0 {
            return Ok(format!("{shown}: empty file"));
        }
        if self.start > total {
            return Err(ToolError::Failed(format!(
                "{shown} has {total} lines; start_line {} is past the end",
                self.start
            )));
        }
        let of = if counted_all {
            format!("{total}")
        } else {
            format!("more than {total} (the file is {size} bytes; counting stopped)")
        };
        let header = format!("{shown}: lines {}–{last_shown} of {of}\n", self.start);
        Ok(cap(
            header + &out,
            budget,
            "ask for a smaller line range with start_line and end_line",
        ))
    }
}

#[derive(Debug, Deserialize)]
pub struct ListFilesArgs {
    path: Option<String>,
    glob: Option<String>,
    #[serde(default, deserialize_with = "super::lenient_number")]
    depth: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ListFiles {
    pub path: PathBuf,
    glob: Option<String>,
    depth: usize,
}

fn matcher(glob: Option<&str>) -> Result<Option<globset::GlobMatcher>, ToolError> {
    glob.filter(|g| !g.trim().is_empty())
        .map(|g| {
            globset::Glob::new(g.trim())
                .map(|g| g.compile_matcher())
                .map_err(|e| ToolError::BadArgs(format!("glob {g:?}: {e}")))
        })
        .transpose()
}

impl ListFiles {
    pub fn prepare(a: ListFilesArgs, sb: &Sandbox) -> Result<ListFiles, ToolError> {
        matcher(a.glob.as_deref())?;
        Ok(ListFiles {
            path: sb.resolve(a.path.as_deref().unwrap_or("."))?,
            glob: a.glob,
            depth: a.depth.unwrap_or(3).clamp(1, 20),
        })
    }

    pub fn run(self, sb: &Sandbox, limits: Limits) -> Result<String, ToolError> {
        let shown = sb.show(&self.path);
        if !self.path.is_dir() {
            return Err(ToolError::Failed(format!("{shown} is not a directory")));
        }
        let glob = matcher(self.glob.as_deref())?;
        let mut entries = Vec::new();
        let mut more = 0usize;
        for entry in ignore::WalkBuilder::new(&self.path)
            .max_depth(Some(self.depth))
            .follow_links(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .build()
            .flatten()
        {
            if entry.depth() == 0 {
                continue;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if let Some(g) = &glob
                && (is_dir || !g.is_match(entry.file_name()))
            {
                continue;
            }
            if entries.len() >= MAX_ENTRIES {
                more += 1;
                continue;
            }
            let mut name = sb.show(entry.path());
            if is_dir {
                name.push('/');
            }
            entries.push(name);
        }
        let mut out = format!("{shown}: {} entries\n", entries.len() + more);
        for e in &entries {
            out.push_str(e);
            out.push('\n');
        }
        if more > 0 {
            let _ = writeln!(out, "[… {more} more; narrow it with path or glob]");
        }
        Ok(cap(out, limits.output_bytes, "narrow it with path or glob"))
    }
}

#[derive(Debug, Deserialize)]
pub struct SearchFilesArgs {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SearchFiles {
    pub pattern: String,
    pub path: PathBuf,
    glob: Option<String>,
}

impl SearchFiles {
    pub fn prepare(a: SearchFilesArgs, sb: &Sandbox) -> Result<SearchFiles, ToolError> {
        regex::Regex::new(&a.pattern).map_err(|e| ToolError::BadArgs(format!("pattern: {e}")))?;
        matcher(a.glob.as_deref())?;
        Ok(SearchFiles {
            pattern: a.pattern,
            path: sb.resolve(a.path.as_deref().unwrap_or("."))?,
            glob: a.glob,
        })
    }

    pub fn run(self, sb: &Sandbox, limits: Limits) -> Result<String, ToolError> {
        let re = regex::Regex::new(&self.pattern)
            .map_err(|e| ToolError::BadArgs(format!("pattern: {e}")))?;
        let glob = matcher(self.glob.as_deref())?;
        let mut out = String::new();
        let mut matches = 0usize;
        let mut files = 0usize;
        for entry in ignore::WalkBuilder::new(&self.path)
            .follow_links(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .build()
            .flatten()
        {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            if let Some(g) = &glob
                && !g.is_match(entry.file_name())
            {
                continue;
            }
            // A file swapped for a FIFO since the walk saw it must not block the search.
            let Ok(mut file) = fsio::open_regular(entry.path(), "") else {
                continue;
            };
            let mut bytes = Vec::new();
            // Files past 8 MiB are not searched whole: their start is.
            if file.by_ref().take(8 << 20).read_to_end(&mut bytes).is_err()
                || looks_binary(&bytes[..bytes.len().min(8192)])
            {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            let mut hit = false;
            for (i, line) in text.lines().enumerate() {
                if re.is_match(line) {
                    matches += 1;
                    hit = true;
                    if matches <= MAX_MATCHES {
                        let short: String = line.trim().chars().take(MAX_LINE_CHARS).collect();
                        let _ = writeln!(out, "{}:{}: {short}", sb.show(entry.path()), i + 1);
                    }
                }
            }
            files += usize::from(hit);
        }
        if matches == 0 {
            return Ok(format!(
                "no match for {:?} in {}",
                self.pattern,
                sb.show(&self.path)
            ));
        }
        let mut head = format!("{matches} matches in {files} files\n");
        if matches > MAX_MATCHES {
            let _ = writeln!(
                out,
                "[… {} more matches; narrow the pattern, path or glob]",
                matches - MAX_MATCHES
            );
        }
        head.push_str(&out);
        Ok(cap(
            head,
            limits.output_bytes,
            "narrow the pattern, path or glob",
        ))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Sandbox) {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("src")).unwrap();
        std::fs::create_dir_all(d.path().join("target")).unwrap();
        std::fs::write(d.path().join(".gitignore"), "target/\n").unwrap();
        std::fs::write(d.path().join("src/a.rs"), "fn alpha() {}\nfn beta() {}\n").unwrap();
        std::fs::write(d.path().join("target/junk.rs"), "fn alpha() {}\n").unwrap();
        std::fs::write(d.path().join("notes.txt"), "one\ntwo\nthree\n").unwrap();
        std::fs::write(d.path().join("bin.dat"), b"\x00\x01\x02").unwrap();
        // The walker honours .gitignore only inside a git repository, as ripgrep does.
        std::fs::create_dir(d.path().join(".git")).unwrap();
        let sb = Sandbox::new(d.path()).unwrap();
        (d, sb)
    }

    fn read(
        sb: &Sandbox,
        path: &str,
        start: Option<u64>,
        end: Option<u64>,
    ) -> Result<String, ToolError> {
        ReadFile::prepare(
            ReadFileArgs {
                path: path.into(),
                start_line: start,
                end_line: end,
            },
            sb,
        )?
        .run(sb, Limits::default())
    }

    #[test]
    fn read_file_numbers_lines_and_gives_the_total() {
        let (_d, sb) = setup();
        let all = read(&sb, "notes.txt", None, None).unwrap();
        assert!(all.starts_with("notes.txt: lines 1–3 of 3"), "{all}");
        assert!(all.contains("    2  two"));
        let part = read(&sb, "notes.txt", Some(2), Some(2)).unwrap();
        assert!(
            part.contains("lines 2–2 of 3") && !part.contains("three"),
            "{part}"
        );
        assert!(
            read(&sb, "notes.txt", Some(9), None)
                .unwrap_err()
                .to_string()
                .contains("3 lines")
        );
        assert!(
            read(&sb, "bin.dat", None, None)
                .unwrap_err()
                .to_string()
                .contains("binary")
        );
        assert!(
            read(&sb, "src", None, None)
                .unwrap_err()
                .to_string()
                .contains("directory")
        );
        assert!(
            read(&sb, "missing", None, None)
                .unwrap_err()
                .to_string()
                .contains("cannot open")
        );
    }

    #[test]
    fn a_large_file_is_cut_and_says_how_to_read_more() {
        let (d, sb) = setup();
        let big = "x".repeat(99) + "\n";
        std::fs::write(d.path().join("big.txt"), big.repeat(50_000)).unwrap();
        let out = ReadFile::prepare(
            ReadFileArgs {
                path: "big.txt".into(),
                start_line: None,
                end_line: None,
            },
            &sb,
        )
        .unwrap()
        .run(
            &sb,
            Limits {
                output_bytes: 4096,
                ..Limits::default()
            },
        )
        .unwrap();
        assert!(out.len() < 4096 + 200, "{}", out.len());
        assert!(out.contains("of 50000"), "{}", &out[..80]);
        assert!(out.contains("smaller line range"));
    }

    #[test]
    fn list_and_search_skip_ignored_files() {
        let (_d, sb) = setup();
        let list = ListFiles::prepare(
            ListFilesArgs {
                path: None,
                glob: None,
                depth: None,
            },
            &sb,
        )
        .unwrap()
        .run(&sb, Limits::default())
        .unwrap();
        assert!(
            list.contains("src/a.rs") && list.contains("notes.txt"),
            "{list}"
        );
        assert!(!list.contains("junk"), "{list}");
        let rs = ListFiles::prepare(
            ListFilesArgs {
                path: None,
                glob: Some("*.rs".into()),
                depth: None,
            },
            &sb,
        )
        .unwrap()
        .run(&sb, Limits::default())
        .unwrap();
        assert!(rs.contains("src/a.rs") && !rs.contains("notes"), "{rs}");
        let found = SearchFiles::prepare(
            SearchFilesArgs {
                pattern: "fn al".into(),
                path: None,
                glob: None,
            },
            &sb,
        )
        .unwrap()
        .run(&sb, Limits::default())
        .unwrap();
        assert!(found.starts_with("1 matches in 1 files"), "{found}");
        assert!(found.contains("src/a.rs:1: fn alpha() {}"), "{found}");
        let bad = SearchFiles::prepare(
            SearchFilesArgs {
                pattern: "(".into(),
                path: None,
                glob: None,
            },
            &sb,
        );
        assert!(bad.is_err());
    }
}
