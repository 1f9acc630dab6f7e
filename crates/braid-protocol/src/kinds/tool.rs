//! `tool_request` and `tool_result`: calls to built-in tools and what they returned.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use super::common::{ApprovalStatus, ErrorDetail, check_arguments, check_tool_name};
use crate::ids::ToolCallId;
use crate::validate::{FieldPath, Problems, Validate};

/// The model asked to call one or more built-in tools in one answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ToolRequestMessage {
    /// The calls, in the order the model made them.
    pub calls: Vec<ToolCall>,
}

/// One call to a tool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ToolCall {
    /// The id the model gave the call; its result echoes it.
    pub id: ToolCallId,
    /// The tool's name.
    pub name: String,
    /// The arguments: a JSON object. Arguments that were not valid JSON are kept as the string
    /// the model sent, and fail validation. `{}` when absent.
    #[serde(default = "super::common::empty_object")]
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub arguments: serde_json::Value,
    /// Whether the call may run.
    #[serde(default)]
    pub approval_status: ApprovalStatus,
}

impl ToolCall {
    /// A pending call.
    pub fn new(
        id: impl Into<ToolCallId>,
        name: impl Into<String>,
        arguments: serde_json::Value,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments,
            approval_status: ApprovalStatus::Pending,
        }
    }
}

/// What one tool call returned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ToolResultMessage {
    /// The id of the call this answers.
    pub call_id: ToolCallId,
    /// The tool that ran (empty when unknown, e.g. migrated from a format that did not say).
    #[serde(default)]
    pub tool_name: String,
    /// `status` and its data: `output` on success, `error` on failure.
    #[serde(flatten)]
    pub outcome: ToolOutcome,
    /// How long it ran.
    #[serde(default)]
    pub duration_ms: u64,
    /// When it started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub started_at: Option<DateTime<Utc>>,
    /// When it finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub completed_at: Option<DateTime<Utc>>,
}

/// How a tool call ended. In JSON: `"status": "success", "output": ...` or
/// `"status": "error", "error": {...}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ToolOutcome {
    /// It ran and produced output.
    Success {
        /// The tool's output, as structured JSON.
        #[cfg_attr(test, ts(type = "unknown"))]
        output: serde_json::Value,
    },
    /// It failed, was denied, timed out or was never run.
    Error {
        /// What went wrong, for the model and the person.
        error: ErrorDetail,
    },
}

impl ToolOutcome {
    /// Whether the call succeeded.
    pub fn is_success(&self) -> bool {
        matches!(self, Self::Success { .. })
    }
}

impl Validate for ToolRequestMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        let calls = path.field("calls");
        problems.check(self.calls.is_empty(), &calls, "must have at least one call");
        let mut seen = HashSet::new();
        for (i, call) in self.calls.iter().enumerate() {
            let at = calls.index(i);
            if call.id.as_str().trim().is_empty() {
                problems.push(&at.field("id"), "must not be empty");
            } else if !seen.insert(call.id.as_str()) {
                problems.push(&at.field("id"), format!("duplicate call id `{}`", call.id));
            }
            check_tool_name(&call.name, &at.field("name"), problems);
            check_arguments(&call.arguments, &at.field("arguments"), problems);
        }
    }
}

impl Validate for ToolResultMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        problems.require_text(self.call_id.as_str(), &path.field("call_id"));
        if let ToolOutcome::Error { error } = &self.outcome {
            error.validate_at(&path.field("error"), problems);
        }
        if let (Some(start), Some(end)) = (self.started_at, self.completed_at) {
            problems.check(
                end < start,
                &path.field("completed_at"),
                "must not be before started_at",
            );
        }
    }
}
