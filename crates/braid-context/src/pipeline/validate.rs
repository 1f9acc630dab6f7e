//! `Validate`: the new messages must be storable (seed 004 roles, every kind's rules).

use async_trait::async_trait;
use braid_protocol::ContextState;

use super::{Draft, PipelineContext, PipelineError, ProcessResult, Processor, ProcessorName};

/// Checks every new message with [`braid_protocol::Message::validate_for_storage`].
pub struct ValidateMessages;

#[async_trait]
impl Processor for ValidateMessages {
    fn name(&self) -> ProcessorName {
        ProcessorName::Validate
    }

    fn state(&self, draft: &Draft) -> Option<ContextState> {
        (!draft.messages.is_empty()).then_some(ContextState::ProcessingUserMessage)
    }

    async fn process(
        &self,
        draft: &mut Draft,
        _: &PipelineContext,
    ) -> Result<ProcessResult, PipelineError> {
        for m in &draft.messages {
            m.validate_for_storage()?;
        }
        Ok(ProcessResult::Continue)
    }
}
