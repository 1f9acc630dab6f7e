//! Request and answer bodies of the HTTP API (DESIGN.md "Events and the HTTP API"), shared by the
//! server, the web UI (through the generated TypeScript) and outside clients.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
#[cfg(test)]
use ts_rs::TS;

use crate::body::{RequestError, parse_value_at};
use crate::config::{ContextConfig, Mode};
use crate::event::{ErrorCode, TurnOutcome};
use crate::ids::{BranchName, ContextId, ContextTurnId, MessageId, ToolCallId};
use crate::kinds::FileInfo;
use crate::message::Message;
use crate::state::{ContextState, StateTransition};
use crate::validate::{FieldPath, Problems, Validate};

pub use crate::merge::*;

/// A context as `GET /v1/contexts/{id}` (and `POST /v1/contexts`) answers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ContextSummary {
    /// The context's id.
    pub id: ContextId,
    /// Its title; written by the model after the first exchange when none was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub title: Option<String>,
    /// Its configuration.
    pub config: ContextConfig,
    /// What it is doing.
    pub state: ContextState,
    /// The branch new messages go to.
    pub active_branch: BranchName,
    /// Every branch's name.
    pub branches: Vec<BranchName>,
    /// Messages in the active branch.
    pub message_count: u64,
    /// The active branch's pinned messages and facts, in order: never dropped or summarized.
    #[serde(default)]
    pub pinned: Vec<MessageId>,
    /// Tokens the active branch's next request would use, and the limit.
    pub token_budget: TokenBudget,
    /// What the context's model can do, and where each figure came from; absent when no model
    /// is configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub capabilities: Option<crate::capabilities::ModelCapabilitiesView>,
    /// The workspace's instructions file the system prompt carries, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub instructions: Option<WorkspaceInstructionsInfo>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

/// The workspace instructions a context's system prompt carries (`AGENTS.md`, `CLAUDE.md` or
/// `.braid/instructions.md` at the workspace root).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct WorkspaceInstructionsInfo {
    /// The file, relative to the workspace root.
    pub path: String,
    /// The file's size in bytes.
    pub file_bytes: u64,
    /// Bytes of it in the system prompt (less than the file when it was cut to the cap).
    pub included_bytes: u64,
    /// Tokens of what is included, counted for the context's model.
    pub tokens: u32,
    /// Whether the file was cut to fit the cap.
    pub truncated: bool,
}

/// Tokens used by a request against the budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct TokenBudget {
    /// Tokens of the system prompt, tools and history as they would be sent.
    pub used: u32,
    /// The context window minus the reserved output and margin.
    pub limit: u32,
}

/// A context as `GET /v1/contexts` lists it: what a list of conversations shows. The list is
/// read without asking each context (a thousand busy contexts would each have to answer), so
/// what needs the context's work (its token budget, its model's capabilities) is only in
/// `GET /v1/contexts/{id}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ContextListEntry {
    /// The context's id.
    pub id: ContextId,
    /// Its title; written by the model after the first exchange when none was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub title: Option<String>,
    /// Its configuration.
    pub config: ContextConfig,
    /// What it is doing.
    pub state: ContextState,
    /// The branch new messages go to.
    pub active_branch: BranchName,
    /// Every branch's name.
    pub branches: Vec<BranchName>,
    /// Messages in the active branch.
    pub message_count: u64,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

/// `GET /v1/contexts`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ContextList {
    /// The contexts, most recently changed first.
    pub contexts: Vec<ContextListEntry>,
    /// Pass as `before` to get the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub next_before: Option<ContextId>,
}

/// `POST /v1/contexts`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct CreateContextRequest {
    /// A title; when absent the model writes one after the first exchange.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub title: Option<String>,
    /// The configuration; every field has a default.
    #[serde(default)]
    pub config: ContextConfig,
}

/// `PATCH /v1/contexts/{id}`: a new title and/or a JSON merge patch of the config (fields given
/// replace the current ones, `null` clears an optional field).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct UpdateContextRequest {
    /// A new title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub title: Option<String>,
    /// Config fields to change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "Partial<ContextConfig>"))]
    pub config: Option<Value>,
}

impl ContextConfig {
    /// Applies a JSON merge patch (RFC 7386) and validates the result. Errors name the field as
    /// `config.<field>`; on error `self` is unchanged.
    pub fn merge_patch(&self, patch: &Value) -> Result<ContextConfig, RequestError> {
        if !patch.is_object() {
            return Err(RequestError::schema("config", "must be a JSON object"));
        }
        let mut current = serde_json::to_value(self)
            .map_err(|e| RequestError::schema("config", e.to_string()))?;
        merge(&mut current, patch);
        let config: ContextConfig = parse_value_at(current, "config")?;
        config.validate().map_err(|errors| {
            RequestError::Invalid(crate::validate::ValidationErrors(
                errors
                    .0
                    .into_iter()
                    .map(|mut p| {
                        p.path = format!("config.{}", p.path);
                        p
                    })
                    .collect(),
            ))
        })?;
        Ok(config)
    }
}

fn merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        (t, p) => *t = p.clone(),
    }
}

/// Which history a message listing shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum MessageView {
    /// Every stored message of the branch.
    #[default]
    Full,
    /// Exactly what the model would be sent, with markers where history was summarized.
    Optimized,
}

/// Where a message listing's page starts when it names no message to page from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum PageFrom {
    /// The oldest messages first; `next_after` pages forward.
    #[default]
    Start,
    /// The newest messages (still listed oldest first); `next_before` pages back. What a
    /// reader opening a long conversation wants first.
    End,
}

/// `GET /v1/contexts/{id}/messages`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct MessageList {
    /// The messages, oldest first.
    pub messages: Vec<Message>,
    /// Pass as `after` to get the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub next_after: Option<MessageId>,
    /// Pass as `before` to get the page of older messages; absent when none are older (and on
    /// pages read with `after`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub next_before: Option<MessageId>,
    /// `view=optimized` only: where the request leaves messages out (dropped to fit the
    /// window, or summarized), each standing before the listed message it precedes. A page
    /// carries the markers that stand before its messages, and the last page also those at
    /// the end; a listing filtered by `kind` carries none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<ViewMarker>>", optional))]
    pub markers: Vec<ViewMarker>,
}

/// What happened to the messages a [`ViewMarker`] stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum ViewMarkerKind {
    /// A stored summary is sent in their place.
    Summarized,
    /// Left out of the request to fit the model's window.
    Dropped,
}

/// A run of consecutive branch messages that the optimized view (what the next request
/// sends) leaves out; the full view lists them all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ViewMarker {
    /// Why they are not sent.
    pub kind: ViewMarkerKind,
    /// How many messages the run holds.
    pub count: u32,
    /// Their tokens as the model would count them.
    pub tokens: u32,
    /// The run's first message (oldest), to find it in the full history.
    pub first: MessageId,
    /// The run's last message.
    pub last: MessageId,
    /// The listed message the marker stands before; absent when it follows the last one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub before: Option<MessageId>,
    /// The summary sent in their place (`summarized` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub summary: Option<MessageId>,
}

/// The 202 answer to a send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct SendMessageResponse {
    /// The new message's id.
    pub message_id: MessageId,
    /// Whether it waits behind a running turn.
    pub queued: bool,
    /// The turn the send runs as: every event of it carries this id, and `turn_completed` ends
    /// it (`GET /v1/contexts/{id}/turns/{turn_id}` answers its status).
    pub turn_id: ContextTurnId,
    /// The event id to stream from (as `Last-Event-ID` or `?after=`) to see every event of the
    /// turn; absent when the send emitted none before answering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub stream_after: Option<u64>,
}

/// The 202 answer to a resume: the turn that continues the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ResumeResponse {
    /// The turn the resume runs as: every event of it carries this id, and `turn_completed`
    /// ends it (`GET /v1/contexts/{id}/turns/{turn_id}` answers its status).
    pub turn_id: ContextTurnId,
    /// The event id to stream from (as `Last-Event-ID` or `?after=`) to see every event of the
    /// turn: the last event before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub stream_after: Option<u64>,
}

/// The 202 answer to approval decisions: the turn that continues the loop once every waiting
/// call is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ApprovalResponse {
    /// The turn the decisions start (as a send's `turn_id`); absent while other calls still
    /// wait for a decision (nothing runs yet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub turn_id: Option<ContextTurnId>,
    /// The event id to stream from to see every event of that turn: the last event before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub stream_after: Option<u64>,
}

/// Where a turn is: `GET /v1/contexts/{id}/turns/{turn_id}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct TurnView {
    /// The turn.
    pub turn_id: ContextTurnId,
    /// Its context.
    pub context_id: ContextId,
    /// The branch it works on.
    pub branch: BranchName,
    /// Waiting, running or over.
    pub status: TurnStatus,
    /// How it ended, once `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub outcome: Option<TurnOutcome>,
    /// What failed, for a `failed` turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub error: Option<String>,
    /// The id the send that started it answered with (absent for a resume or an approval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub message_id: Option<MessageId>,
    /// When it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub completed_at: Option<DateTime<Utc>>,
}

/// Where a turn is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum TurnStatus {
    /// Its send waits behind another turn.
    Queued,
    /// It runs.
    Running,
    /// It ended (`outcome` says how).
    Completed,
}

impl TurnStatus {
    /// The name as it appears in JSON (`running`), as a store keeps it beside the record.
    pub fn as_str(self) -> &'static str {
        match self {
            TurnStatus::Queued => "queued",
            TurnStatus::Running => "running",
            TurnStatus::Completed => "completed",
        }
    }
}

/// `POST /v1/contexts/{id}/approvals`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ApprovalRequest {
    /// One decision per call.
    pub decisions: Vec<ApprovalDecision>,
}

/// A person's decision on one pending call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ApprovalDecision {
    /// The call.
    pub call_id: ToolCallId,
    /// The decision.
    pub decision: Decision,
    /// Why (given to the model when denied).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub reason: Option<String>,
}

/// Approve, deny, or approve this tool for the rest of the session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Run this call.
    Approve,
    /// Do not run it; the model gets an error result saying so.
    Deny,
    /// Run it, and run this tool without asking from now on in this context.
    ApproveForSession,
}

/// `PUT /v1/contexts/{id}/mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct SetModeRequest {
    /// The new mode.
    pub mode: Mode,
}

/// What is wrong with a branch request on its face, whatever the context holds: a name of 1 to
/// 64 characters without `/` or control characters, and at most one of `from_message` and
/// `before_message`. Checked before the context is asked, so a busy context still answers 422.
impl Validate for CreateBranchRequest {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        let name = self.name.as_str();
        problems.check(
            name.trim().is_empty()
                || name.len() > 64
                || name.chars().any(|c| c.is_control() || c == '/'),
            &path.field("name"),
            "a branch name is 1 to 64 characters, without `/` or control characters",
        );
        problems.check(
            self.from_message.is_some() && self.before_message.is_some(),
            &path.field("before_message"),
            "give either `from_message` (the last message to keep) or `before_message` (the first to leave out), not both",
        );
    }
}

/// `POST /v1/contexts/{id}/branches`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct CreateBranchRequest {
    /// The new branch's name.
    pub name: BranchName,
    /// The branch to fork; the active branch when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub from_branch: Option<BranchName>,
    /// The last message to keep from it; all of it when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub from_message: Option<MessageId>,
    /// The first message to leave out: the branch keeps only what comes before it (nothing,
    /// for the branch's first message). This is how an edited message or a regenerated answer
    /// gets its own branch. Not together with `from_message`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub before_message: Option<MessageId>,
    /// A system prompt for this branch only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub system_prompt: Option<String>,
    /// This branch's own message pipeline, in order; the standard one when absent.
    /// `prepare_request` is always run last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub pipeline: Option<Vec<ProcessorName>>,
}

/// `PATCH /v1/contexts/{id}/branches/{name}`: changes a branch's settings after its creation.
/// An absent field stays as it is; `null` clears it (the base prompt, the standard pipeline).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct UpdateBranchRequest {
    /// A system prompt for this branch only; `null` or empty returns to the base prompt.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    #[cfg_attr(test, ts(optional, as = "Option<String>"))]
    pub system_prompt: Option<Option<String>>,
    /// This branch's own pipeline; `null` returns to the standard one.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<Vec<ProcessorName>>")]
    #[cfg_attr(test, ts(optional, as = "Option<Vec<ProcessorName>>"))]
    pub pipeline: Option<Option<Vec<ProcessorName>>>,
}

/// A field that is present (`Some`), possibly as `null` (`Some(None)`); absent fields get the
/// `default` (`None`).
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// The processors of the message pipeline (DESIGN.md "The context"), by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum ProcessorName {
    /// Checks the new messages against the protocol's rules.
    Validate,
    /// Reads referenced files into their messages.
    ResolveFileReferences,
    /// Recognizes images (vision or OCR).
    RecognizeImages,
    /// Builds the system prompt and chooses the tools.
    EnhanceSystemPrompt,
    /// Fits the history to the model's context window.
    OptimizeContext,
    /// Builds the model request.
    PrepareRequest,
}

impl ProcessorName {
    /// The name as the JSON spells it (`"optimize_context"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ProcessorName::Validate => "validate",
            ProcessorName::ResolveFileReferences => "resolve_file_references",
            ProcessorName::RecognizeImages => "recognize_images",
            ProcessorName::EnhanceSystemPrompt => "enhance_system_prompt",
            ProcessorName::OptimizeContext => "optimize_context",
            ProcessorName::PrepareRequest => "prepare_request",
        }
    }
}

/// A branch as the API shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct BranchInfo {
    /// Its name.
    pub name: BranchName,
    /// Messages in it.
    pub message_count: u64,
    /// Its system prompt override.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub system_prompt: Option<String>,
    /// The branch it was forked from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub parent: Option<BranchName>,
    /// The last message it shares with its parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub fork_point: Option<MessageId>,
    /// Its own pipeline, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub pipeline: Option<Vec<ProcessorName>>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// `GET /v1/contexts/{id}/branches`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct BranchList {
    /// The active branch.
    pub active: BranchName,
    /// Every branch.
    pub branches: Vec<BranchInfo>,
}

/// `GET /v1/contexts/{id}/state`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct StateResponse {
    /// The current state.
    pub state: ContextState,
    /// Every transition since the context was loaded, with `?history=true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub history: Option<Vec<StateTransition>>,
}

/// `GET /v1/contexts/{id}/files`: files of the context's workspace, for the file picker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct WorkspaceFileList {
    /// Matching files, sorted by path (relative to the workspace).
    pub files: Vec<FileInfo>,
    /// Whether more files matched than were returned.
    pub truncated: bool,
}

/// `POST /v1/contexts/{id}/files/preview`: a file-changing tool call to preview against the
/// workspace as it is now (the approval card shows what the call would change).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(deny_unknown_fields)]
pub struct FileChangePreviewRequest {
    /// The tool: `write_file`, `create_file`, `replace_in_file` or `delete_file`.
    pub tool: String,
    /// The call's arguments, as the model gave them.
    #[cfg_attr(test, ts(type = "unknown"))]
    pub arguments: Value,
}

/// What a file-changing call would do to the file as it is on disk now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct FileChangePreview {
    /// The file, relative to the workspace.
    pub path: String,
    /// The change, with the texts a diff needs.
    pub change: FileChange,
}

/// The kind of change a file call makes, with the file's text before and after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FileChange {
    /// The file does not exist: the call creates it with `after`.
    Creates {
        /// The new file's content.
        after: String,
    },
    /// The file exists: the call replaces all of its `before_lines` lines with `after`.
    Overwrites {
        /// The file's content now.
        before: String,
        /// Its content after the call.
        after: String,
        /// Lines in the file now.
        before_lines: u32,
    },
    /// The call replaces a text that starts at `at_line` of the file as it is now.
    Replaces {
        /// The file's content now.
        before: String,
        /// Its content after the call.
        after: String,
        /// The line (from 1) where the replaced text starts.
        at_line: u32,
    },
    /// The call deletes the file and its `before_lines` lines.
    Deletes {
        /// The file's content now.
        before: String,
        /// Lines in the file now.
        before_lines: u32,
    },
    /// The change cannot be shown as a diff, or the call would fail: `reason` says why (the file
    /// is too large to preview or not text, the text to replace is missing or not unique,
    /// `create_file` over an existing file).
    Unshowable {
        /// Why, in words for the person.
        reason: String,
    },
}

/// `GET /v1/settings`: the server's settings a client shows (nothing secret).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ServerSettings {
    /// The directories a context's workspace must lie in (canonical paths); set with
    /// `--workspace-root` / `BRAID_WORKSPACE_ROOTS`.
    pub workspace_roots: Vec<String>,
}

/// `GET /v1/models`: the models the model server offers, for the model picker, with what each
/// can do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ModelList {
    /// The model a context that names none uses (`BRAID_MODEL`); absent when none is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub default_model: Option<String>,
    /// The models the server lists (`/v1/models`), in its order, each with its window, vision
    /// and tool calling and where each figure came from.
    pub models: Vec<crate::capabilities::ModelCapabilitiesView>,
    /// Why the server's list could not be read, when it could not: the picker then offers the
    /// default model and a name typed in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub list_error: Option<String>,
}

/// `GET /v1/search`: the messages whose text holds every word of the query, best match first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct MessageSearchResults {
    /// The hits, at most the query's `limit`.
    pub hits: Vec<MessageSearchHit>,
}

/// One message a search found: enough to list it and to open its conversation at it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct MessageSearchHit {
    /// The conversation holding it.
    pub context_id: ContextId,
    /// The conversation's title; absent while it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub title: Option<String>,
    /// The message.
    pub message_id: MessageId,
    /// A branch showing it (the active one when it does); absent when no branch shows it any
    /// more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub branch: Option<BranchName>,
    /// Who wrote it.
    pub role: crate::role::Role,
    /// Its text around the first match (a few dozen words, plain text, no markup).
    pub snippet: String,
    /// When it was written.
    pub created_at: DateTime<Utc>,
}

/// Where a tool comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum ToolSource {
    /// Built into Braid.
    Builtin,
    /// From an MCP server.
    Mcp,
}

/// A tool as `GET /v1/tools` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ToolInfo {
    /// The name the model calls it by.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Built in or MCP.
    pub source: ToolSource,
    /// The MCP server, for MCP tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub server: Option<String>,
    /// Whether it only reads.
    pub read_only: bool,
    /// JSON Schema of its arguments.
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub parameters: Value,
    /// How it is used: an example call of a built-in tool; what an MCP server says of its
    /// tool (its title and annotations), where it says anything.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<ToolExample>>", optional))]
    pub examples: Vec<ToolExample>,
}

/// One example of a tool's use, for the model (listed in a prompted tool list) and people.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ToolExample {
    /// What the call does, or what is known of the tool's use.
    pub summary: String,
    /// The arguments of an example call, checked against the tool's schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"))]
    pub arguments: Option<Value>,
}

/// `GET /v1/tools`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ToolList {
    /// Every registered tool.
    pub tools: Vec<ToolInfo>,
}

/// An MCP server's connection status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum McpServerStatus {
    /// Connecting.
    Starting,
    /// Connected; its tools are registered.
    Ready,
    /// Could not start or died; `error` says why.
    Failed,
    /// Disabled in the configuration.
    Disabled,
    /// It asked for OAuth authorization, which waits for a person to open
    /// `authorization_url` (the UI's "Authorize" button).
    NeedsAuthorization,
}

/// An MCP server as `GET /v1/mcp/servers` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpServerInfo {
    /// Its configured name.
    pub name: String,
    /// Its status.
    pub status: McpServerStatus,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub error: Option<String>,
    /// Its tools' names as the model sees them.
    pub tools: Vec<String>,
    /// Where the person authorizes Braid, while the status is `needs_authorization`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub authorization_url: Option<String>,
    /// Its entry in `mcp_servers.json` as the API edits it, with every `env` and `headers`
    /// value hidden (`null`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub definition: Option<McpServerDefinition>,
}

/// An MCP server's entry in `mcp_servers.json` (Claude Desktop format), as
/// `POST /v1/mcp/servers` and `PUT /v1/mcp/servers/{name}` take it: either `command` (with
/// `args` and `env`) for a process speaking stdio, or `url` (with `headers`) for a streamable
/// HTTP server. Fields of the file's entry this type does not hold (`oauth`, `resourceTtl`...)
/// are kept when an entry is replaced.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "camelCase")]
pub struct McpServerDefinition {
    /// The program of a stdio server (looked up on `PATH` when it has no slash).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub args: Vec<String>,
    /// Environment variables of a stdio server. Answers hide every value (`null`); in a
    /// replacement a `null` value keeps the variable's current value.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    #[cfg_attr(
        test,
        ts(
            as = "Option<std::collections::BTreeMap<String, Option<String>>>",
            optional
        )
    )]
    pub env: std::collections::BTreeMap<String, Option<String>>,
    /// The endpoint of a streamable HTTP server (`http://` or `https://`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub url: Option<String>,
    /// Headers sent to an HTTP server with every request; hidden and kept like `env` values.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    #[cfg_attr(
        test,
        ts(
            as = "Option<std::collections::BTreeMap<String, Option<String>>>",
            optional
        )
    )]
    pub headers: std::collections::BTreeMap<String, Option<String>>,
    /// Listed but not connected to.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub disabled: bool,
    /// Tools (by their name on the server) whose calls need no approval.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub auto_approve: Vec<String>,
    /// How long one tool call may run, in seconds (default 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub timeout: Option<f64>,
}

/// `POST /v1/mcp/servers`: a new server for `mcp_servers.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct AddMcpServerRequest {
    /// Its name: letters, digits, `-` and `_`, at most 40, starting with a letter or digit;
    /// its tools are called `mcp__<name>__<tool>`.
    pub name: String,
    /// How to reach it.
    pub server: McpServerDefinition,
}

/// A prompt (a reusable message template) an MCP server offers; the composer's `/` menu lists
/// them (`GET /v1/mcp/prompts`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpPromptInfo {
    /// The server offering it.
    pub server: String,
    /// Its name on the server.
    pub name: String,
    /// A human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub description: Option<String>,
    /// The arguments it takes.
    pub arguments: Vec<McpPromptArgument>,
}

/// One argument of an MCP prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpPromptArgument {
    /// Its name.
    pub name: String,
    /// What to give.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub description: Option<String>,
    /// Whether it must be given.
    pub required: bool,
}

/// `GET /v1/mcp/prompts`: the prompts of every ready server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpPromptList {
    /// The prompts, by server then name.
    pub prompts: Vec<McpPromptInfo>,
}

/// `POST /v1/mcp/prompts/{server}/{name}`: the prompt's arguments.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct GetMcpPromptRequest {
    /// Argument values by name.
    #[serde(default)]
    pub arguments: std::collections::BTreeMap<String, String>,
}

/// The prompt's messages as the text the person sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpPromptText {
    /// The server's description of the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub description: Option<String>,
    /// Its messages in order: a user message's text as it is, an assistant message's after
    /// `Assistant:`, other content by what it is (an image, a resource's URI and text).
    pub text: String,
}

/// A question an MCP server asks the person in the middle of a tool call (MCP elicitation),
/// waiting for an answer (`GET /v1/mcp/elicitations`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpElicitation {
    /// Names this request in the answer.
    pub id: String,
    /// The MCP server asking.
    pub server: String,
    /// What the server says to the person.
    pub message: String,
    /// A form request: the JSON Schema of its fields (flat: strings, numbers, booleans, enums).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"))]
    pub requested_schema: Option<Value>,
    /// A URL request: the page the person should open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub url: Option<String>,
    /// When the server asked.
    pub asked_at: DateTime<Utc>,
}

/// `GET /v1/mcp/elicitations`: the questions waiting for the person, oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpElicitationList {
    /// The waiting questions.
    pub elicitations: Vec<McpElicitation>,
}

/// What the person does with an MCP server's question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum ElicitationAction {
    /// Answers it (with `content` for a form).
    Accept,
    /// Declines to answer; the server's call goes on without it.
    Decline,
    /// Dismisses it; the server may stop what it was doing.
    Cancel,
}

/// `POST /v1/mcp/elicitations/{id}`: the person's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpElicitationReply {
    /// Accept, decline or cancel.
    pub action: ElicitationAction,
    /// The form's values, by field name, when accepting a form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"))]
    pub content: Option<Value>,
}

/// `GET /v1/mcp/servers`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpServerList {
    /// Every configured server.
    pub servers: Vec<McpServerInfo>,
    /// Whether servers may be added, replaced and removed through the API.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<McpConfigEditing>", optional))]
    pub editing: McpConfigEditing,
}

/// Whether `POST /v1/mcp/servers`, `PUT` and `DELETE /v1/mcp/servers/{name}` may change the
/// MCP configuration file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum McpConfigEditing {
    /// They may: the file is written and reloaded.
    Editable,
    /// The operator made the file read-only for the API (`--mcp-config-readonly`).
    ReadOnly,
    /// Braid runs without a configuration file (`--mcp-config` names one).
    #[default]
    NoFile,
}

/// A resource an MCP server offers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpResourceInfo {
    /// The server.
    pub server_name: String,
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub mime_type: Option<String>,
}

/// `GET /v1/mcp/resources`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpResourceList {
    /// Every resource of every ready server.
    pub resources: Vec<McpResourceInfo>,
}

/// Every API error's body: `{ "error": { "code", "message", "field"? } }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ApiError {
    /// The error.
    pub error: ApiErrorBody,
}

/// The 409 of `POST .../branches/{name}/merge` when the merge waits for the person: the error,
/// and the outcome that lists the conflicts without a resolution and the warnings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct MergeHeld {
    /// Why the merge waits.
    pub error: ApiErrorBody,
    /// What the merge would do, with its `warnings` and `conflicts`.
    #[serde(flatten)]
    #[cfg_attr(test, ts(flatten))]
    pub outcome: MergeOutcome,
}

/// The error inside [`ApiError`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ApiErrorBody {
    /// What kind of error.
    pub code: ErrorCode,
    /// What is wrong, in words.
    pub message: String,
    /// The request field at fault (`payload.path`), when one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub field: Option<String>,
}

impl ApiError {
    /// An error body.
    pub fn new(code: ErrorCode, message: impl Into<String>, field: Option<String>) -> Self {
        Self {
            error: ApiErrorBody {
                code,
                message: message.into(),
                field,
            },
        }
    }
}

impl From<&RequestError> for ApiError {
    fn from(e: &RequestError) -> Self {
        ApiError::new(
            ErrorCode::InvalidInput,
            e.to_string(),
            e.field().map(str::to_owned),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_status_name_is_its_json() {
        for status in [
            TurnStatus::Queued,
            TurnStatus::Running,
            TurnStatus::Completed,
        ] {
            assert_eq!(
                serde_json::to_value(status).ok(),
                Some(serde_json::Value::from(status.as_str()))
            );
        }
    }

    #[test]
    fn a_branch_request_is_checked_on_its_face() {
        let request = |name: &str, from: bool, before: bool| CreateBranchRequest {
            name: BranchName(name.into()),
            from_branch: None,
            from_message: from.then(MessageId::new),
            before_message: before.then(MessageId::new),
            system_prompt: None,
            pipeline: None,
        };
        assert!(request("alt", true, false).validate().is_ok());
        let fields = |r: CreateBranchRequest| -> Vec<String> {
            r.validate()
                .unwrap_err()
                .problems()
                .iter()
                .map(|p| p.path.clone())
                .collect()
        };
        assert_eq!(fields(request("a/b", false, false)), ["name"]);
        assert_eq!(fields(request(" ", false, false)), ["name"]);
        assert_eq!(fields(request(&"x".repeat(65), false, false)), ["name"]);
        assert_eq!(fields(request("alt", true, true)), ["before_message"]);
    }
    use crate::config::ApprovalPolicy;
    use serde_json::json;

    #[test]
    fn processor_names_read_as_their_json() {
        for name in [
            ProcessorName::Validate,
            ProcessorName::ResolveFileReferences,
            ProcessorName::RecognizeImages,
            ProcessorName::EnhanceSystemPrompt,
            ProcessorName::OptimizeContext,
            ProcessorName::PrepareRequest,
        ] {
            assert_eq!(serde_json::to_value(name).unwrap(), json!(name.as_str()));
        }
    }

    #[test]
    fn merge_patch_changes_only_given_fields_and_clears_nulls() {
        let base = ContextConfig {
            workspace: Some("/w".into()),
            model: "m".into(),
            ..ContextConfig::default()
        };
        let patched = base
            .merge_patch(
                &json!({"mode":"plan","workspace":null,"approval_policy":{"type":"auto_all"}}),
            )
            .unwrap();
        assert_eq!(patched.mode, Mode::Plan);
        assert_eq!(patched.workspace, None);
        assert_eq!(patched.model, "m");
        assert_eq!(patched.approval_policy, ApprovalPolicy::AutoAll);
    }

    #[test]
    fn merge_patch_names_the_bad_field() {
        let err = ContextConfig::default()
            .merge_patch(&json!({"mode":"dance"}))
            .unwrap_err();
        assert_eq!(err.field(), Some("config.mode"));
        let err = ContextConfig::default()
            .merge_patch(&json!({"tool_timeout_secs":0}))
            .unwrap_err();
        assert_eq!(err.field(), Some("config.tool_timeout_secs"));
    }
}

/// `POST /v1/contexts/{id}/pins`: a fact to pin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(deny_unknown_fields)]
pub struct PinFactRequest {
    /// The fact, at most 2,000 characters: every request carries it.
    pub text: String,
}

/// `PUT /v1/contexts/{id}/messages/{message_id}/summary`: the person's correction of a summary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(deny_unknown_fields)]
pub struct CorrectSummaryRequest {
    /// The summary's new text; later requests get it instead of the model's.
    pub text: String,
}

/// `GET /v1/contexts/{id}/requests`: what the model was sent, newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ModelRequestList {
    /// The records, newest first.
    pub requests: Vec<crate::request_record::ModelRequestRecord>,
    /// Whether older records remain (ask again with `before` = the last id).
    pub has_more: bool,
}
