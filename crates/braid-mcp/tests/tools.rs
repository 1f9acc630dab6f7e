//! Discovery, naming, calls, error results and timeouts against the real
//! `@modelcontextprotocol/server-everything` (stdio) and `mcp-server-time` (PyPI).

use crate::support;

use std::time::{Duration, Instant};

use braid_mcp::{AutoApproval, McpConfig};
use braid_protocol::api::{McpServerStatus, ToolSource};
use braid_protocol::{AgentRole, Mode};
use braid_tools::{ToolContext, ToolErrorCode};
use serde_json::json;
use support::*;

fn config(servers: Vec<(&str, braid_mcp::ServerConfig)>) -> McpConfig {
    McpConfig {
        servers: servers
            .into_iter()
            .map(|(n, c)| (n.to_string(), c))
            .collect(),
    }
}

#[tokio::test]
async fn stdio_server_tools_are_registered_under_mcp_names_and_callable() {
    let manager = manager();
    let mut everything = everything_stdio();
    everything.auto_approve.insert("echo".into());
    manager
        .start(config(vec![("everything", everything)]))
        .await;
    wait(&manager, "everything", McpServerStatus::Ready).await;

    let info = manager.server("everything").unwrap();
    assert!(
        info.tools.contains(&"mcp__everything__echo".to_string()),
        "{info:?}"
    );
    assert!(
        info.tools.contains(&"mcp__everything__get-sum".to_string()),
        "{info:?}"
    );
    let registry = manager.registry();
    let echo = registry
        .get("mcp__everything__echo")
        .expect("echo registered");
    let tool_info = echo.spec().to_info();
    assert_eq!(tool_info.source, ToolSource::Mcp);
    assert_eq!(tool_info.server.as_deref(), Some("everything"));
    assert!(
        tool_info.description.contains("Echoes"),
        "{}",
        tool_info.description
    );
    assert_eq!(
        tool_info.parameters["properties"]["message"]["type"],
        "string"
    );

    let route = manager.route("mcp__everything__echo").unwrap();
    assert_eq!(route.server_name, "everything");
    assert_eq!(route.tool_name, "echo");
    assert_eq!(route.approval, AutoApproval::Approved);
    assert_eq!(
        manager.route("mcp__everything__get-sum").unwrap().approval,
        AutoApproval::AskPolicy
    );
    assert!(manager.route("read_file").is_none());

    let ctx = ToolContext::new(None, AgentRole::Actor);
    let out = registry
        .execute(
            "mcp__everything__echo",
            json!({"message": "hello braid"}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap();
    assert_eq!(out.content["content"][0]["type"], "text");
    assert_eq!(out.content["content"][0]["text"], "Echo: hello braid");
    let sum = registry
        .execute(
            "mcp__everything__get-sum",
            json!({"a": 2, "b": 40}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap();
    assert!(
        sum.content["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("42"),
        "{}",
        sum.content
    );
    // Image data is described by its size, not passed to the model as base64.
    let image = registry
        .execute(
            "mcp__everything__get-tiny-image",
            json!({}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap();
    let blocks = image.content["content"].as_array().unwrap();
    let picture = blocks.iter().find(|b| b["type"] == "image").unwrap();
    assert!(picture.get("data").is_none(), "{picture}");
    assert!(picture["size_bytes"].as_u64().unwrap() > 0, "{picture}");
    manager.shutdown().await;
    assert!(registry.get("mcp__everything__echo").is_none());
}

#[tokio::test]
async fn server_error_becomes_structured_tool_error_with_mcp_details() {
    let manager = manager();
    manager
        .start(config(vec![("everything", everything_stdio())]))
        .await;
    wait(&manager, "everything", McpServerStatus::Ready).await;
    let tool = manager.registry().get("mcp__everything__get-sum").unwrap();
    let ctx = ToolContext::new(None, AgentRole::Actor);
    // Called directly (the registry would refuse these arguments first), so the server itself
    // judges them and answers with an error.
    let err = tool
        .call(json!({"a": "two", "b": 40}), &ctx)
        .await
        .unwrap_err();
    // server-everything reports bad input as a tool result with `isError: true`.
    assert_eq!(err.code, ToolErrorCode::Failed, "{err:?}");
    let details = err.details.clone().unwrap();
    assert_eq!(details["server"], "everything");
    assert_eq!(details["tool"], "get-sum");
    assert_eq!(details["mcp"]["isError"], true, "{details}");
    assert!(
        details["mcp"]["content"][0]["text"].is_string(),
        "{details}"
    );
    assert!(err.message.contains("expected number"), "{}", err.message);
    assert_eq!(
        err.to_error_detail().code.as_deref(),
        Some("failed"),
        "the engine stores it as an error outcome"
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn slow_call_times_out_with_the_configured_timeout() {
    let manager = manager();
    let mut everything = everything_stdio();
    everything.timeout = Duration::from_millis(700);
    manager
        .start(config(vec![("everything", everything)]))
        .await;
    wait(&manager, "everything", McpServerStatus::Ready).await;
    let ctx = ToolContext::new(None, AgentRole::Actor);
    let started = Instant::now();
    let err = manager
        .registry()
        .execute(
            "mcp__everything__trigger-long-running-operation",
            json!({"duration": 10, "steps": 2}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, ToolErrorCode::Timeout, "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    // The server is still usable afterwards.
    let out = manager
        .registry()
        .execute(
            "mcp__everything__echo",
            json!({"message": "still here"}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap();
    assert_eq!(out.content["content"][0]["text"], "Echo: still here");
    manager.shutdown().await;
}

#[tokio::test]
async fn time_server_from_pypi_answers_over_stdio() {
    let manager = manager();
    manager.start(config(vec![("time", time_stdio())])).await;
    wait(&manager, "time", McpServerStatus::Ready).await;
    let info = manager.server("time").unwrap();
    assert!(
        info.tools
            .contains(&"mcp__time__get_current_time".to_string()),
        "{info:?}"
    );
    let ctx = ToolContext::new(None, AgentRole::Actor);
    let out = manager
        .registry()
        .execute(
            "mcp__time__get_current_time",
            json!({"timezone": "UTC"}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap();
    let text = out.content["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("UTC"), "{text}");
    let err = manager
        .registry()
        .execute(
            "mcp__time__get_current_time",
            json!({"timezone": "Not/AZone"}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap_err();
    assert_eq!(err.details.as_ref().unwrap()["server"], "time");
    assert!(err.message.contains("Not/AZone"), "{}", err.message);
    manager.shutdown().await;
}

#[tokio::test]
async fn tools_list_changed_notification_refreshes_the_registry() {
    let manager = manager();
    manager
        .start(config(vec![("changing", changing_tools_stdio())]))
        .await;
    wait(&manager, "changing", McpServerStatus::Ready).await;
    let registry = manager.registry().clone();
    assert!(registry.get("mcp__changing__added_x").is_none());
    let ctx = ToolContext::new(None, AgentRole::Actor);
    registry
        .execute(
            "mcp__changing__add_tool",
            json!({"name": "x"}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap();
    let deadline = Instant::now() + READY;
    while registry.get("mcp__changing__added_x").is_none() {
        assert!(
            Instant::now() < deadline,
            "tool list not refreshed: {:?}",
            registry.names()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        manager
            .server("changing")
            .unwrap()
            .tools
            .contains(&"mcp__changing__added_x".to_string())
    );
    let out = registry
        .execute("mcp__changing__added_x", json!({}), &ctx, Mode::Act)
        .await
        .unwrap();
    assert_eq!(out.content["content"][0]["text"], "I am x");
    manager.shutdown().await;
    assert!(registry.names().is_empty());
}
