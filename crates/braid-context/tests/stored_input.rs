//! A 202 means stored: the person's input is committed as `pending` before the send is
//! answered; a pipeline failure leaves it `failed` with its error, out of model requests, until
//! it is retried or deleted; a restart never leaves it `pending`.

use crate::common;

use std::time::Duration;

use braid_context::{ContextHandle, EngineError, MessageQuery};
use braid_protocol::api::MessageView;
use braid_protocol::payload::{FileReferencePayload, TextPayload};
use braid_protocol::*;
use braid_store::ContextChanges;
use braid_testkit::{Script, StreamReply};
use common::*;

fn missing_file() -> SendMessageRequest {
    SendMessageRequest {
        payload: MessagePayload::FileReference(FileReferencePayload {
            path: "src/later.rs".into(),
            range: None,
            display_text: None,
        }),
        client_metadata: None,
    }
}

/// Every model request's body, as the mock received it.
fn request_bodies(h: &Harness) -> Vec<String> {
    h.mock.requests().into_iter().map(|r| r.body).collect()
}

async fn stored(h: &Harness, ctx: &ContextHandle, id: MessageId) -> Message {
    h.store
        .get_messages(ctx.id(), &[id])
        .await
        .unwrap()
        .pop()
        .expect("the message is in the store")
}

#[tokio::test]
async fn the_input_is_in_the_store_when_the_send_returns() {
    let h = Harness::new(Script::new().then(reply(&["hi"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let sent = ctx.send_message(text("hello there")).await.unwrap();
    assert!(!sent.queued);
    // Read at once, before the turn settles: the row is there.
    let m = stored(&h, &ctx, sent.message_id).await;
    assert!(matches!(&m.kind, MessageKind::Text(t) if t.text() == "hello there"));
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let m = stored(&h, &ctx, sent.message_id).await;
    assert_eq!(m.status, MessageStatus::Complete);
    assert!(m.error.is_none());
}

#[tokio::test]
async fn a_queued_send_is_stored_pending_at_once_and_runs_after_the_turn() {
    let slow = StreamReply::answer(&["first ", "answer"]).chunk_delay(Duration::from_millis(300));
    let h = Harness::new(Script::new().then(slow).then(reply(&["second answer"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("first")).await.unwrap();
    let queued = ctx.send_message(text("second")).await.unwrap();
    assert!(queued.queued);
    let m = stored(&h, &ctx, queued.message_id).await;
    assert_eq!(m.status, MessageStatus::Pending, "stored before it runs");
    assert!(
        messages(&ctx)
            .await
            .iter()
            .any(|m| m.id == queued.message_id),
        "listed on the branch at once"
    );
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    // Wait for the queued turn too.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while h.mock.request_count() < 2 || !ctx.state(false).await.unwrap().state.kind().is_resting() {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    settle(&ctx).await;
    let bodies = request_bodies(&h);
    assert!(
        !bodies[0].contains("second"),
        "the waiting input is not in the running turn's request"
    );
    assert!(bodies[1].contains("second"));
    let texts: Vec<String> = messages(&ctx)
        .await
        .iter()
        .map(|m| match &m.kind {
            MessageKind::Text(t) => t.text(),
            _ => String::new(),
        })
        .collect();
    assert_eq!(
        texts,
        vec!["first", "first answer", "second", "second answer"],
        "the queued input moved after the turn it waited for"
    );
    assert_eq!(
        stored(&h, &ctx, queued.message_id).await.status,
        MessageStatus::Complete
    );
}

#[tokio::test]
async fn a_failed_file_reference_stays_failed_and_is_left_out_of_the_next_request() {
    let h = Harness::new(Script::new().then(reply(&["ok"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let failed = ctx.send_message(missing_file()).await.unwrap();
    assert!(matches!(settle(&ctx).await, ContextState::Failed { .. }));
    let m = stored(&h, &ctx, failed.message_id).await;
    assert_eq!(m.status, MessageStatus::Failed);
    let error = m.error.unwrap();
    assert!(error.message.contains("src/later.rs"), "{error:?}");
    assert!(error.recoverable);
    assert_eq!(h.mock.request_count(), 0);

    // The optimized view lists it with its status, so the person sees it; the token budget
    // leaves it out.
    let optimized = ctx
        .messages(MessageQuery {
            view: MessageView::Optimized,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(optimized.messages.len(), 1);
    assert_eq!(optimized.messages[0].status, MessageStatus::Failed);
    assert_eq!(ctx.summary().await.unwrap().token_budget.used, {
        let empty = h.context(ContextConfig::default()).await;
        empty.summary().await.unwrap().token_budget.used
    });

    ctx.send_message(text("never mind")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let bodies = request_bodies(&h);
    assert_eq!(bodies.len(), 1);
    assert!(bodies[0].contains("never mind"));
    assert!(
        !bodies[0].contains("src/later.rs"),
        "failed input is not sent: {}",
        bodies[0]
    );
    // Still there for the person, still failed, in both views, in its place.
    let all = messages(&ctx).await;
    assert_eq!(all[0].id, failed.message_id);
    assert_eq!(all[0].status, MessageStatus::Failed);
    let optimized = ctx
        .messages(MessageQuery {
            view: MessageView::Optimized,
            ..Default::default()
        })
        .await
        .unwrap();
    // Notices (here the resolved failure) are listed in both views too, in their place.
    let ids: Vec<MessageId> = optimized.messages.iter().map(|m| m.id).collect();
    let all_ids: Vec<MessageId> = all.iter().map(|m| m.id).collect();
    assert_eq!(ids, all_ids);
    assert!(all.iter().any(|m| m.kind_name() == KindName::SystemControl));
}

#[tokio::test]
async fn retry_after_fixing_the_cause_runs_the_turn() {
    let h = Harness::new(Script::new().then(reply(&["read it"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let failed = ctx.send_message(missing_file()).await.unwrap();
    assert!(matches!(settle(&ctx).await, ContextState::Failed { .. }));

    // Still missing: the retry fails again, with the error kept.
    let again = ctx.retry_message(failed.message_id).await.unwrap();
    assert_eq!(again.message_id, failed.message_id);
    assert!(matches!(settle(&ctx).await, ContextState::Failed { .. }));
    assert_eq!(
        stored(&h, &ctx, failed.message_id).await.status,
        MessageStatus::Failed
    );

    std::fs::write(h.workspace.join("src/later.rs"), "fn later() {}\n").unwrap();
    let retried = ctx.retry_message(failed.message_id).await.unwrap();
    assert!(!retried.queued);
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let m = stored(&h, &ctx, failed.message_id).await;
    assert_eq!(m.status, MessageStatus::Complete);
    assert!(m.error.is_none());
    assert!(matches!(
        &m.kind,
        MessageKind::FileReference(f) if matches!(f.resolution, FileResolution::Resolved { .. })
    ));
    let bodies = request_bodies(&h);
    assert_eq!(bodies.len(), 1);
    assert!(bodies[0].contains("fn later()"));
    let all = messages(&ctx).await;
    assert!(
        all.iter().any(|m| matches!(
            m.kind,
            MessageKind::SystemControl(SystemControlMessage::FailureResolved { .. })
        )),
        "the context's failure is recorded as resolved"
    );

    // Only failed input can be retried; an unknown id is not found.
    let complete = ctx.retry_message(failed.message_id).await.unwrap_err();
    assert!(matches!(complete, EngineError::Conflict(_)), "{complete}");
    let unknown = ctx.retry_message(MessageId::new()).await.unwrap_err();
    assert!(matches!(unknown, EngineError::NotFound(_)), "{unknown}");
}

#[tokio::test]
async fn file_references_and_their_text_fail_retry_and_delete_together() {
    let h = Harness::new(Script::new().then(reply(&["seen"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let sent = ctx
        .send_message(SendMessageRequest {
            payload: MessagePayload::Text(TextPayload {
                text: "explain this file".into(),
                file_references: vec![FileReferencePayload {
                    path: "src/later.rs".into(),
                    range: None,
                    display_text: None,
                }],
                images: vec![],
            }),
            client_metadata: None,
        })
        .await
        .unwrap();
    assert!(matches!(settle(&ctx).await, ContextState::Failed { .. }));
    let all = messages(&ctx).await;
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(|m| m.status == MessageStatus::Failed));
    assert_eq!(all[1].id, sent.message_id, "the answer names the text");

    std::fs::write(h.workspace.join("src/later.rs"), "fn later() {}\n").unwrap();
    ctx.retry_message(sent.message_id).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let all = messages(&ctx).await;
    assert!(
        all[..2].iter().all(|m| m.status == MessageStatus::Complete),
        "{all:?}"
    );
    let body = &request_bodies(&h)[0];
    assert!(body.contains("fn later()") && body.contains("explain this file"));

    // Deleting one message of a failed send removes the whole send.
    std::fs::remove_file(h.workspace.join("src/later.rs")).unwrap();
    let second = ctx
        .send_message(SendMessageRequest {
            payload: MessagePayload::Text(TextPayload {
                text: "and again".into(),
                file_references: vec![FileReferencePayload {
                    path: "src/later.rs".into(),
                    range: None,
                    display_text: None,
                }],
                images: vec![],
            }),
            client_metadata: None,
        })
        .await
        .unwrap();
    assert!(matches!(settle(&ctx).await, ContextState::Failed { .. }));
    assert_eq!(messages(&ctx).await.len(), all.len() + 2);
    ctx.delete_message(second.message_id).await.unwrap();
    assert_eq!(messages(&ctx).await, all);
}

#[tokio::test]
async fn delete_removes_failed_input_and_refuses_anything_else() {
    let h = Harness::new(Script::new().then(reply(&["fine"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let mut events = ctx.subscribe();
    let failed = ctx.send_message(missing_file()).await.unwrap();
    assert!(matches!(settle(&ctx).await, ContextState::Failed { .. }));
    ctx.delete_message(failed.message_id).await.unwrap();
    assert!(messages(&ctx).await.is_empty());
    // Subscribers receive an event once its batch has committed.
    h.store.flush_events().await.unwrap();
    let deleted: Vec<MessageId> = std::iter::from_fn(|| events.try_recv().ok())
        .filter_map(|e| match e.event {
            ContextEvent::ContextUpdate(ContextUpdate {
                message_update: Some(MessageUpdate::Deleted { message_id, .. }),
                ..
            }) => Some(message_id),
            _ => None,
        })
        .collect();
    assert_eq!(deleted, vec![failed.message_id], "clients are told");
    let gone = ctx.delete_message(failed.message_id).await.unwrap_err();
    assert!(matches!(gone, EngineError::NotFound(_)), "{gone}");
    let retry_gone = ctx.retry_message(failed.message_id).await.unwrap_err();
    assert!(
        matches!(retry_gone, EngineError::NotFound(_)),
        "{retry_gone}"
    );

    ctx.send_message(text("hello")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let all = messages(&ctx).await;
    for m in &all {
        let refused = ctx.delete_message(m.id).await.unwrap_err();
        assert!(matches!(refused, EngineError::Conflict(_)), "{refused}");
    }
    assert_eq!(messages(&ctx).await, all);
}

#[tokio::test]
async fn queued_input_can_be_deleted_before_it_runs() {
    let slow = StreamReply::answer(&["slow ", "answer"]).chunk_delay(Duration::from_millis(300));
    let h = Harness::new(Script::new().then(slow).then(reply(&["third answer"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let running = ctx.send_message(text("first")).await.unwrap();
    let second = ctx.send_message(text("second")).await.unwrap();
    let third = ctx.send_message(text("third")).await.unwrap();
    assert!(second.queued && third.queued);
    let busy = ctx.delete_message(running.message_id).await.unwrap_err();
    assert!(matches!(busy, EngineError::Conflict(_)), "{busy}");
    ctx.delete_message(second.message_id).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while h.mock.request_count() < 2 || !ctx.state(false).await.unwrap().state.kind().is_resting() {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    settle(&ctx).await;
    let bodies = request_bodies(&h);
    assert_eq!(bodies.len(), 2);
    assert!(bodies.iter().all(|b| !b.contains("second")));
    assert!(
        messages(&ctx)
            .await
            .iter()
            .all(|m| m.id != second.message_id)
    );
    // The deleted input never ran; it is not left pending.
    let m = stored(&h, &ctx, second.message_id).await;
    assert_eq!(m.status, MessageStatus::Failed);
    assert_eq!(m.error.unwrap().code.as_deref(), Some("deleted"));
}

#[tokio::test]
async fn input_a_restart_interrupted_comes_back_failed_and_retryable() {
    // A crash after the pipeline's first commit: the state says work was under way.
    let state = restart_mid_pipeline(ContextState::ProcessingUserMessage).await;
    assert!(matches!(state, ContextState::Failed { .. }), "{state:?}");
}

#[tokio::test]
async fn input_a_restart_interrupted_before_any_commit_of_its_turn_comes_back_failed_and_retryable()
{
    // A send's first step is not persisted on its own (the pending input stands for it): a
    // crash before the pipeline's commit leaves the resting state the send started from.
    let state = restart_mid_pipeline(ContextState::Idle).await;
    assert_eq!(state, ContextState::Idle);
}

/// Stores a send's input as a crash mid-pipeline leaves it, with `stored_state`, restarts,
/// checks the input came back failed and retryable, retries it, and returns the state the
/// restart left.
async fn restart_mid_pipeline(stored_state: ContextState) -> ContextState {
    let h = Harness::new(Script::new().then(reply(&["after the restart"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let id = ctx.id();
    ctx.shutdown().await;
    let waiting = Message::user_text("typed before the crash").with_status(MessageStatus::Pending);
    h.store
        .save_changes(
            id,
            &ContextChanges::new()
                .add_message(&BranchName::main(), waiting.clone())
                .with_state(stored_state),
        )
        .await
        .unwrap();
    let restarted = h.restart();
    let ctx = restarted.get(id).await.unwrap();
    let after_restart = ctx.state(false).await.unwrap().state;
    let m = stored(&h, &ctx, waiting.id).await;
    assert_eq!(m.status, MessageStatus::Failed, "never left pending");
    let error = m.error.unwrap();
    assert_eq!(error.code.as_deref(), Some("restarted"));
    assert!(error.recoverable);
    assert!(matches!(&m.kind, MessageKind::Text(t) if t.text() == "typed before the crash"));

    ctx.retry_message(waiting.id).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(
        stored(&h, &ctx, waiting.id).await.status,
        MessageStatus::Complete
    );
    assert!(request_bodies(&h)[0].contains("typed before the crash"));
    after_restart
}
