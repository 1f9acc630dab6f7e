//! `ToolRegistry`: every tool a context may call, by name, with role and mode filtering and
//! execution under the tool's timeout (seed 001 "Unified Tool System", "Role-based tool
//! filtering").
//!
//! Registration goes through `&self` because MCP servers come and go while contexts run.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use braid_protocol::api::ToolInfo;
use braid_protocol::{AgentRole, MessageKind, Mode, Recoverability, ToolCall, ToolResultMessage};
use serde_json::Value;

use crate::arguments::ArgumentSchema;
use crate::tool::{
    Tool, ToolCategory, ToolContext, ToolError, ToolErrorCode, ToolOrigin, ToolOutput, ToolSpec,
    to_outcome,
};

/// A tool could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// Another tool already has the name.
    #[error("a tool named `{name}` is already registered")]
    DuplicateName {
        /// The name in use.
        name: String,
    },
    /// The name is not one a model can call.
    #[error("invalid tool name `{name}`: {reason}")]
    InvalidName {
        /// The name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The parameters are not a usable object schema.
    #[error("tool `{name}`: parameters must be a JSON Schema of type object ({reason})")]
    InvalidParameters {
        /// The tool's name.
        name: String,
        /// What is wrong with the schema.
        reason: String,
    },
}

/// A registered tool with its argument schema compiled once.
#[derive(Clone)]
struct Registered {
    tool: Arc<dyn Tool>,
    arguments: Arc<ArgumentSchema>,
}

/// The tools of a Braid process, shared by every context.
#[derive(Default)]
pub struct ToolRegistry {
    tools: RwLock<BTreeMap<String, Registered>>,
    /// Bumped by every change of the set of tools, while the write lock is held (see
    /// [`generation`](Self::generation)).
    generation: AtomicU64,
    /// The codebase indexes the built-in codebase tools share, so the engine can release the
    /// ones no loaded context uses.
    #[cfg(feature = "builtin")]
    indexes: std::sync::OnceLock<Arc<crate::codebase::CodebaseIndexes>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the codebase indexes the registered tools share (the first call wins).
    #[cfg(feature = "builtin")]
    pub fn set_codebase_indexes(&self, indexes: Arc<crate::codebase::CodebaseIndexes>) {
        let _ = self.indexes.set(indexes);
    }

    /// The codebase indexes the registered tools share, when built-in tools are registered.
    #[cfg(feature = "builtin")]
    pub fn codebase_indexes(&self) -> Option<&Arc<crate::codebase::CodebaseIndexes>> {
        self.indexes.get()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<String, Registered>> {
        // A panic while holding the lock cannot leave the map half-updated (inserts and removes
        // are single operations), so a poisoned lock is still safe to use.
        self.tools
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<String, Registered>> {
        self.tools
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Adds a tool; its name must be free and callable by a model.
    pub fn register(&self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        let spec = tool.spec();
        let name = spec.name.clone();
        if name.is_empty() || name.len() > 128 {
            return Err(RegistryError::InvalidName {
                name,
                reason: "must be 1 to 128 bytes",
            });
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
        {
            return Err(RegistryError::InvalidName {
                name,
                reason: "only ASCII letters, digits, `_`, `-` and `.` are allowed",
            });
        }
        if spec.parameters.get("type").and_then(Value::as_str) != Some("object") {
            return Err(RegistryError::InvalidParameters {
                name,
                reason: "its `type` is not `object`".to_owned(),
            });
        }
        let arguments = match ArgumentSchema::compile(&spec.parameters) {
            Ok(compiled) => Arc::new(compiled),
            Err(reason) => return Err(RegistryError::InvalidParameters { name, reason }),
        };
        let mut tools = self.write();
        if tools.contains_key(&name) {
            return Err(RegistryError::DuplicateName { name });
        }
        tracing::debug!(tool = %name, "tool registered");
        tools.insert(name, Registered { tool, arguments });
        self.generation.fetch_add(1, Ordering::Release);
        Ok(())
    }

    /// Removes a tool by name and returns it.
    pub fn unregister(&self, name: &str) -> Option<Arc<dyn Tool>> {
        let mut tools = self.write();
        let removed = tools.remove(name).map(|r| r.tool);
        if removed.is_some() {
            self.generation.fetch_add(1, Ordering::Release);
            tracing::debug!(tool = %name, "tool unregistered");
        }
        removed
    }

    /// A number that changes whenever a tool is registered or unregistered (MCP servers
    /// starting, stopping or reloading included), so a reader can keep what it derived from
    /// the tools (a system prompt, tool definitions) while it stays the same. Read it before
    /// reading the tools: a change made in between then shows as a newer number next time.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Removes every tool of an MCP server (it stopped or is being reloaded); returns their names.
    pub fn unregister_server(&self, server: &str) -> Vec<String> {
        let mut tools = self.write();
        let names: Vec<String> = tools
            .iter()
            .filter(
                |(_, r)| matches!(&r.tool.spec().origin, ToolOrigin::Mcp { server: s } if s == server),
            )
            .map(|(n, _)| n.clone())
            .collect();
        for name in &names {
            tools.remove(name);
        }
        if !names.is_empty() {
            self.generation.fetch_add(1, Ordering::Release);
        }
        names
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.read().get(name).map(|r| r.tool.clone())
    }

    /// Every tool's name, sorted.
    pub fn names(&self) -> Vec<String> {
        self.read().keys().cloned().collect()
    }

    /// Every tool, sorted by name.
    pub fn all(&self) -> Vec<Arc<dyn Tool>> {
        self.read().values().map(|r| r.tool.clone()).collect()
    }

    /// The tools a context with `role` in `mode` may see and call, sorted by name: a planner
    /// gets read-only tools without system control, plan mode keeps read-only tools only, and
    /// planning tools are not offered to an actor in act mode ([`ToolSpec::offered_in`]).
    pub fn available(&self, role: AgentRole, mode: Mode) -> Vec<Arc<dyn Tool>> {
        self.read()
            .values()
            .filter(|r| permitted(r.tool.spec(), role, mode))
            .map(|r| r.tool.clone())
            .collect()
    }

    /// [`available`](Self::available) as the API and the system prompt list them.
    pub fn infos(&self, role: AgentRole, mode: Mode) -> Vec<ToolInfo> {
        self.available(role, mode)
            .iter()
            .map(|t| t.spec().to_info())
            .collect()
    }

    /// Every tool as `GET /v1/tools` lists it.
    pub fn all_infos(&self) -> Vec<ToolInfo> {
        self.read()
            .values()
            .map(|r| r.tool.spec().to_info())
            .collect()
    }

    /// Runs one call: finds the tool, checks the role and mode allow it, checks the arguments
    /// against its schema, and runs it under its timeout and the context's cancellation.
    ///
    /// Every failure is a [`ToolError`] the model can read; a bad call never panics.
    pub async fn execute(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
        mode: Mode,
    ) -> Result<ToolOutput, ToolError> {
        let Some(Registered { tool, arguments }) = self.read().get(name).cloned() else {
            return Err(ToolError::new(
                ToolErrorCode::NotFound,
                format!(
                    "no tool named `{name}`; available: {}",
                    self.names().join(", ")
                ),
            ));
        };
        let spec = tool.spec();
        if !permitted(spec, ctx.role, mode) {
            return Err(ToolError::new(
                ToolErrorCode::PermissionDenied,
                if spec.category == ToolCategory::Planning {
                    format!(
                        "tool `{name}` is for planning: it is available in plan mode or to a planner, not to an {} in {mode} mode",
                        role_name(ctx.role)
                    )
                } else if spec.category == ToolCategory::Progress {
                    format!(
                        "tool `{name}` reports progress on a plan being executed: it is available in act mode, not in {mode} mode"
                    )
                } else {
                    format!(
                        "tool `{name}` is not available to a {} in {mode} mode (it needs {})",
                        role_name(ctx.role),
                        permission_list(spec)
                    )
                },
            ));
        }
        arguments.check(name, &args)?;
        let timeout = spec.timeout;
        tokio::select! {
            result = tokio::time::timeout(timeout, tool.call(args, ctx)) => match result {
                Ok(outcome) => outcome,
                Err(_) => {
                    tracing::warn!(tool = %name, timeout_ms = timeout.as_millis() as u64, "tool call timed out");
                    Err(ToolError::new(
                        ToolErrorCode::Timeout,
                        format!("tool `{name}` did not finish within {} s and was stopped", timeout.as_secs_f64()),
                    ))
                }
            },
            () = ctx.cancel.cancelled() => Err(ToolError::new(
                ToolErrorCode::Cancelled,
                format!("tool `{name}` was cancelled"),
            ).with_recoverability(Recoverability::Fatal)),
        }
    }
}

/// What running one call produced: the `tool_result` for the conversation, and the message the
/// tool made of its own (a `plan`, `question` or `project_structure`), if any.
#[derive(Clone, Debug, PartialEq)]
pub struct CallRecord {
    /// The result, with timing, ready to store.
    pub result: ToolResultMessage,
    /// The extra message, for the engine to store after the result.
    pub message: Option<MessageKind>,
}

impl ToolRegistry {
    /// Runs `call` like [`execute`](Self::execute) and records it as a `tool_result` with its
    /// start, end and duration; a failure becomes an error outcome the model can read.
    pub async fn run_call(&self, call: &ToolCall, ctx: &ToolContext, mode: Mode) -> CallRecord {
        let started_at = chrono::Utc::now();
        let clock = std::time::Instant::now();
        let outcome = self
            .execute(&call.name, call.arguments.clone(), ctx, mode)
            .await;
        let duration_ms = u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX);
        let completed_at = chrono::Utc::now();
        if let Err(e) = &outcome {
            tracing::info!(tool = %call.name, call_id = %call.id, code = %e.code, "tool call failed");
        }
        CallRecord {
            result: ToolResultMessage {
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
                outcome: to_outcome(&outcome),
                duration_ms,
                started_at: Some(started_at),
                completed_at: Some(completed_at),
            },
            message: outcome.ok().and_then(|o| o.message),
        }
    }
}

fn permitted(spec: &ToolSpec, role: AgentRole, mode: Mode) -> bool {
    spec.offered_in(role, mode)
}

fn role_name(role: AgentRole) -> &'static str {
    match role {
        AgentRole::Planner => "planner",
        AgentRole::Actor => "actor",
    }
}

fn permission_list(spec: &ToolSpec) -> String {
    let names: Vec<&str> = spec.permissions.iter().map(|p| p.as_str()).collect();
    if names.is_empty() {
        "no permission".into()
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::time::Duration;

    use async_trait::async_trait;
    use serde_json::json;

    use super::*;
    use crate::tool::{Permission, Permissions};
    use braid_protocol::Validate;

    struct Fake {
        spec: ToolSpec,
        sleep: Duration,
    }

    #[async_trait]
    impl Tool for Fake {
        fn spec(&self) -> &ToolSpec {
            &self.spec
        }
        async fn call(&self, args: Value, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
            tokio::time::sleep(self.sleep).await;
            Ok(ToolOutput::json(json!({ "echo": args })))
        }
    }

    fn fake(
        name: &str,
        permissions: &[Permission],
        category: ToolCategory,
        origin: ToolOrigin,
    ) -> Arc<dyn Tool> {
        Arc::new(Fake {
            spec: ToolSpec {
                name: name.into(),
                description: format!("{name} tool"),
                parameters: json!({"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}),
                category,
                permissions: Permissions::of(permissions),
                timeout: Duration::from_millis(200),
                origin,
                retry: crate::RetryRule::Never,
                examples: Vec::new(),
            },
            sleep: Duration::ZERO,
        })
    }

    fn registry() -> ToolRegistry {
        let r = ToolRegistry::new();
        r.register(fake(
            "read",
            &[Permission::Read],
            ToolCategory::FileSystem,
            ToolOrigin::Builtin,
        ))
        .unwrap();
        r.register(fake(
            "write",
            &[Permission::Write],
            ToolCategory::FileSystem,
            ToolOrigin::Builtin,
        ))
        .unwrap();
        r.register(fake(
            "run",
            &[Permission::Execute],
            ToolCategory::SystemControl,
            ToolOrigin::Builtin,
        ))
        .unwrap();
        r.register(fake(
            "remote",
            &[Permission::Read],
            ToolCategory::External,
            ToolOrigin::Mcp {
                server: "srv".into(),
            },
        ))
        .unwrap();
        r
    }

    fn names(tools: &[Arc<dyn Tool>]) -> Vec<&str> {
        tools.iter().map(|t| t.spec().name.as_str()).collect()
    }

    #[test]
    fn the_generation_changes_with_every_change_of_the_tool_set_and_only_then() {
        let r = registry();
        let start = r.generation();
        let _ = r.infos(AgentRole::Actor, Mode::Act);
        assert!(r.unregister("nothing").is_none());
        assert!(r.unregister_server("no-such-server").is_empty());
        assert!(
            r.register(fake(
                "read",
                &[Permission::Read],
                ToolCategory::FileSystem,
                ToolOrigin::Builtin
            ))
            .is_err()
        );
        assert_eq!(r.generation(), start, "nothing changed");
        r.register(fake(
            "extra",
            &[Permission::Read],
            ToolCategory::FileSystem,
            ToolOrigin::Builtin,
        ))
        .unwrap();
        let added = r.generation();
        assert!(added > start);
        r.unregister("extra").unwrap();
        let removed = r.generation();
        assert!(removed > added);
        assert_eq!(r.unregister_server("srv"), vec!["remote".to_owned()]);
        assert!(r.generation() > removed);
    }

    #[test]
    fn planner_and_plan_mode_see_only_read_only_tools() {
        let r = registry();
        assert_eq!(
            names(&r.available(AgentRole::Planner, Mode::Act)),
            ["read", "remote"]
        );
        assert_eq!(
            names(&r.available(AgentRole::Actor, Mode::Plan)),
            ["read", "remote"]
        );
        assert_eq!(
            names(&r.available(AgentRole::Actor, Mode::Act)),
            ["read", "remote", "run", "write"]
        );
    }

    #[test]
    fn duplicate_and_bad_names_are_refused() {
        let r = registry();
        let dup = r
            .register(fake(
                "read",
                &[],
                ToolCategory::Codebase,
                ToolOrigin::Builtin,
            ))
            .unwrap_err();
        assert_eq!(
            dup,
            RegistryError::DuplicateName {
                name: "read".into()
            }
        );
        let bad = r
            .register(fake(
                "has space",
                &[],
                ToolCategory::Codebase,
                ToolOrigin::Builtin,
            ))
            .unwrap_err();
        assert!(matches!(bad, RegistryError::InvalidName { .. }));
    }

    #[test]
    fn server_tools_come_and_go() {
        let r = registry();
        assert_eq!(r.unregister_server("srv"), ["remote"]);
        assert!(r.get("remote").is_none());
        assert!(r.unregister("read").is_some());
        assert_eq!(r.names(), ["run", "write"]);
    }

    #[tokio::test]
    async fn execute_validates_arguments_and_checks_role() {
        let r = registry();
        let ctx = ToolContext::new(None, AgentRole::Planner);
        let ok = r
            .execute("read", json!({"x": 1}), &ctx, Mode::Act)
            .await
            .unwrap();
        assert_eq!(ok.content["echo"]["x"], 1);
        let bad = r
            .execute("read", json!({"x": "1"}), &ctx, Mode::Act)
            .await
            .unwrap_err();
        assert_eq!(bad.code, ToolErrorCode::InvalidArguments);
        assert_eq!(bad.recoverability, Recoverability::Recoverable);
        let denied = r
            .execute("write", json!({"x": 1}), &ctx, Mode::Act)
            .await
            .unwrap_err();
        assert_eq!(denied.code, ToolErrorCode::PermissionDenied);
        assert!(denied.message.contains("planner"), "{}", denied.message);
        let missing = r
            .execute("nope", json!({}), &ctx, Mode::Act)
            .await
            .unwrap_err();
        assert_eq!(missing.code, ToolErrorCode::NotFound);
    }

    #[tokio::test]
    async fn run_call_records_a_tool_result_for_success_and_failure() {
        let r = registry();
        let ctx = ToolContext::new(None, AgentRole::Actor);
        let ok = r
            .run_call(
                &ToolCall::new("c1", "read", json!({"x": 2})),
                &ctx,
                Mode::Act,
            )
            .await;
        assert_eq!(ok.result.call_id.as_str(), "c1");
        assert_eq!(ok.result.tool_name, "read");
        assert!(ok.result.outcome.is_success());
        assert!(ok.result.started_at.unwrap() <= ok.result.completed_at.unwrap());
        ok.result.validate().unwrap();
        let bad = r
            .run_call(&ToolCall::new("c2", "read", json!({})), &ctx, Mode::Act)
            .await;
        let braid_protocol::ToolOutcome::Error { error } = bad.result.outcome else {
            panic!("expected an error result")
        };
        assert_eq!(error.code.as_deref(), Some("invalid_arguments"));
        assert!(error.recoverable);
    }

    #[tokio::test]
    async fn slow_tool_times_out_and_cancelled_call_stops() {
        let r = ToolRegistry::new();
        let mut slow = Fake {
            spec: fake(
                "slow",
                &[Permission::Read],
                ToolCategory::Codebase,
                ToolOrigin::Builtin,
            )
            .spec()
            .clone(),
            sleep: Duration::from_secs(5),
        };
        slow.spec.timeout = Duration::from_millis(50);
        r.register(Arc::new(slow)).unwrap();
        let ctx = ToolContext::new(None, AgentRole::Actor);
        let err = r
            .execute("slow", json!({"x": 1}), &ctx, Mode::Act)
            .await
            .unwrap_err();
        assert_eq!(err.code, ToolErrorCode::Timeout);

        let mut slower = Fake {
            spec: fake(
                "slower",
                &[Permission::Read],
                ToolCategory::Codebase,
                ToolOrigin::Builtin,
            )
            .spec()
            .clone(),
            sleep: Duration::from_secs(5),
        };
        slower.spec.timeout = Duration::from_secs(10);
        r.register(Arc::new(slower)).unwrap();
        ctx.cancel.cancel();
        let err = r
            .execute("slower", json!({"x": 1}), &ctx, Mode::Act)
            .await
            .unwrap_err();
        assert_eq!(err.code, ToolErrorCode::Cancelled);
    }
}
