//! A context's data as its actor holds it: the stored record, its branches and its message pool.
//! It changes only by applying a change set that the store has already saved, so memory and
//! store never disagree.

use std::collections::HashMap;

use braid_protocol::api::ContextListEntry;
use braid_protocol::{BranchName, ContextId, ContextState, Message, MessageId};
use braid_store::{BranchRecord, ContextChanges, ContextRecord, Store};

use crate::error::EngineError;

/// One context's record, branches and messages.
#[derive(Debug)]
pub(crate) struct ContextData {
    pub record: ContextRecord,
    /// In creation order.
    pub branches: Vec<BranchRecord>,
    pub pool: HashMap<MessageId, Message>,
    /// Counts the applied change sets that touched messages, branches, the configuration or the
    /// active branch: what a request is built from. Plans cached for one revision (the summary's
    /// token budget, the optimized view) are good exactly while it stays.
    pub revision: u64,
}

impl ContextData {
    /// Loads a context whole from the store.
    pub async fn load(store: &dyn Store, id: ContextId) -> Result<Self, EngineError> {
        let record = store
            .get_context(id)
            .await?
            .ok_or(EngineError::ContextNotFound(id))?;
        let branches = store.list_branches(id).await?;
        let pool = store
            .all_messages(id)
            .await?
            .into_iter()
            .map(|m| (m.id, m))
            .collect();
        Ok(Self {
            record,
            branches,
            pool,
            revision: 0,
        })
    }

    pub fn id(&self) -> ContextId {
        self.record.id
    }

    pub fn branch(&self, name: &BranchName) -> Option<&BranchRecord> {
        self.branches.iter().find(|b| &b.name == name)
    }

    /// The active branch. The store guarantees it exists; an empty one stands in otherwise.
    pub fn active(&self) -> BranchRecord {
        self.branch(&self.record.active_branch)
            .cloned()
            .unwrap_or_else(|| BranchRecord::new(self.record.active_branch.clone()))
    }

    /// The messages of a branch, in order.
    pub fn branch_messages(&self, name: &BranchName) -> Vec<&Message> {
        self.branch(name)
            .map(|b| {
                b.message_ids
                    .iter()
                    .filter_map(|id| self.pool.get(id))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// What a model request on `name` is built from: the branch's messages without the
    /// person's input that waits for, or failed, its pipeline.
    pub fn model_history(&self, name: &BranchName) -> Vec<Message> {
        let branch = self.branch_messages(name);
        // Sized once: grown a doubling at a time, a 10,000-message history was copied about
        // twice more, into pages the process touched for the first time (issue 49).
        let mut history = Vec::with_capacity(branch.len());
        history.extend(branch.into_iter().filter(|m| !m.is_held_input()).cloned());
        history
    }

    /// The active branch's messages, in order.
    pub fn active_messages(&self) -> Vec<&Message> {
        self.branch_messages(&self.record.active_branch)
    }

    /// What `GET /v1/contexts` shows of the context, in `state`.
    pub fn listing(&self, state: ContextState) -> ContextListEntry {
        let record = &self.record;
        ContextListEntry {
            id: record.id,
            title: (!record.title.is_empty()).then(|| record.title.clone()),
            config: record.config.clone(),
            state,
            active_branch: record.active_branch.clone(),
            branches: self.branches.iter().map(|b| b.name.clone()).collect(),
            // The store keeps every id of a branch in the pool; the length is O(1) on every
            // commit, where the listing is refreshed.
            message_count: self
                .branch(&record.active_branch)
                .map_or(0, |b| b.message_ids.len() as u64),
            created_at: record.created_at,
            updated_at: record.updated_at,
        }
    }

    /// Mirrors a saved change set in memory, in the order the store applies it.
    pub fn apply(&mut self, changes: &ContextChanges) {
        if shapes_requests(changes) {
            self.revision += 1;
        }
        for m in changes.new_messages.iter().chain(&changes.updated_messages) {
            self.pool.insert(m.id, m.clone());
        }
        for b in &changes.new_branches {
            self.branches.push(b.clone());
        }
        for s in &changes.branch_settings {
            if let Some(b) = self.branches.iter_mut().find(|b| b.name == s.branch) {
                b.system_prompt = s.system_prompt.clone();
                b.pipeline = s.pipeline.clone();
            }
        }
        for a in &changes.appends {
            if let Some(b) = self.branches.iter_mut().find(|b| b.name == a.branch) {
                b.message_ids.extend(a.message_ids.iter().copied());
            }
        }
        for r in &changes.replacements {
            if let Some(b) = self.branches.iter_mut().find(|b| b.name == r.branch) {
                b.message_ids = r.message_ids.clone();
            }
        }
        self.branches
            .retain(|b| !changes.deleted_branches.contains(&b.name));
        if let Some(title) = &changes.title {
            self.record.title = title.clone();
        }
        if let Some(config) = &changes.config {
            self.record.config = config.clone();
        }
        if let Some(active) = &changes.active_branch {
            self.record.active_branch = active.clone();
        }
        if let Some(state) = &changes.state {
            self.record.state = state.clone();
        }
        self.record.updated_at = chrono::Utc::now();
    }
}

/// Whether a change set changes what a request of some branch is built from (a new state or
/// title does not).
fn shapes_requests(changes: &ContextChanges) -> bool {
    changes.config.is_some()
        || changes.active_branch.is_some()
        || !changes.new_messages.is_empty()
        || !changes.updated_messages.is_empty()
        || !changes.new_branches.is_empty()
        || !changes.branch_settings.is_empty()
        || !changes.appends.is_empty()
        || !changes.replacements.is_empty()
        || !changes.deleted_branches.is_empty()
}
