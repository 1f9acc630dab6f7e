//! Elicitation against the real `@modelcontextprotocol/server-everything`: Braid announces the
//! capability, so the server offers its elicitation tools, and with no person to ask the
//! server entry's policy answers.

use crate::support;

use braid_mcp::{ElicitationPolicy, McpConfig};
use braid_protocol::AgentRole;
use braid_protocol::api::McpServerStatus;
use braid_tools::ToolContext;
use serde_json::{Value, json};
use support::*;

async fn elicit(policy: ElicitationPolicy) -> Value {
    let manager = manager();
    let mut everything = everything_stdio();
    everything.elicitation = policy;
    manager
        .start(McpConfig {
            servers: [("everything".to_string(), everything)].into(),
        })
        .await;
    wait(&manager, "everything", McpServerStatus::Ready).await;
    let tool = manager
        .registry()
        .get("mcp__everything__trigger-elicitation-request")
        .expect("server-everything offers its elicitation tool to a client that can elicit");
    let ctx = ToolContext::new(None, AgentRole::Actor);
    let output = tool.call(json!({}), &ctx).await.unwrap();
    manager.shutdown().await;
    output.content
}

#[tokio::test]
async fn elicitation_is_declined_by_default_policy() {
    let output = elicit(ElicitationPolicy::default()).await.to_string();
    assert!(output.contains("decline"), "{output}");
    assert!(
        !output.contains("It was a dark and stormy night."),
        "{output}"
    );
}

#[tokio::test]
async fn accept_defaults_declines_when_a_required_field_has_no_default() {
    // server-everything's form requires `name`, which has no default: accepting would send an
    // invented answer, so the policy declines.
    let output = elicit(ElicitationPolicy::AcceptDefaults).await.to_string();
    assert!(output.contains("decline"), "{output}");
}

#[test]
fn the_elicitation_policy_is_read_from_the_configuration() {
    let config = McpConfig::parse(
        r#"{"mcpServers": {
            "a": {"command": "x", "elicitation": "accept_defaults"},
            "b": {"command": "x"}
        }}"#,
    )
    .unwrap();
    assert_eq!(
        config.server("a").unwrap().elicitation,
        ElicitationPolicy::AcceptDefaults
    );
    assert_eq!(
        config.server("b").unwrap().elicitation,
        ElicitationPolicy::Decline
    );
    let err = McpConfig::parse(r#"{"mcpServers": {"a": {"command": "x", "elicitation": "yes"}}}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("elicitation"), "{err}");
}
