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

use braid_protocol::AgentRole;
use braid_tools::{Tool as _, ToolContext};
use rmcp::RoleClient;
use rmcp::model::Tool;
use rmcp::service::RunningService;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use crate::config::{Lifecycle, ServerConfig, ToolHints};
use crate::connection::{BraidClient, PENDING_NOTICES, Refusal, connect};
use crate::elicitation::ElicitationPolicy;
use crate::error::McpError;
use crate::oauth::{
    Authorizer, ClientKey, EnterpriseLogin, Grant, Headless, OAuthSession, OAuthSettings,
    SigningAlgorithm, WorkloadAssertion,
};
use crate::tool::{AutoApproval, McpTool, ServerSession};

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
    /// What each tool call answered (as the model would be shown it), in call order.
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
    /// `MCP_CONFORMANCE_PROTOCOL_VERSION`: the revision the scenario runs at, which fixes the
    /// lifecycle (2026-07-28 is stateless; the dated revisions before it use `initialize`).
    pub protocol_version: Option<String>,
}

impl ScenarioInput {
    /// The lifecycle the scenario's revision asks for.
    fn lifecycle(&self) -> Lifecycle {
        match self.protocol_version.as_deref() {
            Some(version) if version >= STATELESS_REVISION => Lifecycle::Stateless,
            _ => Lifecycle::Negotiated,
        }
    }
}

/// The client ID metadata document URL the suite's authorization servers know (its scenarios
/// check that a client offers it when they support client ID metadata documents).
pub const SUITE_CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The first revision without `initialize` (dates compare as text).
const STATELESS_REVISION: &str = "2026-07-28";

/// The scenario that checks a tool's JSON Schema 2020-12 input schema reaches Braid unchanged.
const SCHEMA_PRESERVATION: &str = "json-schema-2020-12-preservation";

/// In that scenario, the tool whose schema is checked and the tool it is echoed through.
const SCHEMA_TOOL: &str = "json_schema_2020_12_tool";
const SCHEMA_ECHO_TOOL: &str = "json_schema_echo";

/// Why [`run_blocking`] failed.
#[derive(Debug, thiserror::Error)]
pub enum BlockingRunError {
    /// The async runtime cannot start (threads or the I/O driver).
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// The scenario failed.
    #[error(transparent)]
    Scenario(#[from] McpError),
}

/// [`run`] on a runtime of its own. The `braid` binary calls this instead of polling [`run`]
/// itself: release builds do not share generic code between crates, so the crate that polls a
/// future compiles every async layer under it again.
pub fn run_blocking(input: &ScenarioInput, url: &str) -> Result<ScenarioReport, BlockingRunError> {
    let runtime = tokio::runtime::Runtime::new().map_err(BlockingRunError::Runtime)?;
    Ok(runtime.block_on(run(input, url))?)
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
    config.lifecycle = input.lifecycle();
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
            crate::connection::Launch {
                message_limit: crate::MAX_MESSAGE_BYTES,
                // The conformance client talks to an HTTP server: no process to confine.
                sandboxes: &braid_tools::SandboxSettings::default(),
            },
            &mut oauth,
            None,
        )
        .await?;
        let outcome = exercise(input, &connection.service).await;
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
    if let Some(jwt) = text("valid_jwt") {
        settings.grant = Grant::WorkloadIdentity(WorkloadAssertion::Token(jwt));
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
    input: &ScenarioInput,
    service: &RunningService<RoleClient, BraidClient>,
) -> Result<ScenarioReport, McpError> {
    let peer = service.peer();
    let tools = tokio::time::timeout(CALL_TIMEOUT, peer.list_all_tools())
        .await
        .map_err(|_| timeout("tools/list"))?
        .map_err(|e| McpError::protocol(SERVER, "tools/list", e))?;
    let mut report = ScenarioReport {
        tools: tools.iter().map(|t| t.name.to_string()).collect(),
        results: Vec::new(),
    };
    if input.scenario == "initialize" {
        return Ok(report);
    }
    // Each call goes through the tool the model would be given, so the suite judges the same
    // path as a real turn: its schema, its timeout, its answers to multi-round input.
    let refusal = Refusal::default();
    let session = ServerSession {
        server: SERVER,
        timeout: CALL_TIMEOUT,
        hints: ToolHints::Ignored,
        peer,
        answerer: Some(service.service()),
        refusal: &refusal,
    };
    let context = ToolContext::new(None, AgentRole::Actor);
    for (name, arguments) in planned_calls(input, &tools, &session)? {
        let tool = tools
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| McpError::Start {
                server: SERVER.into(),
                reason: format!("the scenario calls `{name}`, which the server does not list"),
            })?;
        let tool = McpTool::new(&session, tool, name.clone(), AutoApproval::AskPolicy);
        let output = tool
            .call(Value::Object(arguments), &context)
            .await
            .map_err(|e| McpError::Protocol {
                server: SERVER.into(),
                operation: format!("tools/call {name}"),
                reason: e.to_string(),
                code: None,
                data: None,
            })?;
        report.results.push(output.content.to_string());
    }
    Ok(report)
}

/// One tool call of a scenario: the tool's name and its arguments.
type PlannedCall = (String, Map<String, Value>);

/// The tool calls of a scenario, in order: those its context names (with their arguments),
/// else for the schema preservation scenario the echo of the checked tool's schema as Braid
/// shows it to the model, else every listed tool with arguments made from its schema.
fn planned_calls(
    input: &ScenarioInput,
    tools: &[Tool],
    session: &ServerSession<'_>,
) -> Result<Vec<PlannedCall>, McpError> {
    let unusable = |reason: String| McpError::Start {
        server: SERVER.into(),
        reason,
    };
    if let Some(calls) = input.context.as_ref().and_then(|c| c.get("toolCalls")) {
        let calls = calls
            .as_array()
            .ok_or_else(|| unusable("the context's toolCalls is not an array".into()))?;
        return calls
            .iter()
            .map(|call| {
                let name = call.get("name").and_then(Value::as_str).ok_or_else(|| {
                    unusable(format!("a tool call of the context has no name: {call}"))
                })?;
                let arguments = match call.get("arguments") {
                    None => Map::new(),
                    Some(Value::Object(map)) => map.clone(),
                    Some(other) => {
                        return Err(unusable(format!(
                            "the arguments of `{name}` are not an object: {other}"
                        )));
                    }
                };
                Ok((name.to_string(), arguments))
            })
            .collect();
    }
    if input.scenario == SCHEMA_PRESERVATION {
        let tool = tools
            .iter()
            .find(|t| t.name == SCHEMA_TOOL)
            .ok_or_else(|| unusable(format!("the server lists no `{SCHEMA_TOOL}`")))?;
        let shown = McpTool::new(session, tool, SCHEMA_TOOL.into(), AutoApproval::AskPolicy);
        let mut arguments = Map::new();
        arguments.insert("schema".into(), shown.spec().parameters.clone());
        return Ok(vec![(SCHEMA_ECHO_TOOL.to_string(), arguments)]);
    }
    Ok(tools
        .iter()
        .map(|tool| (tool.name.to_string(), arguments_for(tool)))
        .collect())
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
    fn the_revision_of_a_scenario_chooses_its_lifecycle() {
        let at = |version: Option<&str>| ScenarioInput {
            protocol_version: version.map(str::to_string),
            ..ScenarioInput::default()
        };
        assert_eq!(at(None).lifecycle(), Lifecycle::Negotiated);
        assert_eq!(at(Some("2025-11-25")).lifecycle(), Lifecycle::Negotiated);
        assert_eq!(at(Some("2026-07-28")).lifecycle(), Lifecycle::Stateless);
    }

    #[test]
    fn a_workload_identity_scenario_uses_the_jwt_bearer_grant() {
        let input = ScenarioInput {
            scenario: "auth/wif-jwt-bearer".into(),
            context: Some(json!({ "client_id": "w", "valid_jwt": "a.b.c" })),
            ..ScenarioInput::default()
        };
        let settings = oauth_settings(&input).unwrap();
        assert_eq!(settings.client_id.as_deref(), Some("w"));
        assert_eq!(
            settings.grant,
            Grant::WorkloadIdentity(WorkloadAssertion::Token("a.b.c".into()))
        );
    }

    #[test]
    fn a_tool_without_required_arguments_gets_none() {
        let t = tool(json!({ "type": "object", "properties": {} }));
        assert!(arguments_for(&t).is_empty());
    }
}
