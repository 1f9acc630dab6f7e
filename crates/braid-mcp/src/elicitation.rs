//! Elicitation: a server asking the person for input in the middle of a call (MCP
//! `elicitation/create`).
//!
//! A form request carries a JSON Schema of flat fields; a URL request carries a link the
//! person should open. When a person is there (the UI is connected), the question waits in
//! [`Elicitations`] until they answer it (`GET/POST /v1/mcp/elicitations`); when nobody can be
//! asked, or nobody answers in time, the server's [`ElicitationPolicy`] answers: `decline`
//! (the default, because Braid never invents a person's answer) or `accept_defaults`, which
//! accepts with every field's `default` and declines when a required field has none.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use braid_protocol::api::{ElicitationAction as Action, McpElicitation, McpElicitationReply};
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::{Map, Value};

/// How long a question waits for the person before the policy answers it.
pub const ELICITATION_WAIT: Duration = Duration::from_secs(300);

/// How many questions may wait at once; more are answered by their server's policy.
pub const MAX_WAITING_ELICITATIONS: usize = 32;

/// Whether a person can be asked now (`braid serve`: a browser holds an event stream open).
pub type Presence = Arc<dyn Fn() -> bool + Send + Sync>;

/// The questions of MCP servers waiting for the person.
pub struct Elicitations {
    presence: Presence,
    waiting: Mutex<BTreeMap<u64, Waiting>>,
    next: std::sync::atomic::AtomicU64,
}

struct Waiting {
    question: McpElicitation,
    schema: Option<Value>,
    answer: tokio::sync::oneshot::Sender<ElicitResult>,
}

/// An answer that cannot be taken.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ReplyError {
    /// No question with this id waits (answered already, or it timed out).
    #[error("no MCP question `{0}` is waiting (it was answered or timed out)")]
    Unknown(String),
    /// The content does not fit the form: the field and what is wrong.
    #[error("field `{field}` {reason}")]
    Invalid {
        /// The form field.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl Elicitations {
    /// A broker that asks a person whenever `presence` says one is there.
    pub fn new(presence: Presence) -> Self {
        Self {
            presence,
            waiting: Mutex::default(),
            next: std::sync::atomic::AtomicU64::new(1),
        }
    }

    /// The questions waiting, oldest first.
    pub fn list(&self) -> Vec<McpElicitation> {
        self.lock().values().map(|w| w.question.clone()).collect()
    }

    /// The person's answer to question `id`.
    pub fn reply(&self, id: &str, reply: McpElicitationReply) -> Result<(), ReplyError> {
        let mut waiting = self.lock();
        let (key, entry) = waiting
            .iter()
            .find(|(_, w)| w.question.id == id)
            .map(|(key, w)| (*key, w))
            .ok_or_else(|| ReplyError::Unknown(id.to_string()))?;
        let result = match reply.action {
            Action::Accept => {
                let content = match (&entry.schema, reply.content) {
                    (Some(schema), content) => {
                        let content = content.unwrap_or_else(|| Value::Object(Map::new()));
                        check_form(schema, &content)?;
                        Some(content)
                    }
                    (None, _) => None,
                };
                let mut result = ElicitResult::new(ElicitationAction::Accept);
                result.content = content;
                result
            }
            Action::Decline => ElicitResult::new(ElicitationAction::Decline),
            Action::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        };
        if let Some(entry) = waiting.remove(&key) {
            let _ = entry.answer.send(result);
        }
        Ok(())
    }

    /// Asks the person `request` from `server`; `None` when nobody can be asked or nobody
    /// answered in time, so the server's policy answers instead.
    pub(crate) async fn ask(
        &self,
        server: &str,
        request: &ElicitRequestParams,
    ) -> Option<ElicitResult> {
        if !(self.presence)() {
            return None;
        }
        let (message, schema, url) = match request {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => (
                message.clone(),
                serde_json::to_value(requested_schema).ok(),
                None,
            ),
            ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
                (message.clone(), None, Some(url.clone()))
            }
            _ => return None,
        };
        let key = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (answer, answered) = tokio::sync::oneshot::channel();
        {
            let mut waiting = self.lock();
            if waiting.len() >= MAX_WAITING_ELICITATIONS {
                return None;
            }
            waiting.insert(
                key,
                Waiting {
                    question: McpElicitation {
                        // Unique across restarts, so an answer meant for an old question can
                        // never reach a new one.
                        id: uuid::Uuid::now_v7().to_string(),
                        server: server.to_string(),
                        message,
                        requested_schema: schema.clone(),
                        url,
                        asked_at: chrono::Utc::now(),
                    },
                    schema,
                    answer,
                },
            );
        }
        tracing::info!(server = %server, id = key, "MCP server asks the person");
        // Gone once answered; removed by the guard when the wait times out or the server's
        // request is dropped (cancelled), so no question outlives its call.
        let _forget = Forget { broker: self, key };
        tokio::time::timeout(ELICITATION_WAIT, answered)
            .await
            .ok()
            .and_then(Result::ok)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Waiting>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Removes a question from the waiting list when its wait ends, however it ends.
struct Forget<'a> {
    broker: &'a Elicitations,
    key: u64,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        self.broker.lock().remove(&self.key);
    }
}

/// Checks a form's content against its flat schema: an object, required fields present, and
/// each field of its declared type (and among its `enum` values when it has them).
fn check_form(schema: &Value, content: &Value) -> Result<(), ReplyError> {
    let invalid = |field: &str, reason: &str| ReplyError::Invalid {
        field: field.to_string(),
        reason: reason.to_string(),
    };
    let Value::Object(values) = content else {
        return Err(invalid("content", "must be an object of field values"));
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !values.contains_key(name) {
            return Err(invalid(name, "is required"));
        }
    }
    for (name, value) in values {
        let Some(property) = properties.and_then(|p| p.get(name)) else {
            return Err(invalid(name, "is not a field of this form"));
        };
        let fits = match property.get("type").and_then(Value::as_str) {
            Some("string") => value.is_string(),
            Some("number") => value.is_number(),
            Some("integer") => value.is_i64() || value.is_u64(),
            Some("boolean") => value.is_boolean(),
            Some("array") => value.is_array(),
            _ => true,
        };
        if !fits {
            return Err(invalid(
                name,
                &format!(
                    "must be a {}",
                    property
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("value")
                ),
            ));
        }
        if let Some(choices) = property.get("enum").and_then(Value::as_array)
            && !choices.contains(value)
        {
            return Err(invalid(name, "must be one of its choices"));
        }
    }
    Ok(())
}

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

    fn broker(present: bool) -> Arc<Elicitations> {
        Arc::new(Elicitations::new(Arc::new(move || present)))
    }

    #[tokio::test]
    async fn a_present_person_answers_a_form_checked_against_its_schema() {
        let asked = broker(true);
        let request = form(json!({
            "type": "object",
            "properties": {
                "name": { "type": "string" },
                "age": { "type": "integer" },
                "tier": { "type": "string", "enum": ["free", "pro"] }
            },
            "required": ["name"]
        }));
        let waiting = {
            let asked = asked.clone();
            tokio::spawn(async move { asked.ask("everything", &request).await })
        };
        while asked.list().is_empty() {
            tokio::task::yield_now().await;
        }
        let question = &asked.list()[0];
        assert_eq!(question.server, "everything");
        assert_eq!(question.message, "Who are you?");
        let reply = |content: Value| McpElicitationReply {
            action: Action::Accept,
            content: Some(content),
        };
        assert_eq!(
            asked.reply(&question.id, reply(json!({"age": 3}))),
            Err(ReplyError::Invalid {
                field: "name".into(),
                reason: "is required".into()
            })
        );
        assert!(matches!(
            asked.reply(&question.id, reply(json!({"name": "Ada", "age": "three"}))),
            Err(ReplyError::Invalid { field, .. }) if field == "age"
        ));
        assert!(matches!(
            asked.reply(&question.id, reply(json!({"name": "Ada", "tier": "gold"}))),
            Err(ReplyError::Invalid { field, .. }) if field == "tier"
        ));
        asked
            .reply(&question.id, reply(json!({"name": "Ada", "tier": "pro"})))
            .unwrap();
        let answer = waiting.await.unwrap().unwrap();
        assert_eq!(answer.action, ElicitationAction::Accept);
        assert_eq!(
            answer.content.unwrap(),
            json!({"name": "Ada", "tier": "pro"})
        );
        assert!(asked.list().is_empty());
        assert_eq!(
            asked.reply(&question.id, reply(json!({}))),
            Err(ReplyError::Unknown(question.id.clone()))
        );
    }

    #[tokio::test]
    async fn a_question_whose_call_is_dropped_stops_waiting() {
        let asked = broker(true);
        let request = form(json!({ "type": "object", "properties": {} }));
        let waiting = {
            let asked = asked.clone();
            tokio::spawn(async move { asked.ask("s", &request).await })
        };
        while asked.list().is_empty() {
            tokio::task::yield_now().await;
        }
        waiting.abort();
        let _ = waiting.await;
        assert!(asked.list().is_empty());
    }

    #[tokio::test]
    async fn nobody_present_means_the_policy_answers() {
        let request = form(json!({ "type": "object", "properties": {} }));
        assert!(broker(false).ask("s", &request).await.is_none());
    }

    #[tokio::test]
    async fn a_person_may_decline() {
        let asked = broker(true);
        let request = form(json!({ "type": "object", "properties": {} }));
        let waiting = {
            let asked = asked.clone();
            tokio::spawn(async move { asked.ask("s", &request).await })
        };
        while asked.list().is_empty() {
            tokio::task::yield_now().await;
        }
        let id = asked.list()[0].id.clone();
        asked
            .reply(
                &id,
                McpElicitationReply {
                    action: Action::Decline,
                    content: None,
                },
            )
            .unwrap();
        assert_eq!(
            waiting.await.unwrap().unwrap().action,
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
