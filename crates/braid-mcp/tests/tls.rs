//! `https://` MCP servers: TLS with the system's roots, plus a server entry's own CA
//! certificate (`caCertificate`), against a real TLS server on the official Python SDK whose
//! certificate comes from a private CA made up by the test.

use crate::support;

use std::path::PathBuf;
use std::time::Duration;

use braid_mcp::{McpConfig, ServerConfig};
use braid_protocol::AgentRole;
use braid_protocol::api::McpServerStatus;
use braid_tools::ToolContext;
use serde_json::json;
use support::*;

/// The TLS server, killed when dropped.
struct TlsServer {
    _child: tokio::process::Child,
    url: String,
    certificate: PathBuf,
    _dir: tempfile::TempDir,
}

async fn tls_server() -> TlsServer {
    let dir = tempfile::tempdir().unwrap();
    let child = tokio::process::Command::new(python())
        .arg(servers_dir().join("tls_server.py"))
        .arg(dir.path())
        .kill_on_drop(true)
        .spawn()
        .expect("python runs tls_server.py");
    let certificate = dir.path().join("cert.pem");
    let port_file = dir.path().join("port");
    for _ in 0..200 {
        if let Ok(port) = std::fs::read_to_string(&port_file) {
            return TlsServer {
                _child: child,
                url: format!("https://127.0.0.1:{}/mcp", port.trim()),
                certificate,
                _dir: dir,
            };
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the TLS MCP server did not write its port");
}

#[tokio::test]
async fn an_https_server_with_a_trusted_ca_certificate_serves_its_tools() {
    let server = tls_server().await;
    let mut entry = ServerConfig::http(&server.url);
    entry.ca_certificate = Some(server.certificate.clone());
    let manager = manager();
    manager
        .start(McpConfig {
            servers: [("secure".to_string(), entry)].into(),
        })
        .await;
    wait(&manager, "secure", McpServerStatus::Ready).await;
    let greet = manager.registry().get("mcp__secure__greet").unwrap();
    let output = greet
        .call(
            json!({"name": "Ada"}),
            &ToolContext::new(None, AgentRole::Actor),
        )
        .await
        .unwrap();
    assert!(
        output.content.to_string().contains("hello Ada, over TLS"),
        "{}",
        output.content
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn an_https_server_with_an_untrusted_certificate_fails_with_the_reason() {
    let server = tls_server().await;
    let manager = manager();
    manager
        .start(McpConfig {
            servers: [("secure".to_string(), ServerConfig::http(&server.url))].into(),
        })
        .await;
    wait(&manager, "secure", McpServerStatus::Failed).await;
    let error = manager.server("secure").unwrap().error.unwrap_or_default();
    assert!(error.contains(&server.url), "{error}");
    manager.shutdown().await;
}

#[test]
fn ca_certificate_applies_only_to_url_servers() {
    let err =
        McpConfig::parse(r#"{"mcpServers": {"a": {"command": "x", "caCertificate": "/ca.pem"}}}"#)
            .unwrap_err()
            .to_string();
    assert!(err.contains("caCertificate"), "{err}");
    let config = McpConfig::parse(
        r#"{"mcpServers": {"a": {"url": "https://h/mcp", "caCertificate": "/ca.pem"}}}"#,
    )
    .unwrap();
    assert_eq!(
        config.server("a").unwrap().ca_certificate,
        Some(PathBuf::from("/ca.pem"))
    );
}
