//! The message processing pipeline (DESIGN.md "The context"): a draft goes through
//! `Validate -> ResolveFileReferences -> RecognizeImages -> EnhanceSystemPrompt ->
//! OptimizeContext -> PrepareRequest`. Each processor is a small step over the draft; the actor
//! moves the state machine into each processor's state before running it. The person's input
//! is stored as `pending` before the pipeline runs (a 202 means stored); a failing processor
//! drops the draft, so nothing the pipeline did is kept, and the input is marked `failed` with
//! the error (see `crate::input`).

mod file_references;
pub(crate) mod frame;
mod images;
mod optimize;
mod prepare;
mod system_prompt;
mod validate;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use braid_llm::{LlmRequest, ToolDefinition};
use braid_protocol::{ContextConfig, ContextState, Message};
use braid_tools::{ToolRegistry, Workspace};
use serde::{Deserialize, Serialize};

pub use file_references::ResolveFileReferences;
pub use images::RecognizeImages;
pub(crate) use images::{failed_image, read_refused_image, refuses_images};
pub use optimize::OptimizeContext;
pub(crate) use optimize::{capabilities, capabilities_view, preview};
pub use prepare::PrepareRequest;
pub use system_prompt::EnhanceSystemPrompt;
pub(crate) use system_prompt::{ToolOffer, request_frame};
pub use validate::ValidateMessages;

/// What the pipeline works on: the person's new messages (none when the tool loop continues)
/// and the request being prepared.
#[derive(Debug, Default)]
pub struct Draft {
    /// The person's input of this turn, in order (already stored as `pending`); stored as
    /// processed and `complete` only if the whole pipeline succeeds.
    pub messages: Vec<Message>,
    /// The system prompt built for this request.
    pub system_prompt: Option<String>,
    /// The tools offered to the model (shared with the frame they were built for).
    pub tools: Arc<[ToolDefinition]>,
    /// The finished request, once `PrepareRequest` ran.
    pub request: Option<LlmRequest>,
    /// How long each processor took.
    pub timings: Vec<(ProcessorName, Duration)>,
    /// The request's messages as `OptimizeContext` chose them; `None` sends the whole history
    /// and the new messages.
    pub optimized: Option<Vec<Message>>,
    /// Control messages a processor made (a summary), stored after the new messages.
    pub notes: Vec<Message>,
    /// What the optimization did, for the `context_update` event's metadata.
    pub optimization: Option<braid_protocol::Metadata>,
    /// What the request holds, part by part (`OptimizeContext` describes it; stored as the
    /// request goes out).
    pub record: Option<braid_protocol::ModelRequestRecord>,
}

/// What a processor can see of its context. Owned copies, so processors never hold the actor's
/// data while it moves the state machine.
#[derive(Clone)]
pub struct PipelineContext {
    /// The context's configuration.
    pub config: ContextConfig,
    /// The model the request is for.
    pub model: String,
    /// The branch the request is made on.
    pub branch: braid_protocol::BranchName,
    /// The active branch's system prompt override.
    pub branch_prompt: Option<String>,
    /// The active branch's messages before this turn, oldest first.
    pub history: Vec<Message>,
    /// Every tool Braid knows.
    pub tools: Arc<ToolRegistry>,
    /// The workspace, when configured, present and inside the allowed roots.
    pub workspace: Option<Workspace>,
    /// Why the configured workspace cannot be used, when it cannot.
    pub workspace_problem: Option<String>,
    /// The workspace's instructions file, when it has one (added to the system prompt).
    pub instructions: Option<crate::instructions::WorkspaceInstructions>,
    /// The model client, for processors that ask the model themselves (summarization).
    pub llm: Option<Arc<dyn braid_llm::LlmClient>>,
    /// The workflows offered to the model as `workflow__<name>` tools (in act mode, to a role
    /// that may write and run).
    pub workflow_tools: Vec<braid_llm::ToolDefinition>,
    /// How OCR runs.
    pub ocr: braid_vision::OcrSettings,
    /// Internal hosts that image URLs may name anyway.
    pub image_hosts: braid_vision::ImageHosts,
    /// The request frame the actor kept from an earlier read: used while its inputs are
    /// unchanged.
    pub kept_frame: KeptFrame,
    /// What the branch's last request's ledger kept for the next one (its room and start).
    pub kept_ledger: KeptLedger,
}

/// A request frame (system prompt and tool definitions) the actor keeps between reads
/// (`plan_cache`), handed to the pipeline so that [`EnhanceSystemPrompt`] builds it only when
/// one of its inputs changed: built and compared in one place, for reads and requests alike.
#[derive(Clone, Debug, Default)]
pub struct KeptFrame(pub(crate) Option<Arc<frame::Frame>>);

impl KeptFrame {
    /// The kept frame while it still describes `ctx` (its model's capabilities, after any
    /// discovery, and the tool registry as it is now included).
    pub(crate) fn describing(&self, ctx: &PipelineContext) -> Option<&frame::Frame> {
        self.0.as_deref().filter(|frame| frame.describes(ctx))
    }
}

/// What the branch's ledger keeps from one request to the next, kept by the actor between
/// turns (`plan_cache`, one per branch) and shared with the turn's pipeline:
/// - the room the last request gave the ledger: `OptimizeContext` plans the next request
///   around it and keeps it while the ledger still fits it, so a long session's request is
///   planned once a turn instead of twice ([`braid_optimizer::ledger::fit`]);
/// - what reading the oldest left-out messages gave, which the next ledger starts from
///   ([`braid_optimizer::ledger::LedgerStart`]).
///
/// Only starting points: a room the ledger no longer fits is worked out afresh, and a start
/// whose messages changed is read again.
#[derive(Clone, Debug, Default)]
pub struct KeptLedger(Arc<std::sync::Mutex<Kept>>);

/// What [`KeptLedger`] holds.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    /// The room (0: the last request had no ledger).
    pub(crate) room: u32,
    /// Where the next ledger starts.
    pub(crate) start: braid_optimizer::ledger::LedgerStart,
}

impl KeptLedger {
    /// The kept room, if the last request had a ledger.
    pub(crate) fn room(&self) -> Option<u32> {
        Some(self.lock().room).filter(|room| *room > 0)
    }

    /// What is kept, to read and change.
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.0.lock().unwrap_or_else(|poisoned| {
            // A turn panicked while it held it: what it kept may be half made.
            let mut kept = poisoned.into_inner();
            *kept = Kept::default();
            self.0.clear_poison();
            kept
        })
    }
}

/// What a processor decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessResult {
    /// Go on with the next processor.
    Continue,
    /// The draft is ready; skip the remaining processors.
    Complete,
}

/// A step of the pipeline.
#[async_trait]
pub trait Processor: Send + Sync {
    /// The processor's name, as branch pipeline configurations list it.
    fn name(&self) -> ProcessorName;

    /// The state the context is in while this processor runs; `None` when it has nothing to do
    /// for this draft and is skipped.
    fn state(&self, draft: &Draft) -> Option<ContextState>;

    /// Works on the draft.
    async fn process(
        &self,
        draft: &mut Draft,
        ctx: &PipelineContext,
    ) -> Result<ProcessResult, PipelineError>;
}

pub use crate::error::PipelineError;
pub use braid_protocol::api::ProcessorName;

/// A branch's pipeline configuration, stored as the branch's `pipeline` JSON:
/// `{"processors": ["validate", "enhance_system_prompt", "prepare_request"]}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipelineConfig {
    /// The processors, in order.
    pub processors: Vec<ProcessorName>,
}

/// An ordered list of processors.
#[derive(Clone)]
pub struct Pipeline {
    processors: Vec<Arc<dyn Processor>>,
}

impl Pipeline {
    /// The default pipeline of DESIGN.md.
    pub fn standard() -> Self {
        Self::from_names(&[
            ProcessorName::Validate,
            ProcessorName::ResolveFileReferences,
            ProcessorName::RecognizeImages,
            ProcessorName::EnhanceSystemPrompt,
            ProcessorName::OptimizeContext,
            ProcessorName::PrepareRequest,
        ])
    }

    /// A pipeline of the named processors. `PrepareRequest` is appended when missing: without it
    /// there is nothing to send.
    pub fn from_names(names: &[ProcessorName]) -> Self {
        let mut processors: Vec<Arc<dyn Processor>> = names
            .iter()
            .map(|n| -> Arc<dyn Processor> {
                match n {
                    ProcessorName::Validate => Arc::new(ValidateMessages),
                    ProcessorName::ResolveFileReferences => Arc::new(ResolveFileReferences),
                    ProcessorName::RecognizeImages => Arc::new(RecognizeImages),
                    ProcessorName::EnhanceSystemPrompt => Arc::new(EnhanceSystemPrompt),
                    ProcessorName::OptimizeContext => Arc::new(OptimizeContext),
                    ProcessorName::PrepareRequest => Arc::new(PrepareRequest),
                }
            })
            .collect();
        if !names.contains(&ProcessorName::PrepareRequest) {
            processors.push(Arc::new(PrepareRequest));
        }
        Self { processors }
    }

    /// The pipeline a branch configured, or the standard one. A configuration that does not
    /// parse is logged and the standard pipeline used.
    pub fn for_branch(config: Option<&serde_json::Value>) -> Self {
        match config.map(|v| serde_json::from_value::<PipelineConfig>(v.clone())) {
            None => Self::standard(),
            Some(Ok(c)) => Self::from_names(&c.processors),
            Some(Err(error)) => {
                tracing::warn!(%error, "branch pipeline configuration ignored");
                Self::standard()
            }
        }
    }

    /// The processors, in order.
    pub fn processors(&self) -> &[Arc<dyn Processor>] {
        &self.processors
    }

    /// A pipeline with `processor` added at the end (before `PrepareRequest` when it is last).
    pub fn with(mut self, processor: Arc<dyn Processor>) -> Self {
        let at = match self.processors.last() {
            Some(p) if p.name() == ProcessorName::PrepareRequest => self.processors.len() - 1,
            _ => self.processors.len(),
        };
        self.processors.insert(at, processor);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_pipeline_has_the_design_order() {
        let names: Vec<_> = Pipeline::standard()
            .processors()
            .iter()
            .map(|p| p.name())
            .collect();
        assert_eq!(
            names,
            vec![
                ProcessorName::Validate,
                ProcessorName::ResolveFileReferences,
                ProcessorName::RecognizeImages,
                ProcessorName::EnhanceSystemPrompt,
                ProcessorName::OptimizeContext,
                ProcessorName::PrepareRequest,
            ]
        );
    }

    #[test]
    fn branch_configuration_selects_processors_and_keeps_prepare_last() {
        let p = Pipeline::for_branch(Some(
            &serde_json::json!({"processors":["validate","enhance_system_prompt"]}),
        ));
        let names: Vec<_> = p.processors().iter().map(|p| p.name()).collect();
        assert_eq!(
            names,
            vec![
                ProcessorName::Validate,
                ProcessorName::EnhanceSystemPrompt,
                ProcessorName::PrepareRequest
            ]
        );
    }

    #[test]
    fn bad_branch_configuration_falls_back_to_the_standard_pipeline() {
        let p = Pipeline::for_branch(Some(&serde_json::json!({"processors":["teleport"]})));
        assert_eq!(p.processors().len(), 6);
    }
}
