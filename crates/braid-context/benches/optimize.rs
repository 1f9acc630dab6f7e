//! Issue 42's figure: what building the request record and the ledger adds to a turn's
//! pipeline at 1,000 messages. The standard pipeline (validation, file references, images, the
//! system prompt, `OptimizeContext` with its ledger and record, the request) runs one turn's
//! draft over a 1,000-message session of tool work that is over its window, beside the same
//! pipeline whose optimizing step only plans and sends the plan's messages (no ledger, no
//! record). No model: `OptimizeContext` summarizes only with one. Message counts are warm, as
//! they are on every turn after the first, and so is the room the ledger took: the bench runs
//! the turn of one history again and again, as a branch's next turn finds the room its last
//! request kept (another case is a branch's first request, with no room kept). The two
//! pipelines' turns alternate, and `ledger_and_record_added_to_a_turn_at_1000_messages` is the
//! difference itself, measured turn pair by turn pair. It allocates with `braid serve`'s
//! allocator (mimalloc), as the pipeline does there.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// The allocator the server runs the pipeline with (`braid-server`'s `main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use braid_context::pipeline::{
    Draft, Pipeline, PipelineContext, PipelineError, ProcessResult, Processor, ProcessorName,
};
use braid_llm::ModelCapabilities;
use braid_optimizer::{Budget, RequestParts, TokenCounter, plan};
use braid_protocol::{
    ContextConfig, ContextState, Message, MessageKind, Role, TextMessage, ToolCall, ToolOutcome,
    ToolRequestMessage, ToolResultMessage,
};
use braid_tools::builtin_registry;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::json;

/// `OptimizeContext` without the ledger and the record: the plan, and its messages as the
/// request's.
struct PlanOnly;

#[async_trait]
impl Processor for PlanOnly {
    fn name(&self) -> ProcessorName {
        ProcessorName::OptimizeContext
    }

    fn state(&self, _: &Draft) -> Option<ContextState> {
        Some(ContextState::OptimizingContext)
    }

    async fn process(
        &self,
        draft: &mut Draft,
        ctx: &PipelineContext,
    ) -> Result<ProcessResult, PipelineError> {
        let capabilities = ModelCapabilities::for_model(&ctx.model);
        let counter = TokenCounter::new(&capabilities);
        let mut input = ctx.history.clone();
        input.extend(draft.messages.iter().cloned());
        let chosen = plan(
            &RequestParts {
                system_prompt: draft.system_prompt.as_deref(),
                tool_tokens: counter.tools(&draft.tools),
                reserved_tokens: 0,
                messages: &input,
            },
            &ctx.config.optimization.strategy,
            Budget::for_config(&ctx.config, &capabilities),
            &counter,
        )
        .map_err(|e| PipelineError::Request(e.to_string()))?;
        draft.optimized = Some(chosen.request_messages(&input));
        Ok(ProcessResult::Continue)
    }
}

/// A session of `n` messages: the person asks, the model reads and writes files and runs
/// commands (each call with its result), and answers.
fn session(n: usize) -> Vec<Message> {
    let mut out = Vec::with_capacity(n + 4);
    let mut step = 0usize;
    while out.len() < n {
        let (tool, arguments, output) = match step % 3 {
            0 => (
                "read_file",
                json!({"path": format!("src/area_{}/module_{step}.rs", step % 7)}),
                json!(
                    (1..=12)
                        .map(|l| format!("{l}: let v{l} = load({l}, {step});\n"))
                        .collect::<String>()
                ),
            ),
            1 => (
                "write_file",
                json!({"path": format!("src/area_{}/module_{step}.rs", step % 7), "content": "fn main() {}\n".repeat(6)}),
                json!({"bytes_written": 78}),
            ),
            _ => (
                "run_command",
                json!({"program": "cargo", "args": ["test", "-p", format!("crate_{step}")]}),
                json!({"exit_code": step % 2, "stdout": format!("test result: ok. {step} passed; 0 failed\n").repeat(3)}),
            ),
        };
        let id = format!("call_{step}");
        out.push(Message::user_text(format!(
            "Step {step}: please look at the failing check in area {} and fix it.",
            step % 7
        )));
        out.push(Message::new(
            Role::Assistant,
            MessageKind::ToolRequest(ToolRequestMessage {
                calls: vec![ToolCall::new(id.clone(), tool, arguments)],
            }),
        ));
        out.push(Message::new(
            Role::Tool,
            MessageKind::ToolResult(Box::new(ToolResultMessage {
                call_id: id.into(),
                tool_name: tool.into(),
                outcome: ToolOutcome::Success { output },
                duration_ms: 3,
                started_at: None,
                completed_at: None,
            })),
        ));
        out.push(Message::assistant_text(format!(
            "Done with step {step}: the change is in place and the tests were run. {}",
            "The reason was an off-by-one in the parser's loop. ".repeat(2)
        )));
        step += 1;
    }
    out.truncate(n);
    out
}

fn context(history: Vec<Message>) -> PipelineContext {
    let config = ContextConfig {
        // A small local model's window: the session is several times over it, so that whole
        // tool exchanges leave the request (with `intelligent`, old texts go first and carry
        // nothing for the ledger; then outputs are elided; then exchanges go, and the ledger
        // fills).
        context_window: Some(16_384),
        ..ContextConfig::default()
    };
    PipelineContext {
        config,
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
    }
}

async fn turn(pipeline: &Pipeline, ctx: &PipelineContext) -> Draft {
    let mut draft = Draft {
        messages: vec![Message::new(
            Role::User,
            MessageKind::Text(TextMessage::plain("What is left to do?")),
        )],
        ..Draft::default()
    };
    for p in pipeline.processors() {
        if p.process(&mut draft, ctx).await.unwrap() == ProcessResult::Complete {
            break;
        }
    }
    draft
}

fn optimize(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ctx = context(session(1_000));
    let with = Pipeline::standard();
    let without = Pipeline::from_names(&[
        ProcessorName::Validate,
        ProcessorName::ResolveFileReferences,
        ProcessorName::RecognizeImages,
        ProcessorName::EnhanceSystemPrompt,
    ])
    .with(Arc::new(PlanOnly));
    // The figure is only meaningful when the session is over its window and left-out messages
    // fill a ledger.
    let draft = rt.block_on(turn(&with, &ctx));
    let record = draft.record.expect("a request record");
    let ledger = record.ledger.as_ref().expect("a ledger block");
    assert!(
        !record.dropped.is_empty() && ledger.listed > 50,
        "{} dropped, {} ledger entries",
        record.dropped.len(),
        ledger.listed
    );
    let plain = rt.block_on(turn(&without, &ctx));
    assert!(plain.request.is_some() && plain.record.is_none());

    let mut group = c.benchmark_group("optimize");
    group.sample_size(30);
    group.measurement_time(Duration::from_secs(10));
    // The turns after it: the room and the ledger's start kept from the one before (the
    // history does not grow here, so the start has no newer message to read). Each pipeline's
    // turn is timed after an untimed turn of the other, so that both run in the same state of
    // the allocator and the caches, as a server's turns run between other work. Run alone back
    // to back, the two pipelines' ratio moved from +14% to +78% between runs of one binary on
    // a 2-core VM. The two benchmarks still run seconds apart, and such a machine changes pace
    // in between, so the difference has a case of its own below.
    let interleaved = |timed: &Pipeline, other: &Pipeline, iters: u64| {
        let mut spent = Duration::ZERO;
        for _ in 0..iters {
            black_box(rt.block_on(turn(other, &ctx)));
            let started = Instant::now();
            black_box(rt.block_on(turn(timed, &ctx)));
            spent += started.elapsed();
        }
        spent
    };
    group.bench_function("turn_pipeline_1000_messages_with_ledger_and_record", |b| {
        b.iter_custom(|iters| interleaved(&with, &without, iters))
    });
    group.bench_function("turn_pipeline_1000_messages_plan_only", |b| {
        b.iter_custom(|iters| interleaved(&without, &with, iters))
    });
    // The figure itself: each iteration's turn with the ledger and the record less its turn
    // without, so that a slower phase of the machine moves both sides of the difference.
    group.bench_function("ledger_and_record_added_to_a_turn_at_1000_messages", |b| {
        b.iter_custom(|iters| {
            let (mut plain, mut full) = (Duration::ZERO, Duration::ZERO);
            for _ in 0..iters {
                let started = Instant::now();
                black_box(rt.block_on(turn(&without, &ctx)));
                plain += started.elapsed();
                let started = Instant::now();
                black_box(rt.block_on(turn(&with, &ctx)));
                full += started.elapsed();
            }
            full.saturating_sub(plain)
        })
    });
    // A branch's first request since the context was loaded: nothing kept, so the ledger's
    // room is worked out with a second plan, and its ledger read from the oldest message.
    group.bench_function(
        "turn_pipeline_1000_messages_with_ledger_and_record_first_request",
        |b| {
            // By reference, so that dropping the context's history is not measured.
            b.iter_batched_ref(
                || PipelineContext {
                    kept_ledger: Default::default(),
                    ..ctx.clone()
                },
                |first| black_box(rt.block_on(turn(&with, first))),
                BatchSize::PerIteration,
            )
        },
    );
    group.finish();
}

criterion_group!(benches, optimize);
criterion_main!(benches);
