//! One live connection to an MCP server over stdio (a child process) or streamable HTTP.
//!
//! A stdio server is a child Braid starts itself: from [`ChildEnvironment`] (no secrets, plus
//! the entry's `env`), as the leader of its own [`ProcessGroup`], with its messages bounded by
//! [`MAX_MESSAGE_BYTES`]. Over HTTP the same bound applies to each server-sent event.

use std::collections::VecDeque;
use std::pin::Pin;
use std::process::Stdio;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use braid_tools::{ChildEnvironment, ProcessGroup};
use futures::StreamExt;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationCapability,
    ErrorData, FormElicitationCapability, Implementation, ProtocolVersion,
    UrlElicitationCapability,
};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, NotificationContext,
    RequestContext, RunningService,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::process::{Child, ChildStdout};
use tokio::sync::mpsc;
use tokio_util::codec::{FramedRead, LinesCodec};

use crate::config::{Lifecycle, ServerConfig, TransportConfig};
use crate::elicitation::{ElicitationPolicy, Elicitations};
use crate::error::McpError;
use crate::oauth::{self, OAuthSession};

/// How many of a server's last stderr lines are kept to explain a start failure.
const STDERR_LINES_KEPT: usize = 50;

/// The longest stderr line kept whole; the rest of a longer one is dropped.
const MAX_STDERR_LINE_BYTES: usize = 8 * 1024;

/// The largest JSON-RPC message Braid accepts from a server (one stdio line, one HTTP event).
/// A larger one ends the session with an error naming this limit; the server is restarted.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// Notices waiting for the manager; more are dropped, since one pending "tools changed" already
/// makes the manager list the tools again.
pub(crate) const PENDING_NOTICES: usize = 4;

/// How long a stopped stdio server may take to exit by itself (its stdin is closed) before its
/// process group is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// A server-initiated notification the manager reacts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ServerNotice {
    /// `notifications/tools/list_changed`: list the tools again.
    ToolsChanged,
}

/// Braid's side of an MCP session: it advertises elicitation (form and URL), answered by the
/// server's [`ElicitationPolicy`], and forwards list-changed notifications. It offers no
/// sampling or roots, which Braid does not provide.
#[derive(Clone)]
pub(crate) struct BraidClient {
    notices: mpsc::Sender<ServerNotice>,
    elicitation: ElicitationPolicy,
    /// The server's name and where its questions wait for the person, when one may be asked.
    asker: Option<(String, Arc<Elicitations>)>,
}

impl BraidClient {
    /// Answers a server's elicitation request: the person when one may be asked and answers,
    /// else the server's [`ElicitationPolicy`].
    pub(crate) async fn elicit(&self, request: &ElicitRequestParams) -> ElicitResult {
        if let Some((server, asked)) = &self.asker
            && let Some(answer) = asked.ask(server, request).await
        {
            tracing::info!(server = %server, action = ?answer.action, "MCP elicitation answered by the person");
            return answer;
        }
        let answer = self.elicitation.answer(request);
        tracing::info!(policy = ?self.elicitation, action = ?answer.action, "MCP elicitation answered by policy");
        answer
    }

    /// Tells the manager the tool list changed, without ever waiting: when the queue is full a
    /// refresh is already pending and will see this change too; when it is closed the
    /// connection is being dropped.
    fn tools_changed(&self) {
        let _ = self.notices.try_send(ServerNotice::ToolsChanged);
    }
}

impl ClientHandler for BraidClient {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed();
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(self.elicit(&request).await)
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::new())
                .with_url(UrlElicitationCapability::new()),
        );
        // The newest version that still has an `initialize` handshake: a server that refuses
        // `initialize` is asked again with `server/discover` (see [`connect`]).
        ClientConfig::new(
            capabilities,
            Implementation::new("braid", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }
}

/// Why Braid stopped reading a server, shared between its reader, the session and its tools
/// (so a call cut short can say why).
pub(crate) type Refusal = Arc<Mutex<Option<String>>>;

/// A stdio server's stdout, failing once one message (line) passes `limit` bytes, so an
/// oversized message ends the session with a reason instead of filling memory.
struct BoundedMessages {
    inner: ChildStdout,
    limit: usize,
    line: usize,
    refusal: Refusal,
}

impl AsyncRead for BoundedMessages {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {}
            other => return other,
        }
        for &byte in &buf.filled()[before..] {
            if byte == b'\n' {
                this.line = 0;
                continue;
            }
            this.line += 1;
            if this.line > this.limit {
                let reason = format!(
                    "the server sent a message larger than {} bytes (MAX_MESSAGE_BYTES); the connection was closed",
                    this.limit
                );
                *this.refusal.lock().unwrap_or_else(|p| p.into_inner()) = Some(reason.clone());
                return Poll::Ready(Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    reason,
                )));
            }
        }
        Poll::Ready(Ok(()))
    }
}

/// A running stdio server process.
pub(crate) struct ServerProcess {
    child: Child,
    group: Option<ProcessGroup>,
    refusal: Refusal,
    /// Held while the server runs: dropping it removes the server's private temporary
    /// directory.
    _sandbox: Option<braid_tools::Sandbox>,
}

impl ServerProcess {
    /// Ends the process after its session ended: it may exit by itself within [`EXIT_GRACE`]
    /// (its stdin is closed), then its whole group is killed, so nothing it started outlives
    /// it. Answers why Braid refused the server's output, if it did.
    pub(crate) async fn stop(mut self) -> Option<String> {
        let _ = tokio::time::timeout(EXIT_GRACE, self.child.wait()).await;
        if let Some(group) = self.group.as_mut() {
            group.kill();
        }
        let _ = self.child.wait().await;
        self.refusal
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Why Braid stopped reading the server, once it has.
    pub(crate) fn refusal(&self) -> Refusal {
        self.refusal.clone()
    }
}

/// A connected, initialized session.
pub(crate) struct Connection {
    /// The rmcp session; cancelling it closes the transport.
    pub(crate) service: RunningService<RoleClient, BraidClient>,
    /// The child's process id for stdio servers.
    pub(crate) pid: Option<u32>,
    /// The child of a stdio server; dropping it kills the server and its group.
    pub(crate) process: Option<ServerProcess>,
}

/// What a connection is made with beside the server's own entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Launch<'a> {
    /// Messages over this many bytes end the session.
    pub(crate) message_limit: usize,
    /// The operator's sandbox settings, for a stdio server whose entry names a sandbox.
    pub(crate) sandboxes: &'a braid_tools::SandboxSettings,
}

/// Connects to `server` and performs the MCP handshake within `startup_timeout`; messages over
/// `launch.message_limit` bytes end the session.
///
/// Protocol versions ([`Lifecycle`]): by default Braid first offers the newest version with an
/// `initialize` handshake (2025-11-25), which every server of the earlier versions answers with
/// the version it speaks; a server that refuses `initialize` with a JSON-RPC error is asked
/// again on a fresh connection with `server/discover` (2026-07-28). A stateless entry starts
/// with `server/discover`.
pub(crate) async fn connect(
    server: &str,
    config: &ServerConfig,
    startup_timeout: Duration,
    notices: mpsc::Sender<ServerNotice>,
    launch: Launch<'_>,
    oauth: &mut OAuthSession,
    elicitations: Option<Arc<Elicitations>>,
) -> Result<Connection, McpError> {
    let start_error = |reason: String| McpError::Start {
        server: server.to_string(),
        reason,
    };
    let client = BraidClient {
        notices,
        elicitation: config.elicitation,
        asker: elicitations.map(|asked| (server.to_string(), asked)),
    };
    let http_client = match &config.transport {
        TransportConfig::StreamableHttp { .. } => Some(http_client(config).map_err(start_error)?),
        TransportConfig::Stdio { .. } => None,
    };
    let mut lifecycle = match config.lifecycle {
        Lifecycle::Negotiated => ClientLifecycleMode::Initialize,
        Lifecycle::Stateless => stateless(),
    };
    let mut challenge = oauth.take_pending();
    loop {
        // Authorization may wait for a person, so it is outside the handshake's time limit.
        if let (Some(answer), Some(http), TransportConfig::StreamableHttp { url, .. }) =
            (challenge.take(), &http_client, &config.transport)
        {
            oauth
                .authorize(server, url, &answer, &config.oauth, http)
                .await
                .map_err(|e| start_error(format!("{url}: {e}")))?;
        }
        let attempt = handshake(
            server,
            config,
            client.clone(),
            launch,
            lifecycle.clone(),
            &mut *oauth,
            http_client.as_ref(),
        );
        match tokio::time::timeout(startup_timeout, attempt).await {
            Ok(Ok(connection)) => return Ok(connection),
            Ok(Err(Failure::InitializeRefused(reason)))
                if lifecycle == ClientLifecycleMode::Initialize =>
            {
                tracing::info!(server = %server, reason = %reason, "server refused initialize; trying server/discover");
                lifecycle = stateless();
            }
            Ok(Err(Failure::InitializeRefused(reason))) => return Err(start_error(reason)),
            Ok(Err(Failure::AuthorizationRequired(asked))) => challenge = Some(asked),
            Ok(Err(Failure::Other(e))) => return Err(e),
            Err(_) => {
                return Err(start_error(format!(
                    "no answer to the MCP handshake within {} ms",
                    startup_timeout.as_millis()
                )));
            }
        }
    }
}

/// The stateless lifecycle of 2026-07-28: `server/discover`, then per-request `_meta`.
fn stateless() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::LATEST],
    }
}

/// Why one handshake attempt failed.
enum Failure {
    /// The server answered the `initialize` request with a JSON-RPC error: it may speak only
    /// the versions without `initialize`.
    InitializeRefused(String),
    /// The server refused the request for want of authorization.
    AuthorizationRequired(oauth::Challenge),
    /// Any other failure, final.
    Other(McpError),
}

impl From<McpError> for Failure {
    fn from(e: McpError) -> Self {
        Failure::Other(e)
    }
}

/// Whether `e` is a server's JSON-RPC refusal of `initialize`.
fn refused_initialize(e: &ClientInitializeError, lifecycle: &ClientLifecycleMode) -> bool {
    *lifecycle == ClientLifecycleMode::Initialize
        && matches!(e, ClientInitializeError::JsonRpcError(_))
}

/// One connection attempt with one lifecycle.
async fn handshake(
    server: &str,
    config: &ServerConfig,
    client: BraidClient,
    launch: Launch<'_>,
    lifecycle: ClientLifecycleMode,
    oauth: &mut OAuthSession,
    http_client: Option<&reqwest::Client>,
) -> Result<Connection, Failure> {
    let Launch {
        message_limit,
        sandboxes,
    } = launch;
    let start_error = |reason: String| McpError::Start {
        server: server.to_string(),
        reason,
    };
    match &config.transport {
        TransportConfig::Stdio { command, args, env } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .kill_on_drop(true);
            // The server sees the allow-listed variables and exactly the `env` its entry
            // names, never Braid's own secrets.
            ChildEnvironment::inherited().with(env).apply(&mut cmd);
            // Its own process group, so stopping the server also stops anything it spawned
            // (`npx` runs node as a grandchild).
            ProcessGroup::prepare(&mut cmd);
            let (mut child, sandbox) = match config.sandbox {
                None => (
                    cmd.spawn()
                        .map_err(|e| start_error(format!("cannot run `{command}`: {e}")))?,
                    None,
                ),
                Some(wanted) => {
                    // Its workspace is where it runs: Braid's own working directory.
                    let cwd = std::env::current_dir().ok();
                    let sandbox = sandboxes
                        .sandbox(Some(wanted.mode), cwd.as_deref())
                        .map_err(|e| start_error(e.to_string()))?
                        .with_network(wanted.network);
                    let (child, confinement) = sandbox
                        .spawn(cmd)
                        .await
                        .map_err(|e| start_error(e.to_string()))?;
                    tracing::info!(server = %server, sandbox = %wanted.mode, network = ?wanted.network, %confinement, "MCP server started in its sandbox");
                    (child, Some(sandbox))
                }
            };
            let pid = child.id();
            let group = ProcessGroup::led_by(pid);
            let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
                return Err(start_error("its stdin or stdout could not be opened".into()).into());
            };
            let refusal = Refusal::default();
            let reader = BoundedMessages {
                inner: stdout,
                limit: message_limit,
                line: 0,
                refusal: refusal.clone(),
            };
            // rmcp's own line limit is a second guard: ours fires first and names the limit.
            let transport = AsyncRwTransport::new_client(reader, stdin)
                .with_max_line_length(message_limit.saturating_add(1));
            let recent = Arc::new(Mutex::new(VecDeque::new()));
            let stderr_done = child.stderr.take().map(|stderr| {
                let server = server.to_string();
                let recent = recent.clone();
                tokio::spawn(async move {
                    let codec = LinesCodec::new_with_max_length(MAX_STDERR_LINE_BYTES);
                    let mut lines = FramedRead::new(stderr, codec);
                    while let Some(line) = lines.next().await {
                        // An over-long line is an error item; the reader then skips to the
                        // next line and goes on.
                        let Ok(line) = line else { continue };
                        tracing::debug!(server = %server, line = %line, "MCP server stderr");
                        let mut recent = recent.lock().unwrap_or_else(|p| p.into_inner());
                        if recent.len() == STDERR_LINES_KEPT {
                            recent.pop_front();
                        }
                        recent.push_back(line);
                    }
                })
            });
            match client
                .serve_with_lifecycle(transport, lifecycle.clone())
                .await
            {
                Ok(service) => Ok(Connection {
                    service,
                    pid,
                    process: Some(ServerProcess {
                        child,
                        group,
                        refusal,
                        _sandbox: sandbox,
                    }),
                }),
                Err(e) if refused_initialize(&e, &lifecycle) => {
                    drop(group);
                    Err(Failure::InitializeRefused(format!("handshake failed: {e}")))
                }
                Err(e) => {
                    // A server that dies at start usually says why on stderr; give it a
                    // moment to be read so the reason shown to the person includes it.
                    if let Some(done) = stderr_done {
                        let _ = tokio::time::timeout(Duration::from_millis(500), done).await;
                    }
                    let said = telling_lines(&recent.lock().unwrap_or_else(|p| p.into_inner()));
                    let mut reason = format!("handshake failed: {e}");
                    if let Some(refused) = refusal.lock().unwrap_or_else(|p| p.into_inner()).take()
                    {
                        reason = format!("handshake failed: {refused}");
                    }
                    if !said.is_empty() {
                        reason.push_str("; stderr: ");
                        reason.push_str(&said.join(" | "));
                    }
                    drop(group);
                    Err(start_error(reason).into())
                }
            }
        }
        TransportConfig::StreamableHttp { url, headers } => {
            let mut http = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            http.max_sse_event_size = message_limit;
            for (name, value) in headers {
                let name = http::HeaderName::from_str(name)
                    .map_err(|e| start_error(format!("header name `{name}`: {e}")))?;
                let value = http::HeaderValue::from_str(value)
                    .map_err(|e| start_error(format!("header `{name}` value: {e}")))?;
                http.custom_headers.insert(name, value);
            }
            let Some(http_client) = http_client else {
                return Err(start_error("no HTTP client for a URL server".into()).into());
            };
            let watch = oauth
                .client_for(url, http_client)
                .await
                .map_err(|e| start_error(format!("{url}: {e}")))?;
            let transport = StreamableHttpClientTransport::with_client(
                crate::listening::ListeningFirst::new(watch),
                http,
            );
            match client
                .serve_with_lifecycle(transport, lifecycle.clone())
                .await
            {
                Ok(service) => Ok(Connection {
                    service,
                    pid: None,
                    process: None,
                }),
                Err(e) if refused_initialize(&e, &lifecycle) => Err(Failure::InitializeRefused(
                    format!("{url} refused initialize: {e}"),
                )),
                Err(e) => match oauth.refusal(oauth::challenge_of(&e)) {
                    Some(challenge) => Err(Failure::AuthorizationRequired(challenge)),
                    None => Err(start_error(format!("cannot connect to {url}: {e}")).into()),
                },
            }
        }
    }
}

/// The HTTP client for a streamable HTTP server: TLS with the system's root certificates,
/// plus the entry's own CA certificate when it names one (`caCertificate`), for servers with
/// a private CA or a self-signed certificate.
fn http_client(config: &ServerConfig) -> Result<reqwest::Client, String> {
    let mut builder = reqwest::Client::builder();
    if let Some(path) = &config.ca_certificate {
        let pem = std::fs::read(path)
            .map_err(|e| format!("cannot read caCertificate {}: {e}", path.display()))?;
        let certificate = reqwest::Certificate::from_pem(&pem).map_err(|e| {
            format!(
                "caCertificate {} is not a PEM certificate: {e}",
                path.display()
            )
        })?;
        builder = builder.add_root_certificate(certificate);
    }
    builder
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

/// The stderr lines that explain a failure: those that mention an error (Node's
/// `Error: Cannot find module`, Python's `ModuleNotFoundError: ...`), else the last few.
fn telling_lines(lines: &VecDeque<String>) -> Vec<String> {
    let meaningful: Vec<&str> = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    let errors: Vec<String> = meaningful
        .iter()
        .filter(|l| l.to_ascii_lowercase().contains("error"))
        .take(3)
        .map(|l| l.to_string())
        .collect();
    if !errors.is_empty() {
        return errors;
    }
    let skip = meaningful.len().saturating_sub(5);
    meaningful[skip..].iter().map(|l| l.to_string()).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_of_notices_never_blocks_and_is_bounded() {
        let (tx, mut rx) = mpsc::channel(PENDING_NOTICES);
        let client = BraidClient {
            notices: tx,
            elicitation: ElicitationPolicy::Decline,
            asker: None,
        };
        for _ in 0..10_000 {
            client.tools_changed();
        }
        let mut queued = 0;
        while rx.try_recv().is_ok() {
            queued += 1;
        }
        assert_eq!(queued, PENDING_NOTICES);
        // Once the manager has caught up, the next change is seen again.
        client.tools_changed();
        assert_eq!(rx.try_recv(), Ok(ServerNotice::ToolsChanged));
    }

    #[test]
    fn error_lines_explain_a_failed_start() {
        let node: VecDeque<String> = [
            "node:internal/modules/cjs/loader:1228",
            "  throw err;",
            "",
            "Error: Cannot find module '/x.js'",
            "  code: 'MODULE_NOT_FOUND',",
            "Node.js v20",
        ]
        .map(String::from)
        .into();
        assert_eq!(telling_lines(&node), ["Error: Cannot find module '/x.js'"]);
        let quiet: VecDeque<String> = (0..8).map(|i| format!("line {i}")).collect();
        assert_eq!(telling_lines(&quiet).len(), 5);
        assert_eq!(telling_lines(&quiet)[4], "line 7");
    }
}
