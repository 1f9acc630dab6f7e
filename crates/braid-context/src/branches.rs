//! Branch operations (DESIGN.md "The context"): create a branch from any message, switch to
//! it, change its prompt and pipeline, delete it, and merge one into another. Each is one
//! change set over the context's data, committed by the actor, then announced.

use braid_protocol::api::{
    BranchInfo, CreateBranchRequest, MergeOutcome, MergeRequest, UpdateBranchRequest,
};
use braid_protocol::{BranchName, Message, MessageKind, Metadata, SystemControlMessage};
use braid_store::{BranchRecord, BranchSettings, ContextChanges};

use crate::actor::Actor;
use crate::error::EngineError;
use crate::host::Host;
use crate::merge::{MergeInput, MergeSide, plan};

impl Actor {
    /// Creates a branch from any message of any branch.
    pub(crate) async fn create_branch(
        &mut self,
        request: CreateBranchRequest,
    ) -> Result<BranchInfo, EngineError> {
        let name = request.name;
        let text = name.as_str();
        if text.trim().is_empty()
            || text.len() > 64
            || text.chars().any(|c| c.is_control() || c == '/')
        {
            return Err(EngineError::Request(
                braid_protocol::body::RequestError::schema(
                    "name",
                    "a branch name is 1 to 64 characters, without `/` or control characters",
                ),
            ));
        }
        if self.data().branch(&name).is_some() {
            return Err(EngineError::Conflict(format!(
                "branch `{name}` already exists"
            )));
        }
        let from = request
            .from_branch
            .unwrap_or_else(|| self.data().record.active_branch.clone());
        let Some(parent) = self.data().branch(&from) else {
            return Err(EngineError::BranchNotFound(from));
        };
        let position = |at: braid_protocol::MessageId| {
            parent
                .message_ids
                .iter()
                .position(|id| *id == at)
                .ok_or_else(|| {
                    EngineError::NotFound(format!("message {at} is not on branch `{from}`"))
                })
        };
        let ids = match (request.from_message, request.before_message) {
            (Some(_), Some(_)) => {
                return Err(EngineError::Request(
                    braid_protocol::body::RequestError::schema(
                        "before_message",
                        "give either `from_message` (the last message to keep) or `before_message` (the first to leave out), not both",
                    ),
                ));
            }
            (None, None) => parent.message_ids.clone(),
            (Some(at), None) => parent.message_ids[..=position(at)?].to_vec(),
            (None, Some(at)) => parent.message_ids[..position(at)?].to_vec(),
        };
        let mut record = BranchRecord::new(name);
        record.fork_point = ids.last().copied();
        record.message_ids = ids;
        record.parent = Some(from);
        record.system_prompt = request.system_prompt.filter(|p| !p.trim().is_empty());
        record.pipeline = request
            .pipeline
            .map(|processors| serde_json::json!(crate::pipeline::PipelineConfig { processors }));
        let info = self.branch_info(&record);
        let mut changes = ContextChanges::new();
        changes.new_branches.push(record);
        self.commit(changes).await?;
        self.emit_update(None, None, Metadata::new()).await;
        Ok(info)
    }

    /// Makes `name` the active branch. Nothing is written into the conversation: a switch is
    /// a view of the branches, which the branch list and map show, not part of what was said
    /// (a stored line would sit wherever the branch happened to end, and move with forks).
    pub(crate) async fn switch_branch(&mut self, name: BranchName) -> Result<(), EngineError> {
        if self.data().branch(&name).is_none() {
            return Err(EngineError::BranchNotFound(name));
        }
        if self.data().record.active_branch == name {
            return Ok(());
        }
        let mut changes = ContextChanges::new();
        changes.active_branch = Some(name);
        self.commit(changes).await?;
        self.emit_update(None, None, Metadata::new()).await;
        Ok(())
    }

    /// Changes a branch's system-prompt override and pipeline; what the request leaves out
    /// stays, `null` clears it.
    pub(crate) async fn update_branch(
        &mut self,
        name: BranchName,
        request: UpdateBranchRequest,
    ) -> Result<BranchInfo, EngineError> {
        let Some(branch) = self.data().branch(&name) else {
            return Err(EngineError::BranchNotFound(name));
        };
        let system_prompt = match request.system_prompt {
            Some(prompt) => prompt.filter(|p| !p.trim().is_empty()),
            None => branch.system_prompt.clone(),
        };
        let pipeline = match request.pipeline {
            Some(processors) => processors.map(|processors| {
                serde_json::json!(crate::pipeline::PipelineConfig { processors })
            }),
            None => branch.pipeline.clone(),
        };
        let mut changes = ContextChanges::new();
        changes.branch_settings.push(BranchSettings {
            branch: name.clone(),
            system_prompt,
            pipeline,
        });
        self.commit(changes).await?;
        self.emit_update(None, None, Metadata::new()).await;
        let updated = self
            .data()
            .branch(&name)
            .ok_or_else(|| EngineError::BranchNotFound(name.clone()))?;
        Ok(self.branch_info(updated))
    }

    /// Deletes a branch that is not the active one.
    pub(crate) async fn delete_branch(&mut self, name: BranchName) -> Result<(), EngineError> {
        if self.data().branch(&name).is_none() {
            return Err(EngineError::BranchNotFound(name));
        }
        if self.data().record.active_branch == name {
            return Err(EngineError::Conflict(format!(
                "branch `{name}` is active: switch to another branch before deleting it"
            )));
        }
        let mut changes = ContextChanges::new();
        changes.deleted_branches.push(name);
        self.commit(changes).await?;
        self.emit_update(None, None, Metadata::new()).await;
        Ok(())
    }

    /// The plan of merging branch `source` into the request's target (the active branch by
    /// default), and that target; reads only, so it also checks a request while a turn runs.
    pub(crate) fn merge_plan(
        &self,
        source: BranchName,
        request: &MergeRequest,
    ) -> Result<(BranchName, crate::merge::MergePlan), EngineError> {
        let target = request
            .target
            .clone()
            .unwrap_or_else(|| self.data().record.active_branch.clone());
        let Some(source_branch) = self.data().branch(&source) else {
            return Err(EngineError::BranchNotFound(source));
        };
        let Some(target_branch) = self.data().branch(&target) else {
            return Err(EngineError::BranchNotFound(target));
        };
        let tools = self.tools().clone();
        let writes = move |name: &str| {
            tools
                .get(name)
                .is_none_or(|t| !t.spec().permissions.is_read_only())
        };
        let config = &self.data().record.config;
        let plan = plan(&MergeInput {
            pool: &self.data().pool,
            source: MergeSide {
                name: &source_branch.name,
                ids: &source_branch.message_ids,
            },
            target: MergeSide {
                name: &target_branch.name,
                ids: &target_branch.message_ids,
            },
            request,
            writes: &writes,
            mode: config.mode,
            role: config.agent_role,
        })
        .map_err(EngineError::Merge)?;
        Ok((target, plan))
    }

    /// Merges branch `source` into the request's target (the active branch by default): one
    /// change set holding the target's new order, its `branch_merge` notice and, when a
    /// resolution takes the source's mode or role, the new config; then one `context_update`.
    /// A dry run answers the preview and stores nothing; so does a merge held by conflicts
    /// without a resolution or warnings not accepted ([`EngineError::MergeHeld`]).
    pub(crate) async fn merge(
        &mut self,
        source: BranchName,
        request: MergeRequest,
    ) -> Result<MergeOutcome, crate::error::EngineError> {
        // A summary merge moves no message: it needs no plan, and its preview asks the model.
        if let braid_protocol::api::MergeStrategy::Summary { text } = &request.strategy {
            let target = request
                .target
                .clone()
                .unwrap_or_else(|| self.data().record.active_branch.clone());
            let text = text.clone();
            return self
                .merge_summary(source, target, text, request.dry_run)
                .await;
        }
        let (target, plan) = self.merge_plan(source, &request)?;
        if request.dry_run {
            return Ok(plan.outcome);
        }
        let mut outcome = plan.outcome.clone();
        if !outcome.warnings.is_empty() && !request.accept_warnings
            || outcome.unresolved().next().is_some()
        {
            return Err(EngineError::MergeHeld(Box::new(outcome)));
        }
        if target == self.data().record.active_branch
            && matches!(
                self.state(),
                braid_protocol::ContextState::AwaitingToolApproval { .. }
                    | braid_protocol::ContextState::AwaitingUserAnswer { .. }
            )
        {
            return Err(EngineError::Conflict(format!(
                "branch `{target}` waits for the person ({}); answer it before merging into it",
                self.state().kind()
            )));
        }

        let notice = Message::new(
            braid_protocol::Role::User,
            MessageKind::SystemControl(SystemControlMessage::BranchMerge {
                source: outcome.source.clone(),
                strategy: outcome.strategy,
                moved: outcome.moved.len() as u32,
                skipped: outcome.skipped.len() as u32,
                removed: outcome.removed.len() as u32,
                resolutions: outcome.resolutions.clone(),
            }),
        );
        let mut changes = plan.changes(&target, notice.clone());
        // Mode and role belong to the context; a merge changes them only for the branch in use.
        if target == self.data().record.active_branch
            && (plan.mode.is_some() || plan.role.is_some())
        {
            let mut config = self.data().record.config.clone();
            config.mode = plan.mode.unwrap_or(config.mode);
            config.agent_role = plan.role.unwrap_or(config.agent_role);
            changes.config = Some(config);
        }
        self.commit(changes).await?;
        tracing::info!(
            context = %self.context_id(),
            source = %outcome.source,
            target = %outcome.target,
            strategy = ?outcome.strategy,
            moved = outcome.moved.len(),
            removed = outcome.removed.len(),
            conflicts = outcome.conflicts.len(),
            "branches merged"
        );
        self.emit_created(&notice).await;
        outcome.merged = true;
        outcome.notice_id = Some(notice.id);
        Ok(outcome)
    }
}

/// The metadata key of a summary merge's message: the branch it came from and the range it
/// stands for (the branch map draws the link from it).
pub const MERGED_FROM: &str = "merged_from";

impl Actor {
    /// A summary merge (see [`braid_protocol::api::MergeStrategy::Summary`]): the source's
    /// messages since the common ancestor, summarized by the model (or as the person edited
    /// the dry run's summary) with their ledger appended verbatim, stored on the target as one
    /// marked message, then the usual notice.
    async fn merge_summary(
        &mut self,
        source: BranchName,
        target: BranchName,
        text: Option<String>,
        dry_run: bool,
    ) -> Result<braid_protocol::api::MergeOutcome, EngineError> {
        if source == target {
            return Err(EngineError::Merge(crate::error::MergeError::SameBranch(
                source,
            )));
        }
        let ids = |name: &BranchName| {
            self.data()
                .branch(name)
                .map(|b| b.message_ids.clone())
                .ok_or_else(|| EngineError::BranchNotFound(name.clone()))
        };
        let (source_ids, target_ids) = (ids(&source)?, ids(&target)?);
        let shared = source_ids
            .iter()
            .zip(&target_ids)
            .take_while(|(a, b)| a == b)
            .count();
        let batch: Vec<Message> = source_ids[shared..]
            .iter()
            .filter_map(|id| self.data().pool.get(id))
            .filter(|m| m.kind_name().is_sent_to_model() && !m.is_held_input())
            .cloned()
            .collect();
        let (Some(first), Some(last)) = (batch.first(), batch.last()) else {
            return Err(EngineError::Conflict(format!(
                "branch `{source}` has no messages since it left `{target}`: there is nothing to summarize"
            )));
        };
        let (from, to) = (first.id, last.id);
        let ctx = self.frame_context(&target);
        let counter = braid_optimizer::TokenCounter::new(&crate::pipeline::capabilities(&ctx));
        let ledger = braid_optimizer::Ledger::of(&batch, std::iter::empty())
            .render(u32::MAX, &counter)
            .map(|block| block.text)
            .unwrap_or_default();
        let text = match text.map(|t| t.trim().to_owned()) {
            Some(t) if !t.is_empty() => t,
            Some(_) => {
                return Err(EngineError::Invalid(braid_protocol::ValidationErrors(
                    vec![braid_protocol::Problem {
                        path: "strategy.text".to_owned(),
                        message: "a summary must not be empty".to_owned(),
                    }],
                )));
            }
            None => {
                let Some(llm) = self.llm() else {
                    return Err(EngineError::LlmNotConfigured);
                };
                let model = ctx.model.clone();
                let written = self
                    .serve_until(braid_optimizer::summary::summarize(
                        llm.as_ref(),
                        &model,
                        &batch,
                        braid_optimizer::summary::MAX_SUMMARY_TOKENS,
                    ))
                    .await;
                written.map_err(|e| {
                    EngineError::Conflict(format!(
                        "the model could not summarize branch `{source}`: {e}"
                    ))
                })?
            }
        };
        let summary = braid_protocol::api::MergedSummary {
            text,
            ledger,
            from,
            to,
            count: batch.len() as u32,
        };
        let mut outcome = braid_protocol::api::MergeOutcome {
            source: source.clone(),
            target: target.clone(),
            strategy: braid_protocol::api::MergeStrategyName::Summary,
            merged: false,
            common_ancestor: shared.checked_sub(1).map(|i| source_ids[i]),
            moved: Vec::new(),
            removed: Vec::new(),
            skipped: Vec::new(),
            warnings: Vec::new(),
            conflicts: Vec::new(),
            resolutions: Vec::new(),
            notice_id: None,
            summary: Some(summary.clone()),
        };
        if dry_run {
            return Ok(outcome);
        }
        let mut body = format!(
            "[Conclusions of branch `{source}`, merged: a summary of its {} messages since it left this branch]\n{}",
            summary.count, summary.text
        );
        if !summary.ledger.is_empty() {
            body.push_str("\n\n");
            body.push_str(&summary.ledger);
        }
        let mut marked = Message::new(
            braid_protocol::Role::User,
            MessageKind::Text(braid_protocol::TextMessage::plain(body)),
        );
        marked.metadata.insert(
            MERGED_FROM.to_owned(),
            serde_json::json!({
                "branch": source,
                "from": from,
                "to": to,
                "count": summary.count,
            }),
        );
        let notice = Message::new(
            braid_protocol::Role::User,
            MessageKind::SystemControl(SystemControlMessage::BranchMerge {
                source: source.clone(),
                strategy: braid_protocol::api::MergeStrategyName::Summary,
                moved: 1,
                skipped: 0,
                removed: 0,
                resolutions: Vec::new(),
            }),
        );
        let changes = ContextChanges::new()
            .add_message(&target, marked.clone())
            .add_message(&target, notice.clone());
        self.commit(changes).await?;
        tracing::info!(
            context = %self.context_id(),
            source = %source,
            target = %target,
            summarized = summary.count,
            "branch conclusions merged as a summary"
        );
        self.emit_created(&marked).await;
        self.emit_created(&notice).await;
        outcome.merged = true;
        outcome.moved = vec![marked.id];
        outcome.notice_id = Some(notice.id);
        Ok(outcome)
    }
}
