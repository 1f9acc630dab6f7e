//! The stored shapes of a context and its branches.

use braid_protocol::{BranchName, ContextConfig, ContextId, ContextState, MessageId};
use chrono::{DateTime, SubsecRound as _, Utc};

/// A context as stored: everything except its messages and branches.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextRecord {
    /// The context's id.
    pub id: ContextId,
    /// Its title (may be empty).
    pub title: String,
    /// Its configuration.
    pub config: ContextConfig,
    /// The branch new messages go to.
    pub active_branch: BranchName,
    /// The last persisted state; after a crash it tells the engine what was interrupted.
    pub state: ContextState,
    /// When it was created (stored to the microsecond).
    pub created_at: DateTime<Utc>,
    /// When it last changed (stored to the microsecond).
    pub updated_at: DateTime<Utc>,
}

impl ContextRecord {
    /// A new idle context created now, on branch `main`. Timestamps are kept to the
    /// microsecond, the precision both databases store.
    pub fn new(title: impl Into<String>, config: ContextConfig) -> Self {
        let now = Utc::now().trunc_subsecs(6);
        Self {
            id: ContextId::new(),
            title: title.into(),
            config,
            active_branch: BranchName::main(),
            state: ContextState::Idle,
            created_at: now,
            updated_at: now,
        }
    }
}

/// A branch as stored: an ordered list of message ids from the context's pool, and settings.
#[derive(Clone, Debug, PartialEq)]
pub struct BranchRecord {
    /// Unique within its context.
    pub name: BranchName,
    /// The branch's messages, in order.
    pub message_ids: Vec<MessageId>,
    /// Replaces the context's base system prompt on this branch.
    pub system_prompt: Option<String>,
    /// This branch's own pipeline configuration (owned by the engine; kept as JSON here).
    pub pipeline: Option<serde_json::Value>,
    /// The branch it was created from.
    pub parent: Option<BranchName>,
    /// The last message it shares with its parent.
    pub fork_point: Option<MessageId>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

impl BranchRecord {
    /// An empty branch created now, with no parent and no overrides.
    pub fn new(name: impl Into<BranchName>) -> Self {
        Self {
            name: name.into(),
            message_ids: Vec::new(),
            system_prompt: None,
            pipeline: None,
            parent: None,
            fork_point: None,
            created_at: Utc::now().trunc_subsecs(6),
        }
    }
}

/// Which messages of a branch to load, in branch order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageRange {
    /// The whole branch.
    All,
    /// Up to `limit` messages following `after` (from the start when `after` is `None`): pages
    /// for `GET .../messages?after=&limit=`.
    After {
        /// The last message the caller already has.
        after: Option<MessageId>,
        /// At most this many.
        limit: u32,
    },
    /// The newest `n` messages, still returned oldest first.
    Newest(u32),
}

/// One request sent to the model, as the store keeps it: the record's JSON with what it is
/// found by (issue 42).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredModelRequest {
    /// The context.
    pub context: braid_protocol::ContextId,
    /// The record's id.
    pub id: uuid::Uuid,
    /// The branch it was made on.
    pub branch: String,
    /// When it was made, in milliseconds since the Unix epoch (the list's order).
    pub created_ms: i64,
    /// The `ModelRequestRecord` as JSON.
    pub record: String,
}

/// One message version's token count (issue 49), kept so that a restarted server reads a long
/// context's counts instead of tokenizing every message again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredTokenCount {
    /// The message counted.
    pub message: braid_protocol::MessageId,
    /// The version counted: the message's `updated_at` in nanoseconds.
    pub version: i64,
    /// Its tokens.
    pub tokens: u32,
}

/// The token counts one counter made of a context's messages: the store keeps them by counter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredTokenCounts {
    /// Which counter: the encoding and how images are sent (`o200k_base/images`).
    pub counter: String,
    /// Its counts.
    pub counts: Vec<StoredTokenCount>,
}
