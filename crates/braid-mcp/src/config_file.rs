//! [`ConfigFile`]: `mcp_servers.json` as the API edits it. A server is added, replaced or
//! removed by changing only its own entry: the file's other entries, its other top-level keys
//! and the fields of an entry that [`McpServerDefinition`] does not hold (`oauth`,
//! `resourceTtl`, other clients' own fields) are kept. The new text is checked as a whole
//! ([`McpConfig::parse`]) before it replaces the file, and it replaces it atomically (a
//! temporary file in the same directory, then a rename), so a refused edit or a crash leaves
//! the file as it was.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use braid_protocol::api::McpServerDefinition;
use serde_json::{Map, Value};

use crate::config::{
    ConfigError, DEFAULT_TIMEOUT, Enablement, McpConfig, ServerConfig, TransportConfig,
};

/// The longest server name the API accepts for a new server.
pub const MAX_SERVER_NAME_CHARS: usize = 40;

/// The entry fields [`McpServerDefinition`] holds; a replacement rewrites exactly these.
const DEFINITION_FIELDS: [&str; 8] = [
    "command",
    "args",
    "env",
    "url",
    "headers",
    "disabled",
    "autoApprove",
    "timeout",
];

/// Why an edit of the file was refused; the file is unchanged in every case.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// No server of that name is configured.
    #[error("no MCP server named `{name}` in {}", path.display())]
    UnknownServer {
        /// The name asked for.
        name: String,
        /// The file.
        path: PathBuf,
    },
    /// A server of that name is already configured.
    #[error("an MCP server named `{0}` is already configured; edit it instead")]
    DuplicateServer(String),
    /// The new server's name breaks the naming rule.
    #[error("the server name {0}")]
    Name(String),
    /// A field of the definition is wrong (`field` as the definition names it: `url`,
    /// `args[1]`, `env.TOKEN`).
    #[error("`{field}` {reason}")]
    Field {
        /// The field at fault.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The file as it is cannot be used (unreadable, not JSON, or another server's entry is
    /// invalid): it must be mended first.
    #[error("{0}; mend the file first")]
    File(ConfigError),
    /// The new file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// `mcp_servers.json` at a path, edited one server at a time.
#[derive(Clone, Debug)]
pub struct ConfigFile {
    path: PathBuf,
}

impl ConfigFile {
    /// The file at `path` (it need not exist yet: the first added server creates it).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Adds server `name`; answers the new configuration.
    pub fn add(
        &self,
        name: &str,
        definition: &McpServerDefinition,
    ) -> Result<McpConfig, EditError> {
        check_name(name)?;
        self.edit(name, |servers| {
            if servers.contains_key(name) {
                return Err(EditError::DuplicateServer(name.to_owned()));
            }
            servers.insert(name.to_owned(), entry(definition, None)?);
            Ok(())
        })
    }

    /// Replaces what the definition holds of server `name`'s entry, keeping its other fields
    /// and every hidden (`null`) `env` and `headers` value; answers the new configuration.
    pub fn replace(
        &self,
        name: &str,
        definition: &McpServerDefinition,
    ) -> Result<McpConfig, EditError> {
        self.edit(name, |servers| {
            let Some(Value::Object(current)) = servers.get(name) else {
                return Err(self.unknown(name));
            };
            let replaced = entry(definition, Some(current))?;
            servers.insert(name.to_owned(), replaced);
            Ok(())
        })
    }

    /// Removes server `name`; answers the new configuration.
    pub fn remove(&self, name: &str) -> Result<McpConfig, EditError> {
        self.edit(name, |servers| {
            servers
                .remove(name)
                .map(drop)
                .ok_or_else(|| self.unknown(name))
        })
    }

    fn unknown(&self, name: &str) -> EditError {
        EditError::UnknownServer {
            name: name.to_owned(),
            path: self.path.clone(),
        }
    }

    /// Reads the file, changes its `mcpServers` object, checks the result and writes it.
    fn edit(
        &self,
        server: &str,
        change: impl FnOnce(&mut Map<String, Value>) -> Result<(), EditError>,
    ) -> Result<McpConfig, EditError> {
        let syntax = |reason: String| {
            EditError::File(ConfigError::Syntax {
                path: self.path.clone(),
                reason,
            })
        };
        let mut root = match std::fs::read_to_string(&self.path) {
            Ok(text) => match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(root)) => root,
                Ok(_) => return Err(syntax("the top level must be a JSON object".into())),
                Err(e) => return Err(syntax(e.to_string())),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
            Err(source) => {
                return Err(EditError::File(ConfigError::Read {
                    path: self.path.clone(),
                    source,
                }));
            }
        };
        if root.get("mcpServers").is_none_or(Value::is_null) {
            root.insert("mcpServers".into(), Value::Object(Map::new()));
        }
        let Some(Value::Object(servers)) = root.get_mut("mcpServers") else {
            return Err(syntax("`mcpServers` must be an object".into()));
        };
        change(servers)?;
        let mut text = serde_json::to_string_pretty(&Value::Object(root))
            .map_err(|e| syntax(e.to_string()))?;
        text.push('\n');
        let config = McpConfig::parse_named(&text, &self.path).map_err(|e| match e {
            ConfigError::Field {
                server: at,
                field,
                reason,
            } if at == server => EditError::Field { field, reason },
            other => EditError::File(other),
        })?;
        self.write(&text)?;
        Ok(config)
    }

    /// Writes `text` to a temporary file beside the file, flushes it to disk and renames it
    /// over the file; the file keeps its permissions (a new one is readable by its owner only,
    /// as it may hold secrets).
    fn write(&self, text: &str) -> Result<(), EditError> {
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let failed = |source| EditError::Write {
            path: self.path.clone(),
            source,
        };
        let dir = match self.path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let file_name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| crate::config::CONFIG_FILE_NAME.to_owned());
        let temp = dir.join(format!(
            ".{file_name}.{}.{}.tmp",
            std::process::id(),
            WRITES.fetch_add(1, Ordering::Relaxed)
        ));
        let permissions = std::fs::metadata(&self.path).ok().map(|m| m.permissions());
        let written = (|| {
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            let mut file = options.open(&temp)?;
            file.write_all(text.as_bytes())?;
            if let Some(permissions) = permissions {
                file.set_permissions(permissions)?;
            }
            file.sync_all()?;
            std::fs::rename(&temp, &self.path)?;
            // The rename is durable once the directory is.
            #[cfg(unix)]
            std::fs::File::open(&dir)?.sync_all()?;
            Ok(())
        })();
        written.map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            failed(e)
        })
    }
}

/// A new server's name: what the UI and the tool names (`mcp__<name>__<tool>`) can carry.
fn check_name(name: &str) -> Result<(), EditError> {
    let refuse = |reason: &str| Err(EditError::Name(format!("`{name}` {reason}")));
    if name.is_empty() {
        return Err(EditError::Name("must not be empty".into()));
    }
    if name.chars().count() > MAX_SERVER_NAME_CHARS {
        return refuse(&format!(
            "is longer than {MAX_SERVER_NAME_CHARS} characters"
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return refuse("may only hold letters, digits, `-` and `_`");
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return refuse("must start with a letter or a digit");
    }
    if name.contains("__") {
        return refuse("must not contain `__` (it separates server and tool in tool names)");
    }
    Ok(())
}

/// The file entry of `definition`: over `current`'s fields it does not hold, with `current`'s
/// values for hidden (`null`) `env` and `headers` values.
fn entry(
    definition: &McpServerDefinition,
    current: Option<&Map<String, Value>>,
) -> Result<Value, EditError> {
    let mut out = current.cloned().unwrap_or_default();
    for field in DEFINITION_FIELDS {
        out.remove(field);
    }
    if let Some(command) = &definition.command {
        out.insert("command".into(), Value::String(command.clone()));
    }
    if !definition.args.is_empty() {
        out.insert("args".into(), strings(&definition.args));
    }
    for (field, values) in [("env", &definition.env), ("headers", &definition.headers)] {
        if values.is_empty() {
            continue;
        }
        let kept = current
            .and_then(|c| c.get(field))
            .and_then(Value::as_object);
        let mut map = Map::new();
        for (key, value) in values {
            let value = match value {
                Some(value) => Value::String(value.clone()),
                None => kept
                    .and_then(|k| k.get(key))
                    .filter(|v| v.is_string())
                    .cloned()
                    .ok_or_else(|| EditError::Field {
                        field: format!("{field}.{key}"),
                        reason: "needs a value (`null` keeps the current value, and there is none)"
                            .into(),
                    })?,
            };
            map.insert(key.clone(), value);
        }
        out.insert(field.into(), Value::Object(map));
    }
    if let Some(url) = &definition.url {
        out.insert("url".into(), Value::String(url.clone()));
    }
    if definition.disabled {
        out.insert("disabled".into(), Value::Bool(true));
    }
    if !definition.auto_approve.is_empty() {
        out.insert("autoApprove".into(), strings(&definition.auto_approve));
    }
    if let Some(timeout) = definition.timeout {
        let number = serde_json::Number::from_f64(timeout).ok_or_else(|| EditError::Field {
            field: "timeout".into(),
            reason: "must be a positive number of seconds (at most a day)".into(),
        })?;
        out.insert("timeout".into(), Value::Number(number));
    }
    Ok(Value::Object(out))
}

fn strings(items: &[String]) -> Value {
    Value::Array(items.iter().cloned().map(Value::String).collect())
}

/// A configured server as the API shows it: its definition with every `env` and `headers`
/// value hidden.
pub fn definition_of(config: &ServerConfig) -> McpServerDefinition {
    let hidden = |map: &BTreeMap<String, String>| map.keys().map(|k| (k.clone(), None)).collect();
    let mut definition = McpServerDefinition {
        disabled: config.enablement == Enablement::Disabled,
        auto_approve: config.auto_approve.iter().cloned().collect(),
        timeout: (config.timeout != DEFAULT_TIMEOUT).then_some(config.timeout.as_secs_f64()),
        ..McpServerDefinition::default()
    };
    match &config.transport {
        TransportConfig::Stdio { command, args, env } => {
            definition.command = Some(command.clone());
            definition.args = args.clone();
            definition.env = hidden(env);
        }
        TransportConfig::StreamableHttp { url, headers } => {
            definition.url = Some(url.clone());
            definition.headers = hidden(headers);
        }
    }
    definition
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn stdio(command: &str) -> McpServerDefinition {
        McpServerDefinition {
            command: Some(command.into()),
            ..McpServerDefinition::default()
        }
    }

    fn file_with(text: &str) -> (tempfile::TempDir, ConfigFile) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(crate::config::CONFIG_FILE_NAME);
        std::fs::write(&path, text).unwrap();
        (dir, ConfigFile::new(path))
    }

    fn read(file: &ConfigFile) -> Value {
        serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap()
    }

    #[test]
    fn adding_keeps_the_other_entries_and_unknown_keys() {
        let (_dir, file) = file_with(
            r#"{"theme": "dark", "mcpServers": {"old": {"command": "a", "oauthLater": {"x": 1}, "alwaysAllow": ["t"]}}}"#,
        );
        let config = file
            .add(
                "new-one",
                &McpServerDefinition {
                    url: Some("http://127.0.0.1:9/mcp".into()),
                    headers: BTreeMap::from([("Authorization".into(), Some("Bearer s".into()))]),
                    ..McpServerDefinition::default()
                },
            )
            .unwrap();
        assert_eq!(
            config.servers.keys().collect::<Vec<_>>(),
            ["new-one", "old"]
        );
        let written = read(&file);
        assert_eq!(written["theme"], "dark");
        assert_eq!(written["mcpServers"]["old"]["oauthLater"]["x"], 1);
        assert_eq!(written["mcpServers"]["old"]["alwaysAllow"][0], "t");
        assert_eq!(
            written["mcpServers"]["new-one"]["headers"]["Authorization"],
            "Bearer s"
        );
    }

    #[test]
    fn a_refused_edit_leaves_the_file_byte_for_byte() {
        let original = r#"{"mcpServers": {"a": {"command": "x"}}}"#;
        let (_dir, file) = file_with(original);
        for (result, expected) in [
            (
                file.add("a", &stdio("y")).unwrap_err(),
                "already configured",
            ),
            (file.add("bad name", &stdio("y")).unwrap_err(), "letters"),
            (file.add("a__b", &stdio("y")).unwrap_err(), "__"),
            (
                file.add(
                    "b",
                    &McpServerDefinition {
                        url: Some("ftp://h".into()),
                        ..McpServerDefinition::default()
                    },
                )
                .unwrap_err(),
                "http://",
            ),
            (
                file.add("c", &McpServerDefinition::default()).unwrap_err(),
                "`command` is missing",
            ),
            (
                file.replace("zz", &stdio("y")).unwrap_err(),
                "no MCP server",
            ),
            (file.remove("zz").unwrap_err(), "no MCP server"),
        ] {
            assert!(result.to_string().contains(expected), "{result}");
        }
        assert_eq!(std::fs::read_to_string(file.path()).unwrap(), original);
        // A field error names the field as the definition does.
        match file
            .add(
                "d",
                &McpServerDefinition {
                    command: Some("x".into()),
                    timeout: Some(-1.0),
                    ..McpServerDefinition::default()
                },
            )
            .unwrap_err()
        {
            EditError::Field { field, .. } => assert_eq!(field, "timeout"),
            other => panic!("expected a field error, got {other}"),
        }
        // Nothing but the file's own name is left in the directory.
        let names: Vec<_> = std::fs::read_dir(file.path().parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn replacing_keeps_hidden_secrets_and_fields_it_does_not_hold() {
        let (_dir, file) = file_with(
            r#"{"mcpServers": {"r": {"url": "http://h/mcp", "headers": {"Authorization": "Bearer secret", "X-Old": "1"}, "resourceTtl": 5, "trustToolHints": true, "timeout": 9}}}"#,
        );
        // Edited as the UI does: from the definition with hidden values.
        let shown = definition_of(McpConfig::load(file.path()).unwrap().server("r").unwrap());
        assert_eq!(shown.headers["Authorization"], None, "values are hidden");
        assert_eq!(shown.timeout, Some(9.0));
        let mut edited = shown.clone();
        edited.url = Some("http://h2/mcp".into());
        edited.headers.remove("X-Old");
        edited.headers.insert("X-New".into(), Some("2".into()));
        edited.timeout = None;
        let config = file.replace("r", &edited).unwrap();
        let TransportConfig::StreamableHttp { url, headers } =
            &config.server("r").unwrap().transport
        else {
            panic!("expected http")
        };
        assert_eq!(url, "http://h2/mcp");
        assert_eq!(headers["Authorization"], "Bearer secret");
        assert_eq!(headers["X-New"], "2");
        assert!(!headers.contains_key("X-Old"));
        let written = read(&file);
        assert_eq!(written["mcpServers"]["r"]["resourceTtl"], 5);
        assert_eq!(written["mcpServers"]["r"]["trustToolHints"], true);
        assert!(written["mcpServers"]["r"].get("timeout").is_none());
        // A hidden value with nothing to keep is refused, naming it.
        edited.headers.insert("X-Missing".into(), None);
        match file.replace("r", &edited).unwrap_err() {
            EditError::Field { field, .. } => assert_eq!(field, "headers.X-Missing"),
            other => panic!("expected a field error, got {other}"),
        }
    }

    #[test]
    fn removing_and_adding_to_a_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = ConfigFile::new(dir.path().join("mcp_servers.json"));
        assert!(matches!(
            file.remove("a").unwrap_err(),
            EditError::UnknownServer { .. }
        ));
        file.add("a", &stdio("x")).unwrap();
        file.add("b", &stdio("y")).unwrap();
        let config = file.remove("a").unwrap();
        assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["b"]);
        assert_eq!(McpConfig::load(file.path()).unwrap(), config);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(file.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "a new file is its owner's only: {mode:o}");
        }
    }

    #[test]
    fn a_broken_file_is_not_overwritten() {
        let original = r#"{"mcpServers": {"a": {"command": 3}}}"#;
        let (_dir, file) = file_with(original);
        let err = file.add("b", &stdio("x")).unwrap_err();
        assert!(matches!(err, EditError::File(_)), "{err}");
        assert!(err.to_string().contains("`a`"), "{err}");
        let (_dir2, file2) = file_with("{ not json");
        assert!(matches!(
            file2.add("b", &stdio("x")).unwrap_err(),
            EditError::File(_)
        ));
        assert_eq!(std::fs::read_to_string(file.path()).unwrap(), original);
        assert_eq!(std::fs::read_to_string(file2.path()).unwrap(), "{ not json");
    }
}
