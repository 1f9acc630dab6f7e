//! A store that fails: the send is refused and the context is left exactly as it was. A store
//! that is slow: reads are answered while a commit waits.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use braid_context::{ContextRegistry, EngineSettings, Services};
use braid_protocol::api::CreateContextRequest;
use braid_protocol::*;
use braid_store::{
    Backend, BranchRecord, ContextChanges, ContextRecord, EventPublisher, LostEvents, MessageRange,
    Store, StoreError,
};
use braid_testkit::Script;
use common::*;

/// Delegates to a real store; refuses every save while `failing` is set (once a held save is
/// let go), loses every event
/// while `losing_events` is set, and holds saves while `stall` is locked: every save, or with
/// `stall_completions` only those that complete a message, with `stall_rests` only the saves
/// of a resting state alone (a move to rest), or with `stall_answers` only those that add a
/// streaming answer. It commits a queued change set before answering, as PostgreSQL does.
struct FlakyStore {
    inner: Arc<dyn Store>,
    failing: AtomicBool,
    losing_events: AtomicBool,
    stall: tokio::sync::Mutex<()>,
    stall_completions: AtomicBool,
    stall_rests: AtomicBool,
    stall_answers: AtomicBool,
}

#[async_trait]
impl Store for FlakyStore {
    fn backend(&self) -> Backend {
        self.inner.backend()
    }
    async fn create_context(&self, c: &ContextRecord) -> braid_store::Result<()> {
        self.inner.create_context(c).await
    }
    async fn get_context(&self, id: ContextId) -> braid_store::Result<Option<ContextRecord>> {
        self.inner.get_context(id).await
    }
    async fn load_mcp_credentials(&self, server: &str) -> braid_store::Result<Option<String>> {
        self.inner.load_mcp_credentials(server).await
    }
    async fn save_mcp_credentials(&self, server: &str, c: &str) -> braid_store::Result<()> {
        self.inner.save_mcp_credentials(server, c).await
    }
    async fn clear_mcp_credentials(&self, server: &str) -> braid_store::Result<()> {
        self.inner.clear_mcp_credentials(server).await
    }
    async fn list_contexts(&self) -> braid_store::Result<Vec<ContextRecord>> {
        self.inner.list_contexts().await
    }
    async fn list_context_ids(&self) -> braid_store::Result<Vec<ContextId>> {
        self.inner.list_context_ids().await
    }
    async fn delete_context(&self, id: ContextId) -> braid_store::Result<bool> {
        self.inner.delete_context(id).await
    }
    async fn save_changes(
        &self,
        id: ContextId,
        changes: &ContextChanges,
    ) -> braid_store::Result<()> {
        let completes = changes
            .updated_messages
            .iter()
            .any(|m| m.status == MessageStatus::Complete);
        let rests = changes.new_messages.is_empty()
            && changes.updated_messages.is_empty()
            && changes
                .state
                .as_ref()
                .is_some_and(|s| s.kind().is_resting());
        let answers = changes
            .new_messages
            .iter()
            .any(|m| m.status == MessageStatus::Streaming);
        let held = if self.stall_answers.load(Ordering::SeqCst) {
            answers
        } else if self.stall_rests.load(Ordering::SeqCst) {
            rests
        } else {
            completes || !self.stall_completions.load(Ordering::SeqCst)
        };
        if held {
            drop(self.stall.lock().await);
        }
        if self.failing.load(Ordering::SeqCst) {
            return Err(StoreError::EventsNotWritten {
                reason: "injected: the disk is full".into(),
            });
        }
        self.inner.save_changes(id, changes).await
    }
    async fn list_branches(&self, id: ContextId) -> braid_store::Result<Vec<BranchRecord>> {
        self.inner.list_branches(id).await
    }
    async fn load_messages(
        &self,
        id: ContextId,
        b: &BranchName,
        r: MessageRange,
    ) -> braid_store::Result<Vec<Message>> {
        self.inner.load_messages(id, b, r).await
    }
    async fn load_messages_by_kind(
        &self,
        id: ContextId,
        b: &BranchName,
        k: KindName,
    ) -> braid_store::Result<Vec<Message>> {
        self.inner.load_messages_by_kind(id, b, k).await
    }
    async fn count_messages(&self, id: ContextId, b: &BranchName) -> braid_store::Result<u64> {
        self.inner.count_messages(id, b).await
    }
    async fn get_messages(
        &self,
        id: ContextId,
        ids: &[MessageId],
    ) -> braid_store::Result<Vec<Message>> {
        self.inner.get_messages(id, ids).await
    }
    async fn all_messages(&self, id: ContextId) -> braid_store::Result<Vec<Message>> {
        self.inner.all_messages(id).await
    }
    async fn append_event(
        &self,
        id: ContextId,
        e: &ContextEvent,
        publisher: Arc<dyn EventPublisher>,
    ) -> braid_store::Result<SequencedEvent> {
        if self.losing_events.load(Ordering::SeqCst) {
            // As the batching writer does when the store fails through every retry: the event
            // is queued, and a moment later reported lost instead of published.
            tokio::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                publisher.lost(LostEvents {
                    context: id,
                    count: 1,
                    reason: "injected: the database is unreachable".into(),
                });
            });
            return Ok(SequencedEvent {
                sequence: 0,
                event: e.clone(),
            });
        }
        self.inner.append_event(id, e, publisher).await
    }
    async fn last_event_sequence(&self, id: ContextId) -> braid_store::Result<u64> {
        self.inner.last_event_sequence(id).await
    }
    async fn message_deltas(
        &self,
        id: ContextId,
        message: MessageId,
    ) -> braid_store::Result<Vec<ContentDelta>> {
        self.inner.message_deltas(id, message).await
    }
    async fn flush_events(&self) -> braid_store::Result<()> {
        self.inner.flush_events().await
    }
    async fn events_after(
        &self,
        id: ContextId,
        after: u64,
        limit: u32,
    ) -> braid_store::Result<Vec<SequencedEvent>> {
        self.inner.events_after(id, after, limit).await
    }
    async fn try_lock_context(
        &self,
        id: ContextId,
    ) -> braid_store::Result<Option<braid_store::ContextLock>> {
        self.inner.try_lock_context(id).await
    }
    async fn lease(&self, id: ContextId) -> braid_store::Result<Option<braid_store::Lease>> {
        self.inner.lease(id).await
    }
    async fn orphaned_contexts(&self) -> braid_store::Result<Vec<ContextId>> {
        self.inner.orphaned_contexts().await
    }
    fn replica(&self) -> &braid_store::ReplicaIdentity {
        self.inner.replica()
    }
    fn event_notices(&self) -> tokio::sync::broadcast::Receiver<braid_store::EventNotice> {
        self.inner.event_notices()
    }
    async fn claim_idempotency_key(
        &self,
        request: braid_store::IdempotentRequest<'_>,
        window: braid_store::IdempotencyWindow,
    ) -> braid_store::Result<braid_store::IdempotencyClaim> {
        self.inner.claim_idempotency_key(request, window).await
    }
    async fn record_idempotent_answer(
        &self,
        scope: &str,
        key: &str,
        answer: &braid_store::StoredAnswer,
    ) -> braid_store::Result<()> {
        self.inner
            .record_idempotent_answer(scope, key, answer)
            .await
    }
    async fn release_idempotency_key(&self, scope: &str, key: &str) -> braid_store::Result<()> {
        self.inner.release_idempotency_key(scope, key).await
    }
    async fn expire_idempotency_keys(
        &self,
        window: braid_store::IdempotencyWindow,
        keep: u64,
    ) -> braid_store::Result<u64> {
        self.inner.expire_idempotency_keys(window, keep).await
    }
    async fn running_turns(&self, id: ContextId) -> braid_store::Result<Vec<api::TurnView>> {
        self.inner.running_turns(id).await
    }
    async fn get_turn(
        &self,
        id: ContextId,
        turn: ContextTurnId,
    ) -> braid_store::Result<Option<api::TurnView>> {
        self.inner.get_turn(id, turn).await
    }
    async fn close(&self) -> braid_store::Result<()> {
        self.inner.close().await
    }
}

/// The wrapper keeps what the engine stores beside contexts (a turn's record, an idempotency
/// key): an ended turn is answered from the store under it.
#[tokio::test]
async fn an_ended_turn_is_read_back_through_the_wrapper() {
    let h = Harness::new(Script::new().then(reply(&["answer"]))).await;
    let (_flaky, _registry, ctx) = flaky_context(&h).await;
    let sent = ctx.send_message(text("hello")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    let turn = loop {
        let turn = ctx.turn(sent.turn_id).await.unwrap();
        if turn.status == api::TurnStatus::Completed || tokio::time::Instant::now() > deadline {
            break turn;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    assert_eq!(turn.outcome, Some(TurnOutcome::Answered), "{turn:?}");
    assert_eq!(turn.message_id, Some(sent.message_id));
    // The actor answers with the ended record while it is being saved: the store has it
    // once that save ends.
    let stored = loop {
        let stored = h.store.get_turn(ctx.id(), sent.turn_id).await.unwrap();
        if stored.as_ref() == Some(&turn) || tokio::time::Instant::now() > deadline {
            break stored;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    assert_eq!(
        stored,
        Some(turn),
        "the record reached the store under the wrapper"
    );
}

/// A context on an engine whose store is a [`FlakyStore`] over the harness's.
async fn flaky_context(
    h: &Harness,
) -> (
    Arc<FlakyStore>,
    Arc<ContextRegistry>,
    braid_context::ContextHandle,
) {
    let flaky = Arc::new(FlakyStore {
        inner: h.store.clone(),
        failing: AtomicBool::new(false),
        losing_events: AtomicBool::new(false),
        stall: tokio::sync::Mutex::new(()),
        stall_completions: AtomicBool::new(false),
        stall_rests: AtomicBool::new(false),
        stall_answers: AtomicBool::new(false),
    });
    let registry = ContextRegistry::new(Services {
        frames: Default::default(),
        store: flaky.clone(),
        llm: Some(h.llm.clone()),
        tools: h.tools.clone(),
        mcp: None,
        settings: EngineSettings {
            default_model: "mock-model".into(),
            ..EngineSettings::default()
        },
    });
    let ctx = registry
        .create(CreateContextRequest {
            title: None,
            config: ContextConfig::default(),
        })
        .await
        .unwrap();
    (flaky, registry, ctx)
}

#[tokio::test]
async fn storage_failure_refuses_the_send_and_leaves_the_context_unchanged() {
    let h = Harness::new(Script::new().then(reply(&["first answer"]))).await;
    let (flaky, _registry, ctx) = flaky_context(&h).await;
    ctx.send_message(text("hello")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let before = messages(&ctx).await;
    assert_eq!(before.len(), 2);

    // A send is answered with an id only once its input is stored: while the store refuses
    // writes, the send itself is refused and nothing changes.
    flaky.failing.store(true, Ordering::SeqCst);
    let error = ctx
        .send_message(text("this will not be stored"))
        .await
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::StorageFailed);
    assert!(error.to_string().contains("disk is full"), "{error}");
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(messages(&ctx).await, before, "memory is unchanged");
    assert_eq!(
        h.store.all_messages(ctx.id()).await.unwrap().len(),
        2,
        "the store is unchanged"
    );
    assert_eq!(h.mock.request_count(), 1, "the model was not asked");

    // Once storage works again, the next send goes through.
    flaky.failing.store(false, Ordering::SeqCst);
    h.mock.push_response(reply(&["second answer"]));
    ctx.send_message(text("again")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
}

#[tokio::test]
async fn events_the_store_loses_fail_the_context_visibly_once_it_is_back() {
    let pieces: Vec<String> = (0..40).map(|i| format!("p{i} ")).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let h = Harness::new(
        Script::new().then(reply(&refs).chunk_delay(std::time::Duration::from_millis(20))),
    )
    .await;
    let (flaky, _registry, ctx) = flaky_context(&h).await;
    let mut events = ctx.subscribe();
    ctx.send_message(text("stream")).await.unwrap();
    loop {
        let e = events.recv().await.unwrap();
        if matches!(e.event, ContextEvent::ContentDelta(_)) {
            break;
        }
    }
    // The store stops keeping events mid-stream.
    flaky.losing_events.store(true, Ordering::SeqCst);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    let failed = loop {
        let state = ctx.state(false).await.unwrap().state;
        if let ContextState::Failed { error, recoverable } = &state {
            assert!(recoverable);
            break error.clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "still {state:?}");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    assert!(failed.contains("could not be stored"), "{failed}");
    // The failure itself is stored with the context.
    let stored = h.store.get_context(ctx.id()).await.unwrap().unwrap();
    assert!(
        matches!(stored.state, ContextState::Failed { .. }),
        "{:?}",
        stored.state
    );
    // Once the store keeps events again, the client is told.
    flaky.losing_events.store(false, Ordering::SeqCst);
    let error = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        loop {
            let e = events.recv().await.unwrap();
            if let ContextEvent::Error(error) = e.event.clone() {
                return error;
            }
        }
    })
    .await
    .expect("an error event reaches the client once the store is back");
    assert_eq!(error.code, ErrorCode::StorageFailed);
    assert!(
        error.message.contains("could not be stored"),
        "{}",
        error.message
    );
    // Nothing the client saw is missing from the log: every published event is committed.
    let log = h.store.events_after(ctx.id(), 0, 10_000).await.unwrap();
    let sequences: Vec<u64> = log.iter().map(|e| e.sequence).collect();
    assert_eq!(
        sequences,
        (1..=log.len() as u64).collect::<Vec<_>>(),
        "no gap"
    );
}

#[tokio::test]
async fn reads_are_answered_while_a_turns_commit_waits_and_other_commands_after_it() {
    let h = Harness::new(
        Script::new()
            .then(reply(&["hello"]))
            .then(reply(&["again"])),
    )
    .await;
    let (flaky, _registry, ctx) = flaky_context(&h).await;
    // The turn's commit that completes the input waits.
    flaky.stall_completions.store(true, Ordering::SeqCst);
    let stalled = flaky.stall.lock().await;
    let first = ctx.send_message(text("hi")).await.unwrap();
    assert!(
        h.mock
            .wait_for_requests(1, std::time::Duration::from_secs(20))
            .await,
        "the turn never started"
    );
    let second = tokio::spawn({
        let ctx = ctx.clone();
        async move { ctx.send_message(text("and again")).await }
    });

    // Reads are answered meanwhile, from what is committed (the input is still pending).
    let bound = std::time::Duration::from_secs(5);
    let summary = tokio::time::timeout(bound, ctx.summary())
        .await
        .expect("a summary read is answered while the commit waits")
        .unwrap();
    assert!(!summary.state.kind().is_resting(), "{:?}", summary.state);
    let listed = tokio::time::timeout(bound, ctx.messages(Default::default()))
        .await
        .expect("a message read is answered while the commit waits")
        .unwrap()
        .messages;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].status, MessageStatus::Pending);
    // A change waits for the commit before it.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert!(
        !second.is_finished(),
        "a send is set aside until the commit ends"
    );

    drop(stalled);
    let second = second.await.unwrap().unwrap();
    assert!(
        second.queued,
        "handled after the commit, while the first turn ran"
    );
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    while messages(&ctx).await.len() < 4 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the queued send never ran"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let order: Vec<MessageId> = messages(&ctx).await.iter().map(|m| m.id).collect();
    assert_eq!(order[0], first.message_id);
    assert_eq!(order[2], second.message_id);
}

#[tokio::test]
async fn reads_are_answered_while_a_store_without_ordering_saves_the_answers_row() {
    let h = Harness::new(Script::new().then(reply(&["hello"]))).await;
    let (flaky, _registry, ctx) = flaky_context(&h).await;
    // The first chunk's row is saved before the store answers (the flaky store, as PostgreSQL,
    // has no queue that orders it before the events): that save waits.
    flaky.stall_answers.store(true, Ordering::SeqCst);
    let stalled = flaky.stall.lock().await;
    ctx.send_message(text("hi")).await.unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    while !matches!(
        ctx.listing().state,
        ContextState::StreamingLlmResponse { .. }
    ) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the answer never began"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }

    let bound = std::time::Duration::from_secs(5);
    let summary = tokio::time::timeout(bound, ctx.summary())
        .await
        .expect("a summary read is answered while the answer's row is saved")
        .unwrap();
    assert!(
        matches!(summary.state, ContextState::StreamingLlmResponse { .. }),
        "{:?}",
        summary.state
    );
    let listed = tokio::time::timeout(bound, ctx.messages(Default::default()))
        .await
        .expect("a message read is answered while the answer's row is saved")
        .unwrap()
        .messages;
    assert_eq!(listed.len(), 1, "only the question is committed so far");

    drop(stalled);
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let all = messages(&ctx).await;
    assert_eq!(all.len(), 2);
    assert_eq!(all[1].status, MessageStatus::Complete);
}

#[tokio::test]
async fn a_resting_context_answers_reads_during_its_commit_with_what_is_committed() {
    let h = Harness::new(Script::new()).await;
    let (flaky, _registry, ctx) = flaky_context(&h).await;
    let stalled = flaky.stall.lock().await;
    // A send's input is committed while the context is idle: a read meanwhile is answered at
    // once, from what is stored, which does not have the input yet.
    let send = tokio::spawn({
        let ctx = ctx.clone();
        async move { ctx.send_message(text("hi")).await }
    });
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let read = tokio::time::timeout(std::time::Duration::from_secs(5), ctx.summary())
        .await
        .expect("the read waited for the commit")
        .unwrap();
    assert_eq!(
        read.message_count, 0,
        "the read saw an input not yet stored"
    );
    assert_eq!(read.state, ContextState::Idle);
    assert!(
        !send.is_finished(),
        "the send was accepted before its input was stored"
    );
    drop(stalled);
    send.await.unwrap().unwrap();
    assert_eq!(ctx.summary().await.unwrap().message_count, 1);
}

/// A summary read that must be answered within five seconds (a read held behind a stalled
/// commit would hang the test).
async fn read_within_5s(ctx: &braid_context::ContextHandle) -> api::ContextSummary {
    tokio::time::timeout(std::time::Duration::from_secs(5), ctx.summary())
        .await
        .expect("the read waited for the move to rest")
        .unwrap()
}

/// Sends a message whose answer is then stored, and holds the move to rest that follows at the
/// store until the returned guard is dropped.
async fn answer_stored_and_rest_held<'a>(
    flaky: &'a FlakyStore,
    ctx: &braid_context::ContextHandle,
) -> tokio::sync::MutexGuard<'a, ()> {
    flaky.stall_rests.store(true, Ordering::SeqCst);
    let stalled = flaky.stall.lock().await;
    ctx.send_message(text("hi")).await.unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    while read_within_5s(ctx).await.message_count < 2 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the answer was never stored"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    // Time for the actor to reach the move to rest.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    stalled
}

#[tokio::test]
async fn a_context_coming_to_rest_shows_its_last_committed_state_until_the_rest_is_stored() {
    let h = Harness::new(Script::new().then(reply(&["hello"]))).await;
    let (flaky, _registry, ctx) = flaky_context(&h).await;
    let mut events = ctx.subscribe();
    let stalled = answer_stored_and_rest_held(&flaky, &ctx).await;
    let during = read_within_5s(&ctx).await;
    assert_eq!(
        during.state,
        ContextState::ProcessingLlmResponse,
        "idle was shown before it was stored"
    );
    assert_eq!(during.message_count, 2);
    let state = tokio::time::timeout(std::time::Duration::from_secs(5), ctx.state(false))
        .await
        .expect("the state read waited for the move to rest")
        .unwrap();
    assert_eq!(state.state, ContextState::ProcessingLlmResponse);
    assert_eq!(ctx.listing().state, ContextState::ProcessingLlmResponse);
    let idle_update = |e: &braid_context::events::LiveEvent| {
        matches!(&e.event, ContextEvent::ContextUpdate(u)
            if u.previous_state.is_some() && u.current_state == ContextState::Idle)
    };
    while let Ok(e) = events.try_recv() {
        assert!(!idle_update(&e), "idle was announced before it was stored");
    }
    drop(stalled);
    // Whoever sees idle announced reads idle.
    loop {
        let e = tokio::time::timeout(std::time::Duration::from_secs(5), events.recv())
            .await
            .expect("idle was never announced")
            .unwrap();
        if idle_update(&e) {
            break;
        }
    }
    assert_eq!(read_within_5s(&ctx).await.state, ContextState::Idle);
}

#[tokio::test]
async fn a_rest_the_store_refuses_is_listed_as_reads_show_it() {
    let h = Harness::new(Script::new().then(reply(&["hello"]))).await;
    let (flaky, _registry, ctx) = flaky_context(&h).await;
    let stalled = answer_stored_and_rest_held(&flaky, &ctx).await;
    assert_eq!(
        ctx.listing().state,
        ContextState::ProcessingLlmResponse,
        "listed as idle before idle was stored"
    );
    // The move to rest is refused: the context is idle all the same, and listed so.
    flaky.failing.store(true, Ordering::SeqCst);
    drop(stalled);
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(ctx.listing().state, ContextState::Idle);
}

#[tokio::test]
async fn the_model_is_asked_while_the_processed_input_is_being_stored() {
    let h = Harness::new(Script::new().then(reply(&["hello"]))).await;
    let (flaky, _registry, ctx) = flaky_context(&h).await;
    flaky.stall_completions.store(true, Ordering::SeqCst);
    let stalled = flaky.stall.lock().await;
    let sent = ctx.send_message(text("hi")).await.unwrap();
    // The request goes out while the commit that completes the input waits.
    assert!(
        h.mock
            .wait_for_requests(1, std::time::Duration::from_secs(20))
            .await,
        "the model was never asked"
    );
    let stored = h
        .store
        .get_messages(ctx.id(), &[sent.message_id])
        .await
        .unwrap();
    assert_eq!(
        stored[0].status,
        MessageStatus::Pending,
        "not stored as complete yet"
    );
    // Nothing of the answer is stored or shown before the input is.
    assert_eq!(messages(&ctx).await.len(), 1);

    drop(stalled);
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let all = messages(&ctx).await;
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].status, MessageStatus::Complete);
    assert_eq!(all[1].role, Role::Assistant);
}

#[tokio::test]
async fn an_actor_whose_handles_go_during_a_turn_ends_once_the_turn_rests() {
    let slow =
        reply(&["one", "two", "three", "four"]).chunk_delay(std::time::Duration::from_millis(50));
    let h = Harness::new(Script::new().then(slow)).await;
    let (_flaky, registry, ctx) = flaky_context(&h).await;
    let mut events = ctx.subscribe();
    ctx.send_message(text("hi")).await.unwrap();
    // Every handle goes while the answer streams: the turn's own wait sees the inbox close.
    loop {
        let e = events.recv().await.unwrap();
        if matches!(e.event, ContextEvent::ContentDelta(_)) {
            break;
        }
    }
    drop(ctx);
    drop(registry);
    // The actor finishes the turn, comes to rest, and ends (its event channel closes).
    let ended = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        loop {
            match events.recv().await {
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                _ => continue,
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the actor lived on with no handle left");
}
