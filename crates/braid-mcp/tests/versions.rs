//! Protocol version negotiation: Braid reaches servers of the versions with `initialize`
//! (server-everything answers 2025-11-25) and a server that speaks only 2026-07-28, which
//! refuses `initialize` and is reached through `server/discover`.

use crate::support;

use braid_mcp::{McpConfig, ServerConfig};
use braid_protocol::AgentRole;
use braid_protocol::api::McpServerStatus;
use braid_tools::ToolContext;
use serde_json::json;
use support::*;

#[tokio::test]
async fn a_server_that_refuses_initialize_is_reached_through_discovery() {
    let server = ServerConfig::stdio(
        python(),
        [servers_dir()
            .join("discover_only.py")
            .to_string_lossy()
            .into_owned()],
    );
    let manager = manager();
    manager
        .start(McpConfig {
            servers: [("modern".to_string(), server)].into(),
        })
        .await;
    wait(&manager, "modern", McpServerStatus::Ready).await;
    let whoami = manager.registry().get("mcp__modern__whoami").unwrap();
    let output = whoami
        .call(json!({}), &ToolContext::new(None, AgentRole::Actor))
        .await
        .unwrap();
    assert!(
        output.content.to_string().contains("spoke 2026-07-28"),
        "{}",
        output.content
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn a_tool_that_asks_for_input_is_answered_and_called_again_with_its_state() {
    let mut server = ServerConfig::stdio(
        python(),
        [servers_dir()
            .join("discover_only.py")
            .to_string_lossy()
            .into_owned()],
    );
    server.elicitation = braid_mcp::ElicitationPolicy::AcceptDefaults;
    let manager = manager();
    manager
        .start(McpConfig {
            servers: [("modern".to_string(), server)].into(),
        })
        .await;
    wait(&manager, "modern", McpServerStatus::Ready).await;
    let ctx = ToolContext::new(None, AgentRole::Actor);
    let confirm = manager.registry().get("mcp__modern__confirm").unwrap();
    let output = confirm.call(json!({}), &ctx).await.unwrap();
    assert!(
        output
            .content
            .to_string()
            .contains(r#"answered accept {\"go\": true} with state s-1|opaque"#),
        "{}",
        output.content
    );
    // Sampling is not something Braid provides: the call fails saying so.
    let sample = manager.registry().get("mcp__modern__sample").unwrap();
    let error = sample.call(json!({}), &ctx).await.unwrap_err();
    assert!(error.to_string().contains("sampling"), "{error}");
    manager.shutdown().await;
}
