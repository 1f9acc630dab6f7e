//! Who a message is from (seed 004).

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

/// The author of a message.
///
/// `user`, `assistant` and `tool` are stored. `system` exists only for the system prompt the
/// engine builds for each request: it is never persisted, and storing it is a validation error.
/// Any other role is rejected when reading, with an error that names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The person using Braid.
    User,
    /// The model.
    Assistant,
    /// The result of a tool call, linked to the call by its id.
    Tool,
    /// The ephemeral system prompt: in memory only.
    System,
}

impl Role {
    /// Every role, in a fixed order.
    pub const ALL: [Role; 4] = [Role::User, Role::Assistant, Role::Tool, Role::System];

    /// The role as it appears in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::System => "system",
        }
    }

    /// Whether a message of this role may be persisted.
    pub fn is_storable(self) -> bool {
        !matches!(self, Role::System)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A role name that is not one of Braid's roles.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown role `{0}`: expected one of user, assistant, tool (system is in memory only)")]
pub struct UnknownRole(pub String);

impl FromStr for Role {
    type Err = UnknownRole;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownRole(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_parses_from_its_name() {
        for role in Role::ALL {
            assert_eq!(role.as_str().parse::<Role>().unwrap(), role);
        }
    }

    #[test]
    fn unknown_role_is_rejected_with_its_name() {
        let err = "wizard".parse::<Role>().unwrap_err();
        assert!(err.to_string().contains("`wizard`"));
    }

    #[test]
    fn system_role_is_not_storable() {
        assert!(!Role::System.is_storable());
        assert!(
            Role::User.is_storable() && Role::Assistant.is_storable() && Role::Tool.is_storable()
        );
    }
}
