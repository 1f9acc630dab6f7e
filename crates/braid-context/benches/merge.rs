//! Branch merge: two 1,000-message branches that share 500 messages, rebased (500 new messages
//! move), computed alone and computed then stored in SQLite as the engine does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::hint::black_box;

use braid_context::merge::{MergeInput, MergeSide, plan};
use braid_protocol::api::{MergeRequest, MergeStrategy};
use braid_protocol::{
    AgentRole, BranchName, ContextConfig, Message, MessageId, MessageKind, Mode, Role,
    ToolRequestMessage, ToolResultMessage,
};
use braid_store::{BranchIds, BranchRecord, ContextChanges, ContextRecord, SqliteStore, Store};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::json;

/// `n` messages of a conversation: text turns, with a file write (request and result) every
/// tenth message, each branch writing its own files so nothing conflicts.
fn conversation(tag: &str, n: usize, pool: &mut HashMap<MessageId, Message>) -> Vec<MessageId> {
    let mut ids = Vec::with_capacity(n);
    let mut i = 0;
    while ids.len() < n {
        let messages = if i % 10 == 9 && ids.len() + 2 <= n {
            let call = format!("{tag}-{i}");
            let request: ToolRequestMessage = serde_json::from_value(json!({"calls": [{
                "id": call, "name": "write_file",
                "arguments": {"path": format!("{tag}/{i}.txt"), "content": "x"},
                "approval_status": "approved"}]}))
            .unwrap();
            let result: ToolResultMessage = serde_json::from_value(json!({
                "call_id": call, "tool_name": "write_file", "status": "success",
                "output": {"written": true}, "duration_ms": 1}))
            .unwrap();
            vec![
                Message::new(Role::Assistant, MessageKind::ToolRequest(request)),
                Message::new(Role::Tool, MessageKind::ToolResult(Box::new(result))),
            ]
        } else if i % 2 == 0 {
            vec![Message::user_text(format!(
                "{tag} question {i}: {}",
                "words ".repeat(20)
            ))]
        } else {
            vec![Message::assistant_text(format!(
                "{tag} answer {i}: {}",
                "words ".repeat(40)
            ))]
        };
        for m in messages {
            ids.push(m.id);
            pool.insert(m.id, m);
        }
        i += 1;
    }
    ids
}

fn bench_merge(c: &mut Criterion) {
    let mut pool = HashMap::new();
    let shared = conversation("shared", 500, &mut pool);
    let mut target = shared.clone();
    target.extend(conversation("main", 500, &mut pool));
    let mut source = shared;
    source.extend(conversation("alt", 500, &mut pool));
    let (main, alt) = (BranchName::main(), BranchName::from("alt"));
    let request = MergeRequest {
        target: None,
        strategy: MergeStrategy::Rebase,
        dry_run: false,
        accept_warnings: false,
        resolutions: Vec::new(),
    };
    let writes = |name: &str| name != "read_file";
    let input = MergeInput {
        pool: &pool,
        source: MergeSide {
            name: &alt,
            ids: &source,
        },
        target: MergeSide {
            name: &main,
            ids: &target,
        },
        request: &request,
        writes: &writes,
        mode: Mode::Act,
        role: AgentRole::Actor,
    };
    let computed = plan(&input).unwrap();
    assert_eq!(computed.outcome.moved.len(), 500);
    assert!(computed.outcome.conflicts.is_empty());

    c.bench_function("merge/rebase 1k+1k branches, 500 new (plan)", |b| {
        b.iter(|| black_box(plan(black_box(&input)).unwrap()))
    });

    // The same, stored as the engine stores it: the target's new order and a notice.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = rt.block_on(async {
        let store = SqliteStore::open(dir.path().join("bench.db"))
            .await
            .unwrap();
        let record = ContextRecord::new("bench", ContextConfig::default());
        store.create_context(&record).await.unwrap();
        let mut fork = BranchRecord::new(alt.clone());
        fork.message_ids = source.clone();
        fork.parent = Some(main.clone());
        let setup = ContextChanges {
            new_messages: pool.values().cloned().collect(),
            new_branches: vec![fork],
            replacements: vec![BranchIds {
                branch: main.clone(),
                message_ids: target.clone(),
            }],
            ..ContextChanges::new()
        };
        store.save_changes(record.id, &setup).await.unwrap();
        (store, record.id)
    });
    let (store, id) = store;
    c.bench_function(
        "merge/rebase 1k+1k branches, 500 new (plan + SQLite)",
        |b| {
            // Each iteration merges into the same 1,000 messages: the target's order is put
            // back before it, outside the measured time.
            let reset = ContextChanges {
                replacements: vec![BranchIds {
                    branch: main.clone(),
                    message_ids: target.clone(),
                }],
                ..ContextChanges::new()
            };
            b.iter_batched(
                || rt.block_on(store.save_changes(id, &reset)).unwrap(),
                |()| {
                    let p = plan(&input).unwrap();
                    let changes = p.changes(&main, Message::user_text("merged"));
                    rt.block_on(store.save_changes(id, &changes)).unwrap();
                },
                BatchSize::PerIteration,
            )
        },
    );
}

criterion_group!(benches, bench_merge);
criterion_main!(benches);
