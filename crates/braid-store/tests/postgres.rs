//! What only PostgreSQL does: several replicas on one store.

use crate::support;

use std::time::Duration;

use braid_protocol::{BranchName, ContentDelta, ContextConfig, ContextEvent, Message};
use braid_store::{
    ContextChanges, ContextRecord, MessageRange, PostgresOptions, PostgresStore, ReplicaIdentity,
    Store, StoreError,
};

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
            turn_id: None,
            branch: None,
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

/// A TCP relay between one replica and the database, which the test can cut (every open
/// connection dropped, new ones refused) and restore.
struct Relay {
    port: u16,
    open: std::sync::Arc<std::sync::atomic::AtomicBool>,
    connections: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    _accept: tokio::task::JoinHandle<()>,
}

impl Relay {
    async fn start(target: String) -> Relay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let open = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let connections: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>> =
            Default::default();
        let accept = {
            let (open, connections) = (open.clone(), connections.clone());
            tokio::spawn(async move {
                loop {
                    let Ok((mut inbound, _)) = listener.accept().await else {
                        return;
                    };
                    if !open.load(std::sync::atomic::Ordering::SeqCst) {
                        continue;
                    }
                    let target = target.clone();
                    connections.lock().unwrap().push(tokio::spawn(async move {
                        if let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await {
                            let _ =
                                tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                        }
                    }));
                }
            })
        };
        Relay {
            port,
            open,
            connections,
            _accept: accept,
        }
    }

    fn cut(&self) {
        self.open.store(false, std::sync::atomic::Ordering::SeqCst);
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }

    fn restore(&self) {
        self.open.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_cut_off_from_the_database_loses_its_lease_and_its_writes_are_refused() {
    let Some(fixture) = support::postgres("a_replica_cut_off_from_the_database").await else {
        return;
    };
    let support::Place::Postgres { options } = &fixture.place else {
        unreachable!()
    };
    let ttl = Duration::from_secs(1);
    let replica = |options: sqlx::postgres::PgConnectOptions| async move {
        PostgresStore::connect_with(
            options,
            PostgresOptions {
                acquire_timeout: Duration::from_secs(1),
                replica: ReplicaIdentity {
                    lease_ttl: ttl,
                    ..ReplicaIdentity::default()
                },
                ..PostgresOptions::default()
            },
        )
        .await
        .unwrap()
    };
    let relay = Relay::start(format!("{}:{}", options.get_host(), options.get_port())).await;
    let a = replica((**options).clone().host("127.0.0.1").port(relay.port)).await;
    let b = replica((**options).clone()).await;
    let record = ContextRecord::new("shared", ContextConfig::default());
    b.create_context(&record).await.unwrap();
    let main = BranchName::main();

    let lock_a = a.try_lock_context(record.id).await.unwrap().unwrap();
    let before = Message::user_text("written by A while it owned the context");
    a.save_changes(
        record.id,
        &ContextChanges::new().add_message(&main, before.clone()),
    )
    .await
    .unwrap();

    relay.cut();
    let cut_at = std::time::Instant::now();
    tokio::time::timeout(ttl * 3, lock_a.lost().cancelled())
        .await
        .expect("A learns within the lease time that its lease is lost");
    let noticed = cut_at.elapsed();
    assert!(noticed <= ttl + Duration::from_millis(500), "{noticed:?}");

    // B takes the context over once A's lease has run out on the database's clock.
    let mut lock_b = None;
    for _ in 0..100 {
        lock_b = b.try_lock_context(record.id).await.unwrap();
        if lock_b.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let lock_b = lock_b.expect("B takes over within a few seconds");
    assert!(lock_b.token() > lock_a.token());
    let by_b = Message::user_text("written by B, the new owner");
    b.save_changes(
        record.id,
        &ContextChanges::new().add_message(&main, by_b.clone()),
    )
    .await
    .unwrap();

    // A's database connection comes back: its writes are refused by the fencing token.
    relay.restore();
    let late = Message::user_text("written by A after losing the lease");
    let refused = a
        .save_changes(record.id, &ContextChanges::new().add_message(&main, late))
        .await
        .unwrap_err();
    assert!(
        matches!(refused, StoreError::Fenced { current, .. } if current == lock_b.token()),
        "{refused}"
    );
    let stored = b
        .load_messages(record.id, &main, MessageRange::All)
        .await
        .unwrap();
    assert_eq!(
        stored.iter().map(|m| m.id).collect::<Vec<_>>(),
        vec![before.id, by_b.id]
    );
    eprintln!(
        "lease: A noticed the cut after {noticed:?}; B took over with token {}",
        lock_b.token()
    );
}
