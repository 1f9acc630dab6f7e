//! Serializing and parsing 1,000 mixed messages (every kind, realistic sizes).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use braid_protocol::*;
use chrono::Utc;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;

fn mixed_messages(n: usize) -> Vec<Message> {
    let now = Utc::now();
    (0..n)
        .map(|i| {
            let (role, kind) = match i % 10 {
                0 | 1 => (Role::User, MessageKind::Text(TextMessage::plain(format!("Question {i}: how does the parser handle nested generics like Vec<Option<T>>? ").repeat(3)))),
                2 | 3 => (Role::Assistant, MessageKind::Text(TextMessage::plain(format!("Answer {i}:\n```rust\nfn parse() -> Result<Ast, Error> {{ todo!() }}\n```\n").repeat(4)))),
                4 => (Role::Assistant, MessageKind::ToolRequest(ToolRequestMessage {
                    calls: vec![
                        ToolCall::new(format!("call_{i}_a"), "read_file", json!({"path": "src/lib.rs", "start_line": 1, "end_line": 80})),
                        ToolCall::new(format!("call_{i}_b"), "codebase_search", json!({"query": "fn parse", "max_results": 20})),
                    ],
                })),
                5 => (Role::Tool, MessageKind::ToolResult(Box::new(ToolResultMessage {
                    call_id: ToolCallId(format!("call_{i}_a")),
                    tool_name: "read_file".into(),
                    outcome: ToolOutcome::Success { output: json!({"content": "   1 | use std::io;\n".repeat(40), "total_lines": 80}) },
                    duration_ms: 3,
                    started_at: Some(now),
                    completed_at: Some(now),
                }))),
                6 => (Role::User, MessageKind::FileReference(Box::new(FileReferenceMessage {
                    path: "src/parser.rs".into(),
                    range: Some(LineRange { start_line: 10, end_line: 40 }),
                    display_text: Some("@parser.rs:10-40".into()),
                    resolution: FileResolution::Resolved { content: "  10 | let x = 1;\n".repeat(30), total_lines: 200, size_bytes: 6000, resolved_at: now },
                }))),
                7 => (Role::Assistant, MessageKind::Plan(PlanMessage {
                    goal: "Refactor the parser".into(),
                    steps: (1..=4).map(|n| PlanStep {
                        step_number: n,
                        action: format!("Step {n}"),
                        reason: "Because".into(),
                        tools_needed: vec!["read_file".into()],
                        estimated_time: Some("5 minutes".into()),
                        risks: vec![],
                    }).collect(),
                })),
                8 => (Role::Assistant, MessageKind::Question(Box::new(QuestionMessage {
                    question: "Which database?".into(),
                    options: vec![QuestionOption { label: "SQLite".into(), value: "sqlite".into() }, QuestionOption { label: "PostgreSQL".into(), value: "pg".into() }],
                    context: None,
                    severity: Severity::Major,
                    default: Some("sqlite".into()),
                    answer: None,
                }))),
                _ => (Role::User, MessageKind::SystemControl(SystemControlMessage::ModeChange { from: Mode::Plan, to: Mode::Act })),
            };
            let mut m = Message::new(role, kind);
            m.set_turn_id(TurnId::new());
            m
        })
        .collect()
}

fn codec(c: &mut Criterion) {
    let messages = mixed_messages(1000);
    let encoded: Vec<String> = messages.iter().map(Message::to_json).collect();
    let bytes: usize = encoded.iter().map(String::len).sum();

    let mut group = c.benchmark_group("1000_mixed_messages");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("serialize", |b| {
        b.iter(|| {
            for m in black_box(&messages) {
                black_box(m.to_json());
            }
        })
    });
    group.bench_function("parse", |b| {
        b.iter(|| {
            for s in black_box(&encoded) {
                black_box(Message::from_json(s).unwrap());
            }
        })
    });
    group.bench_function("validate", |b| {
        b.iter(|| {
            for m in black_box(&messages) {
                black_box(m.validate_for_storage().is_ok());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, codec);
criterion_main!(benches);
