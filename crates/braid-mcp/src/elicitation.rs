//! Elicitation: a server asking the person for input in the middle of a call (MCP
//! `elicitation/create`).
//!
//! A form request carries a JSON Schema of flat fields; a URL request carries a link the
//! person should open. When nobody can be asked, the server's [`ElicitationPolicy`] answers:
//! `decline` (the default, because Braid never invents a person's answer) or
//! `accept_defaults`, which accepts with every field's `default` and declines when a required
//! field has none.

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::{Map, Value};

/// What Braid answers for a server's elicitation when no person answers it
/// (`"elicitation": "decline" | "accept_defaults"` in `mcp_servers.json`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ElicitationPolicy {
    /// Decline every request (the default).
    #[default]
    Decline,
    /// Accept a form with the defaults its schema gives; decline when a required field has
    /// no default, and decline URL requests (nobody could open the link).
    AcceptDefaults,
}

impl ElicitationPolicy {
    /// Parses the configuration value.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "decline" => Some(Self::Decline),
            "accept_defaults" => Some(Self::AcceptDefaults),
            _ => None,
        }
    }

    /// The answer this policy gives to `request`.
    pub fn answer(self, request: &ElicitRequestParams) -> ElicitResult {
        match (self, request) {
            (
                Self::AcceptDefaults,
                ElicitRequestParams::FormElicitationParams {
                    requested_schema, ..
                },
            ) => match serde_json::to_value(requested_schema)
                .ok()
                .and_then(|schema| defaults_of(&schema))
            {
                Some(content) => ElicitResult::new(ElicitationAction::Accept)
                    .with_content(Value::Object(content)),
                None => ElicitResult::new(ElicitationAction::Decline),
            },
            _ => ElicitResult::new(ElicitationAction::Decline),
        }
    }
}

/// Every property's `default` from a form schema; `None` when a required property has none,
/// since accepting without it would send the server an incomplete answer.
pub fn defaults_of(schema: &Value) -> Option<Map<String, Value>> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut content = Map::new();
    if let Some(properties) = properties {
        for (name, property) in properties {
            if let Some(default) = property.get("default") {
                content.insert(name.clone(), default.clone());
            }
        }
    }
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect::<Vec<_>>())
        .unwrap_or_default();
    if required.iter().any(|name| !content.contains_key(*name)) {
        return None;
    }
    Some(content)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(schema: Value) -> ElicitRequestParams {
        serde_json::from_value(json!({
            "mode": "form",
            "message": "Who are you?",
            "requestedSchema": schema,
        }))
        .unwrap()
    }

    #[test]
    fn accept_defaults_fills_every_default_of_every_type() {
        let request = form(json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "default": "John Doe" },
                "age": { "type": "integer", "default": 30 },
                "score": { "type": "number", "default": 95.5 },
                "status": { "type": "string", "enum": ["active", "inactive"], "default": "active" },
                "verified": { "type": "boolean", "default": true },
                "note": { "type": "string" }
            }
        }));
        let answer = ElicitationPolicy::AcceptDefaults.answer(&request);
        assert_eq!(answer.action, ElicitationAction::Accept);
        assert_eq!(
            answer.content.unwrap(),
            json!({ "name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true })
        );
    }

    #[test]
    fn a_required_field_without_default_is_declined_not_invented() {
        let request = form(json!({
            "type": "object",
            "properties": { "email": { "type": "string" } },
            "required": ["email"]
        }));
        let answer = ElicitationPolicy::AcceptDefaults.answer(&request);
        assert_eq!(answer.action, ElicitationAction::Decline);
        assert!(answer.content.is_none());
    }

    #[test]
    fn the_default_policy_declines_and_url_requests_are_declined() {
        let request = form(json!({ "type": "object", "properties": {} }));
        assert_eq!(
            ElicitationPolicy::default().answer(&request).action,
            ElicitationAction::Decline
        );
        let url: ElicitRequestParams = serde_json::from_value(json!({
            "mode": "url", "message": "Sign in", "url": "https://example.com", "elicitationId": "e1"
        }))
        .unwrap();
        assert_eq!(
            ElicitationPolicy::AcceptDefaults.answer(&url).action,
            ElicitationAction::Decline
        );
    }

    #[test]
    fn the_policy_parses_its_two_names_only() {
        assert_eq!(
            ElicitationPolicy::parse("accept_defaults"),
            Some(ElicitationPolicy::AcceptDefaults)
        );
        assert_eq!(
            ElicitationPolicy::parse("decline"),
            Some(ElicitationPolicy::Decline)
        );
        assert_eq!(ElicitationPolicy::parse("accept"), None);
    }
}
