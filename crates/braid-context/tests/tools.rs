//! Tool calls the structured ways: plans and questions from tools, MCP routing by server,
//! unusable arguments and unknown tools.

use crate::common;

use braid_protocol::*;
use braid_testkit::{Chunk, FinishKind, Script, StreamReply};
use common::*;
use serde_json::json;

#[tokio::test]
async fn ask_user_tool_stores_a_question_and_the_answer_resumes_the_loop() {
    let question = json!({"question": "Overwrite the file?", "options": [{"label": "Yes", "value": "yes"}, {"label": "No", "value": "no"}], "severity": "critical"});
    let h = Harness::new(
        Script::new()
            .then(calls(&[("q1", "ask_user", question)]))
            .then(reply(&["Overwritten."])),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("update the config")).await.unwrap();
    let ContextState::AwaitingUserAnswer { question_id } = settle(&ctx).await else {
        panic!()
    };
    let ms = messages(&ctx).await;
    let q = ms.iter().find(|m| m.id == question_id).unwrap();
    let MessageKind::Question(q) = &q.kind else {
        panic!()
    };
    assert_eq!(q.severity, Severity::Critical);
    // The call has its result, so the history is valid for the provider.
    assert!(
        ms.iter()
            .any(|m| m.tool_call_id().map(|c| c.as_str()) == Some("q1"))
    );
    ctx.answer_question(question_id, "yes".into())
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert!(h.mock.requests()[1].body.contains("Yes"));
}

#[tokio::test]
async fn propose_plan_tool_stores_a_plan_and_waits_for_the_person() {
    let plan = json!({"goal": "Rename the module", "steps": [{"step_number": 1, "action": "Rename", "reason": "Clarity", "risks": ["imports break"]}]});
    let h = Harness::new(Script::new().then(calls(&[("p1", "propose_plan", plan)]))).await;
    let ctx = h
        .context(ContextConfig {
            mode: Mode::Plan,
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("plan a rename")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let ms = messages(&ctx).await;
    let plan = ms.iter().find_map(|m| match &m.kind {
        MessageKind::Plan(p) => Some(p.clone()),
        _ => None,
    });
    assert_eq!(
        plan.unwrap().steps[0].risks,
        vec!["imports break".to_string()]
    );
    assert_eq!(
        h.mock.request_count(),
        1,
        "the loop waits for the person to execute or refine"
    );
}

#[tokio::test]
async fn mcp_tool_calls_are_routed_by_server_and_stored_apart() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[(
                "m1",
                "mcp__everything__echo",
                json!({"message": "hi"}),
            )]))
            .then(reply(&["echoed"])),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("echo via mcp")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let ms = messages(&ctx).await;
    let request = ms.iter().find_map(|m| match &m.kind {
        MessageKind::McpToolRequest(r) => Some(r.clone()),
        _ => None,
    });
    let request = request.expect("an mcp_tool_request");
    assert_eq!(request.server_name, "everything");
    assert_eq!(request.tool_name, "echo");
    assert_eq!(request.called_as, "mcp__everything__echo");
    let result = ms.iter().find_map(|m| match &m.kind {
        MessageKind::McpToolResult(r) => Some(r.clone()),
        _ => None,
    });
    let result = result.expect("an mcp_tool_result");
    assert_eq!(result.request_id.as_str(), "m1");
    assert!(matches!(result.outcome, McpOutcome::Success { .. }));
    // The model saw the call under the name it used, and its result.
    let second = h.mock.requests()[1].json().unwrap();
    let text = second.to_string();
    assert!(text.contains("mcp__everything__echo") && text.contains("m1"));
}

#[tokio::test]
async fn malformed_arguments_get_an_error_result_without_running() {
    let bad = StreamReply::new()
        .chunk(Chunk::ToolCallStart {
            index: 0,
            id: "b1".into(),
            name: "echo".into(),
        })
        .chunk(Chunk::ToolCallArgs {
            index: 0,
            delta: "{\"oops\": ".into(),
        })
        .chunk(Chunk::Finish {
            reason: FinishKind::ToolCalls,
        });
    let h = Harness::new(Script::new().then(bad).then(reply(&["sorry"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("go")).await.unwrap();
    // No approval is asked for a call that cannot run.
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let error = call_error(&ctx, "b1").await;
    assert!(
        error.message.contains("not a JSON object"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn unknown_tool_gets_an_error_result_naming_the_available_ones() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[("u1", "teleport", json!({}))]))
            .then(reply(&["ok"])),
    )
    .await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("go")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let body = h.mock.requests()[1].body.clone();
    assert!(body.contains("no tool named `teleport`"), "{body}");
}

#[tokio::test]
async fn planner_role_cannot_run_write_tools() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[(
                "w1",
                "write_file",
                json!({"path": "x.txt", "content": "x"}),
            )]))
            .then(reply(&["ok"])),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            agent_role: AgentRole::Planner,
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("write")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    // The planner was never offered write_file, and calling it anyway is refused.
    let first = h.mock.requests()[0].body.clone();
    assert!(!first.contains("\"write_file\""));
    assert!(!h.workspace.join("x.txt").exists());
    assert!(h.mock.requests()[1].body.contains("not available"));
}

#[tokio::test]
async fn a_client_supplied_result_answers_its_call_once_and_the_loop_goes_on() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[("c1", "slow_write", json!({}))]))
            .then(reply(&["thanks"])),
    )
    .await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("do it")).await.unwrap();
    assert!(matches!(
        settle(&ctx).await,
        ContextState::AwaitingToolApproval { .. }
    ));
    ctx.send_message(SendMessageRequest {
        payload: MessagePayload::ToolResult(braid_protocol::payload::ToolResultPayload {
            call_id: "c1".into(),
            output: Some(json!({"done_by": "the client"})),
            error: None,
        }),
        client_metadata: None,
    })
    .await
    .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let results: Vec<Message> = messages(&ctx)
        .await
        .into_iter()
        .filter(|m| m.tool_call_id().map(|c| c.as_str()) == Some("c1"))
        .collect();
    assert_eq!(results.len(), 1, "exactly one result for the call");
    let MessageKind::ToolResult(r) = &results[0].kind else {
        panic!()
    };
    assert_eq!(
        r.outcome,
        ToolOutcome::Success {
            output: json!({"done_by": "the client"})
        }
    );
    assert!(h.mock.requests()[1].body.contains("the client"));
    // A result for a call that is not open is refused.
    let err = ctx
        .send_message(SendMessageRequest {
            payload: MessagePayload::ToolResult(braid_protocol::payload::ToolResultPayload {
                call_id: "c1".into(),
                output: None,
                error: Some("late".into()),
            }),
            client_metadata: None,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
}

#[tokio::test]
async fn workspace_files_are_listed_for_the_picker_without_ignored_ones() {
    let h = Harness::new(Script::new()).await;
    std::fs::write(h.workspace.join(".gitignore"), "secret.txt\n").unwrap();
    std::fs::write(h.workspace.join("secret.txt"), "hidden").unwrap();
    let ctx = h.context(ContextConfig::default()).await;
    let all = ctx.workspace_files(String::new(), 100).await.unwrap();
    let paths: Vec<&str> = all.files.iter().map(|f| f.path.as_str()).collect();
    assert!(
        paths.contains(&"src/lib.rs") && paths.contains(&"README.md"),
        "{paths:?}"
    );
    assert!(
        !paths.contains(&"secret.txt"),
        "a .gitignored file never appears"
    );
    assert!(!all.truncated);
    let some = ctx.workspace_files("LIB".into(), 100).await.unwrap();
    assert_eq!(
        some.files
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>(),
        vec!["src/lib.rs"]
    );
    let one = ctx.workspace_files(String::new(), 1).await.unwrap();
    assert_eq!(one.files.len(), 1);
    assert!(one.truncated);
    // Without a workspace: a clear conflict.
    let bare = h
        .registry
        .create(braid_protocol::api::CreateContextRequest {
            title: None,
            config: ContextConfig::default(),
        })
        .await
        .unwrap();
    let err = bare.workspace_files(String::new(), 10).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
}

#[tokio::test]
async fn a_stored_workspace_now_outside_the_roots_is_refused_by_every_user() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[("r1", "read_file", json!({"path": "README.md"}))]))
            .then(reply(&["could not read it"])),
    )
    .await;
    let id = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await
        .id();
    h.registry.shutdown().await;
    // The operator restarts with another root: the stored workspace is now outside it.
    let elsewhere = tempfile::tempdir().unwrap();
    let registry = h.restart_with_roots(roots(elsewhere.path()));
    let ctx = registry.get(id).await.unwrap();

    let err = ctx.workspace_files(String::new(), 10).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert_eq!(err.field().as_deref(), Some("config.workspace"));
    assert!(err.to_string().contains("--workspace-root"), "{err}");

    // The model's tool call gets the refusal as its error, the file is never read.
    ctx.send_message(text("read the readme")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let error = call_error(&ctx, "r1").await;
    assert!(
        error
            .message
            .contains("outside the allowed workspace roots"),
        "{error:?}"
    );

    // A file reference fails the same way.
    ctx.send_message(SendMessageRequest {
        payload: MessagePayload::FileReference(braid_protocol::payload::FileReferencePayload {
            path: "README.md".into(),
            range: None,
            display_text: None,
        }),
        client_metadata: None,
    })
    .await
    .unwrap();
    let ContextState::Failed { error, .. } = settle(&ctx).await else {
        panic!("the reference was read")
    };
    assert!(
        error.contains("outside the allowed workspace roots"),
        "{error}"
    );
    registry.shutdown().await;
}

#[tokio::test]
async fn unloading_a_context_releases_its_code_index_and_watcher() {
    let h = Harness::with_settings(
        Script::new()
            .then(calls(&[(
                "d1",
                "find_definition",
                json!({"symbol": "anything"}),
            )]))
            .then(reply(&["done"])),
        braid_context::EngineSettings {
            idle_unload_after: std::time::Duration::ZERO,
            ..braid_context::EngineSettings::default()
        },
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("where is it defined?"))
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let indexes = h.tools.codebase_indexes().unwrap().clone();
    let root = h.workspace.canonicalize().unwrap();
    assert_eq!(indexes.roots(), vec![root.clone()]);
    let index =
        std::sync::Arc::downgrade(&indexes.index_for(&braid_tools::Workspace::new(&root).unwrap()));
    drop(ctx);

    assert_eq!(h.registry.unload_idle().await, 1);
    assert!(indexes.roots().is_empty());
    assert!(
        index.upgrade().is_none(),
        "the index (and its watcher) is still alive"
    );
}

/// The `run_command` arguments of `program args...`.
fn command(program: &str, args: &[&str]) -> serde_json::Value {
    json!({ "program": program, "args": args })
}

#[tokio::test]
async fn a_command_approved_for_the_session_adds_its_rule_which_outlives_a_restart() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[(
                "t1",
                "run_command",
                command("cargo", &["test", "-q"]),
            )]))
            .then(reply(&["tested"]))
            .then(calls(&[(
                "t2",
                "run_command",
                command("cargo", &["test", "--lib"]),
            )]))
            .then(reply(&["tested again"]))
            .then(calls(&[(
                "p1",
                "run_command",
                command("cargo", &["publish"]),
            )]))
            .then(reply(&["not published"])),
    )
    .await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("run the tests")).await.unwrap();
    let ContextState::AwaitingToolApproval { tool_names, .. } = settle(&ctx).await else {
        panic!("a command asks under the default policy")
    };
    assert_eq!(tool_names, vec!["run_command".to_owned()]);
    ctx.approve(api::ApprovalRequest {
        decisions: vec![api::ApprovalDecision {
            call_id: "t1".into(),
            decision: api::Decision::ApproveForSession,
            reason: None,
        }],
    })
    .await
    .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let config = ctx.summary().await.unwrap().config;
    assert_eq!(
        config.command_rules,
        vec![CommandRule {
            program: "cargo".into(),
            args_prefix: vec!["test".into()],
            origin: RuleOrigin::SessionApproval,
        }],
        "the rule the approval offered is stored, not the whole tool"
    );
    assert!(!config.approved_tools.contains(&"run_command".to_owned()));

    // After a restart the rule still holds: the next `cargo test` runs unasked...
    let id = ctx.id();
    ctx.shutdown().await;
    let registry = h.restart();
    let ctx = registry.get(id).await.unwrap();
    ctx.send_message(text("again")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(h.mock.request_count(), 4);
    // ...and `cargo publish` still asks.
    ctx.send_message(text("publish it")).await.unwrap();
    let ContextState::AwaitingToolApproval {
        pending_requests, ..
    } = settle(&ctx).await
    else {
        panic!("a command the rule does not name asks")
    };
    assert_eq!(pending_requests, vec![ToolCallId::from("p1")]);
}

/// An operator who allows unsandboxed commands (`--allow-unsandboxed`), as the engine and the
/// commands' sandbox see it.
fn unsandboxed_allowed() -> braid_context::EngineSettings {
    braid_context::EngineSettings {
        unsandboxed: braid_tools::Unsandboxed::Allowed,
        ..braid_context::EngineSettings::default()
    }
}

#[tokio::test]
async fn a_call_asking_to_leave_the_sandbox_waits_for_the_person_under_auto_all_and_a_rule() {
    let escalated = json!({"program": "touch", "args": ["../planted"], "outside_sandbox": "it writes beside the workspace"});
    let h = Harness::with_settings(
        Script::new()
            .then(calls(&[("e1", "run_command", escalated)]))
            .then(reply(&["done"])),
        unsandboxed_allowed(),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::AutoAll,
            command_rules: vec![CommandRule {
                program: "touch".into(),
                args_prefix: vec![],
                origin: RuleOrigin::Configuration,
            }],
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("plant it")).await.unwrap();
    let ContextState::AwaitingToolApproval {
        pending_requests, ..
    } = settle(&ctx).await
    else {
        panic!("leaving the sandbox is never the policy's or a rule's decision")
    };
    assert_eq!(pending_requests, vec![ToolCallId::from("e1")]);
    let decide = |decision| api::ApprovalRequest {
        decisions: vec![api::ApprovalDecision {
            call_id: "e1".into(),
            decision,
            reason: None,
        }],
    };
    let refused = ctx
        .approve(decide(api::Decision::ApproveForSession))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("outside the sandbox"),
        "{refused}"
    );
    ctx.approve(decide(api::Decision::Approve)).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    // The person approved it and the operator allows it: it ran unconfined, once.
    assert!(h.workspace.parent().unwrap().join("planted").exists());
    let config = ctx.summary().await.unwrap().config;
    assert!(config.approved_tools.is_empty() && config.command_rules.len() == 1);
}

#[tokio::test]
async fn a_call_asking_to_leave_the_sandbox_is_refused_at_once_when_the_operator_does_not_allow_it()
{
    let escalated = json!({"program": "touch", "args": ["../planted"], "outside_sandbox": "it writes beside the workspace"});
    let h = Harness::new(
        Script::new()
            .then(calls(&[("e1", "run_command", escalated)]))
            .then(reply(&["done"])),
    )
    .await;
    // Under the manual policy every command asks, but nobody can grant this one.
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("plant it")).await.unwrap();
    assert_eq!(
        settle(&ctx).await,
        ContextState::Idle,
        "the person is not asked for what the operator refuses"
    );
    let error = call_error(&ctx, "e1").await;
    assert_eq!(error.code.as_deref(), Some("permission_denied"));
    assert!(error.message.contains("--allow-unsandboxed"), "{error:?}");
    assert!(!h.workspace.parent().unwrap().join("planted").exists());
}

#[tokio::test]
async fn the_waiting_state_names_the_rule_approve_for_this_session_would_add() {
    let h = Harness::new(Script::new().then(calls(&[
        ("t1", "run_command", command("cargo", &["test", "-q"])),
        ("s1", "run_command", command("./build.sh", &["--all"])),
        ("r1", "read_file", json!({"path": "README.md"})),
    ])))
    .await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("run the tests")).await.unwrap();
    let ContextState::AwaitingToolApproval {
        pending_requests,
        offered_rules,
        ..
    } = settle(&ctx).await
    else {
        panic!("the commands ask under the default policy")
    };
    assert_eq!(pending_requests.len(), 3);
    // A relative program path is approved once only: no rule is offered for it, nor for a
    // read.
    assert_eq!(
        offered_rules,
        vec![OfferedRule {
            call_id: "t1".into(),
            rule: CommandRule {
                program: "cargo".into(),
                args_prefix: vec!["test".into()],
                origin: RuleOrigin::SessionApproval,
            },
        }]
    );
    // The state a reader gets (and the one stored) says the same.
    let summary = ctx.summary().await.unwrap();
    let stored = serde_json::to_value(&summary.state).unwrap();
    assert_eq!(
        stored["offered_rules"],
        json!([{"call_id": "t1", "rule": {"program": "cargo", "args_prefix": ["test"], "origin": "session_approval"}}])
    );
}

/// When a tool call started and when it finished.
type Run = (chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>);

/// The run of each tool result, by call id.
fn run_intervals(ms: &[Message]) -> std::collections::HashMap<String, Run> {
    ms.iter()
        .filter_map(|m| match &m.kind {
            MessageKind::ToolResult(r) => Some((
                r.call_id.to_string(),
                (r.started_at.unwrap(), r.completed_at.unwrap()),
            )),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn read_only_calls_of_one_answer_run_at_the_same_time_and_a_writing_one_apart() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[
                ("r1", "slow_read", json!({})),
                ("r2", "slow_read", json!({"again": true})),
            ]))
            .then(reply(&["Both read."]))
            .then(calls(&[
                ("r3", "slow_read", json!({})),
                ("w1", "slow_write", json!({})),
            ]))
            .then(reply(&["Read, then wrote."])),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("read twice")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let runs = run_intervals(&messages(&ctx).await);
    let (a, b) = (runs["r1"], runs["r2"]);
    // Each takes 1.5 s: one starts before the other ends, both ways round.
    assert!(
        a.0 < b.1 && b.0 < a.1,
        "two read-only calls overlap: {a:?} {b:?}"
    );

    ctx.send_message(text("read and write")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let runs = run_intervals(&messages(&ctx).await);
    let (read, write) = (runs["r3"], runs["w1"]);
    assert!(
        read.1 <= write.0,
        "a batch with a writing call runs one call at a time: {read:?} {write:?}"
    );
}

/// The `update_plan` result of call `id`, read as the plan's progress.
async fn progress_of(ctx: &braid_context::ContextHandle, id: &str) -> PlanProgress {
    let output = messages(ctx).await.into_iter().find_map(|m| match m.kind {
        MessageKind::ToolResult(r) if r.call_id.as_str() == id => match r.outcome {
            ToolOutcome::Success { output } => Some(output),
            ToolOutcome::Error { error } => panic!("{id} failed: {}", error.message),
        },
        _ => None,
    });
    serde_json::from_value(output.expect("a result")).unwrap()
}

/// The model's answer calling `update_plan` (call `id`) for one step.
fn report(id: &str, step_number: u32, status: &str) -> StreamReply {
    calls(&[(
        id,
        "update_plan",
        json!({"step_number": step_number, "status": status}),
    )])
}

/// Sends `prompt`, which the model answers with a plan, and executes that plan; both settle.
async fn plan_and_execute(ctx: &braid_context::ContextHandle, prompt: &str) -> MessageId {
    ctx.send_message(text(prompt)).await.unwrap();
    assert_eq!(settle(ctx).await, ContextState::Idle);
    let plan_id = messages(ctx)
        .await
        .iter()
        .find(|m| m.kind_name() == KindName::Plan)
        .expect("a plan")
        .id;
    ctx.execute_plan(plan_id).await.unwrap();
    assert_eq!(settle(ctx).await, ContextState::Idle);
    plan_id
}

/// The model's answer proposing a two-step plan.
fn propose_changelog() -> StreamReply {
    let plan = json!({"goal": "Add a changelog", "steps": [
        {"step_number": 1, "action": "Read the readme", "reason": "Name"},
        {"step_number": 2, "action": "Write CHANGELOG.md", "reason": "Release"}
    ]});
    calls(&[("p1", "propose_plan", plan)])
}

fn statuses(p: &PlanProgress) -> Vec<(u32, PlanStepStatus)> {
    p.steps.iter().map(|s| (s.step_number, s.status)).collect()
}

#[tokio::test]
async fn update_plan_ticks_the_executed_plan_without_asking_and_its_progress_survives_a_restart() {
    let h = Harness::new(
        Script::new()
            .then(propose_changelog())
            .then(report("u1", 1, "completed"))
            .then(reply(&["Step 1 done."]))
            .then(report("u2", 2, "in_progress"))
            .then(reply(&["On step 2."])),
    )
    .await;
    // Manual asks for everything that changes something; a progress report changes nothing.
    let ctx = h
        .context(ContextConfig {
            mode: Mode::Plan,
            approval_policy: ApprovalPolicy::Manual,
            ..ContextConfig::default()
        })
        .await;
    let plan_id = plan_and_execute(&ctx, "plan a changelog").await;
    // The execution asks the model to report each step.
    assert!(
        h.mock.requests()[1].body.contains("Call `update_plan`"),
        "{}",
        h.mock.requests()[1].body
    );
    let first = progress_of(&ctx, "u1").await;
    assert_eq!(first.plan_id, plan_id);
    assert_eq!(
        statuses(&first),
        [(1, PlanStepStatus::Completed), (2, PlanStepStatus::Pending)]
    );
    // The plan message itself is not changed: progress is what the branch records.
    let stored = messages(&ctx).await;
    let MessageKind::Plan(p) = &stored.iter().find(|m| m.id == plan_id).unwrap().kind else {
        panic!()
    };
    assert_eq!(p.steps.len(), 2);

    // After a restart the next report starts from what was stored.
    let id = ctx.id();
    ctx.shutdown().await;
    let ctx = h.restart().get(id).await.unwrap();
    ctx.send_message(text("go on")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let second = progress_of(&ctx, "u2").await;
    assert_eq!(
        statuses(&second),
        [
            (1, PlanStepStatus::Completed),
            (2, PlanStepStatus::InProgress)
        ]
    );
}

#[tokio::test]
async fn update_plan_errors_reach_the_model_naming_the_unknown_step_or_the_missing_plan() {
    let plan = json!({"goal": "Rename", "steps": [{"step_number": 1, "action": "Rename", "reason": "Clarity"}]});
    let h = Harness::new(
        Script::new()
            .then(report("early", 1, "completed"))
            .then(reply(&["No plan yet."]))
            .then(calls(&[("p1", "propose_plan", plan)]))
            .then(report("u9", 9, "completed"))
            .then(reply(&["Sorry."])),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("report progress")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let error = call_error(&ctx, "early").await;
    assert!(
        error.message.contains("no plan is being executed"),
        "{}",
        error.message
    );
    ctx.set_mode(Mode::Plan).await.unwrap();
    plan_and_execute(&ctx, "plan a rename").await;
    let error = call_error(&ctx, "u9").await;
    assert!(
        error.message.contains("has no step 9") && error.message.contains("its steps are 1"),
        "{}",
        error.message
    );
    // The model read it.
    assert!(
        h.mock
            .requests()
            .last()
            .unwrap()
            .body
            .contains("has no step 9")
    );
}

#[tokio::test]
async fn update_plan_progress_belongs_to_the_branch_that_executed_the_plan() {
    let h = Harness::new(
        Script::new()
            .then(propose_changelog())
            .then(report("main_1", 1, "completed"))
            .then(reply(&["Step 1 done."]))
            .then(report("again_2", 2, "completed"))
            .then(reply(&["Step 2 done here."])),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            mode: Mode::Plan,
            ..ContextConfig::default()
        })
        .await;
    let plan_id = plan_and_execute(&ctx, "plan a changelog").await;
    assert_eq!(
        statuses(&progress_of(&ctx, "main_1").await),
        [(1, PlanStepStatus::Completed), (2, PlanStepStatus::Pending)]
    );
    // A branch made before the execution never ran the plan: it may run it again, and what
    // main reported is not its progress.
    ctx.create_branch(braid_protocol::api::CreateBranchRequest {
        name: "again".into(),
        from_branch: None,
        from_message: Some(plan_id),
        before_message: None,
        system_prompt: None,
        pipeline: None,
    })
    .await
    .unwrap();
    ctx.switch_branch("again".into()).await.unwrap();
    ctx.execute_plan(plan_id).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(
        statuses(&progress_of(&ctx, "again_2").await),
        [(1, PlanStepStatus::Pending), (2, PlanStepStatus::Completed)]
    );
}
