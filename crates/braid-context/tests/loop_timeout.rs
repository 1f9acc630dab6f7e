//! The tool loop's iteration budget (seed 001 "Auto-loop timeout protection"): a round of tools
//! and the model call that reads their results share one limit (`tool_timeout_secs`, 30 s by
//! default); a timeout stops the loop, is reported as an error, and leaves the context
//! resumable.

use std::time::Duration;

use crate::common;

use braid_protocol::*;
use braid_testkit::{FinishKind, Script, StreamReply};
use common::*;
use serde_json::json;

fn auto_all(tool_timeout_secs: u32) -> ContextConfig {
    ContextConfig {
        approval_policy: ApprovalPolicy::AutoAll,
        tool_timeout_secs,
        ..ContextConfig::default()
    }
}

/// The `error` events of the context's log.
async fn logged_errors(h: &Harness, ctx: &braid_context::ContextHandle) -> Vec<ErrorEvent> {
    h.store.flush_events().await.unwrap();
    h.store
        .events_after(ctx.id(), 0, 10_000)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.event {
            ContextEvent::Error(error) => Some(error),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_budget_covers_the_tools_and_the_model_call_that_reads_their_results() {
    // 400 ms of tool, then an answer that needs 1.5 s more: each alone is within 1 s, the
    // iteration is not.
    let slow_answer = StreamReply::new()
        .text("Half an ")
        .delay(Duration::from_millis(1_500))
        .text("answer")
        .finish(FinishKind::Stop);
    let h = Harness::new(
        Script::new()
            .then(calls(&[("w1", "slow_write", json!({}))]))
            .then(slow_answer)
            .then(reply(&["The whole answer."])),
    )
    .await;
    let ctx = h.context(auto_all(1)).await;
    ctx.send_message(text("write, then tell me")).await.unwrap();
    let state = settle(&ctx).await;
    let ContextState::Failed { error, recoverable } = &state else {
        panic!("{state:?}")
    };
    assert!(*recoverable);
    assert!(
        error.contains("iteration") && error.contains("tool_timeout_secs"),
        "{error}"
    );
    // What had arrived is kept, marked incomplete; the tool's result stays.
    let ms = messages(&ctx).await;
    assert!(
        ms.iter()
            .any(|m| m.tool_call_id().map(|c| c.as_str()) == Some("w1"))
    );
    let partial = ms.last().unwrap();
    assert_eq!(partial.status, MessageStatus::Incomplete);
    let MessageKind::Text(t) = &partial.kind else {
        panic!("{partial:?}")
    };
    assert_eq!(t.text(), "Half an ");
    // The person is told, as an error.
    let errors = logged_errors(&h, &ctx).await;
    assert!(
        errors
            .iter()
            .any(|e| e.code == ErrorCode::Timeout && e.recoverable),
        "{errors:?}"
    );
    // And may continue.
    ctx.resume().await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
}

#[tokio::test]
async fn a_round_of_tools_over_the_budget_pauses_the_loop_and_is_reported_as_an_error() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[("s1", "slow_read", json!({}))]))
            .then(reply(&["late"])),
    )
    .await;
    let ctx = h.context(auto_all(1)).await;
    ctx.send_message(text("slow")).await.unwrap();
    let state = settle(&ctx).await;
    assert!(
        matches!(
            state,
            ContextState::Paused {
                reason: LoopStopReason::Timeout,
                ..
            }
        ),
        "{state:?}"
    );
    let errors = logged_errors(&h, &ctx).await;
    assert!(
        errors.iter().any(|e| e.code == ErrorCode::Timeout
            && e.recoverable
            && e.message.contains("longer than 1 s")),
        "{errors:?}"
    );
}

#[tokio::test]
async fn a_turn_s_first_answer_before_any_tool_is_not_held_to_the_budget() {
    let slow_answer = StreamReply::new()
        .text("Slow ")
        .delay(Duration::from_millis(1_500))
        .text("but whole")
        .finish(FinishKind::Stop);
    let h = Harness::new(Script::new().then(slow_answer)).await;
    let ctx = h.context(auto_all(1)).await;
    ctx.send_message(text("take your time")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert!(logged_errors(&h, &ctx).await.is_empty());
}

#[test]
fn the_budget_is_thirty_seconds_unless_configured() {
    assert_eq!(ContextConfig::default().tool_timeout_secs, 30);
}
