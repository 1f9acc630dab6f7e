//! `McpManager`: the connection manager. It starts every configured server in the background,
//! keeps each one's status, registers its tools in the `ToolRegistry`, restarts a server that
//! dies (with bounded backoff), applies a reloaded configuration by touching only what changed,
//! and stops every child process on shutdown.
//!
//! Nothing here blocks the caller on a server: `start` and `reload` return as soon as the
//! supervising tasks are spawned, and a server that cannot start only gets the status `failed`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use backon::BackoffBuilder;

use braid_protocol::api::{
    McpPromptArgument, McpPromptInfo, McpPromptText, McpResourceInfo, McpServerInfo,
    McpServerStatus,
};
use braid_tools::{RegistryError, ToolRegistry};
use rmcp::RoleClient;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, ReadResourceRequestParams, ReadResourceResponse,
};
use rmcp::service::Peer;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::config::{ConfigError, Enablement, McpConfig, ServerConfig};
pub use crate::connection::MAX_MESSAGE_BYTES;
use crate::connection::{BraidClient, Launch, PENDING_NOTICES, Refusal, ServerNotice, connect};
use crate::elicitation::Elicitations;
use crate::error::McpError;
use crate::naming;
use crate::oauth::{Authorizer, OAuthSession, TokenStore};
use crate::tool::{AutoApproval, McpTool, McpToolRoute, ServerSession};

/// How the manager starts and restarts servers.
#[derive(Clone)]
pub struct ManagerOptions {
    /// How long a server may take to start and finish the MCP handshake.
    pub startup_timeout: Duration,
    /// What happens when a server fails to start or dies.
    pub restart: RestartPolicy,
    /// The largest message accepted from a server (default [`MAX_MESSAGE_BYTES`]); a larger
    /// one ends the session with an error naming the limit, and the server is restarted.
    pub max_message_bytes: usize,
    /// Who approves OAuth authorizations that need a person (`braid serve`: the UI's
    /// "Authorize" button and the callback route); none means such servers fail with a clear
    /// error, while client-credentials servers still work.
    pub authorizer: Option<Arc<dyn Authorizer>>,
    /// Where servers' OAuth credentials are kept across restarts (`braid serve`: its store);
    /// none keeps them in memory.
    pub tokens: Option<Arc<dyn TokenStore>>,
    /// Where servers' questions wait for the person (`braid serve`); none lets each server's
    /// elicitation policy answer.
    pub elicitations: Option<Arc<Elicitations>>,
    /// The operator's sandbox settings (protected paths, whether unsandboxed commands are
    /// allowed), for stdio servers whose entry names a `sandbox`.
    pub sandbox: braid_tools::SandboxSettings,
}

impl std::fmt::Debug for ManagerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManagerOptions")
            .field("startup_timeout", &self.startup_timeout)
            .field("restart", &self.restart)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("authorizer", &self.authorizer.is_some())
            .field("tokens", &self.tokens.is_some())
            .field("elicitations", &self.elicitations.is_some())
            .field("sandbox", &self.sandbox)
            .finish()
    }
}

impl Default for ManagerOptions {
    fn default() -> Self {
        Self {
            startup_timeout: Duration::from_secs(30),
            restart: RestartPolicy::default(),
            max_message_bytes: MAX_MESSAGE_BYTES,
            authorizer: None,
            tokens: None,
            elicitations: None,
            sandbox: braid_tools::SandboxSettings::default(),
        }
    }
}

/// Restarting with exponential backoff and jitter (backon), bounded so a broken server is not
/// retried forever.
#[derive(Clone, Debug)]
pub struct RestartPolicy {
    /// Wait before the first retry; doubled for each further one.
    pub initial_backoff: Duration,
    /// The longest wait between retries.
    pub max_backoff: Duration,
    /// Retries in a row (without reaching `ready` in between) before giving up.
    pub max_attempts: u32,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            initial_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(60),
            max_attempts: 5,
        }
    }
}

impl RestartPolicy {
    /// The wait before retry number `attempt` (1-based): between `initial_backoff *
    /// 2^(attempt-1)` and twice that, capped at `max_backoff`.
    pub fn backoff(&self, attempt: u32) -> Duration {
        backon::ExponentialBuilder::new()
            .with_min_delay(self.initial_backoff)
            .with_max_delay(self.max_backoff)
            .with_factor(2.0)
            .with_jitter()
            .with_jitter_seed(jitter_seed())
            .without_max_times()
            .build()
            .nth(attempt.saturating_sub(1) as usize)
            .unwrap_or(self.max_backoff)
            .min(self.max_backoff)
    }
}

/// What a reload changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReloadSummary {
    /// Servers that are new in the configuration.
    pub added: Vec<String>,
    /// Servers no longer in the configuration, now stopped.
    pub removed: Vec<String>,
    /// Servers whose configuration changed, stopped and started again.
    pub restarted: Vec<String>,
    /// Servers left running as they were.
    pub unchanged: Vec<String>,
}

/// A resource's content as read from its server, before it becomes a message.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceRead {
    /// The content: text, or a summary of binary data.
    pub content: braid_protocol::ResourceContent,
    /// The MIME type the server gave.
    pub mime_type: Option<String>,
}

/// The connection manager; cheap to clone (all clones share the same servers).
#[derive(Clone)]
pub struct McpManager {
    inner: Arc<Inner>,
}

struct Inner {
    registry: Arc<ToolRegistry>,
    options: ManagerOptions,
    servers: Mutex<BTreeMap<String, ServerSlot>>,
    /// Bumped on every status change, so waiters wake up.
    changes: watch::Sender<u64>,
}

struct ServerSlot {
    config: ServerConfig,
    shared: Arc<RwLock<ServerState>>,
    task: Option<Supervisor>,
}

struct Supervisor {
    cancel: CancellationToken,
    handle: JoinHandle<()>,
}

#[derive(Clone)]
struct ServerState {
    status: McpServerStatus,
    error: Option<String>,
    tools: Vec<McpToolRoute>,
    peer: Option<Peer<RoleClient>>,
    pid: Option<u32>,
}

impl ServerState {
    fn new(status: McpServerStatus) -> Self {
        Self {
            status,
            error: None,
            tools: Vec::new(),
            peer: None,
            pid: None,
        }
    }
}

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpManager")
            .field("servers", &self.servers())
            .finish()
    }
}

impl McpManager {
    /// A manager with no servers that registers MCP tools in `registry`.
    pub fn new(registry: Arc<ToolRegistry>, options: ManagerOptions) -> Self {
        Self {
            inner: Arc::new(Inner {
                registry,
                options,
                servers: Mutex::new(BTreeMap::new()),
                changes: watch::channel(0).0,
            }),
        }
    }

    /// The registry MCP tools are registered in.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.inner.registry
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, ServerSlot>> {
        // Every critical section is a single map operation, so a poisoned map is still whole.
        self.inner
            .servers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Starts the servers of `config` in the background (the same as a reload from nothing).
    /// Must be called inside a tokio runtime.
    pub async fn start(&self, config: McpConfig) -> ReloadSummary {
        self.reload(config).await
    }

    /// Applies a new configuration: starts added servers, stops removed ones, restarts those
    /// whose entry changed, and leaves the others running untouched.
    pub async fn reload(&self, config: McpConfig) -> ReloadSummary {
        let mut summary = ReloadSummary::default();
        let mut to_stop = Vec::new();
        let mut to_start = Vec::new();
        {
            let mut slots = self.slots();
            let gone: Vec<String> = slots
                .keys()
                .filter(|name| !config.servers.contains_key(*name))
                .cloned()
                .collect();
            for name in gone {
                if let Some(slot) = slots.remove(&name) {
                    to_stop.push((name.clone(), slot));
                }
                summary.removed.push(name);
            }
            for (name, server) in &config.servers {
                match slots.get(name) {
                    Some(slot) if slot.config == *server => summary.unchanged.push(name.clone()),
                    Some(_) => {
                        if let Some(slot) = slots.remove(name) {
                            to_stop.push((name.clone(), slot));
                        }
                        summary.restarted.push(name.clone());
                        to_start.push((name.clone(), server.clone()));
                    }
                    None => {
                        summary.added.push(name.clone());
                        to_start.push((name.clone(), server.clone()));
                    }
                }
            }
        }
        for (name, slot) in to_stop {
            self.stop_slot(&name, slot).await;
        }
        for (name, server) in to_start {
            let slot = self.spawn_slot(&name, server);
            self.slots().insert(name, slot);
        }
        self.notify();
        tracing::info!(
            added = summary.added.len(),
            removed = summary.removed.len(),
            restarted = summary.restarted.len(),
            unchanged = summary.unchanged.len(),
            "MCP configuration applied"
        );
        summary
    }

    /// Re-reads the configuration file at `path` and applies it (see [`reload`](Self::reload)).
    /// A file that cannot be used changes nothing: the running servers stay as they are.
    pub async fn reload_from(&self, path: &Path) -> Result<ReloadSummary, ConfigError> {
        let config = McpConfig::load(path)?;
        Ok(self.reload(config).await)
    }

    /// Stops every server and waits until their processes are gone.
    pub async fn shutdown(&self) {
        let slots: Vec<(String, ServerSlot)> =
            std::mem::take(&mut *self.slots()).into_iter().collect();
        for (name, slot) in slots {
            self.stop_slot(&name, slot).await;
        }
        self.notify();
    }

    fn spawn_slot(&self, name: &str, config: ServerConfig) -> ServerSlot {
        if config.enablement == Enablement::Disabled {
            tracing::info!(server = %name, "MCP server disabled in the configuration");
            return ServerSlot {
                config,
                shared: Arc::new(RwLock::new(ServerState::new(McpServerStatus::Disabled))),
                task: None,
            };
        }
        let shared = Arc::new(RwLock::new(ServerState::new(McpServerStatus::Starting)));
        let cancel = CancellationToken::new();
        let run = Supervision {
            name: name.to_string(),
            config: config.clone(),
            shared: shared.clone(),
            inner: self.inner.clone(),
            cancel: cancel.clone(),
            oauth: tokio::sync::Mutex::new({
                let session = OAuthSession::new(self.inner.options.authorizer.clone());
                match &self.inner.options.tokens {
                    Some(tokens) => session.keeping(name, tokens.clone()),
                    None => session,
                }
            }),
        };
        let handle = tokio::spawn(run.run());
        ServerSlot {
            config,
            shared,
            task: Some(Supervisor { cancel, handle }),
        }
    }

    async fn stop_slot(&self, name: &str, slot: ServerSlot) {
        if let Some(task) = slot.task {
            task.cancel.cancel();
            if let Err(e) = task.handle.await {
                tracing::warn!(server = %name, error = %e, "MCP supervisor ended abnormally");
            }
        }
        self.inner.registry.unregister_server(name);
        tracing::info!(server = %name, "MCP server stopped");
    }

    fn notify(&self) {
        self.inner.changes.send_modify(|v| *v = v.wrapping_add(1));
    }

    /// A server's status as listed: a server whose authorization waits for a person says so,
    /// with the URL to open.
    fn info(&self, name: &str, slot: &ServerSlot) -> McpServerInfo {
        let mut listed = info(name, &read_state(&slot.shared));
        listed.definition = Some(crate::config_file::definition_of(&slot.config));
        let waiting = self
            .inner
            .options
            .authorizer
            .as_ref()
            .and_then(|a| a.waiting(name));
        if let (Some(url), McpServerStatus::Starting) = (waiting, listed.status) {
            listed.status = McpServerStatus::NeedsAuthorization;
            listed.authorization_url = Some(url);
        }
        listed
    }

    /// Every configured server with its status and tools, sorted by name.
    pub fn servers(&self) -> Vec<McpServerInfo> {
        self.slots()
            .iter()
            .map(|(name, slot)| self.info(name, slot))
            .collect()
    }

    /// One server's status, if it is configured.
    pub fn server(&self, name: &str) -> Option<McpServerInfo> {
        self.slots().get(name).map(|slot| self.info(name, slot))
    }

    /// A server's configuration as currently applied.
    pub fn config(&self, name: &str) -> Option<ServerConfig> {
        self.slots().get(name).map(|slot| slot.config.clone())
    }

    /// The process id of a stdio server's child while it runs (for diagnostics and tests).
    pub fn process_id(&self, name: &str) -> Option<u32> {
        self.slots()
            .get(name)
            .and_then(|slot| read_state(&slot.shared).pid)
    }

    /// Where a call of the registry tool `called_as` goes, when it is a tool of a ready MCP
    /// server; `None` for built-in tools and unknown names.
    pub fn route(&self, called_as: &str) -> Option<McpToolRoute> {
        if !naming::is_mcp_name(called_as) {
            return None;
        }
        self.slots().values().find_map(|slot| {
            read_state(&slot.shared)
                .tools
                .iter()
                .find(|r| r.called_as == called_as)
                .cloned()
        })
    }

    /// Waits until `server` has `status` (or `timeout` passes); returns its info when it does.
    pub async fn wait_for_status(
        &self,
        server: &str,
        status: McpServerStatus,
        timeout: Duration,
    ) -> Option<McpServerInfo> {
        let mut changes = self.inner.changes.subscribe();
        // A waiting authorization shows in the status too.
        let mut authorizations = self
            .inner
            .options
            .authorizer
            .as_ref()
            .and_then(|a| a.changes());
        let wait = async {
            loop {
                if let Some(info) = self.server(server).filter(|i| i.status == status) {
                    return info;
                }
                let authorization = async {
                    let changed = match authorizations.as_mut() {
                        Some(rx) => rx.changed().await.is_ok(),
                        None => false,
                    };
                    if !changed {
                        std::future::pending::<()>().await;
                    }
                };
                tokio::select! {
                    changed = changes.changed() => {
                        if changed.is_err() {
                            // The manager is gone; nothing will change any more.
                            std::future::pending::<()>().await;
                        }
                    }
                    () = authorization => {}
                }
            }
        };
        tokio::time::timeout(timeout, wait).await.ok()
    }

    fn ready_peer(&self, server: &str) -> Result<(Peer<RoleClient>, ServerConfig), McpError> {
        let slots = self.slots();
        let slot = slots.get(server).ok_or_else(|| McpError::UnknownServer {
            server: server.to_string(),
        })?;
        let state = read_state(&slot.shared);
        match (&state.peer, state.status) {
            (Some(peer), McpServerStatus::Ready) => Ok((peer.clone(), slot.config.clone())),
            _ => Err(McpError::NotReady {
                server: server.to_string(),
                status: state.status,
                reason: state.error.clone(),
            }),
        }
    }

    /// The resources a ready server offers.
    pub async fn list_resources(&self, server: &str) -> Result<Vec<McpResourceInfo>, McpError> {
        let (peer, config) = self.ready_peer(server)?;
        let resources = bounded(
            server,
            "resources/list",
            config.timeout,
            peer.list_all_resources(),
        )
        .await?;
        Ok(resources
            .into_iter()
            .map(|r| McpResourceInfo {
                server_name: server.to_string(),
                uri: r.uri,
                name: r.name,
                description: r.description,
                mime_type: r.mime_type,
            })
            .collect())
    }

    /// The resources of every ready server (servers that fail to answer are logged and left out).
    pub async fn list_all_resources(&self) -> Vec<McpResourceInfo> {
        let mut all = Vec::new();
        for server in self.ready_servers() {
            match self.list_resources(&server).await {
                Ok(resources) => all.extend(resources),
                Err(e) => tracing::warn!(server = %server, error = %e, "cannot list MCP resources"),
            }
        }
        all
    }

    /// The names of the servers that are ready now.
    fn ready_servers(&self) -> Vec<String> {
        self.servers()
            .into_iter()
            .filter(|s| s.status == McpServerStatus::Ready)
            .map(|s| s.name)
            .collect()
    }

    /// The prompts of one ready server.
    pub async fn list_prompts(&self, server: &str) -> Result<Vec<McpPromptInfo>, McpError> {
        let (peer, config) = self.ready_peer(server)?;
        let prompts = bounded(
            server,
            "prompts/list",
            config.timeout,
            peer.list_all_prompts(),
        )
        .await?;
        Ok(prompts
            .into_iter()
            .map(|p| McpPromptInfo {
                server: server.to_string(),
                name: p.name,
                title: p.title,
                description: p.description,
                arguments: p
                    .arguments
                    .unwrap_or_default()
                    .into_iter()
                    .map(|a| McpPromptArgument {
                        name: a.name,
                        description: a.description,
                        required: a.required.unwrap_or(false),
                    })
                    .collect(),
            })
            .collect())
    }

    /// The prompts of every ready server that offers prompts (a server without them, or one
    /// that fails to answer, is logged and left out).
    pub async fn list_all_prompts(&self) -> Vec<McpPromptInfo> {
        let mut all = Vec::new();
        for server in self.ready_servers() {
            match self.list_prompts(&server).await {
                Ok(prompts) => all.extend(prompts),
                Err(e) => tracing::debug!(server = %server, error = %e, "no MCP prompts"),
            }
        }
        all
    }

    /// Gets prompt `name` of `server` with `arguments`, as the text the person sends.
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<McpPromptText, McpError> {
        let (peer, config) = self.ready_peer(server)?;
        let operation = format!("prompts/get {name}");
        let mut params = GetPromptRequestParams::new(name);
        params.arguments = Some(
            arguments
                .into_iter()
                .map(|(k, v)| (k, serde_json::Value::String(v)))
                .collect(),
        );
        let response = bounded(
            server,
            &operation,
            config.timeout,
            peer.get_prompt_once(params),
        )
        .await?;
        let GetPromptResponse::Complete(result) = response else {
            return Err(McpError::Protocol {
                server: server.to_string(),
                operation,
                reason: "the server asked for client input, which Braid does not support here"
                    .into(),
                code: None,
                data: None,
            });
        };
        Ok(McpPromptText {
            description: result.description,
            text: prompt_text(&result.messages),
        })
    }

    /// Reads one resource from its server; binary content is summarized, never returned whole.
    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<ResourceRead, McpError> {
        let (peer, config) = self.ready_peer(server)?;
        let operation = format!("resources/read {uri}");
        let response = bounded(
            server,
            &operation,
            config.timeout,
            peer.read_resource_once(ReadResourceRequestParams::new(uri)),
        )
        .await?;
        let ReadResourceResponse::Complete(result) = response else {
            return Err(McpError::Protocol {
                server: server.to_string(),
                operation,
                reason: "the server asked for client input, which Braid does not support".into(),
                code: None,
                data: None,
            });
        };
        Ok(crate::resource::summarize_contents(uri, &result.contents))
    }
}

fn read_state(shared: &RwLock<ServerState>) -> ServerState {
    shared
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

fn info(name: &str, state: &ServerState) -> McpServerInfo {
    McpServerInfo {
        name: name.to_string(),
        status: state.status,
        error: state.error.clone(),
        tools: state.tools.iter().map(|r| r.called_as.clone()).collect(),
        authorization_url: None,
        definition: None,
    }
}

/// One server's supervising task: connect, register tools, watch, restart.
struct Supervision {
    name: String,
    config: ServerConfig,
    shared: Arc<RwLock<ServerState>>,
    inner: Arc<Inner>,
    cancel: CancellationToken,
    /// The server's OAuth tokens and pending challenge, kept across its sessions.
    oauth: tokio::sync::Mutex<OAuthSession>,
}

/// Why a connected session ended.
enum SessionEnd {
    /// Braid stopped it.
    Stopped,
    /// The server went away; the reason says how.
    Lost(String),
}

impl Supervision {
    fn set(&self, update: impl FnOnce(&mut ServerState)) {
        {
            let mut state = self
                .shared
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            update(&mut state);
        }
        self.inner.changes.send_modify(|v| *v = v.wrapping_add(1));
    }

    fn fail(&self, reason: String) {
        self.inner.registry.unregister_server(&self.name);
        self.set(|s| {
            *s = ServerState::new(McpServerStatus::Failed);
            s.error = Some(reason);
        });
    }

    async fn run(self) {
        let policy = self.inner.options.restart.clone();
        let mut attempt = 0u32;
        loop {
            self.set(|s| {
                s.status = McpServerStatus::Starting;
                s.pid = None;
            });
            match self.session().await {
                SessionEnd::Stopped => break,
                SessionEnd::Lost(reason) => {
                    // A server that worked before gets a fresh series of retries.
                    if read_state(&self.shared).status == McpServerStatus::Ready {
                        attempt = 0;
                    }
                    tracing::warn!(server = %self.name, reason = %reason, "MCP server failed");
                    self.fail(reason);
                }
            }
            attempt += 1;
            if attempt > policy.max_attempts {
                let reason = format!(
                    "{}; gave up after {} restart attempts",
                    read_state(&self.shared).error.unwrap_or_default(),
                    policy.max_attempts
                );
                tracing::error!(server = %self.name, "MCP server given up");
                self.fail(reason);
                self.cancel.cancelled().await;
                break;
            }
            let delay = policy.backoff(attempt);
            tracing::info!(server = %self.name, attempt, delay_ms = delay.as_millis() as u64, "restarting MCP server");
            tokio::select! {
                () = self.cancel.cancelled() => break,
                () = tokio::time::sleep(delay) => {}
            }
        }
        self.inner.registry.unregister_server(&self.name);
    }

    /// One connection's life; resets the retry count when it got ready.
    async fn session(&self) -> SessionEnd {
        let (notices_tx, mut notices) = mpsc::channel(PENDING_NOTICES);
        let mut oauth = self.oauth.lock().await;
        let connected = tokio::select! {
            () = self.cancel.cancelled() => return SessionEnd::Stopped,
            c = connect(
                &self.name,
                &self.config,
                self.inner.options.startup_timeout,
                notices_tx,
                Launch {
                    message_limit: self.inner.options.max_message_bytes,
                    sandboxes: &self.inner.options.sandbox,
                },
                &mut oauth,
                self.inner.options.elicitations.clone(),
            ) => c,
        };
        let connection = match connected {
            Ok(c) => c,
            Err(e) => return SessionEnd::Lost(e.to_string()),
        };
        let peer = connection.service.peer().clone();
        let answerer = connection.service.service().clone();
        let pid = connection.pid;
        // Stopped when this session ends; dropped with this future, it kills the server too.
        let process = connection.process;
        let stop = connection.service.cancellation_token();
        let mut waiting = tokio::spawn(connection.service.waiting());

        let refusal = process.as_ref().map(|p| p.refusal()).unwrap_or_default();
        let end = match self.register_tools(&peer, &answerer, &refusal).await {
            Err(reason) => {
                stop.cancel();
                let _ = (&mut waiting).await;
                SessionEnd::Lost(reason)
            }
            Ok(routes) => {
                tracing::info!(server = %self.name, tools = routes.len(), pid = ?pid, "MCP server ready");
                self.set(|s| {
                    s.status = McpServerStatus::Ready;
                    s.error = None;
                    s.tools = routes;
                    s.peer = Some(peer.clone());
                    s.pid = pid;
                });
                loop {
                    tokio::select! {
                        () = self.cancel.cancelled() => {
                            stop.cancel();
                            let _ = (&mut waiting).await;
                            break SessionEnd::Stopped;
                        }
                        quit = &mut waiting => {
                            break SessionEnd::Lost(match quit {
                                Ok(reason) => format!("the server closed the connection ({reason:?})"),
                                Err(e) => format!("the connection task failed: {e}"),
                            });
                        }
                        Some(ServerNotice::ToolsChanged) = notices.recv() => {
                            match self.register_tools(&peer, &answerer, &refusal).await {
                                Ok(routes) => {
                                    tracing::info!(server = %self.name, tools = routes.len(), "MCP tool list refreshed");
                                    self.set(|s| s.tools = routes);
                                }
                                Err(reason) => tracing::warn!(server = %self.name, reason = %reason, "cannot refresh MCP tools"),
                            }
                        }
                    }
                }
            }
        };
        self.inner.registry.unregister_server(&self.name);
        // The session is over: the server exits (or is killed) with whatever it started.
        let refused = match process {
            Some(process) => process.stop().await,
            None => None,
        };
        // A request refused for want of authorization (a 401 after the tokens expired and
        // could not be refreshed, a 403 asking for more scope) is answered before the next
        // handshake.
        if matches!(end, SessionEnd::Lost(_)) && oauth.reauthorize_after_refusal() {
            tracing::info!(server = %self.name, "MCP server refused a request for want of authorization; authorizing again");
        }
        match (end, refused) {
            (SessionEnd::Lost(_), Some(why)) => SessionEnd::Lost(why),
            (end, _) => end,
        }
    }

    /// Lists the server's tools and (re)registers them; returns their routes.
    async fn register_tools(
        &self,
        peer: &Peer<RoleClient>,
        answerer: &BraidClient,
        refusal: &Refusal,
    ) -> Result<Vec<McpToolRoute>, String> {
        let tools = tokio::time::timeout(self.config.timeout, peer.list_all_tools())
            .await
            .map_err(|_| "tools/list did not answer in time".to_string())?
            .map_err(|e| format!("tools/list failed: {e}"))?;
        let registry = &self.inner.registry;
        registry.unregister_server(&self.name);
        let mut routes = Vec::with_capacity(tools.len());
        let session = ServerSession {
            server: &self.name,
            timeout: self.config.timeout,
            hints: self.config.tool_hints,
            peer,
            answerer: Some(answerer),
            refusal,
        };
        for tool in &tools {
            let approval = if self.config.is_auto_approved(&tool.name) {
                AutoApproval::Approved
            } else {
                AutoApproval::AskPolicy
            };
            let make =
                |called_as: String| Arc::new(McpTool::new(&session, tool, called_as, approval));
            let plain = make(naming::tool_name(&self.name, &tool.name));
            let registered = match registry.register(plain.clone()) {
                Err(RegistryError::DuplicateName { .. }) => {
                    let hashed = make(naming::hashed_tool_name(&self.name, &tool.name));
                    registry.register(hashed.clone()).map(|()| hashed)
                }
                other => other.map(|()| plain),
            };
            match registered {
                Ok(t) => routes.push(t.route().clone()),
                Err(e) => {
                    tracing::warn!(server = %self.name, tool = %tool.name, error = %e, "MCP tool not registered")
                }
            }
        }
        Ok(routes)
    }
}

/// A request to a server, bounded by `limit`; a timeout or an error names the server and the
/// operation.
async fn bounded<T>(
    server: &str,
    operation: &str,
    limit: Duration,
    call: impl std::future::Future<Output = Result<T, rmcp::ServiceError>>,
) -> Result<T, McpError> {
    tokio::time::timeout(limit, call)
        .await
        .map_err(|_| McpError::Timeout {
            server: server.to_string(),
            operation: operation.to_string(),
            timeout_ms: limit.as_millis() as u64,
        })?
        .map_err(|e| McpError::protocol(server, operation, e))
}

/// A prompt's messages as one text: a user message as it is, an assistant message after
/// `Assistant:`, content that is not text by what it is.
fn prompt_text(messages: &[rmcp::model::PromptMessage]) -> String {
    messages
        .iter()
        .map(|m| {
            let content = match serde_json::to_value(&m.content) {
                Ok(value) => match value.get("type").and_then(|t| t.as_str()) {
                    Some("text") => value["text"].as_str().unwrap_or_default().to_string(),
                    Some("resource") => {
                        let resource = &value["resource"];
                        let uri = resource["uri"].as_str().unwrap_or_default();
                        match resource["text"].as_str() {
                            Some(text) => format!("[resource {uri}]\n{text}"),
                            None => format!("[resource {uri}]"),
                        }
                    }
                    Some("resource_link") => {
                        format!("[resource {}]", value["uri"].as_str().unwrap_or_default())
                    }
                    Some(other) => format!("[{other}]"),
                    None => String::new(),
                },
                Err(_) => String::new(),
            };
            match m.role {
                rmcp::model::Role::User => content,
                rmcp::model::Role::Assistant => format!("Assistant: {content}"),
            }
        })
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// A seed for backon's jitter that differs per call and per process (its default seed is fixed,
/// which would make every client wait the same).
fn jitter_seed() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(std::time::Instant::now())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reload_from_a_broken_file_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp_servers.json");
        std::fs::write(
            &path,
            r#"{"mcpServers": {"off": {"command": "x", "disabled": true}}}"#,
        )
        .unwrap();
        let manager = McpManager::new(Arc::new(ToolRegistry::new()), ManagerOptions::default());
        let summary = manager.reload_from(&path).await.unwrap();
        assert_eq!(summary.added, ["off"]);
        assert_eq!(
            manager.server("off").unwrap().status,
            McpServerStatus::Disabled
        );
        std::fs::write(&path, r#"{"mcpServers": {"off": {"command": 3}}}"#).unwrap();
        let err = manager.reload_from(&path).await.unwrap_err();
        assert!(err.to_string().contains("`off`"), "{err}");
        assert!(manager.server("off").is_some());
        // A deleted file means no servers.
        std::fs::remove_file(&path).unwrap();
        let summary = manager.reload_from(&path).await.unwrap();
        assert_eq!(summary.removed, ["off"]);
        assert!(manager.servers().is_empty());
    }

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let p = RestartPolicy {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(500),
            max_attempts: 10,
        };
        let ms = |n| Duration::from_millis(n);
        for _ in 0..50 {
            assert!((ms(100)..=ms(200)).contains(&p.backoff(1)));
            assert!((ms(200)..=ms(400)).contains(&p.backoff(2)));
            assert!((ms(400)..=ms(500)).contains(&p.backoff(3)));
            assert_eq!(p.backoff(4), ms(500));
            assert_eq!(p.backoff(60), ms(500));
        }
    }
}
