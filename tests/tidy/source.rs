//! Reading the crate's own files: every `.rs` under a folder, its text with comments and
//! string literals blanked (so a path named in a doc comment or a message is not taken
//! for code), and the paths it names under a root such as `crate::`.

use std::path::{Path, PathBuf};

/// The repository's root (this test runs from anywhere `cargo test` puts it).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted so that failures read the same on every run.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for entry in entries {
            let path = entry
                .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
                .path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// `text` with every comment and string or char literal replaced by spaces; newlines stay,
/// so a byte's line number is the same as in the file.
pub fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if let Some(end) = raw_string_end(b, i) {
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' && (i == 0 || !is_ident(b[i - 1])) {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if b[i] == b'\'' {
            // A char literal ('x', '\n', '"'); otherwise a lifetime, left alone.
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .position(|&c| c == b'\'')
                    .map(|n| i + 2 + n + 1)
            } else {
                let len = rest.get(1..).and_then(|r| std::str::from_utf8(r).ok());
                len.and_then(|r| r.chars().next())
                    .map(char::len_utf8)
                    .filter(|n| b.get(i + 1 + n) == Some(&b'\''))
                    .map(|n| i + 2 + n)
            };
            match end {
                Some(end) => {
                    blank(&mut out, i, end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|e| panic!("blanking kept UTF-8: {e}"))
}

/// Where the raw string (`r"…"`, `r#"…"#`, `br"…"`) starting at `i` ends, if one does.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && is_ident(b[i - 1]) {
        return None;
    }
    let mut j = i;
    if b.get(j) == Some(&b'b') {
        j += 1;
    }
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
    j += hashes;
    if b.get(j) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = j + 1;
    b[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map(|n| body + n + close.len())
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// One path the code names under a root: the first segment after `root::` and its line.
#[derive(Debug, PartialEq, Eq)]
pub struct Named {
    pub line: usize,
    pub module: String,
}

/// The first segment of every path in `code` (blanked by [`code_only`]) that starts with
/// `root::` — `use root::a::b`, inline `root::a::f()`, and each branch of a group
/// `use root::{a::x, b::{y, z}}` (here `a` and `b`), however many lines it spans.
pub fn named_under(code: &str, root: &str) -> Vec<Named> {
    let b = code.as_bytes();
    let needle = format!("{root}::");
    let line_of = |at: usize| 1 + b[..at].iter().filter(|&&c| c == b'\n').count();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(n) = code[from..].find(&needle) {
        let at = from + n;
        from = at + needle.len();
        // `core::image::` names our module, not the crate `image`.
        if at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b':') {
            continue;
        }
        let mut i = skip_space(b, from);
        if b.get(i) != Some(&b'{') {
            if let Some(module) = ident_at(b, i) {
                out.push(Named {
                    line: line_of(i),
                    module,
                });
            }
            continue;
        }
        // A group: every identifier that starts a branch at depth one.
        let mut depth = 0;
        let mut starts_branch = true;
        while i < b.len() {
            match b[i] {
                b'{' => {
                    depth += 1;
                    starts_branch = depth == 1;
                }
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b',' if depth == 1 => starts_branch = true,
                c if is_ident(c) => {
                    let word = ident_at(b, i).unwrap_or_default();
                    if starts_branch && depth == 1 {
                        out.push(Named {
                            line: line_of(i),
                            module: word.clone(),
                        });
                    }
                    starts_branch = false;
                    i += word.len();
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        from = i;
    }
    out
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

fn ident_at(b: &[u8], i: usize) -> Option<String> {
    let len = b[i.min(b.len())..]
        .iter()
        .take_while(|&&c| is_ident(c))
        .count();
    (len > 0).then(|| String::from_utf8_lossy(&b[i..i + len]).into_owned())
}

#[test]
fn comments_and_strings_are_blanked_lines_kept() {
    let text = "use crate::a; // crate::b\n/* crate::c\n */ let s = \"crate::d\";\nlet c = '\"'; let r = r#\"crate::e\"#; fn f<'a>(x: &'a crate::g::T) {}\n";
    let code = code_only(text);
    assert_eq!(code.lines().count(), text.lines().count());
    let got: Vec<(usize, String)> = named_under(&code, "crate")
        .into_iter()
        .map(|n| (n.line, n.module))
        .collect();
    assert_eq!(got, vec![(1, "a".into()), (4, "g".into())]);
}

#[test]
fn groups_name_each_branch() {
    let code = "use crate::{\n    a::{x, y},\n    b::z,\n    self as c,\n};\nfn f() { crate::d::g(); $crate::e::h }\n";
    let got: Vec<(usize, String)> = named_under(code, "crate")
        .into_iter()
        .map(|n| (n.line, n.module))
        .collect();
    assert_eq!(
        got,
        vec![
            (2, "a".into()),
            (3, "b".into()),
            (4, "self".into()),
            (6, "d".into()),
            (6, "e".into()),
        ]
    );
}
