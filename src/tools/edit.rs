//! The tools that write: `write_file` (create or replace) and `edit_file` (replace one
//! exact occurrence). Both show what will change before they run (the approval dialog)
//! and after (the result the model sees is short: what changed, in lines).
//!
//! A call is prepared on the actor without opening anything (a `stat`: a FIFO or a device
//! is refused before any dialog), then *loaded* off the actor — the file read (bounded),
//! the diff built (bounded, `diff.rs`) — and only then asked about and run.

use super::{Sandbox, ToolError, diff, fsio};
use serde::Deserialize;
use std::path::PathBuf;

/// Files larger than this are not edited (nor diffed); a write over one says its size.
const MAX_EDIT_BYTES: u64 = 4 << 20;

#[derive(Debug, Deserialize)]
pub struct WriteFileArgs {
    path: String,
    content: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WriteFile {
    pub path: PathBuf,
    content: String,
    /// The size of the file it replaces, if there is one.
    existing: Option<u64>,
    /// What will change, once loaded.
    preview: Option<String>,
}

fn lines(n: usize) -> String {
    if n == 1 {
        "1 line".into()
    } else {
        format!("{n} lines")
    }
}

impl WriteFile {
    pub fn prepare(a: WriteFileArgs, sb: &Sandbox) -> Result<WriteFile, ToolError> {
        let path = sb.resolve(&a.path)?;
        let shown = sb.show(&path);
        let existing = match fsio::check(&path, &shown)? {
            fsio::Kind::Dir => return Err(ToolError::Failed(format!("{shown} is a directory"))),
            fsio::Kind::File { len } => Some(len),
            fsio::Kind::Missing => None,
        };
        Ok(WriteFile {
            path,
            content: a.content,
            existing,
            preview: None,
        })
    }

    /// Read what it replaces and build the preview (blocking, bounded).
    pub fn load(&mut self, sb: &Sandbox) -> Result<(), ToolError> {
        let shown = sb.show(&self.path);
        let preview = match self.existing {
            None => format!(
                "create {shown} ({})\n{}",
                lines(self.content.lines().count()),
                diff::diff(&shown, "", &self.content).text
            ),
            Some(len) if len <= MAX_EDIT_BYTES => {
                let before = fsio::read_text(&self.path, &shown, MAX_EDIT_BYTES)?;
                format!(
                    "overwrite {shown}\n{}",
                    diff::diff(&shown, &before, &self.content).text
                )
            }
            Some(len) => format!(
                "overwrite {shown} ({len} bytes now; too large to show the change) with {}\n{}",
                lines(self.content.lines().count()),
                diff::diff(&shown, "", &self.content).text
            ),
        };
        self.preview = Some(preview);
        Ok(())
    }

    pub fn preview(&self, sb: &Sandbox) -> String {
        self.preview
            .clone()
            .unwrap_or_else(|| format!("write {}", sb.show(&self.path)))
    }

    pub fn run(self, sb: &Sandbox, umask: u32) -> Result<String, ToolError> {
        let shown = sb.show(&self.path);
        fsio::create_parents(&self.path, &shown, umask)?;
        // Resolved again: a link planted since the check must not be followed out.
        sb.resolve(&self.path.display().to_string())?;
        fsio::replace(&self.path, &shown, self.content.as_bytes(), umask)?;
        Ok(format!(
            "{} {shown}: {}, {} bytes",
            if self.existing.is_some() {
                "wrote"
            } else {
                "created"
            },
            lines(self.content.lines().count()),
            self.content.len()
        ))
    }
}

#[derive(Debug, Deserialize)]
pub struct EditFileArgs {
    path: String,
    old_text: String,
    new_text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EditFile {
    pub path: PathBuf,
    old_text: String,
    new_text: String,
    /// The file before and after, and the preview, once loaded.
    loaded: Option<(String, String, String)>,
}

impl EditFile {
    pub fn prepare(a: EditFileArgs, sb: &Sandbox) -> Result<EditFile, ToolError> {
        let path = sb.resolve(&a.path)?;
        let shown = sb.show(&path);
        match fsio::check(&path, &shown)? {
            fsio::Kind::Missing => {
                return Err(ToolError::Failed(format!(
                    "{shown} does not exist; use write_file to create it"
                )));
            }
            fsio::Kind::Dir => return Err(ToolError::Failed(format!("{shown} is a directory"))),
            fsio::Kind::File { len } if len > MAX_EDIT_BYTES => {
                return Err(ToolError::Failed(format!(
                    "{shown} is {len} bytes, too large to edit here"
                )));
            }
            fsio::Kind::File { .. } => {}
        }
        if a.old_text.is_empty() {
            return Err(ToolError::BadArgs("old_text is empty".into()));
        }
        Ok(EditFile {
            path,
            old_text: a.old_text,
            new_text: a.new_text,
            loaded: None,
        })
    }

    /// Read the file (bounded), find the one occurrence, build the preview (blocking).
    pub fn load(&mut self, sb: &Sandbox) -> Result<(), ToolError> {
        let shown = sb.show(&self.path);
        let before = fsio::read_text(&self.path, &shown, MAX_EDIT_BYTES)?;
        let found = before.matches(&self.old_text).count();
        if found != 1 {
            return Err(ToolError::Failed(format!(
                "old_text occurs {found} times in {shown}; it must occur exactly once (read the file and copy the text exactly, with more context if it repeats)"
            )));
        }
        let after = before.replacen(&self.old_text, &self.new_text, 1);
        let preview = format!("edit {shown}\n{}", diff::diff(&shown, &before, &after).text);
        self.loaded = Some((before, after, preview));
        Ok(())
    }

    pub fn preview(&self, sb: &Sandbox) -> String {
        match &self.loaded {
            Some((_, _, p)) => p.clone(),
            None => format!("edit {}", sb.show(&self.path)),
        }
    }

    pub fn run(mut self, sb: &Sandbox, umask: u32) -> Result<String, ToolError> {
        let shown = sb.show(&self.path);
        if self.loaded.is_none() {
            self.load(sb)?;
        }
        let Some((before, after, _)) = self.loaded else {
            return Err(ToolError::Failed(format!("{shown} could not be read")));
        };
        // The file must still be what the diff was made from.
        let now = fsio::read_text(&self.path, &shown, MAX_EDIT_BYTES)?;
        if now != before {
            return Err(ToolError::Failed(format!(
                "{shown} changed since the edit was prepared; read it again"
            )));
        }
        fsio::replace(&self.path, &shown, after.as_bytes(), umask)?;
        let d = diff::diff(&shown, &before, &after);
        let (added, removed) = d.counts.unwrap_or((0, 0));
        Ok(format!(
            "edited {shown}: +{added} −{removed} lines\n{}",
            d.text
        ))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn edit_replaces_one_exact_occurrence_and_shows_the_diff() {
        let d = tempfile::tempdir().unwrap();
        let sb = Sandbox::new(d.path()).unwrap();
        std::fs::write(d.path().join("a.txt"), "port = 80\nhost = x\n").unwrap();
        let mut e = EditFile::prepare(
            EditFileArgs {
                path: "a.txt".into(),
                old_text: "port = 80".into(),
                new_text: "port = 8080".into(),
            },
            &sb,
        )
        .unwrap();
        e.load(&sb).unwrap();
        let preview = e.preview(&sb);
        assert!(
            preview.contains("-port = 80") && preview.contains("+port = 8080"),
            "{preview}"
        );
        let out = e.run(&sb, 0o022).unwrap();
        assert!(out.starts_with("edited a.txt: +1 −1"), "{out}");
        assert_eq!(
            std::fs::read_to_string(d.path().join("a.txt")).unwrap(),
            "port = 8080\nhost = x\n"
        );
        let mut twice = EditFile::prepare(
            EditFileArgs {
                path: "a.txt".into(),
                old_text: "=".into(),
                new_text: ":".into(),
            },
            &sb,
        )
        .unwrap();
        assert!(twice.load(&sb).unwrap_err().to_string().contains("2 times"));
    }

    #[test]
    fn an_edit_prepared_on_an_older_file_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let sb = Sandbox::new(d.path()).unwrap();
        std::fs::write(d.path().join("a.txt"), "one\n").unwrap();
        let mut e = EditFile::prepare(
            EditFileArgs {
                path: "a.txt".into(),
                old_text: "one".into(),
                new_text: "two".into(),
            },
            &sb,
        )
        .unwrap();
        e.load(&sb).unwrap();
        std::fs::write(d.path().join("a.txt"), "changed\n").unwrap();
        assert!(
            e.run(&sb, 0o022)
                .unwrap_err()
                .to_string()
                .contains("changed since")
        );
    }

    #[test]
    fn write_creates_folders_and_previews_new_files() {
        let d = tempfile::tempdir().unwrap();
        let sb = Sandbox::new(d.path()).unwrap();
        let mut w = WriteFile::prepare(
            WriteFileArgs {
                path: "new/dir/f.txt".into(),
                content: "hi\n".into(),
            },
            &sb,
        )
        .unwrap();
        w.load(&sb).unwrap();
        assert!(w.preview(&sb).starts_with("create new/dir/f.txt (1 line)"));
        assert!(
            w.run(&sb, 0o022)
                .unwrap()
                .starts_with("created new/dir/f.txt")
        );
        assert_eq!(
            std::fs::read_to_string(d.path().join("new/dir/f.txt")).unwrap(),
            "hi\n"
        );
    }
}
