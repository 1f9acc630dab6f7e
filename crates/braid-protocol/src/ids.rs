//! Identifiers. Each kind of id is its own type so that a message id can never be passed where a
//! context id is expected.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;
use uuid::Uuid;

macro_rules! uuid_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
        #[cfg_attr(test, derive(TS))]
        #[serde(transparent)]
        #[cfg_attr(test, ts(type = "string"))]
        pub struct $name(pub Uuid);

        impl $name {
            /// A new id: a UUIDv7, so ids sort by creation time.
            pub fn new() -> Self {
                Self(Uuid::now_v7())
            }

            /// The underlying UUID.
            pub fn as_uuid(&self) -> &Uuid {
                &self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }

        impl From<Uuid> for $name {
            fn from(value: Uuid) -> Self {
                Self(value)
            }
        }
    };
}

uuid_id!(
    /// Identifies one message in a context's pool, across all of its branches.
    MessageId
);
uuid_id!(
    /// Identifies one context (conversation).
    ContextId
);
uuid_id!(
    /// Groups the messages produced by one model answer (its tool calls, its text), so that a
    /// request formatter can put them back into a single assistant message.
    TurnId
);
uuid_id!(
    /// Identifies one recorded model request (`ModelRequestRecord`): what one call to the model
    /// was sent.
    ModelRequestId
);
uuid_id!(
    /// Identifies one turn of a context (`turn_id` in the API): the work one send, resume or
    /// approval starts, from its first event to its `turn_completed` event.
    ContextTurnId
);

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, Default)]
        #[cfg_attr(test, derive(TS))]
        #[serde(transparent)]
        #[cfg_attr(test, ts(type = "string"))]
        pub struct $name(pub String);

        impl $name {
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                Self(value.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(value: String) -> Self {
                Self(value)
            }
        }
    };
}

string_id!(
    /// The id a model gave one of its tool calls (`call_abc` for OpenAI, `toolu_...` for
    /// Anthropic). Kept exactly as the provider sent it, because results must echo it back.
    ToolCallId
);
string_id!(
    /// The name of a branch within a context, unique in that context (`main` by default).
    BranchName
);

impl BranchName {
    /// The branch every context starts with.
    pub fn main() -> Self {
        Self("main".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_ids_sort_by_creation() {
        let a = MessageId::new();
        let b = MessageId::new();
        assert!(a < b);
    }

    #[test]
    fn ids_serialize_as_plain_strings() {
        let id: MessageId = "0192f0c4-0000-7000-8000-000000000000".parse().unwrap();
        assert_eq!(
            serde_json::to_string(&id).unwrap(),
            "\"0192f0c4-0000-7000-8000-000000000000\""
        );
        let call = ToolCallId::from("call_1");
        assert_eq!(serde_json::to_string(&call).unwrap(), "\"call_1\"");
    }
}
