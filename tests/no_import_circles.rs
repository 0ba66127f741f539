//! No two files of the library import each other, directly or around a ring.
//!
//! The graph: one node per file of `src/` (the binary's `main.rs` aside: it only wires the
//! library), one edge for every path a file names that starts with `crate::`, `super::` or
//! `self::` — in `use` lines (groups in braces expanded) and in code — to the file that
//! holds the longest prefix of that path (`src/a/b.rs` or `src/a/b/mod.rs`). Comments do
//! not count. A `mod.rs` naming its children by relative paths (`pub use child::X`) makes
//! no edge: that is a module showing what it holds, not a dependency. Paths inside an
//! inline module (`mod tests { … }`, always at a file's end here) count from that module.
//!
//! A circle is reported with the files around it and the first line of each import, so a
//! failure says what to move.
#![allow(clippy::unwrap_used)]

use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One import: the file it points at, and where it was found.
struct Edge {
    to: PathBuf,
    line: usize,
}

#[test]
fn no_file_level_import_circles_in_src() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    files.retain(|f| f != &src.join("main.rs"));
    let mut graph: BTreeMap<PathBuf, BTreeMap<PathBuf, usize>> = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let rel = file.strip_prefix(&src).unwrap().to_path_buf();
        let mut out = BTreeMap::new();
        for e in imports(&src, &rel, &text) {
            if e.to != rel {
                out.entry(e.to).or_insert(e.line);
            }
        }
        graph.insert(rel, out);
    }
    let circles = circles(&graph);
    assert!(
        circles.is_empty(),
        "file-level import circles in src/ (move what both need to the lower file, or to a \
         small module of its own):\n{}",
        circles.join("\n")
    );
}

#[test]
fn a_circle_is_found() {
    let mut graph: BTreeMap<PathBuf, BTreeMap<PathBuf, usize>> = BTreeMap::new();
    let p = PathBuf::from;
    graph.insert(p("a.rs"), BTreeMap::from([(p("b.rs"), 1)]));
    graph.insert(p("b.rs"), BTreeMap::from([(p("c.rs"), 2)]));
    graph.insert(p("c.rs"), BTreeMap::from([(p("a.rs"), 3)]));
    graph.insert(p("d.rs"), BTreeMap::from([(p("a.rs"), 4)]));
    let found = circles(&graph);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("a.rs:1 -> b.rs:2 -> c.rs:3 -> a.rs"));
}

#[test]
fn paths_resolve_to_the_files_that_hold_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let text = "use super::driver::{Actor, Job};\nuse crate::{core::record::Record, view};\n\
                // crate::ui::overlay is only mentioned\nfn f() { crate::app::words::x(); }\n\
                #[cfg(test)]\nmod tests {\n    use super::helper;\n}\n";
    let mut found: Vec<PathBuf> = imports(&src, Path::new("actor/background.rs"), text)
        .into_iter()
        .map(|e| e.to)
        .collect();
    found.dedup();
    let p = PathBuf::from;
    assert_eq!(
        found,
        [
            p("actor/driver.rs"),
            p("core/record.rs"),
            p("view/mod.rs"),
            p("app/words/mod.rs"),
            p("actor/background.rs"),
        ]
    );
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
}

/// The module path of a file: `actor/driver.rs` is `[actor, driver]`, `actor/mod.rs` is
/// `[actor]`, `lib.rs` is `[]`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The code of a file without its comments (line comments; doc comments are lines too),
/// with line breaks kept so offsets still give line numbers.
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every import of one file, in order of appearance.
fn imports(src: &Path, rel: &Path, text: &str) -> Vec<Edge> {
    let code = strip_comments(text);
    let module = module_of(rel);
    // Where an inline module starts: paths after it count from one level deeper.
    let inline = Regex::new(r"(?m)^\s*(?:pub\s+)?mod\s+(\w+)\s*\{")
        .unwrap()
        .captures(&code)
        .map(|c| (c.get(0).unwrap().start(), c[1].to_string()));
    let from = |at: usize| {
        let mut m = module.clone();
        if let Some((start, name)) = &inline
            && at >= *start
        {
            m.push(name.clone());
        }
        m
    };
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut found: Vec<(usize, PathBuf)> = Vec::new();
    let uses = Regex::new(r"(?m)^\s*(?:pub(?:\([a-z]+\))?\s+)?use\s+([^;]+);").unwrap();
    let mut rest = code.clone();
    for c in uses.captures_iter(&code) {
        let at = c.get(1).unwrap().start();
        for path in expand(&c[1]) {
            if let Some(to) = resolve(src, &from(at), &path) {
                found.push((at, to));
            }
        }
        let span = c.get(0).unwrap().range();
        rest.replace_range(span.clone(), &" ".repeat(span.len()));
    }
    let inline_path = Regex::new(r"\b(?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+").unwrap();
    for m in inline_path.find_iter(&rest) {
        // Not a continuation of a longer path (`foo::super::x` is not ours).
        if rest[..m.start()].ends_with("::") {
            continue;
        }
        let path: Vec<String> = m.as_str().split("::").map(str::to_string).collect();
        if let Some(to) = resolve(src, &from(m.start()), &path) {
            found.push((m.start(), to));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    found
        .into_iter()
        .map(|(at, to)| Edge {
            to,
            line: line_of(at),
        })
        .collect()
}

/// The paths of one `use` tree: `crate::a::{b, c::{d, self}}` is `crate::a::b`,
/// `crate::a::c::d` and `crate::a::c`.
fn expand(tree: &str) -> Vec<Vec<String>> {
    // `x as y` names `x`.
    let tree = Regex::new(r"\s+as\s+\w+").unwrap().replace_all(tree, "");
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let tree = tree
        .trim_start_matches("pub(crate)")
        .trim_start_matches("pub(super)")
        .trim_start_matches("pub");
    let mut out = Vec::new();
    expand_into(&[], tree, &mut out);
    out
}

fn expand_into(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim_start_matches("::");
    match tree.find('{') {
        Some(open) => {
            let head = &tree[..open];
            let mut base = prefix.to_vec();
            base.extend(
                head.split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            );
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            for item in split_top(inner) {
                if item == "self" {
                    out.push(base.clone());
                } else if !item.is_empty() {
                    expand_into(&base, item, out);
                }
            }
        }
        None => {
            let mut full = prefix.to_vec();
            full.extend(
                tree.split("::")
                    .filter(|s| !s.is_empty() && *s != "self" && *s != "*")
                    .map(str::to_string),
            );
            out.push(full);
        }
    }
}

/// The items of a brace group, split at the commas outside inner groups.
fn split_top(inner: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
}

/// The file that holds `path` as seen from module `from`; `None` for paths outside the
/// crate (`std::…`, a dependency, a child named relatively).
fn resolve(src: &Path, from: &[String], path: &[String]) -> Option<PathBuf> {
    let mut module: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("super" | "self") => from.to_vec(),
        _ => return None,
    };
    let mut rest = &path[1..];
    if path[0] == "super" {
        module.pop();
    }
    while rest.first().is_some_and(|s| s == "super") {
        module.pop();
        rest = &rest[1..];
    }
    let mut candidate = module.clone();
    let file_of = |m: &[String]| -> Option<PathBuf> {
        if m.is_empty() {
            return Some(PathBuf::from("lib.rs"));
        }
        let joined: PathBuf = m.iter().collect();
        let as_file = joined.with_extension("rs");
        let as_dir = joined.join("mod.rs");
        if src.join(&as_file).is_file() {
            Some(as_file)
        } else if src.join(&as_dir).is_file() {
            Some(as_dir)
        } else {
            None
        }
    };
    // An inline module (`tests`) is not a file: its paths belong to the file around it.
    while !candidate.is_empty() && file_of(&candidate).is_none() {
        candidate.pop();
    }
    let mut best = file_of(&candidate);
    for seg in rest {
        candidate.push(seg.clone());
        match file_of(&candidate) {
            Some(f) => best = Some(f),
            None => break,
        }
    }
    best
}

/// Every elementary circle, each named once (from its smallest file), as
/// `a.rs:LINE -> b.rs:LINE -> a.rs` (the line of each import).
fn circles(graph: &BTreeMap<PathBuf, BTreeMap<PathBuf, usize>>) -> Vec<String> {
    let mut found = BTreeSet::new();
    for start in graph.keys() {
        let mut stack = vec![start.clone()];
        walk(graph, start, &mut stack, &mut found);
    }
    found.into_iter().collect()
}

fn walk(
    graph: &BTreeMap<PathBuf, BTreeMap<PathBuf, usize>>,
    start: &PathBuf,
    stack: &mut Vec<PathBuf>,
    found: &mut BTreeSet<String>,
) {
    let here = stack.last().unwrap().clone();
    let Some(next) = graph.get(&here) else {
        return;
    };
    for to in next.keys() {
        if to == start {
            let mut text = String::new();
            for (i, f) in stack.iter().enumerate() {
                let to = stack.get(i + 1).unwrap_or(start);
                let line = graph[f][to];
                text.push_str(&format!("{}:{line} -> ", f.display()));
            }
            text.push_str(&start.display().to_string());
            found.insert(text);
        } else if to > start && !stack.contains(to) && stack.len() < 8 {
            stack.push(to.clone());
            walk(graph, start, stack, found);
            stack.pop();
        }
    }
}
