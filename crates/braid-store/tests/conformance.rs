//! One suite, run against every backend: each case below is instantiated once for SQLite and
//! once for PostgreSQL by `conformance!`.

use crate::support;

use std::sync::Arc;

use braid_protocol::{
    BranchName, ContentDelta, ContextConfig, ContextEvent, ContextId, ContextState, KindName,
    Message, MessageId, MessageKind, MessageStatus, Mode, Role, SequencedEvent, TextMessage,
    ToolCall, ToolOutcome, ToolRequestMessage, ToolResultMessage,
};
use braid_store::{
    BranchIds, BranchRecord, BranchSettings, ContextChanges, ContextRecord, EventPublisher,
    IdempotencyClaim, IdempotencyWindow, IdempotentRequest, MessageRange, SearchTerms, Store,
    StoreError, StoredAnswer,
};
use support::Fixture;

macro_rules! conformance {
    ($($case:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $case() {
                    let fixture = crate::support::sqlite().await;
                    crate::conformance::cases::$case(&fixture).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                async fn $case() {
                    let Some(fixture) = crate::support::postgres(stringify!($case)).await else {
                        return;
                    };
                    crate::conformance::cases::$case(&fixture).await;
                }
            )*
        }
    };
}

conformance!(
    change_sets_saved_together_are_all_stored_and_a_bad_one_fails_alone,
    turns_saved_side_by_side_are_stored_as_each_would_be_alone,
    created_context_reads_back_with_an_empty_active_branch,
    creating_a_context_twice_is_refused,
    contexts_list_most_recently_updated_first,
    deleting_a_context_removes_its_messages_branches_and_events,
    every_storable_role_round_trips_in_branch_order,
    system_role_is_rejected_and_nothing_of_the_change_set_is_written,
    tool_message_without_call_id_is_rejected_naming_the_field,
    updated_message_replaces_status_and_content,
    updating_a_missing_message_fails_and_rolls_back_the_whole_change_set,
    context_fields_and_state_persist,
    pages_follow_a_message_with_a_limit,
    range_after_a_message_not_on_the_branch_is_an_error,
    newest_messages_come_oldest_first,
    messages_load_by_kind,
    long_branches_load_whole_in_branch_order_and_pools_by_creation,
    counts_and_lookups_by_id,
    forked_branch_keeps_its_prefix_parent_and_settings,
    replacing_a_branch_order_rewrites_it,
    a_merge_lands_whole_with_its_notice_or_not_at_all,
    active_branch_cannot_be_deleted_or_missing,
    appending_to_a_missing_branch_fails,
    branch_ids_must_be_in_the_pool_and_appear_once,
    unreadable_payload_loads_as_unknown_message,
    unknown_kind_round_trips_byte_for_byte,
    missing_context_is_reported_by_every_read,
    events_get_rising_sequences_per_context_and_replay_after,
    event_sequences_continue_after_reopening,
    committed_messages_survive_reopening,
    concurrent_saves_to_many_contexts_all_land,
    context_lock_is_exclusive_until_dropped,
    events_reach_subscribers_only_once_committed_in_order,
    a_crash_never_gives_an_id_a_subscriber_saw_to_another_event,
    last_event_sequence_is_the_highest_committed,
    message_deltas_are_one_messages_committed_deltas_in_order,
    mcp_credentials_are_kept_per_server_across_reopening,
    model_requests_are_listed_newest_first_per_branch_and_go_with_their_context,
    token_counts_replace_their_message_and_counters_and_go_with_their_context,
    idempotency_keys_claim_answer_refuse_other_bodies_and_expire,
    a_turn_record_is_replaced_by_its_next_and_goes_with_its_context,
    turn_and_request_records_ride_with_their_change_set_or_not_at_all,
    a_set_of_turn_records_only_leaves_the_context_row_and_needs_the_context,
    running_turns_are_found_by_their_status_column_written_with_every_save,
    a_new_owner_gets_a_greater_token_and_the_old_owners_writes_are_refused,
    lapsed_leases_are_orphans_and_released_ones_are_not,
    committed_events_are_announced,
    a_state_change_and_the_events_announcing_it_commit_together_or_not_at_all,
    the_last_context_update_is_found_behind_other_events,
    search_finds_a_word_of_a_message_body_as_a_prefix_naming_its_context_and_branch,
    search_follows_updated_queued_and_deleted_messages,
);

async fn new_context(store: &Arc<dyn Store>) -> ContextRecord {
    let record = ContextRecord::new("test", ContextConfig::default());
    store.create_context(&record).await.unwrap();
    record
}

async fn with_messages(store: &Arc<dyn Store>, n: usize) -> (ContextRecord, Vec<Message>) {
    let record = new_context(store).await;
    let main = BranchName::main();
    let mut changes = ContextChanges::new();
    let mut messages = Vec::new();
    for i in 0..n {
        let m = if i % 2 == 0 {
            Message::user_text(format!("question {i}"))
        } else {
            Message::assistant_text(format!("answer {i}"))
        };
        messages.push(m.clone());
        changes.push_message(&main, m);
    }
    store.save_changes(record.id, &changes).await.unwrap();
    (record, messages)
}

fn tool_request(call: &str) -> Message {
    Message::new(
        Role::Assistant,
        MessageKind::ToolRequest(ToolRequestMessage {
            calls: vec![ToolCall::new(
                call,
                "read_file",
                serde_json::json!({"path": "src/main.rs"}),
            )],
        }),
    )
}

fn tool_result(call: &str) -> Message {
    Message::new(
        Role::Tool,
        MessageKind::ToolResult(Box::new(ToolResultMessage {
            call_id: call.into(),
            tool_name: "read_file".into(),
            outcome: ToolOutcome::Success {
                output: serde_json::json!("fn main() {}"),
            },
            duration_ms: 3,
            started_at: None,
            completed_at: None,
        })),
    )
}

fn delta(context: ContextId, message: MessageId, text: &str) -> ContextEvent {
    ContextEvent::ContentDelta(ContentDelta {
        context_id: context,
        message_id: message,
        sequence: 0,
        delta: text.into(),
        is_final: false,
        turn_id: None,
        branch: None,
    })
}

/// A publisher nobody listens to.
fn live() -> Arc<dyn EventPublisher> {
    Arc::new(tokio::sync::broadcast::channel::<SequencedEvent>(16).0)
}

/// A `context_update` announcing a move from `from` to `to`.
fn update(context: ContextId, from: ContextState, to: ContextState) -> ContextEvent {
    ContextEvent::ContextUpdate(braid_protocol::ContextUpdate {
        context_id: context,
        current_state: to,
        previous_state: Some(from),
        message_update: None,
        timestamp: chrono::Utc::now(),
        metadata: Default::default(),
        pending_calls: Vec::new(),
        turn_id: None,
        branch: None,
    })
}

fn ids(messages: &[Message]) -> Vec<MessageId> {
    messages.iter().map(|m| m.id).collect()
}

mod cases {
    use super::*;

    /// Saves `changes` through the store's queue (the SQLite group writer's path).
    /// Saves `turn`'s record alone, as a turn's end and recovery do.
    async fn save_turn_record(store: &Arc<dyn Store>, turn: &braid_protocol::api::TurnView) {
        let record = ContextChanges::turn_record(turn.clone());
        store.save_changes(turn.context_id, &record).await.unwrap();
    }

    async fn queued(store: &Arc<dyn Store>, context: ContextId, changes: &ContextChanges) {
        let pending = store.queue_changes(context, changes).await.unwrap();
        pending.outcome().await.unwrap();
    }

    /// The hits of `query`, as (message, context) pairs.
    async fn found(store: &Arc<dyn Store>, query: &str) -> Vec<(MessageId, ContextId)> {
        let terms = SearchTerms::parse(query).unwrap();
        store
            .search_messages(&terms, 20)
            .await
            .unwrap()
            .into_iter()
            .map(|hit| (hit.message, hit.context))
            .collect()
    }

    pub async fn search_finds_a_word_of_a_message_body_as_a_prefix_naming_its_context_and_branch(
        f: &Fixture,
    ) {
        let record = ContextRecord::new("Parser work", ContextConfig::default());
        f.store.create_context(&record).await.unwrap();
        let main = BranchName::main();
        let question = Message::user_text("Where is the tokenizer defined?");
        let answer = Message::assistant_text(
            "It lives in src/lexer.rs, right next to the Zebrafish struct that holds the \
             cursor, the line table and the list of diagnostics found so far.",
        );
        let request = tool_request("call_9");
        let result = tool_result("call_9");
        let changes = ContextChanges::new()
            .add_message(&main, question.clone())
            .add_message(&main, answer.clone())
            .add_message(&main, request)
            .add_message(&main, result);
        f.store.save_changes(record.id, &changes).await.unwrap();
        let other = with_messages(&f.store, 2).await.0;

        let terms = SearchTerms::parse("zebra").unwrap();
        let hits = f.store.search_messages(&terms, 20).await.unwrap();
        assert_eq!(hits.len(), 1, "{hits:?}");
        let hit = &hits[0];
        assert_eq!(hit.context, record.id);
        assert_eq!(hit.title, "Parser work");
        assert_eq!(hit.message, answer.id);
        assert_eq!(hit.branch, Some(main.clone()));
        assert_eq!(hit.role, Role::Assistant);
        assert!(hit.snippet.contains("Zebrafish"), "{}", hit.snippet);
        assert!(!hit.snippet.contains('<'), "no markup: {}", hit.snippet);

        // Every word must occur, in any order and case.
        assert_eq!(
            found(&f.store, "TOKENIZER where").await,
            vec![(question.id, record.id)]
        );
        assert!(found(&f.store, "tokenizer zebrafish").await.is_empty());
        // Tool output is not what a person wrote: `fn main() {}` is not found.
        assert!(found(&f.store, "fn").await.is_empty());
        // Every context is searched.
        let answers = found(&f.store, "answer").await;
        assert_eq!(answers.len(), 1);
        assert_eq!(answers[0].1, other.id);
        // The limit holds.
        let questions = with_messages(&f.store, 6).await.0;
        let terms = SearchTerms::parse("question").unwrap();
        let limited = f.store.search_messages(&terms, 2).await.unwrap();
        assert_eq!(limited.len(), 2);
        assert!(limited.iter().all(|h| h.context == questions.id));
    }

    pub async fn search_follows_updated_queued_and_deleted_messages(f: &Fixture) {
        let record = new_context(&f.store).await;
        let main = BranchName::main();
        let mut answer = Message::assistant_text("").with_status(MessageStatus::Streaming);
        let question = Message::user_text("how do I configure the walrus");
        let changes = ContextChanges::new()
            .add_message(&main, question.clone())
            .add_message(&main, answer.clone());
        f.store.save_changes(record.id, &changes).await.unwrap();
        assert!(found(&f.store, "narwhal").await.is_empty());

        // The streamed answer's final text is found once it is stored; through the queue too.
        answer.kind = MessageKind::Text(TextMessage::plain("Set the narwhal option."));
        answer.status = MessageStatus::Complete;
        queued(
            &f.store,
            record.id,
            &ContextChanges::new().update_message(answer.clone()),
        )
        .await;
        assert_eq!(
            found(&f.store, "narwhal").await,
            vec![(answer.id, record.id)]
        );

        // A rewrite replaces the old words.
        answer.kind = MessageKind::Text(TextMessage::plain("Set the beluga option."));
        f.store
            .save_changes(
                record.id,
                &ContextChanges::new().update_message(answer.clone()),
            )
            .await
            .unwrap();
        assert!(found(&f.store, "narwhal").await.is_empty());
        assert_eq!(
            found(&f.store, "beluga").await,
            vec![(answer.id, record.id)]
        );

        // A message added through the queue on another branch names that branch.
        let alt = BranchName::from("side");
        let mut fork = BranchRecord::new(alt.clone());
        fork.message_ids = vec![question.id];
        fork.parent = Some(main.clone());
        fork.fork_point = Some(question.id);
        f.store
            .save_changes(
                record.id,
                &ContextChanges {
                    new_branches: vec![fork],
                    ..ContextChanges::new()
                },
            )
            .await
            .unwrap();
        let side = Message::assistant_text("The orca setting instead.");
        queued(
            &f.store,
            record.id,
            &ContextChanges::new().add_message(&alt, side.clone()),
        )
        .await;
        let terms = SearchTerms::parse("orca").unwrap();
        let hits = f.store.search_messages(&terms, 5).await.unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].branch, Some(alt));
        // A message on both branches names the active one.
        let terms = SearchTerms::parse("walrus").unwrap();
        let hits = f.store.search_messages(&terms, 5).await.unwrap();
        assert_eq!(hits[0].branch, Some(main));

        // A message left with no visible text leaves the index: reasoning is not searched.
        answer.kind = MessageKind::Text(TextMessage {
            parts: vec![braid_protocol::TextPart::Reasoning {
                text: "beluga thoughts".into(),
            }],
        });
        queued(
            &f.store,
            record.id,
            &ContextChanges::new().update_message(answer.clone()),
        )
        .await;
        assert!(found(&f.store, "beluga").await.is_empty());

        // Deleting the context takes its messages out of the index.
        assert!(f.store.delete_context(record.id).await.unwrap());
        assert!(found(&f.store, "walrus").await.is_empty());
        assert!(found(&f.store, "orca").await.is_empty());
    }

    pub async fn a_turn_record_is_replaced_by_its_next_and_goes_with_its_context(f: &Fixture) {
        use braid_protocol::api::{TurnStatus, TurnView};
        let record = new_context(&f.store).await;
        let turn = braid_protocol::ContextTurnId::new();
        let mut view = TurnView {
            turn_id: turn,
            context_id: record.id,
            branch: BranchName::main(),
            status: TurnStatus::Running,
            outcome: None,
            error: None,
            message_id: Some(MessageId::new()),
            completed_at: None,
        };
        save_turn_record(&f.store, &view).await;
        assert_eq!(
            f.store.running_turns(record.id).await.unwrap(),
            vec![view.clone()],
            "a turn saved running is found for recovery"
        );
        view.status = TurnStatus::Completed;
        view.outcome = Some(braid_protocol::TurnOutcome::Failed);
        view.error = Some("the model is gone".into());
        view.completed_at = Some(chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 6));
        save_turn_record(&f.store, &view).await;
        assert_eq!(f.store.get_turn(record.id, turn).await.unwrap(), Some(view));
        assert_eq!(
            f.store.running_turns(record.id).await.unwrap(),
            Vec::new(),
            "an ended turn is not running"
        );
        let other = braid_protocol::ContextTurnId::new();
        assert_eq!(f.store.get_turn(record.id, other).await.unwrap(), None);
        assert!(f.store.delete_context(record.id).await.unwrap());
        assert_eq!(f.store.get_turn(record.id, turn).await.unwrap(), None);
    }

    pub async fn turn_and_request_records_ride_with_their_change_set_or_not_at_all(f: &Fixture) {
        use braid_protocol::api::{TurnStatus, TurnView};
        let main = BranchName::main();
        // A turn's change set with its running record and its request's record: saved alone,
        // queued (the SQLite group writer's path), and refused whole (a missing branch).
        let set = |context: ContextId, branch: &BranchName| {
            let turn = TurnView {
                turn_id: braid_protocol::ContextTurnId::new(),
                context_id: context,
                branch: main.clone(),
                status: TurnStatus::Running,
                outcome: None,
                error: None,
                message_id: None,
                completed_at: None,
            };
            let request = braid_store::StoredModelRequest {
                context,
                id: uuid::Uuid::now_v7(),
                branch: "main".to_owned(),
                created_ms: 1_000,
                record: serde_json::json!({"n": 1}).to_string(),
            };
            let mut changes =
                ContextChanges::new().add_message(branch, Message::user_text("question"));
            changes.turns.push(turn.clone());
            changes.model_requests.push(request.clone());
            (changes, turn, request)
        };
        let alone = new_context(&f.store).await;
        let (changes, turn, request) = set(alone.id, &main);
        f.store.save_changes(alone.id, &changes).await.unwrap();
        assert_eq!(
            f.store.get_turn(alone.id, turn.turn_id).await.unwrap(),
            Some(turn.clone())
        );
        assert_eq!(
            f.store.model_request(alone.id, request.id).await.unwrap(),
            Some(request.record.clone())
        );
        let grouped = new_context(&f.store).await;
        let (changes, turn, request) = set(grouped.id, &main);
        queued(&f.store, grouped.id, &changes).await;
        assert_eq!(f.store.running_turns(grouped.id).await.unwrap(), vec![turn]);
        assert_eq!(
            f.store.model_request(grouped.id, request.id).await.unwrap(),
            Some(request.record.clone())
        );
        // The turn's end replaces its start, also through the queue.
        let (_, mut ended, _) = set(grouped.id, &main);
        ended.turn_id = f.store.running_turns(grouped.id).await.unwrap()[0].turn_id;
        ended.status = TurnStatus::Completed;
        ended.outcome = Some(braid_protocol::TurnOutcome::Answered);
        let end = ContextChanges::turn_record(ended.clone());
        queued(&f.store, grouped.id, &end).await;
        assert_eq!(f.store.running_turns(grouped.id).await.unwrap(), Vec::new());
        assert_eq!(
            f.store.get_turn(grouped.id, ended.turn_id).await.unwrap(),
            Some(ended)
        );
        let refused = new_context(&f.store).await;
        let (changes, turn, request) = set(refused.id, &BranchName("nope".into()));
        assert!(f.store.save_changes(refused.id, &changes).await.is_err());
        assert!(
            f.store
                .queue_changes(refused.id, &changes)
                .await
                .unwrap()
                .outcome()
                .await
                .is_err()
        );
        assert_eq!(
            f.store.get_turn(refused.id, turn.turn_id).await.unwrap(),
            None
        );
        assert_eq!(
            f.store.model_request(refused.id, request.id).await.unwrap(),
            None
        );
    }

    pub async fn a_set_of_turn_records_only_leaves_the_context_row_and_needs_the_context(
        f: &Fixture,
    ) {
        use braid_protocol::api::{TurnStatus, TurnView};
        let ended = |context: ContextId| {
            ContextChanges::turn_record(TurnView {
                turn_id: braid_protocol::ContextTurnId::new(),
                context_id: context,
                branch: BranchName::main(),
                status: TurnStatus::Completed,
                outcome: Some(braid_protocol::TurnOutcome::Answered),
                error: None,
                message_id: None,
                completed_at: Some(chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 6)),
            })
        };
        // A turn's end is no update of the context: the list, ordered by updates, stays put.
        let record = new_context(&f.store).await;
        let before = f.store.get_context(record.id).await.unwrap().unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        let saved = ended(record.id);
        f.store.save_changes(record.id, &saved).await.unwrap();
        let queued_end = ended(record.id);
        queued(&f.store, record.id, &queued_end).await;
        let after = f.store.get_context(record.id).await.unwrap().unwrap();
        assert_eq!(after.updated_at, before.updated_at);
        for set in [&saved, &queued_end] {
            let turn = &set.turns[0];
            assert_eq!(
                f.store.get_turn(record.id, turn.turn_id).await.unwrap(),
                Some(turn.clone())
            );
        }
        // Without the row to prove it, the record's own reference names the missing context.
        let missing = ContextId::new();
        let err = f
            .store
            .save_changes(missing, &ended(missing))
            .await
            .unwrap_err();
        assert!(
            matches!(err, braid_store::StoreError::ContextNotFound(c) if c == missing),
            "{err}"
        );
        let err = f
            .store
            .queue_changes(missing, &ended(missing))
            .await
            .unwrap()
            .outcome()
            .await
            .unwrap_err();
        assert!(
            matches!(err, braid_store::StoreError::ContextNotFound(c) if c == missing),
            "{err}"
        );
    }

    pub async fn running_turns_are_found_by_their_status_column_written_with_every_save(
        f: &Fixture,
    ) {
        use braid_protocol::api::{TurnStatus, TurnView};
        let view = |context: ContextId, status: TurnStatus| TurnView {
            turn_id: braid_protocol::ContextTurnId::new(),
            context_id: context,
            branch: BranchName::main(),
            status,
            outcome: (status == TurnStatus::Completed)
                .then_some(braid_protocol::TurnOutcome::Answered),
            error: None,
            message_id: Some(MessageId::new()),
            completed_at: None,
        };
        let sorted = |mut turns: Vec<TurnView>| {
            turns.sort_by_key(|t| t.turn_id.0);
            turns
        };
        let a = new_context(&f.store).await;
        let b = new_context(&f.store).await;
        let mut queued = view(a.id, TurnStatus::Queued);
        let running = view(a.id, TurnStatus::Running);
        let completed = view(a.id, TurnStatus::Completed);
        let elsewhere = view(b.id, TurnStatus::Running);
        for turn in [&queued, &running, &completed, &elsewhere] {
            save_turn_record(&f.store, turn).await;
        }
        assert_eq!(
            f.store.running_turns(a.id).await.unwrap(),
            vec![running.clone()]
        );
        assert_eq!(
            f.store.running_turns(b.id).await.unwrap(),
            vec![elsewhere.clone()]
        );

        // The queued turn starts: its next save moves its status with its record.
        queued.status = TurnStatus::Running;
        save_turn_record(&f.store, &queued).await;
        assert_eq!(
            sorted(f.store.running_turns(a.id).await.unwrap()),
            sorted(vec![running.clone(), queued.clone()])
        );

        // The column is what is read: with every status set to completed behind the store's
        // back (the records still say running), no turn runs; the next save sets it again.
        f.execute("UPDATE turns SET status = 'completed'").await;
        assert_eq!(f.store.running_turns(a.id).await.unwrap(), Vec::new());
        save_turn_record(&f.store, &running).await;
        assert_eq!(f.store.running_turns(a.id).await.unwrap(), vec![running]);
        assert_eq!(f.store.running_turns(b.id).await.unwrap(), Vec::new());
    }

    pub async fn idempotency_keys_claim_answer_refuse_other_bodies_and_expire(f: &Fixture) {
        let window = IdempotencyWindow::default();
        let request = |fingerprint| IdempotentRequest {
            scope: "POST /v1/contexts",
            key: "k1",
            fingerprint,
        };
        let claim = |fingerprint| f.store.claim_idempotency_key(request(fingerprint), window);
        assert_eq!(claim("a").await.unwrap(), IdempotencyClaim::Claimed);
        assert_eq!(claim("a").await.unwrap(), IdempotencyClaim::InProgress);
        assert_eq!(claim("b").await.unwrap(), IdempotencyClaim::OtherBody);
        let answer = StoredAnswer {
            status: 201,
            content_type: Some("application/json".into()),
            body: br#"{"id":"x"}"#.to_vec(),
        };
        f.store
            .record_idempotent_answer("POST /v1/contexts", "k1", &answer)
            .await
            .unwrap();
        // Kept across a restart.
        let reopened = f.reopen().await;
        assert_eq!(
            reopened
                .claim_idempotency_key(request("a"), window)
                .await
                .unwrap(),
            IdempotencyClaim::Answered(answer.clone())
        );
        // A key counts per route; a released claim is free again.
        let other = IdempotentRequest {
            scope: "POST /v1/contexts/x/messages",
            key: "k1",
            fingerprint: "a",
        };
        assert_eq!(
            f.store.claim_idempotency_key(other, window).await.unwrap(),
            IdempotencyClaim::Claimed
        );
        f.store
            .release_idempotency_key("POST /v1/contexts/x/messages", "k1")
            .await
            .unwrap();
        assert_eq!(
            f.store.claim_idempotency_key(other, window).await.unwrap(),
            IdempotencyClaim::Claimed
        );
        // An answer older than the window is forgotten: another body claims the key anew
        // (within the window it was refused above).
        let short = IdempotencyWindow {
            answers_kept: std::time::Duration::ZERO,
            ..window
        };
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        assert_eq!(
            f.store
                .claim_idempotency_key(request("b"), short)
                .await
                .unwrap(),
            IdempotencyClaim::Claimed
        );
        // Nothing expires within the day; keeping one key removes the older one.
        assert_eq!(
            f.store.expire_idempotency_keys(window, 100).await.unwrap(),
            0
        );
        assert_eq!(f.store.expire_idempotency_keys(window, 1).await.unwrap(), 1);
    }

    pub async fn model_requests_are_listed_newest_first_per_branch_and_go_with_their_context(
        f: &Fixture,
    ) {
        let context = new_context(&f.store).await;
        let ids: Vec<uuid::Uuid> = (0..4).map(|_| MessageId::new().0).collect();
        for (i, id) in ids.iter().enumerate() {
            f.store
                .record_model_request(&braid_store::StoredModelRequest {
                    context: context.id,
                    id: *id,
                    branch: if i == 2 { "alt" } else { "main" }.to_owned(),
                    created_ms: 1_000 + i as i64,
                    record: format!(r#"{{"n":{i}}}"#),
                })
                .await
                .unwrap();
        }
        let all = f
            .store
            .model_requests(context.id, None, None, 10)
            .await
            .unwrap();
        assert_eq!(
            all,
            vec![r#"{"n":3}"#, r#"{"n":2}"#, r#"{"n":1}"#, r#"{"n":0}"#]
        );
        let main = f
            .store
            .model_requests(context.id, Some("main"), None, 10)
            .await
            .unwrap();
        assert_eq!(main, vec![r#"{"n":3}"#, r#"{"n":1}"#, r#"{"n":0}"#]);
        let page = f
            .store
            .model_requests(context.id, None, Some(ids[2]), 1)
            .await
            .unwrap();
        assert_eq!(page, vec![r#"{"n":1}"#]);
        let reopened = f.reopen().await;
        assert_eq!(
            reopened
                .model_request(context.id, ids[0])
                .await
                .unwrap()
                .as_deref(),
            Some(r#"{"n":0}"#)
        );
        assert!(reopened.delete_context(context.id).await.unwrap());
        assert_eq!(
            reopened.model_request(context.id, ids[0]).await.unwrap(),
            None
        );
    }

    pub async fn token_counts_replace_their_message_and_counters_and_go_with_their_context(
        f: &Fixture,
    ) {
        use braid_store::{StoredTokenCount, StoredTokenCounts};
        let context = new_context(&f.store).await;
        let other = new_context(&f.store).await;
        let count = |message: MessageId, version: i64, tokens: u32| StoredTokenCount {
            message,
            version,
            tokens,
        };
        let of = |counter: &str, counts: Vec<StoredTokenCount>| StoredTokenCounts {
            counter: counter.to_owned(),
            counts,
        };
        // Every count kept for a context, with its counter, in one order.
        let flat = |kept: Vec<StoredTokenCounts>| {
            let mut flat: Vec<(String, StoredTokenCount)> = kept
                .into_iter()
                .flat_map(|k| k.counts.into_iter().map(move |c| (k.counter.clone(), c)))
                .collect();
            flat.sort_by_key(|(counter, c)| (c.tokens, counter.clone()));
            flat
        };
        let messages: Vec<MessageId> = (0..1_000).map(|_| MessageId::new()).collect();
        let first: Vec<StoredTokenCount> = messages
            .iter()
            .enumerate()
            .map(|(i, m)| count(*m, 7, i as u32))
            .collect();
        // The second and third save of `context`: a newer version replaces its message's count;
        // another counter's is kept beside it.
        let saves = [
            (context.id, "o200k_base/images", first),
            (
                other.id,
                "o200k_base/images",
                vec![count(messages[0], 1, 5)],
            ),
            (
                context.id,
                "o200k_base/images",
                vec![count(messages[0], 9, 40)],
            ),
            (
                context.id,
                "cl100k_base/text",
                vec![count(messages[0], 9, 44)],
            ),
        ];
        for (id, counter, counts) in saves {
            f.store
                .save_token_counts(id, &of(counter, counts))
                .await
                .unwrap();
        }
        let reopened = f.reopen().await;
        let kept = flat(reopened.token_counts(context.id).await.unwrap());
        assert_eq!(kept.len(), 1_001);
        let of_first: Vec<&(String, StoredTokenCount)> = kept
            .iter()
            .filter(|(_, c)| c.message == messages[0])
            .collect();
        assert_eq!(
            of_first,
            [
                &("o200k_base/images".to_owned(), count(messages[0], 9, 40)),
                &("cl100k_base/text".to_owned(), count(messages[0], 9, 44))
            ]
        );
        assert!(kept.contains(&("o200k_base/images".to_owned(), count(messages[999], 7, 999))));
        assert!(reopened.delete_context(context.id).await.unwrap());
        assert!(reopened.token_counts(context.id).await.unwrap().is_empty());
        assert_eq!(
            reopened.token_counts(other.id).await.unwrap(),
            [of("o200k_base/images", vec![count(messages[0], 1, 5)])]
        );
    }

    pub async fn mcp_credentials_are_kept_per_server_across_reopening(f: &Fixture) {
        assert_eq!(f.store.load_mcp_credentials("linear").await.unwrap(), None);
        f.store
            .save_mcp_credentials("linear", r#"{"client_id":"a"}"#)
            .await
            .unwrap();
        f.store
            .save_mcp_credentials("github", r#"{"client_id":"g"}"#)
            .await
            .unwrap();
        // Saving again replaces (a refreshed token).
        f.store
            .save_mcp_credentials("linear", r#"{"client_id":"b"}"#)
            .await
            .unwrap();
        let reopened = f.reopen().await;
        assert_eq!(
            reopened
                .load_mcp_credentials("linear")
                .await
                .unwrap()
                .as_deref(),
            Some(r#"{"client_id":"b"}"#)
        );
        reopened.clear_mcp_credentials("linear").await.unwrap();
        assert_eq!(reopened.load_mcp_credentials("linear").await.unwrap(), None);
        assert_eq!(
            reopened
                .load_mcp_credentials("github")
                .await
                .unwrap()
                .as_deref(),
            Some(r#"{"client_id":"g"}"#)
        );
    }

    pub async fn created_context_reads_back_with_an_empty_active_branch(f: &Fixture) {
        let record = new_context(&f.store).await;
        let read = f.store.get_context(record.id).await.unwrap().unwrap();
        assert_eq!(read, record);
        let branches = f.store.list_branches(record.id).await.unwrap();
        assert_eq!(branches.len(), 1);
        assert_eq!(branches[0].name, BranchName::main());
        assert!(branches[0].message_ids.is_empty());
        assert!(
            f.store
                .get_context(ContextId::new())
                .await
                .unwrap()
                .is_none()
        );
    }

    pub async fn creating_a_context_twice_is_refused(f: &Fixture) {
        let record = new_context(&f.store).await;
        let err = f.store.create_context(&record).await.unwrap_err();
        assert!(
            matches!(err, StoreError::ContextExists(id) if id == record.id),
            "{err}"
        );
    }

    pub async fn contexts_list_most_recently_updated_first(f: &Fixture) {
        let a = new_context(&f.store).await;
        let b = new_context(&f.store).await;
        // Touching `a` makes it the most recent.
        f.store
            .save_changes(a.id, &ContextChanges::new().with_state(ContextState::Idle))
            .await
            .unwrap();
        let listed: Vec<ContextId> = f
            .store
            .list_contexts()
            .await
            .unwrap()
            .iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(listed, vec![a.id, b.id]);
        assert_eq!(f.store.list_context_ids().await.unwrap(), listed);
    }

    pub async fn deleting_a_context_removes_its_messages_branches_and_events(f: &Fixture) {
        let (record, messages) = with_messages(&f.store, 3).await;
        let other = with_messages(&f.store, 2).await.0;
        f.store
            .append_event(record.id, &delta(record.id, messages[0].id, "x"), live())
            .await
            .unwrap();
        f.store.flush_events().await.unwrap();
        assert!(f.store.delete_context(record.id).await.unwrap());
        assert!(f.store.get_context(record.id).await.unwrap().is_none());
        assert!(
            f.store
                .get_messages(record.id, &ids(&messages))
                .await
                .unwrap()
                .is_empty()
        );
        assert!(
            f.store
                .events_after(record.id, 0, 10)
                .await
                .unwrap()
                .is_empty()
        );
        assert!(!f.store.delete_context(record.id).await.unwrap());
        // Other contexts are untouched.
        assert_eq!(
            f.store
                .count_messages(other.id, &BranchName::main())
                .await
                .unwrap(),
            2
        );
    }

    pub async fn every_storable_role_round_trips_in_branch_order(f: &Fixture) {
        let record = new_context(&f.store).await;
        let main = BranchName::main();
        let user = Message::user_text("read main.rs");
        let request = tool_request("call_1");
        let result = tool_result("call_1");
        let answer = Message::assistant_text("It prints nothing.");
        let changes = ContextChanges::new()
            .add_message(&main, user.clone())
            .add_message(&main, request.clone())
            .add_message(&main, result.clone())
            .add_message(&main, answer.clone());
        f.store.save_changes(record.id, &changes).await.unwrap();
        let loaded = f
            .store
            .load_messages(record.id, &main, MessageRange::All)
            .await
            .unwrap();
        assert_eq!(loaded, vec![user, request, result.clone(), answer]);
        let roles: Vec<Role> = loaded.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            vec![Role::User, Role::Assistant, Role::Tool, Role::Assistant]
        );
        assert_eq!(loaded[2].tool_call_id().map(|c| c.as_str()), Some("call_1"));
    }

    pub async fn system_role_is_rejected_and_nothing_of_the_change_set_is_written(f: &Fixture) {
        let record = new_context(&f.store).await;
        let main = BranchName::main();
        let good = Message::user_text("hello");
        let system = Message::new(
            Role::System,
            MessageKind::Text(TextMessage::plain("You are")),
        );
        let changes = ContextChanges::new()
            .add_message(&main, good.clone())
            .add_message(&main, system.clone());
        let err = f.store.save_changes(record.id, &changes).await.unwrap_err();
        match &err {
            StoreError::InvalidMessage { message, errors } => {
                assert_eq!(*message, system.id);
                assert!(errors.has_path("role"), "{errors}");
            }
            other => panic!("expected a validation error, got {other}"),
        }
        assert!(err.to_string().contains("system"), "{err}");
        assert_eq!(f.store.count_messages(record.id, &main).await.unwrap(), 0);
        assert!(
            f.store
                .get_messages(record.id, &[good.id])
                .await
                .unwrap()
                .is_empty()
        );
    }

    pub async fn tool_message_without_call_id_is_rejected_naming_the_field(f: &Fixture) {
        let record = new_context(&f.store).await;
        let orphan = tool_result("");
        let err = f
            .store
            .save_changes(
                record.id,
                &ContextChanges::new().add_message(&BranchName::main(), orphan),
            )
            .await
            .unwrap_err();
        match err {
            StoreError::InvalidMessage { errors, .. } => {
                assert!(errors.has_path("data.call_id"), "{errors}")
            }
            other => panic!("expected a validation error, got {other}"),
        }
    }

    pub async fn updated_message_replaces_status_and_content(f: &Fixture) {
        let record = new_context(&f.store).await;
        let main = BranchName::main();
        let mut streaming = Message::assistant_text("").with_status(MessageStatus::Streaming);
        f.store
            .save_changes(
                record.id,
                &ContextChanges::new().add_message(&main, streaming.clone()),
            )
            .await
            .unwrap();
        // A crash mid-stream: what arrived is kept as incomplete.
        if let MessageKind::Text(text) = &mut streaming.kind {
            text.push_text("Half an ans");
        }
        streaming.status = MessageStatus::Incomplete;
        streaming.updated_at = chrono::Utc::now();
        f.store
            .save_changes(
                record.id,
                &ContextChanges::new().update_message(streaming.clone()),
            )
            .await
            .unwrap();
        let loaded = f
            .store
            .get_messages(record.id, &[streaming.id])
            .await
            .unwrap();
        assert_eq!(loaded, vec![streaming]);
        assert_eq!(loaded[0].status, MessageStatus::Incomplete);
    }

    pub async fn updating_a_missing_message_fails_and_rolls_back_the_whole_change_set(f: &Fixture) {
        let record = new_context(&f.store).await;
        let main = BranchName::main();
        let new = Message::user_text("kept only if all is written");
        let ghost = Message::assistant_text("never stored");
        let changes = ContextChanges {
            title: Some("renamed".into()),
            ..ContextChanges::new()
        }
        .add_message(&main, new.clone())
        .update_message(ghost.clone());
        let err = f.store.save_changes(record.id, &changes).await.unwrap_err();
        assert!(
            matches!(err, StoreError::MessageNotFound { message, .. } if message == ghost.id),
            "{err}"
        );
        assert_eq!(f.store.count_messages(record.id, &main).await.unwrap(), 0);
        assert!(
            f.store
                .get_messages(record.id, &[new.id])
                .await
                .unwrap()
                .is_empty()
        );
        let read = f.store.get_context(record.id).await.unwrap().unwrap();
        assert_eq!(read.title, "test");
    }

    pub async fn context_fields_and_state_persist(f: &Fixture) {
        let record = new_context(&f.store).await;
        let config = ContextConfig {
            mode: Mode::Plan,
            model: "gpt-4o-mini".into(),
            ..ContextConfig::default()
        };
        let state = ContextState::Failed {
            error: "model unreachable".into(),
            recoverable: true,
        };
        let changes = ContextChanges {
            title: Some("Refactor the parser".into()),
            config: Some(config.clone()),
            state: Some(state.clone()),
            ..ContextChanges::new()
        };
        f.store.save_changes(record.id, &changes).await.unwrap();
        let read = f.store.get_context(record.id).await.unwrap().unwrap();
        assert_eq!(read.title, "Refactor the parser");
        assert_eq!(read.config, config);
        assert_eq!(read.state, state);
        assert_eq!(read.created_at, record.created_at);
        assert!(read.updated_at >= record.updated_at);
    }

    pub async fn pages_follow_a_message_with_a_limit(f: &Fixture) {
        let (record, messages) = with_messages(&f.store, 10).await;
        let main = BranchName::main();
        let first = f
            .store
            .load_messages(
                record.id,
                &main,
                MessageRange::After {
                    after: None,
                    limit: 4,
                },
            )
            .await
            .unwrap();
        assert_eq!(first, messages[..4]);
        let second = f
            .store
            .load_messages(
                record.id,
                &main,
                MessageRange::After {
                    after: Some(messages[3].id),
                    limit: 4,
                },
            )
            .await
            .unwrap();
        assert_eq!(second, messages[4..8]);
        let last = f
            .store
            .load_messages(
                record.id,
                &main,
                MessageRange::After {
                    after: Some(messages[7].id),
                    limit: 4,
                },
            )
            .await
            .unwrap();
        assert_eq!(last, messages[8..]);
        let past_end = f
            .store
            .load_messages(
                record.id,
                &main,
                MessageRange::After {
                    after: Some(messages[9].id),
                    limit: 4,
                },
            )
            .await
            .unwrap();
        assert!(past_end.is_empty());
    }

    pub async fn range_after_a_message_not_on_the_branch_is_an_error(f: &Fixture) {
        let (record, _) = with_messages(&f.store, 3).await;
        let stranger = MessageId::new();
        let err = f
            .store
            .load_messages(
                record.id,
                &BranchName::main(),
                MessageRange::After {
                    after: Some(stranger),
                    limit: 10,
                },
            )
            .await
            .unwrap_err();
        assert!(
            matches!(err, StoreError::MessageNotInBranch { message, .. } if message == stranger),
            "{err}"
        );
    }

    pub async fn newest_messages_come_oldest_first(f: &Fixture) {
        let (record, messages) = with_messages(&f.store, 10).await;
        let newest = f
            .store
            .load_messages(record.id, &BranchName::main(), MessageRange::Newest(3))
            .await
            .unwrap();
        assert_eq!(newest, messages[7..]);
        let all = f
            .store
            .load_messages(record.id, &BranchName::main(), MessageRange::Newest(100))
            .await
            .unwrap();
        assert_eq!(all, messages);
    }

    pub async fn messages_load_by_kind(f: &Fixture) {
        let record = new_context(&f.store).await;
        let main = BranchName::main();
        let request = tool_request("call_7");
        let result = tool_result("call_7");
        let changes = ContextChanges::new()
            .add_message(&main, Message::user_text("go"))
            .add_message(&main, request.clone())
            .add_message(&main, result.clone())
            .add_message(&main, Message::assistant_text("done"));
        f.store.save_changes(record.id, &changes).await.unwrap();
        let requests = f
            .store
            .load_messages_by_kind(record.id, &main, KindName::ToolRequest)
            .await
            .unwrap();
        assert_eq!(requests, vec![request]);
        let texts = f
            .store
            .load_messages_by_kind(record.id, &main, KindName::Text)
            .await
            .unwrap();
        assert_eq!(texts.len(), 2);
        let plans = f
            .store
            .load_messages_by_kind(record.id, &main, KindName::Plan)
            .await
            .unwrap();
        assert!(plans.is_empty());
    }

    pub async fn long_branches_load_whole_in_branch_order_and_pools_by_creation(f: &Fixture) {
        // Enough messages to cross the boundaries of reads done a chunk at a time; the branch
        // runs against the ids' order, and creation times against both.
        let record = new_context(&f.store).await;
        let main = BranchName::main();
        let n: i64 = 2_500;
        let start = chrono::Utc::now();
        let mut changes = ContextChanges::new();
        let mut messages = Vec::new();
        for i in 0..n {
            let mut m = match i % 5 {
                0 => tool_request(&format!("call_{i}")),
                r if r % 2 == 0 => Message::user_text(format!("question {i}")),
                _ => Message::assistant_text(format!("answer {i}")),
            };
            m.created_at = start + chrono::Duration::seconds((i * 7) % n);
            m.updated_at = m.created_at;
            messages.push(m.clone());
            changes.push_message(&main, m);
        }
        f.store.save_changes(record.id, &changes).await.unwrap();
        let order: Vec<Message> = messages.iter().rev().cloned().collect();
        let replaced = ContextChanges {
            replacements: vec![BranchIds {
                branch: main.clone(),
                message_ids: ids(&order),
            }],
            ..ContextChanges::new()
        };
        f.store.save_changes(record.id, &replaced).await.unwrap();

        let whole = f
            .store
            .load_messages(record.id, &main, MessageRange::All)
            .await
            .unwrap();
        assert_eq!(whole.len(), order.len());
        assert!(whole == order, "the branch did not load in its order");
        let newest = f
            .store
            .load_messages(record.id, &main, MessageRange::Newest(100))
            .await
            .unwrap();
        assert!(newest == order[order.len() - 100..]);
        let texts = f
            .store
            .load_messages_by_kind(record.id, &main, KindName::Text)
            .await
            .unwrap();
        let expected: Vec<&Message> = order
            .iter()
            .filter(|m| m.kind_name() == KindName::Text)
            .collect();
        assert_eq!(texts.len(), expected.len());
        assert!(
            texts.iter().eq(expected),
            "texts did not load in branch order"
        );

        let mut by_creation = messages.clone();
        by_creation.sort_by_key(|m| m.created_at);
        let pool = f.store.all_messages(record.id).await.unwrap();
        assert_eq!(pool.len(), by_creation.len());
        assert!(pool == by_creation, "the pool did not load by creation");
    }

    pub async fn counts_and_lookups_by_id(f: &Fixture) {
        let (record, messages) = with_messages(&f.store, 5).await;
        assert_eq!(
            f.store
                .count_messages(record.id, &BranchName::main())
                .await
                .unwrap(),
            5
        );
        let asked = vec![messages[3].id, MessageId::new(), messages[0].id];
        let found = f.store.get_messages(record.id, &asked).await.unwrap();
        assert_eq!(found, vec![messages[3].clone(), messages[0].clone()]);
        assert_eq!(f.store.all_messages(record.id).await.unwrap(), messages);
    }

    pub async fn forked_branch_keeps_its_prefix_parent_and_settings(f: &Fixture) {
        let (record, messages) = with_messages(&f.store, 4).await;
        let main = BranchName::main();
        let alt = BranchName::from("alternative");
        let mut fork = BranchRecord::new(alt.clone());
        fork.message_ids = ids(&messages[..2]);
        fork.parent = Some(main.clone());
        fork.fork_point = Some(messages[1].id);
        fork.system_prompt = Some("Be terse.".into());
        fork.pipeline = Some(serde_json::json!({"processors": ["validate"]}));
        let reply = Message::assistant_text("a different answer");
        let changes = ContextChanges {
            new_branches: vec![fork.clone()],
            active_branch: Some(alt.clone()),
            ..ContextChanges::new()
        }
        .add_message(&alt, reply.clone());
        f.store.save_changes(record.id, &changes).await.unwrap();

        let branches = f.store.list_branches(record.id).await.unwrap();
        let stored = branches.iter().find(|b| b.name == alt).unwrap();
        let mut expected = fork.clone();
        expected.message_ids.push(reply.id);
        assert_eq!(stored.message_ids, expected.message_ids);
        assert_eq!(stored.parent, expected.parent);
        assert_eq!(stored.fork_point, expected.fork_point);
        assert_eq!(stored.system_prompt, expected.system_prompt);
        assert_eq!(stored.pipeline, expected.pipeline);
        let main_record = branches.iter().find(|b| b.name == main).unwrap();
        assert_eq!(main_record.message_ids, ids(&messages));
        assert_eq!(
            f.store
                .get_context(record.id)
                .await
                .unwrap()
                .unwrap()
                .active_branch,
            alt
        );

        let settings = BranchSettings {
            branch: alt.clone(),
            system_prompt: None,
            pipeline: None,
        };
        f.store
            .save_changes(
                record.id,
                &ContextChanges {
                    branch_settings: vec![settings],
                    ..ContextChanges::new()
                },
            )
            .await
            .unwrap();
        let branches = f.store.list_branches(record.id).await.unwrap();
        let stored = branches.iter().find(|b| b.name == alt).unwrap();
        assert_eq!(stored.system_prompt, None);
        assert_eq!(stored.pipeline, None);
    }

    pub async fn replacing_a_branch_order_rewrites_it(f: &Fixture) {
        let (record, messages) = with_messages(&f.store, 4).await;
        let main = BranchName::main();
        let order = vec![messages[0].id, messages[2].id, messages[1].id];
        let changes = ContextChanges {
            replacements: vec![BranchIds {
                branch: main.clone(),
                message_ids: order.clone(),
            }],
            ..ContextChanges::new()
        };
        f.store.save_changes(record.id, &changes).await.unwrap();
        let loaded = f
            .store
            .load_messages(record.id, &main, MessageRange::All)
            .await
            .unwrap();
        assert_eq!(ids(&loaded), order);
        // The message left out of the branch stays in the pool.
        assert_eq!(f.store.all_messages(record.id).await.unwrap().len(), 4);
        // Appending after a replacement continues after its last position.
        let next = Message::user_text("after the merge");
        f.store
            .save_changes(
                record.id,
                &ContextChanges::new().add_message(&main, next.clone()),
            )
            .await
            .unwrap();
        let loaded = f
            .store
            .load_messages(record.id, &main, MessageRange::Newest(1))
            .await
            .unwrap();
        assert_eq!(loaded, vec![next]);
    }

    pub async fn a_merge_lands_whole_with_its_notice_or_not_at_all(f: &Fixture) {
        let (record, messages) = with_messages(&f.store, 4).await;
        let main = BranchName::main();
        let alt = BranchName::from("alt");
        let mut fork = BranchRecord::new(alt.clone());
        fork.message_ids = ids(&messages[..2]);
        fork.parent = Some(main.clone());
        let on_alt = Message::user_text("only on alt");
        f.store
            .save_changes(
                record.id,
                &ContextChanges {
                    new_branches: vec![fork],
                    ..ContextChanges::new()
                }
                .add_message(&alt, on_alt.clone()),
            )
            .await
            .unwrap();

        // What the engine saves for a merge that takes main's last answer off (a resolution)
        // and switches the mode: the target's new order with a new notice, and the config.
        let notice = Message::user_text("merged alt");
        let mut order = ids(&messages[..3]);
        order.extend([on_alt.id, notice.id]);
        let config = ContextConfig {
            mode: Mode::Plan,
            ..ContextConfig::default()
        };
        let merge = ContextChanges {
            new_messages: vec![notice.clone()],
            replacements: vec![BranchIds {
                branch: main.clone(),
                message_ids: order.clone(),
            }],
            config: Some(config.clone()),
            ..ContextChanges::new()
        };
        f.store.save_changes(record.id, &merge).await.unwrap();
        let loaded = f
            .store
            .load_messages(record.id, &main, MessageRange::All)
            .await
            .unwrap();
        assert_eq!(ids(&loaded), order);
        let alt_loaded = f
            .store
            .load_messages(record.id, &alt, MessageRange::All)
            .await
            .unwrap();
        assert_eq!(alt_loaded.len(), 3, "the source changed");
        assert_eq!(
            f.store
                .get_context(record.id)
                .await
                .unwrap()
                .unwrap()
                .config,
            config
        );
        assert_eq!(f.store.all_messages(record.id).await.unwrap().len(), 6);

        // A merge naming a message the pool lacks writes nothing: no notice, no new order, no
        // config.
        let stray = Message::user_text("never stored");
        let second = Message::user_text("merged again");
        let broken = ContextChanges {
            new_messages: vec![second.clone()],
            replacements: vec![BranchIds {
                branch: main.clone(),
                message_ids: vec![messages[0].id, stray.id, second.id],
            }],
            config: Some(ContextConfig::default()),
            ..ContextChanges::new()
        };
        assert!(f.store.save_changes(record.id, &broken).await.is_err());
        let loaded = f
            .store
            .load_messages(record.id, &main, MessageRange::All)
            .await
            .unwrap();
        assert_eq!(ids(&loaded), order);
        assert_eq!(f.store.all_messages(record.id).await.unwrap().len(), 6);
        assert_eq!(
            f.store
                .get_context(record.id)
                .await
                .unwrap()
                .unwrap()
                .config,
            config
        );
    }

    pub async fn active_branch_cannot_be_deleted_or_missing(f: &Fixture) {
        let record = new_context(&f.store).await;
        let main = BranchName::main();
        let err = f
            .store
            .save_changes(
                record.id,
                &ContextChanges {
                    deleted_branches: vec![main.clone()],
                    ..ContextChanges::new()
                },
            )
            .await
            .unwrap_err();
        assert!(
            matches!(err, StoreError::ActiveBranchMissing { .. }),
            "{err}"
        );
        let err = f
            .store
            .save_changes(
                record.id,
                &ContextChanges {
                    active_branch: Some("nowhere".into()),
                    ..ContextChanges::new()
                },
            )
            .await
            .unwrap_err();
        assert!(
            matches!(err, StoreError::ActiveBranchMissing { .. }),
            "{err}"
        );
        // Switching to another branch first makes deleting `main` fine.
        let other = BranchName::from("other");
        f.store
            .save_changes(
                record.id,
                &ContextChanges {
                    new_branches: vec![BranchRecord::new(other.clone())],
                    active_branch: Some(other.clone()),
                    deleted_branches: vec![main.clone()],
                    ..ContextChanges::new()
                },
            )
            .await
            .unwrap();
        let names: Vec<BranchName> = f
            .store
            .list_branches(record.id)
            .await
            .unwrap()
            .into_iter()
            .map(|b| b.name)
            .collect();
        assert_eq!(names, vec![other]);
        let err = f
            .store
            .save_changes(
                record.id,
                &ContextChanges {
                    deleted_branches: vec![main],
                    ..ContextChanges::new()
                },
            )
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::BranchNotFound { .. }), "{err}");
    }

    pub async fn appending_to_a_missing_branch_fails(f: &Fixture) {
        let record = new_context(&f.store).await;
        let message = Message::user_text("lost?");
        let err = f
            .store
            .save_changes(
                record.id,
                &ContextChanges::new().add_message(&BranchName::from("ghost"), message.clone()),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(&err, StoreError::BranchNotFound { branch, .. } if branch.as_str() == "ghost"),
            "{err}"
        );
        assert!(
            f.store
                .get_messages(record.id, &[message.id])
                .await
                .unwrap()
                .is_empty()
        );
    }

    pub async fn branch_ids_must_be_in_the_pool_and_appear_once(f: &Fixture) {
        let (record, messages) = with_messages(&f.store, 2).await;
        let main = BranchName::main();
        let stranger = MessageId::new();
        let err = f
            .store
            .save_changes(
                record.id,
                &ContextChanges {
                    appends: vec![BranchIds {
                        branch: main.clone(),
                        message_ids: vec![stranger],
                    }],
                    ..ContextChanges::new()
                },
            )
            .await
            .unwrap_err();
        assert!(
            matches!(err, StoreError::MessageNotFound { message, .. } if message == stranger),
            "{err}"
        );
        let err = f
            .store
            .save_changes(
                record.id,
                &ContextChanges {
                    appends: vec![BranchIds {
                        branch: main.clone(),
                        message_ids: vec![messages[0].id],
                    }],
                    ..ContextChanges::new()
                },
            )
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::DuplicateInBranch { .. }), "{err}");
        let err = f
            .store
            .save_changes(
                record.id,
                &ContextChanges::new().add_message(&main, messages[1].clone()),
            )
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::MessageExists { .. }), "{err}");
        assert_eq!(f.store.count_messages(record.id, &main).await.unwrap(), 2);
    }

    pub async fn unreadable_payload_loads_as_unknown_message(f: &Fixture) {
        // Enough messages to be read in several chunks, with an unreadable payload in the
        // first chunk, in a middle one and among the newest.
        let (record, messages) = with_messages(&f.store, 2_500).await;
        let bad = [1, 1_500, 2_450];
        for at in bad {
            f.corrupt_payload(record.id, messages[at].id, "{\"kind\": \"text\", \"da")
                .await;
        }
        let check = |loaded: &[Message], expected: &[Message]| {
            assert_eq!(loaded.len(), expected.len());
            for (got, want) in loaded.iter().zip(expected) {
                assert_eq!(got.id, want.id, "a message out of its place");
                if !bad.iter().any(|at| messages[*at].id == want.id) {
                    assert_eq!(got, want);
                    continue;
                }
                assert_eq!(got.role, want.role);
                match &got.kind {
                    MessageKind::Unknown(unknown) => {
                        assert!(
                            unknown.raw.get().contains("\\\"da"),
                            "{}",
                            unknown.raw.get()
                        )
                    }
                    other => panic!("expected an unknown message, got {other:?}"),
                }
            }
        };
        let main = BranchName::main();
        let whole = f
            .store
            .load_messages(record.id, &main, MessageRange::All)
            .await
            .unwrap();
        check(&whole, &messages);
        let newest = f
            .store
            .load_messages(record.id, &main, MessageRange::Newest(100))
            .await
            .unwrap();
        check(&newest, &messages[messages.len() - 100..]);
        let pool = f.store.all_messages(record.id).await.unwrap();
        check(&pool, &messages);
    }

    pub async fn unknown_kind_round_trips_byte_for_byte(f: &Fixture) {
        let record = new_context(&f.store).await;
        let json = format!(
            r#"{{"schema_version":2,"id":"{}","role":"assistant","kind":"hologram","data":{{"beam":[1,2,3]}},"status":"complete","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","metadata":{{}}}}"#,
            MessageId::new()
        );
        let message = Message::from_json(&json).unwrap();
        assert_eq!(message.kind_name(), KindName::Unknown);
        f.store
            .save_changes(
                record.id,
                &ContextChanges::new().add_message(&BranchName::main(), message.clone()),
            )
            .await
            .unwrap();
        let loaded = f
            .store
            .get_messages(record.id, &[message.id])
            .await
            .unwrap();
        assert_eq!(loaded[0].to_json(), json);
    }

    pub async fn missing_context_is_reported_by_every_read(f: &Fixture) {
        let ghost = ContextId::new();
        let main = BranchName::main();
        let not_found = |e: StoreError| matches!(e, StoreError::ContextNotFound(id) if id == ghost);
        assert!(not_found(f.store.list_branches(ghost).await.unwrap_err()));
        assert!(not_found(
            f.store
                .load_messages(ghost, &main, MessageRange::All)
                .await
                .unwrap_err()
        ));
        assert!(not_found(
            f.store.count_messages(ghost, &main).await.unwrap_err()
        ));
        assert!(not_found(f.store.all_messages(ghost).await.unwrap_err()));
        assert!(not_found(
            f.store
                .save_changes(
                    ghost,
                    &ContextChanges::new().add_message(&main, Message::user_text("x"))
                )
                .await
                .unwrap_err()
        ));
        let record = new_context(&f.store).await;
        let err = f
            .store
            .load_messages(record.id, &BranchName::from("nope"), MessageRange::All)
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::BranchNotFound { .. }), "{err}");
    }

    pub async fn events_get_rising_sequences_per_context_and_replay_after(f: &Fixture) {
        let a = new_context(&f.store).await;
        let b = new_context(&f.store).await;
        let message = MessageId::new();
        let mut sequences = Vec::new();
        for i in 0..5 {
            let event = delta(a.id, message, &format!("chunk {i}"));
            sequences.push(
                f.store
                    .append_event(a.id, &event, live())
                    .await
                    .unwrap()
                    .sequence,
            );
        }
        let other = f
            .store
            .append_event(b.id, &delta(b.id, message, "b"), live())
            .await
            .unwrap();
        assert_eq!(sequences, vec![1, 2, 3, 4, 5]);
        assert_eq!(other.sequence, 1);
        f.store.flush_events().await.unwrap();
        let replay = f.store.events_after(a.id, 2, 100).await.unwrap();
        assert_eq!(
            replay.iter().map(|e| e.sequence).collect::<Vec<_>>(),
            vec![3, 4, 5]
        );
        assert_eq!(replay[0].event, delta(a.id, message, "chunk 2"));
        let limited = f.store.events_after(a.id, 0, 2).await.unwrap();
        assert_eq!(
            limited.iter().map(|e| e.sequence).collect::<Vec<_>>(),
            vec![1, 2]
        );
        assert_eq!(f.store.events_after(b.id, 0, 100).await.unwrap().len(), 1);
    }

    pub async fn event_sequences_continue_after_reopening(f: &Fixture) {
        let record = new_context(&f.store).await;
        let message = MessageId::new();
        for _ in 0..3 {
            f.store
                .append_event(record.id, &delta(record.id, message, "x"), live())
                .await
                .unwrap();
        }
        f.store.close().await.unwrap();
        let reopened = f.reopen().await;
        let next = reopened
            .append_event(record.id, &delta(record.id, message, "y"), live())
            .await
            .unwrap();
        assert_eq!(next.sequence, 4);
        reopened.flush_events().await.unwrap();
        let all = reopened.events_after(record.id, 0, 100).await.unwrap();
        assert_eq!(
            all.iter().map(|e| e.sequence).collect::<Vec<_>>(),
            vec![1, 2, 3, 4]
        );
    }

    pub async fn committed_messages_survive_reopening(f: &Fixture) {
        let (record, messages) = with_messages(&f.store, 6).await;
        f.store.close().await.unwrap();
        let reopened = f.reopen().await;
        let loaded = reopened
            .load_messages(record.id, &BranchName::main(), MessageRange::All)
            .await
            .unwrap();
        assert_eq!(loaded, messages);
        assert_eq!(
            reopened.get_context(record.id).await.unwrap().unwrap().id,
            record.id
        );
    }

    pub async fn concurrent_saves_to_many_contexts_all_land(f: &Fixture) {
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let store = Arc::clone(&f.store);
            tasks.push(tokio::spawn(async move {
                let record = new_context(&store).await;
                let mut ids = Vec::new();
                for i in 0..20 {
                    let m = Message::user_text(format!("message {i}"));
                    ids.push(m.id);
                    store
                        .save_changes(
                            record.id,
                            &ContextChanges::new().add_message(&BranchName::main(), m),
                        )
                        .await
                        .unwrap();
                    store
                        .append_event(record.id, &delta(record.id, ids[i], "d"), live())
                        .await
                        .unwrap();
                }
                (record.id, ids)
            }));
        }
        for task in tasks {
            let (context, ids) = task.await.unwrap();
            let loaded = f
                .store
                .load_messages(context, &BranchName::main(), MessageRange::All)
                .await
                .unwrap();
            assert_eq!(loaded.iter().map(|m| m.id).collect::<Vec<_>>(), ids);
            f.store.flush_events().await.unwrap();
            assert_eq!(
                f.store.events_after(context, 0, 100).await.unwrap().len(),
                20
            );
        }
    }

    pub async fn context_lock_is_exclusive_until_dropped(f: &Fixture) {
        let a = new_context(&f.store).await;
        let b = new_context(&f.store).await;
        let lock = f.store.try_lock_context(a.id).await.unwrap().unwrap();
        assert_eq!(lock.context(), a.id);
        assert!(f.store.try_lock_context(a.id).await.unwrap().is_none());
        let other = f.store.try_lock_context(b.id).await.unwrap();
        assert!(other.is_some(), "locks are per context");
        drop(lock);
        // Release may complete in the background (PostgreSQL unlocks on its session).
        let mut again = None;
        for _ in 0..100 {
            again = f.store.try_lock_context(a.id).await.unwrap();
            if again.is_some() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert!(again.is_some(), "a dropped lock is released");
    }

    pub async fn events_reach_subscribers_only_once_committed_in_order(f: &Fixture) {
        let record = new_context(&f.store).await;
        let message = MessageId::new();
        let (live, mut subscriber) = tokio::sync::broadcast::channel(64);
        let publisher: Arc<dyn EventPublisher> = Arc::new(live);
        for i in 0..20 {
            f.store
                .append_event(
                    record.id,
                    &delta(record.id, message, &format!("{i}")),
                    publisher.clone(),
                )
                .await
                .unwrap();
        }
        for expected in 1..=20u64 {
            let seen = tokio::time::timeout(std::time::Duration::from_secs(10), subscriber.recv())
                .await
                .expect("a committed event is published")
                .unwrap();
            assert_eq!(seen.sequence, expected, "published in order");
            // Whatever a subscriber sees is already in the log a replay reads.
            let stored = f
                .store
                .events_after(record.id, expected - 1, 1)
                .await
                .unwrap();
            assert_eq!(stored, vec![seen], "published before its commit");
        }
    }

    pub async fn a_crash_never_gives_an_id_a_subscriber_saw_to_another_event(f: &Fixture) {
        let record = new_context(&f.store).await;
        let message = MessageId::new();
        // The first process runs on a runtime of its own and dies with it: its writer task is
        // stopped wherever it is, with events still queued and nothing flushed.
        let seen: Vec<SequencedEvent> = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let runtime = tokio::runtime::Builder::new_multi_thread()
                        .worker_threads(1)
                        .enable_all()
                        .build()
                        .unwrap();
                    let seen = runtime.block_on(async {
                        let store = f.reopen().await;
                        let (live, mut subscriber) = tokio::sync::broadcast::channel(256);
                        let publisher: Arc<dyn EventPublisher> = Arc::new(live);
                        let mut seen = Vec::new();
                        for i in 0..40 {
                            store
                                .append_event(
                                    record.id,
                                    &delta(record.id, message, &format!("first {i}")),
                                    publisher.clone(),
                                )
                                .await
                                .unwrap();
                            if i == 9 {
                                // Let the first events commit and reach the subscriber.
                                seen.push(subscriber.recv().await.unwrap());
                            }
                        }
                        while let Ok(e) = subscriber.try_recv() {
                            seen.push(e);
                        }
                        seen
                    });
                    runtime.shutdown_background();
                    seen
                })
                .join()
                .unwrap()
        });
        assert!(!seen.is_empty());
        let reopened = f.reopen().await;
        let (live, mut subscriber) = tokio::sync::broadcast::channel(64);
        let publisher: Arc<dyn EventPublisher> = Arc::new(live);
        for i in 0..5 {
            reopened
                .append_event(
                    record.id,
                    &delta(record.id, message, &format!("second {i}")),
                    publisher.clone(),
                )
                .await
                .unwrap();
        }
        reopened.flush_events().await.unwrap();
        let highest_seen = seen.last().unwrap().sequence;
        let after = subscriber.recv().await.unwrap();
        assert!(
            after.sequence > highest_seen,
            "new event {} reuses an id a subscriber saw (up to {highest_seen})",
            after.sequence
        );
        // Every id a subscriber saw still names the event it saw, and the log has no gap.
        let log = reopened.events_after(record.id, 0, 1000).await.unwrap();
        for e in &seen {
            assert_eq!(log[usize::try_from(e.sequence).unwrap() - 1], *e);
        }
        let sequences: Vec<u64> = log.iter().map(|e| e.sequence).collect();
        assert_eq!(sequences, (1..=sequences.len() as u64).collect::<Vec<_>>());
    }

    pub async fn last_event_sequence_is_the_highest_committed(f: &Fixture) {
        let record = new_context(&f.store).await;
        assert_eq!(f.store.last_event_sequence(record.id).await.unwrap(), 0);
        for _ in 0..3 {
            f.store
                .append_event(record.id, &delta(record.id, MessageId::new(), "x"), live())
                .await
                .unwrap();
        }
        f.store.flush_events().await.unwrap();
        assert_eq!(f.store.last_event_sequence(record.id).await.unwrap(), 3);
        let other = new_context(&f.store).await;
        assert_eq!(f.store.last_event_sequence(other.id).await.unwrap(), 0);
    }

    pub async fn message_deltas_are_one_messages_committed_deltas_in_order(f: &Fixture) {
        let record = new_context(&f.store).await;
        let (mine, other) = (MessageId::new(), MessageId::new());
        for i in 0..4 {
            for (m, name) in [(mine, "mine"), (other, "other")] {
                f.store
                    .append_event(
                        record.id,
                        &delta(record.id, m, &format!("{name} {i} ")),
                        live(),
                    )
                    .await
                    .unwrap();
            }
        }
        // A content_final of the same message is not a delta.
        let last = ContextEvent::ContentFinal(braid_protocol::ContentFinal {
            context_id: record.id,
            message_id: mine,
            sequence: 4,
            is_final: true,
            turn_id: None,
            branch: None,
        });
        f.store
            .append_event(record.id, &last, live())
            .await
            .unwrap();
        f.store.flush_events().await.unwrap();
        let deltas = f.store.message_deltas(record.id, mine).await.unwrap();
        let text: String = deltas.iter().map(|d| d.delta.as_str()).collect();
        assert_eq!(text, "mine 0 mine 1 mine 2 mine 3 ");
        assert!(deltas.iter().all(|d| d.message_id == mine));
        assert!(
            f.store
                .message_deltas(record.id, MessageId::new())
                .await
                .unwrap()
                .is_empty()
        );
    }

    pub async fn a_new_owner_gets_a_greater_token_and_the_old_owners_writes_are_refused(
        f: &Fixture,
    ) {
        let replica_b = f.reopen().await;
        let record = new_context(&f.store).await;
        let old = f.store.try_lock_context(record.id).await.unwrap().unwrap();
        let lease = f.store.lease(record.id).await.unwrap().unwrap();
        assert!(lease.mine && lease.live, "{lease:?}");
        assert_eq!(lease.token, old.token());
        assert!(
            replica_b
                .try_lock_context(record.id)
                .await
                .unwrap()
                .is_none(),
            "a live lease is not taken"
        );
        let seen_by_b = replica_b.lease(record.id).await.unwrap().unwrap();
        assert!(seen_by_b.live && !seen_by_b.mine, "{seen_by_b:?}");
        let main = BranchName::main();
        let first = Message::user_text("by the first owner");
        f.store
            .save_changes(
                record.id,
                &ContextChanges::new().add_message(&main, first.clone()),
            )
            .await
            .unwrap();

        // The first owner stops renewing; the second takes over with a greater token.
        f.lapse_leases().await;
        let new = replica_b
            .try_lock_context(record.id)
            .await
            .unwrap()
            .unwrap();
        assert!(
            new.token() > old.token(),
            "{} > {}",
            new.token(),
            old.token()
        );

        let refused = f
            .store
            .save_changes(
                record.id,
                &ContextChanges::new().add_message(&main, Message::user_text("too late")),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(refused, StoreError::Fenced { held, current, .. } if held == old.token() && current == new.token()),
            "{refused}"
        );
        assert!(
            old.lost().is_cancelled(),
            "the refused owner learns its lease is lost"
        );

        // Its events are refused too, and reported as never stored.
        let collector = Arc::new(Lost::default());
        let publisher: Arc<dyn EventPublisher> = collector.clone();
        f.store
            .append_event(
                record.id,
                &delta(record.id, MessageId::new(), "stale"),
                publisher,
            )
            .await
            .unwrap();
        let _ = f.store.flush_events().await;
        assert_eq!(
            *collector.0.lock().unwrap(),
            1,
            "the stale event is reported lost"
        );

        let fresh = Message::user_text("by the second owner");
        replica_b
            .save_changes(
                record.id,
                &ContextChanges::new().add_message(&main, fresh.clone()),
            )
            .await
            .unwrap();
        let stored = replica_b
            .append_event(
                record.id,
                &delta(record.id, MessageId::new(), "new"),
                live(),
            )
            .await
            .unwrap();
        replica_b.flush_events().await.unwrap();
        assert_eq!(stored.sequence, 1, "the refused event took no sequence");
        let events = replica_b.events_after(record.id, 0, 10).await.unwrap();
        assert_eq!(events.len(), 1);
        let stored = replica_b
            .load_messages(record.id, &main, MessageRange::All)
            .await
            .unwrap();
        assert_eq!(ids(&stored), vec![first.id, fresh.id]);
    }

    pub async fn lapsed_leases_are_orphans_and_released_ones_are_not(f: &Fixture) {
        let replica_b = f.reopen().await;
        let dead = new_context(&f.store).await;
        let closed = new_context(&f.store).await;
        let _held = f.store.try_lock_context(dead.id).await.unwrap().unwrap();
        let released = f.store.try_lock_context(closed.id).await.unwrap().unwrap();
        assert!(replica_b.orphaned_contexts().await.unwrap().is_empty());
        drop(released);
        // Release completes in the background.
        for _ in 0..100 {
            if !f.store.lease(closed.id).await.unwrap().unwrap().live {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        f.lapse_leases().await;
        assert_eq!(replica_b.orphaned_contexts().await.unwrap(), vec![dead.id]);
        let adopted = replica_b.try_lock_context(dead.id).await.unwrap();
        assert!(adopted.is_some(), "an orphan can be taken over");
        assert!(replica_b.orphaned_contexts().await.unwrap().is_empty());
    }

    pub async fn committed_events_are_announced(f: &Fixture) {
        let record = new_context(&f.store).await;
        let mut notices = f.store.event_notices();
        for text in ["a", "b", "c"] {
            f.store
                .append_event(record.id, &delta(record.id, MessageId::new(), text), live())
                .await
                .unwrap();
        }
        f.store.flush_events().await.unwrap();
        let mut last = 0;
        while last < 3 {
            let notice = tokio::time::timeout(std::time::Duration::from_secs(5), notices.recv())
                .await
                .expect("a notice within 5 s")
                .unwrap();
            assert_eq!(notice.context, record.id);
            assert!(notice.last_sequence > last);
            last = notice.last_sequence;
        }
    }

    pub async fn change_sets_saved_together_are_all_stored_and_a_bad_one_fails_alone(f: &Fixture) {
        let mut records = Vec::new();
        for _ in 0..30 {
            records.push(new_context(&f.store).await);
        }
        // Saved at once, so the SQLite writer commits them in groups.
        let saves: Vec<_> = records
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let store = f.store.clone();
                let id = r.id;
                tokio::spawn(async move {
                    let mut changes = ContextChanges::new();
                    changes.title = Some(format!("title {i}"));
                    if i == 7 {
                        // A message that was never stored cannot be updated.
                        changes = changes.update_message(Message::user_text("missing"));
                    }
                    store.save_changes(id, &changes).await
                })
            })
            .collect();
        for (i, save) in saves.into_iter().enumerate() {
            let outcome = save.await.unwrap();
            if i == 7 {
                assert!(
                    matches!(outcome, Err(StoreError::MessageNotFound { .. })),
                    "{outcome:?}"
                );
            } else {
                outcome.unwrap();
            }
        }
        for (i, r) in records.iter().enumerate() {
            let stored = f.store.get_context(r.id).await.unwrap().unwrap();
            let expected = if i == 7 {
                "test".to_owned()
            } else {
                format!("title {i}")
            };
            assert_eq!(stored.title, expected, "context {i}");
        }
    }

    pub async fn turns_saved_side_by_side_are_stored_as_each_would_be_alone(f: &Fixture) {
        let main = BranchName::main();
        let mut records = Vec::new();
        for _ in 0..40 {
            records.push(new_context(&f.store).await);
        }
        // Every context plays a turn's saves at the same moment as the others, so the SQLite
        // writer commits them in groups of many contexts.
        let turns: Vec<_> = records
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let store = f.store.clone();
                let id = r.id;
                let main = main.clone();
                tokio::spawn(async move {
                    let question = Message::user_text(format!("question {i}"))
                        .with_status(MessageStatus::Pending);
                    store
                        .save_changes(
                            id,
                            &ContextChanges::new().add_message(&main, question.clone()),
                        )
                        .await?;
                    let mut done = question.clone();
                    done.status = MessageStatus::Complete;
                    store
                        .save_changes(
                            id,
                            &ContextChanges::new()
                                .update_message(done)
                                .with_state(ContextState::ProcessingUserMessage),
                        )
                        .await?;
                    let answer = Message::assistant_text(format!("answer {i}"));
                    let note = Message::assistant_text(format!("note {i}"));
                    let mut last = ContextChanges::new()
                        .add_message(&main, answer.clone())
                        .add_message(&main, note.clone())
                        .with_state(ContextState::Idle);
                    last.title = Some(format!("turn {i}"));
                    if i == 11 {
                        // A branch that does not exist: this set fails alone.
                        last.appends.push(braid_store::BranchIds {
                            branch: BranchName("nope".into()),
                            message_ids: vec![answer.id],
                        });
                    }
                    if i == 23 {
                        // The question again: its id is taken, so this set fails alone.
                        last.new_messages.push(question.clone());
                    }
                    store.save_changes(id, &last).await?;
                    Ok::<_, StoreError>(vec![question.id, answer.id, note.id])
                })
            })
            .collect();
        for (i, (turn, r)) in turns.into_iter().zip(&records).enumerate() {
            let outcome = turn.await.unwrap();
            let stored = f.store.get_context(r.id).await.unwrap().unwrap();
            let messages = f
                .store
                .load_messages(r.id, &main, MessageRange::All)
                .await
                .unwrap();
            match (i, outcome) {
                (11, Err(StoreError::BranchNotFound { branch, .. })) => {
                    assert_eq!(branch.as_str(), "nope");
                    assert_eq!(messages.len(), 1, "nothing of the failed set is stored");
                    assert_eq!(stored.state, ContextState::ProcessingUserMessage);
                }
                (23, Err(StoreError::MessageExists { .. })) => {
                    assert_eq!(messages.len(), 1, "nothing of the failed set is stored");
                    assert_eq!(stored.title, "test");
                }
                (_, Ok(expected)) if i != 11 && i != 23 => {
                    assert_eq!(ids(&messages), expected, "context {i}: the branch's order");
                    assert_eq!(messages[0].status, MessageStatus::Complete);
                    assert_eq!(stored.state, ContextState::Idle);
                    assert_eq!(stored.title, format!("turn {i}"));
                }
                (i, other) => panic!("context {i}: {other:?}"),
            }
        }
    }

    /// Counts events reported lost.
    #[derive(Default)]
    struct Lost(std::sync::Mutex<u64>);

    impl EventPublisher for Lost {
        fn committed(&self, _event: braid_store::CommittedEvent) {}

        fn lost(&self, lost: braid_store::LostEvents) {
            *self.0.lock().unwrap() += lost.count;
        }
    }

    /// Issue 41: a state stored without the event announcing it (a crash between two commits)
    /// left readers on the state before for ever. Here the event log refuses writes between
    /// the two: the change set queued with its announcement is refused with it.
    pub async fn a_state_change_and_the_events_announcing_it_commit_together_or_not_at_all(
        f: &Fixture,
    ) {
        let store = &f.store;
        let record = new_context(store).await;
        let main = BranchName::main();
        let busy = ContextState::ProcessingLlmResponse;
        store
            .save_changes(record.id, &ContextChanges::new().with_state(busy.clone()))
            .await
            .unwrap();
        let answer = Message::assistant_text("done");
        let rest = ContextChanges::new()
            .add_message(&main, answer.clone())
            .with_state(ContextState::Idle);
        let announcement = [update(record.id, busy.clone(), ContextState::Idle)];
        let (publisher, mut heard) = tokio::sync::broadcast::channel::<SequencedEvent>(16);
        let publisher: Arc<dyn EventPublisher> = Arc::new(publisher);

        f.refuse_events().await;
        let (pending, numbered) = store
            .queue_announced(record.id, &rest, &announcement, publisher.clone())
            .await
            .unwrap();
        assert_eq!(numbered.len(), 1);
        assert!(
            pending.outcome().await.is_err(),
            "the announcement was not written, so the change set must not be either"
        );
        let stored = store.get_context(record.id).await.unwrap().unwrap();
        assert_eq!(
            stored.state, busy,
            "the new state was stored without its event"
        );
        assert!(
            store
                .get_messages(record.id, &[answer.id])
                .await
                .unwrap()
                .is_empty()
        );
        assert_eq!(store.last_event_sequence(record.id).await.unwrap(), 0);
        assert!(heard.try_recv().is_err(), "a refused event was published");

        f.accept_events().await;
        let (pending, numbered) = store
            .queue_announced(record.id, &rest, &announcement, publisher)
            .await
            .unwrap();
        pending.outcome().await.unwrap();
        assert_eq!(
            numbered[0].sequence, 1,
            "the refused event's number is given again: the log keeps no gap"
        );
        store.flush_events().await.unwrap();
        let stored = store.get_context(record.id).await.unwrap().unwrap();
        assert_eq!(stored.state, ContextState::Idle);
        assert_eq!(
            store.events_after(record.id, 0, 10).await.unwrap(),
            numbered,
            "the state and its announcement are stored together"
        );
        assert_eq!(heard.recv().await.unwrap(), numbered[0]);
    }

    pub async fn the_last_context_update_is_found_behind_other_events(f: &Fixture) {
        let store = &f.store;
        let record = new_context(store).await;
        assert_eq!(store.last_context_update(record.id).await.unwrap(), None);
        let busy = ContextState::ProcessingUserMessage;
        let message = MessageId::new();
        let mut appended = Vec::new();
        for event in [
            update(record.id, ContextState::Idle, busy.clone()),
            delta(record.id, message, "a"),
            update(record.id, busy, ContextState::Idle),
            delta(record.id, message, "b"),
            delta(record.id, message, "c"),
        ] {
            appended.push(store.append_event(record.id, &event, live()).await.unwrap());
        }
        store.flush_events().await.unwrap();
        assert_eq!(
            store.last_context_update(record.id).await.unwrap(),
            Some(appended[2].clone())
        );
    }
}
