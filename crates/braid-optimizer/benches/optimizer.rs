//! The optimizer's cost per request: planning a 1,000- and a 10,000-message context that is over
//! its budget (counting, grouping, selecting), with the per-message token cache warm (the usual
//! case: only new messages are counted) and cold (every message tokenized). The tokenizers'
//! one-time loading is done before measuring.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use braid_llm::ToolDefinition;
use braid_optimizer::tokens::clear_cache;
use braid_optimizer::{Budget, Prepared, RequestParts, TokenCounter, plan};
use braid_protocol::{
    AgentRole, FileReferenceMessage, FileResolution, Message, MessageKind, Mode,
    OptimizationStrategy, Role, ToolCall, ToolOutcome, ToolRequestMessage, ToolResultMessage,
};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

/// A conversation of `n` messages: questions, answers, tool exchanges and file references,
/// each of a few dozen to a few hundred tokens.
fn history(n: usize) -> Vec<Message> {
    let mut out = Vec::with_capacity(n);
    let mut i = 0;
    while out.len() < n {
        match i % 4 {
            0 => out.push(Message::user_text(format!(
                "Question {i}: why does `parse_config` fail on line {i} when the file has a BOM? {}",
                "Here is more context about the problem and what I tried. ".repeat(3)
            ))),
            1 => out.push(Message::assistant_text(format!(
                "Answer {i}: the reader does not strip the byte order mark. {}",
                "fn strip(s: &str) -> &str { s.trim_start_matches('\\u{feff}') }\n".repeat(4)
            ))),
            2 => {
                let id = format!("call_{i}");
                out.push(Message::new(
                    Role::Assistant,
                    MessageKind::ToolRequest(ToolRequestMessage {
                        calls: vec![ToolCall::new(
                            id.clone(),
                            "read_file",
                            json!({"path": format!("src/module_{i}.rs")}),
                        )],
                    }),
                ));
                out.push(Message::new(
                    Role::Tool,
                    MessageKind::ToolResult(Box::new(ToolResultMessage {
                        call_id: id.into(),
                        tool_name: "read_file".into(),
                        outcome: ToolOutcome::Success {
                            output: json!(
                                (1..=15)
                                    .map(|l| format!("{l}: let x_{l} = value({l});\n"))
                                    .collect::<String>()
                            ),
                        },
                        duration_ms: 2,
                        started_at: None,
                        completed_at: None,
                    })),
                ));
            }
            _ => out.push(Message::new(
                Role::User,
                MessageKind::FileReference(Box::new(FileReferenceMessage {
                    path: format!("src/file_{i}.rs"),
                    range: None,
                    display_text: None,
                    resolution: FileResolution::Resolved {
                        content: (1..=10)
                            .map(|l| format!("{l}: // comment {l}\n"))
                            .collect(),
                        total_lines: 10,
                        size_bytes: 200,
                        resolved_at: chrono::Utc::now(),
                    },
                })),
            )),
        }
        i += 1;
    }
    out.truncate(n);
    out
}

fn tools() -> Vec<ToolDefinition> {
    braid_tools::builtin_registry()
        .unwrap()
        .infos(AgentRole::Actor, Mode::Act)
        .into_iter()
        .map(|t| ToolDefinition {
            name: t.name,
            description: t.description,
            parameters: t.parameters,
        })
        .collect()
}

fn bench_size(c: &mut Criterion, n: usize) {
    let messages = history(n);
    let tools = tools();
    let prompt = "You are Braid, a careful software engineering assistant. ".repeat(40);
    let counter = TokenCounter::for_model("gpt-4o");
    // A 32k window (a local model's) over a history of about 100 tokens per message: over
    // budget from a few hundred messages on, so the strategy always runs.
    let budget = Budget {
        window: 32_768,
        reserve_output: 4_096,
        margin: 256,
    };
    let parts = RequestParts {
        system_prompt: Some(&prompt),
        tool_tokens: counter.tools(&tools),
        reserved_tokens: 0,
        messages: &messages,
    };
    let strategy = OptimizationStrategy::Intelligent;
    let first = plan(&parts, &strategy, budget, &counter).unwrap();
    assert!(first.optimized());

    let mut group = c.benchmark_group("optimizer");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(if n > 1_000 { 20 } else { 8 }));
    group.bench_function(format!("plan_{n}_messages_warm_cache"), |b| {
        b.iter(|| black_box(plan(&parts, &strategy, budget, &counter).unwrap()))
    });
    group.bench_function(format!("plan_{n}_messages_cold_cache"), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                clear_cache();
                let start = Instant::now();
                black_box(plan(&parts, &strategy, budget, &counter).unwrap());
                total += start.elapsed();
            }
            total
        })
    });
    // Issue 42: the ledger of what the plan leaves out, and the plan made again (from the same
    // prepared history) around its room when the first has none to spare: a branch's first
    // request, with no room kept from an earlier one. This is the
    // optimizer's part alone; the figure (a turn's whole pipeline with and without the
    // ledger and the record) is braid-context's `optimize` bench.
    group.bench_function(format!("plan_{n}_messages_with_ledger"), |b| {
        b.iter(|| {
            let prepared = Prepared::new(&parts, &counter);
            let first = prepared.plan(0, &strategy, budget, &counter).unwrap();
            black_box(
                braid_optimizer::ledger::fit(
                    (first, 0),
                    &prepared,
                    &strategy,
                    budget,
                    &counter,
                    15,
                    &mut braid_optimizer::ledger::LedgerStart::default(),
                )
                .unwrap(),
            )
        })
    });
    group.finish();
}

fn optimizer(c: &mut Criterion) {
    bench_size(c, 1_000);
    bench_size(c, 10_000);
}

criterion_group!(benches, optimizer);
criterion_main!(benches);
