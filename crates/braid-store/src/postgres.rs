//! PostgreSQL, for several replicas sharing one store.

use std::str::FromStr as _;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use crate::error::{Backend, DbResultExt as _, Result, StoreError};
use braid_protocol::ContextId;
use tokio::sync::broadcast;

use crate::changes::ContextChanges;
use crate::events::{
    ChangeRounds, EVENT_NOTICE_CAPACITY, EventNotice, EventSink, EventWriter, PendingEvent,
    RoundSink, WriteRetry,
};
use crate::group_commit::{ChangeWriter, Tickets};
use crate::lock::{Leases, ReplicaIdentity};
use crate::sql::{CurrentLease, SqlEvents, fenced_contexts, sql_store};

/// The database's clock in milliseconds since the epoch, as SQL: the one text every query that
/// compares with a lease's expiry uses (`clock_timestamp()`, not the transaction's start).
macro_rules! now_ms {
    () => {
        "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT"
    };
}

/// Connections the lease heartbeat keeps apart from the shared pool (one renews; the second
/// covers a renewal still finishing on a slow server when the next one starts).
const HEARTBEAT_CONNECTIONS: u32 = 2;

/// Settings of a PostgreSQL store.
#[derive(Clone, Debug)]
pub struct PostgresOptions {
    /// The most connections the pool opens (20 by default: with 10, a replica's actors waited
    /// up to 4.4 s for a connection under `braid-load`, 1,000 streams on three replicas; three
    /// replicas then use 69 connections, under PostgreSQL's default limit of 100).
    pub max_connections: u32,
    /// How long to wait for a free connection.
    pub acquire_timeout: Duration,
    /// How long a busy event writer gathers events before committing them (a few events are
    /// committed at once).
    pub event_batch_interval: Duration,
    /// Who this replica is in the lease table.
    pub replica: ReplicaIdentity,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        Self {
            max_connections: 20,
            acquire_timeout: Duration::from_secs(10),
            event_batch_interval: Duration::from_millis(5),
            replica: ReplicaIdentity::default(),
        }
    }
}

/// A [`Store`](crate::Store) on a PostgreSQL server.
pub struct PostgresStore {
    pool: PgPool,
    events: EventWriter,
    /// Change sets queued to be saved by the event writer with the events that follow them.
    changes: ChangeWriter,
    leases: Arc<Leases>,
    heartbeat: tokio::task::JoinHandle<()>,
    notices: broadcast::Sender<EventNotice>,
    listener: tokio::task::JoinHandle<()>,
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user@host:port/database`) with default options and brings
    /// the schema up to date.
    pub async fn connect(url: &str) -> Result<Self> {
        let options = PgConnectOptions::from_str(url)
            .during(Backend::Postgres, "reading the connection URL")?;
        Self::connect_with(options, PostgresOptions::default()).await
    }

    /// Connects to `url` with `options` (a replica passes its identity this way).
    pub async fn connect_url_with(url: &str, options: PostgresOptions) -> Result<Self> {
        let connect = PgConnectOptions::from_str(url)
            .during(Backend::Postgres, "reading the connection URL")?;
        Self::connect_with(connect, options).await
    }

    /// Connects with explicit connection and pool options.
    pub async fn connect_with(connect: PgConnectOptions, options: PostgresOptions) -> Result<Self> {
        let pool = PgPoolOptions::new()
            .max_connections(options.max_connections.max(2))
            .acquire_timeout(options.acquire_timeout)
            .connect_with(connect.clone())
            .await
            .during(Backend::Postgres, "connecting")?;
        crate::migrations::postgres()
            .run(&pool)
            .await
            .map_err(|source| StoreError::Migrate {
                backend: Backend::Postgres,
                source,
            })?;
        // The heartbeat renews every lease in one statement, on connections of its own: on
        // the shared pool, a busy replica's renewal waited over two seconds for a connection
        // (measured under `braid-load`, 300 streams on three replicas), missed the lease time,
        // and every actor of the replica stopped mid-turn.
        let heartbeat_pool = PgPoolOptions::new()
            .max_connections(HEARTBEAT_CONNECTIONS)
            .acquire_timeout(options.acquire_timeout)
            .connect_with(connect)
            .await
            .during(Backend::Postgres, "connecting the lease heartbeat")?;
        let leases = Leases::new(options.replica);
        // Commits are announced by the database (NOTIFY), to this replica as to the others.
        // Queued change sets are saved by the event writer, in the transaction of the events
        // that follow them (issue 41: a state saved apart from its `context_update` was left
        // without it by a crash between the two commits).
        let tickets = Arc::new(Tickets::default());
        let (changes, queue) = ChangeWriter::new(Arc::clone(&tickets));
        let sink = Arc::new(SqlEvents(pool.clone(), leases.clone()));
        let events = EventWriter::start_with(
            sink.clone(),
            options.event_batch_interval,
            WriteRetry::default(),
            None,
            crate::writer_thread::WriterHome::Runtime,
            Some(ChangeRounds {
                queue,
                tickets,
                sink,
            }),
        );
        let heartbeat = tokio::spawn(Self::heartbeat(heartbeat_pool, leases.clone()));
        let (notices, _) = broadcast::channel(EVENT_NOTICE_CAPACITY);
        let listener = tokio::spawn(relay_notices(pool.clone(), notices.clone()));
        Ok(Self {
            pool,
            events,
            changes,
            leases,
            heartbeat,
            notices,
            listener,
        })
    }

    fn writer(&self) -> &PgPool {
        &self.pool
    }

    /// Saves at once, in a transaction of its own checked against the context's lease:
    /// PostgreSQL runs writers side by side.
    async fn write_changes(
        &self,
        context: braid_protocol::ContextId,
        changes: &crate::changes::ContextChanges,
    ) -> Result<()> {
        const OP: &str = "saving changes";
        let mut tx = crate::sql::begin(&self.pool)
            .await
            .during(Backend::Postgres, OP)?;
        // On error the transaction is dropped, which rolls it back.
        Self::check_fence(&mut tx, &self.leases, context).await?;
        Self::apply_changes(&mut tx, context, changes).await?;
        tx.commit().await.during(Backend::Postgres, OP)
    }

    /// Refuses the transaction's write when it comes from a replaced owner (this store holds
    /// the context with a token that is no longer the lease's), or from a store without a lease
    /// while another replica's lease is in force. The lease row stays key-share-locked until
    /// the transaction ends, so a takeover (which locks the row exclusively first) waits for
    /// writes already checked, while the heartbeat's renewal (an update of the expiry alone)
    /// does not: with a plain share lock, every write and event batch held the renewal back,
    /// and under load (`braid-load`, 300 streams on three replicas) renewals missed the lease
    /// time and every actor of a replica stopped.
    async fn check_fence(
        conn: &mut sqlx::PgConnection,
        leases: &crate::lock::Leases,
        context: braid_protocol::ContextId,
    ) -> Result<()> {
        let current: Option<(i64, String, bool, i64)> = sqlx::query_as(concat!(
            "SELECT token, owner, released, \
             expires_ms - ",
            now_ms!(),
            " \
             FROM leases WHERE context_id = $1 FOR KEY SHARE",
        ))
        .bind(context.0)
        .fetch_optional(&mut *conn)
        .await
        .during(Backend::Postgres, "checking the context's lease")?;
        let current = current.map(|(token, owner, released, remaining)| {
            crate::sql::CurrentLease::new(leases, (context.0, token, owner, released, remaining))
        });
        crate::sql::fence_verdict(leases, context, current.as_ref())
    }

    /// Nothing runs beside the pools but the heartbeat, which `close` stops itself.
    async fn stop_background_work(&self) {}

    fn reader(&self) -> &PgPool {
        &self.pool
    }
}

impl Drop for PostgresStore {
    fn drop(&mut self) {
        self.heartbeat.abort();
        self.listener.abort();
    }
}

/// Listens for event notices for as long as the store is open, reconnecting after a failure,
/// and hands them to the store's receivers.
async fn relay_notices(pool: PgPool, notices: broadcast::Sender<EventNotice>) {
    loop {
        match listen(&pool).await {
            Ok(mut listener) => loop {
                match listener.next().await {
                    Ok(notice) => {
                        // No receiver is not an error.
                        let _ = notices.send(notice);
                    }
                    Err(error) => {
                        tracing::warn!(%error, "event notices interrupted; listening again");
                        break;
                    }
                }
            },
            Err(error) => tracing::warn!(%error, "cannot listen for event notices; retrying"),
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

async fn listen(pool: &PgPool) -> Result<EventListener> {
    const OP: &str = "listening for event notices";
    let mut listener = sqlx::postgres::PgListener::connect_with(pool)
        .await
        .during(Backend::Postgres, OP)?;
    listener
        .listen(EVENTS_CHANNEL)
        .await
        .during(Backend::Postgres, OP)?;
    Ok(EventListener { listener })
}

impl PostgresStore {
    /// [`Store::search_messages`](crate::Store::search_messages) on the GIN-indexed
    /// `tsvector`: `$1` is the `to_tsquery` text, `$2` the limit; ranked by `ts_rank`, then
    /// newest first (ids are UUIDv7). Snippets are made for the hits only (`ts_headline` reads
    /// the whole text). The branch is one showing the message, the active one first.
    const SEARCH_SQL: &'static str = "SELECT h.context_id, c.title, h.message_id, m.role, m.created_at, \
         ts_headline('simple', h.body, to_tsquery('simple', $1), \
           'StartSel=\"\", StopSel=\"\", MaxWords=24, MinWords=12, ShortWord=0, MaxFragments=1, FragmentDelimiter=\" … \"'), \
         CASE WHEN EXISTS (SELECT 1 FROM branch_messages b WHERE b.context_id = h.context_id \
              AND b.branch = c.active_branch AND b.message_id = h.message_id) \
         THEN c.active_branch ELSE (SELECT MIN(b.branch) FROM branch_messages b \
              WHERE b.context_id = h.context_id AND b.message_id = h.message_id) END \
         FROM (SELECT t.context_id, t.message_id, t.body, ts_rank(t.words, q) AS score \
               FROM message_texts t, to_tsquery('simple', $1) q \
               WHERE t.words @@ q \
               ORDER BY score DESC, t.message_id DESC LIMIT $2) h \
         JOIN messages m ON m.context_id = h.context_id AND m.id = h.message_id \
         JOIN contexts c ON c.id = h.context_id \
         ORDER BY h.score DESC, h.message_id DESC";

    /// The `to_tsquery` text of a search.
    fn search_query(terms: &crate::search::SearchTerms) -> String {
        terms.tsquery()
    }
}

sql_store!(
    PostgresStore,
    sqlx::Postgres,
    crate::error::Backend::Postgres,
    now_ms!(),
    " FOR KEY SHARE",
    " FOR UPDATE",
    false,
    {
        async fn events_after_each(
            &self,
            cursors: &[(ContextId, u64)],
            limit: u32,
        ) -> Result<Vec<(ContextId, braid_protocol::SequencedEvent)>> {
            read_events_after_each(self.reader(), cursors, limit).await
        }
    }
);

/// [`Store::events_after_each`](crate::Store::events_after_each) in one statement: a replica
/// serving the streams of many contexts owned elsewhere reads all their new events with one
/// round trip instead of one (or two) per context and notice.
async fn read_events_after_each(
    pool: &PgPool,
    cursors: &[(ContextId, u64)],
    limit: u32,
) -> Result<Vec<(ContextId, braid_protocol::SequencedEvent)>> {
    use sqlx::Row as _;
    const OP: &str = "reading the events of several contexts";
    if cursors.is_empty() {
        return Ok(Vec::new());
    }
    let contexts: Vec<uuid::Uuid> = cursors.iter().map(|(c, _)| c.0).collect();
    let afters: Vec<i64> = cursors
        .iter()
        .map(|(_, after)| i64::try_from(*after).unwrap_or(i64::MAX))
        .collect();
    let rows = sqlx::query(
        "SELECT c.id, e.seq, e.event \
         FROM UNNEST($1::uuid[], $2::bigint[]) AS c(id, after) \
         CROSS JOIN LATERAL (SELECT seq, event FROM events \
             WHERE context_id = c.id AND seq > c.after ORDER BY seq LIMIT $3) AS e \
         ORDER BY c.id, e.seq",
    )
    .bind(&contexts)
    .bind(&afters)
    .bind(i64::from(limit))
    .fetch_all(pool)
    .await
    .during(Backend::Postgres, OP)?;
    let mut events = Vec::with_capacity(rows.len());
    for row in &rows {
        let context: uuid::Uuid = row.try_get(0).during(Backend::Postgres, OP)?;
        let sequence: i64 = row.try_get(1).during(Backend::Postgres, OP)?;
        let json: String = row.try_get(2).during(Backend::Postgres, OP)?;
        match serde_json::from_str(&json) {
            Ok(event) => events.push((
                ContextId(context),
                braid_protocol::SequencedEvent {
                    sequence: u64::try_from(sequence).unwrap_or(0),
                    event,
                },
            )),
            Err(error) => tracing::warn!(
                context = %context,
                sequence,
                error = %error,
                "stored event unreadable; skipped in replay"
            ),
        }
    }
    Ok(events)
}

/// The channel committed events are announced on, as `<context id>:<last sequence>`.
pub const EVENTS_CHANNEL: &str = "braid_events";

#[async_trait::async_trait]
impl RoundSink for SqlEvents<sqlx::Postgres> {
    async fn write_round(
        &self,
        changes: &[(ContextId, &ContextChanges)],
        events: &[PendingEvent],
    ) -> Result<Vec<ContextId>> {
        const OP: &str = "saving changes and events";
        let mut tx = crate::sql::begin(&self.0)
            .await
            .during(Backend::Postgres, OP)?;
        // On error the transaction is dropped, which rolls it back.
        for (context, set) in changes {
            PostgresStore::check_fence(&mut tx, &self.1, *context).await?;
            PostgresStore::apply_changes(&mut tx, *context, set).await?;
        }
        let fenced = if events.is_empty() {
            Vec::new()
        } else {
            write_events(&mut tx, &self.1, events).await?
        };
        tx.commit().await.during(Backend::Postgres, OP)?;
        Ok(fenced)
    }
}

/// Writes a batch of events in the open transaction, leaving out those of contexts whose lease
/// has moved on from the token they carry; answers those contexts.
async fn write_events(
    conn: &mut sqlx::PgConnection,
    leases: &Leases,
    batch: &[PendingEvent],
) -> Result<Vec<ContextId>> {
    const OP: &str = "writing events";
    // The leases of the batch's contexts stay key-share-locked until the commit, so a
    // takeover (which locks the row `FOR UPDATE` first) waits for this batch and reads the
    // log after it, while a renewal of the lease does not wait.
    let mut contexts: Vec<uuid::Uuid> = batch.iter().map(|e| e.context.0).collect();
    contexts.dedup();
    let current: Vec<(uuid::Uuid, i64, String, bool, i64)> = sqlx::query_as(concat!(
        "SELECT context_id, token, owner, released, expires_ms - ",
        now_ms!(),
        " FROM leases WHERE context_id = ANY($1) FOR KEY SHARE",
    ))
    .bind(&contexts)
    .fetch_all(&mut *conn)
    .await
    .during(Backend::Postgres, OP)?;
    let current: Vec<CurrentLease> = current
        .into_iter()
        .map(|row| CurrentLease::new(leases, row))
        .collect();
    let fenced = fenced_contexts(batch, &current, leases);
    let written: Vec<&PendingEvent> = batch
        .iter()
        .filter(|e| !fenced.contains(&e.context))
        .collect();
    // One statement for the whole batch: a round trip per event would make a busy server
    // fall behind.
    let contexts: Vec<uuid::Uuid> = written.iter().map(|e| e.context.0).collect();
    let sequences: Vec<i64> = written
        .iter()
        .map(|e| i64::try_from(e.sequence).unwrap_or(i64::MAX))
        .collect();
    let events: Vec<&str> = written.iter().map(|e| e.json.as_str()).collect();
    let times: Vec<chrono::DateTime<chrono::Utc>> = written.iter().map(|e| e.at).collect();
    sqlx::query(
        "INSERT INTO events (context_id, seq, event, created_at) \
             SELECT * FROM UNNEST($1::uuid[], $2::bigint[], $3::text[], $4::timestamptz[])",
    )
    .bind(&contexts)
    .bind(&sequences)
    .bind(&events)
    .bind(&times)
    .execute(&mut *conn)
    .await
    .during(Backend::Postgres, OP)?;
    // Other replicas learn of the new events when this commits (LISTEN/NOTIFY).
    sqlx::query(
        "SELECT pg_notify($1, c::text || ':' || MAX(s)::text) \
             FROM UNNEST($2::uuid[], $3::bigint[]) AS t(c, s) GROUP BY c",
    )
    .bind(EVENTS_CHANNEL)
    .bind(&contexts)
    .bind(&sequences)
    .execute(&mut *conn)
    .await
    .during(Backend::Postgres, OP)?;
    Ok(fenced)
}

#[async_trait::async_trait]
impl EventSink for SqlEvents<sqlx::Postgres> {
    async fn write(&self, batch: &[PendingEvent]) -> Result<Vec<ContextId>> {
        const OP: &str = "writing events";
        let mut tx = crate::sql::begin(&self.0)
            .await
            .during(Backend::Postgres, OP)?;
        let fenced = write_events(&mut tx, &self.1, batch).await?;
        tx.commit().await.during(Backend::Postgres, OP)?;
        Ok(fenced)
    }

    async fn max_sequence(&self, context: ContextId) -> Result<u64> {
        let max: i64 =
            sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) FROM events WHERE context_id = $1")
                .bind(context.0)
                .fetch_one(&self.0)
                .await
                .during(Backend::Postgres, "reading the last event sequence")?;
        Ok(u64::try_from(max).unwrap_or(0))
    }
}

/// Receives [`EventNotice`]s from every replica sharing the database.
pub struct EventListener {
    listener: sqlx::postgres::PgListener,
}

impl EventListener {
    /// The next notice. A notice lost while the connection was being re-established is not
    /// replayed: after an error, catch up with `events_after` from the last sequence seen.
    pub async fn next(&mut self) -> Result<EventNotice> {
        loop {
            let notification = self
                .listener
                .recv()
                .await
                .during(Backend::Postgres, "waiting for event notices")?;
            match parse_notice(notification.payload()) {
                Some(notice) => return Ok(notice),
                None => tracing::warn!(
                    payload = notification.payload(),
                    "event notice unreadable; ignored"
                ),
            }
        }
    }
}

fn parse_notice(payload: &str) -> Option<EventNotice> {
    let (context, sequence) = payload.split_once(':')?;
    Some(EventNotice {
        context: context.parse().ok()?,
        last_sequence: sequence.parse().ok()?,
    })
}

impl PostgresStore {
    /// Starts listening for events committed by any replica (including this one).
    pub async fn listen_events(&self) -> Result<EventListener> {
        listen(&self.pool).await
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn notices_read_context_and_sequence() {
        let context = ContextId::new();
        let notice = parse_notice(&format!("{context}:42")).unwrap();
        assert_eq!(notice.context, context);
        assert_eq!(notice.last_sequence, 42);
        assert!(parse_notice("garbage").is_none());
        assert!(parse_notice(&format!("{context}:-1")).is_none());
    }
}
