//! Store speed, SQLite and PostgreSQL side by side (the PostgreSQL half runs when
//! `BRAID_TEST_POSTGRES_URL` names a server, e.g. under `scripts/with-postgres.sh`).
//!
//! - append one message to a context that already has 10,000;
//! - save a typical change (a new answer, a status change, a state change) to a 1,000-message
//!   context;
//! - load the newest 100 messages of a 10,000-message branch, and the whole branch;
//! - search 10,000 messages (20 contexts of 500) for a word in 1% of them, and for a word in
//!   every one (issue 46: under 50 ms).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::hint::black_box;
use std::str::FromStr as _;
use std::sync::Arc;
use std::time::Duration;

use braid_protocol::{BranchName, ContextState, Message, MessageStatus};
use braid_store::{
    ContextChanges, ContextRecord, MessageRange, PostgresStore, SearchTerms, SqliteStore, Store,
};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sqlx::Connection as _;
use tokio::runtime::Runtime;

/// A message of typical size: a few sentences.
fn message(i: usize) -> Message {
    let text = format!(
        "Message {i}. The parser reads tokens one at a time and keeps a stack of open scopes; \
         when a scope closes it reduces the stack and emits a node. Errors carry the span of the \
         token at fault so the editor can underline it."
    );
    if i.is_multiple_of(2) {
        Message::user_text(text)
    } else {
        Message::assistant_text(text)
    }
}

/// A message of typical size of which one in a hundred names a walrus.
fn searchable(i: usize) -> Message {
    let mut m = message(i);
    if i.is_multiple_of(100) {
        m = Message::user_text(format!(
            "Message {i}: where does the walrus module read its input?"
        ));
    }
    m
}

/// 10,000 [`searchable`] messages in 20 contexts of 500.
async fn search_corpus(store: &Arc<dyn Store>) {
    let main = BranchName::main();
    for c in 0..20 {
        let record = ContextRecord::new(format!("search {c}"), Default::default());
        store.create_context(&record).await.unwrap();
        let mut changes = ContextChanges::new();
        for i in c * 500..(c + 1) * 500 {
            changes.push_message(&main, searchable(i));
        }
        store.save_changes(record.id, &changes).await.unwrap();
    }
}

/// A context holding `n` messages on `main`, written in chunks.
async fn context_with(store: &Arc<dyn Store>, n: usize) -> (ContextRecord, Vec<Message>) {
    let record = ContextRecord::new("bench", Default::default());
    store.create_context(&record).await.unwrap();
    let main = BranchName::main();
    let mut all = Vec::with_capacity(n);
    for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
        let mut changes = ContextChanges::new();
        for i in chunk {
            let m = message(*i);
            all.push(m.clone());
            changes.push_message(&main, m);
        }
        store.save_changes(record.id, &changes).await.unwrap();
    }
    (record, all)
}

struct Backend {
    name: &'static str,
    store: Arc<dyn Store>,
    _dir: Option<tempfile::TempDir>,
}

async fn backends() -> Vec<Backend> {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteStore::open(dir.path().join("bench.db"))
        .await
        .unwrap();
    let mut backends = vec![Backend {
        name: "sqlite",
        store: Arc::new(sqlite),
        _dir: Some(dir),
    }];
    match std::env::var("BRAID_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => {
            let admin = sqlx::postgres::PgConnectOptions::from_str(&url).unwrap();
            let mut conn = sqlx::PgConnection::connect_with(&admin).await.unwrap();
            let name = format!("braid_bench_{}", uuid::Uuid::now_v7().simple());
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .execute(&mut conn)
                .await
                .unwrap();
            let store = PostgresStore::connect_with(admin.database(&name), Default::default())
                .await
                .unwrap();
            backends.push(Backend {
                name: "postgres",
                store: Arc::new(store),
                _dir: None,
            });
        }
        _ => eprintln!("PostgreSQL benches skipped: BRAID_TEST_POSTGRES_URL is not set"),
    }
    backends
}

fn store_benches(c: &mut Criterion) {
    let runtime = Runtime::new().unwrap();
    let backends = runtime.block_on(backends());
    let main = BranchName::main();

    // First, while the stores hold only these 10,000 messages.
    let mut group = c.benchmark_group("search_10k_messages");
    for backend in &backends {
        runtime.block_on(search_corpus(&backend.store));
    }
    for (word, id) in [("walrus", "rare_word"), ("parser", "common_word")] {
        let terms = SearchTerms::parse(word).unwrap();
        for backend in &backends {
            group.bench_function(BenchmarkId::new(id, backend.name), |b| {
                b.iter(|| {
                    let hits = runtime
                        .block_on(backend.store.search_messages(&terms, 20))
                        .unwrap();
                    assert_eq!(hits.len(), 20);
                    black_box(hits)
                })
            });
        }
    }
    group.finish();

    let mut group = c.benchmark_group("append_one_message_to_10k_context");
    for backend in &backends {
        let (record, _) = runtime.block_on(context_with(&backend.store, 10_000));
        let mut i = 10_000;
        group.bench_function(BenchmarkId::from_parameter(backend.name), |b| {
            b.iter(|| {
                i += 1;
                let changes = ContextChanges::new().add_message(&main, message(i));
                runtime
                    .block_on(backend.store.save_changes(record.id, &changes))
                    .unwrap();
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("save_typical_change_to_1k_context");
    for backend in &backends {
        let (record, messages) = runtime.block_on(context_with(&backend.store, 1_000));
        let mut i = 1_000;
        group.bench_function(BenchmarkId::from_parameter(backend.name), |b| {
            b.iter(|| {
                i += 1;
                // The model's answer arrives, the last message it answered is marked
                // complete again, and the context goes back to idle.
                let mut updated = messages[i % messages.len()].clone();
                updated.status = MessageStatus::Complete;
                updated.updated_at = chrono::Utc::now();
                let changes = ContextChanges::new()
                    .add_message(&main, message(i))
                    .update_message(updated)
                    .with_state(ContextState::Idle);
                runtime
                    .block_on(backend.store.save_changes(record.id, &changes))
                    .unwrap();
            })
        });
    }
    group.finish();

    let loaded: Vec<_> = backends
        .iter()
        .map(|backend| runtime.block_on(context_with(&backend.store, 10_000)).0)
        .collect();
    let mut group = c.benchmark_group("load_newest_100_of_10k_branch");
    for (backend, record) in backends.iter().zip(&loaded) {
        group.bench_function(BenchmarkId::from_parameter(backend.name), |b| {
            b.iter(|| {
                let messages = runtime
                    .block_on(backend.store.load_messages(
                        record.id,
                        &main,
                        MessageRange::Newest(100),
                    ))
                    .unwrap();
                assert_eq!(messages.len(), 100);
                black_box(messages)
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("load_whole_10k_branch");
    group.sample_size(20);
    for (backend, record) in backends.iter().zip(&loaded) {
        group.bench_function(BenchmarkId::from_parameter(backend.name), |b| {
            b.iter(|| {
                let messages = runtime
                    .block_on(
                        backend
                            .store
                            .load_messages(record.id, &main, MessageRange::All),
                    )
                    .unwrap();
                assert_eq!(messages.len(), 10_000);
                black_box(messages)
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = store_benches
}
criterion_main!(benches);
