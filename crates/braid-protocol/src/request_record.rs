//! What the model saw (DESIGN.md names `ModelRequestRecord`, `CompactionRecord`, `Ledger`):
//! a stored description of every request sent to the model, and a record of every time the
//! optimizer dropped, summarized or elided messages to fit the window. Both describe, they do
//! not copy: messages are named by id with their token counts, so a record stays small however
//! long the history is, and the stored messages it names can be read beside it.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use crate::ids::{BranchName, MessageId, ModelRequestId, TurnId};

/// One request sent to the model, as the optimizer built it: `GET
/// /v1/contexts/{id}/requests` lists them; an answer's `metadata.model_request_id` names its
/// own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ModelRequestRecord {
    /// The record's id.
    pub id: ModelRequestId,
    /// The branch the request was made on.
    pub branch: BranchName,
    /// The model turn of the answer the request started (its messages' `turn_id` metadata),
    /// once the request goes out. Not the API's turn (`ContextTurnId`, what a send answers
    /// with and `GET /v1/contexts/{id}/turns/{turn_id}` reads), which may ask the model many
    /// times. Records stored before it was renamed named it `turn_id`.
    #[serde(default, alias = "turn_id", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub answer_turn_id: Option<TurnId>,
    /// When the request was prepared.
    pub created_at: DateTime<Utc>,
    /// The model asked.
    pub model: String,
    /// The encoding the counts were made with (`o200k_base`, `cl100k_base`).
    pub encoding: String,
    /// The window and what it leaves for the prompt.
    pub budget: RequestBudget,
    /// Tokens of the whole request as the provider receives it (system prompt, tools, ledger,
    /// messages): its format joins adjacent user texts (the ledger and the message after it)
    /// and a model turn's messages into one, so this is a little less than the sum of the
    /// parts' counts.
    pub tokens: u32,
    /// The same, scaled by what the model server reported for earlier requests.
    pub calibrated_tokens: u32,
    /// Tokens of the system prompt.
    pub system_prompt_tokens: u32,
    /// The tool definitions offered.
    pub tools: ToolsPart,
    /// The ledger block sent, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub ledger: Option<LedgerPart>,
    /// The messages sent, in order.
    pub messages: Vec<SentMessage>,
    /// Stored messages of the branch left out of this request, oldest first (those a summary
    /// stands in for are listed with the summary, not here).
    pub dropped: Vec<MessageId>,
    /// The compaction this request's preparation recorded, if it compacted anew.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub compaction_id: Option<MessageId>,
}

/// The window a request was fitted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct RequestBudget {
    /// The model's context window (or the context's override).
    pub window: u32,
    /// Tokens kept for the answer.
    pub reserve_output: u32,
    /// Tokens kept against miscounting.
    pub margin: u32,
    /// What the prompt may take: the window less the reserve and the margin.
    pub limit: u32,
}

/// The tool definitions a request offered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ToolsPart {
    /// Their names, in the order offered.
    pub names: Vec<String>,
    /// Tokens of their definitions.
    pub tokens: u32,
}

/// The ledger block a request carried.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct LedgerPart {
    /// Its tokens.
    pub tokens: u32,
    /// Entries listed by name (paths, commands, errors, resources, images, facts).
    pub listed: u32,
    /// Older entries the block's share of the window could only count.
    pub collapsed: u32,
    /// The block as sent.
    pub text: String,
}

/// One message of a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct SentMessage {
    /// The stored message (for a summary: the summary message).
    pub id: MessageId,
    /// How it was sent.
    pub sent_as: SentAs,
    /// Its tokens as sent.
    pub tokens: u32,
}

/// How a stored message went into a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SentAs {
    /// As stored.
    Whole,
    /// Cut down to fit (its text's end left out, with a note saying so).
    Truncated {
        /// Its tokens whole.
        tokens_before: u32,
    },
    /// A tool result whose output was left out to fit, the call and its status kept.
    Elided {
        /// Its tokens whole.
        tokens_before: u32,
    },
    /// A summary, standing in for the messages it replaces.
    Summary {
        /// The messages it stands in for, oldest first.
        replaces: Vec<MessageId>,
    },
}

/// One compaction: the optimizer left messages out of the request (dropped, summarized, or
/// their output elided) that the previous request still held. Stored in the conversation as a
/// `system_control` message, so no message ever leaves a request without a trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct CompactionRecord {
    /// The strategy that chose (`recent_n`, `intelligent`, `importance_scoring`).
    pub strategy: String,
    /// Tokens of the whole request before optimization.
    pub tokens_before: u32,
    /// Tokens of the request as sent.
    pub tokens_after: u32,
    /// What the prompt may take: why it compacted (`tokens_before` was over it).
    pub limit: u32,
    /// How long the optimization took, the summary's model call included.
    pub duration_ms: u64,
    /// Messages newly dropped, oldest first.
    pub dropped: Vec<MessageId>,
    /// Messages newly summarized, oldest first.
    pub summarized: Vec<MessageId>,
    /// The summary written for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub summary_id: Option<MessageId>,
    /// Tool results whose output was newly elided.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<MessageId>>", optional))]
    pub elided: Vec<MessageId>,
    /// Why a summary was not used, when one was tried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub fallback: Option<String>,
    /// The request it was made for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub request_id: Option<ModelRequestId>,
}
