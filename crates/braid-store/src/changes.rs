//! A change set: everything one step of the engine changed in a context, saved in one
//! transaction.

use braid_protocol::api::TurnView;
use braid_protocol::{BranchName, ContextConfig, ContextState, Message, MessageId};

use crate::record::{BranchRecord, StoredModelRequest};

/// Message ids to put at the end of a branch, or to make a branch's whole order.
#[derive(Clone, Debug, PartialEq)]
pub struct BranchIds {
    /// The branch.
    pub branch: BranchName,
    /// The ids, in order. Each must be in the context's pool (stored before, or new in the same
    /// change set).
    pub message_ids: Vec<MessageId>,
}

/// New settings for an existing branch (both replace what was stored).
#[derive(Clone, Debug, PartialEq)]
pub struct BranchSettings {
    /// The branch.
    pub branch: BranchName,
    /// Replaces the context's base system prompt on this branch; `None` removes the override.
    pub system_prompt: Option<String>,
    /// The branch's own pipeline configuration; `None` uses the context's.
    pub pipeline: Option<serde_json::Value>,
}

/// What changed in one context since it was last saved. Only these rows are written, in one
/// transaction, so a save costs the size of the change, not of the context. Applied in this
/// order: the context's own fields, new messages, updated messages, new branches, branch
/// settings, appends, replacements, deleted branches, model requests, then turn records.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContextChanges {
    /// A new title.
    pub title: Option<String>,
    /// A new configuration.
    pub config: Option<ContextConfig>,
    /// A new active branch (it must exist once the changes are applied).
    pub active_branch: Option<BranchName>,
    /// A new state.
    pub state: Option<ContextState>,
    /// Messages added to the pool.
    pub new_messages: Vec<Message>,
    /// Messages already stored whose status, content or metadata changed (whole replacement).
    pub updated_messages: Vec<Message>,
    /// Branches created, with their initial ids (a fork copies its parent's prefix).
    pub new_branches: Vec<BranchRecord>,
    /// New system prompt overrides and pipeline configurations.
    pub branch_settings: Vec<BranchSettings>,
    /// Ids added at the end of branches.
    pub appends: Vec<BranchIds>,
    /// Branches whose whole order is replaced (merges, rebases).
    pub replacements: Vec<BranchIds>,
    /// Branches removed (their messages stay in the pool).
    pub deleted_branches: Vec<BranchName>,
    /// Records of requests sent to the model (each new: a request is recorded once).
    pub model_requests: Vec<StoredModelRequest>,
    /// Turn records, each replacing an earlier record of the same turn: a turn's start and end
    /// ride with the change sets the turn commits anyway, instead of a transaction each.
    pub turns: Vec<TurnView>,
}

impl ContextChanges {
    /// No changes yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `message` to the pool and to the end of `branch`.
    pub fn add_message(mut self, branch: &BranchName, message: Message) -> Self {
        self.push_message(branch, message);
        self
    }

    /// Adds `message` to the pool and to the end of `branch`, in place.
    pub fn push_message(&mut self, branch: &BranchName, message: Message) {
        let id = message.id;
        self.new_messages.push(message);
        match self.appends.iter_mut().find(|a| &a.branch == branch) {
            Some(append) => append.message_ids.push(id),
            None => self.appends.push(BranchIds {
                branch: branch.clone(),
                message_ids: vec![id],
            }),
        }
    }

    /// Replaces a stored message (a status change, the final content of a stream).
    pub fn update_message(mut self, message: Message) -> Self {
        self.updated_messages.push(message);
        self
    }

    /// A set of records only: where `turn` is, or how it ended, replacing an earlier record of
    /// the same turn. It leaves the context's row alone (see [`ContextChanges::records_only`]).
    pub fn turn_record(turn: TurnView) -> Self {
        Self {
            turns: vec![turn],
            ..Self::default()
        }
    }

    /// Records a new state.
    pub fn with_state(mut self, state: ContextState) -> Self {
        self.state = Some(state);
        self
    }

    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// Whether the set only keeps records (of turns and model requests) and changes nothing of
    /// the context itself: such a set leaves the context's row alone, so a turn's end does not
    /// move the context's `updated_at`, which orders the list of contexts.
    pub(crate) fn records_only(&self) -> bool {
        let Self {
            title,
            config,
            active_branch,
            state,
            new_messages,
            updated_messages,
            new_branches,
            branch_settings,
            appends,
            replacements,
            deleted_branches,
            model_requests,
            turns,
        } = self;
        let changes_context = title.is_some()
            || config.is_some()
            || active_branch.is_some()
            || state.is_some()
            || !new_messages.is_empty()
            || !updated_messages.is_empty()
            || !new_branches.is_empty()
            || !branch_settings.is_empty()
            || !appends.is_empty()
            || !replacements.is_empty()
            || !deleted_branches.is_empty();
        !changes_context && (!model_requests.is_empty() || !turns.is_empty())
    }

    /// Every message the change set writes.
    pub(crate) fn written_messages(&self) -> impl Iterator<Item = &Message> {
        self.new_messages.iter().chain(&self.updated_messages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_messages_of_one_branch_share_one_append() {
        let main = BranchName::main();
        let a = Message::user_text("a");
        let b = Message::assistant_text("b");
        let changes = ContextChanges::new()
            .add_message(&main, a.clone())
            .add_message(&main, b.clone());
        assert_eq!(changes.appends.len(), 1);
        assert_eq!(changes.appends[0].message_ids, vec![a.id, b.id]);
        assert_eq!(changes.new_messages.len(), 2);
        assert!(!changes.is_empty());
        assert!(ContextChanges::new().is_empty());
    }
}
