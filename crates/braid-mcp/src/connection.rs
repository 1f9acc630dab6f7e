//! One live connection to an MCP server over stdio (a child process) or streamable HTTP.

use std::collections::VecDeque;
use std::process::Stdio;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;

use braid_tools::{ChildEnvironment, ProcessGroup as GroupGuard};

use crate::config::{ServerConfig, TransportConfig};
use crate::error::McpError;

/// How many of a server's last stderr lines are kept to explain a start failure.
const STDERR_LINES_KEPT: usize = 50;

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
    /// The process group a stdio server leads: killed when the session ends, so nothing the
    /// server started outlives it.
    pub(crate) group: Option<GroupGuard>,
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
                cmd.args(args);
                // The server sees the allow-listed variables and exactly the `env` its entry
                // names, never Braid's own secrets.
                ChildEnvironment::inherited().with(env).apply(&mut cmd);
                let mut wrapped = CommandWrap::from(cmd);
                // Its own process group, so stopping the server also stops anything it spawned
                // (`npx` runs node as a grandchild).
                wrapped.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
                let (transport, stderr) = TokioChildProcess::builder(wrapped)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| start_error(format!("cannot run `{command}`: {e}")))?;
                let pid = transport.id();
                let group = GroupGuard::led_by(pid);
                let recent = Arc::new(Mutex::new(VecDeque::new()));
                let stderr_done = stderr.map(|stderr| {
                    let server = server.to_string();
                    let recent = recent.clone();
                    tokio::spawn(async move {
                        let mut lines = BufReader::new(stderr).lines();
                        while let Ok(Some(line)) = lines.next_line().await {
                            tracing::debug!(server = %server, line = %line, "MCP server stderr");
                            let mut recent = recent.lock().unwrap_or_else(|p| p.into_inner());
                            if recent.len() == STDERR_LINES_KEPT {
                                recent.pop_front();
                            }
                            recent.push_back(line);
                        }
                    })
                });
                match client.serve(transport).await {
                    Ok(service) => Ok(Connection {
                        service,
                        pid,
                        group,
                    }),
                    Err(e) => {
                        // A server that dies at start usually says why on stderr; give it a
                        // moment to be read so the reason shown to the person includes it.
                        if let Some(done) = stderr_done {
                            let _ = tokio::time::timeout(Duration::from_millis(500), done).await;
                        }
                        let said = telling_lines(&recent.lock().unwrap_or_else(|p| p.into_inner()));
                        let mut reason = format!("handshake failed: {e}");
                        if !said.is_empty() {
                            reason.push_str("; stderr: ");
                            reason.push_str(&said.join(" | "));
                        }
                        Err(start_error(reason))
                    }
                }
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
                Ok(Connection {
                    service,
                    pid: None,
                    group: None,
                })
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
