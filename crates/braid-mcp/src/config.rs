//! `mcp_servers.json`: which MCP servers Braid connects to and how (DESIGN.md "Running and
//! configuration").
//!
//! The file uses the Claude Desktop format, so a file written for another MCP client works
//! unchanged:
//!
//! ```json
//! { "mcpServers": {
//!     "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"],
//!                     "env": {"DEBUG": "1"}, "autoApprove": ["echo"], "timeout": 30 },
//!     "remote":     { "url": "http://127.0.0.1:3001/mcp", "headers": {"Authorization": "Bearer x"} },
//!     "off":        { "command": "mcp-server-time", "disabled": true } } }
//! ```
//!
//! Braid adds these optional fields: `resourceTtl` (seconds a read resource stays fresh in a
//! context's cache, default one hour), `resourceTtlByMimeType` (the same per MIME type) and
//! `trustToolHints` (default `false`: whether the server's `readOnlyHint` annotations are
//! believed, which lets `limited_auto` run those tools unasked; see [`ToolHints`]), and
//! `elicitation` (`"decline"` by default, or `"accept_defaults"`: what Braid answers when the
//! server asks for input and no person answers; see [`ElicitationPolicy`]), and `lifecycle`
//! (`"negotiated"` by default, or `"stateless"`: see [`Lifecycle`]), and for a stdio server
//! `sandbox` (`"workspace_write"` or `"read_only"`: the server runs confined as a command does,
//! its workspace being the directory Braid runs in) with `sandboxNetwork` (`"denied"` by default,
//! or `"allowed"`); see [`ServerSandbox`].
//! Unknown fields are ignored, because other clients add their own.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::elicitation::ElicitationPolicy;
use crate::oauth::{ClientKey, DpopUse, Grant, OAuthSettings, SigningAlgorithm, WorkloadAssertion};

/// The name of the configuration file looked for in the working and data directories.
pub const CONFIG_FILE_NAME: &str = "mcp_servers.json";

/// How long a tool call may run when the configuration says nothing.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a read resource stays fresh when the configuration says nothing (seed 000,
/// "Resource caching": stale after an hour).
pub const DEFAULT_RESOURCE_TTL: Duration = Duration::from_secs(3600);

/// Every configured MCP server, by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct McpConfig {
    /// The servers, sorted by name.
    pub servers: BTreeMap<String, ServerConfig>,
}

/// One server's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerConfig {
    /// How Braid reaches the server.
    pub transport: TransportConfig,
    /// Whether Braid connects to it at all.
    pub enablement: Enablement,
    /// Tools (by their name on the server) whose calls need no approval.
    pub auto_approve: BTreeSet<String>,
    /// How long one tool call may run.
    pub timeout: Duration,
    /// How long its resources stay fresh in a context's cache.
    pub resource_ttl: ResourceTtl,
    /// Whether its tools' `readOnlyHint` counts (`"trustToolHints": true`).
    pub tool_hints: ToolHints,
    /// What Braid answers to the server's elicitation requests when no person answers
    /// (`"elicitation": "decline" | "accept_defaults"`).
    pub elicitation: ElicitationPolicy,
    /// OAuth client settings for an HTTP server that requires authorization (`oauth`).
    pub oauth: OAuthSettings,
    /// A PEM CA certificate trusted for this HTTP server besides the system's roots
    /// (`caCertificate`).
    pub ca_certificate: Option<PathBuf>,
    /// How a session is opened (`"lifecycle": "negotiated" | "stateless"`).
    pub lifecycle: Lifecycle,
    /// The sandbox a stdio server runs in, when its entry names one (`"sandbox"`); none runs
    /// it with Braid's rights, as other MCP clients do.
    pub sandbox: Option<ServerSandbox>,
}

/// The sandbox of a stdio server: the mode (`"sandbox"`) and whether it may use the network
/// (`"sandboxNetwork"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerSandbox {
    /// `workspace_write` or `read_only`.
    pub mode: braid_tools::SandboxMode,
    /// Whether it may open TCP connections.
    pub network: braid_tools::Network,
}

/// How Braid opens a session with a server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lifecycle {
    /// `initialize` offering 2025-11-25, which every server of the dated revisions answers; a
    /// server that refuses it is asked again with `server/discover` (2026-07-28). The default.
    #[default]
    Negotiated,
    /// `server/discover` at 2026-07-28 from the first request: the stateless revision, with
    /// per-request `_meta` and the standard `Mcp-*` HTTP headers.
    Stateless,
}

impl Lifecycle {
    /// The lifecycle named `name` (`negotiated`, `stateless`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "negotiated" => Some(Self::Negotiated),
            "stateless" => Some(Self::Stateless),
            _ => None,
        }
    }
}

impl ServerConfig {
    /// A stdio server run as `command args...`, enabled, with default timeout and TTL.
    pub fn stdio(command: impl Into<String>, args: impl IntoIterator<Item = String>) -> Self {
        Self::with_transport(TransportConfig::Stdio {
            command: command.into(),
            args: args.into_iter().collect(),
            env: BTreeMap::new(),
        })
    }

    /// A streamable HTTP server at `url`, enabled, with default timeout and TTL.
    pub fn http(url: impl Into<String>) -> Self {
        Self::with_transport(TransportConfig::StreamableHttp {
            url: url.into(),
            headers: BTreeMap::new(),
        })
    }

    fn with_transport(transport: TransportConfig) -> Self {
        Self {
            transport,
            enablement: Enablement::Enabled,
            auto_approve: BTreeSet::new(),
            timeout: DEFAULT_TIMEOUT,
            resource_ttl: ResourceTtl::default(),
            tool_hints: ToolHints::Ignored,
            elicitation: ElicitationPolicy::Decline,
            oauth: OAuthSettings::default(),
            ca_certificate: None,
            lifecycle: Lifecycle::Negotiated,
            sandbox: None,
        }
    }

    /// Whether calls of `tool` (its name on the server) are approved without asking.
    pub fn is_auto_approved(&self, tool: &str) -> bool {
        self.auto_approve.contains(tool)
    }
}

/// How Braid talks to a server.
#[derive(Clone, Debug, PartialEq)]
pub enum TransportConfig {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        /// The program to run (looked up on `PATH` when it has no slash).
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// The only variables it gets besides the allow-listed ones of Braid's environment
        /// (`PATH`, `HOME`...; see `braid_tools::environment`): Braid's secrets never reach it.
        env: BTreeMap<String, String>,
    },
    /// A server reachable over MCP's streamable HTTP transport.
    StreamableHttp {
        /// The endpoint, e.g. `http://127.0.0.1:3001/mcp`.
        url: String,
        /// Headers sent with every request (e.g. `Authorization`).
        headers: BTreeMap<String, String>,
    },
}

/// Whether Braid believes what a server says about its own tools. Any server can claim a tool
/// only reads; only the operator's configuration makes that claim count (DESIGN.md "Security
/// defaults": trust is configured, not claimed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ToolHints {
    /// The default: every tool of the server may change things, whatever its annotations say.
    #[default]
    Ignored,
    /// `"trustToolHints": true`: a tool annotated `readOnlyHint` counts as read-only (it may run
    /// unasked under `limited_auto`, in plan mode and for planners).
    Trusted,
}

/// Whether a configured server is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enablement {
    /// Braid connects to it.
    Enabled,
    /// Listed but switched off (`"disabled": true`).
    Disabled,
}

/// How long resources stay fresh: a default and overrides per MIME type.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceTtl {
    /// The TTL for MIME types without an override.
    pub default: Duration,
    /// Overrides by exact MIME type (`text/plain`).
    pub by_mime_type: BTreeMap<String, Duration>,
}

impl Default for ResourceTtl {
    fn default() -> Self {
        Self {
            default: DEFAULT_RESOURCE_TTL,
            by_mime_type: BTreeMap::new(),
        }
    }
}

impl ResourceTtl {
    /// The TTL for a resource of `mime_type` (the default when it has none or no override).
    pub fn for_mime_type(&self, mime_type: Option<&str>) -> Duration {
        mime_type
            .and_then(|m| self.by_mime_type.get(m))
            .copied()
            .unwrap_or(self.default)
    }
}

/// The configuration could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("cannot read MCP configuration {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not JSON, or its top level is not `{"mcpServers": {...}}`.
    #[error("MCP configuration {path} is not valid: {reason}")]
    Syntax {
        /// The file (or `<inline>` for text parsed directly).
        path: PathBuf,
        /// What is wrong, with the line and column when JSON parsing failed.
        reason: String,
    },
    /// One server's entry has a bad field.
    #[error("MCP server `{server}`: field `{field}` {reason}")]
    Field {
        /// The server's name.
        server: String,
        /// The field at fault (`command`, `args[1]`, `timeout`...).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// Where the configuration file is: `explicit` (from `--mcp-config` / `BRAID_MCP_CONFIG`), else
/// `mcp_servers.json` in `working_dir`, else in `data_dir`. `None` when no file exists, which
/// means no servers; an explicit path is returned even when missing, so the caller can report it.
pub fn find_config_file(
    explicit: Option<&Path>,
    working_dir: &Path,
    data_dir: &Path,
) -> Option<PathBuf> {
    if let Some(path) = explicit {
        return Some(path.to_path_buf());
    }
    [working_dir, data_dir]
        .into_iter()
        .map(|dir| dir.join(CONFIG_FILE_NAME))
        .find(|candidate| candidate.is_file())
}

impl McpConfig {
    /// Reads the file at `path`; a missing file is an empty configuration (no servers).
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse_named(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                tracing::info!(path = %path.display(), "no MCP configuration file, no MCP servers");
                Ok(Self::default())
            }
            Err(source) => Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Parses the JSON text of a configuration.
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        Self::parse_named(text, Path::new("<inline>"))
    }

    pub(crate) fn parse_named(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let syntax = |reason: String| ConfigError::Syntax {
            path: path.to_path_buf(),
            reason,
        };
        let root: Value = serde_json::from_str(text).map_err(|e| syntax(e.to_string()))?;
        let Value::Object(root) = root else {
            return Err(syntax("the top level must be a JSON object".into()));
        };
        let servers = match root.get("mcpServers") {
            None | Some(Value::Null) => return Ok(Self::default()),
            Some(Value::Object(servers)) => servers,
            Some(_) => return Err(syntax("`mcpServers` must be an object".into())),
        };
        let mut config = Self::default();
        for (name, entry) in servers {
            config
                .servers
                .insert(name.clone(), parse_server(name, entry)?);
        }
        Ok(config)
    }

    /// The server named `name`.
    pub fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.get(name)
    }
}

/// One entry as written; every field optional so each problem can be named precisely.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawServer {
    command: Option<Value>,
    args: Option<Value>,
    env: Option<Value>,
    url: Option<Value>,
    headers: Option<Value>,
    disabled: Option<Value>,
    auto_approve: Option<Value>,
    timeout: Option<Value>,
    resource_ttl: Option<Value>,
    resource_ttl_by_mime_type: Option<Value>,
    trust_tool_hints: Option<Value>,
    elicitation: Option<Value>,
    oauth: Option<Value>,
    ca_certificate: Option<Value>,
    lifecycle: Option<Value>,
    sandbox: Option<Value>,
    sandbox_network: Option<Value>,
}

fn parse_server(name: &str, entry: &Value) -> Result<ServerConfig, ConfigError> {
    let field_error = |field: &str, reason: &str| ConfigError::Field {
        server: name.to_string(),
        field: field.to_string(),
        reason: reason.to_string(),
    };
    if name.is_empty() {
        return Err(field_error("name", "must not be empty"));
    }
    if !entry.is_object() {
        return Err(field_error("(entry)", "must be an object"));
    }
    let raw: RawServer = serde_json::from_value(entry.clone())
        .map_err(|e| field_error("(entry)", &format!("cannot be read: {e}")))?;

    let transport = match (&raw.command, &raw.url) {
        (Some(_), Some(_)) => {
            return Err(field_error(
                "url",
                "cannot be combined with `command`: a server is either a process or a URL",
            ));
        }
        (None, None) => {
            return Err(field_error(
                "command",
                "is missing: give `command` (stdio) or `url` (streamable HTTP)",
            ));
        }
        (Some(command), None) => {
            let command = non_empty_string(command).ok_or_else(|| {
                field_error("command", "must be a non-empty string naming the program")
            })?;
            if raw.headers.is_some() {
                return Err(field_error("headers", "only applies to a `url` server"));
            }
            TransportConfig::Stdio {
                command,
                args: string_list(raw.args.as_ref(), "args", &field_error)?,
                env: string_map(raw.env.as_ref(), "env", &field_error)?,
            }
        }
        (None, Some(url)) => {
            let url = non_empty_string(url)
                .ok_or_else(|| field_error("url", "must be a non-empty string"))?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(field_error(
                    "url",
                    &format!("must start with http:// or https://, got `{url}`"),
                ));
            }
            for field in ["args", "env"] {
                let present = if field == "args" {
                    raw.args.is_some()
                } else {
                    raw.env.is_some()
                };
                if present {
                    return Err(field_error(field, "only applies to a `command` server"));
                }
            }
            TransportConfig::StreamableHttp {
                url,
                headers: string_map(raw.headers.as_ref(), "headers", &field_error)?,
            }
        }
    };

    let enablement = match raw.disabled {
        None | Some(Value::Bool(false)) => Enablement::Enabled,
        Some(Value::Bool(true)) => Enablement::Disabled,
        Some(_) => return Err(field_error("disabled", "must be true or false")),
    };
    let tool_hints = match raw.trust_tool_hints {
        None | Some(Value::Bool(false)) => ToolHints::Ignored,
        Some(Value::Bool(true)) => ToolHints::Trusted,
        Some(_) => return Err(field_error("trustToolHints", "must be true or false")),
    };
    let elicitation = match &raw.elicitation {
        None => ElicitationPolicy::Decline,
        Some(v) => v
            .as_str()
            .and_then(ElicitationPolicy::parse)
            .ok_or_else(|| {
                field_error("elicitation", "must be \"decline\" or \"accept_defaults\"")
            })?,
    };
    let lifecycle = match &raw.lifecycle {
        None => Lifecycle::Negotiated,
        Some(v) => v
            .as_str()
            .and_then(Lifecycle::parse)
            .ok_or_else(|| field_error("lifecycle", "must be \"negotiated\" or \"stateless\""))?,
    };
    let is_http = matches!(transport, TransportConfig::StreamableHttp { .. });
    let oauth = match &raw.oauth {
        None => OAuthSettings::default(),
        Some(_) if !is_http => return Err(field_error("oauth", "only applies to a `url` server")),
        Some(v) => parse_oauth(v, &field_error)?,
    };
    let ca_certificate = match &raw.ca_certificate {
        None => None,
        Some(_) if !is_http => {
            return Err(field_error(
                "caCertificate",
                "only applies to a `url` server",
            ));
        }
        Some(v) => Some(PathBuf::from(non_empty_string(v).ok_or_else(|| {
            field_error(
                "caCertificate",
                "must be the path of a PEM certificate file",
            )
        })?)),
    };
    let auto_approve = string_list(raw.auto_approve.as_ref(), "autoApprove", &field_error)?
        .into_iter()
        .collect();
    let timeout = match &raw.timeout {
        None => DEFAULT_TIMEOUT,
        Some(v) => seconds(v).ok_or_else(|| {
            field_error(
                "timeout",
                "must be a positive number of seconds (at most a day)",
            )
        })?,
    };
    let mut resource_ttl = ResourceTtl::default();
    if let Some(v) = &raw.resource_ttl {
        resource_ttl.default = seconds(v).ok_or_else(|| {
            field_error(
                "resourceTtl",
                "must be a positive number of seconds (at most a day)",
            )
        })?;
    }
    match &raw.resource_ttl_by_mime_type {
        None => {}
        Some(Value::Object(map)) => {
            for (mime, v) in map {
                let ttl = seconds(v).ok_or_else(|| {
                    field_error(
                        &format!("resourceTtlByMimeType.{mime}"),
                        "must be a positive number of seconds (at most a day)",
                    )
                })?;
                resource_ttl.by_mime_type.insert(mime.clone(), ttl);
            }
        }
        Some(_) => {
            return Err(field_error(
                "resourceTtlByMimeType",
                "must be an object of MIME type to seconds",
            ));
        }
    }
    let sandbox = match (&raw.sandbox, &raw.sandbox_network) {
        (None, None) => None,
        (None, Some(_)) => {
            return Err(field_error("sandboxNetwork", "only applies with `sandbox`"));
        }
        (Some(_), _) if is_http => {
            return Err(field_error("sandbox", "only applies to a `command` server"));
        }
        (Some(mode), network) => {
            let mode = match mode.as_str() {
                Some("workspace_write") => braid_tools::SandboxMode::WorkspaceWrite,
                Some("read_only") => braid_tools::SandboxMode::ReadOnly,
                _ => {
                    return Err(field_error(
                        "sandbox",
                        "must be \"workspace_write\" or \"read_only\" (leave it out to run the server unconfined)",
                    ));
                }
            };
            let network = match network.as_ref().map(Value::as_str) {
                None | Some(Some("denied")) => braid_tools::Network::Denied,
                Some(Some("allowed")) => braid_tools::Network::Allowed,
                Some(_) => {
                    return Err(field_error(
                        "sandboxNetwork",
                        "must be \"denied\" or \"allowed\"",
                    ));
                }
            };
            Some(ServerSandbox { mode, network })
        }
    };
    Ok(ServerConfig {
        transport,
        enablement,
        auto_approve,
        timeout,
        resource_ttl,
        tool_hints,
        elicitation,
        oauth,
        ca_certificate,
        lifecycle,
        sandbox,
    })
}

/// The `oauth` object: `clientId`, `clientSecret`, `clientMetadataUrl`, `scopes`, `redirectUri`.
fn parse_oauth(
    v: &Value,
    field_error: &dyn Fn(&str, &str) -> ConfigError,
) -> Result<OAuthSettings, ConfigError> {
    let Value::Object(map) = v else {
        return Err(field_error("oauth", "must be an object"));
    };
    let text = |key: &str| -> Result<Option<String>, ConfigError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => non_empty_string(v)
                .map(Some)
                .ok_or_else(|| field_error(&format!("oauth.{key}"), "must be a non-empty string")),
        }
    };
    const KEYS: [&str; 10] = [
        "clientId",
        "clientSecret",
        "clientMetadataUrl",
        "scopes",
        "redirectUri",
        "grant",
        "privateKeyFile",
        "signingAlgorithm",
        "assertionFile",
        "dpop",
    ];
    if let Some(key) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(field_error(
            &format!("oauth.{key}"),
            &format!("is not one of {}", KEYS.join(", ")),
        ));
    }
    let grant = match text("grant")?.as_deref() {
        None | Some("authorization_code") => Grant::AuthorizationCode,
        Some("client_credentials") => match text("privateKeyFile")? {
            Some(path) => {
                let pem = std::fs::read(&path).map_err(|e| {
                    field_error(
                        "oauth.privateKeyFile",
                        &format!("cannot be read ({path}): {e}"),
                    )
                })?;
                let algorithm = match text("signingAlgorithm")? {
                    None => SigningAlgorithm::default(),
                    Some(name) => SigningAlgorithm::parse(&name).ok_or_else(|| {
                        field_error(
                            "oauth.signingAlgorithm",
                            "must be RS256, RS384, RS512, ES256 or ES384",
                        )
                    })?,
                };
                Grant::ClientCredentials(ClientKey::PrivateKey { pem, algorithm })
            }
            None => Grant::ClientCredentials(ClientKey::Secret),
        },
        Some("workload_identity") => match text("assertionFile")? {
            Some(path) => Grant::WorkloadIdentity(WorkloadAssertion::File(PathBuf::from(path))),
            None => {
                return Err(field_error(
                    "oauth.assertionFile",
                    "is needed by the workload_identity grant: the file the platform keeps the workload's JWT in",
                ));
            }
        },
        Some(other) => {
            return Err(field_error(
                "oauth.grant",
                &format!(
                    "must be \"authorization_code\", \"client_credentials\" or \"workload_identity\", got `{other}`"
                ),
            ));
        }
    };
    let dpop = match map.get("dpop") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => DpopUse::WhenChallenged,
        Some(Value::Bool(true)) => DpopUse::Always,
        Some(_) => return Err(field_error("oauth.dpop", "must be true or false")),
    };
    let settings = OAuthSettings {
        client_id: text("clientId")?,
        client_secret: text("clientSecret")?,
        client_metadata_url: text("clientMetadataUrl")?,
        scopes: string_list(map.get("scopes"), "oauth.scopes", field_error)?,
        redirect_uri: text("redirectUri")?,
        grant,
        dpop,
    };
    if settings.client_secret.is_some() && settings.client_id.is_none() {
        return Err(field_error("oauth.clientSecret", "needs oauth.clientId"));
    }
    if let Grant::ClientCredentials(key) = &settings.grant {
        if settings.client_id.is_none() {
            return Err(field_error(
                "oauth.clientId",
                "is needed by the client_credentials grant",
            ));
        }
        if *key == ClientKey::Secret && settings.client_secret.is_none() {
            return Err(field_error(
                "oauth.clientSecret",
                "is needed by the client_credentials grant (or give oauth.privateKeyFile)",
            ));
        }
    }
    Ok(settings)
}

fn non_empty_string(v: &Value) -> Option<String> {
    v.as_str()
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
}

fn string_list(
    v: Option<&Value>,
    field: &str,
    field_error: &dyn Fn(&str, &str) -> ConfigError,
) -> Result<Vec<String>, ConfigError> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                item.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| field_error(&format!("{field}[{i}]"), "must be a string"))
            })
            .collect(),
        Some(_) => Err(field_error(field, "must be an array of strings")),
    }
}

fn string_map(
    v: Option<&Value>,
    field: &str,
    field_error: &dyn Fn(&str, &str) -> ConfigError,
) -> Result<BTreeMap<String, String>, ConfigError> {
    match v {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|s| (k.clone(), s.to_string()))
                    .ok_or_else(|| field_error(&format!("{field}.{k}"), "must be a string"))
            })
            .collect(),
        Some(_) => Err(field_error(field, "must be an object of strings")),
    }
}

/// A positive duration in seconds of at most a day (more is surely a unit mistake).
fn seconds(v: &Value) -> Option<Duration> {
    let secs = v.as_f64()?;
    // A positive number under a nanosecond is no duration at all: it is refused as 0 is.
    (secs > 0.0 && secs <= 86_400.0)
        .then(|| Duration::from_secs_f64(secs))
        .filter(|d| !d.is_zero())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn oauth_settings_and_the_client_credentials_grant_are_read_and_checked() {
        let config = McpConfig::parse(
            r#"{"mcpServers": {
                "code": {"url": "https://h/mcp", "oauth": {"clientId": "c", "scopes": ["read"]}},
                "machine": {"url": "https://h/mcp", "oauth": {"grant": "client_credentials", "clientId": "m", "clientSecret": "s"}}
            }}"#,
        )
        .unwrap();
        let code = &config.server("code").unwrap().oauth;
        assert_eq!(code.client_id.as_deref(), Some("c"));
        assert_eq!(code.scopes, ["read"]);
        assert_eq!(code.grant, Grant::AuthorizationCode);
        assert_eq!(
            config.server("machine").unwrap().oauth.grant,
            Grant::ClientCredentials(ClientKey::Secret)
        );
        for (entry, field) in [
            (
                r#"{"url": "https://h/mcp", "oauth": {"grant": "client_credentials", "clientId": "m"}}"#,
                "oauth.clientSecret",
            ),
            (
                r#"{"url": "https://h/mcp", "oauth": {"grant": "password"}}"#,
                "oauth.grant",
            ),
            (
                r#"{"url": "https://h/mcp", "oauth": {"clientSecret": "s"}}"#,
                "oauth.clientSecret",
            ),
            (
                r#"{"url": "https://h/mcp", "oauth": {"token": "t"}}"#,
                "oauth.token",
            ),
            (r#"{"command": "x", "oauth": {}}"#, "oauth"),
            (
                r#"{"url": "https://h/mcp", "oauth": {"grant": "client_credentials", "clientId": "m", "privateKeyFile": "/nonexistent/key.pem"}}"#,
                "oauth.privateKeyFile",
            ),
        ] {
            let err = McpConfig::parse(&format!(r#"{{"mcpServers": {{"a": {entry}}}}}"#))
                .unwrap_err()
                .to_string();
            assert!(err.contains(&format!("`{field}`")), "{entry}: {err}");
        }
    }

    #[test]
    fn dpop_workload_identity_and_the_lifecycle_are_read_and_checked() {
        let config = McpConfig::parse(
            r#"{"mcpServers": {
                "bound": {"url": "https://h/mcp", "oauth": {"dpop": true}, "lifecycle": "stateless"},
                "workload": {"url": "https://h/mcp", "oauth": {"grant": "workload_identity", "clientId": "w", "assertionFile": "/var/run/secrets/tokens/mcp"}},
                "plain": {"url": "https://h/mcp"}
            }}"#,
        )
        .unwrap();
        let bound = config.server("bound").unwrap();
        assert_eq!(bound.oauth.dpop, DpopUse::Always);
        assert_eq!(bound.lifecycle, Lifecycle::Stateless);
        let plain = config.server("plain").unwrap();
        assert_eq!(plain.oauth.dpop, DpopUse::WhenChallenged);
        assert_eq!(plain.lifecycle, Lifecycle::Negotiated);
        assert_eq!(
            config.server("workload").unwrap().oauth.grant,
            Grant::WorkloadIdentity(WorkloadAssertion::File(PathBuf::from(
                "/var/run/secrets/tokens/mcp"
            )))
        );
        for (entry, field) in [
            (
                r#"{"url": "https://h/mcp", "oauth": {"grant": "workload_identity"}}"#,
                "oauth.assertionFile",
            ),
            (
                r#"{"url": "https://h/mcp", "oauth": {"dpop": "yes"}}"#,
                "oauth.dpop",
            ),
            (
                r#"{"url": "https://h/mcp", "lifecycle": "stateful"}"#,
                "lifecycle",
            ),
        ] {
            let err = McpConfig::parse(&format!(r#"{{"mcpServers": {{"a": {entry}}}}}"#))
                .unwrap_err()
                .to_string();
            assert!(err.contains(&format!("`{field}`")), "{entry}: {err}");
        }
    }

    fn field_error(text: &str) -> (String, String, String) {
        match McpConfig::parse(text).unwrap_err() {
            ConfigError::Field {
                server,
                field,
                reason,
            } => (server, field, reason),
            other => panic!("expected a field error, got {other}"),
        }
    }

    #[test]
    fn claude_desktop_file_parses_with_every_field() {
        let config = McpConfig::parse(
            r#"{"mcpServers": {
                "everything": {"command": "npx", "args": ["-y", "pkg"], "env": {"A": "1"},
                               "autoApprove": ["echo"], "timeout": 2.5, "alwaysAllow": ["x"]},
                "remote": {"url": "http://127.0.0.1:3001/mcp", "headers": {"Authorization": "Bearer t"},
                           "resourceTtl": 60, "resourceTtlByMimeType": {"text/plain": 5}},
                "off": {"command": "mcp-server-time", "disabled": true, "trustToolHints": true}
            }}"#,
        )
        .unwrap();
        let everything = config.server("everything").unwrap();
        assert_eq!(
            everything.transport,
            TransportConfig::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "pkg".into()],
                env: BTreeMap::from([("A".into(), "1".into())]),
            }
        );
        assert!(everything.is_auto_approved("echo"));
        assert!(!everything.is_auto_approved("get-sum"));
        assert_eq!(everything.timeout, Duration::from_millis(2500));
        assert_eq!(everything.enablement, Enablement::Enabled);
        assert_eq!(
            everything.tool_hints,
            ToolHints::Ignored,
            "not trusted by default"
        );

        let remote = config.server("remote").unwrap();
        let TransportConfig::StreamableHttp { url, headers } = &remote.transport else {
            panic!("expected http")
        };
        assert_eq!(url, "http://127.0.0.1:3001/mcp");
        assert_eq!(headers["Authorization"], "Bearer t");
        assert_eq!(
            remote.resource_ttl.for_mime_type(Some("text/plain")),
            Duration::from_secs(5)
        );
        assert_eq!(
            remote.resource_ttl.for_mime_type(Some("image/png")),
            Duration::from_secs(60)
        );
        assert_eq!(remote.timeout, DEFAULT_TIMEOUT);
        assert_eq!(
            config.server("off").unwrap().enablement,
            Enablement::Disabled
        );
        assert_eq!(config.server("off").unwrap().tool_hints, ToolHints::Trusted);
        assert_eq!(
            config
                .server("off")
                .unwrap()
                .resource_ttl
                .for_mime_type(None),
            DEFAULT_RESOURCE_TTL
        );
    }

    #[test]
    fn errors_name_the_server_and_the_field() {
        let (server, field, _) = field_error(r#"{"mcpServers": {"a": {"args": []}}}"#);
        assert_eq!((server.as_str(), field.as_str()), ("a", "command"));
        let (server, field, _) =
            field_error(r#"{"mcpServers": {"b": {"command": "x", "args": ["ok", 3]}}}"#);
        assert_eq!((server.as_str(), field.as_str()), ("b", "args[1]"));
        let (_, field, _) =
            field_error(r#"{"mcpServers": {"c": {"command": "x", "timeout": -1}}}"#);
        assert_eq!(field, "timeout");
        let (_, field, _) =
            field_error(r#"{"mcpServers": {"d": {"command": "x", "env": {"K": 1}}}}"#);
        assert_eq!(field, "env.K");
        let (_, field, reason) = field_error(r#"{"mcpServers": {"e": {"url": "ftp://x"}}}"#);
        assert_eq!(field, "url");
        assert!(reason.contains("ftp://x"), "{reason}");
        let (_, field, _) =
            field_error(r#"{"mcpServers": {"f": {"command": "x", "url": "http://h"}}}"#);
        assert_eq!(field, "url");
        let (_, field, _) =
            field_error(r#"{"mcpServers": {"g": {"command": "x", "disabled": "yes"}}}"#);
        assert_eq!(field, "disabled");
        let (_, field, _) =
            field_error(r#"{"mcpServers": {"t": {"command": "x", "trustToolHints": "yes"}}}"#);
        assert_eq!(field, "trustToolHints");
        let (_, field, _) = field_error(r#"{"mcpServers": {"h": {"command": ""}}}"#);
        assert_eq!(field, "command");
        let (_, field, _) = field_error(
            r#"{"mcpServers": {"i": {"command": "x", "resourceTtlByMimeType": {"text/plain": 0}}}}"#,
        );
        assert_eq!(field, "resourceTtlByMimeType.text/plain");
        // Found by the fuzz test: a positive number too small to be a nanosecond.
        for (entry, named) in [
            (r#"{"command": "x", "timeout": 1e-10}"#, "timeout"),
            (
                r#"{"url": "http://h/mcp", "resourceTtl": 1e-308}"#,
                "resourceTtl",
            ),
            (
                r#"{"url": "http://h/mcp", "resourceTtlByMimeType": {"text/plain": 1.18e-308}}"#,
                "resourceTtlByMimeType.text/plain",
            ),
        ] {
            let (_, field, reason) = field_error(&format!(r#"{{"mcpServers": {{"j": {entry}}}}}"#));
            assert_eq!(field, named, "{entry}");
            assert!(reason.contains("positive number of seconds"), "{reason}");
        }
    }

    #[test]
    fn broken_json_and_wrong_shapes_are_syntax_errors() {
        for text in ["{", "[]", r#"{"mcpServers": []}"#] {
            let err = McpConfig::parse(text).unwrap_err();
            assert!(matches!(err, ConfigError::Syntax { .. }), "{text}: {err}");
        }
        assert!(McpConfig::parse("{}").unwrap().servers.is_empty());
    }

    #[test]
    fn missing_file_means_no_servers() {
        let dir = tempfile::tempdir().unwrap();
        let config = McpConfig::load(&dir.path().join("nope.json")).unwrap();
        assert!(config.servers.is_empty());
    }

    #[test]
    fn file_is_found_explicit_then_working_dir_then_data_dir() {
        let work = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        assert_eq!(find_config_file(None, work.path(), data.path()), None);
        std::fs::write(data.path().join(CONFIG_FILE_NAME), "{}").unwrap();
        assert_eq!(
            find_config_file(None, work.path(), data.path()),
            Some(data.path().join(CONFIG_FILE_NAME))
        );
        std::fs::write(work.path().join(CONFIG_FILE_NAME), "{}").unwrap();
        assert_eq!(
            find_config_file(None, work.path(), data.path()),
            Some(work.path().join(CONFIG_FILE_NAME))
        );
        let explicit = work.path().join("other.json");
        assert_eq!(
            find_config_file(Some(&explicit), work.path(), data.path()),
            Some(explicit)
        );
    }
}
