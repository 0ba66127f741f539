//! The tools that write: `write_file` (create or replace) and `edit_file` (replace one
//! exact occurrence). Both show a unified diff before they run (the approval dialog) and
//! after (the result the model sees is short: what changed, in lines).

use super::{Sandbox, ToolError};
use serde::Deserialize;
use similar::TextDiff;
use std::path::PathBuf;

/// Files larger than this are not edited (nor diffed).
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
    before: Option<String>,
}

fn read_existing(path: &std::path::Path, shown: &str) -> Result<Option<String>, ToolError> {
    match std::fs::metadata(path) {
        Err(_) => Ok(None),
        Ok(m) if m.is_dir() => Err(ToolError::Failed(format!("{shown} is a directory"))),
        Ok(m) if m.len() > MAX_EDIT_BYTES => Err(ToolError::Failed(format!(
            "{shown} is {} bytes, too large to edit here",
            m.len()
        ))),
        Ok(_) => std::fs::read_to_string(path)
            .map(Some)
            .map_err(|e| ToolError::Failed(format!("cannot read {shown} as text: {e}"))),
    }
}

fn diff(shown: &str, before: &str, after: &str) -> String {
    TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(2)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string()
}

impl WriteFile {
    pub fn prepare(a: WriteFileArgs, sb: &Sandbox) -> Result<WriteFile, ToolError> {
        let path = sb.resolve(&a.path)?;
        let before = read_existing(&path, &sb.show(&path))?;
        Ok(WriteFile {
            path,
            content: a.content,
            before,
        })
    }

    pub fn preview(&self, sb: &Sandbox) -> String {
        let shown = sb.show(&self.path);
        match &self.before {
            None => format!(
                "create {shown} ({} lines)\n{}",
                self.content.lines().count(),
                diff(&shown, "", &self.content)
            ),
            Some(before) => format!("overwrite {shown}\n{}", diff(&shown, before, &self.content)),
        }
    }

    pub fn run(self, sb: &Sandbox) -> Result<String, ToolError> {
        let shown = sb.show(&self.path);
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| {
                ToolError::Failed(format!("cannot create the folder of {shown}: {e}"))
            })?;
        }
        // Resolved again: a link planted since the check must not be followed out.
        sb.resolve(&self.path.display().to_string())?;
        std::fs::write(&self.path, &self.content)
            .map_err(|e| ToolError::Failed(format!("cannot write {shown}: {e}")))?;
        Ok(format!(
            "{} {shown}: {} lines, {} bytes",
            if self.before.is_some() {
                "wrote"
            } else {
                "created"
            },
            self.content.lines().count(),
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
    before: String,
    after: String,
}

impl EditFile {
    pub fn prepare(a: EditFileArgs, sb: &Sandbox) -> Result<EditFile, ToolError> {
        let path = sb.resolve(&a.path)?;
        let shown = sb.show(&path);
        let Some(before) = read_existing(&path, &shown)? else {
            return Err(ToolError::Failed(format!(
                "{shown} does not exist; use write_file to create it"
            )));
        };
        if a.old_text.is_empty() {
            return Err(ToolError::BadArgs("old_text is empty".into()));
        }
        let found = before.matches(&a.old_text).count();
        if found != 1 {
            return Err(ToolError::Failed(format!(
                "old_text occurs {found} times in {shown}; it must occur exactly once (read the file and copy the text exactly, with more context if it repeats)"
            )));
        }
        let after = before.replacen(&a.old_text, &a.new_text, 1);
        Ok(EditFile {
            path,
            before,
            after,
        })
    }

    pub fn preview(&self, sb: &Sandbox) -> String {
        let shown = sb.show(&self.path);
        format!("edit {shown}\n{}", diff(&shown, &self.before, &self.after))
    }

    pub fn run(self, sb: &Sandbox) -> Result<String, ToolError> {
        let shown = sb.show(&self.path);
        // The file must still be what the diff was made from.
        let now = std::fs::read_to_string(&self.path)
            .map_err(|e| ToolError::Failed(format!("cannot read {shown}: {e}")))?;
        if now != self.before {
            return Err(ToolError::Failed(format!(
                "{shown} changed since the edit was prepared; read it again"
            )));
        }
        std::fs::write(&self.path, &self.after)
            .map_err(|e| ToolError::Failed(format!("cannot write {shown}: {e}")))?;
        let d = diff(&shown, &self.before, &self.after);
        let added = d
            .lines()
            .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
            .count();
        let removed = d
            .lines()
            .filter(|l| l.starts_with('-') && !l.starts_with("---"))
            .count();
        Ok(format!("edited {shown}: +{added} −{removed} lines\n{d}"))
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
        let e = EditFile::prepare(
            EditFileArgs {
                path: "a.txt".into(),
                old_text: "port = 80".into(),
                new_text: "port = 8080".into(),
            },
            &sb,
        )
        .unwrap();
        let preview = e.preview(&sb);
        assert!(
            preview.contains("-port = 80") && preview.contains("+port = 8080"),
            "{preview}"
        );
        let out = e.run(&sb).unwrap();
        assert!(out.starts_with("edited a.txt: +1 −1"), "{out}");
        assert_eq!(
            std::fs::read_to_string(d.path().join("a.txt")).unwrap(),
            "port = 8080\nhost = x\n"
        );
        let twice = EditFile::prepare(
            EditFileArgs {
                path: "a.txt".into(),
                old_text: "=".into(),
                new_text: ":".into(),
            },
            &sb,
        );
        assert!(twice.unwrap_err().to_string().contains("2 times"));
    }

    #[test]
    fn an_edit_prepared_on_an_older_file_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let sb = Sandbox::new(d.path()).unwrap();
        std::fs::write(d.path().join("a.txt"), "one\n").unwrap();
        let e = EditFile::prepare(
            EditFileArgs {
                path: "a.txt".into(),
                old_text: "one".into(),
                new_text: "two".into(),
            },
            &sb,
        )
        .unwrap();
        std::fs::write(d.path().join("a.txt"), "changed\n").unwrap();
        assert!(
            e.run(&sb)
                .unwrap_err()
                .to_string()
                .contains("changed since")
        );
    }

    #[test]
    fn write_creates_folders_and_previews_new_files() {
        let d = tempfile::tempdir().unwrap();
        let sb = Sandbox::new(d.path()).unwrap();
        let w = WriteFile::prepare(
            WriteFileArgs {
                path: "new/dir/f.txt".into(),
                content: "hi\n".into(),
            },
            &sb,
        )
        .unwrap();
        assert!(w.preview(&sb).starts_with("create new/dir/f.txt (1 lines)"));
        assert!(w.run(&sb).unwrap().starts_with("created new/dir/f.txt"));
        assert_eq!(
            std::fs::read_to_string(d.path().join("new/dir/f.txt")).unwrap(),
            "hi\n"
        );
    }
}
