//! A processor that answers `Complete` ends the pipeline (seed 001 "Conditional processor
//! execution"): the processors after it do not run, the input is ready for the model, and the
//! steps that ran have their times recorded.

use crate::common;

use braid_protocol::api::{CreateBranchRequest, ProcessorName};
use braid_protocol::*;
use braid_testkit::Script;
use common::*;

#[tokio::test]
async fn processors_after_one_that_completes_the_draft_do_not_run() {
    let h = Harness::new(Script::new().then(reply(&["ok"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    // `prepare_request` completes the draft; two processors are listed after it.
    ctx.create_branch(CreateBranchRequest {
        name: "early".into(),
        from_branch: None,
        from_message: None,
        before_message: None,
        system_prompt: None,
        pipeline: Some(vec![
            ProcessorName::Validate,
            ProcessorName::PrepareRequest,
            ProcessorName::EnhanceSystemPrompt,
            ProcessorName::OptimizeContext,
        ]),
    })
    .await
    .unwrap();
    ctx.switch_branch("early".into()).await.unwrap();
    let sent = ctx
        .send_message(text("straight to the model"))
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);

    let history = ctx.state(true).await.unwrap().history.unwrap();
    for skipped in [
        StateKind::EnhancingSystemPrompt,
        StateKind::OptimizingContext,
    ] {
        assert!(
            !history.iter().any(|t| t.to.kind() == skipped),
            "{skipped} ran after the draft was complete"
        );
    }
    // Nothing the skipped processors add reached the model: no system prompt, no tools.
    let body = h.mock.requests()[0].json().unwrap();
    assert_eq!(body["messages"][0]["role"], "user");
    assert_eq!(body["messages"][0]["content"], "straight to the model");
    assert!(body.get("tools").is_none() || body["tools"].as_array().is_some_and(|t| t.is_empty()));
    // The input went to the model as ready, with the time of each step that ran.
    let input = messages(&ctx)
        .await
        .into_iter()
        .find(|m| m.id == sent.message_id)
        .unwrap();
    assert_eq!(input.status, MessageStatus::Complete);
    let timings = input.metadata["pipeline_ms"].as_object().unwrap();
    let mut steps: Vec<&str> = timings.keys().map(String::as_str).collect();
    steps.sort_unstable();
    assert_eq!(steps, ["prepare_request", "validate"]);
}
