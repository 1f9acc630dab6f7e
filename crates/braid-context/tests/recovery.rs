//! Crash recovery: a context stored in the middle of any operation comes back in a safe state,
//! with what was interrupted recorded and a partial answer kept as `incomplete`.

use crate::common;

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
        ContextState::ConnectingToLlm {
            attempt: 1,
            reason: None,
            wait_ms: None,
        },
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
            finished: 0,
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

#[tokio::test]
async fn a_resume_with_nothing_left_to_do_reads_idle_as_soon_as_it_is_answered() {
    let h = Harness::new(Script::new()).await;
    let ctx = h.context(ContextConfig::default()).await;
    let id = ctx.id();
    ctx.shutdown().await;
    let answer = Message::new(
        Role::Assistant,
        MessageKind::Text(TextMessage::plain("the whole answer")),
    );
    h.store
        .save_changes(
            id,
            &ContextChanges::new()
                .add_message(&BranchName::main(), Message::user_text("question"))
                .add_message(&BranchName::main(), answer)
                .with_state(ContextState::Failed {
                    error: "the title could not be written".into(),
                    recoverable: true,
                }),
        )
        .await
        .unwrap();
    let restarted = h.restart();
    let mut ctx = restarted.get(id).await.unwrap();
    for round in 0..20 {
        assert!(matches!(
            ctx.state(false).await.unwrap().state,
            ContextState::Failed { .. }
        ));
        ctx.resume().await.unwrap();
        // Whoever was answered reads what the resume did, not the failure it ended.
        assert_eq!(
            ctx.state(false).await.unwrap().state,
            ContextState::Idle,
            "round {round}"
        );
        let again = ctx.resume().await;
        assert!(
            matches!(again, Err(braid_context::EngineError::Conflict(_))),
            "{again:?}"
        );
        ctx.shutdown().await;
        h.store
            .save_changes(
                id,
                &ContextChanges::new().with_state(ContextState::Failed {
                    error: "the title could not be written".into(),
                    recoverable: true,
                }),
            )
            .await
            .unwrap();
        ctx = restarted.get(id).await.unwrap();
    }
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
                    offered_rules: Vec::new(),
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
            MessageKind::ToolResult(r) => Some(&**r),
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
        offered_rules: Vec::new(),
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

/// What the dying engine saw before its runtime was killed.
struct BeforeCrash {
    context: ContextId,
    seen: Vec<SequencedEvent>,
    stored_state: ContextState,
}

/// Runs an engine on a runtime of its own over the harness's database file, streams an answer
/// until a subscriber has seen three `content_delta` events, then kills the runtime: every task
/// stops where it is and nothing is flushed, as with SIGKILL.
async fn stream_then_crash(h: &Harness) -> BeforeCrash {
    let db = h.dir.path().join("braid.db");
    let base_url = h.mock.openai_base_url();
    // Off the test's runtime, which keeps serving the mock model meanwhile.
    tokio::task::spawn_blocking(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let before = runtime.block_on(async move {
            let store: std::sync::Arc<dyn braid_store::Store> =
                std::sync::Arc::new(braid_store::SqliteStore::open(&db).await.unwrap());
            let mut config = braid_llm::ProviderConfig::new(braid_llm::Provider::OpenAi);
            config.base_url = base_url;
            config.model = "mock-model".into();
            config.retry = braid_llm::RetryPolicy::none();
            // The tests' conversations are sized for a 32k window; the 8,192-token default of a model
            // nobody knows leaves less than the built-in tools take beside the answer's reserve.
            config.capability_overrides.insert(
                "mock-model".into(),
                braid_llm::CapabilityOverride {
                    context_window: Some(32_768),
                    ..braid_llm::CapabilityOverride::default()
                },
            );
            let registry = braid_context::ContextRegistry::new(braid_context::Services {
                frames: Default::default(),
                store: store.clone(),
                llm: Some(braid_llm::build_client(config).unwrap()),
                tools: std::sync::Arc::new(braid_tools::builtin_registry().unwrap()),
                mcp: None,
                settings: braid_context::EngineSettings {
                    default_model: "mock-model".into(),
                    ..braid_context::EngineSettings::default()
                },
            });
            let ctx = registry
                .create(braid_protocol::api::CreateContextRequest {
                    title: Some("crash".into()),
                    config: ContextConfig::default(),
                })
                .await
                .unwrap();
            let mut events = ctx.subscribe();
            ctx.send_message(text("stream something")).await.unwrap();
            let mut seen = Vec::new();
            let mut deltas = 0;
            while deltas < 3 {
                let e = events.recv().await.unwrap();
                if matches!(e.event, ContextEvent::ContentDelta(_)) {
                    deltas += 1;
                }
                seen.push(e.sequenced());
            }
            let stored_state = store.get_context(ctx.id()).await.unwrap().unwrap().state;
            BeforeCrash {
                context: ctx.id(),
                seen,
                stored_state,
            }
        });
        runtime.shutdown_background();
        before
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_stream_keeps_the_streamed_text_the_state_and_every_seen_id() {
    let pieces = ["one ", "two ", "three ", "four ", "five ", "six "];
    let h = Harness::new(
        Script::new().then(reply(&pieces).chunk_delay(std::time::Duration::from_millis(300))),
    )
    .await;
    let before = stream_then_crash(&h).await;
    // The state was stored before the stream it announces started.
    assert_eq!(
        before.stored_state.kind(),
        StateKind::StreamingLlmResponse,
        "{:?}",
        before.stored_state
    );

    let restarted = h.reopen().await;
    let ctx = restarted.get(before.context).await.unwrap();
    let ContextState::Failed { error, recoverable } = ctx.state(false).await.unwrap().state else {
        panic!("a context killed mid-stream must come back failed")
    };
    assert!(recoverable);
    assert!(error.contains("streaming_llm_response"), "{error}");
    let ms = messages(&ctx).await;
    let answer = ms
        .iter()
        .find(|m| m.role == Role::Assistant && matches!(m.kind, MessageKind::Text(_)))
        .expect("the partial answer is kept");
    assert_eq!(answer.status, MessageStatus::Incomplete);
    let MessageKind::Text(t) = &answer.kind else {
        unreachable!()
    };
    assert_eq!(
        t.text(),
        "one two three ",
        "the partial text is rebuilt from the committed deltas"
    );

    // Every id the dying process published still names the same event, and the events of the
    // restarted process come after them: no id was given twice, and the log has no gap.
    // The restarted process's own store writes its events.
    let store = &restarted.services().store;
    store.flush_events().await.unwrap();
    let log = store.events_after(before.context, 0, 10_000).await.unwrap();
    for e in &before.seen {
        assert_eq!(&log[usize::try_from(e.sequence).unwrap() - 1], e);
    }
    let sequences: Vec<u64> = log.iter().map(|e| e.sequence).collect();
    assert_eq!(sequences, (1..=log.len() as u64).collect::<Vec<_>>());
    let highest_seen = before.seen.last().unwrap().sequence;
    let recovered = log
        .iter()
        .find(|e| {
            matches!(&e.event, ContextEvent::ContextUpdate(u)
                if matches!(u.current_state, ContextState::Failed { .. }))
        })
        .expect("the recovery is announced");
    assert!(recovered.sequence > highest_seen);
    ctx.shutdown().await;
}

/// Issue 41: a crash between the commit of a resting state and that of the `context_update`
/// announcing it left readers resuming from the log on the state before for ever.
#[tokio::test]
async fn a_state_stored_without_its_announcement_is_announced_on_restart() {
    let h = Harness::new(Script::new()).await;
    let ctx = h.context(ContextConfig::default()).await;
    let id = ctx.id();
    ctx.shutdown().await;
    // What the crash left: the log's last update shows a turn under way, the store holds the
    // context at rest.
    let shown = ContextState::ProcessingLlmResponse;
    let (publisher, _) = tokio::sync::broadcast::channel::<SequencedEvent>(4);
    let before = h
        .store
        .append_event(
            id,
            &ContextEvent::ContextUpdate(ContextUpdate {
                context_id: id,
                current_state: shown.clone(),
                previous_state: Some(ContextState::Idle),
                message_update: None,
                timestamp: chrono::Utc::now(),
                metadata: Metadata::new(),
                pending_calls: Vec::new(),
                turn_id: None,
                branch: None,
            }),
            std::sync::Arc::new(publisher),
        )
        .await
        .unwrap();
    h.store.flush_events().await.unwrap();

    let restarted = h.restart();
    let again = restarted.get(id).await.unwrap();
    assert_eq!(again.state(false).await.unwrap().state, ContextState::Idle);
    again.shutdown().await;
    h.store.flush_events().await.unwrap();
    let after = h.store.events_after(id, before.sequence, 10).await.unwrap();
    let updates: Vec<(Option<ContextState>, ContextState)> = after
        .iter()
        .filter_map(|e| match &e.event {
            ContextEvent::ContextUpdate(u) => {
                Some((u.previous_state.clone(), u.current_state.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        updates,
        vec![(Some(shown), ContextState::Idle)],
        "a reader resuming after the last event it saw learns the stored state"
    );

    // Once announced, a further restart has nothing to announce.
    let end = h.store.last_event_sequence(id).await.unwrap();
    let third = h.restart();
    let loaded = third.get(id).await.unwrap();
    assert_eq!(loaded.state(false).await.unwrap().state, ContextState::Idle);
    loaded.shutdown().await;
    h.store.flush_events().await.unwrap();
    assert_eq!(h.store.last_event_sequence(id).await.unwrap(), end);
}

#[tokio::test]
async fn a_long_historys_token_counts_are_kept_and_read_back_after_a_restart() {
    let h = Harness::new(Script::new()).await;
    let ctx = h.context(ContextConfig::default()).await;
    let id = ctx.id();
    ctx.shutdown().await;
    let mut changes = ContextChanges::new();
    for i in 0..100 {
        changes = changes
            .add_message(
                &BranchName::main(),
                Message::user_text(format!("question {i}: what is kept?")),
            )
            .add_message(
                &BranchName::main(),
                Message::new(
                    Role::Assistant,
                    MessageKind::Text(TextMessage::plain(format!("answer {i}: the counts"))),
                ),
            );
    }
    h.store.save_changes(id, &changes).await.unwrap();
    // Counts kept by a counter this model does not use (a model of another family before): they
    // spare this model no tokenizing, so they do not count as kept for it.
    let other = braid_store::StoredTokenCounts {
        counter: "cl100k_base/an_older_model".into(),
        counts: h
            .store
            .all_messages(id)
            .await
            .unwrap()
            .iter()
            .map(|m| braid_store::StoredTokenCount {
                message: m.id,
                version: m.updated_at.timestamp_nanos_opt().unwrap(),
                tokens: 1,
            })
            .collect(),
    };
    assert_eq!(other.counts.len(), 200);
    h.store.save_token_counts(id, &other).await.unwrap();
    let restarted = h.restart();
    let ctx = restarted.get(id).await.unwrap();
    let used = ctx.summary().await.unwrap().token_budget.used;
    // The load found none of this model's counts kept: the first plan's are kept, in the
    // background.
    let mut kept = None;
    for _ in 0..200 {
        kept = h
            .store
            .token_counts(id)
            .await
            .unwrap()
            .into_iter()
            .find(|k| k.counter != other.counter);
        if kept.as_ref().is_some_and(|k| k.counts.len() >= 200) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let kept = kept.expect("this model's counts are kept");
    assert_eq!(kept.counts.len(), 200, "one count per message");
    ctx.shutdown().await;
    // What is kept is what the next load reads instead of tokenizing: ten more tokens a message
    // show in the budget.
    let inflated = braid_store::StoredTokenCounts {
        counts: kept
            .counts
            .iter()
            .map(|c| braid_store::StoredTokenCount {
                tokens: c.tokens + 10,
                ..*c
            })
            .collect(),
        ..kept
    };
    h.store.save_token_counts(id, &inflated).await.unwrap();
    let ctx = h.restart().get(id).await.unwrap();
    assert_eq!(
        ctx.summary().await.unwrap().token_budget.used,
        used + 200 * 10
    );
}
