//! The optimizer on crafted histories: token counts against tiktoken, each strategy's
//! selections, summaries standing in, truncation of an oversized newest message, calibration.

use std::collections::BTreeMap;

use braid_llm::ToolDefinition;
use braid_optimizer::selection::{KEEP_RECENT_MESSAGES, RECENT_USE_MESSAGES};
use braid_optimizer::summary::summary_message;
use braid_optimizer::tokens::{CALL_OVERHEAD, MESSAGE_OVERHEAD, REPLY_PRIMING};
use braid_optimizer::{Budget, Encoding, PlanError, RequestParts, Slot, TokenCounter, plan};
use braid_protocol::*;
use serde_json::json;

fn corpus() -> Vec<String> {
    vec![
        "Hello, world!".to_owned(),
        "The quick brown fox jumps over the lazy dog. ".repeat(20),
        "fn main() {\n    let v: Vec<u32> = (0..10).map(|x| x * x).collect();\n    println!(\"{v:?}\");\n}\n".to_owned(),
        "SELECT id, name FROM users WHERE created_at > NOW() - INTERVAL '7 days' ORDER BY name;".to_owned(),
        "{\"path\": \"src/lib.rs\", \"range\": {\"start_line\": 1, \"end_line\": 20}}".to_owned(),
        "Grüße aus München! Ça va? Ñandú, smørrebrød, Łódź.".to_owned(),
        "日本語のテキストとトークン化のテスト。中文文本也在这里。".to_owned(),
        "Привет, мир! Это проверка подсчёта токенов.".to_owned(),
        "emoji: 🚀🔥👩‍💻 and math: ∑ x² ≤ ∞".to_owned(),
        "    indented\n\ttabs\r\nwindows lines\n\n\n".to_owned(),
        "<|endoftext|> looks special but is counted as text".to_owned(),
        "a".repeat(5000),
    ]
}

#[test]
fn text_counts_equal_tiktoken_for_a_varied_corpus() {
    let o200k = tiktoken_rs::o200k_base().unwrap();
    let cl100k = tiktoken_rs::cl100k_base().unwrap();
    for text in corpus() {
        assert_eq!(
            Encoding::O200kBase.count(&text) as usize,
            o200k.encode_ordinary(&text).len(),
            "o200k: {text:?}"
        );
        assert_eq!(
            Encoding::Cl100kBase.count(&text) as usize,
            cl100k.encode_ordinary(&text).len(),
            "cl100k: {text:?}"
        );
    }
}

#[test]
fn message_counts_are_tiktoken_of_what_the_provider_receives_plus_overhead() {
    let o200k = tiktoken_rs::o200k_base().unwrap();
    let tokens = |s: &str| o200k.encode_ordinary(s).len() as u32;
    let counter = TokenCounter::for_model("gpt-4o");
    for text in corpus() {
        let m = Message::user_text(text.clone());
        assert_eq!(counter.message(&m), MESSAGE_OVERHEAD + tokens(&text));
    }
    let args = json!({"path": "src/lib.rs", "pattern": "fn ünïcode"});
    let request = Message::new(
        Role::Assistant,
        MessageKind::ToolRequest(ToolRequestMessage {
            calls: vec![ToolCall::new("call_1", "search_files", args.clone())],
        }),
    );
    assert_eq!(
        counter.message(&request),
        MESSAGE_OVERHEAD + CALL_OVERHEAD + tokens("search_files") + tokens(&args.to_string())
    );
    let result = tool_result(
        "call_1",
        "search_files",
        json!("src/lib.rs:3: fn ünïcode()"),
    );
    assert_eq!(
        counter.message(&result),
        MESSAGE_OVERHEAD + tokens("src/lib.rs:3: fn ünïcode()")
    );
    // A structured output is sent as its JSON.
    let output = json!({"matches": [{"line": 3}]});
    let result = tool_result("call_2", "search_files", output.clone());
    assert_eq!(
        counter.message(&result),
        MESSAGE_OVERHEAD + tokens(&output.to_string())
    );
    // Never-sent kinds cost nothing.
    let notice = Message::new(
        Role::User,
        MessageKind::SystemControl(SystemControlMessage::ModeChange {
            from: Mode::Plan,
            to: Mode::Act,
        }),
    );
    assert_eq!(counter.message(&notice), 0);
    // The system prompt and the tool definitions are counted too.
    assert_eq!(
        counter.system_prompt(Some("You are Braid.")),
        MESSAGE_OVERHEAD + tokens("You are Braid.")
    );
    let tool = ToolDefinition {
        name: "read_file".into(),
        description: "Reads a file.".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    };
    let json =
        json!({"name": tool.name, "description": tool.description, "parameters": tool.parameters});
    assert_eq!(
        counter.tools(std::slice::from_ref(&tool)),
        CALL_OVERHEAD + tokens(&json.to_string())
    );
}

#[test]
fn claude_is_counted_with_cl100k_as_a_documented_approximation() {
    let counter = TokenCounter::for_model("claude-sonnet-4-20250514");
    assert_eq!(counter.encoding(), Encoding::Cl100kBase);
    assert_eq!(counter.exactness(), braid_optimizer::Exactness::Approximate);
}

fn tool_result(call: &str, tool: &str, output: serde_json::Value) -> Message {
    Message::new(
        Role::Tool,
        MessageKind::ToolResult(Box::new(ToolResultMessage {
            call_id: call.into(),
            tool_name: tool.into(),
            outcome: ToolOutcome::Success { output },
            duration_ms: 1,
            started_at: None,
            completed_at: None,
        })),
    )
}

fn tool_call(call: &str, tool: &str) -> Message {
    Message::new(
        Role::Assistant,
        MessageKind::ToolRequest(ToolRequestMessage {
            calls: vec![ToolCall::new(call, tool, json!({"q": call}))],
        }),
    )
}

/// A text of about `words` tokens.
fn words(tag: &str, words: usize) -> String {
    format!("{tag}: {}", "alpha ".repeat(words))
}

fn user(tag: &str, n: usize) -> Message {
    Message::user_text(words(tag, n))
}

fn assistant(tag: &str, n: usize) -> Message {
    Message::assistant_text(words(tag, n))
}

fn file_ref(path: &str, lines: usize) -> Message {
    Message::new(
        Role::User,
        MessageKind::FileReference(Box::new(FileReferenceMessage {
            path: path.into(),
            range: None,
            display_text: None,
            resolution: FileResolution::Resolved {
                content: (1..=lines)
                    .map(|i| format!("{i}: let value_{i} = compute({i});\n"))
                    .collect(),
                total_lines: lines as u32,
                size_bytes: 100,
                resolved_at: chrono::Utc::now(),
            },
        })),
    )
}

fn budget(window: u32) -> Budget {
    Budget {
        window,
        reserve_output: 0,
        margin: 0,
    }
}

fn parts(messages: &[Message]) -> RequestParts<'_> {
    RequestParts {
        system_prompt: None,
        tool_tokens: 0,
        reserved_tokens: 0,
        messages,
    }
}

fn counter() -> TokenCounter {
    TokenCounter::for_model("gpt-4o")
}

fn total(messages: &[Message]) -> u32 {
    REPLY_PRIMING + messages.iter().map(|m| counter().message(m)).sum::<u32>()
}

fn kept_ids(plan: &braid_optimizer::Plan, input: &[Message]) -> Vec<MessageId> {
    plan.shown(input).iter().map(|m| m.id).collect()
}

#[test]
fn a_request_under_budget_is_sent_whole() {
    let history = vec![user("a", 10), assistant("b", 10)];
    let p = plan(
        &parts(&history),
        &OptimizationStrategy::Intelligent,
        budget(10_000),
        &counter(),
    )
    .unwrap();
    assert!(!p.optimized());
    assert_eq!(
        kept_ids(&p, &history),
        history.iter().map(|m| m.id).collect::<Vec<_>>()
    );
    assert_eq!(p.tokens_before, total(&history));
    assert_eq!(p.tokens_after, p.tokens_before);
}

#[test]
fn recent_n_keeps_the_newest_n_and_drops_the_rest() {
    let history: Vec<Message> = (0..10).map(|i| user(&format!("m{i}"), 100)).collect();
    let p = plan(
        &parts(&history),
        &OptimizationStrategy::RecentN { n: 3 },
        budget(total(&history) - 1),
        &counter(),
    )
    .unwrap();
    assert_eq!(
        kept_ids(&p, &history),
        history[7..].iter().map(|m| m.id).collect::<Vec<_>>()
    );
    assert_eq!(
        p.dropped,
        history[..7].iter().map(|m| m.id).collect::<Vec<_>>()
    );
    assert_eq!(p.tokens_after, total(&history[7..]));
}

#[test]
fn recent_n_never_splits_a_tool_pair() {
    let history = vec![
        user("old", 100),
        tool_call("c1", "read_file"),
        tool_result("c1", "read_file", json!("contents ".repeat(50))),
        user("newest", 10),
    ];
    // n = 2 reaches the result; its request comes with it.
    let p = plan(
        &parts(&history),
        &OptimizationStrategy::RecentN { n: 2 },
        budget(total(&history) - 1),
        &counter(),
    )
    .unwrap();
    assert_eq!(
        kept_ids(&p, &history),
        history[1..].iter().map(|m| m.id).collect::<Vec<_>>()
    );
    // A budget too small for the pair drops both, never one.
    let p = plan(
        &parts(&history),
        &OptimizationStrategy::RecentN { n: 2 },
        budget(total(&history[3..]) + 5),
        &counter(),
    )
    .unwrap();
    assert_eq!(kept_ids(&p, &history), vec![history[3].id]);
}

/// Old file references, old text, old tool exchanges (enough that the files are no longer
/// among the newest messages), then the newest messages, one of which mentions `src/used.rs`.
fn intelligent_history() -> Vec<Message> {
    let mut h = vec![
        file_ref("src/used.rs", 20),
        file_ref("src/unused.rs", 20),
        user("old question", 150),
        assistant("old answer", 150),
        tool_call("c1", "read_file"),
        tool_result("c1", "read_file", json!("output ".repeat(100))),
    ];
    for i in 0..RECENT_USE_MESSAGES / 2 {
        let id = format!("filler{i}");
        h.push(tool_call(&id, "list_files"));
        h.push(tool_result(&id, "list_files", json!("a.rs b.rs")));
    }
    for i in 0..KEEP_RECENT_MESSAGES {
        h.push(if i % 2 == 0 {
            assistant(&format!("recent {i}"), 20)
        } else {
            user(&format!("recent {i} about src/used.rs"), 20)
        });
    }
    h
}

#[test]
fn intelligent_drops_old_text_first_and_keeps_pairs_and_used_files() {
    let history = intelligent_history();
    let all = total(&history);
    let text = counter().message(&history[2]) + counter().message(&history[3]);
    let p = plan(
        &parts(&history),
        &OptimizationStrategy::Intelligent,
        budget(all - text + 1),
        &counter(),
    )
    .unwrap();
    assert_eq!(p.dropped, vec![history[2].id, history[3].id]);
    assert_eq!(p.summarizable.len(), 2, "both old texts may be summarized");
    assert!(kept_ids(&p, &history).contains(&history[1].id));
    // Tighter: the unused file goes next, then (when eliding its output is not enough) the old
    // tool exchange (both parts), while the
    // recently mentioned file stays.
    let unused = counter().message(&history[1]);
    let p = plan(
        &parts(&history),
        &OptimizationStrategy::Intelligent,
        budget(all - text - unused + 1),
        &counter(),
    )
    .unwrap();
    assert_eq!(p.dropped, vec![history[1].id, history[2].id, history[3].id]);
    let pair = counter().message(&history[4]) + counter().message(&history[5]);
    let p = plan(
        &parts(&history),
        &OptimizationStrategy::Intelligent,
        budget(all - text - unused - pair + 1),
        &counter(),
    )
    .unwrap();
    assert_eq!(
        p.dropped,
        vec![
            history[1].id,
            history[2].id,
            history[3].id,
            history[4].id,
            history[5].id
        ]
    );
    let kept = kept_ids(&p, &history);
    assert!(kept.contains(&history[0].id), "the used file is kept");
    assert!(!kept.contains(&history[4].id) && !kept.contains(&history[5].id));
    // The newest messages are all kept.
    for m in &history[history.len() - KEEP_RECENT_MESSAGES..] {
        assert!(kept.contains(&m.id));
    }
}

#[test]
fn intelligent_elides_old_outputs_before_it_drops_a_tool_exchange() {
    let history = intelligent_history();
    let all = total(&history);
    let text = counter().message(&history[2]) + counter().message(&history[3]);
    let unused = counter().message(&history[1]);
    // Just over what dropping the old text and the unused file leaves: the old exchange stays,
    // its call and status whole, its output elided with a note.
    let p = plan(
        &parts(&history),
        &OptimizationStrategy::Intelligent,
        budget(all - text - unused - 20),
        &counter(),
    )
    .unwrap();
    assert_eq!(p.dropped, vec![history[1].id, history[2].id, history[3].id]);
    assert_eq!(p.elided.len(), 1);
    assert_eq!(p.elided[0].0, history[5].id);
    let sent = p.request_messages(&history);
    assert!(sent.iter().any(|m| m.id == history[4].id), "the call stays");
    let result = sent.iter().find(|m| m.id == history[5].id).unwrap();
    match &result.kind {
        MessageKind::ToolResult(r) => {
            assert!(r.outcome.is_success(), "its status stays");
            assert_eq!(
                r.outcome,
                ToolOutcome::Success {
                    output: json!(braid_optimizer::selection::ELIDED_OUTPUT)
                }
            );
        }
        other => panic!("not a result: {other:?}"),
    }
    assert!(p.tokens_after <= all - text - unused - 20);
}

#[test]
fn a_pinned_message_is_never_dropped_by_any_strategy() {
    let mut history: Vec<Message> = (0..10).map(|i| user(&format!("m{i}"), 100)).collect();
    history[0].set_pinned(true);
    let strategies = [
        OptimizationStrategy::RecentN { n: 2 },
        OptimizationStrategy::Intelligent,
        OptimizationStrategy::ImportanceScoring {
            weights: BTreeMap::new(),
        },
    ];
    for strategy in strategies {
        let p = plan(
            &parts(&history),
            &strategy,
            budget(total(&history[7..]) + counter().message(&history[0])),
            &counter(),
        )
        .unwrap();
        let kept = kept_ids(&p, &history);
        assert!(
            kept.contains(&history[0].id),
            "{strategy:?}: the pin is kept"
        );
        assert!(!p.dropped.contains(&history[0].id));
        assert!(p.summarizable.iter().all(|u| !u.messages.contains(&0)));
        assert!(p.tokens_after <= total(&history[7..]) + counter().message(&history[0]));
    }
    // Unpinned, it is the first to go.
    history[0].set_pinned(false);
    let p = plan(
        &parts(&history),
        &OptimizationStrategy::RecentN { n: 2 },
        budget(total(&history[7..]) + counter().message(&history[0])),
        &counter(),
    )
    .unwrap();
    assert!(p.dropped.contains(&history[0].id));
}

#[test]
fn a_message_pinned_after_it_was_summarized_is_sent_whole_again() {
    let mut history: Vec<Message> = (0..4).map(|i| user(&format!("m{i}"), 50)).collect();
    let summary = summary_message(
        "what m0 and m1 said".to_owned(),
        vec![history[0].id, history[1].id],
        100,
        10,
    );
    history.push(summary);
    history[1].set_pinned(true);
    let p = plan(
        &parts(&history),
        &OptimizationStrategy::Intelligent,
        budget(100_000),
        &counter(),
    )
    .unwrap();
    let shown = kept_ids(&p, &history);
    assert!(shown.contains(&history[1].id));
    assert!(!shown.contains(&history[0].id));
    assert!(
        shown.contains(&history[4].id),
        "the summary stands in for m0"
    );
}

#[test]
fn the_same_history_gives_the_same_selection() {
    let history = intelligent_history();
    let b = budget(total(&history) / 2);
    for strategy in [
        OptimizationStrategy::Intelligent,
        OptimizationStrategy::RecentN { n: 4 },
        OptimizationStrategy::ImportanceScoring {
            weights: BTreeMap::new(),
        },
    ] {
        let a = plan(&parts(&history), &strategy, b, &counter()).unwrap();
        let c = plan(&parts(&history), &strategy, b, &counter()).unwrap();
        assert_eq!(a.slots, c.slots, "{strategy:?}");
        assert_eq!(a.dropped, c.dropped, "{strategy:?}");
        assert!(a.tokens_after <= b.limit(), "{strategy:?}");
    }
}

#[test]
fn importance_scoring_follows_its_weights() {
    let history = vec![
        tool_call("c1", "read_file"),
        tool_result("c1", "read_file", json!("x ".repeat(50))),
        user("middle", 50),
        user("newest", 10),
    ];
    // Room for the newest message and one of the two older units.
    let room = total(&history) - counter().message(&history[2]);
    let kind_first = OptimizationStrategy::ImportanceScoring {
        weights: BTreeMap::from([("kind".to_owned(), 10.0), ("recency".to_owned(), 0.0)]),
    };
    let p = plan(&parts(&history), &kind_first, budget(room), &counter()).unwrap();
    assert_eq!(
        kept_ids(&p, &history),
        vec![history[0].id, history[1].id, history[3].id]
    );
    let recency_first = OptimizationStrategy::ImportanceScoring {
        weights: BTreeMap::from([("kind".to_owned(), 0.0), ("recency".to_owned(), 10.0)]),
    };
    let room =
        total(&history) - counter().message(&history[0]) - counter().message(&history[1]) + 2;
    let p = plan(&parts(&history), &recency_first, budget(room), &counter()).unwrap();
    assert_eq!(kept_ids(&p, &history), vec![history[2].id, history[3].id]);
}

#[test]
fn an_oversized_newest_message_is_cut_with_a_note() {
    let history = vec![user("old", 100), user("huge", 20_000)];
    let b = budget(1_000);
    for strategy in [
        OptimizationStrategy::Intelligent,
        OptimizationStrategy::RecentN { n: 1 },
        OptimizationStrategy::ImportanceScoring {
            weights: BTreeMap::new(),
        },
    ] {
        let p = plan(&parts(&history), &strategy, b, &counter()).unwrap();
        assert_eq!(p.dropped, vec![history[0].id], "{strategy:?}");
        assert_eq!(p.truncated.len(), 1);
        assert!(p.tokens_after <= b.limit(), "{} > 1000", p.tokens_after);
        assert!(p.tokens_after > 900, "most of the room is used");
        let sent = p.request_messages(&history);
        let MessageKind::Text(t) = &sent[0].kind else {
            panic!()
        };
        assert!(t.text().starts_with("huge: alpha alpha"));
        assert!(t.text().contains("tokens of this message were cut to fit"));
        assert!(matches!(p.slots[0], Slot::Truncated(1, _)));
    }
}

#[test]
fn an_oversized_message_that_cannot_be_cut_is_a_clear_error() {
    let history = vec![file_ref("src/big.rs", 2_000)];
    let err = plan(
        &parts(&history),
        &OptimizationStrategy::Intelligent,
        budget(500),
        &counter(),
    )
    .unwrap_err();
    assert!(matches!(err, PlanError::NewestTooLarge { limit: 500, .. }));
    assert!(err.to_string().contains("newest message"));
}

#[test]
fn a_system_prompt_over_the_budget_is_a_clear_error() {
    let prompt = "rules ".repeat(600);
    let err = plan(
        &RequestParts {
            system_prompt: Some(&prompt),
            tool_tokens: 0,
            reserved_tokens: 0,
            messages: &[Message::user_text("hi")],
        },
        &OptimizationStrategy::Intelligent,
        budget(500),
        &counter(),
    )
    .unwrap_err();
    assert!(matches!(
        err,
        PlanError::FixedPartTooLarge { limit: 500, .. }
    ));
}

#[test]
fn a_stored_summary_stands_in_for_what_it_replaces() {
    let mut history = vec![
        user("first", 50),
        assistant("second", 50),
        user("third", 50),
    ];
    let summary = summary_message(
        "They talked about alpha.".into(),
        vec![history[0].id, history[1].id],
        100,
        10,
    );
    history.push(summary.clone());
    history.push(user("newest", 5));
    let p = plan(
        &parts(&history),
        &OptimizationStrategy::Intelligent,
        budget(100_000),
        &counter(),
    )
    .unwrap();
    assert_eq!(
        kept_ids(&p, &history),
        vec![summary.id, history[2].id, history[4].id]
    );
    let sent = p.request_messages(&history);
    assert_eq!(sent.len(), 3);
    let MessageKind::Text(t) = &sent[0].kind else {
        panic!()
    };
    assert!(t.text().starts_with("[Summary of 2 earlier messages"));
    assert!(t.text().contains("They talked about alpha."));
    assert_eq!(sent[0].role, Role::User);
}

#[test]
fn reported_usage_calibrates_the_estimate() {
    let question = user("q", 100);
    let estimated = REPLY_PRIMING + counter().message(&question);
    let mut answer = assistant("a", 10);
    answer.metadata.insert(
        "usage".into(),
        json!({"prompt_tokens": estimated * 3 / 2, "completion_tokens": 12}),
    );
    let history = vec![question, answer, user("next", 10)];
    let p = plan(
        &parts(&history),
        &OptimizationStrategy::Intelligent,
        budget(100_000),
        &counter(),
    )
    .unwrap();
    let expected = f64::from(estimated * 3 / 2) / f64::from(estimated);
    assert!((p.calibration - expected).abs() < 1e-9);
    assert_eq!(
        p.tokens_before,
        (f64::from(total(&history)) * expected).ceil() as u32
    );
    // A report far from any estimate belongs to another request and is ignored.
    let mut history = history;
    history[1]
        .metadata
        .insert("usage".into(), json!({"prompt_tokens": estimated * 50}));
    let p = plan(
        &parts(&history),
        &OptimizationStrategy::Intelligent,
        budget(100_000),
        &counter(),
    )
    .unwrap();
    assert_eq!(p.calibration, 1.0);
}

fn resource(uri: &str, lines: usize) -> Message {
    Message::new(
        Role::User,
        MessageKind::McpResource(Box::new(McpResourceMessage {
            server_name: "docs".into(),
            resource_uri: uri.into(),
            name: None,
            content: ResourceContent::Text {
                text: (1..=lines)
                    .map(|i| format!("column_{i} INTEGER NOT NULL,\n"))
                    .collect(),
            },
            mime_type: Some("text/plain".into()),
            retrieved_at: chrono::Utc::now(),
        })),
    )
}

/// Everything logged while `f` runs.
fn logged<T>(f: impl FnOnce() -> T) -> (T, String) {
    let buffer = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    let sink = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .with_writer(move || Sink(sink.clone()))
        .finish();
    let out = tracing::subscriber::with_default(subscriber, f);
    let text = String::from_utf8(buffer.lock().unwrap().clone()).unwrap();
    (out, text)
}

struct Sink(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn an_mcp_resource_is_kept_while_used_and_dropped_with_a_logged_reason_when_old_and_unused() {
    let mut history = vec![
        resource("db://schema/orders", 20),
        resource("db://schema/legacy", 20),
    ];
    for i in 0..RECENT_USE_MESSAGES / 2 {
        let id = format!("filler{i}");
        history.push(tool_call(&id, "list_files"));
        history.push(tool_result(&id, "list_files", json!("a.rs b.rs")));
    }
    for i in 0..KEEP_RECENT_MESSAGES {
        history.push(if i % 2 == 0 {
            assistant(&format!("recent {i}"), 20)
        } else {
            user(&format!("recent {i}: join db://schema/orders"), 20)
        });
    }
    let (used, unused) = (history[0].id, history[1].id);
    let all = total(&history);
    // Room for all but one resource: the unused one goes, the one mentioned lately stays.
    let (p, log) = logged(|| {
        plan(
            &parts(&history),
            &OptimizationStrategy::Intelligent,
            budget(all - counter().message(&history[1]) + 1),
            &counter(),
        )
        .unwrap()
    });
    assert_eq!(p.dropped, vec![unused]);
    assert!(kept_ids(&p, &history).contains(&used));
    let line = log
        .lines()
        .find(|l| l.contains("MCP resource left out of the request"))
        .unwrap_or_else(|| panic!("the removal is logged: {log}"));
    assert!(
        line.contains("db://schema/legacy") && line.contains("not used among the newest messages"),
        "{line}"
    );
    assert!(!log.contains("db://schema/orders"), "{log}");

    // Once nothing mentions it any more, the other resource is old and unused too.
    for m in history.iter_mut().rev().take(KEEP_RECENT_MESSAGES) {
        if let MessageKind::Text(t) = &mut m.kind {
            *t = TextMessage::plain(t.text().replace("db://schema/orders", "the orders"));
        }
    }
    let all = total(&history);
    let (p, log) = logged(|| {
        plan(
            &parts(&history),
            &OptimizationStrategy::Intelligent,
            budget(all - counter().message(&history[0]) + 1),
            &counter(),
        )
        .unwrap()
    });
    assert_eq!(
        p.dropped,
        vec![used],
        "the older unused resource goes first"
    );
    assert!(log.contains("db://schema/orders"), "{log}");
}
