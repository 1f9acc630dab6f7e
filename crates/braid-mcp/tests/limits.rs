//! Bounds on what a server sends: a message over `ManagerOptions::max_message_bytes` ends the
//! session with an error naming the limit, over stdio and over streamable HTTP, and the server
//! is started again.

use crate::support;

use std::sync::Arc;

use braid_mcp::{ManagerOptions, McpConfig, McpManager, ServerConfig};
use braid_protocol::api::McpServerStatus;
use braid_protocol::{AgentRole, Mode};
use braid_tools::{ToolContext, ToolRegistry};
use serde_json::json;
use support::*;

/// Far above server-everything's `tools/list` answer, far below an echo of `3 * LIMIT` bytes.
const LIMIT: usize = 256 * 1024;

fn limited_manager() -> McpManager {
    McpManager::new(
        Arc::new(ToolRegistry::new()),
        ManagerOptions {
            max_message_bytes: LIMIT,
            ..fast_options()
        },
    )
}

async fn oversized_echo_is_refused(server: ServerConfig) {
    let manager = limited_manager();
    manager
        .start(McpConfig {
            servers: [("big".to_string(), server)].into(),
        })
        .await;
    wait(&manager, "big", McpServerStatus::Ready).await;
    let ctx = ToolContext::new(None, AgentRole::Actor);
    // A small answer passes.
    let small = manager
        .registry()
        .execute(
            "mcp__big__echo",
            json!({"message": "short"}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap();
    assert!(small.content.to_string().contains("short"));
    // An answer of more than LIMIT bytes does not.
    let err = manager
        .registry()
        .execute(
            "mcp__big__echo",
            json!({"message": "x".repeat(3 * LIMIT)}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap_err();
    assert!(!err.message.is_empty());
    manager.shutdown().await;
}

#[tokio::test]
async fn a_stdio_message_over_the_limit_ends_the_session_naming_the_limit() {
    let manager = limited_manager();
    manager
        .start(McpConfig {
            servers: [("big".to_string(), everything_stdio())].into(),
        })
        .await;
    wait(&manager, "big", McpServerStatus::Ready).await;
    let mut changes = Vec::new();
    let ctx = ToolContext::new(None, AgentRole::Actor);
    let err = manager
        .registry()
        .execute(
            "mcp__big__echo",
            json!({"message": "x".repeat(3 * LIMIT)}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap_err();
    assert!(
        err.message.contains(&format!("larger than {LIMIT} bytes")),
        "the call says why it failed: {}",
        err.message
    );
    // The session ended with the reason, then the server was started again.
    for _ in 0..200 {
        if let Some(info) = manager.server("big") {
            changes.push(info.clone());
            if info
                .error
                .as_deref()
                .is_some_and(|e| e.contains(&format!("{LIMIT} bytes")))
            {
                break;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let reported = changes
        .iter()
        .filter_map(|i| i.error.clone())
        .find(|e| e.contains(&format!("larger than {LIMIT} bytes")));
    assert!(reported.is_some(), "{changes:?}");
    wait(&manager, "big", McpServerStatus::Ready).await;
    manager.shutdown().await;
}

#[tokio::test]
async fn stdio_answers_under_the_limit_pass_and_over_it_fail() {
    oversized_echo_is_refused(everything_stdio()).await;
}

#[tokio::test]
async fn http_answers_under_the_limit_pass_and_over_it_fail() {
    let http = HttpEverything::start().await;
    oversized_echo_is_refused(ServerConfig::http(http.url.clone())).await;
}

#[tokio::test]
async fn a_long_text_result_is_cut_to_what_braid_keeps() {
    let manager = manager();
    manager
        .start(McpConfig {
            servers: [("e".to_string(), everything_stdio())].into(),
        })
        .await;
    wait(&manager, "e", McpServerStatus::Ready).await;
    let ctx = ToolContext::new(None, AgentRole::Actor);
    let long = "y".repeat(braid_mcp::tool::MAX_RESULT_TEXT_BYTES + 10_000);
    let out = manager
        .registry()
        .execute("mcp__e__echo", json!({"message": long}), &ctx, Mode::Act)
        .await
        .unwrap()
        .content;
    let kept = out["content"][0]["text"].as_str().unwrap();
    assert_eq!(kept.len(), braid_mcp::tool::MAX_RESULT_TEXT_BYTES);
    let note = out["truncated"].as_str().unwrap();
    assert!(note.contains("MAX_RESULT_TEXT_BYTES"), "{note}");
    manager.shutdown().await;
}
