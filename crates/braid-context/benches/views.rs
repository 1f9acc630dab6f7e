//! Reads of a long conversation through its handle, as `GET /v1/contexts/{id}` and a page of
//! `view=optimized` do: the summary (with its token budget) of a 2,000- and a 10,000-message
//! context, the latter also in a workspace with an instructions file and workflows (its own and
//! the person's), and the newest page of the optimized view of a 2,000-message context whose
//! history is over its model's window (so the optimizer drops the oldest messages). Nothing
//! changes between reads, as while a person scrolls or another tab polls.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::sync::Arc;

use braid_context::{ContextHandle, ContextRegistry, EngineSettings, MessageQuery, Services};
use braid_protocol::api::MessageView;
use braid_protocol::{BranchName, ContextConfig, Message};
use braid_store::{ContextChanges, ContextRecord, SqliteStore, Store};
use braid_tools::{ToolRegistry, WorkspaceRoots, builtin_registry};
use criterion::{Criterion, criterion_group, criterion_main};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A workspace in `dir` with an `AGENTS.md` and two workflows, and the person's folder with a
/// third; returns the engine settings that allow it and the context's `workspace`.
fn workspace(dir: &tempfile::TempDir) -> (EngineSettings, String) {
    let root = dir.path().join("workspace");
    let examples =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workflows");
    let own = root.join(".braid/workflows");
    let person = dir.path().join("workflows");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::create_dir_all(&person).unwrap();
    std::fs::write(
        root.join("AGENTS.md"),
        "Run `make test` before you say a change is done.\n".repeat(20),
    )
    .unwrap();
    for (folder, name) in [
        (&own, "review-changes"),
        (&own, "test-and-summarize"),
        (&person, "commit-message"),
    ] {
        std::fs::copy(
            examples.join(format!("{name}.yaml")),
            folder.join(format!("{name}.yaml")),
        )
        .unwrap();
    }
    let settings = EngineSettings {
        workspace_roots: WorkspaceRoots::new([dir.path().to_path_buf()], []).unwrap(),
        user_workflows: Some(person),
        ..EngineSettings::default()
    };
    (settings, root.display().to_string())
}

/// A live context of `n` alternating questions and answers, on a model with a 16k window, in
/// a workspace when `in_workspace`.
async fn context(
    dir: &tempfile::TempDir,
    n: usize,
    in_workspace: bool,
) -> (Arc<ContextRegistry>, ContextHandle) {
    let (settings, workspace) = if in_workspace {
        let (settings, root) = workspace(dir);
        (settings, Some(root))
    } else {
        (EngineSettings::default(), None)
    };
    let store: Arc<dyn Store> = Arc::new(
        SqliteStore::open(dir.path().join("views.db"))
            .await
            .unwrap(),
    );
    let config = ContextConfig {
        model: "gpt-4o-mini".into(),
        context_window: Some(16_000),
        workspace,
        ..ContextConfig::default()
    };
    let record = ContextRecord::new("bench", config);
    store.create_context(&record).await.unwrap();
    let mut changes = ContextChanges::new();
    for i in 0..n {
        let text = format!(
            "message {i}: why does the parser fail on line {i}? {}",
            "Some ordinary words about the problem. ".repeat(4)
        );
        let m = if i % 2 == 0 {
            Message::user_text(text)
        } else {
            Message::assistant_text(text)
        };
        changes.push_message(&BranchName::main(), m);
    }
    store.save_changes(record.id, &changes).await.unwrap();
    let tools: Arc<ToolRegistry> = Arc::new(builtin_registry().unwrap());
    let registry = ContextRegistry::new(Services {
        frames: Default::default(),
        store,
        llm: None,
        tools,
        mcp: None,
        settings: EngineSettings {
            default_model: "gpt-4o-mini".into(),
            ..settings
        },
    });
    let handle = registry.get(record.id).await.unwrap();
    (registry, handle)
}

fn summary(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("views");
    for (n, in_workspace) in [(2_000usize, false), (10_000, false), (10_000, true)] {
        let dir = tempfile::tempdir().unwrap();
        let (_registry, handle) = rt.block_on(context(&dir, n, in_workspace));
        // The first read counts every message once.
        let first = rt.block_on(handle.summary()).unwrap();
        assert_eq!(first.instructions.is_some(), in_workspace);
        let name = if in_workspace {
            format!("summary_of_{n}_messages_in_a_workspace")
        } else {
            format!("summary_of_{n}_messages")
        };
        group.bench_function(name, |b| {
            b.iter(|| black_box(rt.block_on(handle.summary()).unwrap()))
        });
    }
    let dir = tempfile::tempdir().unwrap();
    let (_registry, handle) = rt.block_on(context(&dir, 2_000, false));
    let page = || MessageQuery {
        branch: None,
        view: MessageView::Optimized,
        kind: None,
        after: None,
        before: None,
        limit: Some(1000),
        from: Default::default(),
    };
    let first = rt.block_on(handle.messages(page())).unwrap();
    assert!(
        first.messages.len() < 2_000,
        "the history is over the window"
    );
    group.bench_function("optimized_page_of_2000_messages", |b| {
        b.iter(|| black_box(rt.block_on(handle.messages(page())).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, summary);
criterion_main!(benches);
