//! A long context after a restart (issue 49): its first `GET /v1/contexts/{id}` loads the whole
//! context from a real SQLite file into a new actor, and should answer within 50 ms for 10,000
//! messages. Each figure is printed; the time is held to its bound only in an optimized build
//! with `BRAID_CHECK_TIMING=1` (`BRAID_CHECK_TIMING=1 cargo test --release ...`): a debug build
//! or a machine shared with other work says nothing about it. The process's token counts are
//! forgotten before each restart, as a real restart forgets them.

use std::time::{Duration, Instant};

use braid_protocol::{BranchName, ContextId, Message};
use braid_store::{ContextChanges, SqliteStore, Store};
use braid_testkit::Script;
use serde_json::json;

use crate::common::TestServer;

/// A message of typical size (about 240 bytes of text), from each side in turn.
fn message(i: usize) -> Message {
    let text = format!("Message {i}: {}", "a few words of a sentence ".repeat(9));
    if i.is_multiple_of(2) {
        Message::user_text(text)
    } else {
        Message::assistant_text(text)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_10k_message_context_answers_its_first_read_after_a_restart_with_all_its_messages() {
    const MESSAGES: usize = 10_000;
    let mut s = TestServer::start(Script::new()).await;
    let id = s.context(json!({})).await;
    s.stop().await;

    // Written straight to the file while no server runs, in chunks as a long conversation
    // would have been.
    let path = s.dir.path().join("data/braid.db");
    let store = SqliteStore::open(&path).await.unwrap();
    let context = ContextId(id.parse().unwrap());
    let main = BranchName::main();
    for chunk in (0..MESSAGES).collect::<Vec<_>>().chunks(1_000) {
        let mut changes = ContextChanges::new();
        for i in chunk {
            changes.push_message(&main, message(*i));
        }
        store.save_changes(context, &changes).await.unwrap();
    }
    store.close().await.unwrap();
    drop(store);

    let mut firsts = Vec::new();
    for _ in 0..3 {
        // A restart in this process would keep the token counts of the last run, which a real
        // restart starts without (and counting 10,000 messages is most of the first read).
        braid_optimizer::tokens::clear_cache();
        s.restart().await;
        let started = Instant::now();
        let (status, body) = s.call("GET", &format!("/v1/contexts/{id}"), None).await;
        let first = started.elapsed();
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["message_count"], json!(MESSAGES), "{body}");
        // The context is now in memory: a second read is the floor the first is measured on.
        let started = Instant::now();
        let (status, _) = s.call("GET", &format!("/v1/contexts/{id}"), None).await;
        let second = started.elapsed();
        assert_eq!(status, 200);
        eprintln!(
            "first GET /v1/contexts/{{id}} of a {MESSAGES}-message context after a restart: \
             {first:?} (the next: {second:?})"
        );
        firsts.push(first);
    }
    firsts.sort();
    let median = firsts[firsts.len() / 2];
    eprintln!("median first read after a restart: {median:?}");
    if !cfg!(debug_assertions) && std::env::var_os("BRAID_CHECK_TIMING").is_some_and(|v| v == "1") {
        assert!(
            median < Duration::from_millis(50),
            "the first read after a restart took {median:?} (median of {firsts:?})"
        );
    }
}
