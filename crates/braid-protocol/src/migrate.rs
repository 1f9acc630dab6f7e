//! Reading messages in every supported schema version and migrating them to the current one.
//!
//! - **v0**: OpenAI-style `{role, content, tool_calls?, tool_call_id?}` becomes `text`,
//!   `tool_request` or `tool_result` (an assistant message with both text and tool calls becomes
//!   two messages of one turn; multimodal content parts become `text` and `image` messages).
//! - **v1**: `{role, content, message_type: text|plan|question|tool_call|tool_result}`
//!   (a missing `message_type` means text; a plan or question that does not validate stays text).
//! - **v2**: the current `{schema_version, id, role, kind, data, ...}`; `type` is accepted for
//!   `kind`.
//!
//! Missing fields get defaults and unknown fields are ignored. An unknown kind (or v1
//! `message_type`) is kept whole as [`MessageKind::Unknown`] and a warning is logged; an unknown
//! role is an error.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::ids::{MessageId, ToolCallId, TurnId};
use crate::kinds::{
    ImageMessage, ImageSource, KindName, MessageKind, PlanMessage, QuestionMessage,
    RecognitionMode, TextMessage, TextPart, ToolCall, ToolOutcome, ToolRequestMessage,
    ToolResultMessage, UnknownKind,
};
use crate::message::{Message, MessageStatus, Metadata};
use crate::role::Role;
use crate::validate::Validate;

/// Why a message could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    Syntax(#[from] serde_json::Error),
    /// The JSON is not a message: the field at `path` is wrong.
    #[error("{path}: {message}")]
    Invalid {
        /// The JSON path of the field at fault.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// A legacy message that becomes several messages was read where one was expected.
    #[error(
        "this legacy message becomes {count} messages in the current version (text and tool calls, or several content parts); read it as a list"
    )]
    Expands {
        /// How many messages it becomes.
        count: usize,
    },
}

impl ReadError {
    fn invalid(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The JSON path of the field at fault, when there is one.
    pub fn path(&self) -> Option<&str> {
        match self {
            ReadError::Invalid { path, .. } => Some(path),
            _ => None,
        }
    }
}

/// The schema versions Braid reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaVersion {
    /// OpenAI chat-completions style.
    V0,
    /// `message_type` with free-form `content`.
    V1,
    /// `kind` + `data` (current).
    V2,
}

impl SchemaVersion {
    /// Recognizes the version of a message object.
    pub fn detect(object: &Map<String, Value>) -> Self {
        match object.get("schema_version").and_then(Value::as_u64) {
            Some(0) => SchemaVersion::V0,
            Some(1) => SchemaVersion::V1,
            Some(_) => SchemaVersion::V2,
            None if object.contains_key("kind") || object.contains_key("data") => SchemaVersion::V2,
            None if object.contains_key("message_type") => SchemaVersion::V1,
            None => SchemaVersion::V0,
        }
    }
}

/// Reads exactly one message from JSON text.
pub fn read_message(json: &str) -> Result<Message, ReadError> {
    // A current message reads without first being scanned whole as a raw value.
    if let Some(message) = read_current_fast(json) {
        return Ok(message);
    }
    let raw: &RawValue = serde_json::from_str(json)?;
    let mut messages = upgrade(raw)?;
    match messages.len() {
        1 => Ok(messages.remove(0)),
        count => Err(ReadError::Expands { count }),
    }
}

/// Reads one message or a JSON array of messages, in any supported version, in order. Legacy
/// messages may expand into several; tool results learn their tool's name from the calls before
/// them.
pub fn read_messages(json: &str) -> Result<Vec<Message>, ReadError> {
    let trimmed = json.trim_start();
    let items: Vec<&RawValue> = if trimmed.starts_with('[') {
        serde_json::from_str(trimmed)?
    } else {
        vec![serde_json::from_str(trimmed)?]
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let messages = upgrade(item).map_err(|e| match e {
            ReadError::Invalid { path, message } => ReadError::Invalid {
                path: format!("[{i}].{path}"),
                message,
            },
            other => other,
        })?;
        out.extend(messages);
    }
    fill_tool_names(&mut out);
    Ok(out)
}

/// Migrates one raw message to the current version.
pub fn upgrade(raw: &RawValue) -> Result<Vec<Message>, ReadError> {
    if let Some(message) = read_current_fast(raw.get()) {
        return Ok(vec![message]);
    }
    let value: Value = serde_json::from_str(raw.get())?;
    let Value::Object(object) = value else {
        return Err(ReadError::invalid(
            "(root)",
            "a message must be a JSON object",
        ));
    };
    match SchemaVersion::detect(&object) {
        SchemaVersion::V2 => read_v2(object, raw).map(|m| vec![m]),
        SchemaVersion::V1 => read_v1(object, raw),
        SchemaVersion::V0 => read_v0(object),
    }
}

/// Builds a message whose kind this version does not know, keeping `raw` for writing back.
pub fn unknown_message(
    kind: &str,
    raw: &RawValue,
    envelope: &Map<String, Value>,
    role: Role,
) -> Result<Message, ReadError> {
    tracing::warn!(kind, "message of unknown kind kept unchanged");
    let env = Envelope::read(envelope)?;
    Ok(env.build(
        role,
        MessageKind::Unknown(UnknownKind {
            kind: kind.to_owned(),
            raw: raw.to_owned(),
        }),
    ))
}

/// A current-version message of a known kind, read straight from the text without building a
/// `Value` first. `None` sends the message down the general path, which handles legacy
/// versions, unknown kinds and reports errors precisely; so this path only has to be right when
/// everything is well-formed.
fn read_current_fast(json: &str) -> Option<Message> {
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let wire = serde::Deserializer::deserialize_map(&mut deserializer, WireVisitor).ok()?;
    deserializer.end().ok()?;
    if wire.schema_version.is_some_and(|v| v < 2) {
        return None;
    }
    let role: Role = wire.role?.parse().ok()?;
    let mut kind = match wire.data? {
        WireData::Read(kind) => kind,
        WireData::Raw(data) => match wire.kind?.parse::<KindName>().ok()? {
            KindName::Unknown => return None,
            k => parse_data_fast(k, data.get())?,
        },
    };
    let created_at = wire.created_at.unwrap_or_else(Utc::now);
    kind.fill_defaults(created_at);
    Some(Message {
        id: wire.id.unwrap_or_default(),
        role,
        kind,
        status: wire.status.unwrap_or_default(),
        created_at,
        updated_at: wire.updated_at.unwrap_or(created_at),
        metadata: wire.metadata.unwrap_or_default(),
        error: wire.error.map(Box::new),
    })
}

/// The fields of a current-version message, as the fast path reads them.
#[derive(Default)]
struct Wire<'a> {
    schema_version: Option<u64>,
    role: Option<&'a str>,
    kind: Option<&'a str>,
    data: Option<WireData<'a>>,
    id: Option<MessageId>,
    status: Option<MessageStatus>,
    created_at: Option<DateTime<Utc>>,
    updated_at: Option<DateTime<Utc>>,
    metadata: Option<Metadata>,
    error: Option<crate::kinds::ErrorDetail>,
}

/// A message's `data`: read at once when its `kind` came before it (as Braid writes them), kept
/// as it is to be read after the whole message otherwise. Reading it at once saves scanning it
/// twice, a tenth of reading a typical message.
// It lives on the stack while one message is read; boxing the kind would allocate for each.
#[allow(clippy::large_enum_variant)]
enum WireData<'a> {
    Read(MessageKind),
    Raw(&'a RawValue),
}

/// Reads a [`Wire`]. Any surprise (a field given twice, a string with escapes where one is
/// borrowed, a field of the wrong type) is an error, which sends the message down the general
/// path.
struct WireVisitor;

impl<'de> serde::de::Visitor<'de> for WireVisitor {
    type Value = Wire<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a message object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Wire<'de>, A::Error> {
        fn once<T, E: serde::de::Error>(slot: &mut Option<T>, value: Option<T>) -> Result<(), E> {
            match (slot.is_some(), value) {
                (true, _) => Err(E::custom("a field appears twice")),
                (false, value) => {
                    *slot = value;
                    Ok(())
                }
            }
        }
        let mut wire = Wire::default();
        while let Some(key) = map.next_key::<&'de str>()? {
            match key {
                "schema_version" => once(&mut wire.schema_version, map.next_value()?)?,
                "role" => once(&mut wire.role, Some(map.next_value()?))?,
                "kind" => once(&mut wire.kind, Some(map.next_value()?))?,
                "data" => {
                    let kind = wire
                        .kind
                        .and_then(|kind| kind.parse::<KindName>().ok())
                        .filter(|kind| *kind != KindName::Unknown);
                    let data = match kind {
                        Some(kind) => WireData::Read(map.next_value_seed(DataSeed(kind))?),
                        None => WireData::Raw(map.next_value()?),
                    };
                    once(&mut wire.data, Some(data))?;
                }
                "id" => once(&mut wire.id, map.next_value()?)?,
                "status" => once(&mut wire.status, map.next_value()?)?,
                "created_at" => once(&mut wire.created_at, map.next_value_seed(TimestampSeed)?)?,
                "updated_at" => once(&mut wire.updated_at, map.next_value_seed(TimestampSeed)?)?,
                "metadata" => once(&mut wire.metadata, map.next_value()?)?,
                "error" => once(&mut wire.error, map.next_value()?)?,
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(wire)
    }
}

/// Reads the `data` of a known kind.
struct DataSeed(KindName);

impl<'de> serde::de::DeserializeSeed<'de> for DataSeed {
    type Value = MessageKind;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<MessageKind, D::Error> {
        use crate::kinds::*;
        use serde::Deserialize as _;
        Ok(match self.0 {
            KindName::Text => MessageKind::Text(FastText::deserialize(d)?.into()),
            KindName::Image => MessageKind::Image(Box::new(ImageMessage::deserialize(d)?)),
            KindName::FileReference => {
                MessageKind::FileReference(Box::new(FileReferenceMessage::deserialize(d)?))
            }
            KindName::ProjectStructure => {
                MessageKind::ProjectStructure(Box::new(ProjectStructureMessage::deserialize(d)?))
            }
            KindName::ToolRequest => MessageKind::ToolRequest(ToolRequestMessage::deserialize(d)?),
            KindName::ToolResult => {
                MessageKind::ToolResult(Box::new(ToolResultMessage::deserialize(d)?))
            }
            KindName::McpToolRequest => {
                MessageKind::McpToolRequest(Box::new(McpToolRequestMessage::deserialize(d)?))
            }
            KindName::McpToolResult => {
                MessageKind::McpToolResult(Box::new(McpToolResultMessage::deserialize(d)?))
            }
            KindName::McpResource => {
                MessageKind::McpResource(Box::new(McpResourceMessage::deserialize(d)?))
            }
            KindName::WorkflowExecution => {
                MessageKind::WorkflowExecution(Box::new(WorkflowExecutionMessage::deserialize(d)?))
            }
            KindName::SystemControl => {
                MessageKind::SystemControl(SystemControlMessage::deserialize(d)?)
            }
            KindName::Processing => MessageKind::Processing(ProcessingMessage::deserialize(d)?),
            KindName::Plan => MessageKind::Plan(PlanMessage::deserialize(d)?),
            KindName::Question => MessageKind::Question(Box::new(QuestionMessage::deserialize(d)?)),
            KindName::Unknown => {
                return Err(serde::de::Error::custom("an unknown kind has no fast path"));
            }
        })
    }
}

fn parse_data_fast(kind: KindName, data: &str) -> Option<MessageKind> {
    let mut deserializer = serde_json::Deserializer::from_str(data);
    let kind = serde::de::DeserializeSeed::deserialize(DataSeed(kind), &mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(kind)
}

/// A `text` message's data read without buffering each part to find its `type` (what serde's
/// internally tagged enums do): the same shapes as [`TextPart`]'s own reading, which reports
/// the errors of the general path.
#[derive(serde::Deserialize)]
struct FastText {
    parts: Vec<FastPart>,
}

#[derive(serde::Deserialize)]
struct FastPart {
    #[serde(rename = "type")]
    kind: FastPartKind,
    text: String,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum FastPartKind {
    Text,
    Reasoning,
}

impl From<FastText> for TextMessage {
    fn from(wire: FastText) -> Self {
        let parts = wire
            .parts
            .into_iter()
            .map(|part| match part.kind {
                FastPartKind::Text => TextPart::Text { text: part.text },
                FastPartKind::Reasoning => TextPart::Reasoning { text: part.text },
            })
            .collect();
        TextMessage { parts }
    }
}

/// Reads a timestamp of the fast path: the form Braid writes by [`utc_timestamp`], any other
/// as chrono reads it; `null` as none. A string with escapes fails the fast path.
struct TimestampSeed;

impl<'de> serde::de::DeserializeSeed<'de> for TimestampSeed {
    type Value = Option<DateTime<Utc>>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let Some(text) = <Option<&'de str> as serde::Deserialize>::deserialize(d)? else {
            return Ok(None);
        };
        match utc_timestamp(text) {
            Some(time) => Ok(Some(time)),
            None => text
                .parse::<DateTime<chrono::FixedOffset>>()
                .map(|time| Some(time.with_timezone(&Utc)))
                .map_err(serde::de::Error::custom),
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`, the form chrono writes a UTC time in, read without chrono's
/// general RFC 3339 parser (a sixth of reading a typical message). `None` for anything else.
fn utc_timestamp(text: &str) -> Option<DateTime<Utc>> {
    let bytes = text.as_bytes();
    let number = |range: std::ops::Range<usize>| -> Option<u32> {
        bytes.get(range)?.iter().try_fold(0u32, |n, c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    let separators = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')];
    if separators.iter().any(|(i, c)| bytes.get(*i) != Some(c)) {
        return None;
    }
    let date = chrono::NaiveDate::from_ymd_opt(
        i32::try_from(number(0..4)?).ok()?,
        number(5..7)?,
        number(8..10)?,
    )?;
    let mut rest = bytes.get(19..)?;
    let mut nanos = 0;
    if let Some((b'.', fraction)) = rest.split_first() {
        let digits = fraction.iter().take_while(|c| c.is_ascii_digit()).count();
        if !(1..=9).contains(&digits) {
            return None;
        }
        let scale = 10u32.pow(9 - u32::try_from(digits).ok()?);
        nanos = number(20..20 + digits)? * scale;
        rest = &fraction[digits..];
    }
    if rest != b"Z" {
        return None;
    }
    let time = chrono::NaiveTime::from_hms_nano_opt(
        number(11..13)?,
        number(14..16)?,
        number(17..19)?,
        nanos,
    )?;
    Some(date.and_time(time).and_utc())
}

/// The envelope fields every version may carry, with their defaults.
struct Envelope {
    id: Option<MessageId>,
    status: MessageStatus,
    created_at: Option<DateTime<Utc>>,
    updated_at: Option<DateTime<Utc>>,
    metadata: Metadata,
    error: Option<crate::kinds::ErrorDetail>,
}

impl Envelope {
    fn read(object: &Map<String, Value>) -> Result<Self, ReadError> {
        Ok(Self {
            id: field(object, "id")?,
            status: field(object, "status")?.unwrap_or_default(),
            created_at: field(object, "created_at")?,
            updated_at: field(object, "updated_at")?,
            metadata: field(object, "metadata")?.unwrap_or_default(),
            error: field(object, "error")?,
        })
    }

    fn build(&self, role: Role, kind: MessageKind) -> Message {
        let created_at = self.created_at.unwrap_or_else(Utc::now);
        Message {
            id: self.id.unwrap_or_default(),
            role,
            kind,
            status: self.status,
            created_at,
            updated_at: self.updated_at.unwrap_or(created_at),
            metadata: self.metadata.clone(),
            error: self.error.clone().map(Box::new),
        }
    }

    /// Builds the messages one legacy message expands into: the first keeps the original id,
    /// and when there are several they share a turn id.
    fn build_all(&self, role: Role, kinds: Vec<MessageKind>) -> Vec<Message> {
        let turn = (kinds.len() > 1).then(TurnId::new);
        kinds
            .into_iter()
            .enumerate()
            .map(|(i, kind)| {
                let mut m = self.build(role, kind);
                if i > 0 {
                    m.id = MessageId::new();
                }
                if let Some(turn) = turn {
                    m.set_turn_id(turn);
                }
                m
            })
            .collect()
    }
}

/// Reads an optional envelope field; `null` counts as absent.
fn field<T: serde::de::DeserializeOwned>(
    object: &Map<String, Value>,
    name: &str,
) -> Result<Option<T>, ReadError> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => T::deserialize(v)
            .map(Some)
            .map_err(|e| ReadError::invalid(name, e.to_string())),
    }
}

fn read_role(object: &Map<String, Value>) -> Result<Role, ReadError> {
    match object.get("role") {
        Some(Value::String(s)) => s
            .parse()
            .map_err(|e: crate::role::UnknownRole| ReadError::invalid("role", e.to_string())),
        Some(_) => Err(ReadError::invalid("role", "must be a string")),
        None => Err(ReadError::invalid("role", "missing")),
    }
}

fn read_v2(mut object: Map<String, Value>, raw: &RawValue) -> Result<Message, ReadError> {
    let role = read_role(&object)?;
    let kind_value = object
        .get("kind")
        .or_else(|| object.get("type"))
        .ok_or_else(|| ReadError::invalid("kind", "missing"))?;
    let Some(kind_str) = kind_value.as_str() else {
        return Err(ReadError::invalid("kind", "must be a string"));
    };
    let kind_name = match kind_str.parse::<KindName>() {
        Ok(KindName::Unknown) | Err(_) => {
            let kind_str = kind_str.to_owned();
            return unknown_message(&kind_str, raw, &object, role);
        }
        Ok(k) => k,
    };
    let data = object
        .remove("data")
        .unwrap_or_else(|| Value::Object(Map::new()));
    let kind = parse_data(kind_name, data)?;
    let mut message = Envelope::read(&object)?.build(role, kind);
    message.kind.fill_defaults(message.created_at);
    Ok(message)
}

/// Parses a known kind's data, naming the failing field as `data.<path>`.
fn parse_data(kind: KindName, data: Value) -> Result<MessageKind, ReadError> {
    use crate::kinds::*;
    Ok(match kind {
        KindName::Text => MessageKind::Text(data_as(data)?),
        KindName::Image => MessageKind::Image(data_as(data)?),
        KindName::FileReference => MessageKind::FileReference(data_as(data)?),
        KindName::ProjectStructure => MessageKind::ProjectStructure(data_as(data)?),
        KindName::ToolRequest => MessageKind::ToolRequest(data_as(data)?),
        KindName::ToolResult => MessageKind::ToolResult(data_as(data)?),
        KindName::McpToolRequest => MessageKind::McpToolRequest(data_as(data)?),
        KindName::McpToolResult => MessageKind::McpToolResult(data_as(data)?),
        KindName::McpResource => MessageKind::McpResource(data_as(data)?),
        KindName::WorkflowExecution => MessageKind::WorkflowExecution(data_as(data)?),
        KindName::SystemControl => MessageKind::SystemControl(data_as(data)?),
        KindName::Processing => MessageKind::Processing(data_as(data)?),
        KindName::Plan => MessageKind::Plan(data_as(data)?),
        KindName::Question => MessageKind::Question(data_as(data)?),
        KindName::Unknown => {
            return Err(ReadError::invalid(
                "kind",
                "`unknown` is not a kind to write",
            ));
        }
    })
}

fn data_as<T: serde::de::DeserializeOwned>(data: Value) -> Result<T, ReadError> {
    serde_path_to_error::deserialize(data).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." {
            "data".to_owned()
        } else {
            format!("data.{path}")
        };
        ReadError::invalid(path, e.into_inner().to_string())
    })
}

fn read_v1(object: Map<String, Value>, raw: &RawValue) -> Result<Vec<Message>, ReadError> {
    let role = read_role(&object)?;
    let env = Envelope::read(&object)?;
    let message_type = match object.get("message_type") {
        None | Some(Value::Null) => "text",
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Err(ReadError::invalid("message_type", "must be a string")),
    };
    let content = object.get("content").cloned().unwrap_or(Value::Null);
    let kinds = match message_type {
        "text" => content_kinds(&content)?,
        "plan" => vec![structured::<PlanMessage>(&content, MessageKind::Plan)],
        "question" => vec![structured::<QuestionMessage>(&content, |q| {
            MessageKind::Question(Box::new(q))
        })],
        "tool_call" => {
            let calls = match object.get("tool_calls") {
                Some(calls) => openai_tool_calls(calls)?,
                None => vec![v1_tool_call(&content)?],
            };
            vec![MessageKind::ToolRequest(ToolRequestMessage { calls })]
        }
        "tool_result" => vec![tool_result(&object, &content)?],
        other => {
            let other = other.to_owned();
            return unknown_message(&other, raw, &object, role).map(|m| vec![m]);
        }
    };
    Ok(env.build_all(role, kinds))
}

fn read_v0(object: Map<String, Value>) -> Result<Vec<Message>, ReadError> {
    let role = read_role(&object)?;
    let env = Envelope::read(&object)?;
    let content = object.get("content").cloned().unwrap_or(Value::Null);
    let kinds = match role {
        Role::Tool => vec![tool_result(&object, &content)?],
        _ => {
            let mut kinds = Vec::new();
            if !is_blank(&content) || object.get("tool_calls").is_none() {
                kinds.extend(content_kinds(&content)?);
            }
            if let Some(calls) = object.get("tool_calls").filter(|c| !c.is_null()) {
                let calls = openai_tool_calls(calls)?;
                if !calls.is_empty() {
                    kinds.push(MessageKind::ToolRequest(ToolRequestMessage { calls }));
                } else if kinds.is_empty() {
                    kinds.extend(content_kinds(&content)?);
                }
            }
            kinds
        }
    };
    Ok(env.build_all(role, kinds))
}

fn is_blank(content: &Value) -> bool {
    match content {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// `content` as a string, null, or an array of OpenAI content parts (`text`, `image_url`).
fn content_kinds(content: &Value) -> Result<Vec<MessageKind>, ReadError> {
    match content {
        Value::Null => Ok(vec![MessageKind::Text(TextMessage::plain(""))]),
        Value::String(s) => Ok(vec![MessageKind::Text(TextMessage::plain(s.as_str()))]),
        Value::Array(parts) => {
            let mut text = Vec::new();
            let mut images = Vec::new();
            for (i, part) in parts.iter().enumerate() {
                match part.get("type").and_then(Value::as_str) {
                    Some("text") => text.push(TextPart::Text {
                        text: part
                            .get("text")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                    }),
                    Some("image_url") => {
                        let url = part
                            .get("image_url")
                            .and_then(|u| u.get("url").or(Some(u)))
                            .and_then(Value::as_str)
                            .ok_or_else(|| {
                                ReadError::invalid(format!("content[{i}].image_url.url"), "missing")
                            })?;
                        images.push(MessageKind::Image(Box::new(ImageMessage::new(
                            ImageSource::Url {
                                url: url.to_owned(),
                            },
                            RecognitionMode::Auto,
                        ))));
                    }
                    _ => {
                        return Err(ReadError::invalid(
                            format!("content[{i}].type"),
                            "expected a `text` or `image_url` part",
                        ));
                    }
                }
            }
            let mut kinds = Vec::new();
            if !text.is_empty() || images.is_empty() {
                if text.is_empty() {
                    text.push(TextPart::Text {
                        text: String::new(),
                    });
                }
                kinds.push(MessageKind::Text(TextMessage { parts: text }));
            }
            kinds.extend(images);
            Ok(kinds)
        }
        other => Ok(vec![MessageKind::Text(TextMessage::plain(
            other.to_string(),
        ))]),
    }
}

/// A plan or question from v1 content (an object, or a string of JSON). Anything that does not
/// parse and validate stays text, as seed 002 asks.
fn structured<T>(content: &Value, wrap: fn(T) -> MessageKind) -> MessageKind
where
    T: serde::de::DeserializeOwned + Validate,
{
    let candidate = match content {
        Value::String(s) => serde_json::from_str::<Value>(s).ok(),
        Value::Object(_) => Some(content.clone()),
        _ => None,
    };
    match candidate.and_then(|v| serde_json::from_value::<T>(v).ok()) {
        Some(parsed) if parsed.validate().is_ok() => wrap(parsed),
        _ => MessageKind::Text(TextMessage::plain(match content {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        })),
    }
}

/// OpenAI `tool_calls`: `[{id, type: "function", function: {name, arguments: "<json>"}}]`.
fn openai_tool_calls(calls: &Value) -> Result<Vec<ToolCall>, ReadError> {
    let Value::Array(calls) = calls else {
        return Err(ReadError::invalid("tool_calls", "must be an array"));
    };
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let at = |f: &str| format!("tool_calls[{i}].{f}");
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .ok_or_else(|| ReadError::invalid(at("id"), "missing"))?;
            let function = call
                .get("function")
                .ok_or_else(|| ReadError::invalid(at("function"), "missing"))?;
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| ReadError::invalid(at("function.name"), "missing"))?;
            let arguments = parse_arguments(function.get("arguments"));
            Ok(ToolCall::new(id, name, arguments))
        })
        .collect()
}

/// Arguments arrive as a string of JSON (OpenAI) or as an object. A string that is not JSON is
/// kept as the string, so nothing is lost; validation then reports it.
fn parse_arguments(arguments: Option<&Value>) -> Value {
    match arguments {
        None | Some(Value::Null) => json!({}),
        Some(Value::String(s)) if s.trim().is_empty() => json!({}),
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(other) => other.clone(),
    }
}

/// A v1 `tool_call` whose content describes the call: `{id?, name|tool_name, arguments|parameters}`.
fn v1_tool_call(content: &Value) -> Result<ToolCall, ReadError> {
    let content = match content {
        Value::String(s) => serde_json::from_str::<Value>(s)
            .map_err(|e| ReadError::invalid("content", format!("not a tool call: {e}")))?,
        other => other.clone(),
    };
    let name = content
        .get("name")
        .or_else(|| content.get("tool_name"))
        .and_then(Value::as_str)
        .ok_or_else(|| ReadError::invalid("content.name", "missing"))?;
    let id = content
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| format!("call_{}", MessageId::new().as_uuid().simple()));
    let arguments = parse_arguments(
        content
            .get("arguments")
            .or_else(|| content.get("parameters")),
    );
    Ok(ToolCall::new(id, name, arguments))
}

/// A tool message: linked to its call by `tool_call_id` (seed 004).
fn tool_result(object: &Map<String, Value>, content: &Value) -> Result<MessageKind, ReadError> {
    let call_id = object
        .get("tool_call_id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            ReadError::invalid(
                "tool_call_id",
                "missing: a tool message must carry its tool_call_id",
            )
        })?;
    let tool_name = object
        .get("name")
        .or_else(|| object.get("tool_name"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    Ok(MessageKind::ToolResult(Box::new(ToolResultMessage {
        call_id: ToolCallId::from(call_id),
        tool_name: tool_name.to_owned(),
        outcome: ToolOutcome::Success {
            output: content.clone(),
        },
        duration_ms: 0,
        started_at: None,
        completed_at: None,
    })))
}

/// Legacy tool results rarely name their tool: take the name from the call they answer.
fn fill_tool_names(messages: &mut [Message]) {
    let mut names: HashMap<ToolCallId, String> = HashMap::new();
    for m in messages.iter_mut() {
        match &mut m.kind {
            MessageKind::ToolRequest(r) => {
                for c in &r.calls {
                    names.insert(c.id.clone(), c.name.clone());
                }
            }
            MessageKind::ToolResult(r) if r.tool_name.is_empty() => {
                if let Some(name) = names.get(&r.call_id) {
                    r.tool_name = name.clone();
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_timestamps_read_as_chrono_reads_them_and_other_forms_are_left_to_it() {
        for text in [
            "2026-11-28T01:02:03Z",
            "2026-11-28T01:02:03.1Z",
            "2026-11-28T01:02:03.123456Z",
            "2026-11-28T01:02:03.123456789Z",
            "0001-01-01T00:00:00Z",
        ] {
            let chrono: DateTime<Utc> = text.parse().unwrap();
            assert_eq!(utc_timestamp(text), Some(chrono), "{text}");
        }
        for text in [
            "2026-11-28T01:02:03+00:00",
            "2026-11-28T01:02:03.1234567891Z",
            "2026-11-28T01:02:03.Z",
            "2026-02-30T01:02:03Z",
            "2026-11-28T23:59:60Z",
            "2026-11-28 01:02:03Z",
            "2026-11-28T01:02:03",
            "2026-11-28T01:02:03Zjunk",
        ] {
            assert_eq!(utc_timestamp(text), None, "{text}");
        }
        // An offset is still read, by chrono, on the fast path.
        let json = r#"{"schema_version":2,"role":"user","kind":"text","data":{"parts":[{"type":"text","text":"hi"}]},"created_at":"2026-11-28T03:02:03.5+02:00"}"#;
        let message = read_current_fast(json).unwrap();
        assert_eq!(
            message.created_at,
            "2026-11-28T01:02:03.5Z".parse::<DateTime<Utc>>().unwrap()
        );
        assert_eq!(message.updated_at, message.created_at);
    }

    #[test]
    fn text_data_reads_as_its_parts_own_reading_does() {
        for data in [
            r#"{"parts":[{"type":"text","text":"a"},{"type":"reasoning","text":"b","extra":1}]}"#,
            r#"{"parts":[],"more":true}"#,
        ] {
            let own: TextMessage = serde_json::from_str(data).unwrap();
            let fast = serde_json::from_str::<FastText>(data).unwrap();
            assert_eq!(TextMessage::from(fast), own, "{data}");
        }
        for data in [
            r#"{"parts":[{"type":"poem","text":"a"}]}"#,
            r#"{"parts":[{"text":"a"}]}"#,
            r#"{"parts":[{"type":"text"}]}"#,
        ] {
            assert!(serde_json::from_str::<TextMessage>(data).is_err(), "{data}");
            assert!(serde_json::from_str::<FastText>(data).is_err(), "{data}");
        }
    }

    #[test]
    fn version_detection_follows_the_fields_present() {
        let v = |s: &str| {
            SchemaVersion::detect(
                serde_json::from_str::<Value>(s)
                    .unwrap()
                    .as_object()
                    .unwrap(),
            )
        };
        assert_eq!(v(r#"{"role":"user","content":"hi"}"#), SchemaVersion::V0);
        assert_eq!(
            v(r#"{"role":"user","content":"hi","message_type":"text"}"#),
            SchemaVersion::V1
        );
        assert_eq!(
            v(r#"{"role":"user","kind":"text","data":{}}"#),
            SchemaVersion::V2
        );
        assert_eq!(
            v(r#"{"schema_version":1,"role":"user","content":"hi"}"#),
            SchemaVersion::V1
        );
        assert_eq!(
            v(r#"{"schema_version":2,"role":"user","type":"text"}"#),
            SchemaVersion::V2
        );
    }

    #[test]
    fn arguments_that_are_not_json_are_kept_as_a_string() {
        assert_eq!(parse_arguments(Some(&json!("{bad"))), json!("{bad"));
        assert_eq!(parse_arguments(Some(&json!("{\"a\":1}"))), json!({"a":1}));
        assert_eq!(parse_arguments(Some(&json!(""))), json!({}));
    }
}
