//! The layers the build keeps. The rule is ARCHITECTURE.md's table "Layers: what may
//! import what", read from the document itself, so the map and the check cannot say two
//! things: a file in a layer may name, under `crate::` (in `main.rs`, `ollm_tui::`), its
//! own layer and the layers its row lists in backticks under "may import" — nothing else.
//! A crate in backticks under "never" (`tokio`) may not be named either. The crates a
//! layer uses are held the same way: a file may name (`tokio::…`, `use serde::…`) only the
//! crates of `Cargo.toml`'s `[dependencies]` (and `std`) its row lists in backticks under
//! "may import" (its tests, `#[cfg(test)]`, are not the layer's use). Both ways: a layer of
//! ours or a crate a row lists under "may import" must be named by one of the row's files,
//! or the row says more than the code; a word there that is neither is a row to fix. The
//! binary's
//! parts (`src/binary/`, declared by `main.rs`) are ruled as `main.rs`. The benchmark
//! (`benches/fidelity/`, outside the library) is the row `fidelity`, and names the library
//! as `ollm_tui::`.

use super::source::{self, Named};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Imports the table forbids that are being removed on another branch: (file, layer it
/// imports). Each line names the change that removes it; delete the line when that change
/// is merged (the test then fails if the import is still there).
const KNOWN_EXCEPTIONS: &[(&str, &str)] = &[];

/// One row of the table: the layers it is about, what they may and may never import.
#[derive(Debug)]
pub struct Row {
    pub layers: Vec<String>,
    pub may: Vec<String>,
    pub never: Vec<String>,
}

/// The rows of the table under `heading` in `doc`: each cell's backticked words.
pub fn table(doc: &str, heading: &str) -> Vec<Row> {
    let mut lines = doc.lines().skip_while(|l| l.trim() != heading).skip(1);
    let rows = lines
        .by_ref()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'));
    rows.skip(2) // the header and its rule
        .map(|l| {
            let cells: Vec<Vec<String>> = l.trim_matches('|').split('|').map(ticked).collect();
            assert_eq!(cells.len(), 3, "a layer row has three cells: {l}");
            Row {
                layers: cells[0].clone(),
                may: cells[1].clone(),
                never: cells[2].clone(),
            }
        })
        .collect()
}

/// The words in backticks in `cell`.
fn ticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The binary's parts: modules of `main.rs`, not of the library, so ruled as it is and
/// naming the library as `ollm_tui::` as it does.
const BINARY_PARTS: &str = "binary";

/// The layer a file under `src/` belongs to: its first folder, or the file itself for a
/// file at the top (`main.rs`, `lib.rs`); `main.rs` for the binary's parts.
fn layer_of(rel: &Path) -> String {
    let mut parts = rel.components().skip(1); // "src"
    let first = parts
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    let first = first.unwrap_or_default();
    match parts.next() {
        Some(_) if first == BINARY_PARTS => "main.rs".to_owned(),
        Some(_) => first,
        None if first == "main.rs" => first,
        None => first.trim_end_matches(".rs").to_owned(),
    }
}

/// The top-level modules `src/lib.rs` declares: the layers there are.
fn declared_layers(root: &Path) -> Vec<String> {
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap_or_else(|e| panic!("{e}"));
    source::code_only(&lib)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').trim().to_owned())
        .collect()
}

/// What the table allows each layer: the layer → (may import, never).
fn rules(rows: &[Row]) -> BTreeMap<String, (Vec<String>, Vec<String>)> {
    let mut out = BTreeMap::new();
    for row in rows {
        for layer in &row.layers {
            let clash: Vec<_> = row.may.iter().filter(|m| row.never.contains(m)).collect();
            assert!(
                clash.is_empty(),
                "`{layer}` both may and never import {clash:?}"
            );
            let before = out.insert(layer.clone(), (row.may.clone(), row.never.clone()));
            assert!(
                before.is_none(),
                "`{layer}` has two rows in the layer table"
            );
        }
    }
    out
}

/// The crates a file may name: `std` and `Cargo.toml`'s `[dependencies]`, as code names
/// them (`tiktoken-rs` is `tiktoken_rs`).
fn crates(root: &Path) -> Vec<String> {
    let manifest =
        std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_else(|e| panic!("{e}"));
    let mut out = vec!["std".to_owned()];
    out.extend(
        manifest
            .lines()
            .skip_while(|l| l.trim() != "[dependencies]")
            .skip(1)
            .take_while(|l| !l.trim_start().starts_with('['))
            .filter(|l| !l.trim_start().starts_with('#'))
            .filter_map(|l| l.split_once('='))
            .map(|(name, _)| name.trim().replace('-', "_"))
            .filter(|name| !name.is_empty()),
    );
    out
}

/// `code` (blanked by `code_only`) without its test items: each `#[cfg(test)]` and the
/// item after it, up to its `;` or its matching `}`, replaced by spaces (lines kept).
fn without_tests(code: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = code.as_bytes().to_vec();
    let mut from = 0;
    while let Some(n) = code[from..].find(MARK) {
        let at = from + n;
        let b = code.as_bytes();
        let mut end = at + MARK.len();
        let mut depth = 0usize;
        while end < b.len() {
            match b[end] {
                b';' if depth == 0 => break,
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            end += 1;
        }
        let end = (end + 1).min(b.len());
        for c in &mut out[at..end] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
        from = end;
    }
    String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"))
}

/// The benchmark's folder: not in the library, but in the table, as the layer `fidelity`.
const BENCHMARK: &str = "benches/fidelity";

/// Every file the table rules: its path, its layer, and the root it names the library by.
fn ruled_files(root: &Path) -> Vec<(PathBuf, String, &'static str)> {
    let mut out = Vec::new();
    for file in source::rust_files(&root.join("src")) {
        let layer = layer_of(file.strip_prefix(root).unwrap_or(&file));
        if layer == "lib" {
            continue; // it only declares the modules
        }
        let by = if layer == "main.rs" {
            "ollm_tui"
        } else {
            "crate"
        };
        out.push((file, layer, by));
    }
    for file in source::rust_files(&root.join(BENCHMARK)) {
        out.push((file, "fidelity".to_owned(), "ollm_tui"));
    }
    out
}

/// Every import in `src/` and the benchmark the table forbids, as "file:line: rule"
/// sentences.
pub fn violations(root: &Path, doc: &str) -> Vec<String> {
    let rows = table(doc, "## Layers: what may import what");
    let rules = rules(&rows);
    // What each layer does import, to hold the table's "may" against.
    let mut used: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    let layers = declared_layers(root);
    let crates = crates(root);
    let mut out = Vec::new();
    let extra = ["main.rs".to_owned(), "fidelity".to_owned()];
    for layer in layers.iter().chain(&extra) {
        if !rules.contains_key(layer) {
            out.push(format!(
                "ARCHITECTURE.md: `{layer}` has no row in the layer table"
            ));
        }
    }
    for (file, layer, root_name) in ruled_files(root) {
        let rel = file.strip_prefix(root).unwrap_or(&file);
        let Some((may, never)) = rules.get(&layer) else {
            out.push(format!(
                "{}: layer `{layer}` is not in the table",
                rel.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
        let code = source::code_only(&text);
        for Named { line, module } in source::named_under(&code, root_name) {
            used.entry(layer.clone())
                .or_default()
                .insert(module.clone());
            let known = KNOWN_EXCEPTIONS.contains(&(&*rel.to_string_lossy(), &*module));
            if layers.contains(&module) && module != layer && !may.contains(&module) && !known {
                out.push(format!(
                    "{}:{line}: `{layer}` imports `{module}`, which the layer table does not allow \
                     (may import: {may:?})",
                    rel.display()
                ));
            }
        }
        let used_code = without_tests(&code);
        // A module of the file's own (`mod image;`) shadows a crate of its name.
        let own_modules: Vec<&str> = code
            .lines()
            .filter_map(|l| {
                let l = l
                    .trim()
                    .trim_start_matches("pub ")
                    .trim_start_matches("pub(crate) ");
                l.strip_prefix("mod ")?.strip_suffix(';')
            })
            .collect();
        for krate in crates.iter().filter(|k| !own_modules.contains(&k.as_str())) {
            for Named { line, .. } in source::named_under(&used_code, krate) {
                used.entry(layer.clone()).or_default().insert(krate.clone());
                if !may.contains(krate) {
                    out.push(format!(
                        "{}:{line}: `{layer}` names the crate `{krate}`, which its row in the \
                         layer table does not list (may import: {may:?})",
                        rel.display()
                    ));
                }
            }
        }
        for krate in never.iter().filter(|n| !layers.contains(n)) {
            for Named { line, .. } in source::named_under(&code, krate) {
                out.push(format!(
                    "{}:{line}: `{layer}` names `{krate}`, which the layer table forbids it",
                    rel.display()
                ));
            }
        }
    }
    // The other way: a layer of ours the row lets its files import, and none does, is a
    // row that says more than the code (the map would lie about what leans on what).
    for row in &rows {
        for word in row.may.iter() {
            if !layers.contains(word) && !crates.contains(word) {
                out.push(format!(
                    "ARCHITECTURE.md: the row of {:?} may import `{word}`, which is neither a \
                     layer of ours nor a crate of Cargo.toml's [dependencies]",
                    row.layers
                ));
            }
        }
        for module in row
            .may
            .iter()
            .filter(|m| layers.contains(m) || crates.contains(m))
        {
            let imported = row
                .layers
                .iter()
                .any(|l| used.get(l).is_some_and(|u| u.contains(module)));
            if !imported {
                out.push(format!(
                    "ARCHITECTURE.md: the row of {:?} may import `{module}`, which none of its \
                     files does: take it out of the row",
                    row.layers
                ));
            }
        }
    }
    // An exception whose import is gone is a line to delete, not a licence to keep.
    for (file, module) in KNOWN_EXCEPTIONS {
        let text = std::fs::read_to_string(root.join(file)).unwrap_or_default();
        let named = source::named_under(&source::code_only(&text), "crate");
        if !named.iter().any(|n| n.module == *module) {
            out.push(format!(
                "tests/tidy/layers.rs: the known exception {file} → `{module}` is fixed; delete it"
            ));
        }
    }
    out
}

#[test]
fn imports_keep_the_layer_table() {
    let root = source::root();
    let doc =
        std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap_or_else(|e| panic!("{e}"));
    let found = violations(root, &doc);
    assert!(
        found.is_empty(),
        "imports the layers forbid:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_forbidden_import_is_named_with_its_file_line_and_rule() {
    // The real tree, against a table in which `view` may import only `core`: its notices'
    // `llm` error types become violations.
    let root = source::root();
    let doc =
        std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap_or_else(|e| panic!("{e}"));
    let stricter = doc.replace("| `view` | `core`, `llm`", "| `view` | `core`, llm");
    assert_ne!(
        stricter, doc,
        "the test's edit of the view row still applies"
    );
    let found = violations(root, &stricter);
    assert!(
        found
            .iter()
            .any(|v| v.starts_with("src/view/notice.rs:") && v.contains("`view` imports `llm`")),
        "{found:#?}"
    );
}

#[test]
fn every_layer_has_a_row() {
    let root = source::root();
    let doc =
        std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap_or_else(|e| panic!("{e}"));
    let without_config = doc.replace("| `config` |", "| config |");
    assert_ne!(without_config, doc);
    let found = violations(root, &without_config);
    assert!(
        found.iter().any(|v| v.contains("`config` has no row")),
        "{found:#?}"
    );
}

#[test]
fn the_benchmark_is_ruled_too() {
    let root = source::root();
    let doc =
        std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap_or_else(|e| panic!("{e}"));
    let row = "| `fidelity` (`benches/fidelity/`, not in the library) | the library's public items: `core`, `llm`, `store`, `tools`, `view`, `actor`";
    assert!(
        doc.contains(row),
        "the test's edit of the benchmark row still applies"
    );
    let without_actor = doc.replace(row, &row.replace(", `actor`", ""));
    let found = violations(root, &without_actor);
    assert!(
        found.iter().any(|v| v.starts_with("benches/fidelity/")
            && v.contains("`fidelity` imports `actor`")),
        "{found:#?}"
    );
}

#[test]
fn the_binarys_parts_are_ruled_as_main_rs() {
    let root = source::root();
    let doc =
        std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap_or_else(|e| panic!("{e}"));
    let row = "| `main.rs` and its parts (`src/binary/`) | everything: `core`, `llm`, `store`, `tools`, `view`, `actor`, `ui`, `config`, `launch`, `app`,";
    assert!(
        doc.contains(row),
        "the test's edit of the binary's row still applies"
    );
    let without_app = doc.replace(row, &row.replace(" `app`,", ""));
    let found = violations(root, &without_app);
    assert!(
        found
            .iter()
            .any(|v| v.starts_with("src/binary/chat.rs:") && v.contains("`main.rs` imports `app`")),
        "{found:#?}"
    );
}

#[test]
fn a_row_that_allows_more_than_its_files_import_is_named() {
    let root = source::root();
    let doc =
        std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap_or_else(|e| panic!("{e}"));
    let looser = doc.replace(
        "| `view` | `core`, `llm`",
        "| `view` | `core`, `llm`, `small_file`",
    );
    assert_ne!(looser, doc, "the test's edit of the view row still applies");
    let found = violations(root, &looser);
    assert!(
        found
            .iter()
            .any(|v| v.contains("may import `small_file`, which none of its files does")),
        "{found:#?}"
    );
}

#[test]
fn a_crate_a_layer_names_and_its_row_does_not_list_is_named() {
    // The view row without `chrono`: the notices' times become violations.
    let root = source::root();
    let doc =
        std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap_or_else(|e| panic!("{e}"));
    let row = doc
        .lines()
        .find(|l| l.starts_with("| `view` |"))
        .unwrap_or_else(|| panic!("the view row"));
    assert!(
        row.contains(", `chrono`"),
        "the test's edit of the view row still applies"
    );
    let stricter = doc.replace(row, &row.replace(", `chrono`", ""));
    let found = violations(root, &stricter);
    assert!(
        found.iter().any(|v| v.starts_with("src/view/")
            && v.contains("`view` names the crate `chrono`, which its row")),
        "{found:#?}"
    );
}

#[test]
fn a_crate_a_row_lists_and_none_of_its_files_names_is_named() {
    let root = source::root();
    let doc =
        std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap_or_else(|e| panic!("{e}"));
    let looser = doc.replace(
        "| `view` | `core`, `llm`",
        "| `view` | `core`, `llm`, `reqwest`, `nonesuch`",
    );
    assert_ne!(looser, doc, "the test's edit of the view row still applies");
    let found = violations(root, &looser);
    assert!(
        found
            .iter()
            .any(|v| v.contains("may import `reqwest`, which none of its files does")),
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .any(|v| v.contains("`nonesuch`, which is neither a layer of ours nor a crate")),
        "{found:#?}"
    );
}

#[test]
fn a_test_is_not_the_layers_use() {
    let code = "use a::b;\n#[cfg(test)]\nmod tests {\n    use tempfile::x;\n    fn f() { g() }\n}\nuse c::d;\n";
    let kept = without_tests(code);
    assert!(
        kept.contains("use a::b;") && kept.contains("use c::d;"),
        "{kept}"
    );
    assert!(!kept.contains("tempfile"), "{kept}");
    assert_eq!(kept.lines().count(), code.lines().count(), "lines kept");
}
