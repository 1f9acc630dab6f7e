//! `RecognizeImages`: the seam where vision/OCR recognition runs. Recognition itself is not built
//! yet: images pass through unchanged, and the request builder sends them to vision models as
//! images.

use async_trait::async_trait;
use braid_protocol::{ContextState, MessageKind};

use super::{Draft, PipelineContext, PipelineError, ProcessResult, Processor, ProcessorName};

/// Passes images through (the recognition seam).
pub struct RecognizeImages;

#[async_trait]
impl Processor for RecognizeImages {
    fn name(&self) -> ProcessorName {
        ProcessorName::RecognizeImages
    }

    fn state(&self, draft: &Draft) -> Option<ContextState> {
        let total = draft
            .messages
            .iter()
            .filter(|m| matches!(m.kind, MessageKind::Image(_)))
            .count() as u32;
        (total > 0).then_some(ContextState::RecognizingImages { total })
    }

    async fn process(
        &self,
        _: &mut Draft,
        _: &PipelineContext,
    ) -> Result<ProcessResult, PipelineError> {
        Ok(ProcessResult::Continue)
    }
}
