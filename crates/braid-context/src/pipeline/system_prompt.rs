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
        let config = &ctx.config;
        let tools = ctx.tools.infos(config.agent_role, config.mode);
        let workspace = ctx
            .workspace
            .as_ref()
            .map(|w| w.root().display().to_string());
        draft.system_prompt = Some(build_system_prompt(&PromptInputs {
            base: config.system_prompt.as_deref(),
            branch_override: ctx.branch_prompt.as_deref(),
            mode: config.mode,
            role: config.agent_role,
            workspace: workspace.as_deref(),
            tools: &tools,
        }));
        draft.tools = tools
            .into_iter()
            .map(|t| ToolDefinition {
                name: t.name,
                description: t.description,
                parameters: t.parameters,
            })
            .collect();
        // A workflow may write and run commands: only where the model may do so itself.
        if config.mode == Mode::Act && config.agent_role == AgentRole::Actor {
            draft.tools.extend(ctx.workflow_tools.iter().cloned());
        }
        Ok(ProcessResult::Continue)
    }
}
