//! `run_command`: runs a program with arguments in the workspace. There is no shell: the
//! arguments reach the program exactly as given, so nothing is interpolated, globbed or chained.
//! It needs the `execute` permission, so an approval policy never runs it without asking unless
//! it names it explicitly (DESIGN.md "Security defaults").
//!
//! The program starts from [`ChildEnvironment`] (none of Braid's secrets) as the leader of its
//! own [`ProcessGroup`]: when it times out, is interrupted or exits, whatever it started in the
//! background is killed with it, so nothing outlives the call. It runs in the [`Sandbox`] the
//! context's `sandbox` mode and the operator's [`SandboxSettings`] give it; a failure the
//! sandbox caused is named in the result (`sandbox_denials`).

use std::collections::VecDeque;
use std::process::Stdio;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::arguments::parse_arguments;
use crate::builtin::spec;
use crate::environment::ChildEnvironment;
use crate::process_group::ProcessGroup;
use crate::sandbox::{Sandbox, SandboxError, SandboxSettings, Unsandboxed};
use crate::tool::{
    Escalation, Permission, Tool, ToolCategory, ToolContext, ToolError, ToolErrorCode, ToolOutput,
    ToolSpec,
};

/// Arguments of `run_command`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunCommandArgs {
    /// Looked up in PATH unless it contains a `/`.
    pub program: String,
    /// One argument per element, unquoted.
    #[serde(default)]
    pub args: Vec<String>,
    /// Default: the workspace root.
    pub cwd: Option<String>,
    /// Default 60, at most 600.
    #[schemars(range(min = 1, max = 600))]
    pub timeout_secs: Option<u32>,
    /// Only after a sandbox denial: why it must run outside the sandbox. A person decides.
    pub outside_sandbox: Option<String>,
}

/// The argument by which a `run_command` call asks to run outside the sandbox.
pub const OUTSIDE_SANDBOX: &str = "outside_sandbox";

/// Why a `run_command` call (its JSON `arguments`) asks to run outside the sandbox, when it
/// does: such a call always waits for a person, whatever the policy and the rules say.
pub fn escalation_request(arguments: &Value) -> Option<&str> {
    arguments.get(OUTSIDE_SANDBOX)?.as_str()
}

/// The default per-call timeout.
const DEFAULT_TIMEOUT_SECS: u32 = 60;
/// The most a call may ask for; also the tool's registry timeout.
const MAX_TIMEOUT_SECS: u32 = 600;
/// Bytes of each stream kept (half from the start, half from the end).
pub const DEFAULT_OUTPUT_CAP: usize = 64 * 1024;

/// What was kept of one output stream.
struct Captured {
    text: String,
    total_bytes: usize,
    truncated: bool,
}

/// Reads a stream to its end, keeping its first and last `cap / 2` bytes.
async fn capture<R: AsyncRead + Unpin>(mut reader: R, cap: usize) -> Captured {
    let half = cap / 2;
    let mut head = Vec::new();
    let mut tail: VecDeque<u8> = VecDeque::new();
    let mut total = 0usize;
    let mut buf = [0u8; 8192];
    loop {
        let n = match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        total += n;
        for &b in &buf[..n] {
            if head.len() < half {
                head.push(b);
            } else {
                tail.push_back(b);
                if tail.len() > cap - half {
                    tail.pop_front();
                }
            }
        }
    }
    let kept = head.len() + tail.len();
    let truncated = kept < total;
    let mut text = String::from_utf8_lossy(&head).into_owned();
    if truncated {
        text.push_str(&format!("\n[... {} bytes omitted ...]\n", total - kept));
    }
    text.push_str(&String::from_utf8_lossy(tail.make_contiguous()));
    Captured {
        text,
        total_bytes: total,
        truncated,
    }
}

/// `run_command`: a program, its arguments, a timeout and capped output.
pub struct RunCommandTool {
    spec: ToolSpec,
    cap: usize,
    sandbox: SandboxSettings,
}

impl RunCommandTool {
    /// The tool with the default output cap and sandbox settings.
    pub fn new() -> Self {
        Self::with_output_cap(DEFAULT_OUTPUT_CAP)
    }

    /// The tool with the operator's sandbox settings.
    pub fn with_sandbox(sandbox: SandboxSettings) -> Self {
        Self {
            sandbox,
            ..Self::new()
        }
    }

    /// The tool keeping at most `cap` bytes of each output stream.
    pub fn with_output_cap(cap: usize) -> Self {
        Self {
            spec: spec::<RunCommandArgs>(
                "run_command",
                "Run a program in the workspace without a shell (no pipes or globs): exit code, stdout, stderr.",
                ToolCategory::SystemControl,
                &[Permission::Execute],
                // One second over the longest per-call timeout, so the call's own timeout (which
                // reports partial output) fires first.
                Duration::from_secs(u64::from(MAX_TIMEOUT_SECS) + 1),
            )
            .with_example(
                "run the tests quietly",
                json!({"program": "cargo", "args": ["test", "--quiet"]}),
            ),
            cap: cap.max(2),
            sandbox: SandboxSettings::default(),
        }
    }
}

impl Default for RunCommandTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for RunCommandTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args: RunCommandArgs = parse_arguments("run_command", args)?;
        let ws = ctx.workspace()?;
        if args.program.trim().is_empty() {
            return Err(ToolError::new(
                ToolErrorCode::InvalidArguments,
                "program must not be empty",
            ));
        }
        let cwd = match &args.cwd {
            Some(dir) => ws.resolve(dir)?,
            None => ws.root().to_path_buf(),
        };
        if !cwd.is_dir() {
            return Err(ToolError::new(
                ToolErrorCode::InvalidArguments,
                format!(
                    "cwd `{}` is not a directory",
                    args.cwd.as_deref().unwrap_or(".")
                ),
            ));
        }
        let timeout = Duration::from_secs(u64::from(
            args.timeout_secs
                .unwrap_or(DEFAULT_TIMEOUT_SECS)
                .clamp(1, MAX_TIMEOUT_SECS),
        ));
        let started = Instant::now();
        let sandbox = match (&args.outside_sandbox, ctx.escalation) {
            (None, _) => self.sandbox.sandbox(ctx.sandbox_mode, Some(ws.root())),
            (Some(why), _) if why.trim().is_empty() => {
                return Err(ToolError::new(
                    ToolErrorCode::InvalidArguments,
                    format!("{OUTSIDE_SANDBOX} must say why the command cannot run in the sandbox"),
                ));
            }
            // The operator's refusal comes first: no approval can lift it, so the model is
            // told that rather than to ask a person.
            (Some(_), _) if self.sandbox.unsandboxed == Unsandboxed::Refused => {
                Err(SandboxError::EscalationNotAllowed)
            }
            (Some(_), Escalation::ApprovedByPerson) => self.sandbox.outside(),
            (Some(_), Escalation::NotApproved) => {
                return Err(ToolError::new(
                    ToolErrorCode::PermissionDenied,
                    format!(
                        "`{}` was not run: running outside the sandbox needs a person's approval of this call, and it was not given",
                        args.program
                    ),
                ));
            }
        }
        .map_err(|e| sandbox_error(e, &args.program))?;
        let mut command = tokio::process::Command::new(&args.program);
        ChildEnvironment::inherited().apply(&mut command);
        ProcessGroup::prepare(&mut command);
        command
            .args(&args.args)
            .current_dir(&cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let (mut child, confinement) = sandbox
            .spawn(command)
            .await
            .map_err(|e| sandbox_error(e, &args.program))?;
        // Dropping this (the call abandoned) kills the whole group too.
        let mut group = ProcessGroup::led_by(child.id());
        tracing::info!(program = %args.program, args = ?args.args, cwd = %ws.relative(&cwd), sandbox = %sandbox.mode(), %confinement, pgid = ?group.as_ref().map(ProcessGroup::id), "command started");
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let cap = self.cap;
        let out_task = tokio::spawn(async move {
            match stdout {
                Some(s) => capture(s, cap).await,
                None => Captured {
                    text: String::new(),
                    total_bytes: 0,
                    truncated: false,
                },
            }
        });
        let err_task = tokio::spawn(async move {
            match stderr {
                Some(s) => capture(s, cap).await,
                None => Captured {
                    text: String::new(),
                    total_bytes: 0,
                    truncated: false,
                },
            }
        });
        enum End {
            Exited(std::io::Result<std::process::ExitStatus>),
            TimedOut,
            Cancelled,
        }
        let end = tokio::select! {
            status = child.wait() => End::Exited(status),
            () = tokio::time::sleep(timeout) => End::TimedOut,
            () = ctx.cancel.cancelled() => End::Cancelled,
        };
        // Whatever ended the call, nothing the program started may outlive it; once the group
        // is gone its processes also release the output pipes.
        if let Some(group) = group.as_mut() {
            group.kill();
        }
        if !matches!(end, End::Exited(_)) {
            let _ = child.kill().await;
        }
        let empty = || Captured {
            text: String::new(),
            total_bytes: 0,
            truncated: false,
        };
        // A killed program's children may still hold the pipes open: wait a little, then give up
        // on the rest of the output.
        let collect = |task: tokio::task::JoinHandle<Captured>| async move {
            match tokio::time::timeout(Duration::from_secs(2), task).await {
                Ok(Ok(captured)) => captured,
                _ => empty(),
            }
        };
        let out = collect(out_task).await;
        let err = collect(err_task).await;
        let duration_ms = started.elapsed().as_millis() as u64;
        let denials = denials(&sandbox, &out, &err, &cwd);
        let streams = json!({
            "stdout": out.text,
            "stderr": err.text,
            "stdout_bytes": out.total_bytes,
            "stderr_bytes": err.total_bytes,
            "stdout_truncated": out.truncated,
            "stderr_truncated": err.truncated,
        });
        match end {
            End::Exited(Ok(status)) => {
                let mut result = json!({
                    "program": args.program,
                    "args": args.args,
                    "cwd": ws.relative(&cwd),
                    "exit_code": status.code(),
                    "success": status.success(),
                    "duration_ms": duration_ms,
                    "sandbox": sandbox.mode().as_str(),
                    "confinement": confinement.to_string(),
                });
                if !status.success() && !denials.is_empty() {
                    result["sandbox_denials"] = json!(denials);
                    // Offered only where a person's approval can be given effect.
                    result["outside_sandbox"] = json!(match self.sandbox.unsandboxed {
                        Unsandboxed::Allowed => format!(
                            "if the command needs what the sandbox refused, call it again with `{OUTSIDE_SANDBOX}` saying why: a person decides"
                        ),
                        Unsandboxed::Refused => "the operator does not allow commands outside the sandbox: do the work inside the workspace".to_owned(),
                    });
                }
                #[cfg(unix)]
                {
                    use std::os::unix::process::ExitStatusExt;
                    result["signal"] = json!(status.signal());
                }
                if let (Value::Object(r), Value::Object(s)) = (&mut result, streams) {
                    r.extend(s);
                }
                tracing::info!(program = %args.program, exit_code = ?status.code(), duration_ms, "command finished");
                Ok(ToolOutput::json(result))
            }
            End::Exited(Err(e)) => Err(ToolError::new(
                ToolErrorCode::Failed,
                format!("waiting for `{}` failed: {e}", args.program),
            )),
            End::TimedOut => Err(ToolError::new(
                ToolErrorCode::Timeout,
                format!(
                    "`{}` did not finish within {} s and was killed",
                    args.program,
                    timeout.as_secs()
                ),
            )
            .with_details(streams)),
            End::Cancelled => Err(ToolError::new(
                ToolErrorCode::Cancelled,
                format!("`{}` was cancelled and killed", args.program),
            )
            .with_details(streams)
            .with_recoverability(braid_protocol::Recoverability::Fatal)),
        }
    }
}

/// The sandbox's refusals a finished command reported, each as "denied by the sandbox: ...".
fn denials(
    sandbox: &Sandbox,
    out: &Captured,
    err: &Captured,
    cwd: &std::path::Path,
) -> Vec<String> {
    let mut text = err.text.clone();
    text.push('\n');
    text.push_str(&out.text);
    sandbox
        .denials(&text, cwd)
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// The error a model reads when its command could not start in the sandbox.
fn sandbox_error(error: SandboxError, program: &str) -> ToolError {
    let code = match &error {
        SandboxError::Spawn { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            ToolErrorCode::NotFound
        }
        SandboxError::OffNotAllowed
        | SandboxError::EscalationNotAllowed
        | SandboxError::Unsupported { .. } => ToolErrorCode::PermissionDenied,
        _ => ToolErrorCode::Failed,
    };
    let message = match &error {
        SandboxError::Spawn { .. } => error.to_string(),
        _ => format!("`{program}` was not run: {error}"),
    };
    ToolError::new(code, message)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn capture_keeps_start_and_end_of_long_output() {
        let data: Vec<u8> = (0..1000u32)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let captured = capture(&data[..], 20).await;
        assert!(captured.truncated);
        assert_eq!(captured.total_bytes, data.len());
        assert!(
            captured.text.starts_with("0\n1\n2\n3\n"),
            "{}",
            captured.text
        );
        assert!(captured.text.ends_with("998\n999\n"), "{}", captured.text);
    }
}
