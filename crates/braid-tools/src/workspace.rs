//! The workspace sandbox: every file a tool (or a file reference) touches is resolved here, and
//! nothing outside the context's workspace is ever read or written (DESIGN.md "Security
//! defaults").
//!
//! A path is refused before any file access when it holds a NUL or a `..` component; an absolute
//! path must lie inside the root; and after canonicalization (which follows symlinks) the real
//! path must still lie inside the canonical root, so a symlink that leaves the workspace is
//! refused too.

use std::path::{Component, Path, PathBuf};

use crate::tool::{ToolError, ToolErrorCode};

/// Why a path could not be used.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// The workspace root itself is unusable.
    #[error("workspace root `{root}` cannot be used: {source}")]
    BadRoot {
        /// The root as given.
        root: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The path is outside the workspace or otherwise not allowed.
    #[error("access to `{path}` is refused: {reason}")]
    Refused {
        /// The path as the caller wrote it.
        path: String,
        /// Why.
        reason: String,
    },
    /// Nothing exists at the path.
    #[error("`{path}` does not exist in the workspace")]
    NotFound {
        /// The path as the caller wrote it.
        path: String,
    },
    /// The path exists but is not what was needed (a directory instead of a file, a binary file).
    #[error("`{path}` {problem}")]
    WrongKind {
        /// The path as the caller wrote it.
        path: String,
        /// What it is instead.
        problem: &'static str,
    },
    /// The requested lines do not exist or make no sense.
    #[error("bad line range for `{path}`: {reason}")]
    BadRange {
        /// The path as the caller wrote it.
        path: String,
        /// What is wrong with the range.
        reason: String,
    },
    /// Reading failed.
    #[error("cannot read `{path}`: {source}")]
    Io {
        /// The path as the caller wrote it.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl From<WorkspaceError> for ToolError {
    fn from(err: WorkspaceError) -> Self {
        let code = match &err {
            WorkspaceError::Refused { .. } => ToolErrorCode::PermissionDenied,
            WorkspaceError::NotFound { .. } => ToolErrorCode::NotFound,
            WorkspaceError::WrongKind { .. } | WorkspaceError::BadRange { .. } => {
                ToolErrorCode::InvalidArguments
            }
            WorkspaceError::BadRoot { .. } | WorkspaceError::Io { .. } => ToolErrorCode::Io,
        };
        ToolError::new(code, err.to_string())
    }
}

/// A workspace root, canonicalized once.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// Opens the directory at `root` as a workspace.
    pub fn new(root: impl AsRef<Path>) -> Result<Self, WorkspaceError> {
        let given = root.as_ref();
        let root = given
            .canonicalize()
            .map_err(|source| WorkspaceError::BadRoot {
                root: given.to_path_buf(),
                source,
            })?;
        if !root.is_dir() {
            return Err(WorkspaceError::BadRoot {
                root: given.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory"),
            });
        }
        Ok(Self { root })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `abs` relative to the root, with `/` separators (`.` for the root itself).
    pub fn relative(&self, abs: &Path) -> String {
        let rel = abs.strip_prefix(&self.root).unwrap_or(abs);
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.is_empty() {
            ".".into()
        } else {
            parts.join("/")
        }
    }

    /// Checks the text of `path` and joins it to the root, without touching the file system.
    fn lexical(&self, path: &str) -> Result<PathBuf, WorkspaceError> {
        let refuse = |reason: &str| WorkspaceError::Refused {
            path: path.to_owned(),
            reason: reason.to_owned(),
        };
        if path.is_empty() {
            return Err(refuse("the path is empty"));
        }
        if path.contains('\0') {
            return Err(refuse("the path contains a NUL byte"));
        }
        let candidate = Path::new(path);
        if candidate.components().any(|c| c == Component::ParentDir) {
            return Err(refuse("`..` is not allowed in workspace paths"));
        }
        if candidate.is_absolute() {
            if !candidate.starts_with(&self.root) {
                return Err(refuse(&format!(
                    "absolute paths must lie inside the workspace `{}`",
                    self.root.display()
                )));
            }
            return Ok(candidate.to_path_buf());
        }
        Ok(self.root.join(candidate))
    }

    fn inside(&self, path: &str, real: PathBuf) -> Result<PathBuf, WorkspaceError> {
        if real.starts_with(&self.root) {
            Ok(real)
        } else {
            tracing::warn!(path = %path, real = %real.display(), "path leaving the workspace refused");
            Err(WorkspaceError::Refused {
                path: path.to_owned(),
                reason: "it resolves (through a symlink) to a location outside the workspace"
                    .into(),
            })
        }
    }

    /// Resolves a path that must exist to its canonical location inside the workspace.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, WorkspaceError> {
        let joined = self.lexical(path)?;
        let real = joined
            .canonicalize()
            .map_err(|source| match source.kind() {
                std::io::ErrorKind::NotFound => WorkspaceError::NotFound {
                    path: path.to_owned(),
                },
                _ => WorkspaceError::Io {
                    path: path.to_owned(),
                    source,
                },
            })?;
        self.inside(path, real)
    }

    /// Resolves a path to the directory entry itself, without following a final symlink: its
    /// parent must resolve inside the workspace. This is what deleting a symlink needs (remove
    /// the link, never the file it points to).
    pub fn resolve_entry(&self, path: &str) -> Result<PathBuf, WorkspaceError> {
        let joined = self.lexical(path)?;
        let (Some(parent), Some(name)) = (joined.parent(), joined.file_name()) else {
            return self.resolve(path);
        };
        let parent = parent
            .canonicalize()
            .map_err(|source| match source.kind() {
                std::io::ErrorKind::NotFound => WorkspaceError::NotFound {
                    path: path.to_owned(),
                },
                _ => WorkspaceError::Io {
                    path: path.to_owned(),
                    source,
                },
            })?;
        let entry = self.inside(path, parent)?.join(name);
        if std::fs::symlink_metadata(&entry).is_err() {
            return Err(WorkspaceError::NotFound {
                path: path.to_owned(),
            });
        }
        Ok(entry)
    }

    /// Resolves a path that may not exist yet (a file to create): its nearest existing ancestor
    /// must be inside the workspace, and if the path itself exists (e.g. a symlink) its target
    /// must be too.
    pub fn resolve_new(&self, path: &str) -> Result<PathBuf, WorkspaceError> {
        let joined = self.lexical(path)?;
        if std::fs::symlink_metadata(&joined).is_ok() {
            return self.resolve(path);
        }
        let mut existing = joined.as_path();
        let mut rest = Vec::new();
        while std::fs::symlink_metadata(existing).is_err() {
            match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_owned());
                    existing = parent;
                }
                _ => break,
            }
        }
        let real = existing
            .canonicalize()
            .map_err(|source| WorkspaceError::Io {
                path: path.to_owned(),
                source,
            })?;
        let mut real = self.inside(path, real)?;
        for name in rest.into_iter().rev() {
            real.push(name);
        }
        Ok(real)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn ws() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.txt"), "one\ntwo\nthree\nfour\n").unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        (dir, ws)
    }

    #[test]
    fn traversal_is_refused_before_touching_files() {
        let (_d, ws) = ws();
        let err = ws.resolve("src/../../etc/passwd").unwrap_err();
        assert!(matches!(err, WorkspaceError::Refused { .. }));
        assert!(err.to_string().contains("src/../../etc/passwd"));
    }

    #[test]
    fn absolute_path_outside_is_refused_and_inside_is_accepted() {
        let (_d, ws) = ws();
        assert!(matches!(
            ws.resolve("/etc/hostname"),
            Err(WorkspaceError::Refused { .. })
        ));
        let inside = ws.root().join("src/a.txt");
        assert_eq!(ws.resolve(inside.to_str().unwrap()).unwrap(), inside);
    }

    #[cfg(unix)]
    #[test]
    fn symlink_leaving_the_workspace_is_refused() {
        let (_d, ws) = ws();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.root().join("link")).unwrap();
        let err = ws.resolve("link/secret").unwrap_err();
        assert!(matches!(err, WorkspaceError::Refused { .. }), "{err}");
        assert!(matches!(
            ws.resolve_new("link/new.txt"),
            Err(WorkspaceError::Refused { .. })
        ));
    }

    #[test]
    fn new_paths_resolve_under_existing_ancestor() {
        let (_d, ws) = ws();
        let p = ws.resolve_new("src/deep/er/new.rs").unwrap();
        assert_eq!(p, ws.root().join("src/deep/er/new.rs"));
    }
}
