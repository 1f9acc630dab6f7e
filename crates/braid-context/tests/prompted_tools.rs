//! Prompted tool calls: a model without tool calling of its own (the mock writes its calls as
//! text) gets the tools in its system prompt and no definitions; its fenced calls become the
//! same requests, approvals, results and loop as native calls; malformed calls get an error
//! result it can read; the history goes back to it as text. The mode comes from the operator's
//! override or the model server's report.

use crate::common;

use braid_llm::CapabilityOverride;
use braid_protocol::api::{ApprovalDecision, ApprovalRequest, Decision};
use braid_protocol::*;
use braid_testkit::{DiscoveryReply, Script, ServerKind};
use common::*;
use serde_json::{Value, json};

fn prompted() -> CapabilityOverride {
    CapabilityOverride {
        tool_calling: Some(ToolCalling::Prompted),
        ..CapabilityOverride::default()
    }
}

/// A call as the model writes it.
fn block(name: &str, arguments: Value) -> String {
    format!(
        "```tool_call\n{}\n```",
        json!({"name": name, "arguments": arguments})
    )
}

/// The body of the `n`th request the mock received.
fn sent(h: &Harness, n: usize) -> Value {
    h.mock.requests()[n].json().unwrap()
}

/// The request's messages as (role, content) pairs.
fn turns(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn tool_results(ms: &[Message]) -> Vec<ToolResultMessage> {
    ms.iter()
        .filter_map(|m| match &m.kind {
            MessageKind::ToolResult(r) => Some((**r).clone()),
            _ => None,
        })
        .collect()
}

fn tool_calls(ms: &[Message]) -> Vec<ToolCall> {
    ms.iter()
        .filter_map(|m| match &m.kind {
            MessageKind::ToolRequest(r) => Some(r.calls.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

fn assistant_texts(ms: &[Message]) -> Vec<String> {
    ms.iter()
        .filter(|m| m.role == Role::Assistant)
        .filter_map(|m| match &m.kind {
            MessageKind::Text(t) => Some(t.text()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_prompted_loop_waits_for_approval_runs_the_call_and_completes() {
    let write = block(
        "write_file",
        json!({"path": "README.md", "content": "# Rewritten\n"}),
    );
    let h = Harness::with_override(
        Script::new()
            .then(reply(&["I will rewrite it.\n\n", &write]))
            .then(reply(&["Rewritten."])),
        prompted(),
    )
    .await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("rewrite the readme")).await.unwrap();
    let ContextState::AwaitingToolApproval {
        pending_requests,
        tool_names,
        ..
    } = settle(&ctx).await
    else {
        panic!("a write waits for the person")
    };
    assert_eq!(tool_names, ["write_file"]);

    // The request carried no tool definitions; the system prompt listed the tools.
    let first = sent(&h, 0);
    assert!(first.get("tools").is_none(), "{first}");
    let system = &turns(&first)[0];
    assert_eq!(system.0, "system");
    for listed in ["## Tools", "```tool_call", "- write_file(", "- read_file("] {
        assert!(system.1.contains(listed), "{listed}: {}", system.1);
    }

    ctx.approve(ApprovalRequest {
        decisions: vec![ApprovalDecision {
            call_id: pending_requests[0].clone(),
            decision: Decision::Approve,
            reason: None,
        }],
    })
    .await
    .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(
        std::fs::read_to_string(h.workspace.join("README.md")).unwrap(),
        "# Rewritten\n"
    );

    let ms = messages(&ctx).await;
    let calls = tool_calls(&ms);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "write_file");
    assert_eq!(calls[0].approval_status, ApprovalStatus::Approved);
    let results = tool_results(&ms);
    assert_eq!(results.len(), 1);
    assert!(results[0].outcome.is_success());
    assert_eq!(results[0].call_id, calls[0].id);
    // The stored answer is the text around the call; the call is a request like a native one.
    assert_eq!(assistant_texts(&ms), ["I will rewrite it.", "Rewritten."]);

    // The second request gives the history back as text: the call as its block, the result as
    // the person's message; no tool role.
    let second = turns(&sent(&h, 1));
    let roles: Vec<&str> = second.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"], "{second:?}");
    assert!(
        second[2]
            .1
            .starts_with("I will rewrite it.\n\n```tool_call\n")
    );
    assert!(second[2].1.contains("\"write_file\""));
    assert!(
        second[3].1.starts_with("Result of write_file (call 1):\n"),
        "{}",
        second[3].1
    );
}

#[tokio::test]
async fn malformed_and_unknown_calls_get_error_results_and_the_model_recovers() {
    let broken = "```tool_call\n{\"name\": \"read_file\", \"arguments\": {\"path\": }\n```";
    let unknown = block("teleport", json!({"to": "mars"}));
    let fixed = block("read_file", json!({"path": "README.md"}));
    let h = Harness::with_override(
        Script::new()
            .then(reply(&[broken, "\n", &unknown]))
            .then(reply(&["Sorry, again:\n", &fixed]))
            .then(reply(&["The readme says it is a fixture."])),
        prompted(),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("read the readme")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(h.mock.request_count(), 3);

    let ms = messages(&ctx).await;
    let results = tool_results(&ms);
    assert_eq!(results.len(), 3, "{results:#?}");
    let error = |r: &ToolResultMessage| match &r.outcome {
        ToolOutcome::Error { error } => error.message.clone(),
        ToolOutcome::Success { .. } => panic!("{r:?} succeeded"),
    };
    assert_eq!(results[0].tool_name, "read_file");
    assert!(error(&results[0]).contains("not valid JSON"), "{results:?}");
    assert_eq!(results[1].tool_name, "teleport");
    assert!(error(&results[1]).contains("teleport"), "{results:?}");
    assert!(results[2].outcome.is_success());

    // The model read both errors as text, with the tool and the call's place.
    let second = turns(&sent(&h, 1));
    let last = &second.last().unwrap().1;
    assert!(
        last.contains("Result of read_file (call 1):\nError"),
        "{last}"
    );
    assert!(last.contains("not valid JSON"), "{last}");
    assert!(
        last.contains("Result of teleport (call 2):\nError"),
        "{last}"
    );
    let third = turns(&sent(&h, 2));
    assert!(
        third.last().unwrap().1.contains("# Fixture"),
        "{:?}",
        third.last()
    );
}

#[tokio::test]
async fn text_around_a_call_is_kept_and_the_call_runs_in_the_same_turn() {
    let call = block("read_file", json!({"path": "src/lib.rs", "end_line": 2}));
    // The block arrives split over several chunks, as a model streams it.
    let (head, tail) = call.split_at(20);
    let h = Harness::with_override(
        Script::new()
            .then(reply(&[
                "Let me look at the file.\n",
                head,
                tail,
                "\nThen I will explain it.",
            ]))
            .then(reply(&["It has comments only."])),
        prompted(),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("what is in lib.rs?")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);

    let ms = messages(&ctx).await;
    let answer = ms
        .iter()
        .find(|m| m.role == Role::Assistant && matches!(m.kind, MessageKind::Text(_)))
        .unwrap();
    let MessageKind::Text(t) = &answer.kind else {
        unreachable!()
    };
    assert_eq!(
        t.text(),
        "Let me look at the file.\n\nThen I will explain it."
    );
    assert_eq!(answer.status, MessageStatus::Complete);
    let request = ms
        .iter()
        .find(|m| matches!(m.kind, MessageKind::ToolRequest(_)))
        .unwrap();
    assert_eq!(request.turn_id(), answer.turn_id(), "one model turn");
    let calls = tool_calls(&ms);
    assert_eq!(
        calls[0].arguments,
        json!({"path": "src/lib.rs", "end_line": 2})
    );
    let results = tool_results(&ms);
    assert!(results[0].outcome.is_success(), "{results:?}");

    let second = turns(&sent(&h, 1));
    let assistant = &second[2];
    assert_eq!(assistant.0, "assistant");
    assert!(
        assistant
            .1
            .starts_with("Let me look at the file.\n\nThen I will explain it.\n\n```tool_call"),
        "{}",
        assistant.1
    );
    assert!(second[3].1.contains("// line 1"), "{:?}", second[3]);
}

#[tokio::test]
async fn a_server_without_tool_calling_makes_the_context_prompted() {
    let h = Harness::new(
        Script::new()
            .then(reply(&[&block("glob", json!({"pattern": "*.md"}))]))
            .then(reply(&["One readme."]))
            .with_discovery(
                DiscoveryReply::new(ServerKind::LlamaCpp, "mock-model", 32_768).without_tools(),
            ),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("which docs are there?"))
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert!(sent(&h, 0).get("tools").is_none());
    let ms = messages(&ctx).await;
    // An answer of calls only is stored as the request alone (the streamed message became it).
    assert_eq!(assistant_texts(&ms), ["One readme."]);
    let request = ms
        .iter()
        .find(|m| matches!(m.kind, MessageKind::ToolRequest(_)))
        .unwrap();
    assert_eq!(request.metadata["model"], "mock-model");
    assert_eq!(request.metadata["tool_calling"], "prompted");
    let results = tool_results(&ms);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].tool_name, "glob");
    assert!(results[0].outcome.is_success(), "{results:?}");

    let caps = ctx.summary().await.unwrap().capabilities.unwrap();
    assert_eq!(
        caps.tool_calling,
        ToolCallingFigure {
            value: ToolCalling::Prompted,
            source: CapabilitySource::Server
        }
    );
}

#[tokio::test]
async fn the_operators_override_wins_over_the_server() {
    let h = Harness::with_override(
        Script::new()
            .then(calls(&[("c1", "glob", json!({"pattern": "*.md"}))]))
            .then(reply(&["One readme."]))
            .with_discovery(
                DiscoveryReply::new(ServerKind::LlamaCpp, "mock-model", 32_768).without_tools(),
            ),
        CapabilityOverride {
            tool_calling: Some(ToolCalling::Native),
            ..CapabilityOverride::default()
        },
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("which docs are there?"))
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let first = sent(&h, 0);
    assert!(first["tools"].as_array().is_some_and(|t| !t.is_empty()));
    assert!(!turns(&first)[0].1.contains("## Tools"));
    // The native result goes back in the tool role.
    let second = sent(&h, 1);
    assert!(turns(&second).iter().any(|(role, _)| role == "tool"));
    let caps = ctx.summary().await.unwrap().capabilities.unwrap();
    assert_eq!(
        caps.tool_calling,
        ToolCallingFigure {
            value: ToolCalling::Native,
            source: CapabilitySource::Override
        }
    );
}

fn small_window(window: u32) -> ContextConfig {
    ContextConfig {
        approval_policy: ApprovalPolicy::AutoAll,
        context_window: Some(window),
        ..ContextConfig::default()
    }
}

#[tokio::test]
async fn a_prompted_model_keeps_its_tools_in_a_window_too_small_for_native_definitions() {
    let h = Harness::with_override(
        Script::new()
            .then(reply(&[&block("read_file", json!({"path": "README.md"}))]))
            .then(reply(&["A fixture."])),
        prompted(),
    )
    .await;
    // 2,048 tokens leave 1,280 for the prompt: native definitions do not fit (see
    // optimization_engine.rs), the compact list does.
    let ctx = h.context(small_window(2_048)).await;
    ctx.send_message(text("What is the readme?")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let system = turns(&sent(&h, 0))[0].1.clone();
    assert!(system.contains("- read_file("), "{system}");
    assert!(!system.contains("offers no tools"), "{system}");
    assert!(tool_results(&messages(&ctx).await)[0].outcome.is_success());
    let budget = ctx.summary().await.unwrap().token_budget;
    assert!(budget.used <= budget.limit, "{budget:?}");
}

#[tokio::test]
async fn a_window_too_small_for_the_prompted_list_withholds_it_and_says_so() {
    let h =
        Harness::with_override(Script::new().then(reply(&["No tools, then."])), prompted()).await;
    let ctx = h.context(small_window(1_100)).await;
    ctx.send_message(text("Hello")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let body = sent(&h, 0);
    assert!(body.get("tools").is_none());
    let system = turns(&body)[0].1.clone();
    assert!(system.contains("offers no tools"), "{system}");
    assert!(!system.contains("## Tools"), "{system}");
}
