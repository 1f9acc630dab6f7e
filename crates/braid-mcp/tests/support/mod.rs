//! Test support: where the real MCP servers are installed, configurations that run them, and a
//! streamable HTTP server-everything on a free port.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use braid_mcp::{ManagerOptions, McpManager, RestartPolicy, ServerConfig};
use braid_protocol::api::McpServerStatus;
use braid_tools::ToolRegistry;

/// How long a real server may take to get ready in a test (node starts in ~0.3 s).
pub const READY: Duration = Duration::from_secs(20);

/// Where the test servers and their installs live.
pub fn servers_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/servers")
}

fn require(path: PathBuf) -> String {
    assert!(
        path.exists(),
        "{} is missing: the MCP test servers are not installed. Run crates/braid-mcp/tests/servers/install.sh",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

/// The server-everything entry point (`dist/index.js`).
pub fn everything_js() -> String {
    require(
        servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    )
}

/// `@modelcontextprotocol/server-everything` over stdio.
pub fn everything_stdio() -> ServerConfig {
    ServerConfig::stdio("node", [everything_js(), "stdio".to_string()])
}

/// `mcp-server-time` from PyPI, over stdio.
pub fn time_stdio() -> ServerConfig {
    ServerConfig::stdio(require(servers_dir().join(".venv/bin/mcp-server-time")), [])
}

/// The Python of the test servers' virtualenv (the official Python MCP SDK is installed in it).
pub fn python() -> String {
    require(servers_dir().join(".venv/bin/python"))
}

/// `changing_tools.py` (official Python MCP SDK): a server whose tool list changes on request.
pub fn changing_tools_stdio() -> ServerConfig {
    let python = require(servers_dir().join(".venv/bin/python"));
    ServerConfig::stdio(python, [require(servers_dir().join("changing_tools.py"))])
}

/// Options that keep tests fast: quick retries, few of them.
pub fn fast_options() -> ManagerOptions {
    ManagerOptions {
        startup_timeout: Duration::from_secs(15),
        restart: RestartPolicy {
            initial_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_millis(200),
            max_attempts: 3,
        },
        ..ManagerOptions::default()
    }
}

/// A manager over a fresh registry.
pub fn manager() -> McpManager {
    McpManager::new(Arc::new(ToolRegistry::new()), fast_options())
}

/// Waits for `status`, failing the test with the server's actual state otherwise.
pub async fn wait(manager: &McpManager, server: &str, status: McpServerStatus) {
    if manager
        .wait_for_status(server, status, READY)
        .await
        .is_none()
    {
        panic!(
            "server `{server}` did not reach {status:?}: {:?}",
            manager.server(server)
        );
    }
}

/// Whether a process runs (exists and is not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| !rest.trim_start().starts_with('Z'))
            .unwrap_or(true),
        Err(_) => false,
    }
}

/// Waits until `pid` has exited.
pub async fn wait_gone(pid: u32) -> bool {
    for _ in 0..100 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// server-everything serving streamable HTTP on a free port; killed when dropped.
pub struct HttpEverything {
    child: tokio::process::Child,
    /// The MCP endpoint.
    pub url: String,
}

impl HttpEverything {
    /// Starts it and waits until it says it listens.
    ///
    /// The port is picked by binding and releasing it, so another test may take it before
    /// node binds: then node says so and exits, and another port is tried. Waiting for node's
    /// own word (not for a connection) is what tells the two apart; a connection could reach
    /// the other test's listener and fail later, when that test ends.
    pub async fn start() -> Self {
        use tokio::io::AsyncBufReadExt;
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let mut child = tokio::process::Command::new("node")
                .arg(everything_js())
                .arg("streamableHttp")
                .env("PORT", port.to_string())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .expect("node runs server-everything");
            let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
            let listening = tokio::time::timeout(READY, async {
                while let Some(line) = lines.next_line().await.unwrap() {
                    eprintln!("server-everything (port {port}): {line}");
                    if line.contains("listening on port") {
                        return true;
                    }
                }
                false
            })
            .await
            .expect("server-everything (streamable HTTP) said nothing in time");
            if listening {
                // The rest of what it says goes to the test's output, where a failure shows it.
                tokio::spawn(async move {
                    while let Ok(Some(line)) = lines.next_line().await {
                        eprintln!("server-everything (port {port}): {line}");
                    }
                });
                return Self {
                    child,
                    url: format!("http://127.0.0.1:{port}/mcp"),
                };
            }
            let _ = child.wait().await;
        }
        panic!("server-everything (streamable HTTP) found no free port in five tries");
    }

    /// Stops it.
    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}
