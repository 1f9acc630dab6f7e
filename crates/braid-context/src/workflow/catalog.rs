//! Where definitions come from: `<workspace>/.braid/workflows/` and `<data dir>/workflows/`
//! (the workspace wins a name clash). Each `.yaml`/`.yml` file is read on its own: one that
//! cannot be read, parsed or validated is listed with its errors and logged, and the others
//! are unaffected. Parameters of a run are checked here against the definition's schema.
//!
//! The catalog is read for every model request and every read of a context's budget. Where the
//! kernel watches the folders for changes (`crate::workspace_files`), it is read again only
//! after a change, and then every file is parsed anew ([`Parsing::Fresh`]). Elsewhere
//! a file is parsed (and its problems logged) only when it changed: parsed entries are kept by
//! path, modification time and size, and each look-up costs a directory listing and a `stat` per
//! file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};
use std::time::SystemTime;

use braid_protocol::Problem;
use braid_protocol::workflow::{WorkflowInfo, WorkflowOrigin};
use serde_json::{Map, Value, json};

use super::definition::{WorkflowDefinition, parse};

/// The largest definition file read; a bigger one is listed with an error.
pub const MAX_DEFINITION_BYTES: u64 = 256 * 1024;
/// The most files read from one folder; the rest are ignored (and logged).
pub const MAX_DEFINITIONS_PER_FOLDER: usize = 500;
/// The folder inside a workspace that holds its workflows.
pub const WORKSPACE_FOLDER: &str = ".braid/workflows";
/// The most parsed files kept; past it the memory of parsed files starts anew.
pub const MAX_REMEMBERED_FILES: usize = 4096;

/// What identifies one version of a definition file: where it is, where it really is (a link's
/// target), when it last changed and how long it is, and which folder it was found in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct FileVersion {
    path: PathBuf,
    real: PathBuf,
    modified: Option<SystemTime>,
    len: u64,
    origin: WorkflowOrigin,
}

/// Parsed definition files of this process, by version.
static PARSED: LazyLock<Mutex<HashMap<FileVersion, CatalogEntry>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// A definition file as found: how it is listed, and the definition when it can run.
#[derive(Clone, Debug)]
pub struct CatalogEntry {
    /// How `GET /v1/workflows` lists it.
    pub info: WorkflowInfo,
    /// The definition, when the file parsed and validated.
    pub definition: Option<WorkflowDefinition>,
}

/// The definitions one context can use, by name.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    entries: Vec<CatalogEntry>,
}

/// Whether a discovery may reuse files parsed before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Parsing {
    /// A file whose path, modification time and size are unchanged is not parsed again.
    Remembered,
    /// Every file is parsed: for a reader that knows the files changed (a rewrite within one
    /// tick of the file system's clock, with the same size, looks unchanged otherwise).
    Fresh,
}

impl Catalog {
    /// Reads both folders (either may be absent).
    pub fn discover(workspace: Option<&Path>, user_folder: Option<&Path>) -> Self {
        Self::discover_with(workspace, user_folder, Parsing::Remembered)
    }

    /// Reads both folders, parsing files as `parsing` says.
    pub(crate) fn discover_with(
        workspace: Option<&Path>,
        user_folder: Option<&Path>,
        parsing: Parsing,
    ) -> Self {
        let mut entries: Vec<CatalogEntry> = Vec::new();
        let folders = [
            workspace.map(|w| (w.join(WORKSPACE_FOLDER), WorkflowOrigin::Workspace)),
            user_folder.map(|u| (u.to_path_buf(), WorkflowOrigin::User)),
        ];
        for (folder, origin) in folders.into_iter().flatten() {
            for entry in read_folder(&folder, origin, parsing) {
                let clash = entries.iter().position(|e| e.info.name == entry.info.name);
                match clash {
                    // The workspace's folder is read first: it wins over the person's.
                    Some(i) if entries[i].info.origin != origin => {
                        tracing::debug!(workflow = %entry.info.name, shadowed = %entry.info.source, by = %entries[i].info.source, "workflow shadowed by the workspace's");
                    }
                    Some(i) => {
                        let mut entry = entry;
                        let first = entries[i].info.source.clone();
                        entry.info.errors.push(Problem {
                            path: "name".to_owned(),
                            message: format!("`{}` is also the name of {first}", entry.info.name),
                        });
                        entry.definition = None;
                        entry.info.name =
                            format!("{} ({})", entry.info.name, file_name(&entry.info.source));
                        tracing::warn!(file = %entry.info.source, other = %first, "two workflows share a name");
                        entries.push(entry);
                    }
                    None => entries.push(entry),
                }
            }
        }
        entries.sort_by(|a, b| a.info.name.cmp(&b.info.name));
        Self { entries }
    }

    /// Every entry, by name.
    pub fn entries(&self) -> &[CatalogEntry] {
        &self.entries
    }

    /// How the API lists them.
    pub fn infos(&self) -> Vec<WorkflowInfo> {
        self.entries.iter().map(|e| e.info.clone()).collect()
    }

    /// The entry named `name`.
    pub fn get(&self, name: &str) -> Option<&CatalogEntry> {
        self.entries.iter().find(|e| e.info.name == name)
    }

    /// The runnable definitions.
    pub fn definitions(&self) -> impl Iterator<Item = &WorkflowDefinition> {
        self.entries.iter().filter_map(|e| e.definition.as_ref())
    }
}

fn file_name(source: &str) -> String {
    Path::new(source)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn read_folder(folder: &Path, origin: WorkflowOrigin, parsing: Parsing) -> Vec<CatalogEntry> {
    let Ok(read) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let Ok(canonical_folder) = folder.canonicalize() else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    if files.len() > MAX_DEFINITIONS_PER_FOLDER {
        tracing::warn!(folder = %folder.display(), files = files.len(), limit = MAX_DEFINITIONS_PER_FOLDER, "too many workflow files; the rest are ignored");
        files.truncate(MAX_DEFINITIONS_PER_FOLDER);
    }
    files
        .into_iter()
        .map(|file| match parsing {
            Parsing::Remembered => remembered(&file, &canonical_folder, origin),
            Parsing::Fresh => load(&file, &canonical_folder, origin),
        })
        .collect()
}

/// The entry of `file`, parsed again only when the file changed since it was last read.
fn remembered(file: &Path, folder: &Path, origin: WorkflowOrigin) -> CatalogEntry {
    let version = file.canonicalize().ok().and_then(|real| {
        let meta = std::fs::metadata(&real).ok()?;
        Some(FileVersion {
            path: file.to_path_buf(),
            real,
            modified: meta.modified().ok(),
            len: meta.len(),
            origin,
        })
    });
    let Some(version) = version else {
        return load(file, folder, origin);
    };
    let parsed = || {
        PARSED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    };
    if let Some(entry) = parsed().get(&version) {
        return entry.clone();
    }
    let entry = load(file, folder, origin);
    let mut parsed = parsed();
    if parsed.len() >= MAX_REMEMBERED_FILES {
        parsed.clear();
    }
    // An older version of the same file is of no use any more.
    parsed.retain(|v, _| v.path != version.path);
    parsed.insert(version, entry.clone());
    entry
}

/// Reads one file into an entry, with its problems when it cannot run.
fn load(file: &Path, folder: &Path, origin: WorkflowOrigin) -> CatalogEntry {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let failed = |message: String| {
        tracing::warn!(file = %file.display(), error = %message, "workflow file not usable");
        CatalogEntry {
            info: WorkflowInfo {
                name: stem.clone(),
                description: String::new(),
                parameters: json!({}),
                steps: Vec::new(),
                source: file.display().to_string(),
                origin,
                errors: vec![Problem {
                    path: String::new(),
                    message,
                }],
            },
            definition: None,
        }
    };
    // A link may not lead out of the folder (the workspace's files stay in the workspace).
    match file.canonicalize() {
        Ok(real) if real.starts_with(folder) => {}
        Ok(_) => return failed("is a link to a file outside its folder; not read".to_owned()),
        Err(e) => return failed(format!("cannot be read: {e}")),
    }
    match std::fs::metadata(file) {
        Ok(m) if m.len() > MAX_DEFINITION_BYTES => {
            return failed(format!(
                "is {} bytes; a workflow file may have at most {MAX_DEFINITION_BYTES} (MAX_DEFINITION_BYTES)",
                m.len()
            ));
        }
        Ok(_) => {}
        Err(e) => return failed(format!("cannot be read: {e}")),
    }
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return failed(format!("cannot be read as UTF-8 text: {e}")),
    };
    match parse(&text) {
        Ok(definition) => CatalogEntry {
            info: definition.info(file, origin),
            definition: Some(definition),
        },
        Err(problems) => {
            for p in &problems {
                tracing::warn!(file = %file.display(), field = %p.path, problem = %p.message, "workflow definition invalid");
            }
            let name = serde_yaml_ng::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_owned))
                .filter(|n| !n.trim().is_empty())
                .unwrap_or(stem);
            CatalogEntry {
                info: WorkflowInfo {
                    name,
                    description: String::new(),
                    parameters: json!({}),
                    steps: Vec::new(),
                    source: file.display().to_string(),
                    origin,
                    errors: problems,
                },
                definition: None,
            }
        }
    }
}

/// Checks a run's parameters against the definition's schema after filling in the schema's
/// defaults. Problems name the parameter (`parameters.focus`).
pub fn check_parameters(
    definition: &WorkflowDefinition,
    given: &Map<String, Value>,
) -> Result<Map<String, Value>, Vec<Problem>> {
    let mut params = given.clone();
    if let Some(properties) = definition
        .parameters
        .get("properties")
        .and_then(Value::as_object)
    {
        for (name, schema) in properties {
            if let (false, Some(default)) = (params.contains_key(name), schema.get("default")) {
                params.insert(name.clone(), default.clone());
            }
        }
    }
    let validator = match jsonschema::validator_for(&definition.parameters) {
        Ok(v) => v,
        Err(e) => {
            return Err(vec![Problem {
                path: "parameters".to_owned(),
                message: format!("the workflow's parameter schema is not valid: {e}"),
            }]);
        }
    };
    let instance = Value::Object(params.clone());
    let problems: Vec<Problem> = validator
        .iter_errors(&instance)
        .map(|e| {
            let mut path = format!("parameters{}", pointer_to_dots(e.instance_path().as_str()));
            if let jsonschema::error::ValidationErrorKind::Required { property } = e.kind()
                && let Some(p) = property.as_str()
            {
                path = format!("parameters.{p}");
            }
            Problem {
                path,
                message: e.to_string(),
            }
        })
        .collect();
    if problems.is_empty() {
        Ok(params)
    } else {
        Err(problems)
    }
}

fn pointer_to_dots(pointer: &str) -> String {
    pointer
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| format!(".{s}"))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn write(dir: &Path, file: &str, text: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(file), text).unwrap();
    }

    const STEP: &str = "steps:\n  - name: a\n    prompt: hi\n";

    #[test]
    fn an_edited_file_is_read_again_and_a_removed_one_is_gone() {
        let user = tempfile::tempdir().unwrap();
        write(
            user.path(),
            "a.yaml",
            &format!("name: a\ndescription: first\n{STEP}"),
        );
        let first = Catalog::discover(None, Some(user.path()));
        assert_eq!(first.get("a").unwrap().info.description, "first");
        // Read again unchanged: the same entry.
        let again = Catalog::discover(None, Some(user.path()));
        assert_eq!(again.get("a").unwrap().info, first.get("a").unwrap().info);
        write(
            user.path(),
            "a.yaml",
            &format!("name: a\ndescription: the second version\n{STEP}"),
        );
        let edited = Catalog::discover(None, Some(user.path()));
        assert_eq!(
            edited.get("a").unwrap().info.description,
            "the second version"
        );
        std::fs::remove_file(user.path().join("a.yaml")).unwrap();
        assert!(
            Catalog::discover(None, Some(user.path()))
                .get("a")
                .is_none()
        );
    }

    #[test]
    fn workspace_wins_and_a_broken_file_breaks_no_other() {
        let ws = tempfile::tempdir().unwrap();
        let user = tempfile::tempdir().unwrap();
        let wsf = ws.path().join(WORKSPACE_FOLDER);
        write(
            &wsf,
            "a.yaml",
            &format!("name: shared\ndescription: workspace\n{STEP}"),
        );
        write(&wsf, "broken.yml", "name: broken\nsteps: 3\n");
        write(&wsf, "notes.txt", "not a workflow");
        write(
            user.path(),
            "b.yaml",
            &format!("name: shared\ndescription: mine\n{STEP}"),
        );
        write(user.path(), "c.yaml", &format!("name: own\n{STEP}"));
        let catalog = Catalog::discover(Some(ws.path()), Some(user.path()));
        let names: Vec<_> = catalog
            .entries()
            .iter()
            .map(|e| e.info.name.as_str())
            .collect();
        assert_eq!(names, ["broken", "own", "shared"]);
        let shared = catalog.get("shared").unwrap();
        assert_eq!(shared.info.description, "workspace");
        assert_eq!(shared.info.origin, WorkflowOrigin::Workspace);
        let broken = catalog.get("broken").unwrap();
        assert!(broken.definition.is_none());
        assert_eq!(broken.info.errors[0].path, "steps");
        assert!(broken.info.source.ends_with("broken.yml"));
        assert_eq!(catalog.definitions().count(), 2);
    }

    #[test]
    fn two_files_of_one_folder_with_one_name_are_reported() {
        let user = tempfile::tempdir().unwrap();
        write(user.path(), "a.yaml", &format!("name: twin\n{STEP}"));
        write(user.path(), "b.yaml", &format!("name: twin\n{STEP}"));
        let catalog = Catalog::discover(None, Some(user.path()));
        assert_eq!(catalog.definitions().count(), 1);
        let second = &catalog.entries()[1];
        assert!(second.info.errors[0].message.contains("also the name"));
    }

    #[test]
    fn parameters_get_defaults_and_errors_name_the_parameter() {
        let d = parse(
            "name: p\nparameters:\n  type: object\n  required: [path]\n  properties:\n    path: { type: string }\n    focus: { type: string, default: correctness }\n    n: { type: integer, minimum: 1 }\nsteps:\n  - name: a\n    prompt: '{{ params.path }}'\n",
        )
        .unwrap();
        let ok = check_parameters(&d, json!({"path": "x"}).as_object().unwrap()).unwrap();
        assert_eq!(ok["focus"], "correctness");
        let e = check_parameters(&d, json!({"n": 0}).as_object().unwrap()).unwrap_err();
        let paths: Vec<_> = e.iter().map(|p| p.path.as_str()).collect();
        assert!(paths.contains(&"parameters.path"), "{e:?}");
        assert!(paths.contains(&"parameters.n"), "{e:?}");
    }

    #[test]
    fn the_example_workflows_in_the_repository_are_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workflows");
        let catalog = Catalog::discover(None, Some(&dir));
        let errors: Vec<_> = catalog
            .entries()
            .iter()
            .flat_map(|e| e.info.errors.clone())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
        let names: Vec<_> = catalog.definitions().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            ["commit-message", "review-changes", "test-and-summarize"]
        );
    }
}
