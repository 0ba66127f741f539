//! The manual is whole: every file in `assets/manual/` is a topic `help` finds, and every
//! topic is a file there, so a section moved out of the README cannot be left unreachable
//! and a topic cannot point at nothing. The README stays short, starts with the two
//! commands a fresh machine needs, and names every topic.

use super::source;
use ollm_tui::manual::TOPICS;
use std::collections::BTreeSet;

/// The names of the Markdown files in `assets/manual/`, without `.md`.
fn files() -> BTreeSet<String> {
    let dir = source::root().join("assets/manual");
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".md").map(str::to_owned)
        })
        .collect()
}

#[test]
fn every_manual_file_is_a_topic_and_every_topic_a_file() {
    let files = files();
    let topics: BTreeSet<String> = TOPICS.iter().map(|t| t.name.to_owned()).collect();
    let unlisted: Vec<_> = files.difference(&topics).collect();
    let missing: Vec<_> = topics.difference(&files).collect();
    assert!(
        unlisted.is_empty() && missing.is_empty(),
        "assets/manual/ files that are no topic in src/manual.rs: {unlisted:?}; \
         topics without a file: {missing:?}"
    );
    for topic in TOPICS {
        let path = source::root().join(format!("assets/manual/{}.md", topic.name));
        let on_disk = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            topic.text,
            on_disk,
            "topic {} is not built from {}",
            topic.name,
            path.display()
        );
    }
}

/// The most lines the README may have: a newcomer reads it whole (#37 item 7). What does
/// not fit is a topic of the manual.
const README_MAX_LINES: usize = 350;

fn readme() -> String {
    std::fs::read_to_string(source::root().join("README.md")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_readme_is_short_and_names_every_topic_of_the_manual() {
    let readme = readme();
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, over {README_MAX_LINES}: move a section into \
         assets/manual/"
    );
    for topic in TOPICS {
        let command = format!("ollm-tui help {}", topic.name);
        assert!(
            readme.contains(&command),
            "README.md never says `{command}`"
        );
    }
}

#[test]
fn the_readme_starts_with_the_two_commands_a_fresh_machine_needs() {
    let readme = readme();
    let first_block: String = readme
        .split("```")
        .nth(1)
        .unwrap_or_else(|| panic!("README.md has no code block"))
        .to_owned();
    let test = "cargo test --all-targets --locked";
    assert!(
        first_block.contains("cargo run --release --") && first_block.contains(test),
        "README.md's first block is not build-and-run and the tests:\n{first_block}"
    );
    let ci =
        std::fs::read_to_string(source::root().join(".ci/run")).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        ci.contains(test),
        ".ci/run no longer runs the README's test command"
    );
}
