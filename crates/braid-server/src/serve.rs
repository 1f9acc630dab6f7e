//! `braid serve`: opens the store, connects the model, starts the HTTP server, and shuts down
//! gracefully (event streams end with a notice, contexts are stopped and their state saved).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::http::HeaderValue;
use axum::serve::ListenerExt as _;
use braid_context::{ContextRegistry, EngineSettings, Services};
use braid_llm::{LlmClient, ProviderConfig, build_client};
use braid_store::{Backend, PostgresOptions, PostgresStore, ReplicaIdentity, SqliteStore, Store};
use braid_tools::WorkspaceRoots;
use tokio::task::JoinHandle;

use crate::app::{App, AppConfig, DEFAULT_MAX_BODY, DEFAULT_MAX_MESSAGE_TEXT, McpEdits, router};
use crate::guard::RequestGuard;
use crate::mcp::{ManagerDirectory, McpDirectory, NoMcp, StoreTokens};
use crate::metrics::{MeteredLlm, Metrics};
use braid_context::title::TitleSetting;
use braid_mcp::oauth::PersonAuthorizer;
use braid_mcp::{Elicitations, ManagerOptions, McpConfig, McpManager};

/// `braid serve`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Address and port to listen on; port 0 picks a free one (the log says which). Binding
    /// anything but loopback requires BRAID_API_TOKEN.
    #[arg(long, env = "BRAID_BIND", default_value = "127.0.0.1:8787")]
    pub bind: SocketAddr,
    /// Directory of the SQLite database (`braid.db`).
    #[arg(long, env = "BRAID_DATA_DIR", default_value = "./.braid")]
    pub data_dir: PathBuf,
    /// A PostgreSQL URL (`postgres://...`) to use instead of SQLite, or the path of a SQLite
    /// file to use instead of `<data-dir>/braid.db`.
    #[arg(long, env = "BRAID_STORE")]
    pub store: Option<String>,
    /// The largest request body accepted, in bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_BODY)]
    pub max_body: usize,
    /// The most text one send may carry (its text and its images' captions), in bytes; a
    /// larger send is refused with 413 before it reaches its context.
    #[arg(long, default_value_t = DEFAULT_MAX_MESSAGE_TEXT)]
    pub max_message_text: usize,
    /// The web UI's built files.
    #[arg(long, env = "BRAID_WEB_DIR", default_value = "web/dist")]
    pub web_dir: PathBuf,
    /// Allow this origin through CORS and the request guard (repeatable), e.g.
    /// `https://app.example.com`. CORS is off when none is given.
    #[arg(
        long = "cors-origin",
        env = "BRAID_CORS_ORIGINS",
        value_delimiter = ','
    )]
    pub cors_origins: Vec<String>,
    /// Accept requests whose `Host` header names this host (`name` or `name:port`; repeatable).
    /// The bound address, `localhost`, `127.0.0.1` and `[::1]` are always accepted; any other
    /// `Host` is refused with 403 (this defeats DNS rebinding).
    #[arg(
        long = "allowed-host",
        env = "BRAID_ALLOWED_HOSTS",
        value_delimiter = ','
    )]
    pub allowed_hosts: Vec<String>,
    /// Seconds between heartbeats on an idle event stream.
    #[arg(long, default_value_t = 15)]
    pub heartbeat_secs: u64,
    /// Whether the model writes a title for untitled contexts after their first exchange.
    #[arg(long, value_enum, default_value_t = TitleArg::Auto)]
    pub titles: TitleArg,
    /// Unload a context from memory after this many idle seconds.
    #[arg(long, default_value_t = 900)]
    pub idle_unload_secs: u64,
    /// A directory inside which context workspaces may lie (repeatable; the environment
    /// variable is a `:`-separated list). Default: the directory `braid serve` starts in. `/`,
    /// `/proc`, `/sys`, `/dev` and the data directory are never workspaces.
    #[arg(
        long = "workspace-root",
        env = "BRAID_WORKSPACE_ROOTS",
        value_delimiter = ':'
    )]
    pub workspace_roots: Vec<PathBuf>,
    /// A host that image URLs may name although it is internal (loopback, private, link-local),
    /// such as an intranet image server (repeatable; the environment variable is a
    /// `,`-separated list). Other internal addresses are refused.
    #[arg(
        long = "allow-image-host",
        env = "BRAID_ALLOW_IMAGE_HOSTS",
        value_delimiter = ','
    )]
    pub allow_image_hosts: Vec<String>,
    /// MCP servers file (Claude Desktop format). Read once MCP is wired into the server.
    #[arg(long, env = "BRAID_MCP_CONFIG")]
    pub mcp_config: Option<PathBuf>,
    /// Refuse to add, replace or remove MCP servers through the API (the MCP panel then only
    /// looks); the file is changed on the server and reloaded.
    #[arg(long, env = "BRAID_MCP_CONFIG_READONLY")]
    pub mcp_config_readonly: bool,
    /// With PostgreSQL and several replicas: the URL other replicas reach this one at
    /// (`http://host:port`), to forward requests for the contexts it owns. Default: the bound
    /// address.
    #[arg(long, env = "BRAID_ADVERTISE_URL")]
    pub advertise_url: Option<String>,
    /// The sandbox commands run in when a context's configuration names none: workspace-write
    /// (write only in the workspace, no network), read-only, or off (needs
    /// --allow-unsandboxed). Linux with Landlock.
    #[arg(long, env = "BRAID_SANDBOX", value_enum, default_value_t = SandboxArg::WorkspaceWrite)]
    pub sandbox: SandboxArg,
    /// Let commands run without a sandbox: contexts may then choose mode `off`, and on a
    /// kernel without Landlock commands run unconfined (with a warning in the log) instead of
    /// being refused.
    #[arg(long, env = "BRAID_ALLOW_UNSANDBOXED")]
    pub allow_unsandboxed: bool,
}

/// `--sandbox`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SandboxArg {
    /// Write only in the workspace and a private temporary directory; no network.
    WorkspaceWrite,
    /// No writes; no network.
    ReadOnly,
    /// No sandbox (needs --allow-unsandboxed).
    Off,
}

impl From<SandboxArg> for braid_tools::SandboxMode {
    fn from(arg: SandboxArg) -> Self {
        match arg {
            SandboxArg::WorkspaceWrite => Self::WorkspaceWrite,
            SandboxArg::ReadOnly => Self::ReadOnly,
            SandboxArg::Off => Self::Off,
        }
    }
}

/// `--titles`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TitleArg {
    /// The model titles untitled contexts.
    Auto,
    /// Never.
    Off,
}

/// Where contexts are stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreLocation {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL server.
    Postgres(String),
}

/// Everything a server needs to start.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Where to listen.
    pub bind: SocketAddr,
    /// Where contexts are stored.
    pub store: StoreLocation,
    /// The model, when one is configured.
    pub llm: Option<ProviderConfig>,
    /// Server behaviour.
    pub app: AppConfig,
    /// Engine limits.
    pub engine: EngineSettings,
    /// How often idle contexts are looked for.
    pub unload_every: Duration,
    /// The MCP servers file, when there is one (see [`braid_mcp::find_config_file`]).
    pub mcp_config: Option<PathBuf>,
    /// Where other replicas forward requests for this replica's contexts; `None`: the bound
    /// address.
    pub advertise_url: Option<String>,
}

/// How often a replica on PostgreSQL looks for contexts whose owner stopped renewing its lease.
pub const ADOPT_EVERY: Duration = Duration::from_millis(500);

/// Why the server cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The sandbox settings contradict each other (`--sandbox off` without
    /// `--allow-unsandboxed`).
    #[error("{0}")]
    Sandbox(braid_tools::SandboxError),
    /// A non-loopback address without a token.
    #[error("refusing to listen on {0} without a token: set BRAID_API_TOKEN, or bind 127.0.0.1")]
    UnprotectedBind(SocketAddr),
    /// The address cannot be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The data directory cannot be created.
    #[error("cannot create the data directory {path}: {source}")]
    DataDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The store cannot be opened.
    #[error("cannot open the store: {0}")]
    Store(#[from] braid_store::StoreError),
    /// The client that forwards requests to other replicas cannot be built.
    #[error(transparent)]
    Forwarder(#[from] crate::forward::ForwarderError),
    /// The model configuration is unusable.
    #[error("invalid model configuration: {0}")]
    Llm(String),
    /// A CORS origin is not a valid header value.
    #[error("invalid --cors-origin `{0}`")]
    CorsOrigin(String),
    /// A `--workspace-root` is not an existing directory.
    #[error("invalid --workspace-root (BRAID_WORKSPACE_ROOTS): {0}")]
    WorkspaceRoot(braid_tools::WorkspaceError),
    /// An `--allowed-host` cannot be a `Host` header.
    #[error("invalid --allowed-host: {0}")]
    AllowedHost(#[from] crate::guard::InvalidAllowedHost),
    /// The tools could not be registered.
    #[error("cannot register the built-in tools: {0}")]
    Tools(String),
    /// The MCP servers file cannot be read or is invalid (the message names server and field).
    #[error("invalid MCP configuration {path}: {message}")]
    McpConfig {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The async runtime cannot start (threads or the I/O driver).
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}

impl ServeArgs {
    /// The options these arguments and the environment describe. The model comes from
    /// `BRAID_LLM_*` / `BRAID_MODEL` (see [`llm_from_env`]); the token from `BRAID_API_TOKEN`.
    pub fn into_options(self) -> Result<ServeOptions, ServeError> {
        let store = match self.store {
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                StoreLocation::Postgres(url)
            }
            Some(path) => StoreLocation::Sqlite(PathBuf::from(path)),
            None => StoreLocation::Sqlite(self.data_dir.join("braid.db")),
        };
        let cors_origins = self
            .cors_origins
            .iter()
            .map(|o| HeaderValue::from_str(o).map_err(|_| ServeError::CorsOrigin(o.clone())))
            .collect::<Result<Vec<_>, _>>()?;
        let api_token = std::env::var("BRAID_API_TOKEN")
            .ok()
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty());
        let llm = llm_from_env()?;
        let working_dir = std::env::current_dir().unwrap_or_default();
        let roots: Vec<PathBuf> = self
            .workspace_roots
            .into_iter()
            .filter(|r| !r.as_os_str().is_empty())
            .collect();
        let roots = if roots.is_empty() {
            vec![working_dir.clone()]
        } else {
            roots
        };
        let mut data_dirs = vec![self.data_dir.clone()];
        if let StoreLocation::Sqlite(file) = &store
            && let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty())
        {
            data_dirs.push(dir.to_owned());
        }
        let unsandboxed = if self.allow_unsandboxed {
            braid_tools::Unsandboxed::Allowed
        } else {
            braid_tools::Unsandboxed::Refused
        };
        // Commands never read or write Braid's own data: the data directory and the store's.
        let sandbox = braid_tools::SandboxSettings::new(self.sandbox.into(), unsandboxed)
            .map_err(ServeError::Sandbox)?
            .protecting(data_dirs.iter().cloned());
        let workspace_roots =
            WorkspaceRoots::new(roots, data_dirs).map_err(ServeError::WorkspaceRoot)?;
        let engine = EngineSettings {
            default_model: llm.as_ref().map(|c| c.model.clone()).unwrap_or_default(),
            idle_unload_after: Duration::from_secs(self.idle_unload_secs),
            workspace_roots,
            user_workflows: Some(self.data_dir.join("workflows")),
            image_hosts: braid_vision::ImageHosts::allowing(self.allow_image_hosts),
            titles: match self.titles {
                TitleArg::Auto => TitleSetting::Auto,
                TitleArg::Off => TitleSetting::Off,
            },
            ..EngineSettings::default()
        };
        let mcp_config =
            braid_mcp::find_config_file(self.mcp_config.as_deref(), &working_dir, &self.data_dir);
        Ok(ServeOptions {
            bind: self.bind,
            store,
            llm,
            app: AppConfig {
                max_body: self.max_body,
                max_message_text: self.max_message_text,
                heartbeat: Duration::from_secs(self.heartbeat_secs.max(1)),
                api_token,
                cors_origins,
                allowed_hosts: self
                    .allowed_hosts
                    .iter()
                    .map(|h| h.trim().to_owned())
                    .filter(|h| !h.is_empty())
                    .collect(),
                web_dir: self.web_dir,
                mcp_edits: if self.mcp_config_readonly {
                    McpEdits::Refused
                } else {
                    McpEdits::Allowed
                },
                sandbox,
            },
            engine,
            unload_every: Duration::from_secs(60),
            mcp_config,
            advertise_url: self
                .advertise_url
                .map(|u| u.trim().trim_end_matches('/').to_owned())
                .filter(|u| !u.is_empty()),
        })
    }
}

/// The model configured in the environment, or `None` when nothing is set (the server then
/// starts, and a send gets an error event naming the variables to set).
pub fn llm_from_env() -> Result<Option<ProviderConfig>, ServeError> {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    let configured = [
        "BRAID_LLM_PROVIDER",
        "BRAID_LLM_BASE_URL",
        "BRAID_LLM_API_KEY",
        "BRAID_MODEL",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
    ]
    .iter()
    .any(|name| set(name));
    if !configured {
        return Ok(None);
    }
    ProviderConfig::from_env()
        .map(Some)
        .map_err(|e| ServeError::Llm(e.to_string()))
}

/// A running server.
pub struct Server {
    /// The address it listens on (with the port picked when 0 was asked).
    pub addr: SocketAddr,
    /// Its state.
    pub app: Arc<App>,
    task: JoinHandle<()>,
    unloader: JoinHandle<()>,
    adopter: Option<JoinHandle<()>>,
}

impl Server {
    /// `http://ADDR`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Shuts down gracefully: event streams end with a notice, connections drain, every
    /// context is stopped and the store flushed.
    pub async fn stop(self) {
        self.app.shutdown.cancel();
        self.unloader.abort();
        if let Some(adopter) = &self.adopter {
            adopter.abort();
        }
        if tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .is_err()
        {
            tracing::warn!("connections still open after 10 s; closing");
        }
        self.app.registry.shutdown().await;
        if let Some(manager) = &self.app.registry.services().mcp {
            // Stops every MCP child process and waits until they are gone.
            manager.shutdown().await;
        }
        if let Err(error) = self.app.registry.services().store.close().await {
            tracing::error!(%error, "store not closed cleanly");
        }
        tracing::info!("braid stopped");
    }
}

/// Opens the store, builds the engine, starts the MCP servers in the background and starts
/// listening.
pub async fn start(options: ServeOptions) -> Result<Server, ServeError> {
    start_with(options, Arc::new(NoMcp)).await
}

/// Connections the kernel completes for the server before it accepts them. Tokio's
/// `TcpListener::bind` listens with the standard library's 128: when more clients than that
/// connect at once while the server is busy, the kernel drops the handshakes it has no room
/// for, and each of those clients tries again a second later (the mock LLM, listening the same
/// way, dropped some 1,400 a run under `braid-load --contexts 1000`). The kernel lowers it to
/// `net.core.somaxconn` (4,096 by default since Linux 5.4).
const LISTEN_BACKLOG: u32 = 4096;

/// Listens on `addr` with [`LISTEN_BACKLOG`].
fn listen(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As `TcpListener::bind` does on Unix: a restarted server binds its port while the old
    // one's connections linger in TIME_WAIT.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// [`start`] with the MCP directory to use when no MCP servers file is configured (tests pass
/// their own).
pub async fn start_with(
    options: ServeOptions,
    mcp: Arc<dyn McpDirectory>,
) -> Result<Server, ServeError> {
    if !options.bind.ip().is_loopback() && options.app.api_token.is_none() {
        return Err(ServeError::UnprotectedBind(options.bind));
    }
    // A bad --allowed-host stops the start before anything is opened; the guard in use is
    // built once the port is known.
    RequestGuard::new(options.bind, &options.app.allowed_hosts, &[])?;
    let listener = listen(options.bind).map_err(|source| ServeError::Bind {
        addr: options.bind,
        source,
    })?;
    let addr = listener.local_addr().map_err(|source| ServeError::Bind {
        addr: options.bind,
        source,
    })?;
    let replica = ReplicaIdentity {
        address: Some(
            options
                .advertise_url
                .clone()
                .unwrap_or_else(|| format!("http://{addr}")),
        ),
        ..ReplicaIdentity::default()
    };
    let store: Arc<dyn Store> = match &options.store {
        StoreLocation::Sqlite(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|source| ServeError::DataDir {
                    path: dir.to_owned(),
                    source,
                })?;
            }
            tracing::info!(path = %path.display(), "store: SQLite");
            Arc::new(SqliteStore::open(path).await?)
        }
        StoreLocation::Postgres(url) => {
            tracing::info!("store: PostgreSQL");
            tracing::info!(replica = %replica.id, address = ?replica.address, "replica on PostgreSQL");
            Arc::new(
                PostgresStore::connect_url_with(
                    url,
                    PostgresOptions {
                        replica,
                        ..PostgresOptions::default()
                    },
                )
                .await?,
            )
        }
    };
    let metrics = Arc::new(Metrics::default());
    let llm: Option<Arc<dyn LlmClient>> = match options.llm {
        Some(config) => {
            tracing::info!(provider = ?config.provider, base_url = %config.base_url, model = %config.model, "model configured");
            let client = build_client(config).map_err(|e| ServeError::Llm(e.to_string()))?;
            Some(Arc::new(MeteredLlm::new(client, metrics.clone())))
        }
        None => {
            tracing::warn!(
                "no model configured: set BRAID_LLM_PROVIDER, BRAID_LLM_BASE_URL, BRAID_LLM_API_KEY and BRAID_MODEL; sends will answer with an error event"
            );
            None
        }
    };
    let tools = Arc::new(
        braid_tools::builtin_registry_with_sandbox(options.app.sandbox.clone())
            .map_err(|e| ServeError::Tools(e.to_string()))?,
    );
    // MCP servers start in the background: a slow or broken one never delays the server. Their
    // OAuth authorizations come back to the callback route of this address.
    let authorizer = Arc::new(PersonAuthorizer::new(oauth_callback_url(addr)));
    // A server's question waits for the person while a browser holds an event stream open;
    // otherwise the server's elicitation policy answers.
    let elicitations = {
        let metrics = metrics.clone();
        Arc::new(Elicitations::new(Arc::new(move || {
            metrics.open_streams() > 0
        })))
    };
    let (manager, mcp): (Option<McpManager>, Arc<dyn McpDirectory>) = match &options.mcp_config {
        Some(path) => {
            let config = McpConfig::load(path).map_err(|e| ServeError::McpConfig {
                path: path.clone(),
                message: e.to_string(),
            })?;
            tracing::info!(path = %path.display(), servers = config.servers.len(), "MCP servers configured");
            let manager = McpManager::new(
                tools.clone(),
                ManagerOptions {
                    authorizer: Some(authorizer.clone()),
                    tokens: Some(Arc::new(StoreTokens(store.clone()))),
                    elicitations: Some(elicitations.clone()),
                    sandbox: options.app.sandbox.clone(),
                    ..ManagerOptions::default()
                },
            );
            manager.start(config).await;
            let directory = ManagerDirectory::new(manager.clone(), path.clone())
                .with_authorizer(authorizer.clone())
                .with_elicitations(elicitations.clone());
            let directory = match options.app.mcp_edits {
                McpEdits::Allowed => directory,
                McpEdits::Refused => directory.read_only(),
            };
            (Some(manager), Arc::new(directory))
        }
        None => (None, mcp),
    };
    let registry = ContextRegistry::new(Services {
        frames: Default::default(),
        store,
        llm,
        tools,
        mcp: manager.clone(),
        // The engine decides on escalations with the same operator settings the commands run
        // under: one source for both.
        settings: EngineSettings {
            unsandboxed: options.app.sandbox.unsandboxed,
            ..options.engine
        },
    });
    let origins: Vec<String> = options
        .app
        .cors_origins
        .iter()
        .filter_map(|o| o.to_str().ok().map(str::to_owned))
        .collect();
    let guard = RequestGuard::new(addr, &options.app.allowed_hosts, &origins)?;
    let forwarder = crate::forward::Forwarder::new()?;
    let app = App::new(
        registry.clone(),
        metrics,
        mcp,
        options.app,
        guard,
        forwarder,
    );
    // Served as a make-service over a router already bound to its state: served as a plain
    // `Router`, axum binds the state anew for every connection, which rebuilds every route
    // (and drops them all when the connection closes).
    let routes = router(app.clone()).with_state(()).into_make_service();
    let shutdown = app.shutdown.clone();
    // Event streams write small frames a few milliseconds apart: with Nagle's algorithm a
    // frame written while the previous one waits for its ACK is held back (by 10 ms and more
    // on loopback), so every connection sends at once.
    let listener = listener.tap_io(|tcp| {
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY not set on a connection");
        }
    });
    let task = tokio::spawn(async move {
        let served = axum::serve(listener, routes)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await;
        if let Err(error) = served {
            tracing::error!(%error, "HTTP server failed");
        }
    });
    let unloader = {
        let registry = registry.clone();
        let every = options.unload_every.max(Duration::from_millis(100));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.tick().await;
            loop {
                tick.tick().await;
                let n = registry.unload_idle().await;
                if n > 0 {
                    tracing::debug!(unloaded = n, "idle contexts unloaded");
                }
            }
        })
    };
    // Replicas share the store: a context whose owner died is taken over here (or by another
    // replica, whichever is first) within the lease time and the scan.
    let adopter = (registry.services().store.backend() == Backend::Postgres).then(|| {
        let registry = registry.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(ADOPT_EVERY);
            loop {
                tick.tick().await;
                registry.adopt_orphans().await;
            }
        })
    });
    tracing::info!(url = %format!("http://{addr}"), "braid is listening");
    Ok(Server {
        addr,
        app,
        task,
        unloader,
        adopter,
    })
}

/// Waits for SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = term.recv() => {}
                }
            }
            Err(error) => {
                tracing::warn!(%error, "SIGTERM handler not installed");
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}

/// `braid serve`: runs until SIGINT/SIGTERM.
pub async fn run(args: ServeArgs) -> Result<(), ServeError> {
    let server = start(args.into_options()?).await?;
    shutdown_signal().await;
    tracing::info!("shutting down");
    server.stop().await;
    Ok(())
}

/// [`run`] on a runtime of its own, until the server stops. The binary calls this instead of
/// polling [`run`] itself: release builds do not share generic code between crates, so the
/// crate that polls the server's future compiles every async layer under it again (the `braid`
/// binary took as long to compile as this whole library).
pub fn run_blocking(args: ServeArgs) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Runtime::new().map_err(ServeError::Runtime)?;
    runtime.block_on(run(args))
}

/// Where an MCP server's authorization server sends the person's browser back: the callback
/// route on the address Braid listens on (`localhost` when it listens on every address, since
/// the browser runs beside Braid).
pub fn oauth_callback_url(addr: SocketAddr) -> String {
    let host = if addr.ip().is_unspecified() {
        format!("localhost:{}", addr.port())
    } else {
        addr.to_string()
    };
    format!("http://{host}{}", crate::mcp::OAUTH_CALLBACK_PATH)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn options(args: &[&str]) -> Result<ServeOptions, ServeError> {
        Cli::try_parse_from(std::iter::once("braid").chain(args.iter().copied()))
            .unwrap()
            .serve
            .into_options()
    }

    #[test]
    fn the_sandbox_flags_set_the_default_mode_and_protect_the_data_directory() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let o = options(&["--data-dir", data.to_str().unwrap()]).unwrap();
        assert_eq!(
            o.app.sandbox.default_mode,
            braid_tools::SandboxMode::WorkspaceWrite
        );
        assert_eq!(o.app.sandbox.unsandboxed, braid_tools::Unsandboxed::Refused);
        assert!(o.app.sandbox.protected.contains(&data));
        let read_only = options(&["--sandbox", "read-only"]).unwrap();
        assert_eq!(
            read_only.app.sandbox.default_mode,
            braid_tools::SandboxMode::ReadOnly
        );
        let off = options(&["--sandbox", "off", "--allow-unsandboxed"]).unwrap();
        assert_eq!(off.app.sandbox.default_mode, braid_tools::SandboxMode::Off);
    }

    #[test]
    fn sandbox_off_needs_allow_unsandboxed() {
        let err = options(&["--sandbox", "off"]).err().unwrap();
        assert!(matches!(err, ServeError::Sandbox(_)));
        assert!(err.to_string().contains("--allow-unsandboxed"), "{err}");
    }
}
