//! Streamable HTTP transport and resources (list, read, binary summary, per-context cache with
//! fresh hits and stale re-reads) against the real server-everything.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use braid_mcp::{CacheOutcome, ManualClock, McpConfig, McpError, ResourceCache, ServerConfig};
use braid_protocol::api::McpServerStatus;
use braid_protocol::{AgentRole, Mode, ResourceContent};
use braid_tools::ToolContext;
use chrono::Utc;
use serde_json::json;
use support::*;

const ARCHITECTURE: &str = "demo://resource/static/document/architecture.md";

fn config(servers: Vec<(&str, ServerConfig)>) -> McpConfig {
    McpConfig {
        servers: servers
            .into_iter()
            .map(|(n, c)| (n.to_string(), c))
            .collect(),
    }
}

#[tokio::test]
async fn streamable_http_server_is_discovered_and_called() {
    let http = HttpEverything::start().await;
    let manager = manager();
    let mut remote = ServerConfig::http(http.url.clone());
    if let braid_mcp::TransportConfig::StreamableHttp { headers, .. } = &mut remote.transport {
        headers.insert("X-Braid-Test".into(), "1".into());
    }
    manager.start(config(vec![("remote", remote)])).await;
    wait(&manager, "remote", McpServerStatus::Ready).await;
    assert!(manager.process_id("remote").is_none());
    let ctx = ToolContext::new(None, AgentRole::Actor);
    let out = manager
        .registry()
        .execute(
            "mcp__remote__echo",
            json!({"message": "over http"}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap();
    assert_eq!(out.content["content"][0]["text"], "Echo: over http");
    let resources = manager.list_resources("remote").await.unwrap();
    assert!(
        resources.iter().any(|r| r.uri == ARCHITECTURE),
        "{resources:?}"
    );
    manager.shutdown().await;
    http.stop().await;
}

#[tokio::test]
async fn unreachable_http_server_fails_without_blocking() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let manager = manager();
    manager
        .start(config(vec![(
            "gone",
            ServerConfig::http(format!("http://127.0.0.1:{port}/mcp")),
        )]))
        .await;
    let info = manager
        .wait_for_status("gone", McpServerStatus::Failed, READY)
        .await
        .unwrap();
    assert!(info.error.unwrap().contains("127.0.0.1"));
    let err = manager.list_resources("gone").await.unwrap_err();
    assert!(matches!(err, McpError::NotReady { .. }), "{err}");
    manager.shutdown().await;
}

#[tokio::test]
async fn resources_are_listed_and_read_with_binary_summarized() {
    let manager = manager();
    manager
        .start(config(vec![("everything", everything_stdio())]))
        .await;
    wait(&manager, "everything", McpServerStatus::Ready).await;

    let resources = manager.list_resources("everything").await.unwrap();
    let doc = resources.iter().find(|r| r.uri == ARCHITECTURE).unwrap();
    assert_eq!(doc.server_name, "everything");
    assert_eq!(doc.name, "architecture.md");
    assert_eq!(doc.mime_type.as_deref(), Some("text/markdown"));
    assert_eq!(manager.list_all_resources().await.len(), resources.len());

    let read = manager
        .read_resource("everything", ARCHITECTURE)
        .await
        .unwrap();
    let ResourceContent::Text { text } = &read.content else {
        panic!("expected text, got {:?}", read.content)
    };
    assert!(text.len() > 100, "{text}");
    assert_eq!(read.mime_type.as_deref(), Some("text/markdown"));

    let blob = manager
        .read_resource("everything", "demo://resource/dynamic/blob/7")
        .await
        .unwrap();
    let ResourceContent::Binary {
        size_bytes,
        summary,
    } = &blob.content
    else {
        panic!("expected binary, got {:?}", blob.content)
    };
    assert!(*size_bytes > 20, "{size_bytes}");
    assert!(
        summary.contains(&format!("{size_bytes} bytes")),
        "{summary}"
    );

    let missing = manager
        .read_resource("everything", "demo://resource/nope")
        .await
        .unwrap_err();
    assert!(matches!(missing, McpError::Protocol { .. }), "{missing:?}");
    assert!(matches!(
        manager
            .read_resource("nobody", ARCHITECTURE)
            .await
            .unwrap_err(),
        McpError::UnknownServer { .. }
    ));
    manager.shutdown().await;
}

#[tokio::test]
async fn cache_serves_fresh_resources_and_rereads_stale_ones() {
    let manager = manager();
    let mut everything = everything_stdio();
    everything
        .resource_ttl
        .by_mime_type
        .insert("text/plain".into(), Duration::from_secs(10));
    manager
        .start(config(vec![("everything", everything)]))
        .await;
    wait(&manager, "everything", McpServerStatus::Ready).await;

    let start = Utc::now();
    let clock = Arc::new(ManualClock::new(start));
    let cache = ResourceCache::new(clock.clone());

    let (first, outcome) = cache
        .get(&manager, "everything", ARCHITECTURE)
        .await
        .unwrap();
    assert_eq!(outcome, CacheOutcome::Read);
    assert_eq!(first.server_name, "everything");
    assert_eq!(first.resource_uri, ARCHITECTURE);
    assert_eq!(first.name.as_deref(), Some("architecture.md"));
    assert_eq!(first.retrieved_at, start);
    braid_protocol::Validate::validate(&first).unwrap();

    // Within the default hour: the same message, not read again.
    clock.advance(Duration::from_secs(59 * 60));
    let (again, outcome) = cache
        .get(&manager, "everything", ARCHITECTURE)
        .await
        .unwrap();
    assert_eq!(outcome, CacheOutcome::Fresh);
    assert_eq!(again, first);

    // Past the hour: read again, with the new retrieval time.
    clock.advance(Duration::from_secs(2 * 60));
    let (reread, outcome) = cache
        .get(&manager, "everything", ARCHITECTURE)
        .await
        .unwrap();
    assert_eq!(outcome, CacheOutcome::Read);
    assert_eq!(reread.retrieved_at, start + chrono::Duration::minutes(61));
    assert_eq!(reread.content, first.content);

    // text/plain has its own 10 s TTL in this configuration.
    let dynamic = "demo://resource/dynamic/text/3";
    let (plain, outcome) = cache.get(&manager, "everything", dynamic).await.unwrap();
    assert_eq!(outcome, CacheOutcome::Read);
    assert_eq!(plain.mime_type.as_deref(), Some("text/plain"));
    clock.advance(Duration::from_secs(5));
    assert_eq!(
        cache.get(&manager, "everything", dynamic).await.unwrap().1,
        CacheOutcome::Fresh
    );
    clock.advance(Duration::from_secs(6));
    assert_eq!(
        cache.get(&manager, "everything", dynamic).await.unwrap().1,
        CacheOutcome::Read
    );
    manager.shutdown().await;
}
