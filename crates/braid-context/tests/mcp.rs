//! The engine with a real MCP server (`@modelcontextprotocol/server-everything`, installed by
//! `crates/braid-mcp/tests/servers/install.sh`): the model calls one of its tools in a tool loop,
//! the call is routed by server, and the result reaches the next request. Resources are injected
//! into the conversation.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use braid_context::{ContextRegistry, EngineSettings, Services};
use braid_mcp::{ManagerOptions, McpConfig, McpManager, ServerConfig};
use braid_protocol::api::{CreateContextRequest, McpServerStatus};
use braid_protocol::payload::McpResourcePayload;
use braid_protocol::*;
use braid_testkit::Script;
use common::*;
use serde_json::json;

fn everything() -> ServerConfig {
    let js = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../braid-mcp/tests/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        js.exists(),
        "{} is missing: run crates/braid-mcp/tests/servers/install.sh",
        js.display()
    );
    ServerConfig::stdio(
        "node",
        [js.to_string_lossy().into_owned(), "stdio".to_owned()],
    )
}

async fn with_everything(h: &Harness) -> (Arc<ContextRegistry>, McpManager) {
    with_servers(h, BTreeMap::from([("everything".to_owned(), everything())])).await
}

async fn with_servers(
    h: &Harness,
    servers: BTreeMap<String, ServerConfig>,
) -> (Arc<ContextRegistry>, McpManager) {
    let manager = McpManager::new(h.tools.clone(), ManagerOptions::default());
    let names: Vec<String> = servers.keys().cloned().collect();
    manager.start(McpConfig { servers }).await;
    for name in names {
        manager
            .wait_for_status(&name, McpServerStatus::Ready, Duration::from_secs(30))
            .await
            .unwrap_or_else(|| panic!("server `{name}` ready"));
    }
    let registry = ContextRegistry::new(Services {
        frames: Default::default(),
        store: h.store.clone(),
        llm: Some(h.llm.clone()),
        tools: h.tools.clone(),
        mcp: Some(manager.clone()),
        settings: EngineSettings {
            default_model: "mock-model".into(),
            ..EngineSettings::default()
        },
    });
    (registry, manager)
}

/// A context of `registry` that runs every call without asking.
async fn auto_all(registry: &ContextRegistry) -> braid_context::ContextHandle {
    registry
        .create(CreateContextRequest {
            title: None,
            config: ContextConfig {
                approval_policy: ApprovalPolicy::AutoAll,
                ..ContextConfig::default()
            },
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn model_calls_a_real_mcp_tool_and_reads_its_result() {
    let h = Harness::new(Script::new()).await;
    let (registry, manager) = with_everything(&h).await;
    let echo = manager
        .servers()
        .into_iter()
        .find(|s| s.name == "everything")
        .unwrap()
        .tools
        .into_iter()
        .find(|t| t.ends_with("__echo"))
        .expect("server-everything has an echo tool");
    h.mock
        .push_response(calls(&[("m1", &echo, json!({"message": "braided hello"}))]));
    h.mock.push_response(reply(&["The server echoed it."]));
    let ctx = auto_all(&registry).await;
    ctx.send_message(text("echo something through MCP"))
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);

    // The model was offered the MCP tool like any other.
    assert!(h.mock.requests()[0].body.contains(&echo));
    let ms = messages(&ctx).await;
    let request = ms.iter().find_map(|m| match &m.kind {
        MessageKind::McpToolRequest(r) => Some(r.clone()),
        _ => None,
    });
    let request = request.expect("an mcp_tool_request");
    assert_eq!(
        (request.server_name.as_str(), request.tool_name.as_str()),
        ("everything", "echo")
    );
    let result = ms.iter().find_map(|m| match &m.kind {
        MessageKind::McpToolResult(r) => Some(r.clone()),
        _ => None,
    });
    let result = result.expect("an mcp_tool_result");
    assert!(
        matches!(result.outcome, McpOutcome::Success { .. }),
        "{:?}",
        result.outcome
    );
    // The result flowed back into the next request.
    let second = h.mock.requests()[1].body.clone();
    assert!(second.contains("braided hello"), "{second}");
    manager.shutdown().await;
}

#[tokio::test]
async fn a_resource_is_injected_without_asking_the_model_and_cached() {
    let h = Harness::new(Script::new().then(reply(&["I read the resource."]))).await;
    let (registry, manager) = with_everything(&h).await;
    let resources = manager.list_resources("everything").await.unwrap();
    let uri = resources
        .first()
        .expect("server-everything has resources")
        .uri
        .clone();
    let ctx = registry
        .create(CreateContextRequest {
            title: None,
            config: ContextConfig::default(),
        })
        .await
        .unwrap();
    let inject = || SendMessageRequest {
        payload: MessagePayload::McpResource(McpResourcePayload {
            server_name: "everything".into(),
            resource_uri: uri.clone(),
        }),
        client_metadata: None,
    };
    let sent = ctx.send_message(inject()).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(
        h.mock.request_count(),
        0,
        "injecting a resource does not ask the model"
    );
    let ms = messages(&ctx).await;
    assert_eq!(ms[0].id, sent.message_id);
    let MessageKind::McpResource(first) = &ms[0].kind else {
        panic!("{:?}", ms[0].kind)
    };
    assert_eq!(first.resource_uri, uri);
    // Read again while fresh: the same content, from the cache.
    ctx.send_message(inject()).await.unwrap();
    settle(&ctx).await;
    let ms = messages(&ctx).await;
    let MessageKind::McpResource(second) = &ms[1].kind else {
        panic!()
    };
    assert_eq!(
        second.retrieved_at, first.retrieved_at,
        "served from the context's cache"
    );
    // The model sees the resource as context in the next turn.
    ctx.send_message(text("what does it say?")).await.unwrap();
    settle(&ctx).await;
    assert!(h.mock.requests()[0].body.contains(&uri));
    // An unknown server is refused at once.
    let err = ctx
        .send_message(SendMessageRequest {
            payload: MessagePayload::McpResource(McpResourcePayload {
                server_name: "nope".into(),
                resource_uri: "x://y".into(),
            }),
            client_metadata: None,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    manager.shutdown().await;
}

#[tokio::test]
async fn limited_auto_runs_a_read_only_hint_only_of_a_trusted_server() {
    // server-everything annotates `echo` with `readOnlyHint: true`. The same server runs twice:
    // once as configured by default, once with `"trustToolHints": true`.
    let mut trusted = everything();
    trusted.tool_hints = braid_mcp::ToolHints::Trusted;
    let h = Harness::new(
        Script::new()
            .then(calls(&[(
                "u1",
                "mcp__untrusted__echo",
                json!({"message": "claimed"}),
            )]))
            .then(calls(&[(
                "t1",
                "mcp__trusted__echo",
                json!({"message": "trusted read"}),
            )]))
            .then(reply(&["done"])),
    )
    .await;
    let (registry, manager) = with_servers(
        &h,
        BTreeMap::from([
            ("untrusted".to_owned(), everything()),
            ("trusted".to_owned(), trusted),
        ]),
    )
    .await;
    let limited = ContextConfig {
        approval_policy: ApprovalPolicy::LimitedAuto {
            max_depth: 5,
            tools: Vec::new(),
        },
        ..ContextConfig::default()
    };
    let untrusted_ctx = registry
        .create(CreateContextRequest {
            title: None,
            config: limited.clone(),
        })
        .await
        .unwrap();
    untrusted_ctx.send_message(text("echo")).await.unwrap();
    let ContextState::AwaitingToolApproval { tool_names, .. } = settle(&untrusted_ctx).await else {
        panic!("the untrusted server's tool should wait for a person")
    };
    assert_eq!(tool_names, ["mcp__untrusted__echo"]);

    let trusted_ctx = registry
        .create(CreateContextRequest {
            title: None,
            config: limited,
        })
        .await
        .unwrap();
    trusted_ctx.send_message(text("echo")).await.unwrap();
    assert_eq!(settle(&trusted_ctx).await, ContextState::Idle);
    let ran = messages(&trusted_ctx).await.into_iter().any(|m| {
        matches!(&m.kind, MessageKind::McpToolResult(r)
            if r.tool_name == "echo" && matches!(r.outcome, McpOutcome::Success { .. }))
    });
    assert!(ran, "the trusted server's read-only tool ran unasked");
    manager.shutdown().await;
}

#[tokio::test]
async fn a_call_made_while_its_server_reconnects_is_tried_again_once_it_is_back() {
    let h = Harness::new(Script::new()).await;
    let (registry, manager) = with_everything(&h).await;
    let echo = braid_mcp::naming::tool_name("everything", "echo");
    assert!(h.tools.get(&echo).is_some(), "server-everything has `echo`");
    let pid = manager.process_id("everything").unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    manager
        .wait_for_status(
            "everything",
            McpServerStatus::Failed,
            Duration::from_secs(10),
        )
        .await
        .expect("the manager sees the server gone");
    h.mock
        .push_response(calls(&[("m1", &echo, json!({"message": "still there?"}))]));
    h.mock.push_response(reply(&["It came back."]));
    let ctx = auto_all(&registry).await;
    ctx.send_message(text("echo while it restarts"))
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);

    // The first try found no server; the second ran once it was connected again.
    let attempts: Vec<(u32, u32)> = ctx
        .state(true)
        .await
        .unwrap()
        .history
        .unwrap()
        .into_iter()
        .filter_map(|t| match t.to {
            ContextState::ExecutingTool {
                attempt, finished, ..
            } => Some((attempt, finished)),
            _ => None,
        })
        .collect();
    assert_eq!(attempts, [(1, 0), (2, 0), (2, 1)]);
    let output = messages(&ctx)
        .await
        .into_iter()
        .find_map(|m| match m.kind {
            MessageKind::ToolResult(r) if r.call_id.as_str() == "m1" => Some(r.outcome),
            MessageKind::McpToolResult(r) if r.request_id.as_str() == "m1" => {
                Some(match r.outcome {
                    McpOutcome::Success { result } => ToolOutcome::Success { output: result },
                    McpOutcome::Error { error, .. } => ToolOutcome::Error { error },
                })
            }
            _ => None,
        })
        .expect("the call's result");
    let ToolOutcome::Success { output } = output else {
        panic!("the second try succeeded: {output:?}");
    };
    assert!(output.to_string().contains("still there?"), "{output}");
    manager.shutdown().await;
}
