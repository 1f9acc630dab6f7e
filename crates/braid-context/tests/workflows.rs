//! Workflow runs in the engine (seed 003 "Workflow Execution Messages", seed 001 "Workflow
//! payload"): every step type against the mock LLM with the events they emit, approvals inside a
//! run, failure mid-run, pause / resume / cancel, a restart with a running run, a run the model
//! starts, and parameter checks.

use crate::common;

use std::time::Duration;

use braid_protocol::api::{ApprovalDecision, ApprovalRequest, Decision};
use braid_protocol::payload::WorkflowPayload;
use braid_protocol::workflow::WorkflowControl;
use braid_protocol::*;
use braid_testkit::Script;
use common::*;
use serde_json::{Value, json};

/// Writes a definition into the harness workspace's `.braid/workflows/`.
fn define(h: &Harness, file: &str, yaml: &str) {
    let dir = h.workspace.join(".braid/workflows");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(file), yaml).unwrap();
}

fn run(name: &str, parameters: Value) -> SendMessageRequest {
    SendMessageRequest {
        payload: MessagePayload::Workflow(WorkflowPayload {
            workflow: name.into(),
            parameters: parameters.as_object().cloned().unwrap_or_default(),
            display_text: None,
        }),
        client_metadata: None,
    }
}

fn auto_all() -> ContextConfig {
    ContextConfig {
        approval_policy: ApprovalPolicy::AutoAll,
        ..ContextConfig::default()
    }
}

/// The run stored in message `id`.
async fn execution(ctx: &braid_context::ContextHandle, id: MessageId) -> WorkflowExecutionMessage {
    let ms = messages(ctx).await;
    let m = ms.iter().find(|m| m.id == id).expect("the run's message");
    match &m.kind {
        MessageKind::WorkflowExecution(e) => (**e).clone(),
        other => panic!("not a run: {other:?}"),
    }
}

/// The person's decision on one waiting call.
async fn decide(ctx: &braid_context::ContextHandle, call: &ToolCallId, decision: Decision) {
    ctx.approve(ApprovalRequest {
        decisions: vec![ApprovalDecision {
            call_id: call.clone(),
            decision,
            reason: None,
        }],
    })
    .await
    .unwrap();
}

/// Waits until the context is in a state of this kind.
async fn reach(ctx: &braid_context::ContextHandle, kind: StateKind) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while ctx.state(false).await.unwrap().state.kind() != kind {
        assert!(
            tokio::time::Instant::now() < deadline,
            "never reached {kind}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The progress each `context_update` about the run reported, in order.
fn progress(events: &[SequencedEvent]) -> Vec<(String, u64)> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            ContextEvent::ContextUpdate(u) => u.metadata.get("workflow").map(|w| {
                (
                    w["status"].as_str().unwrap_or_default().to_owned(),
                    w["completed_steps"].as_u64().unwrap_or_default(),
                )
            }),
            _ => None,
        })
        .collect()
}

/// Receives events until one about the run reports `status` (events are published once
/// stored, so they may arrive after the state settled).
async fn until_status(
    rx: &mut tokio::sync::broadcast::Receiver<braid_context::events::LiveEvent>,
    status: &str,
) -> Vec<SequencedEvent> {
    let mut out = Vec::new();
    loop {
        let e = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap_or_else(|_| panic!("no `{status}` update; got {:?}", progress(&out)))
            .unwrap();
        out.push(e.sequenced());
        if progress(&out).last().is_some_and(|(s, _)| s == status) {
            return out;
        }
    }
}

const EVERY_STEP: &str = r#"
name: every-step
description: One step of each type
parameters:
  type: object
  properties: { focus: { type: string, default: correctness } }
steps:
  - name: look
    tool: echo
    arguments: { about: "{{ params.focus }}" }
  - name: review
    prompt: "Review for {{ params.focus }}: {{ steps.look.output.echo.about }}"
  - name: confirm
    approval: "Save the review about {{ params.focus }}?"
  - name: save
    tool: write_file
    arguments: { path: "REVIEW.md", content: "{{ steps.review.output }}" }
"#;

#[tokio::test]
async fn a_run_of_each_step_type_streams_progress_and_ends_with_a_tool_result() {
    let h = Harness::new(Script::new().then(reply(&["Looks ", "right."]))).await;
    define(&h, "every.yaml", EVERY_STEP);
    let ctx = h.context(auto_all()).await;
    let mut rx = ctx.subscribe();
    let sent = ctx
        .send_message(run("every-step", json!({"focus": "speed"})))
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);

    // The approval step waits for the person with its question rendered.
    let e = execution(&ctx, sent.message_id).await;
    assert_eq!(e.execution_id, sent.message_id.to_string());
    assert_eq!(e.status, WorkflowStatus::Paused);
    assert_eq!(e.completed_steps, 2);
    assert_eq!(e.total_steps, 4);
    assert_eq!(e.current_step.as_deref(), Some("confirm"));
    assert_eq!(
        e.awaiting_approval.as_deref(),
        Some("Save the review about speed?")
    );
    // The prompt step's text reached the model, without tools, and its answer streamed.
    let request = &h.mock.requests()[0].body;
    assert!(request.contains("Review for speed: speed"), "{request}");
    assert!(
        !request.contains("\"tools\""),
        "a prompt step offers no tools"
    );
    let before = until_status(&mut rx, "paused").await;
    assert!(
        before
            .iter()
            .any(|e| matches!(&e.event, ContextEvent::ContentDelta(d) if d.delta == "Looks "))
    );
    assert_eq!(
        progress(&before),
        [
            ("running".to_owned(), 0),
            ("running".to_owned(), 1),
            ("running".to_owned(), 2),
            ("paused".to_owned(), 2)
        ]
    );

    ctx.control_workflow(&e.execution_id, WorkflowControl::Resume)
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let e = execution(&ctx, sent.message_id).await;
    assert_eq!(e.status, WorkflowStatus::Completed);
    assert_eq!(e.completed_steps, 4);
    assert_eq!(e.current_step, None);
    assert!(e.awaiting_approval.is_none());
    assert!(e.updated_at >= e.started_at);
    assert_eq!(
        std::fs::read_to_string(h.workspace.join("REVIEW.md")).unwrap(),
        "Looks right."
    );
    assert!(e.result.is_some());
    assert_eq!(
        progress(&until_status(&mut rx, "completed").await),
        [
            ("running".to_owned(), 2),
            ("running".to_owned(), 3),
            ("running".to_owned(), 4),
            ("completed".to_owned(), 4)
        ]
    );
    // The result is also a structured tool result, after a `workflow__every-step` request.
    let ms = messages(&ctx).await;
    let request = ms
        .iter()
        .find(|m| matches!(&m.kind, MessageKind::ToolRequest(r) if r.calls[0].name == "workflow__every-step"))
        .expect("the run as a tool call");
    let MessageKind::ToolRequest(r) = &request.kind else {
        unreachable!()
    };
    assert_eq!(r.calls[0].arguments, json!({"focus": "speed"}));
    let result = ms
        .iter()
        .find(|m| m.tool_call_id() == Some(&r.calls[0].id))
        .unwrap();
    let MessageKind::ToolResult(result) = &result.kind else {
        panic!()
    };
    let ToolOutcome::Success { output } = &result.outcome else {
        panic!("{:?}", result.outcome)
    };
    assert_eq!(output["status"], "completed");
    assert_eq!(output["workflow"], "every-step");
    // The state machine went through the workflow's states.
    let walked = walk(&ctx).await;
    for k in [
        StateKind::ExecutingWorkflow,
        StateKind::ExecutingTool,
        StateKind::StreamingLlmResponse,
    ] {
        assert!(walked.contains(&k), "{walked:?}");
    }
    assert_eq!(walked.last(), Some(&StateKind::Idle));
}

const WRITE: &str = r#"
name: write-note
description: Writes a note
parameters:
  type: object
  required: [text]
  properties: { text: { type: string, minLength: 1 } }
steps:
  - name: write
    tool: write_file
    arguments: { path: "NOTE.md", content: "{{ params.text }}" }
"#;

#[tokio::test]
async fn a_write_step_under_manual_waits_for_approval_like_a_model_call() {
    let h = Harness::new(Script::new()).await;
    define(&h, "write.yaml", WRITE);
    let ctx = h.context(ContextConfig::default()).await;
    let sent = ctx
        .send_message(run("write-note", json!({"text": "hello"})))
        .await
        .unwrap();
    let ContextState::AwaitingToolApproval {
        pending_requests,
        tool_names,
        ..
    } = settle(&ctx).await
    else {
        panic!("the write should wait for approval")
    };
    assert_eq!(tool_names, ["write_file"]);
    assert!(!h.workspace.join("NOTE.md").exists());
    let e = execution(&ctx, sent.message_id).await;
    assert_eq!(e.status, WorkflowStatus::Running);
    assert_eq!(e.current_step.as_deref(), Some("write"));
    decide(&ctx, &pending_requests[0], Decision::Approve).await;
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(
        std::fs::read_to_string(h.workspace.join("NOTE.md")).unwrap(),
        "hello"
    );
    assert_eq!(
        execution(&ctx, sent.message_id).await.status,
        WorkflowStatus::Completed
    );
}

#[tokio::test]
async fn a_denied_step_fails_the_run_naming_the_step() {
    let h = Harness::new(Script::new()).await;
    define(&h, "write.yaml", WRITE);
    let ctx = h.context(ContextConfig::default()).await;
    let sent = ctx
        .send_message(run("write-note", json!({"text": "hello"})))
        .await
        .unwrap();
    let ContextState::AwaitingToolApproval {
        pending_requests, ..
    } = settle(&ctx).await
    else {
        panic!()
    };
    decide(&ctx, &pending_requests[0], Decision::Deny).await;
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let e = execution(&ctx, sent.message_id).await;
    assert_eq!(e.status, WorkflowStatus::Failed);
    let error = e.error.unwrap();
    assert_eq!(error.code.as_deref(), Some("denied"));
    assert_eq!(error.details.unwrap()["step"], "write");
    assert!(!h.workspace.join("NOTE.md").exists());
}

#[tokio::test]
async fn a_step_that_fails_mid_run_keeps_the_progress_and_says_why() {
    let h = Harness::new(Script::new()).await;
    define(
        &h,
        "fails.yaml",
        "name: fails\nsteps:\n  - name: first\n    tool: echo\n  - name: burn\n    tool: broken\n  - name: never\n    tool: echo\n",
    );
    let ctx = h.context(auto_all()).await;
    let mut rx = ctx.subscribe();
    let sent = ctx.send_message(run("fails", json!({}))).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let e = execution(&ctx, sent.message_id).await;
    assert_eq!(e.status, WorkflowStatus::Failed);
    assert_eq!(e.completed_steps, 1);
    assert_eq!(e.current_step.as_deref(), Some("burn"));
    let error = e.error.unwrap();
    assert!(error.message.contains("step `burn` failed"), "{error:?}");
    assert!(error.message.contains("the disk is on fire"), "{error:?}");
    let details = error.details.unwrap();
    assert_eq!(details["step"], "burn");
    assert_eq!(details["step_index"], 1);
    assert_eq!(details["step_type"], "tool");
    assert!(
        details["cause"]["message"]
            .as_str()
            .unwrap()
            .contains("fire")
    );
    assert_eq!(
        progress(&until_status(&mut rx, "failed").await)
            .last()
            .unwrap(),
        &("failed".to_owned(), 1)
    );
    // The failure is the workflow's tool result too, as an error the model can read.
    let ms = messages(&ctx).await;
    assert!(ms.iter().any(|m| matches!(&m.kind,
        MessageKind::ToolResult(r) if r.tool_name == "workflow__fails"
            && matches!(&r.outcome, ToolOutcome::Error { error } if error.message.contains("burn")))));
}

const SLOW: &str = "name: slow\nsteps:\n  - name: wait\n    tool: slow_read\n  - name: after\n    tool: echo\n    arguments: { x: 1 }\n";

#[tokio::test]
async fn pause_takes_effect_when_the_step_ends_and_resume_continues_from_the_current_step() {
    let h = Harness::new(Script::new()).await;
    define(&h, "slow.yaml", SLOW);
    let ctx = h.context(auto_all()).await;
    let sent = ctx.send_message(run("slow", json!({}))).await.unwrap();
    reach(&ctx, StateKind::ExecutingTool).await;
    let eid = sent.message_id.to_string();
    ctx.control_workflow(&eid, WorkflowControl::Pause)
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let e = execution(&ctx, sent.message_id).await;
    assert_eq!(e.status, WorkflowStatus::Paused);
    assert_eq!(e.completed_steps, 1, "the running step finished");
    assert_eq!(e.current_step.as_deref(), Some("after"));
    // Pausing twice is harmless; cancelling a paused run is allowed; resuming needs a pause.
    ctx.control_workflow(&eid, WorkflowControl::Pause)
        .await
        .unwrap();
    ctx.control_workflow(&eid, WorkflowControl::Resume)
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let e = execution(&ctx, sent.message_id).await;
    assert_eq!(e.status, WorkflowStatus::Completed);
    assert_eq!(e.completed_steps, 2);
    let again = ctx.control_workflow(&eid, WorkflowControl::Resume).await;
    assert!(matches!(
        again,
        Err(braid_context::EngineError::Conflict(_))
    ));
}

#[tokio::test]
async fn cancel_stops_a_running_or_paused_run_and_records_it() {
    let h = Harness::new(Script::new()).await;
    define(&h, "slow.yaml", SLOW);
    define(
        &h,
        "ask.yaml",
        "name: ask\nsteps:\n  - name: ok\n    approval: Go on?\n  - name: then\n    tool: echo\n",
    );
    let ctx = h.context(auto_all()).await;
    let sent = ctx.send_message(run("slow", json!({}))).await.unwrap();
    reach(&ctx, StateKind::ExecutingTool).await;
    ctx.control_workflow(&sent.message_id.to_string(), WorkflowControl::Cancel)
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let e = execution(&ctx, sent.message_id).await;
    assert_eq!(e.status, WorkflowStatus::Cancelled);
    assert_eq!(e.completed_steps, 1);

    // Cancelling at an approval step declines it.
    let asked = ctx.send_message(run("ask", json!({}))).await.unwrap();
    settle(&ctx).await;
    assert_eq!(
        execution(&ctx, asked.message_id).await.status,
        WorkflowStatus::Paused
    );
    ctx.control_workflow(&asked.message_id.to_string(), WorkflowControl::Cancel)
        .await
        .unwrap();
    let e = execution(&ctx, asked.message_id).await;
    assert_eq!(e.status, WorkflowStatus::Cancelled);
    assert_eq!(e.completed_steps, 0);
    let unknown = ctx.control_workflow("nope", WorkflowControl::Pause).await;
    assert!(matches!(
        unknown,
        Err(braid_context::EngineError::NotFound(_))
    ));
}

#[tokio::test]
async fn a_restart_leaves_a_running_run_paused_with_a_notice_and_resumable() {
    let h = Harness::new(Script::new()).await;
    define(&h, "write.yaml", WRITE);
    let ctx = h.context(ContextConfig::default()).await;
    let id = ctx.id();
    let sent = ctx
        .send_message(run("write-note", json!({"text": "after restart"})))
        .await
        .unwrap();
    assert!(matches!(
        settle(&ctx).await,
        ContextState::AwaitingToolApproval { .. }
    ));
    ctx.shutdown().await;
    h.registry.shutdown().await;

    let restarted = h.restart();
    let ctx = restarted.get(id).await.unwrap();
    let e = execution(&ctx, sent.message_id).await;
    assert_eq!(e.status, WorkflowStatus::Paused);
    assert_eq!(e.current_step.as_deref(), Some("write"));
    let ms = messages(&ctx).await;
    assert!(ms.iter().any(|m| matches!(&m.kind,
        MessageKind::SystemControl(SystemControlMessage::Recovered { detail, .. }) if detail.contains("write-note") && detail.contains("paused"))));
    // Resuming runs the step again, under the policy: it waits for approval once more.
    ctx.control_workflow(&e.execution_id, WorkflowControl::Resume)
        .await
        .unwrap();
    let ContextState::AwaitingToolApproval {
        pending_requests, ..
    } = settle(&ctx).await
    else {
        panic!()
    };
    decide(&ctx, &pending_requests[0], Decision::Approve).await;
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(
        execution(&ctx, sent.message_id).await.status,
        WorkflowStatus::Completed
    );
    assert_eq!(
        std::fs::read_to_string(h.workspace.join("NOTE.md")).unwrap(),
        "after restart"
    );
}

#[tokio::test]
async fn the_model_starts_a_workflow_through_its_tool_and_reads_the_result() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[("c1", "workflow__greet", json!({"name": "Ada"}))]))
            .then(reply(&["Hello, Ada!"]))
            .then(reply(&["The workflow said hello."])),
    )
    .await;
    define(
        &h,
        "greet.yaml",
        "name: greet\ndescription: Greets someone\nparameters:\n  type: object\n  required: [name]\n  properties: { name: { type: string } }\nsteps:\n  - name: hello\n    prompt: 'Say hello to {{ params.name }}'\n",
    );
    let ctx = h.context(auto_all()).await;
    ctx.send_message(text("greet Ada")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let requests = h.mock.requests();
    assert!(
        requests[0].body.contains("workflow__greet"),
        "offered as a tool"
    );
    assert!(requests[0].body.contains("Greets someone"));
    assert!(requests[1].body.contains("Say hello to Ada"));
    // The model's call got the workflow's result, and the model went on with it.
    assert!(requests[2].body.contains("Hello, Ada!"));
    let ms = messages(&ctx).await;
    let run = ms
        .iter()
        .find_map(|m| match &m.kind {
            MessageKind::WorkflowExecution(e) => Some(e.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(run.status, WorkflowStatus::Completed);
    assert_eq!(run.result, Some(json!("Hello, Ada!")));
    let answer = ms
        .iter()
        .find(|m| m.tool_call_id().map(|c| c.as_str()) == Some("c1"))
        .unwrap();
    let MessageKind::ToolResult(r) = &answer.kind else {
        panic!()
    };
    assert!(
        matches!(&r.outcome, ToolOutcome::Success { output } if output["result"] == "Hello, Ada!")
    );
    assert!(
        matches!(&ms.last().unwrap().kind, MessageKind::Text(t) if t.text() == "The workflow said hello.")
    );
}

#[tokio::test]
async fn the_models_workflow_call_waits_for_approval_under_manual() {
    let h = Harness::new(Script::new().then(calls(&[(
        "c1",
        "workflow__write-note",
        json!({"text": "x"}),
    )])))
    .await;
    define(&h, "write.yaml", WRITE);
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("write a note")).await.unwrap();
    let ContextState::AwaitingToolApproval { tool_names, .. } = settle(&ctx).await else {
        panic!()
    };
    assert_eq!(tool_names, ["workflow__write-note"]);
}

#[tokio::test]
async fn parameters_are_checked_against_the_schema_naming_the_parameter() {
    let h = Harness::new(Script::new()).await;
    define(&h, "write.yaml", WRITE);
    define(&h, "broken.yaml", "name: broken\nsteps: nope\n");
    let ctx = h.context(auto_all()).await;
    let Err(braid_context::EngineError::Invalid(e)) =
        ctx.send_message(run("write-note", json!({}))).await
    else {
        panic!()
    };
    assert_eq!(e.problems()[0].path, "payload.parameters.text");
    let Err(braid_context::EngineError::Invalid(e)) = ctx
        .send_message(run("write-note", json!({"text": 3})))
        .await
    else {
        panic!()
    };
    assert_eq!(e.problems()[0].path, "payload.parameters.text");
    let missing = ctx.send_message(run("nothing", json!({}))).await;
    assert!(matches!(
        missing,
        Err(braid_context::EngineError::NotFound(_))
    ));
    let Err(braid_context::EngineError::Invalid(e)) =
        ctx.send_message(run("broken", json!({}))).await
    else {
        panic!()
    };
    assert!(e.problems()[0].message.contains("broken.yaml"));
    // Nothing was stored by refused runs.
    assert!(messages(&ctx).await.is_empty());
    // The list shows both, the broken one with its error.
    let list = ctx.workflows().await.unwrap();
    let broken = list.iter().find(|w| w.name == "broken").unwrap();
    assert_eq!(broken.errors[0].path, "steps");
    let ok = list.iter().find(|w| w.name == "write-note").unwrap();
    assert!(ok.errors.is_empty());
    assert_eq!(ok.parameters["required"], json!(["text"]));
}
