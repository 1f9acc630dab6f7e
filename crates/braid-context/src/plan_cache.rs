//! Plans of unchanged histories (issue 19): the summary's token budget and `view=optimized`
//! need the optimizer's plan of a branch, which is a walk over the whole history. A plan is
//! kept per branch with everything it was made from ([`PlanKey`]: the history's revision and
//! the request's [`Frame`]) and reused while that stays equal, so reads between changes cost no
//! walk, and a page of the optimized view is a slice of a list built once.
//!
//! The frame (the system prompt and tool definitions as built, with the model's capabilities
//! and the configuration) is kept too, with the inputs it was built from ([`FrameInputs`]),
//! and built again only when one of them differs: every read compares them by value, so a
//! changed configuration, branch prompt, instructions file, workflow, model capability or tool
//! (the registry's [`generation`](braid_tools::ToolRegistry::generation)) shows in the next
//! read. The pipeline's `EnhanceSystemPrompt` takes the kept frame too, under the same check,
//! so a turn builds it only when something changed since the last read. Contexts whose inputs
//! are equal take one frame ([`SharedFrames`]), so a thousand contexts built alike tokenize and
//! encode their tools once.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use braid_llm::{ModelCapabilities, ToolDefinition};
use braid_protocol::api::{ViewMarker, ViewMarkerKind};
use braid_protocol::{BranchName, ContextConfig, Message, MessageId};

use crate::instructions::WorkspaceInstructions;
use crate::pipeline::PipelineContext;
use braid_optimizer::{Encoding, Plan, PlanError, TokenCounter, summary_replaces};

/// Branches whose plans are kept at once; a context rarely reads more branches than this
/// between changes, and each plan holds at most one window's worth of messages.
pub(crate) const MAX_CACHED_BRANCHES: usize = 8;

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
        let capabilities = crate::pipeline::capabilities(ctx);
        let (prompt, tools) =
            crate::pipeline::request_frame(ctx, crate::pipeline::ToolOffer::Offered);
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
            .describe(ctx, &crate::pipeline::capabilities(ctx), tools_generation)
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
        let capabilities = crate::pipeline::capabilities(ctx);
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

/// One branch's plan and what was derived from it so far.
pub(crate) struct CachedPlan {
    /// What it was made from.
    pub key: PlanKey,
    /// The optimizer's plan (or why nothing fits).
    pub plan: Result<Plan, PlanError>,
    /// The optimized view, built on its first read.
    pub view: Option<Arc<OptimizedView>>,
}

/// What `view=optimized` lists for one plan.
#[derive(Debug, Default)]
pub(crate) struct OptimizedView {
    /// The listed messages, in order.
    pub messages: Vec<Message>,
    /// Where messages were left out.
    pub markers: Vec<ViewMarker>,
    /// Each listed message's place in `messages`.
    pub position: HashMap<MessageId, usize>,
}

impl OptimizedView {
    /// The view of `messages` with `markers`.
    pub fn new(messages: Vec<Message>, markers: Vec<ViewMarker>) -> Self {
        let position = messages
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id, i))
            .collect();
        Self {
            messages,
            markers,
            position,
        }
    }
}

/// The plans of one context, by branch, and the request frames they and the turns are built
/// with.
#[derive(Default)]
pub(crate) struct PlanCache {
    plans: HashMap<BranchName, CachedPlan>,
    /// The newest frame built for each branch: it outlives the plans of older revisions (a
    /// turn changes the history, rarely the frame), so a turn or read after it builds none.
    frames: HashMap<BranchName, Arc<Frame>>,
}

impl PlanCache {
    /// The plan of `branch` made from `key`, if one is kept.
    pub fn get_mut(&mut self, branch: &BranchName, key: &PlanKey) -> Option<&mut CachedPlan> {
        self.plans.get_mut(branch).filter(|c| c.key == *key)
    }

    /// The frame of a request from `ctx` on `branch`: the kept one while its inputs are
    /// `ctx`'s, else one another context built from the same inputs (`shared`), else a new
    /// one; kept in its place.
    pub fn frame(
        &mut self,
        branch: &BranchName,
        ctx: &PipelineContext,
        shared: &SharedFrames,
    ) -> Arc<Frame> {
        if let Some(frame) = self.frames.get(branch)
            && frame.describes(ctx)
        {
            return frame.clone();
        }
        let frame = shared.frame(ctx);
        if self.frames.len() >= MAX_CACHED_BRANCHES && !self.frames.contains_key(branch) {
            self.frames.clear();
        }
        self.frames.insert(branch.clone(), frame.clone());
        frame
    }

    /// Keeps `plan` for `branch`, in place of any older one; plans of other branches made
    /// before the newest revision go first when the cache is full.
    pub fn insert(&mut self, branch: BranchName, plan: CachedPlan) -> &mut CachedPlan {
        if self.plans.len() >= MAX_CACHED_BRANCHES && !self.plans.contains_key(&branch) {
            let revision = plan.key.revision;
            self.plans.retain(|_, c| c.key.revision == revision);
            if self.plans.len() >= MAX_CACHED_BRANCHES {
                self.plans.clear();
            }
        }
        let slot = self.plans.entry(branch).insert_entry(plan);
        slot.into_mut()
    }
}

/// The markers of a branch's optimized view: each run of consecutive messages that would be
/// sent but are not listed, split where what happened to them changes. A summarized run
/// stands before its summary; a dropped run before the next listed message of the branch.
/// Messages never sent to a model (notices, processing records) neither join nor break runs.
pub(crate) fn markers(
    branch: &[&Message],
    listed: &[Message],
    counter: &TokenCounter,
) -> Vec<ViewMarker> {
    let listed_ids: HashSet<MessageId> = listed.iter().map(|m| m.id).collect();
    let mut summarized_by: HashMap<MessageId, MessageId> = HashMap::new();
    for m in listed {
        for id in summary_replaces(m).unwrap_or_default() {
            summarized_by.entry(*id).or_insert(m.id);
        }
    }
    let mut runs: Vec<ViewMarker> = Vec::new();
    // Dropped runs still waiting for the listed message they stand before.
    let mut open: Vec<usize> = Vec::new();
    // The run the previous unlisted message joined, until a listed message ends it.
    let mut current: Option<usize> = None;
    for m in branch {
        if listed_ids.contains(&m.id) {
            for r in open.drain(..) {
                runs[r].before = Some(m.id);
            }
            current = None;
            continue;
        }
        if !m.kind_name().is_sent_to_model() {
            continue;
        }
        let summary = summarized_by.get(&m.id).copied();
        let tokens = counter.message(m);
        match current.filter(|c| runs[*c].summary == summary) {
            Some(c) => {
                let r = &mut runs[c];
                r.count += 1;
                r.tokens = r.tokens.saturating_add(tokens);
                r.last = m.id;
            }
            None => {
                runs.push(ViewMarker {
                    kind: if summary.is_some() {
                        ViewMarkerKind::Summarized
                    } else {
                        ViewMarkerKind::Dropped
                    },
                    count: 1,
                    tokens,
                    first: m.id,
                    last: m.id,
                    before: summary,
                    summary,
                });
                let at = runs.len() - 1;
                if summary.is_none() {
                    open.push(at);
                }
                current = Some(at);
            }
        }
    }
    runs
}
