//! No two files of the library import each other, directly or around a ring — except a
//! module's own files: ARCHITECTURE.md ("One module in several files") says why.
//!
//! The graph: one node per file of `src/` (the binary's `main.rs` aside: it only wires the
//! library), one edge for every path a file names that starts with `crate::`, `super::`,
//! `self::` or the name of one of its child modules (`keymap::Keymap`) — in `use` lines
//! (groups in braces expanded) and in code — to the file that holds the longest prefix of
//! that path (`src/a/b.rs` or `src/a/b/mod.rs`). Comments do not count. A `pub use` of a
//! child shows what a module holds and makes no edge. Paths inside an inline module
//! (`mod tests { … }`, always at a file's end here) count from that module.
//!
//! A parent (`a/mod.rs`, `lib.rs`) and a file of its own module (`a/b.rs`, `a/b/mod.rs`)
//! may name each other: a type whose methods are spread over its module's files (`impl
//! App` in `app/intent.rs`) holds its parts as fields (`app/goal_panel.rs`). Every other
//! edge counts: siblings, cousins and layers may not go round.
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
            if e.to != rel && !parent_and_child(&rel, &e.to) {
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
        // `pub use child::X` shows what a module holds: no edge. Any other path to a child
        // (a private `use child::X`, `child::f()` in code) is a dependency like any other.
        let reexport = c.get(0).unwrap().as_str().trim_start().starts_with("pub");
        for path in expand(&c[1]) {
            let path = if reexport {
                path
            } else {
                rooted(src, &from(at), path)
            };
            if let Some(to) = resolve(src, &from(at), &path) {
                found.push((at, to));
            }
        }
        let span = c.get(0).unwrap().range();
        rest.replace_range(span.clone(), &" ".repeat(span.len()));
    }
    let inline_path = Regex::new(r"\b[a-z_][a-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+").unwrap();
    for m in inline_path.find_iter(&rest) {
        // Not a continuation of a longer path (`foo::super::x` is not ours).
        if rest[..m.start()].ends_with("::") {
            continue;
        }
        let path: Vec<String> = m.as_str().split("::").map(str::to_string).collect();
        let path = rooted(src, &from(m.start()), path);
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

/// `path` from `from`'s point of view: a path that starts with a child module of `from`
/// (`keymap::Keymap`) is `self::keymap::Keymap`; any other stays as it is.
fn rooted(src: &Path, from: &[String], path: Vec<String>) -> Vec<String> {
    let Some(first) = path.first() else {
        return path;
    };
    if ["crate", "super", "self"].contains(&first.as_str()) {
        return path;
    }
    let child: PathBuf = from.iter().chain(std::iter::once(first)).collect();
    if src.join(child.with_extension("rs")).is_file() || src.join(child.join("mod.rs")).is_file() {
        let mut rooted = vec!["self".to_string()];
        rooted.extend(path);
        rooted
    } else {
        path
    }
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

/// A `mod.rs` (or `lib.rs`) and a file of its own module, either way round.
fn parent_and_child(a: &Path, b: &Path) -> bool {
    parent_of(a).as_deref() == Some(b) || parent_of(b).as_deref() == Some(a)
}

/// The file of the module that declares `file`'s module: `app/intent.rs` →
/// `app/mod.rs`, `app/commands/mod.rs` → `app/mod.rs`, `app/mod.rs` → `lib.rs`.
fn parent_of(file: &Path) -> Option<PathBuf> {
    let module = module_of(file);
    let up = module.split_last()?.1;
    Some(if up.is_empty() {
        PathBuf::from("lib.rs")
    } else {
        up.iter().collect::<PathBuf>().join("mod.rs")
    })
}

#[test]
fn a_module_and_its_own_files_may_name_each_other_and_nothing_else() {
    let p = Path::new;
    assert!(parent_and_child(p("app/intent.rs"), p("app/mod.rs")));
    assert!(parent_and_child(p("app/mod.rs"), p("app/commands/mod.rs")));
    assert!(parent_and_child(p("lib.rs"), p("core/mod.rs")));
    assert!(!parent_and_child(p("app/intent.rs"), p("app/keymap.rs")));
    assert!(!parent_and_child(
        p("app/mod.rs"),
        p("app/commands/args.rs")
    ));
    assert!(!parent_and_child(
        p("actor/mod.rs"),
        p("core/engine/mod.rs")
    ));
}

#[test]
fn a_child_named_without_crate_or_super_is_an_import() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let text = "use keymap::Keymap;\npub use intent::Intent;\nfn f() { overlays::open(); }\n";
    let found: Vec<PathBuf> = imports(&src, Path::new("app/mod.rs"), text)
        .into_iter()
        .map(|e| e.to)
        .collect();
    assert_eq!(
        found,
        [
            PathBuf::from("app/keymap.rs"),
            PathBuf::from("app/overlays.rs")
        ]
    );
}
