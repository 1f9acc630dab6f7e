//! The request frame: the system prompt and tool definitions as built, with the model's
//! capabilities and the configuration they were built from ([`FrameInputs`]). A frame is built
//! again only when one of its inputs differs; the pipeline's `EnhanceSystemPrompt` takes a kept
//! one under that check, and contexts whose inputs are equal share one ([`SharedFrames`]).

use std::sync::Arc;

use braid_llm::{ModelCapabilities, ToolDefinition};
use braid_protocol::ContextConfig;

use super::PipelineContext;
use crate::instructions::WorkspaceInstructions;
use braid_optimizer::{Encoding, TokenCounter};

/// What a plan was made from besides the branch's messages (and their revision).
#[derive(Clone, Debug)]
pub(crate) struct PlanKey {
    /// [`crate::context::ContextData::revision`] when the plan was made.
    pub revision: u64,
    /// The request's frame.
    pub frame: Arc<Frame>,
}

impl PartialEq for PlanKey {
    /// Equal revisions and the same frame: a frame is built anew (a new `Arc`) whenever one of
    /// its inputs differs, and a key holds its frame, so the same `Arc` means equal inputs.
    fn eq(&self, other: &Self) -> bool {
        self.revision == other.revision && Arc::ptr_eq(&self.frame, &other.frame)
    }
}

/// Everything a request's system prompt and tools are built from, besides the history.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FrameInputs {
    /// The configuration (mode, role, prompts, switched-off tools, optimization).
    pub config: ContextConfig,
    /// The model in use.
    pub model: String,
    /// The branch's system-prompt override.
    pub branch_prompt: Option<String>,
    /// The workspace root, as the prompt names it.
    pub workspace: Option<std::path::PathBuf>,
    /// The workspace's instructions file as read.
    pub instructions: Option<WorkspaceInstructions>,
    /// The workflows offered as tools.
    pub workflow_tools: Vec<ToolDefinition>,
    /// [`braid_tools::ToolRegistry::generation`], read before the tools were.
    pub tools_generation: u64,
    /// The model's capabilities as the client knows them (window, tokenizer, tool calling).
    pub capabilities: ModelCapabilities,
}

impl FrameInputs {
    /// Whether `ctx` (with the model's `capabilities` and the registry at `tools_generation`)
    /// is what these inputs are, compared field by field without copying `ctx`.
    pub fn describe(
        &self,
        ctx: &PipelineContext,
        capabilities: &ModelCapabilities,
        tools_generation: u64,
    ) -> bool {
        self.tools_generation == tools_generation
            && self.capabilities == *capabilities
            && self.model == ctx.model
            && self.branch_prompt == ctx.branch_prompt
            && self.workspace.as_deref() == ctx.workspace.as_ref().map(|w| w.root())
            && self.instructions == ctx.instructions
            && self.workflow_tools == ctx.workflow_tools
            && self.config == ctx.config
    }

    /// The inputs of `ctx`.
    fn of(ctx: &PipelineContext, capabilities: ModelCapabilities, tools_generation: u64) -> Self {
        Self {
            config: ctx.config.clone(),
            model: ctx.model.clone(),
            branch_prompt: ctx.branch_prompt.clone(),
            workspace: ctx.workspace.as_ref().map(|w| w.root().to_path_buf()),
            instructions: ctx.instructions.clone(),
            workflow_tools: ctx.workflow_tools.clone(),
            tools_generation,
            capabilities,
        }
    }
}

/// The system prompt and tools of a request as built from its [`FrameInputs`].
#[derive(Debug)]
pub(crate) struct Frame {
    /// What it was built from.
    pub inputs: FrameInputs,
    /// The system prompt as built for the request.
    pub prompt: String,
    /// The tools as offered, shared with every request built from the frame.
    pub tools: Arc<[ToolDefinition]>,
    /// Tokens of the workspace instructions (with the model's tokenizer).
    pub instructions_tokens: Option<u32>,
    /// Tokens of `tools` and the encoding they were counted with; read through
    /// [`Frame::tool_tokens`], which answers only for these tools and this encoding.
    tools_tokens: (Encoding, u32),
}

impl Frame {
    /// Builds the frame of `ctx`: the registry's generation is read before the tools, so a
    /// change racing this build shows as a newer generation on the next read.
    pub fn build(ctx: &PipelineContext) -> Self {
        let tools_generation = ctx.tools.generation();
        let capabilities = super::capabilities(ctx);
        let (prompt, tools) = super::request_frame(ctx, super::ToolOffer::Offered);
        let counter = TokenCounter::new(&capabilities);
        let instructions_tokens = ctx
            .instructions
            .as_ref()
            .map(|i| counter.encoding().count(&i.text));
        let tools_tokens = (counter.encoding(), counter.tools(&tools));
        Self {
            inputs: FrameInputs::of(ctx, capabilities, tools_generation),
            prompt,
            tools: tools.into(),
            instructions_tokens,
            tools_tokens,
        }
    }

    /// Whether the frame is what `ctx` builds now (its model's capabilities and the tool
    /// registry as they are now included).
    pub fn describes(&self, ctx: &PipelineContext) -> bool {
        // Read before anything is compared (see `build`).
        let tools_generation = ctx.tools.generation();
        self.inputs
            .describe(ctx, &super::capabilities(ctx), tools_generation)
    }

    /// Tokens of `tools` for `counter`, when they are this frame's own (shared, so unchanged)
    /// and were counted with the same encoding.
    pub fn tool_tokens(
        &self,
        tools: &Arc<[ToolDefinition]>,
        counter: &TokenCounter,
    ) -> Option<u32> {
        let (encoding, tokens) = self.tools_tokens;
        (Arc::ptr_eq(&self.tools, tools) && encoding == counter.encoding()).then_some(tokens)
    }

    /// The model's capabilities the frame was built for.
    pub fn capabilities(&self) -> &ModelCapabilities {
        &self.inputs.capabilities
    }

    /// The configuration the frame was built for.
    pub fn config(&self) -> &ContextConfig {
        &self.inputs.config
    }
}

/// How many frames [`SharedFrames`] offers: contexts are built alike in a handful of ways at a
/// time (a mode, a role and a configuration each).
const SHARED_FRAMES: usize = 16;

/// The frames contexts built last, offered to every context of the engine. Contexts with the
/// same inputs (configuration, model, workspace, tools) build the same frame: they take the
/// first one's, so its tool definitions are tokenized once and, being one shared set, encoded
/// for the model once ([`braid_llm::LlmRequest::tools`]). Each is kept while a context holds
/// it. It serves the contexts of one tool registry, as an engine's [`crate::Services`] hold
/// both: inputs name the registry's generation, not the registry.
#[derive(Default)]
pub struct SharedFrames {
    /// Newest first.
    recent: std::sync::Mutex<std::collections::VecDeque<std::sync::Weak<Frame>>>,
}

impl SharedFrames {
    /// A frame built from `ctx`'s inputs: a kept one that describes `ctx`, else a new one,
    /// which is offered from then on.
    pub(crate) fn frame(&self, ctx: &PipelineContext) -> Arc<Frame> {
        // Read once for every comparison, before them (see `Frame::build`).
        let tools_generation = ctx.tools.generation();
        let capabilities = super::capabilities(ctx);
        let find = |recent: &mut std::collections::VecDeque<std::sync::Weak<Frame>>| {
            recent.retain(|kept| kept.strong_count() > 0);
            recent
                .iter()
                .filter_map(std::sync::Weak::upgrade)
                .find(|frame| frame.inputs.describe(ctx, &capabilities, tools_generation))
        };
        if let Some(frame) = find(&mut self.recent()) {
            return frame;
        }
        // Built outside the lock: building tokenizes the tools, and other contexts may be
        // looking meanwhile. One that built the same frame first wins, so contexts starting
        // together still share one.
        let built = Arc::new(Frame::build(ctx));
        let mut recent = self.recent();
        if let Some(frame) = find(&mut recent) {
            return frame;
        }
        recent.push_front(Arc::downgrade(&built));
        recent.truncate(SHARED_FRAMES);
        built
    }

    fn recent(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::VecDeque<std::sync::Weak<Frame>>> {
        // The list only ever holds whole entries: a panic elsewhere leaves it usable.
        self.recent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
