//! The dependency graph of a workspace, read from its manifests and lock files (seed 003
//! "Provide dependency graph"): Cargo.toml + Cargo.lock, package.json + package-lock.json
//! (lockfile versions 2 and 3), pyproject.toml and requirements*.txt.
//!
//! Lock files give exact versions and the transitive closure; manifests say what the project
//! asked for directly and for what (normal, dev, build, optional). Without a lock file only the
//! direct dependencies are known, without resolved versions.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use braid_protocol::{
    DependencyEdge, DependencyGraph, DependencyNode, DependencyRelation, DependencyScope, Ecosystem,
};
use serde_json::Value as Json;

use crate::walker::walker;
use crate::workspace::Workspace;

/// A manifest or lock file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DependencyError {
    /// The file could not be read.
    #[error("cannot read `{path}`: {source}")]
    Io {
        /// Path relative to the workspace.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML / JSON, or not shaped like a manifest.
    #[error("cannot parse `{path}`: {message}")]
    Parse {
        /// Path relative to the workspace.
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// Manifests are looked for this deep under the root (a monorepo's packages, a web/ folder).
const MANIFEST_DEPTH: usize = 4;

/// A graph under construction: nodes by id, edges deduplicated.
#[derive(Default)]
struct GraphBuilder {
    sources: BTreeSet<String>,
    nodes: BTreeMap<String, DependencyNode>,
    edges: BTreeSet<(String, String, ScopeKey)>,
}

/// `DependencyScope` ordered, so edges can live in a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum ScopeKey {
    Normal,
    Dev,
    Build,
    Optional,
}

impl From<ScopeKey> for DependencyScope {
    fn from(s: ScopeKey) -> Self {
        match s {
            ScopeKey::Normal => DependencyScope::Normal,
            ScopeKey::Dev => DependencyScope::Dev,
            ScopeKey::Build => DependencyScope::Build,
            ScopeKey::Optional => DependencyScope::Optional,
        }
    }
}

fn node_id(ecosystem: Ecosystem, name: &str, version: Option<&str>) -> String {
    let prefix = match ecosystem {
        Ecosystem::Cargo => "cargo",
        Ecosystem::Npm => "npm",
        Ecosystem::Python => "python",
    };
    match version {
        Some(v) => format!("{prefix}:{name}@{v}"),
        None => format!("{prefix}:{name}"),
    }
}

impl GraphBuilder {
    fn node(
        &mut self,
        ecosystem: Ecosystem,
        name: &str,
        version: Option<&str>,
        relation: DependencyRelation,
    ) -> String {
        let id = node_id(ecosystem, name, version);
        let entry = self
            .nodes
            .entry(id.clone())
            .or_insert_with(|| DependencyNode {
                id: id.clone(),
                name: name.to_owned(),
                version: version.map(str::to_owned),
                ecosystem,
                relation,
            });
        // A package reachable both directly and transitively is direct; a root stays a root.
        entry.relation = match (entry.relation, relation) {
            (DependencyRelation::Root, _) | (_, DependencyRelation::Root) => {
                DependencyRelation::Root
            }
            (DependencyRelation::Direct, _) | (_, DependencyRelation::Direct) => {
                DependencyRelation::Direct
            }
            _ => DependencyRelation::Transitive,
        };
        id
    }

    fn edge(&mut self, from: &str, to: &str, scope: ScopeKey) {
        if from != to {
            self.edges.insert((from.to_owned(), to.to_owned(), scope));
        }
    }

    fn finish(self) -> DependencyGraph {
        DependencyGraph {
            sources: self.sources.into_iter().collect(),
            packages: self.nodes.into_values().collect(),
            edges: self
                .edges
                .into_iter()
                .map(|(from, to, scope)| DependencyEdge {
                    from,
                    to,
                    scope: scope.into(),
                })
                .collect(),
        }
    }
}

/// The largest manifest or lock file read.
const MAX_MANIFEST_BYTES: u64 = 8 * 1024 * 1024;

fn read(ws: &Workspace, path: &Path) -> Result<String, DependencyError> {
    let io = |source| DependencyError::Io {
        path: ws.relative(path),
        source,
    };
    let bytes = crate::excerpt::read_to_limit(path, MAX_MANIFEST_BYTES).map_err(io)?;
    String::from_utf8(bytes).map_err(|e| {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            e.utf8_error(),
        ))
    })
}

fn parse_toml(ws: &Workspace, path: &Path) -> Result<toml::Table, DependencyError> {
    read(ws, path)?
        .parse::<toml::Table>()
        .map_err(|e| DependencyError::Parse {
            path: ws.relative(path),
            message: e.to_string(),
        })
}

fn parse_json(ws: &Workspace, path: &Path) -> Result<Json, DependencyError> {
    serde_json::from_str(&read(ws, path)?).map_err(|e| DependencyError::Parse {
        path: ws.relative(path),
        message: e.to_string(),
    })
}

/// Reads every supported manifest and lock file of the workspace into one graph.
pub fn dependency_graph(ws: &Workspace) -> Result<DependencyGraph, DependencyError> {
    let mut cargo_manifests = Vec::new();
    let mut cargo_locks = Vec::new();
    let mut npm_dirs = Vec::new();
    let mut python_files = Vec::new();
    for entry in walker(ws.root())
        .max_depth(Some(MANIFEST_DEPTH))
        .build()
        .flatten()
    {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        match name.as_ref() {
            "Cargo.toml" => cargo_manifests.push(entry.into_path()),
            "Cargo.lock" => cargo_locks.push(entry.into_path()),
            "package.json" => npm_dirs.push(
                entry
                    .path()
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default(),
            ),
            "pyproject.toml" => python_files.push(entry.into_path()),
            n if n.starts_with("requirements") && n.ends_with(".txt") => {
                python_files.push(entry.into_path())
            }
            _ => {}
        }
    }
    let mut graph = GraphBuilder::default();
    if !cargo_manifests.is_empty() {
        cargo(ws, &cargo_manifests, &cargo_locks, &mut graph)?;
    }
    for dir in npm_dirs {
        npm(ws, &dir, &mut graph)?;
    }
    for file in python_files {
        python(ws, &file, &mut graph)?;
    }
    Ok(graph.finish())
}

// ---- Cargo ----

/// One dependency a Cargo manifest names: the package's real name and what it is for.
struct CargoWant {
    package: String,
    scope: ScopeKey,
}

fn cargo_wants(manifest: &toml::Table) -> Vec<CargoWant> {
    let mut wants = Vec::new();
    let mut tables: Vec<(&toml::Table, ScopeKey)> = Vec::new();
    let sections = [
        ("dependencies", ScopeKey::Normal),
        ("dev-dependencies", ScopeKey::Dev),
        ("build-dependencies", ScopeKey::Build),
    ];
    for (key, scope) in sections {
        if let Some(t) = manifest.get(key).and_then(toml::Value::as_table) {
            tables.push((t, scope));
        }
    }
    if let Some(targets) = manifest.get("target").and_then(toml::Value::as_table) {
        for target in targets.values().filter_map(toml::Value::as_table) {
            for (key, scope) in sections {
                if let Some(t) = target.get(key).and_then(toml::Value::as_table) {
                    tables.push((t, scope));
                }
            }
        }
    }
    for (table, scope) in tables {
        for (key, spec) in table {
            let package = spec
                .get("package")
                .and_then(toml::Value::as_str)
                .unwrap_or(key)
                .to_owned();
            let optional = spec
                .get("optional")
                .and_then(toml::Value::as_bool)
                .unwrap_or(false);
            wants.push(CargoWant {
                package,
                scope: if optional && scope == ScopeKey::Normal {
                    ScopeKey::Optional
                } else {
                    scope
                },
            });
        }
    }
    wants
}

fn cargo(
    ws: &Workspace,
    manifests: &[PathBuf],
    locks: &[PathBuf],
    graph: &mut GraphBuilder,
) -> Result<(), DependencyError> {
    // Package name -> what its manifest asks for.
    let mut members: HashMap<String, Vec<CargoWant>> = HashMap::new();
    let mut member_versions: HashMap<String, Option<String>> = HashMap::new();
    for path in manifests {
        let manifest = parse_toml(ws, path)?;
        graph.sources.insert(ws.relative(path));
        let Some(package) = manifest.get("package").and_then(toml::Value::as_table) else {
            continue;
        };
        let Some(name) = package.get("name").and_then(toml::Value::as_str) else {
            continue;
        };
        member_versions.insert(
            name.to_owned(),
            package
                .get("version")
                .and_then(toml::Value::as_str)
                .map(str::to_owned),
        );
        members.insert(name.to_owned(), cargo_wants(&manifest));
    }
    let Some(lock_path) = locks.iter().min_by_key(|p| p.components().count()) else {
        // No lock: the members and what they name, unresolved.
        for (name, wants) in &members {
            let version = member_versions.get(name).cloned().flatten();
            let from = graph.node(
                Ecosystem::Cargo,
                name,
                version.as_deref(),
                DependencyRelation::Root,
            );
            for want in wants {
                let relation = if members.contains_key(&want.package) {
                    DependencyRelation::Root
                } else {
                    DependencyRelation::Direct
                };
                let to = graph.node(Ecosystem::Cargo, &want.package, None, relation);
                graph.edge(&from, &to, want.scope);
            }
        }
        return Ok(());
    };
    let lock = parse_toml(ws, lock_path)?;
    graph.sources.insert(ws.relative(lock_path));
    let packages = lock
        .get("package")
        .and_then(toml::Value::as_array)
        .cloned()
        .unwrap_or_default();
    struct Locked {
        name: String,
        version: String,
        local: bool,
        deps: Vec<String>,
    }
    let locked: Vec<Locked> = packages
        .iter()
        .filter_map(|p| {
            Some(Locked {
                name: p.get("name")?.as_str()?.to_owned(),
                version: p.get("version")?.as_str()?.to_owned(),
                local: p.get("source").is_none(),
                deps: p
                    .get("dependencies")
                    .and_then(toml::Value::as_array)
                    .map(|d| {
                        d.iter()
                            .filter_map(|v| v.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
            })
        })
        .collect();
    let mut versions: HashMap<&str, Vec<&str>> = HashMap::new();
    for p in &locked {
        versions
            .entry(p.name.as_str())
            .or_default()
            .push(p.version.as_str());
    }
    // A lock entry's dependency is `name`, `name version` or `name version (source)`.
    let target = |spec: &str| -> Option<(String, String)> {
        let mut parts = spec.split_whitespace();
        let name = parts.next()?;
        let version = match parts.next() {
            Some(v) => v,
            None => versions.get(name).and_then(|v| v.first()).copied()?,
        };
        Some((name.to_owned(), version.to_owned()))
    };
    let is_root = |p: &Locked| p.local && (members.contains_key(&p.name) || members.is_empty());
    for p in &locked {
        let relation = if is_root(p) {
            DependencyRelation::Root
        } else {
            DependencyRelation::Transitive
        };
        graph.node(Ecosystem::Cargo, &p.name, Some(&p.version), relation);
    }
    for p in &locked {
        let from = node_id(Ecosystem::Cargo, &p.name, Some(&p.version));
        let root = is_root(p);
        for spec in &p.deps {
            let Some((name, version)) = target(spec) else {
                continue;
            };
            let scope = if root {
                members
                    .get(&p.name)
                    .and_then(|wants| {
                        wants
                            .iter()
                            .filter(|w| w.package == name)
                            .map(|w| w.scope)
                            .min()
                    })
                    .unwrap_or(ScopeKey::Normal)
            } else {
                ScopeKey::Normal
            };
            let relation = if root {
                DependencyRelation::Direct
            } else {
                DependencyRelation::Transitive
            };
            let to = graph.node(Ecosystem::Cargo, &name, Some(&version), relation);
            graph.edge(&from, &to, scope);
        }
    }
    Ok(())
}

// ---- npm ----

const NPM_SECTIONS: [(&str, ScopeKey); 4] = [
    ("dependencies", ScopeKey::Normal),
    ("devDependencies", ScopeKey::Dev),
    ("optionalDependencies", ScopeKey::Optional),
    ("peerDependencies", ScopeKey::Optional),
];

fn npm_wants(manifest: &Json) -> Vec<(String, ScopeKey)> {
    let mut wants = Vec::new();
    for (key, scope) in NPM_SECTIONS {
        if let Some(map) = manifest.get(key).and_then(Json::as_object) {
            wants.extend(map.keys().map(|k| (k.clone(), scope)));
        }
    }
    wants
}

/// The package name of a `packages` key: the part after the last `node_modules/`.
fn npm_name(key: &str) -> &str {
    key.rsplit_once("node_modules/").map_or(key, |(_, n)| n)
}

/// Where Node would find `name` when required from the package at `from` (a `packages` key).
fn npm_resolve<'a>(
    packages: &'a serde_json::Map<String, Json>,
    from: &str,
    name: &str,
) -> Option<&'a str> {
    let mut base = from.to_owned();
    loop {
        let candidate = if base.is_empty() {
            format!("node_modules/{name}")
        } else {
            format!("{base}/node_modules/{name}")
        };
        if let Some((key, _)) = packages.get_key_value(&candidate) {
            return Some(key.as_str());
        }
        if base.is_empty() {
            return None;
        }
        base = match base.rfind("/node_modules/") {
            Some(i) => base[..i].to_owned(),
            None => String::new(),
        };
    }
}

fn npm(ws: &Workspace, dir: &Path, graph: &mut GraphBuilder) -> Result<(), DependencyError> {
    let manifest_path = dir.join("package.json");
    let manifest = parse_json(ws, &manifest_path)?;
    graph.sources.insert(ws.relative(&manifest_path));
    let name = manifest
        .get("name")
        .and_then(Json::as_str)
        .unwrap_or("(root)")
        .to_owned();
    let version = manifest
        .get("version")
        .and_then(Json::as_str)
        .map(str::to_owned);
    let root = graph.node(
        Ecosystem::Npm,
        &name,
        version.as_deref(),
        DependencyRelation::Root,
    );
    let lock_path = dir.join("package-lock.json");
    let lock = if lock_path.is_file() {
        Some(parse_json(ws, &lock_path)?)
    } else {
        None
    };
    let packages = lock
        .as_ref()
        .and_then(|l| l.get("packages"))
        .and_then(Json::as_object);
    let Some(packages) = packages else {
        if lock.is_some() {
            tracing::warn!(path = %ws.relative(&lock_path), "package-lock.json without `packages` (lockfile v1) read as direct dependencies only");
        }
        for (dep, scope) in npm_wants(&manifest) {
            let to = graph.node(Ecosystem::Npm, &dep, None, DependencyRelation::Direct);
            graph.edge(&root, &to, scope);
        }
        return Ok(());
    };
    graph.sources.insert(ws.relative(&lock_path));
    let id_of = |key: &str, entry: &Json| -> String {
        let name = entry
            .get("name")
            .and_then(Json::as_str)
            .unwrap_or_else(|| npm_name(key));
        node_id(
            Ecosystem::Npm,
            name,
            entry.get("version").and_then(Json::as_str),
        )
    };
    for (key, entry) in packages {
        if key.is_empty() || entry.get("link").and_then(Json::as_bool) == Some(true) {
            continue;
        }
        let name = entry
            .get("name")
            .and_then(Json::as_str)
            .unwrap_or_else(|| npm_name(key));
        graph.node(
            Ecosystem::Npm,
            name,
            entry.get("version").and_then(Json::as_str),
            DependencyRelation::Transitive,
        );
    }
    for (key, entry) in packages {
        let from = if key.is_empty() {
            root.clone()
        } else {
            id_of(key, entry)
        };
        let wants = if key.is_empty() {
            npm_wants(&manifest)
        } else {
            npm_wants(entry)
        };
        for (dep, scope) in wants {
            // Dev dependencies of installed packages are not installed.
            if !key.is_empty() && scope == ScopeKey::Dev {
                continue;
            }
            let Some(found) = npm_resolve(packages, key, &dep) else {
                continue;
            };
            let Some(target) = packages.get(found) else {
                continue;
            };
            let to_name = target
                .get("name")
                .and_then(Json::as_str)
                .unwrap_or_else(|| npm_name(found))
                .to_owned();
            let relation = if key.is_empty() {
                DependencyRelation::Direct
            } else {
                DependencyRelation::Transitive
            };
            let to = graph.node(
                Ecosystem::Npm,
                &to_name,
                target.get("version").and_then(Json::as_str),
                relation,
            );
            graph.edge(&from, &to, scope);
        }
    }
    Ok(())
}

// ---- Python ----

/// The normalized name of a PEP 508 requirement (`Requests[socks]>=2; python_version>"3"` ->
/// `requests`), with its version when pinned with `==`.
fn python_requirement(spec: &str) -> Option<(String, Option<String>)> {
    let spec = spec.split('#').next()?.trim();
    if spec.is_empty() || spec.starts_with('-') {
        return None;
    }
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(spec.len());
    let raw = &spec[..end];
    if raw.is_empty() {
        return None;
    }
    let mut name = String::new();
    for c in raw.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !name.ends_with('-') {
                name.push('-');
            }
        } else {
            name.push(c.to_ascii_lowercase());
        }
    }
    let pinned = spec[end..]
        .split(';')
        .next()
        .and_then(|v| v.trim().strip_prefix("=="))
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty() && !v.contains(','));
    Some((name, pinned))
}

fn python(ws: &Workspace, path: &Path, graph: &mut GraphBuilder) -> Result<(), DependencyError> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut wants: Vec<(String, ScopeKey)> = Vec::new();
    let mut project: Option<(String, Option<String>)> = None;
    if file_name == "pyproject.toml" {
        let doc = parse_toml(ws, path)?;
        let strings = |v: Option<&toml::Value>| -> Vec<String> {
            v.and_then(toml::Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        if let Some(p) = doc.get("project").and_then(toml::Value::as_table) {
            if let Some(name) = p.get("name").and_then(toml::Value::as_str) {
                project = Some((
                    name.to_owned(),
                    p.get("version")
                        .and_then(toml::Value::as_str)
                        .map(str::to_owned),
                ));
            }
            wants.extend(
                strings(p.get("dependencies"))
                    .into_iter()
                    .map(|s| (s, ScopeKey::Normal)),
            );
            if let Some(extras) = p
                .get("optional-dependencies")
                .and_then(toml::Value::as_table)
            {
                for group in extras.values() {
                    wants.extend(
                        strings(Some(group))
                            .into_iter()
                            .map(|s| (s, ScopeKey::Optional)),
                    );
                }
            }
        }
        if let Some(groups) = doc.get("dependency-groups").and_then(toml::Value::as_table) {
            for group in groups.values() {
                wants.extend(strings(Some(group)).into_iter().map(|s| (s, ScopeKey::Dev)));
            }
        }
        if let Some(poetry) = doc
            .get("tool")
            .and_then(|t| t.get("poetry"))
            .and_then(toml::Value::as_table)
        {
            if project.is_none()
                && let Some(name) = poetry.get("name").and_then(toml::Value::as_str)
            {
                project = Some((
                    name.to_owned(),
                    poetry
                        .get("version")
                        .and_then(toml::Value::as_str)
                        .map(str::to_owned),
                ));
            }
            let mut tables: Vec<(&toml::Table, ScopeKey)> = Vec::new();
            if let Some(t) = poetry.get("dependencies").and_then(toml::Value::as_table) {
                tables.push((t, ScopeKey::Normal));
            }
            if let Some(t) = poetry
                .get("dev-dependencies")
                .and_then(toml::Value::as_table)
            {
                tables.push((t, ScopeKey::Dev));
            }
            if let Some(groups) = poetry.get("group").and_then(toml::Value::as_table) {
                for g in groups.values() {
                    if let Some(t) = g.get("dependencies").and_then(toml::Value::as_table) {
                        tables.push((t, ScopeKey::Dev));
                    }
                }
            }
            for (table, scope) in tables {
                wants.extend(
                    table
                        .keys()
                        .filter(|k| k.as_str() != "python")
                        .map(|k| (k.clone(), scope)),
                );
            }
        }
    } else {
        let scope = if file_name.contains("dev") || file_name.contains("test") {
            ScopeKey::Dev
        } else {
            ScopeKey::Normal
        };
        wants.extend(read(ws, path)?.lines().map(|l| (l.to_owned(), scope)));
    }
    graph.sources.insert(ws.relative(path));
    let (name, version) = project.unwrap_or_else(|| {
        let dir = path.parent().unwrap_or(ws.root());
        let name = if dir == ws.root() {
            ws.root()
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "project".into())
        } else {
            ws.relative(dir)
        };
        (name, None)
    });
    let root = graph.node(
        Ecosystem::Python,
        &name,
        version.as_deref(),
        DependencyRelation::Root,
    );
    for (spec, scope) in wants {
        if let Some((dep, pinned)) = python_requirement(&spec) {
            let to = graph.node(
                Ecosystem::Python,
                &dep,
                pinned.as_deref(),
                DependencyRelation::Direct,
            );
            graph.edge(&root, &to, scope);
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn python_requirements_are_normalized() {
        assert_eq!(
            python_requirement("Requests[socks]>=2.0; python_version > '3'"),
            Some(("requests".into(), None))
        );
        assert_eq!(
            python_requirement("Flask_Login==0.6.3"),
            Some(("flask-login".into(), Some("0.6.3".into())))
        );
        assert_eq!(python_requirement("# comment"), None);
        assert_eq!(python_requirement("-r other.txt"), None);
    }

    #[test]
    fn npm_resolution_walks_up_node_modules() {
        let packages: serde_json::Map<String, Json> = serde_json::from_str(
            r#"{"": {}, "node_modules/a": {}, "node_modules/b": {}, "node_modules/a/node_modules/b": {}}"#,
        )
        .unwrap();
        assert_eq!(
            npm_resolve(&packages, "node_modules/a", "b"),
            Some("node_modules/a/node_modules/b")
        );
        assert_eq!(npm_resolve(&packages, "", "b"), Some("node_modules/b"));
        assert_eq!(
            npm_resolve(&packages, "node_modules/a/node_modules/b", "a"),
            Some("node_modules/a")
        );
        assert_eq!(npm_resolve(&packages, "", "zzz"), None);
    }
}
