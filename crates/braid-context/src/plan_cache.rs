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

use braid_protocol::api::{ViewMarker, ViewMarkerKind};
use braid_protocol::{BranchName, Message, MessageId};

pub use crate::pipeline::frame::SharedFrames;
pub(crate) use crate::pipeline::frame::{Frame, PlanKey};
use crate::pipeline::{KeptLedger, PipelineContext};
use braid_optimizer::{Plan, PlanError, TokenCounter, summary_replaces};

/// Branches whose plans are kept at once; a context rarely reads more branches than this
/// between changes, and each plan holds at most one window's worth of messages.
pub(crate) const MAX_CACHED_BRANCHES: usize = 8;

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
    /// What each branch's last request's ledger kept for the next (its room and start).
    ledgers: HashMap<BranchName, KeptLedger>,
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

    /// What the ledger kept for `branch`'s requests (nothing yet for a branch that has made
    /// no request since the context was loaded).
    pub fn ledger(&mut self, branch: &BranchName) -> KeptLedger {
        if self.ledgers.len() >= MAX_CACHED_BRANCHES && !self.ledgers.contains_key(branch) {
            self.ledgers.clear();
        }
        self.ledgers.entry(branch.clone()).or_default().clone()
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
