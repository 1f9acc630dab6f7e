//! The payloads a message can carry: one struct per kind (DESIGN.md "The message model").

mod common;
mod file_reference;
mod image;
mod mcp;
mod plan;
mod processing;
mod project_structure;
mod system_control;
mod text;
mod tool;
mod workflow;

use std::fmt;
use std::str::FromStr;

pub use common::{ApprovalStatus, ErrorDetail, LineRange, Recoverability};
pub use file_reference::{FileReferenceMessage, FileResolution};
pub use image::{
    ImageMessage, ImageSource, PreparedImage, RecognitionMethod, RecognitionMode, RecognitionResult,
};
pub use mcp::{
    McpOutcome, McpResourceMessage, McpToolRequestMessage, McpToolResultMessage, ResourceContent,
};
pub use plan::{
    PlanMessage, PlanProgress, PlanStep, PlanStepProgress, PlanStepStatus, PlanStepUpdate,
    QuestionAnswer, QuestionMessage, QuestionOption, Severity,
};
pub use processing::{DEFAULT_ACTIVITY, ProcessingMessage, Progress};
pub use project_structure::{
    DependencyEdge, DependencyGraph, DependencyNode, DependencyRelation, DependencyScope,
    DirectoryNode, Ecosystem, FileInfo, ProjectStructureContent, ProjectStructureMessage,
};
pub use system_control::SystemControlMessage;
pub use text::{TextMessage, TextPart};
pub use tool::{ToolCall, ToolOutcome, ToolRequestMessage, ToolResultMessage};
pub use workflow::{WorkflowExecutionMessage, WorkflowStatus};

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
#[cfg(test)]
use ts_rs::TS;

use crate::role::Role;
use crate::validate::{FieldPath, Problems, Validate};

/// A message's payload. In JSON the variant is `kind` and its struct is `data`.
///
/// Kinds over 64 bytes are boxed, so that every message is small: a long history is held, moved
/// and copied as a whole (loaded, pooled, cloned into each request), and a 376-byte image kind
/// made all 10,000 messages of one 560 bytes, the copies and first-touched pages of which were
/// a third of the first read after a restart (issue 49). `a_message_stays_small` guards it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "kind", content = "data", rename_all = "snake_case")]
pub enum MessageKind {
    /// Text a person or the model wrote.
    Text(TextMessage),
    /// An image to be seen or read.
    Image(Box<ImageMessage>),
    /// A file (or some of its lines) a person pointed at.
    FileReference(Box<FileReferenceMessage>),
    /// A snapshot of the workspace's layout.
    ProjectStructure(Box<ProjectStructureMessage>),
    /// The model's calls to built-in tools.
    ToolRequest(ToolRequestMessage),
    /// What a built-in tool returned.
    ToolResult(Box<ToolResultMessage>),
    /// The model's call to an MCP server's tool.
    McpToolRequest(Box<McpToolRequestMessage>),
    /// What an MCP tool returned.
    McpToolResult(Box<McpToolResultMessage>),
    /// A resource injected from an MCP server.
    McpResource(Box<McpResourceMessage>),
    /// A workflow run's progress.
    WorkflowExecution(Box<WorkflowExecutionMessage>),
    /// A notice about the conversation itself; never sent to a model.
    SystemControl(SystemControlMessage),
    /// A visible note of work in progress; never sent to a model.
    Processing(ProcessingMessage),
    /// An execution plan.
    Plan(PlanMessage),
    /// A question with predefined answers.
    Question(Box<QuestionMessage>),
    /// A kind this version does not know. The message's original JSON is kept and written back
    /// unchanged.
    #[serde(skip)]
    #[cfg_attr(test, ts(skip))]
    #[schemars(skip)]
    Unknown(UnknownKind),
}

/// A message of a kind this version of Braid does not know.
#[derive(Clone, Debug)]
pub struct UnknownKind {
    /// The kind's name as found (`hologram`), or the legacy `message_type`.
    pub kind: String,
    /// The whole message exactly as it was read.
    pub raw: Box<RawValue>,
}

impl PartialEq for UnknownKind {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.raw.get() == other.raw.get()
    }
}

/// The name of a kind without its data: for store columns, filters and events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum KindName {
    /// `text`
    Text,
    /// `image`
    Image,
    /// `file_reference`
    FileReference,
    /// `project_structure`
    ProjectStructure,
    /// `tool_request`
    ToolRequest,
    /// `tool_result`
    ToolResult,
    /// `mcp_tool_request`
    McpToolRequest,
    /// `mcp_tool_result`
    McpToolResult,
    /// `mcp_resource`
    McpResource,
    /// `workflow_execution`
    WorkflowExecution,
    /// `system_control`
    SystemControl,
    /// `processing`
    Processing,
    /// `plan`
    Plan,
    /// `question`
    Question,
    /// A kind this version does not know.
    Unknown,
}

impl KindName {
    /// Every kind, `unknown` last.
    pub const ALL: [KindName; 15] = [
        KindName::Text,
        KindName::Image,
        KindName::FileReference,
        KindName::ProjectStructure,
        KindName::ToolRequest,
        KindName::ToolResult,
        KindName::McpToolRequest,
        KindName::McpToolResult,
        KindName::McpResource,
        KindName::WorkflowExecution,
        KindName::SystemControl,
        KindName::Processing,
        KindName::Plan,
        KindName::Question,
        KindName::Unknown,
    ];

    /// The name as it appears in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            KindName::Text => "text",
            KindName::Image => "image",
            KindName::FileReference => "file_reference",
            KindName::ProjectStructure => "project_structure",
            KindName::ToolRequest => "tool_request",
            KindName::ToolResult => "tool_result",
            KindName::McpToolRequest => "mcp_tool_request",
            KindName::McpToolResult => "mcp_tool_result",
            KindName::McpResource => "mcp_resource",
            KindName::WorkflowExecution => "workflow_execution",
            KindName::SystemControl => "system_control",
            KindName::Processing => "processing",
            KindName::Plan => "plan",
            KindName::Question => "question",
            KindName::Unknown => "unknown",
        }
    }

    /// The roles a message of this kind may have. `system` appears only where the in-memory
    /// system prompt uses it.
    pub fn allowed_roles(self) -> &'static [Role] {
        use Role::*;
        match self {
            KindName::Text => &[User, Assistant, System],
            KindName::Image | KindName::FileReference | KindName::McpResource => &[User],
            KindName::ToolRequest
            | KindName::McpToolRequest
            | KindName::Plan
            | KindName::Question => &[Assistant],
            KindName::ToolResult | KindName::McpToolResult => &[Tool],
            KindName::ProjectStructure
            | KindName::WorkflowExecution
            | KindName::SystemControl
            | KindName::Processing => &[User, Assistant],
            KindName::Unknown => &[User, Assistant, Tool, System],
        }
    }

    /// Whether messages of this kind are ever part of what a model is sent.
    pub fn is_sent_to_model(self) -> bool {
        !matches!(
            self,
            KindName::SystemControl | KindName::Processing | KindName::Unknown
        )
    }
}

impl fmt::Display for KindName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A kind name that is not one of Braid's kinds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown message kind `{0}`")]
pub struct UnknownKindName(pub String);

impl FromStr for KindName {
    type Err = UnknownKindName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        KindName::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownKindName(s.to_owned()))
    }
}

impl MessageKind {
    /// The kind's name.
    pub fn name(&self) -> KindName {
        match self {
            MessageKind::Text(_) => KindName::Text,
            MessageKind::Image(_) => KindName::Image,
            MessageKind::FileReference(_) => KindName::FileReference,
            MessageKind::ProjectStructure(_) => KindName::ProjectStructure,
            MessageKind::ToolRequest(_) => KindName::ToolRequest,
            MessageKind::ToolResult(_) => KindName::ToolResult,
            MessageKind::McpToolRequest(_) => KindName::McpToolRequest,
            MessageKind::McpToolResult(_) => KindName::McpToolResult,
            MessageKind::McpResource(_) => KindName::McpResource,
            MessageKind::WorkflowExecution(_) => KindName::WorkflowExecution,
            MessageKind::SystemControl(_) => KindName::SystemControl,
            MessageKind::Processing(_) => KindName::Processing,
            MessageKind::Plan(_) => KindName::Plan,
            MessageKind::Question(_) => KindName::Question,
            MessageKind::Unknown(_) => KindName::Unknown,
        }
    }

    /// The kind's name as written in JSON; for an unknown kind, the name that was found.
    pub fn name_str(&self) -> &str {
        match self {
            MessageKind::Unknown(u) => &u.kind,
            other => other.name().as_str(),
        }
    }

    /// Fills the defaults that depend on the rest of the message, after reading: a timestamp
    /// that was absent (read as the Unix epoch) becomes the message's creation time, and an
    /// `mcp_tool_request` without `called_as` was called by its tool's name.
    pub fn fill_defaults(&mut self, created_at: DateTime<Utc>) {
        let fill = |at: &mut DateTime<Utc>| {
            if *at == DateTime::<Utc>::UNIX_EPOCH {
                *at = created_at;
            }
        };
        match self {
            MessageKind::Image(d) => {
                if let Some(r) = &mut d.recognition {
                    fill(&mut r.recognized_at);
                }
            }
            MessageKind::FileReference(d) => {
                if let FileResolution::Resolved { resolved_at, .. } = &mut d.resolution {
                    fill(resolved_at);
                }
            }
            MessageKind::ProjectStructure(d) => fill(&mut d.generated_at),
            MessageKind::McpToolRequest(d) => {
                if d.called_as.is_empty() {
                    d.called_as = d.tool_name.clone();
                }
                fill(&mut d.requested_at);
            }
            MessageKind::McpToolResult(d) => fill(&mut d.executed_at),
            MessageKind::McpResource(d) => fill(&mut d.retrieved_at),
            MessageKind::WorkflowExecution(d) => {
                fill(&mut d.started_at);
                fill(&mut d.updated_at);
            }
            MessageKind::Question(d) => {
                if let Some(a) = &mut d.answer {
                    fill(&mut a.answered_at);
                }
            }
            MessageKind::Text(_)
            | MessageKind::ToolRequest(_)
            | MessageKind::ToolResult(_)
            | MessageKind::SystemControl(_)
            | MessageKind::Processing(_)
            | MessageKind::Plan(_)
            | MessageKind::Unknown(_) => {}
        }
    }

    /// Serializes the kind's `data` as a map entry.
    pub(crate) fn serialize_data<M: serde::ser::SerializeMap>(
        &self,
        map: &mut M,
    ) -> Result<(), M::Error> {
        match self {
            MessageKind::Text(d) => map.serialize_entry("data", d),
            MessageKind::Image(d) => map.serialize_entry("data", d),
            MessageKind::FileReference(d) => map.serialize_entry("data", d),
            MessageKind::ProjectStructure(d) => map.serialize_entry("data", d),
            MessageKind::ToolRequest(d) => map.serialize_entry("data", d),
            MessageKind::ToolResult(d) => map.serialize_entry("data", d),
            MessageKind::McpToolRequest(d) => map.serialize_entry("data", d),
            MessageKind::McpToolResult(d) => map.serialize_entry("data", d),
            MessageKind::McpResource(d) => map.serialize_entry("data", d),
            MessageKind::WorkflowExecution(d) => map.serialize_entry("data", d),
            MessageKind::SystemControl(d) => map.serialize_entry("data", d),
            MessageKind::Processing(d) => map.serialize_entry("data", d),
            MessageKind::Plan(d) => map.serialize_entry("data", d),
            MessageKind::Question(d) => map.serialize_entry("data", d),
            // An unknown message is written whole from its raw JSON by `Message`.
            MessageKind::Unknown(u) => map.serialize_entry("data", &u.raw),
        }
    }
}

impl Validate for MessageKind {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        match self {
            MessageKind::Text(d) => d.validate_at(path, problems),
            MessageKind::Image(d) => d.validate_at(path, problems),
            MessageKind::FileReference(d) => d.validate_at(path, problems),
            MessageKind::ProjectStructure(d) => d.validate_at(path, problems),
            MessageKind::ToolRequest(d) => d.validate_at(path, problems),
            MessageKind::ToolResult(d) => d.validate_at(path, problems),
            MessageKind::McpToolRequest(d) => d.validate_at(path, problems),
            MessageKind::McpToolResult(d) => d.validate_at(path, problems),
            MessageKind::McpResource(d) => d.validate_at(path, problems),
            MessageKind::WorkflowExecution(d) => d.validate_at(path, problems),
            MessageKind::SystemControl(d) => d.validate_at(path, problems),
            MessageKind::Processing(d) => d.validate_at(path, problems),
            MessageKind::Plan(d) => d.validate_at(path, problems),
            MessageKind::Question(d) => d.validate_at(path, problems),
            // Nothing to check: it was kept as found, and a warning was logged when it was read.
            MessageKind::Unknown(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_round_trip_through_text() {
        for kind in KindName::ALL {
            assert_eq!(kind.as_str().parse::<KindName>().unwrap(), kind);
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::Value::String(kind.as_str().to_owned())
            );
        }
    }

    #[test]
    fn control_and_processing_are_never_sent_to_a_model() {
        assert!(!KindName::SystemControl.is_sent_to_model());
        assert!(!KindName::Processing.is_sent_to_model());
        assert!(KindName::ToolResult.is_sent_to_model());
    }

    #[test]
    fn a_message_stays_small() {
        // A new kind of over 64 bytes, or one that grew, goes in a box (see `MessageKind`).
        assert!(std::mem::size_of::<MessageKind>() <= 72);
        assert!(std::mem::size_of::<crate::Message>() <= 160);
    }
}
