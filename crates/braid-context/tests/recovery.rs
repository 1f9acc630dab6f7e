//! Crash recovery: a context stored in the middle of any operation comes back in a safe state,
//! with what was interrupted recorded and a partial answer kept as `incomplete`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use braid_protocol::*;
use braid_store::ContextChanges;
use braid_testkit::Script;
use common::*;

fn mid_operation_states() -> Vec<ContextState> {
    vec![
        ContextState::ProcessingUserMessage,
        ContextState::ResolvingFileReferences { total: 1 },
        ContextState::RecognizingImages { total: 1 },
        ContextState::EnhancingSystemPrompt,
        ContextState::OptimizingContext,
        ContextState::PreparingLlmRequest,
        ContextState::ConnectingToLlm { attempt: 1 },
        ContextState::AwaitingLlmFirstChunk,
        ContextState::StreamingLlmResponse {
            chunks: 4,
            chars: 20,
        },
        ContextState::ProcessingLlmResponse,
        ContextState::ParsingToolCalls,
        ContextState::ToolAutoLoop {
            depth: 1,
            tools_executed: 0,
        },
        ContextState::ExecutingTool {
            tool_name: "echo".into(),
            index: 1,
            total: 1,
            attempt: 1,
        },
        ContextState::CollectingToolResults,
        ContextState::ProcessingToolResults,
        ContextState::ExecutingWorkflow {
            workflow_name: "w".into(),
            execution_id: "e".into(),
            step: 1,
            total: 2,
        },
    ]
}

#[tokio::test]
async fn every_mid_operation_state_recovers_to_a_safe_state() {
    let states = mid_operation_states();
    let mut covered: Vec<StateKind> = states.iter().map(|s| s.kind()).collect();
    covered.sort();
    let mut expected: Vec<StateKind> = StateKind::ALL
        .into_iter()
        .filter(|k| !k.is_resting())
        .collect();
    expected.sort();
    assert_eq!(covered, expected, "every non-resting state is tested");

    let h = Harness::new(Script::new()).await;
    for state in states {
        let ctx = h.context(ContextConfig::default()).await;
        let id = ctx.id();
        // The process "dies": its actor stops and releases the context.
        ctx.shutdown().await;
        let question = Message::user_text("what was interrupted?");
        let partial = Message::new(
            Role::Assistant,
            MessageKind::Text(TextMessage::plain("half of")),
        )
        .with_status(MessageStatus::Streaming);
        h.store
            .save_changes(
                id,
                &ContextChanges::new()
                    .add_message(&BranchName::main(), question.clone())
                    .add_message(&BranchName::main(), partial.clone())
                    .with_state(state.clone()),
            )
            .await
            .unwrap();
        // A restarted process loads it.
        let restarted = h.restart();
        let ctx = restarted.get(id).await.unwrap();
        let now = ctx.state(false).await.unwrap().state;
        let ContextState::Failed { error, recoverable } = &now else {
            panic!("{state:?} recovered to {now:?}")
        };
        assert!(recoverable);
        assert!(error.contains(state.kind().as_str()), "{error}");
        let ms = messages(&ctx).await;
        assert_eq!(ms[1].id, partial.id);
        assert_eq!(
            ms[1].status,
            MessageStatus::Incomplete,
            "the partial answer is kept as incomplete"
        );
        let MessageKind::SystemControl(SystemControlMessage::Recovered {
            interrupted_state, ..
        }) = &ms[2].kind
        else {
            panic!("{:?}", ms[2].kind)
        };
        assert_eq!(interrupted_state, state.kind().as_str());
        // The store agrees.
        let stored = h.store.get_context(id).await.unwrap().unwrap();
        assert!(matches!(stored.state, ContextState::Failed { .. }));
        ctx.shutdown().await;
    }
}

#[tokio::test]
async fn resting_states_survive_a_restart_unchanged() {
    let h = Harness::new(Script::new().then(calls(&[("w1", "slow_write", serde_json::json!({}))])))
        .await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("write")).await.unwrap();
    let waiting = settle(&ctx).await;
    assert!(matches!(waiting, ContextState::AwaitingToolApproval { .. }));
    ctx.shutdown().await;
    let restarted = h.restart();
    let again = restarted.get(ctx.id()).await.unwrap();
    assert_eq!(again.state(false).await.unwrap().state, waiting);
    assert!(!messages(&again).await.iter().any(|m| matches!(
        m.kind,
        MessageKind::SystemControl(SystemControlMessage::Recovered { .. })
    )));
}

#[tokio::test]
async fn a_context_live_in_one_registry_is_refused_to_another() {
    let h = Harness::new(Script::new()).await;
    let ctx = h.context(ContextConfig::default()).await;
    let other = h.restart();
    let err = other
        .get(ctx.id())
        .await
        .err()
        .expect("owned by the first registry");
    assert_eq!(err.code(), ErrorCode::Conflict);
    ctx.shutdown().await;
    assert!(
        other.get(ctx.id()).await.is_ok(),
        "free once the owner stopped"
    );
}

#[tokio::test]
async fn a_recovered_context_resumes_and_answers() {
    let h = Harness::new(Script::new().then(reply(&["Here is the whole answer."]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let id = ctx.id();
    ctx.shutdown().await;
    h.store
        .save_changes(
            id,
            &ContextChanges::new()
                .add_message(&BranchName::main(), Message::user_text("question"))
                .with_state(ContextState::AwaitingLlmFirstChunk),
        )
        .await
        .unwrap();
    let restarted = h.restart();
    let ctx = restarted.get(id).await.unwrap();
    assert!(matches!(
        ctx.state(false).await.unwrap().state,
        ContextState::Failed { .. }
    ));
    ctx.resume().await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let ms = messages(&ctx).await;
    assert!(
        matches!(&ms.last().unwrap().kind, MessageKind::Text(t) if t.text() == "Here is the whole answer.")
    );
}

/// A tool request whose calls carry these approval statuses.
fn decided_request(calls: &[(&str, ApprovalStatus)]) -> Message {
    let calls = calls
        .iter()
        .map(|(id, status)| {
            let mut call = ToolCall::new(*id, "slow_write", serde_json::json!({}));
            call.approval_status = *status;
            call
        })
        .collect();
    Message::new(
        Role::Assistant,
        MessageKind::ToolRequest(ToolRequestMessage { calls }),
    )
}

#[tokio::test]
async fn an_approved_call_cut_off_by_a_crash_is_not_run_again() {
    let h = Harness::new(Script::new().then(reply(&["noted"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let id = ctx.id();
    ctx.shutdown().await;
    // What a crash while the approved call ran leaves: the approval committed, the state
    // still the one the approval was recorded in, no result.
    h.store
        .save_changes(
            id,
            &ContextChanges::new()
                .add_message(&BranchName::main(), Message::user_text("write"))
                .add_message(
                    &BranchName::main(),
                    decided_request(&[("w1", ApprovalStatus::Approved)]),
                )
                .with_state(ContextState::AwaitingToolApproval {
                    pending_requests: vec![ToolCallId::from("w1")],
                    tool_names: vec!["slow_write".into()],
                }),
        )
        .await
        .unwrap();
    let restarted = h.restart();
    let ctx = restarted.get(id).await.unwrap();
    assert!(matches!(
        ctx.state(false).await.unwrap().state,
        ContextState::Failed {
            recoverable: true,
            ..
        }
    ));
    ctx.resume().await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let ms = messages(&ctx).await;
    let results: Vec<&ToolResultMessage> = ms
        .iter()
        .filter_map(|m| match &m.kind {
            MessageKind::ToolResult(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(
        results.len(),
        1,
        "one result, and the call did not run again"
    );
    let ToolOutcome::Error { error } = &results[0].outcome else {
        panic!("{:?}", results[0].outcome)
    };
    assert_eq!(error.code.as_deref(), Some("interrupted"));
    assert!(
        matches!(&ms.last().unwrap().kind, MessageKind::Text(t) if t.text() == "noted"),
        "the model was asked again with the result"
    );
}

#[tokio::test]
async fn a_half_decided_approval_survives_a_restart_unchanged() {
    let h = Harness::new(Script::new()).await;
    let ctx = h.context(ContextConfig::default()).await;
    let id = ctx.id();
    ctx.shutdown().await;
    let waiting = ContextState::AwaitingToolApproval {
        pending_requests: vec![ToolCallId::from("w2")],
        tool_names: vec!["slow_write".into()],
    };
    h.store
        .save_changes(
            id,
            &ContextChanges::new()
                .add_message(&BranchName::main(), Message::user_text("write twice"))
                .add_message(
                    &BranchName::main(),
                    decided_request(&[
                        ("w1", ApprovalStatus::Approved),
                        ("w2", ApprovalStatus::Pending),
                    ]),
                )
                .with_state(waiting.clone()),
        )
        .await
        .unwrap();
    let restarted = h.restart();
    let ctx = restarted.get(id).await.unwrap();
    assert_eq!(ctx.state(false).await.unwrap().state, waiting);
    assert!(
        !messages(&ctx)
            .await
            .iter()
            .any(|m| matches!(m.kind, MessageKind::ToolResult(_))),
        "the approved call still waits for the other decision"
    );
}
