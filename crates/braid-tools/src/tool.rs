//! The `Tool` trait and what describes a tool: its spec, the context a call runs in, and the
//! unified result (DESIGN.md, room `braid-tools`).

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use braid_protocol::{AgentRole, ErrorDetail, MessageKind, Mode, Recoverability, ToolOutcome};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::workspace::Workspace;

/// A tool the model can call: built in, or an adapter for an MCP server's tool.
#[async_trait]
pub trait Tool: Send + Sync {
    /// What the tool is: name, description, parameters, permissions, timeout.
    fn spec(&self) -> &ToolSpec;

    /// Runs the tool. `args` has already been checked against the spec's schema by the registry.
    async fn call(
        &self,
        args: serde_json::Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError>;
}

/// Everything that describes a tool, independent of how it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    /// The name the model calls it by (unique in a registry).
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its arguments (an object schema).
    pub parameters: serde_json::Value,
    /// What kind of tool it is; role filtering excludes some categories.
    pub category: ToolCategory,
    /// What it needs to be allowed to do. A tool that needs only `read` (or nothing) is read-only.
    pub permissions: Permissions,
    /// How long one call may run before it is stopped with a `timeout` error.
    pub timeout: Duration,
    /// Built in or from an MCP server.
    pub origin: ToolOrigin,
    /// Whether a call that failed for a passing reason (its server was unreachable, so it did
    /// not run) may be tried again, and how often.
    pub retry: RetryRule,
    /// How the tool is used (an example call of a built-in tool; the title and annotations an
    /// MCP server gives), listed for models whose tool calls are prompted.
    pub examples: Vec<braid_protocol::api::ToolExample>,
}

/// Whether the engine tries a call again after a transient failure
/// ([`ToolError::is_transient`]), and how many tries it gets in all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RetryRule {
    /// One try: a failure is the call's result.
    #[default]
    Never,
    /// Up to `max_attempts` tries in all (the first included) while the failure is transient.
    Transient {
        /// Tries in all, the first included.
        max_attempts: u32,
    },
}

impl RetryRule {
    /// Whether a call that failed on try `attempt` (1-based) with `error` gets another try.
    pub fn allows_another(self, attempt: u32, error: &ToolError) -> bool {
        match self {
            RetryRule::Never => false,
            RetryRule::Transient { max_attempts } => error.is_transient() && attempt < max_attempts,
        }
    }
}

impl ToolSpec {
    /// The same spec with an example call: `arguments` doing what `summary` says.
    pub fn with_example(mut self, summary: &str, arguments: serde_json::Value) -> Self {
        self.examples.push(braid_protocol::api::ToolExample {
            summary: summary.to_owned(),
            arguments: Some(arguments),
        });
        self
    }

    /// Whether the tool only reads (the one source of truth is its permissions).
    pub fn is_read_only(&self) -> bool {
        self.permissions.is_read_only()
    }

    /// Whether a context with this role may see and call the tool.
    ///
    /// A planner reads: it gets read-only tools, never system-control ones.
    pub fn allowed_for(&self, role: AgentRole) -> bool {
        match role {
            AgentRole::Actor => true,
            AgentRole::Planner => {
                self.is_read_only() && self.category != ToolCategory::SystemControl
            }
        }
    }

    /// Whether a context with this role in this mode is offered the tool (and may call it):
    /// plan mode keeps read-only tools but not progress reports (nothing is executed there); a
    /// planning tool is for plan mode or a planner, so an actor in act mode, who carries the
    /// work out, is not offered it.
    pub fn offered_in(&self, role: AgentRole, mode: Mode) -> bool {
        self.allowed_for(role)
            && match mode {
                Mode::Plan => self.is_read_only() && self.category != ToolCategory::Progress,
                Mode::Act => self.category != ToolCategory::Planning || role == AgentRole::Planner,
            }
    }

    /// The tool as `GET /v1/tools` and the system prompt show it.
    pub fn to_info(&self) -> braid_protocol::api::ToolInfo {
        let (source, server) = match &self.origin {
            ToolOrigin::Builtin => (braid_protocol::api::ToolSource::Builtin, None),
            ToolOrigin::Mcp { server } => {
                (braid_protocol::api::ToolSource::Mcp, Some(server.clone()))
            }
        };
        braid_protocol::api::ToolInfo {
            name: self.name.clone(),
            description: self.description.clone(),
            source,
            server,
            read_only: self.is_read_only(),
            parameters: self.parameters.clone(),
            examples: self.examples.clone(),
        }
    }
}

/// What kind of tool it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolCategory {
    /// Reads or changes files of the workspace.
    FileSystem,
    /// Searches and analyses code (search, definitions, references, project structure).
    Codebase,
    /// Runs programs or otherwise acts on the machine.
    SystemControl,
    /// Talks to the person: questions.
    Interaction,
    /// Proposes a plan for the person to execute: offered in plan mode and to a planner only.
    Planning,
    /// Reports progress on the plan being executed (`update_plan`): offered in act mode only,
    /// where plans are carried out. It changes nothing but the plan card's ticks.
    Progress,
    /// A tool from an MCP server, whose behaviour Braid only knows from its description.
    External,
}

/// One thing a tool may need to be allowed to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Permission {
    /// Read files or other state.
    Read,
    /// Change existing files.
    Write,
    /// Create new files.
    Create,
    /// Delete files.
    Delete,
    /// Run programs.
    Execute,
}

impl Permission {
    /// Every permission, in a fixed order.
    pub const ALL: [Permission; 5] = [
        Permission::Read,
        Permission::Write,
        Permission::Create,
        Permission::Delete,
        Permission::Execute,
    ];

    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// The permission as it appears in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Read => "read",
            Permission::Write => "write",
            Permission::Create => "create",
            Permission::Delete => "delete",
            Permission::Execute => "execute",
        }
    }
}

/// A set of [`Permission`]s.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Permissions(u8);

impl Permissions {
    /// No permission at all (e.g. asking the person a question).
    pub const NONE: Permissions = Permissions(0);

    /// A set holding `permissions`.
    pub fn of(permissions: &[Permission]) -> Self {
        Permissions(permissions.iter().fold(0, |acc, p| acc | p.bit()))
    }

    /// Whether the set holds `permission`.
    pub fn contains(self, permission: Permission) -> bool {
        self.0 & permission.bit() != 0
    }

    /// The permissions in the set, in a fixed order.
    pub fn iter(self) -> impl Iterator<Item = Permission> {
        Permission::ALL
            .into_iter()
            .filter(move |p| self.contains(*p))
    }

    /// Whether nothing but reading is needed.
    pub fn is_read_only(self) -> bool {
        self.0 & !Permission::Read.bit() == 0
    }
}

impl fmt::Debug for Permissions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Where a tool comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ToolOrigin {
    /// Built into Braid.
    Builtin,
    /// Offered by the named MCP server.
    Mcp {
        /// The server's name from the MCP configuration.
        server: String,
    },
}

/// What a call runs with: the workspace it is confined to, who is calling, and a way to stop it.
#[derive(Clone, Debug)]
pub struct ToolContext {
    /// The context's workspace; tools that touch files refuse to run without one.
    pub workspace: Option<Workspace>,
    /// Why the configured workspace cannot be used (outside the allowed roots...), told to the
    /// model instead of "no workspace".
    pub workspace_problem: Option<String>,
    /// The agent role of the calling context.
    pub role: AgentRole,
    /// Cancelled when the call should stop (the person interrupted, the context is closing).
    pub cancel: CancellationToken,
    /// The sandbox mode the context's configuration names (`config.sandbox`); `None` for the
    /// operator's default.
    pub sandbox_mode: Option<braid_protocol::SandboxMode>,
    /// Whether a person approved this very call's request to run outside the sandbox.
    pub escalation: Escalation,
    /// The plan the active branch is executing, for `update_plan` to check its calls against
    /// (`None`: no plan was executed on this branch, or the caller did not look).
    pub executing_plan: Option<ExecutingPlan>,
}

/// A plan being executed and where its steps stand, as the conversation records it.
#[derive(Clone, Debug, PartialEq)]
pub struct ExecutingPlan {
    /// The `plan` message.
    pub id: braid_protocol::MessageId,
    /// Its goal and steps.
    pub plan: braid_protocol::PlanMessage,
    /// Every step's status so far, in the plan's order.
    pub steps: Vec<braid_protocol::PlanStepProgress>,
}

/// Whether a call may leave the sandbox it would run in: only a person approves that, one call
/// at a time, never a policy, a rule or the model (and the operator must still allow
/// unsandboxed commands).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Escalation {
    /// The call runs in the context's sandbox; a request to leave it is refused.
    #[default]
    NotApproved,
    /// A person approved this call, which asked to run outside the sandbox.
    ApprovedByPerson,
}

impl ToolContext {
    /// A context for `role` with an optional workspace and a fresh cancellation token.
    pub fn new(workspace: Option<Workspace>, role: AgentRole) -> Self {
        Self {
            workspace,
            workspace_problem: None,
            role,
            cancel: CancellationToken::new(),
            sandbox_mode: None,
            escalation: Escalation::NotApproved,
            executing_plan: None,
        }
    }

    /// The same context with the plan its branch is executing.
    pub fn with_executing_plan(mut self, plan: Option<ExecutingPlan>) -> Self {
        self.executing_plan = plan;
        self
    }

    /// The same context with a person's decision on leaving the sandbox.
    pub fn with_escalation(mut self, escalation: Escalation) -> Self {
        self.escalation = escalation;
        self
    }

    /// The same context with the sandbox mode a configuration names (`None`: the default).
    pub fn with_sandbox_mode(mut self, mode: Option<braid_protocol::SandboxMode>) -> Self {
        self.sandbox_mode = mode;
        self
    }

    /// A context for `role` on the workspace a configuration names, as
    /// [`crate::WorkspaceRoots::open_configured`] judged it.
    pub fn configured(
        workspace: Result<Option<Workspace>, crate::WorkspaceError>,
        role: AgentRole,
    ) -> Self {
        match workspace {
            Ok(workspace) => Self::new(workspace, role),
            Err(problem) => Self {
                workspace_problem: Some(problem.to_string()),
                ..Self::new(None, role)
            },
        }
    }

    /// The workspace, or the error a model reads when the context has none.
    pub fn workspace(&self) -> Result<&Workspace, ToolError> {
        self.workspace
            .as_ref()
            .ok_or_else(|| match &self.workspace_problem {
                Some(problem) => ToolError::new(
                    ToolErrorCode::PermissionDenied,
                    format!("file and codebase tools cannot run: {problem}"),
                ),
                None => ToolError::new(
                    ToolErrorCode::PermissionDenied,
                    "this context has no workspace, so file and codebase tools cannot run: \
                     set its workspace (the conversation's Settings, Workspace path, or \
                     `workspace` in its config) to a directory inside a root the server allows \
                     (`braid serve --workspace-root`)",
                ),
            })
    }
}

/// What a successful call returned.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutput {
    /// The result as structured JSON, for the model.
    pub content: serde_json::Value,
    /// A message the call produced for the conversation (a `plan`, a `question`, a
    /// `project_structure`), which the engine stores besides the tool result.
    pub message: Option<MessageKind>,
}

impl ToolOutput {
    /// Output that is only JSON for the model.
    pub fn json(content: serde_json::Value) -> Self {
        Self {
            content,
            message: None,
        }
    }

    /// Output that also produced a message of its own kind.
    pub fn with_message(content: serde_json::Value, message: MessageKind) -> Self {
        Self {
            content,
            message: Some(message),
        }
    }
}

/// Why a call failed, as a code a program can match on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolErrorCode {
    /// The path or action is outside what the context may do.
    PermissionDenied,
    /// The file, symbol or tool does not exist.
    NotFound,
    /// The arguments do not match the tool's schema or make no sense.
    InvalidArguments,
    /// The call ran longer than its timeout.
    Timeout,
    /// The call was cancelled.
    Cancelled,
    /// Creating something that already exists.
    AlreadyExists,
    /// A replacement's search text occurs more than once.
    NotUnique,
    /// Reading or writing failed.
    Io,
    /// The tool ran but its work failed (a command could not start, an MCP server errored).
    Failed,
    /// What the tool needs cannot be reached right now (its MCP server is restarting), so the
    /// call did not run; a later try may succeed.
    Unavailable,
}

impl ToolErrorCode {
    /// The code as it appears in [`ErrorDetail::code`].
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PermissionDenied => "permission_denied",
            Self::NotFound => "not_found",
            Self::InvalidArguments => "invalid_arguments",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::AlreadyExists => "already_exists",
            Self::NotUnique => "not_unique",
            Self::Io => "io_error",
            Self::Failed => "failed",
            Self::Unavailable => "unavailable",
        }
    }

    /// Whether a model that reads the error can usually do something about it.
    fn default_recoverability(self) -> Recoverability {
        match self {
            Self::Cancelled => Recoverability::Fatal,
            _ => Recoverability::Recoverable,
        }
    }
}

impl fmt::Display for ToolErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed call: what went wrong, for the model and the person.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    /// Machine-readable reason.
    pub code: ToolErrorCode,
    /// What went wrong, naming the path, argument or symbol involved.
    pub message: String,
    /// Whether the model can try again or continue.
    pub recoverability: Recoverability,
    /// Structured details (e.g. the list of argument problems, suggestions).
    pub details: Option<serde_json::Value>,
}

impl ToolError {
    /// An error with the code's usual recoverability.
    pub fn new(code: ToolErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            recoverability: code.default_recoverability(),
            details: None,
        }
    }

    /// Whether the failure is passing: the call did not run, and trying again later may
    /// succeed.
    pub fn is_transient(&self) -> bool {
        self.code == ToolErrorCode::Unavailable
    }

    /// The same error with structured details.
    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = Some(details);
        self
    }

    /// The same error with another recoverability.
    pub fn with_recoverability(mut self, recoverability: Recoverability) -> Self {
        self.recoverability = recoverability;
        self
    }

    /// The error as the protocol carries it in a `tool_result`.
    pub fn to_error_detail(&self) -> ErrorDetail {
        let mut detail = ErrorDetail::new(self.message.clone(), self.recoverability)
            .with_code(self.code.as_str());
        detail.details = self.details.clone();
        detail
    }
}

/// Turns a call's result into the protocol's outcome of a `tool_result` message.
pub fn to_outcome(result: &Result<ToolOutput, ToolError>) -> ToolOutcome {
    match result {
        Ok(output) => ToolOutcome::Success {
            output: output.content.clone(),
        },
        Err(error) => ToolOutcome::Error {
            error: error.to_error_detail(),
        },
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn spec(permissions: &[Permission], category: ToolCategory) -> ToolSpec {
        ToolSpec {
            name: "t".into(),
            description: "d".into(),
            parameters: serde_json::json!({"type": "object"}),
            category,
            permissions: Permissions::of(permissions),
            timeout: Duration::from_secs(1),
            origin: ToolOrigin::Builtin,
            retry: RetryRule::Never,
            examples: Vec::new(),
        }
    }

    #[test]
    fn only_a_transient_failure_within_the_rule_s_tries_is_tried_again() {
        let gone = ToolError::new(ToolErrorCode::Unavailable, "server restarting");
        let failed = ToolError::new(ToolErrorCode::Failed, "the disk is on fire");
        let rule = RetryRule::Transient { max_attempts: 3 };
        assert!(rule.allows_another(1, &gone));
        assert!(rule.allows_another(2, &gone));
        assert!(!rule.allows_another(3, &gone), "three tries in all");
        assert!(
            !rule.allows_another(1, &failed),
            "a real failure is the result"
        );
        assert!(!RetryRule::Never.allows_another(1, &gone));
    }

    #[test]
    fn read_only_follows_permissions() {
        assert!(spec(&[Permission::Read], ToolCategory::FileSystem).is_read_only());
        assert!(spec(&[], ToolCategory::Interaction).is_read_only());
        assert!(
            !spec(
                &[Permission::Read, Permission::Write],
                ToolCategory::FileSystem
            )
            .is_read_only()
        );
    }

    #[test]
    fn planner_gets_read_only_tools_without_system_control() {
        let read = spec(&[Permission::Read], ToolCategory::Codebase);
        let write = spec(&[Permission::Write], ToolCategory::FileSystem);
        let control = spec(&[Permission::Read], ToolCategory::SystemControl);
        assert!(read.allowed_for(AgentRole::Planner));
        assert!(!write.allowed_for(AgentRole::Planner));
        assert!(!control.allowed_for(AgentRole::Planner));
        assert!(write.allowed_for(AgentRole::Actor) && control.allowed_for(AgentRole::Actor));
    }

    #[test]
    fn error_maps_to_protocol_detail_with_code_and_recoverability() {
        let err = ToolError::new(ToolErrorCode::NotFound, "no such file `a.rs`")
            .with_details(serde_json::json!({"suggestions": ["b.rs"]}));
        let outcome = to_outcome(&Err(err));
        let ToolOutcome::Error { error } = outcome else {
            panic!("expected an error outcome")
        };
        assert_eq!(error.code.as_deref(), Some("not_found"));
        assert!(error.recoverable);
        assert_eq!(error.details.unwrap()["suggestions"][0], "b.rs");
    }

    #[test]
    fn mcp_origin_becomes_mcp_tool_info_with_server() {
        let mut s = spec(&[Permission::Execute], ToolCategory::External);
        s.origin = ToolOrigin::Mcp {
            server: "fs".into(),
        };
        let info = s.to_info();
        assert_eq!(info.source, braid_protocol::api::ToolSource::Mcp);
        assert_eq!(info.server.as_deref(), Some("fs"));
        assert!(!info.read_only);
    }
}
