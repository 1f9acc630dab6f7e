//! What MCP costs Braid per call: naming a server's tools, parsing a configuration of 50 servers,
//! and one `echo` round trip through the registry to the real server-everything over stdio
//! (install it with `crates/braid-mcp/tests/servers/install.sh`).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use braid_mcp::naming::tool_name;
use braid_mcp::{ManagerOptions, McpConfig, McpManager, ServerConfig};
use braid_protocol::api::McpServerStatus;
use braid_protocol::{AgentRole, Mode};
use braid_tools::{ToolContext, ToolRegistry};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

fn naming_and_config(c: &mut Criterion) {
    c.bench_function("tool_name/plain", |b| {
        b.iter(|| tool_name(black_box("everything"), black_box("get-sum")))
    });
    let long = "a tool with a very long name that needs truncating and sanitizing.v2";
    c.bench_function("tool_name/hashed", |b| {
        b.iter(|| tool_name(black_box("my server"), black_box(long)))
    });
    let servers: Vec<String> = (0..50)
        .map(|i| {
            format!(
                r#""s{i}": {{"command": "node", "args": ["x.js", "stdio"], "env": {{"K": "v"}}, "autoApprove": ["echo"], "timeout": 30}}"#
            )
        })
        .collect();
    let text = format!(r#"{{"mcpServers": {{{}}}}}"#, servers.join(","));
    c.bench_function("config/parse_50_servers", |b| {
        b.iter(|| McpConfig::parse(black_box(&text)).unwrap())
    });
}

fn echo_round_trip(c: &mut Criterion) {
    let js = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        js.exists(),
        "server-everything is not installed: run crates/braid-mcp/tests/servers/install.sh"
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let manager = McpManager::new(Arc::new(ToolRegistry::new()), ManagerOptions::default());
    let config = McpConfig {
        servers: [(
            "everything".to_string(),
            ServerConfig::stdio("node", [js.to_string_lossy().into_owned(), "stdio".into()]),
        )]
        .into(),
    };
    runtime.block_on(async {
        manager.start(config).await;
        manager
            .wait_for_status(
                "everything",
                McpServerStatus::Ready,
                Duration::from_secs(20),
            )
            .await
            .expect("server-everything ready");
    });
    let ctx = ToolContext::new(None, AgentRole::Actor);
    c.bench_function("call/echo_stdio_round_trip", |b| {
        b.to_async(&runtime).iter(|| async {
            manager
                .registry()
                .execute(
                    "mcp__everything__echo",
                    json!({"message": "bench"}),
                    &ctx,
                    Mode::Act,
                )
                .await
                .unwrap()
        })
    });
    runtime.block_on(manager.shutdown());
}

criterion_group!(benches, naming_and_config, echo_round_trip);
criterion_main!(benches);
