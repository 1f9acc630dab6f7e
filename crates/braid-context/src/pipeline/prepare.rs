//! `PrepareRequest`: assembles the provider-neutral request from the history, the new messages,
//! the system prompt and the tools.

use async_trait::async_trait;
use braid_llm::LlmRequest;
use braid_protocol::ContextState;

use super::{Draft, PipelineContext, PipelineError, ProcessResult, Processor, ProcessorName};

/// Builds the [`LlmRequest`].
pub struct PrepareRequest;

#[async_trait]
impl Processor for PrepareRequest {
    fn name(&self) -> ProcessorName {
        ProcessorName::PrepareRequest
    }

    fn state(&self, _: &Draft) -> Option<ContextState> {
        Some(ContextState::PreparingLlmRequest)
    }

    async fn process(
        &self,
        draft: &mut Draft,
        ctx: &PipelineContext,
    ) -> Result<ProcessResult, PipelineError> {
        if ctx.model.trim().is_empty() {
            return Err(PipelineError::Request(
                "no model is configured: set BRAID_MODEL (or the context's `model`)".to_owned(),
            ));
        }
        let messages = match draft.optimized.take() {
            Some(messages) => messages,
            None => {
                let mut messages = ctx.history.clone();
                messages.extend(draft.messages.iter().cloned());
                messages
            }
        };
        let mut request =
            LlmRequest::new(ctx.model.clone(), messages).with_tools(draft.tools.clone());
        request.system_prompt = draft.system_prompt.clone();
        let capabilities = super::optimize::discovered_capabilities(ctx).await;
        request.tool_calling = capabilities.tool_calling;
        let budget = braid_optimizer::Budget::for_config(&ctx.config, &capabilities);
        request.options.max_tokens = Some(budget.output_cap(&ctx.config));
        draft.request = Some(request);
        Ok(ProcessResult::Complete)
    }
}
