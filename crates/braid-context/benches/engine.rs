//! The engine's overheads: one state transition with its event, adding a message through the
//! pipeline (no model) including the store write, and running a no-op tool through the registry.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use braid_context::StateMachine;
use braid_context::events::EventBus;
use braid_context::pipeline::{Draft, Pipeline, PipelineContext, ProcessResult};
use braid_protocol::{BranchName, ContextConfig, ContextState, Message, MessageKind, TextMessage};
use braid_store::{ContextChanges, ContextRecord, SqliteStore, Store};
use braid_tools::{
    Permission, Permissions, Tool, ToolCategory, ToolContext, ToolError, ToolOrigin, ToolOutput,
    ToolRegistry, ToolSpec, builtin_registry,
};
use criterion::{Criterion, criterion_group, criterion_main};

struct Noop(ToolSpec);

#[async_trait]
impl Tool for Noop {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    async fn call(&self, _: serde_json::Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::json(serde_json::Value::Null))
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

async fn store_with_context(
    dir: &tempfile::TempDir,
    history: usize,
) -> (Arc<dyn Store>, ContextRecord) {
    let store: Arc<dyn Store> = Arc::new(
        SqliteStore::open(dir.path().join("bench.db"))
            .await
            .unwrap(),
    );
    let record = ContextRecord::new("bench", ContextConfig::default());
    store.create_context(&record).await.unwrap();
    let mut changes = ContextChanges::new();
    for i in 0..history {
        changes.push_message(
            &BranchName::main(),
            Message::user_text(format!("message {i} with some ordinary words in it")),
        );
    }
    store.save_changes(record.id, &changes).await.unwrap();
    (store, record)
}

fn transition(c: &mut Criterion) {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let (store, record) = rt.block_on(store_with_context(&dir, 0));
    let events = EventBus::new(record.id, store);
    let mut group = c.benchmark_group("engine");
    group.bench_function("state_transition_with_event", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut machine = StateMachine::new(ContextState::StreamingLlmResponse {
                    chunks: 0,
                    chars: 0,
                });
                let start = Instant::now();
                for i in 0..iters {
                    let to = ContextState::StreamingLlmResponse {
                        chunks: i as u32,
                        chars: i * 4,
                    };
                    let from = machine.move_to(to).unwrap();
                    events
                        .emit(braid_protocol::ContextEvent::ContextUpdate(
                            braid_protocol::ContextUpdate {
                                context_id: record.id,
                                current_state: machine.current().clone(),
                                previous_state: Some(from),
                                message_update: None,
                                timestamp: chrono::Utc::now(),
                                metadata: Default::default(),
                                pending_calls: Vec::new(),
                                turn_id: None,
                                branch: None,
                            },
                        ))
                        .await
                        .unwrap();
                }
                start.elapsed()
            })
        })
    });
    group.finish();
}

fn pipeline(c: &mut Criterion) {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let (store, record) = rt.block_on(store_with_context(&dir, 50));
    let history: Vec<Message> = rt.block_on(store.all_messages(record.id)).unwrap();
    let ctx = PipelineContext {
        config: ContextConfig::default(),
        model: "gpt-4o-mini".into(),
        branch: braid_protocol::BranchName::main(),
        branch_prompt: None,
        history,
        tools: Arc::new(builtin_registry().unwrap()),
        workspace: None,
        workspace_problem: None,
        instructions: None,
        llm: None,
        workflow_tools: Vec::new(),
        ocr: Default::default(),
        image_hosts: Default::default(),
        kept_frame: Default::default(),
        kept_ledger: Default::default(),
    };
    let pipeline = Pipeline::standard();
    let mut group = c.benchmark_group("engine");
    group.bench_function("add_message_through_pipeline_and_store", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for i in 0..iters {
                    let mut draft = Draft {
                        messages: vec![Message::new(
                            braid_protocol::Role::User,
                            MessageKind::Text(TextMessage::plain(format!("benchmark message {i}"))),
                        )],
                        ..Draft::default()
                    };
                    for p in pipeline.processors() {
                        if p.process(&mut draft, &ctx).await.unwrap() == ProcessResult::Complete {
                            break;
                        }
                    }
                    let mut changes = ContextChanges::new();
                    for m in draft.messages {
                        changes.push_message(&BranchName::main(), m);
                    }
                    store.save_changes(record.id, &changes).await.unwrap();
                    black_box(draft.request);
                }
                start.elapsed()
            })
        })
    });
    group.finish();
}

fn tool_overhead(c: &mut Criterion) {
    let rt = runtime();
    let spec = ToolSpec {
        name: "noop".into(),
        description: "does nothing".into(),
        parameters: serde_json::json!({"type": "object", "properties": {}}),
        category: ToolCategory::Codebase,
        permissions: Permissions::of(&[Permission::Read]),
        timeout: Duration::from_secs(10),
        origin: ToolOrigin::Builtin,
        retry: braid_tools::RetryRule::Never,
        examples: Vec::new(),
    };
    let noop = Arc::new(Noop(spec));
    let registry = ToolRegistry::new();
    registry.register(noop.clone()).unwrap();
    let ctx = ToolContext::new(None, braid_protocol::AgentRole::Actor);
    let mut group = c.benchmark_group("engine");
    group.bench_function("noop_tool_direct", |b| {
        b.iter(|| {
            rt.block_on(async { black_box(noop.call(serde_json::json!({}), &ctx).await.unwrap()) })
        })
    });
    group.bench_function("noop_tool_through_registry_with_result", |b| {
        b.iter(|| {
            rt.block_on(async {
                let result = registry
                    .execute(
                        "noop",
                        serde_json::json!({}),
                        &ctx,
                        braid_protocol::Mode::Act,
                    )
                    .await;
                black_box(braid_tools::to_outcome(&result))
            })
        })
    });
    group.finish();
}

criterion_group!(benches, transition, pipeline, tool_overhead);
criterion_main!(benches);
