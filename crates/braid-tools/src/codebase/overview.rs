//! `get_project_overview`: a compact summary of the workspace for a model (seed 001 "Project
//! overview request"): top directories, entry points, key dependencies, languages with line
//! counts, and size.

use std::collections::BTreeMap;

use async_trait::async_trait;
use braid_protocol::DependencyRelation;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::arguments::parse_arguments;
use crate::builtin::{DEFAULT_TIMEOUT, blocking, spec};
use crate::dependencies::dependency_graph;
use crate::excerpt::read_to_limit;
use crate::tool::{Permission, Tool, ToolCategory, ToolContext, ToolError, ToolOutput, ToolSpec};
use crate::walker::{language_of, walker};
use crate::workspace::Workspace;

/// Arguments of `get_project_overview` (none).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OverviewArgs {}

/// Lines of files larger than this are not counted (generated data).
const MAX_COUNTED_BYTES: u64 = 4 * 1024 * 1024;
/// Key dependencies listed at most.
const MAX_DEPENDENCIES: usize = 40;
/// Directories listed at most.
const MAX_DIRECTORIES: usize = 60;

/// File names that start a program or a library.
const ENTRY_NAMES: [&str; 12] = [
    "main.rs",
    "lib.rs",
    "main.py",
    "__main__.py",
    "app.py",
    "manage.py",
    "main.go",
    "index.ts",
    "index.js",
    "main.ts",
    "main.tsx",
    "server.js",
];

/// Lines and files of one language.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LanguageStats {
    /// Files.
    pub files: usize,
    /// Lines.
    pub lines: usize,
}

/// The summary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProjectOverview {
    /// The workspace root.
    pub root: String,
    /// Directories up to two levels deep, with how many files each holds (recursively).
    pub directories: BTreeMap<String, usize>,
    /// Files that start a program or library.
    pub entry_points: Vec<String>,
    /// Languages, by name.
    pub languages: BTreeMap<String, LanguageStats>,
    /// Direct dependencies (`ecosystem:name@version`).
    pub key_dependencies: Vec<String>,
    /// How many more direct dependencies there are than listed.
    pub more_dependencies: usize,
    /// Files (not ignored).
    pub total_files: usize,
    /// Lines of source files.
    pub total_lines: usize,
    /// Bytes of all files.
    pub total_bytes: u64,
}

/// Summarizes `ws`.
pub fn project_overview(ws: &Workspace) -> ProjectOverview {
    let mut directories: BTreeMap<String, usize> = BTreeMap::new();
    let mut entry_points = Vec::new();
    let mut languages: BTreeMap<String, LanguageStats> = BTreeMap::new();
    let (mut total_files, mut total_lines, mut total_bytes) = (0usize, 0usize, 0u64);
    for entry in walker(ws.root()).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let rel = ws.relative(entry.path());
        let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
        total_files += 1;
        total_bytes += size;
        let parts: Vec<&str> = rel.split('/').collect();
        for depth in 1..parts.len().min(3) {
            *directories
                .entry(format!("{}/", parts[..depth].join("/")))
                .or_default() += 1;
        }
        let name = parts.last().copied().unwrap_or("");
        let in_bin = parts.len() >= 2 && parts[parts.len() - 2] == "bin";
        if (ENTRY_NAMES.contains(&name) || (in_bin && name.ends_with(".rs")))
            && !rel.contains("test")
        {
            entry_points.push(rel.clone());
        }
        if let Some(language) = language_of(entry.path()) {
            let lines = if size <= MAX_COUNTED_BYTES {
                read_to_limit(entry.path(), MAX_COUNTED_BYTES)
                    .map(|b| bytecount_lines(&b))
                    .unwrap_or(0)
            } else {
                0
            };
            let stats = languages.entry(language.to_owned()).or_default();
            stats.files += 1;
            stats.lines += lines;
            if !matches!(language, "json" | "yaml" | "toml" | "markdown") {
                total_lines += lines;
            }
        }
    }
    if directories.len() > MAX_DIRECTORIES {
        directories.retain(|d, _| d.matches('/').count() == 1);
    }
    let mut key_dependencies: Vec<String> = match dependency_graph(ws) {
        Ok(graph) => graph
            .packages
            .into_iter()
            .filter(|p| p.relation == DependencyRelation::Direct)
            .map(|p| p.id)
            .collect(),
        Err(e) => {
            tracing::warn!(error = %e, "dependencies left out of the overview");
            Vec::new()
        }
    };
    let more_dependencies = key_dependencies.len().saturating_sub(MAX_DEPENDENCIES);
    key_dependencies.truncate(MAX_DEPENDENCIES);
    ProjectOverview {
        root: ws.root().display().to_string(),
        directories,
        entry_points,
        languages,
        key_dependencies,
        more_dependencies,
        total_files,
        total_lines,
        total_bytes,
    }
}

fn bytecount_lines(bytes: &[u8]) -> usize {
    let newlines = bytes.iter().filter(|b| **b == b'\n').count();
    newlines + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

/// `get_project_overview`: the summary as a tool.
pub struct ProjectOverviewTool {
    spec: ToolSpec,
}

impl ProjectOverviewTool {
    /// The tool.
    pub fn new() -> Self {
        Self {
            spec: spec::<OverviewArgs>(
                "get_project_overview",
                "Overview of the project: top directories, entry points, dependencies, languages. A good first call.",
                ToolCategory::Codebase,
                &[Permission::Read],
                DEFAULT_TIMEOUT,
            )
            .with_example("see the project before anything else", json!({})),
        }
    }
}

impl Default for ProjectOverviewTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for ProjectOverviewTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let _: OverviewArgs = parse_arguments("get_project_overview", args)?;
        let ws = ctx.workspace()?.clone();
        blocking(move || {
            Ok(ToolOutput::json(
                serde_json::to_value(project_overview(&ws)).unwrap_or(Value::Null),
            ))
        })
        .await
    }
}
