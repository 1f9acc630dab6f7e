//! `system_control`: notices about the conversation itself (a mode change, a branch switch, a
//! summary standing in for older messages...). Kept in the history for the person and for audit;
//! never sent to a model as such.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use crate::config::{AgentRole, Mode};
use crate::ids::{BranchName, MessageId};
use crate::merge::{ConflictResolution, MergeStrategyName};
use crate::request_record::CompactionRecord;
use crate::state::LoopStopReason;
use crate::validate::{FieldPath, Problems, Validate};

/// A control notice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SystemControlMessage {
    /// The mode changed; the system prompt follows it from here on.
    ModeChange {
        /// The mode before.
        from: Mode,
        /// The mode after.
        to: Mode,
    },
    /// The agent role changed; the tools follow it from here on.
    RoleChange {
        /// The role before.
        from: AgentRole,
        /// The role after.
        to: AgentRole,
    },
    /// Another branch was merged into this one: what moved, how, and what the person chose for
    /// each conflict.
    BranchMerge {
        /// The branch merged from.
        source: BranchName,
        /// The strategy.
        strategy: MergeStrategyName,
        /// Messages added to this branch.
        moved: u32,
        /// Source messages left out (already here, same content, or by a resolution).
        skipped: u32,
        /// This branch's messages a resolution took off it.
        #[serde(default)]
        removed: u32,
        /// The resolutions, one per conflict.
        #[serde(default)]
        resolutions: Vec<ConflictResolution>,
    },
    /// The active branch changed. No longer written (a switch is not part of the
    /// conversation); kept so that lines stored by earlier versions still read.
    BranchSwitch {
        /// The branch before.
        from: BranchName,
        /// The branch after.
        to: BranchName,
    },
    /// A summary the model wrote of older messages. In requests it stands in for the messages it
    /// replaces; those stay stored and viewable.
    Summary {
        /// The summary.
        text: String,
        /// The ids of the messages it replaces, oldest first.
        replaces: Vec<MessageId>,
        /// Tokens of the replaced messages.
        #[serde(default)]
        tokens_before: u32,
        /// Tokens of the summary.
        #[serde(default)]
        tokens_after: u32,
    },
    /// The tool loop stopped before the model was done; the person may continue it.
    LoopStopped {
        /// Why it stopped.
        reason: LoopStopReason,
        /// Rounds of tool execution completed.
        depth: u32,
        /// Tools executed in the loop.
        tools_executed: u32,
        /// Details for the person.
        detail: String,
    },
    /// The context was found mid-operation after a restart and moved to a safe state.
    Recovered {
        /// The state that was interrupted (its `type`).
        interrupted_state: String,
        /// What was done about it.
        detail: String,
    },
    /// A failure was acknowledged and the conversation went on.
    FailureResolved {
        /// The error that had been recorded.
        error: String,
    },
    /// The optimizer left messages out of the request to fit the window: what, why, and what
    /// it cost (`CompactionRecord`).
    Compaction {
        /// The record.
        record: Box<CompactionRecord>,
    },
    /// A fact the person pinned: while the message is pinned (`metadata.pinned`), every
    /// request carries it in the ledger block, first and never cut.
    PinnedFact {
        /// The fact, as the person wrote it.
        text: String,
    },
}

impl Validate for SystemControlMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        match self {
            Self::ModeChange { from, to } => problems.check(
                from == to,
                &path.field("to"),
                format!("a mode change must change the mode (both are {to})"),
            ),
            Self::RoleChange { from, to } => problems.check(
                from == to,
                &path.field("to"),
                format!("a role change must change the role (both are {to})"),
            ),
            Self::BranchMerge { source, .. } => {
                problems.require_text(source.as_str(), &path.field("source"));
            }
            Self::BranchSwitch { from, to } => {
                problems.require_text(from.as_str(), &path.field("from"));
                problems.require_text(to.as_str(), &path.field("to"));
                problems.check(
                    from == to,
                    &path.field("to"),
                    "a branch switch must change the branch",
                );
            }
            Self::Summary { text, replaces, .. } => {
                problems.require_text(text, &path.field("text"));
                problems.check(
                    replaces.is_empty(),
                    &path.field("replaces"),
                    "a summary must replace at least one message",
                );
            }
            Self::LoopStopped { detail, .. } => {
                problems.require_text(detail, &path.field("detail"));
            }
            Self::Recovered {
                interrupted_state,
                detail,
            } => {
                problems.require_text(interrupted_state, &path.field("interrupted_state"));
                problems.require_text(detail, &path.field("detail"));
            }
            Self::FailureResolved { error } => problems.require_text(error, &path.field("error")),
            Self::Compaction { record } => {
                problems.require_text(&record.strategy, &path.field("record").field("strategy"))
            }
            Self::PinnedFact { text } => problems.require_text(text, &path.field("text")),
        }
    }
}
