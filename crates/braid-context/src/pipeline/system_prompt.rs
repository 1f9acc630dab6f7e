//! `EnhanceSystemPrompt`: builds the system prompt and picks the tools for this request from the
//! mode and the agent role.

use async_trait::async_trait;
use braid_llm::ToolDefinition;
use braid_protocol::{AgentRole, ContextState, Mode};

use super::{Draft, PipelineContext, PipelineError, ProcessResult, Processor, ProcessorName};
use crate::prompt::{PromptInputs, build_system_prompt};

/// Builds the system prompt and the tool definitions.
pub struct EnhanceSystemPrompt;

#[async_trait]
impl Processor for EnhanceSystemPrompt {
    fn name(&self) -> ProcessorName {
        ProcessorName::EnhanceSystemPrompt
    }

    fn state(&self, _: &Draft) -> Option<ContextState> {
        Some(ContextState::EnhancingSystemPrompt)
    }

    async fn process(
        &self,
        draft: &mut Draft,
        ctx: &PipelineContext,
    ) -> Result<ProcessResult, PipelineError> {
        let (prompt, tools) = request_frame(ctx);
        draft.system_prompt = Some(prompt);
        draft.tools = tools;
        Ok(ProcessResult::Continue)
    }
}

/// The system prompt and tools a request of this context carries: the one place both are built,
/// for `EnhanceSystemPrompt` and for reads that do not run the pipeline (the optimized view,
/// the token budget).
pub(crate) fn request_frame(ctx: &PipelineContext) -> (String, Vec<ToolDefinition>) {
    let config = &ctx.config;
    let tools = ctx.tools.infos(config.agent_role, config.mode);
    let workspace = ctx
        .workspace
        .as_ref()
        .map(|w| w.root().display().to_string());
    let prompt = build_system_prompt(&PromptInputs {
        base: config.system_prompt.as_deref(),
        branch_override: ctx.branch_prompt.as_deref(),
        mode: config.mode,
        role: config.agent_role,
        workspace: workspace.as_deref(),
        tools: &tools,
    });
    let mut tools = tools
        .into_iter()
        .map(|t| ToolDefinition {
            name: t.name,
            description: t.description,
            parameters: t.parameters,
        })
        .collect::<Vec<_>>();
    // A workflow may write and run commands: offered only where the model may do so itself.
    if config.mode == Mode::Act && config.agent_role == AgentRole::Actor {
        tools.extend(ctx.workflow_tools.iter().cloned());
    }
    (prompt, tools)
}
