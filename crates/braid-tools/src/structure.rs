//! `project_structure`: the workspace as a directory tree, a flat file list or a dependency
//! graph, produced as a `project_structure` message (seed 003 "Project Structure Messages").

use async_trait::async_trait;
use braid_protocol::{
    DirectoryNode, FileInfo, MessageKind, ProjectStructureContent, ProjectStructureMessage,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::arguments::parse_arguments;
use crate::builtin::{DEFAULT_TIMEOUT, blocking, spec};
use crate::dependencies::dependency_graph;
use crate::excerpt::read_to_limit;
use crate::tool::{
    Permission, Tool, ToolCategory, ToolContext, ToolError, ToolErrorCode, ToolOutput, ToolSpec,
};
use crate::walker::{EXCLUDED_DIRS, language_of, mime_of, walker};
use crate::workspace::Workspace;

/// Which view of the project.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StructureType {
    /// A directory tree with file information.
    Tree,
    /// Every file, flat, sorted by path.
    FileList,
    /// Direct and transitive dependencies from manifests and lock files.
    Dependencies,
}

/// Arguments of `project_structure`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProjectStructureArgs {
    /// Which view.
    pub structure_type: StructureType,
    /// Only this directory (tree and file_list).
    pub path: Option<String>,
    /// Default 8.
    #[schemars(range(min = 1, max = 32))]
    pub max_depth: Option<u32>,
    /// Default 2000, at most 20000.
    #[schemars(range(min = 1, max = 20000))]
    pub max_files: Option<u32>,
}

/// The largest root `.gitignore` whose rules are applied (a larger one is ignored).
const MAX_GITIGNORE_BYTES: u64 = 1024 * 1024;

/// The patterns left out of every structure: the excluded directories, then the root
/// `.gitignore`'s rules.
fn excluded_patterns(ws: &Workspace) -> Vec<String> {
    let mut patterns: Vec<String> = EXCLUDED_DIRS.iter().map(|d| format!("**/{d}/")).collect();
    if let Ok(bytes) = read_to_limit(&ws.root().join(".gitignore"), MAX_GITIGNORE_BYTES) {
        let text = String::from_utf8_lossy(&bytes);
        patterns.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_owned),
        );
    }
    patterns
}

fn file_info(ws: &Workspace, entry: &ignore::DirEntry) -> FileInfo {
    FileInfo {
        path: ws.relative(entry.path()),
        size: entry.metadata().map(|m| m.len()).unwrap_or(0),
        mime_type: mime_of(entry.path()).to_owned(),
        language: language_of(entry.path()).map(str::to_owned),
    }
}

/// The workspace's files whose relative path contains `query` (ignoring case), sorted by path, at
/// most `limit` of them, with whether more matched. Honours .gitignore and Braid's excluded
/// directories; does blocking file system work.
pub fn find_files(ws: &Workspace, query: &str, limit: usize) -> (Vec<FileInfo>, bool) {
    let needle = query.trim().to_lowercase();
    let mut files = Vec::new();
    let mut more = false;
    for entry in crate::walker::walker(ws.root()).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let relative = ws.relative(entry.path());
        if !needle.is_empty() && !relative.to_lowercase().contains(&needle) {
            continue;
        }
        if files.len() == limit {
            more = true;
            break;
        }
        files.push(file_info(ws, &entry));
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    (files, more)
}

/// Builds the tree or the file list of `dir`; returns the content and whether files were left
/// out because of `max_files`.
pub fn layout(
    ws: &Workspace,
    dir: &std::path::Path,
    structure: StructureType,
    max_depth: usize,
    max_files: usize,
) -> (ProjectStructureContent, bool) {
    let mut files = Vec::new();
    let mut truncated = false;
    let root_name = if dir == ws.root() {
        ".".to_owned()
    } else {
        dir.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| ".".into())
    };
    let mut stack = vec![DirectoryNode {
        name: root_name,
        path: ws.relative(dir),
        directories: Vec::new(),
        files: Vec::new(),
    }];
    fn close(stack: &mut Vec<DirectoryNode>, depth: usize) {
        while stack.len() > depth {
            let Some(done) = stack.pop() else { return };
            match stack.last_mut() {
                Some(parent) => parent.directories.push(done),
                None => {
                    stack.push(done);
                    return;
                }
            }
        }
    }
    for entry in walker(dir).max_depth(Some(max_depth)).build().flatten() {
        if entry.depth() == 0 {
            continue;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        if !is_dir && files.len() >= max_files {
            truncated = true;
            break;
        }
        if structure == StructureType::Tree {
            close(&mut stack, entry.depth());
        }
        if is_dir {
            if structure == StructureType::Tree {
                stack.push(DirectoryNode {
                    name: entry.file_name().to_string_lossy().into_owned(),
                    path: ws.relative(entry.path()),
                    directories: Vec::new(),
                    files: Vec::new(),
                });
            }
        } else {
            let info = file_info(ws, &entry);
            if structure == StructureType::Tree
                && let Some(top) = stack.last_mut()
            {
                top.files.push(info.clone());
            }
            files.push(info);
        }
    }
    match structure {
        StructureType::Tree => {
            close(&mut stack, 1);
            let root = stack.pop().unwrap_or(DirectoryNode {
                name: ".".into(),
                path: ".".into(),
                directories: Vec::new(),
                files: Vec::new(),
            });
            (ProjectStructureContent::Tree(root), truncated)
        }
        _ => {
            files.sort_by(|a, b| a.path.cmp(&b.path));
            (ProjectStructureContent::FileList(files), truncated)
        }
    }
}

/// `project_structure`: a structured snapshot of the project.
pub struct ProjectStructureTool {
    spec: ToolSpec,
}

impl ProjectStructureTool {
    /// The tool.
    pub fn new() -> Self {
        Self {
            spec: spec::<ProjectStructureArgs>(
                "project_structure",
                "The project as a directory tree, a file list, or its dependencies.",
                ToolCategory::Codebase,
                &[Permission::Read],
                DEFAULT_TIMEOUT,
            )
            .with_example(
                "the project's dependencies",
                json!({"structure_type": "dependencies"}),
            ),
        }
    }
}

impl Default for ProjectStructureTool {
    fn default() -> Self {
        Self::new()
    }
}

/// Produces the message for `args` (the tool's work, callable without a registry).
pub fn project_structure(
    ws: &Workspace,
    args: &ProjectStructureArgs,
) -> Result<(ProjectStructureMessage, bool), ToolError> {
    let (content, truncated) = match args.structure_type {
        StructureType::Dependencies => {
            let graph = dependency_graph(ws)
                .map_err(|e| ToolError::new(ToolErrorCode::Failed, e.to_string()))?;
            (ProjectStructureContent::Dependencies(graph), false)
        }
        structure => {
            let dir = match &args.path {
                Some(p) => ws.resolve(p)?,
                None => ws.root().to_path_buf(),
            };
            if !dir.is_dir() {
                return Err(ToolError::new(
                    ToolErrorCode::InvalidArguments,
                    format!(
                        "`{}` is not a directory",
                        args.path.as_deref().unwrap_or(".")
                    ),
                ));
            }
            layout(
                ws,
                &dir,
                structure,
                args.max_depth.unwrap_or(8).clamp(1, 32) as usize,
                args.max_files.unwrap_or(2000).clamp(1, 20_000) as usize,
            )
        }
    };
    Ok((
        ProjectStructureMessage {
            root_path: ws.root().display().to_string(),
            content,
            generated_at: chrono::Utc::now(),
            excluded_patterns: excluded_patterns(ws),
        },
        truncated,
    ))
}

#[async_trait]
impl Tool for ProjectStructureTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args: ProjectStructureArgs = parse_arguments("project_structure", args)?;
        let ws = ctx.workspace()?.clone();
        blocking(move || {
            let (message, truncated) = project_structure(&ws, &args)?;
            let mut content = serde_json::to_value(&message).unwrap_or(Value::Null);
            if let Value::Object(map) = &mut content {
                map.insert("truncated".into(), json!(truncated));
            }
            Ok(ToolOutput::with_message(
                content,
                MessageKind::ProjectStructure(Box::new(message)),
            ))
        })
        .await
    }
}
