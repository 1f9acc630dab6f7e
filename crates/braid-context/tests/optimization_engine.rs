//! Optimization in the engine, against the mock LLM over HTTP: the summarization request, the
//! stored summary, the originals intact, the next request using it, a summary that does not fit,
//! a failed summarization, the `context_update` report and `view=optimized`.

use crate::common;

use braid_context::{ContextHandle, MessageQuery};
use braid_optimizer::summary::SUMMARY_PROMPT;
use braid_protocol::api::{MessageView, UpdateContextRequest};
use braid_protocol::*;
use braid_testkit::{ErrorReply, Script, ScriptedResponse, StreamReply};
use common::*;
use serde_json::{Value, json};

const RESERVE: u32 = 100;

/// The room the history gets beside the system prompt and tools.
const ROOM: u32 = 1_000;

/// A context whose window leaves `ROOM` tokens for the history, with `turns` long turns already
/// in it (each a ~300-token question and a short answer), sent under a large window.
async fn crowded(h: &Harness, turns: usize) -> ContextHandle {
    crowded_with(h, turns, OptimizationStrategy::Intelligent).await
}

async fn crowded_with(h: &Harness, turns: usize, strategy: OptimizationStrategy) -> ContextHandle {
    let ctx = h
        .context(ContextConfig {
            optimization: OptimizationConfig {
                strategy,
                reserve_output_tokens: RESERVE,
                margin_tokens: 0,
                ..OptimizationConfig::default()
            },
            ..ContextConfig::default()
        })
        .await;
    let fixed = ctx.summary().await.unwrap().token_budget.used;
    for i in 0..turns {
        ctx.send_message(text(&long(i))).await.unwrap();
        assert_eq!(settle(&ctx).await, ContextState::Idle);
    }
    ctx.update(UpdateContextRequest {
        title: None,
        config: Some(json!({ "context_window": fixed + RESERVE + ROOM })),
    })
    .await
    .unwrap();
    ctx
}

fn long(i: usize) -> String {
    format!("topic{i}: {}", "alpha ".repeat(300))
}

fn request_texts(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap_or_default().to_owned(),
                match &m["content"] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                },
            )
        })
        .collect()
}

fn script(turns: usize) -> Script {
    let mut s = Script::new();
    for i in 0..turns {
        s = s.then(reply(&[&format!("noted {i}")]));
    }
    s
}

/// The compaction records stored in the conversation, oldest first.
fn compactions(all: &[Message]) -> Vec<CompactionRecord> {
    all.iter()
        .filter_map(|m| match &m.kind {
            MessageKind::SystemControl(SystemControlMessage::Compaction { record }) => {
                Some((**record).clone())
            }
            _ => None,
        })
        .collect()
}

fn summary_of(m: &Message) -> Option<(&str, &[MessageId], u32, u32)> {
    match &m.kind {
        MessageKind::SystemControl(SystemControlMessage::Summary {
            text,
            replaces,
            tokens_before,
            tokens_after,
        }) => Some((text, replaces, *tokens_before, *tokens_after)),
        _ => None,
    }
}

async fn optimization_reports(
    h: &Harness,
    events: &mut tokio::sync::broadcast::Receiver<braid_context::events::LiveEvent>,
) -> Vec<Value> {
    // Subscribers receive events once committed: wait for the last batch.
    h.store.flush_events().await.unwrap();
    let mut out = Vec::new();
    while let Ok(e) = events.try_recv() {
        if let ContextEvent::ContextUpdate(u) = &e.event
            && let Some(o) = u.metadata.get("optimization")
        {
            out.push(o.clone());
        }
    }
    out
}

#[tokio::test]
async fn old_messages_are_summarized_stored_and_stand_in_for_the_originals() {
    let h = Harness::new(
        script(4)
            .then(
                StreamReply::new().text("SUMMARY: the person sent topic0 and topic1 about alpha."),
            )
            .then(reply(&["noted 4"]))
            .then(reply(&["noted 5"])),
    )
    .await;
    let ctx = crowded(&h, 4).await;
    let before = messages(&ctx).await;
    let mut events = ctx.subscribe();
    ctx.send_message(text(&long(4))).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);

    let requests = h.mock.requests();
    assert_eq!(requests.len(), 6, "four turns, the summary, the fifth turn");
    // The summarization request: its own prompt, not streamed, the oldest messages only.
    let summary_request = requests[4].json().unwrap();
    assert_ne!(summary_request["stream"], json!(true));
    // The summary's answer is capped like every other request's.
    assert!(
        summary_request["max_tokens"]
            .as_u64()
            .is_some_and(|n| n > 0)
    );
    let texts = request_texts(&summary_request);
    assert_eq!(texts[0], ("system".to_owned(), SUMMARY_PROMPT.to_owned()));
    assert!(texts[1].1.contains("topic0:") && texts[1].1.contains("topic1:"));
    assert!(texts[1].1.contains("noted 0"));
    assert!(!texts[1].1.contains("topic2:"));

    // The summary is stored after the new message, listing what it replaces; the originals
    // stay.
    let all = messages(&ctx).await;
    assert_eq!(
        all.len(),
        before.len() + 4,
        "question, summary, compaction record, answer"
    );
    let compaction = compactions(&all);
    assert_eq!(compaction.len(), 1, "one row says what left the request");
    assert!(!compaction[0].summarized.is_empty());
    assert_eq!(
        compaction[0].summary_id,
        all.iter().find(|m| summary_of(m).is_some()).map(|m| m.id)
    );
    for m in &before {
        assert!(all.iter().any(|a| a == m), "original {} intact", m.id);
    }
    let summary = all.iter().find(|m| summary_of(m).is_some()).unwrap();
    let (text_, replaces, tokens_before, tokens_after) = summary_of(summary).unwrap();
    assert_eq!(
        text_,
        "SUMMARY: the person sent topic0 and topic1 about alpha."
    );
    assert_eq!(replaces, &[before[0].id, before[1].id, before[2].id]);
    assert!(tokens_before > 600 && tokens_after > 0 && tokens_after < 50);
    assert_eq!(summary.role, Role::Assistant);

    // The turn's request has the summary in their place.
    let turn = request_texts(&requests[5].json().unwrap());
    let stand_in = turn
        .iter()
        .position(|(_, t)| t.starts_with("[Summary of 3 earlier messages"))
        .expect("summary in the request");
    assert!(turn[stand_in].1.contains("topic0 and topic1 about alpha"));
    assert_eq!(turn[stand_in].0, "user");
    assert!(
        !turn
            .iter()
            .any(|(_, t)| t.contains("topic0:") || t.contains("topic1:"))
    );
    assert!(turn.iter().any(|(_, t)| t.contains("topic4:")));

    // Reported: tokens before and after, the strategy, what was summarized.
    let reports = optimization_reports(&h, &mut events).await;
    assert_eq!(reports.len(), 1, "{reports:?}");
    let r = &reports[0];
    assert_eq!(r["strategy"], "intelligent");
    assert!(r["tokens_before"].as_u64().unwrap() > r["tokens_after"].as_u64().unwrap());
    assert!(r["tokens_after"].as_u64().unwrap() <= r["limit"].as_u64().unwrap());
    assert_eq!(r["summary_id"], json!(summary.id));
    assert_eq!(
        r["summarized"],
        json!([before[0].id, before[1].id, before[2].id])
    );

    // view=optimized lists what the model is sent, the summary as the marker.
    let optimized = ctx
        .messages(MessageQuery {
            view: MessageView::Optimized,
            limit: Some(1000),
            ..Default::default()
        })
        .await
        .unwrap()
        .messages;
    assert_eq!(optimized[0].id, summary.id);
    assert!(!optimized.iter().any(|m| replaces.contains(&m.id)));
    assert_eq!(optimized.len(), all.len() - 3);
    let budget = ctx.summary().await.unwrap().token_budget;
    assert!(budget.used <= budget.limit && budget.used > budget.limit / 2);

    // The next request uses the stored summary without asking for a new one.
    ctx.send_message(text("and now?")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let requests = h.mock.requests();
    assert_eq!(requests.len(), 7);
    let next = request_texts(&requests[6].json().unwrap());
    assert!(
        next.iter().any(|(_, t)| t.starts_with("[Summary of 3")),
        "{:?}",
        next.iter()
            .map(|(r, t)| (r, t.chars().take(40).collect::<String>()))
            .collect::<Vec<_>>()
    );
    assert!(!next.iter().any(|(_, t)| t.contains("topic0:")));
    assert!(next.iter().any(|(_, t)| t == "and now?"));
}

#[tokio::test]
async fn a_summary_that_does_not_fit_falls_back_to_dropping_the_oldest() {
    let h = Harness::new(
        script(4)
            .then(StreamReply::new().text("beta ".repeat(2_000)))
            .then(reply(&["noted 4"])),
    )
    .await;
    let ctx = crowded(&h, 4).await;
    let before = messages(&ctx).await;
    let mut events = ctx.subscribe();
    ctx.send_message(text(&long(4))).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);

    let all = messages(&ctx).await;
    assert!(
        all.iter().all(|m| summary_of(m).is_none()),
        "no summary stored"
    );
    assert_eq!(
        all.len(),
        before.len() + 3,
        "question, compaction record, answer"
    );
    let compaction = compactions(&all);
    assert!(compaction[0].summarized.is_empty() && !compaction[0].dropped.is_empty());
    assert!(
        compaction[0].fallback.is_some(),
        "it says why nothing was summarized"
    );
    let requests = h.mock.requests();
    assert_eq!(requests.len(), 6);
    let turn = request_texts(&requests[5].json().unwrap());
    assert!(
        !turn
            .iter()
            .any(|(_, t)| t.contains("[Summary") || t.contains("beta beta"))
    );
    assert!(!turn.iter().any(|(_, t)| t.contains("topic0:")));
    let reports = optimization_reports(&h, &mut events).await;
    assert_eq!(reports.len(), 1);
    assert!(
        reports[0]["fallback"]
            .as_str()
            .unwrap()
            .contains("did not fit"),
        "{:?}",
        reports[0]
    );
    assert_eq!(reports[0]["dropped_count"], 3);
    assert_eq!(
        compactions(&messages(&ctx).await)[0].dropped,
        [before[0].id, before[1].id, before[2].id]
    );
}

#[tokio::test]
async fn a_failed_summarization_drops_the_oldest_and_says_why() {
    let h = Harness::new(
        script(4)
            .then(ErrorReply::new(
                500,
                json!({"error": {"message": "summarizer down", "type": "server_error"}}),
            ))
            .then(reply(&["noted 4"])),
    )
    .await;
    let ctx = crowded(&h, 4).await;
    let mut events = ctx.subscribe();
    ctx.send_message(text(&long(4))).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let reports = optimization_reports(&h, &mut events).await;
    assert_eq!(reports.len(), 1);
    let fallback = reports[0]["fallback"].as_str().unwrap();
    assert!(
        fallback.contains("summarization request failed"),
        "{fallback}"
    );
    assert!(fallback.contains("dropped instead"), "{fallback}");
    let last = messages(&ctx).await.pop().unwrap();
    assert_eq!(last.role, Role::Assistant);
}

#[tokio::test]
async fn recent_n_drops_without_asking_the_model_and_the_view_shows_what_is_sent() {
    let h = Harness::new(script(5)).await;
    let ctx = crowded_with(&h, 4, OptimizationStrategy::RecentN { n: 3 }).await;
    let before = messages(&ctx).await;
    let mut events = ctx.subscribe();
    ctx.send_message(text(&long(4))).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let requests = h.mock.requests();
    assert_eq!(requests.len(), 5, "no summarization request");
    let turn = request_texts(&requests[4].json().unwrap());
    let sent: Vec<&str> = turn[1..].iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert!(
        sent[0].starts_with("topic3:") && sent[1] == "noted 3" && sent[2].starts_with("topic4:")
    );
    let reports = optimization_reports(&h, &mut events).await;
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0]["strategy"], "recent_n");
    assert_eq!(reports[0]["dropped_count"], 6);
    // The stored history is untouched but for the compaction's row; the view lists what the
    // next request would send.
    let all = messages(&ctx).await;
    assert_eq!(all.len(), before.len() + 3);
    assert_eq!(
        compactions(&all)[0].dropped,
        before[..6].iter().map(|m| m.id).collect::<Vec<_>>()
    );
    // The report counts them; the request's record, which it names, lists them.
    assert_eq!(
        reports[0]["request_id"],
        json!(compactions(&all)[0].request_id)
    );
    let optimized = ctx
        .messages(MessageQuery {
            view: MessageView::Optimized,
            limit: Some(1000),
            ..Default::default()
        })
        .await
        .unwrap()
        .messages;
    let sent: Vec<MessageId> = all
        .iter()
        .filter(|m| m.kind_name().is_sent_to_model())
        .map(|m| m.id)
        .collect();
    assert_eq!(
        optimized
            .iter()
            .filter(|m| m.kind_name().is_sent_to_model())
            .map(|m| m.id)
            .collect::<Vec<_>>(),
        sent[sent.len() - 3..]
    );
    // The view marks where the compaction happened, as it marks a summary.
    assert!(
        optimized
            .iter()
            .filter(|m| !m.kind_name().is_sent_to_model())
            .all(|m| matches!(
                m.kind,
                MessageKind::SystemControl(SystemControlMessage::Compaction { .. })
            ))
    );
}

/// A context in act mode with every built-in tool (and the harness's few) whose window is
/// `window` tokens, with the default reserve and margin.
async fn small_window(h: &Harness, window: u32) -> ContextHandle {
    h.context(ContextConfig {
        mode: Mode::Act,
        approval_policy: ApprovalPolicy::AutoAll,
        context_window: Some(window),
        ..ContextConfig::default()
    })
    .await
}

#[tokio::test]
async fn a_4096_token_window_completes_a_tool_loop_with_the_builtin_tools() {
    let h = Harness::new(
        Script::new()
            .then(calls(&[(
                "c1",
                "read_file",
                json!({"path": "src/lib.rs", "start_line": 1, "end_line": 5}),
            )]))
            .then(reply(&["The file counts lines."])),
    )
    .await;
    let ctx = small_window(&h, 4_096).await;
    ctx.send_message(text("What is in src/lib.rs?"))
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);

    let requests = h.mock.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        let body = request.json().unwrap();
        let tools: Vec<&str> = body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert!(
            tools.contains(&"read_file") && tools.contains(&"run_command"),
            "{tools:?}"
        );
        // The answer's reserve is at most a quarter of the window, and the cap follows it.
        assert_eq!(body["max_tokens"], 1_024);
    }
    let second = requests[1].json().unwrap();
    assert!(
        second.to_string().contains("line 3"),
        "the tool result is sent back"
    );
    let last = messages(&ctx).await.pop().unwrap();
    assert!(
        matches!(&last.kind, MessageKind::Text(t) if t.text() == "The file counts lines."),
        "{last:?}"
    );
}

#[tokio::test]
async fn a_window_too_small_for_the_tool_definitions_is_sent_without_them_and_says_so() {
    let h = Harness::new(Script::new().then(reply(&["Answered without tools."]))).await;
    // 2,048 tokens leave 1,280 for the prompt: the system prompt fits, the tools do not.
    let ctx = small_window(&h, 2_048).await;
    let mut events = ctx.subscribe();
    ctx.send_message(text("Hello")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);

    let body = h.mock.requests()[0].json().unwrap();
    assert!(
        body.get("tools")
            .is_none_or(|t| t.as_array().is_some_and(|a| a.is_empty())),
        "{}",
        body["tools"]
    );
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("offers no tools"), "{system}");
    let reports = optimization_reports(&h, &mut events).await;
    let withheld = reports
        .iter()
        .find_map(|r| r.get("tools_withheld"))
        .expect("the context_update reports the withheld tools");
    assert!(withheld["tools"].as_u64().unwrap() >= 14, "{withheld}");
    assert_eq!(withheld["limit"], 2_048 - 512 - 256);
    assert!(withheld["needed"].as_u64().unwrap() > 1_280, "{withheld}");
    // The budget the person sees counts the request as it is sent.
    let budget = ctx.summary().await.unwrap().token_budget;
    assert!(budget.used <= budget.limit, "{budget:?}");
}

#[tokio::test]
async fn a_window_too_small_even_without_tools_refuses_the_send_with_the_figures() {
    let h = Harness::new(Script::new()).await;
    let ctx = small_window(&h, 400).await;
    ctx.send_message(text("Hello")).await.unwrap();
    let ContextState::Failed { error, .. } = settle(&ctx).await else {
        panic!("the send should fail")
    };
    assert!(
        error.contains("the system prompt and tool definitions need"),
        "{error}"
    );
    assert!(h.mock.requests().is_empty());
}

/// What the reads that reuse kept plans answer: the summary's budget and, per branch, the
/// optimized view's ids and markers.
async fn cached_reads(
    ctx: &ContextHandle,
) -> (
    api::TokenBudget,
    Vec<(BranchName, Vec<MessageId>, Vec<api::ViewMarker>)>,
) {
    let summary = ctx.summary().await.unwrap();
    let mut views = Vec::new();
    for branch in summary.branches {
        let list = ctx
            .messages(MessageQuery {
                branch: Some(branch.clone()),
                view: MessageView::Optimized,
                limit: Some(1000),
                ..Default::default()
            })
            .await
            .unwrap();
        views.push((
            branch,
            list.messages.iter().map(|m| m.id).collect(),
            list.markers,
        ));
    }
    (summary.token_budget, views)
}

/// Reads `ctx` twice (the second from its kept plans), then loads it afresh in another
/// registry (nothing kept) and checks both answer the same; goes on with the fresh one.
async fn same_as_fresh(
    h: &Harness,
    keep: &mut Vec<std::sync::Arc<braid_context::ContextRegistry>>,
    ctx: ContextHandle,
) -> ContextHandle {
    let live = cached_reads(&ctx).await;
    assert_eq!(
        cached_reads(&ctx).await,
        live,
        "a kept plan answers as it was made"
    );
    let id = ctx.id();
    ctx.shutdown().await;
    let registry = h.restart();
    let fresh = registry.get(id).await.unwrap();
    keep.push(registry);
    assert_eq!(
        cached_reads(&fresh).await,
        live,
        "kept plans equal a fresh computation"
    );
    fresh
}

#[tokio::test]
async fn kept_budgets_and_views_equal_a_fresh_computation_after_every_change() {
    let h = Harness::new(
        script(4)
            .then(StreamReply::new().text("SUMMARY: topic0 and topic1 about alpha."))
            .then(reply(&["noted 4"]))
            .then(reply(&["noted 5"])),
    )
    .await;
    let mut keep = Vec::new();
    // Made under a large window, then edited to a small one.
    let ctx = crowded(&h, 4).await;
    let ctx = same_as_fresh(&h, &mut keep, ctx).await;
    // A turn that summarizes the oldest messages.
    ctx.send_message(text(&long(4))).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert!(messages(&ctx).await.iter().any(|m| summary_of(m).is_some()));
    let ctx = same_as_fresh(&h, &mut keep, ctx).await;
    // An appended exchange.
    ctx.send_message(text("and now?")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let ctx = same_as_fresh(&h, &mut keep, ctx).await;
    // A branch from before the last question, made active.
    let all = messages(&ctx).await;
    let question = all.iter().rev().find(|m| m.role == Role::User).unwrap();
    ctx.create_branch(api::CreateBranchRequest {
        name: BranchName::from("alt"),
        from_branch: None,
        from_message: None,
        before_message: Some(question.id),
        system_prompt: None,
        pipeline: None,
    })
    .await
    .unwrap();
    ctx.switch_branch(BranchName::from("alt")).await.unwrap();
    let ctx = same_as_fresh(&h, &mut keep, ctx).await;
    // An edited configuration: a larger window sends everything again.
    ctx.update(UpdateContextRequest {
        title: None,
        config: Some(json!({ "context_window": 100_000 })),
    })
    .await
    .unwrap();
    let ctx = same_as_fresh(&h, &mut keep, ctx).await;
    // Nothing is dropped any more; the stored summary still stands in for what it replaced.
    let (_, views) = cached_reads(&ctx).await;
    for (_, _, markers) in &views {
        assert!(
            markers
                .iter()
                .all(|m| m.kind == api::ViewMarkerKind::Summarized),
            "{markers:?}"
        );
    }
}

#[tokio::test]
async fn the_optimized_view_marks_dropped_messages_with_their_count_and_tokens() {
    let h = Harness::new(script(4)).await;
    let ctx = crowded_with(&h, 4, OptimizationStrategy::RecentN { n: 3 }).await;
    let all = messages(&ctx).await;
    assert_eq!(all.len(), 8);
    let page = |after: Option<MessageId>| {
        let ctx = ctx.clone();
        async move {
            ctx.messages(MessageQuery {
                view: MessageView::Optimized,
                after,
                limit: Some(1),
                ..Default::default()
            })
            .await
            .unwrap()
        }
    };
    // The first page holds the first message sent, and the marker of the five before it.
    let first = page(None).await;
    assert_eq!(first.messages[0].id, all[5].id);
    assert_eq!(first.markers.len(), 1, "{:?}", first.markers);
    let marker = &first.markers[0];
    assert_eq!(marker.kind, api::ViewMarkerKind::Dropped);
    assert_eq!(marker.count, 5);
    assert_eq!((marker.first, marker.last), (all[0].id, all[4].id));
    assert_eq!(marker.before, Some(all[5].id));
    assert_eq!(marker.summary, None);
    let counter = braid_optimizer::TokenCounter::for_model("mock-model");
    let dropped: u32 = all[..5].iter().map(|m| counter.message(m)).sum();
    assert_eq!(marker.tokens, dropped);
    // Later pages carry no marker; the full view never does.
    let second = page(first.next_after).await;
    assert_eq!(second.messages[0].id, all[6].id);
    assert!(second.markers.is_empty());
    let full = ctx
        .messages(MessageQuery {
            limit: Some(1000),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(full.messages.len(), 8);
    assert!(full.markers.is_empty());
}

#[tokio::test]
async fn a_summarized_run_is_marked_before_its_summary_with_the_tokens_it_replaced() {
    let h = Harness::new(
        script(4)
            .then(StreamReply::new().text("SUMMARY: topic0 and topic1 about alpha."))
            .then(reply(&["noted 4"])),
    )
    .await;
    let ctx = crowded(&h, 4).await;
    ctx.send_message(text(&long(4))).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let all = messages(&ctx).await;
    let summary = all.iter().find(|m| summary_of(m).is_some()).unwrap();
    let (_, replaces, tokens_before, _) = summary_of(summary).unwrap();
    let list = ctx
        .messages(MessageQuery {
            view: MessageView::Optimized,
            limit: Some(1000),
            ..Default::default()
        })
        .await
        .unwrap();
    let marker = list
        .markers
        .iter()
        .find(|m| m.kind == api::ViewMarkerKind::Summarized)
        .unwrap_or_else(|| panic!("{:?}", list.markers));
    assert_eq!(marker.summary, Some(summary.id));
    assert_eq!(marker.before, Some(summary.id));
    assert_eq!(marker.count as usize, replaces.len());
    assert_eq!(
        (marker.first, marker.last),
        (replaces[0], *replaces.last().unwrap())
    );
    assert_eq!(marker.tokens, tokens_before);
}

/// Waits (polling the actor) until the context is in `kind`.
async fn reach(ctx: &ContextHandle, kind: StateKind) {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    while ctx.state(false).await.unwrap().state.kind() != kind {
        assert!(
            tokio::time::Instant::now() < deadline,
            "never reached {kind:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// A command must be answered while the step runs: the step here never ends on its own, so a
/// command that waited for it would wait out this bound.
async fn answered<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(std::time::Duration::from_secs(5), f)
        .await
        .unwrap_or_else(|_| panic!("{what} was not answered while the pipeline step ran"))
}

#[tokio::test]
async fn an_interrupt_is_answered_while_a_summarization_runs_and_the_input_can_be_retried() {
    // The summarization request never gets an answer: only the interrupt can end the step.
    let h = Harness::new(
        script(4)
            .then(ScriptedResponse::Hang)
            .then(StreamReply::new().text("SUMMARY: topics 0 and 1, about alpha."))
            .then(reply(&["noted 4"]))
            .then(reply(&["noted 5"])),
    )
    .await;
    let ctx = crowded(&h, 4).await;
    let sent = ctx.send_message(text(&long(4))).await.unwrap();
    reach(&ctx, StateKind::OptimizingContext).await;
    // The state changes before the step sends its request: an interrupt before it is out would
    // leave the hanging answer to the retry.
    assert!(
        h.mock
            .wait_for_requests(5, std::time::Duration::from_secs(20))
            .await,
        "the summarization request never went out"
    );
    assert_eq!(h.mock.request_count(), 5, "only the summarization is out");

    let summary = answered("a summary read", ctx.summary()).await.unwrap();
    assert_eq!(summary.state, ContextState::OptimizingContext);
    answered("an interrupt", ctx.interrupt()).await.unwrap();

    // The stopped input says why and can be retried.
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let all = messages(&ctx).await;
    let stopped = all.iter().find(|m| m.id == sent.message_id).unwrap();
    assert_eq!(stopped.status, MessageStatus::Failed);
    let error = stopped.error.as_ref().unwrap();
    assert_eq!(error.code.as_deref(), Some("interrupted"));
    assert!(
        error.message.contains("optimize_context"),
        "{}",
        error.message
    );
    assert!(
        all.iter().all(|m| summary_of(m).is_none()),
        "nothing the step did is kept"
    );

    ctx.retry_message(sent.message_id).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let retried = messages(&ctx).await;
    let input = retried.iter().find(|m| m.id == sent.message_id).unwrap();
    assert_eq!(input.status, MessageStatus::Complete);
    assert!(
        retried.iter().any(|m| summary_of(m).is_some()),
        "summarized on the retry"
    );
}

#[tokio::test]
async fn a_send_during_a_slow_summarization_is_queued_and_runs_after_it() {
    let slow_summary = StreamReply::new()
        .delay(std::time::Duration::from_millis(1500))
        .text("SUMMARY: topics 0 and 1, about alpha.");
    let h = Harness::new(
        script(4)
            .then(slow_summary)
            .then(reply(&["noted 4"]))
            .then(reply(&["noted 5"])),
    )
    .await;
    let ctx = crowded(&h, 4).await;
    let first = ctx.send_message(text(&long(4))).await.unwrap();
    reach(&ctx, StateKind::OptimizingContext).await;
    let state = answered("a state read", ctx.state(true)).await.unwrap();
    assert_eq!(state.state, ContextState::OptimizingContext);
    let second = answered("a send", ctx.send_message(text("and another")))
        .await
        .unwrap();
    assert!(second.queued, "a send during the step waits its turn");
    assert!(!first.queued);

    assert_eq!(settle(&ctx).await, ContextState::Idle);
    // The queued send is taken once the first turn rests.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let all = messages(&ctx).await;
        if all
            .last()
            .is_some_and(|m| m.role == Role::Assistant && m.to_json().contains("noted 5"))
        {
            let ids: Vec<MessageId> = all.iter().map(|m| m.id).collect();
            let at = |id| ids.iter().position(|m| *m == id).unwrap();
            assert!(at(first.message_id) < at(second.message_id));
            assert!(all.iter().any(|m| summary_of(m).is_some()));
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the queued send never ran"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}
