//! `project_structure`: the layout of a workspace, as a tree, a file list or a dependency graph
//! (seed 003).

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use crate::validate::{FieldPath, Problems, Validate};

/// A snapshot of a project's structure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ProjectStructureMessage {
    /// The workspace root the paths are relative to.
    pub root_path: String,
    /// Which view this is (`structure_type`) and the view itself (`content`).
    #[serde(flatten)]
    pub content: ProjectStructureContent,
    /// When the snapshot was taken.
    #[serde(default)]
    pub generated_at: DateTime<Utc>,
    /// Glob patterns that were left out (`.git`, `node_modules`, `target`, ...).
    #[serde(default)]
    pub excluded_patterns: Vec<String>,
}

/// The three views of a project. In JSON the view's name is `structure_type` and its data is
/// `content`, so the type and the data cannot disagree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "structure_type", content = "content", rename_all = "snake_case")]
pub enum ProjectStructureContent {
    /// A directory tree.
    Tree(DirectoryNode),
    /// Every file, flat, sorted by path.
    FileList(Vec<FileInfo>),
    /// Dependencies read from the project's manifests and lock files.
    Dependencies(DependencyGraph),
}

impl ProjectStructureContent {
    /// The view's name as it appears in `structure_type`.
    pub fn structure_type(&self) -> &'static str {
        match self {
            Self::Tree(_) => "tree",
            Self::FileList(_) => "file_list",
            Self::Dependencies(_) => "dependencies",
        }
    }
}

/// A directory and what it holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct DirectoryNode {
    /// The directory's own name (`.` for the root).
    pub name: String,
    /// Its path relative to the root.
    pub path: String,
    /// Sub-directories, sorted by name.
    #[serde(default)]
    pub directories: Vec<DirectoryNode>,
    /// Files directly inside, sorted by name.
    #[serde(default)]
    pub files: Vec<FileInfo>,
}

/// One file of a project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct FileInfo {
    /// Path relative to the root.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// MIME type guessed from the name (`text/x-rust`, `application/json`, ...).
    pub mime_type: String,
    /// Programming language, when it is source code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub language: Option<String>,
}

/// Packages and the edges between them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct DependencyGraph {
    /// The manifests and lock files that were read, relative to the root.
    #[serde(default)]
    pub sources: Vec<String>,
    /// Every package: the project's own, its direct and its transitive dependencies.
    pub packages: Vec<DependencyNode>,
    /// `from` depends on `to`.
    pub edges: Vec<DependencyEdge>,
}

/// One package in a dependency graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct DependencyNode {
    /// Unique within the graph, e.g. `cargo:serde@1.0.210`.
    pub id: String,
    /// The package name.
    pub name: String,
    /// The resolved version, when a lock file gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub version: Option<String>,
    /// Which package ecosystem it belongs to.
    pub ecosystem: Ecosystem,
    /// How it relates to the project.
    pub relation: DependencyRelation,
}

/// A package ecosystem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum Ecosystem {
    /// Rust: Cargo.toml and Cargo.lock.
    Cargo,
    /// JavaScript: package.json and package-lock.json.
    Npm,
    /// Python: pyproject.toml and requirements.txt.
    Python,
}

/// How a package relates to the project.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum DependencyRelation {
    /// A package of the project itself (a workspace member).
    Root,
    /// Named in a manifest of the project.
    Direct,
    /// Needed only through other dependencies.
    Transitive,
}

/// An edge of a dependency graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct DependencyEdge {
    /// The depending package's id.
    pub from: String,
    /// The depended-on package's id.
    pub to: String,
    /// What the dependency is for.
    #[serde(default)]
    pub scope: DependencyScope,
}

/// What a dependency is for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum DependencyScope {
    /// Needed at run time.
    #[default]
    Normal,
    /// Needed for development and tests only.
    Dev,
    /// Needed to build (Cargo build-dependencies).
    Build,
    /// Optional or peer.
    Optional,
}

impl Validate for ProjectStructureMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        problems.require_text(&self.root_path, &path.field("root_path"));
        let content = path.field("content");
        match &self.content {
            ProjectStructureContent::Tree(_) => {}
            ProjectStructureContent::FileList(files) => {
                for (i, f) in files.iter().enumerate() {
                    problems.require_text(&f.path, &content.index(i).field("path"));
                }
            }
            ProjectStructureContent::Dependencies(graph) => {
                let mut ids = HashSet::new();
                for (i, p) in graph.packages.iter().enumerate() {
                    let at = content.field("packages").index(i);
                    problems.require_text(&p.name, &at.field("name"));
                    problems.check(
                        !ids.insert(p.id.as_str()),
                        &at.field("id"),
                        format!("duplicate package id `{}`", p.id),
                    );
                }
                for (i, e) in graph.edges.iter().enumerate() {
                    let at = content.field("edges").index(i);
                    for (field, id) in [("from", &e.from), ("to", &e.to)] {
                        problems.check(
                            !ids.contains(id.as_str()),
                            &at.field(field),
                            format!("refers to unknown package `{id}`"),
                        );
                    }
                }
            }
        }
    }
}
