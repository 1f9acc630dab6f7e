//! What only PostgreSQL does: several replicas on one store.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::Duration;

use braid_protocol::{BranchName, ContextConfig, Message};
use braid_store::{ContextChanges, ContextRecord, MessageRange};

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
    assert!(
        replica_a
            .try_lock_context(record.id)
            .await
            .unwrap()
            .is_some()
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
