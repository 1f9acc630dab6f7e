//! The message envelope: one typed payload plus who wrote it, where it stands and when.

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
#[cfg(test)]
use ts_rs::TS;

use crate::ids::{MessageId, ToolCallId, TurnId};
use crate::kinds::{ErrorDetail, KindName, MessageKind, TextMessage};
use crate::migrate;
use crate::role::Role;
use crate::validate::{FieldPath, Problems, Validate, ValidationErrors};

/// The schema version every message is written in.
pub const CURRENT_SCHEMA_VERSION: u32 = 2;

/// Internal notes about a message, never sent to a model (`turn_id`, timings, recovery notes).
pub type Metadata = serde_json::Map<String, serde_json::Value>;

/// The metadata key that marks a pinned message ([`Message::is_pinned`]).
pub const PINNED: &str = "pinned";

/// One message of a conversation.
///
/// JSON (always written in [`CURRENT_SCHEMA_VERSION`]):
/// `{ schema_version, id, role, kind, data, status, created_at, updated_at, metadata }`.
/// Reading accepts older versions and migrates them (see [`crate::migrate`]); a message of a
/// kind this version does not know is kept byte-for-byte and written back unchanged.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(test, derive(TS))]
#[cfg_attr(test, ts(as = "MessageSchema"))]
pub struct Message {
    /// Unique, sortable by creation.
    pub id: MessageId,
    /// Who wrote it.
    pub role: Role,
    /// The typed payload.
    pub kind: MessageKind,
    /// Where it stands in its lifecycle.
    pub status: MessageStatus,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
    /// Internal notes, never sent to a model.
    pub metadata: Metadata,
    /// Why processing failed, for a `failed` message (the person's input whose pipeline
    /// failed); absent otherwise. Boxed: it is rare, and 112 bytes in every message otherwise.
    pub error: Option<Box<ErrorDetail>>,
}

/// Leaves a generated `default` out of a schema: a fresh id each time would make the schema (and
/// the OpenAPI document made from it) differ on every generation.
fn no_default(schema: &mut schemars::Schema) {
    schema.remove("default");
}

/// The JSON shape of [`Message`], for the JSON Schema and the TypeScript types.
#[derive(Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename = "Message")]
#[cfg_attr(test, ts(rename = "Message"))]
pub struct MessageSchema {
    /// The version this message is written in; always the current one when Braid writes. Absent
    /// (with `kind`) means the current one.
    #[serde(default)]
    pub schema_version: u32,
    /// Unique, sortable by creation (UUIDv7); a new one when absent.
    #[serde(default)]
    #[schemars(transform = no_default)]
    pub id: MessageId,
    /// Who wrote it.
    pub role: Role,
    /// `kind` and `data`.
    #[serde(flatten)]
    pub kind: MessageKind,
    /// Where it stands in its lifecycle (`complete` when absent).
    #[serde(default)]
    pub status: MessageStatus,
    /// When it was created (when it was read, when absent).
    #[serde(default)]
    pub created_at: DateTime<Utc>,
    /// When it last changed (`created_at` when absent).
    #[serde(default)]
    pub updated_at: DateTime<Utc>,
    /// Internal notes, never sent to a model.
    #[serde(default)]
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub metadata: Metadata,
    /// Why processing failed, for a `failed` message; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub error: Option<ErrorDetail>,
}

/// Where a message stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum MessageStatus {
    /// Created, not yet processed.
    Pending,
    /// Going through the pipeline (files being read, images recognized...).
    Processing,
    /// Being streamed from the model.
    Streaming,
    /// Done.
    #[default]
    Complete,
    /// Processing failed.
    Failed,
    /// Cut short (a stream interrupted, a crash mid-stream); what arrived is kept.
    Incomplete,
}

impl MessageStatus {
    /// The status as it appears in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageStatus::Pending => "pending",
            MessageStatus::Processing => "processing",
            MessageStatus::Streaming => "streaming",
            MessageStatus::Complete => "complete",
            MessageStatus::Failed => "failed",
            MessageStatus::Incomplete => "incomplete",
        }
    }
}

impl Message {
    /// A complete message created now.
    pub fn new(role: Role, kind: MessageKind) -> Self {
        let now = Utc::now();
        Self {
            id: MessageId::new(),
            role,
            kind,
            status: MessageStatus::Complete,
            created_at: now,
            updated_at: now,
            metadata: Metadata::new(),
            error: None,
        }
    }

    /// A complete user text message.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::new(Role::User, MessageKind::Text(TextMessage::plain(text)))
    }

    /// A complete assistant text message.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        Self::new(Role::Assistant, MessageKind::Text(TextMessage::plain(text)))
    }

    /// The same message with another status.
    pub fn with_status(mut self, status: MessageStatus) -> Self {
        self.status = status;
        self
    }

    /// Whether this is the person's input (or a client's tool result) that has not been through
    /// the pipeline yet (`pending`) or whose pipeline failed (`failed`). Such input is stored so
    /// nothing typed is lost, but it is never sent to a model until it is processed.
    pub fn is_held_input(&self) -> bool {
        self.role != Role::Assistant
            && matches!(self.status, MessageStatus::Pending | MessageStatus::Failed)
    }

    /// The kind's name.
    pub fn kind_name(&self) -> KindName {
        self.kind.name()
    }

    /// Whether the person pinned this message (`metadata.pinned`): a pinned message is never
    /// dropped or summarized to fit the window, and a pinned fact rides in every request.
    pub fn is_pinned(&self) -> bool {
        self.metadata
            .get(PINNED)
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false)
    }

    /// Pins or unpins the message.
    pub fn set_pinned(&mut self, pinned: bool) {
        if pinned {
            self.metadata
                .insert(PINNED.to_owned(), serde_json::Value::Bool(true));
        } else {
            self.metadata.remove(PINNED);
        }
    }

    /// The model turn this message belongs to, if any (`metadata.turn_id`).
    pub fn turn_id(&self) -> Option<TurnId> {
        self.metadata
            .get("turn_id")
            .and_then(|v| v.as_str())
            .and_then(|s| s.parse().ok())
    }

    /// Records the model turn this message belongs to.
    pub fn set_turn_id(&mut self, turn: TurnId) {
        self.metadata.insert(
            "turn_id".to_owned(),
            serde_json::Value::String(turn.to_string()),
        );
    }

    /// The tool call this message answers, for `tool` messages (seed 004).
    pub fn tool_call_id(&self) -> Option<&ToolCallId> {
        match &self.kind {
            MessageKind::ToolResult(r) => Some(&r.call_id),
            MessageKind::McpToolResult(r) => Some(&r.request_id),
            _ => None,
        }
    }

    /// Reads one message from JSON in any supported version. A legacy message that becomes
    /// several messages in the current version (text and tool calls together) is an error here;
    /// read it with [`migrate::read_messages`].
    pub fn from_json(json: &str) -> Result<Self, migrate::ReadError> {
        migrate::read_message(json)
    }

    /// The message as JSON text in the current version (unknown kinds: as they were read).
    pub fn to_json(&self) -> String {
        // Serializing a `Message` cannot fail: every map key is a string and no value is a
        // non-finite float that serde_json would refuse.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Checks the message as it would be stored: [`Validate::validate`] plus the storage rules
    /// of seed 004 (no `system` role).
    pub fn validate_for_storage(&self) -> Result<(), ValidationErrors> {
        let mut problems = Problems::default();
        self.validate_at(&FieldPath::root(), &mut problems);
        problems.check(
            !self.role.is_storable(),
            &FieldPath::root().field("role"),
            "the system role is not stored: the system prompt is built for each request",
        );
        problems.into_result()
    }
}

impl Validate for Message {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        let kind = self.kind.name();
        if !kind.allowed_roles().contains(&self.role) {
            let allowed: Vec<&str> = kind.allowed_roles().iter().map(|r| r.as_str()).collect();
            problems.push(
                &path.field("role"),
                format!(
                    "a {kind} message cannot have role {}; allowed: {}",
                    self.role,
                    allowed.join(", ")
                ),
            );
        }
        // Text may be empty while it is still arriving or was cut short.
        let text_in_progress =
            matches!(self.kind, MessageKind::Text(_)) && self.status != MessageStatus::Complete;
        if !text_in_progress {
            self.kind.validate_at(&path.field("data"), problems);
        }
        problems.check(
            self.updated_at < self.created_at,
            &path.field("updated_at"),
            "must not be before created_at",
        );
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let MessageKind::Unknown(unknown) = &self.kind {
            return unknown.raw.serialize(serializer);
        }
        let mut map = serializer.serialize_map(Some(9 + usize::from(self.error.is_some())))?;
        map.serialize_entry("schema_version", &CURRENT_SCHEMA_VERSION)?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("role", &self.role)?;
        map.serialize_entry("kind", self.kind.name_str())?;
        self.kind.serialize_data(&mut map)?;
        map.serialize_entry("status", &self.status)?;
        map.serialize_entry("created_at", &self.created_at)?;
        map.serialize_entry("updated_at", &self.updated_at)?;
        map.serialize_entry("metadata", &self.metadata)?;
        if let Some(error) = &self.error {
            map.serialize_entry("error", error)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        migrate::read_message(raw.get()).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Message {
    fn schema_name() -> Cow<'static, str> {
        "Message".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        MessageSchema::json_schema(generator)
    }
}
