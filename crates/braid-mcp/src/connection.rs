//! One live connection to an MCP server over stdio (a child process) or streamable HTTP.

use std::process::Stdio;
use std::str::FromStr;
use std::time::Duration;

use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;

use crate::config::{ServerConfig, TransportConfig};
use crate::error::McpError;

/// A server-initiated notification the manager reacts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ServerNotice {
    /// `notifications/tools/list_changed`: list the tools again.
    ToolsChanged,
}

/// Braid's side of an MCP session: it advertises no client capabilities (no sampling, roots or
/// elicitation, which Braid cannot answer) and forwards list-changed notifications.
#[derive(Clone)]
pub(crate) struct BraidClient {
    notices: mpsc::UnboundedSender<ServerNotice>,
}

impl ClientHandler for BraidClient {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        // The receiver is gone only while the connection is being dropped.
        let _ = self.notices.send(ServerNotice::ToolsChanged);
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("braid", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// A connected, initialized session.
pub(crate) struct Connection {
    /// The rmcp session; dropping or cancelling it closes the transport (and stops the child).
    pub(crate) service: RunningService<RoleClient, BraidClient>,
    /// The child's process id for stdio servers.
    pub(crate) pid: Option<u32>,
}

/// Connects to `server` and performs the MCP handshake within `startup_timeout`.
pub(crate) async fn connect(
    server: &str,
    config: &ServerConfig,
    startup_timeout: Duration,
    notices: mpsc::UnboundedSender<ServerNotice>,
) -> Result<Connection, McpError> {
    let start_error = |reason: String| McpError::Start {
        server: server.to_string(),
        reason,
    };
    let client = BraidClient { notices };
    let handshake = async {
        match &config.transport {
            TransportConfig::Stdio { command, args, env } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args).envs(env);
                let mut wrapped = CommandWrap::from(cmd);
                // Its own process group, so stopping the server also stops anything it spawned
                // (`npx` runs node as a grandchild).
                wrapped.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
                let (transport, stderr) = TokioChildProcess::builder(wrapped)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| start_error(format!("cannot run `{command}`: {e}")))?;
                let pid = transport.id();
                if let Some(stderr) = stderr {
                    let server = server.to_string();
                    tokio::spawn(async move {
                        let mut lines = BufReader::new(stderr).lines();
                        while let Ok(Some(line)) = lines.next_line().await {
                            tracing::debug!(server = %server, line = %line, "MCP server stderr");
                        }
                    });
                }
                let service = client
                    .serve(transport)
                    .await
                    .map_err(|e| start_error(format!("handshake failed: {e}")))?;
                Ok(Connection { service, pid })
            }
            TransportConfig::StreamableHttp { url, headers } => {
                let mut http = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                for (name, value) in headers {
                    let name = http::HeaderName::from_str(name)
                        .map_err(|e| start_error(format!("header name `{name}`: {e}")))?;
                    let value = http::HeaderValue::from_str(value)
                        .map_err(|e| start_error(format!("header `{name}` value: {e}")))?;
                    http.custom_headers.insert(name, value);
                }
                let transport = StreamableHttpClientTransport::from_config(http);
                let service = client
                    .serve(transport)
                    .await
                    .map_err(|e| start_error(format!("cannot connect to {url}: {e}")))?;
                Ok(Connection { service, pid: None })
            }
        }
    };
    match tokio::time::timeout(startup_timeout, handshake).await {
        Ok(result) => result,
        Err(_) => Err(start_error(format!(
            "no answer to the MCP handshake within {} ms",
            startup_timeout.as_millis()
        ))),
    }
}
