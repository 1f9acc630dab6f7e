//! A stdio server whose entry names a `sandbox` runs confined like a command (Landlock on this
//! kernel, root included): it cannot write outside its workspace or read a protected path, and
//! reaches the network only when `sandboxNetwork` says `allowed`. The server is a real one on
//! the official Python MCP SDK (`sandbox_probe.py`); the same server unconfined is the control.
#![cfg(target_os = "linux")]

use crate::support;

use std::sync::Arc;

use braid_mcp::{McpConfig, McpManager, ServerConfig, ServerSandbox};
use braid_protocol::api::McpServerStatus;
use braid_protocol::{AgentRole, Mode};
use braid_tools::{Network, SandboxMode, SandboxSettings, ToolContext, ToolRegistry, Unsandboxed};
use serde_json::{Value, json};
use support::*;

fn probe(sandbox: Option<ServerSandbox>) -> ServerConfig {
    let mut config = ServerConfig::stdio(
        python(),
        [servers_dir()
            .join("sandbox_probe.py")
            .to_string_lossy()
            .into_owned()],
    );
    config.sandbox = sandbox;
    config
}

/// Calls `tool` of the server `name`, answering the probe's text.
async fn ask(manager: &McpManager, name: &str, tool: &str, args: Value) -> String {
    let out = manager
        .registry()
        .execute(
            &format!("mcp__{name}__{tool}"),
            args,
            &ToolContext::new(None, AgentRole::Actor),
            Mode::Act,
        )
        .await
        .unwrap();
    out.content["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_sandboxed_stdio_server_is_confined_and_gets_the_network_only_when_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let secrets = root.join("secrets");
    std::fs::create_dir(&secrets).unwrap();
    let secret = secrets.join("token");
    std::fs::write(&secret, "SECRET").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();

    let manager = McpManager::new(
        Arc::new(ToolRegistry::new()),
        braid_mcp::ManagerOptions {
            sandbox: SandboxSettings::new(SandboxMode::WorkspaceWrite, Unsandboxed::Refused)
                .unwrap()
                .protecting([secrets.clone()]),
            ..fast_options()
        },
    );
    let confined = ServerSandbox {
        mode: SandboxMode::ReadOnly,
        network: Network::Denied,
    };
    let networked = ServerSandbox {
        mode: SandboxMode::WorkspaceWrite,
        network: Network::Allowed,
    };
    manager
        .start(McpConfig {
            servers: [
                ("confined".to_owned(), probe(Some(confined))),
                ("networked".to_owned(), probe(Some(networked))),
                ("free".to_owned(), probe(None)),
            ]
            .into(),
        })
        .await;
    for name in ["confined", "networked", "free"] {
        wait(&manager, name, McpServerStatus::Ready).await;
    }

    let target = root.join("planted");
    let write = json!({"path": target.to_string_lossy()});
    let read = json!({"path": secret.to_string_lossy()});
    let tcp = json!({"port": port});

    let said = ask(&manager, "confined", "write_file", write.clone()).await;
    assert!(said.starts_with("error:"), "{said}");
    assert!(!target.exists(), "a read_only server created a file");
    let said = ask(&manager, "confined", "read_file", read.clone()).await;
    assert!(
        said.starts_with("error:"),
        "a protected path was read: {said}"
    );
    let said = ask(&manager, "confined", "connect", tcp.clone()).await;
    assert!(
        said.starts_with("error:"),
        "the network was reached: {said}"
    );

    // `sandboxNetwork: allowed` lets it connect, and it is still confined on files.
    assert_eq!(
        ask(&manager, "networked", "connect", tcp.clone()).await,
        "ok"
    );
    let said = ask(&manager, "networked", "read_file", read.clone()).await;
    assert!(
        said.starts_with("error:"),
        "a protected path was read: {said}"
    );
    let said = ask(&manager, "networked", "write_file", write.clone()).await;
    assert!(said.starts_with("error:"), "{said}");
    assert!(!target.exists());

    // The same server without a sandbox entry does all three: the refusals above are the
    // sandbox's.
    assert_eq!(ask(&manager, "free", "write_file", write).await, "ok");
    assert!(target.exists());
    assert_eq!(ask(&manager, "free", "read_file", read).await, "ok: SECRET");
    assert_eq!(ask(&manager, "free", "connect", tcp).await, "ok");
    manager.shutdown().await;
}

#[test]
fn a_sandbox_entry_is_read_from_the_configuration_and_checked() {
    let parse = |entry: Value| McpConfig::parse(&json!({"mcpServers": {"s": entry}}).to_string());
    let config =
        parse(json!({"command": "srv", "sandbox": "read_only", "sandboxNetwork": "allowed"}))
            .unwrap();
    assert_eq!(
        config.server("s").unwrap().sandbox,
        Some(ServerSandbox {
            mode: SandboxMode::ReadOnly,
            network: Network::Allowed
        })
    );
    let config = parse(json!({"command": "srv", "sandbox": "workspace_write"})).unwrap();
    assert_eq!(
        config.server("s").unwrap().sandbox.unwrap().network,
        Network::Denied,
        "no network unless the entry allows it"
    );
    for (entry, field) in [
        (json!({"command": "srv", "sandbox": "off"}), "sandbox"),
        (
            json!({"command": "srv", "sandboxNetwork": "allowed"}),
            "sandboxNetwork",
        ),
        (
            json!({"url": "http://127.0.0.1:1/mcp", "sandbox": "read_only"}),
            "sandbox",
        ),
        (
            json!({"command": "srv", "sandbox": "read_only", "sandboxNetwork": true}),
            "sandboxNetwork",
        ),
    ] {
        let error = parse(entry.clone()).unwrap_err().to_string();
        assert!(error.contains(field), "{entry}: {error}");
    }
}
