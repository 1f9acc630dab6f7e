//! The workspace sandbox: every file a tool (or a file reference) touches is resolved here, and
//! nothing outside the context's workspace is ever read or written (DESIGN.md "Security
//! defaults").
//!
//! A path is refused before any file access when it holds a NUL or a `..` component; an absolute
//! path must lie inside the root; and after canonicalization (which follows symlinks) the real
//! path must still lie inside the canonical root, so a symlink that leaves the workspace is
//! refused too.
//!
//! Which directories may be workspaces at all is [`WorkspaceRoots`]' decision: the operator's
//! roots (`--workspace-root`), never `/`, the pseudo file systems or Braid's data directory.
//! Everything that opens a context's workspace (the tools, file references, the file picker,
//! the code index through the tools, the API when a workspace is set) goes through
//! [`WorkspaceRoots::open`].

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
    /// The directory may not be a workspace (outside the operator's roots, `/`, the data
    /// directory).
    #[error("workspace `{workspace}` is not allowed: {reason}")]
    NotAllowed {
        /// The workspace as configured.
        workspace: String,
        /// Why, and which setting allows another root.
        reason: String,
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
            WorkspaceError::Refused { .. } | WorkspaceError::NotAllowed { .. } => {
                ToolErrorCode::PermissionDenied
            }
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
    /// Directories inside the root that no path may reach (Braid's data directory when the
    /// workspace contains it: its database holds every context's messages).
    hidden: Vec<PathBuf>,
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
        Ok(Self {
            root,
            hidden: Vec::new(),
        })
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
        if self.hidden.iter().any(|h| real.starts_with(h)) {
            tracing::warn!(path = %path, real = %real.display(), "path into Braid's data directory refused");
            return Err(WorkspaceError::Refused {
                path: path.to_owned(),
                reason: "it lies in Braid's data directory".into(),
            });
        }
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

/// Directories that are never workspaces, whatever the roots: the kernel's views of processes,
/// devices and the system (`/proc/self/environ` holds Braid's own secrets).
const NEVER_WORKSPACES: [&str; 3] = ["/proc", "/sys", "/dev"];

/// The setting that allows another root, named in every refusal.
pub const WORKSPACE_ROOTS_SETTING: &str = "--workspace-root (BRAID_WORKSPACE_ROOTS)";

/// Where workspaces may be: inside one of the operator's roots, never `/`, never the pseudo
/// file systems, never in Braid's data directory. Cheap to clone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkspaceRoots {
    inner: std::sync::Arc<RootsInner>,
}

#[derive(Debug, PartialEq, Eq)]
struct RootsInner {
    roots: Vec<PathBuf>,
    excluded: Vec<PathBuf>,
}

impl WorkspaceRoots {
    /// The roots `roots` (each must be an existing directory; canonicalized here), with the
    /// directories `excluded` (the data directory) and everything inside them refused.
    pub fn new(
        roots: impl IntoIterator<Item = PathBuf>,
        excluded: impl IntoIterator<Item = PathBuf>,
    ) -> Result<Self, WorkspaceError> {
        let mut canonical = Vec::new();
        for root in roots {
            // The same test as a workspace's own: an existing directory, canonicalized.
            let real = Workspace::new(&root)?.root().to_path_buf();
            if !canonical.contains(&real) {
                canonical.push(real);
            }
        }
        // A data directory that does not exist yet (PostgreSQL) is still refused by its path.
        let excluded = excluded
            .into_iter()
            .map(|dir| {
                dir.canonicalize()
                    .or_else(|_| std::path::absolute(&dir))
                    .unwrap_or(dir)
            })
            .collect();
        Ok(Self {
            inner: std::sync::Arc::new(RootsInner {
                roots: canonical,
                excluded,
            }),
        })
    }

    /// Only the current directory (the default of `braid serve`); no root at all when it
    /// cannot be read.
    pub fn current_dir() -> Self {
        let roots = std::env::current_dir().into_iter();
        Self::new(roots, []).unwrap_or_else(|_| Self::none())
    }

    /// No root: every workspace is refused.
    pub fn none() -> Self {
        Self {
            inner: std::sync::Arc::new(RootsInner {
                roots: Vec::new(),
                excluded: Vec::new(),
            }),
        }
    }

    /// The canonical roots, for the UI.
    pub fn roots(&self) -> &[PathBuf] {
        &self.inner.roots
    }

    /// Opens `dir` as a workspace when it resolves (symlinks followed) to an existing
    /// directory inside one of the roots and is none of the refused places.
    pub fn open(&self, dir: &str) -> Result<Workspace, WorkspaceError> {
        let refuse = |reason: String| WorkspaceError::NotAllowed {
            workspace: dir.to_owned(),
            reason,
        };
        if dir.trim().is_empty() {
            return Err(refuse("the path is empty".into()));
        }
        if !Path::new(dir).is_absolute() {
            return Err(refuse("give an absolute path".into()));
        }
        let workspace = Workspace::new(dir).map_err(|e| match e {
            WorkspaceError::BadRoot { source, .. } => {
                refuse(format!("it is not an existing directory ({source})"))
            }
            other => other,
        })?;
        let real = workspace.root();
        if real.parent().is_none() {
            return Err(refuse(
                "the file system root can never be a workspace".into(),
            ));
        }
        if NEVER_WORKSPACES.iter().any(|p| real.starts_with(p)) {
            return Err(refuse(format!(
                "`{}` is a system directory and can never be a workspace",
                real.display()
            )));
        }
        if let Some(data) = self.inner.excluded.iter().find(|d| real.starts_with(d)) {
            return Err(refuse(format!(
                "it lies in Braid's data directory `{}`",
                data.display()
            )));
        }
        if self.inner.roots.iter().any(|r| real.starts_with(r)) {
            let hidden = self
                .inner
                .excluded
                .iter()
                .filter(|d| d.starts_with(real))
                .cloned()
                .collect();
            return Ok(Workspace {
                hidden,
                ..workspace
            });
        }
        let via = if real != Path::new(dir) {
            format!(" (it resolves to `{}`)", real.display())
        } else {
            String::new()
        };
        Err(refuse(format!(
            "it is outside the allowed workspace roots{via}: {}; start braid serve with {WORKSPACE_ROOTS_SETTING} to allow another root",
            self.describe_roots()
        )))
    }

    /// The workspace a context's configuration names: `Ok(None)` when it names none.
    pub fn open_configured(&self, dir: Option<&str>) -> Result<Option<Workspace>, WorkspaceError> {
        dir.map(|d| self.open(d)).transpose()
    }

    fn describe_roots(&self) -> String {
        if self.inner.roots.is_empty() {
            return "none is set".to_owned();
        }
        self.inner
            .roots
            .iter()
            .map(|r| format!("`{}`", r.display()))
            .collect::<Vec<_>>()
            .join(", ")
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

    fn roots_over(dir: &Path) -> WorkspaceRoots {
        WorkspaceRoots::new([dir.join("root")], [dir.join("root/data")]).unwrap()
    }

    fn layout() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("root/project/src")).unwrap();
        std::fs::create_dir_all(dir.path().join("root/data/inside")).unwrap();
        std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
        dir
    }

    #[test]
    fn a_directory_inside_a_root_opens() {
        let dir = layout();
        let roots = roots_over(dir.path());
        let ws = roots
            .open(dir.path().join("root/project").to_str().unwrap())
            .unwrap();
        assert!(ws.root().ends_with("root/project"));
        assert!(
            roots
                .open(dir.path().join("root").to_str().unwrap())
                .is_ok()
        );
    }

    #[test]
    fn a_workspace_holding_the_data_directory_cannot_reach_into_it() {
        let dir = layout();
        let roots = roots_over(dir.path());
        let root = dir.path().join("root");
        std::fs::write(root.join("data/braid.db"), "secret").unwrap();
        std::fs::write(root.join("notes.txt"), "fine").unwrap();
        let ws = roots.open(&root.display().to_string()).unwrap();
        assert!(ws.resolve("notes.txt").is_ok());
        let refusals = [
            ws.resolve("data").unwrap_err(),
            ws.resolve("data/braid.db").unwrap_err(),
            ws.resolve_new("data/new.txt").unwrap_err(),
        ];
        for err in refusals {
            assert!(err.to_string().contains("data directory"), "{err}");
        }
    }

    #[test]
    fn outside_the_roots_slash_proc_and_the_data_directory_are_refused() {
        let dir = layout();
        let roots = roots_over(dir.path());
        let cases = [
            ("/".to_owned(), "file system root"),
            ("/proc".to_owned(), "system directory"),
            ("/proc/self".to_owned(), "system directory"),
            (
                dir.path().join("elsewhere").display().to_string(),
                "--workspace-root",
            ),
            (
                dir.path().join("root/data").display().to_string(),
                "data directory",
            ),
            (
                dir.path().join("root/data/inside").display().to_string(),
                "data directory",
            ),
            (
                dir.path().join("root/missing").display().to_string(),
                "not an existing directory",
            ),
            ("relative/path".to_owned(), "absolute"),
        ];
        for (path, why) in cases {
            let err = roots.open(&path).unwrap_err();
            assert!(
                matches!(err, WorkspaceError::NotAllowed { .. }),
                "{path}: {err}"
            );
            assert!(err.to_string().contains(why), "{path}: {err}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_inside_a_root_pointing_outside_is_refused() {
        let dir = layout();
        let roots = roots_over(dir.path());
        let link = dir.path().join("root/escape");
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), &link).unwrap();
        let err = roots.open(link.to_str().unwrap()).unwrap_err();
        assert!(err.to_string().contains("resolves to"), "{err}");
    }

    #[test]
    fn no_root_refuses_everything_and_says_which_setting_allows_one() {
        let dir = layout();
        let err = WorkspaceRoots::none()
            .open(dir.path().to_str().unwrap())
            .unwrap_err();
        assert!(err.to_string().contains("none is set"), "{err}");
        assert!(err.to_string().contains(WORKSPACE_ROOTS_SETTING), "{err}");
    }
}
