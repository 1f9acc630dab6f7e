//! `OptimizeContext`: the seam where the history is fitted to the model's context window
//! (issue 10: token counting, strategies, summarization). Until then the whole history is sent.

use async_trait::async_trait;
use braid_protocol::ContextState;

use super::{Draft, PipelineContext, PipelineError, ProcessResult, Processor, ProcessorName};

/// Fits the history to the budget (currently: sends it whole).
pub struct OptimizeContext;

#[async_trait]
impl Processor for OptimizeContext {
    fn name(&self) -> ProcessorName {
        ProcessorName::OptimizeContext
    }

    fn state(&self, _: &Draft) -> Option<ContextState> {
        Some(ContextState::OptimizingContext)
    }

    async fn process(
        &self,
        _: &mut Draft,
        _: &PipelineContext,
    ) -> Result<ProcessResult, PipelineError> {
        Ok(ProcessResult::Continue)
    }
}
