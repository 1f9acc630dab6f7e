//! Turning stored rows back into protocol values, without ever failing on bad data when a safe
//! reading exists.

use braid_protocol::migrate::ReadError;
use braid_protocol::{
    ContextConfig, ContextId, ContextState, Message, MessageId, MessageKind, MessageStatus,
    Metadata, Role, UnknownKind,
};
use chrono::{DateTime, Utc};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::error::{Result, StoreError};

/// The columns of one `messages` row.
pub(crate) struct MessageRow {
    pub id: uuid::Uuid,
    pub role: String,
    pub kind: String,
    pub status: String,
    pub payload: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl MessageRow {
    /// The message for a row whose payload did not read: an `unknown` message that keeps the
    /// raw text, so one bad row never makes a whole context unreadable.
    pub fn into_unreadable(self, context: ContextId, error: &ReadError) -> Message {
        tracing::warn!(
            context = %context,
            message = %self.id,
            kind = %self.kind,
            error = %error,
            "stored message payload unreadable; returned as an unknown message"
        );
        self.into_unknown()
    }

    fn into_unknown(self) -> Message {
        // Keep the payload as it is when it is JSON; otherwise keep its text as a JSON string.
        let raw = RawValue::from_string(self.payload.clone()).unwrap_or_else(|_| {
            RawValue::from_string(Value::String(self.payload).to_string())
                .unwrap_or_else(|_| RawValue::NULL.to_owned())
        });
        let status =
            serde_json::from_value(Value::String(self.status)).unwrap_or(MessageStatus::Incomplete);
        Message {
            id: MessageId(self.id),
            // Only the three storable roles are ever written to this column.
            role: self.role.parse().unwrap_or(Role::Assistant),
            kind: MessageKind::Unknown(UnknownKind {
                kind: self.kind,
                raw,
            }),
            status,
            created_at: self.created_at,
            updated_at: self.updated_at.max(self.created_at),
            metadata: Metadata::new(),
            error: None,
        }
    }
}

/// Reads a context's configuration.
pub(crate) fn read_config(context: ContextId, json: &str) -> Result<ContextConfig> {
    serde_json::from_str(json).map_err(|e| StoreError::Corrupt {
        context,
        what: "config",
        reason: e.to_string(),
    })
}

/// Reads a context's state. An unreadable state becomes a recoverable failure, which the engine
/// treats like any interrupted operation.
pub(crate) fn read_state(context: ContextId, json: &str) -> ContextState {
    match serde_json::from_str(json) {
        Ok(state) => state,
        Err(error) => {
            tracing::warn!(context = %context, error = %error, "stored state unreadable");
            ContextState::Failed {
                error: format!("the stored state could not be read: {error}"),
                recoverable: true,
            }
        }
    }
}

/// Reads a branch's pipeline configuration; unreadable JSON is dropped with a warning (the
/// branch then uses the context's pipeline).
pub(crate) fn read_pipeline(context: ContextId, json: Option<String>) -> Option<Value> {
    let json = json?;
    match serde_json::from_str(&json) {
        Ok(value) => Some(value),
        Err(error) => {
            tracing::warn!(context = %context, error = %error, "stored branch pipeline unreadable");
            None
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use braid_protocol::KindName;

    fn row(payload: &str) -> MessageRow {
        let now = Utc::now();
        MessageRow {
            id: uuid::Uuid::now_v7(),
            role: "assistant".into(),
            kind: "text".into(),
            status: "complete".into(),
            payload: payload.into(),
            created_at: now,
            updated_at: now,
        }
    }

    fn read(r: MessageRow) -> Message {
        match Message::from_json(&r.payload) {
            Ok(m) => m,
            Err(e) => r.into_unreadable(ContextId::new(), &e),
        }
    }

    #[test]
    fn broken_json_becomes_unknown_keeping_the_text() {
        let r = row("{\"kind\": \"text\", \"data\": ");
        let id = r.id;
        let m = read(r);
        assert_eq!(m.kind_name(), KindName::Unknown);
        assert_eq!(m.id, MessageId(id));
        let MessageKind::Unknown(u) = &m.kind else {
            panic!("expected unknown")
        };
        assert!(u.raw.get().contains("\\\"data\\\""));
    }

    #[test]
    fn json_that_is_not_a_message_becomes_unknown_keeping_the_json() {
        let r = row(r#"{"schema_version":2,"kind":"text","data":{"parts":42}}"#);
        let m = read(r);
        let MessageKind::Unknown(u) = &m.kind else {
            panic!("expected unknown")
        };
        assert_eq!(
            u.raw.get(),
            r#"{"schema_version":2,"kind":"text","data":{"parts":42}}"#
        );
        assert_eq!(u.kind, "text");
    }

    #[test]
    fn unreadable_state_becomes_recoverable_failure() {
        let state = read_state(ContextId::new(), "{\"type\":\"warp_drive\"}");
        assert!(matches!(
            state,
            ContextState::Failed {
                recoverable: true,
                ..
            }
        ));
    }
}
