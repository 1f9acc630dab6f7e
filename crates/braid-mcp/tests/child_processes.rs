//! MCP stdio servers as child processes: they see only the allow-listed environment plus the
//! `env` their entry names, and stopping one stops everything it started.
#![cfg(unix)]

use crate::support;

use std::collections::BTreeMap;
use std::time::Duration;

use braid_mcp::{McpConfig, ServerConfig, TransportConfig};
use braid_protocol::api::McpServerStatus;
use braid_protocol::{AgentRole, Mode};
use braid_tools::ToolContext;
use serde_json::{Value, json};
use support::*;

/// Set (to anything) in the re-executed test process that holds the secrets.
const INNER: &str = "BRAID_MCP_SECRETS_TEST_INNER";

/// The secrets the re-executed process holds.
const SECRETS: [(&str, &str); 5] = [
    ("BRAID_API_TOKEN", "braid-token-value-123"),
    ("OPENAI_API_KEY", "sk-openai-value-456"),
    ("ANTHROPIC_API_KEY", "sk-ant-value-789"),
    ("AWS_SECRET_ACCESS_KEY", "aws-secret-value-000"),
    ("BRAID_LLM_API_KEY", "braid-llm-value-222"),
];

fn one(name: &str, server: ServerConfig) -> McpConfig {
    McpConfig {
        servers: [(name.to_string(), server)].into(),
    }
}

/// Starts server-everything with one configured variable, calls its `get-env` tool and prints
/// the environment it reports between markers (only in the re-executed process).
#[tokio::test]
async fn inner_server_everything_prints_its_environment() {
    if std::env::var_os(INNER).is_none() {
        return;
    }
    let mut server = everything_stdio();
    if let TransportConfig::Stdio { env, .. } = &mut server.transport {
        env.insert("CONFIGURED_FOR_SERVER".into(), "yes".into());
    }
    let manager = manager();
    manager.start(one("everything", server)).await;
    wait(&manager, "everything", McpServerStatus::Ready).await;
    let ctx = ToolContext::new(None, AgentRole::Actor);
    let out = manager
        .registry()
        .execute("mcp__everything__get-env", json!({}), &ctx, Mode::Act)
        .await
        .unwrap()
        .content;
    manager.shutdown().await;
    println!(
        "ENV-BEGIN\n{}\nENV-END",
        out["content"][0]["text"].as_str().unwrap()
    );
}

#[tokio::test]
async fn a_stdio_server_sees_only_its_configured_environment() {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_processes::inner_server_everything_prints_its_environment",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(INNER, "1")
        .envs(SECRETS)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = stdout
        .split_once("ENV-BEGIN\n")
        .and_then(|(_, rest)| rest.split_once("\nENV-END"))
        .map(|(env, _)| env)
        .unwrap_or_else(|| panic!("the inner test printed no environment: {stdout}"));
    let seen: BTreeMap<String, Value> = serde_json::from_str(text).unwrap();
    assert_eq!(seen.get("CONFIGURED_FOR_SERVER"), Some(&json!("yes")));
    assert!(seen.contains_key("PATH"), "{seen:?}");
    for (name, value) in SECRETS {
        assert!(!seen.contains_key(name), "{name} reached the server");
        assert!(
            !text.contains(value),
            "the value of {name} reached the server"
        );
    }
    for name in seen.keys() {
        assert!(
            name == "CONFIGURED_FOR_SERVER"
                || braid_tools::environment::is_inherited(std::ffi::OsStr::new(name)),
            "`{name}` is neither allow-listed nor configured but reached the server"
        );
    }
}

/// Live processes whose command line contains `marker`.
fn processes_with(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|pid| alive(*pid))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| String::from_utf8_lossy(&c).contains(marker))
                .unwrap_or(false)
        })
        .count()
}

#[tokio::test]
async fn stopping_a_server_stops_what_it_started() {
    // A server that first starts a background helper (as `npx` starts node), then runs
    // server-everything in its place.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let marker = format!("300.{}{nanos:09}", std::process::id());
    let script = format!(
        "sleep {marker} </dev/null >/dev/null 2>&1 & exec node {} stdio",
        everything_js()
    );
    let manager = manager();
    manager
        .start(one(
            "wrapped",
            ServerConfig::stdio("sh", ["-c".to_string(), script]),
        ))
        .await;
    wait(&manager, "wrapped", McpServerStatus::Ready).await;
    assert_eq!(processes_with(&marker), 1, "the helper runs");
    manager.shutdown().await;
    for _ in 0..100 {
        if processes_with(&marker) == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the server's helper process survived shutdown");
}
