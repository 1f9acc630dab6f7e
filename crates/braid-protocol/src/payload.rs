//! `SendMessageRequest`: the structured payload a client sends to add a message (seed 001
//! "Structured Message Payload"). No free-form string parsing: each variant has its fields.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
#[cfg(test)]
use ts_rs::TS;

use crate::body::{RequestError, parse_value_at};
use crate::ids::{MessageId, ToolCallId};
use crate::kinds::{ImageMessage, ImageSource, LineRange, RecognitionMode};
use crate::message::Metadata;
use crate::validate::{FieldPath, Problems, Validate, check_file_path};

/// A request to add a message to a context.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct SendMessageRequest {
    /// What to add.
    pub payload: MessagePayload,
    /// The client's own data, kept with the message and returned unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"))]
    pub client_metadata: Option<Metadata>,
}

/// The payload variants, tagged by `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MessagePayload {
    /// Text, optionally with file references sent in the same turn.
    Text(TextPayload),
    /// One file (or some of its lines).
    FileReference(FileReferencePayload),
    /// An image.
    Image(ImagePayload),
    /// Run a workflow.
    Workflow(WorkflowPayload),
    /// The result of a call the client ran itself.
    ToolResult(ToolResultPayload),
    /// The answer to the agent's question.
    QuestionAnswer(QuestionAnswerPayload),
    /// Inject an MCP server's resource.
    McpResource(McpResourcePayload),
}

/// Text a person wrote.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct TextPayload {
    /// The text (Markdown).
    pub text: String,
    /// Files to send along, each becoming a `file_reference` message before the text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<FileReferencePayload>>", optional))]
    pub file_references: Vec<FileReferencePayload>,
    /// Images to send along, each becoming an `image` message before the text, so the model
    /// gets the images and the question in one request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<ImagePayload>>", optional))]
    pub images: Vec<ImagePayload>,
}

/// A file reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct FileReferencePayload {
    /// Path relative to the workspace, or absolute inside it.
    pub path: String,
    /// Lines wanted (1-indexed, inclusive); the whole file when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub range: Option<LineRange>,
    /// How the UI shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub display_text: Option<String>,
}

/// An image.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ImagePayload {
    /// Where the image is.
    pub source: ImageSource,
    /// How to recognize it; `auto` when absent.
    #[serde(default)]
    pub recognition_mode: RecognitionMode,
    /// Text sent with the image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub caption: Option<String>,
}

/// A workflow to run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct WorkflowPayload {
    /// The workflow's name.
    pub workflow: String,
    /// Its parameters.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[cfg_attr(
        test,
        ts(
            as = "Option<std::collections::HashMap<String, serde_json::Value>>",
            optional
        )
    )]
    pub parameters: Map<String, Value>,
    /// How the UI shows the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub display_text: Option<String>,
}

/// The result of a pending call, supplied by the client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ToolResultPayload {
    /// The call it answers.
    pub call_id: ToolCallId,
    /// The output, on success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "unknown"))]
    pub output: Option<Value>,
    /// What went wrong, on failure (give `output` or `error`, not both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub error: Option<String>,
}

/// An answer to a `question` message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct QuestionAnswerPayload {
    /// The question's message id.
    pub question_id: MessageId,
    /// The chosen option's value.
    pub value: String,
}

/// An MCP resource to inject.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct McpResourcePayload {
    /// The server's configured name.
    pub server_name: String,
    /// The resource's URI.
    pub resource_uri: String,
}

impl MessagePayload {
    /// Every variant's `type`, for error messages and documentation.
    pub const TYPES: [&'static str; 7] = [
        "text",
        "file_reference",
        "image",
        "workflow",
        "tool_result",
        "question_answer",
        "mcp_resource",
    ];

    /// The variant's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            MessagePayload::Text(_) => "text",
            MessagePayload::FileReference(_) => "file_reference",
            MessagePayload::Image(_) => "image",
            MessagePayload::Workflow(_) => "workflow",
            MessagePayload::ToolResult(_) => "tool_result",
            MessagePayload::QuestionAnswer(_) => "question_answer",
            MessagePayload::McpResource(_) => "mcp_resource",
        }
    }
}

impl MessagePayload {
    /// The text a person wrote into it, in bytes (a text's words and its images' captions, an
    /// image's caption, an answer), and the field that holds the most of it: what a server's
    /// limit on the size of a message's text counts.
    pub fn text_bytes(&self) -> (usize, &'static str) {
        let captions = |images: &[ImagePayload]| -> usize {
            images
                .iter()
                .map(|i| i.caption.as_deref().map_or(0, str::len))
                .sum()
        };
        match self {
            MessagePayload::Text(t) => (t.text.len() + captions(&t.images), "payload.text"),
            MessagePayload::Image(i) => (captions(std::slice::from_ref(i)), "payload.caption"),
            MessagePayload::QuestionAnswer(a) => (a.value.len(), "payload.value"),
            MessagePayload::FileReference(_)
            | MessagePayload::Workflow(_)
            | MessagePayload::ToolResult(_)
            | MessagePayload::McpResource(_) => (0, "payload"),
        }
    }
}

impl SendMessageRequest {
    /// Parses and validates a request body. Errors name the field at fault
    /// (`payload.path`, `payload.type`...): [`RequestError::Syntax`] for text that is not JSON,
    /// the others for JSON that breaks the schema or the rules.
    pub fn from_json(body: &str) -> Result<Self, RequestError> {
        let value: Value =
            serde_json::from_str(body).map_err(|e| RequestError::Syntax(e.to_string()))?;
        Self::from_value(value)
    }

    /// Parses and validates an already-decoded body.
    pub fn from_value(value: Value) -> Result<Self, RequestError> {
        let Value::Object(mut object) = value else {
            return Err(RequestError::schema(
                "(root)",
                "the body must be a JSON object",
            ));
        };
        let payload = object
            .remove("payload")
            .ok_or_else(|| RequestError::schema("payload", "missing field `payload`"))?;
        let payload = MessagePayload::from_value(payload)?;
        let client_metadata = match object.remove("client_metadata") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(_) => {
                return Err(RequestError::schema(
                    "client_metadata",
                    "must be a JSON object",
                ));
            }
        };
        if let Some(field) = object.keys().next() {
            return Err(RequestError::schema(
                field.clone(),
                format!(
                    "unknown field `{field}`: a send has `payload` and `client_metadata` (it goes to the active branch; switch branches with `POST .../branches/{{name}}/activate`)"
                ),
            ));
        }
        let request = Self {
            payload,
            client_metadata,
        };
        request.validate().map_err(RequestError::Invalid)?;
        Ok(request)
    }
}

impl MessagePayload {
    fn from_value(value: Value) -> Result<Self, RequestError> {
        let Value::Object(mut object) = value else {
            return Err(RequestError::schema("payload", "must be a JSON object"));
        };
        let type_name = match object.remove("type") {
            Some(Value::String(s)) => s,
            Some(_) => return Err(RequestError::schema("payload.type", "must be a string")),
            None => {
                return Err(RequestError::schema(
                    "payload.type",
                    format!(
                        "missing field `type`, expected one of {}",
                        Self::TYPES.join(", ")
                    ),
                ));
            }
        };
        let body = Value::Object(object);
        let at = "payload";
        Ok(match type_name.as_str() {
            "text" => MessagePayload::Text(parse_value_at(body, at)?),
            "file_reference" => MessagePayload::FileReference(parse_value_at(body, at)?),
            "image" => MessagePayload::Image(parse_value_at(body, at)?),
            "workflow" => MessagePayload::Workflow(parse_value_at(body, at)?),
            "tool_result" => MessagePayload::ToolResult(parse_value_at(body, at)?),
            "question_answer" => MessagePayload::QuestionAnswer(parse_value_at(body, at)?),
            "mcp_resource" => MessagePayload::McpResource(parse_value_at(body, at)?),
            other => {
                return Err(RequestError::schema(
                    "payload.type",
                    format!(
                        "unsupported payload type `{other}`, expected one of {}",
                        Self::TYPES.join(", ")
                    ),
                ));
            }
        })
    }
}

impl Validate for SendMessageRequest {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        self.payload.validate_at(&path.field("payload"), problems);
    }
}

impl Validate for FileReferencePayload {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        check_file_path(&self.path, &path.field("path"), problems);
        if let Some(range) = &self.range {
            range.validate_at(&path.field("range"), problems);
        }
    }
}

impl Validate for ImagePayload {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        ImageMessage::new(self.source.clone(), self.recognition_mode).validate_at(path, problems);
    }
}

impl Validate for MessagePayload {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        match self {
            MessagePayload::Text(t) => {
                problems.check(
                    t.text.trim().is_empty() && t.file_references.is_empty() && t.images.is_empty(),
                    &path.field("text"),
                    "must not be empty",
                );
                for (i, r) in t.file_references.iter().enumerate() {
                    r.validate_at(&path.field("file_references").index(i), problems);
                }
                for (i, image) in t.images.iter().enumerate() {
                    image.validate_at(&path.field("images").index(i), problems);
                }
            }
            MessagePayload::FileReference(r) => r.validate_at(path, problems),
            MessagePayload::Image(i) => i.validate_at(path, problems),
            MessagePayload::Workflow(w) => {
                problems.require_text(&w.workflow, &path.field("workflow"))
            }
            MessagePayload::ToolResult(r) => {
                problems.require_text(r.call_id.as_str(), &path.field("call_id"));
                problems.check(
                    r.output.is_some() && r.error.is_some(),
                    &path.field("error"),
                    "give either output or error, not both",
                );
                if let Some(e) = &r.error {
                    problems.require_text(e, &path.field("error"));
                }
            }
            MessagePayload::QuestionAnswer(a) => {
                problems.require_text(&a.value, &path.field("value"))
            }
            MessagePayload::McpResource(r) => {
                problems.require_text(&r.server_name, &path.field("server_name"));
                problems.require_text(&r.resource_uri, &path.field("resource_uri"));
            }
        }
    }
}
