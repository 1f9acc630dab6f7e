//! `mcp_tool_request`, `mcp_tool_result` and `mcp_resource`: calls to tools of MCP servers, kept
//! apart from built-in tools so they are routed by server name (seed 003), and resources injected
//! from MCP servers (seed 000).

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use super::common::{ApprovalStatus, ErrorDetail, check_arguments, check_tool_name};
use crate::ids::ToolCallId;
use crate::validate::{FieldPath, Problems, Validate};

/// The model asked to call a tool of an MCP server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpToolRequestMessage {
    /// The configured name of the server that owns the tool.
    pub server_name: String,
    /// The tool's name on that server.
    pub tool_name: String,
    /// The name the model saw and called (`mcp__<server>__<tool>`), needed to replay the history.
    /// Braid's own field: when absent it is the tool's name (filled in when the message is read).
    #[serde(default)]
    pub called_as: String,
    /// The arguments: a JSON object (`{}` when absent).
    #[serde(default = "super::common::empty_object")]
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub arguments: serde_json::Value,
    /// Correlates the request with its result; the model's call id.
    pub request_id: ToolCallId,
    /// Whether the call may run; tracked apart from built-in tools' approvals.
    #[serde(default)]
    pub approval_status: ApprovalStatus,
    /// When the model asked (the message's creation time when absent).
    #[serde(default)]
    pub requested_at: DateTime<Utc>,
}

/// What an MCP tool call returned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpToolResultMessage {
    /// The server that ran it.
    pub server_name: String,
    /// The tool's name on that server.
    pub tool_name: String,
    /// The request this answers.
    pub request_id: ToolCallId,
    /// `status` and its data.
    #[serde(flatten)]
    pub outcome: McpOutcome,
    /// When it ran (the message's creation time when absent).
    #[serde(default)]
    pub executed_at: DateTime<Utc>,
    /// How long it took.
    #[serde(default)]
    pub duration_ms: u64,
}

/// How an MCP call ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum McpOutcome {
    /// The server returned a result.
    Success {
        /// The result (MCP content blocks and structured content).
        #[cfg_attr(test, ts(type = "unknown"))]
        result: serde_json::Value,
    },
    /// The call failed: a protocol error, a timeout, or a result the server marked as an error.
    Error {
        /// What went wrong, with the MCP error code and data when there were some.
        error: ErrorDetail,
        /// What the server returned along with the error, if anything.
        #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
        #[cfg_attr(test, ts(optional, type = "unknown"))]
        result: serde_json::Value,
    },
}

/// A resource from an MCP server, injected into the conversation as system-provided context.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpResourceMessage {
    /// The server it came from.
    pub server_name: String,
    /// Its URI on that server.
    pub resource_uri: String,
    /// Its human-readable name, when the server gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub name: Option<String>,
    /// The content. A plain string is read as text content (seed 000 lists `content` and
    /// `mime_type` side by side) and written back as `{"type": "text", "text": ...}`.
    #[serde(deserialize_with = "text_or_content")]
    #[schemars(schema_with = "text_or_content_schema")]
    pub content: ResourceContent,
    /// Its MIME type, when the server gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub mime_type: Option<String>,
    /// When it was read from the server (the message's creation time when absent).
    #[serde(default)]
    pub retrieved_at: DateTime<Utc>,
}

/// A resource's content. Binary content is described, not dumped into the conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResourceContent {
    /// Text content.
    Text {
        /// The text.
        text: String,
    },
    /// Binary content, summarized.
    Binary {
        /// Its size.
        size_bytes: u64,
        /// A description for the model (type, size, what it is).
        summary: String,
    },
}

/// Reads a resource's content: the tagged form, or a plain string meaning text.
fn text_or_content<'de, D: serde::Deserializer<'de>>(d: D) -> Result<ResourceContent, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Plain {
        Text(String),
        Content(serde_json::Value),
    }
    match Plain::deserialize(d)? {
        Plain::Text(text) => Ok(ResourceContent::Text { text }),
        Plain::Content(value) => serde_json::from_value(value).map_err(serde::de::Error::custom),
    }
}

/// The schema of what [`text_or_content`] accepts.
fn text_or_content_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let content = generator.subschema_for::<ResourceContent>();
    schemars::json_schema!({ "anyOf": [{ "type": "string" }, content] })
}

impl Validate for McpToolRequestMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        problems.require_text(&self.server_name, &path.field("server_name"));
        check_tool_name(&self.tool_name, &path.field("tool_name"), problems);
        check_tool_name(&self.called_as, &path.field("called_as"), problems);
        problems.require_text(self.request_id.as_str(), &path.field("request_id"));
        check_arguments(&self.arguments, &path.field("arguments"), problems);
    }
}

impl Validate for McpToolResultMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        problems.require_text(&self.server_name, &path.field("server_name"));
        problems.require_text(&self.tool_name, &path.field("tool_name"));
        problems.require_text(self.request_id.as_str(), &path.field("request_id"));
        if let McpOutcome::Error { error, .. } = &self.outcome {
            error.validate_at(&path.field("error"), problems);
        }
    }
}

impl Validate for McpResourceMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        problems.require_text(&self.server_name, &path.field("server_name"));
        problems.require_text(&self.resource_uri, &path.field("resource_uri"));
        if let ResourceContent::Binary { summary, .. } = &self.content {
            problems.require_text(summary, &path.field("content").field("summary"));
        }
    }
}
