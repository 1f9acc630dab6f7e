//! Request building from a Braid history, for both providers, as snapshots of the exact JSON
//! bodies (`cargo insta review` after an intended change).

use braid_llm::openai::Delivery;
use braid_llm::{
    AnthropicClient, GenerationOptions, LlmRequest, OpenAiClient, Provider, ProviderConfig,
    ToolDefinition,
};
use braid_protocol::{Message, ToolCalling};
use serde_json::{Value, json};

const TURN_A: &str = "0192f0c4-0000-7000-8000-00000000000a";
const TURN_B: &str = "0192f0c4-0000-7000-8000-00000000000b";
const TURN_C: &str = "0192f0c4-0000-7000-8000-00000000000c";

/// A stored message from its role, kind and data, optionally in a model turn.
fn msg(n: u32, role: &str, kind: &str, data: Value, turn: Option<&str>) -> Message {
    let mut metadata = json!({});
    if let Some(turn) = turn {
        metadata["turn_id"] = json!(turn);
    }
    let envelope = json!({
        "schema_version": 2,
        "id": format!("0192f0c4-0000-7000-8000-{n:012}"),
        "role": role,
        "kind": kind,
        "data": data,
        "status": "complete",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "metadata": metadata,
    });
    Message::from_json(&envelope.to_string())
        .unwrap_or_else(|e| panic!("fixture message {n} ({kind}) does not parse: {e}"))
}

fn text(n: u32, role: &str, text: &str, turn: Option<&str>) -> Message {
    msg(
        n,
        role,
        "text",
        json!({ "parts": [{ "type": "text", "text": text }] }),
        turn,
    )
}

/// A history with every kind of message.
fn every_kind() -> Vec<Message> {
    vec![
        msg(
            1,
            "user",
            "project_structure",
            json!({
                "root_path": "/work/demo",
                "structure_type": "file_list",
                "content": [
                    { "path": "Cargo.toml", "size": 120, "mime_type": "text/x-toml" },
                    { "path": "src/main.rs", "size": 48, "mime_type": "text/x-rust", "language": "rust" }
                ],
                "generated_at": "2026-01-01T00:00:00Z",
                "excluded_patterns": ["target", ".git"]
            }),
            None,
        ),
        msg(
            2,
            "user",
            "file_reference",
            json!({
                "path": "src/main.rs",
                "range": { "start_line": 1, "end_line": 3 },
                "display_text": "@src/main.rs:1-3",
                "resolution": {
                    "type": "resolved",
                    "content": "1 | fn main() {\n2 |     println!(\"hi\");\n3 | }\n",
                    "total_lines": 3,
                    "size_bytes": 48,
                    "resolved_at": "2026-01-01T00:00:00Z"
                }
            }),
            None,
        ),
        msg(
            3,
            "user",
            "file_reference",
            json!({
                "path": "missing.txt",
                "resolution": { "type": "failed", "error": "no such file in the workspace" }
            }),
            None,
        ),
        msg(
            4,
            "user",
            "image",
            json!({
                "source": { "type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo=" },
                "recognition_mode": "auto",
                "caption": "What does this error say?",
                "recognition": {
                    "method": "vision",
                    "vision_analysis": "A terminal showing a compiler error",
                    "recognized_text": "error[E0425]: cannot find value `x`",
                    "recognized_at": "2026-01-01T00:00:00Z"
                }
            }),
            None,
        ),
        msg(
            5,
            "user",
            "mcp_resource",
            json!({
                "server_name": "postgres",
                "resource_uri": "postgres://db/schema/users",
                "name": "users table",
                "content": { "type": "text", "text": "CREATE TABLE users (id int primary key);" },
                "mime_type": "text/plain",
                "retrieved_at": "2026-01-01T00:00:00Z"
            }),
            None,
        ),
        text(6, "user", "Fix the error and check the users table.", None),
        msg(
            7,
            "user",
            "processing",
            json!({ "activity": "Recognizing image" }),
            None,
        ),
        msg(
            8,
            "assistant",
            "text",
            json!({ "parts": [
                { "type": "reasoning", "text": "The user wants two things." },
                { "type": "text", "text": "I will read the file and query the table." }
            ] }),
            Some(TURN_A),
        ),
        msg(
            9,
            "assistant",
            "tool_request",
            json!({ "calls": [
                { "id": "call_read", "name": "read_file", "arguments": { "path": "src/main.rs" }, "approval_status": "approved" },
                { "id": "call_grep", "name": "grep", "arguments": { "pattern": "x" }, "approval_status": "approved" }
            ] }),
            Some(TURN_A),
        ),
        msg(
            10,
            "assistant",
            "mcp_tool_request",
            json!({
                "server_name": "postgres",
                "tool_name": "query",
                "called_as": "mcp__postgres__query",
                "arguments": { "sql": "select count(*) from users" },
                "request_id": "call_sql",
                "approval_status": "approved",
                "requested_at": "2026-01-01T00:00:00Z"
            }),
            Some(TURN_A),
        ),
        // Results stored out of order: each is sent right after the assistant message.
        msg(
            11,
            "tool",
            "mcp_tool_result",
            json!({
                "server_name": "postgres",
                "tool_name": "query",
                "request_id": "call_sql",
                "status": "success",
                "result": { "content": [{ "type": "text", "text": "count = 3" }], "isError": false },
                "executed_at": "2026-01-01T00:00:00Z",
                "duration_ms": 12
            }),
            None,
        ),
        msg(
            12,
            "tool",
            "tool_result",
            json!({
                "call_id": "call_grep",
                "tool_name": "grep",
                "status": "error",
                "error": { "message": "denied by the user", "code": "permission_denied", "recoverable": false },
                "duration_ms": 0
            }),
            None,
        ),
        msg(
            13,
            "tool",
            "tool_result",
            json!({
                "call_id": "call_read",
                "tool_name": "read_file",
                "status": "success",
                "output": { "content": "fn main() {}", "lines": 1 },
                "duration_ms": 3
            }),
            None,
        ),
        msg(
            14,
            "user",
            "system_control",
            json!({ "type": "mode_change", "from": "act", "to": "plan" }),
            None,
        ),
        text(15, "user", "Now plan the fix.", None),
        msg(
            16,
            "assistant",
            "plan",
            json!({
                "goal": "Define x before use",
                "steps": [
                    { "step_number": 1, "action": "Add `let x = 1;`", "reason": "x is undefined", "tools_needed": ["write_file"] }
                ]
            }),
            Some(TURN_B),
        ),
        msg(
            17,
            "assistant",
            "question",
            json!({
                "question": "Apply the plan?",
                "options": [ { "label": "Yes", "value": "yes" }, { "label": "No", "value": "no" } ],
                "severity": "minor",
                "answer": { "value": "yes", "answered_at": "2026-01-01T00:00:00Z" }
            }),
            Some(TURN_C),
        ),
        text(18, "user", "yes", None),
        msg(
            19,
            "assistant",
            "workflow_execution",
            json!({
                "workflow_name": "fix-and-test",
                "execution_id": "wf-1",
                "status": "completed",
                "total_steps": 2,
                "completed_steps": 2,
                "started_at": "2026-01-01T00:00:00Z",
                "updated_at": "2026-01-01T00:00:00Z",
                "result": "all tests pass"
            }),
            None,
        ),
    ]
}

/// A broken history: a call without a result, an orphan result, a turn whose calls were stored
/// in two messages with a result in between, and a duplicate result.
fn needs_repair() -> Vec<Message> {
    vec![
        text(1, "user", "Do two things.", None),
        msg(
            2,
            "assistant",
            "tool_request",
            json!({ "calls": [ { "id": "call_1", "name": "list_files", "arguments": {}, "approval_status": "approved" } ] }),
            Some(TURN_A),
        ),
        msg(
            3,
            "tool",
            "tool_result",
            json!({ "call_id": "call_1", "tool_name": "list_files", "status": "success", "output": ["a.rs"], "duration_ms": 1 }),
            None,
        ),
        msg(
            4,
            "assistant",
            "tool_request",
            json!({ "calls": [ { "id": "call_2", "name": "read_file", "arguments": { "path": "a.rs" }, "approval_status": "pending" } ] }),
            Some(TURN_A),
        ),
        msg(
            5,
            "tool",
            "tool_result",
            json!({ "call_id": "call_orphan", "tool_name": "grep", "status": "success", "output": "stale", "duration_ms": 1 }),
            None,
        ),
        msg(
            6,
            "tool",
            "tool_result",
            json!({ "call_id": "call_1", "tool_name": "list_files", "status": "success", "output": ["duplicate"], "duration_ms": 1 }),
            None,
        ),
        text(7, "user", "Stop.", None),
        text(8, "assistant", "Stopped.", None),
        text(9, "assistant", "Anything else?", None),
    ]
}

fn tools() -> Vec<ToolDefinition> {
    vec![ToolDefinition {
        name: "read_file".into(),
        description: "Read a file of the workspace.".into(),
        parameters: json!({
            "type": "object",
            "properties": { "path": { "type": "string" } },
            "required": ["path"]
        }),
    }]
}

fn request(model: &str, messages: Vec<Message>) -> LlmRequest {
    LlmRequest {
        model: model.into(),
        system_prompt: Some("You are Braid's agent.".into()),
        messages,
        tools: tools().into(),
        tool_calling: ToolCalling::Native,
        options: GenerationOptions {
            max_tokens: Some(1024),
            temperature: Some(0.0),
            ..GenerationOptions::default()
        },
    }
}

fn openai() -> OpenAiClient {
    OpenAiClient::new(ProviderConfig::new(Provider::OpenAi)).unwrap()
}

fn anthropic() -> AnthropicClient {
    AnthropicClient::new(ProviderConfig::new(Provider::Anthropic)).unwrap()
}

#[tokio::test]
async fn openai_body_for_every_kind_with_a_vision_model() {
    let body = openai()
        .request_body(&request("gpt-4o", every_kind()), Delivery::Streamed)
        .unwrap();
    insta::assert_json_snapshot!(body);
}

#[tokio::test]
async fn openai_body_for_every_kind_with_a_text_only_model() {
    let body = openai()
        .request_body(&request("llama3.1:8b", every_kind()), Delivery::Whole)
        .unwrap();
    insta::assert_json_snapshot!(body);
}

#[tokio::test]
async fn anthropic_body_for_every_kind() {
    let body = anthropic().request_body(&request("claude-sonnet-4-20250514", every_kind()), true);
    insta::assert_json_snapshot!(body);
}

#[tokio::test]
async fn openai_body_repairs_missing_and_orphan_results() {
    let body = openai()
        .request_body(&request("gpt-4o", needs_repair()), Delivery::Streamed)
        .unwrap();
    insta::assert_json_snapshot!(body);
}

#[tokio::test]
async fn anthropic_body_repairs_missing_and_orphan_results() {
    let body = anthropic().request_body(&request("claude-3-5-haiku-latest", needs_repair()), false);
    insta::assert_json_snapshot!(body);
}

/// The invariants both providers enforce, checked on the OpenAI body: every call is answered
/// right after its assistant message, and every tool message answers a call made just before.
#[tokio::test]
async fn every_call_is_answered_and_every_answer_has_its_call() {
    for messages in [every_kind(), needs_repair()] {
        let body = openai()
            .request_body(&request("gpt-4o", messages), Delivery::Streamed)
            .unwrap();
        let sent = body["messages"].as_array().unwrap();
        let mut open: Vec<String> = Vec::new();
        for m in sent {
            match m["role"].as_str().unwrap() {
                "tool" => {
                    let id = m["tool_call_id"].as_str().unwrap().to_owned();
                    assert_eq!(open.first(), Some(&id), "result out of place: {m}");
                    open.remove(0);
                }
                role => {
                    assert!(open.is_empty(), "{role} message before results of {open:?}");
                    if let Some(calls) = m["tool_calls"].as_array() {
                        open = calls
                            .iter()
                            .map(|c| c["id"].as_str().unwrap().to_owned())
                            .collect();
                    }
                }
            }
        }
        assert!(open.is_empty());
    }
}

#[tokio::test]
async fn hidden_kinds_and_reasoning_never_reach_either_provider() {
    let req = request("gpt-4o", every_kind());
    for body in [
        openai()
            .request_body(&req, Delivery::Streamed)
            .unwrap()
            .to_string(),
        anthropic().request_body(&req, true).to_string(),
    ] {
        assert!(!body.contains("Recognizing image"), "processing was sent");
        assert!(!body.contains("mode_change"), "system_control was sent");
        assert!(
            !body.contains("The user wants two things"),
            "reasoning was sent"
        );
        assert!(!body.contains("turn_id"), "metadata was sent");
    }
}

/// A prompted model's request carries no tool definitions, and its history's calls and results
/// arrive as text: no `tool` role, no `tool_calls`, no `tool_use`/`tool_result` blocks.
#[tokio::test]
async fn a_prompted_request_sends_no_tool_structures_to_either_provider() {
    let mut req = request("llama3.1:8b", every_kind());
    req.tool_calling = ToolCalling::Prompted;
    let openai_body = openai().request_body(&req, Delivery::Streamed).unwrap();
    let anthropic_body = anthropic().request_body(&req, true);
    for body in [&openai_body, &anthropic_body] {
        assert!(body.get("tools").is_none(), "{body}");
        let text = body.to_string();
        for structure in [
            "tool_calls",
            "tool_call_id",
            "\"tool_use\"",
            "\"tool_result\"",
        ] {
            assert!(!text.contains(structure), "{structure} sent: {text}");
        }
        assert!(text.contains("```tool_call"), "{text}");
        assert!(text.contains("Result of "), "{text}");
    }
    let roles: Vec<&str> = openai_body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert!(!roles.contains(&"tool"), "{roles:?}");
    // User and assistant still alternate after the system prompt.
    for pair in roles[1..].windows(2) {
        assert_ne!(pair[0], pair[1], "{roles:?}");
    }
}

#[test]
fn tool_definitions_in_each_provider_format() {
    insta::assert_json_snapshot!(
        "tool_definitions",
        json!({
            "openai": braid_llm::openai::request::tool_definitions(&tools()),
            "anthropic": braid_llm::anthropic::request::tool_definitions(&tools()),
        })
    );
}
