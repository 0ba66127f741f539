//! The manual is whole: every file in `assets/manual/` is a topic `help` finds, and every
//! topic is a file there, so a section moved out of the README cannot be left unreachable
//! and a topic cannot point at nothing.

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
