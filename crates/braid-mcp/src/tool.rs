//! `McpTool`: an MCP server's tool behind Braid's `Tool` trait, so the model and the engine see it
//! like any built-in tool (seed 001, "Dynamic tool discovery from MCP").

use std::time::Duration;

use async_trait::async_trait;
use braid_protocol::{
    ApprovalStatus, McpOutcome, McpToolRequestMessage, McpToolResultMessage, ToolCallId,
};
use braid_tools::{
    Permission, Permissions, RetryRule, Tool, ToolCategory, ToolContext, ToolError, ToolErrorCode,
    ToolOrigin, ToolOutput, ToolSpec,
};
use chrono::{DateTime, Utc};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, InputRequest,
    InputResponses,
};
use rmcp::service::Peer;
use rmcp::{RoleClient, ServiceError};
use serde_json::{Value, json};

use crate::config::ToolHints;
use crate::connection::{BraidClient, Refusal};

/// Where an MCP tool's calls go: what the engine stores in `mcp_tool_request` and
/// `mcp_tool_result` messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpToolRoute {
    /// The configured server name.
    pub server_name: String,
    /// The tool's name on that server.
    pub tool_name: String,
    /// The name the model sees and calls (`mcp__<server>__<tool>`).
    pub called_as: String,
    /// Whether `autoApprove` in the configuration lists the tool.
    pub approval: AutoApproval,
    /// What the server claims about the tool only reading, and whether that claim counts.
    pub read_only_hint: ReadOnlyHint,
}

impl McpToolRoute {
    /// The `mcp_tool_request` the engine stores when the model calls this tool; the approval
    /// starts as `Approved` for `autoApprove` tools and `Pending` otherwise (the policy may still
    /// approve it).
    pub fn request_message(
        &self,
        request_id: ToolCallId,
        arguments: Value,
        requested_at: DateTime<Utc>,
    ) -> McpToolRequestMessage {
        McpToolRequestMessage {
            server_name: self.server_name.clone(),
            tool_name: self.tool_name.clone(),
            called_as: self.called_as.clone(),
            arguments,
            request_id,
            approval_status: match self.approval {
                AutoApproval::Approved => ApprovalStatus::Approved,
                AutoApproval::AskPolicy => ApprovalStatus::Pending,
            },
            requested_at,
        }
    }

    /// The `mcp_tool_result` for a finished call: the MCP result on success; on failure the
    /// error (code, message, MCP details) and what the server returned with it, if anything.
    pub fn result_message(
        &self,
        request_id: ToolCallId,
        result: &Result<ToolOutput, ToolError>,
        executed_at: DateTime<Utc>,
        duration: Duration,
    ) -> McpToolResultMessage {
        let outcome = match result {
            Ok(output) => McpOutcome::Success {
                result: output.content.clone(),
            },
            Err(error) => McpOutcome::Error {
                error: error.to_error_detail(),
                result: error
                    .details
                    .as_ref()
                    .and_then(|d| d.get("mcp"))
                    .filter(|mcp| mcp.get("content").is_some())
                    .cloned()
                    .unwrap_or(Value::Null),
            },
        };
        McpToolResultMessage {
            server_name: self.server_name.clone(),
            tool_name: self.tool_name.clone(),
            request_id,
            outcome,
            executed_at,
            duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
        }
    }
}

/// Whether the configuration lets a tool run without asking the person.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoApproval {
    /// Listed in the server's `autoApprove`.
    Approved,
    /// Not listed: the engine's approval policy decides.
    AskPolicy,
}

/// A tool's `readOnlyHint` annotation as Braid weighs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadOnlyHint {
    /// The server does not claim the tool only reads.
    Absent,
    /// The server claims it, but its configuration does not trust the server's hints: the tool
    /// is treated as one that may change things.
    Untrusted,
    /// The server claims it and its configuration says `"trustToolHints": true`: the tool
    /// counts as read-only.
    Trusted,
}

impl ReadOnlyHint {
    /// How `annotation` (the tool's `readOnlyHint`) counts under the server's `hints` setting.
    pub fn weigh(annotation: Option<bool>, hints: ToolHints) -> Self {
        match (annotation, hints) {
            (Some(true), ToolHints::Trusted) => Self::Trusted,
            (Some(true), ToolHints::Ignored) => Self::Untrusted,
            _ => Self::Absent,
        }
    }
}

/// One tool of one connected MCP server.
pub struct McpTool {
    spec: ToolSpec,
    route: McpToolRoute,
    peer: Peer<RoleClient>,
    /// Who answers the input a call asks for (2026-07-28's multi-round calls): the session's
    /// own client, with its elicitation policy and person to ask.
    answerer: Option<BraidClient>,
    /// Why Braid stopped reading the server, once it has (an oversized message).
    refusal: Refusal,
}

/// What a server says of its tool's use, beyond its description: its title and the
/// annotations it sets (only reads, destructive, safe to repeat, reaches outside), as one
/// example without arguments; `None` when it says nothing of either.
pub(crate) fn described_use(tool: &rmcp::model::Tool) -> Option<braid_protocol::api::ToolExample> {
    let annotations = tool.annotations.as_ref();
    let title = tool
        .title
        .as_deref()
        .or(annotations.and_then(|a| a.title.as_deref()))
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let mut hints = Vec::new();
    if let Some(a) = annotations {
        let said = [
            (a.read_only_hint, "only reads", "changes things"),
            (
                a.destructive_hint,
                "may destroy data",
                "does not destroy data",
            ),
            (a.idempotent_hint, "safe to repeat", "not safe to repeat"),
            (
                a.open_world_hint,
                "reaches outside services",
                "stays within the server",
            ),
        ];
        for (hint, yes, no) in said {
            match hint {
                Some(true) => hints.push(yes),
                Some(false) => hints.push(no),
                None => {}
            }
        }
    }
    let summary = match (title, hints.is_empty()) {
        (None, true) => return None,
        (Some(title), true) => title.to_owned(),
        (None, false) => hints.join("; "),
        (Some(title), false) => format!("{title} ({})", hints.join("; ")),
    };
    Some(braid_protocol::api::ToolExample {
        summary,
        arguments: None,
    })
}

/// Whether a call of `tool` whose connection was lost is tried again once the server is back.
/// The loss may come after the server started the call, so only a tool a trusted server calls
/// read-only or safe to repeat is; a call made while the server is away never reached it, and
/// the engine tries that one again whatever the tool.
fn retry_rule(tool: &rmcp::model::Tool, hints: ToolHints) -> RetryRule {
    let hint = |pick: fn(&rmcp::model::ToolAnnotations) -> Option<bool>| {
        hints == ToolHints::Trusted && tool.annotations.as_ref().and_then(pick) == Some(true)
    };
    if hint(|a| a.read_only_hint) || hint(|a| a.idempotent_hint) {
        RetryRule::Transient {
            max_attempts: RECONNECT_ATTEMPTS,
        }
    } else {
        RetryRule::Never
    }
}

/// How many tries a call of an MCP tool gets in all while its server is not connected (for a
/// call that may have reached the server, only when the tool is safe to repeat).
pub const RECONNECT_ATTEMPTS: u32 = 3;

/// How many rounds of input one call may ask for before Braid gives up on it (rmcp's cap).
const MAX_INPUT_ROUNDS: usize = rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;

/// How a call ended, short of a transport or protocol error.
enum Answered {
    /// The server completed the call.
    Complete(CallToolResult),
    /// The server asked for what Braid does not provide (sampling, roots, a task...).
    Unsupported(String),
}

/// What every tool of one server session shares.
pub(crate) struct ServerSession<'a> {
    /// The configured server name.
    pub(crate) server: &'a str,
    /// How long one call may run.
    pub(crate) timeout: Duration,
    /// Whether the server's `readOnlyHint`s count.
    pub(crate) hints: ToolHints,
    /// The session calls go through.
    pub(crate) peer: &'a Peer<RoleClient>,
    /// Who answers the input a call asks for, if anyone.
    pub(crate) answerer: Option<&'a BraidClient>,
    /// Why Braid stopped reading the server, once it has.
    pub(crate) refusal: &'a Refusal,
}

impl McpTool {
    /// Wraps `tool` of the session's server under the registry name `called_as`.
    pub(crate) fn new(
        session: &ServerSession<'_>,
        tool: &rmcp::model::Tool,
        called_as: String,
        approval: AutoApproval,
    ) -> Self {
        let server = session.server;
        let timeout = session.timeout;
        let hints = session.hints;
        let mut parameters = Value::Object((*tool.input_schema).clone());
        // Some servers omit `"type": "object"` for tools without arguments; providers need it.
        if let Value::Object(map) = &mut parameters {
            map.entry("type").or_insert_with(|| json!("object"));
        }
        let description = tool
            .description
            .as_deref()
            .or(tool.title.as_deref())
            .map(str::to_string)
            .unwrap_or_else(|| format!("Tool `{}` of the MCP server `{server}`.", tool.name));
        // An MCP tool may do anything; only a read-only hint of a server the configuration
        // trusts makes it read-only (and so available to planners, in plan mode and to
        // `limited_auto` without asking).
        let read_only_hint = ReadOnlyHint::weigh(
            tool.annotations.as_ref().and_then(|a| a.read_only_hint),
            hints,
        );
        let retry = retry_rule(tool, hints);
        let permissions = if read_only_hint == ReadOnlyHint::Trusted {
            Permissions::of(&[Permission::Read])
        } else {
            Permissions::of(&[Permission::Execute])
        };
        Self {
            spec: ToolSpec {
                name: called_as.clone(),
                description,
                parameters,
                category: ToolCategory::External,
                permissions,
                timeout,
                origin: ToolOrigin::Mcp {
                    server: server.to_string(),
                },
                retry,
                examples: described_use(tool).into_iter().collect(),
            },
            route: McpToolRoute {
                server_name: server.to_string(),
                tool_name: tool.name.to_string(),
                called_as,
                approval,
                read_only_hint,
            },
            peer: session.peer.clone(),
            answerer: session.answerer.cloned(),
            refusal: session.refusal.clone(),
        }
    }

    /// Calls the tool, answering each round of input it asks for (SEP-2322): elicitations by
    /// the session's client, then the call again with the answers and the server's request
    /// state exactly as it sent it.
    async fn call_answering_input(
        &self,
        mut params: CallToolRequestParams,
    ) -> Result<Answered, ServiceError> {
        for round in 0..MAX_INPUT_ROUNDS {
            let asked = match self.peer.call_tool_once(params.clone()).await? {
                CallToolResponse::Complete(result) => return Ok(Answered::Complete(result)),
                CallToolResponse::InputRequired(asked) => asked,
                _ => return Ok(Answered::Unsupported("a background task".into())),
            };
            let requests = asked.input_requests.unwrap_or_default();
            if requests.is_empty() && asked.request_state.is_none() {
                return Ok(Answered::Unsupported("input, without saying which".into()));
            }
            if requests.is_empty() {
                // Only state: the server is working; ask again a little later each round.
                tokio::time::sleep(Duration::from_millis(100 * (round as u64 + 1))).await;
            }
            let mut answers = InputResponses::new();
            for (key, request) in requests {
                let answer = match (request, &self.answerer) {
                    (InputRequest::Elicitation(request), Some(answerer)) => {
                        answerer.elicit(&request.params).await
                    }
                    (InputRequest::Elicitation(_), None) => {
                        return Ok(Answered::Unsupported("a person's input".into()));
                    }
                    (InputRequest::CreateMessage(_), _) => {
                        return Ok(Answered::Unsupported("sampling".into()));
                    }
                    (InputRequest::ListRoots(_), _) => {
                        return Ok(Answered::Unsupported("roots".into()));
                    }
                    (other, _) => {
                        let method = serde_json::to_value(&other)
                            .ok()
                            .and_then(|v| {
                                v.get("method").and_then(|m| m.as_str()).map(str::to_string)
                            })
                            .unwrap_or_else(|| "an unknown kind of input".into());
                        return Ok(Answered::Unsupported(method));
                    }
                };
                let answer = serde_json::to_value(answer).map_err(|e| {
                    ServiceError::McpError(ErrorData::internal_error(e.to_string(), None))
                })?;
                answers.insert(key, answer);
            }
            params.input_responses = (!answers.is_empty()).then_some(answers);
            params.request_state = asked.request_state;
        }
        Ok(Answered::Unsupported(format!(
            "more than {MAX_INPUT_ROUNDS} rounds of input"
        )))
    }

    /// Where calls of this tool go.
    pub fn route(&self) -> &McpToolRoute {
        &self.route
    }

    fn error(&self, code: ToolErrorCode, message: String, mcp: Value) -> ToolError {
        ToolError::new(code, message).with_details(json!({
            "server": self.route.server_name,
            "tool": self.route.tool_name,
            "mcp": mcp,
        }))
    }

    fn service_error(&self, error: ServiceError) -> ToolError {
        let server = &self.route.server_name;
        let tool = &self.route.tool_name;
        match error {
            ServiceError::McpError(e) => {
                // -32602 is JSON-RPC's "invalid params": the model can fix its arguments.
                let code = if e.code.0 == -32602 {
                    ToolErrorCode::InvalidArguments
                } else {
                    ToolErrorCode::Failed
                };
                self.error(
                    code,
                    format!("MCP server `{server}` refused `{tool}`: {}", e.message),
                    json!({"code": e.code.0, "message": e.message, "data": e.data}),
                )
            }
            ServiceError::Timeout { timeout } => self.timeout_error(timeout),
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                let refused = self
                    .refusal
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone();
                match refused {
                    Some(reason) => self.error(
                        ToolErrorCode::Failed,
                        format!("MCP server `{server}`: {reason}; the answer to `{tool}` was not accepted"),
                        json!({"transport": error.to_string(), "refused": reason}),
                    ),
                    None => self.error(
                        ToolErrorCode::Unavailable,
                        format!("MCP server `{server}` is not connected (it stopped or is restarting); `{tool}` did not run"),
                        json!({"transport": error.to_string()}),
                    ),
                }
            }
            other => self.error(
                ToolErrorCode::Failed,
                format!("MCP server `{server}`: calling `{tool}` failed: {other}"),
                json!({"error": other.to_string()}),
            ),
        }
    }

    fn timeout_error(&self, timeout: Duration) -> ToolError {
        self.error(
            ToolErrorCode::Timeout,
            format!(
                "MCP tool `{}` of server `{}` did not finish within {} s and was cancelled",
                self.route.tool_name,
                self.route.server_name,
                timeout.as_secs_f64()
            ),
            json!({"timeout_ms": timeout.as_millis() as u64}),
        )
    }

    fn interpret_result(&self, result: CallToolResult) -> Result<ToolOutput, ToolError> {
        let mut content = serde_json::to_value(&result.content).unwrap_or(Value::Null);
        summarize_binary_blocks(&mut content);
        let cut = cap_text_blocks(&mut content, MAX_RESULT_TEXT_BYTES);
        let mut body = json!({ "content": content });
        if cut > 0 {
            body["truncated"] = json!(format!(
                "{cut} bytes of text left out: a result keeps at most {MAX_RESULT_TEXT_BYTES} bytes of text (MAX_RESULT_TEXT_BYTES)"
            ));
        }
        if let Some(structured) = &result.structured_content {
            body["structuredContent"] = structured.clone();
        }
        if result.is_error == Some(true) {
            let text = text_of(&body["content"]);
            let message = if text.is_empty() {
                format!(
                    "MCP tool `{}` of server `{}` reported an error",
                    self.route.tool_name, self.route.server_name
                )
            } else {
                format!(
                    "MCP tool `{}` of server `{}` reported an error: {text}",
                    self.route.tool_name, self.route.server_name
                )
            };
            let mut mcp = body;
            mcp["isError"] = json!(true);
            return Err(self.error(ToolErrorCode::Failed, message, mcp));
        }
        Ok(ToolOutput::json(body))
    }
}

/// The most text of one tool result Braid keeps (stores and shows the model); the rest of a
/// longer result is cut, and the result says how much.
pub const MAX_RESULT_TEXT_BYTES: usize = 256 * 1024;

/// Cuts the text blocks of an MCP `content` array so that together they hold at most `budget`
/// bytes (at character boundaries); answers how many bytes were left out.
fn cap_text_blocks(content: &mut Value, mut budget: usize) -> usize {
    let Some(blocks) = content.as_array_mut() else {
        return 0;
    };
    let mut cut = 0;
    for block in blocks {
        let Some(Value::String(text)) = block.get_mut("text") else {
            continue;
        };
        if text.len() <= budget {
            budget -= text.len();
            continue;
        }
        let mut keep = budget;
        while !text.is_char_boundary(keep) {
            keep -= 1;
        }
        cut += text.len() - keep;
        text.truncate(keep);
        // Nothing after a cut block is kept, so the text stays one unbroken start.
        budget = 0;
    }
    cut
}

/// Replaces the base64 payload of image, audio and embedded blob blocks with its size: base64 in
/// a prompt costs many tokens and tells a text model nothing.
fn summarize_binary_blocks(content: &mut Value) {
    let Some(blocks) = content.as_array_mut() else {
        return;
    };
    for block in blocks {
        let target = match block.get("type").and_then(Value::as_str) {
            Some("image" | "audio") => Some((block, "data")),
            Some("resource") => block.get_mut("resource").map(|r| (r, "blob")),
            _ => None,
        };
        let Some((holder, field)) = target else {
            continue;
        };
        let Some(Value::String(data)) = holder.get(field) else {
            continue;
        };
        let size = crate::resource::base64_decoded_len(data);
        if let Value::Object(map) = holder {
            map.remove(field);
            map.insert("size_bytes".into(), json!(size));
            map.insert(
                "omitted".into(),
                json!(format!("{field} not shown ({size} bytes)")),
            );
        }
    }
}

/// The text blocks of an MCP `content` array, joined.
fn text_of(content: &Value) -> String {
    content
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

#[async_trait]
impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let mut params = CallToolRequestParams::new(self.route.tool_name.clone());
        match args {
            Value::Object(map) => params = params.with_arguments(map),
            Value::Null => {}
            other => {
                return Err(ToolError::new(
                    ToolErrorCode::InvalidArguments,
                    format!(
                        "arguments of `{}` must be a JSON object, got {other}",
                        self.spec.name
                    ),
                ));
            }
        }
        let started = std::time::Instant::now();
        // The registry also enforces the timeout; doing it here too keeps direct calls bounded
        // and gives the error the MCP details. Dropping the request sends `notifications/cancelled`.
        let outcome = tokio::select! {
            r = tokio::time::timeout(self.spec.timeout, self.call_answering_input(params)) => r,
            () = ctx.cancel.cancelled() => {
                return Err(ToolError::new(
                    ToolErrorCode::Cancelled,
                    format!("MCP tool `{}` was cancelled", self.spec.name),
                ));
            }
        };
        let result = match outcome {
            Err(_) => Err(self.timeout_error(self.spec.timeout)),
            Ok(Err(e)) => Err(self.service_error(e)),
            Ok(Ok(Answered::Complete(result))) => self.interpret_result(result),
            Ok(Ok(Answered::Unsupported(what))) => Err(self.error(
                ToolErrorCode::Failed,
                format!(
                    "MCP tool `{}` of server `{}` asked for {what}, which Braid does not provide",
                    self.route.tool_name, self.route.server_name
                ),
                json!({"unsupported": what}),
            )),
        };
        tracing::debug!(
            server = %self.route.server_name,
            tool = %self.route.tool_name,
            duration_ms = started.elapsed().as_millis() as u64,
            ok = result.is_ok(),
            "MCP tool call finished"
        );
        result
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use braid_protocol::Validate;

    fn route(approval: AutoApproval) -> McpToolRoute {
        McpToolRoute {
            server_name: "everything".into(),
            tool_name: "get-sum".into(),
            called_as: "mcp__everything__get-sum".into(),
            approval,
            read_only_hint: ReadOnlyHint::Absent,
        }
    }

    fn mcp_tool(json: Value) -> rmcp::model::Tool {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn a_tool_s_title_and_annotations_become_its_described_use() {
        let schema = json!({"type": "object"});
        let plain = mcp_tool(json!({"name": "echo", "inputSchema": schema}));
        assert_eq!(described_use(&plain), None, "nothing said, nothing listed");
        let titled = mcp_tool(json!({
            "name": "search",
            "title": "Search the web",
            "inputSchema": schema,
            "annotations": {"readOnlyHint": true, "openWorldHint": true, "idempotentHint": false}
        }));
        let used = described_use(&titled).unwrap();
        assert_eq!(
            used.summary,
            "Search the web (only reads; not safe to repeat; reaches outside services)"
        );
        assert_eq!(used.arguments, None);
        // The annotations' title stands in for a missing tool title.
        let annotated = mcp_tool(json!({
            "name": "wipe",
            "inputSchema": schema,
            "annotations": {"title": "Wipe the cache", "destructiveHint": true}
        }));
        assert_eq!(
            described_use(&annotated).unwrap().summary,
            "Wipe the cache (may destroy data)"
        );
    }

    #[test]
    fn only_a_tool_a_trusted_server_calls_safe_to_repeat_is_tried_again_after_a_lost_connection() {
        let schema = json!({"type": "object"});
        let idempotent = mcp_tool(json!({
            "name": "get", "inputSchema": schema, "annotations": {"idempotentHint": true}
        }));
        let reader = mcp_tool(json!({
            "name": "read", "inputSchema": schema, "annotations": {"readOnlyHint": true}
        }));
        let plain = mcp_tool(json!({"name": "send", "inputSchema": schema}));
        let again = RetryRule::Transient {
            max_attempts: RECONNECT_ATTEMPTS,
        };
        assert_eq!(retry_rule(&idempotent, ToolHints::Trusted), again);
        assert_eq!(retry_rule(&reader, ToolHints::Trusted), again);
        assert_eq!(retry_rule(&plain, ToolHints::Trusted), RetryRule::Never);
        assert_eq!(
            retry_rule(&idempotent, ToolHints::Ignored),
            RetryRule::Never
        );
        assert_eq!(retry_rule(&reader, ToolHints::Ignored), RetryRule::Never);
    }

    #[test]
    fn a_read_only_hint_counts_only_when_the_server_is_trusted() {
        use ToolHints::{Ignored, Trusted};
        assert_eq!(
            ReadOnlyHint::weigh(Some(true), Trusted),
            ReadOnlyHint::Trusted
        );
        assert_eq!(
            ReadOnlyHint::weigh(Some(true), Ignored),
            ReadOnlyHint::Untrusted
        );
        assert_eq!(
            ReadOnlyHint::weigh(Some(false), Trusted),
            ReadOnlyHint::Absent
        );
        assert_eq!(ReadOnlyHint::weigh(None, Trusted), ReadOnlyHint::Absent);
        assert_eq!(ReadOnlyHint::weigh(None, Ignored), ReadOnlyHint::Absent);
    }

    #[test]
    fn text_beyond_the_budget_is_cut_at_a_character_boundary() {
        let mut content = json!([
            {"type": "text", "text": "abcd"},
            {"type": "image", "size_bytes": 4},
            {"type": "text", "text": "éééé"},
            {"type": "text", "text": "zz"}
        ]);
        // 4 bytes for the first block, 5 left: two `é` (4 bytes) fit, the third would split.
        assert_eq!(cap_text_blocks(&mut content, 9), 4 + 2);
        assert_eq!(content[0]["text"], "abcd");
        assert_eq!(content[2]["text"], "éé");
        assert_eq!(content[3]["text"], "");
        let mut small = json!([{"type": "text", "text": "ok"}]);
        assert_eq!(cap_text_blocks(&mut small, MAX_RESULT_TEXT_BYTES), 0);
        assert_eq!(small[0]["text"], "ok");
    }

    #[test]
    fn image_data_is_replaced_by_its_size() {
        let mut content = json!([
            {"type": "text", "text": "here"},
            {"type": "image", "data": "YWJjZA==", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "x://b", "blob": "YQ=="}}
        ]);
        summarize_binary_blocks(&mut content);
        assert_eq!(content[0]["text"], "here");
        assert!(content[1].get("data").is_none());
        assert_eq!(content[1]["size_bytes"], 4);
        assert_eq!(content[1]["mimeType"], "image/png");
        assert!(content[2]["resource"].get("blob").is_none());
        assert_eq!(content[2]["resource"]["size_bytes"], 1);
    }

    #[test]
    fn request_message_carries_route_and_auto_approval() {
        let now = Utc::now();
        let id = ToolCallId::from("call_1".to_string());
        let pending =
            route(AutoApproval::AskPolicy).request_message(id.clone(), json!({"a": 1}), now);
        assert_eq!(pending.approval_status, ApprovalStatus::Pending);
        assert_eq!(pending.called_as, "mcp__everything__get-sum");
        assert_eq!(pending.tool_name, "get-sum");
        pending.validate().unwrap();
        let approved = route(AutoApproval::Approved).request_message(id, json!({}), now);
        assert_eq!(approved.approval_status, ApprovalStatus::Approved);
    }

    #[test]
    fn result_message_keeps_mcp_error_details_and_returned_content() {
        let err = ToolError::new(ToolErrorCode::Failed, "bad input").with_details(json!({
            "server": "everything", "tool": "get-sum",
            "mcp": {"isError": true, "content": [{"type": "text", "text": "bad input"}]}
        }));
        let msg = route(AutoApproval::AskPolicy).result_message(
            ToolCallId::from("call_1".to_string()),
            &Err(err),
            Utc::now(),
            Duration::from_millis(12),
        );
        assert_eq!(msg.duration_ms, 12);
        let McpOutcome::Error { error, result } = &msg.outcome else {
            panic!("expected an error outcome")
        };
        assert_eq!(error.code.as_deref(), Some("failed"));
        assert_eq!(error.details.as_ref().unwrap()["mcp"]["isError"], true);
        assert_eq!(result["content"][0]["text"], "bad input");
        msg.validate().unwrap();

        let ok = route(AutoApproval::AskPolicy).result_message(
            ToolCallId::from("call_2".to_string()),
            &Ok(ToolOutput::json(
                json!({"content": [{"type": "text", "text": "42"}]}),
            )),
            Utc::now(),
            Duration::ZERO,
        );
        assert!(
            matches!(ok.outcome, McpOutcome::Success { ref result } if result["content"][0]["text"] == "42")
        );
    }
}
