//! Branch merge through the engine: real conversations on two branches (the mock model, real
//! tools on a temporary workspace, a real SQLite store), merged with each strategy, held by
//! warnings and conflicts until the person settles them, previewed without changes, and stored
//! so a restart reads the same history.

use crate::common;

use braid_context::{ContextHandle, EngineError, MessageQuery};
use braid_protocol::api::{
    ConflictKind, ConflictResolution, CreateBranchRequest, MergeOutcome, MergeRequest,
    MergeStrategy, Resolution, SkipReason, UpdateBranchRequest, UpdateContextRequest, WarningKind,
};
use braid_protocol::*;
use braid_testkit::Script;
use common::*;
use serde_json::json;

fn auto() -> ContextConfig {
    ContextConfig {
        approval_policy: ApprovalPolicy::AutoAll,
        ..ContextConfig::default()
    }
}

fn branch(name: &str) -> CreateBranchRequest {
    CreateBranchRequest {
        name: BranchName::from(name),
        from_branch: None,
        from_message: None,
        before_message: None,
        system_prompt: None,
        pipeline: None,
    }
}

fn merge(strategy: MergeStrategy) -> MergeRequest {
    MergeRequest {
        target: None,
        strategy,
        dry_run: false,
        accept_warnings: false,
        resolutions: Vec::new(),
    }
}

fn resolve(mut request: MergeRequest, conflict: &str, resolution: Resolution) -> MergeRequest {
    request.resolutions.push(ConflictResolution {
        conflict: conflict.into(),
        resolution,
    });
    request
}

async fn on(h: &ContextHandle, name: &str) -> Vec<Message> {
    h.messages(MessageQuery {
        branch: Some(BranchName::from(name)),
        limit: Some(1000),
        ..Default::default()
    })
    .await
    .unwrap()
    .messages
}

fn texts(ms: &[Message]) -> Vec<String> {
    ms.iter()
        .filter_map(|m| match &m.kind {
            MessageKind::Text(t) => Some(t.text()),
            _ => None,
        })
        .collect()
}

/// Events published after commit may still arrive from earlier turns: take them until none
/// comes for a while, so what follows sees only what comes next.
async fn drain(
    events: &mut tokio::sync::broadcast::Receiver<braid_context::events::LiveEvent>,
) -> usize {
    let mut n = 0;
    while let Ok(Ok(_)) =
        tokio::time::timeout(std::time::Duration::from_millis(300), events.recv()).await
    {
        n += 1;
    }
    n
}

async fn say(h: &ContextHandle, text_: &str) {
    h.send_message(text(text_)).await.unwrap();
    assert_eq!(settle(h).await, ContextState::Idle);
}

/// `main` and `alt` share "first"/"one"; then main says "main two" and alt says "alt two",
/// and main is active again.
async fn diverged(script: Script) -> (Harness, ContextHandle) {
    let h = Harness::new(script).await;
    let ctx = h.context(auto()).await;
    say(&ctx, "first").await;
    ctx.create_branch(branch("alt")).await.unwrap();
    say(&ctx, "main two").await;
    ctx.switch_branch(BranchName::from("alt")).await.unwrap();
    say(&ctx, "alt two").await;
    ctx.switch_branch(BranchName::main()).await.unwrap();
    (h, ctx)
}

fn four_answers() -> Script {
    Script::new()
        .then(reply(&["one"]))
        .then(reply(&["main answer"]))
        .then(reply(&["alt answer"]))
}

#[tokio::test]
async fn rebase_puts_the_sources_new_messages_after_the_targets_own_and_notes_the_merge() {
    let (_h, ctx) = diverged(four_answers()).await;
    let before = on(&ctx, "main").await;
    let outcome = ctx
        .merge(BranchName::from("alt"), merge(MergeStrategy::Rebase))
        .await
        .unwrap();
    assert!(outcome.merged);
    assert_eq!(outcome.target, BranchName::main());
    let after = on(&ctx, "main").await;
    assert_eq!(
        texts(&after),
        [
            "first",
            "one",
            "main two",
            "main answer",
            "alt two",
            "alt answer"
        ]
    );
    // The target's own messages all stay, in place.
    assert_eq!(&after[..before.len()], &before[..]);
    // Switching to alt and back wrote no notice on either branch: nothing of alt's is left
    // behind as a branch notice.
    assert!(
        !outcome
            .skipped
            .iter()
            .any(|s| s.reason == SkipReason::BranchNotice),
        "{:?}",
        outcome.skipped
    );
    let notice = after.last().unwrap();
    assert_eq!(Some(notice.id), outcome.notice_id);
    let MessageKind::SystemControl(SystemControlMessage::BranchMerge {
        source,
        strategy,
        moved,
        ..
    }) = &notice.kind
    else {
        panic!("{notice:?}")
    };
    assert_eq!(source, &BranchName::from("alt"));
    assert_eq!(*strategy, braid_protocol::api::MergeStrategyName::Rebase);
    assert_eq!(*moved, 2);
    // The source is untouched.
    assert_eq!(
        texts(&on(&ctx, "alt").await),
        ["first", "one", "alt two", "alt answer"]
    );
}

#[tokio::test]
async fn the_model_sees_the_merged_messages_as_a_normal_history() {
    let (h, ctx) = diverged(four_answers().then(reply(&["both seen"]))).await;
    ctx.merge(BranchName::from("alt"), merge(MergeStrategy::Rebase))
        .await
        .unwrap();
    say(&ctx, "what now").await;
    let sent = &h.mock.requests()[3].body;
    let order: Vec<usize> = ["main answer", "alt two", "alt answer", "what now"]
        .iter()
        .map(|t| {
            sent.find(t)
                .unwrap_or_else(|| panic!("{t} not sent: {sent}"))
        })
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{sent}");
    assert!(!sent.contains("branch_merge"), "a notice reached the model");
}

#[tokio::test]
async fn append_skips_what_the_target_has_by_id_or_by_content() {
    let h = Harness::new(
        Script::new()
            .then(reply(&["one"]))
            .then(reply(&["same words"]))
            .then(reply(&["same words"]))
            .then(reply(&["only on alt"])),
    )
    .await;
    let ctx = h.context(auto()).await;
    say(&ctx, "first").await;
    ctx.create_branch(branch("alt")).await.unwrap();
    say(&ctx, "again").await;
    ctx.switch_branch(BranchName::from("alt")).await.unwrap();
    say(&ctx, "again").await;
    say(&ctx, "more").await;
    ctx.switch_branch(BranchName::main()).await.unwrap();
    let outcome = ctx
        .merge(BranchName::from("alt"), merge(MergeStrategy::Append))
        .await
        .unwrap();
    let reasons = |r: SkipReason| outcome.skipped.iter().filter(|s| s.reason == r).count();
    // "first" and "one" by id; "again" and "same words" by content.
    assert_eq!(reasons(SkipReason::AlreadyInTarget), 2);
    assert_eq!(reasons(SkipReason::SameContent), 2);
    assert_eq!(
        texts(&on(&ctx, "main").await),
        ["first", "one", "again", "same words", "more", "only on alt"]
    );
    // Appending again moves nothing new.
    let again = ctx
        .merge(BranchName::from("alt"), merge(MergeStrategy::Append))
        .await
        .unwrap();
    assert!(again.moved.is_empty());
}

#[tokio::test]
async fn cherry_pick_takes_only_the_chosen_messages_in_the_sources_order() {
    let (_h, ctx) = diverged(four_answers()).await;
    let alt = on(&ctx, "alt").await;
    let answer = alt
        .iter()
        .find(|m| texts(std::slice::from_ref(m)) == ["alt answer"]);
    let question = alt
        .iter()
        .find(|m| texts(std::slice::from_ref(m)) == ["alt two"]);
    let (answer, question) = (answer.unwrap().id, question.unwrap().id);
    let outcome = ctx
        .merge(
            BranchName::from("alt"),
            merge(MergeStrategy::CherryPick {
                message_ids: vec![answer, question],
            }),
        )
        .await
        .unwrap();
    assert_eq!(outcome.moved, vec![question, answer]);
    assert_eq!(
        texts(&on(&ctx, "main").await),
        [
            "first",
            "one",
            "main two",
            "main answer",
            "alt two",
            "alt answer"
        ]
    );
}

/// `alt` reads a file with a tool call; main does not.
async fn with_a_tool_exchange_on_alt() -> (Harness, ContextHandle, Vec<Message>) {
    let (h, ctx) = diverged(
        four_answers()
            .then(calls(&[("r1", "read_file", json!({"path": "README.md"}))]))
            .then(reply(&["read it"])),
    )
    .await;
    ctx.switch_branch(BranchName::from("alt")).await.unwrap();
    say(&ctx, "read the readme").await;
    ctx.switch_branch(BranchName::main()).await.unwrap();
    let alt = on(&ctx, "alt").await;
    (h, ctx, alt)
}

#[tokio::test]
async fn cherry_picking_a_result_without_its_request_warns_and_changes_nothing_until_accepted() {
    let (_h, ctx, alt) = with_a_tool_exchange_on_alt().await;
    let request = alt
        .iter()
        .find(|m| matches!(m.kind, MessageKind::ToolRequest(_)))
        .unwrap()
        .id;
    let result = alt
        .iter()
        .find(|m| matches!(m.kind, MessageKind::ToolResult(_)))
        .unwrap()
        .id;
    let before = on(&ctx, "main").await;
    let pick = merge(MergeStrategy::CherryPick {
        message_ids: vec![result],
    });
    let Err(EngineError::MergeHeld(held)) = ctx.merge(BranchName::from("alt"), pick.clone()).await
    else {
        panic!("the merge was not held")
    };
    assert_eq!(held.warnings.len(), 1);
    assert_eq!(held.warnings[0].kind, WarningKind::ResultWithoutRequest);
    assert_eq!(held.warnings[0].missing, vec![request]);
    assert!(!held.merged);
    assert_eq!(
        on(&ctx, "main").await,
        before,
        "a held merge changed the target"
    );

    // The request alone leaves its result behind.
    let Err(EngineError::MergeHeld(held)) = ctx
        .merge(
            BranchName::from("alt"),
            merge(MergeStrategy::CherryPick {
                message_ids: vec![request],
            }),
        )
        .await
    else {
        panic!("the merge was not held")
    };
    assert_eq!(held.warnings[0].kind, WarningKind::RequestWithoutResult);

    // Proceeding is the person's choice.
    let outcome = ctx
        .merge(
            BranchName::from("alt"),
            MergeRequest {
                accept_warnings: true,
                ..pick
            },
        )
        .await
        .unwrap();
    assert!(outcome.merged);
    assert!(on(&ctx, "main").await.iter().any(|m| m.id == result));
}

/// Both branches write `notes.txt` after they diverged.
async fn both_write_notes() -> (Harness, ContextHandle) {
    let h = Harness::new(
        Script::new()
            .then(reply(&["one"]))
            .then(calls(&[(
                "w1",
                "write_file",
                json!({"path": "notes.txt", "content": "from main"}),
            )]))
            .then(reply(&["main wrote"]))
            .then(calls(&[(
                "w2",
                "write_file",
                json!({"path": "./notes.txt", "content": "from alt"}),
            )]))
            .then(reply(&["alt wrote"])),
    )
    .await;
    let ctx = h.context(auto()).await;
    say(&ctx, "first").await;
    ctx.create_branch(branch("alt")).await.unwrap();
    say(&ctx, "write on main").await;
    ctx.switch_branch(BranchName::from("alt")).await.unwrap();
    say(&ctx, "write on alt").await;
    ctx.switch_branch(BranchName::main()).await.unwrap();
    (h, ctx)
}

fn call_ids(ms: &[Message]) -> Vec<String> {
    ms.iter()
        .filter_map(|m| match &m.kind {
            MessageKind::ToolRequest(r) => Some(r.calls[0].id.as_str().to_owned()),
            _ => None,
        })
        .collect()
}

async fn held(ctx: &ContextHandle, request: MergeRequest) -> Box<MergeOutcome> {
    match ctx.merge(BranchName::from("alt"), request).await {
        Err(EngineError::MergeHeld(outcome)) => outcome,
        other => panic!("the merge was not held: {other:?}"),
    }
}

#[tokio::test]
async fn both_branches_writing_one_file_conflict_and_nothing_changes_until_resolved() {
    let (_h, ctx) = both_write_notes().await;
    let before = on(&ctx, "main").await;
    let outcome = held(&ctx, merge(MergeStrategy::Rebase)).await;
    assert_eq!(outcome.conflicts.len(), 1);
    let c = &outcome.conflicts[0];
    assert_eq!(c.kind, ConflictKind::FileWrite);
    assert_eq!(c.id, "file_write:notes.txt");
    assert!(c.detail.contains("notes.txt"), "{}", c.detail);
    let sides: Vec<&str> = c.messages.iter().map(|m| m.branch.as_str()).collect();
    assert_eq!(sides, ["main", "alt"]);
    assert!(c.suggestions.contains(&Resolution::TakeSource));
    assert_eq!(on(&ctx, "main").await, before);
    // The error names what to do.
    let e = ctx
        .merge(BranchName::from("alt"), merge(MergeStrategy::Rebase))
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("1 conflict without a resolution"),
        "{e}"
    );
}

#[tokio::test]
async fn take_source_replaces_the_targets_write_with_the_sources() {
    let (_h, ctx) = both_write_notes().await;
    let request = resolve(
        merge(MergeStrategy::Rebase),
        "file_write:notes.txt",
        Resolution::TakeSource,
    );
    let outcome = ctx.merge(BranchName::from("alt"), request).await.unwrap();
    let main = on(&ctx, "main").await;
    assert_eq!(call_ids(&main), ["w2"]);
    // The removed write keeps its result company: neither is on main, both stay stored.
    assert_eq!(outcome.removed.len(), 2);
    assert!(
        main.iter()
            .all(|m| m.tool_call_id().map(|c| c.as_str()) != Some("w1"))
    );
    assert_eq!(call_ids(&on(&ctx, "alt").await), ["w2"]);
    let MessageKind::SystemControl(SystemControlMessage::BranchMerge { resolutions, .. }) =
        &main.last().unwrap().kind
    else {
        panic!()
    };
    assert_eq!(resolutions[0].resolution, Resolution::TakeSource);
}

#[tokio::test]
async fn keep_target_keep_both_and_skip_settle_a_write_conflict_their_own_ways() {
    for (resolution, expected) in [
        (Resolution::KeepTarget, vec!["w1"]),
        (Resolution::KeepBoth, vec!["w1", "w2"]),
        (Resolution::Skip, vec![]),
    ] {
        let (_h, ctx) = both_write_notes().await;
        let request = resolve(
            merge(MergeStrategy::Rebase),
            "file_write:notes.txt",
            resolution,
        );
        ctx.merge(BranchName::from("alt"), request).await.unwrap();
        assert_eq!(
            call_ids(&on(&ctx, "main").await),
            expected,
            "{resolution:?}"
        );
    }
}

#[tokio::test]
async fn branches_ending_in_different_modes_conflict_and_take_source_switches_the_mode() {
    let (_h, ctx) = diverged(four_answers()).await;
    ctx.switch_branch(BranchName::from("alt")).await.unwrap();
    ctx.set_mode(Mode::Plan).await.unwrap();
    ctx.switch_branch(BranchName::main()).await.unwrap();
    ctx.set_mode(Mode::Act).await.unwrap();
    let outcome = held(&ctx, merge(MergeStrategy::Rebase)).await;
    assert_eq!(outcome.conflicts[0].kind, ConflictKind::Mode);
    assert_eq!(
        outcome.conflicts[0].suggestions,
        [Resolution::KeepTarget, Resolution::TakeSource]
    );
    let request = resolve(merge(MergeStrategy::Rebase), "mode", Resolution::TakeSource);
    ctx.merge(BranchName::from("alt"), request).await.unwrap();
    assert_eq!(ctx.summary().await.unwrap().config.mode, Mode::Plan);
}

#[tokio::test]
async fn branches_ending_in_different_roles_conflict_and_keep_target_keeps_the_role() {
    let (_h, ctx) = diverged(four_answers()).await;
    ctx.switch_branch(BranchName::from("alt")).await.unwrap();
    let planner = UpdateContextRequest {
        title: None,
        config: Some(json!({"agent_role": "planner"})),
    };
    ctx.update(planner).await.unwrap();
    ctx.switch_branch(BranchName::main()).await.unwrap();
    let actor = UpdateContextRequest {
        title: None,
        config: Some(json!({"agent_role": "actor"})),
    };
    ctx.update(actor).await.unwrap();
    let outcome = held(&ctx, merge(MergeStrategy::Rebase)).await;
    assert_eq!(outcome.conflicts[0].kind, ConflictKind::Role);
    let request = resolve(merge(MergeStrategy::Rebase), "role", Resolution::KeepTarget);
    let outcome = ctx.merge(BranchName::from("alt"), request).await.unwrap();
    assert_eq!(
        ctx.summary().await.unwrap().config.agent_role,
        AgentRole::Actor
    );
    // The source's role notice stayed out; its conversation came over.
    assert!(
        outcome
            .skipped
            .iter()
            .any(|s| s.reason == SkipReason::Resolution)
    );
    assert!(texts(&on(&ctx, "main").await).contains(&"alt answer".to_owned()));
}

#[tokio::test]
async fn a_dry_run_answers_the_preview_and_changes_nothing() {
    let (_h, ctx) = both_write_notes().await;
    let main = on(&ctx, "main").await;
    let summary = ctx.summary().await.unwrap();
    let mut events = ctx.subscribe();
    drain(&mut events).await;
    let preview = ctx
        .merge(
            BranchName::from("alt"),
            MergeRequest {
                dry_run: true,
                ..merge(MergeStrategy::Rebase)
            },
        )
        .await
        .unwrap();
    assert!(!preview.merged);
    assert_eq!(preview.conflicts.len(), 1);
    assert_eq!(preview.moved.len(), 4);
    assert_eq!(on(&ctx, "main").await, main);
    assert_eq!(ctx.summary().await.unwrap().updated_at, summary.updated_at);
    assert_eq!(drain(&mut events).await, 0, "a dry run emitted an event");
    // A resolved dry run previews the result of the resolution.
    let preview = ctx
        .merge(
            BranchName::from("alt"),
            MergeRequest {
                dry_run: true,
                ..resolve(
                    merge(MergeStrategy::Rebase),
                    "file_write:notes.txt",
                    Resolution::KeepTarget,
                )
            },
        )
        .await
        .unwrap();
    assert_eq!(preview.moved.len(), 2);
    assert_eq!(on(&ctx, "main").await, main);
}

#[tokio::test]
async fn a_merge_emits_one_context_update_naming_its_notice() {
    let (_h, ctx) = diverged(four_answers()).await;
    let mut events = ctx.subscribe();
    drain(&mut events).await;
    let outcome = ctx
        .merge(BranchName::from("alt"), merge(MergeStrategy::Rebase))
        .await
        .unwrap();
    let event = events.recv().await.unwrap();
    let ContextEvent::ContextUpdate(update) = &event.event else {
        panic!("{event:?}")
    };
    let Some(MessageUpdate::Created { message_id, .. }) = update.message_update else {
        panic!("{update:?}")
    };
    assert_eq!(Some(message_id), outcome.notice_id);
    assert_eq!(drain(&mut events).await, 0, "more than one event");
}

#[tokio::test]
async fn a_merge_is_stored_and_a_restart_reads_the_same_branches() {
    let (h, ctx) = diverged(four_answers()).await;
    ctx.merge(BranchName::from("alt"), merge(MergeStrategy::Rebase))
        .await
        .unwrap();
    let main = on(&ctx, "main").await;
    let id = ctx.id();
    ctx.shutdown().await;
    let again = h.restart().get(id).await.unwrap();
    assert_eq!(on(&again, "main").await, main);
}

#[tokio::test]
async fn merging_into_another_branch_than_the_active_one_and_refusals_name_the_problem() {
    let (_h, ctx) = diverged(four_answers()).await;
    let outcome = ctx
        .merge(
            BranchName::main(),
            MergeRequest {
                target: Some(BranchName::from("alt")),
                ..merge(MergeStrategy::Rebase)
            },
        )
        .await
        .unwrap();
    assert_eq!(outcome.target, BranchName::from("alt"));
    assert_eq!(
        texts(&on(&ctx, "alt").await),
        [
            "first",
            "one",
            "alt two",
            "alt answer",
            "main two",
            "main answer"
        ]
    );
    assert_eq!(
        ctx.summary().await.unwrap().active_branch,
        BranchName::main()
    );
    let e = ctx
        .merge(BranchName::from("nope"), merge(MergeStrategy::Append))
        .await
        .unwrap_err();
    assert!(matches!(e, EngineError::BranchNotFound(_)), "{e}");
    let e = ctx
        .merge(BranchName::main(), merge(MergeStrategy::Append))
        .await
        .unwrap_err();
    assert_eq!(e.field().as_deref(), Some("target"));
}

#[tokio::test]
async fn a_branchs_prompt_and_pipeline_change_after_creation_for_that_branch_only() {
    let (h, ctx) = diverged(
        four_answers()
            .then(reply(&["terse"]))
            .then(reply(&["plain"])),
    )
    .await;
    let info = ctx
        .update_branch(
            BranchName::from("alt"),
            UpdateBranchRequest {
                system_prompt: Some(Some("Answer like a pirate.".into())),
                pipeline: Some(Some(vec![
                    braid_protocol::api::ProcessorName::Validate,
                    braid_protocol::api::ProcessorName::EnhanceSystemPrompt,
                ])),
            },
        )
        .await
        .unwrap();
    assert_eq!(info.system_prompt.as_deref(), Some("Answer like a pirate."));
    assert_eq!(info.pipeline.as_ref().map(Vec::len), Some(2));
    ctx.switch_branch(BranchName::from("alt")).await.unwrap();
    say(&ctx, "hello").await;
    assert!(h.mock.requests()[3].body.contains("Answer like a pirate."));
    ctx.switch_branch(BranchName::main()).await.unwrap();
    say(&ctx, "hello").await;
    assert!(!h.mock.requests()[4].body.contains("Answer like a pirate."));
    // Absent fields stay; null clears.
    let info = ctx
        .update_branch(
            BranchName::from("alt"),
            UpdateBranchRequest {
                system_prompt: Some(None),
                pipeline: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(info.system_prompt, None);
    assert_eq!(info.pipeline.as_ref().map(Vec::len), Some(2));
    let e = ctx
        .update_branch(BranchName::from("nope"), UpdateBranchRequest::default())
        .await
        .unwrap_err();
    assert!(matches!(e, EngineError::BranchNotFound(_)));
}
