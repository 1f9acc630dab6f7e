//! The engine end to end against the mock LLM over HTTP, asserting the exact state sequences.

use crate::common;

use StateKind::*;
use braid_protocol::api::{ApprovalDecision, ApprovalRequest, Decision};
use braid_protocol::payload::{FileReferencePayload, TextPayload};
use braid_protocol::*;
use braid_testkit::{Chunk, ErrorReply, Script, ScriptedResponse, StreamReply};
use common::*;
use serde_json::{Value, json};

const PIPELINE: [StateKind; 5] = [
    ProcessingUserMessage,
    EnhancingSystemPrompt,
    OptimizingContext,
    PreparingLlmRequest,
    ConnectingToLlm,
];

fn seq(parts: &[&[StateKind]]) -> Vec<StateKind> {
    parts.iter().flat_map(|p| p.iter().copied()).collect()
}

fn auto(tools: &[&str]) -> ContextConfig {
    ContextConfig {
        approval_policy: ApprovalPolicy::WhiteList {
            tools: tools.iter().map(|t| t.to_string()).collect(),
        },
        ..ContextConfig::default()
    }
}

#[tokio::test]
async fn a_finished_answer_names_the_model_that_wrote_it() {
    let h = Harness::new(Script::new().then(reply(&["Hi"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("Hello")).await.unwrap();
    settle(&ctx).await;
    let ms = messages(&ctx).await;
    let answer = ms.last().unwrap();
    assert_eq!(answer.role, Role::Assistant);
    // The context names no model, so the server's default wrote it.
    assert_eq!(answer.metadata.get("model"), Some(&json!("mock-model")));
    assert!(ms[0].metadata.get("model").is_none());
}

#[tokio::test]
async fn processors_with_nothing_to_do_are_skipped() {
    let h = Harness::new(Script::new().then(reply(&["Hi"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("Hello")).await.unwrap();
    settle(&ctx).await;
    let ms = messages(&ctx).await;
    let timings = ms[0].metadata["pipeline_ms"]
        .as_object()
        .expect("the input records its pipeline's timings");
    let ran: Vec<&str> = timings.keys().map(String::as_str).collect();
    assert_eq!(
        ran,
        [
            "enhance_system_prompt",
            "optimize_context",
            "prepare_request",
            "validate"
        ],
        "a text message has no file reference to resolve and no image to recognize"
    );
}

#[tokio::test]
async fn a_streaming_answer_a_client_saw_announced_is_in_its_next_read() {
    // Slow chunks: the turn is still streaming when the client reads.
    let slow = reply(&["one ", "two ", "three"]).chunk_delay(std::time::Duration::from_millis(150));
    let h = Harness::new(Script::new().then(slow)).await;
    let ctx = h.context(ContextConfig::default()).await;
    let mut events = ctx.subscribe();
    ctx.send_message(text("count")).await.unwrap();
    let announced = loop {
        let e = tokio::time::timeout(std::time::Duration::from_secs(10), events.recv())
            .await
            .expect("no event")
            .unwrap();
        if let ContextEvent::ContextUpdate(ContextUpdate {
            message_update:
                Some(MessageUpdate::Created {
                    message_id,
                    role: Role::Assistant,
                    ..
                }),
            ..
        }) = e.event
        {
            break message_id;
        }
    };
    // The row is queued, not awaited, when the answer is announced: the read must still show it.
    let read = messages(&ctx).await;
    let answer = read.iter().find(|m| m.id == announced);
    assert!(
        answer.is_some_and(|m| m.status == MessageStatus::Streaming),
        "{read:?}"
    );
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let stored = h.store.get_messages(ctx.id(), &[announced]).await.unwrap();
    assert_eq!(stored[0].status, MessageStatus::Complete);
}

#[tokio::test]
async fn simple_text_turn_streams_and_returns_to_idle() {
    let h = Harness::new(Script::new().then(reply(&["Hel", "lo ", "world"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let mut events = ctx.subscribe();
    let sent = ctx.send_message(text("Say hello")).await.unwrap();
    assert!(!sent.queued);
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(
        walk(&ctx).await,
        seq(&[
            &PIPELINE,
            &[
                AwaitingLlmFirstChunk,
                StreamingLlmResponse,
                ProcessingLlmResponse,
                Idle
            ]
        ])
    );
    let ms = messages(&ctx).await;
    assert_eq!(ms.len(), 2);
    assert_eq!(ms[0].id, sent.message_id);
    let MessageKind::Text(answer) = &ms[1].kind else {
        panic!()
    };
    assert_eq!(answer.text(), "Hello world");
    assert_eq!(ms[1].status, MessageStatus::Complete);

    // Deltas in order, then final, then the update back to idle. Subscribers receive events
    // once committed: wait for the last batch.
    h.store.flush_events().await.unwrap();
    let mut deltas = Vec::new();
    let mut saw_final = false;
    while let Ok(e) = events.try_recv() {
        match e.event.clone() {
            ContextEvent::ContentDelta(d) => {
                assert!(!d.is_final);
                deltas.push((d.sequence, d.delta));
            }
            ContextEvent::ContentFinal(f) => {
                assert!(f.is_final);
                assert_eq!(f.sequence, 3);
                saw_final = true;
            }
            _ => {}
        }
    }
    assert_eq!(
        deltas,
        vec![(1, "Hel".into()), (2, "lo ".into()), (3, "world".into())]
    );
    assert!(saw_final);

    // What the model was sent: the system prompt first, then the user's text.
    let sent = h.mock.requests()[0].json().unwrap();
    assert_eq!(sent["messages"][0]["role"], "system");
    assert_eq!(sent["messages"][1]["content"], "Say hello");
    assert_eq!(sent["stream"], true);
}

#[tokio::test]
async fn streaming_progress_is_announced_a_few_times_a_second_while_every_chunk_has_its_delta() {
    let pieces: Vec<String> = (0..40).map(|i| format!("w{i} ")).collect();
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let h = Harness::new(Script::new().then(reply(&pieces))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let mut events = ctx.subscribe();
    ctx.send_message(text("count")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    h.store.flush_events().await.unwrap();
    let (mut deltas, mut progress, mut leaving) = (0, 0, None);
    while let Ok(e) = events.try_recv() {
        match e.event.clone() {
            ContextEvent::ContentDelta(_) => deltas += 1,
            ContextEvent::ContextUpdate(u) => match (&u.previous_state, &u.current_state) {
                (_, ContextState::StreamingLlmResponse { .. }) => progress += 1,
                (Some(ContextState::StreamingLlmResponse { chunks, .. }), _) => {
                    leaving = Some(*chunks)
                }
                _ => {}
            },
            _ => {}
        }
    }
    assert_eq!(deltas, 40, "one content_delta per chunk");
    // One update per chunk before; now at most one each STREAM_PROGRESS_EVERY (250 ms), and
    // forty unpaced chunks take far less than a second.
    assert!(progress < 10, "{progress} progress updates for 40 chunks");
    assert_eq!(
        leaving,
        Some(40),
        "the update that ends the stream carries the final count"
    );
}

#[tokio::test]
async fn every_request_carries_the_output_cap_for_both_providers() {
    for provider in [braid_llm::Provider::OpenAi, braid_llm::Provider::Anthropic] {
        let script = Script::new()
            .then(reply(&["One."]))
            .then(reply(&["Two."]))
            .then(calls(&[("c1", "echo", json!({"x": 1}))]))
            .then(reply(&["Three."]));
        let h = Harness::with_provider(script, braid_context::EngineSettings::default(), provider)
            .await;
        // The default: the tokens the budget reserves for the answer.
        let ctx = h.context(ContextConfig::default()).await;
        ctx.send_message(text("first")).await.unwrap();
        assert_eq!(settle(&ctx).await, ContextState::Idle);
        // A context's own cap.
        let capped = h
            .context(ContextConfig {
                max_output_tokens: Some(300),
                ..ContextConfig::default()
            })
            .await;
        capped.send_message(text("second")).await.unwrap();
        assert_eq!(settle(&capped).await, ContextState::Idle);
        // A tool loop: the request after the tool's result is capped too.
        let looping = h
            .context(ContextConfig {
                max_output_tokens: Some(200),
                approval_policy: ApprovalPolicy::AutoAll,
                ..ContextConfig::default()
            })
            .await;
        looping.send_message(text("third")).await.unwrap();
        assert_eq!(settle(&looping).await, ContextState::Idle);
        let sent = h.mock.requests();
        assert_eq!(sent.len(), 4, "{provider:?}");
        let caps: Vec<Value> = sent
            .iter()
            .map(|r| r.json().unwrap()["max_tokens"].clone())
            .collect();
        assert_eq!(
            caps,
            [json!(4096), json!(300), json!(200), json!(200)],
            "{provider:?}"
        );
    }
}

#[tokio::test]
async fn file_reference_with_a_range_is_resolved_with_line_numbers() {
    let h = Harness::new(Script::new().then(reply(&["Seen."]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(SendMessageRequest {
        payload: MessagePayload::Text(TextPayload {
            text: "Explain these lines".into(),
            file_references: vec![FileReferencePayload {
                path: "src/lib.rs".into(),
                range: Some(LineRange {
                    start_line: 3,
                    end_line: 5,
                }),
                display_text: None,
            }],
            images: vec![],
        }),
        client_metadata: None,
    })
    .await
    .unwrap();
    settle(&ctx).await;
    assert_eq!(
        walk(&ctx).await,
        seq(&[
            &[ProcessingUserMessage, ResolvingFileReferences],
            &PIPELINE[1..],
            &[
                AwaitingLlmFirstChunk,
                StreamingLlmResponse,
                ProcessingLlmResponse,
                Idle
            ]
        ])
    );
    let ms = messages(&ctx).await;
    let MessageKind::FileReference(f) = &ms[0].kind else {
        panic!()
    };
    let FileResolution::Resolved {
        content,
        total_lines,
        ..
    } = &f.resolution
    else {
        panic!("{:?}", f.resolution)
    };
    assert_eq!(*total_lines, 30);
    assert!(
        content.contains("3\t// line 3") && content.contains("5\t// line 5"),
        "{content}"
    );
    assert!(!content.contains("line 6"));
    // The model saw the content.
    let body = h.mock.requests()[0].body.clone();
    assert!(body.contains("line 4"), "{body}");
}

#[tokio::test]
async fn many_file_references_are_all_resolved() {
    let h = Harness::new(Script::new().then(reply(&["ok"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let refs: Vec<FileReferencePayload> = (1..=25)
        .map(|i| FileReferencePayload {
            path: "src/lib.rs".into(),
            range: Some(LineRange {
                start_line: i,
                end_line: i,
            }),
            display_text: None,
        })
        .collect();
    ctx.send_message(SendMessageRequest {
        payload: MessagePayload::Text(TextPayload {
            text: "all of them".into(),
            file_references: refs,
            images: vec![],
        }),
        client_metadata: None,
    })
    .await
    .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let history = ctx.state(true).await.unwrap().history.unwrap();
    assert!(
        history
            .iter()
            .any(|t| t.to == ContextState::ResolvingFileReferences { total: 25 })
    );
    let resolved = messages(&ctx)
        .await
        .iter()
        .filter(|m| matches!(&m.kind, MessageKind::FileReference(f) if matches!(f.resolution, FileResolution::Resolved { .. })))
        .count();
    assert_eq!(resolved, 25);
}

#[tokio::test]
async fn missing_file_fails_the_turn_and_keeps_the_input_failed() {
    let h = Harness::new(Script::new()).await;
    let ctx = h.context(ContextConfig::default()).await;
    let mut events = ctx.subscribe();
    let sent = ctx
        .send_message(SendMessageRequest {
            payload: MessagePayload::FileReference(FileReferencePayload {
                path: "src/nope.rs".into(),
                range: None,
                display_text: None,
            }),
            client_metadata: None,
        })
        .await
        .unwrap();
    let state = settle(&ctx).await;
    let ContextState::Failed { error, recoverable } = state else {
        panic!("{state:?}")
    };
    assert!(error.contains("src/nope.rs"), "{error}");
    assert!(recoverable);
    let stored = messages(&ctx).await;
    assert_eq!(
        stored.len(),
        1,
        "the input stays, and nothing else is added"
    );
    assert_eq!(stored[0].id, sent.message_id);
    assert_eq!(stored[0].status, MessageStatus::Failed);
    let detail = stored[0].error.as_ref().unwrap();
    assert!(detail.message.contains("src/nope.rs"), "{detail:?}");
    assert_eq!(detail.code.as_deref(), Some("file_reference"));
    assert!(
        matches!(&stored[0].kind, MessageKind::FileReference(f) if f.resolution == FileResolution::Pending),
        "nothing the failed pipeline did is kept"
    );
    assert_eq!(h.mock.request_count(), 0);
    h.store.flush_events().await.unwrap();
    let codes: Vec<ErrorCode> = std::iter::from_fn(|| events.try_recv().ok())
        .filter_map(|e| match e.event.clone() {
            ContextEvent::Error(e) => Some(e.code),
            _ => None,
        })
        .collect();
    assert_eq!(
        codes,
        vec![ErrorCode::FileReference],
        "the person is told which kind of failure"
    );
}

#[tokio::test]
async fn paths_that_leave_the_workspace_are_refused() {
    let h = Harness::new(Script::new()).await;
    let ctx = h.context(ContextConfig::default()).await;
    // `..` is refused when the request is read.
    let err = ctx
        .send_message(SendMessageRequest {
            payload: MessagePayload::FileReference(FileReferencePayload {
                path: "../secret".into(),
                range: None,
                display_text: None,
            }),
            client_metadata: None,
        })
        .await
        .unwrap_err();
    assert_eq!(err.field().as_deref(), Some("payload.path"));
    // An absolute path outside the workspace is refused by the resolver.
    ctx.send_message(SendMessageRequest {
        payload: MessagePayload::FileReference(FileReferencePayload {
            path: "/etc/passwd".into(),
            range: None,
            display_text: None,
        }),
        client_metadata: None,
    })
    .await
    .unwrap();
    assert!(matches!(settle(&ctx).await, ContextState::Failed { .. }));
    let stored = messages(&ctx).await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].status, MessageStatus::Failed);
    assert!(stored[0].error.is_some());
}

#[tokio::test]
async fn one_whitelisted_tool_call_runs_and_the_model_reads_its_result() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[(
                "call_1",
                "read_file",
                json!({"path": "README.md"}),
            )]))
            .then(reply(&["It is a fixture."])),
    )
    .await;
    let ctx = h.context(auto(&["read_file"])).await;
    ctx.send_message(text("What is in the README?"))
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(
        walk(&ctx).await,
        seq(&[
            &PIPELINE,
            &[
                AwaitingLlmFirstChunk,
                StreamingLlmResponse,
                ProcessingLlmResponse,
                ParsingToolCalls,
                ToolAutoLoop,
                ExecutingTool,
                CollectingToolResults,
                ProcessingToolResults
            ],
            &PIPELINE[1..],
            &[
                AwaitingLlmFirstChunk,
                StreamingLlmResponse,
                ProcessingLlmResponse,
                Idle
            ],
        ])
    );
    let ms = messages(&ctx).await;
    let kinds: Vec<KindName> = ms.iter().map(|m| m.kind_name()).collect();
    assert_eq!(
        kinds,
        vec![
            KindName::Text,
            KindName::ToolRequest,
            KindName::ToolResult,
            KindName::Text
        ]
    );
    let MessageKind::ToolResult(r) = &ms[2].kind else {
        panic!()
    };
    assert_eq!(r.call_id.as_str(), "call_1");
    assert!(r.outcome.is_success(), "{:?}", r.outcome);
    assert!(r.started_at.is_some() && r.completed_at.is_some());
    // The second request carries the call and its result, linked by id.
    let second = h.mock.requests()[1].json().unwrap();
    let msgs = second["messages"].as_array().unwrap();
    let tool = msgs
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("tool result sent");
    assert_eq!(tool["tool_call_id"], "call_1");
    assert!(
        tool["content"]
            .as_str()
            .unwrap()
            .contains("A test workspace")
    );
}

#[tokio::test]
async fn parallel_read_only_calls_all_get_results() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[
                ("a", "echo", json!({"n": 1})),
                ("b", "echo", json!({"n": 2})),
                ("c", "echo", json!({"n": 3})),
            ]))
            .then(reply(&["done"])),
    )
    .await;
    let ctx = h.context(auto(&["echo"])).await;
    ctx.send_message(text("go")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let history = ctx.state(true).await.unwrap().history.unwrap();
    let executing: Vec<(u32, u32, u32)> = history
        .iter()
        .filter_map(|t| match &t.to {
            ContextState::ExecutingTool {
                index,
                total,
                finished,
                ..
            } => Some((*index, *total, *finished)),
            _ => None,
        })
        .collect();
    // All three start together, then each is reported as it finishes, in whatever order.
    assert_eq!(executing[..3], [(1, 3, 0), (2, 3, 0), (3, 3, 0)]);
    let mut ends: Vec<(u32, u32)> = executing[3..].iter().map(|e| (e.0, e.2)).collect();
    assert_eq!(
        ends.iter().map(|e| e.1).collect::<Vec<_>>(),
        [1, 2, 3],
        "{executing:?}"
    );
    ends.sort();
    assert_eq!(
        ends.iter().map(|e| e.0).collect::<Vec<_>>(),
        [1, 2, 3],
        "{executing:?}"
    );
    let results: Vec<String> = messages(&ctx)
        .await
        .iter()
        .filter_map(|m| m.tool_call_id().map(|c| c.to_string()))
        .collect();
    assert_eq!(results.len(), 3);
    assert!(results.contains(&"a".into()) && results.contains(&"c".into()));
}

#[tokio::test]
async fn auto_loop_runs_three_rounds_and_counts_them() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[("r1", "echo", json!({"round": 1}))]))
            .then(calls(&[("r2", "echo", json!({"round": 2}))]))
            .then(calls(&[("r3", "echo", json!({"round": 3}))]))
            .then(reply(&["three rounds"])),
    )
    .await;
    let ctx = h.context(auto(&["echo"])).await;
    ctx.send_message(text("loop")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let history = ctx.state(true).await.unwrap().history.unwrap();
    let rounds: Vec<(u32, u32)> = history
        .iter()
        .filter_map(|t| match t.to {
            ContextState::ToolAutoLoop {
                depth,
                tools_executed,
            } => Some((depth, tools_executed)),
            _ => None,
        })
        .collect();
    assert_eq!(rounds, vec![(1, 0), (2, 1), (3, 2)]);
    assert_eq!(h.mock.request_count(), 4);
}

#[tokio::test]
async fn depth_limit_pauses_the_loop_and_resume_continues_it() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[("r1", "echo", json!({"n": 1}))]))
            .then(calls(&[("r2", "echo", json!({"n": 2}))]))
            .then(calls(&[("r3", "echo", json!({"n": 3}))]))
            .then(reply(&["finally"])),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::LimitedAuto {
                max_depth: 2,
                tools: Vec::new(),
            },
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("loop")).await.unwrap();
    let state = settle(&ctx).await;
    assert_eq!(
        state,
        ContextState::Paused {
            reason: LoopStopReason::DepthLimit,
            depth: 2,
            tools_executed: 2
        }
    );
    let ms = messages(&ctx).await;
    let notice = ms.last().unwrap();
    assert!(matches!(
        &notice.kind,
        MessageKind::SystemControl(SystemControlMessage::LoopStopped {
            reason: LoopStopReason::DepthLimit,
            ..
        })
    ));
    // The third round's call waits, unexecuted.
    assert!(
        !ms.iter()
            .any(|m| m.tool_call_id().map(|c| c.as_str()) == Some("r3"))
    );
    ctx.resume().await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert!(
        messages(&ctx)
            .await
            .iter()
            .any(|m| m.tool_call_id().map(|c| c.as_str()) == Some("r3"))
    );
    assert_eq!(h.mock.request_count(), 4);
}

#[tokio::test]
async fn manual_approval_approve_deny_and_approve_for_session() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[
                ("w1", "slow_write", json!({})),
                ("e1", "echo", json!({"x": 1})),
            ]))
            .then(calls(&[("w2", "slow_write", json!({}))]))
            .then(reply(&["done"]))
            .then(calls(&[("w3", "slow_write", json!({}))]))
            .then(reply(&["again"])),
    )
    .await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("write")).await.unwrap();
    let ContextState::AwaitingToolApproval {
        pending_requests,
        tool_names,
        ..
    } = settle(&ctx).await
    else {
        panic!()
    };
    assert_eq!(
        pending_requests,
        vec![ToolCallId::from("w1"), ToolCallId::from("e1")]
    );
    assert_eq!(
        tool_names,
        vec!["slow_write".to_string(), "echo".to_string()]
    );
    // Approving a call that is not pending is a conflict.
    let err = ctx
        .approve(ApprovalRequest {
            decisions: vec![ApprovalDecision {
                call_id: "zzz".into(),
                decision: Decision::Approve,
                reason: None,
            }],
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    // Decide one: still waiting for the other.
    ctx.approve(ApprovalRequest {
        decisions: vec![ApprovalDecision {
            call_id: "w1".into(),
            decision: Decision::ApproveForSession,
            reason: None,
        }],
    })
    .await
    .unwrap();
    let ContextState::AwaitingToolApproval {
        pending_requests, ..
    } = settle(&ctx).await
    else {
        panic!()
    };
    assert_eq!(pending_requests, vec![ToolCallId::from("e1")]);
    ctx.approve(ApprovalRequest {
        decisions: vec![ApprovalDecision {
            call_id: "e1".into(),
            decision: Decision::Deny,
            reason: Some("not now".into()),
        }],
    })
    .await
    .unwrap();
    // The second round's slow_write is approved for the session: no question asked.
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let error = call_error(&ctx, "e1").await;
    assert!(
        error.message.contains("denied") && error.message.contains("not now"),
        "{}",
        error.message
    );
    assert!(
        messages(&ctx)
            .await
            .iter()
            .any(|m| m.tool_call_id().map(|c| c.as_str()) == Some("w2"))
    );
    // The model read the denial.
    let second = h.mock.requests()[1].body.clone();
    assert!(second.contains("not now"));
    // The session approval is stored with the context.
    assert_eq!(
        ctx.summary().await.unwrap().config.approved_tools,
        vec!["slow_write".to_string()]
    );
    ctx.send_message(text("once more")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
}

#[tokio::test]
async fn repeated_identical_calls_are_stopped_as_a_cycle() {
    let same = || calls(&[("x", "echo", json!({"same": true}))]);
    let h = Harness::new(
        Script::new()
            .then(calls(&[("c1", "echo", json!({"same": true}))]))
            .then(calls(&[("c2", "echo", json!({"same": true}))]))
            .then(calls(&[("c3", "echo", json!({"same": true}))]))
            .then(same()),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("spin")).await.unwrap();
    let state = settle(&ctx).await;
    assert!(
        matches!(
            state,
            ContextState::Paused {
                reason: LoopStopReason::CycleDetected,
                ..
            }
        ),
        "{state:?}"
    );
    // The repeated call got a result saying it was not run, so the history stays valid.
    call_error(&ctx, "c3").await;
    assert_eq!(h.mock.request_count(), 3);
}

#[tokio::test]
async fn failing_tool_mid_loop_gives_the_model_an_error_and_the_loop_goes_on() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[("b1", "broken", json!({}))]))
            .then(calls(&[("e1", "echo", json!({}))]))
            .then(reply(&["recovered"])),
    )
    .await;
    let ctx = h.context(auto(&["broken", "echo"])).await;
    ctx.send_message(text("try")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let second = h.mock.requests()[1].body.clone();
    assert!(second.contains("the disk is on fire"), "{second}");
    assert_eq!(h.mock.request_count(), 3);
}

#[tokio::test]
async fn iteration_timeout_pauses_with_consistent_history() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[("s1", "slow_read", json!({}))]))
            .then(reply(&["late"])),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            tool_timeout_secs: 1,
            ..auto(&["slow_read"])
        })
        .await;
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
    let error = call_error(&ctx, "s1").await;
    assert!(error.message.contains("timed out"));
    ctx.resume().await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
}

#[tokio::test]
async fn interrupt_lets_the_running_tool_finish_and_resume_continues() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[
                ("w1", "slow_write", json!({})),
                ("w2", "slow_write", json!({})),
            ]))
            .then(reply(&["both written"])),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            approval_policy: ApprovalPolicy::AutoAll,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("write twice")).await.unwrap();
    // Wait until the first tool runs, then interrupt.
    loop {
        if let ContextState::ExecutingTool { index: 1, .. } = ctx.state(false).await.unwrap().state
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    ctx.interrupt().await.unwrap();
    let state = settle(&ctx).await;
    assert!(
        matches!(
            state,
            ContextState::Paused {
                reason: LoopStopReason::Interrupted,
                tools_executed: 1,
                ..
            }
        ),
        "{state:?}"
    );
    let ms = messages(&ctx).await;
    assert!(
        ms.iter()
            .any(|m| m.tool_call_id().map(|c| c.as_str()) == Some("w1")),
        "the running tool finished"
    );
    assert!(
        !ms.iter()
            .any(|m| m.tool_call_id().map(|c| c.as_str()) == Some("w2")),
        "nothing new started"
    );
    ctx.resume().await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert!(
        messages(&ctx)
            .await
            .iter()
            .any(|m| m.tool_call_id().map(|c| c.as_str()) == Some("w2"))
    );
}

#[tokio::test]
async fn llm_connection_failure_fails_recoverably_and_keeps_the_message() {
    let h = Harness::new(Script::new().then(ErrorReply::new(
        503,
        json!({"error": {"message": "overloaded"}}),
    )))
    .await;
    let ctx = h.context(ContextConfig::default()).await;
    let mut events = ctx.subscribe();
    ctx.send_message(text("hi")).await.unwrap();
    let ContextState::Failed { error, recoverable } = settle(&ctx).await else {
        panic!()
    };
    assert!(recoverable);
    assert!(error.contains("503"), "{error}");
    assert_eq!(messages(&ctx).await.len(), 1, "the person's message stays");
    h.store.flush_events().await.unwrap();
    let mut saw_error = false;
    while let Ok(e) = events.try_recv() {
        if let ContextEvent::Error(e) = e.event.clone() {
            assert_eq!(e.code, ErrorCode::LlmUnavailable);
            saw_error = true;
        }
    }
    assert!(saw_error);
    // A new send resolves the failure.
    h.mock.push_response(reply(&["better"]));
    ctx.send_message(text("again")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert!(messages(&ctx).await.iter().any(|m| matches!(
        &m.kind,
        MessageKind::SystemControl(SystemControlMessage::FailureResolved { .. })
    )));
}

#[tokio::test]
async fn stream_cut_keeps_the_partial_answer_as_incomplete() {
    let h = Harness::new(
        Script::new().then(
            // The pause lets the text reach the client before the connection is cut.
            StreamReply::new()
                .chunk(Chunk::Text {
                    text: "Half an ans".into(),
                })
                .chunk(Chunk::Delay { ms: 100 })
                .chunk(Chunk::Cut),
        ),
    )
    .await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("hi")).await.unwrap();
    assert!(matches!(
        settle(&ctx).await,
        ContextState::Failed {
            recoverable: true,
            ..
        }
    ));
    let ms = messages(&ctx).await;
    assert_eq!(ms.len(), 2);
    assert_eq!(ms[1].status, MessageStatus::Incomplete);
    let MessageKind::Text(t) = &ms[1].kind else {
        panic!()
    };
    assert_eq!(t.text(), "Half an ans");
}

#[tokio::test]
async fn plan_mode_recognizes_a_plan_and_execute_switches_to_act_once() {
    let plan = r#"{"goal":"Add a test","steps":[{"step_number":1,"action":"Write it","reason":"Coverage"}]}"#;
    let h = Harness::new(
        Script::new()
            .then(reply(&[plan]))
            .then(reply(&["Executing."])),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            mode: Mode::Plan,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("plan it")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let ms = messages(&ctx).await;
    let plan_msg = ms
        .iter()
        .find(|m| m.kind_name() == KindName::Plan)
        .expect("a plan message");
    // Plan mode: the system prompt says so.
    assert!(h.mock.requests()[0].body.contains("PLAN mode"));
    let plan_id = plan_msg.id;
    let run = ctx.execute_plan(plan_id).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(ctx.summary().await.unwrap().config.mode, Mode::Act);
    let ms = messages(&ctx).await;
    let execution = ms.iter().find(|m| m.id == run.message_id).unwrap();
    assert_eq!(execution.metadata["plan_id"], serde_json::json!(plan_id));
    assert_eq!(execution.metadata["plan_action"], "execute");
    assert!(ms.iter().any(|m| matches!(
        &m.kind,
        MessageKind::SystemControl(SystemControlMessage::ModeChange {
            from: Mode::Plan,
            to: Mode::Act
        })
    )));
    let second = h.mock.requests()[1].body.clone();
    assert!(second.contains("ACT mode") && second.contains("Execute the plan: Add a test"));

    // A plan runs once: a second execute is refused, adds nothing and asks the model nothing.
    let err = ctx.execute_plan(plan_id).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    assert!(err.to_string().contains("already executed"), "{err}");
    assert_eq!(messages(&ctx).await.len(), ms.len());
    assert_eq!(h.mock.requests().len(), 2);
}

#[tokio::test]
async fn question_pauses_until_answered_and_the_answer_resumes_the_loop() {
    let q = r#"{"question":"Which database?","options":[{"label":"SQLite","value":"sqlite"},{"label":"PostgreSQL","value":"pg"}],"severity":"major"}"#;
    let h = Harness::new(
        Script::new()
            .then(reply(&[q]))
            .then(reply(&["PostgreSQL it is."])),
    )
    .await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("set up storage")).await.unwrap();
    let ContextState::AwaitingUserAnswer { question_id } = settle(&ctx).await else {
        panic!()
    };
    let err = ctx
        .answer_question(question_id, "mysql".into())
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    ctx.answer_question(question_id, "pg".into()).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let ms = messages(&ctx).await;
    let MessageKind::Question(asked) = &ms.iter().find(|m| m.id == question_id).unwrap().kind
    else {
        panic!()
    };
    assert_eq!(asked.answer.as_ref().unwrap().value, "pg");
    assert!(h.mock.requests()[1].body.contains("PostgreSQL"));
    // Answering twice is refused.
    assert!(ctx.answer_question(question_id, "pg".into()).await.is_err());
}

#[tokio::test]
async fn mode_change_adds_a_notice_and_changes_the_prompt() {
    let h = Harness::new(Script::new().then(reply(&["planned"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.set_mode(Mode::Plan).await.unwrap();
    ctx.send_message(text("think")).await.unwrap();
    settle(&ctx).await;
    let ms = messages(&ctx).await;
    assert!(matches!(
        &ms[0].kind,
        MessageKind::SystemControl(SystemControlMessage::ModeChange {
            from: Mode::Act,
            to: Mode::Plan
        })
    ));
    let body = h.mock.requests()[0].json().unwrap();
    // The notice is never sent to the model.
    assert_eq!(body["messages"].as_array().unwrap().len(), 2);
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("PLAN mode")
    );
}

#[tokio::test]
async fn branch_created_from_a_message_uses_its_own_prompt() {
    let h = Harness::new(
        Script::new()
            .then(reply(&["first"]))
            .then(reply(&["second"]))
            .then(reply(&["on branch"])),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            system_prompt: Some("Base prompt.".into()),
            ..ContextConfig::default()
        })
        .await;
    let first = ctx.send_message(text("one")).await.unwrap();
    settle(&ctx).await;
    ctx.send_message(text("two")).await.unwrap();
    settle(&ctx).await;
    let info = ctx
        .create_branch(braid_protocol::api::CreateBranchRequest {
            name: "alt".into(),
            from_branch: None,
            from_message: Some(first.message_id),
            before_message: None,
            system_prompt: Some("You are the alternative.".into()),
            pipeline: None,
        })
        .await
        .unwrap();
    assert_eq!(info.message_count, 1);
    ctx.switch_branch("alt".into()).await.unwrap();
    ctx.send_message(text("branch question")).await.unwrap();
    settle(&ctx).await;
    let body = h.mock.requests()[2].json().unwrap();
    let msgs = body["messages"].as_array().unwrap();
    assert!(
        msgs[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("You are the alternative.")
    );
    assert!(
        !h.mock.requests()[2].body.contains("\"two\""),
        "the branch forked before the second message"
    );
    // main is untouched, and the switch left no line on either branch.
    let main = ctx
        .messages(braid_context::MessageQuery {
            branch: Some(BranchName::main()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(main.messages.len(), 4);
    let alt = messages(&ctx).await;
    assert_eq!(
        alt.len(),
        3,
        "the kept question, the new question and its answer"
    );
    assert!(
        !alt.iter()
            .any(|m| matches!(m.kind, MessageKind::SystemControl(_))),
        "a switch is not a line of the conversation: {alt:?}"
    );
    assert_eq!(ctx.summary().await.unwrap().active_branch.as_str(), "alt");
    assert!(
        ctx.delete_branch("alt".into()).await.is_err(),
        "the active branch cannot be deleted"
    );
}

#[tokio::test]
async fn fifty_concurrent_sends_are_applied_in_order() {
    let mut script = Script::new();
    for i in 0..50 {
        script = script.then(reply(&[&format!("answer {i}")]));
    }
    let h = Harness::new(script).await;
    let ctx = h.context(ContextConfig::default()).await;
    let mut tasks = Vec::new();
    for i in 0..50 {
        let ctx = ctx.clone();
        tasks.push(tokio::spawn(async move {
            (
                i,
                ctx.send_message(text(&format!("question {i}")))
                    .await
                    .unwrap(),
            )
        }));
    }
    let mut ids = Vec::new();
    for t in tasks {
        ids.push(t.await.unwrap());
    }
    loop {
        let s = settle(&ctx).await;
        if messages(&ctx).await.len() == 100 {
            assert_eq!(s, ContextState::Idle);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let ms = messages(&ctx).await;
    let requests = h.mock.requests();
    assert_eq!(requests.len(), 50);
    // Strict alternation: every question is followed by its own answer, never interleaved. The
    // mock answers its k-th request with "answer k", so the answer after a question tells which
    // request carried it: that request must end with exactly this question.
    for (k, pair) in ms.chunks(2).enumerate() {
        assert_eq!(pair[0].role, Role::User);
        assert_eq!(pair[1].role, Role::Assistant);
        let (MessageKind::Text(q), MessageKind::Text(a)) = (&pair[0].kind, &pair[1].kind) else {
            panic!("{pair:?}")
        };
        assert_eq!(
            a.text(),
            format!("answer {k}"),
            "turns ran one at a time, in order"
        );
        let body = requests[k].json().unwrap();
        let sent = body["messages"].as_array().unwrap();
        assert_eq!(sent.last().unwrap()["content"], q.text().as_str());
        assert_eq!(
            sent.len(),
            2 * k + 2,
            "request {k} carries every earlier turn and no later one"
        );
    }
    // Sends are applied in the order they were accepted (ids are given out at acceptance).
    let mut accepted: Vec<MessageId> = ids.iter().map(|(_, r)| r.message_id).collect();
    accepted.sort();
    let applied: Vec<MessageId> = ms.iter().step_by(2).map(|m| m.id).collect();
    assert_eq!(applied, accepted);
}

#[tokio::test]
async fn empty_messages_are_refused_and_long_ones_accepted() {
    let long = "x".repeat(12_000);
    let h = Harness::new(Script::new().then(reply(&["long one"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let err = ctx.send_message(text("   ")).await.unwrap_err();
    assert_eq!(err.field().as_deref(), Some("payload.text"));
    ctx.send_message(text(&long)).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert!(h.mock.requests()[0].body.contains(&long));
}

#[tokio::test]
async fn interrupt_during_streaming_keeps_the_partial_answer() {
    let slow = StreamReply::new()
        .chunk(Chunk::Text {
            text: "one ".into(),
        })
        .chunk(Chunk::Delay { ms: 3000 })
        .chunk(Chunk::Text { text: "two".into() })
        .chunk(Chunk::Finish {
            reason: braid_testkit::FinishKind::Stop,
        });
    let h = Harness::new(Script::new().then(slow)).await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("talk slowly")).await.unwrap();
    loop {
        if let ContextState::StreamingLlmResponse { .. } = ctx.state(false).await.unwrap().state {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    ctx.interrupt().await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let ms = messages(&ctx).await;
    assert_eq!(ms[1].status, MessageStatus::Incomplete);
    let MessageKind::Text(t) = &ms[1].kind else {
        panic!()
    };
    assert_eq!(t.text(), "one ");
}

#[tokio::test]
async fn file_reference_without_a_workspace_fails_with_a_clear_error() {
    let h = Harness::new(Script::new()).await;
    let ctx = h
        .registry
        .create(braid_protocol::api::CreateContextRequest {
            title: None,
            config: ContextConfig::default(),
        })
        .await
        .unwrap();
    ctx.send_message(SendMessageRequest {
        payload: MessagePayload::FileReference(FileReferencePayload {
            path: "src/lib.rs".into(),
            range: None,
            display_text: None,
        }),
        client_metadata: None,
    })
    .await
    .unwrap();
    let ContextState::Failed { error, .. } = settle(&ctx).await else {
        panic!()
    };
    assert!(error.contains("no workspace"), "{error}");
}

#[tokio::test]
async fn a_branch_pipeline_replaces_the_standard_one() {
    let h = Harness::new(Script::new().then(reply(&["ok"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let info = ctx
        .create_branch(braid_protocol::api::CreateBranchRequest {
            name: "lean".into(),
            from_branch: None,
            from_message: None,
            before_message: None,
            system_prompt: None,
            pipeline: Some(vec![
                braid_protocol::api::ProcessorName::Validate,
                braid_protocol::api::ProcessorName::PrepareRequest,
            ]),
        })
        .await
        .unwrap();
    assert_eq!(info.pipeline.as_ref().map(Vec::len), Some(2));
    ctx.switch_branch("lean".into()).await.unwrap();
    ctx.send_message(text("no system prompt here"))
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let history = ctx.state(true).await.unwrap().history.unwrap();
    assert!(
        !history.iter().any(|t| t.to.kind() == EnhancingSystemPrompt),
        "the branch skips the prompt step"
    );
    let body = h.mock.requests()[0].json().unwrap();
    assert_eq!(
        body["messages"][0]["role"], "user",
        "no system prompt was built"
    );
    assert!(body.get("tools").is_none() || body["tools"].as_array().is_some_and(|t| t.is_empty()));
}

#[tokio::test]
async fn sends_beyond_the_queue_limit_are_refused_while_a_turn_runs() {
    use braid_context::MAX_QUEUED_SENDS;
    // The first answer never finishes, so every later send waits behind it.
    let h = Harness::new(Script::new().then(reply(&["thinking"]).hang())).await;
    let ctx = h.context(ContextConfig::default()).await;
    let first = ctx.send_message(text("first")).await.unwrap();
    assert!(!first.queued);
    for i in 0..MAX_QUEUED_SENDS {
        let queued = ctx.send_message(text(&format!("later {i}"))).await.unwrap();
        assert!(queued.queued);
    }
    let err = ctx.send_message(text("one too many")).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    assert!(
        err.to_string().contains(&MAX_QUEUED_SENDS.to_string()),
        "{err}"
    );
    ctx.interrupt().await.unwrap();
}

#[tokio::test]
async fn each_retry_moves_connecting_to_llm_to_the_next_attempt_with_the_reason_and_the_wait() {
    let overloaded = || ErrorReply::new(503, json!({"error": {"message": "overloaded"}}));
    let h = Harness::with_retry(
        Script::new()
            .then(overloaded())
            .then(overloaded())
            .then(reply(&["At last."])),
        braid_llm::RetryPolicy {
            max_retries: 3,
            initial_backoff: std::time::Duration::from_millis(20),
            max_backoff: std::time::Duration::from_millis(50),
        },
    )
    .await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("hi")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert_eq!(h.mock.requests().len(), 3);

    let history = ctx.state(true).await.unwrap().history.unwrap();
    let attempts: Vec<(u32, Option<String>, Option<u64>)> = history
        .iter()
        .filter_map(|t| match &t.to {
            ContextState::ConnectingToLlm {
                attempt,
                reason,
                wait_ms,
            } => Some((*attempt, reason.clone(), *wait_ms)),
            _ => None,
        })
        .collect();
    assert_eq!(
        attempts.iter().map(|a| a.0).collect::<Vec<_>>(),
        [1, 2, 3],
        "{attempts:?}"
    );
    assert_eq!(attempts[0].1, None);
    for (attempt, reason, wait_ms) in &attempts[1..] {
        let reason = reason.as_deref().unwrap();
        assert!(reason.contains("503"), "attempt {attempt}: {reason}");
        assert!(wait_ms.is_some_and(|w| w > 0 && w <= 50), "{wait_ms:?}");
    }
    // The retries happen while connecting: the answer's wait begins once a response starts.
    assert_eq!(
        walk(&ctx).await[..],
        [
            ProcessingUserMessage,
            EnhancingSystemPrompt,
            OptimizingContext,
            PreparingLlmRequest,
            ConnectingToLlm,
            AwaitingLlmFirstChunk,
            StreamingLlmResponse,
            ProcessingLlmResponse,
            Idle
        ]
    );
}

#[tokio::test]
async fn a_hanging_model_call_times_out_into_a_recoverable_failure() {
    let h = Harness::new(Script::new().then(ScriptedResponse::Hang)).await;
    let ctx = h
        .context(ContextConfig {
            llm_timeout_secs: 1,
            ..ContextConfig::default()
        })
        .await;
    let started = std::time::Instant::now();
    ctx.send_message(text("hi")).await.unwrap();
    let ContextState::Failed { error, recoverable } = settle(&ctx).await else {
        panic!("the call should time out")
    };
    assert!(started.elapsed() < std::time::Duration::from_secs(4));
    assert!(recoverable);
    assert!(
        error.contains("did not finish within 1 s") && error.contains("llm_timeout_secs"),
        "{error}"
    );
    // The person goes on: the next send is answered.
    h.mock.push_response(reply(&["Here now."]));
    ctx.send_message(text("again")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
}

#[tokio::test]
async fn a_stalled_stream_is_stopped_at_the_limit_and_keeps_what_arrived() {
    // The harness's idle timeout (5 s) would wait longer than the call's limit.
    let h = Harness::new(
        Script::new().then(
            StreamReply::new()
                .chunk(Chunk::Text {
                    text: "Half an answer".into(),
                })
                .hang(),
        ),
    )
    .await;
    let ctx = h
        .context(ContextConfig {
            llm_timeout_secs: 1,
            ..ContextConfig::default()
        })
        .await;
    ctx.send_message(text("hi")).await.unwrap();
    let ContextState::Failed { recoverable, .. } = settle(&ctx).await else {
        panic!("the call should time out")
    };
    assert!(recoverable);
    let ms = messages(&ctx).await;
    assert_eq!(ms[1].status, MessageStatus::Incomplete);
    assert!(matches!(&ms[1].kind, MessageKind::Text(t) if t.text() == "Half an answer"));
}

#[tokio::test]
async fn workspace_instructions_are_in_the_system_prompt_and_the_summary_says_which_file() {
    let h = Harness::new(Script::new().then(reply(&["Noted."]))).await;
    std::fs::write(
        h.workspace.join("CLAUDE.md"),
        "Ignored: AGENTS.md comes first.\n",
    )
    .unwrap();
    std::fs::write(h.workspace.join("AGENTS.md"), "Always run `make test`.\n").unwrap();
    let ctx = h.context(ContextConfig::default()).await;
    let info = ctx.summary().await.unwrap().instructions.unwrap();
    assert_eq!(info.path, "AGENTS.md");
    assert_eq!((info.file_bytes, info.included_bytes), (24, 24));
    assert!(info.tokens > 3 && info.tokens < 12, "{info:?}");
    assert!(!info.truncated);

    ctx.send_message(text("hi")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let body = h.mock.requests()[0].json().unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("## Workspace instructions (`AGENTS.md`)\nAlways run `make test`.\n"),
        "{system}"
    );
    assert!(!system.contains("Ignored"), "{system}");

    // A file over the cap is cut, and the summary says so.
    let long = "Check twice. ".repeat(2_000);
    std::fs::write(h.workspace.join("AGENTS.md"), &long).unwrap();
    let info = ctx.summary().await.unwrap().instructions.unwrap();
    assert!(info.truncated);
    assert_eq!(info.file_bytes, long.len() as u64);
    assert_eq!(
        info.included_bytes,
        braid_context::instructions::MAX_INSTRUCTIONS_BYTES as u64
    );
}

#[tokio::test]
async fn anthropic_requests_mark_the_prompt_for_caching_and_cached_tokens_are_kept() {
    for provider in [braid_llm::Provider::Anthropic, braid_llm::Provider::OpenAi] {
        let answer = StreamReply::new()
            .text("Cached.")
            .cached_usage(1_200, 5, 1_000)
            .finish(braid_testkit::FinishKind::Stop);
        let h = Harness::with_provider(
            Script::new().then(answer),
            braid_context::EngineSettings::default(),
            provider,
        )
        .await;
        let ctx = h.context(ContextConfig::default()).await;
        ctx.send_message(text("hi")).await.unwrap();
        assert_eq!(settle(&ctx).await, ContextState::Idle);
        let body = h.mock.requests()[0].json().unwrap();
        if provider == braid_llm::Provider::Anthropic {
            let ephemeral = json!({"type": "ephemeral"});
            assert_eq!(body["system"][0]["cache_control"], ephemeral);
            assert!(
                body["system"][0]["text"]
                    .as_str()
                    .unwrap()
                    .contains("ACT mode")
            );
            let tools = body["tools"].as_array().unwrap();
            assert_eq!(tools.last().unwrap()["cache_control"], ephemeral);
            assert!(
                tools[..tools.len() - 1]
                    .iter()
                    .all(|t| t.get("cache_control").is_none())
            );
        }
        let answer = messages(&ctx).await.pop().unwrap();
        let usage = &answer.metadata["usage"];
        assert_eq!(usage["prompt_tokens"], 1_200, "{provider:?}: {usage}");
        assert_eq!(
            usage["cached_prompt_tokens"], 1_000,
            "{provider:?}: {usage}"
        );
    }
}

#[tokio::test]
async fn a_turn_is_stored_running_with_its_input_and_its_request_before_the_answer() {
    use braid_protocol::api::TurnStatus;
    // The model holds its answer back: everything below is stored before it comes.
    let slow = reply(&["late"]).head_delay(std::time::Duration::from_millis(1_500));
    let h = Harness::new(Script::new().then(slow)).await;
    let ctx = h.context(ContextConfig::default()).await;
    let sent = ctx.send_message(text("hello")).await.unwrap();
    // The 202 means the input is stored, and the turn's running record with it.
    let started = h.store.get_turn(ctx.id(), sent.turn_id).await.unwrap();
    let started = started.expect("no record of the turn once its send was answered");
    assert_eq!(started.status, TurnStatus::Running);
    assert_eq!(started.message_id, Some(sent.message_id));
    // The request's record rides with the pipeline's commit, while the request goes out.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    let records = loop {
        let records = h
            .store
            .model_requests(ctx.id(), None, None, 10)
            .await
            .unwrap();
        if !records.is_empty() {
            break records;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the request was never recorded"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    };
    assert_eq!(records.len(), 1);
    assert!(
        messages(&ctx)
            .await
            .iter()
            .all(|m| m.role != Role::Assistant),
        "the answer came before the records were checked; the test proves nothing"
    );
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let ended = h.store.get_turn(ctx.id(), sent.turn_id).await.unwrap();
        if ended
            .as_ref()
            .is_some_and(|t| t.status == TurnStatus::Completed)
        {
            assert_eq!(ended.unwrap().outcome, Some(TurnOutcome::Answered));
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the ended record was never stored"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn a_queued_sends_turn_is_not_stored_running_until_it_starts() {
    use braid_protocol::api::TurnStatus;
    let slow = reply(&["first"]).head_delay(std::time::Duration::from_millis(1_000));
    let h = Harness::new(Script::new().then(slow).then(reply(&["second"]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("one")).await.unwrap();
    let queued = ctx.send_message(text("two")).await.unwrap();
    assert!(
        queued.queued,
        "the second send should wait behind the first"
    );
    assert_eq!(
        h.store.get_turn(ctx.id(), queued.turn_id).await.unwrap(),
        None,
        "a queued turn has not started"
    );
    assert_eq!(
        ctx.turn(queued.turn_id).await.unwrap().status,
        TurnStatus::Queued
    );
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let stored = h.store.get_turn(ctx.id(), queued.turn_id).await.unwrap();
        if stored
            .as_ref()
            .is_some_and(|t| t.status == TurnStatus::Completed)
        {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the queued turn's record never ended: {stored:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}
