//! Child processes started by `run_command`: they see none of Braid's secrets, and nothing they
//! start outlives a call that timed out, was interrupted or was abandoned.
#![cfg(unix)]

use std::time::Duration;

use braid_protocol::{AgentRole, Mode};
use braid_tools::{ToolContext, ToolErrorCode, Workspace, builtin_registry};
use serde_json::json;

/// Set (to anything) in the re-executed test process that holds the secrets.
const INNER: &str = "BRAID_SECRETS_TEST_INNER";

/// The secrets the re-executed process holds, and a value no child may print.
const SECRETS: [(&str, &str); 5] = [
    ("BRAID_API_TOKEN", "braid-token-value-123"),
    ("OPENAI_API_KEY", "sk-openai-value-456"),
    ("ANTHROPIC_API_KEY", "sk-ant-value-789"),
    ("AWS_SECRET_ACCESS_KEY", "aws-secret-value-000"),
    ("GITHUB_TOKEN", "ghp-value-111"),
];

fn fixture() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(Some(Workspace::new(dir.path()).unwrap()), AgentRole::Actor);
    (dir, ctx)
}

/// Runs `env` through `run_command` and prints what it saw between markers (only in the
/// re-executed process; run alone it has nothing to check and returns).
#[tokio::test]
async fn inner_run_command_prints_its_environment() {
    if std::env::var_os(INNER).is_none() {
        return;
    }
    let (_dir, ctx) = fixture();
    let out = builtin_registry()
        .unwrap()
        .execute("run_command", json!({"program": "env"}), &ctx, Mode::Act)
        .await
        .unwrap()
        .content;
    println!("ENV-BEGIN\n{}ENV-END", out["stdout"].as_str().unwrap());
}

#[tokio::test]
async fn run_command_sees_none_of_braids_secrets() {
    // The secrets are set on a fresh process running this test binary, since a test must not
    // change its own (shared, multi-threaded) environment.
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_processes::inner_run_command_prints_its_environment",
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
    let seen = stdout
        .split_once("ENV-BEGIN\n")
        .and_then(|(_, rest)| rest.split_once("ENV-END"))
        .map(|(env, _)| env)
        .unwrap_or_else(|| panic!("the inner test printed no environment: {stdout}"));
    let names: Vec<&str> = seen
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(n, _)| n)
        .collect();
    assert!(
        names.contains(&"PATH"),
        "PATH must reach the command: {names:?}"
    );
    for (name, value) in SECRETS {
        assert!(!seen.contains(name), "{name} reached the command: {seen}");
        assert!(
            !seen.contains(value),
            "the value of {name} reached the command"
        );
    }
    assert!(!seen.contains(INNER));
    for name in &names {
        assert!(
            braid_tools::environment::is_inherited(std::ffi::OsStr::new(name)),
            "`{name}` is not on the allow-list but reached the command"
        );
    }
}

/// A number no other process on the machine has in its command line: `sleep` accepts it as
/// seconds, so it marks the grandchildren too.
fn marker() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("300.{}{:09}", std::process::id(), nanos)
}

/// Live (not zombie) processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|e| {
            std::fs::read_to_string(e.path().join("stat"))
                .ok()
                .and_then(|s| s.rsplit_once(") ").map(|(_, r)| !r.starts_with('Z')))
                .unwrap_or(false)
        })
        .filter_map(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            cmdline.contains(marker).then_some(cmdline)
        })
        .collect()
}

/// The processes still running with `marker`, once none is or 10 s have passed: a loaded
/// machine (a full `make test` beside other builds) can take seconds to reap a killed
/// sandbox's namespace; 2 s were once not enough there.
async fn gone(marker: &str) -> Vec<String> {
    for _ in 0..500 {
        let left = processes_with(marker);
        if left.is_empty() {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    processes_with(marker)
}

#[tokio::test]
async fn a_timed_out_command_leaves_no_grandchild_behind() {
    let (_dir, ctx) = fixture();
    let marker = marker();
    let script = format!("sleep {marker} & sleep {marker}");
    let err = builtin_registry()
        .unwrap()
        .execute(
            "run_command",
            json!({"program": "sh", "args": ["-c", script], "timeout_secs": 1}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, ToolErrorCode::Timeout);
    assert_eq!(gone(&marker).await, Vec::<String>::new());
}

#[tokio::test]
async fn an_interrupted_command_leaves_no_grandchild_behind() {
    let (_dir, ctx) = fixture();
    let marker = marker();
    let script = format!("sleep {marker} & sleep {marker}");
    let cancel = ctx.cancel.clone();
    let watcher = {
        let marker = marker.clone();
        tokio::spawn(async move {
            // Interrupt once both sleeps run.
            for _ in 0..250 {
                if processes_with(&marker).len() >= 2 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            cancel.cancel();
        })
    };
    let err = builtin_registry()
        .unwrap()
        .execute(
            "run_command",
            json!({"program": "sh", "args": ["-c", script], "timeout_secs": 60}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap_err();
    watcher.await.unwrap();
    assert_eq!(err.code, ToolErrorCode::Cancelled);
    assert_eq!(gone(&marker).await, Vec::<String>::new());
}

#[tokio::test]
async fn an_abandoned_command_leaves_no_grandchild_behind() {
    let (_dir, ctx) = fixture();
    let marker = marker();
    let script = format!("sleep {marker} & sleep {marker}");
    let registry = builtin_registry().unwrap();
    let mut call = Box::pin(registry.execute(
        "run_command",
        json!({"program": "sh", "args": ["-c", script], "timeout_secs": 60}),
        &ctx,
        Mode::Act,
    ));
    let both_run = async {
        while processes_with(&marker).len() < 2 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::select! {
        _ = &mut call => panic!("the command should still be running"),
        () = both_run => {}
        () = tokio::time::sleep(Duration::from_secs(5)) => panic!("the sleeps never started"),
    }
    // The caller stops waiting (its own deadline passed) and drops the call.
    drop(call);
    assert_eq!(gone(&marker).await, Vec::<String>::new());
}

#[tokio::test]
async fn background_processes_stop_when_the_command_exits() {
    let (_dir, ctx) = fixture();
    let marker = marker();
    let script = format!("sleep {marker} >/dev/null 2>&1 & echo started");
    let out = builtin_registry()
        .unwrap()
        .execute(
            "run_command",
            json!({"program": "sh", "args": ["-c", script]}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap()
        .content;
    assert_eq!(out["stdout"], "started\n");
    assert_eq!(out["exit_code"], 0);
    assert_eq!(gone(&marker).await, Vec::<String>::new());
}
