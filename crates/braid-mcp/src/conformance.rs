//! Braid as the client under test of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, client mode).
//!
//! The suite starts a test server per scenario and runs `braid mcp conformance <url>` with the
//! scenario's name in `MCP_CONFORMANCE_SCENARIO` (and, for some, data in
//! `MCP_CONFORMANCE_CONTEXT`). Everything here goes through the same [`connect`] that
//! [`crate::McpManager`] uses, so the suite judges Braid's real connection code: the version
//! negotiation, the elicitation policy, the HTTP transport and its retries.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResponse, Tool};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use crate::config::ServerConfig;
use crate::connection::{PENDING_NOTICES, connect};
use crate::elicitation::ElicitationPolicy;
use crate::error::McpError;
use crate::oauth::{
    Authorizer, ClientKey, EnterpriseLogin, Grant, Headless, OAuthSession, OAuthSettings,
    SigningAlgorithm,
};

/// The name the test server is known by in logs and errors.
const SERVER: &str = "conformance";

/// How long the handshake may take (the suite's own time limit per scenario is 30 s).
const STARTUP_TIMEOUT: Duration = Duration::from_secs(20);

/// How long one tool call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(20);

/// What a scenario run did, for the client's own log.
#[derive(Debug, Default, PartialEq)]
pub struct ScenarioReport {
    /// The tools the server listed.
    pub tools: Vec<String>,
    /// The text of each tool call's result, in call order.
    pub results: Vec<String>,
}

/// What the suite tells the client besides the URL.
#[derive(Clone, Debug, Default)]
pub struct ScenarioInput {
    /// `MCP_CONFORMANCE_SCENARIO`.
    pub scenario: String,
    /// `MCP_CONFORMANCE_CONTEXT`, parsed: the client id, secret or key some scenarios give.
    pub context: Option<Value>,
    /// The client ID metadata document URL to offer when the authorization server supports
    /// them (the suite's scenarios use a fixed one).
    pub client_metadata_url: Option<String>,
}

/// Runs a scenario against the test server at `url`: connect, list the tools, call them,
/// disconnect. A request refused for want of authorization after the handshake is answered by
/// authorizing again and reconnecting, at most [`crate::oauth::MAX_AUTHORIZATIONS`] times.
pub async fn run(input: &ScenarioInput, url: &str) -> Result<ScenarioReport, McpError> {
    let mut config = ServerConfig::http(url);
    // The suite stands in for the person and its elicitation scenario asks to accept with the
    // schema's defaults; a real server entry declines unless its operator chose this.
    config.elicitation = ElicitationPolicy::AcceptDefaults;
    config.timeout = CALL_TIMEOUT;
    config.oauth = oauth_settings(input).map_err(|reason| McpError::Start {
        server: SERVER.into(),
        reason,
    })?;
    let authorizer: Arc<dyn Authorizer> =
        Arc::new(Headless::new().map_err(|reason| McpError::Start {
            server: SERVER.into(),
            reason,
        })?);
    let mut oauth = OAuthSession::new(Some(authorizer));
    loop {
        let (notices, _notices_rx) = mpsc::channel(PENDING_NOTICES);
        let connection = connect(
            SERVER,
            &config,
            STARTUP_TIMEOUT,
            notices,
            crate::MAX_MESSAGE_BYTES,
            &mut oauth,
            None,
        )
        .await?;
        let peer = connection.service.peer().clone();
        let outcome = exercise(&input.scenario, &peer).await;
        let _ = connection.service.cancel().await;
        match outcome {
            Err(e) if oauth.reauthorize_after_refusal() => {
                tracing::info!(error = %e, "refused for want of authorization; authorizing again");
            }
            outcome => return outcome,
        }
    }
}

/// The OAuth settings a scenario's context implies: a pre-registered client (id and secret),
/// or a client-credentials client (secret or private key) for the `client-credentials`
/// scenarios.
fn oauth_settings(input: &ScenarioInput) -> Result<OAuthSettings, String> {
    let mut settings = OAuthSettings {
        client_metadata_url: input.client_metadata_url.clone(),
        ..OAuthSettings::default()
    };
    let Some(context) = &input.context else {
        return Ok(settings);
    };
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_string);
    settings.client_id = text("client_id");
    settings.client_secret = text("client_secret");
    if input.scenario.starts_with("auth/client-credentials") {
        let key = match text("private_key_pem") {
            Some(pem) => ClientKey::PrivateKey {
                pem: pem.into_bytes(),
                algorithm: match text("signing_algorithm") {
                    None => SigningAlgorithm::default(),
                    Some(name) => SigningAlgorithm::parse(&name)
                        .ok_or_else(|| format!("unknown signing algorithm `{name}`"))?,
                },
            },
            None => ClientKey::Secret,
        };
        settings.grant = Grant::ClientCredentials(key);
    }
    if let (Some(idp_issuer), Some(idp_token_endpoint), Some(idp_client_id), Some(id_token)) = (
        text("idp_issuer"),
        text("idp_token_endpoint"),
        text("idp_client_id"),
        text("idp_id_token"),
    ) {
        settings.grant = Grant::EnterpriseManaged(EnterpriseLogin {
            idp_issuer,
            idp_token_endpoint,
            idp_client_id,
            id_token,
        });
    }
    Ok(settings)
}

/// The calls a scenario expects once connected.
async fn exercise(
    scenario: &str,
    peer: &rmcp::Peer<rmcp::RoleClient>,
) -> Result<ScenarioReport, McpError> {
    let tools = tokio::time::timeout(CALL_TIMEOUT, peer.list_all_tools())
        .await
        .map_err(|_| timeout("tools/list"))?
        .map_err(|e| McpError::protocol(SERVER, "tools/list", e))?;
    let mut report = ScenarioReport {
        tools: tools.iter().map(|t| t.name.to_string()).collect(),
        results: Vec::new(),
    };
    if scenario == "initialize" {
        return Ok(report);
    }
    for tool in &tools {
        let arguments = arguments_for(tool);
        let mut params = CallToolRequestParams::new(tool.name.to_string());
        params = params.with_arguments(arguments);
        let operation = format!("tools/call {}", tool.name);
        let response = tokio::time::timeout(CALL_TIMEOUT, peer.call_tool_once(params))
            .await
            .map_err(|_| timeout(&operation))?
            .map_err(|e| McpError::protocol(SERVER, operation.clone(), e))?;
        let text = match response {
            CallToolResponse::Complete(result) => result
                .content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                .collect::<Vec<_>>()
                .join("\n"),
            other => format!("{other:?}"),
        };
        report.results.push(text);
    }
    Ok(report)
}

/// Arguments that satisfy a tool's input schema: each required property gets its default, or
/// a small value of its type (the suite's tools add numbers or take no arguments).
fn arguments_for(tool: &Tool) -> Map<String, Value> {
    let schema = Value::Object((*tool.input_schema).clone());
    let mut arguments = Map::new();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = schema.get("properties").and_then(Value::as_object);
    for name in required {
        let property = properties.and_then(|p| p.get(name));
        let value = match property {
            Some(p) if p.get("default").is_some() => {
                p.get("default").cloned().unwrap_or(Value::Null)
            }
            Some(p) => match p.get("type").and_then(Value::as_str) {
                Some("number") | Some("integer") => json!(2),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => json!("conformance"),
            },
            None => json!("conformance"),
        };
        arguments.insert(name.to_string(), value);
    }
    arguments
}

fn timeout(operation: &str) -> McpError {
    McpError::Timeout {
        server: SERVER.into(),
        operation: operation.into(),
        timeout_ms: CALL_TIMEOUT.as_millis() as u64,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn tool(schema: Value) -> Tool {
        serde_json::from_value(json!({ "name": "t", "inputSchema": schema })).unwrap()
    }

    #[test]
    fn required_numbers_get_numbers_and_defaults_win() {
        let t = tool(json!({
            "type": "object",
            "properties": {
                "a": { "type": "number" },
                "b": { "type": "integer", "default": 7 },
                "c": { "type": "string" }
            },
            "required": ["a", "b"]
        }));
        assert_eq!(Value::Object(arguments_for(&t)), json!({ "a": 2, "b": 7 }));
    }

    #[test]
    fn a_tool_without_required_arguments_gets_none() {
        let t = tool(json!({ "type": "object", "properties": {} }));
        assert!(arguments_for(&t).is_empty());
    }
}
