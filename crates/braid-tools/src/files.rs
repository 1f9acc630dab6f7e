//! File tools, all confined to the workspace through [`Workspace`]: `read_file`,
//! `list_directory`, `glob`, `write_file`, `create_file`, `replace_in_file`, `delete_file`.

use std::io::Write;
use std::path::Path;

use async_trait::async_trait;
use braid_protocol::LineRange;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::arguments::parse_arguments;
use crate::builtin::{DEFAULT_TIMEOUT, blocking, spec};
use crate::excerpt::{ReadLimits, read_file_excerpt, read_to_limit};
use crate::tool::{
    Permission, Tool, ToolCategory, ToolContext, ToolError, ToolErrorCode, ToolOutput, ToolSpec,
};
use crate::walker::walker;
use crate::workspace::Workspace;

fn io_error(path: &str, action: &str, err: std::io::Error) -> ToolError {
    let code = match err.kind() {
        std::io::ErrorKind::NotFound => ToolErrorCode::NotFound,
        std::io::ErrorKind::PermissionDenied => ToolErrorCode::PermissionDenied,
        std::io::ErrorKind::AlreadyExists => ToolErrorCode::AlreadyExists,
        _ => ToolErrorCode::Io,
    };
    ToolError::new(code, format!("cannot {action} `{path}`: {err}"))
}

/// Writes `content` to `real` through a temporary file and a rename, so a crash never leaves a
/// half-written file behind.
fn write_atomically(real: &Path, shown: &str, content: &[u8]) -> Result<(), ToolError> {
    let parent = real.parent().ok_or_else(|| {
        ToolError::new(
            ToolErrorCode::InvalidArguments,
            format!("`{shown}` has no parent directory"),
        )
    })?;
    std::fs::create_dir_all(parent).map_err(|e| io_error(shown, "create the directories of", e))?;
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Unique per process and per write, so two writes of one file never share a temp file.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let serial = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = parent.join(format!(".{name}.braid-{}-{serial}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(content)?;
        file.sync_all()?;
        if let Ok(meta) = std::fs::metadata(real) {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        std::fs::rename(&tmp, real)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_error(shown, "write", e));
    }
    Ok(())
}

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// Relative to the workspace root.
    pub path: String,
    /// First line, from 1.
    #[schemars(range(min = 1))]
    pub start_line: Option<u32>,
    /// Last line, inclusive (default: the end).
    #[schemars(range(min = 1))]
    pub end_line: Option<u32>,
}

/// `read_file`: a file's lines, numbered, optionally a range, capped in lines, bytes and line
/// length.
pub struct ReadFileTool {
    spec: ToolSpec,
    limits: ReadLimits,
}

/// The largest file `replace_in_file` edits (it holds the whole file in memory twice).
pub const MAX_EDIT_BYTES: u64 = 16 * 1024 * 1024;

impl ReadFileTool {
    /// The tool with the default limits.
    pub fn new() -> Self {
        Self::with_limits(ReadLimits::default())
    }

    /// The tool with other limits.
    pub fn with_limits(limits: ReadLimits) -> Self {
        Self {
            spec: spec::<ReadFileArgs>(
                "read_file",
                "Read a workspace text file, lines numbered; a long one is cut with a note on where to continue.",
                ToolCategory::FileSystem,
                &[Permission::Read],
                DEFAULT_TIMEOUT,
            )
            .with_example(
                "read lines 1 to 40 of a file",
                json!({"path": "src/main.rs", "start_line": 1, "end_line": 40}),
            ),
            limits,
        }
    }
}

impl Default for ReadFileTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for ReadFileTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args: ReadFileArgs = parse_arguments("read_file", args)?;
        let ws = ctx.workspace()?.clone();
        let range = match (args.start_line, args.end_line) {
            (None, None) => None,
            (start, end) => Some(LineRange {
                start_line: start.unwrap_or(1),
                end_line: end.unwrap_or(u32::MAX),
            }),
        };
        let limits = self.limits;
        let excerpt =
            blocking(move || Ok(read_file_excerpt(&ws, &args.path, range, limits)?)).await?;
        Ok(ToolOutput::json(
            serde_json::to_value(excerpt).unwrap_or(Value::Null),
        ))
    }
}

/// Arguments of `list_directory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirectoryArgs {
    /// Default: the workspace root.
    pub path: Option<String>,
    /// Levels to descend (default 1, at most 5).
    #[schemars(range(min = 1, max = 5))]
    pub depth: Option<u32>,
}

/// `list_directory`: the entries of a directory (ignored files left out).
pub struct ListDirectoryTool {
    spec: ToolSpec,
}

/// At most this many entries are listed.
const MAX_ENTRIES: usize = 2000;

impl ListDirectoryTool {
    /// The tool.
    pub fn new() -> Self {
        Self {
            spec: spec::<ListDirectoryArgs>(
                "list_directory",
                "List a workspace directory (ignored files left out; directories end with `/`).",
                ToolCategory::FileSystem,
                &[Permission::Read],
                DEFAULT_TIMEOUT,
            )
            .with_example(
                "list `src`, two levels deep",
                json!({"path": "src", "depth": 2}),
            ),
        }
    }
}

impl Default for ListDirectoryTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for ListDirectoryTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args: ListDirectoryArgs = parse_arguments("list_directory", args)?;
        let ws = ctx.workspace()?.clone();
        blocking(move || {
            let shown = args.path.unwrap_or_else(|| ".".into());
            let dir = ws.resolve(&shown)?;
            if !dir.is_dir() {
                return Err(ToolError::new(
                    ToolErrorCode::InvalidArguments,
                    format!("`{shown}` is not a directory (use read_file)"),
                ));
            }
            let depth = args.depth.unwrap_or(1).clamp(1, 5) as usize;
            let mut entries = Vec::new();
            let mut truncated = false;
            for entry in walker(&dir).max_depth(Some(depth)).build().flatten() {
                if entry.depth() == 0 {
                    continue;
                }
                if entries.len() >= MAX_ENTRIES {
                    truncated = true;
                    break;
                }
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                let rel = ws.relative(entry.path());
                let size = if is_dir { None } else { entry.metadata().ok().map(|m| m.len()) };
                entries.push(json!({
                    "path": if is_dir { format!("{rel}/") } else { rel },
                    "type": if is_dir { "directory" } else if entry.path_is_symlink() { "symlink" } else { "file" },
                    "size": size,
                }));
            }
            Ok(ToolOutput::json(json!({
                "directory": ws.relative(&dir),
                "entries": entries,
                "truncated": truncated,
            })))
        })
        .await
    }
}

/// Arguments of `glob`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobArgs {
    /// Matched against paths relative to the workspace root.
    pub pattern: String,
    /// Default 500.
    #[schemars(range(min = 1, max = 5000))]
    pub max_results: Option<u32>,
}

/// `glob`: workspace files whose path matches a glob.
pub struct GlobTool {
    spec: ToolSpec,
}

impl GlobTool {
    /// The tool.
    pub fn new() -> Self {
        Self {
            spec: spec::<GlobArgs>(
                "glob",
                "Find workspace files whose path matches a glob such as `src/**/*.rs`.",
                ToolCategory::FileSystem,
                &[Permission::Read],
                DEFAULT_TIMEOUT,
            )
            .with_example(
                "find the Rust files under `tests`",
                json!({"pattern": "tests/**/*.rs"}),
            ),
        }
    }
}

impl Default for GlobTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for GlobTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args: GlobArgs = parse_arguments("glob", args)?;
        let ws = ctx.workspace()?.clone();
        blocking(move || {
            if args.pattern.split('/').any(|part| part == "..") {
                return Err(ToolError::new(
                    ToolErrorCode::PermissionDenied,
                    format!("glob `{}` is refused: `..` is not allowed", args.pattern),
                ));
            }
            let glob = globset::GlobBuilder::new(&args.pattern)
                .literal_separator(true)
                .build()
                .map_err(|e| {
                    ToolError::new(
                        ToolErrorCode::InvalidArguments,
                        format!("bad glob `{}`: {e}", args.pattern),
                    )
                })?
                .compile_matcher();
            let max = args.max_results.unwrap_or(500) as usize;
            let mut matches = Vec::new();
            let mut truncated = false;
            for entry in walker(ws.root()).build().flatten() {
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    continue;
                }
                let rel = ws.relative(entry.path());
                if glob.is_match(&rel) {
                    if matches.len() >= max {
                        truncated = true;
                        break;
                    }
                    matches.push(rel);
                }
            }
            Ok(ToolOutput::json(
                json!({ "pattern": args.pattern, "matches": matches, "truncated": truncated }),
            ))
        })
        .await
    }
}

/// Arguments of `write_file` and `create_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs {
    /// Relative to the workspace root.
    pub path: String,
    /// The whole content.
    pub content: String,
}

/// Whether writing may replace an existing file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Existing {
    Replace,
    Refuse,
}

fn write_file(
    ws: &Workspace,
    args: WriteFileArgs,
    existing: Existing,
) -> Result<ToolOutput, ToolError> {
    let real = ws.resolve_new(&args.path)?;
    let existed = match std::fs::metadata(&real) {
        Ok(meta) if meta.is_dir() => {
            return Err(ToolError::new(
                ToolErrorCode::InvalidArguments,
                format!("`{}` is a directory", args.path),
            ));
        }
        Ok(_) => true,
        Err(_) => false,
    };
    if existed && existing == Existing::Refuse {
        return Err(ToolError::new(
            ToolErrorCode::AlreadyExists,
            format!(
                "`{}` already exists; use write_file or replace_in_file to change it",
                args.path
            ),
        ));
    }
    write_atomically(&real, &args.path, args.content.as_bytes())?;
    tracing::info!(path = %ws.relative(&real), bytes = args.content.len(), "file written");
    Ok(ToolOutput::json(json!({
        "path": ws.relative(&real),
        "bytes_written": args.content.len(),
        "created": !existed,
    })))
}

/// `write_file`: replaces a file's content (creating it when missing).
pub struct WriteFileTool {
    spec: ToolSpec,
}

impl WriteFileTool {
    /// The tool.
    pub fn new() -> Self {
        Self {
            spec: spec::<WriteFileArgs>(
                "write_file",
                "Write a workspace file's whole content (created if missing).",
                ToolCategory::FileSystem,
                &[Permission::Write, Permission::Create],
                DEFAULT_TIMEOUT,
            )
            .with_example(
                "replace a file's whole content",
                json!({"path": "notes/todo.md", "content": "- [ ] update the changelog\n"}),
            ),
        }
    }
}

impl Default for WriteFileTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for WriteFileTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args: WriteFileArgs = parse_arguments("write_file", args)?;
        let ws = ctx.workspace()?.clone();
        blocking(move || write_file(&ws, args, Existing::Replace)).await
    }
}

/// `create_file`: creates a new file; refuses to overwrite.
pub struct CreateFileTool {
    spec: ToolSpec,
}

impl CreateFileTool {
    /// The tool.
    pub fn new() -> Self {
        Self {
            spec: spec::<WriteFileArgs>(
                "create_file",
                "Create a new workspace file; fails if it exists.",
                ToolCategory::FileSystem,
                &[Permission::Create],
                DEFAULT_TIMEOUT,
            )
            .with_example(
                "create a new module",
                json!({"path": "src/util.rs", "content": "pub fn answer() -> u32 {\n    42\n}\n"}),
            ),
        }
    }
}

impl Default for CreateFileTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for CreateFileTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args: WriteFileArgs = parse_arguments("create_file", args)?;
        let ws = ctx.workspace()?.clone();
        blocking(move || write_file(&ws, args, Existing::Refuse)).await
    }
}

/// Arguments of `replace_in_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplaceInFileArgs {
    /// Relative to the workspace root.
    pub path: String,
    /// Occurs exactly once in the file.
    pub old_text: String,
    /// Its replacement.
    pub new_text: String,
}

/// `replace_in_file`: replaces one exact, unique occurrence of a text.
pub struct ReplaceInFileTool {
    spec: ToolSpec,
}

impl ReplaceInFileTool {
    /// The tool.
    pub fn new() -> Self {
        Self {
            spec: spec::<ReplaceInFileArgs>(
                "replace_in_file",
                "Replace a text that occurs exactly once in a workspace file (whitespace included).",
                ToolCategory::FileSystem,
                &[Permission::Read, Permission::Write],
                DEFAULT_TIMEOUT,
            )
            .with_example(
                "change one passage that occurs once",
                json!({"path": "src/lib.rs", "old_text": "let retries = 3;", "new_text": "let retries = 5;"}),
            ),
        }
    }
}

impl Default for ReplaceInFileTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for ReplaceInFileTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args: ReplaceInFileArgs = parse_arguments("replace_in_file", args)?;
        let ws = ctx.workspace()?.clone();
        blocking(move || {
            if args.old_text.is_empty() {
                return Err(ToolError::new(ToolErrorCode::InvalidArguments, "old_text must not be empty"));
            }
            let real = ws.resolve(&args.path)?;
            let bytes = read_to_limit(&real, MAX_EDIT_BYTES).map_err(|e| io_error(&args.path, "read", e))?;
            let text = String::from_utf8(bytes).map_err(|_| {
                ToolError::new(ToolErrorCode::InvalidArguments, format!("`{}` is not UTF-8 text", args.path))
            })?;
            let positions: Vec<usize> = text.match_indices(&args.old_text).map(|(i, _)| i).collect();
            let line_of = |byte: usize| text[..byte].matches('\n').count() + 1;
            match positions.as_slice() {
                [] => Err(ToolError::new(
                    ToolErrorCode::NotFound,
                    format!("old_text was not found in `{}`; read the file and copy the text exactly", args.path),
                )),
                [at] => {
                    let line = line_of(*at);
                    let mut updated = String::with_capacity(text.len() + args.new_text.len());
                    updated.push_str(&text[..*at]);
                    updated.push_str(&args.new_text);
                    updated.push_str(&text[at + args.old_text.len()..]);
                    write_atomically(&real, &args.path, updated.as_bytes())?;
                    tracing::info!(path = %ws.relative(&real), line, "text replaced");
                    Ok(ToolOutput::json(json!({ "path": ws.relative(&real), "replaced_at_line": line })))
                }
                many => {
                    let lines: Vec<usize> = many.iter().map(|p| line_of(*p)).collect();
                    Err(ToolError::new(
                        ToolErrorCode::NotUnique,
                        format!(
                            "old_text occurs {} times in `{}` (lines {}); include more surrounding text so it is unique",
                            many.len(),
                            args.path,
                            lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
                        ),
                    )
                    .with_details(json!({ "lines": lines })))
                }
            }
        })
        .await
    }
}

/// Arguments of `delete_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteFileArgs {
    /// Relative to the workspace root.
    pub path: String,
}

/// `delete_file`: deletes one file (never a directory).
pub struct DeleteFileTool {
    spec: ToolSpec,
}

impl DeleteFileTool {
    /// The tool.
    pub fn new() -> Self {
        Self {
            spec: spec::<DeleteFileArgs>(
                "delete_file",
                "Delete a workspace file (not a directory).",
                ToolCategory::FileSystem,
                &[Permission::Delete],
                DEFAULT_TIMEOUT,
            )
            .with_example("delete a file", json!({"path": "tmp/old_output.txt"})),
        }
    }
}

impl Default for DeleteFileTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for DeleteFileTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args: DeleteFileArgs = parse_arguments("delete_file", args)?;
        let ws = ctx.workspace()?.clone();
        blocking(move || {
            // A symlink is removed itself; the file it points to is left alone.
            let real = ws.resolve_entry(&args.path)?;
            if real.is_dir() && !real.is_symlink() {
                return Err(ToolError::new(
                    ToolErrorCode::InvalidArguments,
                    format!(
                        "`{}` is a directory; delete_file removes files only",
                        args.path
                    ),
                ));
            }
            std::fs::remove_file(&real).map_err(|e| io_error(&args.path, "delete", e))?;
            tracing::info!(path = %ws.relative(&real), "file deleted");
            Ok(ToolOutput::json(
                json!({ "path": ws.relative(&real), "deleted": true }),
            ))
        })
        .await
    }
}
