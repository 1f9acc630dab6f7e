//! The one way tools walk a workspace: `.gitignore`, `.ignore` and `.git/info/exclude` are
//! honoured (even when the workspace is not a git repository), hidden files are shown, and the
//! directories nobody wants a model to read (`.git`, `node_modules`, `target`) are skipped.

use std::path::Path;

use ignore::WalkBuilder;

/// Directory names left out of every walk: version control, dependencies, build output and
/// Python's virtual environments and caches.
pub const EXCLUDED_DIRS: [&str; 6] = [
    ".git",
    "node_modules",
    "target",
    ".venv",
    "__pycache__",
    ".mypy_cache",
];

/// A walker over `dir` (inside a workspace) with Braid's ignore rules.
pub fn walker(dir: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(dir);
    builder
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            !(is_dir && entry.depth() > 0 && EXCLUDED_DIRS.iter().any(|d| entry.file_name() == *d))
        });
    builder
}

/// The source language of a file, from its name.
pub fn language_of(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "rs" => "rust",
        "py" | "pyi" => "python",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "tsx",
        "js" | "mjs" | "cjs" | "jsx" => "javascript",
        "go" => "go",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "cpp",
        "java" => "java",
        "kt" | "kts" => "kotlin",
        "rb" => "ruby",
        "php" => "php",
        "swift" => "swift",
        "cs" => "csharp",
        "sh" | "bash" => "shell",
        "sql" => "sql",
        "html" | "htm" => "html",
        "css" | "scss" => "css",
        "md" | "markdown" => "markdown",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "json" => "json",
        _ => return None,
    })
}

/// A MIME type guessed from a file's name.
pub fn mime_of(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "rs" => "text/x-rust",
        "py" | "pyi" => "text/x-python",
        "ts" | "mts" | "cts" | "tsx" => "text/typescript",
        "js" | "mjs" | "cjs" | "jsx" => "text/javascript",
        "go" => "text/x-go",
        "c" | "h" => "text/x-c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "text/x-c++",
        "java" => "text/x-java",
        "sh" | "bash" => "text/x-shellscript",
        "md" | "markdown" => "text/markdown",
        "toml" => "application/toml",
        "yaml" | "yml" => "application/yaml",
        "json" => "application/json",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        "txt" | "lock" | "" => "text/plain",
        _ => "application/octet-stream",
    }
}
