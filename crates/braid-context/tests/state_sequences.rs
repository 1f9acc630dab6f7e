//! Whole state sequences as a client reads them (seed 001 "State transition sequence testing"):
//! the `context_update`s of the event log, each move's `previous_state` the state before it, for a
//! text turn, a tool turn with approval, a retried model call, an interrupt and a burst of
//! hundreds of moves; the streaming states' timing (`connecting_to_llm` until the model
//! server answers); and the moves of running tools (a batch run together, a call tried again).

use std::time::Duration;

use crate::common;

use StateKind::*;
use braid_protocol::api::{ApprovalDecision, ApprovalRequest, Decision};
use braid_protocol::*;
use braid_testkit::{ErrorReply, FinishKind, Script, StreamReply};
use common::*;
use serde_json::json;

/// The state moves of the context's event log, `(previous, current)`, in log order.
async fn logged_moves(
    h: &Harness,
    ctx: &braid_context::ContextHandle,
) -> Vec<(StateKind, StateKind)> {
    h.store.flush_events().await.unwrap();
    let log = h.store.events_after(ctx.id(), 0, 100_000).await.unwrap();
    let sequences: Vec<u64> = log.iter().map(|e| e.sequence).collect();
    assert_eq!(
        sequences,
        (1..=log.len() as u64).collect::<Vec<_>>(),
        "the log has no gap"
    );
    log.into_iter()
        .filter_map(|e| match e.event {
            ContextEvent::ContextUpdate(u) => {
                u.previous_state.map(|p| (p.kind(), u.current_state.kind()))
            }
            _ => None,
        })
        .collect()
}

/// The states the log moved through, after checking that each move starts where the one before
/// it ended.
async fn logged_states(h: &Harness, ctx: &braid_context::ContextHandle) -> Vec<StateKind> {
    let moves = logged_moves(h, ctx).await;
    let mut at = Idle;
    let mut states = Vec::new();
    for (i, (from, to)) in moves.iter().enumerate() {
        assert_eq!(
            *from, at,
            "move {i} ({from} -> {to}) does not start where the last ended: {moves:?}"
        );
        at = *to;
        if states.last() != Some(to) {
            states.push(*to);
        }
    }
    states
}

const PIPELINE: [StateKind; 4] = [
    ProcessingUserMessage,
    EnhancingSystemPrompt,
    OptimizingContext,
    PreparingLlmRequest,
];

const ANSWER: [StateKind; 4] = [
    ConnectingToLlm,
    AwaitingLlmFirstChunk,
    StreamingLlmResponse,
    ProcessingLlmResponse,
];

fn seq(parts: &[&[StateKind]]) -> Vec<StateKind> {
    parts.iter().flat_map(|p| p.iter().copied()).collect()
}

/// The states of a turn with one round of tools, which goes through `round` between parsing
/// the calls and collecting their results.
fn tool_turn_states(round: &[StateKind]) -> Vec<StateKind> {
    seq(&[
        &PIPELINE,
        &ANSWER,
        &[ParsingToolCalls],
        round,
        &[CollectingToolResults, ProcessingToolResults],
        &PIPELINE[1..],
        &ANSWER,
        &[Idle],
    ])
}

/// Checks that the log and the state history both went through `expected`.
async fn assert_logged_and_walked(
    h: &Harness,
    ctx: &braid_context::ContextHandle,
    expected: &[StateKind],
) {
    assert_eq!(logged_states(h, ctx).await, expected);
    assert_eq!(walk(ctx).await, expected, "the history agrees with the log");
}

/// A context of the harness that runs every call without asking.
async fn auto_all(h: &Harness) -> braid_context::ContextHandle {
    h.context(ContextConfig {
        approval_policy: ApprovalPolicy::AutoAll,
        ..ContextConfig::default()
    })
    .await
}

#[tokio::test]
async fn a_text_turn_logs_every_state_in_order_and_completes_its_answer() {
    let h = Harness::new(Script::new().then(reply(&["Hel", "lo"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("Say hello")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let expected = seq(&[&PIPELINE, &ANSWER, &[Idle]]);
    assert_logged_and_walked(&h, &ctx, &expected).await;

    // The streamed answer's lifecycle: created, its deltas, its final, then `completed`, and
    // the state back to idle after it.
    let answer = messages(&ctx).await.pop().unwrap();
    assert_eq!(answer.status, MessageStatus::Complete);
    let log = h.store.events_after(ctx.id(), 0, 10_000).await.unwrap();
    let lifecycle: Vec<String> = log
        .iter()
        .filter_map(|e| match &e.event {
            ContextEvent::ContentDelta(d) if d.message_id == answer.id => {
                Some(format!("delta {}", d.sequence))
            }
            ContextEvent::ContentFinal(f) if f.message_id == answer.id => {
                Some(format!("final {}", f.sequence))
            }
            ContextEvent::ContextUpdate(u) => match &u.message_update {
                Some(MessageUpdate::Created {
                    message_id, kind, ..
                }) if *message_id == answer.id => Some(format!("created {}", kind.as_str())),
                Some(MessageUpdate::Completed { message_id, kind }) if *message_id == answer.id => {
                    Some(format!("completed {}", kind.as_str()))
                }
                None if u.current_state == ContextState::Idle => Some("idle".to_owned()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        lifecycle,
        [
            "created text",
            "delta 1",
            "delta 2",
            "final 2",
            "completed text",
            "idle"
        ]
    );
}

#[tokio::test]
async fn a_tool_turn_with_approval_logs_every_state_in_order() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[("w1", "slow_write", json!({}))]))
            .then(reply(&["written"])),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::Manual,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("write it")).await.unwrap();
    let waiting = settle(&ctx).await;
    assert_eq!(
        waiting,
        ContextState::AwaitingToolApproval {
            pending_requests: vec![ToolCallId::from("w1")],
            tool_names: vec!["slow_write".to_owned()],
            offered_rules: Vec::new(),
        }
    );
    ctx.approve(ApprovalRequest {
        decisions: vec![ApprovalDecision {
            call_id: "w1".into(),
            decision: Decision::Approve,
            reason: None,
        }],
    })
    .await
    .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let expected = tool_turn_states(&[ToolAutoLoop, AwaitingToolApproval, ExecutingTool]);
    assert_logged_and_walked(&h, &ctx, &expected).await;
}

#[tokio::test]
async fn a_retried_model_call_logs_every_state_in_order() {
    let overloaded = || ErrorReply::new(503, json!({"error": {"message": "overloaded"}}));
    let h = Harness::with_retry(
        Script::new()
            .then(overloaded())
            .then(overloaded())
            .then(reply(&["At last."])),
        braid_llm::RetryPolicy {
            max_retries: 3,
            initial_backoff: Duration::from_millis(20),
            max_backoff: Duration::from_millis(50),
        },
    )
    .await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("hi")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    // Each retry is a move within `connecting_to_llm` (attempt 2, then 3); the answer's wait
    // begins once the third attempt's response starts.
    let moves = logged_moves(&h, &ctx).await;
    let connecting: Vec<_> = moves
        .iter()
        .filter(|(_, to)| *to == ConnectingToLlm)
        .collect();
    assert_eq!(
        connecting,
        [
            &(PreparingLlmRequest, ConnectingToLlm),
            &(ConnectingToLlm, ConnectingToLlm),
            &(ConnectingToLlm, ConnectingToLlm)
        ]
    );
    let expected = seq(&[&PIPELINE, &ANSWER, &[Idle]]);
    assert_logged_and_walked(&h, &ctx, &expected).await;
}

#[tokio::test]
async fn an_interrupt_while_streaming_logs_every_state_in_order() {
    let slow = StreamReply::new()
        .text("one ")
        .delay(Duration::from_millis(3_000))
        .text("two")
        .finish(FinishKind::Stop);
    let h = Harness::new(Script::new().then(slow)).await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("count slowly")).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while ctx.state(false).await.unwrap().state.kind() != StreamingLlmResponse {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the answer never streamed"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    ctx.interrupt().await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let expected = seq(&[&PIPELINE, &ANSWER[..3], &[Idle]]);
    assert_logged_and_walked(&h, &ctx, &expected).await;
    let answer = messages(&ctx).await.pop().unwrap();
    assert_eq!(answer.status, MessageStatus::Incomplete);
}

#[tokio::test]
async fn a_burst_of_hundreds_of_state_changes_is_logged_whole_and_in_order() {
    // Forty rounds of one quick call each, as fast as the engine goes: a dozen moves a round.
    const ROUNDS: usize = 40;
    let mut script = Script::new();
    for i in 0..ROUNDS {
        script = script.then(calls(&[(&format!("c{i}"), "echo", json!({ "round": i }))]));
    }
    let script = script.then(reply(&["done"]));
    let h = Harness::with_settings(
        script,
        braid_context::EngineSettings {
            max_loop_depth: 100,
            ..Default::default()
        },
    )
    .await;
    let ctx = auto_all(&h).await;
    ctx.send_message(text("go around")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    // Moves from one state to another; progress within one (chunk counts) is announced at most
    // four times a second by design, so it is left out of both sides.
    let changes = |moves: Vec<(StateKind, StateKind)>| -> Vec<(StateKind, StateKind)> {
        moves.into_iter().filter(|(from, to)| from != to).collect()
    };
    let history = changes(
        ctx.state(true)
            .await
            .unwrap()
            .history
            .unwrap()
            .iter()
            .map(|t| (t.from.kind(), t.to.kind()))
            .collect(),
    );
    assert!(history.len() >= 400, "{} moves", history.len());
    // Every move, none merged or dropped, in the order the machine made them.
    assert_eq!(changes(logged_moves(&h, &ctx).await), history);
    let rounds = history
        .iter()
        .filter(|(_, to)| *to == ExecutingTool)
        .count();
    assert_eq!(rounds, ROUNDS);
}

#[tokio::test]
async fn connecting_to_llm_lasts_until_the_model_server_answers_then_the_first_chunk_is_awaited() {
    let slow = StreamReply::new()
        .head_delay(Duration::from_millis(700))
        .delay(Duration::from_millis(700))
        .text("Hi")
        .finish(FinishKind::Stop);
    let h = Harness::new(Script::new().then(slow)).await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("hello?")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let history = ctx.state(true).await.unwrap().history.unwrap();
    let at = |kind: StateKind| {
        history
            .iter()
            .find(|t| t.to.kind() == kind)
            .map(|t| t.at)
            .unwrap()
    };
    let connecting = (at(AwaitingLlmFirstChunk) - at(ConnectingToLlm))
        .to_std()
        .unwrap();
    let first_chunk = (at(StreamingLlmResponse) - at(AwaitingLlmFirstChunk))
        .to_std()
        .unwrap();
    // The server took 700 ms to answer, then 700 ms more for the first chunk: each wait is
    // in its own state.
    assert!(
        connecting >= Duration::from_millis(600),
        "connecting_to_llm lasted {connecting:?}"
    );
    assert!(
        first_chunk >= Duration::from_millis(600),
        "awaiting_llm_first_chunk lasted {first_chunk:?}"
    );
}

/// The `executing_tool` moves of the log, as `(tool, index, total, attempt, finished)`, and the
/// state after the last of them.
async fn executing_moves(
    h: &Harness,
    ctx: &braid_context::ContextHandle,
) -> (Vec<(String, u32, u32, u32, u32)>, Option<StateKind>) {
    h.store.flush_events().await.unwrap();
    let log = h.store.events_after(ctx.id(), 0, 100_000).await.unwrap();
    let mut moves = Vec::new();
    let mut after = None;
    for e in log {
        let ContextEvent::ContextUpdate(u) = e.event else {
            continue;
        };
        if u.previous_state.is_none() {
            continue;
        }
        match u.current_state {
            ContextState::ExecutingTool {
                tool_name,
                index,
                total,
                attempt,
                finished,
            } => {
                moves.push((tool_name, index, total, attempt, finished));
                after = None;
            }
            other if !moves.is_empty() && after.is_none() => after = Some(other.kind()),
            _ => {}
        }
    }
    (moves, after)
}

fn tool_turn(ctx_calls: &[(&str, &str, serde_json::Value)]) -> Script {
    Script::new().then(calls(ctx_calls)).then(reply(&["done"]))
}

#[tokio::test]
async fn a_batch_run_together_reports_each_call_as_it_starts_and_as_it_finishes() {
    // Two read-only calls run together: the slow one started first and finishes last.
    let h = Harness::new(tool_turn(&[
        ("r1", "slow_read", json!({})),
        ("r2", "echo", json!({"x": 1})),
    ]))
    .await;
    let ctx = auto_all(&h).await;
    ctx.send_message(text("read both")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let (moves, after) = executing_moves(&h, &ctx).await;
    let m = |tool: &str, index, attempt, finished| (tool.to_owned(), index, 2, attempt, finished);
    assert_eq!(
        moves,
        [
            m("slow_read", 1, 1, 0),
            m("echo", 2, 1, 0),
            m("echo", 2, 1, 1),
            m("slow_read", 1, 1, 2),
        ]
    );
    assert_eq!(after, Some(CollectingToolResults));
    let expected = tool_turn_states(&[ToolAutoLoop, ExecutingTool]);
    assert_logged_and_walked(&h, &ctx, &expected).await;
}

#[tokio::test]
async fn a_call_that_fails_transiently_is_tried_again_and_each_try_counts_as_an_attempt() {
    let h = Harness::new(tool_turn(&[("f1", "flaky", json!({}))])).await;
    let ctx = auto_all(&h).await;
    ctx.send_message(text("try it")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let (moves, after) = executing_moves(&h, &ctx).await;
    let m = |attempt, finished| ("flaky".to_owned(), 1, 1, attempt, finished);
    assert_eq!(moves, [m(1, 0), m(2, 0), m(3, 0), m(3, 1)]);
    assert_eq!(after, Some(CollectingToolResults));
    // One result for the call: the third try's success.
    let results: Vec<ToolResultMessage> = messages(&ctx)
        .await
        .into_iter()
        .filter_map(|m| match m.kind {
            MessageKind::ToolResult(r) => Some(*r),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 1);
    assert_eq!(
        results[0].outcome,
        ToolOutcome::Success {
            output: json!({"succeeded_on_call": 3})
        }
    );
}

#[tokio::test]
async fn a_tool_that_allows_no_retry_keeps_its_first_transient_failure() {
    let h = Harness::new(tool_turn(&[("f1", "flaky_once", json!({}))])).await;
    let ctx = auto_all(&h).await;
    ctx.send_message(text("try it once")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let (moves, _) = executing_moves(&h, &ctx).await;
    let m = |attempt, finished| ("flaky_once".to_owned(), 1, 1, attempt, finished);
    assert_eq!(moves, [m(1, 0), m(1, 1)]);
    let error = messages(&ctx)
        .await
        .into_iter()
        .find_map(|m| match m.kind {
            MessageKind::ToolResult(r) => match r.outcome {
                ToolOutcome::Error { error } => Some(error),
                ToolOutcome::Success { .. } => None,
            },
            _ => None,
        })
        .expect("the call's error result");
    assert_eq!(error.code.as_deref(), Some("unavailable"));
}
