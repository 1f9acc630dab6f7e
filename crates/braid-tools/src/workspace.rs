//! The workspace sandbox: every file a tool (or a file reference) touches is resolved here, and
//! nothing outside the context's workspace is ever read or written (DESIGN.md "Security
//! defaults").
//!
//! A path is refused before any file access when it holds a NUL or a `..` component; an absolute
//! path must lie inside the root; and after canonicalization (which follows symlinks) the real
//! path must still lie inside the canonical root, so a symlink that leaves the workspace is
//! refused too.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Component, Path, PathBuf};

use braid_protocol::LineRange;
use serde::Serialize;

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

/// The default cap on the text a file read returns (256 KiB).
pub const DEFAULT_READ_CAP: usize = 256 * 1024;

/// Lines of a file, numbered, as `read_file` and file references return them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileExcerpt {
    /// The path relative to the workspace.
    pub path: String,
    /// The lines, each prefixed by its 1-based number and a tab.
    pub content: String,
    /// The first line returned (1-based); 0 when the file is empty.
    pub start_line: u32,
    /// The last line returned (inclusive); 0 when nothing was returned.
    pub end_line: u32,
    /// How many lines the file has.
    pub total_lines: u32,
    /// The file's size in bytes.
    pub size_bytes: u64,
    /// Set when the excerpt stops before the requested end because of the size cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
}

/// Reads `path` (or the 1-indexed, inclusive `range` of it) from the workspace, numbering the
/// lines, and stops at about `cap` bytes of content with a note saying how to read on.
pub fn read_file_excerpt(
    workspace: &Workspace,
    path: &str,
    range: Option<LineRange>,
    cap: usize,
) -> Result<FileExcerpt, WorkspaceError> {
    if let Some(r) = range
        && (r.start_line == 0 || r.end_line < r.start_line)
    {
        return Err(WorkspaceError::BadRange {
            path: path.to_owned(),
            reason: format!(
                "invalid line range {}-{}: lines are numbered from 1 and the end must not be before the start",
                r.start_line, r.end_line
            ),
        });
    }
    let real = workspace.resolve(path)?;
    let io = |source| WorkspaceError::Io {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::metadata(&real).map_err(io)?;
    if meta.is_dir() {
        return Err(WorkspaceError::WrongKind {
            path: path.to_owned(),
            problem: "is a directory (use list_directory)",
        });
    }
    let mut reader = BufReader::new(File::open(&real).map_err(io)?);
    if reader
        .fill_buf()
        .map_err(io)?
        .iter()
        .take(8192)
        .any(|b| *b == 0)
    {
        return Err(WorkspaceError::WrongKind {
            path: path.to_owned(),
            problem: "is a binary file and cannot be shown as text",
        });
    }
    let (first, last) = range.map_or((1, u32::MAX), |r| (r.start_line, r.end_line));
    let mut content = String::new();
    let mut total = 0u32;
    let mut returned_end = 0u32;
    let mut stopped_at: Option<u32> = None;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = reader.read_until(b'\n', &mut buf).map_err(io)?;
        if read == 0 {
            break;
        }
        total += 1;
        if total < first || total > last || stopped_at.is_some() {
            continue;
        }
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim_end_matches(['\n', '\r']);
        let entry = format!("{total:>6}\t{line}\n");
        if content.len() + entry.len() > cap && returned_end >= first {
            stopped_at = Some(total);
            continue;
        }
        content.push_str(&entry);
        returned_end = total;
    }
    if let Some(r) = range
        && r.start_line > total.max(1)
    {
        return Err(WorkspaceError::BadRange {
            path: path.to_owned(),
            reason: format!(
                "line {} is past the end of the file ({total} lines)",
                r.start_line
            ),
        });
    }
    let requested_end = last.min(total);
    let truncated = stopped_at.map(|next| {
        format!(
            "truncated: the output is capped at {cap} bytes; showing lines {first}-{returned_end} of {requested_end}, \
             read on with start_line={next}"
        )
    });
    Ok(FileExcerpt {
        path: workspace.relative(&real),
        content,
        start_line: if returned_end == 0 { 0 } else { first },
        end_line: returned_end,
        total_lines: total,
        size_bytes: meta.len(),
        truncated,
    })
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

    #[test]
    fn excerpt_numbers_lines_and_reports_totals() {
        let (_d, ws) = ws();
        let ex = read_file_excerpt(
            &ws,
            "src/a.txt",
            Some(LineRange {
                start_line: 2,
                end_line: 3,
            }),
            DEFAULT_READ_CAP,
        )
        .unwrap();
        assert_eq!(ex.content, "     2\ttwo\n     3\tthree\n");
        assert_eq!(
            (ex.start_line, ex.end_line, ex.total_lines, ex.size_bytes),
            (2, 3, 4, 19)
        );
        assert!(ex.truncated.is_none());
    }

    #[test]
    fn excerpt_over_the_cap_is_truncated_with_a_note() {
        let (_d, ws) = ws();
        let ex = read_file_excerpt(&ws, "src/a.txt", None, 25).unwrap();
        assert_eq!(ex.end_line, 2);
        let note = ex.truncated.unwrap();
        assert!(note.contains("start_line=3"), "{note}");
    }

    #[test]
    fn range_past_the_end_is_an_error() {
        let (_d, ws) = ws();
        let err = read_file_excerpt(
            &ws,
            "src/a.txt",
            Some(LineRange {
                start_line: 9,
                end_line: 9,
            }),
            DEFAULT_READ_CAP,
        )
        .unwrap_err();
        assert!(err.to_string().contains("past the end"), "{err}");
    }
}
