//! Paths a tool may touch: inside the working directory, and nowhere else.
//!
//! A model's path is resolved against the working directory; `..` that climbs out, an
//! absolute path elsewhere, and a symlink whose target lies outside are all refused. The
//! check canonicalizes the longest part of the path that exists, so a link anywhere along
//! it is followed before the comparison, and a file not yet created is judged by the
//! directory it would be created in.

use super::ToolError;
use std::path::{Component, Path, PathBuf};

/// The directory tools work in (canonical, so comparisons see through links).
#[derive(Debug, Clone)]
pub struct Sandbox {
    root: PathBuf,
}

impl Sandbox {
    pub fn new(root: &Path) -> std::io::Result<Sandbox> {
        Ok(Sandbox {
            root: root.canonicalize()?,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The absolute path `path` names, if it lies inside the working directory.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let trimmed = path.trim();
        if trimmed.is_empty() {
            return Err(ToolError::BadArgs("the path is empty".into()));
        }
        let outside = || ToolError::Outside {
            path: trimmed.to_string(),
            root: self.root.display().to_string(),
        };
        let joined = if Path::new(trimmed).is_absolute() {
            PathBuf::from(trimmed)
        } else {
            self.root.join(trimmed)
        };
        // Lexical first: `a/../../b` is outside even if nothing of it exists.
        let mut normal = PathBuf::new();
        for c in joined.components() {
            match c {
                Component::ParentDir => {
                    if !normal.pop() {
                        return Err(outside());
                    }
                }
                Component::CurDir => {}
                other => normal.push(other),
            }
        }
        if !normal.starts_with(&self.root) {
            return Err(outside());
        }
        // Then through links: canonicalize what exists of it.
        let mut existing = normal.as_path();
        let mut rest = Vec::new();
        let real = loop {
            match existing.canonicalize() {
                Ok(real) => break real,
                Err(_) => match (existing.parent(), existing.file_name()) {
                    (Some(parent), Some(name)) => {
                        rest.push(name.to_owned());
                        existing = parent;
                    }
                    _ => return Err(outside()),
                },
            }
        };
        if !real.starts_with(&self.root) {
            return Err(outside());
        }
        Ok(rest.into_iter().rev().fold(real, |p, name| p.join(name)))
    }

    /// `path` as the model should see it: relative to the working directory.
    pub fn show(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        let s = rel.display().to_string();
        if s.is_empty() { ".".into() } else { s }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn sandbox() -> (tempfile::TempDir, Sandbox) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "fn main() {}").unwrap();
        let sb = Sandbox::new(dir.path()).unwrap();
        (dir, sb)
    }

    #[test]
    fn paths_inside_resolve() {
        let (_d, sb) = sandbox();
        let p = sb.resolve("src/main.rs").unwrap();
        assert!(p.ends_with("src/main.rs"));
        assert_eq!(sb.show(&p), "src/main.rs");
        assert!(
            sb.resolve("./src/../src/new.rs")
                .unwrap()
                .ends_with("src/new.rs")
        );
        assert!(sb.resolve("new/dir/file.txt").is_ok(), "not yet created");
        let abs = sb.root().join("src");
        assert!(sb.resolve(abs.to_str().unwrap()).is_ok());
    }

    #[test]
    fn escapes_are_refused() {
        let (_d, sb) = sandbox();
        for bad in ["../x", "src/../../x", "/etc/passwd", "/", "..", ""] {
            assert!(sb.resolve(bad).is_err(), "{bad:?} was allowed");
        }
    }

    #[test]
    fn a_link_leading_out_is_refused() {
        let (d, sb) = sandbox();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path(), d.path().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), d.path().join("s")).unwrap();
        let err = sb.resolve("out/secret").unwrap_err();
        assert!(matches!(err, ToolError::Outside { .. }), "{err}");
        assert!(sb.resolve("s").is_err());
        assert!(
            sb.resolve("out/new-file").is_err(),
            "a new file through the link"
        );
    }
}
