//! The map is checked: every file and folder ARCHITECTURE.md names exists, and every
//! "stage N" or "layer N" the code says is a term the document defines.
//!
//! Named paths are the backticked words that look like paths: from the repository's root
//! (`src/…`, `tests/…`, `benches/…`, `assets/…`, `themes/…`, `examples/…`; `NAME` and `*`
//! stand for any name), inside `src/` (`core/engine/input.rs`: some file under `src/` ends
//! so), and, in a code-map bullet about a folder, bare file and folder names
//! (`driver.rs`, `compress/`), which must be found under the last folder the bullet named.

use super::source;
use regex::Regex;
use std::path::Path;

/// Folders at the repository's root that the document names paths under.
const ROOTS: &[&str] = &[
    "src/",
    "tests/",
    "benches/",
    "assets/",
    "themes/",
    "examples/",
    ".ci/",
];

/// The backticked words of `text`.
fn ticked(text: &str) -> impl Iterator<Item = &str> {
    text.split('`').skip(1).step_by(2)
}

/// The lines of the section under `heading`, up to the next heading of its level.
fn section<'a>(doc: &'a str, heading: &str) -> Vec<&'a str> {
    doc.lines()
        .skip_while(|l| l.trim() != heading)
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .collect()
}

/// Whether `path` (relative to `base`, `NAME` and `*` standing for any name) exists.
fn exists(base: &Path, path: &str) -> bool {
    let path = path.replace("NAME", "*");
    let Some(star) = path.find('*') else {
        return base.join(&path).exists();
    };
    let (dir, pattern) = path.rsplit_once('/').unwrap_or(("", &path));
    assert!(
        star > dir.len(),
        "a wildcard only in the last part of {path}"
    );
    let (before, after) = pattern.split_once('*').unwrap_or((pattern, ""));
    std::fs::read_dir(base.join(dir)).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(before) && name.ends_with(after) && name.len() >= pattern.len() - 1
        })
    })
}

/// Whether some file or folder under `dir` (at any depth) is `name` or ends with `/name`.
fn found_under(dir: &Path, name: &str) -> bool {
    let name = name.trim_end_matches('/');
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.ends_with(name) {
                return true;
            }
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    false
}

/// A word that names a file or folder: no spaces, path characters only, and a `/` or a
/// file ending.
fn looks_like_path(word: &str) -> bool {
    let chars = |c: char| c.is_ascii_alphanumeric() || "/._-*".contains(c);
    !word.is_empty()
        && word.chars().all(chars)
        && !word.starts_with('/')
        && (word.contains('/') || word.ends_with(".rs") || word.ends_with(".toml"))
}

/// Every path the document names that does not exist, with the reason.
pub fn missing(root: &Path, doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    let src = root.join("src");
    for word in ticked(doc).filter(|w| looks_like_path(w)) {
        if ROOTS.iter().any(|r| word.starts_with(r)) {
            if !exists(root, word) {
                out.push(format!("`{word}` does not exist"));
            }
        } else if word.trim_end_matches('/').contains('/') && !found_under(&src, word) {
            out.push(format!("`{word}` is no path under src/"));
        }
    }
    // Bare names in a code-map bullet, under the folder the bullet last named.
    let mut bullets: Vec<String> = Vec::new();
    for line in section(doc, "## Code map") {
        if line.starts_with("- ") {
            bullets.push(line.to_owned());
        } else if let Some(last) = bullets.last_mut() {
            last.push(' ');
            last.push_str(line.trim());
        }
    }
    for bullet in bullets.iter().filter(|b| b.starts_with("- `")) {
        let mut dir: Option<&str> = None;
        for word in ticked(bullet) {
            if ROOTS.iter().any(|r| word.starts_with(r)) && word.ends_with('/') {
                dir = Some(word);
            } else if let Some(d) = dir
                && looks_like_path(word)
                && !word.trim_end_matches('/').contains('/')
                && !found_under(&root.join(d), word)
            {
                out.push(format!("`{word}` is not under `{d}` (code map)"));
            }
        }
    }
    out
}

/// The terms the document's "Terms" section defines (in bold), lowercased.
fn terms(doc: &str) -> Vec<String> {
    let text = section(doc, "## Terms").join("\n");
    text.split("**")
        .skip(1)
        .step_by(2)
        .map(str::to_lowercase)
        .collect()
}

/// Every "stage N" / "layer N" in the code that the document does not define.
pub fn undefined_terms(root: &Path, doc: &str) -> Vec<String> {
    let defined = terms(doc);
    let numbered = Regex::new(r"(?i)\b(stage|layer)s?\s+(\d+)").unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for dir in ["src", "tests", "benches", "examples"] {
        for file in source::rust_files(&root.join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
            for (n, line) in text.lines().enumerate() {
                for c in numbered.captures_iter(line) {
                    let term = format!("{} {}", c[1].to_lowercase(), &c[2]);
                    if !defined.contains(&term) {
                        let rel = file.strip_prefix(root).unwrap_or(&file);
                        out.push(format!("{}:{}: \"{term}\"", rel.display(), n + 1));
                    }
                }
            }
        }
    }
    out
}

fn doc() -> String {
    std::fs::read_to_string(source::root().join("ARCHITECTURE.md"))
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_path_the_map_names_exists() {
    let found = missing(source::root(), &doc());
    assert!(
        found.is_empty(),
        "ARCHITECTURE.md names what is not there:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_path_that_drifted_is_found() {
    let doc = "## Code map\n\n- `src/actor/` — `driver.rs` (the loop), `engine.rs`,\n  `compress/`.\n- \
               `src/core/` — `ledger/` (`fit.rs`), `tests/nowhere.rs`, `themes/NAME.toml`,\n  \
               `core/engine/input.rs`, `core/input.rs`.\n\n## Next\n";
    let found = missing(source::root(), doc);
    assert_eq!(
        found,
        [
            "`tests/nowhere.rs` does not exist",
            "`core/input.rs` is no path under src/",
            "`engine.rs` is not under `src/actor/` (code map)",
            "`compress/` is not under `src/actor/` (code map)",
        ]
    );
}

#[test]
fn every_numbered_term_in_the_code_is_defined() {
    let found = undefined_terms(source::root(), &doc());
    assert!(
        found.is_empty(),
        "terms ARCHITECTURE.md's \"Terms\" does not define:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_term_not_in_the_terms_section_is_undefined() {
    let doc = doc();
    let fewer = doc.replace("**layer 2**", "layer two");
    assert_ne!(fewer, doc);
    let found = undefined_terms(source::root(), &fewer);
    assert!(
        found
            .iter()
            .any(|f| f.starts_with("src/core/engine/reduce.rs:1:")),
        "{found:#?}"
    );
}
