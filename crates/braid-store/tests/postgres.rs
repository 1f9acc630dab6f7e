//! What only PostgreSQL does: several replicas on one store.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::Duration;

use braid_protocol::{BranchName, ContentDelta, ContextConfig, ContextEvent, Message};
use braid_store::{ContextChanges, ContextRecord, MessageRange, PostgresStore, Store};

#[tokio::test]
async fn a_context_is_owned_by_one_replica_at_a_time() {
    let Some(fixture) = support::postgres("a_context_is_owned_by_one_replica_at_a_time").await
    else {
        return;
    };
    let replica_a = &fixture.store;
    let replica_b = fixture.reopen().await;
    let record = ContextRecord::new("shared", ContextConfig::default());
    replica_a.create_context(&record).await.unwrap();

    let lock = replica_a
        .try_lock_context(record.id)
        .await
        .unwrap()
        .unwrap();
    assert!(
        replica_b
            .try_lock_context(record.id)
            .await
            .unwrap()
            .is_none()
    );
    drop(lock);
    let mut taken = None;
    for _ in 0..100 {
        taken = replica_b.try_lock_context(record.id).await.unwrap();
        if taken.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let taken = taken.expect("replica B takes the context once A lets go");
    assert!(
        replica_a
            .try_lock_context(record.id)
            .await
            .unwrap()
            .is_none()
    );

    // A replica that goes away frees what it owned.
    std::mem::forget(taken);
    replica_b.close().await.unwrap();
    // The server ends the closed session's advisory locks shortly after its connection goes.
    let mut freed = None;
    for _ in 0..100 {
        freed = replica_a.try_lock_context(record.id).await.unwrap();
        if freed.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        freed.is_some(),
        "a closed replica's contexts are free again"
    );
}

#[tokio::test]
async fn replicas_see_each_others_commits() {
    let Some(fixture) = support::postgres("replicas_see_each_others_commits").await else {
        return;
    };
    let replica_b = fixture.reopen().await;
    let record = ContextRecord::new("shared", ContextConfig::default());
    fixture.store.create_context(&record).await.unwrap();
    let message = Message::user_text("written by A");
    fixture
        .store
        .save_changes(
            record.id,
            &ContextChanges::new().add_message(&BranchName::main(), message.clone()),
        )
        .await
        .unwrap();
    let seen = replica_b
        .load_messages(record.id, &BranchName::main(), MessageRange::All)
        .await
        .unwrap();
    assert_eq!(seen, vec![message]);
}

#[tokio::test]
async fn committed_events_are_announced_to_other_replicas() {
    let Some(fixture) = support::postgres("committed_events_are_announced_to_other_replicas").await
    else {
        return;
    };
    let support::Place::Postgres { options } = &fixture.place else {
        unreachable!()
    };
    let replica_b = PostgresStore::connect_with((**options).clone(), Default::default())
        .await
        .unwrap();
    let mut notices = replica_b.listen_events().await.unwrap();
    let record = ContextRecord::new("shared", ContextConfig::default());
    fixture.store.create_context(&record).await.unwrap();
    let message = braid_protocol::MessageId::new();
    for text in ["a", "b", "c"] {
        let event = ContextEvent::ContentDelta(ContentDelta {
            context_id: record.id,
            message_id: message,
            sequence: 0,
            delta: text.into(),
            is_final: false,
        });
        fixture
            .store
            .append_event(
                record.id,
                &event,
                std::sync::Arc::new(tokio::sync::broadcast::channel(4).0),
            )
            .await
            .unwrap();
    }
    fixture.store.flush_events().await.unwrap();
    let mut last = 0;
    while last < 3 {
        let notice = tokio::time::timeout(Duration::from_secs(5), notices.next())
            .await
            .expect("a notice within 5 s")
            .unwrap();
        assert_eq!(notice.context, record.id);
        last = notice.last_sequence;
    }
    let replayed = replica_b.events_after(record.id, 0, 10).await.unwrap();
    assert_eq!(replayed.len(), 3);
}
