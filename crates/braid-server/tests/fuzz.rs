//! Fuzz target (issue 13) for the HTTP API's request bodies: arbitrary bytes, arbitrary JSON
//! and mutated valid bodies of every route that takes one, through the extractors the routes
//! use (`JsonBody<T>`, and `SendBody` (`SendMessageRequest::from_json`) for sends), then the
//! checks the engine applies before acting (`ContextConfig::validate`, the config merge patch).
//! Properties: nothing panics; a body that is not UTF-8 JSON is a 400 without a field; every
//! other refusal is a 422 naming a field of the body; an accepted body survives being written
//! and read back.
//!
//! Case counts: `PROPTEST_CASES` (else the default below); `make fuzz` runs them long, bounded
//! by `BRAID_FUZZ_SECONDS`.

use std::collections::BTreeSet;

use axum::body::Body;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use braid_protocol::api::{
    AddMcpServerRequest, ApprovalRequest, CorrectSummaryRequest, CreateBranchRequest,
    CreateContextRequest, FileChangePreviewRequest, GetMcpPromptRequest, McpElicitationReply,
    McpServerDefinition, MergeRequest, PinFactRequest, SetModeRequest, UpdateBranchRequest,
    UpdateContextRequest,
};
use braid_protocol::{ContextConfig, SendMessageRequest, Validate};
use braid_server::body::{JsonBody, SendBody};
use braid_server::error::ApiFailure;
use braid_server::routes::{AnswerQuestionRequest, RefinePlanRequest};
use braid_testkit::fuzz::{
    self, any_bytes, json_scalar, json_with_keys, mutated_bytes, mutated_json,
};
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The default case count of each target in `make test`.
const CASES: u32 = 256;

/// Field names of every request body and of the context configuration.
const BODY_KEYS: &[&str] = &[
    "title",
    "config",
    "model",
    "mode",
    "agent_role",
    "workspace",
    "system_prompt",
    "approval_policy",
    "type",
    "tools",
    "max_depth",
    "approved_tools",
    "tool_timeout_secs",
    "llm_timeout_secs",
    "context_window",
    "optimization",
    "strategy",
    "n",
    "weights",
    "reserve_output_tokens",
    "margin_tokens",
    "decisions",
    "call_id",
    "decision",
    "reason",
    "name",
    "from_branch",
    "from_message",
    "before_message",
    "pipeline",
    "feedback",
    "value",
    "payload",
    "text",
    "path",
    "server",
    "command",
    "args",
    "env",
    "url",
    "headers",
    "disabled",
    "autoApprove",
    "timeout",
    "disabled_mcp_servers",
    "disabled_mcp_tools",
];

/// One route's body: its operation, valid examples, and how the server reads it.
struct BodyRoute {
    operation: &'static str,
    examples: Vec<Value>,
    read: fn(&tokio::runtime::Runtime, Vec<u8>) -> Result<(), TestCaseError>,
}

fn routes() -> Vec<BodyRoute> {
    vec![
        BodyRoute {
            operation: "create_context",
            examples: vec![
                json!({}),
                json!({"title":"t","config":{"model":"m","mode":"plan","agent_role":"planner","workspace":".","system_prompt":"s","approval_policy":{"type":"limited_auto","max_depth":3},"approved_tools":["read_file"],"tool_timeout_secs":30,"context_window":8192,"optimization":{"strategy":{"type":"recent_n","n":5},"reserve_output_tokens":512,"margin_tokens":64}}}),
                json!({"config":{"approval_policy":{"type":"white_list","tools":["a"]},"optimization":{"strategy":"importance_scoring"}}}),
            ],
            read: |rt, bytes| {
                let created = extract::<CreateContextRequest>(rt, bytes)?;
                if let Some(request) = created {
                    check_problems(request.config.validate(), "")?;
                }
                Ok(())
            },
        },
        BodyRoute {
            operation: "update_context",
            examples: vec![
                json!({"title":"new"}),
                json!({"config":{"mode":"plan","context_window":null,"optimization":{"margin_tokens":10}}}),
            ],
            read: |rt, bytes| {
                if let Some(UpdateContextRequest {
                    config: Some(patch),
                    ..
                }) = extract::<UpdateContextRequest>(rt, bytes)?
                {
                    match ContextConfig::default().merge_patch(&patch) {
                        Ok(config) => check_problems(config.validate(), "")?,
                        Err(e) => {
                            let field = e.field().unwrap_or_default();
                            prop_assert!(field.starts_with("config"), "{:?}", e);
                        }
                    }
                }
                Ok(())
            },
        },
        BodyRoute {
            operation: "send_message",
            examples: vec![
                json!({"payload":{"type":"text","text":"hi"}}),
                json!({"payload":{"type":"file_reference","path":"src/lib.rs","range":{"start_line":1,"end_line":3}}}),
            ],
            read: |rt, bytes| check_send(rt, bytes),
        },
        BodyRoute {
            operation: "approve",
            examples: vec![
                json!({"decisions":[{"call_id":"c1","decision":"approve"},{"call_id":"c2","decision":"deny","reason":"no"},{"call_id":"c3","decision":"approve_for_session"}]}),
            ],
            read: |rt, bytes| extract::<ApprovalRequest>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "preview_file_change",
            examples: vec![
                json!({"tool":"write_file","arguments":{"path":"src/main.rs","content":"fn main() {}\n"}}),
                json!({"tool":"replace_in_file","arguments":{"path":"a.txt","old":"x","new":"y"}}),
            ],
            read: |rt, bytes| extract::<FileChangePreviewRequest>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "pin_fact",
            examples: vec![json!({"text":"The staging database is read-only."})],
            read: |rt, bytes| extract::<PinFactRequest>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "correct_summary",
            examples: vec![json!({"text":"The person chose PostgreSQL 17."})],
            read: |rt, bytes| extract::<CorrectSummaryRequest>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "set_mode",
            examples: vec![json!({"mode":"plan"}), json!({"mode":"act"})],
            read: |rt, bytes| extract::<SetModeRequest>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "create_branch",
            examples: vec![
                json!({"name":"b"}),
                json!({"name":"b","from_branch":"main","from_message":"0192f0c4-1111-7000-8000-000000000003","system_prompt":"s","pipeline":["validate","prepare_request"]}),
                json!({"name":"b","before_message":"0192f0c4-1111-7000-8000-000000000003"}),
            ],
            read: |rt, bytes| extract::<CreateBranchRequest>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "update_branch",
            examples: vec![
                json!({}),
                json!({"system_prompt":"terse"}),
                json!({"system_prompt":null,"pipeline":["validate","optimize_context"]}),
                json!({"pipeline":null}),
            ],
            read: |rt, bytes| extract::<UpdateBranchRequest>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "merge_branch",
            examples: vec![
                json!({"strategy":{"type":"append"}}),
                json!({"target":"main","strategy":{"type":"rebase"},"dry_run":true,"resolutions":[{"conflict":"file_write:a.txt","resolution":"take_source"}]}),
                json!({"strategy":{"type":"cherry_pick","message_ids":["0192f0c4-1111-7000-8000-000000000003"]},"accept_warnings":true}),
            ],
            read: |rt, bytes| extract::<MergeRequest>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "refine_plan",
            examples: vec![json!({"feedback":"smaller steps"})],
            read: |rt, bytes| extract::<RefinePlanRequest>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "answer_question",
            examples: vec![json!({"value":"yes"})],
            read: |rt, bytes| extract::<AnswerQuestionRequest>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "get_mcp_prompt",
            examples: vec![
                json!({}),
                json!({"arguments":{"city":"Lyon","state":"Rhône"}}),
            ],
            read: |rt, bytes| extract::<GetMcpPromptRequest>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "add_mcp_server",
            examples: vec![
                json!({"name":"everything","server":{"command":"npx","args":["-y","pkg"],"env":{"DEBUG":"1"},"autoApprove":["echo"],"timeout":30}}),
                json!({"name":"remote","server":{"url":"http://127.0.0.1:3001/mcp","headers":{"Authorization":"Bearer x"},"disabled":true}}),
            ],
            read: |rt, bytes| extract::<AddMcpServerRequest>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "replace_mcp_server",
            examples: vec![
                json!({"command":"node","args":["server.js"],"env":{"TOKEN":null}}),
                json!({"url":"https://h/mcp","headers":{"Authorization":null,"X-New":"1"},"timeout":2.5}),
            ],
            read: |rt, bytes| extract::<McpServerDefinition>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "reply_mcp_elicitation",
            examples: vec![
                json!({"action":"decline"}),
                json!({"action":"accept","content":{"name":"Ada","age":36,"agree":true}}),
            ],
            read: |rt, bytes| extract::<McpElicitationReply>(rt, bytes).map(drop),
        },
        BodyRoute {
            operation: "run_workflow",
            examples: vec![
                json!({}),
                json!({"parameters":{"focus":"speed","n":3},"display_text":"Review"}),
            ],
            read: |rt, bytes| {
                extract::<braid_protocol::workflow::RunWorkflowRequest>(rt, bytes).map(drop)
            },
        },
    ]
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

fn request(bytes: Vec<u8>) -> Request {
    Request::builder()
        .method("POST")
        .uri("/")
        .header("content-type", "application/json")
        .body(Body::from(bytes))
        .unwrap()
}

/// The top-level fields of `T`'s JSON Schema: what a refusal may name first.
fn fields_of<T: schemars::JsonSchema>() -> BTreeSet<String> {
    let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// A refusal: 400 without a field when the body is not UTF-8 JSON, else 422 naming a field of
/// the request or of the body.
fn check_refusal(
    failure: &ApiFailure,
    bytes: &[u8],
    fields: &BTreeSet<String>,
) -> Result<(), TestCaseError> {
    let is_json = std::str::from_utf8(bytes)
        .ok()
        .is_some_and(|t| serde_json::from_str::<Value>(t).is_ok());
    let error = &failure.body.error;
    prop_assert!(!error.message.trim().is_empty());
    if !is_json {
        prop_assert_eq!(failure.status, StatusCode::BAD_REQUEST);
        prop_assert!(error.field.is_none());
        return Ok(());
    }
    prop_assert_eq!(
        failure.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{:?}",
        error
    );
    let field = error.field.as_deref().unwrap_or_default();
    let head = field.split(['.', '[']).next().unwrap_or_default();
    // A field the request does not have is refused by its own name.
    let given = std::str::from_utf8(bytes)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
        .is_some_and(|v| names_a_key(&v, field));
    prop_assert!(
        head == "(root)" || fields.contains(head) || given,
        "refusal names `{}`, not a field of the body: {}",
        field,
        error.message
    );
    Ok(())
}

/// Reads `bytes` as the server does for a `JsonBody<T>` route; an accepted body must come back
/// unchanged from its JSON.
fn extract<T>(rt: &tokio::runtime::Runtime, bytes: Vec<u8>) -> Result<Option<T>, TestCaseError>
where
    T: DeserializeOwned + Serialize + schemars::JsonSchema,
{
    let outcome = rt.block_on(JsonBody::<T>::from_request(request(bytes.clone()), &()));
    match outcome {
        Ok(JsonBody(body)) => {
            let written = serde_json::to_value(&body).unwrap();
            let again: T = serde_json::from_value(written.clone())
                .map_err(|e| TestCaseError::fail(format!("{written} does not read back: {e}")))?;
            prop_assert_eq!(serde_json::to_value(&again).unwrap(), written);
            Ok(Some(body))
        }
        Err(failure) => {
            check_refusal(&failure, &bytes, &fields_of::<T>())?;
            Ok(None)
        }
    }
}

/// Reads a send body as `send_message` does: text first, then its own parser.
fn check_send(rt: &tokio::runtime::Runtime, bytes: Vec<u8>) -> Result<(), TestCaseError> {
    let parsed = rt.block_on(SendBody::from_request(request(bytes.clone()), &()));
    let fields = fields_of::<SendMessageRequest>();
    match parsed.map(|SendBody(request)| request) {
        Ok(request) => {
            let written = serde_json::to_string(&request).unwrap();
            prop_assert_eq!(SendMessageRequest::from_json(&written), Ok(request));
        }
        Err(failure) => check_refusal(&failure, &bytes, &fields)?,
    }
    Ok(())
}

/// Problems the engine's validation found must name a field below `prefix`.
fn check_problems(
    result: Result<(), braid_protocol::ValidationErrors>,
    prefix: &str,
) -> Result<(), TestCaseError> {
    if let Err(errors) = result {
        prop_assert!(!errors.problems().is_empty());
        for p in errors.problems() {
            prop_assert!(p.path.starts_with(prefix) && !p.path.is_empty());
            prop_assert!(!p.message.is_empty());
        }
    }
    Ok(())
}

#[test]
fn every_route_with_a_body_is_fuzzed() {
    let fuzzed: BTreeSet<&str> = routes().iter().map(|r| r.operation).collect();
    let doc = braid_server::openapi::document();
    let with_body: BTreeSet<&str> = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .filter(|op| op["requestBody"].is_object())
        .map(|op| op["operationId"].as_str().unwrap())
        .collect();
    assert_eq!(fuzzed, with_body, "a route's body is not fuzzed (or gone)");
    let rt = runtime();
    for route in routes() {
        for example in &route.examples {
            let bytes = example.to_string().into_bytes();
            (route.read)(&rt, bytes).unwrap();
        }
    }
}

/// A configuration whose number fields are any scalar, the edges of their types included (they
/// meet in arithmetic: the context window against the reserved tokens).
fn config_numbers() -> impl Strategy<Value = Value> {
    let field = || proptest::option::of(json_scalar());
    (field(), field(), field(), field(), field()).prop_map(
        |(window, timeout, reserve, margin, depth)| {
            let mut config = serde_json::Map::new();
            let mut optimization = serde_json::Map::new();
            let put = |map: &mut serde_json::Map<String, Value>, k: &str, v: Option<Value>| {
                if let Some(v) = v {
                    map.insert(k.to_owned(), v);
                }
            };
            put(&mut config, "context_window", window);
            put(&mut config, "tool_timeout_secs", timeout);
            put(&mut optimization, "reserve_output_tokens", reserve);
            put(&mut optimization, "margin_tokens", margin);
            if let Some(depth) = depth {
                config.insert(
                    "approval_policy".into(),
                    json!({"type": "limited_auto", "max_depth": depth}),
                );
            }
            config.insert("optimization".into(), Value::Object(optimization));
            json!({ "config": config })
        },
    )
}

#[test]
fn config_numbers_at_their_edges() {
    let rt = runtime();
    let routes = routes();
    let create = routes.iter().position(|r| r.operation == "create_context");
    let update = routes.iter().position(|r| r.operation == "update_context");
    let strategy = (
        prop::sample::select(vec![create.unwrap(), update.unwrap()]),
        config_numbers(),
    );
    fuzz::run("api_config_numbers", CASES, strategy, |(route, body)| {
        (routes[route].read)(&rt, body.to_string().into_bytes())
    });
}

fn route_index() -> impl Strategy<Value = usize> {
    0..routes().len()
}

#[test]
fn api_bodies_from_arbitrary_bytes() {
    let rt = runtime();
    let routes = routes();
    let strategy = (route_index(), any_bytes(256));
    fuzz::run("api_body_bytes", CASES, strategy, |(route, bytes)| {
        (routes[route].read)(&rt, bytes)
    });
}

#[test]
fn api_bodies_from_arbitrary_json() {
    let rt = runtime();
    let routes = routes();
    let strategy = (
        route_index(),
        prop_oneof![
            json_with_keys(BODY_KEYS),
            json_with_keys(BODY_KEYS).prop_map(|config| json!({ "config": config })),
        ],
    );
    fuzz::run("api_body_json", CASES, strategy, |(route, value)| {
        (routes[route].read)(&rt, value.to_string().into_bytes())
    });
}

#[test]
fn api_bodies_mutated() {
    let rt = runtime();
    let routes = routes();
    let examples: Vec<(usize, Value)> = routes
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r.examples.iter().map(move |e| (i, e.clone())))
        .collect();
    let strategy = prop::sample::select(examples).prop_flat_map(|(route, example)| {
        let text = example.to_string().into_bytes();
        (
            Just(route),
            prop_oneof![
                mutated_json(example, BODY_KEYS).prop_map(|v| v.to_string().into_bytes()),
                mutated_bytes(text),
            ],
        )
    });
    fuzz::run("api_body_mutated", CASES, strategy, |(route, bytes)| {
        (routes[route].read)(&rt, bytes)
    });
}

/// Whether `field` is a key of the body's top level, or a path below one (a key may hold dots).
fn names_a_key(body: &Value, field: &str) -> bool {
    body.as_object().is_some_and(|o| {
        o.keys().any(|k| {
            field == k
                || field
                    .strip_prefix(k.as_str())
                    .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
        })
    })
}
