//! Small types shared by several kinds.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use crate::validate::{FieldPath, Problems, Validate};

/// Details of a failure, in a form both a person and a model can read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ErrorDetail {
    /// What went wrong.
    pub message: String,
    /// A machine-readable code (`timeout`, `permission_denied`, an MCP error code...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub code: Option<String>,
    /// A trace of where it failed, when one is available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub stack_trace: Option<String>,
    /// Whether trying again (or continuing) can succeed.
    #[serde(default)]
    pub recoverable: bool,
    /// Structured details from the source (e.g. an MCP error's `data`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "unknown"))]
    pub details: Option<serde_json::Value>,
}

impl ErrorDetail {
    /// An error with just a message.
    pub fn new(message: impl Into<String>, recoverability: Recoverability) -> Self {
        Self {
            message: message.into(),
            code: None,
            stack_trace: None,
            recoverable: recoverability == Recoverability::Recoverable,
            details: None,
        }
    }

    /// The same error with a code.
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }
}

/// Whether a failure can be recovered from; used where a bare `bool` would be unclear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recoverability {
    /// Trying again or continuing can succeed.
    Recoverable,
    /// It cannot.
    Fatal,
}

impl Validate for ErrorDetail {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        problems.require_text(&self.message, &path.field("message"));
    }
}

/// Where a tool call stands with respect to a person's (or the policy's) approval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum ApprovalStatus {
    /// Waiting for a decision.
    #[default]
    Pending,
    /// Allowed to run (by a person, the policy, or an approval for this session).
    Approved,
    /// Refused; the model receives an error result saying so.
    Denied,
}

/// A 1-indexed, inclusive range of lines in a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct LineRange {
    /// First line, counting from 1.
    pub start_line: u32,
    /// Last line, inclusive; at least `start_line`.
    pub end_line: u32,
}

impl Validate for LineRange {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        problems.check(
            self.start_line == 0,
            &path.field("start_line"),
            "lines are numbered from 1",
        );
        problems.check(
            self.end_line < self.start_line,
            &path.field("end_line"),
            format!(
                "must be at least start_line ({}), got {}",
                self.start_line, self.end_line
            ),
        );
    }
}

/// An empty JSON object: the arguments of a call that gave none.
pub(crate) fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

/// Checks that a tool's arguments are a JSON object, as every provider and MCP require.
pub(crate) fn check_arguments(
    value: &serde_json::Value,
    path: &FieldPath,
    problems: &mut Problems,
) {
    if !value.is_object() {
        let found = match value {
            serde_json::Value::Null => "null",
            serde_json::Value::Bool(_) => "a boolean",
            serde_json::Value::Number(_) => "a number",
            serde_json::Value::String(_) => "a string (arguments that did not parse as JSON?)",
            serde_json::Value::Array(_) => "an array",
            serde_json::Value::Object(_) => "an object",
        };
        problems.push(path, format!("must be a JSON object, found {found}"));
    }
}

/// Checks a tool name: present, at most 128 bytes, no whitespace or control characters.
pub(crate) fn check_tool_name(name: &str, path: &FieldPath, problems: &mut Problems) {
    if name.is_empty() {
        problems.push(path, "must not be empty");
    } else if name.len() > 128 {
        problems.push(
            path,
            format!("must be at most 128 bytes, got {}", name.len()),
        );
    } else if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        problems.push(path, "must not contain whitespace or control characters");
    }
}
