//! Branch merge (DESIGN.md "Branch merge strategies"): the request of
//! `POST /v1/contexts/{id}/branches/{name}/merge`, and the outcome it answers, whether the merge
//! happened, was only previewed (`dry_run`), or was held back by warnings or conflicts (409).

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use crate::ids::{BranchName, MessageId};

/// `POST .../branches/{name}/merge`: merge branch `{name}` (the source) into `target`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct MergeRequest {
    /// The branch to merge into; the active branch when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub target: Option<BranchName>,
    /// How.
    pub strategy: MergeStrategy,
    /// Only preview: answer what the merge would do and change nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub dry_run: bool,
    /// Go ahead although dependencies are missing (the warnings of a cherry-pick).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub accept_warnings: bool,
    /// How to settle each conflict; a merge with conflicts completes only when every one has a
    /// resolution.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<ConflictResolution>>", optional))]
    pub resolutions: Vec<ConflictResolution>,
}

/// Branch merge strategies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MergeStrategy {
    /// Append every source message the target lacks, in order (a message counts as present when
    /// the target has its id, or one after the branch point with the same role, kind and data).
    Append,
    /// Copy only the chosen messages, in the source's order, checking what they depend on.
    CherryPick {
        /// The messages to copy; each must be on the source branch.
        message_ids: Vec<MessageId>,
    },
    /// Replay the source's messages since the common ancestor after the target's own, which all
    /// stay.
    Rebase,
    /// Bring the source's conclusions back as one marked message: its messages since the
    /// common ancestor summarized by the model, with the ledger of their paths and commands
    /// appended verbatim, naming the branch and the range it stands for. A dry run shows the
    /// summary; sending it back as `text` stores the person's edit without asking again.
    Summary {
        /// The summary to store (the dry run's, as the person edited it); absent: the model
        /// writes it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        text: Option<String>,
    },
}

impl MergeStrategy {
    /// The strategy's name, as the `branch_merge` notice records it.
    pub fn name(&self) -> MergeStrategyName {
        match self {
            MergeStrategy::Append => MergeStrategyName::Append,
            MergeStrategy::CherryPick { .. } => MergeStrategyName::CherryPick,
            MergeStrategy::Rebase => MergeStrategyName::Rebase,
            MergeStrategy::Summary { .. } => MergeStrategyName::Summary,
        }
    }
}

/// A strategy by name, without its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum MergeStrategyName {
    /// [`MergeStrategy::Append`].
    Append,
    /// [`MergeStrategy::CherryPick`].
    CherryPick,
    /// [`MergeStrategy::Rebase`].
    Rebase,
    /// [`MergeStrategy::Summary`].
    Summary,
}

/// What a summary merge brings back (or would, in a dry run).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct MergedSummary {
    /// The summary: the model's, or the person's edit.
    pub text: String,
    /// The ledger of the summarized messages (paths, commands, errors), appended verbatim.
    pub ledger: String,
    /// The first message it stands for.
    pub from: MessageId,
    /// The last message it stands for.
    pub to: MessageId,
    /// How many messages it stands for.
    pub count: u32,
}

/// What a person chose for one conflict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ConflictResolution {
    /// The conflict's id, as the preview or the 409 named it.
    pub conflict: String,
    /// The choice.
    pub resolution: Resolution,
}

/// The ways to settle a conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    /// The target's side stands: the source's messages in the conflict stay out of the merge
    /// (with the messages that depend on them).
    KeepTarget,
    /// The source's side stands: its messages are merged and the target's messages in the
    /// conflict leave the target branch (they stay stored and on every other branch).
    TakeSource,
    /// Both sides stay, the source's after the target's.
    KeepBoth,
    /// Neither side: the target's messages in the conflict leave the target branch and the
    /// source's stay out.
    Skip,
}

impl Resolution {
    /// The resolution's name in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::KeepTarget => "keep_target",
            Resolution::TakeSource => "take_source",
            Resolution::KeepBoth => "keep_both",
            Resolution::Skip => "skip",
        }
    }
}

/// What two branches disagree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum ConflictKind {
    /// Both branches wrote the same workspace file after their common ancestor.
    FileWrite,
    /// The branches end in different modes (plan / act).
    Mode,
    /// The branches end in different agent roles (planner / actor).
    Role,
    /// A summary on the source stands for messages the merged target would not have.
    Summary,
    /// The same file was referenced on both sides and read with different contents.
    FileReference,
}

/// A message involved in a conflict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ConflictMessage {
    /// The message.
    pub id: MessageId,
    /// The branch whose side it is on.
    pub branch: BranchName,
    /// When it was written.
    pub created_at: DateTime<Utc>,
}

/// A conflict: the merge will not complete until it has a resolution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct MergeConflict {
    /// Stable for the same branches: a later request names it in `resolutions`.
    pub id: String,
    /// What the branches disagree on.
    pub kind: ConflictKind,
    /// The messages involved, target's side first.
    pub messages: Vec<ConflictMessage>,
    /// What the conflict is, in words.
    pub detail: String,
    /// The resolutions that make sense here, the recommended one first; only these are
    /// accepted for this conflict.
    pub suggestions: Vec<Resolution>,
}

/// What a warning is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// A tool result is picked without the request that asked for it.
    ResultWithoutRequest,
    /// A tool request is picked without its result(s).
    RequestWithoutResult,
    /// An MCP tool result is picked without its request.
    McpResultWithoutRequest,
    /// An MCP tool request is picked without its result.
    McpRequestWithoutResult,
    /// The execution of a plan is picked without the plan.
    ExecutionWithoutPlan,
    /// An answer is picked without its question.
    AnswerWithoutQuestion,
}

/// A dependency a cherry-pick leaves behind. The merge changes nothing while there are warnings,
/// unless `accept_warnings` is set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct MergeWarning {
    /// What is missing.
    pub kind: WarningKind,
    /// The picked message that needs it.
    pub message_id: MessageId,
    /// The messages it depends on that are neither picked nor in the target (ids on the
    /// source; empty when the source does not have them either).
    pub missing: Vec<MessageId>,
    /// In words.
    pub detail: String,
}

/// Why a source message was not merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// The target already has this message.
    AlreadyInTarget,
    /// The target has a message with the same role, kind and data after the branch point.
    SameContent,
    /// A notice about the source branch itself (a branch switch, an earlier merge).
    BranchNotice,
    /// The person's input that waits for, or failed, its pipeline on the source.
    HeldInput,
    /// A resolution left it out.
    Resolution,
}

/// A source message that the merge leaves out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct SkippedMessage {
    /// The message.
    pub id: MessageId,
    /// Why.
    pub reason: SkipReason,
}

/// What a merge did, or would do (`dry_run`), or why it did not (409).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct MergeOutcome {
    /// The branch merged from.
    pub source: BranchName,
    /// The branch merged into.
    pub target: BranchName,
    /// The strategy.
    pub strategy: MergeStrategyName,
    /// Whether the target changed (false for a dry run and for a refusal).
    pub merged: bool,
    /// The last message both branches share, when they share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub common_ancestor: Option<MessageId>,
    /// The source messages added to the target, in their new order.
    pub moved: Vec<MessageId>,
    /// Target messages a resolution takes off the target (still stored).
    pub removed: Vec<MessageId>,
    /// Source messages left out, and why.
    pub skipped: Vec<SkippedMessage>,
    /// Missing dependencies (cherry-pick).
    pub warnings: Vec<MergeWarning>,
    /// Conflicts; those already resolved by the request are listed too, with their resolution.
    pub conflicts: Vec<MergeConflict>,
    /// The resolutions applied.
    pub resolutions: Vec<ConflictResolution>,
    /// The `branch_merge` notice added to the target, when the merge happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub notice_id: Option<MessageId>,
    /// A summary merge's summary: shown by the dry run, stored as one marked message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub summary: Option<MergedSummary>,
}

impl MergeOutcome {
    /// The conflicts the request leaves without a resolution.
    pub fn unresolved(&self) -> impl Iterator<Item = &MergeConflict> {
        self.conflicts
            .iter()
            .filter(|c| !self.resolutions.iter().any(|r| r.conflict == c.id))
    }
}
