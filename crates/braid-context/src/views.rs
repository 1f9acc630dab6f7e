//! Reads (summary, state, messages, branches) and the configuration commands (mode, title and
//! config, branches), all small operations over the actor's data.

use braid_protocol::api::{
    BranchInfo, BranchList, ContextSummary, MessageList, MessageView, PageFrom, TokenBudget,
    UpdateContextRequest, WorkspaceInstructionsInfo,
};
use braid_protocol::{
    BranchName, ContextConfig, KindName, Message, MessageId, MessageKind, Metadata, Mode, Role,
    SystemControlMessage, Validate,
};
use braid_store::{BranchRecord, ContextChanges};

use crate::actor::Actor;
use crate::error::EngineError;
use crate::host::Host;
use crate::pipeline::PipelineContext;
use crate::plan_cache::{CachedPlan, OptimizedView, PlanKey};
use braid_optimizer::PlanError;
use std::sync::Arc;

/// Which messages to list.
#[derive(Clone, Debug, Default)]
pub struct MessageQuery {
    /// The branch; the active one when absent.
    pub branch: Option<BranchName>,
    /// Stored history or what the model would be sent.
    pub view: MessageView,
    /// Only messages of this kind.
    pub kind: Option<KindName>,
    /// Only messages after this one.
    pub after: Option<MessageId>,
    /// Only messages before this one: the page is the newest of them (paging back from the
    /// end); not with `after`.
    pub before: Option<MessageId>,
    /// At most this many (default 100, at most 1000).
    pub limit: Option<u32>,
    /// Where the page starts without `after` or `before`: the oldest or the newest messages.
    pub from: PageFrom,
}

/// The page size of a message listing when none is asked for.
pub const DEFAULT_PAGE: u32 = 100;
/// The largest page of a message listing.
pub const MAX_PAGE: u32 = 1000;

impl Actor {
    /// What the active branch's pipeline runs with: its history, the request frame kept for
    /// it (built now when none describes the context, and kept for the turns and reads after
    /// this one; a processor that finds it stale, a model's discovery having run meanwhile,
    /// builds its own) and what its last request's ledger kept (its room and start).
    pub(crate) fn turn_pipeline_context(&self) -> PipelineContext {
        let branch = &self.data().record.active_branch;
        let mut ctx = self.frame_context(branch);
        ctx.history = self.data().model_history(branch);
        let mut plans = self.plans().lock().unwrap_or_else(|e| e.into_inner());
        ctx.kept_frame = crate::pipeline::KeptFrame(Some(plans.frame(branch, &ctx, self.frames())));
        ctx.kept_ledger = plans.ledger(branch);
        drop(plans);
        ctx
    }

    /// What a request on `branch` is built from besides its history (left empty): cheap
    /// whatever the history's length, for reads that reuse a plan of an unchanged history.
    pub(crate) fn frame_context(&self, branch: &braid_protocol::BranchName) -> PipelineContext {
        let config = self.data().record.config.clone();
        let model = self.settings().model_in_use(&config.model);
        let (workspace, workspace_problem) = match self
            .settings()
            .workspace_roots
            .open_configured(config.workspace.as_deref())
        {
            Ok(workspace) => (workspace, None),
            Err(problem) => (None, Some(problem.to_string())),
        };
        // Kept between reads while the kernel reports no change to them (workspace_files).
        let files = crate::workspace_files::current(
            workspace.as_ref(),
            self.settings().user_workflows.as_deref(),
        );
        PipelineContext {
            branch: branch.clone(),
            instructions: files.instructions.clone(),
            workflow_tools: files.workflow_tools.clone(),
            model,
            branch_prompt: self
                .data()
                .branch(branch)
                .and_then(|b| b.system_prompt.clone()),
            history: Vec::new(),
            tools: self.tools().clone(),
            workspace,
            workspace_problem,
            config,
            llm: self.llm(),
            ocr: self.settings().ocr.clone(),
            image_hosts: self.settings().image_hosts.clone(),
            kept_frame: crate::pipeline::KeptFrame::default(),
            kept_ledger: crate::pipeline::KeptLedger::default(),
        }
    }

    /// The context as `GET /v1/contexts/{id}` shows it. Its token budget comes from the
    /// active branch's cached plan, so a read between changes walks no history.
    pub(crate) fn summary(&self) -> ContextSummary {
        self.summary_in(self.state())
    }

    /// [`Actor::summary`] showing `state`.
    pub(crate) fn summary_in(&self, state: &braid_protocol::ContextState) -> ContextSummary {
        let record = &self.data().record;
        let ctx = self.frame_context(&record.active_branch);
        let (token_budget, instructions_tokens) =
            self.with_plan(&record.active_branch, &ctx, |cached| {
                (
                    budget_of(&cached.plan),
                    cached.key.frame.instructions_tokens,
                )
            });
        // The fields the context list shows, derived in one place.
        let listed = self.data().listing(state.clone());
        ContextSummary {
            id: listed.id,
            title: listed.title,
            config: listed.config,
            state: listed.state,
            active_branch: listed.active_branch,
            branches: listed.branches,
            message_count: listed.message_count,
            pinned: self.pinned(),
            token_budget,
            capabilities: crate::pipeline::capabilities_view(&ctx),
            instructions: ctx
                .instructions
                .as_ref()
                .map(|i| WorkspaceInstructionsInfo {
                    path: i.path.clone(),
                    file_bytes: i.file_bytes,
                    included_bytes: i.text.len() as u64,
                    tokens: instructions_tokens.unwrap_or_default(),
                    truncated: i.truncated,
                }),
            created_at: listed.created_at,
            updated_at: listed.updated_at,
        }
    }

    /// Runs `f` on the plan of the next request on `branch` (whose frame `ctx` holds, without
    /// its history): the kept one while nothing it depends on changed, else a new one.
    fn with_plan<R>(
        &self,
        branch: &BranchName,
        ctx: &crate::pipeline::PipelineContext,
        f: impl FnOnce(&mut CachedPlan) -> R,
    ) -> R {
        let mut plans = self.plans().lock().unwrap_or_else(|e| e.into_inner());
        let key = PlanKey {
            revision: self.data().revision,
            frame: plans.frame(branch, ctx, self.frames()),
        };
        if let Some(cached) = plans.get_mut(branch, &key) {
            return f(cached);
        }
        let mut full = ctx.clone();
        full.history = self.data().model_history(branch);
        let plan = crate::pipeline::preview(&full, &key);
        if let Some(kept) = self.take_kept_counts() {
            let counter = braid_optimizer::TokenCounter::new(key.frame.capabilities());
            if kept.worth_keeping(&counter.name(), &full.history) {
                crate::token_counts::keep(
                    self.store().clone(),
                    self.context_id(),
                    &counter,
                    &full.history,
                );
            }
        }
        f(plans.insert(
            branch.clone(),
            CachedPlan {
                key,
                plan,
                view: None,
            },
        ))
    }

    /// One message of the context, on any branch, as committed.
    pub(crate) fn message(&self, id: braid_protocol::MessageId) -> Result<Message, EngineError> {
        self.data()
            .pool
            .get(&id)
            .cloned()
            .ok_or_else(|| EngineError::NotFound(format!("no message {id} in this context")))
    }

    pub(crate) fn list_messages(&self, q: MessageQuery) -> Result<MessageList, EngineError> {
        let branch = q
            .branch
            .unwrap_or_else(|| self.data().record.active_branch.clone());
        if self.data().branch(&branch).is_none() {
            return Err(EngineError::BranchNotFound(branch));
        }
        let view = match q.view {
            MessageView::Optimized => Some(self.optimized_view(&branch)?),
            MessageView::Full => None,
        };
        let mut messages: Vec<&Message> = if let Some(view) = &view {
            match (q.after, q.kind) {
                // The common page: from the kept list's index, not a search.
                (Some(after), None) => {
                    let Some(at) = view.position.get(&after) else {
                        return Err(not_listed(after));
                    };
                    let end = view.messages.len().min(at + 2 + MAX_PAGE as usize);
                    view.messages[at + 1..end].iter().collect()
                }
                _ => view.messages.iter().collect(),
            }
        } else {
            self.data().branch_messages(&branch)
        };
        if let Some(kind) = q.kind {
            messages.retain(|m| m.kind_name() == kind);
        }
        if let (Some(after), false) = (
            q.after,
            q.view == MessageView::Optimized && q.kind.is_none(),
        ) {
            let Some(at) = messages.iter().position(|m| m.id == after) else {
                return Err(not_listed(after));
            };
            messages.drain(..=at);
        }
        let limit = q.limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE) as usize;
        let mut next_before = None;
        // A page back from `before` is never the last one: the end's markers are not on it.
        let more = if let Some(before) = q.before {
            if q.after.is_some() {
                return Err(invalid(
                    "before",
                    "`before` and `after` page in opposite directions: give one of them",
                ));
            }
            if q.from == PageFrom::End {
                return Err(invalid(
                    "from",
                    "`from=end` starts at the newest messages and `before` names where a page ends: give one of them",
                ));
            }
            let Some(at) = messages.iter().position(|m| m.id == before) else {
                return Err(not_listed(before));
            };
            messages.truncate(at);
            let start = messages.len().saturating_sub(limit);
            messages.drain(..start);
            if start > 0 {
                next_before = messages.first().map(|m| m.id);
            }
            true
        } else if q.from == PageFrom::End {
            if q.after.is_some() {
                return Err(invalid(
                    "from",
                    "`from=end` starts at the newest messages and `after` pages forward: give one of them",
                ));
            }
            // The newest page: the end's markers are on it, older messages are paged back to.
            let start = messages.len().saturating_sub(limit);
            messages.drain(..start);
            if start > 0 {
                next_before = messages.first().map(|m| m.id);
            }
            false
        } else {
            let more = messages.len() > limit;
            messages.truncate(limit);
            more
        };
        let markers = match (&view, q.kind) {
            (Some(view), None) => {
                let page: std::collections::HashSet<braid_protocol::MessageId> =
                    messages.iter().map(|m| m.id).collect();
                view.markers
                    .iter()
                    .filter(|m| match m.before {
                        Some(before) => page.contains(&before),
                        None => !more,
                    })
                    .cloned()
                    .collect()
            }
            _ => Vec::new(),
        };
        Ok(MessageList {
            next_after: if more && q.before.is_none() {
                messages.last().map(|m| m.id)
            } else {
                None
            },
            next_before,
            messages: messages.into_iter().cloned().collect(),
            markers,
        })
    }

    /// What the next request on `branch` would send: stored messages, summaries where they
    /// stand in, cut messages as cut, with markers where messages are left out. The person's
    /// input that waits for or failed its pipeline is listed too, with its status, and so are
    /// the branch's notices (mode and role changes, switches, merges, recoveries), so the
    /// person sees them and no event names a message this view leaves out, though none of
    /// them is sent. Built once per plan.
    fn optimized_view(&self, branch: &BranchName) -> Result<Arc<OptimizedView>, EngineError> {
        let ctx = self.frame_context(branch);
        self.with_plan(branch, &ctx, |cached| {
            if let Some(view) = &cached.view {
                return Ok(view.clone());
            }
            let plan = cached.plan.as_ref().map_err(|e| {
                EngineError::Pipeline(crate::pipeline::PipelineError::Request(e.to_string()))
            })?;
            let input = self.data().model_history(branch);
            let view = Arc::new(self.view_of(branch, plan, &input, &cached.key));
            cached.view = Some(view.clone());
            Ok(view)
        })
    }

    /// The optimized view of `branch` for `plan` (made from `input`, its model history).
    fn view_of(
        &self,
        branch: &BranchName,
        plan: &braid_optimizer::Plan,
        input: &[Message],
        key: &crate::plan_cache::PlanKey,
    ) -> OptimizedView {
        let shown = plan.shown(input);
        let position: std::collections::HashMap<braid_protocol::MessageId, usize> =
            shown.iter().enumerate().map(|(i, m)| (m.id, i)).collect();
        let all = self.data().branch_messages(branch);
        // Walk the branch in order: what the request sends comes as the plan shows it, and each
        // held message or notice stands right after the branch message before it.
        let mut out = Vec::with_capacity(shown.len());
        let mut next = 0;
        for m in &all {
            match position.get(&m.id) {
                Some(&at) if at >= next => {
                    out.extend(shown[next..=at].iter().cloned());
                    next = at + 1;
                }
                Some(_) => {}
                None if m.is_held_input() || is_notice(m) => out.push((*m).clone()),
                None => {}
            }
        }
        out.extend(shown[next..].iter().cloned());
        let counter = braid_optimizer::TokenCounter::new(key.frame.capabilities());
        let markers = crate::plan_cache::markers(&all, &out, &counter);
        OptimizedView::new(out, markers)
    }

    pub(crate) fn branch_info(&self, b: &BranchRecord) -> BranchInfo {
        BranchInfo {
            name: b.name.clone(),
            message_count: b.message_ids.len() as u64,
            system_prompt: b.system_prompt.clone(),
            parent: b.parent.clone(),
            fork_point: b.fork_point,
            pipeline: b
                .pipeline
                .as_ref()
                .and_then(|p| {
                    serde_json::from_value::<crate::pipeline::PipelineConfig>(p.clone()).ok()
                })
                .map(|c| c.processors),
            created_at: b.created_at,
        }
    }

    pub(crate) fn branch_list(&self) -> BranchList {
        BranchList {
            active: self.data().record.active_branch.clone(),
            branches: self
                .data()
                .branches
                .iter()
                .map(|b| self.branch_info(b))
                .collect(),
        }
    }

    /// A notice appended to the active branch in the same change set.
    pub(crate) fn notice(
        &self,
        changes: &mut ContextChanges,
        branch: &BranchName,
        control: SystemControlMessage,
    ) -> Message {
        let m = Message::new(Role::User, MessageKind::SystemControl(control));
        changes.push_message(branch, m.clone());
        m
    }

    /// Switches plan/act mode, with a `mode_change` notice.
    pub(crate) async fn set_mode(&mut self, mode: Mode) -> Result<(), EngineError> {
        let mut config = self.data().record.config.clone();
        if config.mode == mode {
            return Ok(());
        }
        config.mode = mode;
        self.apply_config(config, None).await
    }

    /// Changes the title and/or the configuration (a JSON merge patch).
    pub(crate) async fn update(
        &mut self,
        request: UpdateContextRequest,
    ) -> Result<ContextSummary, EngineError> {
        let config = match &request.config {
            Some(patch) => self.data().record.config.merge_patch(patch)?,
            None => self.data().record.config.clone(),
        };
        self.apply_config(config, request.title).await?;
        Ok(self.summary())
    }

    /// Stores a new config and title; a changed mode or agent role gets its notice on the
    /// active branch (so each branch's history says which mode and role it ends in).
    async fn apply_config(
        &mut self,
        config: ContextConfig,
        title: Option<String>,
    ) -> Result<(), EngineError> {
        config.validate()?;
        // Only a changed workspace is judged here: a title or mode change of a context whose
        // stored workspace is no longer allowed still goes through (using it is refused).
        if config.workspace != self.data().record.config.workspace {
            self.settings()
                .workspace_roots
                .open_configured(config.workspace.as_deref())
                .map_err(EngineError::Workspace)?;
        }
        let mut changes = ContextChanges::new();
        let branch = self.data().record.active_branch.clone();
        let current = &self.data().record.config;
        let mut notices = Vec::new();
        if config.mode != current.mode {
            notices.push(SystemControlMessage::ModeChange {
                from: current.mode,
                to: config.mode,
            });
        }
        if config.agent_role != current.agent_role {
            notices.push(SystemControlMessage::RoleChange {
                from: current.agent_role,
                to: config.agent_role,
            });
        }
        let notices: Vec<Message> = notices
            .into_iter()
            .map(|n| self.notice(&mut changes, &branch, n))
            .collect();
        if config != self.data().record.config {
            changes.config = Some(config);
        }
        changes.title = title;
        self.commit(changes).await?;
        if notices.is_empty() {
            self.emit_update(None, None, Metadata::new()).await;
        }
        for n in &notices {
            self.emit_created(n).await;
        }
        Ok(())
    }
}

/// A notice the person sees in both views; summaries are not, since the optimized view shows
/// them where they stand in and the full view shows what they replace.
fn is_notice(m: &Message) -> bool {
    matches!(&m.kind, MessageKind::SystemControl(c) if !matches!(c, SystemControlMessage::Summary { .. }))
}

/// The budget a plan leaves: `used` is the exact count (calibrated by reported usage) of what
/// the next request would send, after optimization; when nothing fits, of what is needed.
fn budget_of(plan: &Result<braid_optimizer::Plan, PlanError>) -> TokenBudget {
    match plan {
        Ok(plan) => TokenBudget {
            used: plan.tokens_after,
            limit: plan.limit,
        },
        Err(
            PlanError::FixedPartTooLarge { needed, limit }
            | PlanError::NewestTooLarge { needed, limit },
        ) => TokenBudget {
            used: *needed,
            limit: *limit,
        },
    }
}

fn not_listed(after: braid_protocol::MessageId) -> EngineError {
    EngineError::NotFound(format!("message {after} is not in this listing"))
}

/// A listing query that cannot be answered, naming the parameter at fault.
fn invalid(path: &str, message: &str) -> EngineError {
    EngineError::Invalid(braid_protocol::ValidationErrors(vec![
        braid_protocol::Problem {
            path: path.to_owned(),
            message: message.to_owned(),
        },
    ]))
}
