//! Commands in the sandbox, on this machine's kernel (Landlock): an approved command cannot
//! write outside the workspace, read a protected path or reach a TCP listener on 127.0.0.1, and
//! still builds and tests a Cargo project inside the workspace. CI runs these as root: Landlock
//! confines root too, so they show the sandbox holds for root.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::time::Duration;

use braid_protocol::{AgentRole, Mode};
use braid_tools::{
    SandboxMode, SandboxSettings, ToolContext, ToolErrorCode, ToolRegistry, Unsandboxed, Workspace,
    builtin_registry_with_sandbox,
};
use serde_json::{Value, json};

struct Fixture {
    /// Holds the workspace, the outside directory and the secrets.
    _dir: tempfile::TempDir,
    workspace: std::path::PathBuf,
    outside: std::path::PathBuf,
    secret: std::path::PathBuf,
    registry: ToolRegistry,
}

/// A workspace, a directory beside it, and a protected directory holding a key.
fn fixture(unsandboxed: Unsandboxed) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let workspace = root.join("workspace");
    let outside = root.join("outside");
    let secrets = root.join("secrets");
    for d in [&workspace, &outside, &secrets] {
        std::fs::create_dir(d).unwrap();
    }
    let secret = secrets.join("id_ed25519");
    std::fs::write(&secret, "PRIVATE KEY").unwrap();
    let settings = SandboxSettings::new(SandboxMode::WorkspaceWrite, unsandboxed)
        .unwrap()
        .protecting([secrets]);
    Fixture {
        _dir: dir,
        workspace,
        outside,
        secret,
        registry: builtin_registry_with_sandbox(settings).unwrap(),
    }
}

impl Fixture {
    async fn run(&self, mode: Option<SandboxMode>, program: &str, args: &[&str]) -> Value {
        self.try_run(mode, program, args).await.unwrap()
    }

    async fn try_run(
        &self,
        mode: Option<SandboxMode>,
        program: &str,
        args: &[&str],
    ) -> Result<Value, braid_tools::ToolError> {
        let ctx = ToolContext::new(
            Some(Workspace::new(&self.workspace).unwrap()),
            AgentRole::Actor,
        )
        .with_sandbox_mode(mode);
        self.registry
            .execute(
                "run_command",
                json!({"program": program, "args": args, "timeout_secs": 300}),
                &ctx,
                Mode::Act,
            )
            .await
            .map(|out| out.content)
    }
}

fn denials(result: &Value) -> Vec<String> {
    result["sandbox_denials"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|d| d.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[tokio::test]
async fn a_command_cannot_create_a_file_outside_the_workspace() {
    let f = fixture(Unsandboxed::Refused);
    let target = f.outside.join("planted");
    let result = f.run(None, "touch", &[path(&target)]).await;
    assert_eq!(result["success"], false, "{result}");
    assert!(
        !target.exists(),
        "the sandbox let a file be created outside"
    );
    assert_eq!(result["sandbox"], "workspace_write");
    assert_eq!(
        denials(&result),
        [format!(
            "denied by the sandbox: write outside the workspace: {}",
            target.display()
        )],
        "{result}"
    );
    // This operator allows no command outside the sandbox, so the model is not told to ask.
    assert!(
        result["outside_sandbox"]
            .as_str()
            .is_some_and(|s| s.contains("does not allow") && !s.contains("a person decides")),
        "{result}"
    );
    // Inside the workspace and in the private temporary directory it writes.
    let inside = f
        .run(
            None,
            "sh",
            &["-c", "touch made && touch \"$TMPDIR/scratch\""],
        )
        .await;
    assert_eq!(inside["success"], true, "{inside}");
    assert!(f.workspace.join("made").exists());
}

#[tokio::test]
async fn read_only_refuses_writes_in_the_workspace_too() {
    let f = fixture(Unsandboxed::Refused);
    let result = f.run(Some(SandboxMode::ReadOnly), "touch", &["made"]).await;
    assert_eq!(result["success"], false, "{result}");
    assert!(!f.workspace.join("made").exists());
    assert_eq!(
        denials(&result),
        [format!(
            "denied by the sandbox: write in a read-only sandbox: {}",
            f.workspace.join("made").display()
        )],
        "{result}"
    );
    std::fs::write(f.workspace.join("readme"), "hello").unwrap();
    let read = f.run(Some(SandboxMode::ReadOnly), "cat", &["readme"]).await;
    assert_eq!(read["stdout"], "hello", "{read}");
}

#[tokio::test]
async fn a_command_cannot_read_a_protected_path() {
    let f = fixture(Unsandboxed::Refused);
    let result = f.run(None, "cat", &[path(&f.secret)]).await;
    assert_eq!(result["success"], false, "{result}");
    assert!(
        !result["stdout"].as_str().unwrap().contains("PRIVATE KEY"),
        "{result}"
    );
    assert_eq!(
        denials(&result),
        [format!(
            "denied by the sandbox: access to a protected path: {}",
            f.secret.display()
        )],
        "{result}"
    );
    // Neither through a link in the workspace.
    std::os::unix::fs::symlink(&f.secret, f.workspace.join("key")).unwrap();
    let linked = f.run(None, "cat", &["key"]).await;
    assert_eq!(linked["success"], false, "{linked}");
    // What is beside the protected directory stays readable.
    std::fs::write(f.outside.join("notes"), "public").unwrap();
    let beside = f.run(None, "cat", &[path(&f.outside.join("notes"))]).await;
    assert_eq!(beside["stdout"], "public", "{beside}");
}

/// Whether a connection reached `listener` within a second.
async fn accepted(listener: &tokio::net::TcpListener) -> bool {
    tokio::time::timeout(Duration::from_secs(1), listener.accept())
        .await
        .is_ok()
}

#[tokio::test]
async fn a_command_cannot_connect_to_a_local_listener() {
    let f = fixture(Unsandboxed::Allowed);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let result = f.run(None, "bash", &["-c", &script]).await;
    assert_eq!(result["success"], false, "{result}");
    assert!(
        !accepted(&listener).await,
        "the sandboxed command connected"
    );
    assert!(
        denials(&result)
            .iter()
            .any(|d| d.starts_with("denied by the sandbox: network access")),
        "{result}"
    );
    // The same command outside the sandbox (the operator allowed `off`) does connect, so the
    // refusal above is the sandbox's.
    let off = f
        .run(Some(SandboxMode::Off), "bash", &["-c", &script])
        .await;
    assert_eq!(off["stdout"], "connected\n", "{off}");
    assert!(accepted(&listener).await);
}

#[tokio::test]
async fn off_is_refused_without_the_operators_permission() {
    let f = fixture(Unsandboxed::Refused);
    let err = f
        .try_run(Some(SandboxMode::Off), "true", &[])
        .await
        .unwrap_err();
    assert_eq!(err.code, ToolErrorCode::PermissionDenied);
    assert!(
        err.message.contains("--allow-unsandboxed"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn a_cargo_project_builds_and_tests_inside_the_workspace() {
    let f = fixture(Unsandboxed::Refused);
    std::fs::write(
        f.workspace.join("Cargo.toml"),
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::create_dir(f.workspace.join("src")).unwrap();
    std::fs::write(
        f.workspace.join("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\
         #[test] fn adds() { assert_eq!(add(2, 3), 5); }\n",
    )
    .unwrap();
    let result = f.run(None, "cargo", &["test", "--offline"]).await;
    assert_eq!(result["success"], true, "{result}");
    assert!(
        result["stdout"]
            .as_str()
            .unwrap()
            .contains("test adds ... ok"),
        "{result}"
    );
    assert!(f.workspace.join("target").is_dir());
}

impl Fixture {
    /// Runs `touch target` asking to leave the sandbox, with the person's decision `escalation`.
    async fn touch_outside(
        &self,
        target: &Path,
        escalation: braid_tools::Escalation,
    ) -> Result<Value, braid_tools::ToolError> {
        let ctx = ToolContext::new(
            Some(Workspace::new(&self.workspace).unwrap()),
            AgentRole::Actor,
        )
        .with_escalation(escalation);
        self.registry
            .execute(
                "run_command",
                json!({"program": "touch", "args": [path(target)], "outside_sandbox": "it writes beside the workspace"}),
                &ctx,
                Mode::Act,
            )
            .await
            .map(|out| out.content)
    }

    /// Asserts that `touch target` asking to leave the sandbox is refused, saying `why`, and
    /// creates nothing.
    async fn stays_inside(&self, target: &Path, escalation: braid_tools::Escalation, why: &str) {
        let err = self.touch_outside(target, escalation).await.unwrap_err();
        assert_eq!(err.code, ToolErrorCode::PermissionDenied);
        assert!(err.message.contains(why), "{}", err.message);
        assert!(!target.exists());
    }
}

#[tokio::test]
async fn a_call_leaves_the_sandbox_only_when_a_person_approved_it_and_the_operator_allows() {
    use braid_tools::Escalation;
    let f = fixture(Unsandboxed::Allowed);
    let target = f.outside.join("escalated");

    // The sandboxed attempt fails, and its result tells the model how to ask.
    let refused = f.run(None, "touch", &[path(&target)]).await;
    assert_eq!(refused["success"], false, "{refused}");
    assert!(
        refused["outside_sandbox"]
            .as_str()
            .is_some_and(|s| s.contains("a person decides")),
        "{refused}"
    );

    // Asking is not enough: the model cannot approve its own escalation.
    f.stays_inside(&target, Escalation::NotApproved, "a person's approval")
        .await;

    // Approved by the person, with the operator's permission: it runs unconfined.
    let ran = f
        .touch_outside(&target, Escalation::ApprovedByPerson)
        .await
        .unwrap();
    assert_eq!(ran["success"], true, "{ran}");
    assert_eq!(ran["sandbox"], "off");
    assert!(target.exists());

    // Without the operator's permission even the person's approval does not leave it.
    let strict = fixture(Unsandboxed::Refused);
    let target = strict.outside.join("escalated");
    strict
        .stays_inside(&target, Escalation::ApprovedByPerson, "--allow-unsandboxed")
        .await;
}
