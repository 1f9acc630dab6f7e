//! The connection manager's lifecycle against real servers: a bad command among working servers,
//! a server killed mid-session, reload, disabled servers, and no child left after shutdown.

use crate::support;

use std::time::{Duration, Instant};

use braid_mcp::{Enablement, McpConfig, ServerConfig};
use braid_protocol::api::McpServerStatus;
use braid_protocol::{AgentRole, Mode};
use braid_tools::ToolContext;
use serde_json::json;
use support::*;

fn config(servers: Vec<(&str, ServerConfig)>) -> McpConfig {
    McpConfig {
        servers: servers
            .into_iter()
            .map(|(n, c)| (n.to_string(), c))
            .collect(),
    }
}

async fn echo(manager: &braid_mcp::McpManager, message: &str) -> String {
    let ctx = ToolContext::new(None, AgentRole::Actor);
    let out = manager
        .registry()
        .execute(
            "mcp__everything__echo",
            json!({ "message": message }),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap();
    out.content["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn bad_command_fails_and_is_reported_while_other_servers_work() {
    let manager = manager();
    let mut disabled = time_stdio();
    disabled.enablement = Enablement::Disabled;
    let started = Instant::now();
    manager
        .start(config(vec![
            ("broken", ServerConfig::stdio("/nonexistent/mcp-server", [])),
            (
                "crashing",
                ServerConfig::stdio("node", ["/nonexistent/server.js".to_string()]),
            ),
            ("everything", everything_stdio()),
            ("off", disabled),
        ]))
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "start must not wait for servers"
    );
    wait(&manager, "everything", McpServerStatus::Ready).await;
    assert_eq!(echo(&manager, "ok").await, "Echo: ok");
    // It is retried a bounded number of times, then stays failed with the reason.
    let broken = manager
        .wait_for_status("broken", McpServerStatus::Failed, READY)
        .await
        .unwrap();
    let reason = broken.error.unwrap();
    assert!(reason.contains("/nonexistent/mcp-server"), "{reason}");
    tokio::time::sleep(Duration::from_millis(800)).await;
    let given_up = manager.server("broken").unwrap();
    assert_eq!(given_up.status, McpServerStatus::Failed);
    assert!(
        given_up.error.as_deref().unwrap().contains("gave up"),
        "{given_up:?}"
    );
    assert!(given_up.tools.is_empty());
    // A process that starts but dies at once: its own words (stderr) are in the reason.
    let crashing = manager
        .wait_for_status("crashing", McpServerStatus::Failed, READY)
        .await
        .unwrap();
    let reason = crashing.error.unwrap();
    assert!(reason.contains("Cannot find module"), "{reason}");
    let off = manager.server("off").unwrap();
    assert_eq!(off.status, McpServerStatus::Disabled);
    assert!(manager.process_id("off").is_none());
    let names: Vec<String> = manager.servers().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["broken", "crashing", "everything", "off"]);
    manager.shutdown().await;
}

#[tokio::test]
async fn server_killed_mid_session_is_restarted_and_its_tools_come_back() {
    let manager = manager();
    manager
        .start(config(vec![("everything", everything_stdio())]))
        .await;
    wait(&manager, "everything", McpServerStatus::Ready).await;
    assert_eq!(echo(&manager, "before").await, "Echo: before");
    let first = manager.process_id("everything").unwrap();

    let status = std::process::Command::new("kill")
        .args(["-9", &first.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(wait_gone(first).await, "killed server {first} still runs");

    let deadline = Instant::now() + READY;
    let second = loop {
        if let Some(pid) = manager.process_id("everything")
            && pid != first
            && manager.server("everything").unwrap().status == McpServerStatus::Ready
        {
            break pid;
        }
        assert!(
            Instant::now() < deadline,
            "not restarted: {:?}",
            manager.server("everything")
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(alive(second));
    assert_eq!(echo(&manager, "after").await, "Echo: after");
    manager.shutdown().await;
    assert!(wait_gone(second).await);
}

#[tokio::test]
async fn reload_starts_added_stops_removed_and_keeps_unchanged_servers() {
    let manager = manager();
    manager
        .start(config(vec![("everything", everything_stdio())]))
        .await;
    wait(&manager, "everything", McpServerStatus::Ready).await;
    let everything_pid = manager.process_id("everything").unwrap();

    // Adding a server leaves the running one alone.
    let summary = manager
        .reload(config(vec![
            ("everything", everything_stdio()),
            ("time", time_stdio()),
        ]))
        .await;
    assert_eq!(summary.added, ["time"]);
    assert_eq!(summary.unchanged, ["everything"]);
    wait(&manager, "time", McpServerStatus::Ready).await;
    assert_eq!(manager.process_id("everything"), Some(everything_pid));
    assert!(
        manager
            .registry()
            .get("mcp__time__get_current_time")
            .is_some()
    );
    let time_pid = manager.process_id("time").unwrap();

    // Removing one stops its process and removes its tools.
    let summary = manager.reload(config(vec![("time", time_stdio())])).await;
    assert_eq!(summary.removed, ["everything"]);
    assert_eq!(summary.unchanged, ["time"]);
    assert!(manager.server("everything").is_none());
    assert!(manager.registry().get("mcp__everything__echo").is_none());
    assert!(wait_gone(everything_pid).await, "removed server still runs");
    assert_eq!(manager.process_id("time"), Some(time_pid));

    // Changing one restarts it with the new configuration.
    let mut changed = time_stdio();
    changed.timeout = Duration::from_secs(5);
    let summary = manager.reload(config(vec![("time", changed)])).await;
    assert_eq!(summary.restarted, ["time"]);
    assert!(wait_gone(time_pid).await);
    wait(&manager, "time", McpServerStatus::Ready).await;
    assert_eq!(
        manager
            .registry()
            .get("mcp__time__get_current_time")
            .unwrap()
            .spec()
            .timeout,
        Duration::from_secs(5)
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn shutdown_leaves_no_child_process() {
    let manager = manager();
    manager
        .start(config(vec![
            ("everything", everything_stdio()),
            ("time", time_stdio()),
        ]))
        .await;
    wait(&manager, "everything", McpServerStatus::Ready).await;
    wait(&manager, "time", McpServerStatus::Ready).await;
    let pids = [
        manager.process_id("everything").unwrap(),
        manager.process_id("time").unwrap(),
    ];
    assert!(pids.iter().all(|pid| alive(*pid)));
    manager.shutdown().await;
    for pid in pids {
        assert!(!alive(pid), "process {pid} survived shutdown");
    }
    assert!(manager.servers().is_empty());
    assert!(manager.registry().names().is_empty());
}
