//! Events a context emits (DESIGN.md "Events and the HTTP API"), streamed to clients over SSE
//! with the event's name as the SSE `event:` and its payload as `data:`.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::{ContextId, MessageId};
use crate::kinds::KindName;
use crate::message::{MessageStatus, Metadata};
use crate::role::Role;
use crate::state::ContextState;

/// Any event of a context. In JSON (as stored in the event log) the name is `type` and the
/// payload's fields sit beside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContextEvent {
    /// The state changed, or a message was created, changed status or completed.
    ContextUpdate(ContextUpdate),
    /// A piece of streamed text.
    ContentDelta(ContentDelta),
    /// The end of a streamed message.
    ContentFinal(ContentFinal),
    /// Something went wrong that the person should know.
    Error(ErrorEvent),
    /// Keeps idle connections open (every 15 s).
    Heartbeat(Heartbeat),
}

impl ContextEvent {
    /// The SSE event name (`context_update`, `content_delta`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            ContextEvent::ContextUpdate(_) => "context_update",
            ContextEvent::ContentDelta(_) => "content_delta",
            ContextEvent::ContentFinal(_) => "content_final",
            ContextEvent::Error(_) => "error",
            ContextEvent::Heartbeat(_) => "heartbeat",
        }
    }

    /// The payload alone, as the SSE `data:` line carries it.
    pub fn payload_json(&self) -> String {
        let payload = match self {
            ContextEvent::ContextUpdate(e) => serde_json::to_string(e),
            ContextEvent::ContentDelta(e) => serde_json::to_string(e),
            ContextEvent::ContentFinal(e) => serde_json::to_string(e),
            ContextEvent::Error(e) => serde_json::to_string(e),
            ContextEvent::Heartbeat(e) => serde_json::to_string(e),
        };
        // These payloads hold only strings, numbers and maps with string keys: they always
        // serialize.
        payload.unwrap_or_default()
    }
}

/// A state change and/or a message lifecycle change. Carries no large text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ContextUpdate {
    /// The context.
    pub context_id: ContextId,
    /// The state now.
    pub current_state: ContextState,
    /// The state before, when this update is a state change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub previous_state: Option<ContextState>,
    /// The message change, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub message_update: Option<MessageUpdate>,
    /// When it happened.
    pub timestamp: DateTime<Utc>,
    /// Lightweight details (e.g. an optimization's token counts).
    #[serde(default)]
    #[ts(type = "Record<string, unknown>")]
    pub metadata: Metadata,
}

/// A message's lifecycle step (seed 001 "Message lifecycle updates").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MessageUpdate {
    /// The message was added.
    Created {
        /// Its id.
        message_id: MessageId,
        /// Its kind.
        kind: KindName,
        /// Its role.
        role: Role,
    },
    /// Its status changed.
    StatusChanged {
        /// Its id.
        message_id: MessageId,
        /// Its kind.
        kind: KindName,
        /// The new status.
        status: MessageStatus,
    },
    /// It is final.
    Completed {
        /// Its id.
        message_id: MessageId,
        /// Its kind.
        kind: KindName,
    },
    /// Its content or metadata changed outside a turn (pinned, unpinned, a summary
    /// corrected): read it again.
    Changed {
        /// Its id.
        message_id: MessageId,
        /// Its kind.
        kind: KindName,
    },
    /// It was deleted (input that failed or waited, removed by the person).
    Deleted {
        /// Its id.
        message_id: MessageId,
        /// Its kind.
        kind: KindName,
    },
}

/// A piece of streamed text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ContentDelta {
    /// The context.
    pub context_id: ContextId,
    /// The message being streamed.
    pub message_id: MessageId,
    /// The piece's position in this message's stream, from 1.
    pub sequence: u64,
    /// The text.
    pub delta: String,
    /// Always `false` for a delta (the contract's marker).
    pub is_final: bool,
}

/// The end of a streamed message; its full text is stored before this is emitted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ContentFinal {
    /// The context.
    pub context_id: ContextId,
    /// The message.
    pub message_id: MessageId,
    /// The last sequence number sent for it.
    pub sequence: u64,
    /// Always `true`.
    pub is_final: bool,
}

/// An error the person should see, and whether they can go on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ErrorEvent {
    /// The context.
    pub context_id: ContextId,
    /// What kind of error.
    pub code: ErrorCode,
    /// What happened and what to do, in words.
    pub message: String,
    /// Whether retrying or continuing can succeed.
    pub recoverable: bool,
}

/// Error categories shared by events and API errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// No model is configured (which variables to set is in the message).
    LlmNotConfigured,
    /// The model could not be reached.
    LlmUnavailable,
    /// The model's provider refused the request.
    LlmRejected,
    /// The stream ended before the answer did.
    StreamInterrupted,
    /// The person interrupted the operation before it finished (input whose pipeline step was
    /// stopped carries it: retry it to send it again).
    Interrupted,
    /// A tool failed.
    ToolFailed,
    /// Something took longer than allowed.
    Timeout,
    /// A message or request did not validate.
    InvalidInput,
    /// A referenced file could not be read.
    FileReference,
    /// An image could not be loaded or recognized (the message says why).
    ImageRecognition,
    /// Reading or writing the store failed.
    StorageFailed,
    /// Not found.
    NotFound,
    /// Conflicts with the current state (e.g. approving a call that is not pending).
    Conflict,
    /// Authentication missing or wrong.
    Unauthorized,
    /// The server's guard refused the request: a foreign `Host` or `Origin` header.
    Forbidden,
    /// The request body is not of an accepted type (bodies must be JSON).
    UnsupportedMediaType,
    /// The request body is too large.
    PayloadTooLarge,
    /// The route has no such method (the `Allow` header lists the ones it has).
    MethodNotAllowed,
    /// A bug or an unexpected failure.
    Internal,
    /// A client resumed an event stream after an id this context's log does not hold (the
    /// database was restored, or the context recreated): the client must reload the context's
    /// messages; the stream continues live.
    ResumePointUnknown,
}

/// Keeps a connection alive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct Heartbeat {
    /// When it was sent.
    pub timestamp: DateTime<Utc>,
}

/// An event with its position in the context's event log; the position is the SSE `id:` that a
/// reconnecting client sends back as `Last-Event-ID`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct SequencedEvent {
    /// Monotonic per context, from 1.
    pub sequence: u64,
    /// The event.
    pub event: ContextEvent,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_events_carry_their_name_as_type() {
        let e = ContextEvent::ContentDelta(ContentDelta {
            context_id: ContextId::new(),
            message_id: MessageId::new(),
            sequence: 1,
            delta: "Hel".into(),
            is_final: false,
        });
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["type"], "content_delta");
        assert_eq!(v["delta"], "Hel");
        let back: ContextEvent = serde_json::from_value(v).unwrap();
        assert_eq!(back, e);
        assert_eq!(e.name(), "content_delta");
        let payload: serde_json::Value = serde_json::from_str(&e.payload_json()).unwrap();
        assert!(payload.get("type").is_none());
        assert_eq!(payload["is_final"], false);
    }
}
