//! What every built-in tool shares: building its spec from an argument type, running blocking
//! work off the async threads, and registering the whole set.

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;

use crate::arguments::schema_of;
use crate::codebase::{
    CodebaseIndexes, CodebaseSearchTool, FindDefinitionTool, FindReferencesTool,
    ProjectOverviewTool,
};
use crate::command::RunCommandTool;
use crate::files::{
    CreateFileTool, DeleteFileTool, GlobTool, ListDirectoryTool, ReadFileTool, ReplaceInFileTool,
    WriteFileTool,
};
use crate::interaction::{AskUserTool, ProposePlanTool, UpdatePlanTool};
use crate::registry::{RegistryError, ToolRegistry};
use crate::sandbox::SandboxSettings;
use crate::structure::ProjectStructureTool;
use crate::tool::{
    Permission, Permissions, RetryRule, ToolCategory, ToolError, ToolErrorCode, ToolOrigin,
    ToolSpec,
};

/// The default time a built-in tool may run.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The spec of a built-in tool whose arguments are `A`.
pub(crate) fn spec<A: JsonSchema>(
    name: &str,
    description: &str,
    category: ToolCategory,
    permissions: &[Permission],
    timeout: Duration,
) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: description.into(),
        parameters: schema_of::<A>(),
        category,
        permissions: Permissions::of(permissions),
        timeout,
        origin: ToolOrigin::Builtin,
        // A built-in tool runs in this process: its failures are never a server away.
        retry: RetryRule::Never,
        examples: Vec::new(),
    }
}

/// Runs blocking file-system work on tokio's blocking pool.
pub(crate) async fn blocking<T, F>(work: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        ToolError::new(
            ToolErrorCode::Failed,
            format!("the tool's worker stopped unexpectedly: {e}"),
        )
    })?
}

/// Registers every built-in tool. The codebase tools share `indexes`, so one symbol index per
/// workspace serves them all.
pub fn register_builtins(
    registry: &ToolRegistry,
    indexes: Arc<CodebaseIndexes>,
    sandbox: SandboxSettings,
) -> Result<(), RegistryError> {
    registry.register(Arc::new(ReadFileTool::new()))?;
    registry.register(Arc::new(ListDirectoryTool::new()))?;
    registry.register(Arc::new(GlobTool::new()))?;
    registry.register(Arc::new(WriteFileTool::new()))?;
    registry.register(Arc::new(CreateFileTool::new()))?;
    registry.register(Arc::new(ReplaceInFileTool::new()))?;
    registry.register(Arc::new(DeleteFileTool::new()))?;
    registry.register(Arc::new(CodebaseSearchTool::new()))?;
    registry.set_codebase_indexes(indexes.clone());
    registry.register(Arc::new(FindDefinitionTool::new(indexes.clone())))?;
    registry.register(Arc::new(FindReferencesTool::new(indexes)))?;
    registry.register(Arc::new(ProjectOverviewTool::new()))?;
    registry.register(Arc::new(ProjectStructureTool::new()))?;
    registry.register(Arc::new(RunCommandTool::with_sandbox(sandbox)))?;
    registry.register(Arc::new(ProposePlanTool::new()))?;
    registry.register(Arc::new(AskUserTool::new()))?;
    registry.register(Arc::new(UpdatePlanTool::new()))?;
    Ok(())
}

/// A registry holding every built-in tool, with a fresh set of codebase indexes and the default
/// sandbox settings.
pub fn builtin_registry() -> Result<ToolRegistry, RegistryError> {
    builtin_registry_with_sandbox(SandboxSettings::default())
}

/// A registry holding every built-in tool, with a fresh set of codebase indexes; commands run
/// with the operator's `sandbox` settings.
pub fn builtin_registry_with_sandbox(
    sandbox: SandboxSettings,
) -> Result<ToolRegistry, RegistryError> {
    let registry = ToolRegistry::new();
    register_builtins(&registry, Arc::new(CodebaseIndexes::default()), sandbox)?;
    Ok(registry)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::arguments::ArgumentSchema;

    #[test]
    fn every_builtin_tool_has_an_example_its_own_schema_accepts() {
        let registry = builtin_registry().unwrap();
        let names = registry.names();
        assert!(names.len() >= 15, "{names:?}");
        for name in names {
            let spec = registry.get(&name).unwrap().spec().clone();
            assert!(!spec.examples.is_empty(), "`{name}` has no example");
            let schema = ArgumentSchema::compile(&spec.parameters).unwrap();
            for example in &spec.examples {
                assert!(!example.summary.trim().is_empty(), "`{name}`");
                let arguments = example.arguments.as_ref().expect("a call's arguments");
                schema
                    .check(&name, arguments)
                    .unwrap_or_else(|e| panic!("`{name}`'s example is refused: {e}"));
            }
        }
    }
}
